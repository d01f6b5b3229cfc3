/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.c - what 'thp metrics' and 'thp serve' export of a host: the
 * status, the pools, buddyinfo, the processes or command names holding the
 * most THP, and (unless left out) the doctor's findings and drift */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "parse.h"

/* The top entries of O into T from the processes H read (with the doctor),
 * or, without H, from a scan of their smaps_rollup; none when the host holds
 * no PMD-mapped anonymous THP at all (then no process can rank). Returns 0,
 * -ENOMEM, or -errno of listing /proc. */
static int read_top(const struct thp_root *root, const struct thp_status *st, const struct thp_host *h,
		    const struct thp_metrics_opts *o, struct thp_top *t)
{
	struct thp_top_entry *v;
	uint64_t huge;
	int n = 0, err;

	if (!st->meminfo_err && thp_counter_get(st->meminfo, st->nmeminfo, "AnonHugePages", &huge) &&
	    huge == 0)
		return 0;
	if (!h)
		return o->pids ? thp_top_anon_huge(root, o->top, t) : thp_top_by_comm(root, o->top, t);
	if (h->rollups.err)
		return h->rollups.err;
	v = calloc((size_t)h->rollups.with_huge + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < h->nprocs && n < h->rollups.with_huge; i++) {
		const struct thp_host_proc *p = &h->procs[i];
		if (!p->has_rollup || !p->r.anon_huge)
			continue;
		v[n] = (struct thp_top_entry){ .pid = p->ps.pid, .nprocs = 1, .anon_huge = p->r.anon_huge };
		memcpy(v[n].comm, p->comm, sizeof(v[n].comm));
		n++;
	}
	err = thp_top_rank(v, n, o->top, !o->pids, t);
	free(v);
	t->readable = h->rollups.readable;
	t->unreadable = h->rollups.unreadable.n;
	return err;
}

int thp_metrics_read(const struct thp_root *root, const struct thp_metrics_opts *o, struct thp_metrics *m)
{
	int err = 0;

	memset(m, 0, sizeof(*m));
	m->pids = o->pids;
	if (o->doctor) {
		err = thp_diagnose(root, 0, NULL, NULL, &m->d);
		m->st = m->d.st;
		m->buddy = m->d.h.buddy_err ? NULL : m->d.h.buddy;
		m->hugetlb = m->d.h.hugetlb;
		m->findings = m->d.r;
		m->persist = &m->d.h.persist;
		m->procs_err = m->d.h.rollups.err;
	} else if ((m->own_st = malloc(sizeof(*m->own_st))) && (m->own_buddy = malloc(sizeof(*m->own_buddy))) &&
		   (m->own_hugetlb = malloc(sizeof(*m->own_hugetlb)))) {
		thp_status_read(root, m->own_st, false);
		m->st = m->own_st;
		m->buddy = thp_buddyinfo_read(root, m->own_buddy) ? NULL : m->own_buddy;
		thp_hugetlb_read(root, m->own_hugetlb);
		m->hugetlb = m->own_hugetlb;
	} else {
		err = -ENOMEM;
	}
	if (!err && o->top > 0) {
		err = read_top(root, m->st, o->doctor ? &m->d.h : NULL, o, &m->own_top);
		m->top = err ? NULL : &m->own_top;
		if (err && err != -ENOMEM)
			m->procs_err = err;
	}
	return err == -ENOMEM ? err : 0;
}

void thp_metrics_free(struct thp_metrics *m)
{
	thp_top_free(&m->own_top);
	thp_diagnosis_free(&m->d);
	free(m->own_st);
	free(m->own_buddy);
	free(m->own_hugetlb);
	memset(m, 0, sizeof(*m));
}
