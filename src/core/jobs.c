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

struct run {
	thp_job_fn fn;
	void *ctx;
	size_t n;
	atomic_size_t next; /* the next item to take */
};

struct worker {
	struct run *run;
	int id;
	pthread_t thread;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->run;

	for (size_t i; (i = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed)) < r->n;)
		r->fn(r->ctx, w->id, i);
	return NULL;
}

void thp_jobs_run(int jobs, size_t n, thp_job_fn fn, void *ctx)
{
	struct run r = { .fn = fn, .ctx = ctx, .n = n };
	struct worker one = { &r, 0, 0 }, *w;
	int started = 1;

	atomic_init(&r.next, 0);
	if ((size_t)jobs > n)
		jobs = (int)n;
	w = jobs > 1 ? calloc((size_t)jobs, sizeof(*w)) : NULL; /* [0] unused: the calling thread is ONE */
	for (int i = 1; w && i < jobs; i++) {
		w[i] = (struct worker){ &r, i, 0 };
		if (pthread_create(&w[i].thread, NULL, work, &w[i]))
			break;
		started++;
	}
	work(&one);
	for (int i = 1; i < started; i++)
		pthread_join(w[i].thread, NULL);
	free(w);
}
