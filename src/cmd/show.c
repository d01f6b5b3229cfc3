/* SPDX-License-Identifier: GPL-2.0-or-later */
/* show.c - `thp show PID`: one process, each mapping, and why it has huge pages or not */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/numa.h"
#include "../core/folios.h"
#include "../core/mounts.h"
#include "../core/parse.h"
#include "../core/proc.h"
#include "../core/ptables.h"
#include "../core/status.h"
#include "../core/users.h"
#include "../core/why.h"
#include "../render/render.h"
#include "cmd.h"

#define CONT_MAX 8

/* The columns of the table of mappings: -o, the table, the keys of -J -o. The
 * folio columns (out_folio_cols, --folios) follow them as NCOLS.., and in
 * the default table come before WHY. */
enum { C_RANGE, C_SIZE, C_PERMS, C_MAPPING, C_RSS, C_ANON, C_THP, C_ELIGIBLE, C_ADVICE, C_ALIGNED, C_WHY, NCOLS };
static const struct out_col cols[] = {
	[C_RANGE] = { "START-END", OUT_TEXT, 0, "addresses, hexadecimal", NULL, 0 },
	[C_SIZE] = { "SIZE", OUT_SIZE, 0, "size of the mapping", NULL, 0 },
	[C_PERMS] = { "PERMS", OUT_TEXT, 0, "rwxp / rwxs", NULL, 0 },
	[C_MAPPING] = { "MAPPING", OUT_TEXT, OUT_TRUNC, "path, [heap], [stack], [anon], ...", NULL, 0 },
	[C_RSS] = { "RSS", OUT_SIZE, 0, "resident memory", NULL, 0 },
	[C_ANON] = { "ANON", OUT_SIZE, 0, "anonymous resident memory", NULL, 0 },
	[C_THP] = { "THP", OUT_SIZE, 0, "AnonHugePages + ShmemPmdMapped + FilePmdMapped", NULL, 0 },
	[C_ELIGIBLE] = { "ELIGIBLE", OUT_BOOL, 0, "the kernel's THPeligible", NULL, 0 },
	[C_ADVICE] = { "ADVICE", OUT_TEXT, 0, "hg (MADV_HUGEPAGE), nh (MADV_NOHUGEPAGE)", NULL, 0 },
	[C_ALIGNED] = { "ALIGNED", OUT_COUNT, 0, "whole PMD-aligned slots in the mapping", NULL, 0 },
	[C_WHY] = { "WHY", OUT_TEXT, OUT_WRAP, "why it has no huge pages, or what it may get", NULL, 0 },
};
_Static_assert(sizeof(cols) / sizeof(cols[0]) == NCOLS, "one descriptor per column");
#define NALL (NCOLS + OUT_FOLIO_COLS)
#define MAXCOLS (NALL * 2)
static const int default_cols[] = { C_RANGE, C_SIZE, C_PERMS, C_MAPPING, C_RSS, C_ANON, C_THP,
				    C_ELIGIBLE, C_ADVICE, C_ALIGNED, C_WHY };

struct opts {
	struct out_fmt fmt;
	int sel[MAXCOLS], nsel; /* the columns chosen (-o); 0: the default */
	bool all, folios, rollup;
	double tlb; /* seconds to count dTLB misses; 0: not asked */
	pid_t pid;
	int ncont;
	uint64_t cont[CONT_MAX]; /* --cont sizes in bytes */
};

struct vrow {
	struct thp_vma v;
	enum thp_why why;
	struct thp_folio_stats f;
	uint64_t pmd, zero; /* PMD-mapped bytes and huge zero page found with PAGEMAP_SCAN, when scan_ok */
};

struct show {
	const struct thp_root *root;
	struct opts *o;
	struct thp_why_ctx why;
	struct thp_ea_evidence ea;   /* PR_THP_DISABLE_EXCEPT_ADVISED evidence */
	struct thp_pstatus origin;   /* who set the THP mode; pid 0: nobody */
	struct thp_mounts mounts;
	struct thp_folio_reader *fr;
	int pagemap;
	bool scan_ok;     /* PAGEMAP_SCAN answered for every VMA */
	uint64_t pmd_total, zero_total;
	uint64_t pt_replaced; /* last-level page tables 2 MiB pages would replace */
	struct vrow *rows;
	size_t n, cap;
	struct thp_rollup total;
	struct thp_folio_stats ftotal;
	struct thp_numa *numa;       /* NULL when unread */
	bool maps_ok;                /* MAPS was read (more than one node) */
	struct thp_numa_maps maps;   /* its static huge pages per node */
};

