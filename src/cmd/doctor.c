/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doctor.c - `thp doctor`: findings with evidence and the exact fix, most severe first */
#include <getopt.h>
#include <stdio.h>

#include "../core/doctor.h"
#include "../render/doctor.h"
#include "../render/render.h"
#include "../render/term.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

#define SAMPLE_MAX 3600

static const struct thp_opt opts[] = {
	THP_OPT_ROOT("DIR", "read a capture made by 'thp capture' (as the global\noption)"),
	THP_OPT_LONG('s', "severity", "LEVEL", "info, warn or crit (default): the level that makes\nexit 3"),
	THP_OPT('S', "sample", "SECONDS", "read the counters twice, SECONDS apart, for rates now"),
	THP_OPT_JSON("one JSON document (sizes in bytes)"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] doctor [options]\n"
		 "\n"
		 "Check the host (or a capture) for THP problems and print findings, most severe\n"
		 "first: what is wrong, the evidence, why it matters, and the commands that fix\n"
		 "it.\n"
		 "Exits 3 when a finding at or above --severity exists, 0 otherwise.",
	.width = 24,
	.opts = opts,
	.in_order = true,
};

/* The progress line while the counters are sampled (thp_diagnose's TICK):
 * shown on a terminal unless the output is JSON. */
struct sampling {
	struct out_progress p;
	bool started, progress;
	double secs;
};

static void sample_tick(bool done, void *arg)
{
	struct sampling *s = arg;

	if (!s->started) {
		out_progress_init(&s->p);
		s->p.tty = s->p.tty && s->progress;
		s->started = true;
	}
	if (done)
		out_progress_end(&s->p);
	else
		out_progress_say(&s->p, "doctor", "sampling the counters for %g s", s->secs);
}

int cmd_doctor(struct thp_ctx *ctx, int argc, char **argv)
{
	enum thp_severity min = THP_SEV_CRIT;
	struct thp_diagnosis d;
	struct sampling sampling = { 0 };
	double sample = 0;
	int c, rc = 1;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 's':
			if (thp_severity_parse(optarg, &min)) {
				thp_err("invalid --severity '%s' (info, warn or crit)", optarg);
				return thp_usage_error("doctor");
			}
			break;
		case 'S':
			if (!thp_opt_decimal("--sample", optarg, "seconds", 0.01, SAMPLE_MAX, &sample))
				return thp_usage_error("doctor");
			break;
		case 'R':
			if (thp_ctx_root(ctx, optarg))
				return 1;
			break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	if (optind < argc) {
		thp_err("unexpected argument '%s'", argv[optind]);
		return thp_usage_error("doctor");
	}
	if (sample > 0 && thp_live_only(ctx, "--sample"))
		return 2;
	sampling.progress = !ctx->json;
	sampling.secs = sample;
	if (thp_diagnose(&ctx->root, sample, sample_tick, &sampling, &d)) {
		thp_err("out of memory");
	} else {
		rc = thp_doctor_exit(d.r, min);
		out_doc_begin(ctx->json, false, THP_DOCTOR_SCHEMA);
		thp_doctor_print(&ctx->root, &d, min, rc);
		rc = out_doc_end() ? 1 : rc;
		if (d.h.rollups.err) {
			thp_procs_unlisted(&ctx->root, d.h.rollups.err, "the findings may miss processes");
			rc = 1;
		}
	}
	thp_diagnosis_free(&d);
	return rc;
}
