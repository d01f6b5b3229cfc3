/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status.c - `thp status`: is THP on, for every layer, and what has it done since boot */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "../core/doctor.h"
#include "../core/status.h"
#include "../render/render.h"
#include "../render/status.h"
#include "cmd.h"
#include "opt.h"

struct opts {
	bool bytes;
	bool procs;
	bool features; /* --features: only the feature table */
};

enum { O_NO_PROCS = 0x100, O_FEATURES };

static const struct thp_opt opts[] = {
	THP_OPT_JSON("one JSON document (sizes in bytes)"),
	THP_OPT('b', "bytes", NULL, "print sizes in bytes"),
	THP_OPT_LONG(O_NO_PROCS, "no-procs", NULL, "do not scan processes for the verdict"),
	THP_OPT_LONG(O_FEATURES, "features", NULL, "only the kernel's THP features, and since which Linux"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] status [options]\n"
		 "\n"
		 "Show the whole THP state of the host: a verdict in plain words, then the kernel,\n"
		 "global and per-size policy, khugepaged, counters since boot, and boot settings.",
	.width = 20,
	.opts = opts,
	.in_order = true,
};

/* --features: prints the kernel's THP features the root shows, and since
 * which Linux. Returns the exit status. */
static int features_show(const struct thp_ctx *ctx)
{
	struct thp_status *st = calloc(1, sizeof(*st));
	int n = st ? thp_status_read(&ctx->root, st, false) : -ENOMEM;

	if (n < 0) {
		free(st);
		thp_err("cannot read the kernel state: %s", thp_strerror(n));
		return 1;
	}
	n = thp_features_print(&ctx->root, st, ctx->json);
	free(st);
	return n;
}

int cmd_status(struct thp_ctx *ctx, int argc, char **argv)
{
	struct opts o = { .procs = true };
	struct thp_status_extra *x;
	struct thp_status *st;
	int c, rc;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'b': o.bytes = true; break;
		case O_NO_PROCS: o.procs = false; break;
		case O_FEATURES: o.features = true; break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	if (optind < argc) {
		thp_err("unexpected argument '%s'", argv[optind]);
		return thp_usage_error("status");
	}
	if (o.features)
		return features_show(ctx);
	st = malloc(sizeof(*st));
	if (!st) {
		thp_err("out of memory");
		return 1;
	}
	thp_status_read(&ctx->root, st, o.procs);
	x = thp_status_extra_read(&ctx->root, st);
	if (x) {
		out_doc_begin(ctx->json, o.bytes, THP_STATUS_SCHEMA);
		thp_status_print(&ctx->root, st, x);
		rc = out_doc_end() ? 1 : 0;
		if (st->procs.err) {
			thp_procs_unlisted(&ctx->root, st->procs.err, "the processes holding huge pages are not shown");
			rc = 1;
		}
	} else {
		thp_err("out of memory");
		rc = 1;
	}
	free(x);
	free(st);
	return rc;
}
