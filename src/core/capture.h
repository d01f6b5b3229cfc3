/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.h - copy the kernel files thp reads into a directory tree */
#ifndef THP_CAPTURE_H
#define THP_CAPTURE_H

#include <stdbool.h>

#include "root.h"

struct thp_capture_result {
	int files;      /* files copied */
	int unreadable; /* files skipped because they could not be read */
	int processes;  /* processes recorded */
};

/* Copies every file thp reads from ROOT into directory OUT (created if needed).
 * With PROCS, per-process files are recorded too. Returns 0 or -errno of the
 * first failure to write below OUT; read failures are only counted. */
int thp_capture(const struct thp_root *root, const char *out, bool procs,
		struct thp_capture_result *res);

#endif
