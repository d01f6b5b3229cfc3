/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlbcount.h - dTLB misses of a running process's threads, counted with
 * perf_event_open (user space only), and the arithmetic on the counts */
#ifndef THP_TLBCOUNT_H
#define THP_TLBCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc.h"
#include "root.h"

enum thp_tlb_ev {
	THP_TLB_INSTRUCTIONS, /* PERF_COUNT_HW_INSTRUCTIONS */
	THP_TLB_CYCLES,       /* PERF_COUNT_HW_CPU_CYCLES */
	THP_TLB_LOAD_MISSES,  /* PERF_COUNT_HW_CACHE_DTLB, read, miss */
	THP_TLB_STORE_MISSES, /* PERF_COUNT_HW_CACHE_DTLB, write, miss */
	THP_TLB_WALK_CYCLES,  /* a page-walk cycles event the kernel names in sysfs */
	THP_TLB_NEV
};

/* Counts over a window, each scaled for the share of it its counter ran. */
struct thp_tlb_counts {
	bool has[THP_TLB_NEV];
	uint64_t v[THP_TLB_NEV];
};

/* Applies a PMU format FMT ("config:0-7", "config:23", "config:0-7,32-35")
 * to VALUE, OR-ing its bits into *CONFIG. Returns 0, -EINVAL for another
 * field (config1, config2) or text that is not a format, -ERANGE when VALUE
 * has more bits than the format. */
int thp_pmu_format_apply(const char *fmt, uint64_t value, uint64_t *config);

/* Looks up the format of TERM (e.g. "umask") into BUF; returns 0 or -errno. */
typedef int (*thp_pmu_format_fn)(const char *term, char *buf, size_t cap, void *ctx);

/* Parses a PMU event file ("event=0x08,umask=0x10,cmask=1", a bare term
 * meaning 1) into *CONFIG with FORMAT giving each term's bits. Returns 0,
 * -EINVAL for malformed text or an unknown term, -ERANGE (see above). */
int thp_pmu_event_parse(const char *spec, thp_pmu_format_fn format, void *ctx, uint64_t *config);

/* A page-walk cycles event of the CPU's PMU, from
 * ROOT/sys/bus/event_source/devices/cpu/events (a name with "walk_active"
 * or "walk_duration"), as a raw config. Returns 0, or -ENOENT when the kernel
 * names none (or has no such PMU). */
int thp_pmu_walk_event(const struct thp_root *root, char *name, size_t cap, uint64_t *config);

/* RAW scaled by ENABLED / RUNNING (a counter multiplexed with others).
 * False when it never ran. */
bool thp_tlb_scale(uint64_t raw, uint64_t enabled, uint64_t running, uint64_t *out);

/* dTLB misses (load and store, where counted) per UNITS events (loads of a
 * benchmark, instructions). False when load misses were not counted or UNITS
 * is 0. */
bool thp_tlb_misses_per(const struct thp_tlb_counts *c, uint64_t units, double *per);

/* dTLB misses (load and store, where counted) per thousand instructions.
 * False when instructions or load misses were not counted, or none ran. */
bool thp_tlb_mpki(const struct thp_tlb_counts *c, double *mpki);

/* Page-walk cycles as a percentage of cycles; false when either is unknown. */
bool thp_tlb_walk_pct(const struct thp_tlb_counts *c, double *pct);

/* Adds B to A, counter by counter (a counter stays known only in both). */
void thp_tlb_counts_add(struct thp_tlb_counts *a, const struct thp_tlb_counts *b, bool first);

/* The counters open on one thread. */
struct thp_tlb_thread {
	pid_t tid;
	int fd[THP_TLB_NEV]; /* -1 when not open */
};

/* The page-walk counter to open beside the others (has: false without one). */
struct thp_tlb_walk {
	bool has;
	uint64_t config;
	char name[128];
};

/* Finds ROOT's page-walk event (thp_pmu_walk_event) into W. */
void thp_tlb_walk_find(const struct thp_root *root, struct thp_tlb_walk *w);

/* Opens the counters on thread TID (0: the calling thread), disabled, user
 * space only, with W's walk counter when it has one. With INHERIT, threads and
 * processes TID starts later are counted too, and counting starts at TID's
 * next execve (a command about to be run). Returns 0 when at least
 * instructions and dTLB load misses opened, else -errno of the first that
 * failed: -ENOENT, -EOPNOTSUPP or -ENODEV (no such hardware counter),
 * -EACCES or -EPERM (perf_event_paranoid), -ESRCH (the thread exited). */
int thp_tlb_open(pid_t tid, const struct thp_tlb_walk *w, bool inherit, struct thp_tlb_thread *t);

/* Why the counters are unavailable after thp_tlb_open failed with ERR, in a
 * few words ("this machine exposes no hardware TLB counters", ...). */
const char *thp_tlb_unavailable(int err);

/* Starts T's counters. */
void thp_tlb_enable(const struct thp_tlb_thread *t);

/* Reads and scales T's counters into C. Returns 0 or -errno. */
int thp_tlb_read(const struct thp_tlb_thread *t, struct thp_tlb_counts *c);

/* Closes T's counters. */
void thp_tlb_close(struct thp_tlb_thread *t);

/* The most threads of a process thp_tlb_count_proc() counts. */
#define THP_TLB_THREADS_MAX 4096

/* One thread of a process, counted over a window. */
struct thp_tlb_sample {
	struct thp_tlb_thread t;
	struct thp_tlb_counts c;
	char comm[THP_COMM_MAX];
	bool ok; /* C holds its counts (false: it could not be read) */
};

/* The threads of a process counted over a window, and their sums. */
struct thp_tlb_proc {
	struct thp_tlb_sample *s; /* malloc'd, N of them */
	int n;
	struct thp_tlb_counts sum; /* of the threads counted */
	struct thp_tlb_walk walk; /* the page-walk event; name "" without one */
};

/* Counts the dTLB misses of the threads of process PID below ROOT (up to
 * THP_TLB_THREADS_MAX) for SECS seconds into P; frees P with
 * thp_tlb_proc_free(). Returns 0, -ENOMEM, -errno when its threads cannot be
 * listed, or the error of the first thread's counters (thp_tlb_open) when
 * none could be opened. */
int thp_tlb_count_proc(const struct thp_root *root, pid_t pid, double secs, struct thp_tlb_proc *p);

/* Frees what thp_tlb_count_proc() allocated in P. */
void thp_tlb_proc_free(struct thp_tlb_proc *p);

#endif