static void usage(void)
{
	puts("Usage: thp [--root DIR] show PID [options]\n"
	     "\n"
	     "One process: its THP state (and which ancestor disabled THP), its totals, its\n"
	     "page tables (VmPTE, and an estimate with 2 MiB hugetlb pages: see PAGE TABLES\n"
	     "in thp(1)), and one row per mapping (VMA) with its huge pages, whether the\n"
	     "kernel deems it eligible, its madvise advice, how many aligned PMD-sized slots\n"
	     "it holds, and for a mapping without huge pages, the reason. Reads\n"
	     "/proc/PID/smaps.\n"
	     "\n"
	     "Options:\n"
	     "  -a, --all       also show mappings with nothing resident\n"
	     "      --folios    how every page is really mapped, from pagemap and kpageflags\n"
	     "                  (root): PMD-mapped, PTE-mapped by size, aligned or not, partial;\n"
	     "                  the huge zero page apart (reads only, no memory); with more than\n"
	     "                  one NUMA node, PMD and mTHP bytes per node (nodeN/memoryM)\n"
	     "      --rollup    with --folios, only the process's sums\n"
	     "      --cont SIZE with --folios, also memory in aligned contiguous blocks of SIZE\n"
	     "                  (64K: arm64 contpte), as tools/mm/thpmaps --cont; repeatable\n"
	     "      --tlb SECONDS  instead, count the dTLB misses of each thread for SECONDS\n"
	     "                  (perf_event_open, hardware counters): misses per thousand\n"
	     "                  instructions, page-walk cycles where the CPU names them\n"
	     "The table options (of the table of mappings):");
	out_fmt_help(cols, NCOLS);
	out_cols_help(NULL, out_folio_cols, OUT_FOLIO_COLS);
}

static uint64_t hugetlb_of(const struct thp_vma *v)
{
	return v->m.private_hugetlb + v->m.shared_hugetlb;
}

static int collect(const struct thp_vma *v, void *ctx)
{
	struct show *s = ctx;
	struct vrow *r;

	s->total.rss += v->m.rss;
	s->total.anon += v->m.anon;
	s->total.anon_huge += v->m.anon_huge;
	s->total.shmem_pmd += v->m.shmem_pmd;
	s->total.file_pmd += v->m.file_pmd;
	s->total.private_hugetlb += v->m.private_hugetlb;
	s->total.shared_hugetlb += v->m.shared_hugetlb;
	s->pt_replaced += thp_vma_pt_replaced(v);
	if (!s->o->all && !v->m.rss && !hugetlb_of(v))
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct vrow *nr = realloc(s->rows, cap * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		s->rows = nr;
		s->cap = cap;
	}
	r = &s->rows[s->n];
	memset(r, 0, sizeof(*r));
	r->v = *v;
	r->why = thp_vma_why(v, &s->why);
	if (s->fr) {
		int err = thp_folios_vma(s->fr, s->pagemap, v, &r->f);
		if (err)
			return err;
		thp_folio_stats_add(&s->ftotal, &r->f);
	}
	if (r->f.walked) {
		/* the page walk counted the PMD mappings: no second walk for them */
		r->pmd = thp_folio_pmd(&r->f);
		r->zero = r->f.huge_zero;
	} else if (s->scan_ok && v->m.rss) {
		struct thp_pmd_found f;
		if (thp_pmd_scan_vma(s->pagemap, v, &f) == 0) {
			r->pmd = f.pmd[THP_FOLIO_ANON] + f.pmd[THP_FOLIO_FILE];
			r->zero = f.zero;
		} else {
			s->scan_ok = false;
		}
	}
	s->pmd_total += r->pmd;
	s->zero_total += r->zero;
	s->n++;
	return 0;
}

static const char *mapping_name(const struct thp_vma *v)
{
	if (v->name[0])
		return v->name;
	return v->perms[3] == 's' ? "[shared anon]" : "[anon]";
}

static const char *advice(const struct thp_vma *v)
{
	bool hg = thp_vma_flag(v, "hg"), nh = thp_vma_flag(v, "nh");
	return hg && nh ? "hg,nh" : hg ? "hg" : nh ? "nh" : NULL;
}

/* WHY text of R; a process-wide THP disable names who set it, and an
 * inferred PR_THP_DISABLE_EXCEPT_ADVISED what it rests on. */
static const char *why_text(const struct show *s, const struct vrow *r, const char *state, char *buf,
			    size_t cap)
{
	if (r->why == THP_WHY_PROC_OFF) {
		snprintf(buf, cap, "process has THP %s", state);
		return buf;
	}
	if (r->why == THP_WHY_EXCEPT_ADVISED) {
		char by[THP_COMM_MAX + 32];
		if (!s->origin.pid || s->origin.pid == s->o->pid)
			snprintf(by, sizeof(by), "set by this process");
		else
			snprintf(by, sizeof(by), "inherited from %d %s", (int)s->origin.pid, s->origin.name);
		snprintf(buf, cap, "THP only where advised (PR_THP_DISABLE_EXCEPT_ADVISED, %s; inferred: %d "
			 "unadvised aligned mapping%s THPeligible 0 under 'always', none 1)", by, s->ea.support,
			 s->ea.support == 1 ? " shows" : "s show");
		return buf;
	}
	return thp_vma_why_text(&r->v, r->why, &s->why, buf, cap);
}

static void print_counter(const char *name, uint64_t bytes, void *ctx)
{
	struct out_table *t = ((void **)ctx)[0];
	const bool *exact = ((void **)ctx)[1];
	char b[32];

	if (!bytes)
		return;
	const char *row[] = { name, out_size(b, sizeof(b), bytes, *exact) };
	out_table_row(t, row);
}

