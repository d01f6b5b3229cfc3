/* SPDX-License-Identifier: GPL-2.0-or-later */
/* collapse.h - which parts of a process's memory `thp collapse` asks the
 * kernel to collapse, and what they held before and after */
#ifndef THP_COLLAPSE_H
#define THP_COLLAPSE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc.h"
#include "root.h"

#define THP_SEL_MAX 16

/* What to collapse: address ranges and mapping names; both empty selects
 * every anonymous private mapping that is resident and not MADV_NOHUGEPAGE. */
struct thp_csel {
	int nranges;
	struct {
		uint64_t start, end;
	} ranges[THP_SEL_MAX];
	int nnames;
	const char *names[THP_SEL_MAX];
};

/* One PMD-aligned span to collapse, inside one mapping. */
struct thp_ctarget {
	uint64_t start, end;         /* the span: whole PMD blocks */
	uint64_t vma_start, vma_end; /* its mapping */
	char name[THP_VMA_NAME_MAX]; /* the mapping's name; "" when anonymous */
	bool nohuge;                 /* the mapping is marked MADV_NOHUGEPAGE */
	uint64_t blocks, populated;  /* PMD blocks in the span; those with a page present
					or swapped (thp_collapse_runs) */
	struct thp_rollup before;    /* the mapping's figures before the collapse */
	struct thp_rollup after;     /* ... and after (thp_collapse_measure) */
};

/* What a selection left out, for the report. */
struct thp_cskipped {
	int nohuge;     /* anonymous mappings marked MADV_NOHUGEPAGE */
	int small;      /* selected mappings without one whole PMD block */
	int unselected; /* selectors (--range/--vma) that matched no mapping */
};

/* Parses "START-END" (hexadecimal, 0x optional) into [*START, *END).
 * Returns 0, or -EINVAL when malformed or END <= START. */
int thp_parse_range(const char *buf, uint64_t *start, uint64_t *end);

/* True for an anonymous private mapping: no file, or [heap], [stack], [anon:NAME]. */
bool thp_vma_anon(const struct thp_vma *v);

/* Writes to OUT (at most MAX) the PMD-aligned spans of V that SEL selects,
 * PMD being the huge page size, merged and in address order. Returns how
 * many; 0 when V is not selected or holds no whole block (*SMALL is set then
 * when V was selected). HIT, when not NULL, has one flag per range then per
 * name of SEL, set for each selector that matched V. */
int thp_collapse_parts(const struct thp_vma *v, const struct thp_csel *sel, uint64_t pmd,
		       struct thp_ctarget *out, int max, bool *small, bool *hit);

/* Reads PID's smaps and lists the spans SEL selects into a malloc'd array
 * *V of *N entries, in address order, with their mapping's figures as
 * "before". Returns 0 or -errno (see thp_smaps_read). */
int thp_collapse_targets(const struct thp_root *root, pid_t pid, const struct thp_csel *sel,
			 uint64_t pmd, struct thp_ctarget **v, int *n, struct thp_cskipped *skipped);

/* A run of populated PMD blocks of target TARGET: what one process_madvise call gets. */
struct thp_crun {
	uint64_t start, end;
	int target;
};

/* Marks in POP (one flag per block of PER_BLOCK base pages) the blocks that
 * hold a page present or swapped out, from N /proc/PID/pagemap ENTRIES (one
 * per base page; bit 63 present, bit 62 swapped). */
void thp_pagemap_blocks(const uint64_t *entries, uint64_t n, uint64_t per_block, bool *pop);

/* Splits each target into runs of populated blocks, from /proc/PID/pagemap,
 * so that untouched blocks are not collapsed (the kernel refuses them and a
 * collapse would fill them). Sets blocks and populated of every target.
 * Returns 0 or -errno; on error the caller may collapse whole spans. */
int thp_collapse_runs(const struct thp_root *root, pid_t pid, uint64_t page_size, uint64_t pmd,
		      struct thp_ctarget *t, int n, struct thp_crun **runs, int *nruns);

/* Reads PID's smaps again and fills each target's "after" from the mapping
 * that now holds its start. Returns 0 or -errno. */
int thp_collapse_measure(const struct thp_root *root, pid_t pid, struct thp_ctarget *v, int n);

#endif
