/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mounts.c - /proc/PID/mountinfo */
#include "mounts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* Fills T from one mountinfo line [P, END): "ID PARENT MAJ:MIN ROOT POINT
 * OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS". Returns 0 or -EINVAL. */
static int mount_line(const char *p, const char *end, struct thp_mount *t)
{
	const char *f[32];
	size_t len[32];
	int nf = thp_split_fields(p, end, f, len, 32), dash = 6;
	char opts[512];

	while (dash < nf && !(len[dash] == 1 && f[dash][0] == '-'))
		dash++;
	if (nf < 5 || dash + 2 >= nf || sscanf(f[2], "%u:%u", &t->major, &t->minor) != 2)
		return -EINVAL;
	memset(t->huge, 0, sizeof(t->huge));
	snprintf(t->fstype, sizeof(t->fstype), "%.*s", (int)len[dash + 1], f[dash + 1]);
	thp_unescape_octal(t->point, sizeof(t->point), f[4], len[4]);
	if (strcmp(t->fstype, "tmpfs") == 0) {
		snprintf(opts, sizeof(opts), "%.*s", dash + 3 < nf ? (int)len[dash + 3] : 0,
			 dash + 3 < nf ? f[dash + 3] : "");
		if (thp_mount_option(opts, "huge", t->huge, sizeof(t->huge)))
			snprintf(t->huge, sizeof(t->huge), "never");
	}
	return 0;
}

int thp_mountinfo_parse(const char *buf, struct thp_mounts *m)
{
	int cap = 0;

	m->n = 0;
	m->v = NULL;
	for (const char *p = buf; *p;) {
		const char *end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		if (m->n == cap) {
			struct thp_mount *nv = realloc(m->v, sizeof(*nv) * (size_t)(cap ? cap * 2 : 32));
			if (!nv) {
				thp_mounts_free(m);
				return -ENOMEM;
			}
			m->v = nv;
			cap = cap ? cap * 2 : 32;
		}
		if (mount_line(p, end, &m->v[m->n]) == 0)
			m->n++;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int thp_mountinfo_read(const struct thp_root *root, pid_t pid, struct thp_mounts *m)
{
	char path[64], *buf;
	size_t len;
	int err;

	m->n = 0;
	m->v = NULL;
	snprintf(path, sizeof(path), "proc/%d/mountinfo", (int)pid);
	err = thp_read(root, path, &buf, &len);
	if (err)
		return err;
	err = thp_mountinfo_parse(buf, m);
	free(buf);
	return err;
}

void thp_mounts_free(struct thp_mounts *m)
{
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

const struct thp_mount *thp_mount_of(const struct thp_mounts *m, unsigned major, unsigned minor)
{
	for (int i = 0; m && i < m->n; i++)
		if (m->v[i].major == major && m->v[i].minor == minor)
			return &m->v[i];
	return NULL;
}
