/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exec.c - `thp exec`: run a command with THP disabled, enabled only where it
 * asks (MADV_HUGEPAGE), or re-enabled; the mode is inherited by its children */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../control/control.h"
#include "../render/render.h"
#include "cmd.h"
#include "opt.h"

/* Exit statuses of env(1), nice(1) and timeout(1): thp itself failed, the
 * command was found but could not run, the command was not found. */
#define EXIT_FAILED 125
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127

static const struct thp_opt opts[] = {
	THP_OPT_LONG('d', "disable", NULL, "no THP at all, MADV_COLLAPSE refused too (the default)"),
	THP_OPT_LONG('a', "except-advised", NULL, "THP only in ranges the program marks MADV_HUGEPAGE\n"
						  "(Linux 6.18+)"),
	THP_OPT_LONG('e', "enable", NULL, "clear a disable inherited from the parent"),
	THP_OPT_LONG('s', "status", NULL, "print the mode this process inherited, and exit"),
	THP_OPT_JSON("--status as JSON"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp exec [--disable | --except-advised | --enable] [--] COMMAND [ARG...]\n"
		 "       thp exec --status [--json]\n"
		 "\n"
		 "Set the THP mode of this process with prctl(PR_SET_THP_DISABLE), then run\n"
		 "COMMAND in its place (same PID). Every process COMMAND starts inherits the mode.\n"
		 "The exit status is COMMAND's; 125 when the mode cannot be set, 126 when COMMAND\n"
		 "cannot run, 127 when it is not found.",
	.width = 24,
	.opts = opts,
	.in_order = true,
};

static const char *mode_name(int mode)
{
	switch (mode) {
	case THP_MODE_ENABLED: return "enabled";
	case THP_MODE_DISABLED: return "disabled";
	case THP_MODE_EXCEPT_ADVISED: return "except-advised";
	default: return "unknown";
	}
}

/* The option that selects MODE, for messages. */
static const char *mode_option(enum thp_mode mode)
{
	return mode == THP_MODE_ENABLED ? "--enable"
	       : mode == THP_MODE_EXCEPT_ADVISED ? "--except-advised" : "--disable";
}

static const char *mode_meaning(int mode)
{
	switch (mode) {
	case THP_MODE_ENABLED: return "THP as the host policy allows";
	case THP_MODE_DISABLED: return "no THP for this process and its children; MADV_COLLAPSE is refused";
	case THP_MODE_EXCEPT_ADVISED: return "THP only in ranges marked MADV_HUGEPAGE";
	default: return "a mode this version of thp does not know";
	}
}

static int status(const struct thp_ctx *ctx)
{
	int mode = thp_mode_get();

	if (mode < 0) {
		thp_err("cannot read the THP mode: %s (PR_GET_THP_DISABLE needs Linux 3.15+)",
			strerror(-mode));
		return 1;
	}
	out_doc_begin(ctx->json, false, "thp-exec-status/1");
	out_put(OUT_ANY, "mode", "%s: ", ov_str(mode_name(mode)));
	out_put(OUT_JSON, "prctl", NULL, ov_int(mode));
	out_put(OUT_ANY, "meaning", "%s\n", ov_str(mode_meaning(mode)));
	return out_doc_end() ? 1 : 0;
}

/* Sets MODE and reads it back. Returns 0, or prints why and returns 125. */
static int set_mode(enum thp_mode mode, const char *opt)
{
	struct utsname u;
	int err = thp_mode_set(mode), got;

	if (err == -EINVAL && mode == THP_MODE_EXCEPT_ADVISED) {
		thp_err("%s needs Linux 6.18+ (PR_THP_DISABLE_EXCEPT_ADVISED); this kernel is %s",
			opt, uname(&u) == 0 ? u.release : "older");
		return EXIT_FAILED;
	}
	if (err) {
		thp_err("cannot set the THP mode (%s): %s", opt, strerror(-err));
		return EXIT_FAILED;
	}
	got = thp_mode_get();
	if (got != (int)mode) {
		thp_err("the THP mode reads back as '%s', not '%s'",
			got < 0 ? strerror(-got) : mode_name(got), mode_name((int)mode));
		return EXIT_FAILED;
	}
	return 0;
}

int cmd_exec(struct thp_ctx *ctx, int argc, char **argv)
{
	enum thp_mode mode = THP_MODE_DISABLED;
	const char *opt = NULL;
	int c, rc;
	bool show = false, clash = false;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'd':
		case 'a':
		case 'e': {
			enum thp_mode m = c == 'd'   ? THP_MODE_DISABLED
					  : c == 'a' ? THP_MODE_EXCEPT_ADVISED
						     : THP_MODE_ENABLED;
			clash |= opt && m != mode;
			mode = m;
			opt = mode_option(m);
			break;
		}
		case 's': show = true; break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	if (clash) {
		thp_err("give one of --disable, --except-advised, --enable");
		return thp_usage_error("exec");
	}
	if (show) {
		if (opt || optind < argc) {
			thp_err("--status takes no mode and no command");
			return thp_usage_error("exec");
		}
		return status(ctx);
	}
	if (optind >= argc) {
		thp_err("no command to run");
		return thp_usage_error("exec");
	}
	rc = set_mode(mode, mode_option(mode));
	if (rc)
		return rc;
	fflush(NULL);
	execvp(argv[optind], argv + optind);
	rc = errno;
	thp_err("cannot run '%s': %s", argv[optind], strerror(rc));
	return rc == ENOENT || rc == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}
