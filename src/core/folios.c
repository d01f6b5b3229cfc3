/* SPDX-License-Identifier: GPL-2.0-or-later */
/* folios.c - walk pagemap and kpageflags to see how every page is mapped */
#include "folios.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "jobs.h"
#include "parse.h"
#include "status.h"
#include "why.h"

/* The PAGEMAP_SCAN ioctl (Linux 6.7) as the kernel's uapi defines it, for
 * systems whose headers predate it. */
#define THP_PAGEMAP_SCAN _IOWR('f', 16, struct thp_pm_scan_arg)
#define THP_PAGE_IS_FILE (1u << 2)
#define THP_PAGE_IS_PRESENT (1u << 3)
#define THP_PAGE_IS_PFNZERO (1u << 5)
#define THP_PAGE_IS_HUGE (1u << 6)

struct thp_page_region {
	uint64_t start, end, categories;
};

struct thp_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

/* pagemap and kpageflags bits (Documentation/admin-guide/mm/pagemap.rst) */
#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)
#define PM_EXCLUSIVE (1ull << 56) /* mapped by this process alone */
#define KPF_ANON (1ull << 12)
#define KPF_SWAPBACKED (1ull << 14) /* shmem, when not anonymous */
#define KPF_HEAD (1ull << 15)
#define KPF_TAIL (1ull << 16)
#define KPF_NOPAGE (1ull << 20) /* no struct page: device memory */
#define KPF_THP (1ull << 22)
#define KPF_ZERO_PAGE (1ull << 24) /* with KPF_THP: the huge zero page */

#define CHUNK 65536 /* pagemap entries per read: 512 KiB */
#define GAP 16 /* page frames skipped to read two runs in one kpageflags pread (a system
		* call costs about what 20 entries do) */
#define SCAN_VEC 256
/* Resident bytes from which a process is rolled up without smaps: below, the
 * smaps walk costs less than a PROCMAP_QUERY call and a pagemap read for each
 * VMA, its Rss telling which VMAs are empty */
#define QUERY_MIN (64ull << 20)
#define CACHE_SLOTS (1u << 16) /* 256 MiB of 4 KiB frames, 1 MiB of memory */

/* The kpageflags of frames that more than one process maps (shared
 * libraries, memory shared since a fork), kept for the next processes of a
 * walk over many: each would read the same entries again. Direct-mapped by
 * page frame. */
struct flag_cache {
	uint64_t tag[CACHE_SLOTS]; /* the page frame + 1; 0: empty */
	uint64_t flags[CACHE_SLOTS];
	uint64_t run[CHUNK + 1]; /* the flags of one run, taken from the cache */
};

struct thp_folio_reader {
	const struct thp_root *root;
	int kpf;
	int page_shift, pmd_order;
	unsigned cont_orders;
	int scan; /* 1 works, 0 unsupported, -1 not tried yet */
	struct thp_pfn_nodes nodes;
	int sole_node; /* thp_pfn_sole_node(&nodes) */
	uint64_t pm[CHUNK];
	uint64_t kf_base; /* the page frame of kf[0] */
	size_t kf_n;      /* entries of kf read for the current pagemap read */
	uint64_t kf[CHUNK + 1];
	struct flag_cache *cache; /* NULL unless thp_folio_reader_share() */
	bool query; /* thp_folios_proc may take VMAs from PROCMAP_QUERY (see query_kernel) */
	int jobs;   /* workers of a walk (thp_folio_reader_jobs) */
	struct thp_folio_reader **workers; /* [1..jobs-1] their readers, [0] this one; NULL: one */
	bool copy;  /* a worker's reader: its node table is the first reader's */
};

/* A --cont block being followed: its first page and whether it still counts. */
struct block {
	uint64_t start;
	bool ok, anon;
};

/* The folio being followed through consecutive pages. While OPEN, LAST_VFN
 * and LAST_PFN are the previous page, which belonged to a large folio. */
struct walk {
	struct thp_folio_stats *s;
	const struct thp_pfn_nodes *nodes;
	int shift;
	bool open, head, anon, next_tail;
	uint64_t vfn, pfn, nr, last_vfn, last_pfn;
	struct block blk[THP_FOLIO_ORDERS];
	int watch;     /* the PMD order: walk_range() stops at a run that may be a PMD mapping; 0: never */
	uint64_t stop; /* where it stopped (the first page of that run); 0: it did not */
};

/* True when N pages mapped from virtual page VFN to page frame PFN on hold a
 * whole block of 2^ORDER pages aligned in both address spaces: the only way
 * a PMD mapping of that order shows in pagemap. */
static bool pmd_candidate(uint64_t vfn, uint64_t pfn, uint64_t n, int order)
{
	uint64_t mask = (1ull << order) - 1, first = (vfn + mask) & ~mask;

	return ((vfn ^ pfn) & mask) == 0 && first + mask < vfn + n;
}

static int order_of(uint64_t nr)
{
	int o = 0;
	while (o + 1 < THP_FOLIO_ORDERS && (2ull << o) <= nr)
		o++;
	return o;
}

/* The slot of thp_folio_stats.node_* that NODE (-1: none) counts in. */
static int slot_of(int node)
{
	return node < 0 ? THP_NUMA_MAX : node;
}

/* The slot of thp_folio_stats.node_* that page frame PFN counts in. */
static int node_slot(const struct thp_pfn_nodes *t, uint64_t pfn)
{
	return slot_of(thp_pfn_node(t, pfn));
}

/* Accounts the followed folio: whole (it began with its head and the page
 * after it is no tail) by order and alignment, else as partial; and on the
 * node of its first page frame. */
static void close_folio(struct walk *w)
{
	int kind, slot;
	uint64_t bytes;

	if (!w->open)
		return;
	w->open = false;
	kind = w->anon ? THP_FOLIO_ANON : THP_FOLIO_FILE;
	slot = node_slot(w->nodes, w->pfn);
	bytes = w->nr << w->shift;
	w->s->node_mthp[slot] += bytes;
	if (w->head && !w->next_tail && w->nr > 1) {
		int o = order_of(w->nr);
		bool aligned = (w->vfn & (w->nr - 1)) == 0;
		(aligned ? w->s->aligned[kind] : w->s->unaligned[kind])[o] += bytes;
		if (aligned && o == w->s->pmd_order)
			w->s->node_pmd_order[slot] += bytes;
	} else {
		w->s->partial[kind] += bytes;
	}
}

/* Follows the --cont blocks through one page of a large folio; CONT: it
 * follows the previous page in both address spaces. */
