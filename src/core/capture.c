/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.c - record the files thp reads, preserving their layout */
#include "capture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"

const char *const thp_capture_host_paths[] = {
	"proc/sys/kernel/osrelease",
	"proc/sys/kernel/hostname",
	"proc/sys/kernel/random/boot_id",
	"proc/self/auxv",
	"proc/cmdline",
	"proc/uptime",
	"proc/cpuinfo",
	"sys/hypervisor/type",
	"sys/class/dmi/id/sys_vendor",
	"sys/class/dmi/id/product_name",
	"proc/vmstat",
	"proc/interrupts",
	"proc/meminfo",
	"proc/buddyinfo",
	"proc/pressure/memory",
	"proc/sys/vm/nr_hugepages",
	"proc/sys/vm/nr_overcommit_hugepages",
	"proc/sys/vm/hugetlb_shm_group",
	"proc/mounts",
	"proc/sys/vm/compaction_proactiveness",
	"proc/sys/vm/watermark_scale_factor",
	"proc/sys/vm/watermark_boost_factor",
	"proc/sys/vm/min_free_kbytes",
	"proc/sys/vm/extfrag_threshold",
	"proc/sys/vm/compact_unevictable_allowed",
	"proc/sys/vm/zone_reclaim_mode",
	"etc/sysctl.d/*.conf",
	"run/sysctl.d/*.conf",
	"etc/sysctl.conf",
	"sys/kernel/mm/transparent_hugepage",
	"sys/kernel/mm/redhat_transparent_hugepage",
	"sys/kernel/mm/hugepages",
	"sys/devices/system/node/node*/meminfo",
	"sys/devices/system/node/node*/hugepages",
	"sys/devices/system/node/node*/cpulist",
	"etc/tmpfiles.d/*.conf",
	"run/tmpfiles.d/*.conf",
	"run/thp/saved.state",
	"run/thp/journal",
	NULL,
};

const char *const thp_capture_proc_files[] = {
	"status", "smaps_rollup", "smaps", "comm", "stat", "cgroup", "mountinfo", "task/*/stat", "numa_maps", NULL,
};

/* Deepest directory level copied below a recorded directory. */
#define TREE_DEPTH 16

struct ctx {
	const struct thp_root *root;
	int out;
	struct thp_capture_result *res;
};

