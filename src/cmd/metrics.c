/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.c - `thp metrics`: the host's THP state in the Prometheus text format */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../control/control.h"
#include "../render/prom.h"
#include "cmd.h"
#include "opt.h"

static const struct thp_opt opts[] = {
	THP_OPTS_METRICS,
	THP_OPT_LONG('o', "textfile", "PATH", "write to PATH atomically (for node_exporter's textfile\n"
					      "collector) instead of standard output"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] metrics [options]\n"
		 "\n"
		 "Print THP policy, khugepaged, counters, static pools, buddyinfo free blocks, the\n"
		 "command names holding the most THP and the doctor's findings in the Prometheus\n"
		 "text format.",
	.width = 24,
	.opts = opts,
	.in_order = true,
};

/* Writes the metrics ARG (struct thp_metrics) to the file FD. */
static int fill_textfile(int fd, void *arg)
{
	int dup_fd = dup(fd), err = 0;
	FILE *f = dup_fd < 0 ? NULL : fdopen(dup_fd, "w");

	if (!f) {
		err = -errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return err;
	}
	out_prom_host(f, arg);
	if (fflush(f) != 0)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	return err;
}

/* Writes the metrics M to PATH, readable by everyone (node_exporter), through a
 * temporary file in the same directory and a rename, so a reader never sees a
 * partial file. Returns 0 or -errno. */
static int write_textfile(struct thp_metrics *m, const char *path)
{
	const char *name;
	int dir = thp_file_dir(path, &name), err;

	if (dir < 0)
		return dir;
	err = thp_file_write_with(dir, name, 0644, fill_textfile, m);
	close(dir);
	return err;
}

int cmd_metrics(struct thp_ctx *ctx, int argc, char **argv)
{
	struct thp_metrics_opts o = THP_METRICS_OPTS_INIT;
	struct thp_metrics m;
	const char *textfile = NULL;
	int c, err;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'o': textfile = optarg; break;
		default:
			if (c < 0 || thp_metrics_opt(c, optarg, &o))
				return thp_opt_exit(ctx, c);
		}
	}
	if (optind < argc) {
		thp_err("unexpected argument '%s'", argv[optind]);
		return thp_usage_error("metrics");
	}
	if (ctx->json) {
		thp_err("the output is the Prometheus text format; --json does not apply");
		return thp_usage_error("metrics");
	}
	err = thp_metrics_read(&ctx->root, &o, &m);
	if (err)
		thp_err("%s", strerror(-err));
	else if (textfile && (err = write_textfile(&m, textfile)) != 0)
		thp_err("cannot write '%s': %s", textfile, thp_file_strerror(err));
	else if (!textfile)
		out_prom_host(stdout, &m);
	if (!err && m.procs_err) {
		thp_procs_unlisted(&ctx->root, m.procs_err, "the per-process metrics are left out");
		err = m.procs_err;
	}
	thp_metrics_free(&m);
	return err ? 1 : 0;
}
