/* SPDX-License-Identifier: GPL-2.0-or-later */
/* folios.h - how a process's pages are really mapped: PMD-mapped THP,
 * PTE-mapped THP by size (aligned or not) and partly mapped THP, from
 * /proc/PID/pagemap and /proc/kpageflags (root), with the counters of the
 * kernel's tools/mm/thpmaps */
#ifndef THP_FOLIOS_H
#define THP_FOLIOS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pfnnode.h"
#include "proc.h"
#include "root.h"

#define THP_FOLIO_ORDERS 16
#define THP_FOLIO_NODES (THP_NUMA_MAX + 1) /* node ids, then [THP_NUMA_MAX]: memory of no known node */

enum { THP_FOLIO_ANON, THP_FOLIO_FILE };

/* Bytes of mapping by kind ([THP_FOLIO_ANON] or [THP_FOLIO_FILE]). */
struct thp_folio_stats {
	uint64_t pmd[2];                              /* PMD-mapped THP */
	uint64_t aligned[2][THP_FOLIO_ORDERS];        /* wholly PTE-mapped THP of an order, naturally aligned */
	uint64_t unaligned[2][THP_FOLIO_ORDERS];      /* wholly PTE-mapped THP, not aligned */
	uint64_t partial[2];                          /* pages of THPs mapped only in part */
	uint64_t cont[2][THP_FOLIO_ORDERS];           /* --cont: PTE-mapped blocks of 2^order pages (below) */
	uint64_t huge_zero;                           /* mappings of the huge zero page: reads only, no memory */
	uint64_t walked;                              /* bytes of address space analysed */
	uint64_t rss, anon;                           /* bytes the walk found mapped by PTEs, and of them
						       * anonymous (not the zero page, nor device memory) */
	uint64_t node_pmd[THP_FOLIO_NODES];           /* thp_folio_pmd() by node */
	uint64_t node_mthp[THP_FOLIO_NODES];          /* thp_folio_mthp() by node */
	uint64_t node_pmd_order[THP_FOLIO_NODES];     /* of node_mthp, whole aligned PMD-order folios */
	unsigned cont_orders;                         /* bit N set: cont[][N] was counted */
	int page_shift, pmd_order;                    /* for the counter names */
	bool scan;                                    /* PMD mappings found with PAGEMAP_SCAN */
};

struct thp_folio_reader;

/* Opens /proc/kpageflags below ROOT and learns the page size (thp_page_size),
 * the PMD size and the node of each page frame (thp_pfn_nodes_read). Returns
 * 0 or -errno (-EACCES/-EPERM without root). */
int thp_folio_reader_open(const struct thp_root *root, struct thp_folio_reader **fr);
void thp_folio_reader_close(struct thp_folio_reader *fr);

/* The table by which FR places folios on nodes. */
const struct thp_pfn_nodes *thp_folio_reader_nodes(const struct thp_folio_reader *fr);

/* Keeps the kpageflags of page frames that more than one process maps
 * (shared libraries, memory shared since a fork) for the next processes
 * thp_folios_proc() walks with FR, which would read the same entries again:
 * for a walk over many processes (1.5 MiB, when memory allows). */
void thp_folio_reader_share(struct thp_folio_reader *fr);

/* Gives FR readers for JOBS workers (1 to THP_JOBS_MAX), after
 * thp_folio_reader_share() and thp_folio_reader_cont(), whose settings they
 * take: each its own descriptor of kpageflags, buffers and cache, the node
 * table shared. thp_proc_walk() walks a process's mappings over them when
 * thp_walk.jobs asks; thp_folio_reader_worker() gives each to a caller's own
 * thread. Returns 0 or -errno (-ENOMEM; -EMFILE: out of descriptors). */
int thp_folio_reader_jobs(struct thp_folio_reader *fr, int jobs);
int thp_folio_reader_njobs(const struct thp_folio_reader *fr);

/* The reader of worker WORKER (0: FR itself), which walks with one worker. */
struct thp_folio_reader *thp_folio_reader_worker(struct thp_folio_reader *fr, int worker);

