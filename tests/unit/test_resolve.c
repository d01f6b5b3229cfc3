/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of resolving paths inside a recorded tree: every case through
 * thp_root_openat() (openat2 on this kernel) and through the component walk
 * that kernels before 5.6 use, with the same outcome; and of files kept open
 * between reads. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "put.h"

#include "core/root.h"

#define SECRET "thp-resolve-secret-5d1c"

static char top[] = "/tmp/thp-test-resolve.XXXXXX"; /* holds tree/ and the secret beside it */
static char tree[64];
static struct thp_root root;

/* Makes PATH (below TOP) a file holding TEXT. */
static void put(const char *rel, const char *text)
{
	put_file(top, rel, text);
}

/* Makes REL (below TOP) a link to TARGET. */
static void link_to(const char *target, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	assert_int_equal(symlink(target, path), 0);
}

static void dir_at(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static bool exists(const char *rel)
{
	char path[PATH_MAX];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	return lstat(path, &sb) == 0;
}

static int setup(void **state)
{
	char abs[PATH_MAX];

	(void)state;
	if (!mkdtemp(top))
		return -1;
	snprintf(tree, sizeof(tree), "%s/tree", top);
	put("secret", SECRET "\n");
	dir_at("outside");
	dir_at("tree");
	dir_at("tree/a");
	dir_at("tree/a/b");
	put("tree/file", "inside\n");
	put("tree/a/b/c", "deep\n");
	snprintf(abs, sizeof(abs), "%s/secret", top);
	link_to(abs, "tree/abs");                /* absolute, to the secret */
	link_to("/etc/passwd", "tree/etc-passwd"); /* absolute, to the host */
	link_to("../secret", "tree/rel-out");     /* relative, one level above */
	link_to("../../secret", "tree/a/up");     /* climbs above the root from a/ */
	link_to("../file", "tree/a/in");          /* relative, stays inside */
	link_to("a/b", "tree/dirlink");           /* a directory inside */
	snprintf(abs, sizeof(abs), "%s/outside", top);
	link_to(abs, "tree/dirout");              /* a directory outside */
	link_to("..", "tree/a/b/parent");         /* '..' of a/b is a */
	link_to("loop2", "tree/loop1");
	link_to("loop1", "tree/loop2");
	link_to("self", "tree/self");
	return thp_root_open(&root, tree);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	thp_root_close(&root);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

/* What opening REL gives: the first line of the file, or -errno. */
static const char *outcome(int fd, char *buf, size_t cap)
{
	ssize_t n;

	if (fd < 0) {
		snprintf(buf, cap, "%d", fd);
		return buf;
	}
	n = read(fd, buf, cap - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

struct rcase {
	const char *rel;
	const char *want; /* first line, or "-errno" */
};

static void both_ways(const struct rcase *c)
{
	char a[256], b[256];

	outcome(thp_root_openat(&root, c->rel, O_RDONLY, 0), a, sizeof(a));
	outcome(thp_root_walk(root.fd, c->rel, O_RDONLY, 0, NULL, 0), b, sizeof(b));
	if (strcmp(a, c->want) || strcmp(b, c->want))
		fail_msg("'%s': openat2 gave '%s', the walk '%s', expected '%s'", c->rel, a, b, c->want);
}

static void reads(void **state)
{
	char loop[16], exdev[16], nodir[16], noent[16];
	(void)state;

	snprintf(loop, sizeof(loop), "%d", -ELOOP);
	snprintf(exdev, sizeof(exdev), "%d", -EXDEV);
	snprintf(nodir, sizeof(nodir), "%d", -ENOTDIR);
	snprintf(noent, sizeof(noent), "%d", -ENOENT);
	const struct rcase cases[] = {
		{ "file", "inside" },
		{ "/file", "inside" },
		{ "a/b/c", "deep" },
		{ "a/in", "inside" },
		{ "dirlink/c", "deep" },
		{ "a/b/../../file", "inside" },
		{ "a/b/parent/in", "inside" },
		{ "./a/./b//c", "deep" },
		{ "abs", exdev },
		{ "etc-passwd", exdev },
		{ "rel-out", exdev },
		{ "a/up", exdev },
		{ "..", exdev },
		{ "../secret", exdev },
		{ "a/../../secret", exdev },
		{ "dirout/anything", exdev },
		{ "loop1", loop },
		{ "self/x", loop },
		{ "file/x", nodir },
		{ "absent", noent },
		{ "absent/x", noent },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		both_ways(&cases[i]);
}

/* Directories are opened through links inside the tree too. */
static void directories(void **state)
{
	DIR *d;
	int fd;
	(void)state;

	fd = thp_root_walk(root.fd, "dirlink", O_RDONLY | O_DIRECTORY, 0, NULL, 0);
	assert_true(fd >= 0);
	close(fd);
	fd = thp_root_walk(root.fd, "dirlink", O_PATH | O_DIRECTORY, 0, NULL, 0);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(thp_root_walk(root.fd, "dirlink", O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0,
				       NULL, 0), -ENOTDIR);
	assert_int_equal(thp_root_walk(root.fd, "dirout", O_RDONLY | O_DIRECTORY, 0, NULL, 0), -EXDEV);
	assert_int_equal(thp_root_walk(root.fd, "file", O_RDONLY | O_DIRECTORY, 0, NULL, 0), -ENOTDIR);
	d = thp_opendir(&root, "dirlink");
	assert_non_null(d);
	closedir(d);
	assert_null(thp_opendir(&root, "dirout"));
	assert_int_equal(errno, EXDEV);
}

/* The first link on a refused path is named, once. */
static void names_the_link(void **state)
{
	struct thp_root r;
	char where[256];
	int fd;
	(void)state;

	assert_int_equal(thp_root_open(&r, tree), 0);
	assert_int_equal(thp_root_openat(&r, "dirout/x/y", O_RDONLY, 0), -EXDEV);
	assert_int_equal(thp_root_openat(&r, "dirout/z", O_RDONLY, 0), -EXDEV);
	assert_int_equal(thp_root_openat(&r, "a/up", O_RDONLY, 0), -EXDEV);
	assert_int_equal(r.escape->named, 2);
	assert_string_equal(r.escape->link[0], "dirout");
	assert_string_equal(r.escape->link[1], "a/up");
	thp_root_close(&r);
	fd = thp_root_walk(root.fd, "dirlink/parent/up", O_RDONLY, 0, where, sizeof(where));
	assert_int_equal(fd, -EXDEV);
	assert_string_equal(where, "a/up"); /* found through a/b/.. */
	fd = thp_root_walk(root.fd, "a/..", O_RDONLY, 0, where, sizeof(where));
	assert_true(fd >= 0); /* the root itself */
	close(fd);
}

/* Links are counted as the kernel does (40), and paths are bounded. */
static void long_paths(void **state)
{
	char name[16], target[16], path[PATH_MAX + 16];
	(void)state;

	/* chain0 -> chain1 -> ... -> chain40 -> file: 41 links */
	for (int i = 0; i <= 40; i++) {
		snprintf(name, sizeof(name), "tree/c%d", i);
		snprintf(target, sizeof(target), "c%d", i + 1);
		link_to(i == 40 ? "file" : target, name);
	}
	assert_int_equal(close(thp_root_openat(&root, "c1", O_RDONLY, 0)), 0);
	assert_int_equal(close(thp_root_walk(root.fd, "c1", O_RDONLY, 0, NULL, 0)), 0);
	assert_int_equal(thp_root_openat(&root, "c0", O_RDONLY, 0), -ELOOP);
	assert_int_equal(thp_root_walk(root.fd, "c0", O_RDONLY, 0, NULL, 0), -ELOOP);
	memset(path, 'a', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(thp_root_openat(&root, path, O_RDONLY, 0), -ENAMETOOLONG);
	assert_int_equal(thp_root_walk(root.fd, path, O_RDONLY, 0, NULL, 0), -ENAMETOOLONG);
	path[NAME_MAX + 1] = '\0';
	assert_int_equal(thp_root_walk(root.fd, path, O_RDONLY, 0, NULL, 0), -ENAMETOOLONG);
	/* n/n/.../n 260 directories deep, a file at depth 200: the walk goes 256 deep */
	for (int i = 0; i < 260; i++) {
		memcpy(path + 2 * i, "n/", 2);
		path[2 * i + 1] = '\0';
		assert_int_equal(mkdirat(root.fd, path, 0755), 0);
		path[2 * i + 1] = '/';
	}
	strcpy(path + 400, "f");
	assert_int_equal(close(thp_root_openat(&root, path, O_WRONLY | O_CREAT, 0644)), 0);
	assert_int_equal(close(thp_root_walk(root.fd, path, O_RDONLY, 0, NULL, 0)), 0);
	memcpy(path + 400, "n/", 2);
	strcpy(path + 520, "f");
	assert_int_equal(thp_root_walk(root.fd, path, O_RDONLY, 0, NULL, 0), -ENAMETOOLONG);
}

/* Creating through a link that leaves the tree creates nothing outside. */
static void writes(void **state)
{
	const char *leaf;
	int fd;
	(void)state;

	link_to("../created", "tree/dangling");
	assert_int_equal(thp_root_openat(&root, "dangling", O_WRONLY | O_CREAT, 0644), -EXDEV);
	assert_int_equal(thp_root_walk(root.fd, "dangling", O_WRONLY | O_CREAT, 0644, NULL, 0), -EXDEV);
	assert_false(exists("created"));
	assert_int_equal(thp_root_opendir_fd(&root, "dirout/run/thp", 0755), -EXDEV);
	assert_false(exists("outside/run"));
	assert_int_equal(thp_root_parent(&root, "dirout/saved.state", 0755, &leaf), -EXDEV);
	/* a missing directory is made inside the tree */
	fd = thp_root_parent(&root, "run/thp/saved.state", 0755, &leaf);
	assert_true(fd >= 0);
	assert_string_equal(leaf, "saved.state");
	close(fd);
	assert_true(exists("tree/run/thp"));
	fd = thp_root_opendir_fd(&root, "dirlink/new", 0755);
	assert_true(fd >= 0);
	close(fd);
	assert_true(exists("tree/a/b/new"));
	/* a link inside the tree is followed when creating */
	link_to("a/made", "tree/to-made");
	fd = thp_root_walk(root.fd, "to-made", O_WRONLY | O_CREAT | O_EXCL, 0644, NULL, 0);
	assert_int_equal(fd, -EEXIST); /* O_EXCL never follows the last link */
	fd = thp_root_walk(root.fd, "to-made", O_WRONLY | O_CREAT, 0644, NULL, 0);
	assert_true(fd >= 0);
	close(fd);
	assert_true(exists("tree/a/made"));
}

/* stat and readlink look at a link without following it out of the tree. */
static void links_as_links(void **state)
{
	struct stat sb;
	char buf[PATH_MAX];
	(void)state;

	assert_int_equal(thp_stat(&root, "etc-passwd", &sb, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISLNK(sb.st_mode));
	assert_int_equal(thp_stat(&root, "etc-passwd", &sb, 0), -EXDEV);
	assert_int_equal(thp_stat(&root, "dirlink", &sb, 0), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(thp_readlink(&root, "etc-passwd", buf, sizeof(buf)), 11);
	assert_string_equal(buf, "/etc/passwd");
	assert_int_equal(thp_readlink(&root, "dirout/x", buf, sizeof(buf)), -EXDEV);
}

/* The live root follows the kernel's own links; procfs magic links do not
 * lead out of a tree. */
static void live_and_magic(void **state)
{
	struct thp_root live, proc;
	char buf[64];
	int fd;
	(void)state;

	assert_int_equal(thp_root_open(&live, "/"), 0);
	assert_true(live.live);
	assert_null(live.escape);
	fd = thp_root_openat(&live, "proc/self/status", O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(thp_readlink(&live, "proc/self", buf, sizeof(buf)) > 0, 1);
	thp_root_close(&live);
	assert_int_equal(thp_root_open(&proc, "/proc/self"), 0);
	assert_false(proc.live);
	assert_true(thp_root_openat(&proc, "root/etc/passwd", O_RDONLY, 0) < 0);
	assert_true(thp_root_walk(proc.fd, "root/etc/passwd", O_RDONLY, 0, NULL, 0) < 0);
	assert_true(thp_root_openat(&proc, "cwd", O_RDONLY | O_DIRECTORY, 0) < 0);
	thp_root_close(&proc);
}

/* Files kept open (thp_root_keep_open) give their content now on each read,
 * through both readers, and a file missing at first is found once it exists. */
static void kept_open(void **state)
{
	struct thp_root r;
	char buf[64], *all;

	(void)state;
	put("tree/kept", "1\n");
	assert_int_equal(thp_root_open(&r, tree), 0);
	assert_int_equal(thp_root_keep_open(&r), 0);
	assert_int_equal(thp_read_buf(&r, "kept", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "1\n");
	put("tree/kept", "22\n"); /* truncated in place: the same file, longer */
	assert_int_equal(thp_read_buf(&r, "kept", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "22\n");
	put("tree/kept", "3"); /* shorter */
	assert_int_equal(thp_read(&r, "kept", &all, NULL), 0);
	assert_string_equal(all, "3");
	free(all);
	assert_true(thp_read_buf(&r, "later", buf, sizeof(buf)) < 0);
	put("tree/later", "here");
	assert_int_equal(thp_read_buf(&r, "later", buf, sizeof(buf)), 4);
	assert_string_equal(buf, "here");
	thp_root_close(&r);
	assert_null(r.kept);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads),      cmocka_unit_test(directories),
		cmocka_unit_test(names_the_link),
		cmocka_unit_test(long_paths), cmocka_unit_test(writes),
		cmocka_unit_test(links_as_links), cmocka_unit_test(live_and_magic),
		cmocka_unit_test(kept_open),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
