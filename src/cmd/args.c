/* SPDX-License-Identifier: GPL-2.0-or-later */
/* args.c - the numeric arguments of every command: read by core/arg.h, refused
 * with one message that names the option, the value and what it accepts */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "../core/arg.h"
#include "../render/render.h"
#include "cmd.h"

bool thp_opt_u64(const char *cmd, const char *what, const char *arg, uint64_t min, uint64_t max,
		 uint64_t *v)
{
	int err = thp_arg_u64(arg, min, max, v);
	char range[64] = "";

	if (max < UINT64_MAX)
		snprintf(range, sizeof(range), " (%" PRIu64 " to %" PRIu64 ")", min, max);
	if (err == -ERANGE && max == UINT64_MAX)
		thp_err("%s: %s '%s' is too large for 64 bits", cmd, what, arg);
	else if (err == -ERANGE)
		thp_err("%s: %s '%s' is out of range%s", cmd, what, arg, range);
	else if (err)
		thp_err("%s: %s '%s' is not a whole number in decimal%s", cmd, what, arg, range);
	return !err;
}

bool thp_opt_int(const char *cmd, const char *what, const char *arg, int min, int max, int *v)
{
	uint64_t x;

	if (!thp_opt_u64(cmd, what, arg, (uint64_t)min, (uint64_t)max, &x))
		return false;
	*v = (int)x;
	return true;
}

bool thp_opt_decimal(const char *cmd, const char *what, const char *arg, const char *unit, double min,
		     double max, double *v)
{
	int err = thp_arg_decimal(arg, THP_ARG_DECIMALS, min, max, v);

	if (err == -ERANGE)
		thp_err("%s: %s '%s' is out of range (%g to %g %s)", cmd, what, arg, min, max, unit);
	else if (err)
		thp_err("%s: %s '%s' is not a number of %s in decimal such as 2 or 0.5 (%g to %g)", cmd,
			what, arg, unit, min, max);
	return !err;
}

bool thp_opt_size(const char *cmd, const char *what, const char *arg, uint64_t min, uint64_t max,
		  const char *max_is, uint64_t *v)
{
	int err = thp_arg_size(arg, min, max, v);
	char a[32], b[32];

	if (err == -ERANGE && max == UINT64_MAX)
		thp_err("%s: %s '%s' is too large for 64 bits", cmd, what, arg);
	else if (err == -ERANGE)
		thp_err("%s: %s '%s' is out of range (%s to %s%s%s)", cmd, what, arg,
			out_size(a, sizeof(a), min, false), out_size(b, sizeof(b), max, false),
			max_is ? ", " : "", max_is ? max_is : "");
	else if (err)
		thp_err("%s: %s '%s' is not a size such as 4096, 64K, 2M or 1G", cmd, what, arg);
	return !err;
}

bool thp_opt_percent(const char *cmd, const char *what, const char *arg, unsigned max_bp, unsigned *bp)
{
	int err = thp_arg_percent(arg, max_bp, bp);

	if (err == -ERANGE)
		thp_err("%s: %s '%s' is out of range (0%% to %u%%)", cmd, what, arg, max_bp / 100);
	else if (err)
		thp_err("%s: %s '%s' is not a percentage such as 5%% or 2.5 (at most two decimals)", cmd,
			what, arg);
	return !err;
}
