/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unpack.c - capture archives, with libarchive: unpacked into a private
 * directory, and packed from the directory a capture is staged in */
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

/* libarchive is opened when an archive is read or written instead of being
 * linked into thp: it brings a dozen compression and crypto libraries that no
 * other command needs at start-up. */
#ifndef THP_ARCHIVE_SONAME
#define THP_ARCHIVE_SONAME "libarchive.so.13"
#endif
#define AR_FUNCS(X)                                                                         \
	X(archive_read_new) X(archive_read_support_filter_gzip) X(archive_read_support_filter_xz) \
	X(archive_read_support_filter_zstd) X(archive_read_support_format_tar)                    \
	X(archive_read_open_fd) X(archive_read_next_header) X(archive_read_data)                  \
	X(archive_read_free) X(archive_error_string) X(archive_entry_pathname)                    \
	X(archive_entry_filetype) X(archive_entry_hardlink) X(archive_entry_symlink)                \
	X(archive_errno) X(archive_write_new) X(archive_write_add_filter_gzip)                    \
	X(archive_write_set_format_pax_restricted) X(archive_write_set_bytes_in_last_block)       \
	X(archive_write_open_fd) X(archive_write_header) X(archive_write_data)                    \
	X(archive_write_close) X(archive_write_free) X(archive_entry_new) X(archive_entry_free)   \
	X(archive_entry_set_pathname) X(archive_entry_set_filetype) X(archive_entry_set_perm)     \
	X(archive_entry_set_size) X(archive_entry_set_mtime) X(archive_entry_set_uid)             \
	X(archive_entry_set_gid)
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
	if (dir == -ENOTDIR)
		return refuse(j, "entry '%s' needs a directory where an earlier entry is a file", name);
	err = dir < 0 ? dir : type == AE_IFREG ? write_file(j, dir, leaf, name) : 0;
	if (dir >= 0)
		close(dir);
	if (err == -EISDIR)
		return refuse(j, "entry '%s' is a file where an earlier entry is a directory", name);
	if (err < 0 && err != -EINVAL) { /* -EINVAL: refused, WHY says why */
		snprintf(j->why, j->wcap, "cannot write entry '%s': %s", name, strerror(-err));
		return err;
	}
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

	if (fd < 0) {
		snprintf(j->why, j->wcap, "cannot open it: %s", strerror(errno));
		return -errno;
	}
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

int thp_unpack_dir(char *dir, size_t cap, char *why, size_t wcap)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (snprintf(dir, cap, "%s/thp-unpack.XXXXXX", tmp) >= (int)cap) {
		snprintf(why, wcap, "TMPDIR '%.64s...' is too long a path", tmp);
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(dir)) {
		snprintf(why, wcap, "cannot make a directory to unpack it in '%s'%s: %s", tmp,
			 strcmp(tmp, "/tmp") ? " (TMPDIR)" : "", strerror(errno));
		return -errno;
	}
	return 0;
}