/* Why T places no folio on a node, or NULL when it does. */
static const char *nodes_why(const struct thp_pfn_nodes *t, char *buf, size_t cap)
{
	if (!t->err)
		return NULL;
	if (t->err == -EINVAL)
		return "malformed /sys/devices/system/memory/block_size_bytes";
	if (t->err == -ENOENT)
		return "the kernel shows no memory blocks (/sys/devices/system/memory)";
	snprintf(buf, cap, "cannot read the memory blocks of /sys/devices/system: %s", strerror(-t->err));
	return buf;
}

static void text_node(int node, uint64_t pmd, uint64_t mthp, void *ctx)
{
	struct out_table *t = ((void **)ctx)[0];
	const bool *exact = ((void **)ctx)[1];
	char id[24], b[2][32];

	if (node < 0)
		snprintf(id, sizeof(id), "no known node");
	else
		snprintf(id, sizeof(id), "node %d", node);
	const char *row[] = { id, out_size(b[0], sizeof(b[0]), pmd, *exact), out_size(b[1], sizeof(b[1]), mthp, *exact) };
	out_table_row(t, row);
}

/* The folios by node (nodeN/memoryM) when there is more than one node, or
 * why they cannot be placed when the block size is malformed. */
static void print_folio_nodes(const struct show *s)
{
	static const char *const heads[] = { "BY NODE", "PMD", "MTHP" };
	const struct thp_pfn_nodes *nodes = thp_folio_reader_nodes(s->fr);
	char why[160];

	if (nodes->err == -EINVAL) {
		printf("  by node: unknown (%s)\n", nodes_why(nodes, why, sizeof(why)));
		return;
	}
	if (__builtin_popcountll(nodes->nodes) < 2)
		return;
	struct out_table *t = out_table_new(3, heads, false);
	void *ctx[] = { t, &s->o->fmt.bytes };

	putchar('\n');
	out_table_right(t, 1);
	out_table_right(t, 2);
	out_folio_nodes(&s->ftotal, nodes, text_node, ctx);
	out_table_print(t, 2);
}

static void print_rollup(const struct show *s)
{
	struct out_table *t = out_table_new(2, NULL, true);
	char b[32];
	void *ctx[] = { t, &s->o->fmt.bytes };

	printf("Folios (%s of mapping analysed%s)\n", out_size(b, sizeof(b), s->ftotal.walked, s->o->fmt.bytes),
	       s->ftotal.scan ? ", PMD mappings found with PAGEMAP_SCAN" : "");
	out_table_right(t, 1);
	out_folio_counters(&s->ftotal, print_counter, ctx);
	if (!thp_folio_pmd(&s->ftotal) && !thp_folio_mthp(&s->ftotal))
		puts("  no THP folio is mapped");
	out_table_print(t, 2);
	if (s->ftotal.huge_zero)
		printf("  huge zero page: %s mapped (reads only, no memory; not counted above)\n",
		       out_size(b, sizeof(b), s->ftotal.huge_zero, s->o->fmt.bytes));
	print_folio_nodes(s);
}

/* Bytes of the huge zero page mapped: from the page walk when it ran, else
 * from PAGEMAP_SCAN; -1 when neither could tell. */
static int64_t huge_zero(const struct show *s)
{
	if (s->fr)
		return (int64_t)s->ftotal.huge_zero;
	return s->scan_ok ? (int64_t)s->zero_total : -1;
}

/* "anon 64K always, 128K madvise; shmem 64K always" for the mTHP sizes
 * that are not 'never'. Returns false when there is none. */
static bool mthp_policy(const struct thp_why_ctx *c, char *buf, size_t cap)
{
	size_t len = 0;
	char sz[32];

	buf[0] = '\0';
	for (int kind = 0; kind < 2; kind++) {
		bool first = true;
		for (int i = 0; i < c->nsizes; i++) {
			const char *w = kind ? c->sizes[i].shmem : c->sizes[i].anon;
			if (!w || !strcmp(w, "never") || len + 1 >= cap)
				continue;
			len += (size_t)snprintf(buf + len, cap - len, "%s%s%s %s", first ? (len ? "; " : "") : ", ",
						first ? (kind ? "shmem " : "anon ") : "",
						out_size_spec(sz, sizeof(sz), c->sizes[i].bytes), w);
			first = false;
		}
	}
	if (len >= cap)
		buf[cap - 1] = '\0';
	return len > 0;
}

/* True when the page-table estimate applies: 4 KiB base pages and 2 MiB PMDs
 * (or no THP, whose PMD size would tell otherwise). */
static bool pt_estimable(const struct show *s)
{
	return s->why.pmd_size == 0 || s->why.pmd_size == THP_PT_SPAN;
}

/* The page-table line: VmPTE now, and the estimate with 2 MiB pages. */
static const char *pt_text(const struct show *s, const struct thp_pstatus *st, char *buf, size_t cap)
{
	char now[32], est[32];

	if (!st->has_pte)
		return "not shown by the kernel (no VmPTE)";
	out_size(now, sizeof(now), st->pte, s->o->fmt.bytes);
	if (!pt_estimable(s))
		snprintf(buf, cap, "%s (VmPTE); no estimate for a PMD size other than 2 MiB", now);
	else
		snprintf(buf, cap, "%s (VmPTE); with 2 MiB hugetlb pages about %s (estimate, see thp(1))",
			 now, out_size(est, sizeof(est), thp_pt_estimate(st->pte, s->pt_replaced), s->o->fmt.bytes));
	return buf;
}

