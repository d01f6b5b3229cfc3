/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stall.c - pairing of begin/end trace events per thread, histograms, result counts */
#include "stall.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What a thread is doing, as far as its own events tell. */
enum ctx { CTX_NONE, CTX_DIRECT, CTX_KCOMPACTD };

struct open_pair {
	bool open;
	uint64_t ts;
	int cpu, order, sync;
	enum thp_stall_kind kind;
};

struct thread {
	int tid;             /* 0: free slot */
	enum ctx ctx;        /* set by try_to_compact_pages or kcompactd_wake */
	int ctx_order;
	bool kcompactd;      /* seen sleeping or waking as kcompactd */
	bool known;          /* comm and tgid filled by the ident callback */
	uint64_t known_ts;
	size_t flushes; /* 1 + index of its process in thp_trace.flushes; 0: none yet */
	int tgid;
	char comm[THP_COMM_LEN];
	struct open_pair compact, reclaim;
};

/* A queued event; SEQ keeps queue order among equal timestamps. */
struct pending {
	struct thp_ev ev;
	uint64_t seq;
};

struct thp_trace_state {
	struct pending *pending;
	size_t npending, cap;
	uint64_t seq;
	struct thread *threads; /* open addressing on tid */
	size_t nthreads, tcap;
};

static const char *const kind_names[THP_STALL_NKINDS] = {
	[THP_STALL_DIRECT_COMPACTION] = "direct_compaction",
	[THP_STALL_DIRECT_RECLAIM] = "direct_reclaim",
	[THP_STALL_KCOMPACTD] = "kcompactd",
	[THP_STALL_PROACTIVE] = "proactive",
	[THP_STALL_MANUAL] = "manual",
};

const char *thp_stall_kind_name(enum thp_stall_kind k)
{
	return k < THP_STALL_NKINDS ? kind_names[k] : "?";
}

int thp_hist_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	int k = 0;

	while (us && k < THP_HIST_BUCKETS - 1) {
		us >>= 1;
		k++;
	}
	return k;
}

uint64_t thp_hist_lo_us(int k)
{
	return k ? UINT64_C(1) << (k - 1) : 0;
}

struct thp_trace *thp_trace_new(const struct thp_trace_filter *f, thp_stall_fn on_stall, void *arg)
{
	struct thp_trace *t = calloc(1, sizeof(*t));

	if (!t || !(t->st = calloc(1, sizeof(*t->st)))) {
		free(t);
		return NULL;
	}
	if (f)
		t->filter = *f;
	t->on_stall = on_stall;
	t->arg = arg;
	for (int k = 0; k < THP_STALL_NKINDS; k++)
		t->totals[k].kind = k;
	return t;
}

void thp_trace_free(struct thp_trace *t)
{
	if (!t)
		return;
	free(t->st->pending);
	free(t->st->threads);
	free(t->st);
	free(t->hists);
	free(t->scan);
	free(t->collapse);
	for (size_t i = 0; i < t->nflushes; i++)
		free(t->flushes[i].reasons);
	free(t->flushes);
	free(t);
}

int thp_trace_push(struct thp_trace *t, const struct thp_ev *ev)
{
	struct thp_trace_state *s = t->st;

	if (s->npending == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct pending *p = realloc(s->pending, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->pending = p;
		s->cap = cap;
	}
	s->pending[s->npending++] = (struct pending){ *ev, s->seq++ };
	return 0;
}

/* Finds or adds the slot of TID; NULL when out of memory. */
static struct thread *thread_get(struct thp_trace_state *s, int tid)
{
	size_t i;

	if ((s->nthreads + 1) * 2 > s->tcap) {
		size_t cap = s->tcap ? s->tcap * 2 : 256;
		struct thread *n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t j = 0; j < s->tcap; j++) {
			if (!s->threads[j].tid)
				continue;
			for (i = (unsigned)s->threads[j].tid % cap; n[i].tid; i = (i + 1) % cap)
				;
			n[i] = s->threads[j];
		}
		free(s->threads);
		s->threads = n;
		s->tcap = cap;
	}
	for (i = (unsigned)tid % s->tcap; s->threads[i].tid; i = (i + 1) % s->tcap)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	memset(&s->threads[i], 0, sizeof(s->threads[i]));
	s->threads[i].tid = tid;
	s->nthreads++;
	return &s->threads[i];
}

