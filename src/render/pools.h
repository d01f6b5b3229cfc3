/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pools.h - the words of a resize of static huge page pools ('thp hugetlb
 * set') */
#ifndef THP_RENDER_POOLS_H
#define THP_RENDER_POOLS_H

#include <stdint.h>

#include "../core/hugetlb.h"
#include "render.h"

struct thp_pools_change;
struct thp_pools_run;

/* What 'hugetlb set' found of a pool before writing it, which its report
 * explains with. */
struct thp_pool_seen {
	uint64_t in_use; /* pages faulted in */
	uint64_t resv;   /* free pages promised to mappings that have not faulted
			    them in (host-wide pools; 0 for a node's) */
	uint64_t blocks; /* free buddy blocks of its page size (/proc/buddyinfo) */
	int blocks_err;  /* of thp_buddy_blocks: -ERANGE when its pages are larger
			    than the buddy allocator's blocks */
};

/* Prints the resize PC of the pools, SEEN[i] as found for PC's pool i on
 * the host H, in the form FMT asks (JSON, exact sizes): planned (R NULL: a
 * dry run) or made (R of thp_pools_run), with the command that undoes it;
 * says on stderr what failed. Returns the exit status: 0; 1 when a pool did
 * not reach its size, when a write, the journal or the output failed; or
 * ends thp, once all is said, by the signal that R says arrived
 * (thp_die_by). */
int thp_pools_report(const struct out_fmt *fmt, const struct thp_hugetlb *h, const struct thp_pools_change *pc,
		     const struct thp_pool_seen *seen, const struct thp_pools_run *r);

#endif
