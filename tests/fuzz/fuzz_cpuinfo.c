/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_cpuinfo.c - the flags and TLB size lines of /proc/cpuinfo */
#include "core/doctor.h"
#include "core/tlbreach.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	struct thp_tlb_reach r;

	thp_cpuinfo_flag(s, "hypervisor");
	thp_tlb_reach_cpuinfo(s, &r);
	free(s);
	return 0;
}
