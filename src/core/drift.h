/* SPDX-License-Identifier: GPL-2.0-or-later */
/* drift.h - persisted THP settings against the running kernel */
#ifndef THP_DRIFT_H
#define THP_DRIFT_H

#include "changes.h"
#include "hugetlb.h"
#include "persist.h"

/* A persisted value that the running kernel does not have, or would refuse. */
struct thp_drift {
	char key[THP_KEY_MAX];
	char persisted[THP_VALUE_MAX];
	char running[THP_VALUE_MAX]; /* "" when the kernel has no such setting */
	const char *source;          /* file it comes from, inside the thp_persisted */
	int line;                    /* 0 when unknown */
	char refused[160];           /* why boot would fail to apply it; "" when accepted */
	bool tuned;                  /* the value is tuned's, from its active profile */
};

/* Compares every persisted value of P with the settings CS and the pools H
 * (the persistent pages of a pool: nr_hugepages less surplus) and stores at
 * most MAX disagreements in D, the settings first. Returns their number. */
int thp_drift_check(const struct thp_changes *cs, const struct thp_hugetlb *h,
		    const struct thp_persisted *p, struct thp_drift *d, int max);

#endif
