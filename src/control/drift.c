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

int thp_drift_check(const struct thp_knobs *ks, const struct thp_persisted *p, struct thp_drift *d,
		    int max)
{
	int n = 0;

	for (int i = 0; i < p->values.n && n < max; i++) {
		const struct thp_kv *kv = &p->values.v[i];
		const struct thp_knob *kn = thp_knob_find((struct thp_knobs *)ks, kv->key);
		struct thp_drift *x = &d[n];
		char canon[THP_VALUE_MAX] = "";

		memset(x, 0, sizeof(*x));
		if (!kn)
			snprintf(x->refused, sizeof(x->refused), "this kernel has no '%s'", kv->key);
		else if (thp_knob_check(ks, kn, kv->value, canon, x->refused, sizeof(x->refused)) == 0)
			x->refused[0] = '\0';
		if (!x->refused[0] && kn && strcmp(canon, kn->old) == 0)
			continue;
		snprintf(x->key, sizeof(x->key), "%s", kv->key);
		snprintf(x->persisted, sizeof(x->persisted), "%s", kv->value);
		if (kn)
			snprintf(x->running, sizeof(x->running), "%s", kn->old);
		x->source = p->sources[p->source_of[i]];
		x->line = kv->line;
		n++;
	}
	return n;
}
