/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of stall pairing and histograms, fed with synthetic event sequences (cmocka). */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/stall.h"

#define MS 1000000ull

struct seen {
	struct thp_stall s[16];
	int n;
};

static void collect(const struct thp_stall *s, void *arg)
{
	struct seen *v = arg;

	if (v->n < 16)
		v->s[v->n++] = *s;
}

static struct thp_ev ev(enum thp_ev_type type, uint64_t ts, int cpu, int tid, const char *comm)
{
	struct thp_ev e = { .ts = ts, .cpu = cpu, .tid = tid, .tgid = tid, .type = type,
			    .order = -1, .sync = -1 };

	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	return e;
}

static void push(struct thp_trace *t, struct thp_ev e)
{
	assert_int_equal(thp_trace_push(t, &e), 0);
}

static void buckets(void **state)
{
	(void)state;
	assert_int_equal(thp_hist_bucket(0), 0);
	assert_int_equal(thp_hist_bucket(999), 0);
	assert_int_equal(thp_hist_bucket(1000), 1);
	assert_int_equal(thp_hist_bucket(1999), 1);
	assert_int_equal(thp_hist_bucket(2000), 2);
	assert_int_equal(thp_hist_bucket(3999), 2);
	assert_int_equal(thp_hist_bucket(4000), 3);
	assert_int_equal(thp_hist_bucket(1 * MS), 10); /* 1000 us is in [512, 1024) */
	assert_int_equal(thp_hist_bucket(UINT64_MAX), THP_HIST_BUCKETS - 1);
	assert_int_equal(thp_hist_lo_us(0), 0);
	assert_int_equal(thp_hist_lo_us(1), 1);
	assert_int_equal(thp_hist_lo_us(10), 512);
}

/* A trace that saw no event yet: flushing it does nothing (a quiet host). */
static void flush_nothing(void **state)
{
	struct seen v = { 0 };
	struct thp_trace *t = thp_trace_new(NULL, collect, &v);

	(void)state;
	assert_int_equal(thp_trace_flush(t, 10 * MS), 0);
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(v.n, 0);
	thp_trace_free(t);
}

/* Begin on CPU 0, end on CPU 1, and the end is read (queued) before the begin. */
static void direct_with_migration(void **state)
{
	struct seen v = { 0 };
	struct thp_trace *t = thp_trace_new(NULL, collect, &v);
	struct thp_ev try = ev(THP_EV_COMPACT_TRY, 1000, 0, 100, "redis-server");
	struct thp_ev end = ev(THP_EV_COMPACT_END, 2000 + 5 * MS, 1, 100, "redis-server");
	struct thp_ev begin = ev(THP_EV_COMPACT_BEGIN, 2000, 0, 100, "redis-server");

	(void)state;
	try.order = 9;
	begin.sync = 0;
	end.result = "success";
	push(t, end);
	push(t, try);
	push(t, begin);
	assert_int_equal(thp_trace_flush(t, 3 * MS), 0); /* the end is past the mark */
	assert_int_equal(v.n, 0);
	assert_int_equal(t->events, 2);
	assert_int_equal(thp_trace_flush(t, 10 * MS), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.s[0].kind, THP_STALL_DIRECT_COMPACTION);
	assert_int_equal(v.s[0].ns, 5 * MS);
	assert_int_equal(v.s[0].start, 2000);
	assert_int_equal(v.s[0].order, 9);
	assert_int_equal(v.s[0].sync, 0);
	assert_int_equal(v.s[0].cpu_begin, 0);
	assert_int_equal(v.s[0].cpu_end, 1);
	assert_string_equal(v.s[0].result, "success");
	assert_string_equal(v.s[0].comm, "redis-server");
	assert_int_equal(t->unmatched, 0);
	assert_int_equal(t->nhists, 1);
	assert_int_equal(t->hists[0].count, 1);
	assert_int_equal(t->hists[0].bucket[thp_hist_bucket(5 * MS)], 1);
	assert_int_equal(t->totals[THP_STALL_DIRECT_COMPACTION].total_ns, 5 * MS);
	thp_trace_free(t);
}

