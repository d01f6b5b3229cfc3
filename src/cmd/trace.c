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

#define NS_PER_S 1000000000ull
#define ROUND_NS (100 * 1000000ull) /* how often the buffers are read when quiet */
#define MARGIN_NS (1000000ull)      /* events this recent may still be committing */
#define BUFFER_KB 2048              /* ring buffer per CPU */

/* The columns of the table of totals per kind: -o, the table, the keys of -J -o. */
enum { C_KIND, C_STALLS, C_TOTAL, C_MAX, C_AVG, NCOLS };
static const struct out_col cols[] = {
	[C_KIND] = { "KIND", OUT_TEXT, OUT_KEEP, "what stalled: direct compaction, direct reclaim, ...", NULL, 0 },
	[C_STALLS] = { "STALLS", OUT_COUNT, OUT_KEEP, "number of stalls", NULL, 0 },
	[C_TOTAL] = { "TOTAL_MS", OUT_NUM, OUT_KEEP, "time stalled, in all", NULL, 0 },
	[C_MAX] = { "MAX_MS", OUT_NUM, 0, "the longest stall", NULL, 0 },
	[C_AVG] = { "AVG_MS", OUT_NUM, 0, "the mean stall", NULL, 0 },
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
	struct json_object *events; /* --json: the stalls above --min-ms */
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

static void usage(void)
{
	puts("Usage: thp trace [options]   (root)\n"
	     "\n"
	     "Trace how long threads stall in direct compaction and direct reclaim, with\n"
	     "kcompactd, proactive and requested compaction reported apart, and count\n"
	     "khugepaged collapse results. Prints a line per stall, then per-command\n"
	     "latency histograms (bars; in ASCII with 'thp --ascii trace'; none with -r)\n"
	     "and totals.\n"
	     "Ctrl-C ends the trace early.\n"
	     "\n"
	     "Options:\n"
	     "  -d, --duration SECONDS  trace this long (default: until interrupted)\n"
	     "  -p, --pid PID           only this process (or thread)\n"
	     "  -c, --comm NAME         only threads with this command name\n"
	     "      --min-ms MS         print only stalls at least this long (default 0)\n"
	     "      --tlb               also count TLB flushes per process (tlb:tlb_flush,\n"
	     "                          x86)\n"
	     "The table options (of the totals; -J: one JSON document at the end, with the\n"
	     "events and histograms):");
	out_fmt_help(cols, NCOLS);
}

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

#define COMM_SHOWN_MAX ((size_t)4 * THP_COMM_LEN)

/* COMM escaped for the terminal into BUF (COMM_SHOWN_MAX), or "?" when empty. */
static const char *comm_shown(const char *comm, char *buf)
{
	return comm[0] ? out_esc(buf, COMM_SHOWN_MAX, comm) : "?";
}

static struct json_object *stall_json(const struct run *r, const struct thp_stall *s)
{
	struct json_object *o = json_object_new_object();
	char t[48];

	json_object_object_add(o, "time", json_object_new_string(wall(r, s->start, true, t, sizeof(t))));
	json_object_object_add(o, "pid", json_object_new_int(s->tgid ? s->tgid : s->tid));
	json_object_object_add(o, "tid", json_object_new_int(s->tid));
	json_object_object_add(o, "comm", json_object_new_string(s->comm));
	json_object_object_add(o, "kind", json_object_new_string(thp_stall_kind_name(s->kind)));
	json_object_object_add(o, "duration_ns", out_json_u64(s->ns));
	json_object_object_add(o, "order", s->order >= 0 ? json_object_new_int(s->order) : NULL);
	json_object_object_add(o, "mode", s->sync < 0 ? NULL : json_object_new_string(s->sync ? "sync" : "async"));
	json_object_object_add(o, "result", s->result ? json_object_new_string(s->result) : NULL);
	if (s->kind == THP_STALL_DIRECT_RECLAIM)
		json_object_object_add(o, "reclaimed_pages", out_json_u64(s->reclaimed));
	json_object_object_add(o, "cpu_begin", json_object_new_int(s->cpu_begin));
	json_object_object_add(o, "cpu_end", json_object_new_int(s->cpu_end));
	return o;
}

static void on_stall(const struct thp_stall *s, void *arg)
{
	struct run *r = arg;
	char t[32], order[16], res[48], comm[COMM_SHOWN_MAX];

	if (r->o->fmt.json) {
		json_object_array_add(r->events, stall_json(r, s));
		return;
	}
	out_progress_erase(); /* the line may go to the same terminal */
	snprintf(order, sizeof(order), s->order >= 0 ? "%d" : "-", s->order);
	if (s->kind == THP_STALL_DIRECT_RECLAIM)
		snprintf(res, sizeof(res), "%" PRIu64 " pages", s->reclaimed);
	else
		snprintf(res, sizeof(res), "%s", s->result ? s->result : "-");
	printf("%-12s %7d %7d %-15s %-17s %10.3f %5s %s\n", wall(r, s->start, false, t, sizeof(t)),
	       s->tgid ? s->tgid : s->tid, s->tid, comm_shown(s->comm, comm),
	       thp_stall_kind_name(s->kind), (double)s->ns / 1e6, order, res);
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

/* A histogram as JSON; COMM: it belongs to one command (not a total). */
static struct json_object *hist_json(const struct thp_hist *h, bool comm)
{
	struct json_object *o = json_object_new_object(), *b = json_object_new_array();

	if (comm)
		json_object_object_add(o, "comm", json_object_new_string(h->comm));
	json_object_object_add(o, "kind", json_object_new_string(thp_stall_kind_name(h->kind)));
	json_object_object_add(o, "count", out_json_u64(h->count));
	json_object_object_add(o, "total_ns", out_json_u64(h->total_ns));
	json_object_object_add(o, "max_ns", out_json_u64(h->max_ns));
	for (int k = 0; k < THP_HIST_BUCKETS; k++) {
		struct json_object *e;

		if (!h->bucket[k])
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "from_us", out_json_u64(thp_hist_lo_us(k)));
		json_object_object_add(e, "below_us", k + 1 < THP_HIST_BUCKETS ? out_json_u64(thp_hist_lo_us(k + 1)) : NULL);
		json_object_object_add(e, "count", out_json_u64(h->bucket[k]));
		json_object_array_add(b, e);
	}
	json_object_object_add(o, "buckets", b);
	return o;
}

static struct json_object *results_json(const struct thp_result_count *v, size_t n)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < n; i++)
		json_object_object_add(o, v[i].result, out_json_u64(v[i].count));
	return o;
}

