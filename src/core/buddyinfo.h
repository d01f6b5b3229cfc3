/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buddyinfo.h - free memory blocks per node, zone and order from /proc/buddyinfo */
#ifndef THP_BUDDYINFO_H
#define THP_BUDDYINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "root.h"

#define THP_BUDDY_ORDERS 32  /* orders per zone kept (kernels show 11 to 14) */
#define THP_BUDDY_ZONES 256  /* node/zone lines kept */

/* One "Node N, zone NAME c0 c1 ..." line: free blocks of 2^order pages. */
struct thp_buddy_zone {
	int node;
	char zone[16];
	int norders;
	uint64_t free[THP_BUDDY_ORDERS];
};

struct thp_buddyinfo {
	int nzones;
	bool truncated; /* more zones, or more orders in a zone, than kept */
	struct thp_buddy_zone zones[THP_BUDDY_ZONES];
};

/* Parses /proc/buddyinfo text; lines that do not parse are skipped.
 * Returns 0, or -EINVAL when no line parses. */
int thp_buddyinfo_parse(const char *buf, struct thp_buddyinfo *b);

/* Reads ROOT/proc/buddyinfo. Returns 0 or -errno (-ENOENT: absent). */
int thp_buddyinfo_read(const struct thp_root *root, struct thp_buddyinfo *b);

/* Free memory in Z that lies in blocks of ORDER or more, counted in blocks of
 * 2^ORDER pages (one free order-10 block counts as two order-9 blocks). */
uint64_t thp_buddy_free_blocks(const struct thp_buddy_zone *z, int order);

/* Buddy order of a PMD-sized page (log2 of PMD_SIZE / PAGE_SIZE), or -1 when
 * either size is unknown or they are not powers of two. */
int thp_pmd_order(uint64_t pmd_size, uint64_t page_size);

#endif
