/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_interrupts.c - the TLB row of /proc/interrupts */
#include "core/interrupts.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	struct thp_tlb_irqs t;
	int err = thp_tlb_irqs_parse(s, &t);

	if (err && (t.present || t.total || t.ncpus))
		abort(); /* a failed parse leaves nothing behind */
	if (!err && (t.ncpus <= 0 || (!t.present && t.total)))
		abort();
	free(s);
	return 0;
}
