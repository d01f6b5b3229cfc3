/* SPDX-License-Identifier: GPL-2.0-or-later */
/* collapse.c - `thp collapse PID`: collapse a running process's memory into
 * huge pages now, per range, with process_madvise(MADV_COLLAPSE) */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../control/control.h"
#include "../core/collapse.h"
#include "../core/parse.h"
#include "../core/status.h"
#include "../render/render.h"
#include "cmd.h"

/* One span's outcome, over its runs of populated blocks. */
struct result {
	int err;      /* 0 or the first -errno of process_madvise */
	bool tried;   /* false when nothing was populated, or an earlier failure
			 applies to every span */
	double secs;  /* time in process_madvise */
};

/* The columns of the table of ranges: -o, the table and the keys of -J -o. */
enum { C_RANGE, C_MAPPING, C_SIZE, C_BLOCKS, C_TIME, C_RESULT, C_HUGE_BEFORE, C_HUGE_AFTER, C_RSS_AFTER, NCOLS };
static const struct out_col cols[] = {
	[C_RANGE] = { "RANGE", OUT_TEXT, OUT_KEEP, "start-end, hexadecimal", NULL, 0 },
	[C_MAPPING] = { "MAPPING", OUT_TEXT, OUT_WRAP | OUT_KEEP, "the mapping's path or [anon], [heap], ...", NULL, 0 },
	[C_SIZE] = { "SIZE", OUT_SIZE, 0, "size of the range", NULL, 0 },
	[C_BLOCKS] = { "BLOCKS", OUT_COUNT, 0, "huge page blocks with a page in them / all (JSON: the first)",
		       NULL, 0 },
	[C_TIME] = { "TIME", OUT_NUM, 0, "time MADV_COLLAPSE took (JSON: seconds)", NULL, 0 },
	[C_RESULT] = { "RESULT", OUT_TEXT, OUT_KEEP, "collapsed, failed ERRNO, ...", NULL, 0 },
	[C_HUGE_BEFORE] = { "ANONHUGE_BEFORE", OUT_SIZE, 0, "AnonHugePages of the mapping before", NULL, 0 },
	[C_HUGE_AFTER] = { "ANONHUGE_AFTER", OUT_SIZE, OUT_KEEP, "AnonHugePages of the mapping after", NULL, 0 },
	[C_RSS_AFTER] = { "RSS_AFTER", OUT_SIZE, 0, "Rss of the mapping after", NULL, 0 },
};
_Static_assert(sizeof(cols) / sizeof(cols[0]) == NCOLS, "one descriptor per column");
static const int default_cols[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };

/* The table options, and the columns chosen. */
struct fmt {
	struct out_fmt f;
	int sel[NCOLS * 2], nsel;
};

static void usage(void)
{
	puts("Usage: thp collapse PID [--range START-END]... [--vma NAME]... [options]\n"
	     "\n"
	     "Collapse a running process's memory into huge pages now with\n"
	     "process_madvise(MADV_COLLAPSE) (Linux 6.1+; root, or CAP_SYS_NICE and ptrace\n"
	     "access). Without --range or --vma: every resident anonymous private mapping\n"
	     "not marked MADV_NOHUGEPAGE. Only whole PMD-sized blocks (2 MiB on x86-64) are\n"
	     "collapsed. Prints per range the bytes, the time taken, the result, and the\n"
	     "mapping's AnonHugePages before and after.\n"
	     "\n"
	     "Options:\n"
	     "      --range START-END  collapse this address range (hexadecimal, as in\n"
	     "                         /proc/PID/maps); repeatable\n"
	     "      --vma NAME         collapse the mappings named NAME: [heap], [stack],\n"
	     "                         a path or a file name; repeatable\n"
	     "The table options:");
	out_fmt_help(cols, NCOLS);
}