static void count_cont(struct walk *w, uint64_t vfn, uint64_t pfn, bool head, bool cont, bool anon)
{
	for (int o = 1; o < THP_FOLIO_ORDERS; o++) {
		uint64_t mask = (1ull << o) - 1;
		struct block *b = &w->blk[o];

		if (!(w->s->cont_orders & (1u << o)))
			continue;
		if (!(vfn & mask))
			*b = (struct block){ vfn, !(pfn & mask), anon };
		else if (!cont || head)
			b->ok = false;
		if ((vfn & mask) == mask && b->ok && b->start == vfn - mask)
			w->s->cont[b->anon ? THP_FOLIO_ANON : THP_FOLIO_FILE][o] += (mask + 1) << w->shift;
	}
}

static void walk_page(struct walk *w, uint64_t vfn, uint64_t pfn, uint64_t flags, uint64_t next)
{
	bool head = flags & KPF_HEAD, cont;

	if (!(flags & KPF_THP) || (flags & KPF_ZERO_PAGE)) {
		close_folio(w);
		if (flags & KPF_THP)
			w->s->huge_zero += 1ull << w->shift;
		return;
	}
	cont = w->open && vfn == w->last_vfn + 1 && pfn == w->last_pfn + 1;
	count_cont(w, vfn, pfn, head, cont, flags & KPF_ANON);
	if (cont && !head) {
		w->nr++;
	} else {
		close_folio(w);
		w->open = true;
		w->head = head;
		w->anon = flags & KPF_ANON;
		w->vfn = vfn;
		w->pfn = pfn;
		w->nr = 1;
	}
	w->last_vfn = vfn;
	w->last_pfn = pfn;
	w->next_tail = next & KPF_TAIL;
}
/* Reads N kpageflags entries from PFN into BUF; entries past the end read as 0. */
static int read_flags(struct thp_folio_reader *fr, uint64_t pfn, uint64_t *buf, size_t n)
{
	ssize_t got;

	do
		got = pread(fr->kpf, buf, n * 8, (off_t)(pfn * 8));
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	memset((char *)buf + got, 0, n * 8 - (size_t)got);
	return 0;
}

/* The end of the kpageflags window that starts at page frame LO for the run
 * ending (exclusive) at HI, with the entry after it: grown over the pages of
 * PM[M..N) that follow while each lies within GAP frames of it. */
static uint64_t window_end(const uint64_t *pm, size_t m, size_t n, uint64_t lo, uint64_t hi)
{
	for (hi++; m < n; m++) {
		uint64_t p = pm[m] & PM_PFN_MASK;

		if (!(pm[m] & PM_PRESENT) || !p)
			continue;
		if (p < lo || p >= hi + GAP || p + 2 - lo > CHUNK + 1)
			break;
		if (p + 2 > hi)
			hi = p + 2;
	}
	return hi;
}

/* Follows the pages of one run of contiguous page frames from VFN and PFN
 * whose flags are F[0..N) and F[N] the frame after it. */
static void walk_run(struct walk *w, uint64_t vfn, uint64_t pfn, const uint64_t *f, size_t n)
{
	uint64_t any = 0, rss = 0, anon = 0;

	for (size_t k = 0; k < n; k++) {
		any |= f[k];
		if (!(f[k] & (KPF_ZERO_PAGE | KPF_NOPAGE))) {
			rss++;
			anon += (f[k] & KPF_ANON) != 0;
		}
	}
	w->s->rss += rss << w->shift;
	w->s->anon += anon << w->shift;
	if (!(any & KPF_THP)) {
		close_folio(w); /* what walk_page does for each page of it */
		return;
	}
	for (size_t k = 0; k < n; k++)
		walk_page(w, vfn + k, pfn + k, f[k], f[k + 1]);
}

/* True when every page of PM[I..J) is mapped by more than one process. */
static bool run_shared(const uint64_t *pm, size_t i, size_t j)
{
	for (; i < j; i++)
		if (pm[i] & PM_EXCLUSIVE)
			return false;
	return true;
}

/* Copies the cached flags of frames [PFN, PFN+N) to OUT; false when one is
 * not cached. */
static bool cache_get(const struct flag_cache *c, uint64_t pfn, size_t n, uint64_t *out)
{
	for (size_t k = 0; k < n; k++) {
		size_t slot = (pfn + k) % CACHE_SLOTS;

		if (c->tag[slot] != pfn + k + 1)
			return false;
		out[k] = c->flags[slot];
	}
	return true;
}

static void cache_put(struct flag_cache *c, uint64_t pfn, const uint64_t *f, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		size_t slot = (pfn + k) % CACHE_SLOTS;

		c->tag[slot] = pfn + k + 1;
		c->flags[slot] = f[k];
	}
}

/* The kpageflags of the run of page frames PM[I..J) of the N entries read
 * and of the frame after it: from the window read last, from the cache when
 * other processes map the run too, or read with a window over the close runs
 * that follow. Returns NULL with *ERR set when the read fails. */
static const uint64_t *run_flags(struct thp_folio_reader *fr, size_t i, size_t j, size_t n, int *err)
{
	uint64_t pfn = fr->pm[i] & PM_PFN_MASK;
	bool shared = fr->cache && run_shared(fr->pm, i, j);

	if (pfn >= fr->kf_base && pfn + (j - i) + 1 <= fr->kf_base + fr->kf_n)
		return fr->kf + (pfn - fr->kf_base);
	if (shared && cache_get(fr->cache, pfn, j - i + 1, fr->cache->run))
		return fr->cache->run;
	fr->kf_base = pfn;
	fr->kf_n = window_end(fr->pm, j, n, pfn, pfn + (j - i)) - pfn;
	*err = read_flags(fr, pfn, fr->kf, fr->kf_n);
	if (*err)
		return NULL;
	if (shared)
		cache_put(fr->cache, pfn, fr->kf, fr->kf_n);
	return fr->kf;
}

/* Called for each region of pages that share their PAGEMAP_SCAN categories. */
typedef int (*region_fn)(uint64_t start, uint64_t end, uint64_t categories, void *ctx);

/* Calls FN for each region of [START, END) of the pagemap PM_FD whose pages
 * have every category of MASK, with its categories among RETURNED (asking for
 * PAGE_IS_FILE makes the kernel look up the page of every entry). Returns 0,
 * FN's non-zero value or -errno of the ioctl. */
static int scan_regions(int pm_fd, uint64_t start, uint64_t end, uint64_t mask, uint64_t returned,
			region_fn fn, void *ctx)
{
	struct thp_page_region vec[SCAN_VEC];

	while (start < end) {
		struct thp_pm_scan_arg a = {
			.size = sizeof(a), .start = start, .end = end, .vec = (uintptr_t)vec,
			.vec_len = SCAN_VEC, .category_mask = mask,
			.return_mask = returned,
		};
		int n = ioctl(pm_fd, THP_PAGEMAP_SCAN, &a), rc;

		if (n < 0)
			return -errno;
		for (int i = 0; i < n; i++)
			if ((rc = fn(vec[i].start, vec[i].end, vec[i].categories, ctx)))
				return rc;
		if (a.walk_end <= start)
			break;
		start = a.walk_end;
	}
	return 0;
}

