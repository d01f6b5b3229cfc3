/* fuzz_meminfo.c - /proc/meminfo "Name:   value kB" lines */
#include "core/parse.h"
#include "fuzz.h"

static int seen(const char *key, size_t klen, uint64_t val, void *ctx)
{
	(void)val;
	(void)ctx;
	if (klen == 0)
		abort();
	fuzz_touch(key, klen);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	thp_parse_meminfo(s, seen, NULL);
	free(s);
	return 0;
}
