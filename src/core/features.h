/* SPDX-License-Identifier: GPL-2.0-or-later */
/* features.h - which THP interfaces a kernel offers, from the status model */
#ifndef THP_FEATURES_H
#define THP_FEATURES_H

#include "status.h"

enum thp_have { THP_HAVE_UNKNOWN = -1, THP_HAVE_NO = 0, THP_HAVE_YES = 1 };

struct thp_feature {
	const char *name;  /* "THP", "mTHP", "MADV_COLLAPSE", ... */
	enum thp_have have;
	const char *since; /* first kernel release that has it: "6.1" */
	const char *how;   /* how it was decided: "sysfs" or "release" */
};

#define THP_FEATURES 6

/* Fills F with the THP, mTHP, MADV_COLLAPSE, PR_THP_DISABLE_EXCEPT_ADVISED,
 * PAGEMAP_SCAN and per-size shmem features of the host ST describes: from
 * sysfs where the kernel shows the feature there, otherwise from the release
 * (unknown when the release could not be read). Returns THP_FEATURES. */
int thp_features(const struct thp_status *st, struct thp_feature f[THP_FEATURES]);

#endif
