/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysfs.c - write one kernel setting file */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The live kernel: one write(2) to the open file, which takes or fails as a
 * whole (sysfs and procfs have no partial content to leave behind). */
static int write_live(const struct thp_root *root, const char *rel, const char *value)
{
	size_t len = strlen(value);
	int fd = thp_root_openat(root, rel, O_WRONLY | O_NOFOLLOW, 0), err = 0;
	ssize_t n;

	if (fd < 0)
		return fd;
	n = write(fd, value, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

/* A recorded tree is an ordinary file system: the new content goes to a
 * temporary file beside REL, renamed over it (thp_file_write), so that REL
 * holds the old value or the new one, never a part. It holds what the
 * kernel would show: VALUE as one line. REL must exist: a tree without the
 * setting has no such setting. The file keeps its mode. */
static int write_tree(const struct thp_root *root, const char *rel, const char *value)
{
	size_t len = strlen(value);
	char *line = malloc(len + 2);
	const char *leaf;
	struct stat st;
	int dir = line ? thp_root_parent(root, rel, 0, &leaf) : -ENOMEM, err;

	if (dir < 0) {
		free(line);
		return dir;
	}
	snprintf(line, len + 2, "%s%s", value, len && value[len - 1] == '\n' ? "" : "\n");
	if (fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0)
		err = -errno;
	else
		err = thp_file_write(dir, leaf, line, st.st_mode & 07777);
	close(dir);
	free(line);
	return err;
}

int thp_write_file(const struct thp_root *root, const char *rel, const char *value)
{
	return root->live ? write_live(root, rel, value) : write_tree(root, rel, value);
}
