/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status.c - assemble the whole THP state of a host from one root */
#include "internal.h"
#include "proc.h"
#include "vm.h"

#include <elf.h>
#include <errno.h>
#include <string.h>

uint64_t thp_page_size_of_pmd(uint64_t pmd_size)
{
	for (uint64_t base = 4096; base <= (1u << 20); base <<= 1)
		if (base * base / 8 == pmd_size)
			return base;
	return 0;
}

uint64_t thp_status_ptes_per_pmd(const struct thp_status *st)
{
	return st->pmd_size && st->page_size ? st->pmd_size / st->page_size : 0;
}

uint64_t thp_page_size(const struct thp_root *root)
{
	Elf64_auxv_t av[64];
	ssize_t n = thp_read_buf(root, "proc/self/auxv", (char *)av, sizeof(av));
	char buf[32];
	uint64_t pmd;

	for (ssize_t i = 0; n > 0 && (i + 1) * (ssize_t)sizeof(av[0]) <= n; i++) {
		if (av[i].a_type == AT_NULL)
			break;
		if (av[i].a_type == AT_PAGESZ)
			return av[i].a_un.a_val;
	}
	if (thp_read_buf(root, "sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf, sizeof(buf)) > 0 &&
	    thp_parse_u64(buf, &pmd) == 0)
		return thp_page_size_of_pmd(pmd);
	return 0;
}

void thp_hostname(const struct thp_root *root, char *buf, size_t cap)
{
	if (thp_read_buf(root, "proc/sys/kernel/hostname", buf, cap) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static void read_kernel(const struct thp_root *root, struct thp_status *st)
{
	ssize_t n = thp_read_buf(root, "proc/sys/kernel/osrelease", st->release,
				 sizeof(st->release));

	st->kmajor = st->kminor = -1;
	st->page_size = thp_page_size(root);
	thp_hostname(root, st->hostname, sizeof(st->hostname));
	if (n < 0) {
		st->release_err = (int)n;
		st->release[0] = '\0';
		return;
	}
	st->release[strcspn(st->release, "\n")] = '\0';
	thp_parse_release(st->release, &st->kmajor, &st->kminor);
}

void thp_procs_add(struct thp_procs *p, pid_t pid, int err, const struct thp_rollup *r)
{
	thp_denied_add(&p->unreadable, pid, err);
	if (err)
		return; /* exited, or a kernel thread */
	p->readable++;
	if (r->anon_huge) {
		p->with_huge++;
		p->anon_huge += r->anon_huge;
	}
}

struct scan {
	const struct thp_root *root;
	struct thp_procs *p;
};

static int count_proc(pid_t pid, void *ctx)
{
	struct scan *sc = ctx;
	struct thp_rollup r = { 0 };

	thp_procs_add(sc->p, pid, thp_rollup_read(sc->root, pid, &r), &r);
	return 0;
}

bool thp_status_holds_pmd(const struct thp_status *st)
{
	static const char *const keys[] = { "AnonHugePages", "ShmemPmdMapped", "FilePmdMapped" };
	uint64_t v, sum = 0;

	if (st->meminfo_err)
		return true;
	for (size_t i = 0; i < 3; i++)
		if (thp_counter_get(st->meminfo, st->nmeminfo, keys[i], &v))
			sum += v;
	return sum > 0;
}

void thp_status_refresh(const struct thp_root *root, struct thp_status *st, const char *const *stats,
			int nstats, const char *const *kh, int nkh)
{
	thp_counters_read(root, st);
	thp_policy_refresh(root, st, stats, nstats, kh, nkh);
}

void thp_status_read_policy(const struct thp_root *root, struct thp_status *st)
{
	memset(st, 0, sizeof(*st));
	read_kernel(root, st);
	thp_policy_read(root, st, false);
}

int thp_status_read(const struct thp_root *root, struct thp_status *st, bool scan)
{
	memset(st, 0, sizeof(*st));
	read_kernel(root, st);
	thp_policy_read(root, st, true);
	thp_counters_read(root, st);
	thp_vm_read(root, st);
	thp_boot_read(root, st);
	thp_tlb_reach_read(root, &st->reach);
	if (scan && thp_status_holds_pmd(st)) {
		struct scan sc = { root, &st->procs };
		st->procs.err = thp_proc_each(root, count_proc, &sc);
		st->procs.scanned = !st->procs.err;
	}
	return 0;
}
