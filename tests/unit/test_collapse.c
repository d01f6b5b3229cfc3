/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of what `thp collapse` selects: ranges, mappings, PMD alignment,
 * and populated blocks from pagemap entries (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/collapse.h"

#define MB (1ull << 20)

static struct thp_vma vma(uint64_t start, uint64_t end, const char *name, uint64_t inode,
			  const char *flags, uint64_t rss)
{
	struct thp_vma v;
	memset(&v, 0, sizeof(v));
	v.start = start;
	v.end = end;
	snprintf(v.perms, sizeof(v.perms), "rw-p");
	snprintf(v.name, sizeof(v.name), "%s", name);
	snprintf(v.vmflags, sizeof(v.vmflags), "%s", flags);
	v.inode = inode;
	v.m.rss = rss;
	return v;
}

static void ranges(void **state)
{
	uint64_t s, e;
	(void)state;
	assert_int_equal(thp_parse_range("7f0000000000-7f0000400000", &s, &e), 0);
	assert_true(s == 0x7f0000000000ull && e == 0x7f0000400000ull);
	assert_int_equal(thp_parse_range("0x1000-0X2000", &s, &e), 0);
	assert_true(s == 0x1000 && e == 0x2000);
	assert_int_equal(thp_parse_range("2000-1000", &s, &e), -EINVAL);
	assert_int_equal(thp_parse_range("1000-1000", &s, &e), -EINVAL);
	assert_int_equal(thp_parse_range("1000", &s, &e), -EINVAL);
	assert_int_equal(thp_parse_range("1000-", &s, &e), -EINVAL);
	assert_int_equal(thp_parse_range("-1000", &s, &e), -EINVAL);
	assert_int_equal(thp_parse_range("1000-2000x", &s, &e), -EINVAL);
	assert_int_equal(thp_parse_range("g-2000", &s, &e), -EINVAL);
	assert_int_equal(thp_parse_range("10000000000000000-20000000000000000", &s, &e), -EINVAL);
}

static void anon(void **state)
{
	struct thp_vma v = vma(0, 4 * MB, "", 0, "rd wr", 1);
	(void)state;
	assert_true(thp_vma_anon(&v));
	snprintf(v.name, sizeof(v.name), "[heap]");
	assert_true(thp_vma_anon(&v));
	snprintf(v.name, sizeof(v.name), "[anon:jemalloc]");
	assert_true(thp_vma_anon(&v));
	snprintf(v.name, sizeof(v.name), "[vdso]");
	assert_false(thp_vma_anon(&v));
	v = vma(0, 4 * MB, "/usr/lib/libc.so.6", 77, "rd", 1);
	assert_false(thp_vma_anon(&v));
	v = vma(0, 4 * MB, "", 0, "rd wr", 1);
	v.perms[3] = 's';
	assert_false(thp_vma_anon(&v)); /* shared anonymous memory is shmem */
}

static void default_selection(void **state)
{
	struct thp_csel sel = { 0 };
	struct thp_ctarget out[4];
	bool small;
	(void)state;
	/* unaligned mapping: only the whole blocks inside */
	struct thp_vma v = vma(1 * MB, 9 * MB, "", 0, "rd wr mr", 5);
	assert_int_equal(thp_collapse_parts(&v, &sel, 2 * MB, out, 4, &small, NULL), 1);
	assert_true(out[0].start == 2 * MB && out[0].end == 8 * MB);
	assert_true(out[0].vma_start == 1 * MB && out[0].vma_end == 9 * MB);
	assert_true(out[0].before.rss == 5);
	assert_false(out[0].nohuge);
	/* not resident, MADV_NOHUGEPAGE, a file, too small: not selected */
	v = vma(0, 8 * MB, "", 0, "rd wr", 0);
	assert_int_equal(thp_collapse_parts(&v, &sel, 2 * MB, out, 4, &small, NULL), 0);
	v = vma(0, 8 * MB, "", 0, "rd wr nh", 5);
	assert_int_equal(thp_collapse_parts(&v, &sel, 2 * MB, out, 4, &small, NULL), 0);
	v = vma(0, 8 * MB, "/bin/x", 3, "rd ex", 5);
	assert_int_equal(thp_collapse_parts(&v, &sel, 2 * MB, out, 4, &small, NULL), 0);
	assert_false(small);
	v = vma(1 * MB, 3 * MB, "[heap]", 0, "rd wr", 5);
	assert_int_equal(thp_collapse_parts(&v, &sel, 2 * MB, out, 4, &small, NULL), 0);
	assert_true(small);
}

static void explicit_selection(void **state)
{
	struct thp_csel sel = { 0 };
	struct thp_ctarget out[8];
	bool small, hit[4] = { false };
	(void)state;
	sel.nranges = 2;
	sel.ranges[0].start = 3 * MB; /* rounds inward to 4-8 MiB */
	sel.ranges[0].end = 9 * MB;
	sel.ranges[1].start = 6 * MB; /* overlaps: merged with the first */
	sel.ranges[1].end = 12 * MB;
	sel.nnames = 2;
	sel.names[0] = "libfoo.so";
	sel.names[1] = "[stack]";
	struct thp_vma v = vma(0, 16 * MB, "", 0, "rd wr nh", 0);
	assert_int_equal(thp_collapse_parts(&v, &sel, 2 * MB, out, 8, &small, hit), 1);
	assert_true(out[0].start == 4 * MB && out[0].end == 12 * MB);
	assert_true(out[0].nohuge); /* named explicitly: tried anyway */
	assert_true(hit[0] && hit[1] && !hit[2] && !hit[3]);
	/* a file named by its base name, whole */
	v = vma(32 * MB, 40 * MB, "/opt/lib/libfoo.so", 9, "rd ex", 1);
	assert_int_equal(thp_collapse_parts(&v, &sel, 2 * MB, out, 8, &small, hit), 1);
	assert_true(out[0].start == 32 * MB && out[0].end == 40 * MB);
	assert_string_equal(out[0].name, "/opt/lib/libfoo.so");
	assert_true(hit[2]);
	/* a range beside a mapping does not select it */
	v = vma(64 * MB, 70 * MB, "", 0, "rd wr", 1);
	assert_int_equal(thp_collapse_parts(&v, &sel, 2 * MB, out, 8, &small, hit), 0);
	assert_false(small);
	/* two disjoint ranges in one mapping stay two spans, in order */
	sel.nnames = 0;
	sel.ranges[0].start = 10 * MB;
	sel.ranges[0].end = 12 * MB;
	sel.ranges[1].start = 2 * MB;
	sel.ranges[1].end = 4 * MB;
	v = vma(0, 16 * MB, "", 0, "rd wr", 1);
	assert_int_equal(thp_collapse_parts(&v, &sel, 2 * MB, out, 8, &small, NULL), 2);
	assert_true(out[0].start == 2 * MB && out[1].start == 10 * MB);
}

static void pagemap(void **state)
{
	uint64_t e[8] = { 0, 0, 1ull << 63, 0, 0, 0, 0, 1ull << 62 };
	bool pop[4] = { false };
	(void)state;
	thp_pagemap_blocks(e, 8, 2, pop); /* four blocks of two pages */
	assert_false(pop[0]);
	assert_true(pop[1]);  /* present */
	assert_false(pop[2]);
	assert_true(pop[3]);  /* swapped */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ranges),
		cmocka_unit_test(anon),
		cmocka_unit_test(default_selection),
		cmocka_unit_test(explicit_selection),
		cmocka_unit_test(pagemap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
