/* SPDX-License-Identifier: GPL-2.0-or-later */
/* msg.c - error messages in one style: "thp: cannot read 'x': Reason" */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cmd/cmd.h"
#include "escape.h"
#include "render.h"

void thp_err(const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int n;

	fflush(stdout);
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	fputs("thp: ", stderr);
	/* the message quotes arguments, names and file contents: one escaped line */
	if (n >= 0)
		out_esc_put(stderr, msg);
	else
		fputs(fmt, stderr);
	fputc('\n', stderr);
	free(msg);
}

const char *thp_strerror(int err)
{
	switch (-err) {
	case EINVAL:
		return "malformed value";
	case E2BIG:
		return "value too long";
	case ERANGE:
		return "number out of range";
	case EFBIG:
		return "file too large";
	case ENOENT:
		return "absent";
	case EXDEV:
		return "a link there points outside the recorded tree";
	default:
		return strerror(-err);
	}
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
