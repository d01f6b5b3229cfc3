/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.c - `thp metrics`: the host's THP state in the Prometheus text format */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/buddyinfo.h"
#include "../core/status.h"
#include "../core/top.h"
#include "../render/prom.h"
#include "cmd.h"

#define TOP_MAX 100000

static void usage(void)
{
	puts("Usage: thp [--root DIR] metrics [options]\n"
	     "\n"
	     "Print THP policy, khugepaged, counters, meminfo and hugetlb gauges, buddyinfo\n"
	     "free blocks and the processes holding the most THP in the Prometheus text format.\n"
	     "\n"
	     "Options:\n"
	     "  -t, --top N           export AnonHugePages of the N processes holding the most\n"
	     "                        (default 20; 0: no per-process metrics)\n"
	     "  -o, --textfile PATH   write to PATH atomically (for node_exporter's textfile\n"
	     "                        collector) instead of standard output\n"
	     "  -h, --help            show this help");
}

int thp_metrics_write(const struct thp_root *root, int top, FILE *f)
{
	struct thp_status *st = malloc(sizeof(*st));
	struct thp_buddyinfo *b = malloc(sizeof(*b));
	struct thp_top t = { 0 };
	uint64_t huge;
	int err = 0;

	if (!st || !b) {
		free(st);
		free(b);
		return -ENOMEM;
	}
	thp_status_read(root, st, false);
	int berr = thp_buddyinfo_read(root, b);
	/* with no PMD-mapped anonymous THP at all, no process can rank: skip the scan */
	if (top > 0 && !(!st->meminfo_err &&
			 thp_counter_get(st->meminfo, st->nmeminfo, "AnonHugePages", &huge) && huge == 0))
		err = thp_top_anon_huge(root, top, &t);
	if (err != -ENOMEM)
		out_prom_host(f, st, berr ? NULL : b, top > 0 && !err ? &t : NULL);
	thp_top_free(&t);
	free(st);
	free(b);
	return err == -ENOMEM ? err : 0;
}

/* Writes the metrics to PATH through a temporary file in the same directory
 * and a rename, so a reader never sees a partial file. Returns 0 or -errno. */
static int write_textfile(const struct thp_root *root, int top, const char *path)
{
	char tmp[4200];
	FILE *f;
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	err = thp_metrics_write(root, top, f);
	if (!err && (fflush(f) || fchmod(fd, 0644) || fsync(fd)))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* Parses --top: 0 to TOP_MAX. */
bool thp_parse_top(const char *s, int *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < 0 || n > TOP_MAX)
		return false;
	*v = (int)n;
	return true;
}

int cmd_metrics(struct thp_ctx *ctx, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "top", required_argument, NULL, 't' },
		{ "textfile", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *textfile = NULL;
	int c, err, top = 20;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+t:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!thp_parse_top(optarg, &top)) {
				thp_err("metrics: invalid --top '%s' (0 to %d)", optarg, TOP_MAX);
				return thp_usage_error("metrics");
			}
			break;
		case 'o': textfile = optarg; break;
		case 'h': usage(); return 0;
		default: return thp_usage_error("metrics");
		}
	}
	if (optind < argc) {
		thp_err("metrics: unexpected argument '%s'", argv[optind]);
		return thp_usage_error("metrics");
	}
	if (ctx->json) {
		thp_err("metrics: the output is the Prometheus text format; --json does not apply");
		return thp_usage_error("metrics");
	}
	if (textfile) {
		err = write_textfile(&ctx->root, top, textfile);
		if (err) {
			thp_err("cannot write '%s': %s", textfile, strerror(-err));
			return 1;
		}
		return 0;
	}
	err = thp_metrics_write(&ctx->root, top, stdout);
	if (err) {
		thp_err("metrics: %s", strerror(-err));
		return 1;
	}
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