/* Two threads interleaved on two CPUs: each end pairs with its own thread's begin. */
static void interleaved_threads(void **state)
{
	struct seen v = { 0 };
	struct thp_trace *t = thp_trace_new(NULL, collect, &v);

	(void)state;
	push(t, ev(THP_EV_COMPACT_TRY, 10, 0, 1, "a"));
	push(t, ev(THP_EV_COMPACT_BEGIN, 20, 0, 1, "a"));
	push(t, ev(THP_EV_COMPACT_END, 4000, 0, 2, "b"));
	push(t, ev(THP_EV_COMPACT_END, 90, 1, 1, "a"));
	push(t, ev(THP_EV_COMPACT_TRY, 25, 1, 2, "b"));
	push(t, ev(THP_EV_COMPACT_BEGIN, 30, 1, 2, "b"));
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.s[0].tid, 1);
	assert_int_equal(v.s[0].ns, 70);
	assert_int_equal(v.s[1].tid, 2);
	assert_int_equal(v.s[1].ns, 3970);
	assert_int_equal(t->nhists, 2);
	assert_int_equal(t->unmatched + t->unfinished + t->restarted, 0);
	thp_trace_free(t);
}

/* kcompactd woken for an order, then proactive compaction by the same thread,
 * and a compact_memory write from a shell: three kinds, none of them direct. */
static void kcompactd_proactive_manual(void **state)
{
	struct seen v = { 0 };
	struct thp_trace *t = thp_trace_new(NULL, collect, &v);
	struct thp_ev wake = ev(THP_EV_KCOMPACTD_WAKE, 100, 0, 50, "kcompactd0");

	(void)state;
	wake.order = 9;
	push(t, wake);
	push(t, ev(THP_EV_COMPACT_BEGIN, 200, 0, 50, "kcompactd0"));
	push(t, ev(THP_EV_COMPACT_END, 700, 0, 50, "kcompactd0"));
	push(t, ev(THP_EV_KCOMPACTD_SLEEP, 800, 0, 50, "kcompactd0"));
	push(t, ev(THP_EV_COMPACT_BEGIN, 5000, 1, 50, "kcompactd0"));
	push(t, ev(THP_EV_COMPACT_END, 9000, 1, 50, "kcompactd0"));
	push(t, ev(THP_EV_COMPACT_BEGIN, 6000, 0, 77, "sh"));
	push(t, ev(THP_EV_COMPACT_END, 8000, 0, 77, "sh"));
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(v.n, 3);
	assert_int_equal(v.s[0].kind, THP_STALL_KCOMPACTD);
	assert_int_equal(v.s[0].order, 9);
	assert_int_equal(v.s[1].kind, THP_STALL_MANUAL);
	assert_int_equal(v.s[1].order, -1);
	assert_int_equal(v.s[2].kind, THP_STALL_PROACTIVE);
	assert_int_equal(v.s[2].ns, 4000);
	assert_int_equal(t->totals[THP_STALL_DIRECT_COMPACTION].count, 0);
	assert_int_equal(t->totals[THP_STALL_KCOMPACTD].count, 1);
	assert_int_equal(t->totals[THP_STALL_PROACTIVE].count, 1);
	assert_int_equal(t->totals[THP_STALL_MANUAL].count, 1);
	assert_string_equal(thp_stall_kind_name(THP_STALL_PROACTIVE), "proactive");
	thp_trace_free(t);
}

/* A proactive pass is recognized by the command name even without a sleep event seen. */
static void kcompactd_by_name(void **state)
{
	struct seen v = { 0 };
	struct thp_trace *t = thp_trace_new(NULL, collect, &v);

	(void)state;
	push(t, ev(THP_EV_COMPACT_BEGIN, 1, 0, 50, "kcompactd1"));
	push(t, ev(THP_EV_COMPACT_END, 2, 0, 50, "kcompactd1"));
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.s[0].kind, THP_STALL_PROACTIVE);
	thp_trace_free(t);
}