static int first_region(uint64_t start, uint64_t end, uint64_t categories, void *ctx)
{
	(void)end, (void)categories;
	*(uint64_t *)ctx = start;
	return 1;
}

/* The first page frame number at or after VFN, below LAST, that PAGEMAP_FD
 * maps (PAGEMAP_SCAN skips empty page tables whole); LAST when none, VFN
 * when the kernel cannot tell. */
static uint64_t next_present(int pm_fd, int shift, uint64_t vfn, uint64_t last)
{
	uint64_t at = last << shift;
	int rc = scan_regions(pm_fd, vfn << shift, last << shift, THP_PAGE_IS_PRESENT, THP_PAGE_IS_PRESENT,
			      first_region, &at);

	return rc < 0 ? vfn : at >> shift;
}

/* Walks [START, END) of the address space page by page; after a read of
 * CHUNK entries that maps nothing, it goes on from the next mapped page. With
 * W->watch, it stops before a run of pages that may be a PMD mapping. */
static int walk_range(struct thp_folio_reader *fr, int pm_fd, uint64_t start, uint64_t end,
		      struct walk *w)
{
	for (uint64_t vfn = start >> fr->page_shift, last = end >> fr->page_shift; vfn < last;) {
		size_t n = last - vfn < CHUNK ? (size_t)(last - vfn) : CHUNK;
		ssize_t got = pread(pm_fd, fr->pm, n * 8, (off_t)(vfn * 8));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got < 8)
			return -ESRCH; /* nothing more to read: the process has exited */
		n = (size_t)got / 8;
		fr->kf_n = 0;
		bool mapped = false;
		for (size_t i = 0; i < n;) {
			uint64_t pfn = fr->pm[i] & PM_PFN_MASK;
			size_t j = i + 1;
			const uint64_t *f;
			int err = 0;

			if (!(fr->pm[i] & PM_PRESENT) || !pfn) {
				close_folio(w);
				i++;
				continue;
			}
			while (j < n && (fr->pm[j] & PM_PRESENT) && (fr->pm[j] & PM_PFN_MASK) == pfn + (j - i))
				j++;
			mapped = true;
			if (w->watch && pmd_candidate(vfn + i, pfn, j - i, w->watch)) {
				w->stop = (vfn + i) << fr->page_shift;
				w->s->walked += (uint64_t)i << fr->page_shift;
				return 0;
			}
			f = run_flags(fr, i, j, n, &err);
			if (!f)
				return err;
			walk_run(w, vfn + i, pfn, f, j - i);
			i = j;
		}
		uint64_t next = mapped || n < CHUNK ? vfn + n : next_present(pm_fd, fr->page_shift, vfn + n, last);
		w->s->walked += (next - vfn) << fr->page_shift;
		vfn = next;
	}
	return 0;
}

unsigned thp_pmd_region_kind(uint64_t categories)
{
	return (categories & THP_PAGE_IS_FILE ? THP_PMD_FILE : 0) |
	       (categories & THP_PAGE_IS_PFNZERO ? THP_PMD_ZERO : 0);
}

struct pmd_scan {
	thp_pmd_range_fn fn;
	void *ctx;
};

static int pmd_region(uint64_t start, uint64_t end, uint64_t categories, void *ctx)
{
	const struct pmd_scan *p = ctx;
	return p->fn(start, end, thp_pmd_region_kind(categories), p->ctx);
}

int thp_pmd_scan(int pm_fd, uint64_t start, uint64_t end, thp_pmd_range_fn fn, void *ctx)
{
	struct pmd_scan p = { fn, ctx };
	return scan_regions(pm_fd, start, end, THP_PAGE_IS_HUGE,
			    THP_PAGE_IS_HUGE | THP_PAGE_IS_FILE | THP_PAGE_IS_PFNZERO, pmd_region, &p);
}

static int no_range(uint64_t start, uint64_t end, unsigned kind, void *ctx)
{
	(void)start, (void)end, (void)kind, (void)ctx;
	return 0;
}

bool thp_pmd_scan_works(int pm_fd)
{
	return thp_pmd_scan(pm_fd, 0, (uint64_t)sysconf(_SC_PAGESIZE), no_range, NULL) == 0;
}

/* Adds a PMD-mapped range to the thp_pmd_found CTX. */
static void found_add(struct thp_pmd_found *f, uint64_t len, unsigned kind)
{
	if (kind & THP_PMD_ZERO)
		f->zero += len;
	else
		f->pmd[kind & THP_PMD_FILE ? THP_FOLIO_FILE : THP_FOLIO_ANON] += len;
}

void thp_pmd_found_settle(struct thp_pmd_found *f, uint64_t anon_huge)
{
	if (f->pmd[THP_FOLIO_ANON] > anon_huge) {
		f->zero += f->pmd[THP_FOLIO_ANON] - anon_huge;
		f->pmd[THP_FOLIO_ANON] = anon_huge;
	}
}

static int found_range(uint64_t start, uint64_t end, unsigned kind, void *ctx)
{
	found_add(ctx, end - start, kind);
	return 0;
}

int thp_pmd_scan_vma(int pm_fd, const struct thp_vma *v, struct thp_pmd_found *f)
{
	int err;

	memset(f, 0, sizeof(*f));
	err = thp_pmd_scan(pm_fd, v->start, v->end, found_range, f);
	if (!err)
		thp_pmd_found_settle(f, v->m.anon_huge);
	return err;
}

struct scan_walk {
	struct thp_folio_reader *fr;
	int fd;
	struct walk *w;
	uint64_t done; /* walked up to here */
	bool anon;     /* private anonymous memory: every PMD mapping is anonymous */
	uint64_t file_at; /* the first PMD mapping of file memory, plus one; 0: none */
	struct thp_pmd_found found;
	uint64_t node_pmd[THP_FOLIO_NODES]; /* found.pmd by node, before thp_pmd_found_settle() */
};

/* Adds the PMD-mapped range [START, END) of SW's VMA to SW->node_pmd: each
 * PMD on the node of its page frame (one pagemap entry read per PMD). */
