/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the /proc/buddyinfo and /proc/pressure/memory parsers (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/buddyinfo.h"
#include "core/psi.h"

static struct thp_buddyinfo b;

static void buddy_ok(void **state)
{
	(void)state;
	assert_int_equal(thp_buddyinfo_parse(
		"Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n"
		"Node 0, zone    DMA32      4      1      2      2      2      2      1      4      4      2    752 \n"
		"Node 1, zone   Normal      1    163    238    187     94     53     22     11     14     30    207\n",
		&b), 0);
	assert_int_equal(b.nzones, 3);
	assert_false(b.truncated);
	assert_int_equal(b.zones[2].node, 1);
	assert_string_equal(b.zones[1].zone, "DMA32");
	assert_int_equal(b.zones[1].norders, 11);
	assert_true(b.zones[1].free[10] == 752);
	/* order 9 and up, in order-9 blocks: 30 + 2 * 207 */
	assert_true(thp_buddy_free_blocks(&b.zones[2], 9) == 444);
	assert_true(thp_buddy_free_blocks(&b.zones[2], 10) == 207);
	assert_true(thp_buddy_free_blocks(&b.zones[2], 11) == 0);
	assert_true(thp_buddy_free_blocks(&b.zones[0], 8) == 1 + 2 + 12);
	assert_true(thp_buddy_free_blocks(&b.zones[0], -1) == 0);
}

static void buddy_odd(void **state)
{
	char big[2048] = "Node 0, zone Normal";
	(void)state;
	/* garbage lines are skipped, the good one is kept */
	assert_int_equal(thp_buddyinfo_parse("junk\nNode x, zone A 1\nNode 0, zone Movable 5 6\n"
					     "Node 0 zone B 1\nNode 0, zone C 1 -2\nNode 0, zone D\n",
					     &b), 0);
	assert_int_equal(b.nzones, 1);
	assert_string_equal(b.zones[0].zone, "Movable");
	assert_int_equal(b.zones[0].norders, 2);
	/* no final newline */
	assert_int_equal(thp_buddyinfo_parse("Node 3, zone Normal 1 2 3", &b), 0);
	assert_int_equal(b.zones[0].node, 3);
	assert_int_equal(thp_buddyinfo_parse("", &b), -EINVAL);
	assert_int_equal(thp_buddyinfo_parse("Node 0, zone Normal 99999999999999999999\n", &b), -EINVAL);
	assert_int_equal(thp_buddyinfo_parse("Node 0, zone ThisZoneNameIsTooLong 1\n", &b), -EINVAL);
	/* more orders than kept: kept up to the limit and flagged */
	for (int i = 0; i < 40; i++)
		strcat(big, " 1");
	assert_int_equal(thp_buddyinfo_parse(big, &b), 0);
	assert_true(b.truncated);
	assert_int_equal(b.zones[0].norders, THP_BUDDY_ORDERS);
	/* a huge count saturates instead of wrapping */
	assert_int_equal(thp_buddyinfo_parse("Node 0, zone Normal 0 18446744073709551615 18446744073709551615\n", &b), 0);
	assert_true(thp_buddy_free_blocks(&b.zones[0], 1) == UINT64_MAX);
}

static void pmd_order(void **state)
{
	(void)state;
	assert_int_equal(thp_pmd_order(2u << 20, 4096), 9);
	assert_int_equal(thp_pmd_order(512u << 20, 65536), 13);
	assert_int_equal(thp_pmd_order(32u << 20, 16384), 11);
	assert_int_equal(thp_pmd_order(0, 4096), -1);
	assert_int_equal(thp_pmd_order(2u << 20, 0), -1);
	assert_int_equal(thp_pmd_order(3u << 20, 4096), -1);
	assert_int_equal(thp_pmd_order(4096, 8192), -1);
}

static void psi_ok(void **state)
{
	struct thp_psi p;
	(void)state;
	assert_int_equal(thp_psi_parse("some avg10=1.50 avg60=0.25 avg300=0.00 total=123456\n"
				       "full avg10=0.75 avg60=0.10 avg300=0.00 total=789\n", &p), 0);
	assert_true(p.some.present && p.full.present);
	assert_true(p.some.avg10 == 1.5);
	assert_true(p.some.avg60 == 0.25);
	assert_true(p.some.total_us == 123456);
	assert_true(p.full.avg10 == 0.75);
	assert_true(p.full.total_us == 789);
	/* only "some" (a kernel or file without the full line), no final newline */
	assert_int_equal(thp_psi_parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=0", &p), 0);
	assert_true(p.some.present);
	assert_false(p.full.present);
}

static void psi_bad(void **state)
{
	struct thp_psi p;
	(void)state;
	assert_int_equal(thp_psi_parse("", &p), -EINVAL);
	assert_int_equal(thp_psi_parse("some avg10=x avg60=0 avg300=0 total=0\n", &p), -EINVAL);
	assert_int_equal(thp_psi_parse("some avg10=-1 avg60=0 avg300=0 total=0\n", &p), -EINVAL);
	assert_int_equal(thp_psi_parse("some avg10=nan avg60=0 avg300=0 total=0\n", &p), -EINVAL);
	assert_int_equal(thp_psi_parse("some avg10=1 avg60=0 avg300=0 total=12x\n", &p), -EINVAL);
	assert_int_equal(thp_psi_parse("some avg10=1 avg60=0 avg300=0\n", &p), -EINVAL);
	/* a bad "some" does not hide a good "full" */
	assert_int_equal(thp_psi_parse("some garbage\nfull avg10=2.00 avg60=0 avg300=0 total=5\n", &p), 0);
	assert_false(p.some.present);
	assert_true(p.full.avg10 == 2.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buddy_ok), cmocka_unit_test(buddy_odd), cmocka_unit_test(pmd_order),
		cmocka_unit_test(psi_ok),   cmocka_unit_test(psi_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
