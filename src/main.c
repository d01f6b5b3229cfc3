/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - global options and the command table */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opt.h"
#include "cmd/target.h"
#include "render/render.h"
#include "render/term.h"

#ifndef THP_VERSION
#define THP_VERSION "0.0.0"
#endif

static int cmd_help(struct thp_ctx *ctx, int argc, char **argv);

/* What main enforces before a command runs (not for 'CMD --help'):
 * LIVE_ONLY  works on the running kernel and this machine: refuses --root (exit 2);
 * NEEDS_ROOT needs root on the live host: once its options parse (usage errors
 *            come first) the command asks thp_need_root(), which refuses (exit 1);
 * WRITES     may change the host: before its first change on the live host the
 *            command asks thp_need_root(), which refuses without root (exit 1);
 * OWN_INPUT  reads only the files named on its command line: refuses --root (exit 2). */
enum { LIVE_ONLY = 1, NEEDS_ROOT = 2, WRITES = 4, OWN_INPUT = 8 };

/* Global options without a short letter. */
enum { OPT_COLOR = 0x100, OPT_ASCII };

static const struct command {
	const char *name;
	thp_cmd_fn fn;
	unsigned flags;
	const char *summary;
} commands[] = {
	{ "status", cmd_status, 0, "is THP on? every layer of policy, and counters since boot" },
	{ "exec", cmd_exec, LIVE_ONLY, "run a command with THP disabled, enabled where advised, or enabled" },
	{ "collapse", cmd_collapse, LIVE_ONLY, "collapse a running process's memory into huge pages now" },
	{ "hugetlb", cmd_hugetlb, WRITES, "static huge page pools: sizes, NUMA nodes, users; set and plan" },
	{ "ps", cmd_ps, 0, "which processes hold huge pages, and what share of their memory" },
	{ "show", cmd_show, 0, "one process: each mapping, and why it has huge pages or not" },
	{ "capture", cmd_capture, 0, "record the files thp reads, for 'thp --root DIR' elsewhere" },
	{ "set", cmd_set, WRITES, "change THP settings safely (checked, read back, rolled back)" },
	{ "restore", cmd_restore, WRITES, "put back the settings saved before the last 'thp set'" },
	{ "diff", cmd_diff, 0, "compare the settings with a saved state or another root" },
	{ "persist", cmd_persist, WRITES, "keep the settings across reboot, or check what is kept" },
	{ "watch", cmd_watch, 0, "fault, compaction, khugepaged and split rates per interval" },
	{ "doctor", cmd_doctor, 0, "what is wrong with THP on this host, the evidence, and the fix" },
	{ "trace", cmd_trace, LIVE_ONLY | NEEDS_ROOT, "how long threads stall in compaction and reclaim" },
	{ "bench", cmd_bench, LIVE_ONLY | WRITES, "measure one THP mechanism: fault, bloat, cow, collapse, ..." },
	{ "ab", cmd_ab, LIVE_ONLY | WRITES, "A/B a command across THP modes: time, RSS, faults, huge pages" },
	{ "metrics", cmd_metrics, 0, "THP state in the Prometheus text format" },
	{ "serve", cmd_serve, 0, "serve 'thp metrics' over HTTP for Prometheus" },
	{ "report", cmd_report, OWN_INPUT, "many hosts in one table, from their JSON or captures" },
	{ "help", cmd_help, 0, "show help for thp or for one command" },
};

/* The commands, one line each. */
static void commands_help(void)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %-10s %s%s\n", commands[i].name, commands[i].summary,
		       commands[i].flags & NEEDS_ROOT ? " (root)" : "");
}

static void more_help(void)
{
	puts("\n'thp COMMAND --help' shows the options of a command; 'man thp' tells more.");
}

