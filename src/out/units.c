/* units.c - human sizes, counts and percentages for text output */
#include "out.h"

#include <inttypes.h>
#include <stdio.h>

const char *out_size(char *buf, size_t cap, uint64_t bytes, bool exact)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	int u = 0;
	uint64_t whole = bytes, rem = 0;

	if (exact) {
		snprintf(buf, cap, "%" PRIu64, bytes);
		return buf;
	}
	while (whole >= 1024 && u < 6) {
		rem = whole % 1024;
		whole /= 1024;
		u++;
	}
	/* one decimal, rounded, only when it is not zero */
	unsigned tenth = (unsigned)((rem * 10 + 512) / 1024);
	if (tenth == 10) {
		whole++;
		tenth = 0;
	}
	if (tenth)
		snprintf(buf, cap, "%" PRIu64 ".%u %s", whole, tenth, unit[u]);
	else
		snprintf(buf, cap, "%" PRIu64 " %s", whole, unit[u]);
	return buf;
}

const char *out_count(char *buf, size_t cap, uint64_t n)
{
	char raw[32];
	int len = snprintf(raw, sizeof(raw), "%" PRIu64, n);
	size_t o = 0;

	for (int i = 0; i < len && o + 1 < cap; i++) {
		if (i > 0 && (len - i) % 3 == 0 && o + 2 < cap)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

const char *out_pct(char *buf, size_t cap, uint64_t part, uint64_t whole)
{
	if (!whole) {
		snprintf(buf, cap, "-");
		return buf;
	}
	double p = 100.0 * (double)part / (double)whole;
	snprintf(buf, cap, "%.1f%%", p);
	return buf;
}