static int pmd_nodes(struct scan_walk *sw, uint64_t start, uint64_t end)
{
	const struct thp_folio_reader *fr = sw->fr;
	uint64_t pmd = 1ull << (fr->page_shift + fr->pmd_order);

	if (fr->sole_node >= 0 || !fr->nodes.n) {
		sw->node_pmd[slot_of(fr->sole_node)] += end - start;
		return 0;
	}
	for (uint64_t a = start; a < end; a += pmd) {
		uint64_t e = 0, len = end - a < pmd ? end - a : pmd;
		ssize_t got;

		do
			got = pread(sw->fd, &e, 8, (off_t)((a >> fr->page_shift) * 8));
		while (got < 0 && errno == EINTR);
		if (got < 0)
			return -errno;
		sw->node_pmd[e & PM_PRESENT ? node_slot(&fr->nodes, e & PM_PFN_MASK) : THP_NUMA_MAX] += len;
	}
	return 0;
}

/* Adds WANT bytes of the PMD mappings by node NODE_PMD to S->node_pmd, after
 * thp_pmd_found_settle() took the huge zero page out of them: what it took
 * comes off the lowest nodes (kernels that do not flag that page tell no
 * more), what the walk could not place goes to no node. */
static void settle_nodes(const uint64_t *node_pmd, uint64_t want, struct thp_folio_stats *s)
{
	uint64_t have = 0;

	for (int i = 0; i < THP_FOLIO_NODES; i++) {
		uint64_t b = have + node_pmd[i] <= want ? node_pmd[i] : want - have;
		s->node_pmd[i] += b;
		have += b;
	}
	s->node_pmd[THP_NUMA_MAX] += want - have;
}

/* Walks the pages before a PMD-mapped range page by page, and counts the range. */
static int scan_range(uint64_t start, uint64_t end, unsigned kind, void *ctx)
{
	struct scan_walk *sw = ctx;
	int err = walk_range(sw->fr, sw->fd, sw->done, start, sw->w);

	if (!err && !(kind & THP_PMD_ZERO))
		err = pmd_nodes(sw, start, end);
	if (err)
		return err;
	close_folio(sw->w);
	if (kind == THP_PMD_FILE && !sw->file_at)
		sw->file_at = start + 1;
	found_add(&sw->found, end - start, kind);
	sw->w->s->walked += end - start;
	sw->done = end;
	return 0;
}

/* scan_range() for a region of a scan that did not ask for PAGE_IS_FILE,
 * which costs a page lookup per entry: the PMD mappings of memory that may be
 * a file's are scanned again for it, over their own range alone. */
static int scan_region(uint64_t start, uint64_t end, uint64_t categories, void *ctx)
{
	struct scan_walk *sw = ctx;
	unsigned kind = thp_pmd_region_kind(categories);

	if (sw->anon || (kind & THP_PMD_ZERO))
		return scan_range(start, end, kind, sw);
	return thp_pmd_scan(sw->fd, start, end, scan_range, sw);
}

/* Walks V with PAGEMAP_SCAN: PMD-mapped ranges are counted from the scan,
 * the rest page by page. Returns 0, -ENOTTY/-EINVAL when the kernel lacks the
 * ioctl, or -errno. */
static int walk_scan(struct thp_folio_reader *fr, int pm_fd, const struct thp_vma *v, struct walk *w)
{
	struct scan_walk sw = { .fr = fr, .fd = pm_fd, .w = w, .done = v->start };
	int err = thp_pmd_scan(pm_fd, v->start, v->end, scan_range, &sw);

	if (!err)
		err = walk_range(fr, pm_fd, sw.done, v->end, w);
	thp_pmd_found_settle(&sw.found, v->m.anon_huge);
	settle_nodes(sw.node_pmd, sw.found.pmd[0] + sw.found.pmd[1], w->s);
	for (int k = 0; k < 2; k++)
		w->s->pmd[k] += sw.found.pmd[k];
	w->s->huge_zero += sw.found.zero;
	return err;
}

/* True when V may be walked: not hugetlbfs (its pages are no THP) nor
 * [vsyscall] (no page tables of the process). A mapping without access
 * (PROT_NONE) is walked: its pages stay mapped, and smaps counts them. */
static bool walkable(const struct thp_vma *v)
{
	return !thp_vma_flag(v, "ht") && strcmp(v->name, "[vsyscall]") != 0;
}

/* Moves MOVED bytes of the whole PMD-order folios the walk counted by node
 * since BEFORE to PMD-mapped on their nodes, lowest node first (without
 * PAGEMAP_SCAN the walk cannot tell a PMD mapping from 512 PTEs), and the
 * rest of BYTES, which the walk did not see, to no node. */
static void take_pmd_nodes(struct thp_folio_stats *s, const struct thp_folio_stats *before, uint64_t moved,
			   uint64_t bytes)
{
	for (int i = 0; i < THP_FOLIO_NODES && moved; i++) {
		uint64_t d = s->node_pmd_order[i] - before->node_pmd_order[i], m = d < moved ? d : moved;

		s->node_pmd_order[i] -= m;
		s->node_mthp[i] -= m;
		s->node_pmd[i] += m;
		moved -= m;
		bytes -= m;
	}
	s->node_pmd[THP_NUMA_MAX] += bytes;
}

/* Takes BYTES of PMD-mapped memory of KIND, which smaps reported and the page
 * walk counted as whole PMD-order folios and --cont blocks, out of those
 * counters (what the walk added since BEFORE, never below it: thpmaps' clamp
 * for memory freed between the two reads) and counts it as PMD-mapped. */
static void take_pmd(struct thp_folio_stats *s, const struct thp_folio_stats *before, int kind,
		     uint64_t bytes)
{
	uint64_t *v[THP_FOLIO_ORDERS + 1], was[THP_FOLIO_ORDERS + 1];
	int n = 0;

	v[n] = &s->aligned[kind][s->pmd_order];
	was[n++] = before->aligned[kind][s->pmd_order];
	for (int o = 1; o < THP_FOLIO_ORDERS; o++)
		if (s->cont_orders & (1u << o)) {
			v[n] = &s->cont[kind][o];
			was[n++] = before->cont[kind][o];
		}
	take_pmd_nodes(s, before, *v[0] - was[0] < bytes ? *v[0] - was[0] : bytes, bytes);
	for (int i = 0; i < n; i++)
		*v[i] -= *v[i] - was[i] < bytes ? *v[i] - was[i] : bytes;
	s->pmd[kind] += bytes;
}

/* Gives S what FR counts with: the page size, PMD order and --cont orders. */
static void stats_of(const struct thp_folio_reader *fr, struct thp_folio_stats *s)
{
	s->page_shift = fr->page_shift;
	s->pmd_order = fr->pmd_order;
	s->cont_orders = fr->cont_orders;
}

/* For V, which smaps says holds nothing: the huge zero page it maps, which
 * kernels that map it as a special PMD (Linux 6.18) leave out of Rss. Only
 * the scan looks, at no cost on empty memory; without it, nothing. */
