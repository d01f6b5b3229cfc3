/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_cpuinfo.c - the flags line of /proc/cpuinfo */
#include "core/doctor.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	thp_cpuinfo_flag(s, "hypervisor");
	free(s);
	return 0;
}
