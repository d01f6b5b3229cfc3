/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the dTLB counting arithmetic and the PMU event files (cmocka):
 * counter values as perf_event_open reads them, recorded. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/tlbcount.h"

static void scale(void **state)
{
	uint64_t v;
	(void)state;
	/* ran the whole window */
	assert_true(thp_tlb_scale(1000, 5000, 5000, &v));
	assert_true(v == 1000);
	/* multiplexed: ran a quarter of the time */
	assert_true(thp_tlb_scale(1000, 4000, 1000, &v));
	assert_true(v == 4000);
	/* never ran */
	assert_false(thp_tlb_scale(0, 4000, 0, &v));
	/* large counts do not overflow on the way */
	assert_true(thp_tlb_scale(UINT64_MAX / 2, 2000000000ull, 1000000000ull, &v));
	assert_true(v >= UINT64_MAX - 1024);
}

static void mpki_and_walks(void **state)
{
	struct thp_tlb_counts c = { 0 }, sum = { 0 };
	double x;
	(void)state;
	/* a thread of a 4 KiB-page database: 2.4e9 instructions, 3.1e6 load and 0.5e6 store misses */
	c.has[THP_TLB_INSTRUCTIONS] = c.has[THP_TLB_LOAD_MISSES] = c.has[THP_TLB_STORE_MISSES] = true;
	c.v[THP_TLB_INSTRUCTIONS] = 2400000000ull;
	c.v[THP_TLB_LOAD_MISSES] = 3100000;
	c.v[THP_TLB_STORE_MISSES] = 500000;
	assert_true(thp_tlb_mpki(&c, &x));
	assert_true(x > 1.4999 && x < 1.5001);
	/* no page-walk event: no share */
	assert_false(thp_tlb_walk_pct(&c, &x));
	c.has[THP_TLB_CYCLES] = c.has[THP_TLB_WALK_CYCLES] = true;
	c.v[THP_TLB_CYCLES] = 3000000000ull;
	c.v[THP_TLB_WALK_CYCLES] = 540000000ull;
	assert_true(thp_tlb_walk_pct(&c, &x));
	assert_true(x > 17.999 && x < 18.001);
	/* store misses not counted by this CPU: loads alone */
	c.has[THP_TLB_STORE_MISSES] = false;
	assert_true(thp_tlb_mpki(&c, &x));
	assert_true(x > 1.2916 && x < 1.2917);
	/* no instructions retired (a sleeping thread): no ratio */
	c.v[THP_TLB_INSTRUCTIONS] = 0;
	assert_false(thp_tlb_mpki(&c, &x));
	/* sums: a counter one thread lacks is unknown in the sum */
	c.v[THP_TLB_INSTRUCTIONS] = 1000;
	thp_tlb_counts_add(&sum, &c, true);
	thp_tlb_counts_add(&sum, &c, false);
	assert_true(sum.v[THP_TLB_INSTRUCTIONS] == 2000);
	assert_true(sum.v[THP_TLB_LOAD_MISSES] == 6200000);
	assert_false(sum.has[THP_TLB_STORE_MISSES]);
	c.has[THP_TLB_WALK_CYCLES] = false;
	thp_tlb_counts_add(&sum, &c, false);
	assert_false(sum.has[THP_TLB_WALK_CYCLES]);
	assert_true(sum.v[THP_TLB_INSTRUCTIONS] == 3000);
}