/* Counts contiguous blocks of the orders set in ORDERS (bit N: 2^N pages) as
 * tools/mm/thpmaps --cont does: a block counts when its first page is aligned
 * to the block size in both virtual and physical memory, its pages follow one
 * another in both, all belong to large folios and no folio starts inside it
 * (arm64 contpte needs exactly that). PMD-mapped memory is not counted there:
 * thp_folio_stats.pmd holds it for every block size. */
void thp_folio_reader_cont(struct thp_folio_reader *fr, unsigned orders);

/* The page order of a --cont block of SIZE bytes: 1 to the PMD order. Returns
 * the order, or -EINVAL when SIZE is not a power-of-two number of at least two
 * pages of PAGE_SIZE or exceeds PMD_SIZE. */
int thp_folio_cont_order(uint64_t size, uint64_t page_size, uint64_t pmd_size);

/* Adds the mapping of VMA V to S, reading pagemap in chunks of 512 KiB and
 * kpageflags once per run of contiguous PFNs. Uses PAGEMAP_SCAN (Linux 6.7+),
 * where it works, to skip PMD-mapped ranges without reading their entries.
 * Returns 0, or -ESRCH when the process exited during the walk (pagemap read
 * returned nothing), or -errno. */
int thp_folios_vma(struct thp_folio_reader *fr, int pagemap_fd, const struct thp_vma *v,
		   struct thp_folio_stats *s);

/* What a walk found in one mapping V beyond smaps: how its pages are mapped
 * (F, with a folio reader; NULL without), and its PMD-mapped bytes and the
 * huge zero page's (PMD_KNOWN: from F, or from PAGEMAP_SCAN when asked). */
struct thp_walk_vma {
	const struct thp_vma *v;
	const struct thp_folio_stats *f;
	bool pmd_known;
	uint64_t pmd, zero;
};

/* Called for each mapping of a walk; non-zero stops it. */
typedef int (*thp_walk_fn)(const struct thp_walk_vma *m, void *ctx);

/* A walk of one process (thp_proc_walk): what is asked, and what it found. */
struct thp_walk {
	struct thp_folio_reader *fr; /* how every page is mapped (kpageflags); NULL: not asked */
	bool smaps;     /* each mapping with what only smaps shows (THPeligible, VmFlags,
			 * KernelPageSize, dirty pages): never PROCMAP_QUERY */
	bool pmd_scan;  /* PMD-mapped bytes per mapping from PAGEMAP_SCAN (Linux 6.7+)
			 * where FR does not walk it */
	int jobs;       /* with FR, the workers that walk its mappings (thp_folio_reader_jobs);
			 * 0 or 1: the calling thread alone */
	thp_walk_fn fn; /* NULL: the sums only */
	void *ctx;
	struct thp_rollup sum;         /* the process's figures (sum.unknown: those its source lacks) */
	struct thp_folio_stats folios; /* with FR, the page walk's sums */
	bool pmd_known;                /* PAGEMAP_SCAN answered for every mapping: PMD and ZERO hold
					* what it and the page walk found */
	uint64_t pmd, zero;
};

/* The one producer of a process's memory figures, for ps and show: reads
 * process ST (its /proc/PID/status as read before) below ROOT as W asks and
 * fills W's sums. Without FR, FN and PMD_SCAN: smaps_rollup. Else every mapping,
 * FN called for each: from smaps (the sums are theirs), or with FR and not
 * SMAPS on Linux 6.18+ for a process with 64 MiB or more resident (VmRSS and
 * HugetlbPages), from PROCMAP_QUERY and the walk alone: Rss, Anonymous and
 * the hugetlb pages from /proc/PID/status, the figures only smaps has
 * unknown (see enum thp_rollup_field). Returns 0, -ESRCH when the process
 * has no VMA (it has exited: smaps_rollup says so), FN's non-zero value, or
 * -errno. */
int thp_proc_walk(const struct thp_root *root, const struct thp_pstatus *st, struct thp_walk *w);

