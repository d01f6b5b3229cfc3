/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape.c - \xHH escapes for control characters and bytes that are not UTF-8 */
#include "escape.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at P (N bytes left, N > 0), or 0 when
 * P does not start one (stray or missing continuation byte, overlong form,
 * surrogate, or past U+10FFFF). Sets *CP to the code point. */
static size_t utf8_len(const unsigned char *p, size_t n, unsigned *cp)
{
	unsigned min;
	size_t len;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, min = 0x80;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, min = 0x800;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	*cp = p[0] & (0x7fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (p[i] & 0x3fu);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

/* C0 controls, DEL and the C1 controls U+0080..U+009F. */
static bool is_control(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

struct sink {
	char *dst;
	size_t cap, len;
	bool full; /* something did not fit: nothing more is written */
};

/* Appends N bytes of P whole, or marks the sink full. */
static void put(struct sink *k, const char *p, size_t n)
{
	if (!k->full && k->len + n < k->cap) {
		memcpy(k->dst + k->len, p, n);
		k->dst[k->len + n] = '\0';
	} else {
		k->full = true;
	}
	k->len += n;
}

/* Appends the N bytes of P, each as it is, as far as they fit (as N calls
 * of put() would). */
static void put_each(struct sink *k, const char *p, size_t n)
{
	if (k->full || k->len + n < k->cap)
		put(k, p, n);
	else
		for (size_t i = 0; i < n; i++)
			put(k, p + i, 1);
}

static void put_hex(struct sink *k, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		char e[4] = { '\\', 'x', hex[p[i] >> 4], hex[p[i] & 15] };
		put(k, e, 4);
	}
}

size_t out_escape(char *dst, size_t cap, const char *s, size_t len, enum out_esc mode)
{
	const unsigned char *p = (const unsigned char *)s;
	struct sink k = { dst, cap, 0, false };
	size_t i = 0;

	if (cap)
		dst[0] = '\0';
	while (i < len) {
		unsigned cp;
		size_t n = i;

		/* printable ASCII but the backslash stays as it is in every mode:
		 * a run of it at a time */
		while (n < len && p[n] >= 0x20 && p[n] < 0x7f && p[n] != '\\')
			n++;
		if (n > i) {
			put_each(&k, s + i, n - i);
			i = n;
			continue;
		}
		n = utf8_len(p + i, len - i, &cp);
		if (n == 0)
			n = 1, put_hex(&k, p + i, 1);
		else if ((mode != OUT_ESC_UTF8 && is_control(cp)) || (mode == OUT_ESC_TEXT && n > 1) ||
			 cp == 0 || (cp == '\\' && i + 1 < len && p[i + 1] == 'x'))
			put_hex(&k, p + i, n);
		else
			put(&k, (const char *)p + i, n);
		i += n;
	}
	return k.len;
}

const char *out_esc(char *buf, size_t cap, const char *s)
{
	out_escape(buf, cap, s, strlen(s), OUT_ESC_TEXT);
	return buf;
}

char *out_esc_dup(const char *s, size_t len, enum out_esc mode)
{
	size_t need = out_escape(NULL, 0, s, len, mode) + 1;
	char *d = malloc(need);

	if (d)
		out_escape(d, need, s, len, mode);
	return d;
}

void out_esc_put(FILE *f, const char *s)
{
	char buf[1024];
	size_t len = strlen(s), n = out_escape(buf, sizeof(buf), s, len, OUT_ESC_TEXT);
	char *d = n < sizeof(buf) ? NULL : out_esc_dup(s, len, OUT_ESC_TEXT);

	fputs(d ? d : buf, f);
	free(d);
}
