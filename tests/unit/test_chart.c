/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the drawing of the output layer: bars, sparklines, charts (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "stdout_of.h"

#include "render/term.h"

static void bars(void **state)
{
	char b[64];
	(void)state;
	assert_string_equal(out_bar(b, sizeof(b), 1, 1, 4, false), "████");
	assert_string_equal(out_bar(b, sizeof(b), 0.5, 1, 3, false), "█▌");
	assert_string_equal(out_bar(b, sizeof(b), 1, 3, 1, false), "▍"); /* 2.67 eighths */
	assert_string_equal(out_bar(b, sizeof(b), 1, 16, 1, false), "▏"); /* 0.5 rounds up */
	assert_string_equal(out_bar(b, sizeof(b), 3, 16, 1, false), "▎"); /* 1.5 eighths */
	assert_string_equal(out_bar(b, sizeof(b), 7, 8, 1, false), "▉");
	assert_string_equal(out_bar(b, sizeof(b), 0.001, 1, 10, false), "▏"); /* above zero shows */
	assert_string_equal(out_bar(b, sizeof(b), 0, 1, 10, false), "");
	assert_string_equal(out_bar(b, sizeof(b), -1, 1, 10, false), "");
	assert_string_equal(out_bar(b, sizeof(b), 1, 0, 10, false), "");
	assert_string_equal(out_bar(b, sizeof(b), 2, 1, 2, false), "██"); /* capped at MAX */
	assert_string_equal(out_bar(b, 4, 1, 1, 4, false), "█");           /* what fits */
}

static void bars_ascii(void **state)
{
	char b[64];
	(void)state;
	assert_string_equal(out_bar(b, sizeof(b), 1, 1, 4, true), "####");
	assert_string_equal(out_bar(b, sizeof(b), 0.5, 1, 3, true), "##"); /* 1.5 rounds up */
	assert_string_equal(out_bar(b, sizeof(b), 0.4, 1, 3, true), "#");  /* 1.2 */
	assert_string_equal(out_bar(b, sizeof(b), 0.01, 1, 3, true), "#"); /* above zero shows */
	assert_string_equal(out_bar(b, sizeof(b), 0, 1, 3, true), "");
}

static void sparks(void **state)
{
	static const double ramp[] = { 0, 1, 2, 3, 4, 5, 6, 7 }, some[] = { 0, 0.5, 10, 20 },
			    zero[] = { 0, 0, 0 }, thirds[] = { 1, 2, 3 };
	char b[64];
	(void)state;
	assert_string_equal(out_spark(b, sizeof(b), ramp, 8, 0, false), "▁▂▃▄▅▆▇█");
	assert_string_equal(out_spark(b, sizeof(b), ramp, 8, 0, true), "_.:-=+*#");
	/* with a given scale: a little above zero is the second mark, above MAX the top */
	assert_string_equal(out_spark(b, sizeof(b), some, 4, 10, false), "▁▂██");
	assert_string_equal(out_spark(b, sizeof(b), zero, 3, 0, false), "▁▁▁");
	/* 7/3 and 14/3 round up to 3 and 5 */
	assert_string_equal(out_spark(b, sizeof(b), thirds, 3, 0, false), "▄▆█");
	assert_string_equal(out_spark(b, sizeof(b), ramp, 0, 0, false), "");
}

static void widths(void **state)
{
	(void)state;
	assert_int_equal(out_term_len("\033[1;31mCRIT\033[0m id:"), 8);
	assert_int_equal(out_term_len("█▌ x"), 4);
	assert_int_equal(out_term_len(""), 0);
}

static const struct out_chart_row chart_rows[] = {
	{ "plain", 2.0, "2.0 ms" }, { "MADV_HUGEPAGE", 1.0, "1.0 ms" }, { "none", 0, "0 ms" }
};

static void chart_print(void *arg)
{
	(void)arg;
	out_chart(chart_rows, 3, 2);
}

static void chart(void **state)
{
	char want[512];
	(void)state;
	out_draw_force_ascii();
	/* 80 - 2 (indent) - 13 (label) - 2 - 6 (text) - 1: bars of 56 */
	snprintf(want, sizeof(want), "  plain          2.0 ms %.56s\n  MADV_HUGEPAGE  1.0 ms %.28s\n  none             0 ms\n",
		 "################################################################",
		 "################################################################");
	/* standard output is a file: 80 columns */
	assert_string_equal(stdout_of(chart_print, NULL), want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bars),  cmocka_unit_test(bars_ascii), cmocka_unit_test(sparks),
		cmocka_unit_test(widths), cmocka_unit_test(chart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
