/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.c - `thp trace`: how long threads stall in compaction and reclaim (root) */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../control/tracefs.h"
#include "../core/proc.h"
#include "../core/stall.h"
#include "../render/render.h"
#include "../render/term.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

#define NS_PER_S 1000000000ull
#define ROUND_NS (100 * 1000000ull) /* how often the buffers are read when quiet */
#define MARGIN_NS (1000000ull)      /* events this recent may still be committing */
#define BUFFER_KB 2048              /* ring buffer per CPU */

/* The columns of the table of totals per kind: -o, the text, and JSON (keys
 * the names in lower case). */
enum { C_KIND, C_STALLS, C_TOTAL, C_MAX, C_AVG, NCOLS };
static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v);
static const struct out_col cols[] = {
	[C_KIND] = { "KIND", OUT_TEXT, OUT_KEEP, "what stalled: direct compaction, direct reclaim, ...", get, C_KIND },
	[C_STALLS] = { "STALLS", OUT_COUNT, OUT_KEEP, "number of stalls", get, C_STALLS },
	[C_TOTAL] = { "TOTAL_MS", OUT_NUM, OUT_KEEP, "time stalled, in all", get, C_TOTAL },
	[C_MAX] = { "MAX_MS", OUT_NUM, 0, "the longest stall", get, C_MAX },
	[C_AVG] = { "AVG_MS", OUT_NUM, 0, "the mean stall", get, C_AVG },
};
_Static_assert(sizeof(cols) / sizeof(cols[0]) == NCOLS, "one descriptor per column");
static const int default_cols[] = { C_KIND, C_STALLS, C_TOTAL, C_MAX, C_AVG };

struct opts {
	double seconds; /* 0: until a signal */
	double min_ms;
	int pid;
	const char *comm;
	struct out_fmt fmt;
	int sel[NCOLS * 2], nsel;
	bool tlb; /* count tlb:tlb_flush per process */
};