static const struct thp_opt opts[] = {
	THP_OPT_ROOT("DIR|FILE", "read /proc and /sys of a 'thp capture' (a directory or\n"
				 "an archive) instead of the running host's"),
	THP_OPT_LONG('R', "sysroot", "DIR", "the same as --root"),
	THP_OPT_JSON("JSON output"),
	THP_OPT_LONG(OPT_COLOR, "color", "[=WHEN]", "colour severities and states that are off; WHEN is auto\n"
						    "(the default: on a terminal, unless NO_COLOR is set),\n"
						    "always or never"),
	THP_OPT_LONG(OPT_ASCII, "ascii", NULL, "draw charts with '#' instead of Unicode blocks"),
	THP_OPT_HELP,
	THP_OPT('V', "version", NULL, "show the version"),
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] [--json] [--color[=WHEN]] [--ascii] [COMMAND [OPTIONS]]\n"
		 "\n"
		 "Transparent Huge Pages: is THP on, who has huge pages, why not, what it costs,\n"
		 "and how to change it safely. Without a command, 'thp status' runs.\n"
		 "\n"
		 "Commands:",
	.more = commands_help,
	.title = "Global options:",
	.width = 23,
	.opts = opts,
	.after = more_help,
	.in_order = true,
};

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int cmd_help(struct thp_ctx *ctx, int argc, char **argv)
{
	const struct command *c;
	char *hargv[] = { NULL, "--help", NULL };

	c = argc < 2 ? NULL : find(argv[1]);
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || (c && c->fn == cmd_help)) {
		thp_opt_usage(&decl);
		return 0;
	}
	if (!c) {
		thp_err("'%s' is not a thp command; see 'thp --help'", argv[1]);
		return 2;
	}
	hargv[0] = argv[1];
	ctx->cmd = c->name;
	thp_err_cmd(c->name);
	return c->fn(ctx, 2, hargv);
}

/* Whether ARGV asks only for the command's help, which every command gives
 * wherever and by whomever it runs. */
static bool help_only(int argc, char **argv)
{
	return argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);
}

/* Enforces the rules of command C (its flags) for CTX. Returns 0, or the exit
 * status after saying why C cannot run here. */
static int check_rules(const struct command *c, const struct thp_ctx *ctx)
{
	if ((c->flags & LIVE_ONLY) && thp_live_only(ctx, NULL))
		return 2;
	if ((c->flags & OWN_INPUT) && !ctx->root.live) {
		thp_err("reads the files it is given; --root does not apply to it");
		return thp_usage_error(c->name);
	}
	return 0;
}

/* Runs command C (or --version without one) and then the one check of
 * stdout. Returns the exit status. */
static int run(const struct command *c, struct thp_ctx *ctx, int argc, char **argv)
{
	int rc = 0;

	ctx->cmd = c ? c->name : "version";
	thp_err_cmd(c ? c->name : NULL);
	ctx->writes = c && (c->flags & WRITES);
	if (c && !help_only(argc, argv))
		rc = check_rules(c, ctx);
	if (!rc)
		rc = c ? c->fn(ctx, argc, argv) : thp_version(ctx, THP_VERSION);
	return thp_stdout_done(rc);
}

int main(int argc, char **argv)
{
	int color = OUT_COLOR_AUTO;
	struct thp_ctx ctx = { .root = { .fd = -1 }, .rootarg = { .keeper = -1 } };
	const char *rootdir = "/";
	char *def[] = { "status", NULL };
	const struct command *cmd = NULL;
	bool version = false;
	int c, rc;

	while ((c = thp_opt_next(&ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'R': rootdir = optarg; break;
		case THP_OPT_HELP_DONE: return thp_stdout_done(0);
		case 'V': version = true; break;
		case OPT_COLOR:
			if (optarg && (color = out_color_parse(optarg)) < 0) {
				thp_err("unknown --color value '%s'", optarg);
				fputs("Try 'thp --help' for more information.\n", stderr);
				return 2;
			}
			break;
		case OPT_ASCII: out_draw_force_ascii(); break;
		default: fputs("Try 'thp --help' for more information.\n", stderr); return 2;
		}
	}
	out_color_init((enum out_color_mode)color);
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		argc = 1;
		argv = def;
	}
	cmd = version ? NULL : find(argv[0]);
	if (!version && !cmd) {
		thp_err("'%s' is not a thp command; see 'thp --help'", argv[0]);
		return 2;
	}
	if (thp_ctx_root(&ctx, rootdir))
		return 1;
	rc = run(cmd, &ctx, argc, argv);
	thp_rootarg_close(&ctx.root, &ctx.rootarg);
	return rc;
}
