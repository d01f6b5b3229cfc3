/* SPDX-License-Identifier: GPL-2.0-or-later */
/* showtlb.c - `thp show PID --tlb SECONDS`: dTLB misses of a process's threads */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/proc.h"
#include "../core/tlbcount.h"
#include "../render/render.h"
#include "cmd.h"

#define THREADS_MAX 4096

struct sampled {
	struct thp_tlb_thread t;
	struct thp_tlb_counts c;
	char comm[THP_COMM_MAX];
	bool ok;
};

/* Explains why ERR (from opening the first counter) stops the count; returns 1. */
static int open_error(int err)
{
	thp_err("%s (perf_event_open: %s)%s", thp_tlb_unavailable(err), strerror(-err),
		err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV ? "; virtual machines often have no PMU" : "");
	return 1;
}

/* Opens counters on every thread of PID into S (*N of them). Returns 0, or
 * the error of the first thread when none could be opened. */
static int open_threads(const struct thp_root *root, pid_t pid, const struct thp_tlb_walk *w,
			struct sampled *s, int *n)
{
	char rel[64];
	struct dirent *de;
	DIR *d;
	int first = -ESRCH;

	snprintf(rel, sizeof(rel), "proc/%d/task", (int)pid);
	if (!(d = thp_opendir(root, rel)))
		return -errno;
	*n = 0;
	while ((de = readdir(d)) && *n < THREADS_MAX) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		int err;

		if (*end || tid <= 0)
			continue;
		err = thp_tlb_open((pid_t)tid, w, false, &s[*n].t);
		if (err) {
			if (first == -ESRCH)
				first = err;
			continue; /* a thread that exited, or no counter: see FIRST */
		}
		if (thp_comm_read(root, (pid_t)tid, s[*n].comm, sizeof(s[*n].comm)))
			snprintf(s[*n].comm, sizeof(s[*n].comm), "?");
		(*n)++;
	}
	closedir(d);
	return *n ? 0 : first;
}

static void print_line(struct out_table *t, const char *tid, const char *comm, const struct thp_tlb_counts *c)
{
	char b[5][32];
	double x;
	const char *v[7] = { tid, comm };
	static const enum thp_tlb_ev cols[] = { THP_TLB_INSTRUCTIONS, THP_TLB_LOAD_MISSES, THP_TLB_STORE_MISSES };

	for (int i = 0; i < 3; i++)
		v[2 + i] = c->has[cols[i]] ? out_count(b[i], sizeof(b[i]), c->v[cols[i]]) : "-";
	v[5] = thp_tlb_mpki(c, &x) ? (snprintf(b[3], sizeof(b[3]), "%.3f", x), b[3]) : "-";
	v[6] = thp_tlb_walk_pct(c, &x) ? (snprintf(b[4], sizeof(b[4]), "%.1f%%", x), b[4]) : "-";
	out_table_row(t, v);
}

static void print_text(const struct thp_pstatus *st, double secs, const struct sampled *s, int n,
		       const struct thp_tlb_counts *sum, const char *walk, const struct thp_rollup *r,
		       bool bytes)
{
	static const char *const h[] = { "TID", "COMM", "INSTRUCTIONS", "DTLB_LOAD_MISSES",
					  "DTLB_STORE_MISSES", "MPKI", "WALK%" };
	char b[3][64], tid[16];
	struct out_table *t;

	printf("Process %d (%s): dTLB misses of %d thread%s over %.1f s, user space\n", (int)st->pid,
	       out_esc(b[0], sizeof(b[0]), st->name), n, n == 1 ? "" : "s", secs);
	printf("  THP %s (%s of ANON)\n", out_size(b[1], sizeof(b[1]), r->anon_huge, bytes),
	       out_pct(b[2], sizeof(b[2]), r->anon_huge, r->anon));
	printf("  page walks: %s\n", walk[0] ? walk : "no page-walk event named by the CPU's PMU in sysfs");
	putchar('\n');
	t = out_table_new(7, h, false);
	for (int i = 2; i < 7; i++)
		out_table_right(t, i);
	for (int i = 0; i < n; i++) {
		snprintf(tid, sizeof(tid), "%d", (int)s[i].t.tid);
		if (s[i].ok)
			print_line(t, tid, s[i].comm, &s[i].c);
	}
	print_line(t, "total", "", sum);
	out_table_print(t, 0);
}