/* Ends without a begin (trace started mid-pass), a begin whose end was lost,
 * and a begin still open at the end of the trace. */
static void unmatched(void **state)
{
	struct seen v = { 0 };
	struct thp_trace *t = thp_trace_new(NULL, collect, &v);

	(void)state;
	push(t, ev(THP_EV_COMPACT_END, 10, 0, 300, "x"));
	push(t, ev(THP_EV_RECLAIM_END, 11, 0, 300, "x"));
	push(t, ev(THP_EV_COMPACT_BEGIN, 20, 0, 301, "y"));
	push(t, ev(THP_EV_COMPACT_BEGIN, 50, 0, 301, "y"));
	push(t, ev(THP_EV_COMPACT_END, 80, 1, 301, "y"));
	push(t, ev(THP_EV_COMPACT_END, 90, 1, 301, "y"));
	push(t, ev(THP_EV_RECLAIM_BEGIN, 100, 0, 302, "z"));
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.s[0].ns, 30);
	assert_int_equal(t->unmatched, 3);
	assert_int_equal(t->restarted, 1);
	assert_int_equal(t->unfinished, 1);
	thp_trace_free(t);
}

/* Direct reclaim pairs on its own, and ends the direct compaction context. */
static void reclaim(void **state)
{
	struct seen v = { 0 };
	struct thp_trace *t = thp_trace_new(NULL, collect, &v);
	struct thp_ev b = ev(THP_EV_RECLAIM_BEGIN, 100, 0, 9, "java");
	struct thp_ev e = ev(THP_EV_RECLAIM_END, 2100, 0, 9, "java");

	(void)state;
	b.order = 9;
	e.value = 32;
	push(t, ev(THP_EV_COMPACT_TRY, 10, 0, 9, "java"));
	push(t, ev(THP_EV_COMPACT_BEGIN, 20, 0, 9, "java"));
	push(t, ev(THP_EV_COMPACT_END, 50, 0, 9, "java"));
	push(t, b);
	push(t, e);
	push(t, ev(THP_EV_COMPACT_BEGIN, 3000, 0, 9, "java"));
	push(t, ev(THP_EV_COMPACT_END, 3100, 0, 9, "java"));
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(v.n, 3);
	assert_int_equal(v.s[0].kind, THP_STALL_DIRECT_COMPACTION);
	assert_int_equal(v.s[1].kind, THP_STALL_DIRECT_RECLAIM);
	assert_int_equal(v.s[1].ns, 2000);
	assert_int_equal(v.s[1].order, 9);
	assert_int_equal(v.s[1].reclaimed, 32);
	assert_int_equal(v.s[2].kind, THP_STALL_MANUAL);
	assert_int_equal(t->nhists, 3);
	thp_trace_free(t);
}

/* --pid, --comm and --min-ms: histograms hold every matching stall, the
 * callback only those long enough. */