struct run {
	const struct opts *o;
	struct thp_root *root;
	struct thp_trace *t;
	bool tlb;                   /* tlb:tlb_flush is traced (asked for, and the kernel has it) */
	uint64_t mono0;             /* trace clock (CLOCK_MONOTONIC) at the start */
	struct timespec real0;      /* wall clock at the same moment */
	int push_err;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static const struct thp_opt opts[] = {
	THP_OPT('d', "duration", "SECONDS", "trace this long (default: until interrupted)"),
	THP_OPT('p', "pid", "PID", "only this process (or thread)"),
	THP_OPT_LONG('c', "comm", "NAME", "only threads with this command name"),
	THP_OPT_LONG('m', "min-ms", "MS", "print only stalls at least this long (default 0)"),
	THP_OPT_LONG('T', "tlb", NULL, "also count TLB flushes per process (tlb:tlb_flush,\nx86)"),
	THP_OPT_TEXT(22, "The table options (of the totals; -J: one JSON document at the end, with the\n"
			 "events and histograms):"),
	THP_OPTS_TABLE,
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp trace [options]   (root)\n"
		 "\n"
		 "Trace how long threads stall in direct compaction and direct reclaim, with\n"
		 "kcompactd, proactive and requested compaction reported apart, and count\n"
		 "khugepaged collapse results. Prints a line per stall, then per-command\n"
		 "latency histograms (bars; in ASCII with 'thp --ascii trace'; none with -r)\n"
		 "and totals.\n"
		 "Ctrl-C ends the trace early.",
	.width = 26,
	.opts = opts,
	.cols = cols,
	.ncols = NCOLS,
	.in_order = true,
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Wall-clock time of trace timestamp TS, as "HH:MM:SS.mmm" (local) or, with
 * ISO, "YYYY-MM-DDTHH:MM:SS.uuuuuuZ". */
static const char *wall(const struct run *r, uint64_t ts, bool iso, char *buf, size_t cap)
{
	uint64_t ns = (uint64_t)r->real0.tv_nsec + (ts > r->mono0 ? ts - r->mono0 : 0);
	time_t sec = r->real0.tv_sec + (time_t)(ns / NS_PER_S);
	struct tm tm;
	size_t n;

	ns %= NS_PER_S;
	if (iso) {
		gmtime_r(&sec, &tm);
		n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf + n, cap - n, ".%06uZ", (unsigned)(ns / 1000));
	} else {
		localtime_r(&sec, &tm);
		n = strftime(buf, cap, "%H:%M:%S", &tm);
		snprintf(buf + n, cap - n, ".%03u", (unsigned)(ns / 1000000));
	}
	return buf;
}

/* COMM as text shows it: "?" when empty (JSON keeps ""). */
static struct out_val ov_comm(const char *comm)
{
	return ov_words(ov_str(comm), comm[0] ? NULL : "?");
}

/* A line per stall in text, an element of "events" in JSON. */
static void on_stall(const struct thp_stall *s, void *arg)
{
	struct run *r = arg;
	char local[32], iso[48], ms[32];

	out_progress_erase(); /* the line may go to the same terminal */
	snprintf(ms, sizeof(ms), "%.3f", (double)s->ns / 1e6);
	out_obj(NULL);
	out_put(OUT_ANY, "time", "%-12s",
		ov_words(ov_str(wall(r, s->start, true, iso, sizeof(iso))), wall(r, s->start, false, local, sizeof(local))));
	out_put(OUT_ANY, "pid", " %7s", ov_int(s->tgid ? s->tgid : s->tid));
	out_put(OUT_ANY, "tid", " %7s", ov_int(s->tid));
	out_put(OUT_ANY, "comm", " %-15s", ov_comm(s->comm));
	out_put(OUT_ANY, "kind", " %-17s", ov_str(thp_stall_kind_name(s->kind)));
	out_put(OUT_ANY, "duration_ns", " %10s", ov_words(ov_count(s->ns), ms));
	out_put(OUT_ANY, "order", " %5s", ov_if(s->order >= 0, ov_int(s->order)));
	out_put(OUT_JSON, "mode", NULL, ov_str(s->sync < 0 ? NULL : s->sync ? "sync" : "async"));
	if (s->kind == THP_STALL_DIRECT_RECLAIM) {
		out_put(OUT_JSON, "result", NULL, ov_str(s->result));
		out_put(OUT_ANY, "reclaimed_pages", " %s pages\n", ov_count(s->reclaimed));
	} else {
		out_put(OUT_ANY, "result", " %s\n", ov_words(ov_str(s->result), s->result ? NULL : "-"));
	}
	out_put(OUT_JSON, "cpu_begin", NULL, ov_int(s->cpu_begin));
	out_put(OUT_JSON, "cpu_end", NULL, ov_int(s->cpu_end));
	out_end();
}

/* Thread identity from /proc, or only the command name for a thread that has exited. */
static int ident(int tid, int *tgid, char *comm, size_t cap, void *arg)
{
	struct run *r = arg;
	struct thp_pstatus ps;

	if (thp_pstatus_read(r->root, tid, &ps) == 0) {
		*tgid = ps.tgid;
		snprintf(comm, cap, "%s", ps.name);
		return 0;
	}
	*tgid = 0;
	return thp_tracefs_comm(tid, comm, cap);
}

static int push(struct thp_ev *ev, void *arg)
{
	return thp_trace_push(arg, ev);
}

static const char *ms(char *buf, size_t cap, uint64_t ns)
{
	snprintf(buf, cap, "%.3f", (double)ns / 1e6);
	return buf;
}

/* The stalls of one command H by duration: in text a bar per bucket from the
 * first to the last used, in JSON the buckets used. */
static void put_hist(const struct thp_hist *h)
{
	int lo = THP_HIST_BUCKETS, hi = 0, n = 0;
	struct out_chart_row rows[THP_HIST_BUCKETS];
	char tot[32], max[32], range[THP_HIST_BUCKETS][48], count[THP_HIST_BUCKETS][32];

	for (int k = 0; k < THP_HIST_BUCKETS; k++) {
		if (!h->bucket[k])
			continue;
		lo = k < lo ? k : lo;
		hi = k;
	}
	out_obj(NULL);
	out_put(OUT_ANY, "kind", "\n%s", ov_str(thp_stall_kind_name(h->kind)));
	out_put(OUT_ANY, "comm", ", %s", ov_comm(h->comm));
	out_put(OUT_ANY, "count", ": %s stalls", ov_count(h->count));
	out_put(OUT_ANY, "total_ns", ", %s ms total", ov_words(ov_count(h->total_ns), ms(tot, sizeof(tot), h->total_ns)));
	out_put(OUT_ANY, "max_ns", ", max %s ms\n", ov_words(ov_count(h->max_ns), ms(max, sizeof(max), h->max_ns)));
	out_arr("buckets");
	for (int k = lo; k <= hi; k++, n++) {
		bool last = k + 1 == THP_HIST_BUCKETS;
		if (h->bucket[k]) {
			out_obj(NULL);
			out_put(OUT_JSON, "from_us", NULL, ov_count(thp_hist_lo_us(k)));
			out_put(OUT_JSON, "below_us", NULL, ov_if(!last, ov_count(last ? 0 : thp_hist_lo_us(k + 1))));
			out_put(OUT_JSON, "count", NULL, ov_count(h->bucket[k]));
			out_end();
		}
		if (last)
			snprintf(range[n], sizeof(range[n]), "%" PRIu64 " us -> ...", thp_hist_lo_us(k));
		else
			snprintf(range[n], sizeof(range[n]), "%" PRIu64 " -> %" PRIu64 " us", thp_hist_lo_us(k),
				 thp_hist_lo_us(k + 1) - 1);
		rows[n] = (struct out_chart_row){ range[n], (double)h->bucket[k],
						  out_count(count[n], sizeof(count[n]), h->bucket[k]) };
	}
	out_end();
	out_end();
	if (!out_json_on())
		out_chart(rows, n, 2);
}

/* Counts by result V (N of them), member KEY; in text (TO OUT_ANY) "  WHAT:
 * ALL (RESULT COUNT, ...)". */
static void put_results(enum out_to to, const char *key, const char *what, const struct thp_result_count *v,
			size_t n)
{
	uint64_t all = 0;
	char c[32];

	for (size_t i = 0; i < n; i++)
		all += v[i].count;
	if (to == OUT_ANY)
		out_text("  %s: %s", what, out_count(c, sizeof(c), all));
	out_obj(key);
	for (size_t i = 0; i < n; i++) {
		if (to == OUT_ANY)
			out_text("%s%s ", i ? ", " : " (", v[i].result);
		out_put(to, v[i].result, "%s", ov_grouped(v[i].count));
	}
	out_end();
	if (to == OUT_ANY)
		out_text(n ? ")\n" : "\n");
}

#define FLUSHES_SHOWN 20

static int by_count(const void *a, const void *b)
{
	const struct thp_tlb_flushes *x = a, *y = b;

	return (x->count < y->count) - (x->count > y->count);
}

/* The processes by their TLB flushes, with the reasons the kernel gave: the
 * first FLUSHES_SHOWN in text, all in JSON. */
static void put_flushes(const struct run *r)
{
	const struct thp_trace *t = r->t;
	struct thp_tlb_flushes *v; /* a copy sorted by count (the reasons stay shared) */

	if (!r->o->tlb) {
		out_put(OUT_JSON, "tlb_flushes", NULL, ov_null());
		return;
	}
	out_obj("tlb_flushes");
	out_put(OUT_JSON, "available", NULL, ov_bool(r->tlb));
	if (!r->tlb)
		out_text("\nTLB flushes: not counted (no tlb:tlb_flush trace event)\n");
	else
		out_text("\nTLB flushes (tlb:tlb_flush), by the process running when they happened: %zu process%s\n",
			 t->nflushes, t->nflushes == 1 ? "" : "es");
	out_arr("processes");
	if ((v = malloc((t->nflushes + 1) * sizeof(*v)))) {
		if (t->nflushes)
			memcpy(v, t->flushes, t->nflushes * sizeof(*v));
		qsort(v, t->nflushes, sizeof(*v), by_count);
		for (size_t i = 0; i < t->nflushes; i++) {
			enum out_to to = i < FLUSHES_SHOWN ? OUT_ANY : OUT_JSON;
			out_obj(NULL);
			out_put(to, "pid", "  %7s", ov_int(v[i].pid));
			out_put(to, "comm", " %-15s", ov_comm(v[i].comm));
			out_put(OUT_JSON, "count", NULL, ov_count(v[i].count));
			put_results(to, "reasons", "flushes", v[i].reasons, v[i].nreasons);
			out_end();
		}
		free(v);
	}
	out_end();
	if (t->nflushes > FLUSHES_SHOWN)
		out_text("  (%zu more; --json lists all)\n", t->nflushes - FLUSHES_SHOWN);
	out_end();
}

/* Column C of the totals of a kind of stall ROW (a struct thp_hist); durations
 * in milliseconds, "-" and null with no stall. */
static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct thp_hist *h = row;
	uint64_t avg_ns = h->count ? h->total_ns / h->count : 0; /* whole nanoseconds */

