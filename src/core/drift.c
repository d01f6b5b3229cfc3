/* SPDX-License-Identifier: GPL-2.0-or-later */
/* drift.c - what is persisted against what runs */
#include "drift.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "pools.h"

/* Adds a drift entry for persisted value I of P against setting C (NULL: absent)
 * when they disagree or the kernel would refuse it. Returns 1 when added. */
static int compare(const struct thp_changes *cs, const struct thp_change *c,
		   const struct thp_persisted *p, int i, struct thp_drift *x)
{
	const struct thp_kv *kv = &p->values.v[i];
	char canon[THP_VALUE_MAX] = "";

	memset(x, 0, sizeof(*x));
	if (!c)
		snprintf(x->refused, sizeof(x->refused), "this kernel has no '%s'", kv->key);
	else if (thp_change_check(cs, c, kv->value, false, canon, x->refused, sizeof(x->refused)) == 0)
		x->refused[0] = '\0';
	if (!x->refused[0] && c && strcmp(canon, c->old) == 0)
		return 0;
	snprintf(x->key, sizeof(x->key), "%s", kv->key);
	snprintf(x->persisted, sizeof(x->persisted), "%s", kv->value);
	if (c)
		snprintf(x->running, sizeof(x->running), "%s", c->old);
	x->source = p->sources[p->source_of[i]];
	x->line = kv->line;
	x->tuned = thp_persisted_by_tuned(p, p->source_of[i]);
	return 1;
}

/* Why boot cannot size the pool of SIZE on NODE of H (0: the default size,
 * unknown) into WHY; the pool, or NULL. */
static const struct thp_hpool *pool_of(const struct thp_hugetlb *h, uint64_t size, int node, char *why,
				       size_t cap)
{
	int i = size ? thp_hugetlb_find(h, size) : -1, nd = node < 0 ? -1 : thp_hugetlb_node(h, node);
	char sz[24];

	if (!h->npools)
		snprintf(why, cap, "this kernel has no static huge pages");
	else if (i < 0)
		snprintf(why, cap, "this kernel has no pool of %s pages",
			 size ? thp_size_name(size, sz, sizeof(sz)) : "its default size");
	else if (node >= 0 && nd < 0)
		snprintf(why, cap, "this host has no NUMA node %d", node);
	else if (node >= 0 && !h->nodes[nd].pools[i].size)
		snprintf(why, cap, "node %d has no pool of %s pages", node, thp_size_name(size, sz, sizeof(sz)));
	else
		return nd < 0 ? &h->pools[i] : &h->nodes[nd].pools[i];
	return NULL;
}

/* Adds a drift entry for persisted pool I of P against its pool in H when
 * their sizes differ or boot cannot size it. Returns 1 when added. */
static int compare_pool(const struct thp_hugetlb *h, const struct thp_persisted *p, int i,
			struct thp_drift *x)
{
	const struct thp_kv *kv = &p->values.v[i];
	const struct thp_hpool *pool;
	uint64_t size, pages = 0, running = 0;
	int node;

	memset(x, 0, sizeof(*x));
	thp_pool_key_parse(kv->key, &size, &node);
	pool = pool_of(h, size, node, x->refused, sizeof(x->refused));
	if (pool && thp_parse_u64(kv->value, &pages) != 0)
		snprintf(x->refused, sizeof(x->refused), "a pool's size is a number of pages");
	if (pool && !pool->err) {
		running = pool->total >= pool->surplus ? pool->total - pool->surplus : 0;
		snprintf(x->running, sizeof(x->running), "%" PRIu64, running);
	}
	if (!x->refused[0] && x->running[0] && running == pages)
		return 0;
	snprintf(x->key, sizeof(x->key), "%s", kv->key);
	snprintf(x->persisted, sizeof(x->persisted), "%s", kv->value);
	x->source = p->sources[p->source_of[i]];
	x->line = kv->line;
	x->tuned = thp_persisted_by_tuned(p, p->source_of[i]);
	return 1;
}

int thp_drift_check(const struct thp_changes *cs, const struct thp_hugetlb *h,
		    const struct thp_persisted *p, struct thp_drift *d, int max)
{
	int n = 0;

	/* in write order, then the settings this kernel lacks */
	for (int k = 0; k < cs->n && n < max; k++) {
		const struct thp_kv *kv = thp_kv_get(&p->values, cs->v[k].key);
		if (kv)
			n += compare(cs, &cs->v[k], p, (int)(kv - p->values.v), &d[n]);
	}
	for (int i = 0; i < p->values.n && n < max; i++)
		if (thp_is_pool_key(p->values.v[i].key))
			n += compare_pool(h, p, i, &d[n]);
		else if (!thp_change_find(cs, p->values.v[i].key))
			n += compare(cs, NULL, p, i, &d[n]);
	return n;
}
