/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prctl.c - the per-process THP mode (PR_SET_THP_DISABLE), inherited by children */
#include "control.h"

#include <errno.h>
#include <sys/prctl.h>

#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41
#define PR_GET_THP_DISABLE 42
#endif
#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif

int thp_mode_get(void)
{
	int v = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);

	return v < 0 ? -errno : v;
}

int thp_mode_set(enum thp_mode mode)
{
	unsigned long flags = mode == THP_MODE_EXCEPT_ADVISED ? PR_THP_DISABLE_EXCEPT_ADVISED : 0;

	if (prctl(PR_SET_THP_DISABLE, mode != THP_MODE_ENABLED, flags, 0, 0) < 0)
		return -errno;
	return 0;
}
