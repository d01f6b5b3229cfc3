/* SPDX-License-Identifier: GPL-2.0-or-later */
/* files.c - write the files thp keeps (saved state, journal, tmpfiles.d drop-in,
 * unit, metrics textfile, capture archive): each through a temporary file
 * created exclusively beside it, fsync and rename; nothing but a regular file
 * is ever replaced */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* The signals that end thp while a temporary file exists: held until it is
 * renamed into place or removed. */
static const int held[] = { SIGINT, SIGTERM, SIGHUP };

void thp_signals_hold(sigset_t *old)
{
	sigset_t s;

	sigemptyset(&s);
	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		sigaddset(&s, held[i]);
	sigprocmask(SIG_BLOCK, &s, old);
}

bool thp_signals_pending(void)
{
	struct sigaction sa;
	sigset_t p;

	if (sigpending(&p) != 0)
		return false;
	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		if (sigismember(&p, held[i]) == 1 && sigaction(held[i], NULL, &sa) == 0 &&
		    sa.sa_handler != SIG_IGN) /* under nohup, a hang-up is no reason to stop */
			return true;
	return false;
}

void thp_signals_release(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

int thp_die_by(int signo)
{
	signal(signo, SIG_DFL);
	raise(signo);
	return 128 + signo;
}

const char *thp_file_strerror(int err)
{
	switch (-err) {
	case ELOOP:
		return "it is a symbolic link, which thp does not follow or replace";
	case EISDIR:
		return "it is a directory";
	case EEXIST:
		return "it exists and is not a regular file, which thp does not replace";
	case EXDEV:
		return "a link on the way points outside the recorded tree";
	case EUCLEAN:
		return "the directory is not thp's own (it must be owned by root and writable by no one else)";
	case THP_ENOTREG:
		return "it is a FIFO, socket or device, not a regular file";
	default:
		return strerror(-err);
	}
}

int thp_file_check(int dirfd, const char *name)
{
	struct stat st;

	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EISDIR;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	return S_ISREG(st.st_mode) ? 0 : -EEXIST;
}

static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
#define TEMP_RANDOM 6 /* random letters at the end of a temporary name */

void thp_temp_name(const char *name, char tmp[NAME_MAX + 1])
{
	static unsigned counter;
	unsigned char r[TEMP_RANDOM];
	size_t n = (size_t)snprintf(tmp, NAME_MAX + 1, ".%.*s.", NAME_MAX - 8, name);

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		for (size_t i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)((unsigned)getpid() * 31 + ++counter * 7 + i * 13);
	for (size_t i = 0; i < sizeof(r); i++)
		tmp[n + i] = abc[r[i] % (sizeof(abc) - 1)];
	tmp[n + sizeof(r)] = '\0';
}

/* Whether ENTRY is a name thp_temp_name(NAME) gives (NAME NULL: for any name). */
static bool temp_of(const char *entry, const char *name)
{
	char prefix[NAME_MAX + 1];
	size_t len = strlen(entry), n;

	if (!name) {
		const char *dot = strrchr(entry, '.');
		return entry[0] == '.' && dot && dot > entry + 1 && len - (size_t)(dot + 1 - entry) ==
		       TEMP_RANDOM && strspn(dot + 1, abc) == TEMP_RANDOM;
	}
	n = (size_t)snprintf(prefix, sizeof(prefix), ".%.*s.", NAME_MAX - 8, name);
	return strncmp(entry, prefix, n) == 0 && len - n == TEMP_RANDOM &&
	       strspn(entry + n, abc) == TEMP_RANDOM;
}

/* Removes ENTRY of DIRFD when it is a regular file that no process holds
 * locked: the temporary file of a writer that was killed (a live writer
 * holds a lock on its temporary file from its creation to its rename). */
static void remove_if_stale(int dirfd, const char *entry)
{
	struct stat st, now;
	int fd;

	if (fstatat(dirfd, entry, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
		return;
	fd = openat(dirfd, entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &now) == 0 && now.st_ino == st.st_ino && now.st_dev == st.st_dev &&
	    flock(fd, LOCK_EX | LOCK_NB) == 0)
		unlinkat(dirfd, entry, 0);
	close(fd);
}

void thp_temp_sweep(int dirfd, const char *name, bool links)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)))
		if (temp_of(e->d_name, name)) {
			if (links && e->d_type == DT_LNK)
				unlinkat(dirfd, e->d_name, 0);
			else
				remove_if_stale(dirfd, e->d_name);
		}
	closedir(d);
}

