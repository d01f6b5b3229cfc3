/* SPDX-License-Identifier: GPL-2.0-or-later */
/* top.c - top-N processes by AnonHugePages, with a bounded min-heap */
#include "top.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct scan {
	const struct thp_root *root;
	struct thp_top *top;
	int max; /* entries kept in the heap; -1: keep all, in a growing array */
	int cap; /* size of the growing array */
};

/* True when A ranks below B: less AnonHugePages, or as much and a higher pid
 * (for entries of command names: a later name). */
static bool below(const struct thp_top_entry *a, const struct thp_top_entry *b)
{
	if (a->anon_huge != b->anon_huge)
		return a->anon_huge < b->anon_huge;
	return a->pid != b->pid ? a->pid > b->pid : strcmp(a->comm, b->comm) > 0;
}

static void swap(struct thp_top_entry *a, struct thp_top_entry *b)
{
	struct thp_top_entry t = *a;
	*a = *b;
	*b = t;
}

/* Restores the heap property below index I (the lowest-ranked entry at the root). */
static void sift_down(struct thp_top_entry *v, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && below(&v[l], &v[m]))
			m = l;
		if (r < n && below(&v[r], &v[m]))
			m = r;
		if (m == i)
			return;
		swap(&v[i], &v[m]);
		i = m;
	}
}

static void sift_up(struct thp_top_entry *v, int i)
{
	while (i > 0 && below(&v[i], &v[(i - 1) / 2])) {
		swap(&v[i], &v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

/* Appends E to the growing array of S. Returns 0, or 1 when out of memory. */
static int append(struct scan *s, const struct thp_top_entry *e)
{
	struct thp_top *t = s->top;

	if (t->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 64;
		void *v = realloc(t->v, (size_t)cap * sizeof(*t->v));
		if (!v)
			return 1;
		t->v = v;
		s->cap = cap;
	}
	t->v[t->n++] = *e;
	return 0;
}

/* Keeps process entry E in S's top: in the heap of the MAX ranked highest,
 * or appended when all are kept. Returns 0, or 1 when out of memory. */
static int keep(struct scan *s, const struct thp_top_entry *e)
{
	struct thp_top *t = s->top;

	t->with_huge++;
	if (s->max < 0)
		return append(s, e);
	if (!s->max)
		return 0;
	if (t->n < s->max) {
		t->v[t->n++] = *e;
		sift_up(t->v, t->n - 1);
	} else if (below(&t->v[0], e)) {
		t->v[0] = *e;
		sift_down(t->v, t->n, 0);
	}
	return 0;
}

static int visit(pid_t pid, void *ctx)
{
	struct scan *s = ctx;
	struct thp_top *t = s->top;
	struct thp_rollup r = { 0 };
	struct thp_top_entry e = { .pid = pid, .nprocs = 1 };
	int err = thp_rollup_read(s->root, pid, &r);

	if (thp_proc_denied(err))
		t->unreadable++;
	if (err)
		return 0;
	t->readable++;
	if (!r.anon_huge)
		return 0;
	e.anon_huge = r.anon_huge;
	return keep(s, &e);
}

static int cmp_rank(const void *a, const void *b)
{
	return below(a, b) ? 1 : below(b, a) ? -1 : 0;
}

static int cmp_comm(const void *a, const void *b)
{
	return strcmp(((const struct thp_top_entry *)a)->comm, ((const struct thp_top_entry *)b)->comm);
}

/* Starts S on TOP, keeping MAX entries (-1: all). Returns 0 or -ENOMEM. */
static int start(struct scan *s, const struct thp_root *root, int max, struct thp_top *top)
{
	*s = (struct scan){ root, top, max < 0 ? -1 : max, 0 };
	memset(top, 0, sizeof(*top));
	if (max > 0 && !(top->v = calloc((size_t)max, sizeof(*top->v))))
		return -ENOMEM;
	return 0;
}

/* Ranks the entries S kept; reading their command names from /proc/PID/comm
 * when S has a root (those that exited since are left out). */
static int finish(struct scan *s)
{
	struct thp_top *top = s->top;
	int kept = 0;

	if (s->max < 0 && top->n < top->with_huge) {
		thp_top_free(top);
		return -ENOMEM; /* the growing array could not grow */
	}
	if (top->n)
		qsort(top->v, (size_t)top->n, sizeof(*top->v), cmp_rank);
	for (int i = 0; s->root && i < top->n; i++) {
		if (thp_comm_read(s->root, top->v[i].pid, top->v[i].comm, sizeof(top->v[i].comm)))
			continue; /* exited since its rollup was read */
		top->v[kept++] = top->v[i];
	}
	if (s->root)
		top->n = kept;
	top->scanned = true;
	return 0;
}

/* Sums the ranked entries of TOP per command name and keeps the MAX names
 * with the most. */
static void group(struct thp_top *top, int max)
{
	int n = 0;

	if (!top->n)
		return;
	qsort(top->v, (size_t)top->n, sizeof(*top->v), cmp_comm);
	for (int i = 0; i < top->n; i++) {
		if (n && strcmp(top->v[n - 1].comm, top->v[i].comm) == 0) {
			top->v[n - 1].anon_huge += top->v[i].anon_huge;
			top->v[n - 1].nprocs++;
			continue;
		}
		top->v[n] = top->v[i];
		top->v[n++].pid = 0;
	}
	qsort(top->v, (size_t)n, sizeof(*top->v), cmp_rank);
	top->n = n < max ? n : max;
}

/* Scans every process into TOP, keeping MAX entries (-1: all), ranked, with
 * their command names. Returns 0, -ENOMEM, or -errno of listing /proc. */
static int scan_ranked(const struct thp_root *root, int max, struct thp_top *top)
{
	struct scan s;
	int err = start(&s, root, max, top);

	if (!err)
		err = thp_proc_each(root, visit, &s);
	if (err) {
		thp_top_free(top);
		return err;
	}
	return finish(&s);
}

int thp_top_anon_huge(const struct thp_root *root, int max, struct thp_top *top)
{
	return scan_ranked(root, max > 0 ? max : 0, top);
}

int thp_top_by_comm(const struct thp_root *root, int max, struct thp_top *top)
{
	int err = scan_ranked(root, max > 0 ? -1 : 0, top);

	if (!err)
		group(top, max);
	return err;
}

int thp_top_rank(const struct thp_top_entry *v, int n, int max, bool by_comm, struct thp_top *top)
{
	struct scan s;
	int err = start(&s, NULL, max <= 0 ? 0 : by_comm ? -1 : max, top);

	for (int i = 0; !err && i < n; i++)
		err = keep(&s, &v[i]) ? -ENOMEM : 0;
	if (err) {
		thp_top_free(top);
		return err;
	}
	err = finish(&s);
	if (!err && by_comm)
		group(top, max);
	return err;
}

void thp_top_free(struct thp_top *top)
{
	free(top->v);
	top->v = NULL;
	top->n = 0;
}