static struct json_object *counts_json(const struct thp_tlb_counts *c)
{
	static const char *const names[THP_TLB_NEV] = { "instructions", "cycles", "dtlb_load_misses",
							"dtlb_store_misses", "walk_cycles" };
	struct json_object *j = json_object_new_object();
	double x;

	for (int i = 0; i < THP_TLB_NEV; i++)
		json_object_object_add(j, names[i], c->has[i] ? out_json_u64(c->v[i]) : NULL);
	json_object_object_add(j, "mpki", thp_tlb_mpki(c, &x) ? out_json_num(x, 3) : NULL);
	json_object_object_add(j, "walk_pct", thp_tlb_walk_pct(c, &x) ? out_json_num(x, 2) : NULL);
	return j;
}

static void print_json(const struct thp_pstatus *st, double secs, const struct sampled *s, int n,
		       const struct thp_tlb_counts *sum, const char *walk, const struct thp_rollup *r)
{
	struct json_object *top = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(top, "schema", json_object_new_string("thp-show-tlb/1"));
	json_object_object_add(top, "pid", json_object_new_int(st->pid));
	json_object_object_add(top, "command", json_object_new_string(st->name));
	json_object_object_add(top, "seconds", out_json_num(secs, 3));
	json_object_object_add(top, "anon", out_json_u64(r->anon));
	json_object_object_add(top, "anon_huge", out_json_u64(r->anon_huge));
	json_object_object_add(top, "walk_event", walk[0] ? json_object_new_string(walk) : NULL);
	for (int i = 0; i < n; i++) {
		struct json_object *j;
		if (!s[i].ok)
			continue;
		j = counts_json(&s[i].c);
		json_object_object_add(j, "tid", json_object_new_int(s[i].t.tid));
		json_object_object_add(j, "comm", json_object_new_string(s[i].comm));
		json_object_array_add(arr, j);
	}
	json_object_object_add(top, "threads", arr);
	json_object_object_add(top, "totals", counts_json(sum));
	out_json_print(top);
}

/* Counts for SECS seconds and sums the threads into SUM. */
static void count(struct sampled *s, int n, double secs, struct thp_tlb_counts *sum)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
	bool first = true;

	for (int i = 0; i < n; i++)
		thp_tlb_enable(&s[i].t);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	memset(sum, 0, sizeof(*sum));
	for (int i = 0; i < n; i++) {
		s[i].ok = thp_tlb_read(&s[i].t, &s[i].c) == 0;
		if (s[i].ok) {
			thp_tlb_counts_add(sum, &s[i].c, first);
			first = false;
		}
		thp_tlb_close(&s[i].t);
	}
}

int thp_show_tlb(struct thp_ctx *ctx, const struct thp_pstatus *st, double secs, bool json, bool bytes)
{
	struct sampled *s;
	struct thp_tlb_counts sum;
	struct thp_rollup r = { 0 };
	struct thp_tlb_walk w;
	int n = 0, err;

	if (!(s = calloc(THREADS_MAX, sizeof(*s)))) {
		thp_err("out of memory");
		return 1;
	}
	thp_tlb_walk_find(&ctx->root, &w);
	err = open_threads(&ctx->root, st->pid, &w, s, &n);
	if (err) {
		free(s);
		return open_error(err);
	}
	count(s, n, secs, &sum);
	thp_rollup_read(&ctx->root, st->pid, &r);
	if (json)
		print_json(st, secs, s, n, &sum, w.name, &r);
	else
		print_text(st, secs, s, n, &sum, w.name, &r, bytes);
	free(s);
	return 0;
}