/* Creates a new file thp_temp_name(NAME) in DIRFD with MODE whatever the
 * umask, locked (flock) against thp_temp_sweep(); its name goes to TMP.
 * Returns the descriptor or -errno. */
static int create_temp(int dirfd, const char *name, mode_t mode, char tmp[NAME_MAX + 1])
{
	for (int tries = 0; tries < 100; tries++) {
		int fd;

		thp_temp_name(name, tmp);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fchmod(fd, mode) != 0) {
			int err = -errno;
			close(fd);
			unlinkat(dirfd, tmp, 0);
			return err;
		}
		return fd;
	}
	return -EEXIST;
}

/* thp_file_write_with(), renaming with renameat2() FLAGS. */
static int write_with(int dirfd, const char *name, mode_t mode, thp_fill_fn fill, void *arg,
		      unsigned flags)
{
	char tmp[NAME_MAX + 1];
	sigset_t old;
	int fd, lock, err = thp_file_check(dirfd, name);

	if (err)
		return err;
	thp_temp_sweep(dirfd, name, false);
	thp_signals_hold(&old);
	fd = create_temp(dirfd, name, mode, tmp);
	if (fd < 0) {
		thp_signals_release(&old);
		return fd;
	}
	lock = dup(fd); /* holds the lock from the close to the rename */
	err = lock < 0 ? -errno : fill(fd, arg);
	if (!err && fsync(fd) != 0)
		err = -errno;
	if (close(fd) != 0 && !err)
		err = -errno;
	if (!err && thp_signals_pending())
		err = -EINTR; /* ends thp once released: the old file stays whole */
	if (!err && renameat2(dirfd, tmp, dirfd, name, flags) != 0)
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
	if (lock >= 0)
		close(lock);
	thp_signals_release(&old);
	return err;
}

int thp_file_write_with(int dirfd, const char *name, mode_t mode, thp_fill_fn fill, void *arg)
{
	return write_with(dirfd, name, mode, fill, arg, 0);
}

struct text {
	const char *data;
	size_t len;
};

static int fill_text(int fd, void *arg)
{
	const struct text *t = arg;

	for (size_t off = 0; off < t->len;) {
		ssize_t n = write(fd, t->data + off, t->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

int thp_file_write(int dirfd, const char *name, const char *data, mode_t mode)
{
	struct text t = { data, strlen(data) };

	return write_with(dirfd, name, mode, fill_text, &t, 0);
}

int thp_file_write_new(int dirfd, const char *name, const char *data, mode_t mode)
{
	struct text t = { data, strlen(data) };

	return write_with(dirfd, name, mode, fill_text, &t, RENAME_NOREPLACE);
}

int thp_file_link(int dirfd, const char *target, const char *name)
{
	char tmp[NAME_MAX + 1];
	struct stat st;
	sigset_t old;
	int err = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
	thp_temp_sweep(dirfd, name, true);
	thp_signals_hold(&old);
	thp_temp_name(name, tmp);
	if (symlinkat(target, dirfd, tmp) != 0 || renameat(dirfd, tmp, dirfd, name) != 0) {
		err = -errno;
		unlinkat(dirfd, tmp, 0);
	}
	thp_signals_release(&old);
	return err;
}

int thp_file_dir(const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int fd;

	*name = slash ? slash + 1 : path;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) >= sizeof(dir))
		return -ENAMETOOLONG;
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int thp_state_dir(const struct thp_root *root, bool create)
{
	const char *name = strrchr(THP_STATE_DIR, '/') + 1;
	char parent[sizeof(THP_STATE_DIR)];
	struct stat st;
	int dir, fd, err = 0;

	snprintf(parent, sizeof(parent), "%.*s", (int)(name - 1 - THP_STATE_DIR), THP_STATE_DIR);
	dir = thp_root_opendir_fd(root, parent, 0);
	if (dir < 0)
		return dir;
	if (create && mkdirat(dir, name, 0700) == 0) {
		if (fchmodat(dir, name, 0700, 0) != 0) /* whatever the umask */
			err = -errno;
	} else if (create && errno != EEXIST) {
		err = -errno;
	}
	if (!err && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		err = -errno;
	else if (!err && S_ISLNK(st.st_mode))
		err = -ELOOP;
	fd = err ? err : openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		fd = -errno;
	close(dir);
	if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 022))) {
		close(fd);
		return -EUCLEAN;
	}
	return fd;
}
