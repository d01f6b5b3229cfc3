/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the data TLB sizes (cmocka): cpuid words and /proc/cpuinfo
 * lines as CPUs report them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/tlbreach.h"

/* Recorded on an AMD EPYC guest (the machine the tests were written on):
 * L1 dTLB 96 entries for 4K and 2M pages, L2 dTLB 128 for each. */
static void amd(void **state)
{
	const uint32_t l5[4] = { 0xff60ff40, 0xff60ff40, 0x300c0140, 0x20080140 };
	const uint32_t l6[4] = { 0x40802040, 0x60804040, 0x04006140, 0x0fe09140 };
	uint32_t off[4];
	struct thp_tlb_reach r;
	(void)state;
	assert_int_equal(thp_tlb_reach_amd(l5, l6, &r), 0);
	assert_int_equal(r.src, THP_TLB_SRC_CPUID);
	assert_int_equal(r.k4.entries, 128);
	assert_int_equal(r.k4.level, 2);
	assert_int_equal(r.m2.entries, 128);
	assert_true(thp_tlb_reach_bytes(&r.k4, 4096) == 512 * 1024);
	assert_true(thp_tlb_reach_bytes(&r.m2, 2 << 20) == 256ull << 20);
	/* the L2 TLB off (associativity 0): the L1 entries */
	memcpy(off, l6, sizeof(off));
	off[0] &= 0x0fffffff;
	off[1] &= 0x0fffffff;
	assert_int_equal(thp_tlb_reach_amd(l5, off, &r), 0);
	assert_int_equal(r.k4.entries, 96);
	assert_int_equal(r.k4.level, 1);
	/* no TLB reported at all (a hypervisor that hides the leaves) */
	memset(off, 0, sizeof(off));
	assert_int_equal(thp_tlb_reach_amd(off, off, &r), -ENOENT);
}

/* Leaf 0x18 sub-leaves laid out as the SDM describes them for a CPU with a
 * 64-entry 4-way load-only L1 dTLB for 4K pages, a 32-entry 4-way one for
 * 2M/4M pages, a 128-entry 8-way iTLB, and a 1536-entry 12-way unified L2 TLB
 * for 4K and 2M pages. */
static void intel(void **state)
{
	const uint32_t sub[][4] = {
		{ 4, 0, 0, 0 },                                      /* max sub-leaf 4, no TLB */
		{ 0, 4u << 16 | 0x1, 16, 1 << 5 | 4 },             /* L1 load-only, 4K */
		{ 0, 4u << 16 | 0x6, 8, 1 << 5 | 4 },              /* L1 load-only, 2M/4M */
		{ 0, 8u << 16 | 0x1, 16, 1 << 5 | 2 },             /* L1 instruction: not data */
		{ 0, 12u << 16 | 0x3, 128, 2 << 5 | 3 },           /* L2 unified, 4K and 2M */
	};
	struct thp_tlb_reach r;
	(void)state;
	assert_int_equal(thp_tlb_reach_leaf18(sub, 5, &r), 0);
	assert_int_equal(r.k4.entries, 1536);
	assert_int_equal(r.k4.level, 2);
	assert_int_equal(r.m2.entries, 1536);
	assert_true(thp_tlb_reach_bytes(&r.m2, 2 << 20) == 3ull << 30);
	/* without the L2: the L1 data TLBs, the iTLB never */
	assert_int_equal(thp_tlb_reach_leaf18(sub, 4, &r), 0);
	assert_int_equal(r.k4.entries, 64);
	assert_int_equal(r.m2.entries, 32);
	assert_int_equal(r.m2.level, 1);
	/* only sub-leaf 0 (no TLB described) */
	assert_int_equal(thp_tlb_reach_leaf18(sub, 1, &r), -ENOENT);
}

static void cpuinfo(void **state)
{
	struct thp_tlb_reach r;
	(void)state;
	assert_int_equal(thp_tlb_reach_cpuinfo("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
					       "TLB size\t: 192 4K pages\nclflush size\t: 64\n", &r), 0);
	assert_int_equal(r.src, THP_TLB_SRC_CPUINFO);
	assert_int_equal(r.k4.entries, 192);
	assert_int_equal(r.m2.entries, 0);
	assert_int_equal(thp_tlb_reach_cpuinfo("TLB size\t: 3072 4K pages", &r), 0);
	assert_int_equal(r.k4.entries, 3072);
	/* Intel and arm64 have no such line */
	assert_int_equal(thp_tlb_reach_cpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\n", &r), -ENOENT);
	/* lines that are not "N 4K pages" */
	assert_int_equal(thp_tlb_reach_cpuinfo("TLB size\t: 192 2M pages\n", &r), -EINVAL);
	assert_int_equal(thp_tlb_reach_cpuinfo("TLB size\t: -5 4K pages\n", &r), -EINVAL);
	assert_int_equal(thp_tlb_reach_cpuinfo("TLB size\t: 0 4K pages\n", &r), -EINVAL);
	assert_int_equal(thp_tlb_reach_cpuinfo("TLB size\t: 99999999999 4K pages\n", &r), -EINVAL);
	assert_int_equal(thp_tlb_reach_cpuinfo("TLB size 192 4K pages\n", &r), -EINVAL);
	assert_int_equal(thp_tlb_reach_cpuinfo("TLB size\t: 192 4K pages extra\n", &r), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(amd),
		cmocka_unit_test(intel),
		cmocka_unit_test(cpuinfo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
