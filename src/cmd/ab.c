/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ab.c - `thp ab -- CMD`: run a real command under several THP modes, rotated,
 * and say whether the differences are larger than the noise */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../control/change.h"
#include "../control/control.h"
#include "../control/modes.h"
#include "../core/exp.h"
#include "../core/parse.h"
#include "../core/proc.h"
#include "../core/tlbcount.h"
#include "../render/change.h"
#include "../render/render.h"
#include "../render/term.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

#define RUNS_MAX 1000
#define TREE_MAX 4096
#define SAMPLE_MS 10

/* M_DTLB and M_MPKI come from the CPU's counters, when it has them (ab.tlb_err 0) */
enum metric { M_WALL, M_USER, M_SYS, M_RSS, M_FLT, M_HUGE, M_DTLB, M_MPKI, M_COUNT };
/* The columns: ARM, metric M in column M + 1, the comparison with the first
 * arm (the NARM columns of the table of arms), then those of a run only. */
#define COL(m) ((m) + 1)
enum { C_ARM, C_RATIO = COL(M_COUNT), C_OVERLAP, NARM, C_ROUND = NARM, C_EXIT, NCOLS };
static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v);
static const struct out_col cols[NCOLS] = {
	{ "ARM", OUT_TEXT, OUT_KEEP, "the mode CMD ran under", get, C_ARM },
	[COL(M_WALL)] = { "WALL", OUT_NS, OUT_KEEP, "elapsed time: min / median / max", get, COL(M_WALL) },
	[COL(M_USER)] = { "USER", OUT_NS, 0, "CPU time in user mode", get, COL(M_USER) },
	[COL(M_SYS)] = { "SYS", OUT_NS, 0, "CPU time in the kernel", get, COL(M_SYS) },
	[COL(M_RSS)] = { "MAX_RSS", OUT_SIZE, 0, "the largest resident memory of a process", get, COL(M_RSS) },
	[COL(M_FLT)] = { "MINOR_FAULTS", OUT_COUNT, 0, "minor page faults", get, COL(M_FLT) },
	[COL(M_HUGE)] = { "ANONHUGE_PEAK", OUT_SIZE, OUT_KEEP, "the most AnonHugePages of CMD's process tree (sampled)",
			  get, COL(M_HUGE) },
	[COL(M_DTLB)] = { "DTLB_MISSES", OUT_COUNT, 0, "dTLB misses (CPU counters)", get, COL(M_DTLB) },
	[COL(M_MPKI)] = { "DTLB_MPKI", OUT_NUM, OUT_KEEP, "dTLB misses per thousand instructions", get, COL(M_MPKI) },
	[C_RATIO] = { "WALL_RATIO", OUT_NUM, 0, "its median wall time over the first arm's", get, C_RATIO },
	[C_OVERLAP] = { "WALL_OVERLAPS_BASELINE", OUT_BOOL, 0, "whether its wall range overlaps the first arm's",
			get, C_OVERLAP },
	[C_ROUND] = { "ROUND", OUT_INT, 0, "", get, C_ROUND },
	[C_EXIT] = { "EXIT", OUT_INT, 0, "", get, C_EXIT },
};

struct run {
	int round, arm;
	double m[M_COUNT];
	int status; /* wait status */
};

struct ab {
	struct thp_ctx *ctx;
	struct modes modes;
	int n;
	bool show_output;
	struct out_fmt fmt;
	int sel[2 * NARM], nsel;
	char **cmd;
	int nruns;
	struct run *runs;
	struct thp_tlb_walk walk;
	int tlb_err; /* why the command's dTLB misses are not counted (0: they are) */
	struct out_progress progress; /* off with JSON and --show-output */
	struct out_stats st;          /* the figures of the cell a getter gives */
};

/* A row of the table of arms (RUN NULL) or of runs. */
struct row {
	int arm;
	const struct run *run;
};

/* ---- peak AnonHugePages of the command's process tree ---- */

struct tree {
	const struct thp_root *root;
	int n;
	pid_t pid[TREE_MAX], ppid[TREE_MAX];
};

