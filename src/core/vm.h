/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vm.h - the compaction and watermark sysctls of /proc/sys/vm (the
 * THP_PLACE_VM rows of the settings table), the kernel's own min_free_kbytes
 * for a host, and the reclaim activity of kswapd and of allocating threads */
#ifndef THP_VM_H
#define THP_VM_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

/* Reads every THP_PLACE_VM setting of the table below ROOT into ST->vm in
 * table order (THP_MISSING for a file this kernel lacks), and counts the
 * populated zones up to Normal in /proc/buddyinfo. */
void thp_vm_read(const struct thp_root *root, struct thp_status *st);

/* The sysctl NAME ("min_free_kbytes") of ST; NULL when thp does not know it. */
const struct thp_setting *thp_vm_setting(const struct thp_status *st, const char *name);

/* Its value when the kernel has it as a number. */
bool thp_vm_num(const struct thp_status *st, const char *name, uint64_t *v);

/* The min_free_kbytes the kernel would choose for this host. */
struct thp_min_free {
	uint64_t base_kb; /* sqrt(16 * lowmem KiB), clamped to 128..262144 (mm/page_alloc.c) */
	uint64_t thp_kb;  /* khugepaged's 11 pageblocks per zone up to Normal, at most 5% of
			   * lowmem (mm/khugepaged.c); 0 when PMD THP is off */
	uint64_t kb;      /* the larger: what the kernel sets at boot */
};

/* Estimates the kernel's min_free_kbytes from MemTotal (for the kernel's
 * lowmem, which is slightly smaller), the zone count, the pageblock (PMD)
 * size and whether PMD-sized THP is on. Returns false when MemTotal, the
 * page sizes or the zones are unknown. */
bool thp_min_free_default(const struct thp_status *st, struct thp_min_free *m);

/* Integer square root of N (floor). */
uint64_t thp_isqrt(uint64_t n);

/* Sum of the allocstall_* counters of /proc/vmstat (direct reclaim entries of
 * allocating threads); false when the kernel has none. */
bool thp_allocstalls(const struct thp_counter *v, int n, uint64_t *sum);

#endif
