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
#include "opt.h"
#include "target.h"

/* One span's outcome, over its runs of populated blocks. */
struct result {
	int err;      /* 0 or the first -errno of process_madvise */
	bool tried;   /* false when nothing was populated, or an earlier failure
			 applies to every span */
	double secs;  /* time in process_madvise */
};

/* The columns of the table of ranges: -o, the text, and JSON (every column
 * by default, keys the names in lower case). */
enum {
	C_RANGE, C_START, C_END, C_MAPPING, C_SIZE, C_BLOCKS, C_POPULATED, C_TIME, C_RESULT, C_ERRNO,
	C_EXPLANATION, C_HUGE_BEFORE, C_HUGE_AFTER, C_RSS_BEFORE, C_RSS_AFTER, NCOLS
};
static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v);
static const struct out_col cols[] = {
	[C_RANGE] = { "RANGE", OUT_TEXT, OUT_KEEP, "start-end, hexadecimal", get, C_RANGE },
	[C_START] = { "START", OUT_HEX, 0, "first address", get, C_START },
	[C_END] = { "END", OUT_HEX, 0, "the address after the last", get, C_END },
	[C_MAPPING] = { "MAPPING", OUT_TEXT, OUT_WRAP | OUT_KEEP,
			"the mapping's path or [anon], [heap], ... (JSON: \"\" for anonymous memory)", get,
			C_MAPPING },
	[C_SIZE] = { "SIZE", OUT_SIZE, 0, "size of the range", get, C_SIZE },
	[C_BLOCKS] = { "BLOCKS", OUT_COUNT, 0, "huge page blocks with a page in them / all (JSON: all)", get,
		       C_BLOCKS },
	[C_POPULATED] = { "POPULATED_BLOCKS", OUT_COUNT, 0, "huge page blocks with a page in them", get,
			  C_POPULATED },
	[C_TIME] = { "TIME", OUT_NUM, 0, "time MADV_COLLAPSE took (JSON: seconds)", get, C_TIME },
	[C_RESULT] = { "RESULT", OUT_TEXT, OUT_KEEP, "collapsed, failed ERRNO, ... (JSON: without the errno)", get,
		       C_RESULT },
	[C_ERRNO] = { "ERRNO", OUT_TEXT, 0, "why MADV_COLLAPSE failed: EINVAL, EAGAIN, ENOMEM, ...", get, C_ERRNO },
	[C_EXPLANATION] = { "EXPLANATION", OUT_TEXT, OUT_WRAP, "that errno in words", get, C_EXPLANATION },
	[C_HUGE_BEFORE] = { "ANONHUGE_BEFORE", OUT_SIZE, 0, "AnonHugePages of the mapping before", get,
			    C_HUGE_BEFORE },
	[C_HUGE_AFTER] = { "ANONHUGE_AFTER", OUT_SIZE, OUT_KEEP, "AnonHugePages of the mapping after", get,
			   C_HUGE_AFTER },
	[C_RSS_BEFORE] = { "RSS_BEFORE", OUT_SIZE, 0, "Rss of the mapping before", get, C_RSS_BEFORE },
	[C_RSS_AFTER] = { "RSS_AFTER", OUT_SIZE, 0, "Rss of the mapping after", get, C_RSS_AFTER },
};
_Static_assert(sizeof(cols) / sizeof(cols[0]) == NCOLS, "one descriptor per column");
static const int default_cols[] = { C_RANGE,  C_MAPPING,     C_SIZE,       C_BLOCKS,   C_TIME,
				    C_RESULT, C_HUGE_BEFORE, C_HUGE_AFTER, C_RSS_AFTER };
#define NDEFAULT ((int)(sizeof(default_cols) / sizeof(default_cols[0])))

/* The table options, and the columns chosen. */
struct fmt {
	struct out_fmt f;
	int sel[NCOLS * 2], nsel;
};

/* What a row of the table is (the getters' context): the ranges, their
 * results and the process. */
struct ranges {
	const struct thp_ctarget *t;
	const struct result *r;
	const struct thp_pstatus *ps;
};

