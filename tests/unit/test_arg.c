/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the command-line number parser (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/arg.h"

static void whole(void **state)
{
	uint64_t v = 7;
	(void)state;
	assert_int_equal(thp_arg_u64("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(thp_arg_u64("42", 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(thp_arg_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	/* decimal only: no hex, octal-looking leading zero, sign, space or empty */
	v = 7;
	assert_int_equal(thp_arg_u64("0x10", 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_u64("010", 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_u64("00", 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_u64("+1", 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_u64("-1", 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_u64(" 1", 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_u64("1 ", 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_u64("1\n", 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_u64("", 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_u64("1e3", 0, 10000, &v), -EINVAL);
	assert_int_equal(thp_arg_u64("1.0", 0, 100, &v), -EINVAL);
	/* range: past the bounds and past 64 bits, never wrapped */
	assert_int_equal(thp_arg_u64("101", 0, 100, &v), -ERANGE);
	assert_int_equal(thp_arg_u64("0", 1, 100, &v), -ERANGE);
	assert_int_equal(thp_arg_u64("4294967296", 0, UINT32_MAX, &v), -ERANGE);
	assert_int_equal(thp_arg_u64("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(thp_arg_u64("99999999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(v, 7); /* untouched by a refusal */
}

static void decimals(void **state)
{
	double v = -1;
	(void)state;
	assert_int_equal(thp_arg_decimal("2", 3, 0, 10, &v), 0);
	assert_true(v == 2);
	assert_int_equal(thp_arg_decimal("0.5", 3, 0, 10, &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(thp_arg_decimal("0.01", 9, 0.01, 86400, &v), 0);
	assert_true(v == 0.01);
	assert_int_equal(thp_arg_decimal("86400", 9, 0.01, 86400, &v), 0);
	assert_int_equal(thp_arg_decimal("10.125", 3, 0, 100, &v), 0);
	assert_true(v == 10.125);
	v = -1;
	assert_int_equal(thp_arg_decimal("0x10", 9, 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_decimal("0x1p4", 9, 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_decimal("1e3", 9, 0, 10000, &v), -EINVAL);
	assert_int_equal(thp_arg_decimal("inf", 9, 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_decimal("nan", 9, 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_decimal(".5", 9, 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_decimal("5.", 9, 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_decimal("05", 9, 0, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_decimal("-1", 9, -10, 100, &v), -EINVAL);
	assert_int_equal(thp_arg_decimal("1.2345", 3, 0, 100, &v), -EINVAL); /* too many decimals */
	assert_int_equal(thp_arg_decimal("0", 9, 0.01, 100, &v), -ERANGE);
	assert_int_equal(thp_arg_decimal("0.001", 9, 0.01, 100, &v), -ERANGE);
	assert_int_equal(thp_arg_decimal("86400.5", 9, 0.01, 86400, &v), -ERANGE);
	assert_true(v == -1);
}

static void sizes(void **state)
{
	uint64_t v = 7;
	(void)state;
	assert_int_equal(thp_arg_size("4096", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(thp_arg_size("64K", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(thp_arg_size("2M", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 2 << 20);
	assert_int_equal(thp_arg_size("1GiB", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 1 << 30);
	assert_int_equal(thp_arg_size("2048kB", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 2 << 20);
	assert_int_equal(thp_arg_size("0", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 0);
	v = 7;
	assert_int_equal(thp_arg_size("0x10", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(thp_arg_size("010M", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(thp_arg_size(" 2M", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(thp_arg_size("2M ", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(thp_arg_size("2 M", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(thp_arg_size("1.5G", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(thp_arg_size("-2M", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(thp_arg_size("2X", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(thp_arg_size("M", 0, UINT64_MAX, &v), -EINVAL);
	/* the unit's multiplication overflows 64 bits: refused, never wrapped */
	assert_int_equal(thp_arg_size("16777216T", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(thp_arg_size("18446744073709551615K", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(thp_arg_size("4K", 8192, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(thp_arg_size("5G", 0, 4ull << 30, &v), -ERANGE);
	assert_int_equal(v, 7);
}

static void percents(void **state)
{
	unsigned bp = 1;
	(void)state;
	assert_int_equal(thp_arg_percent("5%", 100000, &bp), 0);
	assert_int_equal(bp, 500);
	assert_int_equal(thp_arg_percent("0", 100000, &bp), 0);
	assert_int_equal(bp, 0);
	assert_int_equal(thp_arg_percent("2.5%", 100000, &bp), 0);
	assert_int_equal(bp, 250);
	assert_int_equal(thp_arg_percent("0.25", 100000, &bp), 0);
	assert_int_equal(bp, 25);
	assert_int_equal(thp_arg_percent("1000%", 100000, &bp), 0);
	assert_int_equal(bp, 100000);
	bp = 1;
	assert_int_equal(thp_arg_percent("0.125", 100000, &bp), -EINVAL); /* never dropped silently */
	assert_int_equal(thp_arg_percent("1000.5", 100000, &bp), -ERANGE);
	assert_int_equal(thp_arg_percent("4294967296", 100000, &bp), -ERANGE);
	assert_int_equal(thp_arg_percent("5%%", 100000, &bp), -EINVAL);
	assert_int_equal(thp_arg_percent("5.%", 100000, &bp), -EINVAL);
	assert_int_equal(thp_arg_percent("05", 100000, &bp), -EINVAL);
	assert_int_equal(thp_arg_percent("-1", 100000, &bp), -EINVAL);
	assert_int_equal(thp_arg_percent("", 100000, &bp), -EINVAL);
	assert_int_equal(bp, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(whole), cmocka_unit_test(decimals),
					    cmocka_unit_test(sizes), cmocka_unit_test(percents) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