/* Why process_madvise(MADV_COLLAPSE) failed for T, in words. */
static const char *explain(int err, const struct thp_ctarget *t, const struct thp_pstatus *ps)
{
	switch (-err) {
	case EINVAL:
		if (ps->thp_enabled == 0)
			return "the process has THP disabled (PR_SET_THP_DISABLE, set by itself or "
			       "inherited from its parent), which refuses MADV_COLLAPSE too";
		if (t->nohuge)
			return "the mapping is marked MADV_NOHUGEPAGE";
		return "some blocks cannot become huge pages: not populated, or a mapping THP "
		       "does not support";
	case EPERM:
		return "process_madvise needs CAP_SYS_NICE and ptrace read access to the "
		       "process (run as root)";
	case EAGAIN:
		return "pages were busy (locked, pinned, under migration or off the LRU); "
		       "retry, and if it persists free memory is fragmented";
	case ENOMEM:
		return "no free huge page could be allocated or charged to the memory cgroup: "
		       "memory is fragmented, or the cgroup is at its limit";
	case ESRCH:
		return "the process exited";
	case ENOSYS:
		return "this kernel has no process_madvise (Linux 5.10+)";
	default:
		return strerror(-err);
	}
}

static const char *errno_name(int err)
{
	switch (-err) {
	case 0: return NULL;
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case ESRCH: return "ESRCH";
	case ENOSYS: return "ENOSYS";
	case EFAULT: return "EFAULT";
	default: return "other";
	}
}

static const char *outcome(const struct thp_ctarget *t, const struct result *r)
{
	if (!r->tried)
		return t->populated ? "not tried" : "not populated";
	if (!r->err)
		return "collapsed";
	return t->after.anon_huge > t->before.anon_huge ? "partial" : "failed";
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Collapses every run, one process_madvise call each, and sums the outcome
 * per target. Stops early on errors that hold for every span. */
static void collapse_all(int pidfd, const struct thp_crun *runs, int nruns, struct result *r)
{
	for (int i = 0; i < nruns; i++) {
		struct result *x = &r[runs[i].target];
		double t0 = now();
		int err = thp_collapse_range(pidfd, runs[i].start, runs[i].end - runs[i].start);

		x->secs += now() - t0;
		x->tried = true;
		if (err && !x->err)
			x->err = err;
		if (err == -EPERM || err == -ESRCH || err == -ENOSYS)
			break;
	}
}

/* The runs to collapse: populated blocks from pagemap, or else (*PAGEMAP_ERR
 * says why) whole spans. Returns 0 or -ENOMEM. */
static int plan_runs(const struct thp_ctx *ctx, pid_t pid, uint64_t pmd, struct thp_ctarget *t,
		     int n, struct thp_crun **runs, int *nruns, int *pagemap_err)
{
	uint64_t page = thp_page_size(&ctx->root);

	*pagemap_err = thp_collapse_runs(&ctx->root, pid,
					 page ? page : (uint64_t)sysconf(_SC_PAGESIZE), pmd, t, n,
					 runs, nruns);
	if (!*pagemap_err)
		return 0;
	*runs = malloc((size_t)n * sizeof(**runs));
	if (!*runs)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		(*runs)[i] = (struct thp_crun){ t[i].start, t[i].end, i };
		t[i].blocks = t[i].populated = (t[i].end - t[i].start) / pmd;
	}
	*nruns = n;
	return 0;
}

static const char *mapping(const struct thp_ctarget *t)
{
	return t->name[0] ? t->name : "[anon]";
}

/* Adds range T with its result R to table TB. */
static void put_range(struct out_table *tb, const struct thp_ctarget *t, const struct result *r)
{
	char b[3][64];

	out_table_line(tb);
	snprintf(b[0], sizeof(b[0]), "%" PRIx64 "-%" PRIx64, t->start, t->end);
	out_cell_str(tb, C_RANGE, b[0]);
	out_cell(tb, C_MAPPING, mapping(t), json_object_new_string(t->name));
	out_cell_u64(tb, C_SIZE, t->end - t->start);
	snprintf(b[1], sizeof(b[1]), "%" PRIu64 "/%" PRIu64, t->populated, t->blocks);
	out_cell(tb, C_BLOCKS, b[1], out_json_u64(t->populated));
	if (r->tried)
		snprintf(b[2], sizeof(b[2]), "%.1f ms", r->secs * 1000);
	out_cell(tb, C_TIME, r->tried ? b[2] : "-", r->tried ? json_object_new_double(r->secs) : NULL);
	snprintf(b[2], sizeof(b[2]), "%s%s%s", outcome(t, r), r->err ? " " : "", r->err ? errno_name(r->err) : "");
	out_cell(tb, C_RESULT, b[2], json_object_new_string(outcome(t, r)));
	out_cell_u64(tb, C_HUGE_BEFORE, t->before.anon_huge);
	out_cell_u64(tb, C_HUGE_AFTER, t->after.anon_huge);
	out_cell_u64(tb, C_RSS_AFTER, t->after.rss);
}