/* "node0 1 GiB, node1 512 MiB": the static huge pages of the process per node. */
static const char *per_node(const struct thp_numa_maps *m, bool bytes, char *buf, size_t cap)
{
	size_t len = 0;
	char sz[32];

	buf[0] = '\0';
	for (int i = 0; i < THP_NUMA_MAX && len < cap; i++)
		if (m->hugetlb[i])
			len += (size_t)snprintf(buf + len, cap - len, "%snode%d %s", len ? ", " : "", i,
						out_size(sz, sizeof(sz), m->hugetlb[i], bytes));
	return buf;
}

/* Where the process runs and holds its static huge pages: allowed CPUs and
 * memory nodes, and with more than one node its hugetlb per node (numa_maps). */
static void add_numa_rows(const struct show *s, const struct thp_pstatus *st, struct out_table *t)
{
	char b[2][320], sz[32];
	uint64_t remote;

	if (st->cpus_allowed[0]) {
		const char *row[] = { "CPUs allowed", st->cpus_allowed };
		out_table_row(t, row);
	}
	if (st->mems_allowed[0]) {
		const char *row[] = { "memory nodes allowed", st->mems_allowed };
		out_table_row(t, row);
	}
	if (!s->numa || s->numa->n <= 1 || !s->maps_ok || !s->maps.total)
		return;
	remote = thp_numa_remote(s->numa, st->cpus_allowed, &s->maps);
	const char *row[] = { "HUGETLB per node", per_node(&s->maps, s->o->fmt.bytes, b[1], sizeof(b[1])) };
	out_table_row(t, row);
	if (remote * 2 > s->maps.total) {
		snprintf(b[0], sizeof(b[0]), "%s of HUGETLB is on nodes whose CPUs it may not run on",
			 out_size(sz, sizeof(sz), remote, s->o->fmt.bytes));
		const char *r2[] = { "remote huge pages", b[0] };
		out_table_row(t, r2);
	}
}

/* Adds mapping R of S to table T: a cell for every column (NF folio columns
 * after them); STATE is the process's THP_STATE. */
static void put_vma(const struct show *s, struct out_table *t, const struct vrow *r, const char *state, int nf)
{
	const struct thp_vma *v = &r->v;
	const char *adv = advice(v);
	char range[48], why[400];

	out_table_line(t);
	snprintf(range, sizeof(range), "%012" PRIx64 "-%012" PRIx64, v->start, v->end);
	out_cell_str(t, C_RANGE, range);
	out_cell_u64(t, C_SIZE, v->end - v->start);
	out_cell_str(t, C_PERMS, v->perms);
	out_cell_str(t, C_MAPPING, mapping_name(v));
	out_cell_u64(t, C_RSS, v->m.rss);
	out_cell_u64(t, C_ANON, v->m.anon);
	out_cell_u64(t, C_THP, v->m.anon_huge + v->m.shmem_pmd + v->m.file_pmd);
	if (v->eligible < 0)
		out_cell(t, C_ELIGIBLE, "-", NULL);
	else
		out_cell_u64(t, C_ELIGIBLE, (uint64_t)v->eligible);
	out_cell(t, C_ADVICE, adv ? adv : "", adv ? json_object_new_string(adv) : NULL);
	out_cell_u64(t, C_ALIGNED, thp_vma_pmd_slots(v, s->why.pmd_size));
	for (int k = 0; k < nf; k++)
		out_cell_u64(t, NCOLS + k, out_folio_col(&r->f, k).u);
	out_cell_str(t, C_WHY, why_text(s, r, state, why, sizeof(why)));
}

/* The mappings of S as a table of the chosen columns: printed, or with JSON
 * the array of its rows. */
static struct json_object *put_vmas(const struct show *s, const char *state)
{
	const struct opts *o = s->o;
	struct out_col all[NALL];
	int nf = o->folios ? OUT_FOLIO_SUMMARY : 0;
	struct out_table *t;

	out_cols_folios(all, cols, NCOLS, NULL);
	t = out_table_cols(all, o->sel, o->nsel, &o->fmt);
	for (size_t i = 0; i < s->n; i++)
		put_vma(s, t, &s->rows[i], state, nf);
	if (o->fmt.json)
		return out_table_json(t);
	out_table_print(t, 0);
	return NULL;
}

