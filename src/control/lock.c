/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lock.c - one writer at a time: the commands that change settings or pools
 * hold an flock on run/thp/lock below their root until they exit */
#include "control.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/persist.h"
#include "journal.h"

static int held = -1; /* the lock file, locked, until thp exits */

/* Writes who holds the lock into FD (the lock file): "PID COMMAND".
 * Returns 0 or -errno. */
static int write_holder(int fd)
{
	struct thp_state s;
	char line[sizeof(s.command) + 32];
	int n;

	memset(&s, 0, sizeof(s));
	thp_state_own_command(&s);
	n = snprintf(line, sizeof(line), "%d %s\n", (int)getpid(), s.command);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)n, 0) != n)
		return -errno;
	return 0;
}

/* Opens the lock file in the state directory DIR, creating it 0600. Returns
 * the descriptor or -errno (-EUCLEAN: not a regular file of this user's). */
static int open_lock(int dir)
{
	struct stat st;
	int fd = openat(dir, THP_LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			0600);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -EUCLEAN;
	}
	return fd;
}

/* Sweeps directory DIR (an open descriptor, closed here) of the temporary
 * files beside NAME (NULL: beside any name) that killed writers left, and
 * its subdirectories DEPTH levels down (beside any name) (thp_temp_sweep;
 * LINKS: symbolic links too). */
static void sweep(int dir, const char *name, int depth, bool links)
{
	int fd = depth > 0 ? openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	thp_temp_sweep(dir, name, links);
	while (d && (e = readdir(d))) {
		int sub;
		if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		sub = openat(dir, e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			sweep(sub, NULL, depth - 1, links);
	}
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	close(dir);
}

/* Removes what writers killed between creating and renaming a file left
 * below ROOT, where thp writes: its state, what boot applies (the names thp
 * gives there only: those directories are shared), and in a recorded tree
 * the settings and pools (the live sysfs and procfs take no temporary
 * files). The caller holds the writers' lock. */
static void sweep_root(const struct thp_root *root)
{
	static const struct {
		const char *rel, *name; /* NULL: any name */
		int depth; /* levels of subdirectories: per-size, per-pool, per-node pools */
		bool tree_only, links;
	} dirs[] = {
		{ THP_STATE_DIR, NULL, 0, false, false },
		{ THP_TMPFILES_DIR, THP_TMPFILES_NAME, 0, false, false },
		{ THP_SYSCTLD_DIR, THP_SYSCTLD_NAME, 0, false, false },
		{ THP_UNIT_DIR, THP_UNIT_NAME, 0, false, false },
		{ THP_UNIT_DIR "/" THP_UNIT_WANTS, THP_UNIT_NAME, 0, false, true },
		{ "proc/sys/vm", NULL, 0, true, false },
		{ "sys/kernel/mm/transparent_hugepage", NULL, 1, true, false },
		{ "sys/kernel/mm/hugepages", NULL, 1, true, false },
		{ "sys/devices/system/node", NULL, 3, true, false },
	};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int fd = root->live && dirs[i].tree_only ? -1 : thp_root_opendir_fd(root, dirs[i].rel, 0);
		if (fd >= 0)
			sweep(fd, dirs[i].name, dirs[i].depth, dirs[i].links);
	}
}

int thp_writer_lock(const struct thp_root *root, int wait_ms, struct thp_lock_holder *h)
{
	struct timespec pause = { 0, 50000000L }; /* 50 ms */
	int dir, fd;

	memset(h, 0, sizeof(*h));
	if (held >= 0)
		return 0;
	dir = thp_state_dir(root, true);
	if (dir == -ENOENT && !root->live)
		return 0; /* a tree without run/ keeps no state: nothing for writers to share */
	if (dir < 0)
		return dir;
	fd = open_lock(dir);
	close(dir);
	if (fd < 0)
		return fd;
	for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited += 50) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int err = -errno;
			close(fd);
			return err;
		}
		if (waited >= wait_ms) {
			thp_lock_holder_read(root, h);
			close(fd);
			return -EBUSY;
		}
		nanosleep(&pause, NULL);
	}
	write_holder(fd); /* only read for messages: a failed write is no reason to stop */
	held = fd;
	sweep_root(root);
	return 0;
}