	(void)ctx;
	switch (c->arg) {
	case C_KIND: v->s = thp_stall_kind_name(h->kind); break;
	case C_STALLS: out_val_set(v, ov_grouped(h->count)); break;
	case C_TOTAL: out_val_set(v, ov_if(h->count, ov_num((double)h->total_ns / 1e6, 3))); break;
	case C_MAX: out_val_set(v, ov_if(h->count, ov_num((double)h->max_ns / 1e6, 3))); break;
	default:
		out_val_set(v, ov_if(h->count, ov_num((double)avg_ns / 1e6, 3)));
		break;
	}
}

/* What the trace found: the totals per kind, the histograms per command
 * (none in text with -r), khugepaged's results, the TLB flushes, and what
 * could not be counted. */
static void put_summary(struct run *r, double secs, uint64_t lost)
{
	const struct thp_trace *t = r->t;
	struct out_table *tab;
	char s[32];

	snprintf(s, sizeof(s), "%.1f", secs);
	out_put(OUT_ANY, "duration_ms", "\nTraced %s s", ov_words(ov_count((uint64_t)(secs * 1000)), s));
	out_put(OUT_ANY, "events_read", ": %s events read", ov_grouped(t->events));
	out_put(OUT_ANY, "lost_events", ", %s lost.\n", ov_grouped(lost));
	tab = out_table_open("totals", cols, r->o->sel, r->o->nsel, &r->o->fmt, r);
	for (int i = 0; i < THP_STALL_NKINDS; i++)
		out_table_add(tab, &t->totals[i]);
	out_table_close(tab, 0);
	out_arr("histograms");
	for (int kind = 0; kind < THP_STALL_NKINDS && (out_json_on() || !r->o->fmt.raw); kind++) /* -r: no chart, as bench */
		for (size_t i = 0; i < t->nhists; i++)
			if (t->hists[i].kind == (enum thp_stall_kind)kind)
				put_hist(&t->hists[i]);
	out_end();
	out_text("\nkhugepaged and MADV_COLLAPSE results\n");
	out_obj("khugepaged");
	put_results(OUT_ANY, "scan_pmd", "PMD scans", t->scan, t->nscan);
	put_results(OUT_ANY, "collapse", "collapses", t->collapse, t->ncollapse);
	out_end();
	put_flushes(r);
	enum out_to to = t->unmatched || t->restarted || t->unfinished ? OUT_ANY : OUT_JSON;
	out_put(to, "unmatched_ends", "\nNot counted: %s ends whose begin came before the trace", ov_count(t->unmatched));
	out_put(to, "lost_ends", ", %s begins whose end was lost", ov_count(t->restarted));
	out_put(to, "unfinished", ", %s still running at the end.\n", ov_count(t->unfinished));
}