static int zero_only(struct thp_folio_reader *fr, int pm_fd, const struct thp_vma *v, struct thp_folio_stats *s)
{
	struct thp_pmd_found f;
	int err;

	if (!fr->scan || !walkable(v) || v->end - v->start < 1ull << (fr->page_shift + fr->pmd_order))
		return 0;
	err = thp_pmd_scan_vma(pm_fd, v, &f);
	if (err == -ENOTTY || err == -EINVAL || err == -EOPNOTSUPP) {
		fr->scan = 0;
		return 0;
	}
	s->huge_zero += f.zero;
	return err;
}

int thp_folios_vma(struct thp_folio_reader *fr, int pm_fd, const struct thp_vma *v,
		   struct thp_folio_stats *s)
{
	struct walk w = { .s = s, .nodes = &fr->nodes, .shift = fr->page_shift };
	struct thp_folio_stats before;
	int err = -ENOTTY;

	stats_of(fr, s);
	if (!v->m.rss)
		return zero_only(fr, pm_fd, v, s);
	if (!walkable(v))
		return 0;
	if (!v->m.anon_huge && !v->m.shmem_pmd && !v->m.file_pmd) {
		/* smaps shows no PMD mapping here: nothing for the scan to skip
		 * (a huge zero page PMD reads as such in kpageflags) */
		err = walk_range(fr, pm_fd, v->start, v->end, &w);
		close_folio(&w);
		return err;
	}
	before = *s;
	if (fr->scan) {
		err = walk_scan(fr, pm_fd, v, &w);
		if (err == -ENOTTY || err == -EINVAL || err == -EOPNOTSUPP) {
			*s = before;
			w.open = false;
			fr->scan = 0;
		} else {
			fr->scan = 1;
			s->scan = true;
		}
	}
	if (!fr->scan) {
		/* without the scan, PMD-mapped THPs look like aligned PMD-order
		 * folios: take them from smaps instead, as thpmaps does */
		err = walk_range(fr, pm_fd, v->start, v->end, &w);
		close_folio(&w);
		take_pmd(s, &before, THP_FOLIO_ANON, v->m.anon_huge);
		take_pmd(s, &before, THP_FOLIO_FILE, v->m.shmem_pmd + v->m.file_pmd);
		return err;
	}
	close_folio(&w);
	return err;
}

/* True when the running kernel may roll a process up without smaps (see
 * proc_query): Linux 6.18 and later, where its counters in /proc/PID/status
 * were checked to equal smaps_rollup. Before 6.16 they could be read per CPU
 * and be off by some pages per CPU. */
static bool query_kernel(void)
{
	struct utsname u;
	int major, minor;

	return uname(&u) == 0 && thp_parse_release(u.release, &major, &minor) == 0 &&
	       (major > 6 || (major == 6 && minor >= 18));
}