/* The per-process TLB flushes, or {"available": false} without the event. */
static struct json_object *flushes_json(const struct run *r)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "available", json_object_new_boolean(r->tlb));
	for (size_t i = 0; i < r->t->nflushes; i++) {
		const struct thp_tlb_flushes *f = &r->t->flushes[i];
		struct json_object *p = json_object_new_object();

		json_object_object_add(p, "pid", json_object_new_int(f->pid));
		json_object_object_add(p, "comm", json_object_new_string(f->comm));
		json_object_object_add(p, "count", out_json_u64(f->count));
		json_object_object_add(p, "reasons", results_json(f->reasons, f->nreasons));
		json_object_array_add(a, p);
	}
	json_object_object_add(o, "processes", a);
	return o;
}

static struct json_object *put_totals(const struct run *r);

static void print_json(struct run *r, double secs, uint64_t lost, const char *missing)
{
	const struct thp_trace *t = r->t;
	struct json_object *o = json_object_new_object(), *a, *k;

	json_object_object_add(o, "schema", json_object_new_string("thp-trace/1"));
	json_object_object_add(o, "duration_ms", out_json_u64((uint64_t)(secs * 1000)));
	json_object_object_add(o, "events_read", out_json_u64(t->events));
	json_object_object_add(o, "lost_events", out_json_u64(lost));
	json_object_object_add(o, "unmatched_ends", out_json_u64(t->unmatched));
	json_object_object_add(o, "lost_ends", out_json_u64(t->restarted));
	json_object_object_add(o, "unfinished", out_json_u64(t->unfinished));
	a = json_object_new_array();
	for (const char *p = missing; *p;) {
		size_t n = strcspn(p, " ");

		json_object_array_add(a, json_object_new_string_len(p, (int)n));
		p += n + (p[n] == ' ');
	}
	json_object_object_add(o, "missing_events", a);
	json_object_object_add(o, "events", r->events);
	r->events = NULL;
	a = r->o->fmt.list ? put_totals(r) : json_object_new_array();
	for (int i = 0; i < THP_STALL_NKINDS && !r->o->fmt.list; i++)
		json_object_array_add(a, hist_json(&t->totals[i], false));
	json_object_object_add(o, "totals", a);
	a = json_object_new_array();
	for (size_t i = 0; i < t->nhists; i++)
		json_object_array_add(a, hist_json(&t->hists[i], true));
	json_object_object_add(o, "histograms", a);
	k = json_object_new_object();
	json_object_object_add(k, "scan_pmd", results_json(t->scan, t->nscan));
	json_object_object_add(k, "collapse", results_json(t->collapse, t->ncollapse));
	json_object_object_add(o, "khugepaged", k);
	json_object_object_add(o, "tlb_flushes", r->o->tlb ? flushes_json(r) : NULL);
	out_json_print(o);
}

