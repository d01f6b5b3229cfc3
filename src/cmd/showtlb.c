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

/* A line of the table: a thread, or the sums (TID 0). */
struct line {
	int tid;
	const char *comm;
	const struct thp_tlb_counts *c;
};

enum { L_TID, L_COMM, L_COUNT, L_MPKI = L_COUNT + THP_TLB_NEV, L_WALK };

static void get_line(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct line *l = row;
	double x = 0;
	bool have;

	(void)ctx;
	switch (c->arg) {
	case L_TID:
		out_val_set(v, ov_if(l->tid, ov_int(l->tid)));
		v->text = l->tid ? NULL : "total";
		return;
	case L_COMM: out_val_set(v, ov_str(l->comm)); return;
	case L_MPKI:
		have = thp_tlb_mpki(l->c, &x);
		out_val_set(v, ov_if(have, ov_num(x, 3)));
		return;
	case L_WALK:
		have = thp_tlb_walk_pct(l->c, &x);
		out_val_set(v, ov_if(have, ov_num(x, 2)));
		if (have) {
			snprintf(v->buf, v->cap, "%.1f%%", x);
			v->text = v->buf;
		}
		return;
	default: out_val_set(v, ov_if(l->c->has[c->arg - L_COUNT], ov_grouped(l->c->v[c->arg - L_COUNT]))); return;
	}
}

/* The counts of enum thp_tlb_ev in its order, then MPKI and WALK%; every
 * one kept on a narrow terminal, as the table was. */
static const struct out_col line_cols[] = {
	{ "TID", OUT_TEXT, OUT_KEEP, "", get_line, L_TID },
	{ "COMM", OUT_TEXT, OUT_KEEP, "", get_line, L_COMM },
	{ "INSTRUCTIONS", OUT_GROUPED, OUT_KEEP, "", get_line, L_COUNT + THP_TLB_INSTRUCTIONS },
	{ "CYCLES", OUT_GROUPED, OUT_KEEP, "", get_line, L_COUNT + THP_TLB_CYCLES },
	{ "DTLB_LOAD_MISSES", OUT_GROUPED, OUT_KEEP, "", get_line, L_COUNT + THP_TLB_LOAD_MISSES },
	{ "DTLB_STORE_MISSES", OUT_GROUPED, OUT_KEEP, "", get_line, L_COUNT + THP_TLB_STORE_MISSES },
	{ "WALK_CYCLES", OUT_GROUPED, OUT_KEEP, "", get_line, L_COUNT + THP_TLB_WALK_CYCLES },
	{ "MPKI", OUT_NUM, OUT_KEEP, "", get_line, L_MPKI },
	{ "WALK%", OUT_NUM, OUT_KEEP, "", get_line, L_WALK },
};

/* What was counted: a line about the process, then a line per thread and
 * their sums (in text the columns of the misses, in JSON every one). */
static void print(const struct thp_pstatus *st, double secs, const struct sampled *s, int n,
		  const struct thp_tlb_counts *sum, const char *walk, const struct thp_rollup *r)
{
	static const int text[] = { 0, 1, 2, 4, 5, 7, 8 }, all[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct out_fmt f = { .json = out_json_on(), .bytes = out_bytes_on(), .fixed = true };
	struct out_val v = ov_num(secs, 3);
	char b[32];
	struct out_table *t;

	out_put(OUT_ANY, "pid", "Process %s", ov_int(st->pid));
	out_put(OUT_ANY, "command", " (%s)", ov_str(st->name));
	out_text(": dTLB misses of %d thread%s over ", n, n == 1 ? "" : "s");
	snprintf(b, sizeof(b), "%.1f", secs);
	v.text = b;
	out_put(OUT_ANY, "seconds", "%s s, user space\n", v);
	out_put(OUT_JSON, "anon", NULL, ov_size(r->anon));
	out_put(OUT_ANY, "anon_huge", "  THP %s", ov_size(r->anon_huge));
	out_put(OUT_FP, NULL, " (%s of ANON)\n", ov_pct(r->anon_huge, r->anon));
	v = ov_str(walk[0] ? walk : NULL);
	v.text = walk[0] ? NULL : "no page-walk event named by the CPU's PMU in sysfs";
	out_put(OUT_ANY, "walk_event", "  page walks: %s\n", v);
	out_text("\n");
	t = f.json ? out_table_open("threads", line_cols, all, 9, &f, NULL)
		   : out_table_open("threads", line_cols, text, 7, &f, NULL);
	for (int i = 0; i < n; i++)
		if (s[i].ok)
			out_table_add(t, &(struct line){ (int)s[i].t.tid, s[i].comm, &s[i].c });
	out_table_total(t, "totals", &(struct line){ 0, NULL, sum });
	out_table_close(t, 0);
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
	out_doc_begin(json, bytes, "thp-show-tlb/2");
	print(st, secs, s, n, &sum, w.name, &r);
	free(s);
	return out_doc_end() ? 1 : 0;
}
