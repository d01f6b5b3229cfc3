/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_rollup.c - /proc/PID/smaps_rollup */
#include "core/proc.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	struct thp_rollup r;

	thp_rollup_parse(s, &r);
	free(s);
	return 0;
}
