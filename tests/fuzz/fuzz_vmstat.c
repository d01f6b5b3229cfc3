/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_vmstat.c - /proc/vmstat "name value" lines */
#include "core/parse.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	thp_parse_vmstat(s, fuzz_kv_seen, NULL);
	free(s);
	return 0;
}
