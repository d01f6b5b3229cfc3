/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.c - `thp metrics`: the host's THP state in the Prometheus text format */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/buddyinfo.h"
#include "../core/hugetlb.h"
#include "../core/status.h"
#include "../core/top.h"
#include "../render/prom.h"
#include "cmd.h"

#define TOP_MAX 100000

const char thp_metrics_opts_help[] =
	"  -t, --top N           export AnonHugePages of the N command names holding the\n"
	"                        most, summed over their processes (default 20; 0: none)\n"
	"      --pids            one series per process (labels pid and comm) instead of\n"
	"                        one per command name\n"
	"      --no-doctor       leave out the doctor's findings and persistence drift\n"
	"                        (then no process is read beyond the --top scan)\n";

static void usage(void)
{
	printf("Usage: thp [--root DIR] metrics [options]\n"
	       "\n"
	       "Print THP policy, khugepaged, counters, static pools, buddyinfo free blocks, the\n"
	       "command names holding the most THP and the doctor's findings in the Prometheus\n"
	       "text format.\n"
	       "\n"
	       "Options:\n"
	       "%s"
	       "  -o, --textfile PATH   write to PATH atomically (for node_exporter's textfile\n"
	       "                        collector) instead of standard output\n"
	       "  -h, --help            show this help\n", thp_metrics_opts_help);
}

int thp_metrics_opt(int c, const char *arg, struct thp_metrics_opts *o)
{
	switch (c) {
	case 't':
		return thp_opt_int("--top", arg, 0, TOP_MAX, &o->top) ? 0 : 2;
	case THP_OPT_PIDS: o->pids = true; return 0;
	case THP_OPT_NODE_EXPORTER_COMPAT:
		thp_err("--node-exporter-compat is deprecated and does nothing: the /proc/meminfo "
			"families are always exported");
		return 0;
	case THP_OPT_NO_DOCTOR: o->doctor = false; return 0;
	default: return 1;
	}
}

/* The top entries of O into T from the processes H read (with the doctor),
 * or, without H, from a scan of their smaps_rollup; none when the host holds
 * no PMD-mapped anonymous THP at all (then no process can rank). */
static int read_top(const struct thp_root *root, const struct thp_status *st, const struct thp_host *h,
		    const struct thp_metrics_opts *o, struct thp_top *t)
{
	struct thp_top_entry *v;
	uint64_t huge;
	int n = 0, err;

	if (!st->meminfo_err && thp_counter_get(st->meminfo, st->nmeminfo, "AnonHugePages", &huge) &&
	    huge == 0)
		return 0;
	if (!h)
		return o->pids ? thp_top_anon_huge(root, o->top, t) : thp_top_by_comm(root, o->top, t);
	v = calloc((size_t)h->rollups.with_huge + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < h->nprocs && n < h->rollups.with_huge; i++) {
		const struct thp_host_proc *p = &h->procs[i];
		if (!p->has_rollup || !p->r.anon_huge)
			continue;
		v[n] = (struct thp_top_entry){ .pid = p->ps.pid, .nprocs = 1, .anon_huge = p->r.anon_huge };
		memcpy(v[n].comm, p->comm, sizeof(v[n].comm));
		n++;
	}
	err = thp_top_rank(v, n, o->top, !o->pids, t);
	free(v);
	t->readable = h->rollups.readable;
	t->unreadable = h->rollups.unreadable.n;
	return err;
}

int thp_metrics_write(const struct thp_root *root, const struct thp_metrics_opts *o, FILE *f)
{
	struct out_prom_host m = { .pids = o->pids };
	struct thp_diagnosis d = { 0 };
	struct thp_status *st = NULL;
	struct thp_buddyinfo *b = NULL;
	struct thp_hugetlb *h = NULL;
	struct thp_top t = { 0 };
	int err = 0;

	if (o->doctor) {
		err = thp_diagnose(root, 0, NULL, NULL, &d);
		m.st = d.st;
		m.buddy = d.h.buddy_err ? NULL : d.h.buddy;
		m.hugetlb = d.h.hugetlb;
		m.findings = d.r;
		m.persist = &d.h.persist;
	} else if ((st = malloc(sizeof(*st))) && (b = malloc(sizeof(*b))) && (h = malloc(sizeof(*h)))) {
		thp_status_read(root, st, false);
		m.st = st;
		m.buddy = thp_buddyinfo_read(root, b) ? NULL : b;
		thp_hugetlb_read(root, h);
		m.hugetlb = h;
	} else {
		err = -ENOMEM;
	}
	if (!err && o->top > 0) {
		err = read_top(root, m.st, o->doctor ? &d.h : NULL, o, &t);
		m.top = err ? NULL : &t;
	}
	if (err != -ENOMEM)
		out_prom_host(f, &m);
	thp_top_free(&t);
	thp_diagnosis_free(&d);
	free(st);
	free(b);
	free(h);
	return err == -ENOMEM ? err : 0;
}

struct textfile {
	const struct thp_root *root;
	const struct thp_metrics_opts *o;
};

static int fill_textfile(int fd, void *arg)
{
	const struct textfile *t = arg;
	int dup_fd = dup(fd), err;
	FILE *f = dup_fd < 0 ? NULL : fdopen(dup_fd, "w");

	if (!f) {
		err = -errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return err;
	}
	err = thp_metrics_write(t->root, t->o, f);
	if (fflush(f) != 0 && !err)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	return err;
}

/* Writes the metrics to PATH, readable by everyone (node_exporter), through a
 * temporary file in the same directory and a rename, so a reader never sees a
 * partial file. Returns 0 or -errno. */
static int write_textfile(const struct thp_root *root, const struct thp_metrics_opts *o,
			  const char *path)
{
	struct textfile t = { root, o };
	const char *name;
	int dir = thp_file_dir(path, &name), err;

	if (dir < 0)
		return dir;
	err = thp_file_write_with(dir, name, 0644, fill_textfile, &t);
	close(dir);
	return err;
}

int cmd_metrics(struct thp_ctx *ctx, int argc, char **argv)
{
	static const struct option lo[] = {
		THP_METRICS_LONGOPTS,
		{ "textfile", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct thp_metrics_opts o = THP_METRICS_OPTS_INIT;
	const char *textfile = NULL;
	int c, err;

	optind = 0;
	while ((c = thp_getopt(argc, argv, "+" THP_METRICS_SHORTOPTS "o:h", lo)) != -1) {
		switch (c) {
		case 'o': textfile = optarg; break;
		case 'h': usage(); return 0;
		default:
			if (thp_metrics_opt(c, optarg, &o))
				return thp_usage_error("metrics");
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
	if (textfile) {
		err = write_textfile(&ctx->root, &o, textfile);
		if (err) {
			thp_err("cannot write '%s': %s", textfile, thp_file_strerror(err));
			return 1;
		}
		return 0;
	}
	err = thp_metrics_write(&ctx->root, &o, stdout);
	if (err) {
		thp_err("%s", strerror(-err));
		return 1;
	}
	return 0;
}