/* The events the kernel lacks, the space-separated names MISSING, as a JSON array. */
static void put_missing(const char *missing)
{
	char name[128];

	out_arr("missing_events");
	for (const char *p = missing; *p;) {
		size_t n = strcspn(p, " ");
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		out_put(OUT_JSON, NULL, NULL, ov_str(name));
		p += n + (p[n] == ' ');
	}
	out_end();
}

/* The longest trace (a week) and the longest --min-ms (a day). */
#define DURATION_MAX 604800
#define MIN_MS_MAX 86400000

static int parse(struct thp_ctx *ctx, int argc, char **argv, struct opts *o)
{
	int c;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		if (out_fmt_opt(&o->fmt, c, optarg))
			continue;
		switch (c) {
		case 'd':
			if (!thp_opt_decimal("--duration", optarg, "seconds", 0.01, DURATION_MAX,
					     &o->seconds))
				return thp_usage_error("trace");
			break;
		case 'p':
			if (!thp_opt_int("--pid", optarg, 1, THP_PID_MAX, &o->pid))
				return thp_usage_error("trace");
			break;
		case 'c':
			if (!*optarg) {
				thp_err("empty command name");
				return thp_usage_error("trace");
			}
			o->comm = optarg;
			break;
		case 'm':
			if (!thp_opt_decimal("--min-ms", optarg, "milliseconds", 0, MIN_MS_MAX,
					     &o->min_ms))
				return thp_usage_error("trace");
			break;
		case 'T': o->tlb = true; break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	o->fmt.json = ctx->json;
	if (optind < argc) {
		thp_err("unexpected argument '%s'", argv[optind]);
		return thp_usage_error("trace");
	}
	o->nsel = out_cols_select(cols, NCOLS, &o->fmt, default_cols, NCOLS, o->sel, NCOLS * 2);
	return o->nsel < 0 ? 2 : -1;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: sleeps end early */
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* Reads the buffers until the duration is over, a signal comes or stdout
 * cannot be written. Returns 0 or -errno. */
static int trace_loop(struct run *r, struct thp_tracefs *tf)
{
	uint64_t end = r->o->seconds ? r->mono0 + (uint64_t)(r->o->seconds * 1e9) : UINT64_MAX;
	struct out_progress p;
	int err = 0;

	out_progress_init(&p);
	p.tty = p.tty && r->o->seconds && !r->o->fmt.json;

	while (!stop_signal && !ferror(stdout)) {
		uint64_t now = mono_ns(), mark;
		long n;
		int rc;

		if (now >= end)
			break;
		/* a flood wakes this early; a quiet trace is still read every round */
		thp_tracefs_wait(tf, end - now < ROUND_NS ? end - now : ROUND_NS);
		mark = mono_ns();
		n = thp_tracefs_read(tf, push, r->t);
		if (n < 0) {
			err = (int)n;
			break;
		}
		if ((rc = thp_trace_flush(r->t, mark - MARGIN_NS))) {
			err = rc;
			break;
		}
		thp_flush();
		out_progress_say(&p, "trace", "tracing for %g s, %" PRIu64 " events", r->o->seconds, r->t->events);
	}
	out_progress_end(&p);
	return err;
}

int cmd_trace(struct thp_ctx *ctx, int argc, char **argv)
{
	struct opts o = { 0 };
	struct run r = { .o = &o, .root = &ctx->root };
	struct thp_trace_filter f;
	struct thp_tracefs *tf = NULL;
	const char *what;
	long n;
	uint64_t lost;
	struct thp_pstatus st;
	double secs;
	int rc = parse(ctx, argc, argv, &o), err;

	if (rc >= 0)
		return rc;
	if (thp_need_root(ctx, NULL))
		return 1;
	if (o.pid && thp_pid_target(ctx, o.pid, true, &st))
		return 1; /* kernel threads stall too (kcompactd) */
	f = (struct thp_trace_filter){ o.pid, o.comm, (uint64_t)(o.min_ms * 1e6) };
	r.t = thp_trace_new(&f, on_stall, &r);
	if (!r.t) {
		thp_err("out of memory");
		return 1;
	}
	r.t->ident = ident;
	r.t->ident_arg = &r;
	catch_signals();
	err = thp_tracefs_open(&tf, BUFFER_KB, o.tlb, &what);
	if (err) {
		thp_err("cannot %s: %s", what, strerror(-err));
		rc = 1;
		goto out;
	}
	if (thp_tracefs_useless(tf)) {
		thp_err("this kernel has no compaction or reclaim trace events");
		rc = 1;
		goto out;
	}
	if (*thp_tracefs_missing(tf))
		thp_err("this kernel lacks %s; they are not traced", thp_tracefs_missing(tf));
	r.tlb = o.tlb && thp_tracefs_has(tf, THP_EV_TLB_FLUSH);
	if (o.tlb && !r.tlb)
		thp_err("--tlb: this kernel has no tlb:tlb_flush trace event (events/tlb/tlb_flush "
			"in tracefs; x86 only): TLB flushes are not counted");
	clock_gettime(CLOCK_REALTIME, &r.real0);
	r.mono0 = mono_ns();
	if ((err = thp_tracefs_start(tf))) {
		thp_err("cannot switch tracing on: %s", strerror(-err));
		rc = 1;
		goto out;
	}
	if (o.seconds)
		fprintf(stderr, "Tracing memory stalls for %g s (Ctrl-C ends early).\n", o.seconds);
	else
		fputs("Tracing memory stalls until Ctrl-C.\n", stderr);
	out_doc_begin(o.fmt.json, o.fmt.bytes, "thp-trace/2");
	put_missing(thp_tracefs_missing(tf));
	out_text("%-12s %7s %7s %-15s %-17s %10s %5s %s\n", "TIME", "PID", "TID", "COMM", "KIND", "MS", "ORDER",
		 "RESULT");
	out_arr("events");
	thp_flush();
	err = trace_loop(&r, tf);
	if (!err && (n = thp_tracefs_read(tf, push, r.t)) < 0)
		err = (int)n;
	secs = (double)(mono_ns() - r.mono0) / 1e9;
	lost = thp_tracefs_lost(tf);
	if (!err)
		err = thp_trace_finish(r.t);
	out_end(); /* the events */
	if (err) {
		out_doc_end();
		thp_err("cannot read trace events: %s", strerror(-err));
		rc = 1;
		goto out;
	}
	put_summary(&r, secs, lost);
	rc = out_doc_end() ? 1 : 0;
	if (lost)
		thp_err("%" PRIu64 " events were lost (the trace buffers overflowed); figures are incomplete", lost);
out:
	thp_tracefs_close(tf);
	thp_trace_free(r.t);
	return rc;
}