static int tree_add(pid_t pid, void *ctx)
{
	struct tree *t = ctx;
	struct thp_pstat ps;

	if (t->n < TREE_MAX && thp_pstat_read(t->root, pid, &ps) == 0) {
		t->pid[t->n] = pid;
		t->ppid[t->n++] = ps.ppid;
	}
	return 0;
}

/* Sum of AnonHugePages over TOP and all its descendants right now. */
static uint64_t tree_anon_huge(const struct thp_root *root, pid_t top, struct tree *t)
{
	bool in[TREE_MAX] = { false };
	struct thp_rollup r;
	uint64_t sum = 0;
	bool grew = true;

	t->root = root;
	t->n = 0;
	thp_proc_each(root, tree_add, t);
	for (int i = 0; i < t->n; i++)
		in[i] = t->pid[i] == top;
	while (grew) {
		grew = false;
		for (int i = 0; i < t->n; i++) {
			if (in[i])
				continue;
			for (int j = 0; j < t->n && !in[i]; j++)
				if (in[j] && t->ppid[i] == t->pid[j])
					in[i] = grew = true;
		}
	}
	for (int i = 0; i < t->n; i++)
		if (in[i] && thp_rollup_read(root, t->pid[i], &r) == 0)
			sum += r.anon_huge;
	return sum;
}

/* ---- one run ---- */

static double tv_ns(struct timeval tv)
{
	return (double)tv.tv_sec * 1e9 + (double)tv.tv_usec * 1e3;
}

/* Runs the command once under MODE into R. Returns 0, or 1 after printing why
 * the command could not be started. */
/* Opens the dTLB counters on the command PID (its children too, from its
 * execve) unless they already failed once; false when they are not open. */
static bool tlb_start(struct ab *a, pid_t pid, struct thp_tlb_thread *tc)
{
	if (!a->tlb_err)
		a->tlb_err = thp_tlb_open(pid, &a->walk, true, tc);
	return !a->tlb_err;
}

/* The command's dTLB misses and MPKI from TC into R, and closes TC. */
static void tlb_stop(struct thp_tlb_thread *tc, struct run *r)
{
	struct thp_tlb_counts c;

	if (thp_tlb_read(tc, &c) == 0) {
		thp_tlb_misses_per(&c, 1, &r->m[M_DTLB]);
		thp_tlb_mpki(&c, &r->m[M_MPKI]);
	}
	thp_tlb_close(tc);
}

