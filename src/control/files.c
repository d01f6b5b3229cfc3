/* SPDX-License-Identifier: GPL-2.0-or-later */
/* files.c - write the files thp keeps: saved state, tmpfiles.d drop-in, unit */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Creates every missing directory above PATH. */
static int mkparents(int dirfd, const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = strchr(buf + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdirat(dirfd, buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int thp_file_replace(int dirfd, const char *path, const char *data, mode_t mode)
{
	char tmp[4200];
	size_t len = strlen(data);
	int fd, err = mkparents(dirfd, path);

	if (err)
		return err;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t)len || fsync(fd) != 0) {
		err = errno ? -errno : -EIO;
		close(fd);
		unlinkat(dirfd, tmp, 0);
		return err;
	}
	if (close(fd) != 0 || renameat(dirfd, tmp, dirfd, path) != 0) {
		err = -errno;
		unlinkat(dirfd, tmp, 0);
		return err;
	}
	return 0;
}

int thp_file_link(int dirfd, const char *target, const char *path)
{
	int err = mkparents(dirfd, path);

	if (err)
		return err;
	if (unlinkat(dirfd, path, 0) != 0 && errno != ENOENT)
		return -errno;
	return symlinkat(target, dirfd, path) == 0 ? 0 : -errno;
}
