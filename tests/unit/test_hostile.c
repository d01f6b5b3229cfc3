/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of reading every kind of file a hostile tree has below a root,
 * and of the kernel feature table. */
#include <errno.h>
#include <fcntl.h>
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

#include "core/features.h"
#include "core/root.h"

static char dir[] = "/tmp/thp-test-hostile.XXXXXX";
static struct thp_root root;

static void put(const char *rel, const char *text)
{
	put_file(dir, rel, text);
}

static int setup(void **state)
{
	char path[256];
	int fd;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	put("small", "always [madvise] never\n");
	snprintf(path, sizeof(path), "%s/dir", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	mkfifo(path, 0644);
	snprintf(path, sizeof(path), "%s/loop", dir);
	symlink("loop", path);
	/* a sparse file larger than thp_read accepts */
	snprintf(path, sizeof(path), "%s/huge", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)THP_READ_MAX + 4096) < 0)
		return -1;
	close(fd);
	return thp_root_open(&root, dir);
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	thp_root_close(&root);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void read_kinds(void **state)
{
	char buf[8], *big;
	size_t len;

	(void)state;
	/* cut at the buffer, NUL-terminated */
	assert_int_equal(thp_read_buf(&root, "/small", buf, sizeof(buf)), 7);
	assert_string_equal(buf, "always ");
	assert_int_equal(thp_read(&root, "small", &big, &len), 0);
	assert_int_equal(len, 23);
	free(big);
	assert_int_equal(thp_read_buf(&root, "dir", buf, sizeof(buf)), -EISDIR);
	assert_int_equal(thp_read_buf(&root, "fifo", buf, sizeof(buf)), -THP_ENOTREG);
	assert_int_equal(thp_read_buf(&root, "loop", buf, sizeof(buf)), -ELOOP);
	assert_int_equal(thp_read_buf(&root, "absent", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(thp_read(&root, "fifo", &big, &len), -THP_ENOTREG);
	assert_null(big);
	assert_int_equal(thp_read(&root, "huge", &big, &len), -EFBIG);
	assert_null(big);
	assert_null(thp_opendir(&root, "small"));
	assert_int_equal(errno, ENOTDIR);
	assert_string_equal(thp_rel("///"), ".");
	assert_string_equal(thp_read_strerror(-THP_ENOTREG), "a FIFO, socket or device, not a regular file");
	assert_string_equal(thp_read_strerror(-EXDEV), "a link there points outside the recorded tree");
}

static void root_open_errors(void **state)
{
	struct thp_root r;
	char longpath[5000];

	(void)state;
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	assert_int_equal(thp_root_open(&r, longpath), -ENAMETOOLONG);
	assert_int_equal(thp_root_open(&r, "/nonexistent/thp"), -ENOENT);
	assert_int_equal(thp_root_open(&r, "/"), 0);
	assert_true(r.live);
	thp_root_close(&r);
	thp_root_close(&r); /* twice is harmless */
	assert_false(root.live);
}

static enum thp_have have(const struct thp_feature *f, const char *name)
{
	for (int i = 0; i < THP_FEATURES; i++)
		if (strcmp(f[i].name, name) == 0)
			return f[i].have;
	fail_msg("no feature %s", name);
	return THP_HAVE_UNKNOWN;
}

static void features(void **state)
{
	static struct thp_status st;
	struct thp_feature f[THP_FEATURES];

	(void)state;
	/* Linux 6.12 with mTHP sizes and per-size shmem control */
	memset(&st, 0, sizeof(st));
	st.dir = "sys/kernel/mm/transparent_hugepage";
	st.kmajor = 6;
	st.kminor = 12;
	st.nsizes = 1;
	st.sizes[0].enabled.kind = THP_CHOICE;
	st.sizes[0].shmem_enabled.kind = THP_CHOICE;
	assert_int_equal(thp_features(&st, f), THP_FEATURES);
	assert_int_equal(have(f, "THP"), THP_HAVE_YES);
	assert_int_equal(have(f, "mTHP"), THP_HAVE_YES);
	assert_int_equal(have(f, "MADV_COLLAPSE"), THP_HAVE_YES);
	assert_int_equal(have(f, "PAGEMAP_SCAN"), THP_HAVE_YES);
	assert_int_equal(have(f, "PR_THP_DISABLE_EXCEPT_ADVISED"), THP_HAVE_NO);
	assert_int_equal(have(f, "shmem per-size THP"), THP_HAVE_YES);
	/* 6.18 without THP: nothing THP-related, whatever the release says */
	memset(&st, 0, sizeof(st));
	st.kmajor = 6;
	st.kminor = 18;
	thp_features(&st, f);
	assert_int_equal(have(f, "THP"), THP_HAVE_NO);
	assert_int_equal(have(f, "mTHP"), THP_HAVE_NO);
	assert_int_equal(have(f, "MADV_COLLAPSE"), THP_HAVE_NO);
	assert_int_equal(have(f, "PR_THP_DISABLE_EXCEPT_ADVISED"), THP_HAVE_NO);
	assert_int_equal(have(f, "PAGEMAP_SCAN"), THP_HAVE_YES);
	/* release unknown, sizes not listable: unknown, not no */
	memset(&st, 0, sizeof(st));
	st.dir = "sys/kernel/mm/transparent_hugepage";
	st.kmajor = st.kminor = -1;
	st.sizes_err = -EACCES;
	thp_features(&st, f);
	assert_int_equal(have(f, "MADV_COLLAPSE"), THP_HAVE_UNKNOWN);
	assert_int_equal(have(f, "mTHP"), THP_HAVE_UNKNOWN);
	assert_int_equal(have(f, "shmem per-size THP"), THP_HAVE_UNKNOWN);
	/* 5.15: no mTHP directory entries, no collapse */
	memset(&st, 0, sizeof(st));
	st.dir = "sys/kernel/mm/transparent_hugepage";
	st.kmajor = 5;
	st.kminor = 15;
	thp_features(&st, f);
	assert_int_equal(have(f, "mTHP"), THP_HAVE_NO);
	assert_int_equal(have(f, "MADV_COLLAPSE"), THP_HAVE_NO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(read_kinds),
		cmocka_unit_test(root_open_errors),
		cmocka_unit_test(features),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
