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

#include "persist.h"
#include "proc.h"
#include "tuned.h"
#include "users.h"

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
	"usr/local/lib/sysctl.d/*.conf",
	"usr/lib/sysctl.d/*.conf",
	"etc/tmpfiles.d/*.conf",
	"run/tmpfiles.d/*.conf",
	"usr/local/lib/tmpfiles.d/*.conf",
	"usr/lib/tmpfiles.d/*.conf",
	"proc/sys/kernel/ostype",
	"proc/sys/kernel/version",
	"proc/sys/kernel/arch",
	"etc/tuned/active_profile",
	"etc/tuned/post_loaded_profile",
	"etc/tuned/profile_mode",
	"etc/tuned/tuned-main.conf",
	"etc/tuned/*/tuned.conf",
	"etc/tuned/profiles/*/tuned.conf",
	"usr/lib/tuned/*/tuned.conf",
	"usr/lib/tuned/profiles/*/tuned.conf",
	"run/thp/saved.state",
	"run/thp/journal",
	"run/thp/pools.journal",
	"run/thp/boot.journal",
	/* where 'thp set' and 'thp persist' write, when the host has them */
	"etc/sysctl.d/",
	"etc/tmpfiles.d/",
	"etc/systemd/system/",
	"run/",
	NULL,
};

const char *const thp_capture_presence_paths[] = {
	"etc/systemd/system/*.wants/tuned.service",
	NULL,
};

const char *const thp_capture_proc_files[] = {
	"status", "smaps_rollup", "smaps", "comm", "stat", "cgroup", "mountinfo", "task/*/stat", "numa_maps", NULL,
};

/* Deepest directory level copied below a recorded directory. */
#define TREE_DEPTH 16

/* Most users named in a capture's etc/passwd. */
#define OWNERS_MAX 1024

