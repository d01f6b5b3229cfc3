/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exp.h - mechanics shared by the experiments of 'thp bench' and 'thp ab':
 * anonymous regions, touching, the smaps fields of one mapping, /proc/vmstat
 * deltas, CPU counters, statistics over repetitions and the host's noise level */
#ifndef THP_EXP_H
#define THP_EXP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "proc.h"
#include "root.h"
#include "status.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 */
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

#define THP_PMD_BYTES (2u << 20)

/* A private anonymous read-write mapping. */
struct thp_region {
	char *addr;
	size_t len;
};

/* Maps LEN bytes: where the kernel places them, or with ALIGNED on a 2 MiB
 * boundary (mapped 2 MiB larger, then trimmed), so that every whole 2 MiB block
 * can be huge. Returns 0 or -errno. */
int thp_region_map(struct thp_region *r, size_t len, bool aligned);
void thp_region_unmap(struct thp_region *r);
/* Bytes of the region covered by whole, aligned 2 MiB blocks: what THP can map. */
size_t thp_region_pmd_bytes(const struct thp_region *r);

/* Writes (or reads) one byte every STEP bytes of R. Returns the minor faults taken. */
uint64_t thp_touch(const struct thp_region *r, size_t step, bool write);

/* Minor faults of the calling process so far (getrusage). */
uint64_t thp_minflt(void);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t thp_now_ns(void);

/* Finds the mapping of process PID (0: the caller) that contains ADDR in its
 * smaps. Returns 0, -ENOENT when no mapping holds ADDR, or -errno. */
int thp_vma_find(const struct thp_root *root, pid_t pid, uint64_t addr, struct thp_vma *v);

/* The thp_* and compact_* counters of /proc/vmstat at one moment. */
struct thp_vmstat {
	int err;
	int n;
	struct thp_counter c[THP_COUNTERS_MAX];
};

void thp_vmstat_snap(const struct thp_root *root, struct thp_vmstat *s);
/* AFTER - BEFORE for counter NAME; 0 when the kernel lacks it. */
uint64_t thp_vmstat_delta(const struct thp_vmstat *before, const struct thp_vmstat *after,
			  const char *name);
/* True when the kernel has counter NAME. */
bool thp_vmstat_has(const struct thp_vmstat *s, const char *name);

/* Minimum, median and maximum of N values (N >= 1; V is not changed). */
struct thp_stats {
	double min, median, max;
};
struct thp_stats thp_stats_of(const double *v, int n);
/* True when the ranges [min, max] of A and B overlap. */
bool thp_stats_overlap(const struct thp_stats *a, const struct thp_stats *b);

/* How busy the host is right now, for a noise warning. */
struct thp_busy {
	double load1;   /* 1-minute load average */
	int ncpu;       /* online CPUs */
	pid_t top_pid;  /* the process (not the caller) that used most CPU in the window */
	char top_comm[32];
	double top_cpu; /* its CPU use in the window, 1.0 = one whole CPU */
};

/* Samples load and per-process CPU time over WINDOW_MS milliseconds.
 * Returns 0 or -errno. */
int thp_busy_sample(const struct thp_root *root, int window_ms, struct thp_busy *b);
/* True when B says the host is too busy for clean timings. */
bool thp_busy_noisy(const struct thp_busy *b);
/* Why B is noisy, into BUF: "load 3.8 on 2 CPUs; 'hog' (pid 812) uses 100% of
 * a CPU", naming the busiest process only when one used CPU in the sample. */
const char *thp_busy_text(const struct thp_busy *b, char *buf, size_t cap);

/* Fields of /proc/PID/stat that the experiments use. */
struct thp_pstat {
	char comm[32];
	pid_t ppid;
	uint64_t utime, stime; /* clock ticks */
};
/* Parses /proc/PID/stat text. Returns 0 or -EINVAL. */
int thp_pstat_parse(const char *buf, struct thp_pstat *s);
int thp_pstat_read(const struct thp_root *root, pid_t pid, struct thp_pstat *s);

/* True when /proc/cpuinfo has the "hypervisor" flag (x86 guests). */
bool thp_in_vm(const struct thp_root *root);

#endif
