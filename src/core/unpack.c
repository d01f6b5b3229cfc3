/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unpack.c - capture archives into a private directory, with libarchive */
#include "unpack.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "root.h"

/* libarchive is opened when an archive is read instead of being linked into
 * thp: it brings a dozen compression and crypto libraries that no other
 * command needs at start-up. */
#ifndef THP_ARCHIVE_SONAME
#define THP_ARCHIVE_SONAME "libarchive.so.13"
#endif
#define AR_FUNCS(X)                                                                         \
	X(archive_read_new) X(archive_read_support_filter_gzip) X(archive_read_support_filter_xz) \
	X(archive_read_support_filter_zstd) X(archive_read_support_format_tar)                    \
	X(archive_read_open_fd) X(archive_read_next_header) X(archive_read_data)                  \
	X(archive_read_free) X(archive_error_string) X(archive_entry_pathname)                    \
	X(archive_entry_filetype) X(archive_entry_hardlink) X(archive_entry_symlink)
#define AR_PTR(f) static __typeof__(f) *p_##f;
AR_FUNCS(AR_PTR)

/* Opens libarchive once. Returns NULL, or why it cannot be used. */
static const char *load(void)
{
	static const char *why;
	static bool done;
	void *h;

	if (done)
		return why;
	done = true;
	if (!(h = dlopen(THP_ARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL)))
		return why = "cannot load " THP_ARCHIVE_SONAME;
#define AR_SYM(f)                                     \
	if (!(p_##f = (__typeof__(p_##f))dlsym(h, #f))) \
		return why = "cannot load " THP_ARCHIVE_SONAME;
	AR_FUNCS(AR_SYM)
	return NULL;
}

struct job {
	struct archive *a;
	int top;             /* the private directory */
	unsigned long long bytes;
	char *why;
	size_t wcap;
};

static int refuse(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct job *j, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(j->why, j->wcap, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool plain(const char *c)
{
	return *c && strcmp(c, ".") != 0 && strcmp(c, "..") != 0;
}

/* Makes and opens, below the private directory, each directory of PATH: every
 * component when DIR_ENTRY, else all but the last, which *LEAF then points to.
 * Components must be plain names (not empty, "." or ".."), except a leading
 * "./" as 'tar -C DIR .' writes. Returns a directory descriptor or -errno. */
static int make_dirs(struct job *j, char *path, bool dir_entry, const char **leaf)
{
	char *p = path, *end;
	int fd = dup(j->top);

	while (p[0] == '.' && p[1] == '/')
		p += 2;
	if (dir_entry && strcmp(p, ".") == 0)
		p++;
	*leaf = NULL;
	while (fd >= 0 && *p) {
		int next = -1;
		end = p + strcspn(p, "/");
		if (!*end && !dir_entry)
			break; /* the file's own name */
		if (*end)
			*end++ = '\0';
		if (!plain(p))
			errno = EINVAL;
		else if (mkdirat(fd, p, 0700) == 0 || errno == EEXIST)
			next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		p = end;
	}
	if (fd < 0)
		return -errno;
	if (!dir_entry && !plain(p)) {
		close(fd);
		return -EINVAL;
	}
	*leaf = p;
	return fd;
}

/* Writes the data of the current entry to LEAF in directory DIR. */
static int write_file(struct job *j, int dir, const char *leaf, const char *name)
{
	int fd = openat(dir, leaf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	unsigned long long size = 0;
	char buf[65536];
	la_ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	while ((n = p_archive_read_data(j->a, buf, sizeof(buf))) > 0) {
		size += (unsigned long long)n;
		j->bytes += (unsigned long long)n;
		if (size > THP_READ_MAX) {
			err = refuse(j, "'%s' is larger than %u MiB", name, THP_READ_MAX >> 20);
			break;
		}
		if (j->bytes > THP_UNPACK_BYTES_MAX) {
			err = refuse(j, "it unpacks to more than %llu MiB", THP_UNPACK_BYTES_MAX >> 20);
			break;
		}
		if (write(fd, buf, (size_t)n) != n) {
			err = errno ? -errno : -EIO;
			break;
		}
	}
	if (!err && n < 0)
		err = refuse(j, "%s", p_archive_error_string(j->a));
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

/* Takes one entry: a directory or a regular file. */
static int take(struct job *j, struct archive_entry *e)
{
	const char *name = p_archive_entry_pathname(e), *leaf;
	unsigned type = p_archive_entry_filetype(e);
	char path[4096];
	int dir, err;

	if (!name || !*name || name[0] == '/')
		return refuse(j, "entry '%s' is not a relative path", name ? name : "");
	if (p_archive_entry_hardlink(e) || p_archive_entry_symlink(e))
		return refuse(j, "entry '%s' is a link", name);
	if (type != AE_IFDIR && type != AE_IFREG)
		return refuse(j, "entry '%s' is not a directory or a regular file", name);
	if (snprintf(path, sizeof(path), "%s", name) >= (int)sizeof(path))
		return refuse(j, "entry '%.64s...' has too long a path", name);
	dir = make_dirs(j, path, type == AE_IFDIR, &leaf);
	if (dir == -EINVAL)
		return refuse(j, "entry '%s' is not a plain path below the archive", name);
	if (dir < 0)
		return dir;
	err = type == AE_IFREG ? write_file(j, dir, leaf, name) : 0;
	close(dir);
	return err;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(path);
}

void thp_unpack_remove(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Opens ARCHIVE, which must be a regular file: a FIFO or a device is refused
 * rather than waited on. Returns a descriptor or -errno. */
static int open_archive(struct job *j, const char *archive)
{
	int fd = open(archive, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat sb;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		return fd;
	close(fd);
	return refuse(j, "it is not a regular file");
}

/* Unpacks every entry of the open archive J->a into J->top. */
static int unpack_entries(struct job *j)
{
	struct archive_entry *e;
	long entries = 0;
	int err = 0, r;

	while (!err && (r = p_archive_read_next_header(j->a, &e)) != ARCHIVE_EOF) {
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
			err = refuse(j, "%s", p_archive_error_string(j->a));
		else if (++entries > THP_UNPACK_ENTRIES_MAX)
			err = refuse(j, "it holds more than %d entries", THP_UNPACK_ENTRIES_MAX);
		else
			err = take(j, e);
	}
	return err;
}

int thp_unpack(const char *archive, char *dir, size_t cap, char *why, size_t wcap,
	       thp_unpack_made_fn made, void *arg)
{
	const char *tmp = getenv("TMPDIR"), *lw = load();
	struct job j = { .top = -1, .why = why, .wcap = wcap };
	int fd, err = 0;

	snprintf(why, wcap, "%s", lw ? lw : "");
	if (lw)
		return -ENOSYS;
	if ((fd = open_archive(&j, archive)) < 0)
		return fd;
	if (snprintf(dir, cap, "%s/thp-unpack.XXXXXX", tmp && *tmp ? tmp : "/tmp") >= (int)cap) {
		close(fd);
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(dir)) {
		err = -errno;
		close(fd);
		return err;
	}
	err = made ? made(dir, arg) : 0;
	j.top = err ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	j.a = err ? NULL : p_archive_read_new();
	if (!err && (j.top < 0 || !j.a))
		err = j.top < 0 ? -errno : -ENOMEM;
	if (!err) { /* only the compressions of the archives thp names, no other decoder */
		p_archive_read_support_filter_gzip(j.a);
		p_archive_read_support_filter_xz(j.a);
		p_archive_read_support_filter_zstd(j.a);
		p_archive_read_support_format_tar(j.a);
		if (p_archive_read_open_fd(j.a, fd, 65536) != ARCHIVE_OK)
			err = refuse(&j, "%s", p_archive_error_string(j.a));
	}
	if (!err)
		err = unpack_entries(&j);
	if (j.a)
		p_archive_read_free(j.a);
	if (j.top >= 0)
		close(j.top);
	close(fd);
	if (err)
		thp_unpack_remove(dir);
	return err;
}

static bool has_dir(const char *dir, const char *sub)
{
	char p[4200];
	struct stat sb;

	snprintf(p, sizeof(p), "%s/%s", dir, sub);
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

bool thp_capture_dir(const char *dir)
{
	return has_dir(dir, "proc") || has_dir(dir, "sys");
}

bool thp_unpack_capture_in(const char *dir, char *out, size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	snprintf(out, cap, "%s", dir);
	if (thp_capture_dir(dir) || !d) {
		if (d)
			closedir(d);
		return d != NULL;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 && n++ == 0)
			snprintf(out, cap, "%s/%s", dir, de->d_name);
	closedir(d);
	return n == 1 && thp_capture_dir(out);
}
