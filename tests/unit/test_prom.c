/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the Prometheus text writer (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/prom.h"

/* Runs FN into a memory stream and returns what it wrote (caller frees). */
static char *capture(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f);
	fclose(f);
	return buf;
}

static void write_family(FILE *f)
{
	out_prom_family(f, "thp_x_total", "counter", "a \\ back\nslash \"quoted\"");
	out_prom_u64(f, "thp_x_total", UINT64_MAX, OUT_PROM_END);
	out_prom_num(f, "thp_y_seconds", 0.1, "a", "1", "b", "two", OUT_PROM_END);
}

static void family(void **state)
{
	char *s = capture(write_family);
	(void)state;
	/* a newline is a control character: \x0a, whose backslash the format escapes */
	assert_string_equal(s, "# HELP thp_x_total a \\\\ back\\\\x0aslash \"quoted\"\n"
			       "# TYPE thp_x_total counter\n"
			       "thp_x_total 18446744073709551615\n"
			       "thp_y_seconds{a=\"1\",b=\"two\"} 0.1\n");
	free(s);
}

static void write_labels(FILE *f)
{
	out_prom_u64(f, "m", 1, "comm", "a\"b\\c\nd", OUT_PROM_END);
	out_prom_u64(f, "m", 2, "comm", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", OUT_PROM_END); /* valid UTF-8 */
	out_prom_u64(f, "m", 3, "comm", "x\xff\xc3(\xed\xa0\x80\xc0\xafy", OUT_PROM_END);            /* invalid */
	out_prom_u64(f, "m", 4, "comm", "\xe2\x82", OUT_PROM_END);                                    /* cut short */
}

static void labels(void **state)
{
	char *s = capture(write_labels);
	(void)state;
	/* a newline and each byte that is not UTF-8 become \xHH (surrogates and
	 * overlong forms are not UTF-8), whose backslash the format escapes */
	assert_string_equal(s, "m{comm=\"a\\\"b\\\\c\\\\x0ad\"} 1\n"
			       "m{comm=\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"} 2\n"
			       "m{comm=\"x\\\\xff\\\\xc3(\\\\xed\\\\xa0\\\\x80\\\\xc0\\\\xafy\"} 3\n"
			       "m{comm=\"\\\\xe2\\\\x82\"} 4\n");
	free(s);
}

static void snake(void **state)
{
	char b[64];
	(void)state;
	assert_string_equal(out_prom_snake(b, sizeof(b), "AnonHugePages"), "anon_huge_pages");
	assert_string_equal(out_prom_snake(b, sizeof(b), "MemTotal"), "mem_total");
	assert_string_equal(out_prom_snake(b, sizeof(b), "ShmemPmdMapped"), "shmem_pmd_mapped");
	assert_string_equal(out_prom_snake(b, sizeof(b), "thp_fault_alloc"), "thp_fault_alloc");
	assert_string_equal(out_prom_snake(b, sizeof(b), "a-b.c d"), "a_b_c_d");
	assert_string_equal(out_prom_snake(b, sizeof(b), "Page2Mapped"), "page2_mapped");
	assert_string_equal(out_prom_snake(b, 6, "AnonHugePages"), "anon");
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(family), cmocka_unit_test(labels),
					    cmocka_unit_test(snake) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