static int run_once(struct ab *a, const char *mode, struct run *r, struct tree *t)
{
	char why[512];
	int ep[2], gp[2], err = 0;
	struct thp_tlb_thread tc;
	bool counting;
	uint64_t t0, peak = 0;
	struct rusage ru;
	pid_t pid;
	int pfd = -1;

	if (modes_apply(mode, why, sizeof(why))) {
		if (why[0])
			thp_err("%s", why);
		return 1;
	}
	if (pipe2(ep, O_CLOEXEC)) {
		thp_err("cannot create a pipe: %s", strerror(errno));
		return 1;
	}
	if (pipe2(gp, O_CLOEXEC)) { /* the command waits on it until its counters are open */
		thp_err("cannot create a pipe: %s", strerror(errno));
		close(ep[0]);
		close(ep[1]);
		return 1;
	}
	thp_flush();
	t0 = thp_now_ns();
	pid = fork();
	if (pid == 0) {
		int e = 0;
		char go;
		close(ep[0]);
		close(gp[1]);
		if (read(gp[0], &go, 1) < 0)
			_exit(127);
		if (!strcmp(mode, "disabled"))
			e = -thp_mode_set(THP_MODE_DISABLED);
		if (!a->show_output) {
			int null = open("/dev/null", O_RDWR);
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		if (!e) {
			execvp(a->cmd[0], a->cmd);
			e = errno;
		}
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(ep[1]);
	close(gp[0]);
	if (pid < 0) {
		thp_err("cannot fork: %s", strerror(errno));
		close(ep[0]);
		close(gp[1]);
		return 1;
	}
	counting = tlb_start(a, pid, &tc);
	close(gp[1]); /* the command goes on */
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (int ended = 0;;) {
		pid_t w;

		if (modes_signal() && !ended++)
			kill(pid, SIGTERM); /* thp is asked to stop: so is the command */
		if (pfd >= 0) {
			struct pollfd p = { pfd, POLLIN, 0 };
			poll(&p, 1, SAMPLE_MS);
		} else {
			struct timespec ts = { 0, 2 * 1000000L };
			nanosleep(&ts, NULL);
		}
		w = wait4(pid, &r->status, WNOHANG, &ru);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		uint64_t h = tree_anon_huge(&a->ctx->root, pid, t);
		if (h > peak)
			peak = h;
		out_progress_say(&a->progress, "ab", "run %d of %d, %s", a->nruns + 1, a->n * a->modes.n, mode);
	}
	r->m[M_WALL] = (double)(thp_now_ns() - t0);
	if (counting)
		tlb_stop(&tc, r);
	if (pfd >= 0)
		close(pfd);
	if (read(ep[0], &err, sizeof(err)) == sizeof(err) && err) {
		thp_err("cannot run '%s': %s", a->cmd[0], strerror(err));
		close(ep[0]);
		return 1;
	}
	close(ep[0]);
	r->m[M_USER] = tv_ns(ru.ru_utime);
	r->m[M_SYS] = tv_ns(ru.ru_stime);
	r->m[M_RSS] = (double)ru.ru_maxrss * 1024;
	r->m[M_FLT] = (double)ru.ru_minflt;
	r->m[M_HUGE] = (double)peak;
	return 0;
}

/* ---- results ---- */

static struct thp_stats arm_stats(const struct ab *a, int arm, int m)
{
	double v[RUNS_MAX];
	int n = 0;

	for (int i = 0; i < a->nruns; i++)
		if (a->runs[i].arm == arm)
			v[n++] = a->runs[i].m[m];
	return thp_stats_of(v, n);
}

static const char *fmt(const struct ab *a, int m, double x, char *buf, size_t cap)
{
	switch (cols[COL(m)].kind) {
	case OUT_NS: return out_ns(buf, cap, x);
	case OUT_COUNT: return out_count(buf, cap, (uint64_t)(x + 0.5));
	case OUT_SIZE: return out_size(buf, cap, (uint64_t)(x + 0.5), a->fmt.bytes);
	default: snprintf(buf, cap, "%.3f", x); return buf;
	}
}

/* Median ratio of ARM to the first arm for metric M; 0 when the baseline is 0. */
static double ratio(const struct ab *a, int arm, int m)
{
	double base = arm_stats(a, 0, m).median;
	return base > 0 ? arm_stats(a, arm, m).median / base : 0;
}

/* False for a counter metric when the CPU's counters could not be used. */
static bool counted(const struct ab *a, int m)
{
	return m < M_DTLB || !a->tlb_err;
}

/* Metric M of R: a run's figure, or an arm's statistics (in text WALL as
 * min / median / max, ANONHUGE_PEAK its largest sample, the others their
 * median); null when not counted. */
static void get_metric(struct ab *a, const struct row *r, int m, struct out_val *v)
{
	struct thp_stats s;
	char x[32], y[32], z[32];

	if (!counted(a, m)) {
		v->null = true;
	} else if (r->run && cols[COL(m)].kind == OUT_NUM) {
		out_val_set(v, ov_num(r->run->m[m], -1));
	} else if (r->run) {
		v->u = (uint64_t)(r->run->m[m] + 0.5);
	} else {
		s = arm_stats(a, r->arm, m);
		a->st = (struct out_stats){ s.min, s.median, s.max, NULL, 0, false };
		out_val_set(v, ov_stats(&a->st));
		if (m == M_WALL)
			v->text = (snprintf(v->buf, v->cap, "%s / %s / %s", fmt(a, m, s.min, x, sizeof(x)),
					    fmt(a, m, s.median, y, sizeof(y)), fmt(a, m, s.max, z, sizeof(z))),
				   v->buf);
		else
			v->text = fmt(a, m, m == M_HUGE ? s.max : s.median, v->buf, v->cap);
	}
}

/* Column C of ROW, a struct row of the struct ab CTX. */
static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	struct ab *a = ctx;
	const struct row *r = row;
	struct thp_stats s0, s;

	switch (c->arg) {
	case C_ARM: v->s = a->modes.word[r->arm]; break;
	case C_RATIO:
		out_val_set(v, ov_if(r->arm > 0, ov_num(ratio(a, r->arm, M_WALL), -1)));
		if (r->arm > 0) {
			snprintf(v->buf, v->cap, "%.3f", v->d);
			v->text = v->buf;
		}
		break;
	case C_OVERLAP:
		s0 = arm_stats(a, 0, M_WALL);
		s = arm_stats(a, r->arm, M_WALL);
		out_val_set(v, ov_if(r->arm > 0, ov_bool(thp_stats_overlap(&s0, &s))));
		break;
	case C_ROUND: v->i = r->run->round; break;
	case C_EXIT:
		v->i = WIFEXITED(r->run->status) ? WEXITSTATUS(r->run->status) : 128 + WTERMSIG(r->run->status);
		break;
	default: get_metric(a, r, c->arg - 1, v); break;
	}
}

/* The arms as a table of the chosen columns (without -o, in text the dTLB
 * ones only when counted). */
static void put_arms(struct ab *a)
{
	int nsel = !a->fmt.list && !a->fmt.json && a->tlb_err ? COL(M_DTLB) : a->nsel;
	struct out_table *t = out_table_open("arms", cols, a->sel, nsel, &a->fmt, a);

	for (int arm = 0; arm < a->modes.n; arm++)
		out_table_add(t, &(struct row){ arm, NULL });
	out_table_close(t, 2);
}

/* Every run in the order it ran, with every figure (JSON). */
static void put_runs(struct ab *a)
{
	int sel[] = { C_ROUND, C_ARM, COL(M_WALL), COL(M_USER), COL(M_SYS), COL(M_RSS), COL(M_FLT),
		      COL(M_HUGE), COL(M_DTLB), COL(M_MPKI), C_EXIT };
	struct out_table *t;

	if (!out_json_on())
		return;
	t = out_table_open("runs", cols, sel, (int)(sizeof(sel) / sizeof(sel[0])), &a->fmt, a);
	for (int i = 0; i < a->nruns; i++)
		out_table_add(t, &(struct row){ a->runs[i].arm, &a->runs[i] });
	out_table_close(t, 0);
}

/* The median wall time of every arm as a bar. */
static void print_chart(const struct ab *a)
{
	struct out_chart_row rows[MODES_MAX];
	char text[MODES_MAX][32];

	for (int arm = 0; arm < a->modes.n; arm++) {
		double m = arm_stats(a, arm, M_WALL).median;
		rows[arm] = (struct out_chart_row){ a->modes.word[arm], m, fmt(a, M_WALL, m, text[arm], sizeof(text[arm])) };
	}
	puts("\n  WALL (median)");
	out_chart(rows, a->modes.n, 2);
	putchar('\n');
}

/* What the text says under the table: the chart (not with -r), why the dTLB
 * misses are not counted, each arm against the first. */
static void print_verdicts(const struct ab *a)
{
	char label[2 * MODE_LEN + 8], text[256];

	if (!a->fmt.raw)
		print_chart(a);
	if (a->tlb_err) {
		snprintf(text, sizeof(text), "none, %s (perf_event_open: %s)", thp_tlb_unavailable(a->tlb_err),
			 strerror(-a->tlb_err));
		out_wrap("  dTLB counters:", text, 100);
	}
	for (int arm = 1; arm < a->modes.n; arm++) {
		struct thp_stats s0 = arm_stats(a, 0, M_WALL), s = arm_stats(a, arm, M_WALL);
		bool overlap = thp_stats_overlap(&s0, &s);
		snprintf(label, sizeof(label), "%s / %s:", a->modes.word[arm], a->modes.word[0]);
		snprintf(text, sizeof(text), "wall median ratio %.3f, max RSS median ratio %.3f; %s",
			 ratio(a, arm, M_WALL), ratio(a, arm, M_RSS),
			 a->n < 3 ? "too few runs to judge (use -N 3 or more)"
			 : overlap ? "the wall ranges overlap: no claimable difference"
				   : "the wall ranges do not overlap");
		out_wrap(label, text, 100);
	}
}

/* The document: the runs, the command, the host, the table of arms and then
 * the chart and verdicts in text, every run in JSON. Returns 0, or 1 when
 * stdout failed. */
static int print(struct ab *a, const struct thp_busy *busy, const char *enabled)
{
	out_doc_begin(a->fmt.json, a->fmt.bytes, "thp-ab/3");
	out_put(OUT_ANY, "runs_per_arm", "ab: %s run", ov_int(a->n));
	out_text("%s per arm, arms rotated each round; ", a->n == 1 ? "" : "s");
	out_put(OUT_ANY, "enabled", "host enabled=%s\n  command:", ov_str(enabled));
	out_arr("command");
	for (int i = 0; a->cmd[i]; i++)
		out_put(OUT_ANY, NULL, " %s", ov_str(a->cmd[i]));
	out_end();
	out_put(OUT_JSON, "busy", NULL, ov_bool(thp_busy_noisy(busy)));
	out_put(OUT_JSON, "load1", NULL, ov_num(busy->load1, -1));
	out_put(OUT_JSON, "ncpu", NULL, ov_int(busy->ncpu));
	out_put(OUT_JSON, "dtlb_unavailable", NULL, ov_str(a->tlb_err ? thp_tlb_unavailable(a->tlb_err) : NULL));
	out_text("\n  (WALL: min / median / max; ANONHUGE_PEAK: the largest sample; others: medians)\n");
	put_arms(a);
	if (!out_json_on())
		print_verdicts(a);
	put_runs(a);
	return out_doc_end() ? 1 : 0;
}

static const struct thp_opt opts[] = {
	THP_OPT('m', "modes", "LIST", "comma-separated modes (default: always,madvise,never as\n"
				      "root, current,disabled otherwise)"),
	THP_OPT('N', "reps", "N", "runs per arm (default 5)"),
	THP_OPT_LONG('N', "runs", "N", "the same as --reps"),
	THP_OPT_LONG('S', "show-output", NULL, "let CMD write to the terminal (default: /dev/null)"),
	THP_OPT('q', "quiet", NULL, "no notice on stderr of the policy the modes switch and\n"
				    "for how long"),
	THP_OPT_TEXT(22, "The table options (-J: one JSON document with every run; the chart is left out\n"
			 "with -r):"),
	THP_OPTS_TABLE,
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp ab [options] -- CMD [ARGS...]\n"
		 "\n"
		 "Run CMD N times under each THP mode, rotating the order of the arms every round\n"
		 "(ABC, BCA, CAB, ...), and compare wall time, CPU time, max RSS, minor faults and\n"
		 "the peak AnonHugePages of the command's process tree. The median wall times\n"
		 "are drawn as bars under the table (in ASCII with 'thp --ascii ab ...').\n"
		 "\n"
		 "Modes:\n"
		 "  always, madvise, never   switch the host's 'enabled' policy for the run\n"
		 "                           (root); the prior policy is restored after, also\n"
		 "                           on signals\n"
		 "  disabled                 run CMD with PR_SET_THP_DISABLE (no root needed)\n"
		 "  current                  run CMD under the host's prior policy",
	.width = 21,
	.opts = opts,
	.cols = cols,
	.ncols = NARM,
	.in_order = true,
};

/* Runs N rounds over every arm, the order rotated each round. Returns 0 or 1. */
static int run_all(struct ab *a)
{
	struct tree *t = malloc(sizeof(*t));
	int rc = 0;

	if (!t) {
		thp_err("out of memory");
		return 1;
	}
	out_progress_init(&a->progress);
	a->progress.tty = a->progress.tty && !a->fmt.json && !a->show_output;
	for (int round = 0; round < a->n && !rc; round++) {
		for (int i = 0; i < a->modes.n && !rc && !modes_signal(); i++) {
			struct run *r = &a->runs[a->nruns];
			r->round = round;
			r->arm = (i + round) % a->modes.n;
			rc = run_once(a, a->modes.word[r->arm], r, t);
			if (!rc)
				a->nruns++;
		}
	}
	out_progress_end(&a->progress);
	free(t);
	return rc;
}

int cmd_ab(struct thp_ctx *ctx, int argc, char **argv)
{
	static const char *const allowed[] = { "always", "madvise", "never", "disabled", "current", NULL };
	struct ab a = { .ctx = ctx, .n = 5 };
	const char *list = geteuid() == 0 ? "always,madvise,never" : "current,disabled";
	struct thp_busy busy;
	struct thp_setting en;
	char span[96], why[4400] = "";
	int c, rc = 0, failed = 0, last = 0, all[NARM];

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		if (out_fmt_opt(&a.fmt, c, optarg))
			continue;
		switch (c) {
		case 'm': list = optarg; break;
		case 'N':
			if (!thp_opt_int("--reps", optarg, 1, 100, &a.n))
				return 2;
			break;
		case 'S': a.show_output = true; break;
		case 'q': a.modes.quiet = true; break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	a.fmt.json = ctx->json;
	if (optind >= argc) {
		thp_err("no command given; usage: thp ab [options] -- CMD [ARGS...]");
		return thp_usage_error("ab");
	}
	/* 'ab -n 3 -- CMD' of old: -n is --noheadings now */
	if (strcmp(argv[optind - 1], "--") != 0 && argv[optind][strspn(argv[optind], "0123456789")] == '\0') {
		thp_err("'%s' is not a command; the runs per arm are -N N (-n is --noheadings)", argv[optind]);
		return thp_usage_error("ab");
	}
	if (modes_parse(list, allowed, &a.modes))
		return 2;
	for (int i = 0; i < NARM; i++)
		all[i] = i;
	/* text without -o leaves out the comparison, said under the table */
	if ((a.nsel = out_cols_select(cols, NARM, &a.fmt, all, a.fmt.json ? NARM : C_RATIO, a.sel, 2 * NARM)) < 0)
		return 2;
	if (modes_need_thp(ctx))
		return 1;
	for (int i = 0; i < a.modes.n; i++) {
		char what[96];

		snprintf(what, sizeof(what), "mode '%s', which switches the host's 'enabled' policy,",
			 a.modes.word[i]);
		if (modes_switches(a.modes.word[i]) && thp_need_root(ctx, what))
			return 1;
	}
	a.cmd = argv + optind;
	thp_tlb_walk_find(&ctx->root, &a.walk);
	a.runs = calloc((size_t)a.n * (size_t)a.modes.n, sizeof(*a.runs));
	if (!a.runs) {
		thp_err("out of memory");
		return 1;
	}
	thp_setting_read(&ctx->root, "sys/kernel/mm/transparent_hugepage/enabled", "enabled", &en);
	thp_busy_sample(&ctx->root, 250, &busy);
	snprintf(span, sizeof(span), "for %d run%s of the command under each mode", a.n,
		 a.n == 1 ? "" : "s");
	if (modes_switching(&a.modes) && (rc = thp_change_begin(ctx, "switching the THP policy")) == 0) {
		struct thp_recovery *r = thp_recover(&ctx->root, false);
		rc = thp_recovery_report(r);
		free(r);
	}
	if (rc || modes_begin(&ctx->root, &a.modes, why, sizeof(why))) {
		if (why[0])
			thp_err("%s", why);
		free(a.runs);
		return 1;
	}
	if (modes_switching(&a.modes) && !a.modes.quiet)
		out_modes_notice(&a.modes, modes_prior(), span);
	rc = run_all(&a);
	if (modes_end(why, sizeof(why))) {
		thp_err("%s", why);
		rc = 1;
	}
	if (modes_signal()) {
		free(a.runs);
		return thp_die_by(modes_signal());
	}
	if (rc) {
		free(a.runs);
		return rc;
	}
	for (int i = 0; i < a.nruns; i++) {
		if (a.runs[i].status) {
			failed++;
			last = a.runs[i].status;
		}
	}
	const char *enabled = thp_setting_word(&en) ? thp_setting_word(&en) : "unknown";
	if (!a.fmt.json && thp_busy_noisy(&busy))
		out_busy_warning(&busy, "noise may dominate the differences");
	rc = print(&a, &busy, enabled);
	if (failed) {
		thp_err("'%s' failed in %d of %d runs (last: %s %d)", a.cmd[0], failed, a.nruns,
			WIFEXITED(last) ? "exit status" : "signal",
			WIFEXITED(last) ? WEXITSTATUS(last) : WTERMSIG(last));
		rc = 1;
	}
	free(a.runs);
	return rc;
}