static void filters(void **state)
{
	struct seen v = { 0 };
	struct thp_trace_filter f = { .pid = 40, .min_ns = 1 * MS };
	struct thp_trace *t = thp_trace_new(&f, collect, &v);
	struct thp_ev e;

	(void)state;
	for (int i = 0; i < 3; i++) {
		uint64_t at = (uint64_t)i * 100 * MS;

		push(t, ev(THP_EV_COMPACT_TRY, at, 0, 41, "worker"));
		push(t, ev(THP_EV_COMPACT_BEGIN, at + 1, 0, 41, "worker"));
		push(t, ev(THP_EV_COMPACT_TRY, at, 1, 99, "other"));
		push(t, ev(THP_EV_COMPACT_BEGIN, at + 1, 1, 99, "other"));
		push(t, ev(THP_EV_COMPACT_END, at + 1 + (i + 1) * MS / 2, 1, 99, "other"));
		e = ev(THP_EV_COMPACT_END, at + 1 + (i + 1) * MS / 2, 1, 41, "worker");
		e.tgid = 40; /* a thread of process 40 */
		push(t, e);
	}
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(v.n, 2); /* 1.0 ms and 1.5 ms, not 0.5 ms */
	assert_int_equal(v.s[0].tgid, 40);
	assert_int_equal(v.s[0].tid, 41);
	assert_int_equal(t->nhists, 1);
	assert_int_equal(t->hists[0].count, 3);
	assert_int_equal(t->hists[0].max_ns, 3 * MS / 2);
	thp_trace_free(t);

	f = (struct thp_trace_filter){ .comm = "other" };
	v.n = 0;
	t = thp_trace_new(&f, collect, &v);
	push(t, ev(THP_EV_COMPACT_BEGIN, 1, 0, 99, "other"));
	push(t, ev(THP_EV_COMPACT_END, 2, 0, 99, "other"));
	push(t, ev(THP_EV_COMPACT_BEGIN, 1, 0, 98, "others"));
	push(t, ev(THP_EV_COMPACT_END, 2, 0, 98, "others"));
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.s[0].tid, 99);
	thp_trace_free(t);
}

/* khugepaged results are counted by their symbolic status. */
static void khugepaged(void **state)
{
	struct thp_trace *t = thp_trace_new(NULL, NULL, NULL);
	const char *st[] = { "succeeded", "exceed_none_pte", "succeeded", NULL };

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct thp_ev e = ev(THP_EV_SCAN_PMD, (uint64_t)i, 0, 60, "khugepaged");

		e.result = st[i];
		push(t, e);
	}
	push(t, ev(THP_EV_COLLAPSE, 9, 0, 60, "khugepaged"));
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(t->nscan, 3);
	assert_string_equal(t->scan[0].result, "succeeded");
	assert_int_equal(t->scan[0].count, 2);
	assert_int_equal(t->scan[1].count, 1);
	assert_string_equal(t->scan[2].result, "unknown");
	assert_int_equal(t->ncollapse, 1);
	assert_int_equal(t->totals[THP_STALL_DIRECT_COMPACTION].count, 0);
	thp_trace_free(t);
}

/* Many threads: the thread table grows and keeps each thread's open pair. */
static void many_threads(void **state)
{
	struct seen v = { 0 };
	struct thp_trace *t = thp_trace_new(NULL, NULL, &v);

	(void)state;
	for (int tid = 1; tid <= 5000; tid++)
		push(t, ev(THP_EV_RECLAIM_BEGIN, (uint64_t)tid, tid % 4, tid, "w"));
	for (int tid = 5000; tid >= 1; tid--)
		push(t, ev(THP_EV_RECLAIM_END, 10000 + (uint64_t)tid, (tid + 1) % 4, tid, "w"));
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(t->totals[THP_STALL_DIRECT_RECLAIM].count, 5000);
	assert_int_equal(t->totals[THP_STALL_DIRECT_RECLAIM].total_ns, 5000ull * 10000);
	assert_int_equal(t->unmatched + t->unfinished, 0);
	thp_trace_free(t);
}

static int ident_calls;

static int fake_ident(int tid, int *tgid, char *comm, size_t cap, void *arg)
{
	(void)arg;
	ident_calls++;
	if (tid == 13)
		return -ENOENT; /* exited before it could be looked up */
	*tgid = 1000;
	snprintf(comm, cap, "t%d", tid);
	return 0;
}

