/* SPDX-License-Identifier: GPL-2.0-or-later */
/* top.h - the processes holding the most PMD-mapped anonymous THP (AnonHugePages) */
#ifndef THP_TOP_H
#define THP_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc.h"
#include "root.h"

struct thp_top_entry {
	pid_t pid;          /* 0 for an entry that sums a command name */
	int nprocs;         /* processes summed: 1, or those of the command name */
	uint64_t anon_huge; /* bytes */
	char comm[THP_COMM_MAX];
};

struct thp_top {
	bool scanned;        /* false: processes were not read (the counts below are 0) */
	int n;               /* entries in v, largest first (ties: lower pid first) */
	struct thp_top_entry *v;
	int with_huge;       /* processes with AnonHugePages > 0, also those not kept */
	int readable;
	int unreadable;      /* permission denied */
};

/* Reads every process's smaps_rollup (never the full smaps) and keeps the MAX
 * with the most AnonHugePages above 0, with their command names. Processes that
 * exit meanwhile are skipped. Returns 0, -ENOMEM, or -errno of listing /proc. */
int thp_top_anon_huge(const struct thp_root *root, int max, struct thp_top *top);

/* Like thp_top_anon_huge(), with the processes summed per command name: keeps
 * the MAX names with the most AnonHugePages (ties: name order), each with pid 0
 * and the number of its processes, so the entries stay few however processes
 * come and go. */
int thp_top_by_comm(const struct thp_root *root, int max, struct thp_top *top);

/* Ranks processes already read into TOP as thp_top_anon_huge() would (MAX
 * entries), or with BY_COMM as thp_top_by_comm() would: V holds the N
 * processes with AnonHugePages above 0, each with its command name. Their
 * number is TOP's with_huge; readable and unreadable are left 0 for the
 * caller. Returns 0 or -ENOMEM. */
int thp_top_rank(const struct thp_top_entry *v, int n, int max, bool by_comm, struct thp_top *top);

void thp_top_free(struct thp_top *top);

#endif
