/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_int.c - integers: sysfs values, kernel release, hugepages-<N>kB names */
#include <stdio.h>

#include "core/parse.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	uint64_t v;
	int major, minor;

	if (thp_parse_u64(s, &v) == 0) {
		/* a value that parses prints back as the same digits */
		char out[32];
		uint64_t w;
		snprintf(out, sizeof(out), "%llu", (unsigned long long)v);
		if (thp_parse_u64(out, &w) != 0 || w != v)
			abort();
	}
	thp_parse_release(s, &major, &minor);
	thp_parse_size_dir(s);
	free(s);
	return 0;
}
