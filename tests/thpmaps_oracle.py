#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An oracle for 'thp show --folios --rollup --cont SIZE': the counters of
the kernel's tools/mm/thpmaps, computed here from its definitions, page by
page, on a recorded tree (proc/PID/smaps, proc/PID/pagemap, proc/kpageflags).

  tests/thpmaps_oracle.py ROOT PID THP_JSON [CONT_SIZE...]

Compares with the "folios" object of THP_JSON (thp show --json) and prints
each counter that differs; exit status 1 when one does.

The definitions (tools/mm/thpmaps, Linux 6.9+):
- A VMA is walked when Rss > 0 and it is not hugetlbfs (thpmaps also skips a
  VMA without access, PROT_NONE, whose pages smaps counts: thp walks it).
- Its present pages that belong to large folios (KPF_THP) form ranges where
  both the virtual and the physical frame numbers go up by one.
- In a range, pages before the first folio head are partial; the last folio
  is partial when the page frame after the range is a tail; every other
  folio, from its head to the next head, counts whole under the order
  floor(log2(pages)), aligned when its first virtual page is a multiple of
  its size.
- For --cont of 2^N pages: a range whose first virtual and physical frame
  differ in alignment (modulo 2^N) gives nothing; otherwise every block of
  2^N pages from the first aligned virtual page on, inside the range, counts
  when no head lies in its pages 2..2^N.
- Memory PMD-mapped, as smaps says (AnonHugePages; ShmemPmdMapped +
  FilePmdMapped), is taken out of the PMD-order aligned counter and of the
  --cont counters of the VMA (never below zero) and reported as the PMD
  counters.
