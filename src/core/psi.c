/* SPDX-License-Identifier: GPL-2.0-or-later */
/* psi.c - parse pressure stall information */
#include "psi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* Parses "avg10=A avg60=B avg300=C total=T" after the line's first word. */
static bool parse_fields(const char *p, struct thp_psi_line *l)
{
	char tot[32], tail;
	int n;

	memset(l, 0, sizeof(*l));
	n = sscanf(p, " avg10=%lf avg60=%lf avg300=%lf total=%31[0-9]%c", &l->avg10, &l->avg60,
		   &l->avg300, tot, &tail);
	if (n < 4 || (n == 5 && tail != '\n') || !(l->avg10 >= 0) || !(l->avg60 >= 0) ||
	    !(l->avg300 >= 0) || thp_parse_u64(tot, &l->total_us))
		return false;
	l->present = true;
	return true;
}

int thp_psi_parse(const char *buf, struct thp_psi *p)
{
	memset(p, 0, sizeof(*p));
	for (const char *s = buf; *s;) {
		const char *end = strchr(s, '\n');

		if (strncmp(s, "some ", 5) == 0)
			parse_fields(s + 4, &p->some);
		else if (strncmp(s, "full ", 5) == 0)
			parse_fields(s + 4, &p->full);
		s = end ? end + 1 : s + strlen(s);
	}
	return p->some.present || p->full.present ? 0 : -EINVAL;
}

int thp_psi_read(const struct thp_root *root, struct thp_psi *p)
{
	char buf[512];
	ssize_t n = thp_read_buf(root, "proc/pressure/memory", buf, sizeof(buf));

	memset(p, 0, sizeof(*p));
	if (n < 0)
		return (int)n;
	return thp_psi_parse(buf, p);
}
