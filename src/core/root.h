/* SPDX-License-Identifier: GPL-2.0-or-later */
/* root.h - every kernel file thp reads is opened relative to a root directory */
#ifndef THP_ROOT_H
#define THP_ROOT_H

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The links of a recorded tree found pointing outside it: the first few by
 * name, and how many more. */
#define THP_ESCAPES_NAMED 4
struct thp_root_escape {
	pthread_mutex_t lock;
	char link[THP_ESCAPES_NAMED][256];
	int named;
	unsigned more;
};

struct thp_root {
	int fd;          /* O_PATH directory handle of the root */
	char path[4096]; /* as given by the user, for messages */
	bool live;       /* true when the root is "/" (the running kernel) */
	struct thp_root_escape *escape; /* links leaving a recorded tree; NULL when live */
	struct thp_root_kept *kept;     /* files kept open (thp_root_keep_open); NULL: none */
};

/* Largest file thp_read() accepts; longer files are cut here and flagged -EFBIG. */
#define THP_READ_MAX (16u << 20)

/* Opens PATH as root. Returns 0 or -errno. */
int thp_root_open(struct thp_root *r, const char *path);
void thp_root_close(struct thp_root *r);

/* From now on thp_read_buf() and thp_read() keep each file they open below R
 * open and read it again from its start instead of opening it anew: for a
 * command that reads the same kernel files every interval (watch). Not for
 * a root read from several threads. thp_root_close() closes the files.
 * Returns 0 or -ENOMEM. */
int thp_root_keep_open(struct thp_root *r);

/* Strips leading '/' so that REL is resolved below the root. */
const char *thp_rel(const char *rel);

/* REL below root R as shown to the user: "/run/thp/journal" on the live
 * host, "DIR/run/thp/journal" below a recorded tree. */
void thp_root_shown(const struct thp_root *r, const char *rel, char *buf, size_t cap);

/* Opens REL below the root with open(2) FLAGS and MODE; every path below a
 * root is opened here. The live root follows links as the kernel does. A
 * recorded tree follows only relative links that stay inside it: an absolute
 * link, or a '..' that climbs above the root, is never followed and gives
 * -EXDEV (counted in r->escape); procfs magic links give -ELOOP. Uses openat2
 * (RESOLVE_BENEATH, Linux 5.6+), else thp_root_walk(). Returns the descriptor
 * or -errno. */
int thp_root_openat(const struct thp_root *r, const char *rel, int flags, mode_t mode);

/* Resolves REL below directory DIRFD one component at a time as
 * thp_root_openat() does for a recorded tree, with at most 40 links (-ELOOP)
 * and 256 directories deep (-ENAMETOOLONG), and opens the last component with
 * FLAGS and MODE. On -EXDEV the path of the link (or REL) that leaves is
 * copied to WHERE (CAP bytes). Returns the descriptor or -errno. */
int thp_root_walk(int dirfd, const char *rel, int flags, mode_t mode, char *where, size_t cap);

/* Opens directory REL below the root for creating, renaming and removing
 * entries in it with the *at() calls. With MKDIR_MODE non-zero, missing
 * directories on the way are made (inside the tree) with that mode. Returns
 * the descriptor or -errno. */
int thp_root_opendir_fd(const struct thp_root *r, const char *rel, mode_t mkdir_mode);

/* thp_root_opendir_fd() of the directory holding REL; *LEAF points to REL's
 * last component. */
int thp_root_parent(const struct thp_root *r, const char *rel, mode_t mkdir_mode, const char **leaf);

/* fstatat(2) of REL below the root; FLAGS 0 or AT_SYMLINK_NOFOLLOW. Returns 0 or -errno. */
int thp_stat(const struct thp_root *r, const char *rel, struct stat *sb, int flags);

/* Reads the target of link REL below the root into BUF (NUL-terminated, cut
 * at CAP-1 bytes); the target is not followed. Returns its length or -errno. */
ssize_t thp_readlink(const struct thp_root *r, const char *rel, char *buf, size_t cap);

/* The error of a file read that is neither a regular file nor a directory
 * (a FIFO, socket or device), as thp_open and the readers below return it. */
#define THP_ENOTREG EMEDIUMTYPE

/* Words for ERR (negative) from reading a file and parsing its value:
 * "malformed value", "a FIFO, socket or device, not a regular file", "a link
 * there points outside the recorded tree", else strerror's. */
const char *thp_read_strerror(int err);

/* Words for a negative errno from core, as an error message gives them:
 * "value too long", "absent", and thp_read_strerror()'s. */
const char *thp_strerror(int err);

/* Opens regular file REL below the root for reading (a FIFO, device or
 * directory is refused: -THP_ENOTREG, -EISDIR; nothing blocks). Returns the
 * descriptor or -errno. */
int thp_open(const struct thp_root *r, const char *rel);

/* Reads a small file into BUF (NUL-terminated, cut at CAP-1 bytes).
 * Returns the length read or -errno; only regular files are read. */
ssize_t thp_read_buf(const struct thp_root *r, const char *rel, char *buf, size_t cap);

/* thp_read_buf() of a kernel file that shows all of its text in one read
 * (a /proc/PID file of one record: status, smaps_rollup): on the live root
 * (not kept) a read shorter than asked is its end, and the file is not
 * checked for being regular (the kernel's are): 3 system calls, not 5. */
ssize_t thp_read_one(const struct thp_root *r, const char *rel, char *buf, size_t cap);

/* Reads a whole file into a malloc'd NUL-terminated buffer.
 * Returns 0 or -errno; *buf is NULL on error. */
int thp_read(const struct thp_root *r, const char *rel, char **buf, size_t *len);

/* Reads a file the user named (absolute, or relative to the current directory)
 * like thp_read(). */
int thp_read_user(const char *path, char **buf, size_t *len);

/* Opens directory REL below the root for readdir; NULL with errno set on error. */
DIR *thp_opendir(const struct thp_root *r, const char *rel);

#endif