/* Creates every missing directory of REL's parent below OUT, 0700. */
static int mkparents(int out, const char *rel)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", rel);
	for (char *p = strchr(buf, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdirat(out, buf, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* Writes LEN bytes of BUF as the new file REL below OUT, 0600. */
static int write_new(struct ctx *c, const char *rel, const char *buf, size_t len)
{
	int fd, err = mkparents(c->out, rel);

	if (err)
		return err;
	fd = openat(c->out, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0600) != 0 || write(fd, buf, len) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	if (close(fd) != 0 && !err)
		err = -errno;
	if (!err)
		c->res->files++;
	return err;
}

/* Counts a failed read, unless the file or its process is just gone. */
static void unreadable(struct ctx *c, int err)
{
	if (err != -ENOENT && err != -ESRCH)
		c->res->unreadable++;
}

static int copy_file(struct ctx *c, const char *rel)
{
	char *buf;
	size_t len;
	int err = thp_read(c->root, rel, &buf, &len);

	if (err) {
		unreadable(c, err);
		return 0;
	}
	err = write_new(c, rel, buf, len);
	free(buf);
	return err;
}

/* Copies the directory REL, open as FD (taken over), and everything below it.
 * Entries are looked up by name in their parent's descriptor. A link to a
 * file is recorded as the file it leads to, read through the root (a link
 * leaving a recorded tree is not followed, and is named when thp ends);
 * links to directories are not followed. */
static int copy_tree(struct ctx *c, int fd, const char *rel, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int err = 0;

	if (!d) {
		close(fd);
		return 0;
	}
	while (!err && (de = readdir(d))) {
		char sub[4096];
		struct stat sb;
		int subfd;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name) >= sizeof(sub) ||
		    fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !(sb.st_mode & 0444))
			continue; /* write-only: a sysfs trigger */
		if (S_ISLNK(sb.st_mode) && (thp_stat(c->root, sub, &sb, 0) < 0 || !(sb.st_mode & 0444)))
			continue;
		if (S_ISREG(sb.st_mode)) {
			err = copy_file(c, sub);
		} else if (S_ISDIR(sb.st_mode) && depth < TREE_DEPTH) {
			subfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (subfd >= 0)
				err = copy_tree(c, subfd, sub, depth + 1);
		}
	}
	closedir(d);
	return err;
}

/* Copies REL: a regular file, or a directory with everything below it. */
static int copy_node(struct ctx *c, const char *rel)
{
	struct stat sb;
	int fd;

	if (thp_stat(c->root, rel, &sb, 0) < 0 || !(sb.st_mode & 0444))
		return 0; /* absent, or write-only (a sysfs trigger) */
	if (S_ISREG(sb.st_mode))
		return copy_file(c, rel);
	if (!S_ISDIR(sb.st_mode))
		return 0;
	fd = thp_root_openat(c->root, rel, O_RDONLY | O_DIRECTORY, 0);
	return fd < 0 ? 0 : copy_tree(c, fd, rel, 0);
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Copies PREFIX/PATTERN, where any component of PATTERN (a constant of this
 * file) may hold a glob; names read from disk are joined literally, never
 * matched again. */
static int copy_pattern(struct ctx *c, const char *prefix, const char *pattern)
{
	const char *slash = strchr(pattern, '/'), *rest = slash ? slash + 1 : NULL;
	size_t n = slash ? (size_t)(slash - pattern) : strlen(pattern);
	char rel[4096], comp[256];
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (n >= sizeof(comp))
		return 0;
	memcpy(comp, pattern, n);
	comp[n] = '\0';
	if (!has_glob(comp)) {
		snprintf(rel, sizeof(rel), "%s%s%s", prefix, *prefix ? "/" : "", comp);
		return rest ? copy_pattern(c, rel, rest) : copy_node(c, rel);
	}
	d = thp_opendir(c->root, prefix);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.' || fnmatch(comp, de->d_name, 0) != 0 ||
		    (size_t)snprintf(rel, sizeof(rel), "%s/%s", prefix, de->d_name) >= sizeof(rel))
			continue;
		err = rest ? copy_pattern(c, rel, rest) : copy_node(c, rel);
	}
	closedir(d);
	return err;
}

/* Records the variables of thp_environ_names that process PID has. */
static int copy_environ(struct ctx *c, pid_t pid)
{
	char rel[64], *buf;
	size_t len;
	int err = thp_environ_load(c->root, pid, &buf, &len);

	if (err) {
		unreadable(c, err);
		return 0;
	}
	snprintf(rel, sizeof(rel), "proc/%d/%s", (int)pid, THP_ENVIRON_FILE);
	err = write_new(c, rel, buf, len);
	free(buf);
	return err;
}

static int copy_proc(pid_t pid, struct ctx *c, const struct thp_capture_opts *o)
{
	char dir[32];
	int before = c->res->files, err = 0;

	snprintf(dir, sizeof(dir), "proc/%d", (int)pid);
	for (size_t i = 0; !err && thp_capture_proc_files[i]; i++)
		err = copy_pattern(c, dir, thp_capture_proc_files[i]);
	if (!err && o->cmdline)
		err = copy_pattern(c, dir, THP_CAPTURE_CMDLINE);
	if (!err && c->res->files > before) /* not gone meanwhile */
		err = copy_environ(c, pid);
	if (c->res->files > before)
		c->res->processes++;
	if (o->progress)
		o->progress(c->res, o->arg);
	return err;
}

static int copy_procs(struct ctx *c, const struct thp_capture_opts *o)
{
	DIR *d = thp_opendir(c->root, "proc");
	struct dirent *de;
	int err = 0;

	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (!*end && pid > 0 && pid <= INT_MAX && de->d_name[0] != '0')
			err = copy_proc((pid_t)pid, c, o);
	}
	closedir(d);
	return err;
}

int thp_capture(const struct thp_root *root, int out, const struct thp_capture_opts *opts,
		struct thp_capture_result *res)
{
	struct ctx c = { root, out, res };
	int err = 0;

	memset(res, 0, sizeof(*res));
	for (size_t i = 0; !err && thp_capture_host_paths[i]; i++)
		err = copy_pattern(&c, "", thp_capture_host_paths[i]);
	if (!err && opts->procs)
		err = copy_procs(&c, opts);
	return err;
}
