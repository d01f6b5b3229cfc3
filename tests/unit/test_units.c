/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the text units of the output layer (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render/render.h"

static void sizes(void **state)
{
	char b[32];
	(void)state;
	assert_string_equal(out_size(b, sizeof(b), 0, false), "0 B");
	assert_string_equal(out_size(b, sizeof(b), 1023, false), "1023 B");
	assert_string_equal(out_size(b, sizeof(b), 4096, false), "4 KiB");
	assert_string_equal(out_size(b, sizeof(b), 2097152, false), "2 MiB");
	assert_string_equal(out_size(b, sizeof(b), 1288490188, false), "1.2 GiB");
	assert_string_equal(out_size(b, sizeof(b), 1073741823, false), "1 GiB"); /* rounds up */
	assert_string_equal(out_size(b, sizeof(b), 2097152, true), "2097152");
	assert_string_equal(out_size(b, sizeof(b), UINT64_MAX, false), "16 EiB");
	/* 1023.95 of a unit moves up one; tenths round to the nearest, a tie to
	 * the even tenth */
	assert_string_equal(out_size(b, sizeof(b), 1048524, false), "1023.9 KiB");
	assert_string_equal(out_size(b, sizeof(b), 1048525, false), "1 MiB");
	assert_string_equal(out_size(b, sizeof(b), 1075, false), "1 KiB");
	assert_string_equal(out_size(b, sizeof(b), 1024 + 256, false), "1.2 KiB");
	assert_string_equal(out_size(b, sizeof(b), 1024 + 768, false), "1.8 KiB");
	assert_string_equal(out_size(b, sizeof(b), 15ull << 60, false), "15 EiB");
	assert_string_equal(out_size(b, sizeof(b), UINT64_MAX, true), "18446744073709551615");
	assert_string_equal(out_size(b, sizeof(b), 0, true), "0");
	/* cut to the buffer, as snprintf cuts */
	assert_string_equal(out_size(b, 4, 1288490188, false), "1.2");
	assert_string_equal(out_size(b, 3, 2097152, true), "20");
	assert_string_equal(out_size(b, 1, 4096, false), "");
}

static void counts(void **state)
{
	char b[32];
	(void)state;
	assert_string_equal(out_count(b, sizeof(b), 0), "0");
	assert_string_equal(out_count(b, sizeof(b), 999), "999");
	assert_string_equal(out_count(b, sizeof(b), 2631), "2,631");
	assert_string_equal(out_count(b, sizeof(b), 1234567), "1,234,567");
	assert_string_equal(out_count(b, sizeof(b), UINT64_MAX), "18,446,744,073,709,551,615");
	assert_string_equal(out_pct(b, sizeof(b), 706, 3712), "19.0%");
	assert_string_equal(out_pct(b, sizeof(b), 1, 0), "-");
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(sizes), cmocka_unit_test(counts) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