static void print_text(const struct show *s, const struct thp_pstatus *st, const char *state,
		       const char *cmdline, const char *user)
{
	const struct opts *o = s->o;
	char b[10][64], pct[16], pt[160];
	struct out_table *t = out_table_new(2, NULL, true);

	out_table_wrap(t, 1);
	printf("Process %d (%s)", (int)st->pid, out_esc(b[0], sizeof(b[0]), st->name));
	if (cmdline[0]) {
		putchar(' ');
		out_esc_put(stdout, cmdline);
	}
	putchar('\n');
	snprintf(b[0], sizeof(b[0]), "anon %s, shmem %s", s->why.anon_policy ? s->why.anon_policy : "unknown",
		 s->why.shmem_policy ? s->why.shmem_policy : "unknown");
	snprintf(b[1], sizeof(b[1]), "%s (%s of ANON)", out_size(b[2], sizeof(b[2]), s->total.anon_huge, o->fmt.bytes),
		 out_pct(pct, sizeof(pct), s->total.anon_huge, s->total.anon));
	const char *hdr[][2] = {
		{ "user", user },
		{ "THP state", state },
		{ "policy (PMD size)", s->why.pmd_size ? b[0] : "no THP in this kernel" },
		{ "RSS", out_size(b[3], sizeof(b[3]), s->total.rss, o->fmt.bytes) },
		{ "ANON", out_size(b[4], sizeof(b[4]), s->total.anon, o->fmt.bytes) },
		{ "THP", b[1] },
		{ "SHMEM_PMD", out_size(b[5], sizeof(b[5]), s->total.shmem_pmd, o->fmt.bytes) },
		{ "FILE_PMD", out_size(b[6], sizeof(b[6]), s->total.file_pmd, o->fmt.bytes) },
		{ "HUGETLB", out_size(b[7], sizeof(b[7]), s->total.private_hugetlb + s->total.shared_hugetlb,
				       o->fmt.bytes) },
		{ "page tables", pt_text(s, st, pt, sizeof(pt)) },
	};
	for (size_t i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++) {
		out_table_row(t, hdr[i]);
		if (i == 2 && mthp_policy(&s->why, b[9], sizeof(b[9]))) {
			const char *row[] = { "policy (mTHP)", b[9] };
			out_table_row(t, row);
		}
	}
	if (s->scan_ok) {
		const char *row[] = { "PMD-mapped", out_size(b[8], sizeof(b[8]), s->pmd_total, o->fmt.bytes) };
		out_table_row(t, row);
	}
	add_numa_rows(s, st, t);
	if (huge_zero(s) > 0) {
		char z[32];
		snprintf(b[9], sizeof(b[9]), "%s mapped (reads only, no memory)",
			 out_size(z, sizeof(z), (uint64_t)huge_zero(s), o->fmt.bytes));
		const char *row[] = { "huge zero page", b[9] };
		out_table_row(t, row);
	}
	out_table_print(t, 2);
	if (o->rollup) {
		putchar('\n');
		print_rollup(s);
		return;
	}
	putchar('\n');

	put_vmas(s, state);
	if (!s->n)
		puts("no mapping with resident memory (--all shows every mapping)");
	if (o->folios) {
		putchar('\n');
		print_rollup(s);
	}
}

static struct json_object *pt_json(const struct show *s, const struct thp_pstatus *st)
{
	struct json_object *j = json_object_new_object();
	bool est = st->has_pte && pt_estimable(s);

	json_object_object_add(j, "vmpte", st->has_pte ? out_json_u64(st->pte) : NULL);
	json_object_object_add(j, "tables_replaced", out_json_u64(s->pt_replaced));
	json_object_object_add(j, "estimate_2m", est ? out_json_u64(thp_pt_estimate(st->pte, s->pt_replaced)) : NULL);
	return j;
}

