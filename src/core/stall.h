/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stall.h - memory stalls from trace events: pairing, classification, histograms
 *
 * Fed with decoded trace events (from any CPU, in any order within a batch),
 * it pairs begin/end events per thread in timestamp order, classifies each
 * compaction pass (direct, kcompactd, proactive, manual), and keeps per-command
 * log2 latency histograms and khugepaged result counts. No I/O. */
#ifndef THP_STALL_H
#define THP_STALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define THP_COMM_LEN 16

enum thp_ev_type {
	THP_EV_COMPACT_TRY,      /* compaction:mm_compaction_try_to_compact_pages */
	THP_EV_COMPACT_BEGIN,    /* compaction:mm_compaction_begin */
	THP_EV_COMPACT_END,      /* compaction:mm_compaction_end */
	THP_EV_KCOMPACTD_WAKE,   /* compaction:mm_compaction_kcompactd_wake */
	THP_EV_KCOMPACTD_SLEEP,  /* compaction:mm_compaction_kcompactd_sleep */
	THP_EV_RECLAIM_BEGIN,    /* vmscan:mm_vmscan_direct_reclaim_begin */
	THP_EV_RECLAIM_END,      /* vmscan:mm_vmscan_direct_reclaim_end */
	THP_EV_COLLAPSE,         /* huge_memory:mm_collapse_huge_page */
	THP_EV_SCAN_PMD,         /* huge_memory:mm_khugepaged_scan_pmd */
	THP_EV_TLB_FLUSH,        /* tlb:tlb_flush (x86; traced only when asked) */
	THP_EV_NTYPES
};

/* One decoded trace event. */
struct thp_ev {
	uint64_t ts;  /* ns, from a clock that is the same on every CPU */
	int cpu;
	int tid;
	int tgid;     /* 0 when unknown */
	char comm[THP_COMM_LEN];
	enum thp_ev_type type;
	int order;          /* allocation order; -1 when the event has none */
	int sync;           /* compaction mode: 1 sync, 0 async, -1 unknown */
	const char *result; /* symbolic status (TLB_FLUSH: reason), or NULL; must outlive the trace */
	uint64_t value;     /* pages reclaimed (RECLAIM_END) */
};

enum thp_stall_kind {
	THP_STALL_DIRECT_COMPACTION, /* a thread compacting for its own allocation */
	THP_STALL_DIRECT_RECLAIM,    /* a thread reclaiming for its own allocation */
	THP_STALL_KCOMPACTD,         /* kcompactd woken for an order */
	THP_STALL_PROACTIVE,         /* kcompactd compacting proactively */
	THP_STALL_MANUAL,            /* compaction asked for by a write (compact_memory) */
	THP_STALL_NKINDS
};

/* "direct_compaction", "kcompactd", ... */
const char *thp_stall_kind_name(enum thp_stall_kind k);

/* One completed begin/end pair. */
struct thp_stall {
	uint64_t start, ns; /* begin timestamp, duration */
	int tid, tgid;
	char comm[THP_COMM_LEN];
	enum thp_stall_kind kind;
	int order;          /* -1: not given (whole-zone compaction, or unknown) */
	int sync;           /* -1: unknown */
	const char *result; /* compaction status, or NULL */
	uint64_t reclaimed; /* pages, direct reclaim only */
	int cpu_begin, cpu_end;
};

/* Bucket 0 holds [0, 1) us; bucket k >= 1 holds [2^(k-1), 2^k) us; the last
 * bucket also holds everything longer. */
#define THP_HIST_BUCKETS 36

struct thp_hist {
	char comm[THP_COMM_LEN]; /* "" in the per-kind totals */
	enum thp_stall_kind kind;
	uint64_t count, total_ns, max_ns;
	uint64_t bucket[THP_HIST_BUCKETS];
};

/* Bucket of a duration in ns. */
int thp_hist_bucket(uint64_t ns);
/* Lower bound in us of bucket K (0, 1, 2, 4, ...). */
uint64_t thp_hist_lo_us(int k);

/* How many events ended with RESULT. */
struct thp_result_count {
	const char *result;
	uint64_t count;
};

/* The TLB flushes (tlb:tlb_flush) seen while a process's thread ran: the
 * flushes its own mapping changes made or asked other CPUs for ("remote IPI
 * send"), and those its CPU did for it ("flush on task switch", a received
 * "remote shootdown" counts against whatever ran then). */
struct thp_tlb_flushes {
	int pid;                 /* process (tgid); the thread id when unknown */
	char comm[THP_COMM_LEN];
	uint64_t count;
	struct thp_result_count *reasons;
	size_t nreasons;
};

struct thp_trace_filter {
	int pid;          /* process (tgid) or thread id; 0 for all */
	const char *comm; /* exact command name, or NULL for all */
	uint64_t min_ns;  /* stalls shorter than this are not passed to on_stall */
};

typedef void (*thp_stall_fn)(const struct thp_stall *s, void *arg);

struct thp_trace_state; /* pending events and per-thread pairing state */

/* Fills the command name and process id of thread TID. Returns 0 or -errno. */
typedef int (*thp_ident_fn)(int tid, int *tgid, char *comm, size_t cap, void *arg);

/* The results so far. Read-only for callers. */
struct thp_trace {
	struct thp_trace_filter filter;
	thp_stall_fn on_stall;
	void *arg;
	/* Called for events that come without comm (live tracing): once per thread,
	 * and again when its last answer is more than a second old by trace time. */
	thp_ident_fn ident;
	void *ident_arg;
	struct thp_hist totals[THP_STALL_NKINDS];
	struct thp_hist *hists; /* per command and kind, in order of first stall */
	size_t nhists;
	struct thp_result_count *scan, *collapse; /* khugepaged and MADV_COLLAPSE results */
	size_t nscan, ncollapse;
	struct thp_tlb_flushes *flushes; /* per process, in order of first flush */
	size_t nflushes;
	uint64_t events;     /* events processed */
	uint64_t unmatched;  /* ends without a begin (begun before the trace, or lost) */
	uint64_t restarted;  /* begins whose end never came (lost), replaced by a new begin */
	uint64_t unfinished; /* begins still open when the trace ended */
	struct thp_trace_state *st;
};

/* Starts a trace; F may be NULL. ON_STALL is called for every stall that passes
 * the filter and lasts at least min_ns. Returns NULL when out of memory. */
struct thp_trace *thp_trace_new(const struct thp_trace_filter *f, thp_stall_fn on_stall, void *arg);
void thp_trace_free(struct thp_trace *t);

/* Queues one event. Returns 0 or -ENOMEM. */
int thp_trace_push(struct thp_trace *t, const struct thp_ev *ev);

/* Processes the queued events with ts <= UPTO in timestamp order (events with
 * equal timestamps keep their queue order); later ones stay queued. */
int thp_trace_flush(struct thp_trace *t, uint64_t upto);

/* Processes everything queued and counts the begins left open. */
int thp_trace_finish(struct thp_trace *t);

#endif
