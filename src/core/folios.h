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

#include "proc.h"
#include "root.h"

#define THP_FOLIO_ORDERS 16

enum { THP_FOLIO_ANON, THP_FOLIO_FILE };

/* Bytes of mapping by kind ([THP_FOLIO_ANON] or [THP_FOLIO_FILE]). */
struct thp_folio_stats {
	uint64_t pmd[2];                              /* PMD-mapped THP */
	uint64_t aligned[2][THP_FOLIO_ORDERS];        /* wholly PTE-mapped THP of an order, naturally aligned */
	uint64_t unaligned[2][THP_FOLIO_ORDERS];      /* wholly PTE-mapped THP, not aligned */
	uint64_t partial[2];                          /* pages of THPs mapped only in part */
	uint64_t walked;                              /* bytes of address space analysed */
	int page_shift, pmd_order;                    /* for the counter names */
	bool scan;                                    /* PMD mappings found with PAGEMAP_SCAN */
};

struct thp_folio_reader;

/* Opens /proc/kpageflags below ROOT and learns the page and PMD size.
 * Returns 0 or -errno (-EACCES/-EPERM without root). */
int thp_folio_reader_open(const struct thp_root *root, struct thp_folio_reader **fr);
void thp_folio_reader_close(struct thp_folio_reader *fr);

/* Adds the mapping of VMA V to S, reading pagemap in chunks of 512 KiB and
 * kpageflags once per run of contiguous PFNs. Uses PAGEMAP_SCAN (Linux 6.7+),
 * where it works, to skip PMD-mapped ranges without reading their entries.
 * Returns 0, or -ESRCH when the process exited during the walk (pagemap read
 * returned nothing), or -errno. */
int thp_folios_vma(struct thp_folio_reader *fr, int pagemap_fd, const struct thp_vma *v,
		   struct thp_folio_stats *s);

/* Rolls up every VMA of process PID into S (zeroed first). Returns 0 or -errno. */
int thp_folios_proc(struct thp_folio_reader *fr, pid_t pid, struct thp_folio_stats *s);

/* Called for each PMD-mapped range; FILE is true for page cache or shmem. */
typedef int (*thp_pmd_range_fn)(uint64_t start, uint64_t end, bool file, void *ctx);

/* Calls FN for each PMD-mapped (PAGE_IS_HUGE) range in [START, END) of the
 * pagemap PAGEMAP_FD, found with the PAGEMAP_SCAN ioctl (Linux 6.7+) without
 * reading every entry; needs no root, only permission to open pagemap.
 * Returns 0, -ENOTTY or -EINVAL when the kernel lacks the ioctl, FN's
 * non-zero value, or -errno. */
int thp_pmd_scan(int pagemap_fd, uint64_t start, uint64_t end, thp_pmd_range_fn fn, void *ctx);

/* A += B. */
void thp_folio_stats_add(struct thp_folio_stats *a, const struct thp_folio_stats *b);

/* Sums over both kinds: PMD-mapped, aligned and unaligned PTE-mapped, partial. */
uint64_t thp_folio_pmd(const struct thp_folio_stats *s);
uint64_t thp_folio_pte_aligned(const struct thp_folio_stats *s);
uint64_t thp_folio_pte_unaligned(const struct thp_folio_stats *s);
uint64_t thp_folio_partial(const struct thp_folio_stats *s);

#endif