/* Live events carry no comm: it is looked up once per thread, and again after a second. */
static void identity(void **state)
{
	struct seen v = { 0 };
	struct thp_trace *t = thp_trace_new(NULL, collect, &v);

	(void)state;
	t->ident = fake_ident;
	for (int i = 0; i < 3; i++) {
		push(t, ev(THP_EV_RECLAIM_BEGIN, (uint64_t)i * 100, 0, 12, ""));
		push(t, ev(THP_EV_RECLAIM_END, (uint64_t)i * 100 + 50, 0, 12, ""));
	}
	push(t, ev(THP_EV_RECLAIM_BEGIN, 2000 * MS, 0, 12, ""));
	push(t, ev(THP_EV_RECLAIM_END, 2000 * MS + 1, 0, 12, ""));
	push(t, ev(THP_EV_RECLAIM_BEGIN, 10, 1, 13, ""));
	push(t, ev(THP_EV_RECLAIM_END, 20, 1, 13, ""));
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(v.n, 5);
	assert_int_equal(v.s[0].tid, 13); /* ends first */
	assert_string_equal(v.s[0].comm, "");
	assert_int_equal(v.s[0].tgid, 0);
	assert_string_equal(v.s[1].comm, "t12");
	assert_int_equal(v.s[1].tgid, 1000);
	assert_string_equal(v.s[4].comm, "t12");
	assert_int_equal(ident_calls, 3); /* tid 12 twice (a second apart), tid 13 once */
	thp_trace_free(t);
}

/* tlb:tlb_flush counted per process (threads of one process together), by
 * reason, and filtered like the stalls */
static void tlb_flushes(void **state)
{
	struct thp_trace_filter f = { .comm = "postgres" };
	struct thp_trace *t = thp_trace_new(NULL, NULL, NULL), *ft = thp_trace_new(&f, NULL, NULL);
	struct thp_ev e[5] = {
		ev(THP_EV_TLB_FLUSH, 10, 0, 400, "postgres"), ev(THP_EV_TLB_FLUSH, 20, 1, 401, "postgres"),
		ev(THP_EV_TLB_FLUSH, 30, 0, 500, "kworker/0:1"), ev(THP_EV_TLB_FLUSH, 40, 1, 400, "postgres"),
		ev(THP_EV_TLB_FLUSH, 50, 1, 401, "postgres"),
	};
	(void)state;
	e[1].tgid = e[4].tgid = 400; /* a second thread of process 400 */
	e[0].result = e[1].result = e[4].result = "remote IPI send";
	e[2].result = "remote shootdown";
	e[3].result = "flush on task switch";
	for (int i = 0; i < 5; i++) {
		push(t, e[i]);
		push(ft, e[i]);
	}
	assert_int_equal(thp_trace_finish(t), 0);
	assert_int_equal(t->nflushes, 2);
	assert_int_equal(t->flushes[0].pid, 400);
	assert_string_equal(t->flushes[0].comm, "postgres");
	assert_int_equal(t->flushes[0].count, 4);
	assert_int_equal(t->flushes[0].nreasons, 2);
	assert_string_equal(t->flushes[0].reasons[0].result, "remote IPI send");
	assert_int_equal(t->flushes[0].reasons[0].count, 3);
	assert_int_equal(t->flushes[0].reasons[1].count, 1);
	assert_int_equal(t->flushes[1].pid, 500);
	assert_int_equal(t->flushes[1].count, 1);
	assert_int_equal(thp_trace_finish(ft), 0);
	assert_int_equal(ft->nflushes, 1);
	assert_int_equal(ft->flushes[0].count, 4);
	thp_trace_free(t);
	thp_trace_free(ft);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buckets),
		cmocka_unit_test(flush_nothing),
		cmocka_unit_test(direct_with_migration),
		cmocka_unit_test(interleaved_threads),
		cmocka_unit_test(kcompactd_proactive_manual),
		cmocka_unit_test(kcompactd_by_name),
		cmocka_unit_test(unmatched),
		cmocka_unit_test(reclaim),
		cmocka_unit_test(filters),
		cmocka_unit_test(khugepaged),
		cmocka_unit_test(many_threads),
		cmocka_unit_test(identity),
		cmocka_unit_test(tlb_flushes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
