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

/* Items listed one at a time and done a batch at a time on threads: while
 * the threads do one batch, the calling thread lists the next, then does
 * its share. The caller keeps two batches (0 and 1) of SIZE items each;
 * START starts batch B's N items on RUN (with thp_jobs_start(), after a
 * first pass over them if it needs one); KEEP takes them, done, on the
 * calling thread, in order, and returns 0 or an error that ends the
 * listing (ERR; the batch still being done is kept after it, to let go). */
struct thp_batches {
	size_t size;
	void (*start)(void *ctx, int b, size_t n, struct thp_jobs *run);
	int (*keep)(void *ctx, int b, size_t n);
	void *ctx;
	int cur;             /* the batch listed */
	size_t n[2];         /* the items of each */
	struct thp_jobs run; /* the other one's */
	int err;
};

/* Where the next item listed goes: index thp_batch_slot() of batch Q->CUR. */
static inline size_t thp_batch_slot(const struct thp_batches *q)
{
	return q->n[q->cur];
}

/* Counts the item placed at thp_batch_slot(), and starts its batch when it
 * is full. Returns Q's ERR. */
int thp_batch_added(struct thp_batches *q);

/* Starts the batch listed, and waits for both. Returns Q's ERR. */
int thp_batch_end(struct thp_batches *q);

#endif
