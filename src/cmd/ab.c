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
#include "modes.h"

#define RUNS_MAX 1000
#define TREE_MAX 4096
#define SAMPLE_MS 10

/* M_DTLB and M_MPKI come from the CPU's counters, when it has them (ab.tlb_err 0) */
enum metric { M_WALL, M_USER, M_SYS, M_RSS, M_FLT, M_HUGE, M_DTLB, M_MPKI, M_COUNT };
static const struct {
	const char *key, *head;
	bool time;
} metrics[M_COUNT] = {
	{ "wall_ns", "WALL", true },     { "user_ns", "USER", true },
	{ "sys_ns", "SYS", true },       { "max_rss", "MAX RSS", false },
	{ "minor_faults", "MINOR FAULTS", false }, { "anon_huge_peak", "ANONHUGE PEAK", false },
	{ "dtlb_misses", "DTLB MISSES", false }, { "dtlb_mpki", "DTLB MPKI", false },
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
	bool show_output, bytes;
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
		thp_err("ab: cannot create a pipe: %s", strerror(errno));
		return 1;
	}
	if (pipe2(gp, O_CLOEXEC)) { /* the command waits on it until its counters are open */
		thp_err("ab: cannot create a pipe: %s", strerror(errno));
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
		thp_err("ab: cannot fork: %s", strerror(errno));
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
		thp_err("ab: cannot run '%s': %s", a->cmd[0], strerror(err));
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
	if (metrics[m].time)
		return out_ns(buf, cap, x);
	if (m == M_FLT || m == M_DTLB)
		return out_count(buf, cap, (uint64_t)(x + 0.5));
	if (m == M_MPKI) {
		snprintf(buf, cap, "%.3f", x);
		return buf;
	}
	return out_size(buf, cap, (uint64_t)(x + 0.5), a->bytes);
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

static int print_json(const struct ab *a, const struct thp_busy *busy, const char *enabled)
{
	struct json_object *o = json_object_new_object(), *cmd = json_object_new_array();
	struct json_object *arms = json_object_new_array(), *runs = json_object_new_array();

	json_object_object_add(o, "schema", json_object_new_string("thp-ab/1"));
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
	for (int arm = 0; arm < a->modes.n; arm++) {
		struct json_object *x = json_object_new_object();
		json_object_object_add(x, "arm", json_object_new_string(a->modes.word[arm]));
		for (int m = 0; m < M_COUNT; m++)
			json_object_object_add(x, metrics[m].key,
					       counted(a, m) ? json_stats(arm_stats(a, arm, m)) : NULL);
		if (arm) {
			struct thp_stats s0 = arm_stats(a, 0, M_WALL), s = arm_stats(a, arm, M_WALL);
			json_object_object_add(x, "wall_ratio", json_object_new_double(ratio(a, arm, M_WALL)));
			json_object_object_add(x, "wall_overlaps_baseline",
					       json_object_new_boolean(thp_stats_overlap(&s0, &s)));
		}
		json_object_array_add(arms, x);
	}
	json_object_object_add(o, "arms", arms);
	for (int i = 0; i < a->nruns; i++) {
		const struct run *r = &a->runs[i];
		struct json_object *x = json_object_new_object();
		json_object_object_add(x, "round", json_object_new_int(r->round));
		json_object_object_add(x, "arm", json_object_new_string(a->modes.word[r->arm]));
		for (int m = 0; m < M_COUNT; m++)
			json_object_object_add(x, metrics[m].key,
					       !counted(a, m) ? NULL
					       : metrics[m].time || m == M_MPKI ? json_object_new_double(r->m[m])
					       : out_json_u64((uint64_t)(r->m[m] + 0.5)));
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
	static const char *const heads[M_COUNT + 1] = { "ARM", "WALL MIN/MED/MAX", "USER", "SYS",
							"MAX RSS", "MINOR FAULTS", "ANONHUGE PEAK",
							"DTLB MISSES", "DTLB MPKI" };
	int ncols = a->tlb_err ? M_DTLB + 1 : M_COUNT + 1;
	struct out_table *t = out_table_new(ncols, heads, false);
	char cells[M_COUNT + 1][64], x[32], y[32], z[32];

	printf("ab: %d run%s per arm, arms rotated each round; host enabled=%s\n  command:", a->n,
	       a->n == 1 ? "" : "s", enabled);
	for (int i = 0; a->cmd[i]; i++) {
		putchar(' ');
		out_esc_put(stdout, a->cmd[i]);
	}
	printf("\n  (USER, SYS, MAX RSS, MINOR FAULTS%s: medians; ANONHUGE PEAK: the largest sample)\n",
	       a->tlb_err ? "" : ", DTLB MISSES, DTLB MPKI");
	for (int c = 1; c < ncols; c++)
		out_table_right(t, c);
	for (int arm = 0; arm < a->modes.n; arm++) {
		struct thp_stats w = arm_stats(a, arm, M_WALL);
		const char *row[M_COUNT + 1] = { a->modes.word[arm], cells[1] };
		snprintf(cells[1], sizeof(cells[1]), "%s / %s / %s", fmt(a, M_WALL, w.min, x, sizeof(x)),
			 fmt(a, M_WALL, w.median, y, sizeof(y)), fmt(a, M_WALL, w.max, z, sizeof(z)));
		for (int m = M_USER; m < ncols - 1; m++) {
			struct thp_stats s = arm_stats(a, arm, m);
			row[m + 1] = fmt(a, m, m == M_HUGE ? s.max : s.median, cells[m + 1], sizeof(cells[0]));
		}
		out_table_row(t, row);
	}
	out_table_print(t, 2);
	print_chart(a);
	if (a->tlb_err)
		printf("  dTLB counters: none, %s (perf_event_open: %s)\n", thp_tlb_unavailable(a->tlb_err),
		       strerror(-a->tlb_err));
	for (int arm = 1; arm < a->modes.n; arm++) {
		struct thp_stats s0 = arm_stats(a, 0, M_WALL), s = arm_stats(a, arm, M_WALL);
		bool overlap = thp_stats_overlap(&s0, &s);
		printf("%s / %s: wall median ratio %.3f, max RSS median ratio %.3f; %s\n",
		       a->modes.word[arm], a->modes.word[0], ratio(a, arm, M_WALL), ratio(a, arm, M_RSS),
		       a->n < 3 ? "too few runs to judge (use -n 3 or more)"
		       : overlap ? "the wall ranges overlap: no claimable difference"
				 : "the wall ranges do not overlap");
	}
}

static void usage(void)
{
	puts("Usage: thp ab [options] -- CMD [ARGS...]\n"
	     "\n"
	     "Run CMD N times under each THP mode, rotating the order of the arms every round\n"
	     "(ABC, BCA, CAB, ...), and compare wall time, CPU time, max RSS, minor faults and\n"
	     "the peak AnonHugePages of the command's process tree. The median wall times\n"
	     "are drawn as bars under the table (in ASCII with 'thp --ascii ab ...').\n"
	     "\n"
	     "Modes:\n"
	     "  always, madvise, never   switch the host's 'enabled' policy for the run (root);\n"
	     "                           the prior policy is restored after, also on signals\n"
	     "  disabled                 run CMD with PR_SET_THP_DISABLE (no root needed)\n"
	     "  current                  run CMD under the host's prior policy\n"
	     "\n"
	     "Options:\n"
	     "  -m, --modes LIST   comma-separated modes (default: always,madvise,never as root,\n"
	     "                     current,disabled otherwise)\n"
	     "  -n, --runs N       runs per arm (default 5)\n"
	     "      --show-output  let CMD write to the terminal (default: /dev/null)\n"
	     "  -q, --quiet        no notice on stderr of the policy the modes switch\n"
	     "  -b, --bytes        print sizes in bytes\n"
	     "  -J, --json         one JSON document with every run\n"
	     "  -h, --help         show this help");
}

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
	a->progress.tty = a->progress.tty && !a->ctx->json && !a->show_output;
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
	static const struct option lo[] = {
		{ "modes", required_argument, NULL, 'm' }, { "runs", required_argument, NULL, 'n' },
		{ "show-output", no_argument, NULL, 'o' }, { "bytes", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'J' },        { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 },
	};
	static const char *const allowed[] = { "always", "madvise", "never", "disabled", "current", NULL };
	struct ab a = { .ctx = ctx, .n = 5 };
	const char *list = geteuid() == 0 ? "always,madvise,never" : "current,disabled";
	struct thp_busy busy;
	struct thp_setting en;
	int c, rc, failed = 0, last = 0;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+m:n:bJqh", lo, NULL)) != -1) {
		switch (c) {
		case 'm': list = optarg; break;
		case 'n':
			if (!thp_opt_int("ab", "--runs", optarg, 1, 100, &a.n))
				return 2;
			break;
		case 'o': a.show_output = true; break;
		case 'q': a.modes.quiet = true; break;
		case 'b': a.bytes = true; break;
		case 'J': ctx->json = true; break;
		case 'h': usage(); return 0;
		default: return thp_usage_error("ab");
		}
	}
	if (optind >= argc) {
		thp_err("ab: no command given; usage: thp ab [options] -- CMD [ARGS...]");
		return thp_usage_error("ab");
	}
	if (modes_parse("ab", list, allowed, &a.modes))
		return 2;
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
	if (modes_begin(ctx, "ab", &a.modes)) {
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
	if (ctx->json) {
		rc = print_json(&a, &busy, enabled);
	} else {
		if (thp_busy_noisy(&busy))
			busy_warning(&busy, "noise may dominate the differences");
		print_text(&a, enabled);
	}
	if (failed) {
		thp_err("ab: '%s' failed in %d of %d runs (last: %s %d)", a.cmd[0], failed, a.nruns,
			WIFEXITED(last) ? "exit status" : "signal",
			WIFEXITED(last) ? WEXITSTATUS(last) : WTERMSIG(last));
		rc = 1;
	}
	free(a.runs);
	return rc;
}
