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

#include "../control/control.h"
#include "../core/exp.h"
#include "../core/parse.h"
#include "../core/proc.h"
#include "../core/tlbcount.h"
#include "../render/render.h"
#include "../render/term.h"
#include "cmd.h"
#include "opt.h"
#include "modes.h"

#define RUNS_MAX 1000
#define TREE_MAX 4096
#define SAMPLE_MS 10

/* M_DTLB and M_MPKI come from the CPU's counters, when it has them (ab.tlb_err 0) */
enum metric { M_WALL, M_USER, M_SYS, M_RSS, M_FLT, M_HUGE, M_DTLB, M_MPKI, M_COUNT };
/* The columns of the table: ARM, then metric M in column M + 1. */
#define COL(m) ((m) + 1)
#define NCOLS COL(M_COUNT)
static const struct out_col cols[NCOLS] = {
	{ "ARM", OUT_TEXT, OUT_KEEP, "the mode CMD ran under", NULL, 0 },
	[COL(M_WALL)] = { "WALL", OUT_NS, OUT_KEEP, "elapsed time: min / median / max", NULL, 0 },
	[COL(M_USER)] = { "USER", OUT_NS, 0, "CPU time in user mode", NULL, 0 },
	[COL(M_SYS)] = { "SYS", OUT_NS, 0, "CPU time in the kernel", NULL, 0 },
	[COL(M_RSS)] = { "MAX_RSS", OUT_SIZE, 0, "the largest resident memory of a process", NULL, 0 },
	[COL(M_FLT)] = { "MINOR_FAULTS", OUT_COUNT, 0, "minor page faults", NULL, 0 },
	[COL(M_HUGE)] = { "ANONHUGE_PEAK", OUT_SIZE, OUT_KEEP, "the most AnonHugePages of CMD's process tree (sampled)",
			  NULL, 0 },
	[COL(M_DTLB)] = { "DTLB_MISSES", OUT_COUNT, 0, "dTLB misses (CPU counters)", NULL, 0 },
	[COL(M_MPKI)] = { "DTLB_MPKI", OUT_NUM, OUT_KEEP, "dTLB misses per thousand instructions", NULL, 0 },
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
	int sel[2 * NCOLS], nsel;
	char **cmd;
	int nruns;
	struct run *runs;
	struct thp_tlb_walk walk;
	int tlb_err; /* why the command's dTLB misses are not counted (0: they are) */
	struct out_progress progress; /* off with JSON and --show-output */
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
	int ep[2], gp[2], err = 0;
	struct thp_tlb_thread tc;
	bool counting;
	uint64_t t0, peak = 0;
	struct rusage ru;
	pid_t pid;
	int pfd = -1;

	if (modes_apply(mode))
		return 1;
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

static struct json_object *json_stats(struct thp_stats s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "min", json_object_new_double(s.min));
	json_object_object_add(o, "median", json_object_new_double(s.median));
	json_object_object_add(o, "max", json_object_new_double(s.max));
	return o;
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

/* Cell of metric M of ARM: WALL as min / median / max, ANONHUGE_PEAK its
 * largest sample, the others their median; "-" and null when not counted. */
static void metric_cell(struct out_table *t, const struct ab *a, int arm, int m)
{
	struct thp_stats s = arm_stats(a, arm, m);
	char cell[64], x[32], y[32], z[32];

	if (!counted(a, m))
		out_cell(t, COL(m), "-", NULL);
	else if (m == M_WALL)
		out_cell(t, COL(m),
			 (snprintf(cell, sizeof(cell), "%s / %s / %s", fmt(a, m, s.min, x, sizeof(x)),
				   fmt(a, m, s.median, y, sizeof(y)), fmt(a, m, s.max, z, sizeof(z))),
			  cell),
			 json_stats(s));
	else
		out_cell(t, COL(m), fmt(a, m, m == M_HUGE ? s.max : s.median, cell, sizeof(cell)), json_stats(s));
}

/* The arms as a table of the chosen columns (without -o, the dTLB ones only
 * when counted): printed, or the rows of JSON. */
static struct json_object *put_arms(const struct ab *a)
{
	int nsel = !a->fmt.list && !a->fmt.json && a->tlb_err ? COL(M_DTLB) : a->nsel;
	struct out_table *t = out_table_cols(cols, a->sel, nsel, &a->fmt);

	for (int arm = 0; arm < a->modes.n; arm++) {
		out_table_line(t);
		out_cell_str(t, 0, a->modes.word[arm]);
		for (int m = 0; m < M_COUNT; m++)
			metric_cell(t, a, arm, m);
	}
	if (a->fmt.json)
		return out_table_json(t);
	out_table_print(t, 2);
	return NULL;
}

static int print_json(const struct ab *a, const struct thp_busy *busy, const char *enabled)
{
	struct json_object *o = json_object_new_object(), *cmd = json_object_new_array();
	struct json_object *arms = put_arms(a), *runs = json_object_new_array();

	json_object_object_add(o, "schema", json_object_new_string("thp-ab/2"));
	for (int i = 0; a->cmd[i]; i++)
		json_object_array_add(cmd, json_object_new_string(a->cmd[i]));
	json_object_object_add(o, "command", cmd);
	json_object_object_add(o, "runs_per_arm", json_object_new_int(a->n));
	json_object_object_add(o, "enabled", json_object_new_string(enabled));
	json_object_object_add(o, "busy", json_object_new_boolean(thp_busy_noisy(busy)));
	json_object_object_add(o, "load1", json_object_new_double(busy->load1));
	json_object_object_add(o, "ncpu", json_object_new_int(busy->ncpu));
	json_object_object_add(o, "dtlb_unavailable",
			       a->tlb_err ? json_object_new_string(thp_tlb_unavailable(a->tlb_err)) : NULL);
	for (int arm = 1; arm < a->modes.n && !a->fmt.list; arm++) {
		struct json_object *x = json_object_array_get_idx(arms, (size_t)arm);
		struct thp_stats s0 = arm_stats(a, 0, M_WALL), s = arm_stats(a, arm, M_WALL);
		json_object_object_add(x, "wall_ratio", json_object_new_double(ratio(a, arm, M_WALL)));
		json_object_object_add(x, "wall_overlaps_baseline", json_object_new_boolean(thp_stats_overlap(&s0, &s)));
	}
	json_object_object_add(o, "arms", arms);
	for (int i = 0; i < a->nruns; i++) {
		const struct run *r = &a->runs[i];
		struct json_object *x = json_object_new_object();
		json_object_object_add(x, "round", json_object_new_int(r->round));
		json_object_object_add(x, "arm", json_object_new_string(a->modes.word[r->arm]));
		for (int m = 0; m < M_COUNT; m++) {
			char key[32];
			json_object_object_add(x, out_col_key(&cols[COL(m)], key, sizeof(key)),
					       !counted(a, m) ? NULL
					       : cols[COL(m)].kind == OUT_NS || cols[COL(m)].kind == OUT_NUM
						       ? json_object_new_double(r->m[m])
						       : out_json_u64((uint64_t)(r->m[m] + 0.5)));
		}
		json_object_object_add(x, "exit",
				       json_object_new_int(WIFEXITED(r->status) ? WEXITSTATUS(r->status)
										: 128 + WTERMSIG(r->status)));
		json_object_array_add(runs, x);
	}
	json_object_object_add(o, "runs", runs);
	return out_json_print(o) ? 1 : 0;
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

static void print_text(const struct ab *a, const char *enabled)
{
	char label[2 * MODE_LEN + 8], text[256];

	printf("ab: %d run%s per arm, arms rotated each round; host enabled=%s\n  command:", a->n,
	       a->n == 1 ? "" : "s", enabled);
	for (int i = 0; a->cmd[i]; i++) {
		putchar(' ');
		out_esc_put(stdout, a->cmd[i]);
	}
	puts("\n  (WALL: min / median / max; ANONHUGE_PEAK: the largest sample; others: medians)");
	put_arms(a);
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

static void columns_help(void)
{
	out_cols_help("Columns:", cols, NCOLS);
}

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
	.after = columns_help,
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
	char span[96];
	int c, rc, failed = 0, last = 0, all[NCOLS];

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
	for (int i = 0; i < NCOLS; i++)
		all[i] = i;
	if ((a.nsel = out_cols_select(cols, NCOLS, &a.fmt, all, NCOLS, a.sel, 2 * NCOLS)) < 0)
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
	if (modes_begin(ctx, &a.modes, span)) {
		free(a.runs);
		return 1;
	}
	rc = run_all(&a);
	if (modes_end())
		rc = 1;
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
	if (a.fmt.json) {
		rc = print_json(&a, &busy, enabled);
	} else {
		if (thp_busy_noisy(&busy))
			busy_warning(&busy, "noise may dominate the differences");
		print_text(&a, enabled);
	}
	if (failed) {
		thp_err("'%s' failed in %d of %d runs (last: %s %d)", a.cmd[0], failed, a.nruns,
			WIFEXITED(last) ? "exit status" : "signal",
			WIFEXITED(last) ? WEXITSTATUS(last) : WTERMSIG(last));
		rc = 1;
	}
	free(a.runs);
	return rc;
}
