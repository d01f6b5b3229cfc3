/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.c - a count on standard error while long work runs on a terminal */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "render.h"
#include "term.h"

static struct out_progress *on_screen; /* the progress whose line is shown */

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

/* Whether a progress line is due now (at T): on a terminal, after the first
 * second, a tenth of a second after the last. */
static bool due(struct out_progress *p, double *t)
{
	if (!p->tty)
		return false;
	*t = now();
	if (*t - p->start < 1.0 || *t - p->last < 0.1)
		return false;
	p->last = *t;
	p->shown = true;
	on_screen = p;
	return true;
}

void out_progress(struct out_progress *p, const char *cmd, uint64_t n, const char *unit)
{
	double t;

	if (!due(p, &t))
		return;
	fprintf(stderr, "\rthp %s: %" PRIu64 " %s", cmd, n, unit);
	fflush(stderr);
}

void out_progress_say(struct out_progress *p, const char *cmd, const char *fmt, ...)
{
	va_list ap;
	double t;

	if (!due(p, &t))
		return;
	fprintf(stderr, "\r\033[Kthp %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (%.0f s elapsed)", t - p->start);
	fflush(stderr);
}

void out_progress_end(struct out_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
	if (on_screen == p)
		on_screen = NULL;
}

void out_progress_erase(void)
{
	if (on_screen)
		out_progress_end(on_screen);
}