static void print_json(const struct show *s, const struct thp_pstatus *st, const struct thp_pstatus *origin,
		       const char *cmdline, const char *user)
{
	struct json_object *top = json_object_new_object(), *tot = json_object_new_object(),
			   *pol = json_object_new_object(), *arr = json_object_new_array();
	const char *state = NULL;
	char buf[400];

	json_object_object_add(top, "schema", json_object_new_string("thp-show/1"));
	json_object_object_add(top, "pid", json_object_new_int(st->pid));
	json_object_object_add(top, "ppid", json_object_new_int(st->ppid));
	json_object_object_add(top, "command", json_object_new_string(st->name));
	json_object_object_add(top, "cmdline", json_object_new_string(cmdline));
	json_object_object_add(top, "user", json_object_new_string(user));
	json_object_object_add(top, "uid", st->uid == (uid_t)-1 ? NULL : out_json_u64(st->uid));
	out_json_thp_state(top, st, origin);
	json_object_object_add(pol, "anon", s->why.anon_policy ? json_object_new_string(s->why.anon_policy) : NULL);
	json_object_object_add(pol, "shmem", s->why.shmem_policy ? json_object_new_string(s->why.shmem_policy) : NULL);
	json_object_object_add(pol, "pmd_size", out_json_u64(s->why.pmd_size));
	json_object_object_add(top, "policy", pol);
	out_json_rollup(tot, &s->total);
	json_object_object_add(tot, "pmd_mapped", s->scan_ok ? out_json_u64(s->pmd_total) : NULL);
	json_object_object_add(tot, "huge_zero_mapped", huge_zero(s) >= 0 ? out_json_u64((uint64_t)huge_zero(s)) : NULL);
	json_object_object_add(top, "totals", tot);
	json_object_object_add(top, "page_tables", pt_json(s, st));
	json_object_object_add(top, "cpus_allowed", st->cpus_allowed[0] ? json_object_new_string(st->cpus_allowed) : NULL);
	json_object_object_add(top, "mems_allowed", st->mems_allowed[0] ? json_object_new_string(st->mems_allowed) : NULL);
	if (s->numa && s->numa->n > 1 && s->maps_ok) {
		struct json_object *nodes = json_object_new_array();
		for (int i = 0; i < THP_NUMA_MAX; i++)
			if (s->maps.hugetlb[i]) {
				struct json_object *x = json_object_new_object();
				json_object_object_add(x, "node", json_object_new_int(i));
				json_object_object_add(x, "hugetlb", out_json_u64(s->maps.hugetlb[i]));
				json_object_array_add(nodes, x);
			}
		json_object_object_add(top, "hugetlb_per_node", nodes);
		json_object_object_add(top, "hugetlb_remote",
				       out_json_u64(thp_numa_remote(s->numa, st->cpus_allowed, &s->maps)));
	}
	state = json_object_get_string(json_object_object_get(top, "thp_state"));
	if (s->o->fmt.list) {
		json_object_put(arr);
		arr = put_vmas(s, state);
	}
	for (size_t i = 0; !s->o->rollup && !s->o->fmt.list && i < s->n; i++) {
		const struct vrow *r = &s->rows[i];
		const struct thp_vma *v = &r->v;
		struct json_object *j = json_object_new_object();
		const char *adv = advice(v);
		static const char *const kinds[] = { "anon", "shmem", "file", "special", "hugetlb" };

		json_object_object_add(j, "start", out_json_u64(v->start));
		json_object_object_add(j, "end", out_json_u64(v->end));
		json_object_object_add(j, "size", out_json_u64(v->end - v->start));
		json_object_object_add(j, "perms", json_object_new_string(v->perms));
		json_object_object_add(j, "offset", out_json_u64(v->offset));
		json_object_object_add(j, "inode", out_json_u64(v->inode));
		json_object_object_add(j, "mapping", json_object_new_string(mapping_name(v)));
		const struct thp_mount *m = thp_mount_of(&s->mounts, v->dev_major, v->dev_minor);
		enum thp_vma_kind kind = thp_vma_kind(v, s->why.mounts);
		json_object_object_add(j, "kind", json_object_new_string(kinds[kind]));
		json_object_object_add(j, "filesystem", m && v->inode ? json_object_new_string(m->fstype) : NULL);
		out_json_rollup(j, &v->m);
		if (kind == THP_VMA_HUGETLB) {
			json_object_object_add(j, "hugetlb_page_size", v->page_size ? out_json_u64(v->page_size) : NULL);
			json_object_object_add(j, "private_hugetlb", out_json_u64(v->m.private_hugetlb));
			json_object_object_add(j, "shared_hugetlb", out_json_u64(v->m.shared_hugetlb));
		}
		json_object_object_add(j, "thp_eligible", v->eligible < 0 ? NULL : json_object_new_boolean(v->eligible));
		json_object_object_add(j, "advice", adv ? json_object_new_string(adv) : NULL);
		json_object_object_add(j, "vmflags", json_object_new_string(v->vmflags));
		json_object_object_add(j, "pmd_mapped", s->scan_ok ? out_json_u64(r->pmd) : NULL);
		json_object_object_add(j, "huge_zero_mapped", s->fr ? out_json_u64(r->f.huge_zero)
							      : s->scan_ok ? out_json_u64(r->zero) : NULL);
		json_object_object_add(j, "aligned_slots", out_json_u64(thp_vma_pmd_slots(v, s->why.pmd_size)));
		struct json_object *mthp = json_object_new_array();
		unsigned mask = thp_vma_mthp(v, &s->why);
		for (int i = 0; i < s->why.nsizes; i++)
			if (mask & (1u << i))
				json_object_array_add(mthp, out_json_u64(s->why.sizes[i].bytes));
		json_object_object_add(j, "mthp_sizes", mthp);
		json_object_object_add(j, "why", json_object_new_string(thp_why_key(r->why)));
		json_object_object_add(j, "why_text", r->why == THP_WHY_HUGE ? NULL
				       : json_object_new_string(why_text(s, r, state, buf, sizeof(buf))));
		if (s->o->folios)
			json_object_object_add(j, "folios", out_folio_json(&r->f));
		json_object_array_add(arr, j);
	}
	if (!s->o->rollup)
		json_object_object_add(top, "vmas", arr);
	else
		json_object_put(arr);
	if (s->o->folios) {
		json_object_object_add(top, "folios", out_folio_json(&s->ftotal));
		json_object_object_add(top, "folios_walked", out_json_u64(s->ftotal.walked));
		const struct thp_pfn_nodes *nodes = thp_folio_reader_nodes(s->fr);
		json_object_object_add(top, "folio_nodes", out_folio_nodes_json(&s->ftotal, nodes));
		const char *why = nodes_why(nodes, buf, sizeof(buf));
		json_object_object_add(top, "folio_nodes_error", why ? json_object_new_string(why) : NULL);
	}
	out_json_print(top);
}

/* Chooses O's columns: -o, else the default, with --folios the folio columns
 * before WHY. Returns -1, or 2 after a message. */
