/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the TLB row of /proc/interrupts (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/interrupts.h"

static const char x86[] =
	"           CPU0       CPU1       \n"
	"  0:         44          0   IO-APIC   2-edge      timer\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"CAL:     355586     247323   Function call interrupts\n"
	"TLB:       1200         34   TLB shootdowns\n"
	"ERR:          0\n"
	"MIS:          0\n";

static void tlb_row(void **state)
{
	struct thp_tlb_irqs t;
	(void)state;
	assert_int_equal(thp_tlb_irqs_parse(x86, &t), 0);
	assert_true(t.present);
	assert_int_equal(t.ncpus, 2);
	assert_true(t.total == 1234);
	/* a wide host: the row is indented like the IRQ numbers, CPU names skip offline ones */
	assert_int_equal(thp_tlb_irqs_parse("            CPU0       CPU2       CPU5\n"
					    " TLB:          1          2          3   TLB shootdowns\n",
					    &t), 0);
	assert_int_equal(t.ncpus, 3);
	assert_true(t.total == 6);
	/* no newline at the end, no description */
	assert_int_equal(thp_tlb_irqs_parse("CPU0\nTLB: 7", &t), 0);
	assert_true(t.present && t.total == 7);
	/* the largest sum that fits */
	assert_int_equal(thp_tlb_irqs_parse("CPU0 CPU1\nTLB: 18446744073709551614 1\n", &t), 0);
	assert_true(t.total == UINT64_MAX);
}

static void no_row(void **state)
{
	struct thp_tlb_irqs t;
	(void)state;
	/* arm64 and others: IPI rows, no TLB row */
	assert_int_equal(thp_tlb_irqs_parse("           CPU0       CPU1\n"
					    "IPI0:      3012       2987       Rescheduling interrupts\n"
					    "Err:          0\n", &t), 0);
	assert_false(t.present);
	assert_int_equal(t.ncpus, 2);
	/* a row whose name only starts with TLB is not the row */
	assert_int_equal(thp_tlb_irqs_parse("CPU0\nTLBX: 5\n TLB2: 5\n", &t), 0);
	assert_false(t.present);
}

static void malformed(void **state)
{
	static const char *const bad[] = {
		"",                                   /* no header */
		"\nTLB: 1\n",                          /* empty header */
		"CPU0 IRQ\nTLB: 1\n",                  /* a header word that is not a CPU */
		"CPU\nTLB: 1\n",                       /* a CPU without a number */
		"CPU0x\nTLB: 1\n",                     /* ... or with more after it */
		"CPU0 CPU1\nTLB: 1\n",                 /* fewer counts than CPUs */
		"CPU0 CPU1\nTLB: 1 TLB shootdowns\n",  /* text where a count belongs */
		"CPU0\nTLB: -1\n",                     /* a sign */
		"CPU0\nTLB: +1\n",
		"CPU0\nTLB: 0x10\n",                   /* not decimal */
		"CPU0\nTLB: 1.5\n",
		"CPU0\nTLB: 1\nTLB: 2\n",              /* the row twice */
		"CPU0\nTLB: 18446744073709551616\n",   /* past 2^64-1 */
		"CPU0\nTLB: 99999999999999999999999\n",
	};
	struct thp_tlb_irqs t;
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(thp_tlb_irqs_parse(bad[i], &t), -EINVAL);
		assert_false(t.present);
		assert_true(t.total == 0);
	}
	/* a sum past 2^64-1 */
	assert_int_equal(thp_tlb_irqs_parse("CPU0 CPU1\nTLB: 18446744073709551615 1\n", &t), -ERANGE);
	assert_false(t.present);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tlb_row),
		cmocka_unit_test(no_row),
		cmocka_unit_test(malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
