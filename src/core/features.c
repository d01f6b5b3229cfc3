/* SPDX-License-Identifier: GPL-2.0-or-later */
/* features.c - which THP interfaces a kernel offers */
#include "features.h"

/* Whether the release of ST is at least MAJOR.MINOR. */
static enum thp_have since(const struct thp_status *st, int major, int minor)
{
	if (st->kmajor < 0)
		return THP_HAVE_UNKNOWN;
	return st->kmajor > major || (st->kmajor == major && st->kminor >= minor) ? THP_HAVE_YES
										  : THP_HAVE_NO;
}

/* A feature that the size directories show when present: unknown only when
 * the THP directory exists but could not be listed. */
static enum thp_have seen(const struct thp_status *st, bool present)
{
	if (present)
		return THP_HAVE_YES;
	return st->dir && st->sizes_err ? THP_HAVE_UNKNOWN : THP_HAVE_NO;
}

int thp_features(const struct thp_status *st, struct thp_feature f[THP_FEATURES])
{
	bool mthp = false, shmem = false;

	for (int i = 0; i < st->nsizes; i++) {
		mthp |= st->sizes[i].enabled.kind != THP_MISSING;
		shmem |= st->sizes[i].shmem_enabled.kind != THP_MISSING;
	}
	f[0] = (struct thp_feature){ "THP", st->dir ? THP_HAVE_YES : THP_HAVE_NO, "2.6.38", "sysfs" };
	f[1] = (struct thp_feature){ "mTHP", seen(st, mthp), "6.8", "sysfs" };
	f[2] = (struct thp_feature){ "MADV_COLLAPSE", since(st, 6, 1), "6.1", "release" };
	f[3] = (struct thp_feature){ "PR_THP_DISABLE_EXCEPT_ADVISED", since(st, 6, 18), "6.18",
				     "release" };
	f[4] = (struct thp_feature){ "PAGEMAP_SCAN", since(st, 6, 7), "6.7", "release" };
	f[5] = (struct thp_feature){ "shmem per-size THP", seen(st, shmem), "6.11", "sysfs" };
	/* the syscalls need THP itself, whatever the release */
	for (int i = 2; i < 4; i++)
		if (!st->dir && f[i].have == THP_HAVE_YES)
			f[i].have = THP_HAVE_NO;
	return THP_FEATURES;
}