/* The N ranges T with results R as a table of the chosen columns: printed
 * (indented by 2), or the rows of JSON. */
static struct json_object *put_ranges(const struct fmt *f, const struct thp_ctarget *t,
				      const struct result *r, int n)
{
	struct out_table *tb = out_table_cols(cols, f->sel, f->nsel, &f->f);

	for (int i = 0; i < n; i++)
		put_range(tb, &t[i], &r[i]);
	if (f->f.json)
		return out_table_json(tb);
	out_table_print(tb, 2);
	return NULL;
}

static int print_json(const struct fmt *f, pid_t pid, const struct thp_pstatus *ps, uint64_t pmd,
		      const struct thp_ctarget *t, const struct result *r, int n,
		      const struct thp_cskipped *sk)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "schema", json_object_new_string("thp-collapse/1"));
	json_object_object_add(o, "pid", json_object_new_int(pid));
	json_object_object_add(o, "comm", json_object_new_string(ps->name));
	json_object_object_add(o, "pmd_size", out_json_u64(pmd));
	for (int i = 0; i < n && !f->f.list; i++) {
		struct json_object *e = json_object_new_object();
		json_object_object_add(e, "start", out_json_u64(t[i].start));
		json_object_object_add(e, "end", out_json_u64(t[i].end));
		json_object_object_add(e, "mapping", json_object_new_string(t[i].name));
		json_object_object_add(e, "bytes", out_json_u64(t[i].end - t[i].start));
		json_object_object_add(e, "blocks", out_json_u64(t[i].blocks));
		json_object_object_add(e, "populated_blocks", out_json_u64(t[i].populated));
		json_object_object_add(e, "seconds", r[i].tried ? json_object_new_double(r[i].secs) : NULL);
		json_object_object_add(e, "result", json_object_new_string(outcome(&t[i], &r[i])));
		json_object_object_add(e, "errno", r[i].err ? json_object_new_string(errno_name(r[i].err)) : NULL);
		json_object_object_add(e, "explanation",
				       r[i].err ? json_object_new_string(explain(r[i].err, &t[i], ps)) : NULL);
		json_object_object_add(e, "anon_huge_before", out_json_u64(t[i].before.anon_huge));
		json_object_object_add(e, "anon_huge_after", out_json_u64(t[i].after.anon_huge));
		json_object_object_add(e, "rss_before", out_json_u64(t[i].before.rss));
		json_object_object_add(e, "rss_after", out_json_u64(t[i].after.rss));
		json_object_array_add(a, e);
	}
	if (f->f.list) {
		json_object_put(a);
		a = put_ranges(f, t, r, n);
	}
	json_object_object_add(o, "ranges", a);
	json_object_object_add(o, "skipped_nohugepage", json_object_new_int(sk->nohuge));
	json_object_object_add(o, "skipped_small", json_object_new_int(sk->small));
	return out_json_print(o) ? 1 : 0;
}

/* Notes on what the selection left out. */
static void print_skipped(const struct thp_cskipped *sk)
{
	if (sk->nohuge)
		out_note("skipped %d %s marked MADV_NOHUGEPAGE (name one with --vma or --range to try)",
		       sk->nohuge, sk->nohuge == 1 ? "mapping" : "mappings");
	if (sk->small)
		out_note("skipped %d selected %s without a whole huge page block", sk->small,
		       sk->small == 1 ? "mapping" : "mappings");
}

