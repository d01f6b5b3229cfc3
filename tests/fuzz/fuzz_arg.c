/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_arg.c - numbers users type on the command line (core/arg.h): what is
 * accepted is written in the one canonical way (decimal, no leading zero, no
 * space), lies in the range asked for, and means what strtoull, strtod and
 * thp_parse_size make of it; nothing is ever wrapped past 64 bits. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "core/arg.h"
#include "core/parse.h"
#include "fuzz.h"

/* True when S starts with decimal digits without a leading zero (or is "0..."
 * followed by no digit) and holds no space, sign or "0x". */
static int canonical_start(const char *s)
{
	if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return 0;
	return !strpbrk(s, " \t\n\v\f\r+-xX");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), out[32];
	uint64_t v, min = size ? data[0] : 0, max = size > 1 ? UINT64_MAX >> (data[1] % 64) : UINT64_MAX;
	double d;
	unsigned bp;

	if (thp_arg_u64(s, min, max, &v) == 0) {
		/* printed back, the value is the very same text */
		snprintf(out, sizeof(out), "%llu", (unsigned long long)v);
		if (strcmp(out, s) != 0 || v < min || v > max)
			abort();
	}
	if (thp_arg_u64(s, 0, UINT64_MAX, &v) == -ERANGE) {
		/* only a canonical number past 64 bits is out of the full range */
		errno = 0;
		if (!canonical_start(s) || (strtoull(s, NULL, 10) != ULLONG_MAX || errno != ERANGE))
			abort();
	}
	if (thp_arg_decimal(s, THP_ARG_DECIMALS, 0.01, 86400, &d) == 0) {
		/* at most 9 decimals, no exponent: strtod reads the same value */
		const char *dot = strchr(s, '.');
		if (!canonical_start(s) || strpbrk(s, "eEpPinIN") || d < 0.01 || d > 86400 ||
		    (dot && strlen(dot + 1) > THP_ARG_DECIMALS) || fabs(strtod(s, NULL) - d) > 1e-9 * d)
			abort();
	}
	if (thp_arg_size(s, 0, UINT64_MAX, &v) == 0) {
		uint64_t w;
		if (!canonical_start(s) || thp_parse_size(s, &w) != 0 || w != v)
			abort();
	}
	if (thp_arg_percent(s, 100000, &bp) == 0 && (bp > 100000 || !canonical_start(s)))
		abort();
	free(s);
	return 0;
}
