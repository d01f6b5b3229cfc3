/* SPDX-License-Identifier: GPL-2.0-or-later */
/* root.c - open and read files relative to a root directory handle, inside it */
#include "root.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#else
struct open_how {
	unsigned long long flags, mode, resolve;
};
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_BENEATH 0x08
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#define WALK_LINKS 40 /* links followed in one path, as the kernel's MAXSYMLINKS */
#define WALK_DEPTH 256 /* directories deep */

int thp_root_open(struct thp_root *r, const char *path)
{
	struct stat st, rs;

	if (strlen(path) >= sizeof(r->path))
		return -ENAMETOOLONG;
	r->escape = NULL;
	r->kept = NULL;
	r->fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	strcpy(r->path, path);
	r->live = fstat(r->fd, &st) == 0 && stat("/", &rs) == 0 &&
		  st.st_dev == rs.st_dev && st.st_ino == rs.st_ino;
	r->escape = r->live ? NULL : calloc(1, sizeof(*r->escape));
	if (!r->live && !r->escape) {
		thp_root_close(r);
		return -ENOMEM;
	}
	if (r->escape)
		pthread_mutex_init(&r->escape->lock, NULL);
	return 0;
}

#define KEPT_SLOTS 512 /* open addressing; a file past 3/4 of it is not kept */

struct thp_root_kept {
	size_t n;
	struct {
		char *rel;
		int fd;
	} slot[KEPT_SLOTS];
};

int thp_root_keep_open(struct thp_root *r)
{
	if (!r->kept)
		r->kept = calloc(1, sizeof(*r->kept));
	return r->kept ? 0 : -ENOMEM;
}

static void kept_close(struct thp_root_kept *k)
{
	for (size_t i = 0; k && i < KEPT_SLOTS; i++)
		if (k->slot[i].rel) {
			close(k->slot[i].fd);
			free(k->slot[i].rel);
		}
	free(k);
}

void thp_root_close(struct thp_root *r)
{
	kept_close(r->kept);
	r->kept = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (r->escape)
		pthread_mutex_destroy(&r->escape->lock);
	free(r->escape);
	r->escape = NULL;
}

const char *thp_rel(const char *rel)
{
	while (*rel == '/')
		rel++;
	return *rel ? rel : ".";
}

void thp_root_shown(const struct thp_root *r, const char *rel, char *buf, size_t cap)
{
	size_t n = strlen(r->path);

	if (r->live)
		snprintf(buf, cap, "/%s", rel);
	else
		snprintf(buf, cap, "%.*s/%s", (int)(n > 1 && r->path[n - 1] == '/' ? n - 1 : n), r->path, rel);
}

/* Appends S to DST (CAP bytes in all), cut to fit. */
static void append(char *dst, size_t cap, const char *s)
{
	size_t len = strnlen(dst, cap - 1), n = strnlen(s, cap - 1 - len);

	memcpy(dst + len, s, n);
	dst[len + n] = '\0';
}

/* The directories a walk went down, from the root. */
struct walk {
	int dir[WALK_DEPTH + 1];    /* dir[0] is the caller's, not closed here */
	size_t len[WALK_DEPTH + 1]; /* length of PATH at each depth */
	int depth;
	char path[PATH_MAX];        /* names below the root, for messages */
};

enum step { STEP_DIR = 1, STEP_LINK, STEP_OPEN };

static int walk_push(struct walk *w, int fd, const char *name)
{
	if (w->depth == WALK_DEPTH) {
		close(fd);
		return -ENAMETOOLONG;
	}
	if (w->depth)
		append(w->path, sizeof(w->path), "/");
	append(w->path, sizeof(w->path), name);
	w->dir[++w->depth] = fd;
	w->len[w->depth] = strlen(w->path);
	return STEP_DIR;
}

static void walk_pop(struct walk *w)
{
	close(w->dir[w->depth--]);
	w->path[w->len[w->depth]] = '\0';
}

/* Reads the target of link NAME in DIR (of link DIR itself when NAME is "")
 * into TARGET (PATH_MAX bytes). Returns STEP_LINK or -errno. */
static int link_text(int dir, const char *name, char *target)
{
	ssize_t n = readlinkat(dir, name, target, PATH_MAX);

	if (n < 0)
		return -errno;
	if (n == 0 || n >= PATH_MAX)
		return n ? -ENAMETOOLONG : -ENOENT;
	target[n] = '\0';
	return STEP_LINK;
}