static const struct thp_opt opts[] = {
	THP_OPT_LONG('R', "range", "START-END", "collapse this address range (hexadecimal, as in\n"
						"/proc/PID/maps); repeatable"),
	THP_OPT_LONG('v', "vma", "NAME", "collapse the mappings named NAME: [heap], [stack],\n"
					 "a path or a file name; repeatable"),
	THP_OPT_TEXT(22, "The table options:"),
	THP_OPTS_TABLE,
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp collapse PID [--range START-END]... [--vma NAME]... [options]\n"
		 "\n"
		 "Collapse a running process's memory into huge pages now with\n"
		 "process_madvise(MADV_COLLAPSE) (Linux 6.1+; root, or CAP_SYS_NICE and ptrace\n"
		 "access). Without --range or --vma: every resident anonymous private mapping\n"
		 "not marked MADV_NOHUGEPAGE. Only whole PMD-sized blocks (2 MiB on x86-64) are\n"
		 "collapsed. Prints per range the bytes, the time taken, the result, and the\n"
		 "mapping's AnonHugePages before and after.",
	.width = 25,
	.opts = opts,
	.cols = cols,
	.ncols = NCOLS,
};

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

/* Column C of range ROW (one of CTX's). */
static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct ranges *x = ctx;
	const struct thp_ctarget *t = row;
	const struct result *r = &x->r[t - x->t];

	switch (c->arg) {
	case C_RANGE: snprintf(v->buf, v->cap, "%" PRIx64 "-%" PRIx64, t->start, t->end); v->s = v->buf; break;
	case C_START: v->u = t->start; break;
	case C_END: v->u = t->end; break;
	case C_MAPPING: v->s = t->name; v->text = mapping(t); break;
	case C_SIZE: v->u = t->end - t->start; break;
	case C_BLOCKS:
		v->u = t->blocks;
		snprintf(v->buf, v->cap, "%" PRIu64 "/%" PRIu64, t->populated, t->blocks);
		v->text = v->buf;
		break;
	case C_POPULATED: v->u = t->populated; break;
	case C_TIME:
		out_val_set(v, ov_if(r->tried, ov_num(r->secs, -1)));
		if (r->tried) {
			snprintf(v->buf, v->cap, "%.1f ms", r->secs * 1000);
			v->text = v->buf;
		}
		break;
	case C_RESULT:
		v->s = outcome(t, r);
		snprintf(v->buf, v->cap, "%s%s%s", v->s, r->err ? " " : "", r->err ? errno_name(r->err) : "");
		v->text = v->buf;
		break;
	case C_ERRNO: out_val_set(v, ov_str(errno_name(r->err))); break;
	case C_EXPLANATION: out_val_set(v, ov_str(r->err ? explain(r->err, t, x->ps) : NULL)); break;
	case C_HUGE_BEFORE: v->u = t->before.anon_huge; break;
	case C_HUGE_AFTER: v->u = t->after.anon_huge; break;
	case C_RSS_BEFORE: v->u = t->before.rss; break;
	default: v->u = t->after.rss; break;
	}
}

/* Notes on what the selection left out (text). */
static void print_skipped(const struct thp_cskipped *sk)
{
	if (sk->nohuge)
		out_note("skipped %d %s marked MADV_NOHUGEPAGE (name one with --vma or --range to try)",
		       sk->nohuge, sk->nohuge == 1 ? "mapping" : "mappings");
	if (sk->small)
		out_note("skipped %d selected %s without a whole huge page block", sk->small,
		       sk->small == 1 ? "mapping" : "mappings");
}

/* The sums under the table: the size of the N ranges T, and AnonHugePages of
 * their mappings (each once) before and after, members anonhuge_before and
 * anonhuge_after. */
static void put_sums(const struct thp_ctarget *t, int n)
{
	uint64_t total = 0, before = 0, after = 0;

	for (int i = 0; i < n; i++) {
		total += t[i].end - t[i].start;
		/* a mapping with several spans counts once */
		if (i == 0 || t[i].vma_start != t[i - 1].vma_start) {
			before += t[i].before.anon_huge;
			after += t[i].after.anon_huge;
		}
	}
	out_put(OUT_FP, NULL, "\n  %s", ov_size(total));
	out_text(" in %d %s; ", n, n == 1 ? "range" : "ranges");
	out_put(OUT_ANY, "anonhuge_before", "AnonHugePages of these mappings %s", ov_size(before));
	out_put(OUT_ANY, "anonhuge_after", " -> %s\n", ov_size(after));
}