static int select_cols(struct opts *o)
{
	struct out_col all[NALL];
	int def[NALL], n = 0;

	for (int i = 0; i < NCOLS; i++) {
		for (int k = 0; o->folios && default_cols[i] == C_WHY && k < OUT_FOLIO_SUMMARY; k++)
			def[n++] = NCOLS + k;
		def[n++] = default_cols[i];
	}
	out_cols_folios(all, cols, NCOLS, NULL);
	o->nsel = out_cols_select("show", all, NALL, &o->fmt, def, n, o->sel, MAXCOLS);
	return o->nsel < 0 || out_cols_folios_refused("show", all, NCOLS, o->sel, o->nsel, o->folios) ? 2 : -1;
}

static int parse_opts(struct thp_ctx *ctx, struct opts *o, int argc, char **argv)
{
	enum { O_FOLIOS = 256, O_ROLLUP, O_CONT, O_TLB };
	static const struct option lo[] = {
		{ "all", no_argument, NULL, 'a' },       { "folios", no_argument, NULL, O_FOLIOS },
		{ "rollup", no_argument, NULL, O_ROLLUP }, { "cont", required_argument, NULL, O_CONT },
		OUT_FMT_LONGOPTS,                          { "tlb", required_argument, NULL, O_TLB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, pid;

	o->fmt.json = ctx->json;
	optind = 0;
	while ((c = getopt_long(argc, argv, OUT_FMT_SHORTOPTS "ah", lo, NULL)) != -1) {
		if (out_fmt_opt(&o->fmt, c, optarg))
			continue;
		switch (c) {
		case 'a': o->all = true; break;
		case O_FOLIOS: o->folios = true; break;
		case O_ROLLUP: o->rollup = o->folios = true; break;
		case O_CONT:
			if (thp_parse_size(optarg, &o->cont[o->ncont]) || !o->cont[o->ncont]) {
				thp_err("show: invalid --cont size '%s' (e.g. 64K)", optarg);
				return thp_usage_error("show");
			}
			if (o->ncont + 1 < CONT_MAX)
				o->ncont++;
			o->folios = true;
			break;
		case O_TLB:
			if (!thp_opt_decimal("show", "--tlb", optarg, "seconds", 0.01, 3600, &o->tlb))
				return thp_usage_error("show");
			break;
		case 'h': usage(); return 0;
		default: return thp_usage_error("show");
		}
	}
	if (optind >= argc) {
		thp_err("show: which process? give a PID");
		return thp_usage_error("show");
	}
	if (optind + 1 < argc) {
		thp_err("show: unexpected argument '%s'", argv[optind + 1]);
		return thp_usage_error("show");
	}
	if (!thp_opt_int("show", "process id", argv[optind], 1, THP_PID_MAX, &pid))
		return thp_usage_error("show");
	if (o->tlb > 0 && (o->folios || o->all)) {
		thp_err("show: --tlb counts misses; it does not go with %s", o->folios ? "--folios" : "--all");
		return thp_usage_error("show");
	}
	o->pid = (pid_t)pid;
	return select_cols(o);
}

/* The orders of O's --cont sizes on host ST. Returns 0, or 2 after a message. */
static int cont_orders(const struct thp_root *root, const struct thp_status *st, const struct opts *o,
		       unsigned *orders)
{
	uint64_t page = thp_page_size(root);
	char a[32], b[32], c[32];

	for (int i = 0; i < o->ncont; i++) {
		int order = thp_folio_cont_order(o->cont[i], page ? page : 4096, st->pmd_size);
		if (order < 0) {
			thp_err("show: --cont %s is not a power-of-two number of at least two %s pages up to the PMD size (%s)",
				out_size_spec(a, sizeof(a), o->cont[i]), out_size(b, sizeof(b), page ? page : 4096, false),
				out_size(c, sizeof(c), st->pmd_size, false));
			return 2;
		}
		*orders |= 1u << order;
	}
	return 0;
}

/* The words for what --folios reads, absent from a recorded tree. */
#define FOLIOS_ABSENT                                                                        \
	"show: --folios reads the process's pagemap and /proc/kpageflags, which this recorded " \
	"tree does not hold ('thp capture' records neither); run it on the host itself"

/* Prints the message for ERR from reading process PID's FILE below ROOT; returns 1. */
static int proc_error(const struct thp_root *root, pid_t pid, const char *file, int err)
{
	if (err == -ENOENT && !root->live && strcmp(file, "pagemap") == 0)
		thp_err(FOLIOS_ABSENT);
	else if (err == -ENOENT && !root->live)
		thp_err("show: the recorded tree holds process %d but not its '/proc/%d/%s' "
			"(it could not be read when it was recorded)", (int)pid, (int)pid, file);
	else if (err == -ESRCH)
		thp_err("show: process %d exited while it was read", (int)pid);
	else if (thp_proc_gone(err))
		thp_err("show: no process %d", (int)pid);
	else
		thp_err("cannot read '/proc/%d/%s': %s%s", (int)pid, file, thp_strerror(err),
			thp_root_hint(err));
	return 1;
}

/* The THP state of process ST: off and who set it, or an inferred
 * PR_THP_DISABLE_EXCEPT_ADVISED (which then shapes S's reasons) and who set
 * it. Fills S->origin (pid 0 when none) and STATE. */
static void proc_state(struct show *s, struct thp_pstatus *st, char *state, size_t cap)
{
	memset(&s->origin, 0, sizeof(s->origin));
	if (st->thp_enabled == 0)
		thp_thp_origin(s->root, st, &s->origin);
	else if (thp_except_advised_infer(s->root, st, &s->why, &s->ea, &s->origin))
		st->except_advised = s->why.except_advised = true;
	out_thp_state(state, cap, st, s->origin.pid ? &s->origin : NULL);
}

/* Opens the folio reader for --folios and --cont. Returns 0, or the exit
 * status after a message. */
static int open_folios(struct thp_ctx *ctx, struct show *s, const struct thp_status *host)
{
	unsigned cont = 0;
	int err;

	if (cont_orders(&ctx->root, host, s->o, &cont))
		return 2;
	if (!s->o->folios)
		return 0;
	err = thp_folio_reader_open(&ctx->root, &s->fr);
	if (err == -ENOENT && !ctx->root.live) {
		thp_err(FOLIOS_ABSENT);
		return 1;
	}
	if (err) {
		thp_err("cannot read '/proc/kpageflags': %s%s", thp_strerror(err),
			thp_proc_denied(err) ? " (--folios needs root)" : "");
		return 1;
	}
	thp_folio_reader_cont(s->fr, cont);
	return 0;
}

static int pt_vma(const struct thp_vma *v, void *ctx)
{
	struct show *s = ctx;

	s->pt_replaced += thp_vma_pt_replaced(v);
	return 0;
}

/* The sums of --rollup: the walk of the whole process, no row kept. */
static int rollup(struct show *s, const struct thp_pstatus *st)
{
	int err = thp_folios_proc(s->fr, st, &s->ftotal, &s->total, pt_vma, s);

	s->pmd_total = thp_folio_pmd(&s->ftotal);
	return err;
}

/* Reads the mappings of the process and prints them. Returns the exit status. */
static int show_maps(struct thp_ctx *ctx, struct show *s, const struct thp_pstatus *st, const char *state,
		     const char *cmdline)
{
	struct thp_users users;
	char rel[64];
	int err;

	snprintf(rel, sizeof(rel), "proc/%d/pagemap", (int)st->pid);
	s->pagemap = thp_open(&ctx->root, rel);
	s->scan_ok = s->pagemap >= 0 && thp_pmd_scan_works(s->pagemap); /* else smaps alone */
	if (s->o->folios && s->pagemap < 0)
		err = s->pagemap;
	else if (s->o->rollup)
		err = rollup(s, st);
	else
		err = thp_smaps_read(&ctx->root, st->pid, collect, s);
	if (err)
		return proc_error(&ctx->root, st->pid,
				  err == -ESRCH || (s->o->folios && s->pagemap < 0) ? "pagemap" : "smaps", err);
	thp_users_init(&users, &ctx->root);
	const char *user = thp_user_name(&users, st->uid);
	if (s->o->fmt.json)
		print_json(s, st, s->origin.pid ? &s->origin : NULL, cmdline, user);
	else
		print_text(s, st, state, cmdline, user);
	return 0;
}

int cmd_show(struct thp_ctx *ctx, int argc, char **argv)
{
	struct opts o = { 0 };
	struct show s = { .root = &ctx->root, .o = &o, .pagemap = -1 };
	struct thp_pstatus st;
	struct thp_status *host;
	char cmdline[4096] = "", state[160];
	int rc = parse_opts(ctx, &o, argc, argv);

	if (rc >= 0)
		return rc;
	if (o.tlb > 0 && thp_live_only(ctx, "--tlb"))
		return 2;
	if (thp_pid_target(ctx, "show", o.pid, false, &st))
		return 1;
	if (o.tlb > 0)
		return thp_show_tlb(ctx, &st, o.tlb, o.fmt.json, o.fmt.bytes);
	thp_cmdline_read(&ctx->root, o.pid, cmdline, sizeof(cmdline));
	host = malloc(sizeof(*host));
	if (!host)
		return 1;
	thp_status_read_policy(&ctx->root, host);
	thp_why_ctx_init(&s.why, host, &st); /* its policy words point into HOST */
	if (thp_mountinfo_read(&ctx->root, o.pid, &s.mounts) == 0)
		s.why.mounts = &s.mounts;
	proc_state(&s, &st, state, sizeof(state));
	s.numa = malloc(sizeof(*s.numa));
	if (s.numa && thp_numa_read(&ctx->root, host->pmd_size, host->page_size, s.numa) == 0 && s.numa->n > 1)
		s.maps_ok = thp_numa_maps_read(&ctx->root, o.pid, &s.maps) == 0;
	rc = open_folios(ctx, &s, host);
	if (!rc)
		rc = show_maps(ctx, &s, &st, state, cmdline);
	if (s.pagemap >= 0)
		close(s.pagemap);
	thp_folio_reader_close(s.fr);
	thp_mounts_free(&s.mounts);
	free(s.rows);
	free(s.numa);
	free(host);
	return rc;
}
