/* SPDX-License-Identifier: GPL-2.0-or-later */
/* below.c - remove a file thp keeps below a root, inside the tree */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int thp_root_unlink(const struct thp_root *r, const char *rel)
{
	const char *leaf;
	int dirfd = thp_root_parent(r, rel, 0, &leaf), err;

	if (dirfd < 0)
		return dirfd;
	err = unlinkat(dirfd, leaf, 0) < 0 ? -errno : 0;
	close(dirfd);
	return err;
}