static bool wanted(const struct thp_trace *t, const struct thp_ev *ev)
{
	if (t->filter.pid && ev->tgid != t->filter.pid && ev->tid != t->filter.pid)
		return false;
	return !t->filter.comm || strncmp(t->filter.comm, ev->comm, THP_COMM_LEN - 1) == 0;
}

static void hist_add(struct thp_hist *h, uint64_t ns)
{
	h->count++;
	h->total_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->bucket[thp_hist_bucket(ns)]++;
}

/* The histogram of COMM and KIND, added when new; NULL when out of memory. */
static struct thp_hist *hist_get(struct thp_trace *t, const char *comm, enum thp_stall_kind kind)
{
	struct thp_hist *h;

	for (size_t i = 0; i < t->nhists; i++)
		if (t->hists[i].kind == kind && strcmp(t->hists[i].comm, comm) == 0)
			return &t->hists[i];
	h = realloc(t->hists, (t->nhists + 1) * sizeof(*h));
	if (!h)
		return NULL;
	t->hists = h;
	h = &t->hists[t->nhists++];
	memset(h, 0, sizeof(*h));
	memcpy(h->comm, comm, THP_COMM_LEN); /* comm is a NUL-terminated THP_COMM_LEN array */
	h->kind = kind;
	return h;
}

/* Closes the open pair P of the thread that sent END. */
static int stall_done(struct thp_trace *t, struct open_pair *p, const struct thp_ev *end)
{
	struct thp_stall s = {
		.start = p->ts,
		.ns = end->ts >= p->ts ? end->ts - p->ts : 0,
		.tid = end->tid,
		.tgid = end->tgid,
		.kind = p->kind,
		.order = p->order,
		.sync = p->sync,
		.result = end->result,
		.reclaimed = p->kind == THP_STALL_DIRECT_RECLAIM ? end->value : 0,
		.cpu_begin = p->cpu,
		.cpu_end = end->cpu,
	};
	struct thp_hist *h;

	p->open = false;
	if (!wanted(t, end))
		return 0;
	memcpy(s.comm, end->comm, THP_COMM_LEN);
	s.comm[THP_COMM_LEN - 1] = '\0';
	hist_add(&t->totals[s.kind], s.ns);
	h = hist_get(t, s.comm, s.kind);
	if (!h)
		return -ENOMEM;
	hist_add(h, s.ns);
	if (t->on_stall && s.ns >= t->filter.min_ns)
		t->on_stall(&s, t->arg);
	return 0;
}

static void pair_open(struct thp_trace *t, struct open_pair *p, const struct thp_ev *ev,
		      enum thp_stall_kind kind, int order)
{
	if (p->open)
		t->restarted++;
	*p = (struct open_pair){ true, ev->ts, ev->cpu, order, ev->sync, kind };
}

