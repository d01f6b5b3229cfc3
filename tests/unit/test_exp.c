/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the experiment helpers: sizes, /proc/PID/stat, statistics,
 * regions and the VMA lookup, vmstat deltas, duration formatting (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/exp.h"
#include "core/parse.h"
#include "render/render.h"

static void sizes(void **state)
{
	uint64_t v;
	(void)state;
	assert_int_equal(thp_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(thp_parse_size("64K", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(thp_parse_size(" 2m ", &v), 0);
	assert_int_equal(v, 2u << 20);
	assert_int_equal(thp_parse_size("1GiB", &v), 0);
	assert_int_equal(v, 1u << 30);
	assert_int_equal(thp_parse_size("512MB", &v), 0);
	assert_int_equal(v, 512u << 20);
	assert_int_equal(thp_parse_size("1T", &v), 0);
	assert_int_equal(v, 1ull << 40);
	assert_int_equal(thp_parse_size("", &v), -EINVAL);
	assert_int_equal(thp_parse_size("-1M", &v), -EINVAL);
	assert_int_equal(thp_parse_size("3X", &v), -EINVAL);
	assert_int_equal(thp_parse_size("1MM", &v), -EINVAL);
	assert_int_equal(thp_parse_size("M", &v), -EINVAL);
	assert_int_equal(thp_parse_size("99999999999T", &v), -ERANGE);
}

static void pstat(void **state)
{
	struct thp_pstat s;
	(void)state;
	/* a comm with spaces and parentheses: the last ')' ends it */
	assert_int_equal(thp_pstat_parse("4242 (my (odd) prog) S 17 4242 4242 0 -1 4194560 500 0 0 0 "
					  "123 45 0 0 20 0 1 0 100 0 0\n", &s), 0);
	assert_string_equal(s.comm, "my (odd) prog");
	assert_int_equal(s.ppid, 17);
	assert_int_equal(s.utime, 123);
	assert_int_equal(s.stime, 45);
	assert_int_equal(thp_pstat_parse("1 (init S 0", &s), -EINVAL);
	assert_int_equal(thp_pstat_parse("1 (init) S", &s), -EINVAL);
	assert_int_equal(thp_pstat_parse("", &s), -EINVAL);
}

static void statistics(void **state)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };
	struct thp_stats s = thp_stats_of(odd, 3), t, u;
	(void)state;
	assert_true(s.min == 1 && s.median == 3 && s.max == 5);
	assert_true(odd[0] == 5); /* input unchanged */
	t = thp_stats_of(even, 4);
	assert_true(t.min == 1 && t.median == 2.5 && t.max == 4);
	u = thp_stats_of(one, 1);
	assert_true(u.min == 7 && u.median == 7 && u.max == 7);
	assert_true(thp_stats_overlap(&s, &t));
	assert_false(thp_stats_overlap(&s, &u));
	assert_true(thp_stats_overlap(&u, &u));
}

static void region_and_vma(void **state)
{
	struct thp_root root;
	struct thp_region r;
	struct thp_vma v;
	(void)state;
	assert_int_equal(thp_root_open(&root, "/"), 0);
	assert_int_equal(thp_region_map(&r, 8u << 20, false), 0);
	/* 8 MiB holds at least three whole aligned 2 MiB blocks wherever it lies */
	assert_true(thp_region_pmd_bytes(&r) >= (6u << 20) && thp_region_pmd_bytes(&r) <= (8u << 20));
	assert_int_equal(thp_touch(&r, 1u << 20, true) > 0, 1);
	assert_int_equal(thp_vma_find(&root, 0, (uint64_t)(uintptr_t)r.addr + 4096, &v), 0);
	assert_true(v.start <= (uint64_t)(uintptr_t)r.addr && v.end >= (uint64_t)(uintptr_t)r.addr + r.len);
	assert_true(v.m.rss >= 8 * 4096);
	assert_int_equal(thp_vma_find(&root, 0, 8, &v), -ENOENT);
	thp_region_unmap(&r);
	/* aligned: every 2 MiB block of a 6 MiB region is whole */
	assert_int_equal(thp_region_map(&r, 6u << 20, true), 0);
	assert_int_equal((uintptr_t)r.addr % (2u << 20), 0);
	assert_int_equal(thp_region_pmd_bytes(&r), 6u << 20);
	thp_region_unmap(&r);
	thp_root_close(&root);
}

static void vmstat_delta(void **state)
{
	struct thp_vmstat a = { 0 }, b = { 0 };
	(void)state;
	a.n = b.n = 2;
	strcpy(a.c[0].name, "thp_fault_alloc");
	a.c[0].val = 10;
	strcpy(a.c[1].name, "thp_split_pmd");
	a.c[1].val = 5;
	b.c[0] = a.c[0];
	b.c[0].val = 138;
	b.c[1] = a.c[1];
	assert_int_equal(thp_vmstat_delta(&a, &b, "thp_fault_alloc"), 128);
	assert_int_equal(thp_vmstat_delta(&a, &b, "thp_split_pmd"), 0);
	assert_int_equal(thp_vmstat_delta(&a, &b, "compact_stall"), 0);
	assert_int_equal(thp_vmstat_delta(&b, &a, "thp_fault_alloc"), 0); /* never negative */
	assert_true(thp_vmstat_has(&a, "thp_split_pmd"));
	assert_false(thp_vmstat_has(&a, "nope"));
}

static void durations(void **state)
{
	char buf[32];
	(void)state;
	assert_string_equal(out_ns(buf, sizeof(buf), 812), "812.0 ns");
	assert_string_equal(out_ns(buf, sizeof(buf), 3400), "3.4 us");
	assert_string_equal(out_ns(buf, sizeof(buf), 12.5e6), "12.5 ms");
	assert_string_equal(out_ns(buf, sizeof(buf), 2.31e9), "2.31 s");
}

/* The busy-host warning names a process only when one used CPU in the sample
 * (a high load average alone printed "'' uses 0% of a CPU"). */
static void busy_text(void **state)
{
	struct thp_busy b = { .load1 = 3.8, .ncpu = 2 };
	char buf[160];
	(void)state;
	assert_true(thp_busy_noisy(&b));
	assert_string_equal(thp_busy_text(&b, buf, sizeof(buf)),
			    "load 3.8 on 2 CPUs; no single process stood out in the sample");
	b.top_pid = 812;
	b.top_cpu = 0.97;
	snprintf(b.top_comm, sizeof(b.top_comm), "hog");
	assert_string_equal(thp_busy_text(&b, buf, sizeof(buf)),
			    "load 3.8 on 2 CPUs; 'hog' (pid 812) uses 97% of a CPU");
	/* cut, never overrun */
	assert_true(strlen(thp_busy_text(&b, buf, 12)) == 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(busy_text),
		cmocka_unit_test(sizes),          cmocka_unit_test(pstat),
		cmocka_unit_test(statistics),     cmocka_unit_test(region_and_vma),
		cmocka_unit_test(vmstat_delta),   cmocka_unit_test(durations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