/* link_text() of the link open as FD, which is closed. */
static int link_of(int fd, char *target)
{
	int rc = link_text(fd, "", target);

	close(fd);
	return rc;
}

/* Takes component NAME of W's current directory: the last one (LAST) is
 * opened with FLAGS and MODE into *FD (STEP_OPEN), any other is entered
 * (STEP_DIR); a link to follow is read into TARGET (STEP_LINK). Returns the
 * step or -errno. */
static int walk_step(struct walk *w, const char *name, bool last, int flags, mode_t mode,
		     char *target, int *fd)
{
	int dir = w->dir[w->depth], f;
	struct stat sb;

	if (last) {
		/* O_NOFOLLOW meets a link as ELOOP, or as ENOTDIR with O_DIRECTORY */
		f = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
		if (f < 0) {
			int err = -errno;
			bool maybe = (err == -ELOOP || err == -ENOTDIR) && !(flags & O_NOFOLLOW);
			return maybe && link_text(dir, name, target) == STEP_LINK ? STEP_LINK : err;
		}
		if ((flags & (O_PATH | O_NOFOLLOW)) == O_PATH && fstat(f, &sb) == 0 && S_ISLNK(sb.st_mode))
			return link_of(f, target);
		*fd = f;
		return STEP_OPEN;
	}
	f = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (f < 0)
		return -errno;
	if (fstat(f, &sb) < 0) {
		int err = -errno;
		close(f);
		return err;
	}
	if (S_ISLNK(sb.st_mode))
		return link_of(f, target);
	if (S_ISDIR(sb.st_mode))
		return walk_push(w, f, name);
	close(f);
	return -ENOTDIR;
}

/* Puts link TARGET in front of the rest P of the path (in REST, PATH_MAX
 * bytes) and names link NAME of W in WHERE. Returns 0 or -errno. */
static int follow(const struct walk *w, const char *name, char *target, char *rest, const char **p,
		  char *where, size_t cap)
{
	if (cap) {
		where[0] = '\0';
		append(where, cap, w->path);
		append(where, cap, w->depth ? "/" : "");
		append(where, cap, name);
	}
	if (target[0] == '/')
		return -EXDEV;
	if (strlen(target) + 1 + strlen(*p) >= PATH_MAX)
		return -ENAMETOOLONG;
	append(target, PATH_MAX, "/");
	append(target, PATH_MAX, *p);
	strcpy(rest, target);
	*p = rest;
	return 0;
}

int thp_root_walk(int dirfd, const char *rel, int flags, mode_t mode, char *where, size_t cap)
{
	char rest[PATH_MAX], target[PATH_MAX], name[NAME_MAX + 1];
	const char *p = rest;
	struct walk w = { .depth = 0 };
	int links = 0, rc = 0, fd = -1;

	if (strlen(rel) >= sizeof(rest))
		return -ENAMETOOLONG;
	strcpy(rest, rel);
	target[0] = '\0';
	if (cap) {
		where[0] = '\0';
		append(where, cap, rel);
	}
	w.dir[0] = dirfd;
	while (rc >= 0 && fd < 0) {
		size_t n;
		bool last;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (n > NAME_MAX) {
			rc = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		p += strspn(p, "/");
		last = !*p;
		if (strcmp(name, "..") == 0 && w.depth == 0) {
			rc = -EXDEV;
		} else if (n == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			if (n == 2)
				walk_pop(&w);
			if (last && (fd = openat(w.dir[w.depth], ".", flags | O_CLOEXEC, mode)) < 0)
				rc = -errno;
		} else {
			rc = walk_step(&w, name, last, flags, mode, target, &fd);
			if (rc == STEP_LINK)
				rc = ++links > WALK_LINKS ? -ELOOP : follow(&w, name, target, rest, &p, where, cap);
		}
	}
	while (w.depth)
		walk_pop(&w);
	return rc < 0 ? rc : fd;
}

/* Opens REL below DIRFD inside it: openat2 where the kernel has it. */
static int beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
	static atomic_bool no_openat2; /* the kernel predates openat2 (Linux 5.6) */
	struct open_how how = {
		.flags = (unsigned)flags | O_CLOEXEC,
		.mode = flags & (O_CREAT | O_TMPFILE) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};

	for (int i = 0; !no_openat2 && i < 8; i++) {
		long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno == ENOSYS)
			no_openat2 = true;
		else if (errno != EAGAIN) /* EAGAIN: a rename raced with '..'; try again */
			return -errno;
	}
	return no_openat2 ? thp_root_walk(dirfd, rel, flags, mode, NULL, 0) : -EAGAIN;
}

