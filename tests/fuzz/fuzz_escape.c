/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_escape.c - the escaper of every output (render/escape.c): for any bytes,
 * in every mode, the output is valid UTF-8 (checked against the well-formed
 * byte sequences of RFC 3629, not by the escaper's own decoder), is printable
 * ASCII for a terminal, holds no control character in a label, no NUL at all,
 * decodes back to the input, and a cut output is a prefix of the whole one
 * ending at a character or escape boundary. */
#include "fuzz.h"
#include "render/escape.h"

/* Length of the well-formed UTF-8 sequence at P (N bytes left), or 0 (RFC 3629, table 3-7). */
static size_t wellformed(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (p[0] <= 0x7f)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, lo = p[0] == 0xe0 ? 0xa0 : 0x80, hi = p[0] == 0xed ? 0x9f : 0xbf;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, lo = p[0] == 0xf0 ? 0x90 : 0x80, hi = p[0] == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (len > n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Length of the unit (an escape \xHH or one character) at E[I] of an escaped text. */
static size_t unit(const char *e, size_t len, size_t i)
{
	if (e[i] == '\\' && i + 1 < len && e[i + 1] == 'x')
		return 4;
	return wellformed((const unsigned char *)e + i, len - i);
}

/* Checks the escaped form E (LEN bytes) of IN (N bytes) for MODE; aborts on a violation. */
static void check(const unsigned char *in, size_t n, const char *e, size_t len, enum out_esc mode)
{
	const unsigned char *p = (const unsigned char *)e;
	size_t i = 0, j = 0;

	if (len < n || (len == n && memcmp(in, e, n) != 0))
		abort();
	while (i < len) {
		size_t w = wellformed(p + i, len - i);
		if (w == 0)
			abort(); /* not UTF-8 */
		if (p[i] == 0 || (mode == OUT_ESC_TEXT && (p[i] < 0x20 || p[i] > 0x7e)))
			abort(); /* a terminal gets printable ASCII only */
		if (mode == OUT_ESC_LABEL && (p[i] < 0x20 || p[i] == 0x7f || (p[i] == 0xc2 && p[i + 1] < 0xa0)))
			abort(); /* a label holds no control character */
		if (p[i] == '\\' && i + 1 < len && p[i + 1] == 'x') {
			/* every \x is an escape: \xHH in lower-case hex, decoding to one input byte */
			if (i + 3 >= len || hexval(e[i + 2]) < 0 || hexval(e[i + 3]) < 0)
				abort();
			if (j >= n || in[j] != (unsigned)(hexval(e[i + 2]) * 16 + hexval(e[i + 3])))
				abort();
			i += 4, j++;
			continue;
		}
		if (j + w > n || memcmp(in + j, p + i, w) != 0)
			abort(); /* a character that is not an escape is copied as it was */
		i += w, j += w;
	}
	if (j != n)
		abort(); /* decodes back to the whole input */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum out_esc modes[] = { OUT_ESC_TEXT, OUT_ESC_LABEL, OUT_ESC_UTF8 };
	const char *s = (const char *)data;

	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		size_t len = out_escape(NULL, 0, s, size, modes[m]);
		char *e = malloc(len + 1), *cut;
		size_t cap = size ? data[0] % (len + 1) + 1 : 1;

		if (!e || out_escape(e, len + 1, s, size, modes[m]) != len || strlen(e) != len)
			abort();
		check(data, size, e, len, modes[m]);
		/* a cut output is a prefix of the whole one that ends at a unit
		 * boundary, and the next unit would not have fitted */
		cut = malloc(cap);
		if (!cut || out_escape(cut, cap, s, size, modes[m]) != len)
			abort();
		size_t k = strlen(cut), b = 0;
		while (b < k)
			b += unit(e, len, b);
		if (k >= cap || memcmp(cut, e, k) != 0 || b != k || (k < len && k + unit(e, len, k) < cap))
			abort();
		free(cut);
		free(e);
	}
	return 0;
}
