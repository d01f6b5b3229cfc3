/* SPDX-License-Identifier: GPL-2.0-or-later */
/* collapse.c - select the PMD-aligned spans of a process to collapse */
#include "collapse.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"

int thp_parse_range(const char *buf, uint64_t *start, uint64_t *end)
{
	const char *p = buf;

	if (thp_parse_hex(&p, start) || *p++ != '-' || thp_parse_hex(&p, end) || *p || *end <= *start)
		return -EINVAL;
	return 0;
}

bool thp_vma_anon(const struct thp_vma *v)
{
	if (v->inode || v->perms[3] != 'p')
		return false;
	return !v->name[0] || strcmp(v->name, "[heap]") == 0 || strcmp(v->name, "[stack]") == 0 ||
	       strncmp(v->name, "[anon:", 6) == 0;
}

/* True when selector NAME names V: its whole name, or its file's base name. */
static bool name_matches(const struct thp_vma *v, const char *name)
{
	const char *base = strrchr(v->name, '/');

	return strcmp(v->name, name) == 0 || (base && !strchr(name, '/') && strcmp(base + 1, name) == 0);
}

/* Adds [S, E) of V, cut to whole PMD blocks, to OUT; returns the new count. */
static int add_span(const struct thp_vma *v, uint64_t s, uint64_t e, uint64_t pmd,
		    struct thp_ctarget *out, int n, int max)
{
	s = s < v->start ? v->start : s;
	e = e > v->end ? v->end : e;
	s = (s + pmd - 1) / pmd * pmd;
	e = e / pmd * pmd;
	if (s >= e || n >= max)
		return n;
	struct thp_ctarget *t = &out[n];
	memset(t, 0, sizeof(*t));
	t->start = s;
	t->end = e;
	return n + 1;
}

