/* SPDX-License-Identifier: GPL-2.0-or-later */
/* drift.c - what is persisted against what runs */
#include "drift.h"

#include <stdio.h>
#include <string.h>

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
	return 1;
}

int thp_drift_check(const struct thp_changes *cs, const struct thp_persisted *p, struct thp_drift *d,
		    int max)
{
	int n = 0;

	/* in write order, then the settings this kernel lacks */
	for (int k = 0; k < cs->n && n < max; k++) {
		const struct thp_kv *kv = thp_kv_get(&p->values, cs->v[k].key);
		if (kv)
			n += compare(cs, &cs->v[k], p, (int)(kv - p->values.v), &d[n]);
	}
	for (int i = 0; i < p->values.n && n < max; i++)
		if (!thp_change_find(cs, p->values.v[i].key))
			n += compare(cs, NULL, p, i, &d[n]);
	return n;
}
