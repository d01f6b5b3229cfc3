/* SPDX-License-Identifier: GPL-2.0-or-later */
/* args.c - the arguments of every command: options read by getopt with one
 * style of message, numbers read by core/arg.h and refused with one message
 * that names the option, the value and what it accepts, and the options
 * metrics and serve share */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../core/arg.h"
#include "../core/metrics.h"
#include "../control/modes.h"
#include "../render/render.h"
#include "cmd.h"
#include "opt.h"

bool thp_opt_u64(const char *what, const char *arg, uint64_t min, uint64_t max,
		 uint64_t *v)
{
	int err = thp_arg_u64(arg, min, max, v);
	char range[64] = "";

	if (max < UINT64_MAX)
		snprintf(range, sizeof(range), " (%" PRIu64 " to %" PRIu64 ")", min, max);
	if (err == -ERANGE && max == UINT64_MAX)
		thp_err("%s '%s' is too large for 64 bits", what, arg);
	else if (err == -ERANGE)
		thp_err("%s '%s' is out of range%s", what, arg, range);
	else if (err)
		thp_err("%s '%s' is not a whole number in decimal%s", what, arg, range);
	return !err;
}

bool thp_opt_int(const char *what, const char *arg, int min, int max, int *v)
{
	uint64_t x;

	if (!thp_opt_u64(what, arg, (uint64_t)min, (uint64_t)max, &x))
		return false;
	*v = (int)x;
	return true;
}

bool thp_opt_decimal(const char *what, const char *arg, const char *unit, double min,
		     double max, double *v)
{
	int err = thp_arg_decimal(arg, THP_ARG_DECIMALS, min, max, v);

	if (err == -ERANGE)
		thp_err("%s '%s' is out of range (%g to %g %s)", what, arg, min, max, unit);
	else if (err)
		thp_err("%s '%s' is not a number of %s in decimal such as 2 or 0.5 (%g to %g)", what,
			arg, unit, min, max);
	return !err;
}

bool thp_opt_size(const char *what, const char *arg, uint64_t min, uint64_t max,
		  const char *max_is, uint64_t *v)
{
	int err = thp_arg_size(arg, min, max, v);
	char a[32], b[32];

	if (err == -ERANGE && max == UINT64_MAX)
		thp_err("%s '%s' is too large for 64 bits", what, arg);
	else if (err == -ERANGE)
		thp_err("%s '%s' is out of range (%s to %s%s%s)", what, arg,
			out_size(a, sizeof(a), min, false), out_size(b, sizeof(b), max, false),
			max_is ? ", " : "", max_is ? max_is : "");
	else if (err)
		thp_err("%s '%s' is not a size such as 4096, 64K, 2M or 1G", what, arg);
	return !err;
}

bool thp_opt_percent(const char *what, const char *arg, unsigned max_bp, unsigned *bp)
{
	int err = thp_arg_percent(arg, max_bp, bp);

	if (err == -ERANGE)
		thp_err("%s '%s' is out of range (0%% to %u%%)", what, arg, max_bp / 100);
	else if (err)
		thp_err("%s '%s' is not a percentage such as 5%% or 2.5 (at most two decimals)", what,
			arg);
	return !err;
}

/* The entry of LO that the long option NAME (LEN characters, maybe
 * abbreviated) names, or NULL; *AMBIGUOUS tells whether it names several. */
static const struct option *long_opt(const struct option *lo, const char *name, size_t len,
				     bool *ambiguous)
{
	const struct option *found = NULL;

	*ambiguous = false;
	for (; lo && lo->name; lo++) {
		if (strncmp(lo->name, name, len) != 0)
			continue;
		if (strlen(lo->name) == len)
			return lo;
		if (found && found->val != lo->val)
			*ambiguous = true;
		found = found ? found : lo;
	}
	return *ambiguous ? NULL : found;
}

/* Says what getopt_long found wrong (C is '?' or ':') in ARGV. */
static void opt_error(int c, char **argv, const struct option *lo)
{
	const char *el = optind > 0 ? argv[optind - 1] : NULL;
	const struct option *o = NULL;
	bool ambiguous = false;
	size_t len;

	if (el && strncmp(el, "--", 2) == 0 && el[2]) {
		len = strcspn(el + 2, "=");
		o = long_opt(lo, el + 2, len, &ambiguous);
		if (!optopt) {
			thp_err("%s option '--%.*s'", ambiguous ? "ambiguous" : "unknown",
				(int)len, el + 2);
			return;
		}
	}
	/* optopt names the letter of a short option, or the long option of EL */
	if (o && o->val == optopt && c == ':')
		thp_err("option '--%s' needs an argument", o->name);
	else if (o && o->val == optopt && o->has_arg == no_argument && strchr(el, '='))
		thp_err("option '--%s' takes no argument", o->name);
	else if (c == ':')
		thp_err("option '-%c' needs an argument", optopt);
	else
		thp_err("unknown option '-%c'", optopt);
}

int thp_getopt(int argc, char **argv, const char *opts, const struct option *lo)
{
	char spec[128];
	int c;

	/* a leading ':' (after a '+') makes getopt return ':' for a missing argument */
	if (opts[0] == '+')
		snprintf(spec, sizeof(spec), "+:%s", opts + 1);
	else
		snprintf(spec, sizeof(spec), ":%s", opts);
	opterr = 0;
	c = getopt_long(argc, argv, spec, lo, NULL);
	if (c != '?' && c != ':')
		return c;
	opt_error(c, argv, lo);
	return '?';
}

/* The most command names or processes --top exports */
#define TOP_MAX 100000

int thp_metrics_opt(int c, const char *arg, struct thp_metrics_opts *o)
{
	static bool compat_said; /* once however often it is given */

	switch (c) {
	case 't':
		return thp_opt_int("--top", arg, 0, TOP_MAX, &o->top) ? 0 : 2;
	case THP_OPT_PIDS: o->pids = true; return 0;
	case THP_OPT_NODE_EXPORTER_COMPAT:
		if (!compat_said)
			thp_err("--node-exporter-compat is deprecated and does nothing: the /proc/meminfo "
				"families are always exported");
		compat_said = true;
		return 0;
	case THP_OPT_NO_DOCTOR: o->doctor = false; return 0;
	default: return 1;
	}
}

int modes_parse(const char *list, const char *const *allowed, struct modes *m)
{
	const char *p = list;

	m->n = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		bool ok = false;

		for (int i = 0; allowed[i] && n; i++)
			ok |= strlen(allowed[i]) == n && strncmp(allowed[i], p, n) == 0;
		if (!ok || m->n >= MODES_MAX) {
			char choices[128] = "";
			for (int i = 0; allowed[i]; i++)
				snprintf(choices + strlen(choices), sizeof(choices) - strlen(choices),
					 "%s%s", i ? ", " : "", allowed[i]);
			thp_err("invalid mode '%.*s' (choose from: %s)", (int)n, p, choices);
			return 2;
		}
		for (int i = 0; i < m->n; i++) {
			if (strlen(m->word[i]) == n && strncmp(m->word[i], p, n) == 0) {
				thp_err("mode '%.*s' given twice", (int)n, p);
				return 2;
			}
		}
		memcpy(m->word[m->n], p, n);
		m->word[m->n++][n] = '\0';
		p += n + (p[n] == ',');
	}
	if (!m->n) {
		thp_err("empty mode list");
		return 2;
	}
	return 0;
}
