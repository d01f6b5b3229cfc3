/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of raw trace event decoding (cmocka): the same events in two
 * layouts, as different kernels write them, decode to the same values because
 * fields are found by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/tevent.h"

#define COMMON                                                                         \
	"format:\n"                                                                    \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"          \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"          \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"  \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define STATUS_SYMS                                                                    \
	"__print_symbolic(REC->status, {1, \"skipped\"}, {2, \"deferred\"}, {8, \"success\"}, " \
	"{5, \"complete\"})"

/* mm_compaction_end as Linux 6.x has it: status at offset 44, after "sync". */
static const char end_new[] =
	"name: mm_compaction_end\nID: 669\n" COMMON
	"\tfield:unsigned long zone_start;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long migrate_pfn;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long free_pfn;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long zone_end;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:bool sync;\toffset:40;\tsize:1;\tsigned:0;\n"
	"\tfield:int status;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"zone_start=0x%lx mode=%s status=%s\", REC->zone_start, "
	"REC->sync ? \"sync\" : \"async\", " STATUS_SYMS "\n";

/* An older layout: no "sync", status right after the common fields, another id. */
static const char end_old[] =
	"name: mm_compaction_end\nID: 301\n" COMMON
	"\tfield:int status;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long zone_start;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"zone_start=0x%lx status=%s\", REC->zone_start, " STATUS_SYMS "\n";

static const char try_new[] =
	"name: mm_compaction_try_to_compact_pages\nID: 668\n" COMMON
	"\tfield:int order;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long gfp_mask;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:int prio;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"order=%d priority=%d\", REC->order, REC->prio\n";

static const char reclaim_end[] =
	"name: mm_vmscan_direct_reclaim_end\nID: 634\n" COMMON
	"\tfield:unsigned long nr_reclaimed;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"nr_reclaimed=%lu\", REC->nr_reclaimed\n";

static const char other[] =
	"name: mm_compaction_suitable\nID: 700\n" COMMON
	"\tfield:int nid;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"nid=%d\", REC->nid\n";

static struct tep_handle *tep_with(const char *const *formats, const char *const *systems, int n)
{
	struct tep_handle *tep = tep_alloc();

	assert_non_null(tep);
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (int i = 0; i < n; i++)
		assert_int_equal(tep_parse_event(tep, formats[i], strlen(formats[i]), systems[i]), 0);
	return tep;
}

/* A raw record: common header, then VAL of SIZE bytes at each OFF. */
static void put(unsigned char *rec, int off, const void *val, size_t size)
{
	memcpy(rec + off, val, size);
}

static void header(unsigned char *rec, uint16_t id, int32_t pid)
{
	memset(rec, 0, 64);
	put(rec, 0, &id, 2);
	put(rec, 4, &pid, 4);
}

static void new_layout(void **state)
{
	const char *const f[] = { end_new, try_new, reclaim_end, other };
	const char *const sys[] = { "compaction", "compaction", "vmscan", "compaction" };
	struct tep_handle *tep = tep_with(f, sys, 4);
	struct thp_tevents *tv = thp_tevents_new(tep);
	unsigned char rec[64];
	struct thp_ev ev;
	int32_t v32;
	uint64_t v64;
	uint8_t sync = 1;

	(void)state;
	assert_non_null(tv);
	assert_true(thp_tevents_has(tv, THP_EV_COMPACT_END));
	assert_false(thp_tevents_has(tv, THP_EV_COMPACT_BEGIN));

	header(rec, 669, 4242);
	v32 = 8;
	put(rec, 44, &v32, 4);
	put(rec, 40, &sync, 1);
	assert_true(thp_tevents_decode(tv, rec, 48, 3, 123456, &ev));
	assert_int_equal(ev.type, THP_EV_COMPACT_END);
	assert_int_equal(ev.tid, 4242);
	assert_int_equal(ev.cpu, 3);
	assert_int_equal(ev.ts, 123456);
	assert_string_equal(ev.result, "success");
	assert_int_equal(ev.sync, 1);
	assert_int_equal(ev.order, -1);
	assert_string_equal(ev.comm, "");

	v32 = 99; /* a status this format does not name */
	put(rec, 44, &v32, 4);
	assert_true(thp_tevents_decode(tv, rec, 48, 0, 1, &ev));
	assert_string_equal(ev.result, "status=99");

	header(rec, 668, 7);
	v32 = -1; /* signed: order -1 is "whole zone" */
	put(rec, 8, &v32, 4);
	assert_true(thp_tevents_decode(tv, rec, 32, 0, 1, &ev));
	assert_int_equal(ev.type, THP_EV_COMPACT_TRY);
	assert_int_equal(ev.order, -1);
	v32 = 9;
	put(rec, 8, &v32, 4);
	assert_true(thp_tevents_decode(tv, rec, 32, 0, 1, &ev));
	assert_int_equal(ev.order, 9);
	assert_null(ev.result);

	header(rec, 634, 7);
	v64 = 123;
	put(rec, 8, &v64, 8);
	assert_true(thp_tevents_decode(tv, rec, 16, 0, 1, &ev));
	assert_int_equal(ev.type, THP_EV_RECLAIM_END);
	assert_int_equal(ev.value, 123);

	header(rec, 700, 7);
	assert_false(thp_tevents_decode(tv, rec, 16, 0, 1, &ev)); /* not traced */
	thp_tevents_free(tv);
	tep_free(tep);
}

static void old_layout(void **state)
{
	const char *const f[] = { end_old };
	const char *const sys[] = { "compaction" };
	struct tep_handle *tep = tep_with(f, sys, 1);
	struct thp_tevents *tv = thp_tevents_new(tep);
	unsigned char rec[64];
	struct thp_ev ev;
	int32_t v32 = 5;

	(void)state;
	header(rec, 301, 11);
	put(rec, 8, &v32, 4);
	assert_true(thp_tevents_decode(tv, rec, 24, 1, 9, &ev));
	assert_int_equal(ev.type, THP_EV_COMPACT_END);
	assert_string_equal(ev.result, "complete");
	assert_int_equal(ev.sync, -1); /* this kernel does not say */
	thp_tevents_free(tv);
	tep_free(tep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_layout),
		cmocka_unit_test(old_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
