/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse.c - parsers of kernel text (sysfs values, vmstat, meminfo, cmdline) */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *skip_space(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

int thp_parse_choice(const char *buf, struct thp_choice *c)
{
	const char *p = skip_space(buf);

	memset(c, 0, sizeof(*c));
	c->sel = -1;
	while (*p) {
		int bracket = *p == '[';
		size_t len = 0;

		if (bracket)
			p++;
		while (p[len] && !isspace((unsigned char)p[len]) && p[len] != '[' && p[len] != ']')
			len++;
		if (len == 0)
			return -EINVAL;
		if (len >= THP_WORD_MAX || c->n >= THP_CHOICES_MAX)
			return -E2BIG;
		memcpy(c->words[c->n], p, len);
		p += len;
		if (bracket != (*p == ']'))
			return -EINVAL;
		if (bracket) {
			if (c->sel >= 0)
				return -EINVAL;
			c->sel = c->n;
			p++;
		}
		c->n++;
		if (*p && !isspace((unsigned char)*p))
			return -EINVAL;
		p = skip_space(p);
	}
	return c->sel < 0 ? -EINVAL : 0;
}

int thp_choice_find(const struct thp_choice *c, const char *word)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->words[i], word) == 0)
			return i;
	return -1;
}

/* Parses digits at *P into *V; advances *P. Returns 0, -EINVAL or -ERANGE. */
static int parse_digits(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (x > UINT64_MAX / 10 || (x == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return -ERANGE;
		x = x * 10 + d;
	}
	*pp = p;
	*v = x;
	return 0;
}

int thp_parse_u64(const char *buf, uint64_t *v)
{
	const char *p = skip_space(buf);
	int err = parse_digits(&p, v);

	if (err)
		return err;
	return *skip_space(p) ? -EINVAL : 0;
}

int thp_parse_hex(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; isxdigit((unsigned char)*s); s++, digits++) {
		if (digits == 16)
			return -EINVAL;
		x = x << 4 | (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' : tolower((unsigned char)*s) - 'a' + 10);
	}
	if (!digits)
		return -EINVAL;
	*p = s;
	*v = x;
	return 0;
}

/* Returns the end of the line that starts at P (the '\n' or the NUL). */
static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');
	return e ? e : p + strlen(p);
}

