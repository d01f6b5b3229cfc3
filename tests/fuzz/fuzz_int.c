/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_int.c - integers: sysfs values, kernel release, hugepages-<N>kB names,
 * memory block sizes and memoryM names */
#include <stdio.h>

#include "core/parse.h"
#include "core/pfnnode.h"
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
	/* a block size that parses is whole pages */
	if (thp_block_size_parse(s, 4096, &v) == 0 && (!v || v % 4096))
		abort();
	thp_memory_block_name(s, &v);
	free(s);
	return 0;
}
