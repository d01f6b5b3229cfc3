/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench.c - `thp bench NAME`: measured demonstrations of one THP mechanism each,
 * with the kernel's own evidence (vmstat deltas, smaps of the mapping) beside the times */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../control/change.h"
#include "../control/control.h"
#include "../control/modes.h"
#include "../core/exp.h"
#include "../core/parse.h"
#include "../core/tlbcount.h"
#include "../render/change.h"
#include "../render/render.h"
#include "../render/term.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

#define REPS_MAX 100
#define COLS_MAX 12
#define ARMS_MAX 12
#define TEXT_LEN 24
#define TIMELINE_MAX 256
#define MIB (1ull << 20)
#define CHART_COLS 2

/* The columns of one experiment's table: ARM, then one a figure of a run,
 * its index among the run's figures in arg (A_RATIO: a ratio, "1.50x" in
 * text). */
struct table {
	const struct out_col *cols;
	int n;
};
#define TABLE(c) { (c), (int)(sizeof(c) / sizeof((c)[0])) }
#define A_RATIO 0x100
static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v);
/* The first column of every table, and those several experiments have (F: OUT_KEEP or 0). */
#define COL_ARM { "ARM", OUT_TEXT, OUT_KEEP, "the arm: what the rows compare", get, -1 }
#define COL_FAULTS(i) { "FAULTS", OUT_COUNT, 0, "minor page faults", get, (i) }
#define COL_WRITES(i) { "WRITES", OUT_COUNT, 0, "one-byte writes", get, (i) }
#define COL_RSS(i, f) { "RSS", OUT_SIZE, (f), "resident memory of the region (smaps Rss)", get, (i) }
#define COL_ANONHUGE(i) { "ANONHUGE", OUT_SIZE, OUT_KEEP, "of it in huge pages (AnonHugePages)", get, (i) }
#define COL_ALLOC(i) { "FAULT_ALLOC+", OUT_COUNT, 0, "huge pages allocated at a fault (vmstat, the increase)", get, (i) }
#define COL_SPLIT(i, f) \
	{ "SPLIT_PMD+", OUT_COUNT, (f), "PMD mappings split into PTEs (vmstat, the increase)", get, (i) }

struct arm {
	char name[32];
	double v[COLS_MAX][REPS_MAX];
	char text[COLS_MAX][TEXT_LEN];
	bool missing[COLS_MAX]; /* no figure (a counter the CPU does not expose) */
};

struct point {
	double t;
	uint64_t anon_huge, collapsed, scans;
};

struct bench {
	struct thp_ctx *ctx;
	const struct experiment *x;
	/* options */
	uint64_t size, step, loads;
	int reps, timeout;
	bool sweep, writer_parent;
	struct out_fmt fmt;
	/* the table: its columns, the experiment's after ARM (NCOLS, the index of
	 * a run's figure), those chosen */
	const struct table *table;
	const struct out_col *cols;
	int ncols;
	int sel[2 * (COLS_MAX + 1)], nsel;
	struct out_stats st; /* the figures of the cell a getter gives */
	/* results of one mode */
	int narms;
	int chart[CHART_COLS]; /* columns drawn as bars under the table (medians); -1: none */
	struct arm arms[ARMS_MAX];
	char reading[768];
	char note[512];
	int npoints;
	struct point timeline[TIMELINE_MAX];
};

struct experiment {
	const char *name, *summary;
	uint64_t size; /* default region size */
	int reps;      /* default repetitions */
	struct table table, sweep; /* the columns; with --sweep (n 0: no sweep) */
	/* names the arms and the charted columns */
	void (*setup)(struct bench *b);
	/* runs one repetition of ARM into V (one value per column) and T (text columns);
	 * returns 0 or -errno of a failure that ends the experiment */
	int (*run)(struct bench *b, int arm, double *v, char (*t)[TEXT_LEN], bool *missing);
	/* writes b->reading from the results */
	void (*read)(struct bench *b);
};

/* ---- helpers ---- */

/* A non-negative measurement rounded to an integer. */
static uint64_t u64r(double x)
{
	return x > 0 ? (uint64_t)(x + 0.5) : 0;
}