static const char *ms(char *buf, size_t cap, uint64_t ns)
{
	snprintf(buf, cap, "%.3f", (double)ns / 1e6);
	return buf;
}

/* The stalls of H by duration, a bar per bucket from the first to the last used. */
static void print_hist(const struct thp_hist *h)
{
	int lo = THP_HIST_BUCKETS, hi = 0, n = 0;
	struct out_chart_row rows[THP_HIST_BUCKETS];
	char tot[32], max[32], comm[COMM_SHOWN_MAX], range[THP_HIST_BUCKETS][48], count[THP_HIST_BUCKETS][32];

	for (int k = 0; k < THP_HIST_BUCKETS; k++) {
		if (!h->bucket[k])
			continue;
		lo = k < lo ? k : lo;
		hi = k;
	}
	printf("\n%s, %s: %" PRIu64 " stalls, %s ms total, max %s ms\n", thp_stall_kind_name(h->kind),
	       comm_shown(h->comm, comm), h->count, ms(tot, sizeof(tot), h->total_ns),
	       ms(max, sizeof(max), h->max_ns));
	for (int k = lo; k <= hi; k++, n++) {
		if (k + 1 < THP_HIST_BUCKETS)
			snprintf(range[n], sizeof(range[n]), "%" PRIu64 " -> %" PRIu64 " us", thp_hist_lo_us(k),
				 thp_hist_lo_us(k + 1) - 1);
		else
			snprintf(range[n], sizeof(range[n]), "%" PRIu64 " us -> ...", thp_hist_lo_us(k));
		rows[n] = (struct out_chart_row){ range[n], (double)h->bucket[k],
						  out_count(count[n], sizeof(count[n]), h->bucket[k]) };
	}
	out_chart(rows, n, 2);
}

static void print_results(const char *what, const struct thp_result_count *v, size_t n)
{
	uint64_t all = 0;
	char c[32];

	for (size_t i = 0; i < n; i++)
		all += v[i].count;
	printf("  %s: %s", what, out_count(c, sizeof(c), all));
	for (size_t i = 0; i < n; i++)
		printf("%s%s %s", i ? ", " : " (", v[i].result, out_count(c, sizeof(c), v[i].count));
	puts(n ? ")" : "");
}

#define FLUSHES_SHOWN 20

static int by_count(const void *a, const void *b)
{
	const struct thp_tlb_flushes *x = a, *y = b;

	return (x->count < y->count) - (x->count > y->count);
}

/* The processes with the most TLB flushes, with the reasons the kernel gave. */
static void print_flushes(const struct run *r)
{
	const struct thp_trace *t = r->t;
	struct thp_tlb_flushes *v; /* a copy sorted by count (the reasons stay shared) */
	char comm[COMM_SHOWN_MAX];
	size_t n = t->nflushes < FLUSHES_SHOWN ? t->nflushes : FLUSHES_SHOWN;

	if (!r->tlb) {
		puts("\nTLB flushes: not counted (no tlb:tlb_flush trace event)");
		return;
	}
	printf("\nTLB flushes (tlb:tlb_flush), by the process running when they happened: %zu process%s\n",
	       t->nflushes, t->nflushes == 1 ? "" : "es");
	if (!(v = malloc((t->nflushes + 1) * sizeof(*v))))
		return;
	if (t->nflushes)
		memcpy(v, t->flushes, t->nflushes * sizeof(*v));
	qsort(v, t->nflushes, sizeof(*v), by_count);
	for (size_t i = 0; i < n; i++) {
		printf("  %7d %-15s", v[i].pid, comm_shown(v[i].comm, comm));
		print_results("flushes", v[i].reasons, v[i].nreasons);
	}
	if (n < t->nflushes)
		printf("  (%zu more; --json lists all)\n", t->nflushes - n);
	free(v);
}

/* A duration in nanoseconds: milliseconds in text ("-" with no stall). */
static void ns_cell(struct out_table *tab, int col, uint64_t ns, bool any)
{
	char b[32];

	out_cell(tab, col, any ? ms(b, sizeof(b), ns) : "-", any ? out_json_num((double)ns / 1e6, 3) : NULL);
}

/* The totals per kind of stall as a table of the chosen columns: printed, or
 * the rows of JSON. */
static struct json_object *put_totals(const struct run *r)
{
	struct out_table *tab = out_table_cols(cols, r->o->sel, r->o->nsel, &r->o->fmt);
	char c[32];

