/* SPDX-License-Identifier: GPL-2.0-or-later */
/* task.c - per-thread scheduler state */
#include "task.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int thp_task_stat_parse(const char *buf, struct thp_task *t)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	char num[24];
	uint64_t tid;
	size_t n;

	if (!open || !close || close < open || open == buf || close[1] != ' ' || !close[2] ||
	    close[3] != ' ')
		return -EINVAL;
	n = (size_t)(open - buf);
	if (n >= sizeof(num))
		return -EINVAL;
	memcpy(num, buf, n);
	num[n] = '\0';
	if (thp_parse_u64(num, &tid) || tid == 0 || tid > 1u << 30)
		return -EINVAL;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(t->comm))
		n = sizeof(t->comm) - 1;
	memcpy(t->comm, open + 1, n);
	t->comm[n] = '\0';
	t->tid = (pid_t)tid;
	t->state = close[2];
	return 0;
}

struct scan {
	const struct thp_root *root;
	char state;
	struct thp_task *v;
	int max, n, *total;
};

static void scan_task(struct scan *s, pid_t pid, const char *tid)
{
	char path[96], buf[1024];
	struct thp_task t;

	snprintf(path, sizeof(path), "proc/%d/task/%s/stat", (int)pid, tid);
	if (thp_read_buf(s->root, path, buf, sizeof(buf)) <= 0 || thp_task_stat_parse(buf, &t) ||
	    t.state != s->state)
		return;
	t.pid = pid;
	(*s->total)++;
	if (s->n < s->max)
		s->v[s->n++] = t;
}

static int scan_proc(pid_t pid, void *ctx)
{
	struct scan *s = ctx;
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "proc/%d/task", (int)pid);
	d = thp_opendir(s->root, path);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			scan_task(s, pid, de->d_name);
	closedir(d);
	return 0;
}

int thp_tasks_in_state(const struct thp_root *root, char state, struct thp_task *v, int max,
		       int *total)
{
	struct scan s = { root, state, v, max, 0, total };
	int err;

	*total = 0;
	err = thp_proc_each(root, scan_proc, &s);
	return err ? err : s.n;
}
