/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arg.c - numbers a user types on the command line (see arg.h) */
#include "arg.h"

#include <errno.h>
#include <string.h>

#include "parse.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Reads the digits at *PP as a whole number without a leading zero (a lone
 * "0" is one) and advances *PP past them all. Returns 0, -EINVAL, or -ERANGE
 * for a number past 64 bits (what follows may still make it -EINVAL). */
static int whole(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;
	int err = 0;

	if (!is_digit(*p) || (*p == '0' && is_digit(p[1])))
		return -EINVAL;
	for (; is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (x > (UINT64_MAX - d) / 10)
			err = -ERANGE;
		x = x * 10 + d;
	}
	*pp = p;
	*v = x;
	return err;
}

/* Reads "WHOLE[.DIGITS]" with at most DECIMALS digits after the point, which
 * needs one digit at least; *FRAC gets them scaled to DECIMALS digits ("0.5"
 * with 2 gives 50). Advances *PP. Returns 0, -EINVAL or -ERANGE. */
static int fixed(const char **pp, int decimals, uint64_t *w, uint64_t *frac)
{
	int err = whole(pp, w), n = 0;

	*frac = 0;
	if (err == -EINVAL || **pp != '.')
		return err;
	for ((*pp)++; is_digit(**pp); (*pp)++, n++) {
		if (n == decimals)
			return -EINVAL;
		*frac = *frac * 10 + (uint64_t)(**pp - '0');
	}
	if (n == 0)
		return -EINVAL;
	for (; n < decimals; n++)
		*frac *= 10;
	return err;
}

int thp_arg_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	uint64_t x;
	int err = whole(&s, &x);

	if (err == -EINVAL || *s)
		return -EINVAL;
	if (err || x < min || x > max)
		return -ERANGE;
	*v = x;
	return 0;
}

int thp_arg_decimal(const char *s, int decimals, double min, double max, double *v)
{
	static const double scale[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	uint64_t w, frac;
	int err;

	if (decimals < 0 || decimals > THP_ARG_DECIMALS)
		return -EINVAL;
	err = fixed(&s, decimals, &w, &frac);
	if (err == -EINVAL || *s)
		return -EINVAL;
	if (err)
		return err;
	double x = (double)w + (double)frac / scale[decimals];
	if (x < min || x > max)
		return -ERANGE;
	*v = x;
	return 0;
}

int thp_arg_size(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	const char *p = s;
	uint64_t digits, x;
	int err = whole(&p, &digits);

	/* the number as thp_arg_u64 reads it; the unit as the kernel's sizes are read */
	if (err == -EINVAL || strpbrk(p, " \t\n\v\f\r"))
		return -EINVAL;
	err = thp_parse_size(s, &x);
	if (err)
		return err;
	if (x < min || x > max)
		return -ERANGE;
	*v = x;
	return 0;
}

int thp_arg_percent(const char *s, unsigned max_bp, unsigned *bp)
{
	uint64_t w, frac;
	int err = fixed(&s, 2, &w, &frac);

	if (err == -EINVAL)
		return err;
	if (*s == '%')
		s++;
	if (*s)
		return -EINVAL;
	if (err || w > max_bp / 100 || w * 100 + frac > max_bp)
		return -ERANGE;
	*bp = (unsigned)(w * 100 + frac);
	return 0;
}
