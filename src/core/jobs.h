/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jobs.h - work spread over threads: each takes the next item from a shared
 * counter and leaves its result where the item's index says, so that the
 * caller reads the results in order, as one thread would have made them */
#ifndef THP_JOBS_H
#define THP_JOBS_H

#include <stdatomic.h>
#include <stddef.h>

#define THP_JOBS_MAX 1024

/* The number of CPUs this process may run on (sched_getaffinity), from 1 to
 * THP_JOBS_MAX. */
int thp_jobs_default(void);

/* Does item ITEM as worker WORKER (0 to jobs - 1; 0 is the calling thread),
 * with that worker's own state. */
typedef void (*thp_job_fn)(void *ctx, int worker, size_t item);

/* Calls FN for every item of [0, N) on up to JOBS threads, the calling one
 * among them (no more threads than items). Each takes the next item with an
 * atomic increment, no lock: a long item holds no other back. A thread that
 * cannot be started leaves its share to the others. Returns when every item
 * is done. */
void thp_jobs_run(int jobs, size_t n, thp_job_fn fn, void *ctx);

/* thp_jobs_run() in two steps, for a caller with other work meanwhile:
 * thp_jobs_start() starts the threads but for the calling one, which takes
 * its share in thp_jobs_finish(), returning when every item is done. J is
 * the caller's until then. */
struct thp_jobs {
	thp_job_fn fn;
	void *ctx;
	size_t n;
	atomic_size_t next; /* the next item to take */
	struct thp_worker *w;
	int started;        /* threads running, the calling one counted */
};
void thp_jobs_start(struct thp_jobs *j, int jobs, size_t n, thp_job_fn fn, void *ctx);
void thp_jobs_finish(struct thp_jobs *j);

#endif
