/* SPDX-License-Identifier: GPL-2.0-or-later */
/* internal.h - readers that thp_status_read() combines; not used outside core */
#ifndef THP_INTERNAL_H
#define THP_INTERNAL_H

#include "status.h"

/* Reads the THP directory into ST; with ALL also khugepaged and the
 * per-size stats. */
void thp_policy_read(const struct thp_root *root, struct thp_status *st, bool all);
void thp_counters_read(const struct thp_root *root, struct thp_status *st);

/* Re-reads the per-size stats files named in STATS (NSTATS) and the
 * khugepaged files named in KH (NKH) that ST holds (see thp_status_refresh). */
void thp_policy_refresh(const struct thp_root *root, struct thp_status *st, const char *const *stats,
			int nstats, const char *const *kh, int nkh);
void thp_boot_read(const struct thp_root *root, struct thp_status *st);

/* Reads the thp_*, compact_*, allocstall_* and pgscan_kswapd/_direct counters
 * of /proc/vmstat into V (THP_COUNTERS_MAX slots), setting *N. Returns 0 or
 * -errno. */
int thp_vmstat_read(const struct thp_root *root, struct thp_counter *v, int *n);

/* True for command-line parameters that shape THP or huge page pools. */
bool thp_boot_key(const char *key, size_t klen);

#endif