/* Notes the link through which REL of R leaves the tree, once per link. */
static void refused(const struct thp_root *r, const char *rel)
{
	struct thp_root_escape *e = r->escape;
	char link[sizeof(e->link[0])];
	int fd = thp_root_walk(r->fd, rel, O_PATH, 0, link, sizeof(link)), i;

	if (fd >= 0) /* the tree changed meanwhile */
		close(fd);
	pthread_mutex_lock(&e->lock); /* 'thp serve' reads from several threads */
	for (i = 0; i < e->named && strcmp(e->link[i], link) != 0; i++)
		;
	if (i == e->named && e->named == THP_ESCAPES_NAMED)
		e->more++;
	else if (i == e->named)
		strcpy(e->link[e->named++], link);
	pthread_mutex_unlock(&e->lock);
}

int thp_root_openat(const struct thp_root *r, const char *rel, int flags, mode_t mode)
{
	int fd;

	rel = thp_rel(rel);
	if (r->live) {
		fd = openat(r->fd, rel, flags | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	fd = beneath(r->fd, rel, flags, mode);
	if (fd == -EXDEV)
		refused(r, rel);
	return fd;
}

int thp_root_opendir_fd(const struct thp_root *r, const char *rel, mode_t mkdir_mode)
{
	char buf[PATH_MAX];
	int fd = thp_root_openat(r, rel, O_RDONLY | O_DIRECTORY, 0);

	if (fd != -ENOENT || !mkdir_mode)
		return fd;
	if (strlen(rel) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, thp_rel(rel));
	/* each missing directory is made in its parent, itself opened inside the tree */
	fd = thp_root_openat(r, ".", O_RDONLY | O_DIRECTORY, 0);
	for (char *s = buf; fd >= 0 && s;) {
		char *slash = strchr(s, '/');
		int next;

		if (slash)
			*slash = '\0';
		if (mkdirat(fd, s, mkdir_mode) < 0 && errno != EEXIST) {
			next = -errno;
		} else {
			next = thp_root_openat(r, buf, O_RDONLY | O_DIRECTORY, 0);
		}
		close(fd);
		fd = next;
		if (slash)
			*slash = '/';
		s = slash ? slash + 1 : NULL;
	}
	return fd;
}

int thp_root_parent(const struct thp_root *r, const char *rel, mode_t mkdir_mode, const char **leaf)
{
	char dir[PATH_MAX];
	const char *slash;

	rel = thp_rel(rel);
	slash = strrchr(rel, '/');
	*leaf = slash ? slash + 1 : rel;
	if (!slash)
		return thp_root_opendir_fd(r, ".", 0);
	if ((size_t)(slash - rel) >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, rel, (size_t)(slash - rel));
	dir[slash - rel] = '\0';
	return thp_root_opendir_fd(r, dir, mkdir_mode);
}

int thp_stat(const struct thp_root *r, const char *rel, struct stat *sb, int flags)
{
	int fd, err = 0;

	if (r->live)
		return fstatat(r->fd, thp_rel(rel), sb, flags) < 0 ? -errno : 0;
	fd = thp_root_openat(r, rel, O_PATH | (flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0), 0);
	if (fd < 0)
		return fd;
	if (fstat(fd, sb) < 0)
		err = -errno;
	close(fd);
	return err;
}

ssize_t thp_readlink(const struct thp_root *r, const char *rel, char *buf, size_t cap)
{
	int fd = r->live ? dup(r->fd) : thp_root_openat(r, rel, O_PATH | O_NOFOLLOW, 0);
	ssize_t n;

	if (fd < 0)
		return r->live ? -errno : fd;
	n = readlinkat(fd, r->live ? thp_rel(rel) : "", buf, cap - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return n;
}

const char *thp_read_strerror(int err)
{
	switch (-err) {
	case EINVAL:
		return "malformed value";
	case THP_ENOTREG:
		return "a FIFO, socket or device, not a regular file";
	case EXDEV:
		return "a link there points outside the recorded tree";
	default:
		return strerror(-err);
	}
}

const char *thp_strerror(int err)
{
	switch (-err) {
	case E2BIG:
		return "value too long";
	case ERANGE:
		return "number out of range";
	case EFBIG:
		return "file too large";
	case ENOENT:
		return "absent";
	default:
		return thp_read_strerror(err);
	}
}

/* Keeps FD when it is a regular file; else closes it. Returns FD or -errno. */
static int regular(int fd)
{
	struct stat st;
	int err;

	if (fd < 0)
		return fd;
	err = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : S_ISDIR(st.st_mode) ? -EISDIR : -THP_ENOTREG;
	if (err)
		close(fd);
	return err ? err : fd;
}

int thp_open(const struct thp_root *r, const char *rel)
{
	return regular(thp_root_openat(r, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0));
}

/* The slot of REL in K: where it is kept, or the free slot it would take. */
static size_t kept_slot(const struct thp_root_kept *k, const char *rel)
{
	size_t h = 5381;

	for (const char *c = rel; *c; c++)
		h = h * 33 + (unsigned char)*c;
	for (h %= KEPT_SLOTS; k->slot[h].rel && strcmp(k->slot[h].rel, rel) != 0; h = (h + 1) % KEPT_SLOTS)
		;
	return h;
}

/* Opens REL below R as thp_open(), or gives the descriptor kept for it.
 * *KEPT: R keeps it (the caller must not close it). */
static int open_kept(const struct thp_root *r, const char *rel, bool *kept)
{
	struct thp_root_kept *k = r->kept;
	size_t i;
	int fd;

	*kept = false;
	if (!k)
		return thp_open(r, rel);
	i = kept_slot(k, rel);
	if (k->slot[i].rel) {
		*kept = true;
		return k->slot[i].fd;
	}
	fd = thp_open(r, rel);
	if (fd < 0 || k->n >= KEPT_SLOTS * 3 / 4 || !(k->slot[i].rel = strdup(rel)))
		return fd;
	k->slot[i].fd = fd;
	k->n++;
	*kept = true;
	return fd;
}

/* Reads FD into BUF from offset *LEN on until end of file or CAP-1 bytes;
 * with SHORT_END a read shorter than asked is the end of the file (a sysfs
 * attribute shows all of its text in one read: no second read for the end).
 * Returns 0 at end of file, 1 when BUF is full, or -errno. */
static int fill(int fd, char *buf, size_t cap, size_t *len, bool short_end)
{
	while (*len + 1 < cap) {
		size_t want = cap - 1 - *len;
		ssize_t n = pread(fd, buf + *len, want, (off_t)*len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		*len += (size_t)n;
		if (short_end && (size_t)n < want)
			return 0;
	}
	return 1;
}

/* thp_read_buf(), and with ONE thp_read_one(). */
static ssize_t read_buf(const struct thp_root *r, const char *rel, char *buf, size_t cap, bool one)
{
	size_t len = 0;
	bool kept = false, live_one = one && r->live && !r->kept;
	int fd = live_one ? thp_root_openat(r, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0) : open_kept(r, rel, &kept), rc;

	if (fd < 0)
		return fd;
	rc = fill(fd, buf, cap, &len, live_one || (r->live && strncmp(rel, "sys/", 4) == 0));
	if (!kept)
		close(fd);
	buf[len] = '\0';
	return rc < 0 ? rc : (ssize_t)len;
}

ssize_t thp_read_buf(const struct thp_root *r, const char *rel, char *buf, size_t cap)
{
	return read_buf(r, rel, buf, cap, false);
}

ssize_t thp_read_one(const struct thp_root *r, const char *rel, char *buf, size_t cap)
{
	return read_buf(r, rel, buf, cap, true);
}

/* Reads all of FD (closed after unless KEPT) into a malloc'd *OUT, as thp_read(). */
static int read_all(int fd, bool kept, char **out, size_t *outlen)
{
	size_t cap = 8192, len = 0;
	char *buf = NULL, *nb;
	int rc;

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
		rc = fill(fd, buf, cap, &len, false);
		cap *= 2;
	} while (rc == 1);
	if (!kept)
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

int thp_read(const struct thp_root *r, const char *rel, char **out, size_t *outlen)
{
	bool kept;
	int fd = open_kept(r, rel, &kept);

	return read_all(fd, kept, out, outlen);
}

int thp_read_user(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	return read_all(regular(fd < 0 ? -errno : fd), false, buf, len);
}

DIR *thp_opendir(const struct thp_root *r, const char *rel)
{
	DIR *d;
	int fd = thp_root_openat(r, rel, O_RDONLY | O_DIRECTORY, 0);

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d) {
		int err = errno;
		close(fd);
		errno = err;
	}
	return d;
}