/* Under the sums, in text: the blocks left alone, and each errno's
 * explanation once (in JSON each range has its blocks and explanation). */
static void print_notes(const struct thp_pstatus *ps, uint64_t pmd, const struct thp_ctarget *t,
			const struct result *r, int n)
{
	bool bytes = out_bytes_on();
	char b[64];
	uint64_t empty = 0;
	int shown_err[8] = { 0 }, nerr = 0;

	for (int i = 0; i < n; i++)
		empty += t[i].blocks - t[i].populated;
	if (empty)
		out_note("BLOCKS counts the %s blocks with a page in them / all; the %" PRIu64
			 " without one %s left alone", out_size(b, sizeof(b), pmd, bytes), empty,
			 empty == 1 ? "was" : "were");
	for (int i = 0; i < n; i++) {
		bool seen = false;
		for (int j = 0; j < nerr; j++)
			seen |= shown_err[j] == r[i].err;
		if (!r[i].err || seen || nerr == 8)
			continue;
		shown_err[nerr++] = r[i].err;
		snprintf(b, sizeof(b), "  %s:", errno_name(r[i].err));
		out_wrap(b, explain(r[i].err, &t[i], ps), 90);
	}
}

/* The document: the process, the table of the N ranges T with results R,
 * the sums and what was skipped. Returns 0, or 1 when stdout failed. */
static int print(const struct fmt *f, pid_t pid, const struct thp_pstatus *ps, uint64_t pmd,
		 const struct thp_ctarget *t, const struct result *r, int n, const struct thp_cskipped *sk)
{
	struct ranges x = { t, r, ps };
	struct out_table *tb;
	uint64_t total = 0;

	for (int i = 0; i < n; i++)
		total += t[i].end - t[i].start;
	out_doc_begin(f->f.json, f->f.bytes, "thp-collapse/3");
	out_put(OUT_ANY, "size", "Collapsing %s", ov_size(total));
	out_put(OUT_ANY, "pid", " of PID %s", ov_int(pid));
	out_put(OUT_ANY, "comm", " (%s)", ov_str(ps->name));
	out_put(OUT_ANY, "pmd_size", " into %s pages with MADV_COLLAPSE\n\n", ov_size(pmd));
	tb = out_table_open("ranges", cols, f->sel, f->nsel, &f->f, &x);
	for (int i = 0; i < n; i++)
		out_table_add(tb, &t[i]);
	out_table_close(tb, 2);
	put_sums(t, n);
	if (!out_json_on())
		print_notes(ps, pmd, t, r, n);
	out_put(OUT_JSON, "skipped_nohugepage", NULL, ov_int(sk->nohuge));
	out_put(OUT_JSON, "skipped_small", NULL, ov_int(sk->small));
	if (!out_json_on())
		print_skipped(sk);
	return out_doc_end() ? 1 : 0;
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
	struct thp_csel sel = { 0 };
	struct thp_cskipped sk;
	struct thp_pstatus ps;
	struct thp_ctarget *t = NULL;
	struct thp_crun *runs = NULL;
	struct result *r;
	struct fmt f = { 0 };
	bool bytes;
	uint64_t pid, pmd;
	int c, n, nruns, pidfd, err, rc = 0, all[NCOLS];

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
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
		default: return thp_opt_exit(ctx, c);
		}
	}
	f.f.json = ctx->json;
	bytes = f.f.bytes;
	for (int i = 0; i < NCOLS; i++)
		all[i] = i;
	f.nsel = out_cols_select(cols, NCOLS, &f.f, f.f.json ? all : default_cols, f.f.json ? NCOLS : NDEFAULT, f.sel,
				 NCOLS * 2);
	if (f.nsel < 0)
		return 2;
	if (optind + 1 != argc) {
		thp_err(optind < argc ? "unexpected argument '%s'" : "which process? give its PID",
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
		rc |= print(&f, (pid_t)pid, &ps, pmd, t, NULL, 0, &sk);
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
	rc |= print(&f, (pid_t)pid, &ps, pmd, t, r, n, &sk);
	for (int i = 0; i < n; i++)
		if (r[i].err || (!r[i].tried && t[i].populated))
			rc = 1;
	free(r);
	free(t);
	return rc;
}