/* bench chase: misses per dependent load, and what is said without counters */
static void per_load(void **state)
{
	struct thp_tlb_counts c = { 0 };
	double x;
	(void)state;
	/* 10,000,000 loads over 1 GiB in 4 KiB pages: 9.6e6 load misses, 12,000 store misses */
	c.has[THP_TLB_LOAD_MISSES] = c.has[THP_TLB_STORE_MISSES] = true;
	c.v[THP_TLB_LOAD_MISSES] = 9600000;
	c.v[THP_TLB_STORE_MISSES] = 12000;
	assert_true(thp_tlb_misses_per(&c, 10000000, &x));
	assert_true(x > 0.96119 && x < 0.96121);
	assert_true(thp_tlb_misses_per(&c, 1, &x));
	assert_true(x == 9612000.0);
	/* no loads: no ratio */
	assert_false(thp_tlb_misses_per(&c, 0, &x));
	/* the counter never opened (no PMU): nothing */
	c.has[THP_TLB_LOAD_MISSES] = false;
	assert_false(thp_tlb_misses_per(&c, 10000000, &x));
	assert_string_equal(thp_tlb_unavailable(-ENOENT), "this machine exposes no hardware TLB counters");
	assert_string_equal(thp_tlb_unavailable(-EOPNOTSUPP), "this machine exposes no hardware TLB counters");
	assert_non_null(strstr(thp_tlb_unavailable(-EACCES), "perf_event_paranoid"));
}

/* The formats of an Intel core PMU (sys/bus/event_source/devices/cpu/format). */
static int intel_format(const char *term, char *buf, size_t cap, void *ctx)
{
	static const char *const f[][2] = { { "event", "config:0-7" }, { "umask", "config:8-15" },
					    { "edge", "config:18" },   { "inv", "config:23" },
					    { "cmask", "config:24-31" }, { "ldlat", "config1:0-15" },
					    { "split", "config:0-3,32-35\n" } };
	(void)ctx;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strcmp(term, f[i][0]) == 0) {
			snprintf(buf, cap, "%s", f[i][1]);
			return 0;
		}
	return -ENOENT;
}

static void pmu_events(void **state)
{
	uint64_t c = 0;
	(void)state;
	/* dtlb_load_misses.walk_active on Skylake: event 0x08, umask 0x10, cmask 1 */
	assert_int_equal(thp_pmu_event_parse("event=0x08,umask=0x10,cmask=1\n", intel_format, NULL, &c), 0);
	assert_true(c == 0x01001008);
	/* a bare term is 1; decimal values */
	assert_int_equal(thp_pmu_event_parse("event=8,inv,edge", intel_format, NULL, &c), 0);
	assert_true(c == (8 | 1u << 23 | 1u << 18));
	/* a format in two ranges */
	assert_int_equal(thp_pmu_event_parse("split=0xff", intel_format, NULL, &c), 0);
	assert_true(c == (0xfull | 0xfull << 32));
	static const char *const bad[] = {
		"",                      /* nothing */
		"event=0x08,",           /* a trailing comma */
		",event=1",              /* an empty term */
		"event=",                /* no value */
		"event=0x",              /* no digits */
		"event=-1",              /* a sign */
		"event=0x1g",            /* not hexadecimal */
		"event=1x2",
		"nosuch=1",              /* a term the PMU has no format for */
		"ldlat=3",               /* another field than config */
		"event=0x100",           /* too wide for 8 bits */
		"event=1\nevent=2\n",    /* two lines */
		"event=99999999999999999999999",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_not_equal(thp_pmu_event_parse(bad[i], intel_format, NULL, &c), 0);
	/* formats on their own */
	c = 0;
	assert_int_equal(thp_pmu_format_apply("config:63", 1, &c), 0);
	assert_true(c == 1ull << 63);
	assert_int_equal(thp_pmu_format_apply("config:0-63", UINT64_MAX, &c), 0);
	assert_int_equal(thp_pmu_format_apply("config:64", 1, &c), -EINVAL);
	assert_int_equal(thp_pmu_format_apply("config:7-0", 1, &c), -EINVAL);
	assert_int_equal(thp_pmu_format_apply("config:", 1, &c), -EINVAL);
	assert_int_equal(thp_pmu_format_apply("config:1-", 1, &c), -EINVAL);
	assert_int_equal(thp_pmu_format_apply("config:1,", 1, &c), -EINVAL);
	assert_int_equal(thp_pmu_format_apply("config:0-1", 4, &c), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scale),
		cmocka_unit_test(mpki_and_walks),
		cmocka_unit_test(per_load),
		cmocka_unit_test(pmu_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