int thp_folio_reader_open(const struct thp_root *root, struct thp_folio_reader **out)
{
	struct thp_folio_reader *fr;
	char buf[64];
	uint64_t pmd = 2u << 20, ps = thp_page_size(root);

	*out = NULL;
	fr = calloc(1, sizeof(*fr));
	if (!fr)
		return -ENOMEM;
	fr->root = root;
	fr->scan = -1;
	fr->kpf = thp_open(root, "proc/kpageflags");
	if (fr->kpf < 0) {
		int err = fr->kpf;
		free(fr);
		return err;
	}
	/* an open kpageflags that cannot be read is as good as none */
	if (pread(fr->kpf, buf, 8, 0) < 0) {
		int err = -errno;
		close(fr->kpf);
		free(fr);
		return err;
	}
	if (thp_read_buf(root, "sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf, sizeof(buf)) > 0)
		thp_parse_u64(buf, &pmd);
	if (!ps)
		ps = 4096;
	if (thp_pfn_nodes_read(root, ps, &fr->nodes)) {
		close(fr->kpf);
		free(fr);
		return -ENOMEM;
	}
	fr->sole_node = thp_pfn_sole_node(&fr->nodes);
	fr->query = query_kernel();
	fr->jobs = 1;
	while ((1ull << fr->page_shift) < ps && fr->page_shift < 30)
		fr->page_shift++;
	while (fr->pmd_order + 1 < THP_FOLIO_ORDERS && (1ull << (fr->page_shift + fr->pmd_order)) < pmd)
		fr->pmd_order++;
	*out = fr;
	return 0;
}

void thp_folio_reader_share(struct thp_folio_reader *fr)
{
	if (!fr->cache)
		fr->cache = calloc(1, sizeof(*fr->cache)); /* without it, every run is read */
}

void thp_folio_reader_cont(struct thp_folio_reader *fr, unsigned orders)
{
	fr->cont_orders = orders;
}

int thp_folio_cont_order(uint64_t size, uint64_t page_size, uint64_t pmd_size)
{
	for (int o = 1; o < THP_FOLIO_ORDERS && page_size << o <= pmd_size; o++)
		if (size == page_size << o)
			return o;
	return -EINVAL;
}

/* Opens into *OUT a reader for another worker of FR's walks: its own
 * descriptor of kpageflags, buffers and cache, FR's settings and node table.
 * Returns 0 or -errno. */
static int worker_of(const struct thp_folio_reader *fr, struct thp_folio_reader **out)
{
	struct thp_folio_reader *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->kpf = thp_open(fr->root, "proc/kpageflags");
	if (c->kpf < 0) {
		int err = c->kpf;
		free(c);
		return err;
	}
	c->cache = fr->cache ? calloc(1, sizeof(*c->cache)) : NULL;
	c->root = fr->root;
	c->page_shift = fr->page_shift;
	c->pmd_order = fr->pmd_order;
	c->cont_orders = fr->cont_orders;
	c->scan = fr->scan;
	c->nodes = fr->nodes;
	c->sole_node = fr->sole_node;
	c->query = fr->query;
	c->jobs = 1;
	c->copy = true;
	*out = c;
	return 0;
}

int thp_folio_reader_jobs(struct thp_folio_reader *fr, int jobs)
{
	int err = 0;

	if (jobs <= 1 || fr->workers)
		return 0;
	fr->workers = calloc((size_t)jobs, sizeof(struct thp_folio_reader *));
	if (!fr->workers)
		return -ENOMEM;
	fr->workers[0] = fr;
	while (!err && fr->jobs < jobs)
		if (!(err = worker_of(fr, &fr->workers[fr->jobs])))
			fr->jobs++;
	return err;
}

int thp_folio_reader_njobs(const struct thp_folio_reader *fr)
{
	return fr->jobs;
}

struct thp_folio_reader *thp_folio_reader_worker(struct thp_folio_reader *fr, int worker)
{
	return worker > 0 && worker < fr->jobs ? fr->workers[worker] : fr;
}

void thp_folio_reader_close(struct thp_folio_reader *fr)
{
	if (!fr)
		return;
	for (int i = 1; i < fr->jobs; i++)
		thp_folio_reader_close(fr->workers[i]);
	free(fr->workers);
	close(fr->kpf);
	free(fr->cache);
	if (!fr->copy)
		thp_pfn_nodes_free(&fr->nodes);
	free(fr);
}

const struct thp_pfn_nodes *thp_folio_reader_nodes(const struct thp_folio_reader *fr)
{
	return &fr->nodes;
}

/* True when the page mapped at ADDR of PM_FD is shmem (KPF_SWAPBACKED and not
 * anonymous), as smaps tells ShmemPmdMapped from FilePmdMapped. Returns 1,
 * 0, or -errno. */
static int shmem_at(struct thp_folio_reader *fr, int pm_fd, uint64_t addr)
{
	uint64_t e = 0, f[1];
	ssize_t got;
	int err;

	do
		got = pread(pm_fd, &e, 8, (off_t)((addr >> fr->page_shift) * 8));
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	if (!(e & PM_PRESENT))
		return 0;
	err = read_flags(fr, e & PM_PFN_MASK, f, 1);
	return err ? err : (f[0] & (KPF_SWAPBACKED | KPF_ANON)) == KPF_SWAPBACKED;
}

/* Walks the piece [START, END) of SW's VMA: PMD mappings found with
 * PAGEMAP_SCAN, the rest page by page. Returns 0 or -errno; sets *PMD when it
 * found a PMD mapping. */
static int scan_piece(struct scan_walk *sw, uint64_t start, uint64_t end, bool *pmd)
{
	uint64_t before = sw->found.pmd[0] + sw->found.pmd[1] + sw->found.zero;
	int err;

	sw->done = start;
	err = scan_regions(sw->fd, start, end, THP_PAGE_IS_HUGE, THP_PAGE_IS_HUGE | THP_PAGE_IS_PFNZERO,
			   scan_region, sw);
	if (!err)
		err = walk_range(sw->fr, sw->fd, sw->done, end, sw->w);
	*pmd = sw->found.pmd[0] + sw->found.pmd[1] + sw->found.zero > before;
	return err;
}

/* Walks [START, END) of SW's VMA in pieces of CHUNK pages (aligned, so that
 * no PMD straddles two). PAGEMAP_SCAN finds PMD mappings without reading
 * their entries, but costs a look at every page table entry: so the first
 * piece (if the range holds an aligned PMD-sized block: a small one cannot be
 * PMD-mapped), and each after one that held a PMD mapping, is scanned; any
 * other is read from pagemap alone until a run of pages could be a PMD
 * mapping, and scanned from there. */
static int walk_pieces(struct scan_walk *sw, uint64_t start, uint64_t end)
{
	const int shift = sw->fr->page_shift;
	const uint64_t pmd = 1ull << (shift + sw->fr->pmd_order);
	bool scan = ((start + pmd - 1) & ~(pmd - 1)) + pmd <= end;
	int err = 0;

	for (uint64_t at = start; at < end && !err;) {
		uint64_t piece = ((at >> shift) / CHUNK + 1) * CHUNK << shift, to = piece < end ? piece : end;

		if (scan) {
			err = scan_piece(sw, at, to, &scan);
			at = to;
			continue;
		}
		uint64_t rss = sw->w->s->rss;
		sw->w->watch = sw->fr->pmd_order;
		sw->w->stop = 0;
		err = walk_range(sw->fr, sw->fd, at, to, sw->w);
		sw->w->watch = 0;
		scan = sw->w->stop != 0;
		if (scan)
			at = sw->w->stop;
		else if (sw->w->s->rss == rss && to == piece && to < end) /* the piece held nothing */
			at = next_present(sw->fd, shift, to >> shift, end >> shift) << shift;
		else
			at = to;
	}
	return err;
}

/* Walks V into S without smaps, and fills V->m with what smaps would say of
 * it (thp_rollup_walked). Returns 0 or -errno. */
static int walk_alone(struct thp_folio_reader *fr, int pm_fd, struct thp_vma *v, struct thp_folio_stats *s)
{
	struct walk w = { .s = s, .nodes = &fr->nodes, .shift = fr->page_shift };
	struct scan_walk sw = { .fr = fr, .fd = pm_fd, .w = &w, .done = v->start,
				.anon = thp_vma_kind(v, NULL) == THP_VMA_ANON && !v->inode };
	const struct thp_pmd_found *f = &sw.found;
	struct thp_walked x = { 0 };
	uint64_t rss = s->rss, anon = s->anon, walked = s->walked;
	int err = 0, shmem = 0;

	if (walkable(v)) {
		err = walk_pieces(&sw, v->start, v->end);
		close_folio(&w);
		if (!err && sw.file_at && (shmem = shmem_at(fr, pm_fd, sw.file_at - 1)) < 0)
			err = shmem;
		settle_nodes(sw.node_pmd, f->pmd[0] + f->pmd[1], s);
		for (int k = 0; k < 2; k++)
			s->pmd[k] += f->pmd[k];
		s->huge_zero += f->zero;
		/* analysed, as with smaps: the VMAs that map memory */
		s->walked = walked + (s->rss > rss || f->pmd[0] || f->pmd[1] ? v->end - v->start : 0);
		s->scan = true;
		x = (struct thp_walked){ s->rss - rss, s->anon - anon, { f->pmd[0], f->pmd[1] }, shmem > 0 };
	}
	thp_rollup_walked(&v->m, &x);
	return err;
}

/* Marks the figures of R that none of SOURCES (THP_RS_*) gives unknown, and 0. */
static void unknown_beyond(struct thp_rollup *r, unsigned sources)
{
	for (int f = 0; f < THP_RF_N; f++)
		if (!(thp_rollup_source(f) & sources)) {
			*thp_rollup_at(r, f) = 0;
			r->unknown |= 1u << f;
		}
}

void thp_rollup_walked(struct thp_rollup *r, const struct thp_walked *x)
{
	memset(r, 0, sizeof(*r));
	r->rss = x->rss + x->pmd[THP_FOLIO_ANON] + x->pmd[THP_FOLIO_FILE];
	r->anon = x->anon + x->pmd[THP_FOLIO_ANON];
	r->anon_huge = x->pmd[THP_FOLIO_ANON];
	*(x->shmem ? &r->shmem_pmd : &r->file_pmd) = x->pmd[THP_FOLIO_FILE];
	unknown_beyond(r, THP_RS_WALK);
}

void thp_rollup_status(struct thp_rollup *r, const struct thp_pstatus *st)
{
	r->rss = st->rss;
	r->anon = st->rss_anon;
	r->unknown = 0;
	unknown_beyond(r, THP_RS_WALK | THP_RS_STATUS);
	r->private_hugetlb = st->hugetlb; /* their sum, HugetlbPages: see thp_rollup_hugetlb() */
}

/* A mapping of a walk as a worker walks it: its copy, what the walk found
 * (F: OWN, or the walk's sums when one worker adds up without FN) and how it
 * ended. */
struct vjob {
	struct thp_vma v;
	struct thp_folio_stats own, *f;
	int err;
};

/* Mappings walked at a time by the workers of a walk, their results taken
 * in order after; and the resident bytes below which such a batch is walked
 * by the calling thread alone (starting threads costs more). */
#define VJOBS 64
#define SPLIT_MIN (16ull << 20)

struct proc_walk {
	struct thp_walk *w;
	int fd;     /* pagemap; -1 without FR and PMD */
	bool scan;  /* PAGEMAP_SCAN answers on FD */
	bool any;   /* a VMA was listed */
	bool query; /* the mappings come from PROCMAP_QUERY: walk_alone() */
	int jobs;   /* workers (thp_folio_reader_jobs of FR) */
	int fds[THP_JOBS_MAX]; /* each worker's pagemap; [0] is FD */
	struct vjob one, *q; /* the mappings to walk: ONE, or VJOBS of them */
	size_t nq, cap;
	uint64_t qbytes; /* their resident bytes */
};

/* Adds what the walk found in mapping M to W's sums and calls W's FN. */
static int found_vma(struct thp_walk *w, struct thp_walk_vma *m)
{
	w->pmd += m->pmd;
	w->zero += m->zero;
	return w->fn ? w->fn(m, w->ctx) : 0;
}

/* The PMD-mapped bytes of V into M: from its folio walk F, or with
 * PAGEMAP_SCAN when P asks for them. */
static void pmd_of(struct proc_walk *p, const struct thp_vma *v, const struct thp_folio_stats *f,
		   struct thp_walk_vma *m)
{
	struct thp_pmd_found found;

	if (f && f->walked) {
		m->pmd_known = true;
		m->pmd = thp_folio_pmd(f);
		m->zero = f->huge_zero;
	} else if (p->scan && p->w->pmd_scan && v->m.rss) {
		if (thp_pmd_scan_vma(p->fd, v, &found) == 0) {
			m->pmd_known = true;
			m->pmd = found.pmd[THP_FOLIO_ANON] + found.pmd[THP_FOLIO_FILE];
			m->zero = found.zero;
		} else {
			p->scan = false;
		}
	}
}

/* Walks job J of P's batch as worker WORKER. */
static void walk_job(void *ctx, int worker, size_t i)
{
	struct proc_walk *p = ctx;
	struct vjob *j = &p->q[i];
	struct thp_folio_reader *fr;

	if (!p->w->fr)
		return; /* smaps alone */
	fr = thp_folio_reader_worker(p->w->fr, worker);
	if (p->query) {
		stats_of(fr, j->f);
		j->err = walk_alone(fr, p->fds[worker], &j->v, j->f);
	} else {
		j->err = thp_folios_vma(fr, p->fds[worker], &j->v, j->f);
	}
}

/* Takes walked mapping J into P's sums, and calls W's FN, as if walked alone. */
static int take_vma(struct proc_walk *p, struct vjob *j)
{
	struct thp_walk *w = p->w;
	struct thp_walk_vma m = { .v = &j->v };

	thp_rollup_add(&w->sum, &j->v.m);
	p->any = true;
	if (j->err && !p->query)
		return j->err;
	if (w->fr && j->f == &j->own)
		thp_folio_stats_add(&w->folios, &j->own);
	m.f = w->fr && w->fn ? j->f : NULL;
	pmd_of(p, &j->v, m.f, &m);
	return j->err ? j->err : found_vma(w, &m);
}

/* Walks the mappings of P's batch, over the workers when they hold enough,
 * and takes them in order. Returns 0, or the first one's error or FN's
 * non-zero value. */
static int flush_vmas(struct proc_walk *p)
{
	int err = 0;

	thp_jobs_run(p->qbytes >= SPLIT_MIN ? p->jobs : 1, p->nq, walk_job, p);
	for (size_t i = 0; i < p->nq && !err; i++)
		err = take_vma(p, &p->q[i]);
	p->nq = 0;
	p->qbytes = 0;
	return err;
}

/* A mapping listed by smaps or PROCMAP_QUERY: kept for the batch, walked
 * when it is full. */
static int add_vma(const struct thp_vma *v, void *ctx)
{
	struct proc_walk *p = ctx;
	struct vjob *j = &p->q[p->nq++];

	j->v = *v;
	j->err = 0;
	j->f = p->w->fn || p->cap > 1 ? &j->own : &p->w->folios;
	if (j->f == &j->own)
		memset(&j->own, 0, sizeof(j->own));
	p->qbytes += v->m.rss;
	return p->nq == p->cap ? flush_vmas(p) : 0;
}

/* Walks what is left of P's batch after its mappings were read, which
 * ended in ERR. Returns the first error in the order of the mappings. */
static int last_vmas(struct proc_walk *p, int err)
{
	int first = p->nq ? flush_vmas(p) : 0;

	return first ? first : err;
}

/* Takes the anonymous PMD mappings of P beyond LIMIT as the huge zero page
 * (thp_pmd_found_settle), off the lowest nodes. */
static void settle_proc(struct thp_folio_stats *s, uint64_t limit)
{
	struct thp_pmd_found f = { .pmd = { s->pmd[0], s->pmd[1] }, .zero = s->huge_zero };
	uint64_t nodes[THP_FOLIO_NODES];

	thp_pmd_found_settle(&f, limit);
	if (f.pmd[THP_FOLIO_ANON] == s->pmd[THP_FOLIO_ANON])
		return;
	memcpy(nodes, s->node_pmd, sizeof(nodes));
	memset(s->node_pmd, 0, sizeof(s->node_pmd));
	settle_nodes(nodes, f.pmd[0] + f.pmd[1], s);
	s->pmd[THP_FOLIO_ANON] = f.pmd[THP_FOLIO_ANON];
	s->huge_zero = f.zero;
}

/* Rolls up P's process PID without smaps, whose generation walks every page
 * table once more (a third of the folio walk on 4 KiB pages): VMAs from
 * PROCMAP_QUERY, what they map from
 * PAGEMAP_SCAN and the walk, Rss, Anonymous and the hugetlb pages from the
 * kernel's counters in /proc/PID/status, read after the walk. Anonymous PMD
 * mappings beyond RssAnon less the walk's anonymous pages are the huge zero
 * page. Returns 0, -ENOTTY when the kernel lacks PROCMAP_QUERY (before any VMA
 * is walked), or the errors of thp_proc_walk(). */
static int proc_query(struct proc_walk *p, pid_t pid)
{
	struct thp_walk *w = p->w;
	struct thp_folio_reader *fr = w->fr;
	struct thp_pstatus st;
	int err;

	p->query = true;
	err = last_vmas(p, thp_maps_query(fr->root, pid, 1ull << fr->page_shift, add_vma, p));
	p->query = false;
	if (!err)
		err = thp_pstatus_read(fr->root, pid, &st);
	if (err)
		return err;
	settle_proc(&w->folios, st.rss_anon > w->folios.anon ? st.rss_anon - w->folios.anon : 0);
	w->sum.anon_huge = w->folios.pmd[THP_FOLIO_ANON]; /* without the huge zero page */
	thp_rollup_status(&w->sum, &st);
	return 0;
}

/* Walks the folios of process ST as W asks, from PROCMAP_QUERY or smaps. */
static int folios_proc(struct proc_walk *p, const struct thp_pstatus *st)
{
	struct thp_folio_reader *fr = p->w->fr;
	struct thp_folio_stats *s = &p->w->folios;
	int err = -ENOTTY;

	stats_of(fr, s);
	if (fr->query && !p->w->smaps && st->rss + st->hugetlb >= QUERY_MIN && p->scan) {
		err = proc_query(p, st->pid);
		fr->query = err != -ENOTTY; /* the kernel lacks PROCMAP_QUERY: never again */
	}
	if (err == -ENOTTY)
		err = last_vmas(p, thp_smaps_read(fr->root, st->pid, add_vma, p));
	return err;
}

/* Gives P its workers (W's JOBS, of FR's readers): each its own
 * descriptor of pagemap PATH (FD when no other can be opened), and room for
 * a batch of mappings. Returns 0 or -ENOMEM. */
static int open_jobs(struct proc_walk *p, const struct thp_root *root, const char *path)
{
	const struct thp_walk *w = p->w;

	p->jobs = w->fr && w->jobs > 1 ? (w->jobs < w->fr->jobs ? w->jobs : w->fr->jobs) : 1;
	p->fds[0] = p->fd;
	p->q = &p->one;
	p->cap = 1;
	if (p->jobs == 1)
		return 0;
	p->q = malloc(VJOBS * sizeof(*p->q));
	if (!p->q)
		return -ENOMEM;
	p->cap = VJOBS;
	for (int i = 1; i < p->jobs; i++) {
		int fd = thp_open(root, path);
		p->fds[i] = fd < 0 ? p->fd : fd;
	}
	return 0;
}

static void close_jobs(struct proc_walk *p)
{
	for (int i = 1; i < p->jobs; i++)
		if (p->fds[i] != p->fd)
			close(p->fds[i]);
	if (p->q != &p->one)
		free(p->q);
	if (p->fd >= 0)
		close(p->fd);
}

int thp_proc_walk(const struct thp_root *root, const struct thp_pstatus *st, struct thp_walk *w)
{
	struct proc_walk p = { .w = w, .fd = -1 };
	char path[64];
	int err;

	memset(&w->sum, 0, sizeof(w->sum));
	memset(&w->folios, 0, sizeof(w->folios));
	w->pmd_known = false;
	w->pmd = w->zero = 0;
	if (!w->fr && !w->fn && !w->pmd_scan)
		return thp_rollup_read(root, st->pid, &w->sum);
	snprintf(path, sizeof(path), "proc/%d/pagemap", (int)st->pid);
	if (w->fr || w->pmd_scan) {
		p.fd = thp_open(root, path);
		if (p.fd < 0 && w->fr)
			return p.fd;
		p.scan = p.fd >= 0 && thp_pmd_scan_works(p.fd);
	}
	err = open_jobs(&p, root, path);
	if (!err)
		err = w->fr ? folios_proc(&p, st) : last_vmas(&p, thp_smaps_read(root, st->pid, add_vma, &p));
	close_jobs(&p);
	w->pmd_known = p.scan;
	if (!err && !p.any)
		err = -ESRCH;
	return err;
}

void thp_folio_stats_add(struct thp_folio_stats *a, const struct thp_folio_stats *b)
{
	for (int k = 0; k < 2; k++) {
		a->pmd[k] += b->pmd[k];
		a->partial[k] += b->partial[k];
		for (int o = 0; o < THP_FOLIO_ORDERS; o++) {
			a->aligned[k][o] += b->aligned[k][o];
			a->unaligned[k][o] += b->unaligned[k][o];
			a->cont[k][o] += b->cont[k][o];
		}
	}
	for (int i = 0; i < THP_FOLIO_NODES; i++) {
		a->node_pmd[i] += b->node_pmd[i];
		a->node_mthp[i] += b->node_mthp[i];
		a->node_pmd_order[i] += b->node_pmd_order[i];
	}
	a->huge_zero += b->huge_zero;
	a->walked += b->walked;
	a->rss += b->rss;
	a->anon += b->anon;
	a->scan |= b->scan;
	a->cont_orders |= b->cont_orders;
	if (!a->page_shift) {
		a->page_shift = b->page_shift;
		a->pmd_order = b->pmd_order;
	}
}

static uint64_t sum_orders(const uint64_t v[2][THP_FOLIO_ORDERS])
{
	uint64_t t = 0;
	for (int k = 0; k < 2; k++)
		for (int o = 0; o < THP_FOLIO_ORDERS; o++)
			t += v[k][o];
	return t;
}

uint64_t thp_folio_pmd(const struct thp_folio_stats *s)
{
	return s->pmd[0] + s->pmd[1];
}

uint64_t thp_folio_pte_aligned(const struct thp_folio_stats *s)
{
	return sum_orders(s->aligned);
}

uint64_t thp_folio_pte_unaligned(const struct thp_folio_stats *s)
{
	return sum_orders(s->unaligned);
}

uint64_t thp_folio_partial(const struct thp_folio_stats *s)
{
	return s->partial[0] + s->partial[1];
}

uint64_t thp_folio_mthp(const struct thp_folio_stats *s)
{
	return thp_folio_pte_aligned(s) + thp_folio_pte_unaligned(s) + thp_folio_partial(s);
}

uint64_t thp_folio_order_bytes(const struct thp_folio_stats *s, int order)
{
	uint64_t t = 0;

	for (int k = 0; k < 2; k++)
		t += s->aligned[k][order] + s->unaligned[k][order] + (order == s->pmd_order ? s->pmd[k] : 0);
	return t;
}
