/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysfs.c - write one kernel setting file */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int thp_write_file(const struct thp_root *root, const char *rel, const char *value)
{
	size_t len = strlen(value);
	int fd = thp_root_openat(root, rel, O_WRONLY | O_TRUNC | O_NOFOLLOW, 0);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = write(fd, value, len);
	if (n < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}
