/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of files kept open between reads (thp_root_keep_open): each
 * read gives the file's content now, through thp_read_buf() and thp_read(),
 * and a file that was missing is found once it exists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/root.h"

static char top[] = "/tmp/thp-test-kept.XXXXXX";

/* Writes TEXT over file REL below TOP (truncated in place: the same inode). */
static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rereads(void **state)
{
	struct thp_root r;
	char buf[64], path[256], *big;

	(void)state;
	assert_non_null(mkdtemp(top));
	put("a", "1\n");
	assert_int_equal(thp_root_open(&r, top), 0);
	assert_int_equal(thp_root_keep_open(&r), 0);
	assert_int_equal(thp_read_buf(&r, "a", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "1\n");
	put("a", "22\n"); /* shorter and longer than before, same file */
	assert_int_equal(thp_read_buf(&r, "a", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "22\n");
	put("a", "3");
	assert_int_equal(thp_read(&r, "a", &big, NULL), 0);
	assert_string_equal(big, "3");
	free(big);
	assert_true(thp_read_buf(&r, "b", buf, sizeof(buf)) < 0);
	put("b", "later");
	assert_int_equal(thp_read_buf(&r, "b", buf, sizeof(buf)), 5);
	assert_string_equal(buf, "later");
	thp_root_close(&r);
	assert_null(r.kept);
	snprintf(path, sizeof(path), "%s/a", top);
	unlink(path);
	snprintf(path, sizeof(path), "%s/b", top);
	unlink(path);
	rmdir(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rereads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
