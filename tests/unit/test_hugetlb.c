/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of static huge page parsing and sizing: user sizes and
 * percentages, hugetlbfs mounts, pages per size (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/hugetlb.h"
#include "core/parse.h"
#include "render/render.h"

static void user_sizes(void **state)
{
	uint64_t v = 0;
	(void)state;
	assert_int_equal(thp_parse_size("2M", &v), 0);
	assert_true(v == 2u << 20);
	assert_int_equal(thp_parse_size("2048kB", &v), 0);
	assert_true(v == 2u << 20);
	assert_int_equal(thp_parse_size("64k", &v), 0);
	assert_true(v == 65536);
	assert_int_equal(thp_parse_size("1GiB", &v), 0);
	assert_true(v == 1u << 30);
	assert_int_equal(thp_parse_size("16GB", &v), 0);
	assert_true(v == 16ull << 30);
	assert_int_equal(thp_parse_size("1T", &v), 0);
	assert_true(v == 1ull << 40);
	assert_int_equal(thp_parse_size("4096", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(thp_parse_size("4096B", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(thp_parse_size("", &v), -EINVAL);
	assert_int_equal(thp_parse_size("M", &v), -EINVAL);
	assert_int_equal(thp_parse_size("2X", &v), -EINVAL);
	assert_int_equal(thp_parse_size("2MM", &v), -EINVAL);
	assert_int_equal(thp_parse_size("-2M", &v), -EINVAL);
	assert_int_equal(thp_parse_size("1.5G", &v), -EINVAL);
	assert_int_equal(thp_parse_size("16777216T", &v), -ERANGE);
	assert_int_equal(thp_parse_size("99999999999999999999", &v), -ERANGE);
}

static void mounts(void **state)
{
	static struct thp_hugetlb h;
	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(thp_hugetlb_mounts_parse(
				 "proc /proc proc rw 0 0\n"
				 "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n"
				 "none /mnt/a\\040b hugetlbfs rw,mode=1770,pagesize=1024M 0 0\n"
				 "none /mnt/c hugetlbfs rw,relatime 0 0\n"
				 "none /mnt/d hugetlbfs rw,xpagesize=4M,pagesize=bad 0 0\n"
				 "hugetlbfs /not tmpfs rw 0 0\n"
				 "short line\n",
				 2u << 20, &h),
			 4);
	assert_int_equal(h.nmounts, 4);
	assert_string_equal(h.mounts[0].path, "/dev/hugepages");
	assert_true(h.mounts[0].page_size == 2u << 20);
	assert_string_equal(h.mounts[1].path, "/mnt/a b");
	assert_true(h.mounts[1].page_size == 1u << 30);
	assert_string_equal(h.mounts[1].options, "rw,mode=1770,pagesize=1024M");
	assert_true(h.mounts[2].page_size == 2u << 20); /* the default size */
	assert_true(h.mounts[3].page_size == 0);        /* unreadable pagesize= */
}

static void pages_for(void **state)
{
	(void)state;
	assert_true(thp_hugetlb_pages_for(16ull << 30, 0, 2u << 20) == 8192);
	assert_true(thp_hugetlb_pages_for(16ull << 30, 500, 2u << 20) == 8602); /* 8601.6 up */
	assert_true(thp_hugetlb_pages_for(1, 0, 1u << 30) == 1);
	assert_true(thp_hugetlb_pages_for(0, 500, 2u << 20) == 0);
	assert_true(thp_hugetlb_pages_for(UINT64_MAX, 100000, 1) == UINT64_MAX);
	assert_true(thp_hugetlb_pages_for(5, 0, 0) == 0);
}

static void size_specs(void **state)
{
	char b[32];
	(void)state;
	assert_string_equal(out_size_spec(b, sizeof(b), 2u << 20), "2M");
	assert_string_equal(out_size_spec(b, sizeof(b), 1u << 30), "1G");
	assert_string_equal(out_size_spec(b, sizeof(b), 65536), "64K");
	assert_string_equal(out_size_spec(b, sizeof(b), 32u << 20), "32M");
	assert_string_equal(out_size_spec(b, sizeof(b), 1000), "1000");
	assert_string_equal(out_size_spec(b, sizeof(b), 1ull << 50), "1024T");
	assert_string_equal(out_size_spec(b, sizeof(b), 0), "0");
}

/* the journal of a hugetlb set of several pools: written, read back, and
 * refused when cut, changed or malformed */
static void pools_journal(void **state)
{
	struct thp_pools_journal j = { .owner = 4242, .n = 2 }, back;
	char *text;
	int line;
	(void)state;

	snprintf(j.command, sizeof(j.command), "thp hugetlb set 2M=1100 1G=2");
	j.v[0] = (struct thp_pool_pages){ 2u << 20, -1, 1030 };
	j.v[1] = (struct thp_pool_pages){ 1u << 30, 1, 4 };
	text = thp_pools_journal_format(&j);
	assert_non_null(text);
	assert_non_null(strstr(text, "thp-pools 1\nowner 4242\ncommand thp hugetlb set 2M=1100 1G=2\n"));
	assert_non_null(strstr(text, "\nhugepages-2048kB=1030\nnode1/hugepages-1048576kB=4\nend 2 "));
	assert_int_equal(thp_pools_journal_parse(text, &back, &line), 0);
	assert_int_equal(back.owner, 4242);
	assert_int_equal(back.n, 2);
	assert_true(back.v[0].size == 2u << 20 && back.v[0].node == -1 && back.v[0].pages == 1030);
	assert_true(back.v[1].size == 1u << 30 && back.v[1].node == 1 && back.v[1].pages == 4);
	assert_string_equal(back.command, j.command);
	/* cut before its end line, or one byte changed: refused */
	text[strlen(text) - 20] = '\0';
	assert_int_equal(thp_pools_journal_parse(text, &back, &line), -EINVAL);
	free(text);
	text = thp_pools_journal_format(&j);
	*strstr(text, "1030") = '2';
	assert_int_equal(thp_pools_journal_parse(text, &back, &line), -EINVAL);
	free(text);
	assert_int_equal(thp_pools_journal_parse("thp-pools 1\nhugepages-2048kB=x\nend 1 1\n", &back, &line),
			 -EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(thp_pools_journal_parse("thp-pools 1\nnode-3/hugepages-2048kB=1\n", &back, &line),
			 -EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(thp_pools_journal_parse("thp-state 1\n", &back, &line), -EINVAL);
	assert_int_equal(line, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(user_sizes),
		cmocka_unit_test(mounts),
		cmocka_unit_test(pages_for),  cmocka_unit_test(size_specs),
		cmocka_unit_test(pools_journal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