static void print_text(const struct fmt *f, pid_t pid, const struct thp_pstatus *ps, uint64_t pmd,
		       const struct thp_ctarget *t, const struct result *r, int n,
		       const struct thp_cskipped *sk)
{
	bool bytes = f->f.bytes;
	char b[3][64];
	uint64_t total = 0, before = 0, after = 0, empty = 0;
	int shown_err[8] = { 0 }, nerr = 0;

	for (int i = 0; i < n; i++)
		total += t[i].end - t[i].start;
	printf("Collapsing %s of PID %d (%s) into %s pages with MADV_COLLAPSE\n\n",
	       out_size(b[0], 64, total, bytes), (int)pid, out_esc(b[1], sizeof(b[1]), ps->name),
	       out_size(b[2], 64, pmd, bytes));
	put_ranges(f, t, r, n);
	for (int i = 0; i < n; i++) {
		empty += t[i].blocks - t[i].populated;
		/* a mapping with several spans counts once */
		if (i == 0 || t[i].vma_start != t[i - 1].vma_start) {
			before += t[i].before.anon_huge;
			after += t[i].after.anon_huge;
		}
	}
	printf("\n  %s in %d %s; AnonHugePages of these mappings %s -> %s\n",
	       out_size(b[0], 64, total, bytes), n, n == 1 ? "range" : "ranges",
	       out_size(b[1], 64, before, bytes), out_size(b[2], 64, after, bytes));
	if (empty)
		out_note("BLOCKS counts the %s blocks with a page in them / all; the %" PRIu64
			 " without one %s left alone", out_size(b[0], 64, pmd, bytes), empty,
			 empty == 1 ? "was" : "were");
	for (int i = 0; i < n; i++) {
		bool seen = false;
		for (int j = 0; j < nerr; j++)
			seen |= shown_err[j] == r[i].err;
		if (!r[i].err || seen || nerr == 8)
			continue;
		shown_err[nerr++] = r[i].err;
		snprintf(b[0], 64, "  %s:", errno_name(r[i].err));
		out_wrap(b[0], explain(r[i].err, &t[i], ps), 90);
	}
	print_skipped(sk);
}

/* Reads the kernel release and PMD size; prints why collapse cannot work and
 * returns 1, or returns 0. */
static int check_kernel(const struct thp_ctx *ctx, uint64_t *pmd)
{
	char rel[128], buf[64];
	int major = -1, minor = -1;

	if (thp_read_buf(&ctx->root, "proc/sys/kernel/osrelease", rel, sizeof(rel)) > 0) {
		rel[strcspn(rel, "\n")] = '\0';
		thp_parse_release(rel, &major, &minor);
	} else {
		snprintf(rel, sizeof(rel), "unknown");
	}
	if (major >= 0 && (major < 6 || (major == 6 && minor < 1))) {
		thp_err("MADV_COLLAPSE needs Linux 6.1+; this kernel is %s", rel);
		return 1;
	}
	if (thp_read_buf(&ctx->root, "sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf,
			 sizeof(buf)) < 0 || thp_parse_u64(buf, pmd) || !*pmd) {
		thp_err("this kernel has no THP (no /sys/kernel/mm/transparent_hugepage/hpage_pmd_size)");
		return 1;
	}
	return 0;
}

