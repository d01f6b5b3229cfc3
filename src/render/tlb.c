/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlb.c - `thp show PID --tlb SECONDS` as text and as its JSON document: the
 * dTLB misses of a process's threads and their sums */
#include <stdio.h>

#include "render.h"
#include "tlb.h"

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

void thp_tlb_print(const struct thp_pstatus *st, double secs, const struct thp_tlb_proc *p,
		   const struct thp_rollup *r)
{
	static const int text[] = { 0, 1, 2, 4, 5, 7, 8 }, all[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct out_fmt f = { .json = out_json_on(), .bytes = out_bytes_on(), .fixed = true };
	struct out_val v = ov_num(secs, 3);
	const char *walk = p->walk.name;
	char b[32];
	struct out_table *t;

	out_put(OUT_ANY, "pid", "Process %s", ov_int(st->pid));
	out_put(OUT_ANY, "command", " (%s)", ov_str(st->name));
	out_text(": dTLB misses of %d thread%s over ", p->n, p->n == 1 ? "" : "s");
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
	for (int i = 0; i < p->n; i++)
		if (p->s[i].ok)
			out_table_add(t, &(struct line){ (int)p->s[i].t.tid, p->s[i].comm, &p->s[i].c });
	out_table_total(t, "totals", &(struct line){ 0, NULL, &p->sum });
	out_table_close(t, 0);
}
