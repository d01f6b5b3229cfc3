/* SPDX-License-Identifier: GPL-2.0-or-later */
/* root.c - open and read files relative to a root directory handle */
#include "root.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int thp_root_open(struct thp_root *r, const char *path)
{
	struct stat st, rs;

	if (strlen(path) >= sizeof(r->path))
		return -ENAMETOOLONG;
	r->fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	strcpy(r->path, path);
	r->live = fstat(r->fd, &st) == 0 && stat("/", &rs) == 0 &&
		  st.st_dev == rs.st_dev && st.st_ino == rs.st_ino;
	return 0;
}

void thp_root_close(struct thp_root *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

const char *thp_rel(const char *rel)
{
	while (*rel == '/')
		rel++;
	return *rel ? rel : ".";
}

int thp_open(const struct thp_root *r, const char *rel)
{
	struct stat st;
	int fd = openat(r->fd, thp_rel(rel), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	return fd;
}

/* Reads FD into BUF from *LEN on until end of file or CAP-1 bytes.
 * Returns 0 at end of file, 1 when BUF is full, or -errno. */
static int fill(int fd, char *buf, size_t cap, size_t *len)
{
	while (*len + 1 < cap) {
		ssize_t n = read(fd, buf + *len, cap - 1 - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		*len += (size_t)n;
	}
	return 1;
}

ssize_t thp_read_buf(const struct thp_root *r, const char *rel, char *buf, size_t cap)
{
	size_t len = 0;
	int fd = thp_open(r, rel), rc;

	if (fd < 0)
		return fd;
	rc = fill(fd, buf, cap, &len);
	close(fd);
	buf[len] = '\0';
	return rc < 0 ? rc : (ssize_t)len;
}

int thp_read(const struct thp_root *r, const char *rel, char **out, size_t *outlen)
{
	size_t cap = 8192, len = 0;
	char *buf = NULL, *nb;
	int fd = thp_open(r, rel), rc;

	*out = NULL;
	if (fd < 0)
		return fd;
	do {
		nb = cap <= THP_READ_MAX + 1 ? realloc(buf, cap) : NULL;
		if (!nb) {
			rc = cap > THP_READ_MAX + 1 ? -EFBIG : -ENOMEM;
			break;
		}
		buf = nb;
		rc = fill(fd, buf, cap, &len);
		cap *= 2;
	} while (rc == 1);
	close(fd);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[len] = '\0';
	*out = buf;
	if (outlen)
		*outlen = len;
	return 0;
}

int thp_read_user(const char *path, char **buf, size_t *len)
{
	struct thp_root r;
	int err = thp_root_open(&r, path[0] == '/' ? "/" : ".");

	*buf = NULL;
	if (err)
		return err;
	err = thp_read(&r, path, buf, len);
	thp_root_close(&r);
	return err;
}

DIR *thp_opendir(const struct thp_root *r, const char *rel)
{
	DIR *d;
	int fd = openat(r->fd, thp_rel(rel), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		int err = errno;
		close(fd);
		errno = err;
	}
	return d;
}