	for (int i = 0; i < THP_STALL_NKINDS; i++) {
		const struct thp_hist *h = &r->t->totals[i];
		out_table_line(tab);
		out_cell_str(tab, C_KIND, thp_stall_kind_name(h->kind));
		out_cell(tab, C_STALLS, out_count(c, sizeof(c), h->count), out_json_u64(h->count));
		ns_cell(tab, C_TOTAL, h->total_ns, h->count);
		ns_cell(tab, C_MAX, h->max_ns, h->count);
		ns_cell(tab, C_AVG, h->count ? h->total_ns / h->count : 0, h->count);
	}
	if (r->o->fmt.json)
		return out_table_json(tab);
	out_table_print(tab, 0);
	return NULL;
}

static void print_text(struct run *r, double secs, uint64_t lost)
{
	const struct thp_trace *t = r->t;
	char read[32], lo[32];

	printf("\nTraced %.1f s: %s events read, %s lost.\n", secs, out_count(read, sizeof(read), t->events),
	       out_count(lo, sizeof(lo), lost));
	put_totals(r);
	for (int kind = 0; kind < THP_STALL_NKINDS && !r->o->fmt.raw; kind++) /* -r: no chart, as bench */
		for (size_t i = 0; i < t->nhists; i++)
			if (t->hists[i].kind == (enum thp_stall_kind)kind)
				print_hist(&t->hists[i]);
	puts("\nkhugepaged and MADV_COLLAPSE results");
	print_results("PMD scans", t->scan, t->nscan);
	print_results("collapses", t->collapse, t->ncollapse);
	if (r->o->tlb)
		print_flushes(r);
	if (t->unmatched || t->restarted || t->unfinished)
		printf("\nNot counted: %" PRIu64 " ends whose begin came before the trace, %" PRIu64
		       " begins whose end was lost, %" PRIu64 " still running at the end.\n",
		       t->unmatched, t->restarted, t->unfinished);
}

/* The longest trace (a week) and the longest --min-ms (a day). */
#define DURATION_MAX 604800
#define MIN_MS_MAX 86400000

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "duration", required_argument, NULL, 'd' }, { "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'c' },     { "min-ms", required_argument, NULL, 'm' },
		OUT_FMT_LONGOPTS,                             { "help", no_argument, NULL, 'h' },
		{ "tlb", no_argument, NULL, 'T' },            { NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = thp_getopt(argc, argv, "+" OUT_FMT_SHORTOPTS "d:p:c:h", lo)) != -1) {
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
		case 'h': usage(); return 0;
		default: return thp_usage_error("trace");
		}
	}
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
	struct opts o = { .fmt.json = ctx->json };
	struct run r = { .o = &o, .root = &ctx->root };
	struct thp_trace_filter f;
	struct thp_tracefs *tf = NULL;
	const char *what;
	long n;
	uint64_t lost;
	struct thp_pstatus st;
	double secs;
	int rc = parse(argc, argv, &o), err;

	if (rc >= 0)
		return rc;
	if (thp_need_root(ctx, NULL))
		return 1;
	if (o.pid && thp_pid_target(ctx, o.pid, true, &st))
		return 1; /* kernel threads stall too (kcompactd) */
	f = (struct thp_trace_filter){ o.pid, o.comm, (uint64_t)(o.min_ms * 1e6) };
	r.t = thp_trace_new(&f, on_stall, &r);
	r.events = o.fmt.json ? json_object_new_array() : NULL;
	if (!r.t || (o.fmt.json && !r.events)) {
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
	if (!o.fmt.json) {
		printf("%-12s %7s %7s %-15s %-17s %10s %5s %s\n", "TIME", "PID", "TID", "COMM", "KIND",
		       "MS", "ORDER", "RESULT");
		thp_flush();
	}
	err = trace_loop(&r, tf);
	if (!err && (n = thp_tracefs_read(tf, push, r.t)) < 0)
		err = (int)n;
	secs = (double)(mono_ns() - r.mono0) / 1e9;
	lost = thp_tracefs_lost(tf);
	if (!err)
		err = thp_trace_finish(r.t);
	if (err) {
		thp_err("cannot read trace events: %s", strerror(-err));
		rc = 1;
		goto out;
	}
	if (o.fmt.json)
		print_json(&r, secs, lost, thp_tracefs_missing(tf));
	else
		print_text(&r, secs, lost);
	if (lost)
		thp_err("%" PRIu64 " events were lost (the trace buffers overflowed); figures are incomplete", lost);
	rc = 0;
out:
	thp_tracefs_close(tf);
	json_object_put(r.events);
	thp_trace_free(r.t);
	return rc;
}
