/* SPDX-License-Identifier: GPL-2.0-or-later */
/* units.c - human sizes, counts and percentages for text output */
#include "render.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Writes V in decimal at P; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
	char d[20];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = d[--n];
	return p;
}

/* Copies the N bytes of S to BUF of CAP bytes as snprintf would (cut to fit,
 * ending in NUL). Returns BUF. */
static const char *put_out(char *buf, size_t cap, const char *s, size_t n)
{
	if (!cap)
		return buf;
	n = n < cap - 1 ? n : cap - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

/* (The digits are written by hand, not by snprintf: 'thp ps --all' formats
 * some 600,000 sizes over 100,000 processes.) */
const char *out_size(char *buf, size_t cap, uint64_t bytes, bool exact)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	int u = 0;
	uint64_t t, rem, half;
	char s[32], *p;

	if (exact)
		return put_out(buf, cap, s, (size_t)(put_u64(s, bytes) - s));
	/* 1023.95 of a unit and above would print as "1024.0": move up a unit
	 * instead (in integers: a size is 1023 units and a remainder) */
	while (u < 6) {
		uint64_t whole = bytes >> (10 * u), part = bytes & ((1ull << (10 * u)) - 1);
		if (whole < 1023 || (whole == 1023 && part * 20 < 19ull << (10 * u)))
			break;
		u++;
	}
	/* tenths of the unit, to the nearest, a tie to the even one as printf's
	 * "%.1f" rounds */
	rem = (bytes & ((1ull << (10 * u)) - 1)) * 10;
	t = (bytes >> (10 * u)) * 10 + (rem >> (10 * u));
	rem &= (1ull << (10 * u)) - 1;
	half = u ? 1ull << (10 * u - 1) : 1;
	if (rem > half || (rem == half && (t & 1)))
		t++;
	p = put_u64(s, t / 10);
	if (t % 10) {
		*p++ = '.';
		*p++ = (char)('0' + t % 10);
	}
	*p++ = ' ';
	p = stpcpy(p, unit[u]);
	return put_out(buf, cap, s, (size_t)(p - s));
}

const char *out_size_spec(char *buf, size_t cap, uint64_t bytes)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && bytes && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, cap, "%" PRIu64, bytes);
	else
		snprintf(buf, cap, "%" PRIu64 "%c", bytes, units[u]);
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

const char *out_ns(char *buf, size_t cap, double ns)
{
	if (ns < 1e3)
		snprintf(buf, cap, "%.1f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, cap, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, cap, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, cap, "%.2f s", ns / 1e9);
	return buf;
}