struct ctx {
	const struct thp_root *root;
	int out;
	struct thp_capture_result *res;
	/* what is being recorded: host files (where a drop-in may be masked),
	 * links whose presence counts (recorded as empty files), processes */
	enum { HOST, PRESENCE, PROCS } part;
	int nowners;
	uid_t owners[OWNERS_MAX]; /* the users of the recorded processes */
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

/* Counts a failed read of REL, unless the file or its process is just gone. */
static void unreadable(struct ctx *c, const char *rel, int err)
{
	if (err == -ENOENT || err == -ESRCH)
		return;
	if (!c->res->unreadable++) {
		snprintf(c->res->first, sizeof(c->res->first), "/%s", rel);
		c->res->first_err = err;
	}
}

static int copy_file(struct ctx *c, const char *rel)
{
	char *buf;
	size_t len;
	int err = thp_read(c->root, rel, &buf, &len);

	if (err) {
		unreadable(c, rel, err);
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

/* True when REL is a link to /dev/null: a masked drop-in (which, in a
 * recorded tree, leads out of it). */
static bool masked(struct ctx *c, const char *rel)
{
	char target[16];
	struct stat sb;

	return thp_stat(c->root, rel, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode) &&
	       thp_readlink(c->root, rel, target, sizeof(target)) > 0 && strcmp(target, "/dev/null") == 0;
}

/* Copies REL: a regular file, or a directory with everything below it; a
 * host file that links to /dev/null is recorded as the empty file it reads
 * as. Of PRESENCE, REL is recorded as an empty file when it is there. */
static int copy_node(struct ctx *c, const char *rel)
{
	struct stat sb;
	int fd;

	if (c->part == PRESENCE) /* once, when a unit's links name it again */
		return thp_stat(c->root, rel, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
			       faccessat(c->out, rel, F_OK, AT_SYMLINK_NOFOLLOW) != 0
			       ? write_new(c, rel, "", 0)
			       : 0;
	if (c->part == HOST && masked(c, rel))
		return write_new(c, rel, "", 0);
	if (thp_stat(c->root, rel, &sb, 0) < 0 || !(sb.st_mode & 0444))
		return 0; /* absent, or write-only (a sysfs trigger) */
	if (S_ISREG(sb.st_mode))
		return copy_file(c, rel);
	if (!S_ISDIR(sb.st_mode))
		return 0;
	fd = thp_root_openat(c->root, rel, O_RDONLY | O_DIRECTORY, 0);
	return fd < 0 ? 0 : copy_tree(c, fd, rel, 0);
}

/* Makes the directory REL, empty, when it is one below the root. */
static int make_dir(struct ctx *c, const char *rel)
{
	char sub[4096];
	struct stat sb;

	if (thp_stat(c->root, rel, &sb, 0) < 0 || !S_ISDIR(sb.st_mode) ||
	    (size_t)snprintf(sub, sizeof(sub), "%s/", rel) >= sizeof(sub))
		return 0;
	return mkparents(c->out, sub);
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Calls FN with C, DIR/NAME and ARG for each NAME in directory DIR that GLOB
 * matches (but names starting with '.'), until one fails; returns that. */
static int each_match(struct ctx *c, const char *dir, const char *glob,
		      int (*fn)(struct ctx *c, const char *rel, const char *arg), const char *arg)
{
	DIR *d = thp_opendir(c->root, dir);
	struct dirent *de;
	char rel[4096];
	int err = 0;

	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.' || fnmatch(glob, de->d_name, 0) != 0 ||
		    (size_t)snprintf(rel, sizeof(rel), "%s/%s", dir, de->d_name) >= sizeof(rel))
			continue;
		err = fn(c, rel, arg);
	}
	closedir(d);
	return err;
}

static int copy_pattern(struct ctx *c, const char *prefix, const char *pattern);

/* Copies REL/REST, or REL itself when REST is NULL. */
static int copy_rest(struct ctx *c, const char *rel, const char *rest)
{
	return rest ? copy_pattern(c, rel, rest) : copy_node(c, rel);
}

/* Copies PREFIX/PATTERN, where any component of PATTERN (a constant of this
 * file) may hold a glob; names read from disk are joined literally, never
 * matched again. An empty PATTERN (after a final '/') makes PREFIX only. */
static int copy_pattern(struct ctx *c, const char *prefix, const char *pattern)
{
	const char *slash = strchr(pattern, '/'), *rest = slash ? slash + 1 : NULL;
	size_t n = slash ? (size_t)(slash - pattern) : strlen(pattern);
	char rel[4096], comp[256];

	if (!*pattern)
		return make_dir(c, prefix);
	if (n >= sizeof(comp))
		return 0;
	memcpy(comp, pattern, n);
	comp[n] = '\0';
	if (has_glob(comp))
		return each_match(c, prefix, comp, copy_rest, rest);
	snprintf(rel, sizeof(rel), "%s%s%s", prefix, *prefix ? "/" : "", comp);
	return copy_rest(c, rel, rest);
}

/* Records the link to unit NAME in the *.wants directory REL, when it is
 * there: what enables the unit. */
static int copy_wants(struct ctx *c, const char *rel, const char *name)
{
	char link[4096];

	if ((size_t)snprintf(link, sizeof(link), "%s/%s", rel, name) >= sizeof(link))
		return 0;
	return copy_node(c, link);
}

/* Records the unit REL of THP_UNIT_DIR when it writes THP settings, or is
 * named ALWAYS (thp.service, which 'thp persist --systemd' replaces): only
 * what thp_unit_record keeps of it (a masked unit: an empty file), and the
 * links that enable it. */
static int copy_unit(struct ctx *c, const char *rel, const char *always)
{
	const char *name = strrchr(rel, '/') + 1;
	char *buf = NULL, *text;
	int found = 0, err = masked(c, rel) ? 0 : thp_read(c->root, rel, &buf, NULL);

	if (err) {
		unreadable(c, rel, err);
		return 0;
	}
	text = thp_unit_record(buf ? buf : "", &found);
	free(buf);
	if (!text)
		return -ENOMEM;
	if (found || strcmp(name, always) == 0) {
		err = write_new(c, rel, text, strlen(text));
		if (!err)
			err = each_match(c, THP_UNIT_DIR, "*.wants", copy_wants, name);
	}
	free(text);
	return err;
}

/* Copies the tuned.conf of each profile in the directories tuned looks
 * profiles up in (profile_dirs of the host's tuned-main.conf, recorded
 * before), but for those recorded already: tuned's default directories are
 * host paths. Names read from disk are joined literally. */
static int copy_tuned_profiles(struct ctx *c)
{
	struct thp_tuned_dirs *d = malloc(sizeof(*d));
	int err = 0;

	if (!d)
		return -ENOMEM;
	thp_tuned_dirs_read(c->root, d);
	for (int i = 0; !err && i < d->n; i++) {
		DIR *dir = thp_opendir(c->root, d->d[i][0] ? d->d[i] : ".");
		struct dirent *de;

		while (dir && !err && (de = readdir(dir))) {
			char rel[4096];

			if (de->d_name[0] == '.' ||
			    (size_t)snprintf(rel, sizeof(rel), "%s%s%s/tuned.conf", d->d[i], d->d[i][0] ? "/" : "",
					     de->d_name) >= sizeof(rel) ||
			    faccessat(c->out, rel, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
				continue;
			err = copy_node(c, rel);
		}
		if (dir)
			closedir(dir);
	}
	free(d);
	return err;
}

/* Records the variables of thp_environ_names that process PID has. */
static int copy_environ(struct ctx *c, pid_t pid)
{
	char rel[64], *buf;
	size_t len;
	int err = thp_environ_load(c->root, pid, &buf, &len);

	snprintf(rel, sizeof(rel), "proc/%d/%s", (int)pid, THP_ENVIRON_FILE);
	if (err) {
		unreadable(c, rel, err);
		return 0;
	}
	err = write_new(c, rel, buf, len);
	free(buf);
	return err;
}

/* Adds the user of the process recorded in DIR (proc/PID) to the owners. */
static void note_owner(struct ctx *c, const char *dir)
{
	char rel[64], buf[4096];
	struct thp_pstatus st;
	ssize_t n = -1;
	int fd, i;

	snprintf(rel, sizeof(rel), "%s/status", dir);
	fd = openat(c->out, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n < 0)
		return;
	buf[n] = '\0';
	if (thp_pstatus_parse(buf, &st) != 0 || st.uid == (uid_t)-1)
		return;
	for (i = 0; i < c->nowners && c->owners[i] != st.uid; i++)
		;
	if (i == c->nowners && i < OWNERS_MAX)
		c->owners[c->nowners++] = st.uid;
}

static int cmp_uid(const void *a, const void *b)
{
	uid_t x = *(const uid_t *)a, y = *(const uid_t *)b;

	return x < y ? -1 : x > y;
}

/* Writes etc/passwd with the owners that have a name: name, uid and group
 * only (no password field, comment, home or shell of theirs), so that
 * 'thp --root' names them. */
static int write_owners(struct ctx *c)
{
	char *text = NULL, name[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err, named = 0;

	if (!f)
		return -ENOMEM;
	qsort(c->owners, (size_t)c->nowners, sizeof(c->owners[0]), cmp_uid);
	for (int i = 0; i < c->nowners; i++) {
		gid_t gid;
		if (thp_user_entry(c->root, c->owners[i], name, sizeof(name), &gid) || !*name ||
		    strpbrk(name, ":\n"))
			continue;
		fprintf(f, "%s:x:%u:", name, (unsigned)c->owners[i]);
		if (gid != (gid_t)-1)
			fprintf(f, "%u", (unsigned)gid);
		fputs("::/:/nonexistent\n", f);
		named++;
	}
	err = fclose(f) == 0 ? 0 : -ENOMEM;
	if (!err && named)
		err = write_new(c, "etc/passwd", text, len);
	free(text);
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
	if (!err && c->res->files > before) { /* not gone meanwhile */
		note_owner(c, dir);
		err = copy_environ(c, pid);
	}
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
	struct ctx *c = malloc(sizeof(*c));
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (!c)
		return -ENOMEM;
	*c = (struct ctx){ .root = root, .out = out, .res = res };
	for (size_t i = 0; !err && thp_capture_host_paths[i]; i++)
		err = copy_pattern(c, "", thp_capture_host_paths[i]);
	if (!err)
		err = copy_tuned_profiles(c);
	c->part = PRESENCE;
	for (size_t i = 0; !err && thp_capture_presence_paths[i]; i++)
		err = copy_pattern(c, "", thp_capture_presence_paths[i]);
	if (!err) /* each with the links that enable it, recorded as presence */
		err = each_match(c, THP_UNIT_DIR, "*.service", copy_unit, THP_UNIT_NAME);
	c->part = PROCS;
	if (!err && opts->procs)
		err = copy_procs(c, opts);
	if (!err)
		err = write_owners(c);
	free(c);
	return err;
}
