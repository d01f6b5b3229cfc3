/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of work spread over threads (core/jobs.c, cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/jobs.h"

#define ITEMS 5000

struct done {
	int times[ITEMS]; /* how often each item was done */
	int by[ITEMS];    /* and by which worker */
};

static void mark(void *ctx, int worker, size_t item)
{
	struct done *d = ctx;

	d->times[item]++;
	d->by[item] = worker;
}

/* Every item done exactly once, by a worker below JOBS (and below N). */
static void run(int jobs, size_t n)
{
	struct done *d = calloc(1, sizeof(*d));
	int workers = jobs < (int)n ? jobs : (int)n;

	assert_non_null(d);
	thp_jobs_run(jobs, n, mark, d);
	for (size_t i = 0; i < ITEMS; i++) {
		assert_int_equal(d->times[i], i < n);
		assert_true(i >= n || (d->by[i] >= 0 && d->by[i] < workers));
	}
	free(d);
}

static void each_item_once(void **state)
{
	(void)state;
	run(1, ITEMS);
	run(4, ITEMS);
	run(64, ITEMS);
	run(8, 3); /* more workers than items */
	run(4, 0);
}

static void default_jobs(void **state)
{
	int n = thp_jobs_default();

	(void)state;
	assert_true(n >= 1 && n <= THP_JOBS_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_item_once),
		cmocka_unit_test(default_jobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