Deliberate differences: folios of order 1 (8 KiB with 4 KiB pages) have
their counters (*-thp-pte-aligned-8kB...), which thpmaps leaves out. Pages
of the huge zero page (KPF_ZERO_PAGE with KPF_THP) are dropped first;
thpmaps counts them as a file folio.
"""
import json
import math
import struct
import sys

KPF_ANON, KPF_HEAD, KPF_TAIL, KPF_THP, KPF_ZERO = 1 << 12, 1 << 15, 1 << 16, 1 << 22, 1 << 24
PRESENT, PFN_MASK = 1 << 63, (1 << 55) - 1


def entries(path, first, n):
    with open(path, 'rb') as f:
        f.seek(first * 8)
        data = f.read(n * 8)
    data += b'\0' * (n * 8 - len(data))
    return struct.unpack(f'<{n}Q', data)


def vmas(root, pid):
    out, cur = [], None
    for line in open(f'{root}/proc/{pid}/smaps'):
        f = line.split()
        if '-' in f[0] and len(f) >= 5 and ':' in f[3]:
            s, e = (int(x, 16) for x in f[0].split('-'))
            cur = {'start': s, 'end': e, 'stats': {}, 'flags': []}
            out.append(cur)
        elif f[0] == 'VmFlags:':
            cur['flags'] = f[1:]
        elif f[0].endswith(':') and len(f) >= 2 and f[1].isdigit():
            cur['stats'][f[0][:-1]] = int(f[1])
    return out


def ranges(pages):
    """pages: [(vfn, pfn, flags)] of large folios; runs contiguous in both."""
    run = []
    for p in pages:
        if run and (p[0] != run[-1][0] + 1 or p[1] != run[-1][1] + 1):
            yield run
            run = []
        run.append(p)
    if run:
        yield run


def vma_stats(v, pm, kpf_path, shift, pmd_order, conts):
    first, n = v['start'] >> shift, (v['end'] - v['start']) >> shift
    pages = []
    for i, e in enumerate(entries(pm, first, n)):
        if e & PRESENT and e & PFN_MASK:
            pfn = e & PFN_MASK
            fl = entries(kpf_path, pfn, 1)[0]
            if fl & KPF_THP and not fl & KPF_ZERO:
                pages.append((first + i, pfn, fl))
    kb = lambda nr: (nr << shift) >> 10
    kind = lambda fl: 'anon' if fl & KPF_ANON else 'file'
    st = {k: {'partial': 0, 'aligned': [0] * (pmd_order + 1), 'unaligned': [0] * (pmd_order + 1)}
          for k in ('anon', 'file')}
    cont = {o: {'anon': 0, 'file': 0} for o in conts}
    for run in ranges(pages):
        heads = [i for i, p in enumerate(run) if p[2] & KPF_HEAD]
        end = len(run)
        st[kind(run[0][2])]['partial'] += (heads[0] if heads else end)
        if heads and entries(kpf_path, run[-1][1] + 1, 1)[0] & KPF_TAIL:
            nr = end - heads[-1]
            st[kind(run[heads[-1]][2])]['partial'] += nr
            end -= nr
            heads = heads[:-1]
        for j, h in enumerate(heads):
            nr = (heads[j + 1] if j + 1 < len(heads) else end) - h
            order = int(math.log2(nr))
            vfn = run[h][0]
            al = 'aligned' if vfn % (1 << order) == 0 else 'unaligned'
            st[kind(run[h][2])][al][order] += 1 << order
        for o in conts:
            nr = 1 << o
            if run[0][1] % nr != run[0][0] % nr:
                continue
            i = (-run[0][0]) % nr
            while i + nr <= len(run):
                if not any(p[2] & KPF_HEAD for p in run[i + 1:i + nr]):
                    cont[o][kind(run[i][2])] += nr
                i += nr
    s = v['stats']
    pmd = {'anon': s.get('AnonHugePages', 0), 'file': s.get('ShmemPmdMapped', 0) + s.get('FilePmdMapped', 0)}
    out = {}
    for k in ('anon', 'file'):
        st[k]['aligned'][pmd_order] = max(0, st[k]['aligned'][pmd_order] - (pmd[k] << 10 >> shift))
        out[f'{k}-thp-pmd-aligned-{kb(1 << pmd_order)}kB'] = pmd[k]
        for al in ('aligned', 'unaligned'):
            for o in range(1, pmd_order + 1):
                out[f'{k}-thp-pte-{al}-{kb(1 << o)}kB'] = kb(st[k][al][o])
        out[f'{k}-thp-pte-partial'] = kb(st[k]['partial'])
    for o in conts:
        size = kb(1 << o)
        for k in ('anon', 'file'):
            out[f'{k}-cont-pmd-aligned-{size}kB'] = pmd[k]
        for k in ('anon', 'file'):
            out[f'{k}-cont-pte-aligned-{size}kB'] = kb(max(0, cont[o][k] - (pmd[k] << 10 >> shift)))
    return out


def size_bytes(text):
    units = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


def main():
    root, pid, thp_json = sys.argv[1:4]
    pmd = int(open(f'{root}/sys/kernel/mm/transparent_hugepage/hpage_pmd_size').read())
    page = int(math.isqrt(pmd * 8))  # a page table of 8-byte entries fills a page
    shift = int(math.log2(page))
    pmd_order = int(math.log2(pmd // page))
    conts = [int(math.log2(size_bytes(c) // page)) for c in sys.argv[4:]]
    want = {}
    for v in vmas(root, pid):
        if 'ht' in v['flags'] or v['stats'].get('Rss', 0) == 0:
            continue
        for k, val in vma_stats(v, f'{root}/proc/{pid}/pagemap', f'{root}/proc/kpageflags', shift,
                                pmd_order, conts).items():
            want[k] = want.get(k, 0) + val
    got = json.load(open(thp_json))['folios']
    bad = 0
    for k in sorted(set(want) | set(got)):
        w = want.get(k, 0) * 1024
        if got.get(k) != w:
            print(f'{k}: thp {got.get(k)}, thpmaps definition {w}')
            bad = 1
    if bad:
        print(f'{len(want)} counters compared: the ones above differ')
    sys.exit(bad)


if __name__ == '__main__':
    main()
