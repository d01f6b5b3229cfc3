/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mounts.h - the mounts a process sees (/proc/PID/mountinfo): which
 * filesystem holds a mapped file, and a tmpfs mount's huge= option */
#ifndef THP_MOUNTS_H
#define THP_MOUNTS_H

#include <stdint.h>
#include <sys/types.h>

#include "root.h"

struct thp_mount {
	unsigned major, minor; /* the device of its files, as smaps shows it */
	char fstype[32];
	char huge[16];         /* tmpfs huge= ("never" when not given); "" for others */
	char point[256];
};

struct thp_mounts {
	int n;
	struct thp_mount *v;
};

/* Parses /proc/PID/mountinfo text into M (freed with thp_mounts_free).
 * Lines that do not parse are skipped. Returns 0 or -ENOMEM. */
int thp_mountinfo_parse(const char *buf, struct thp_mounts *m);

/* Reads /proc/PID/mountinfo below ROOT into M. Returns 0 or -errno. */
int thp_mountinfo_read(const struct thp_root *root, pid_t pid, struct thp_mounts *m);

void thp_mounts_free(struct thp_mounts *m);

/* The mount of device MAJOR:MINOR, or NULL (M may be NULL). */
const struct thp_mount *thp_mount_of(const struct thp_mounts *m, unsigned major, unsigned minor);

#endif
