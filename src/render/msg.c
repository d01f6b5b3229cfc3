/* SPDX-License-Identifier: GPL-2.0-or-later */
/* msg.c - error messages in one style: "thp: cannot read 'x': Reason" */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/root.h"
#include "escape.h"
#include "msg.h"
#include "render.h"
#include "term.h"

static const char *err_cmd; /* the command messages come from, or NULL */
static int stdout_errno; /* the first write error of stdout, or 0 */
static bool stdout_closed;

void thp_stdout_failed(int err)
{
	if (!stdout_errno)
		stdout_errno = err;
}

int thp_flush(void)
{
	errno = 0;
	if (stdout_closed || (fflush(stdout) == 0 && !ferror(stdout)))
		return 0;
	thp_stdout_failed(errno);
	return -1;
}

int thp_stdout_done(int rc)
{
	bool failed = thp_flush() != 0 || ferror(stdout);

	stdout_closed = true;
	/* a descriptor closed from the start (>&-) that was never written is no error */
	if (fclose(stdout) != 0 && errno != EBADF && !failed) {
		thp_stdout_failed(errno);
		failed = true;
	}
	if (!failed)
		return rc;
	/* the reason is lost when stdio dropped the failed buffer long before */
	if (stdout_errno)
		thp_err("write error: %s", strerror(stdout_errno));
	else
		thp_err("write error");
	return 1;
}

void thp_procs_unlisted(const struct thp_root *root, int err, const char *then)
{
	char proc[4200];

	thp_root_shown(root, "proc", proc, sizeof(proc));
	thp_err("cannot list the processes in '%s': %s; %s", proc, thp_strerror(err), then);
}

void thp_err_cmd(const char *cmd)
{
	err_cmd = cmd;
}

void thp_err(const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int n;

	thp_flush();
	out_progress_erase();
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	fputs("thp: ", stderr);
	if (err_cmd)
		fprintf(stderr, "%s: ", err_cmd);
	/* the message quotes arguments, names and file contents: one escaped line */
	if (n >= 0)
		out_esc_put(stderr, msg);
	else
		fputs(fmt, stderr);
	fputc('\n', stderr);
	free(msg);
}

int thp_usage_error(const char *cmd)
{
	fprintf(stderr, "Try 'thp %s --help' for more information.\n", cmd);
	return 2;
}

void thp_root_done(struct thp_root *r)
{
	const struct thp_root_escape *e = r->escape;

	for (int i = 0; e && i < e->named; i++)
		thp_err("'%s' points outside the recorded tree '%s'; it was not followed", e->link[i],
			r->path);
	if (e && e->more)
		thp_err("%u more paths lead outside the recorded tree '%s' through other links; "
			"they were not followed", e->more, r->path);
	thp_root_close(r);
}

const char *thp_root_hint(int err)
{
	return (err == -EACCES || err == -EPERM) && geteuid() != 0 ? " (run as root)" : "";
}

const char *out_denied(char *buf, size_t cap, const struct thp_denied *d)
{
	int len = snprintf(buf, cap, "%d process%s could not be read", d->n, d->n == 1 ? "" : "es");

	for (int i = 0; i < d->n && i < THP_DENIED_NAMED && len > 0 && (size_t)len < cap; i++)
		len += snprintf(buf + len, cap - (size_t)len, "%sPID %d: %s", i ? ", " : ": ", (int)d->pid[i],
				thp_strerror(d->err[i]));
	if (len > 0 && (size_t)len < cap && d->n > THP_DENIED_NAMED)
		len += snprintf(buf + len, cap - (size_t)len, ", and %d more", d->n - THP_DENIED_NAMED);
	if (len > 0 && (size_t)len < cap && geteuid() != 0)
		snprintf(buf + len, cap - (size_t)len, " (run as root to see all)");
	return buf;
}
