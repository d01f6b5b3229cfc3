/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracefs.h - a tracefs instance of thp's own: setup, raw event reading, teardown
 *
 * Tracing runs in an instance (instances/thp-trace-PID) so the global trace
 * buffer, its events and tracing_on are never touched. When tracefs is not
 * mounted, thp mounts it in a mount namespace of its own, which the host never
 * sees and which ends with thp. */
#ifndef THP_TRACEFS_H
#define THP_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/stall.h"

struct thp_tracefs;

/* Mounts tracefs if needed, removes instances left by killed thp processes,
 * creates this process's instance with BUFFER_KB per CPU and the "mono" clock
 * (timestamps are CLOCK_MONOTONIC ns, comparable across CPUs),
 * and enables every traced event the kernel has (tlb:tlb_flush only with TLB).
 * Tracing is not on yet. Returns 0 or -errno; on failure WHAT names the step
 * that failed. */
int thp_tracefs_open(struct thp_tracefs **out, size_t buffer_kb, bool tlb, const char **what);

/* True when the kernel has the trace event TYPE. */
bool thp_tracefs_has(const struct thp_tracefs *tf, enum thp_ev_type type);

/* Events thp traces that this kernel lacks ("huge_memory:mm_khugepaged_scan_pmd ..."),
 * or "" when it has them all. */
const char *thp_tracefs_missing(const struct thp_tracefs *tf);
/* True when no compaction or reclaim event at all could be enabled. */
bool thp_tracefs_useless(const struct thp_tracefs *tf);

/* Switches tracing on in the instance. Returns 0 or -errno. */
int thp_tracefs_start(struct thp_tracefs *tf);

/* Waits up to NS for a CPU buffer to be a quarter full (or, on kernels without
 * buffer_percent, to hold data). Returns >0 when one is, 0 after NS, -EINTR
 * when a signal came. */
int thp_tracefs_wait(struct thp_tracefs *tf, uint64_t ns);

/* Reads every CPU's buffer until it is empty and calls FN with each decoded
 * event (tid, cpu, ts, type and fields; comm and tgid are left empty).
 * Returns the number of events read, or -errno of a failed read or of FN. */
long thp_tracefs_read(struct thp_tracefs *tf, int (*fn)(struct thp_ev *ev, void *arg), void *arg);

/* The command name the kernel saved for TID (saved_cmdlines), for threads that
 * exited before /proc could be asked. Returns 0 or -ENOENT. */
int thp_tracefs_comm(int tid, char *comm, size_t cap);

/* Events the kernel dropped or overwrote in this instance so far (all CPUs). */
uint64_t thp_tracefs_lost(struct thp_tracefs *tf);

/* Stops tracing and removes the instance. Safe to call with NULL. */
void thp_tracefs_close(struct thp_tracefs *tf);

#endif
