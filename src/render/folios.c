/* SPDX-License-Identifier: GPL-2.0-or-later */
/* folios.c - folio mapping counters under the names of the kernel's tools/mm/thpmaps */
#include "render.h"

#include <stdio.h>
#include <string.h>

#include "msg.h"

const struct out_col out_folio_cols[OUT_FOLIO_COLS] = {
	{ "PMD", OUT_SIZE, 0, "THP mapped by a PMD (--folios)", NULL, 0 },
	{ "MTHP", OUT_SIZE, 0, "PTE-mapped large folios, mTHP or split THP (--folios)", NULL, 1 },
	{ "PTE_ALIGNED", OUT_SIZE, 0, "whole large folios mapped by PTEs, aligned (--folios)", NULL, 2 },
	{ "PTE_UNALIGNED", OUT_SIZE, 0, "whole large folios mapped by PTEs, unaligned (--folios)", NULL, 3 },
	{ "PTE_PARTIAL", OUT_SIZE, 0, "large folios mapped in part (--folios)", NULL, 4 },
	{ "FOLIOS", OUT_FOLIOS, 0, "every counter of tools/mm/thpmaps (--folios)", NULL, 5 },
};

void out_folio_cols_help(void)
{
	out_cols_help(NULL, out_folio_cols, OUT_FOLIO_COLS);
}

void out_cols_folios(struct out_col *all, const struct out_col *cols, int n, out_get_fn get)
{
	memcpy(all, cols, sizeof(*cols) * (size_t)n);
	memcpy(all + n, out_folio_cols, sizeof(out_folio_cols));
	for (int i = 0; i < OUT_FOLIO_COLS; i++)
		all[n + i].get = get;
}

bool out_cols_folios_refused(const struct out_col *all, int n, const int *sel, int nsel,
			     bool folios)
{
	for (int i = 0; !folios && i < nsel; i++)
		if (sel[i] >= n) {
			thp_err("column '%s' needs --folios", all[sel[i]].name);
			return true;
		}
	return false;
}

struct out_val out_folio_col(const struct thp_folio_stats *s, int i)
{
	uint64_t v;

	if (!s || i == OUT_FOLIO_SUMMARY)
		return ov_folios(s);
	switch (i) {
	case 0: v = thp_folio_pmd(s); break;
	case 1: v = thp_folio_mthp(s); break;
	case 2: v = thp_folio_pte_aligned(s); break;
	case 3: v = thp_folio_pte_unaligned(s); break;
	default: v = thp_folio_partial(s); break;
	}
	return ov_size(v);
}

void out_folio_counters(const struct thp_folio_stats *s, out_counter_fn fn, void *ctx)
{
	static const char *const kinds[2] = { "anon", "file" };
	char name[64];

	for (int k = 0; k < 2; k++) {
		uint64_t kb = (1ull << (s->page_shift + s->pmd_order)) >> 10;
		snprintf(name, sizeof(name), "%s-thp-pmd-aligned-%llukB", kinds[k], (unsigned long long)kb);
		fn(name, s->pmd[k], ctx);
		for (int a = 0; a < 2; a++)
			for (int o = 1; o <= s->pmd_order; o++) {
				kb = (1ull << (s->page_shift + o)) >> 10;
				snprintf(name, sizeof(name), "%s-thp-pte-%s-%llukB", kinds[k],
					 a ? "unaligned" : "aligned", (unsigned long long)kb);
				fn(name, a ? s->unaligned[k][o] : s->aligned[k][o], ctx);
			}
		snprintf(name, sizeof(name), "%s-thp-pte-partial", kinds[k]);
		fn(name, s->partial[k], ctx);
	}
	for (int o = 1; o < THP_FOLIO_ORDERS; o++) {
		unsigned long long kb = (1ull << (s->page_shift + o)) >> 10;
		if (!(s->cont_orders & (1u << o)))
			continue;
		for (int pte = 0; pte < 2; pte++)
			for (int k = 0; k < 2; k++) {
				snprintf(name, sizeof(name), "%s-cont-%s-aligned-%llukB", kinds[k], pte ? "pte" : "pmd", kb);
				fn(name, pte ? s->cont[k][o] : s->pmd[k], ctx);
			}
	}
}

static void json_counter(const char *name, uint64_t bytes, void *ctx)
{
	json_object_object_add(ctx, name, out_json_u64(bytes));
}

struct json_object *out_folio_json(const struct thp_folio_stats *s)
{
	struct json_object *o = json_object_new_object();
	out_folio_counters(s, json_counter, o);
	return o;
}

void out_folio_nodes(const struct thp_folio_stats *s, const struct thp_pfn_nodes *t, out_node_fn fn, void *ctx)
{
	for (int i = 0; i < THP_NUMA_MAX; i++)
		if (t->nodes & (1ull << i))
			fn(i, s->node_pmd[i], s->node_mthp[i], ctx);
	if (s->node_pmd[THP_NUMA_MAX] || s->node_mthp[THP_NUMA_MAX])
		fn(-1, s->node_pmd[THP_NUMA_MAX], s->node_mthp[THP_NUMA_MAX], ctx);
}

static void json_node(int node, uint64_t pmd, uint64_t mthp, void *ctx)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "node", node < 0 ? NULL : json_object_new_int(node));
	json_object_object_add(o, "pmd", out_json_u64(pmd));
	json_object_object_add(o, "mthp", out_json_u64(mthp));
	json_object_array_add(ctx, o);
}

struct json_object *out_folio_nodes_json(const struct thp_folio_stats *s, const struct thp_pfn_nodes *t)
{
	struct json_object *a = json_object_new_array();
	out_folio_nodes(s, t, json_node, a);
	return a;
}
