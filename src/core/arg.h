/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arg.h - numbers a user types on the command line, with one grammar for every
 * command: decimal digits only (no sign, space, "0x" or leading zero, which
 * other tools read as octal), range-checked, and a size's unit that cannot
 * overflow. Each returns 0, -EINVAL (not written that way) or -ERANGE
 * (outside MIN..MAX, or too large for 64 bits). */
#ifndef THP_ARG_H
#define THP_ARG_H

#include <stdint.h>

/* Decimals a fractional argument may have ("0.000000001"). */
#define THP_ARG_DECIMALS 9

/* A whole number: "0", "42". */
int thp_arg_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v);

/* A number with up to DECIMALS decimals after a point: "2", "0.5", "10.25"
 * (no exponent, "inf" or "nan"). DECIMALS is at most THP_ARG_DECIMALS. */
int thp_arg_decimal(const char *s, int decimals, double min, double max, double *v);

/* A size: a whole number of bytes, or with a binary unit as thp_parse_size()
 * reads it ("64K", "2M", "1GiB", "2048kB"). */
int thp_arg_size(const char *s, uint64_t min, uint64_t max, uint64_t *v);

/* A percentage with up to two decimals and an optional '%' ("5%", "2.5"),
 * in basis points (5% is 500), at most MAX_BP. */
int thp_arg_percent(const char *s, unsigned max_bp, unsigned *bp);

#endif
