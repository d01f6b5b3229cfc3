/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.c - record the files thp reads, preserving their layout */
#include "capture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Paths below the root; '*' and '[...]' match one path component; a directory
 * is copied whole. Per-process files are listed apart so they can be left out. */
static const char *const host_paths[] = {
	"proc/sys/kernel/osrelease",
	"proc/sys/kernel/hostname",
	"proc/self/auxv",
	"proc/cmdline",
	"proc/uptime",
	"proc/cpuinfo",
	"sys/hypervisor/type",
	"sys/class/dmi/id/sys_vendor",
	"sys/class/dmi/id/product_name",
	"proc/vmstat",
	"proc/meminfo",
	"proc/buddyinfo",
	"proc/pressure/memory",
	"proc/sys/vm/nr_hugepages",
	"proc/sys/vm/nr_overcommit_hugepages",
	"proc/sys/vm/hugetlb_shm_group",
	"proc/mounts",
	"proc/sys/vm/compaction_proactiveness",
	"proc/sys/vm/extfrag_threshold",
	"proc/sys/vm/min_free_kbytes",
	"sys/kernel/mm/transparent_hugepage",
	"sys/kernel/mm/redhat_transparent_hugepage",
	"sys/kernel/mm/hugepages",
	"sys/devices/system/node/node*/meminfo",
	"sys/devices/system/node/node*/hugepages",
	"etc/tmpfiles.d/*.conf",
	"run/tmpfiles.d/*.conf",
	"run/thp/saved.state",
};

static const char *const proc_files[] = {
	"status", "smaps_rollup", "smaps", "comm", "cmdline", "stat", "cgroup", "task/*/stat", "environ",
};

struct ctx {
	const struct thp_root *root;
	int out;
	struct thp_capture_result *res;
};

/* Creates every directory of REL's parent below OUT. */
static int mkparents(int out, const char *rel)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", rel);
	for (char *p = strchr(buf, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdirat(out, buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

static int copy_file(struct ctx *c, const char *rel)
{
	char *buf;
	size_t len;
	int fd, err = thp_read(c->root, rel, &buf, &len);

	if (err) {
		if (err != -ENOENT && err != -ESRCH)
			c->res->unreadable++;
		return 0;
	}
	err = mkparents(c->out, rel);
	if (err) {
		free(buf);
		return err;
	}
	fd = openat(c->out, rel, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		free(buf);
		return err ? err : -EIO;
	}
	free(buf);
	c->res->files++;
	return close(fd) < 0 ? -errno : 0;
}

static bool has_glob(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '[' || s[i] == '?')
			return true;
	return false;
}

static int copy_path(struct ctx *c, const char *prefix, const char *pattern, int depth);

/* Copies directory REL recursively. */
static int copy_dir(struct ctx *c, const char *rel, int depth)
{
	DIR *d = thp_opendir(c->root, rel);
	struct dirent *de;
	int err = 0;

	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		err = copy_path(c, rel, de->d_name, depth + 1);
	}
	closedir(d);
	return err;
}

/* Copies PREFIX/PATTERN, where PATTERN's first component may hold a glob. */
static int copy_path(struct ctx *c, const char *prefix, const char *pattern, int depth)
{
	const char *slash = strchr(pattern, '/');
	size_t n = slash ? (size_t)(slash - pattern) : strlen(pattern);
	char rel[4096], comp[256];
	struct stat sb;

	if (depth > 16 || n >= sizeof(comp))
		return 0;
	memcpy(comp, pattern, n);
	comp[n] = '\0';
	if (has_glob(comp, n)) {
		DIR *d = thp_opendir(c->root, prefix);
		struct dirent *de;
		int err = 0;
		if (!d)
			return 0;
		while (!err && (de = readdir(d)))
			if (de->d_name[0] != '.' && fnmatch(comp, de->d_name, 0) == 0) {
				snprintf(rel, sizeof(rel), "%s%s", de->d_name, slash ? slash : "");
				err = copy_path(c, prefix, rel, depth);
			}
		closedir(d);
		return err;
	}
	snprintf(rel, sizeof(rel), "%s%s%s", prefix, *prefix ? "/" : "", comp);
	if (slash)
		return copy_path(c, rel, slash + 1, depth + 1);
	if (thp_stat(c->root, rel, &sb, 0) < 0 || !(sb.st_mode & 0444))
		return 0; /* absent, or write-only (a sysfs trigger) */
	if (S_ISDIR(sb.st_mode))
		return copy_dir(c, rel, depth);
	return S_ISREG(sb.st_mode) ? copy_file(c, rel) : 0;
}

static int copy_proc(pid_t pid, struct ctx *c)
{
	char dir[32];
	int before = c->res->files;

	snprintf(dir, sizeof(dir), "proc/%d", (int)pid);
	for (size_t i = 0; i < sizeof(proc_files) / sizeof(proc_files[0]); i++) {
		int err = copy_path(c, dir, proc_files[i], 0);
		if (err)
			return err;
	}
	if (c->res->files > before)
		c->res->processes++;
	return 0;
}

static int copy_procs(struct ctx *c)
{
	DIR *d = thp_opendir(c->root, "proc");
	struct dirent *de;
	int err = 0;

	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (!*end && pid > 0 && de->d_name[0] != '0')
			err = copy_proc((pid_t)pid, c);
	}
	closedir(d);
	return err;
}

int thp_capture(const struct thp_root *root, const char *out, bool procs,
		struct thp_capture_result *res)
{
	struct ctx c = { root, -1, res };
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (mkdir(out, 0755) < 0 && errno != EEXIST)
		return -errno;
	c.out = open(out, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c.out < 0)
		return -errno;
	for (size_t i = 0; !err && i < sizeof(host_paths) / sizeof(host_paths[0]); i++)
		err = copy_path(&c, "", host_paths[i], 0);
	if (!err && procs)
		err = copy_procs(&c);
	close(c.out);
	return err;
}