int thp_unpack(const char *archive, const char *dir, char *why, size_t wcap)
{
	const char *lw = load();
	struct job j = { .top = -1, .why = why, .wcap = wcap };
	int fd, err = 0;

	snprintf(why, wcap, "%s", lw ? lw : "");
	if (lw)
		return -ENOSYS;
	if ((fd = open_archive(&j, archive)) < 0)
		return fd;
	j.top = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	j.a = j.top < 0 ? NULL : p_archive_read_new();
	if (j.top < 0 || !j.a) {
		err = j.top < 0 ? -errno : -ENOMEM;
		snprintf(why, wcap, "%s", strerror(-err));
	} else { /* only the compressions of the archives thp names, no other decoder */
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

struct pack {
	struct archive *a;
	struct archive_entry *e;
	bool (*stop)(void);
	char *why;
	size_t wcap;
};

/* Why the archive could not be written: its errno, else -EIO with libarchive's words. */
static int pack_failed(struct pack *k)
{
	int err = p_archive_errno(k->a);

	snprintf(k->why, k->wcap, "%s", p_archive_error_string(k->a) ? p_archive_error_string(k->a)
									: "libarchive failed");
	return err > 0 ? -err : -EIO;
}

/* Writes the header of PATH (its metadata from SB) and, for a regular file,
 * the data read from FD. */
static int pack_entry(struct pack *k, const char *path, const struct stat *sb, int fd)
{
	char buf[65536];
	ssize_t n;

	p_archive_entry_set_pathname(k->e, path);
	p_archive_entry_set_filetype(k->e, S_ISDIR(sb->st_mode) ? AE_IFDIR : AE_IFREG);
	p_archive_entry_set_perm(k->e, sb->st_mode & 07777);
	p_archive_entry_set_size(k->e, S_ISDIR(sb->st_mode) ? 0 : sb->st_size);
	p_archive_entry_set_mtime(k->e, sb->st_mtim.tv_sec, sb->st_mtim.tv_nsec);
	p_archive_entry_set_uid(k->e, sb->st_uid);
	p_archive_entry_set_gid(k->e, sb->st_gid);
	if (p_archive_write_header(k->a, k->e) != ARCHIVE_OK)
		return pack_failed(k);
	while (S_ISREG(sb->st_mode) && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (p_archive_write_data(k->a, buf, (size_t)n) != n)
			return pack_failed(k);
	}
	return 0;
}

static int pack_tree(struct pack *k, int dir, char *path, size_t cap);

/* Packs NAME of directory DIR at PATH: a directory with everything below it,
 * or a regular file; anything else (a staged tree holds nothing else) and
 * links are left out. */
static int pack_child(struct pack *k, int dir, const char *name, char *path, size_t cap)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), err = 0;
	struct stat sb;

	if (fd < 0)
		return errno == ELOOP ? 0 : -errno;
	if (fstat(fd, &sb) != 0)
		err = -errno;
	else if (S_ISDIR(sb.st_mode))
		return pack_tree(k, fd, path, cap);
	else if (S_ISREG(sb.st_mode))
		err = pack_entry(k, path, &sb, fd);
	close(fd);
	return err;
}

/* Packs directory PATH, open as DIR (taken over), as "PATH/" and then
 * everything below it. */
static int pack_tree(struct pack *k, int dir, char *path, size_t cap)
{
	size_t len = strlen(path);
	DIR *d = fdopendir(dir);
	struct dirent *de;
	struct stat sb;
	int err = 0;

	if (!d) {
		close(dir);
		return -errno;
	}
	if (fstat(dirfd(d), &sb) != 0)
		err = -errno;
	else if (len + 2 > cap)
		err = -ENAMETOOLONG;
	else
		err = pack_entry(k, strcat(path, "/"), &sb, -1);
	while (!err && (de = readdir(d))) {
		if (!plain(de->d_name))
			continue;
		if (k->stop && k->stop())
			err = -EINTR;
		else if (snprintf(path + len, cap - len, "/%s", de->d_name) >= (int)(cap - len))
			err = -ENAMETOOLONG;
		else
			err = pack_child(k, dirfd(d), de->d_name, path, cap);
	}
	path[len] = '\0';
	closedir(d);
	return err;
}

int thp_pack(int dir, const char *stem, int fd, bool (*stop)(void), char *why, size_t wcap)
{
	struct pack k = { .stop = stop, .why = why, .wcap = wcap };
	const char *lw = load();
	char path[4096];
	int top, err;

	snprintf(why, wcap, "%s", lw ? lw : "");
	if (lw)
		return -ENOSYS;
	if (snprintf(path, sizeof(path), "%s", stem) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if ((top = openat(dir, stem, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	k.a = p_archive_write_new();
	k.e = p_archive_entry_new();
	if (!k.a || !k.e) {
		err = -ENOMEM;
	} else if (p_archive_write_add_filter_gzip(k.a) != ARCHIVE_OK) {
		/* a libarchive without zlib would run the gzip program */
		snprintf(why, wcap, "%s has no built-in gzip", THP_ARCHIVE_SONAME);
		err = -ENOSYS;
	} else if (p_archive_write_set_format_pax_restricted(k.a) != ARCHIVE_OK ||
		   p_archive_write_set_bytes_in_last_block(k.a, 1) != ARCHIVE_OK ||
		   p_archive_write_open_fd(k.a, fd) != ARCHIVE_OK) {
		err = pack_failed(&k);
	} else {
		err = pack_tree(&k, top, path, sizeof(path));
		top = -1;
	}
	if (!err && p_archive_write_close(k.a) != ARCHIVE_OK)
		err = pack_failed(&k);
	if (k.e)
		p_archive_entry_free(k.e);
	if (k.a)
		p_archive_write_free(k.a);
	if (top >= 0)
		close(top);
	return err;
}
