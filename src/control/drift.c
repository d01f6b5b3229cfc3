/* SPDX-License-Identifier: GPL-2.0-or-later */
/* drift.c - what is persisted against what runs */
#include "drift.h"

#include <stdio.h>
#include <string.h>

int thp_knobs_sizes(const struct thp_knobs *ks, uint64_t *sizes, int max)
{
	int n = 0;

	for (int i = 0; i < ks->n; i++) {
		uint64_t s = ks->k[i].k.size;
		if (ks->k[i].k.group == THP_KEY_SIZE && n < max && (n == 0 || sizes[n - 1] != s))
			sizes[n++] = s;
	}
	return n;
}

/* Adds a drift entry for persisted value I of P against knob KN (NULL: absent)
 * when they disagree or the kernel would refuse it. Returns 1 when added. */
static int compare(const struct thp_knobs *ks, const struct thp_knob *kn,
		   const struct thp_persisted *p, int i, struct thp_drift *x)
{
	const struct thp_kv *kv = &p->values.v[i];
	char canon[THP_VALUE_MAX] = "";

	memset(x, 0, sizeof(*x));
	if (!kn)
		snprintf(x->refused, sizeof(x->refused), "this kernel has no '%s'", kv->key);
	else if (thp_knob_check(ks, kn, kv->value, false, canon, x->refused, sizeof(x->refused)) == 0)
		x->refused[0] = '\0';
	if (!x->refused[0] && kn && strcmp(canon, kn->old) == 0)
		return 0;
	snprintf(x->key, sizeof(x->key), "%s", kv->key);
	snprintf(x->persisted, sizeof(x->persisted), "%s", kv->value);
	if (kn)
		snprintf(x->running, sizeof(x->running), "%s", kn->old);
	x->source = p->sources[p->source_of[i]];
	x->line = kv->line;
	return 1;
}

int thp_drift_check(const struct thp_knobs *ks, const struct thp_persisted *p, struct thp_drift *d,
		    int max)
{
	int n = 0;

	/* in write order, then the settings this kernel lacks */
	for (int k = 0; k < ks->n && n < max; k++) {
		const struct thp_kv *kv = thp_kv_get(&p->values, ks->k[k].key);
		if (kv)
			n += compare(ks, &ks->k[k], p, (int)(kv - p->values.v), &d[n]);
	}
	for (int i = 0; i < p->values.n && n < max; i++)
		if (!thp_knob_find((struct thp_knobs *)ks, p->values.v[i].key))
			n += compare(ks, NULL, p, i, &d[n]);
	return n;
}