/* Adds one to RESULT's count in *V (a small list). */
static int result_add(struct thp_result_count **v, size_t *n, const char *result)
{
	struct thp_result_count *p;

	if (!result)
		result = "unknown";
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].result, result) == 0) {
			(*v)[i].count++;
			return 0;
		}
	p = realloc(*v, (*n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*v = p;
	p[(*n)++] = (struct thp_result_count){ result, 1 };
	return 0;
}

static bool is_kcompactd(const struct thread *th, const struct thp_ev *ev)
{
	return th->kcompactd || strncmp(ev->comm, "kcompactd", 9) == 0;
}

/* Gives EV its thread's comm and tgid when it came without them. */
static void identify(struct thp_trace *t, struct thread *th, struct thp_ev *ev)
{
	if (ev->comm[0] || !t->ident)
		return;
	if (!th->known || ev->ts - th->known_ts > 1000000000) {
		int tgid;
		char comm[THP_COMM_LEN];

		if (t->ident(ev->tid, &tgid, comm, sizeof(comm), t->ident_arg) == 0) {
			th->tgid = tgid;
			memcpy(th->comm, comm, sizeof(comm));
		}
		th->known = true;
		th->known_ts = ev->ts;
	}
	ev->tgid = th->tgid;
	memcpy(ev->comm, th->comm, sizeof(ev->comm));
}

/* Counts a tlb_flush EV against its process (found once per thread of TH). */
static int flush_add(struct thp_trace *t, struct thread *th, const struct thp_ev *ev)
{
	int pid = ev->tgid ? ev->tgid : ev->tid;
	struct thp_tlb_flushes *f;

	if (!th->flushes || t->flushes[th->flushes - 1].pid != pid) {
		for (th->flushes = 0; th->flushes < t->nflushes && t->flushes[th->flushes].pid != pid;)
			th->flushes++;
		if (th->flushes == t->nflushes) {
			f = realloc(t->flushes, (t->nflushes + 1) * sizeof(*f));
			if (!f)
				return -ENOMEM;
			t->flushes = f;
			f[t->nflushes] = (struct thp_tlb_flushes){ .pid = pid };
			memcpy(f[t->nflushes++].comm, ev->comm, THP_COMM_LEN);
		}
		th->flushes++;
	}
	f = &t->flushes[th->flushes - 1];
	f->count++;
	return result_add(&f->reasons, &f->nreasons, ev->result);
}

/* Applies one event, in timestamp order, to its thread's state. */
static int process(struct thp_trace *t, struct thp_ev *ev)
{
	struct thread *th = thread_get(t->st, ev->tid);
	enum thp_stall_kind kind;

	if (!th)
		return -ENOMEM;
	identify(t, th, ev);
	t->events++;
	switch (ev->type) {
	case THP_EV_COMPACT_TRY:
		th->ctx = CTX_DIRECT;
		th->ctx_order = ev->order;
		break;
	case THP_EV_KCOMPACTD_WAKE:
		th->kcompactd = true;
		th->ctx = CTX_KCOMPACTD;
		th->ctx_order = ev->order;
		break;
	case THP_EV_KCOMPACTD_SLEEP:
		th->kcompactd = true;
		th->ctx = CTX_NONE;
		break;
	case THP_EV_COMPACT_BEGIN:
		if (th->ctx == CTX_DIRECT)
			kind = THP_STALL_DIRECT_COMPACTION;
		else if (th->ctx == CTX_KCOMPACTD)
			kind = THP_STALL_KCOMPACTD;
		else if (is_kcompactd(th, ev))
			kind = THP_STALL_PROACTIVE;
		else
			kind = THP_STALL_MANUAL;
		pair_open(t, &th->compact, ev, kind, th->ctx != CTX_NONE ? th->ctx_order : -1);
		break;
	case THP_EV_COMPACT_END:
		if (!th->compact.open) {
			t->unmatched++;
			break;
		}
		return stall_done(t, &th->compact, ev);
	case THP_EV_RECLAIM_BEGIN:
		/* the allocation's compaction attempt is over once it reclaims */
		if (th->ctx == CTX_DIRECT)
			th->ctx = CTX_NONE;
		pair_open(t, &th->reclaim, ev, THP_STALL_DIRECT_RECLAIM, ev->order);
		break;
	case THP_EV_RECLAIM_END:
		if (!th->reclaim.open) {
			t->unmatched++;
			break;
		}
		return stall_done(t, &th->reclaim, ev);
	case THP_EV_COLLAPSE:
		return wanted(t, ev) ? result_add(&t->collapse, &t->ncollapse, ev->result) : 0;
	case THP_EV_SCAN_PMD:
		return wanted(t, ev) ? result_add(&t->scan, &t->nscan, ev->result) : 0;
	case THP_EV_TLB_FLUSH:
		return wanted(t, ev) ? flush_add(t, th, ev) : 0;
	default:
		break;
	}
	return 0;
}

/* Timestamp order, then queue order. */
static int by_ts(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->ev.ts != y->ev.ts)
		return x->ev.ts < y->ev.ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int thp_trace_flush(struct thp_trace *t, uint64_t upto)
{
	struct thp_trace_state *s = t->st;
	size_t n = 0;
	int rc = 0;

	if (!s->npending) /* s->pending may still be NULL */
		return 0;
	qsort(s->pending, s->npending, sizeof(*s->pending), by_ts);
	while (n < s->npending && s->pending[n].ev.ts <= upto && !rc)
		rc = process(t, &s->pending[n++].ev);
	memmove(s->pending, s->pending + n, (s->npending - n) * sizeof(*s->pending));
	s->npending -= n;
	return rc;
}

int thp_trace_finish(struct thp_trace *t)
{
	struct thp_trace_state *s = t->st;
	int rc = thp_trace_flush(t, UINT64_MAX);

	for (size_t i = 0; i < s->tcap; i++) {
		if (!s->threads[i].tid)
			continue;
		t->unfinished += s->threads[i].compact.open + s->threads[i].reclaim.open;
		s->threads[i].compact.open = s->threads[i].reclaim.open = false;
	}
	return rc;
}