static const char *errname(int err)
{
	static const struct { int e; const char *n; } names[] = {
		{ 0, "ok" },          { EINVAL, "EINVAL" }, { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },
		{ EPERM, "EPERM" },   { EACCES, "EACCES" }, { EBUSY, "EBUSY" },   { EFAULT, "EFAULT" },
		{ ENOSYS, "ENOSYS" }, { ENOENT, "ENOENT" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ ENODEV, "ENODEV" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == -err)
			return names[i].n;
	return "error";
}

static void set_text(char (*t)[TEXT_LEN], int col, const char *s)
{
	snprintf(t[col], TEXT_LEN, "%s", s);
}

static double med(const struct bench *b, int arm, int col)
{
	return thp_stats_of(b->arms[arm].v[col], b->reps).median;
}

static struct thp_stats stats(const struct bench *b, int arm, int col)
{
	return thp_stats_of(b->arms[arm].v[col], b->reps);
}

static const char *sz(char *buf, size_t cap, double bytes)
{
	return out_size(buf, cap, u64r(bytes), false);
}

static const char *cnt(char *buf, size_t cap, double n)
{
	return out_count(buf, cap, u64r(n));
}

/* Appends printf text to the reading. */
__attribute__((format(printf, 2, 3))) static void say(struct bench *b, const char *fmt, ...)
{
	size_t n = strlen(b->reading);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->reading + n, sizeof(b->reading) - n, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void note(struct bench *b, const char *fmt, ...)
{
	size_t n = strlen(b->note);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->note + n, sizeof(b->note) - n, fmt, ap);
	va_end(ap);
}

/* Says how the times of column COL compare between arms X and Y: medians, and
 * whether the ranges of the runs overlap (then no difference can be claimed). */
static void say_times(struct bench *b, int col, int x, int y, const char *what)
{
	struct thp_stats sx = stats(b, x, col), sy = stats(b, y, col);
	char a[32], c[32];

	say(b, "%s: %s with %s, %s with %s (medians); ", what, out_ns(a, sizeof(a), sx.median),
	    b->arms[x].name, out_ns(c, sizeof(c), sy.median), b->arms[y].name);
	if (b->reps < 3)
		say(b, "use -N 3 or more before claiming a difference.");
	else if (thp_stats_overlap(&sx, &sy))
		say(b, "the ranges overlap: no claimable difference.");
	else
		say(b, "the ranges do not overlap: %s takes %.2fx the time of %s.", b->arms[y].name,
		    sy.median / sx.median, b->arms[x].name);
}

static void arms(struct bench *b, const char *const *names)
{
	for (b->narms = 0; names[b->narms]; b->narms++)
		snprintf(b->arms[b->narms].name, sizeof(b->arms[0].name), "%s", names[b->narms]);
}

/* Number of writes of one byte every STEP into SIZE bytes. */
static double writes_of(uint64_t size, uint64_t step)
{
	uint64_t n = (size + step - 1) / step;
	return (double)n;
}

/* Maps the region of one repetition, 2 MiB-aligned (fault excepted: it shows
 * where the kernel places a mapping), with ADVICE (-1: none) applied. */
static int map(struct bench *b, struct thp_region *r, int advice)
{
	int err = thp_region_map(r, b->size, strcmp(b->x->name, "fault") != 0);

	if (!err && advice >= 0 && (err = thp_region_advise(r, advice)))
		thp_region_unmap(r);
	return err;
}

/* The smaps fields of region R in the calling process. */
static void vma_of(struct bench *b, const struct thp_region *r, pid_t pid, struct thp_vma *v)
{
	thp_vma_find(&b->ctx->root, pid, (uint64_t)(uintptr_t)r->addr, v);
}

/* Puts the process's THP mode back to PRIOR, as thp_mode_get() returned it. */
static void mode_restore(int prior)
{
	thp_mode_set(prior > 0 ? (enum thp_mode)prior : THP_MODE_ENABLED);
}

/* Faults every page of R in with 4 KiB pages whatever the policy, by turning THP
 * off for the process while touching (PR_SET_THP_DISABLE) and back to PRIOR after. */
static void touch_small(const struct thp_region *r, int prior)
{
	thp_mode_set(THP_MODE_DISABLED);
	thp_touch(r, 4096, true);
	mode_restore(prior);
}

/* ---- fault: first touch, plain vs MADV_HUGEPAGE ---- */

enum { F_ALIGNED, F_FAULTS, F_TIME, F_RSS, F_HUGE, F_ALLOC, F_FALLBACK, F_STALL };
static const struct out_col fault_cols[] = {
	COL_ARM,
	{ "2M-ALIGNED", OUT_BOOL, 0, "the region starts on a 2 MiB boundary", get, F_ALIGNED },
	COL_FAULTS(F_FAULTS),
	{ "TOUCH", OUT_NS, OUT_KEEP, "time to write every page once", get, F_TIME },
	COL_RSS(F_RSS, 0),
	COL_ANONHUGE(F_HUGE),
	COL_ALLOC(F_ALLOC),
	{ "FALLBACK+", OUT_COUNT, OUT_KEEP, "faults that fell back to 4 KiB pages (vmstat)", get, F_FALLBACK },
	{ "COMPACT_STALL+", OUT_COUNT, OUT_KEEP, "direct compaction stalls (vmstat)", get, F_STALL },
};

static void fault_setup(struct bench *b)
{
	static const char *const n[] = { "plain", "MADV_HUGEPAGE", NULL };
	arms(b, n);
	b->chart[0] = F_TIME;
}

static int fault_run(struct bench *b, int arm, double *v, char (*t)[TEXT_LEN], bool *missing)
{
	struct thp_region r;
	struct thp_vmstat s0, s1;
	struct thp_vma vma = { 0 };
	uint64_t t0;
	int err = map(b, &r, arm ? MADV_HUGEPAGE : -1);

	(void)t;
	(void)missing;
	if (err)
		return err;
	thp_vmstat_snap(&b->ctx->root, &s0);
	t0 = thp_now_ns();
	v[F_FAULTS] = (double)thp_touch(&r, 4096, true);
	v[F_TIME] = (double)(thp_now_ns() - t0);
	thp_vmstat_snap(&b->ctx->root, &s1);
	vma_of(b, &r, 0, &vma);
	v[F_ALIGNED] = (uintptr_t)r.addr % THP_PMD_BYTES == 0;
	v[F_RSS] = (double)vma.m.rss;
	v[F_HUGE] = (double)vma.m.anon_huge;
	v[F_ALLOC] = (double)thp_vmstat_delta(&s0, &s1, "thp_fault_alloc");
	v[F_FALLBACK] = (double)thp_vmstat_delta(&s0, &s1, "thp_fault_fallback");
	v[F_STALL] = (double)thp_vmstat_delta(&s0, &s1, "compact_stall");
	thp_region_unmap(&r);
	return 0;
}

static void fault_read(struct bench *b)
{
	char a[32], c[32], d[32], e[32], f[32], g[32];
	double huge = med(b, 1, F_HUGE), blocks = (double)b->size / THP_PMD_BYTES;

	if (huge == 0) {
		say(b, "MADV_HUGEPAGE got no huge pages here: every 4 KiB page took its own fault "
		       "(%s faults).", cnt(a, sizeof(a), med(b, 1, F_FAULTS)));
	} else if (med(b, 0, F_HUGE) > 0) {
		say(b, "Both arms got huge pages (plain memory too: enabled=always): %s faults with "
		       "MADV_HUGEPAGE, %s plain, one per 2 MiB where a huge page was placed; %s of %s "
		       "huge, %s fallbacks, %s compaction stalls with MADV_HUGEPAGE.",
		    cnt(a, sizeof(a), med(b, 1, F_FAULTS)), cnt(c, sizeof(c), med(b, 0, F_FAULTS)),
		    sz(d, sizeof(d), huge), sz(e, sizeof(e), (double)b->size),
		    cnt(f, sizeof(f), med(b, 1, F_FALLBACK)), cnt(g, sizeof(g), med(b, 1, F_STALL)));
	} else {
		say(b, "MADV_HUGEPAGE: %s faults instead of %s (one per 2 MiB instead of one per 4 KiB); "
		       "%s of %s huge, %s fallbacks, %s compaction stalls.",
		    cnt(a, sizeof(a), med(b, 1, F_FAULTS)), cnt(c, sizeof(c), med(b, 0, F_FAULTS)),
		    sz(d, sizeof(d), huge), sz(e, sizeof(e), (double)b->size),
		    cnt(f, sizeof(f), med(b, 1, F_FALLBACK)), cnt(g, sizeof(g), med(b, 1, F_STALL)));
	}
	if (stats(b, 0, F_ALIGNED).min == 0 || stats(b, 1, F_ALIGNED).min == 0)
		say(b, " The kernel did not always place the mapping on a 2 MiB boundary: its ragged ends "
		       "can only use 4 KiB pages.");
	say(b, " Touch time is the first-touch cost (zeroing, faults, compaction), not what THP "
	       "saves later; %.0f blocks of 2 MiB fit the region.", blocks);
}

/* ---- bloat: one byte every STEP, plain vs MADV_HUGEPAGE ---- */

enum { B_STEP, B_WRITES, B_FAULTS, B_RSS, B_HUGE };
static const struct out_col bloat_cols[] = {
	COL_ARM,
	{ "STEP", OUT_SIZE, OUT_KEEP, "one byte is written every STEP", get, B_STEP },
	COL_WRITES(B_WRITES),
	COL_FAULTS(B_FAULTS),
	COL_RSS(B_RSS, OUT_KEEP),
	COL_ANONHUGE(B_HUGE),
};
enum { S_WRITES, S_PLAIN, S_HINTED, S_HUGE, S_RATIO };
static const struct out_col sweep_cols[] = {
	COL_ARM,
	COL_WRITES(S_WRITES),
	{ "PLAIN_RSS", OUT_SIZE, OUT_KEEP, "Rss without advice", get, S_PLAIN },
	{ "HINTED_RSS", OUT_SIZE, OUT_KEEP, "Rss with MADV_HUGEPAGE", get, S_HINTED },
	{ "HINTED_ANONHUGE", OUT_SIZE, 0, "AnonHugePages with MADV_HUGEPAGE", get, S_HUGE },
	{ "RATIO", OUT_NUM, OUT_KEEP, "HINTED_RSS / PLAIN_RSS", get, S_RATIO | A_RATIO },
};
#define SWEEP_STEPS 10 /* 2 MiB down to 4 KiB */

static void bloat_setup(struct bench *b)
{
	static const char *const n[] = { "plain", "MADV_HUGEPAGE", NULL };

	if (!b->sweep) {
		arms(b, n);
		return;
	}
	b->chart[0] = S_PLAIN;
	b->chart[1] = S_HINTED;
	b->narms = SWEEP_STEPS;
	for (int i = 0; i < SWEEP_STEPS; i++)
		out_size(b->arms[i].name, sizeof(b->arms[i].name), (uint64_t)THP_PMD_BYTES >> i, false);
}

/* Writes one byte every STEP into a fresh region; returns Rss and AnonHugePages. */
static int bloat_one(struct bench *b, size_t step, bool hinted, uint64_t *faults, double *rss,
		     double *huge)
{
	struct thp_region r;
	struct thp_vma vma = { 0 };
	int err = map(b, &r, hinted ? MADV_HUGEPAGE : -1);

	if (err)
		return err;
	*faults = thp_touch(&r, step, true);
	vma_of(b, &r, 0, &vma);
	*rss = (double)vma.m.rss;
	*huge = (double)vma.m.anon_huge;
	thp_region_unmap(&r);
	return 0;
}

static int bloat_run(struct bench *b, int arm, double *v, char (*t)[TEXT_LEN], bool *missing)
{
	uint64_t faults = 0;
	double rss = 0, huge = 0, prss = 0, phuge = 0;
	int err;

	(void)t;
	(void)missing;
	if (!b->sweep) {
		v[B_STEP] = (double)b->step;
		v[B_WRITES] = writes_of(b->size, b->step);
		err = bloat_one(b, b->step, arm == 1, &faults, &rss, &huge);
		v[B_FAULTS] = (double)faults;
		v[B_RSS] = rss;
		v[B_HUGE] = huge;
		return err;
	}
	size_t step = (size_t)THP_PMD_BYTES >> arm;
	v[S_WRITES] = writes_of(b->size, step);
	if ((err = bloat_one(b, step, false, &faults, &prss, &phuge)) ||
	    (err = bloat_one(b, step, true, &faults, &rss, &huge)))
		return err;
	v[S_PLAIN] = prss;
	v[S_HINTED] = rss;
	v[S_HUGE] = huge;
	v[S_RATIO] = prss > 0 ? rss / prss : 0;
	return 0;
}

static void bloat_read(struct bench *b)
{
	char a[32], c[32], d[32], e[32];

	if (!b->sweep) {
		double p = med(b, 0, B_RSS), h = med(b, 1, B_RSS);
		say(b, "%s one-byte writes, one every %s: Rss %s with 4 KiB pages, %s with MADV_HUGEPAGE "
		       "(%.1fx).",
		    cnt(a, sizeof(a), med(b, 0, B_WRITES)), sz(c, sizeof(c), (double)b->step),
		    sz(d, sizeof(d), p), sz(e, sizeof(e), h), p > 0 ? h / p : 0.0);
		say(b, " Each write into an empty 2 MiB block gets a whole huge page when one is free "
		       "(512x a 4 KiB page).");
		return;
	}
	int last = -1;
	for (int i = 0; i < b->narms; i++)
		if (med(b, i, S_RATIO) > 1.05)
			last = i;
	if (last < 0)
		say(b, "THP cost no extra Rss at any density.");
	else if (last == b->narms - 1)
		say(b, "THP costs extra Rss at every density down to one write per 4 KiB.");
	else
		say(b, "THP stops costing extra Rss at one write every %s (ratio %.2fx); "
		       "at one every %s it still costs %.1fx.",
		    b->arms[last + 1].name, med(b, last + 1, S_RATIO), b->arms[last].name,
		    med(b, last, S_RATIO));
	say(b, " A huge page is all or nothing: sparse writers pay for the whole 2 MiB.");
}

/* ---- cow: writes after fork, by the child or the parent ---- */

enum { C_FORK, C_WRITES, C_FAULTS, C_PRIV, C_SHARED, C_WHUGE, C_OHUGE, C_SPLIT };
static const struct out_col cow_cols[] = {
	COL_ARM,
	{ "FORK", OUT_NS, OUT_KEEP, "time of fork()", get, C_FORK },
	COL_WRITES(C_WRITES),
	{ "WRITER_FAULTS", OUT_COUNT, 0, "minor page faults of the writer", get, C_FAULTS },
	{ "WRITER_PRIVATE_DIRTY", OUT_SIZE, OUT_KEEP, "what copy-on-write copied (its Private_Dirty)", get, C_PRIV },
	{ "WRITER_SHARED_DIRTY", OUT_SIZE, 0, "the writer's Shared_Dirty", get, C_SHARED },
	{ "WRITER_ANONHUGE", OUT_SIZE, 0, "AnonHugePages the writer kept", get, C_WHUGE },
	{ "OTHER_ANONHUGE", OUT_SIZE, OUT_KEEP, "AnonHugePages the other process kept", get, C_OHUGE },
	COL_SPLIT(C_SPLIT, OUT_KEEP),
};

struct cow_side {
	uint64_t faults, priv, shared, huge;
};

static void cow_setup(struct bench *b)
{
	static const char *const n[] = { "MADV_NOHUGEPAGE", "MADV_HUGEPAGE", NULL };
	arms(b, n);
}

static void cow_fill(struct bench *b, const struct thp_region *r, pid_t pid, struct cow_side *s)
{
	struct thp_vma vma = { 0 };

	vma_of(b, r, pid, &vma);
	s->priv = vma.m.private_dirty;
	s->shared = vma.m.shared_dirty;
	s->huge = vma.m.anon_huge;
}

static int cow_run(struct bench *b, int arm, double *v, char (*t)[TEXT_LEN], bool *missing)
{
	struct thp_region r;
	struct thp_vmstat s0, s1;
	struct cow_side w = { 0 }, o = { 0 };
	int res[2], go[2], err = map(b, &r, arm ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	uint64_t t0;
	pid_t pid;
	char c = 0;

	(void)t;
	(void)missing;
	if (err)
		return err;
	thp_touch(&r, 4096, true);
	if (pipe(res) || pipe(go)) {
		err = -errno;
		thp_region_unmap(&r);
		return err;
	}
	thp_flush();
	thp_vmstat_snap(&b->ctx->root, &s0);
	t0 = thp_now_ns();
	pid = fork();
	if (pid == 0) {
		struct cow_side me = { 0 };
		close(res[0]);
		close(go[1]);
		if (!b->writer_parent) {
			me.faults = thp_touch(&r, b->step, true);
			cow_fill(b, &r, 0, &me);
		}
		if (write(res[1], &me, sizeof(me)) != sizeof(me) || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	v[C_FORK] = (double)(thp_now_ns() - t0);
	close(res[1]);
	close(go[0]);
	if (pid < 0) {
		err = -errno;
	} else if (read(res[0], &w, sizeof(w)) != sizeof(w)) {
		err = -EIO;
	} else if (b->writer_parent) {
		w.faults = thp_touch(&r, b->step, true);
		cow_fill(b, &r, 0, &w);
		cow_fill(b, &r, pid, &o);
	} else {
		cow_fill(b, &r, 0, &o);
	}
	thp_vmstat_snap(&b->ctx->root, &s1);
	close(go[1]);
	close(res[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	v[C_WRITES] = writes_of(b->size, b->step);
	v[C_FAULTS] = (double)w.faults;
	v[C_PRIV] = (double)w.priv;
	v[C_SHARED] = (double)w.shared;
	v[C_WHUGE] = (double)w.huge;
	v[C_OHUGE] = (double)o.huge;
	v[C_SPLIT] = (double)thp_vmstat_delta(&s0, &s1, "thp_split_pmd");
	thp_region_unmap(&r);
	return err;
}

static void cow_read(struct bench *b)
{
	char a[32], c[32], d[32], e[32], f[32];
	const char *writer = b->writer_parent ? "parent" : "child";
	const char *other = b->writer_parent ? "child" : "parent";

	if (med(b, 1, C_OHUGE) + med(b, 1, C_WHUGE) + med(b, 1, C_SPLIT) == 0) {
		say(b, "The MADV_HUGEPAGE arm got no huge pages, so both arms show 4 KiB copy-on-write.");
	} else {
		say(b, "With THP, %s writes by the %s split %s PMDs and copied %s (4 KiB per write, "
		       "not 2 MiB); the %s keeps %s of huge pages, the %s %s.",
		    cnt(a, sizeof(a), med(b, 1, C_WRITES)), writer, cnt(c, sizeof(c), med(b, 1, C_SPLIT)),
		    sz(d, sizeof(d), med(b, 1, C_PRIV)), other, sz(e, sizeof(e), med(b, 1, C_OHUGE)),
		    writer, sz(f, sizeof(f), med(b, 1, C_WHUGE)));
	}
	say(b, " ");
	say_times(b, C_FORK, 0, 1, "fork()");
}

/* ---- collapse: MADV_COLLAPSE on memory faulted with 4 KiB pages ---- */

enum { L_HINT, L_RESULT, L_BEFORE, L_ELIG, L_TIME, L_PERGIB, L_AFTER, L_ELIG_AFTER, L_ALLOC };
static const struct out_col collapse_cols[] = {
	COL_ARM,
	{ "MADV_HUGEPAGE", OUT_TEXT, 0, "what madvise(MADV_HUGEPAGE) returned (ok, EINVAL, ...)", get, L_HINT },
	{ "MADV_COLLAPSE", OUT_TEXT, OUT_KEEP, "what madvise(MADV_COLLAPSE) returned", get, L_RESULT },
	{ "ANONHUGE_BEFORE", OUT_SIZE, 0, "AnonHugePages before MADV_COLLAPSE", get, L_BEFORE },
	{ "ELIGIBLE", OUT_BOOL, 0, "THPeligible before it", get, L_ELIG },
	{ "COLLAPSE", OUT_NS, OUT_KEEP, "time of MADV_COLLAPSE", get, L_TIME },
	{ "PER_GIB", OUT_NS, 0, "that time per GiB of the region", get, L_PERGIB },
	{ "ANONHUGE_AFTER", OUT_SIZE, OUT_KEEP, "AnonHugePages after it", get, L_AFTER },
	{ "ELIGIBLE_AFTER", OUT_BOOL, 0, "THPeligible after it", get, L_ELIG_AFTER },
	{ "COLLAPSE_ALLOC+", OUT_COUNT, 0, "huge pages allocated to collapse (vmstat)", get, L_ALLOC },
};

static void collapse_setup(struct bench *b)
{
	static const char *const n[] = { "hint", "collapse-only", "disabled", NULL };
	arms(b, n);
}

static int collapse_run(struct bench *b, int arm, double *v, char (*t)[TEXT_LEN], bool *missing)
{
	struct thp_region r;
	struct thp_vmstat s0, s1;
	struct thp_vma vma = { 0 };
	int prior = thp_mode_get(), err;
	uint64_t t0;

	(void)missing;
	if (arm == 2 && (err = thp_mode_set(THP_MODE_DISABLED)))
		return err;
	err = map(b, &r, -1);
	if (!err) {
		touch_small(&r, arm == 2 ? 1 : prior);
		set_text(t, L_HINT, arm == 1 ? "-" : errname(thp_region_advise(&r, MADV_HUGEPAGE)));
		vma_of(b, &r, 0, &vma);
		v[L_BEFORE] = (double)vma.m.anon_huge;
		v[L_ELIG] = (double)(vma.eligible > 0);
		thp_vmstat_snap(&b->ctx->root, &s0);
		t0 = thp_now_ns();
		set_text(t, L_RESULT, errname(thp_region_advise(&r, MADV_COLLAPSE)));
		v[L_TIME] = (double)(thp_now_ns() - t0);
		thp_vmstat_snap(&b->ctx->root, &s1);
		v[L_PERGIB] = v[L_TIME] * (double)(1ull << 30) / (double)b->size;
		vma_of(b, &r, 0, &vma);
		v[L_AFTER] = (double)vma.m.anon_huge;
		v[L_ELIG_AFTER] = (double)(vma.eligible > 0);
		v[L_ALLOC] = (double)thp_vmstat_delta(&s0, &s1, "thp_collapse_alloc");
		thp_region_unmap(&r);
	}
	if (arm == 2)
		mode_restore(prior);
	return err;
}

static void collapse_read(struct bench *b)
{
	char a[32], c[32], d[32], e[32];

	say(b, "hint: MADV_HUGEPAGE alone left %s huge, MADV_COLLAPSE made %s huge (%s). "
	       "collapse-only: %s without any hint (%s). ",
	    sz(a, sizeof(a), med(b, 0, L_BEFORE)), sz(c, sizeof(c), med(b, 0, L_AFTER)),
	    b->arms[0].text[L_RESULT], sz(d, sizeof(d), med(b, 1, L_AFTER)), b->arms[1].text[L_RESULT]);
	say(b, "disabled (PR_SET_THP_DISABLE): MADV_COLLAPSE %s, %s huge. "
	       "MADV_COLLAPSE ignores the 'enabled' policy; only the prctl or MADV_NOHUGEPAGE stop it.",
	    strcmp(b->arms[2].text[L_RESULT], "ok") ? b->arms[2].text[L_RESULT] : "succeeded",
	    sz(e, sizeof(e), med(b, 2, L_AFTER)));
}

/* ---- khugepaged: advise a touched region and wait for the background collapse ---- */

enum { K_WAIT, K_DONE, K_TARGET, K_HUGE, K_COLLAPSED, K_SCANS };
static const struct out_col khugepaged_cols[] = {
	COL_ARM,
	{ "WAITED", OUT_NS, OUT_KEEP, "time until the region was huge (or --timeout)", get, K_WAIT },
	{ "COLLAPSED", OUT_BOOL, OUT_KEEP, "khugepaged made the whole region huge", get, K_DONE },
	{ "TARGET", OUT_SIZE, 0, "the whole 2 MiB blocks of the region", get, K_TARGET },
	COL_ANONHUGE(K_HUGE),
	{ "PAGES_COLLAPSED+", OUT_COUNT, 0, "khugepaged's pages_collapsed, the increase", get, K_COLLAPSED },
	{ "FULL_SCANS+", OUT_COUNT, 0, "khugepaged's full_scans, the increase", get, K_SCANS },
};

#define KH "sys/kernel/mm/transparent_hugepage/khugepaged/"

static uint64_t kh_num(struct bench *b, const char *name)
{
	struct thp_setting s;
	char rel[128];

	snprintf(rel, sizeof(rel), KH "%s", name);
	thp_setting_read(&b->ctx->root, rel, name, &s);
	return s.kind == THP_INT ? s.num : 0;
}

static void khugepaged_setup(struct bench *b)
{
	static const char *const n[] = { "MADV_HUGEPAGE", NULL };
	arms(b, n);
}

static int khugepaged_run(struct bench *b, int arm, double *v, char (*t)[TEXT_LEN], bool *missing)
{
	struct thp_region r;
	struct thp_vma vma = { 0 };
	uint64_t c0 = kh_num(b, "pages_collapsed"), f0 = kh_num(b, "full_scans"), t0, last = UINT64_MAX;
	struct timespec tick = { 0, 100 * 1000000L };
	int err = map(b, &r, -1);

	(void)arm;
	(void)t;
	(void)missing;
	if (err)
		return err;
	touch_small(&r, thp_mode_get());
	if ((err = thp_region_advise(&r, MADV_HUGEPAGE))) {
		thp_region_unmap(&r);
		return err;
	}
	v[K_TARGET] = (double)thp_region_pmd_bytes(&r);
	b->npoints = 0;
	t0 = thp_now_ns();
	for (;;) {
		double now = (double)(thp_now_ns() - t0);
		vma_of(b, &r, 0, &vma);
		uint64_t huge = vma.m.anon_huge;
		v[K_WAIT] = now;
		v[K_HUGE] = (double)huge;
		v[K_COLLAPSED] = (double)(kh_num(b, "pages_collapsed") - c0);
		v[K_SCANS] = (double)(kh_num(b, "full_scans") - f0);
		if (huge != last && b->npoints < TIMELINE_MAX) {
			b->timeline[b->npoints++] = (struct point){ now / 1e9, huge,
								    (uint64_t)v[K_COLLAPSED], (uint64_t)v[K_SCANS] };
			last = huge;
		}
		v[K_DONE] = (double)huge >= v[K_TARGET];
		if (v[K_DONE] || now >= b->timeout * 1e9 || modes_signal())
			break;
		nanosleep(&tick, NULL);
	}
	thp_region_unmap(&r);
	return 0;
}

static void khugepaged_read(struct bench *b)
{
	char a[32], c[32];
	uint64_t sleep_ms = kh_num(b, "scan_sleep_millisecs"), pages = kh_num(b, "pages_to_scan");

	note(b, "khugepaged: scan_sleep_millisecs=%" PRIu64 " pages_to_scan=%" PRIu64
		" max_ptes_none=%" PRIu64 " alloc_sleep_millisecs=%" PRIu64 ".",
	     sleep_ms, pages, kh_num(b, "max_ptes_none"), kh_num(b, "alloc_sleep_millisecs"));
	if (stats(b, 0, K_DONE).min > 0)
		say(b, "khugepaged collapsed the %s region after %s (median).",
		    sz(a, sizeof(a), (double)b->size), out_ns(c, sizeof(c), med(b, 0, K_WAIT)));
	else
		say(b, "khugepaged did not finish within %d s (%s of %s huge). It only runs while "
		       "'enabled' is always or madvise.",
		    b->timeout, sz(a, sizeof(a), med(b, 0, K_HUGE)), sz(c, sizeof(c), med(b, 0, K_TARGET)));
	say(b, " It wakes every %" PRIu64 " ms and scans %" PRIu64 " pages of all registered "
	       "processes per wake-up; MADV_COLLAPSE does it at once.",
	    sleep_ms, pages);
}

/* ---- zeropage: read faults map the huge zero page; then writes; MADV_POPULATE_WRITE ---- */

enum { Z_RESULT, Z_FAULTS, Z_TIME, Z_RSS, Z_HUGE, Z_ALLOC, Z_SPLIT };
static const struct out_col zeropage_cols[] = {
	COL_ARM,
	{ "RESULT", OUT_TEXT, OUT_KEEP, "what MADV_POPULATE_WRITE returned (ok for the others)", get, Z_RESULT },
	COL_FAULTS(Z_FAULTS),
	{ "TIME", OUT_NS, OUT_KEEP, "time of the reads, the writes or the call", get, Z_TIME },
	COL_RSS(Z_RSS, OUT_KEEP),
	COL_ANONHUGE(Z_HUGE),
	COL_ALLOC(Z_ALLOC),
	COL_SPLIT(Z_SPLIT, 0),
};

static void zeropage_setup(struct bench *b)
{
	static const char *const n[] = { "read", "read, then write", "write", "MADV_POPULATE_WRITE",
					 NULL };
	arms(b, n);
}

static int zeropage_run(struct bench *b, int arm, double *v, char (*t)[TEXT_LEN], bool *missing)
{
	struct thp_region r;
	struct thp_vmstat s0, s1;
	struct thp_vma vma = { 0 };
	uint64_t t0, f0;
	int err = map(b, &r, MADV_HUGEPAGE), rc = 0;

	(void)missing;
	if (err)
		return err;
	if (arm == 1)
		thp_touch(&r, 4096, false); /* the reads; the write is measured */
	thp_vmstat_snap(&b->ctx->root, &s0);
	f0 = thp_minflt();
	t0 = thp_now_ns();
	if (arm == 3)
		rc = thp_region_advise(&r, MADV_POPULATE_WRITE);
	else
		thp_touch(&r, 4096, arm != 0);
	v[Z_TIME] = (double)(thp_now_ns() - t0);
	v[Z_FAULTS] = (double)(thp_minflt() - f0);
	thp_vmstat_snap(&b->ctx->root, &s1);
	set_text(t, Z_RESULT, errname(rc));
	vma_of(b, &r, 0, &vma);
	v[Z_RSS] = (double)vma.m.rss;
	v[Z_HUGE] = (double)vma.m.anon_huge;
	v[Z_ALLOC] = (double)thp_vmstat_delta(&s0, &s1, "thp_fault_alloc");
	v[Z_SPLIT] = (double)thp_vmstat_delta(&s0, &s1, "thp_split_pmd");
	thp_region_unmap(&r);
	return 0;
}

static void zeropage_read(struct bench *b)
{
	char a[32], c[32], d[32];
	struct thp_setting zp;

	thp_setting_read(&b->ctx->root, "sys/kernel/mm/transparent_hugepage/use_zero_page",
			 "use_zero_page", &zp);
	if (med(b, 0, Z_RSS) == 0 && med(b, 0, Z_FAULTS) > 0)
		say(b, "Reads mapped the shared huge zero page: %s faults, no memory used. ",
		    cnt(a, sizeof(a), med(b, 0, Z_FAULTS)));
	else
		say(b, "Reads did not map the huge zero page (use_zero_page=%s): Rss %s after reads. ",
		    zp.kind == THP_INT ? (zp.num ? "1" : "0") : "absent", sz(a, sizeof(a), med(b, 0, Z_RSS)));
	if (med(b, 1, Z_HUGE) > 0)
		say(b, "The writes after them got %s of huge pages (this kernel allocates a THP on a "
		       "write to the huge zero page). ",
		    sz(c, sizeof(c), med(b, 1, Z_HUGE)));
	else
		say(b, "The writes after them split it (SPLIT_PMD+ %s) and left 4 KiB pages: "
		       "pre-faulting with reads defeats THP. ",
		    cnt(c, sizeof(c), med(b, 1, Z_SPLIT)));
	if (strcmp(b->arms[3].text[Z_RESULT], "ok") != 0)
		say(b, "MADV_POPULATE_WRITE failed (%s; it needs Linux 5.14+).", b->arms[3].text[Z_RESULT]);
	else
		say(b, "MADV_POPULATE_WRITE pre-faults for writing in one call (%s huge, %s).",
		    sz(d, sizeof(d), med(b, 3, Z_HUGE)), out_ns(a, sizeof(a), med(b, 3, Z_TIME)));
}

/* ---- chase: dependent loads across random pages, 4 KiB pages vs THP ---- */

enum { H_NS, H_HUGE, H_MISSES, H_PERLOAD, H_MPKI, H_WALK };
static const struct out_col chase_cols[] = {
	COL_ARM,
	{ "PER_LOAD", OUT_NS, OUT_KEEP, "time of one dependent load", get, H_NS },
	COL_ANONHUGE(H_HUGE),
	{ "DTLB_MISSES", OUT_COUNT, 0, "dTLB misses (CPU counters; '-' without them)", get, H_MISSES },
	{ "MISSES/LOAD", OUT_NUM, OUT_KEEP, "dTLB misses per load", get, H_PERLOAD },
	{ "MPKI", OUT_NUM, 0, "dTLB misses per thousand instructions", get, H_MPKI },
	{ "WALK%", OUT_NUM, 0, "share of the cycles spent walking page tables", get, H_WALK },
};

static struct thp_tlb_walk chase_walk; /* the CPU's page-walk event, if it names one */
static int dtlb_err; /* why the dTLB counters are unavailable (0: they work) */

static void chase_setup(struct bench *b)
{
	static const char *const n[] = { "MADV_NOHUGEPAGE", "MADV_HUGEPAGE", NULL };
	arms(b, n);
	b->chart[0] = H_NS;
	thp_tlb_walk_find(&b->ctx->root, &chase_walk);
	dtlb_err = 0;
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* Links one node per page (at a random cache line) into a single random cycle
 * (Sattolo's shuffle) and returns a node on it. */
static char **chase_build(const struct thp_region *r, uint64_t seed)
{
	size_t npages = r->len / 4096;
	uint32_t *order = malloc(npages * sizeof(*order)), *line = malloc(npages * sizeof(*line));
	char **start = NULL;

	if (order && line && npages > 1) {
		for (size_t i = 0; i < npages; i++) {
			order[i] = (uint32_t)i;
			line[i] = (uint32_t)(rng_next(&seed) % 64) * 64;
		}
		for (size_t i = npages - 1; i > 0; i--) {
			size_t j = rng_next(&seed) % i;
			uint32_t x = order[i];
			order[i] = order[j];
			order[j] = x;
		}
		for (size_t i = 0; i < npages; i++) {
			size_t a = order[i], z = order[(i + 1) % npages];
			*(char **)(r->addr + a * 4096 + line[a]) = r->addr + z * 4096 + line[z];
		}
		start = (char **)(r->addr + (size_t)order[0] * 4096 + line[order[0]]);
	}
	free(order);
	free(line);
	return start;
}

/* The counter columns of one run from C (a column the CPU did not count is missing). */
static void chase_counts(const struct thp_tlb_counts *c, uint64_t loads, double *v, bool *missing)
{
	missing[H_MISSES] = !thp_tlb_misses_per(c, 1, &v[H_MISSES]);
	missing[H_PERLOAD] = !thp_tlb_misses_per(c, loads, &v[H_PERLOAD]);
	missing[H_MPKI] = !thp_tlb_mpki(c, &v[H_MPKI]);
	missing[H_WALK] = !thp_tlb_walk_pct(c, &v[H_WALK]);
}

static int chase_run(struct bench *b, int arm, double *v, char (*t)[TEXT_LEN], bool *missing)
{
	struct thp_region r;
	struct thp_vma vma = { 0 };
	struct thp_tlb_thread tc;
	struct thp_tlb_counts c = { 0 };
	char **p;
	uint64_t t0, ns;
	int err = map(b, &r, arm ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);

	(void)t;
	if (err)
		return err;
	p = chase_build(&r, 20261017u + (uint64_t)arm);
	if (!p) {
		thp_region_unmap(&r);
		return -ENOMEM;
	}
	if (!dtlb_err && (dtlb_err = thp_tlb_open(0, &chase_walk, false, &tc)) == 0)
		thp_tlb_enable(&tc);
	t0 = thp_now_ns();
	for (uint64_t i = 0; i < b->loads; i++)
		p = (char **)*(char *volatile *)p;
	ns = thp_now_ns() - t0;
	if (!dtlb_err) {
		thp_tlb_read(&tc, &c);
		thp_tlb_close(&tc);
	}
	chase_counts(&c, b->loads, v, missing);
	__asm__ volatile("" : : "r"(p));
	v[H_NS] = (double)ns / (double)b->loads;
	vma_of(b, &r, 0, &vma);
	v[H_HUGE] = (double)vma.m.anon_huge;
	thp_region_unmap(&r);
	return 0;
}

static void chase_read(struct bench *b)
{
	char a[32], c[32];

	say_times(b, H_NS, 0, 1, "Per dependent load");
	say(b, " THP obtained: %s of %s.", sz(a, sizeof(a), med(b, 1, H_HUGE)),
	    sz(c, sizeof(c), (double)b->size));
	if (dtlb_err)
		note(b, "dTLB counters: none, %s (perf_event_open: %s). ", thp_tlb_unavailable(dtlb_err),
		     errname(dtlb_err));
	note(b, "%s the guest's huge pages only help if the host backs its memory with huge "
		"pages too.",
	     thp_in_vm(&b->ctx->root) ? "This host is a virtual machine:" : "Inside a virtual machine,");
}

static const struct experiment experiments[] = {
	{ "fault", "first touch of a region, plain vs MADV_HUGEPAGE", 256 * MIB, 3,
	  TABLE(fault_cols), { NULL, 0 },
	  fault_setup, fault_run, fault_read },
	{ "bloat", "one byte written every STEP, plain vs MADV_HUGEPAGE (--sweep: STEP 2 MiB to 4 KiB)",
	  64 * MIB, 1, TABLE(bloat_cols),
	  TABLE(sweep_cols), bloat_setup, bloat_run, bloat_read },
	{ "cow", "writes after fork() by the child or the parent (--writer), 4 KiB pages vs THP", 64 * MIB, 3,
	  TABLE(cow_cols), { NULL, 0 }, cow_setup,
	  cow_run, cow_read },
	{ "collapse", "MADV_COLLAPSE on 4 KiB-faulted memory: hint, collapse-only, disabled", 64 * MIB, 3,
	  TABLE(collapse_cols), { NULL, 0 }, collapse_setup,
	  collapse_run, collapse_read },
	{ "khugepaged", "advise a touched region and wait for khugepaged (bounded by --timeout)", 16 * MIB, 1,
	  TABLE(khugepaged_cols), { NULL, 0 }, khugepaged_setup,
	  khugepaged_run, khugepaged_read },
	{ "zeropage", "read faults map the huge zero page; the write after; MADV_POPULATE_WRITE", 64 * MIB, 3,
	  TABLE(zeropage_cols), { NULL, 0 },
	  zeropage_setup, zeropage_run, zeropage_read },
	{ "chase", "dependent loads, one per random 4 KiB page, 4 KiB pages vs THP (dTLB misses)", 1024 * MIB, 3,
	  TABLE(chase_cols), { NULL, 0 }, chase_setup, chase_run,
	  chase_read },
};
#define NEXP ((int)(sizeof(experiments) / sizeof(experiments[0])))

/* ---- the driver and the output ---- */

/* The table of B's experiment (with --sweep, bloat's other one), and the
 * columns -o chooses: every one without it. Returns 0, or 2 after naming a
 * column it does not have. */
static int choose_cols(struct bench *b)
{
	const struct table *tab = b->sweep && b->x->sweep.n ? &b->x->sweep : &b->x->table;
	int all[COLS_MAX + 1];

	b->table = tab;
	b->cols = tab->cols + 1;
	b->ncols = tab->n - 1;
	for (int i = 0; i < tab->n; i++)
		all[i] = i;
	b->nsel = out_cols_select(tab->cols, tab->n, &b->fmt, all, tab->n, b->sel, 2 * (COLS_MAX + 1));
	return b->nsel < 0 ? 2 : 0;
}

/* Runs every repetition of every arm, rotating the order of the arms each round. */
static int run_all(struct bench *b)
{
	memset(b->arms, 0, sizeof(b->arms));
	b->reading[0] = b->note[0] = '\0';
	for (int i = 0; i < CHART_COLS; i++)
		b->chart[i] = -1;
	b->x->setup(b);
	struct out_progress p;

	out_progress_init(&p);
	p.tty = p.tty && !b->fmt.json;
	for (int rep = 0; rep < b->reps; rep++) {
		for (int i = 0; i < b->narms; i++) {
			int a = (i + rep) % b->narms;
			if (modes_signal()) {
				out_progress_end(&p);
				return 1; /* asked to stop: the caller puts the policy back */
			}
			out_progress_say(&p, "bench", "%s, repetition %d of %d, %s", b->x->name, rep + 1, b->reps,
					 b->arms[a].name);
			double v[COLS_MAX] = { 0 };
			char t[COLS_MAX][TEXT_LEN] = { { 0 } };
			bool missing[COLS_MAX] = { 0 };
			int err = b->x->run(b, a, v, t, missing);

			if (err) {
				thp_err("%s: %s: %s", b->x->name, b->arms[a].name, thp_strerror(err));
				return 1;
			}
			for (int c = 0; c < b->ncols; c++) {
				b->arms[a].v[c][rep] = v[c];
				if (t[c][0])
					memcpy(b->arms[a].text[c], t[c], TEXT_LEN);
				b->arms[a].missing[c] |= missing[c];
			}
		}
	}
	out_progress_end(&p);
	b->x->read(b);
	return 0;
}

/* One figure of column C for text. */
static const char *fmt_one(const struct bench *b, const struct out_col *c, double x, char *buf, size_t cap)
{
	switch (c->kind) {
	case OUT_SIZE: return out_size(buf, cap, u64r(x), b->fmt.bytes);
	case OUT_NS: return out_ns(buf, cap, x);
	case OUT_BOOL: return x != 0 ? "yes" : "no";
	case OUT_NUM:
		if (c->arg & A_RATIO)
			snprintf(buf, cap, x < 10 ? "%.2fx" : "%.0fx", x);
		else
			snprintf(buf, cap, "%.3f", x);
		return buf;
	default: return out_count(buf, cap, u64r(x));
	}
}

/* A cell: times as min / median / max; other figures once, or min-max when runs differ. */
static const char *fmt_cell(const struct bench *b, int arm, int col, char *buf, size_t cap)
{
	const struct out_col *c = &b->cols[col];
	struct thp_stats s = stats(b, arm, col);
	char x[32], y[32], z[32];

	if (c->kind == OUT_NS && b->reps > 1)
		snprintf(buf, cap, "%s / %s / %s", fmt_one(b, c, s.min, x, sizeof(x)),
			 fmt_one(b, c, s.median, y, sizeof(y)), fmt_one(b, c, s.max, z, sizeof(z)));
	else if (s.min != s.max && c->kind != OUT_BOOL)
		snprintf(buf, cap, "%s-%s", fmt_one(b, c, s.min, x, sizeof(x)), fmt_one(b, c, s.max, y, sizeof(y)));
	else
		snprintf(buf, cap, "%s", fmt_one(b, c, s.median, x, sizeof(x)));
	return buf;
}

/* Column C of ROW, an arm of the struct bench CTX: its name, a text, a flag,
 * or the figures of its runs (in JSON min, median, max and runs); null when
 * it has none. */
static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	struct bench *b = ctx;
	const struct arm *a = row;
	int arm = (int)(a - b->arms), col = c->arg & ~A_RATIO;
	struct thp_stats s;

	if (c->arg < 0) {
		v->s = a->name;
	} else if (a->missing[col]) {
		v->null = true;
	} else if (c->kind == OUT_TEXT) {
		v->s = a->text[col];
	} else {
		s = stats(b, arm, col);
		if (c->kind == OUT_BOOL) {
			v->u = s.median != 0;
		} else {
			b->st = (struct out_stats){ s.min, s.median, s.max, a->v[col], b->reps,
						    c->kind != OUT_NS && c->kind != OUT_NUM };
			out_val_set(v, ov_stats(&b->st));
		}
		v->text = fmt_cell(b, arm, col, v->buf, v->cap);
	}
}

/* The medians of the chart's columns as bars, a row per arm and column. */
static void print_chart(const struct bench *b)
{
	struct out_chart_row rows[ARMS_MAX * CHART_COLS];
	char label[ARMS_MAX * CHART_COLS][64], text[ARMS_MAX * CHART_COLS][32];
	int n = 0, ncharted = b->chart[1] >= 0 ? 2 : 1, armw = 0;

	if (b->chart[0] < 0)
		return;
	for (int a = 0; a < b->narms; a++)
		armw = (int)strlen(b->arms[a].name) > armw ? (int)strlen(b->arms[a].name) : armw;
	for (int a = 0; a < b->narms; a++) {
		for (int k = 0; k < ncharted; k++, n++) {
			const struct out_col *c = &b->cols[b->chart[k]];
			double m = med(b, a, b->chart[k]);
			/* with two columns: "ARM  HEAD", then "     HEAD" */
			if (ncharted > 1)
				snprintf(label[n], sizeof(label[n]), "%-*s  %s", armw, k ? "" : b->arms[a].name,
					 c->name);
			else
				snprintf(label[n], sizeof(label[n]), "%s", b->arms[a].name);
			rows[n] = (struct out_chart_row){ label[n], m, fmt_one(b, c, m, text[n], sizeof(text[n])) };
		}
	}
	printf("\n  %s%s%s (median)\n", b->cols[b->chart[0]].name, ncharted > 1 ? ", " : "",
	       ncharted > 1 ? b->cols[b->chart[1]].name : "");
	out_chart(rows, n, 2);
	putchar('\n');
}

/* The timeline of khugepaged: a line (an object in JSON) per sample. */
static void put_timeline(const struct bench *b)
{
	char t[16];

	if (!b->npoints)
		return;
	out_arr("timeline");
	for (int i = 0; i < b->npoints; i++) {
		const struct point *p = &b->timeline[i];
		snprintf(t, sizeof(t), "%6.1f", p->t);
		out_obj(NULL);
		out_put(OUT_ANY, "t", "  t=%ss", ov_words(ov_num(p->t, -1), t));
		out_put(OUT_ANY, "anon_huge", "  AnonHugePages %-9s", ov_size(p->anon_huge));
		out_put(OUT_ANY, "pages_collapsed", " pages_collapsed +%s", ov_count(p->collapsed));
		out_put(OUT_ANY, "full_scans", "  full_scans +%s\n", ov_count(p->scans));
		out_end();
	}
	out_end();
}

/* The results under MODE (NULL: the host's policy, ENABLED): a member of
 * the array of results in JSON. */
static void put_result(struct bench *b, const char *mode, const char *enabled)
{
	char size[32], label[32];
	bool times = false;
	struct out_table *t;

	for (int c = 0; c < b->ncols; c++)
		times |= b->cols[c].kind == OUT_NS;
	out_obj(NULL);
	if (!out_json_on()) {
		snprintf(label, sizeof(label), "%s:", b->x->name);
		out_wrap(label, b->x->summary, 100);
	}
	out_text("  %s, %d run%s per arm%s, ", out_size(size, sizeof(size), b->size, b->fmt.bytes), b->reps,
		 b->reps == 1 ? "" : "s", times && b->reps > 1 ? " (times: min / median / max)" : "");
	out_put(OUT_ANY, "enabled", "enabled=%s", ov_str(enabled));
	out_put(mode ? OUT_ANY : OUT_JSON, "mode", " (--modes %s)", ov_str(mode));
	out_text("\n");
	t = out_table_open("arms", b->table->cols, b->sel, b->nsel, &b->fmt, b);
	for (int a = 0; a < b->narms; a++)
		out_table_add(t, &b->arms[a]);
	out_table_close(t, 2);
	if (!b->fmt.raw && !out_json_on())
		print_chart(b);
	put_timeline(b);
	out_wrapped(OUT_ANY, "reading", "Reading: ", ov_str(b->reading), 100);
	out_wrapped(b->note[0] ? OUT_ANY : OUT_JSON, "note", "Note: ", ov_str(b->note[0] ? b->note : NULL), 100);
	out_end();
}

static void current_enabled(struct bench *b, char *out, size_t cap)
{
	struct thp_setting s;

	thp_setting_read(&b->ctx->root, "sys/kernel/mm/transparent_hugepage/enabled", "enabled", &s);
	snprintf(out, cap, "%s", thp_setting_word(&s) ? thp_setting_word(&s) : "unknown");
}

/* The experiments, after the usage's first paragraphs. */
static void experiments_help(void)
{
	struct out_table *t = out_help_list(2);

	for (int i = 0; i < NEXP; i++)
		out_table_row(t, (const char *const[]){ experiments[i].name, experiments[i].summary });
	out_table_print(t, 2);
}

/* The columns of every experiment, after the options. */
static void columns_help(void)
{
	out_cols_help("Columns of every experiment (-o LIST):", experiments[0].table.cols, 1);
	for (int i = 0; i < NEXP; i++)
		for (int sweep = 0; sweep < 2; sweep++) {
			const struct table *tab = sweep ? &experiments[i].sweep : &experiments[i].table;
			char title[64];
			snprintf(title, sizeof(title), "Columns of %s%s:", experiments[i].name, sweep ? " --sweep" : "");
			if (tab->n)
				out_cols_help(title, tab->cols + 1, tab->n - 1);
		}
}

static const struct thp_opt opts[] = {
	THP_OPT_LONG('s', "size", "SIZE", "region size (fault 256M, chase 1G, khugepaged 16M,\n"
					  "others 64M)"),
	THP_OPT_LONG('S', "step", "SIZE", "bloat and cow: write one byte every SIZE (default 2M)"),
	THP_OPT_LONG('W', "sweep", NULL, "bloat: steps from 2 MiB down to 4 KiB"),
	THP_OPT_LONG('w', "writer", "WHO", "cow: 'child' (default) or 'parent' writes after fork()"),
	THP_OPT_LONG('t', "timeout", "SECS", "khugepaged: how long to wait (default 60)"),
	THP_OPT_LONG('L', "loads", "N", "chase: dependent loads per run (default 10000000)"),
	THP_OPT('N', "reps", "N", "repetitions per arm (default 3; bloat and khugepaged 1)"),
	THP_OPT_LONG('m', "modes", "LIST", "repeat under each policy of always,madvise,never (root);\n"
					   "the prior policy is restored after, also on signals"),
	THP_OPT('q', "quiet", NULL, "no notice on stderr of the policy --modes switches"),
	THP_OPT_TEXT(22, "The table options (-J: one JSON document with every run; the charts are left\n"
			 "out with -r):"),
	THP_OPTS_TABLE,
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp bench NAME [options]\n"
		 "\n"
		 "Measure one THP mechanism on this machine: a table with one row per arm, the\n"
		 "kernel's evidence (/proc/vmstat deltas, smaps of the mapping) and how to read\n"
		 "it.\n"
		 "fault, chase and bloat --sweep draw their medians as bars under the table\n"
		 "(in ASCII with 'thp --ascii bench ...').\n"
		 "\n"
		 "Experiments:",
	.more = experiments_help,
	.width = 24,
	.opts = opts,
	.after = columns_help,
};

/* Refuses a region larger than the memory available (MemAvailable, or
 * MemTotal on kernels before 3.14): touching it would push the host into
 * reclaim or the OOM killer. ARG is the --size given, NULL for the default.
 * Returns 0 or prints why and returns 2. */
static int check_size(const struct bench *b, const char *arg)
{
	const char *field = "MemAvailable";
	uint64_t avail;
	char s[32], a[32];

	if (thp_meminfo_get(&b->ctx->root, field, &avail) &&
	    thp_meminfo_get(&b->ctx->root, field = "MemTotal", &avail))
		return 0;
	if (b->size <= avail)
		return 0;
	out_size(s, sizeof(s), b->size, false);
	out_size(a, sizeof(a), avail, false);
	if (arg)
		thp_err("--size '%s' is more than the memory available (%s %s)", arg, field, a);
	else
		thp_err("the %s region of '%s' is more than the memory available (%s %s); "
			"give a smaller --size", s, b->x->name, field, a);
	return 2;
}

/* The document: the experiment and its options, the host, then the results
 * under each mode of M (or the host's policy), printed as each ends. */
static int bench_modes(struct bench *b, const struct modes *m)
{
	struct thp_busy busy;
	char enabled[32], span[96], why[4400] = "";
	bool disabled = thp_mode_get() == THP_MODE_DISABLED;
	int rc = 0;

	if (m->n && thp_need_root(b->ctx, "--modes, which switches the host's 'enabled' policy,"))
		return 1;
	snprintf(span, sizeof(span), "for %d repetition%s of '%s' under each mode", b->reps,
		 b->reps == 1 ? "" : "s", b->x->name);
	if (modes_switching(m) && (rc = thp_change_begin(b->ctx, "switching the THP policy")) == 0) {
		struct thp_recovery *r = thp_recover(&b->ctx->root, false);
		rc = thp_recovery_report(r);
		free(r);
	}
	if (rc || modes_begin(&b->ctx->root, m, why, sizeof(why))) {
		if (why[0])
			thp_err("%s", why);
		return 1;
	}
	if (modes_switching(m) && !m->quiet)
		out_modes_notice(m, modes_prior(), span);
	thp_busy_sample(&b->ctx->root, 200, &busy);
	if (thp_busy_noisy(&busy) && !b->fmt.json)
		out_busy_warning(&busy, "timings are noisy");
	out_doc_begin(b->fmt.json, b->fmt.bytes, "thp-bench/3");
	out_put(OUT_JSON, "experiment", NULL, ov_str(b->x->name));
	out_put(OUT_JSON, "size", NULL, ov_size(b->size));
	out_put(OUT_JSON, "step", NULL, ov_size(b->step));
	out_put(OUT_JSON, "reps", NULL, ov_int(b->reps));
	out_put(OUT_JSON, "writer", NULL, ov_str(b->writer_parent ? "parent" : "child"));
	out_put(OUT_JSON, "loads", NULL, ov_count(b->loads));
	out_put(OUT_JSON, "busy", NULL, ov_bool(thp_busy_noisy(&busy)));
	out_put(OUT_JSON, "load1", NULL, ov_num(busy.load1, -1));
	out_put(OUT_ANY, "thp_disabled_by_prctl",
		disabled ? "Note: THP is disabled for this process (PR_SET_THP_DISABLE, inherited from a "
			   "parent): no arm can get huge pages.\n\n"
			 : NULL,
		ov_bool(disabled));
	out_arr("results");
	for (int i = 0; i < (m->n ? m->n : 1) && !rc; i++) {
		const char *mode = m->n ? m->word[i] : NULL;
		if (mode && (rc = modes_apply(mode, why, sizeof(why)))) {
			if (why[0])
				thp_err("%s", why);
			break;
		}
		current_enabled(b, enabled, sizeof(enabled));
		if ((rc = run_all(b)))
			break;
		if (i)
			out_text("\n");
		put_result(b, mode, enabled);
		thp_flush();
	}
	if (modes_end(why, sizeof(why))) {
		thp_err("%s", why);
		rc = 1;
	}
	if (modes_signal())
		return thp_die_by(modes_signal());
	return out_doc_end() || rc ? 1 : 0;
}

int cmd_bench(struct thp_ctx *ctx, int argc, char **argv)
{
	static const char *const policies[] = { "always", "madvise", "never", NULL };
	struct bench *b = calloc(1, sizeof(*b));
	struct modes m = { 0 };
	const char *size_arg = NULL;
	uint64_t size = 0;
	int c, rc = 2, reps = 0;
	bool step = false;

	if (!b) {
		thp_err("out of memory");
		return 1;
	}
	b->ctx = ctx;
	b->step = THP_PMD_BYTES;
	b->timeout = 60;
	b->loads = 10000000;
	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		if (out_fmt_opt(&b->fmt, c, optarg))
			continue;
		switch (c) {
		case 's':
			if (!thp_opt_size("--size", optarg, 4096, UINT64_MAX, NULL, &size))
				goto out;
			size_arg = optarg;
			break;
		case 'S':
			if (!thp_opt_size("--step", optarg, 4096, UINT64_MAX, NULL, &b->step))
				goto out;
			step = true;
			break;
		case 'W': b->sweep = true; break;
		case 'w':
			if (strcmp(optarg, "child") != 0 && strcmp(optarg, "parent") != 0) {
				thp_err("invalid writer '%s' (child or parent)", optarg);
				goto out;
			}
			b->writer_parent = !strcmp(optarg, "parent");
			break;
		case 't': if (!thp_opt_int("--timeout", optarg, 1, 86400, &b->timeout)) goto out; break;
		case 'L': if (!thp_opt_u64("--loads", optarg, 1, 1ull << 40, &b->loads)) goto out; break;
		case 'N': if (!thp_opt_int("--reps", optarg, 1, REPS_MAX, &reps)) goto out; break;
		case 'm': if (modes_parse(optarg, policies, &m)) goto out; break;
		case 'q': m.quiet = true; break;
		default: rc = thp_opt_exit(ctx, c); goto out;
		}
	}
	b->fmt.json = ctx->json;
	if (b->sweep && step) {
		thp_err("--sweep chooses the steps itself; give --sweep or --step, not both");
		rc = thp_usage_error("bench");
		goto out;
	}
	if (optind >= argc) {
		thp_err("which experiment? see 'thp bench --help'");
		rc = thp_usage_error("bench");
		goto out;
	}
	for (int i = 0; i < NEXP; i++)
		if (!strcmp(experiments[i].name, argv[optind]))
			b->x = &experiments[i];
	if (!b->x) {
		thp_err("unknown experiment '%s'; see 'thp bench --help'%s", argv[optind],
			strspn(argv[optind], "0123456789") == strlen(argv[optind]) ? " (the repetitions are -N N)" : "");
		rc = thp_usage_error("bench");
		goto out;
	}
	if (optind + 1 < argc) {
		thp_err("unexpected argument '%s'", argv[optind + 1]);
		rc = thp_usage_error("bench");
		goto out;
	}
	if ((rc = choose_cols(b)))
		goto out;
	rc = 2;
	b->size = size ? size : b->x->size;
	b->reps = reps ? reps : b->x->reps;
	if (b->step > b->size) {
		thp_err("step '%" PRIu64 "' is larger than the region", b->step);
		goto out;
	}
	if ((rc = check_size(b, size_arg)))
		goto out;
	rc = modes_need_thp(ctx) ? 1 : bench_modes(b, &m);
out:
	free(b);
	return rc;
}
