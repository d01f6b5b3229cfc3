/* SPDX-License-Identifier: GPL-2.0-or-later */
/* watch.c - `thp watch`: THP fault, compaction, khugepaged and split rates per interval */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/numa.h"
#include "../core/buddyinfo.h"
#include "../core/psi.h"
#include "../core/status.h"
#include "../core/task.h"
#include "../render/render.h"
#include "../render/term.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

#define REPLAY_MAX 16
#define BLOCKED_MAX 32
#define GROUP_MAX 3

/* What one read of the host gives. */
struct sample {
	struct thp_status st;
	struct thp_buddyinfo buddy;
	int buddy_err;
	struct thp_psi psi;
	int psi_err;
	struct thp_numa numa; /* huge pages per node, shown with more than one node */
};

struct opts {
	double interval; /* seconds */
	long count;      /* reports to print; 0: until stopped */
	long alert;      /* compaction stalls per interval that raise an alert; 0: off */
	bool json;
	bool compact;    /* one line per interval */
	int nreplay;
	struct thp_root replay[REPLAY_MAX];
	struct thp_rootarg replay_arg[REPLAY_MAX]; /* each a directory or an unpacked archive */
};

/* The vmstat counters shown as rates, in the groups printed; text labels drop
 * the group's prefix. */
static const struct group {
	const char *title;
	const char *names[GROUP_MAX];
	const char *labels[GROUP_MAX];
} groups[] = {
	{ "faults",
	  { "thp_fault_alloc", "thp_fault_fallback", "thp_fault_fallback_charge" },
	  { "alloc", "fallback", "fallback_charge" } },
	{ "compaction",
	  { "compact_stall", "compact_fail", "compact_success" },
	  { "stall", "fail", "success" } },
	{ "khugepaged",
	  { "thp_collapse_alloc", "thp_collapse_alloc_failed" },
	  { "collapse_alloc", "collapse_alloc_failed" } },
	{ "splits",
	  { "thp_split_pmd", "thp_split_page", "thp_deferred_split_page" },
	  { "split_pmd", "split_page", "deferred_split_page" } },
	{ "reclaim",
	  { "compact_daemon_wake", "pgscan_kswapd", "pgscan_direct" },
	  { "kcompactd_wake", "kswapd_scan", "direct_scan" } },
};
#define NGROUPS (int)(sizeof(groups) / sizeof(groups[0]))

/* khugepaged progress files shown as increases, not rates. */
static const char *const progress[] = { "pages_collapsed", "full_scans" };
/* Per-size counters shown for every size where one of them moved. */
static const char *const size_stats[] = { "anon_fault_alloc", "anon_fault_fallback", "split" };
#define NSIZE_STATS 3

struct rate {
	const char *name, *label;
	double per_s;
};

/* One interval, computed from two samples. */
struct report {
	struct timespec wall; /* tv_sec 0 when replaying recorded trees */
	long seq;
	double secs;
	double fallback_pct;
	double psi_some, psi_full;
	uint64_t anon_huge;
	uint64_t stalls; /* compaction stalls in the interval, for the alert */
	double tlb_per_s;
	bool has_tlb;
	const char *tlb_unknown; /* why there is no shootdown rate; NULL when there is */
	char tlb_why[96];
	int nrates[NGROUPS];
	struct rate rates[NGROUPS][GROUP_MAX];
	struct {
		const char *name;
		uint64_t delta;
	} progress[2];
	struct {
		uint64_t bytes;
		struct rate r[NSIZE_STATS];
		int n;
	} sizes[THP_SIZES_MAX];
	struct thp_task blocked[BLOCKED_MAX];
	int nprogress;
	int nsizes;
	int pmd_order; /* -1: unknown, no free-block figures */
	int nblocked, blocked_total, blocked_err;
	bool has_fallback_pct;
	bool has_anon_huge;
	bool has_psi_some, has_psi_full;
	bool alert;
};