/* What the page walk of one mapping found without smaps: bytes mapped by
 * PTEs (the zero page apart) and of them anonymous, bytes PMD-mapped by kind
 * ([THP_FOLIO_ANON], [THP_FOLIO_FILE]), and whether its file memory is shmem. */
struct thp_walked {
	uint64_t rss, anon, pmd[2];
	bool shmem;
};

/* The figures of a mapping from its walk X, as smaps would give them: those
 * of source THP_RS_WALK (thp_rollup_source), the others unknown. */
void thp_rollup_walked(struct thp_rollup *r, const struct thp_walked *x);

/* The figures of a process, R, its mappings' (thp_rollup_walked, added up):
 * those of source THP_RS_STATUS taken from its status ST, those of no source
 * unknown, and HugetlbPages kept in private_hugetlb (thp_rollup_hugetlb()). */
void thp_rollup_status(struct thp_rollup *r, const struct thp_pstatus *st);

/* What a PMD-mapped range holds. */
enum { THP_PMD_FILE = 1, THP_PMD_ZERO = 2 };

/* THP_PMD_FILE and THP_PMD_ZERO from the PAGEMAP_SCAN categories of a region. */
unsigned thp_pmd_region_kind(uint64_t categories);

/* Called for each PMD-mapped range; KIND holds THP_PMD_* bits. */
typedef int (*thp_pmd_range_fn)(uint64_t start, uint64_t end, unsigned kind, void *ctx);

/* Calls FN for each PMD-mapped (PAGE_IS_HUGE) range in [START, END) of the
 * pagemap PAGEMAP_FD, found with the PAGEMAP_SCAN ioctl (Linux 6.7+) without
 * reading every entry; needs no root, only permission to open pagemap.
 * Returns 0, -ENOTTY or -EINVAL when the kernel lacks the ioctl, FN's
 * non-zero value, or -errno. */
int thp_pmd_scan(int pagemap_fd, uint64_t start, uint64_t end, thp_pmd_range_fn fn, void *ctx);

/* True when PAGEMAP_FD answers PAGEMAP_SCAN (asked about an empty page). */
bool thp_pmd_scan_works(int pagemap_fd);

/* What PAGEMAP_SCAN found PMD-mapped in one VMA, in bytes. */
struct thp_pmd_found {
	uint64_t pmd[2]; /* [THP_FOLIO_ANON], [THP_FOLIO_FILE] */
	uint64_t zero;   /* the huge zero page */
};

/* Settles F against the VMA's AnonHugePages: anonymous PMD mappings beyond it
 * are the huge zero page, which smaps never counts and which kernels before
 * the fix of PAGE_IS_PFNZERO for the huge zero folio (2025) do not flag. */
void thp_pmd_found_settle(struct thp_pmd_found *f, uint64_t anon_huge);

/* Scans VMA V of PAGEMAP_FD into F (zeroed first) and settles it. Returns 0
 * or the error of thp_pmd_scan(). */
int thp_pmd_scan_vma(int pagemap_fd, const struct thp_vma *v, struct thp_pmd_found *f);

/* A += B. */
void thp_folio_stats_add(struct thp_folio_stats *a, const struct thp_folio_stats *b);

/* Sums over both kinds: PMD-mapped, aligned and unaligned PTE-mapped, partial. */
uint64_t thp_folio_pmd(const struct thp_folio_stats *s);
uint64_t thp_folio_pte_aligned(const struct thp_folio_stats *s);
uint64_t thp_folio_pte_unaligned(const struct thp_folio_stats *s);
uint64_t thp_folio_partial(const struct thp_folio_stats *s);

/* Memory in large folios mapped by PTEs (mTHP, and split PMD folios):
 * aligned + unaligned + partial. */
uint64_t thp_folio_mthp(const struct thp_folio_stats *s);

/* Whole folios of ORDER: PTE-mapped (aligned or not), and PMD-mapped when
 * ORDER is the PMD order. */
uint64_t thp_folio_order_bytes(const struct thp_folio_stats *s, int order);

#endif
