/* SPDX-License-Identifier: GPL-2.0-or-later */
/* root.h - every kernel file thp reads is opened relative to a root directory */
#ifndef THP_ROOT_H
#define THP_ROOT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct thp_root {
	int fd;          /* O_PATH directory handle of the root */
	char path[4096]; /* as given by the user, for messages */
	bool live;       /* true when the root is "/" (the running kernel) */
};

/* Largest file thp_read() accepts; longer files are cut here and flagged -EFBIG. */
#define THP_READ_MAX (16u << 20)

/* Opens PATH as root. Returns 0 or -errno. */
int thp_root_open(struct thp_root *r, const char *path);
void thp_root_close(struct thp_root *r);

/* Strips leading '/' so that REL is resolved below the root. */
const char *thp_rel(const char *rel);

/* Opens regular file REL below the root for reading (a FIFO or directory is
 * refused, so nothing blocks). Returns the descriptor or -errno. */
int thp_open(const struct thp_root *r, const char *rel);

/* Reads a small file into BUF (NUL-terminated, cut at CAP-1 bytes).
 * Returns the length read or -errno; only regular files are read. */
ssize_t thp_read_buf(const struct thp_root *r, const char *rel, char *buf, size_t cap);

/* Reads a whole file into a malloc'd NUL-terminated buffer.
 * Returns 0 or -errno; *buf is NULL on error. */
int thp_read(const struct thp_root *r, const char *rel, char **buf, size_t *len);

/* Reads a file the user named (absolute, or relative to the current directory)
 * like thp_read(). */
int thp_read_user(const char *path, char **buf, size_t *len);

/* Opens directory REL below the root for readdir; NULL with errno set on error. */
DIR *thp_opendir(const struct thp_root *r, const char *rel);

#endif