/* --compact: the stalls and fallbacks of the intervals of the last minute,
 * drawn as sparklines of SPARK_MARKS marks, each the sum over the intervals
 * of SPARK_SPAN seconds (or over one interval when intervals are longer). */
#define SPARK_WINDOW 60.0
#define SPARK_MARKS 10
#define SPARK_SPAN (SPARK_WINDOW / SPARK_MARKS)
#define HISTORY_MAX 6000 /* a minute of the shortest interval, 0.01 s */
struct history {
	int n, head; /* entries in the ring; the next one written */
	struct {
		double stalls, fallbacks;
	} v[HISTORY_MAX];
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static const struct thp_opt opts[] = {
	THP_OPT('i', "interval", "SECONDS", "time between reports (default 1; decimals allowed)"),
	THP_OPT_LONG('c', "count", "N", "stop after N reports (default: until interrupted)"),
	THP_OPT_LONG('a', "alert-stalls", "N", "alert when an interval has N or more compaction\n"
					       "stalls, with the threads in D state and high-order\n"
					       "free blocks; exit 3 at the end if any alert fired"),
	THP_OPT_LONG('r', "replay", "DIR", "compare recorded trees instead of reading the host:\n"
					   "the --root tree, then each DIR (a capture directory\n"
					   "or archive, as --root takes), taken SECONDS apart"),
	THP_OPT_LONG('C', "compact", NULL, "one line per interval, as vmstat: fault, fallback and\n"
					   "stall rates, AnonHugePages, and sparklines of the\n"
					   "stalls and fallbacks of the last minute (in ASCII with\n"
					   "'thp --ascii watch --compact')"),
	THP_OPT_JSON("one JSON object per report (JSON lines)"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] watch [options]\n"
		 "\n"
		 "Print THP activity per interval as rates: faults and fallbacks, compaction\n"
		 "stalls, khugepaged collapses, splits, background compaction and reclaim\n"
		 "(kcompactd wake-ups, pages kswapd and allocating threads scanned), TLB\n"
		 "shootdowns (the TLB row of /proc/interrupts, summed over CPUs), per-size mTHP\n"
		 "counters that moved, and the state: AnonHugePages, free PMD-sized blocks per\n"
		 "zone, memory pressure.",
	.width = 26,
	.opts = opts,
	.in_order = true,
};

/* Increase of counter NAME from A to B; false when either lacks it or it went back. */
static bool counter_delta(const struct thp_counter *a, int na, const struct thp_counter *b,
			  int nb, const char *name, uint64_t *d)
{
	uint64_t x, y;

	if (!thp_counter_get(a, na, name, &x) || !thp_counter_get(b, nb, name, &y) || y < x)
		return false;
	*d = y - x;
	return true;
}

static const struct thp_size *find_size(const struct thp_status *st, uint64_t bytes)
{
	for (int i = 0; i < st->nsizes; i++)
		if (st->sizes[i].bytes == bytes)
			return &st->sizes[i];
	return NULL;
}

/* Reads a sample into S: all of the host's state when FULL, else (S holds a
 * full read of ROOT from before) only the counters a report shows. */
static void read_sample(const struct thp_root *root, struct sample *s, bool full)
{
	if (full)
		thp_status_read(root, &s->st, false);
	else
		thp_status_refresh(root, &s->st, size_stats, NSIZE_STATS, progress,
				   (int)(sizeof(progress) / sizeof(progress[0])));
	s->buddy_err = thp_buddyinfo_read(root, &s->buddy);
	s->psi_err = thp_psi_read(root, &s->psi);
	if (full || s->numa.n > 1) /* with one node no line shows it: kept as first read */
		thp_numa_read(root, s->st.pmd_size, s->st.page_size, &s->numa);
}

static void compute_rates(const struct sample *a, const struct sample *b, struct report *r)
{
	const struct thp_status *x = &a->st, *y = &b->st;
	uint64_t d, alloc = 0, fb = 0;
	bool has_alloc = false, has_fb = false;

	for (int g = 0; g < NGROUPS; g++) {
		for (int i = 0; i < GROUP_MAX && groups[g].names[i]; i++) {
			const char *name = groups[g].names[i];
			if (!counter_delta(x->vmstat, x->nvmstat, y->vmstat, y->nvmstat, name, &d))
				continue;
			r->rates[g][r->nrates[g]++] =
				(struct rate){ name, groups[g].labels[i], (double)d / r->secs };
			if (strcmp(name, "thp_fault_alloc") == 0)
				alloc = d, has_alloc = true;
			else if (strcmp(name, "thp_fault_fallback") == 0)
				fb = d, has_fb = true;
		}
	}
	r->has_fallback_pct = has_alloc && has_fb && alloc + fb > 0;
	if (r->has_fallback_pct)
		r->fallback_pct = 100.0 * (double)fb / (double)(alloc + fb);
	for (size_t i = 0; i < 2; i++) {
		const struct thp_setting *p = thp_setting_find(x->khugepaged, x->nkhugepaged, progress[i]);
		const struct thp_setting *q = thp_setting_find(y->khugepaged, y->nkhugepaged, progress[i]);
		if (p && q && p->kind == THP_INT && q->kind == THP_INT && q->num >= p->num) {
			r->progress[r->nprogress].name = progress[i];
			r->progress[r->nprogress++].delta = q->num - p->num;
		}
	}
	for (int i = 0; i < y->nsizes; i++) {
		const struct thp_size *zy = &y->sizes[i], *zx = find_size(x, zy->bytes);
		bool moved = false;

		if (!zx)
			continue;
		r->sizes[r->nsizes].bytes = zy->bytes;
		r->sizes[r->nsizes].n = 0;
		for (int j = 0; j < NSIZE_STATS; j++) {
			if (!counter_delta(zx->stats, zx->nstats, zy->stats, zy->nstats, size_stats[j], &d))
				continue;
			moved = moved || d;
			r->sizes[r->nsizes].r[r->sizes[r->nsizes].n++] =
				(struct rate){ size_stats[j], size_stats[j], (double)d / r->secs };
		}
		if (moved)
			r->nsizes++;
	}
}

/* The rate of TLB shootdowns from A to B, or why there is none. */
static void compute_tlb(const struct sample *a, const struct sample *b, struct report *r)
{
	const struct thp_status *x = &a->st, *y = &b->st;

	if (x->tlb_err || y->tlb_err) {
		snprintf(r->tlb_why, sizeof(r->tlb_why), "/proc/interrupts: %s",
			 thp_strerror(y->tlb_err ? y->tlb_err : x->tlb_err));
		r->tlb_unknown = r->tlb_why;
	} else if (!x->tlb.present || !y->tlb.present)
		r->tlb_unknown = "no TLB row in /proc/interrupts on this architecture";
	else if (x->tlb.ncpus != y->tlb.ncpus || y->tlb.total < x->tlb.total)
		r->tlb_unknown = "CPUs went offline or online";
	else {
		r->has_tlb = true;
		r->tlb_per_s = (double)(y->tlb.total - x->tlb.total) / r->secs;
	}
}

static void compute_state(const struct sample *b, struct report *r)
{
	const struct thp_status *y = &b->st;

	r->has_anon_huge = !y->meminfo_err &&
			   thp_counter_get(y->meminfo, y->nmeminfo, "AnonHugePages", &r->anon_huge);
	r->pmd_order = b->buddy_err ? -1 : thp_pmd_order(y->pmd_size, y->page_size);
	r->has_psi_some = !b->psi_err && b->psi.some.present;
	r->has_psi_full = !b->psi_err && b->psi.full.present;
	r->psi_some = b->psi.some.avg10;
	r->psi_full = b->psi.full.avg10;
}

/* Raises the alert when the interval's compaction stalls reach the threshold. */
static void check_alert(const struct thp_root *root, const struct sample *a,
			const struct sample *b, long threshold, struct report *r)
{
	const struct thp_status *x = &a->st, *y = &b->st;

	if (threshold <= 0 ||
	    !counter_delta(x->vmstat, x->nvmstat, y->vmstat, y->nvmstat, "compact_stall", &r->stalls) ||
	    r->stalls < (uint64_t)threshold)
		return;
	r->alert = true;
	int n = thp_tasks_in_state(root, 'D', r->blocked, BLOCKED_MAX, &r->blocked_total);
	r->nblocked = n < 0 ? 0 : n;
	r->blocked_err = n < 0 ? n : 0;
}

/* "120/s", "0.3/s", "1.25/s": two decimals at most, trailing zeros dropped. */
static const char *rate_str(char *buf, size_t cap, double v)
{
	size_t n = (size_t)snprintf(buf, cap, "%.2f", v);

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	snprintf(buf + n, cap - n, "/s");
	return buf;
}

/* A rate: "120/s" in text (words in BUF), per second in JSON. */
static struct out_val ov_rate(double per_s, char *buf, size_t cap)
{
	return ov_words(ov_num(per_s, 3), rate_str(buf, cap, per_s));
}

/* The alert of R: the stalls, the threads in D state, the high-order free
 * blocks of B. */
static void put_alert(const struct opts *o, const struct sample *b, const struct report *r)
{
	char v[32], key[16], fmt[32];

	out_obj("alert");
	out_put(OUT_ANY, "compact_stall", "  ALERT %s", ov_count(r->stalls));
	snprintf(v, sizeof(v), "%.1f", r->secs);
	out_put(OUT_FP, NULL, " compaction stalls in %s s", ov_str(v));
	out_put(OUT_ANY, "threshold", " (threshold %s)\n", ov_int(o->alert));
	if (r->blocked_err) {
		out_text("    threads in D state: unknown (%s)\n", thp_strerror(r->blocked_err));
		out_put(OUT_JSON, "d_state_total", NULL, ov_null());
		out_put(OUT_JSON, "d_state", NULL, ov_null());
	} else {
		out_put(OUT_ANY, "d_state_total",
			r->blocked_total ? "    threads in D state (%s):" : "    threads in D state: none\n",
			ov_int(r->blocked_total));
		out_arr("d_state");
		for (int i = 0; i < r->nblocked; i++) {
			const struct thp_task *t = &r->blocked[i];
			out_obj(NULL);
			out_put(OUT_ANY, "pid", i ? ", %s" : " %s", ov_int(t->pid));
			out_put(t->tid == t->pid ? OUT_JSON : OUT_ANY, "tid", "/%s", ov_int(t->tid));
			out_put(OUT_ANY, "comm", " %s", ov_str(t->comm));
			out_end();
		}
		out_end();
		if (r->blocked_total > r->nblocked)
			out_text(", and %d more", r->blocked_total - r->nblocked);
		if (r->blocked_total)
			out_text("\n");
	}
	if (r->pmd_order >= 0)
		out_text("    buddyinfo free blocks at order >= %d:\n", r->pmd_order);
	out_arr("buddyinfo");
	for (int i = 0; r->pmd_order >= 0 && i < b->buddy.nzones; i++) {
		const struct thp_buddy_zone *z = &b->buddy.zones[i];
		out_obj(NULL);
		out_put(OUT_ANY, "node", "      node%s", ov_int(z->node));
		out_put(OUT_ANY, "zone", "/%-8s", ov_str(z->zone));
		out_obj("free");
		for (int k = r->pmd_order; k < z->norders; k++) {
			snprintf(key, sizeof(key), "%d", k);
			snprintf(fmt, sizeof(fmt), " %d:%%s", k);
			out_put(OUT_ANY, key, fmt, ov_count(z->free[k]));
		}
		out_end();
		out_end();
		out_text("\n");
	}
	out_end();
	out_end();
}

/* The interval: its end (local time in text, UTC in JSON) or, replaying,
 * its number; its length. */
static void put_head(const struct report *r)
{
	char local[16], utc[32], secs[32];
	struct tm tm;

	out_put(r->wall.tv_sec ? OUT_JSON : OUT_ANY, "seq", "interval %s", ov_int(r->seq));
	if (r->wall.tv_sec) {
		localtime_r(&r->wall.tv_sec, &tm);
		strftime(local, sizeof(local), "%H:%M:%S", &tm);
		gmtime_r(&r->wall.tv_sec, &tm);
		strftime(utc, sizeof(utc), "%Y-%m-%dT%H:%M:%SZ", &tm);
		out_put(OUT_ANY, "time", "%s", ov_words(ov_str(utc), local));
	}
	snprintf(secs, sizeof(secs), "%.1f", r->secs);
	out_put(OUT_ANY, "seconds", "  %s s\n", ov_words(ov_num(r->secs, 3), secs));
}

/* A line per group of counters that moved: their rates (by their vmstat
 * names in JSON), the share of faults that fell back, khugepaged's progress. */
static void put_groups(const struct report *r)
{
	char v[32], fmt[64];

	for (int g = 0; g < NGROUPS; g++) {
		if (!r->nrates[g] && !(g == 2 && r->nprogress))
			continue;
		out_text("  %-11s", groups[g].title);
		out_obj(groups[g].title);
		for (int i = 0; i < r->nrates[g]; i++) {
			snprintf(fmt, sizeof(fmt), " %s %%s", r->rates[g][i].label);
			out_put(OUT_ANY, r->rates[g][i].name, fmt, ov_rate(r->rates[g][i].per_s, v, sizeof(v)));
			if (g == 0 && i == 1 && r->has_fallback_pct) {
				snprintf(v, sizeof(v), "%.1f", r->fallback_pct);
				out_put(OUT_ANY, "fault_fallback_pct", " (%s%%)", ov_words(ov_num(r->fallback_pct, 2), v));
			}
		}
		if (g == 2 && r->nprogress) {
			out_obj("increase");
			for (int i = 0; i < r->nprogress; i++) {
				snprintf(fmt, sizeof(fmt), " %s +%%s", r->progress[i].name);
				out_put(OUT_ANY, r->progress[i].name, fmt, ov_count(r->progress[i].delta));
			}
			out_end();
		}
		out_end();
		out_text("\n");
	}
}

/* The rate of TLB shootdowns, or (in text on the first interval) why there is none. */
static void put_tlb(const struct report *r)
{
	char v[32];

	out_obj("tlb");
	if (r->has_tlb) {
		out_put(OUT_ANY, "shootdowns", "  tlb         shootdowns %s\n", ov_rate(r->tlb_per_s, v, sizeof(v)));
	} else {
		out_put(OUT_JSON, "shootdowns", NULL, ov_null());
		out_put(r->seq == 1 ? OUT_ANY : OUT_JSON, "unknown", "  tlb         shootdowns unknown (%s)\n",
			ov_str(r->tlb_unknown));
	}
	out_end();
}

/* The rates of the mTHP sizes whose counters moved. */
static void put_sizes(const struct report *r)
{
	char v[32], fmt[64];

	out_arr("sizes_per_second");
	for (int i = 0; i < r->nsizes; i++) {
		out_obj(NULL);
		out_put(OUT_ANY, "size", "  mTHP %-6s", ov_size(r->sizes[i].bytes));
		for (int j = 0; j < r->sizes[i].n; j++) {
			snprintf(fmt, sizeof(fmt), " %s %%s", r->sizes[i].r[j].label);
			out_put(OUT_ANY, r->sizes[i].r[j].name, fmt, ov_rate(r->sizes[i].r[j].per_s, v, sizeof(v)));
		}
		out_end();
		out_text("\n");
	}
	out_end();
}

/* AnonHugePages and memory pressure; per node with more than one; the free
 * PMD-sized blocks per zone. */
static void put_state(const struct sample *b, const struct report *r)
{
	if (r->has_anon_huge || r->has_psi_some || r->has_psi_full)
		out_text("  %-11s", "state");
	if (r->has_anon_huge)
		out_put(OUT_ANY, "anon_huge_bytes", " AnonHugePages %s", ov_size(r->anon_huge));
	if (r->has_psi_some || r->has_psi_full) {
		out_text("%s memory pressure avg10", r->has_anon_huge ? "," : "");
		out_obj("memory_pressure");
		if (r->has_psi_some)
			out_put(OUT_ANY, "some_avg10", " some %s%%", ov_num(r->psi_some, 2));
		if (r->has_psi_full)
			out_put(OUT_ANY, "full_avg10", " full %s%%", ov_num(r->psi_full, 2));
		out_end();
	}
	if (r->has_anon_huge || r->has_psi_some || r->has_psi_full)
		out_text("\n");
	if (b->numa.n > 1)
		out_arr("nodes");
	for (int i = 0; b->numa.n > 1 && i < b->numa.n; i++) {
		const struct thp_numa_node *d = &b->numa.nodes[i];
		enum out_to to = d->has_meminfo ? OUT_ANY : OUT_JSON;
		out_obj(NULL);
		out_put(to, "node", "  node %-6s", ov_int(d->id));
		out_put(to, "anon_huge_bytes", " AnonHugePages %s", ov_if(d->has_meminfo, ov_size(d->anon_huge)));
		out_put(to, "shmem_huge_bytes", ", ShmemHugePages %s", ov_if(d->has_meminfo, ov_size(d->shmem_huge)));
		out_put(to, "file_huge_bytes", ", FileHugePages %s\n", ov_if(d->has_meminfo, ov_size(d->file_huge)));
		out_end();
	}
	if (b->numa.n > 1)
		out_end();
	if (r->pmd_order < 0)
		return;
	out_put(OUT_JSON, "pmd_order", NULL, ov_int(r->pmd_order));
	out_put(OUT_FP, NULL, "  free %-6s", ov_size(b->st.pmd_size));
	out_arr("free_pmd_blocks");
	for (int i = 0; i < b->buddy.nzones; i++) {
		const struct thp_buddy_zone *z = &b->buddy.zones[i];
		out_obj(NULL);
		out_put(OUT_ANY, "node", " node%s", ov_int(z->node));
		out_put(OUT_ANY, "zone", "/%s", ov_str(z->zone));
		out_put(OUT_ANY, "blocks", " %s", ov_count(thp_buddy_free_blocks(z, r->pmd_order)));
		out_end();
	}
	out_end();
	out_text(" blocks\n");
}

/* The report of an interval: text lines, or a JSON line. */
static void put_report(const struct opts *o, const struct sample *b, const struct report *r)
{
	put_head(r);
	put_groups(r);
	put_tlb(r);
	put_sizes(r);
	put_state(b, r);
	if (r->alert)
		put_alert(o, b, r);
}

/* The rate of vmstat counter NAME in R; false when the host lacks it. */
static bool rate_of(const struct report *r, const char *name, double *per_s)
{
	for (int g = 0; g < NGROUPS; g++)
		for (int i = 0; i < r->nrates[g]; i++)
			if (strcmp(r->rates[g][i].name, name) == 0) {
				*per_s = r->rates[g][i].per_s;
				return true;
			}
	return false;
}

/* Adds the stalls and fallbacks of interval R to H and forgets what is older
 * than the window. */
static void history_add(struct history *h, const struct report *r)
{
	double stall = 0, fb = 0;

	rate_of(r, "compact_stall", &stall);
	rate_of(r, "thp_fault_fallback", &fb);
	h->v[h->head].stalls = stall * r->secs;
	h->v[h->head].fallbacks = fb * r->secs;
	h->head = (h->head + 1) % HISTORY_MAX;
	h->n += h->n < HISTORY_MAX;
}

/* The sparkline of the last minute of H (FALLBACKS, else stalls) and its sum,
 * in BUF; the marks before the first interval are blank. */
static const char *history_spark(const struct history *h, bool fallbacks, double interval, char *buf,
				 size_t cap)
{
	double span = interval > SPARK_SPAN ? interval : SPARK_SPAN, sum[SPARK_MARKS] = { 0 }, total = 0;
	int marks = (int)(SPARK_WINDOW / span + 0.999), per = (int)(span / interval + 0.5), used;
	char spark[3 * SPARK_MARKS + 1], n[32];

	marks = marks > SPARK_MARKS ? SPARK_MARKS : marks;
	used = (h->n + per - 1) / per < marks ? (h->n + per - 1) / per : marks;
	for (int i = 0; i < h->n && i / per < used; i++) {
		int k = (h->head - 1 - i + HISTORY_MAX) % HISTORY_MAX;
		double x = fallbacks ? h->v[k].fallbacks : h->v[k].stalls;
		sum[used - 1 - i / per] += x;
		total += x;
	}
	out_spark(spark, sizeof(spark), sum, used, 0, out_draw_ascii());
	snprintf(buf, cap, "%*s%s %5s", SPARK_MARKS - used, "", spark, out_count(n, sizeof(n), (uint64_t)(total + 0.5)));
	return buf;
}

/* A compact column: the rate of a vmstat counter. */
static const struct {
	const char *head, *counter;
} compact_cols[] = {
	{ "alloc/s", "thp_fault_alloc" },
	{ "fback/s", "thp_fault_fallback" },
	{ "stall/s", "compact_stall" },
};
#define NCOMPACT (int)(sizeof(compact_cols) / sizeof(compact_cols[0]))

static void print_compact(const struct opts *o, const struct sample *b, const struct report *r,
			  const struct history *h)
{
	char v[64], spark[2][3 * SPARK_MARKS + 64];
	double x;

	if (r->seq == 1) {
		printf("%8s", "time");
		for (int c = 0; c < NCOMPACT; c++)
			printf(" %7s", compact_cols[c].head);
		printf(" %9s  %-*s  %s\n", "AnonHuge", SPARK_MARKS + 6, "stalls, 1 min", "fallbacks, 1 min");
	}
	if (r->wall.tv_sec) {
		struct tm tm;
		localtime_r(&r->wall.tv_sec, &tm);
		strftime(v, sizeof(v), "%H:%M:%S", &tm);
	} else
		snprintf(v, sizeof(v), "#%ld", r->seq);
	printf("%8s", v);
	for (int c = 0; c < NCOMPACT; c++) {
		if (rate_of(r, compact_cols[c].counter, &x))
			snprintf(v, sizeof(v), "%.1f", x);
		else
			snprintf(v, sizeof(v), "-");
		printf(" %7s", v);
	}
	printf(" %9s  %s  %s\n", r->has_anon_huge ? out_size(v, sizeof(v), r->anon_huge, false) : "-",
	       history_spark(h, false, o->interval, spark[0], sizeof(spark[0])),
	       history_spark(h, true, o->interval, spark[1], sizeof(spark[1])));
	if (r->alert)
		put_alert(o, b, r);
}

/* Computes and prints the report for the interval from A to B, read below ROOT_B.
 * Returns -1 when stdout fails, 1 when an alert fired, else 0. */
static int report(const struct opts *o, const struct thp_root *root_b, const struct sample *a,
		  const struct sample *b, long seq, double secs, bool live, struct history *h)
{
	struct report *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -1;
	r->seq = seq;
	r->secs = secs;
	if (live)
		clock_gettime(CLOCK_REALTIME, &r->wall);
	compute_rates(a, b, r);
	compute_tlb(a, b, r);
	compute_state(b, r);
	check_alert(root_b, a, b, o->alert, r);
	out_doc_line(o->json, false, "thp-watch/2");
	if (o->compact) {
		history_add(h, r);
		print_compact(o, b, r, h);
	} else {
		put_report(o, b, r);
	}
	rc = out_doc_end() ? -1 : 0;
	if (rc == 0 && r->alert)
		rc = 1;
	free(r);
	return rc;
}

static double mono_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Sleeps until monotonic time DEADLINE; false when a signal asked to stop. */
static bool sleep_until(double deadline)
{
	struct timespec t = { (time_t)deadline, (long)((deadline - (double)(time_t)deadline) * 1e9) };

	while (!stop) {
		int e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		if (e == 0)
			return !stop;
		if (e != EINTR)
			return false;
	}
	return false;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: wake the sleep */

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int run(const struct thp_root *root, const struct opts *o)
{
	struct sample *s[2] = { malloc(sizeof(struct sample)), malloc(sizeof(struct sample)) };
	struct history *h = o->compact ? calloc(1, sizeof(*h)) : NULL;
	bool alerted = false;
	int rc = 0;

	if (!s[0] || !s[1] || (o->compact && !h)) {
		free(s[0]);
		free(s[1]);
		free(h);
		thp_err("out of memory");
		return 1;
	}
	read_sample(root, s[0], true);
	if (o->nreplay) {
		for (int i = 0; i < o->nreplay && rc >= 0; i++) {
			read_sample(&o->replay[i], s[1], true);
			rc = report(o, &o->replay[i], s[0], s[1], i + 1, o->interval, false, h);
			alerted = alerted || rc == 1;
			struct sample *t = s[0];
			s[0] = s[1], s[1] = t;
		}
	} else {
		double start = mono_now(), prev = start;
		catch_signals();
		for (long i = 1; (!o->count || i <= o->count) && rc >= 0; i++) {
			if (!sleep_until(start + (double)i * o->interval))
				break;
			double now = mono_now();
			read_sample(root, s[1], i == 1); /* later, s[1] holds an earlier full read */
			rc = report(o, root, s[0], s[1], i, now - prev, true, h);
			alerted = alerted || rc == 1;
			prev = now;
			struct sample *t = s[0];
			s[0] = s[1], s[1] = t;
		}
	}
	free(s[0]);
	free(s[1]);
	free(h);
	if (rc < 0)
		return 1;
	return alerted ? 3 : 0;
}

/* Reads a count of option WHAT (1 or more) into *V; false after explaining. */
static bool count_opt(const char *what, const char *arg, long *v)
{
	uint64_t n;

	if (!thp_opt_u64(what, arg, 1, INT32_MAX, &n))
		return false;
	*v = (long)n;
	return true;
}

/* Closes the --replay trees of O, and removes those unpacked from archives. */
static void close_replays(struct opts *o)
{
	for (int i = 0; i < o->nreplay; i++)
		thp_rootarg_close(&o->replay[i], &o->replay_arg[i]);
	o->nreplay = 0;
}

int cmd_watch(struct thp_ctx *ctx, int argc, char **argv)
{
	struct opts o = { .interval = 1 };
	int c, rc;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'i':
			if (!thp_opt_decimal("--interval", optarg, "seconds", 0.01, 86400, &o.interval))
				return thp_usage_error("watch");
			break;
		case 'c':
			if (!count_opt("--count", optarg, &o.count))
				return thp_usage_error("watch");
			break;
		case 'a':
			if (!count_opt("--alert-stalls", optarg, &o.alert))
				return thp_usage_error("watch");
			break;
		case 'r':
			if (o.nreplay == REPLAY_MAX) {
				thp_err("at most %d --replay trees", REPLAY_MAX);
				return thp_usage_error("watch");
			}
			if (thp_rootarg_open(&o.replay[o.nreplay], &o.replay_arg[o.nreplay], optarg, "replay tree")) {
				close_replays(&o);
				return 1;
			}
			o.nreplay++;
			break;
		case 'C': o.compact = true; break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	o.json = ctx->json;
	if (optind < argc || (o.nreplay && o.count) || (o.compact && o.json)) {
		if (optind < argc)
			thp_err("unexpected argument '%s'", argv[optind]);
		else if (o.compact && o.json)
			thp_err("--compact is a text format; it does not apply to --json");
		else
			thp_err("--count does not apply to --replay (one report per tree)");
		close_replays(&o);
		return thp_usage_error("watch");
	}
	/* each interval reads the same files: keep them open (without memory, reopen them) */
	if (!o.nreplay)
		(void)thp_root_keep_open(&ctx->root);
	rc = run(&ctx->root, &o);
	close_replays(&o);
	return rc;
}