int cmd_collapse(struct thp_ctx *ctx, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "range", required_argument, NULL, 'R' }, { "vma", required_argument, NULL, 'v' },
		OUT_FMT_LONGOPTS, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct thp_csel sel = { 0 };
	struct thp_cskipped sk;
	struct thp_pstatus ps;
	struct thp_ctarget *t = NULL;
	struct thp_crun *runs = NULL;
	struct result *r;
	struct fmt f = { .f.json = ctx->json };
	bool bytes;
	uint64_t pid, pmd;
	int c, n, nruns, pidfd, err, rc = 0;

	optind = 0;
	while ((c = thp_getopt(argc, argv, OUT_FMT_SHORTOPTS "h", lo)) != -1) {
		if (out_fmt_opt(&f.f, c, optarg))
			continue;
		switch (c) {
		case 'R':
			if (sel.nranges == THP_SEL_MAX ||
			    thp_parse_range(optarg, &sel.ranges[sel.nranges].start,
					    &sel.ranges[sel.nranges].end)) {
				thp_err("'%s' is not a range START-END in hexadecimal "
					"(at most %d ranges)", optarg, THP_SEL_MAX);
				return thp_usage_error("collapse");
			}
			sel.nranges++;
			break;
		case 'v':
			if (sel.nnames == THP_SEL_MAX || !*optarg) {
				thp_err("--vma needs a name (at most %d)", THP_SEL_MAX);
				return thp_usage_error("collapse");
			}
			sel.names[sel.nnames++] = optarg;
			break;
		case 'h': usage(); return 0;
		default: return thp_usage_error("collapse");
		}
	}
	ctx->json = f.f.json;
	bytes = f.f.bytes;
	f.nsel = out_cols_select(cols, NCOLS, &f.f, default_cols, NCOLS, f.sel, NCOLS * 2);
	if (f.nsel < 0)
		return 2;
	if (optind + 1 != argc) {
		thp_err(optind < argc ? "collapse: unexpected argument '%s'" : "collapse: which process? give its PID",
			optind < argc ? argv[optind + 1] : "");
		return thp_usage_error("collapse");
	}
	if (!thp_opt_u64("process id", argv[optind], 1, THP_PID_MAX, &pid))
		return thp_usage_error("collapse");
	if (check_kernel(ctx, &pmd) || thp_pid_target(ctx, (pid_t)pid, false, &ps))
		return 1;
	pidfd = thp_pidfd_open((pid_t)pid);
	if (pidfd < 0) {
		thp_err("cannot open process %" PRIu64 ": %s", pid,
			pidfd == -ESRCH ? "no such process" : strerror(-pidfd));
		return 1;
	}
	err = thp_collapse_targets(&ctx->root, (pid_t)pid, &sel, pmd, &t, &n, &sk);
	if (err) {
		thp_err("cannot read /proc/%" PRIu64 "/smaps: %s%s", pid,
			thp_proc_gone(err) ? "the process exited" : strerror(-err),
			thp_root_hint(err));
		close(pidfd);
		return 1;
	}
	if (sk.unselected) {
		thp_err("%d of the given --range/--vma %s no mapping of process %" PRIu64
			" (see /proc/%" PRIu64 "/maps)", sk.unselected,
			sk.unselected == 1 ? "matches" : "match", pid, pid);
		rc = 1;
	}
	if (!n && ctx->json) {
		rc |= print_json(&f, (pid_t)pid, &ps, pmd, t, NULL, 0, &sk);
		close(pidfd);
		return rc;
	}
	if (!n) {
		char b[32];
		if (sk.small) {
			printf("nothing to collapse: the selected mappings hold no whole %s block\n",
			       out_size(b, sizeof(b), pmd, bytes));
			rc = 1;
		}
		else if (!rc)
			printf("nothing to collapse: process %" PRIu64 " has no resident anonymous memory "
			       "in whole %s blocks\n", pid, out_size(b, sizeof(b), pmd, bytes));
		if (!sk.small)
			print_skipped(&sk);
		free(t);
		close(pidfd);
		return rc;
	}
	r = calloc((size_t)n, sizeof(*r));
	if (!r || plan_runs(ctx, (pid_t)pid, pmd, t, n, &runs, &nruns, &err)) {
		thp_err("out of memory");
		free(r);
		free(t);
		close(pidfd);
		return 1;
	}
	if (err && !ctx->json)
		printf("(cannot read /proc/%" PRIu64 "/pagemap: %s; whole ranges are tried, "
		       "untouched blocks included)\n", pid, strerror(-err));
	collapse_all(pidfd, runs, nruns, r);
	free(runs);
	close(pidfd);
	thp_collapse_measure(&ctx->root, (pid_t)pid, t, n);
	if (ctx->json)
		rc |= print_json(&f, (pid_t)pid, &ps, pmd, t, r, n, &sk);
	else
		print_text(&f, (pid_t)pid, &ps, pmd, t, r, n, &sk);
	for (int i = 0; i < n; i++)
		if (r[i].err || (!r[i].tried && t[i].populated))
			rc = 1;
	free(r);
	free(t);
	return rc;
}
