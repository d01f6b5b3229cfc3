/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of reading files relative to a root (cmocka). */
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

#include "core/root.h"

static char dir[64];
static struct thp_root root;

/* Writes LEN bytes of 'x' to NAME below the test root. */
static void make_file(const char *name, size_t len)
{
	char path[128];
	char *buf = malloc(len ? len : 1);
	FILE *f;

	assert_non_null(buf);
	memset(buf, 'x', len);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	free(buf);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/thp-root-test.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	return thp_root_open(&root, dir);
}

static int teardown(void **state)
{
	char cmd[96];
	(void)state;
	thp_root_close(&root);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void whole_files(void **state)
{
	char *buf;
	size_t len;
	(void)state;
	make_file("empty", 0);
	assert_int_equal(thp_read(&root, "empty", &buf, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(buf, "");
	free(buf);
	make_file("grow", 100000); /* past the first buffer, several doublings */
	assert_int_equal(thp_read(&root, "/grow", &buf, &len), 0);
	assert_int_equal(len, 100000);
	assert_int_equal(strlen(buf), 100000);
	free(buf);
	make_file("huge", THP_READ_MAX + 1);
	assert_int_equal(thp_read(&root, "huge", &buf, &len), -EFBIG);
	assert_null(buf);
	assert_int_equal(thp_read(&root, "absent", &buf, &len), -ENOENT);
	assert_int_equal(thp_read(&root, ".", &buf, &len), -EISDIR);
}

static void small_buffers(void **state)
{
	char buf[16];
	char path[128];
	(void)state;
	make_file("long", 100);
	assert_int_equal(thp_read_buf(&root, "long", buf, sizeof(buf)), 15);
	assert_int_equal(strlen(buf), 15);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(thp_read_buf(&root, "fifo", buf, sizeof(buf)), -THP_ENOTREG);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(whole_files),
					    cmocka_unit_test(small_buffers) };
	return cmocka_run_group_tests(tests, setup, teardown);
}
