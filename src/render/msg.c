/* SPDX-License-Identifier: GPL-2.0-or-later */
/* msg.c - error messages in one style: "thp: cannot read 'x': Reason" */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../cmd/cmd.h"

void thp_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("thp: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
	default:
		return strerror(-err);
	}
}

int thp_usage_error(const char *cmd)
{
	fprintf(stderr, "Try 'thp %s --help' for more information.\n", cmd);
	return 2;
}

const char *thp_root_hint(int err)
{
	return (err == -EACCES || err == -EPERM) && geteuid() != 0 ? " (run as root)" : "";
}