static int by_start(const void *a, const void *b)
{
	const struct thp_ctarget *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

int thp_collapse_parts(const struct thp_vma *v, const struct thp_csel *sel, uint64_t pmd,
		       struct thp_ctarget *out, int max, bool *small, bool *hit)
{
	bool selected = false;
	int n = 0, m = 0;

	*small = false;
	if (!pmd)
		return 0;
	if (!sel->nranges && !sel->nnames) {
		if (thp_vma_anon(v) && v->m.rss && !thp_vma_flag(v, "nh")) {
			selected = true;
			n = add_span(v, v->start, v->end, pmd, out, n, max);
		}
	}
	for (int i = 0; i < sel->nranges; i++) {
		if (sel->ranges[i].start >= v->end || sel->ranges[i].end <= v->start)
			continue;
		selected = true;
		if (hit)
			hit[i] = true;
		n = add_span(v, sel->ranges[i].start, sel->ranges[i].end, pmd, out, n, max);
	}
	for (int i = 0; i < sel->nnames; i++) {
		if (!name_matches(v, sel->names[i]))
			continue;
		selected = true;
		if (hit)
			hit[sel->nranges + i] = true;
		n = add_span(v, v->start, v->end, pmd, out, n, max);
	}
	qsort(out, (size_t)n, sizeof(out[0]), by_start);
	for (int i = 0; i < n; i++) {
		if (m && out[i].start <= out[m - 1].end) {
			if (out[i].end > out[m - 1].end)
				out[m - 1].end = out[i].end;
			continue;
		}
		out[m++] = out[i];
	}
	for (int i = 0; i < m; i++) {
		out[i].vma_start = v->start;
		out[i].vma_end = v->end;
		memcpy(out[i].name, v->name, sizeof(out[i].name));
		out[i].nohuge = thp_vma_flag(v, "nh");
		out[i].before = v->m;
	}
	*small = selected && !m;
	return m;
}

struct targets {
	const struct thp_csel *sel;
	uint64_t pmd;
	struct thp_ctarget *v;
	int n, cap, err;
	struct thp_cskipped *skipped;
	bool hit[2 * THP_SEL_MAX];
};

static int add_targets(const struct thp_vma *v, void *ctx)
{
	struct targets *t = ctx;
	struct thp_ctarget parts[2 * THP_SEL_MAX + 1];
	bool small;
	int n = thp_collapse_parts(v, t->sel, t->pmd, parts, 2 * THP_SEL_MAX + 1, &small, t->hit);

	if (small && (t->sel->nranges || t->sel->nnames))
		t->skipped->small++;
	if (!t->sel->nranges && !t->sel->nnames && thp_vma_anon(v) && v->m.rss &&
	    thp_vma_flag(v, "nh"))
		t->skipped->nohuge++;
	if (!n)
		return 0;
	if (t->n + n > t->cap) {
		int cap = t->cap ? t->cap * 2 : 32;
		while (cap < t->n + n)
			cap *= 2;
		struct thp_ctarget *nv = realloc(t->v, (size_t)cap * sizeof(*nv));
		if (!nv) {
			t->err = -ENOMEM;
			return 1;
		}
		t->v = nv;
		t->cap = cap;
	}
	memcpy(t->v + t->n, parts, (size_t)n * sizeof(parts[0]));
	t->n += n;
	return 0;
}

int thp_collapse_targets(const struct thp_root *root, pid_t pid, const struct thp_csel *sel,
			 uint64_t pmd, struct thp_ctarget **v, int *n, struct thp_cskipped *skipped)
{
	struct targets t = { .sel = sel, .pmd = pmd, .skipped = skipped };
	int err;

	memset(skipped, 0, sizeof(*skipped));
	err = thp_smaps_read(root, pid, add_targets, &t);
	if (err > 0)
		err = t.err;
	if (err) {
		free(t.v);
		*v = NULL;
		*n = 0;
		return err;
	}
	for (int i = 0; i < sel->nranges + sel->nnames; i++)
		if (!t.hit[i])
			skipped->unselected++;
	*v = t.v;
	*n = t.n;
	return 0;
}

struct measure {
	struct thp_ctarget *v;
	int n;
};

static int measure_vma(const struct thp_vma *vma, void *ctx)
{
	struct measure *m = ctx;

	for (int i = 0; i < m->n; i++)
		if (m->v[i].start >= vma->start && m->v[i].start < vma->end)
			m->v[i].after = vma->m;
	return 0;
}

int thp_collapse_measure(const struct thp_root *root, pid_t pid, struct thp_ctarget *v, int n)
{
	struct measure m = { v, n };

	for (int i = 0; i < n; i++)
		memset(&v[i].after, 0, sizeof(v[i].after));
	return thp_smaps_read(root, pid, measure_vma, &m);
}

void thp_pagemap_blocks(const uint64_t *entries, uint64_t n, uint64_t per_block, bool *pop)
{
	for (uint64_t i = 0; i < n; i++)
		if (entries[i] & (3ull << 62))
			pop[i / per_block] = true;
}

/* Adds a run to *RUNS; returns 0 or -ENOMEM. */
static int add_run(struct thp_crun **runs, int *n, int *cap, uint64_t s, uint64_t e, int target)
{
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 32;
		struct thp_crun *nv = realloc(*runs, (size_t)nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*runs = nv;
		*cap = nc;
	}
	(*runs)[(*n)++] = (struct thp_crun){ s, e, target };
	return 0;
}

/* Reads the pagemap entries of one PMD block at ADDR into BUF. Returns 0 or -errno. */
static int read_block(int fd, uint64_t addr, uint64_t page_size, uint64_t *buf, uint64_t per_block)
{
	size_t want = (size_t)per_block * sizeof(uint64_t), got = 0;
	off_t off = (off_t)(addr / page_size * sizeof(uint64_t));

	while (got < want) {
		ssize_t r = pread(fd, (char *)buf + got, want - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		got += (size_t)r;
	}
	return 0;
}

int thp_collapse_runs(const struct thp_root *root, pid_t pid, uint64_t page_size, uint64_t pmd,
		      struct thp_ctarget *t, int n, struct thp_crun **runs, int *nruns)
{
	uint64_t per_block = page_size ? pmd / page_size : 0, *buf;
	char path[64];
	int fd, cap = 0, err = 0;

	*runs = NULL;
	*nruns = 0;
	if (!per_block || per_block > 1u << 20)
		return -EINVAL;
	snprintf(path, sizeof(path), "proc/%d/pagemap", (int)pid);
	fd = thp_open(root, path);
	if (fd < 0)
		return fd;
	buf = malloc((size_t)per_block * sizeof(uint64_t));
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (int i = 0; !err && i < n; i++) {
		uint64_t run = 0; /* start of the open run, 0 when none */
		t[i].blocks = (t[i].end - t[i].start) / pmd;
		t[i].populated = 0;
		for (uint64_t a = t[i].start; !err && a < t[i].end; a += pmd) {
			bool pop = false;
			err = read_block(fd, a, page_size, buf, per_block);
			if (err)
				break;
			thp_pagemap_blocks(buf, per_block, per_block, &pop);
			if (pop) {
				t[i].populated++;
				if (!run)
					run = a;
			} else if (run) {
				err = add_run(runs, nruns, &cap, run, a, i);
				run = 0;
			}
		}
		if (!err && run)
			err = add_run(runs, nruns, &cap, run, t[i].end, i);
	}
	free(buf);
	close(fd);
	if (err) {
		free(*runs);
		*runs = NULL;
		*nruns = 0;
	}
	return err;
}
