/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jobs.c - items spread over worker threads */
#include "jobs.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

/* CPUs the affinity mask is asked for: the kernel refuses a mask smaller
 * than its own (CONFIG_NR_CPUS; 8192 with x86's MAXSMP) */
#define CPUS_MAX 8192

int thp_jobs_default(void)
{
	cpu_set_t *set;
	size_t size = CPU_ALLOC_SIZE(CPUS_MAX);
	int n = 1;

	set = CPU_ALLOC(CPUS_MAX);
	if (set && sched_getaffinity(0, size, set) == 0)
		n = CPU_COUNT_S(size, set);
	CPU_FREE(set);
	return n < 1 ? 1 : n > THP_JOBS_MAX ? THP_JOBS_MAX : n;
}

struct thp_worker {
	struct thp_jobs *j;
	int id;
	pthread_t thread;
};

static void *work(void *arg)
{
	struct thp_worker *w = arg;
	struct thp_jobs *j = w->j;

	for (size_t i; (i = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->n;)
		j->fn(j->ctx, w->id, i);
	return NULL;
}

void thp_jobs_start(struct thp_jobs *j, int jobs, size_t n, thp_job_fn fn, void *ctx)
{
	*j = (struct thp_jobs){ .fn = fn, .ctx = ctx, .n = n, .started = 1 };
	atomic_init(&j->next, 0);
	if ((size_t)jobs > n)
		jobs = (int)n;
	j->w = jobs > 1 ? calloc((size_t)jobs, sizeof(*j->w)) : NULL; /* [0] the calling thread's */
	for (int i = 1; j->w && i < jobs; i++) {
		j->w[i] = (struct thp_worker){ j, i, 0 };
		if (pthread_create(&j->w[i].thread, NULL, work, &j->w[i]))
			break;
		j->started++;
	}
}

void thp_jobs_finish(struct thp_jobs *j)
{
	struct thp_worker one = { j, 0, 0 };

	work(&one);
	for (int i = 1; i < j->started; i++)
		pthread_join(j->w[i].thread, NULL);
	free(j->w);
	j->w = NULL;
	j->started = 0;
}

void thp_jobs_run(int jobs, size_t n, thp_job_fn fn, void *ctx)
{
	struct thp_jobs j;

	thp_jobs_start(&j, jobs, n, fn, ctx);
	thp_jobs_finish(&j);
}

/* Waits for batch B (started) and keeps it. */
static void batch_done(struct thp_batches *q, int b)
{
	int err;

	if (!q->n[b])
		return;
	thp_jobs_finish(&q->run);
	err = q->keep(q->ctx, b, q->n[b]);
	q->err = q->err ? q->err : err;
	q->n[b] = 0;
}

/* Ends the batch being done, and starts the one listed. */
static void batch_next(struct thp_batches *q)
{
	int b = q->cur;

	batch_done(q, !b);
	if (q->err) {
		q->n[b] = 0;
		return;
	}
	if (q->n[b])
		q->start(q->ctx, b, q->n[b], &q->run);
	q->cur = !b;
}

int thp_batch_added(struct thp_batches *q)
{
	if (++q->n[q->cur] == q->size)
		batch_next(q);
	return q->err;
}

int thp_batch_end(struct thp_batches *q)
{
	if (!q->err)
		batch_next(q);
	batch_done(q, !q->cur);
	return q->err;
}
