/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_cmdline.c - /proc/cmdline parameters, quoting and "--" */
#include "core/parse.h"
#include "fuzz.h"

static int seen(const char *key, size_t klen, const char *val, size_t vlen, void *ctx)
{
	(void)ctx;
	fuzz_touch(key, klen);
	if (val)
		fuzz_touch(val, vlen);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	thp_parse_cmdline(s, seen, NULL);
	free(s);
	return 0;
}
