/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_environ.c - /proc/PID/environ (NUL-separated, not NUL-terminated) */
#include "core/proc.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size ? size : 1), out[64];

	if (!s)
		abort();
	memcpy(s, data, size);
	/* exact size, no terminator: a read past the block is caught */
	thp_environ_find(s, size, "MALLOC_CONF", out, sizeof(out));
	thp_environ_find(s, size, "A", out, 1);
	free(s);
	return 0;
}
