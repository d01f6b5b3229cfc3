/* SPDX-License-Identifier: GPL-2.0-or-later */
/* task.h - scheduler state of every thread, from /proc/PID/task/TID/stat */
#ifndef THP_TASK_H
#define THP_TASK_H

#include <sys/types.h>

#include "proc.h"
#include "root.h"

struct thp_task {
	pid_t pid, tid;
	char state; /* 'R', 'S', 'D', ... as in ps(1) */
	char comm[THP_COMM_MAX];
};

/* Parses /proc/PID/task/TID/stat text ("TID (COMM) STATE ..."); the command
 * name may hold spaces and parentheses. Sets tid, comm and state. Returns 0 or -EINVAL. */
int thp_task_stat_parse(const char *buf, struct thp_task *t);

/* Collects the threads in scheduler state STATE into V (at most MAX); *TOTAL
 * counts every match, also those past MAX. Threads that exit meanwhile or
 * cannot be read are skipped. Returns the number stored, or -errno of listing /proc. */
int thp_tasks_in_state(const struct thp_root *root, char state, struct thp_task *v, int max,
		       int *total);

#endif
