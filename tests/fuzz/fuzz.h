/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.h - shared helpers of the libFuzzer harnesses (one parser per harness) */
#ifndef THP_FUZZ_H
#define THP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The parsers take NUL-terminated text: a heap copy of exactly SIZE+1 bytes,
 * so that AddressSanitizer catches a read past the end. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Reads every byte of [P, P+N) so that a span pointing outside the input
 * shows up under AddressSanitizer. */
static inline void fuzz_touch(const char *p, size_t n)
{
	volatile unsigned sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += (unsigned char)p[i];
	(void)sum;
}

/* Key/value callback of the line parsers: a key is never empty, and lies inside the input. */
static inline int fuzz_kv_seen(const char *key, size_t klen, uint64_t val, void *ctx)
{
	(void)val;
	(void)ctx;
	if (klen == 0)
		abort();
	fuzz_touch(key, klen);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
