/* SPDX-License-Identifier: GPL-2.0-or-later */
/* below.c - write the files thp keeps below a root, inside the tree */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

enum op { REPLACE, LINK, UNLINK };

/* Does OP on REL in its directory, opened inside the root (made, 0755, when
 * missing and OP creates). Returns 0 or -errno. */
static int below(const struct thp_root *r, const char *rel, enum op op, const char *data, mode_t mode)
{
	const char *leaf;
	int dirfd = thp_root_parent(r, rel, op == UNLINK ? 0 : 0755, &leaf), err;

	if (dirfd < 0)
		return dirfd;
	if (op == REPLACE)
		err = thp_file_replace(dirfd, leaf, data, mode);
	else if (op == LINK)
		err = thp_file_link(dirfd, data, leaf);
	else
		err = unlinkat(dirfd, leaf, 0) < 0 ? -errno : 0;
	close(dirfd);
	return err;
}

int thp_root_replace(const struct thp_root *r, const char *rel, const char *data, mode_t mode)
{
	return below(r, rel, REPLACE, data, mode);
}

int thp_root_link(const struct thp_root *r, const char *target, const char *rel)
{
	return below(r, rel, LINK, target, 0);
}

int thp_root_unlink(const struct thp_root *r, const char *rel)
{
	return below(r, rel, UNLINK, "", 0);
}
