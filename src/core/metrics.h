/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.h - what 'thp metrics' and 'thp serve' export of a host */
#ifndef THP_METRICS_H
#define THP_METRICS_H

#include <stdbool.h>

#include "buddyinfo.h"
#include "doctor.h"
#include "hugetlb.h"
#include "status.h"
#include "top.h"

/* Options of 'thp metrics' that 'thp serve' takes too. */
struct thp_metrics_opts {
	int top;     /* command names (processes with PIDS) exported by AnonHugePages */
	bool pids;   /* one series per process, labelled with its pid */
	bool doctor; /* the doctor's findings and the persistence drift */
};
#define THP_METRICS_OPTS_INIT { .top = 20, .doctor = true }

/* What is exported of a host; NULL members were not read. */
struct thp_metrics {
	const struct thp_status *st;
	const struct thp_buddyinfo *buddy;
	const struct thp_hugetlb *hugetlb;      /* pools of every size */
	const struct thp_top *top;              /* processes, or command names */
	bool pids;                              /* TOP holds processes, not command names */
	const struct thp_findings *findings;    /* the doctor's findings */
	const struct thp_host_persist *persist; /* the settings against what boot applies */
	int procs_err;                          /* -errno when /proc could not be listed to its
						 * end: then TOP is NULL, and the findings
						 * leave out the processes */
	/* what the members above point into, freed by thp_metrics_free() */
	struct thp_diagnosis d;
	struct thp_status *own_st;
	struct thp_buddyinfo *own_buddy;
	struct thp_hugetlb *own_hugetlb;
	struct thp_top own_top;
};

/* Reads the host below ROOT into M as options O ask: with the doctor, the
 * host as thp_diagnose() reads it; without, the status, buddyinfo and pools
 * alone. The top entries come from the processes the doctor read, or from a
 * scan of their smaps_rollup; none when the host holds no PMD-mapped
 * anonymous THP, or when they cannot be read (M->procs_err says why, when
 * /proc could not be listed). Returns 0 or -ENOMEM; free M in both cases. */
int thp_metrics_read(const struct thp_root *root, const struct thp_metrics_opts *o, struct thp_metrics *m);
void thp_metrics_free(struct thp_metrics *m);

#endif