int thp_parse_vmstat(const char *buf, thp_kv_fn fn, void *ctx)
{
	for (const char *p = buf; *p;) {
		const char *end = line_end(p), *q = p;
		uint64_t v;

		while (q < end && !isspace((unsigned char)*q))
			q++;
		if (q > p) {
			const char *num = q;
			while (num < end && (*num == ' ' || *num == '\t'))
				num++;
			if (num > q && parse_digits(&num, &v) == 0 && skip_space(num) >= end) {
				int rc = fn(p, (size_t)(q - p), v, ctx);
				if (rc)
					return rc;
			}
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

int thp_parse_meminfo(const char *buf, thp_kv_fn fn, void *ctx)
{
	for (const char *p = buf; *p;) {
		const char *end = line_end(p), *colon = memchr(p, ':', (size_t)(end - p));
		uint64_t v;

		if (colon && colon > p) {
			const char *num = colon + 1;
			while (num < end && (*num == ' ' || *num == '\t'))
				num++;
			if (parse_digits(&num, &v) == 0) {
				const char *unit = num;
				while (unit < end && *unit == ' ')
					unit++;
				int ok = 1;
				if (unit + 2 <= end && unit[0] == 'k' && unit[1] == 'B') {
					unit += 2;
					if (v > UINT64_MAX / 1024)
						ok = 0;
					else
						v *= 1024;
				}
				while (unit < end && isspace((unsigned char)*unit))
					unit++;
				if (ok && unit == end) {
					int rc = fn(p, (size_t)(colon - p), v, ctx);
					if (rc)
						return rc;
				}
			}
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

int thp_parse_cmdline(const char *buf, thp_param_fn fn, void *ctx)
{
	const char *p = skip_space(buf);

	while (*p) {
		const char *start = p, *eq = NULL;
		int quoted = 0;

		for (; *p && (quoted || !isspace((unsigned char)*p)); p++) {
			if (*p == '"')
				quoted = !quoted;
			else if (*p == '=' && !eq)
				eq = p;
		}
		if (p - start == 2 && strncmp(start, "--", 2) == 0)
			break;
		const char *kend = eq ? eq : p;
		const char *val = eq ? eq + 1 : NULL;
		size_t vlen = eq ? (size_t)(p - val) : 0;
		if (val && vlen >= 2 && val[0] == '"' && val[vlen - 1] == '"') {
			val++;
			vlen -= 2;
		}
		int rc = fn(start, (size_t)(kend - start), val, vlen, ctx);
		if (rc)
			return rc;
		p = skip_space(p);
	}
	return 0;
}

int thp_parse_release(const char *buf, int *major, int *minor)
{
	const char *p = skip_space(buf);
	uint64_t a, b;

	if (parse_digits(&p, &a) || *p != '.')
		return -EINVAL;
	p++;
	if (parse_digits(&p, &b) || a > 1000 || b > 1000)
		return -EINVAL;
	*major = (int)a;
	*minor = (int)b;
	return 0;
}

uint64_t thp_parse_size_dir(const char *name)
{
	const char *p = name;
	uint64_t kb;

	if (strncmp(p, "hugepages-", 10) != 0)
		return 0;
	p += 10;
	if (parse_digits(&p, &kb) || strcmp(p, "kB") != 0)
		return 0;
	return kb;
}

int thp_parse_size(const char *buf, uint64_t *bytes)
{
	static const char units[] = "KMGT";
	const char *p = skip_space(buf), *u;
	uint64_t v, mul = 1;
	int err = parse_digits(&p, &v);

	if (err)
		return err;
	if (*p && (u = strchr(units, toupper((unsigned char)*p)))) {
		for (const char *q = units; q <= u; q++)
			mul *= 1024;
		p++;
		if ((*p == 'i' || *p == 'I') && (p[1] == 'B' || p[1] == 'b'))
			p += 2;
		else if (*p == 'B' || *p == 'b')
			p++;
	} else if (*p == 'B' || *p == 'b') {
		p++;
	}
	if (*skip_space(p))
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	*bytes = v * mul;
	return 0;
}

const char *thp_size_words(uint64_t b, char *buf, size_t cap)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && b >= 1024 && b % 1024 == 0) {
		b /= 1024;
		u++;
	}
	snprintf(buf, cap, "%llu %s", (unsigned long long)b, units[u]);
	return buf;
}

void thp_unescape_octal(char *dst, size_t cap, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < cap; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3') {
			dst[o++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else {
			dst[o++] = s[i];
		}
	}
	dst[o] = '\0';
}

int thp_mount_option(const char *opts, const char *key, char *val, size_t cap)
{
	size_t kl = strlen(key);

	for (const char *p = opts; *p;) {
		size_t n = strcspn(p, ",");
		if (n > kl && p[kl] == '=' && strncmp(p, key, kl) == 0) {
			snprintf(val, cap, "%.*s", (int)(n - kl - 1), p + kl + 1);
			return 0;
		}
		p += n + (p[n] == ',');
	}
	return -ENOENT;
}

int thp_split_fields(const char *p, const char *end, const char **f, size_t *len, int max)
{
	int nf = 0;

	while (p < end && nf < max) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			break;
		f[nf] = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		len[nf] = (size_t)(p - f[nf]);
		nf++;
	}
	return nf;
}

void thp_put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	*len += n > 0 ? (size_t)n : 0;
}

void thp_trim(const char **s, size_t *len)
{
	while (*len && isspace((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && isspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

bool thp_split_kv(const char *s, size_t len, const char **k, size_t *kn, const char **v, size_t *vn)
{
	const char *eq = memchr(s, '=', len);

	if (!eq)
		return false;
	*k = s;
	*kn = (size_t)(eq - s);
	*v = eq + 1;
	*vn = len - *kn - 1;
	thp_trim(k, kn);
	thp_trim(v, vn);
	return true;
}

int thp_each_line(const char *buf, int (*fn)(const char *s, size_t len, int line, void *ctx),
		  void *ctx)
{
	int line = 0, rc = 0;

	for (const char *p = buf; *p && rc == 0;) {
		size_t len = strcspn(p, "\n");
		rc = fn(p, len, ++line, ctx);
		p += len;
		if (*p)
			p++;
	}
	return rc;
}
