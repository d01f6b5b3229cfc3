/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.c - a count on standard error while long work runs on a terminal */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "render.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void out_progress_init(struct out_progress *p)
{
	p->tty = isatty(STDERR_FILENO);
	p->start = p->last = p->tty ? now() : 0;
	p->shown = false;
}

void out_progress(struct out_progress *p, const char *cmd, uint64_t n, const char *unit)
{
	double t;

	if (!p->tty)
		return;
	t = now();
	if (t - p->start < 1.0 || t - p->last < 0.1)
		return;
	p->last = t;
	p->shown = true;
	fprintf(stderr, "\rthp %s: %" PRIu64 " %s", cmd, n, unit);
	fflush(stderr);
}

void out_progress_end(struct out_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}
