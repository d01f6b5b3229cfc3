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
#include "../core/jobs.h"
#include "../core/mounts.h"
#include "../core/parse.h"
#include "../core/proc.h"
#include "../core/ptables.h"
#include "../core/status.h"
#include "../core/tlbcount.h"
#include "../core/users.h"
#include "../core/why.h"
#include "../render/render.h"
#include "../render/tlb.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

#define CONT_MAX 8

/* The columns of the table of mappings: -o, the table, -P and JSON. The
 * folio columns (out_folio_cols, --folios) follow them as NCOLS.., and in
 * the default table come before WHY. */
enum {
	C_RANGE, C_SIZE, C_PERMS, C_MAPPING, C_RSS, C_ANON, C_THP, C_ELIGIBLE, C_ADVICE, C_ALIGNED, C_WHY,
	C_START, C_END, C_OFFSET, C_INODE, C_KIND, C_FILESYSTEM, C_ANONHUGE, C_SHMEM_PMD, C_FILE_PMD,
	C_HUGETLB, C_HUGETLB_PAGE_SIZE, C_PRIVATE_HUGETLB, C_SHARED_HUGETLB, C_VMFLAGS, C_PMD_MAPPED,
	C_HUGE_ZERO, C_MTHP_SIZES, C_WHY_KEY, NCOLS
};
static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v);
static const struct out_col cols[] = {
	[C_RANGE] = { "START-END", OUT_TEXT, OUT_KEEP, "addresses, hexadecimal", get, C_RANGE },
	[C_SIZE] = { "SIZE", OUT_SIZE, 0, "size of the mapping", get, C_SIZE },
	[C_PERMS] = { "PERMS", OUT_TEXT, 0, "rwxp / rwxs", get, C_PERMS },
	[C_MAPPING] = { "MAPPING", OUT_TEXT, OUT_WRAP | OUT_KEEP, "path, [heap], [stack], [anon], ...", get, C_MAPPING },
	[C_RSS] = { "RSS", OUT_SIZE, 0, "resident memory", get, C_RSS },
	[C_ANON] = { "ANON", OUT_SIZE, 0, "anonymous resident memory", get, C_ANON },
	[C_THP] = { "THP", OUT_SIZE, OUT_KEEP, "AnonHugePages + ShmemPmdMapped + FilePmdMapped", get, C_THP },
	[C_ELIGIBLE] = { "ELIGIBLE", OUT_BOOL, 0, "the kernel's THPeligible", get, C_ELIGIBLE },
	[C_ADVICE] = { "ADVICE", OUT_TEXT, 0, "hg (MADV_HUGEPAGE), nh (MADV_NOHUGEPAGE)", get, C_ADVICE },
	[C_ALIGNED] = { "ALIGNED", OUT_COUNT, 0, "whole PMD-aligned slots in the mapping", get, C_ALIGNED },
	[C_WHY] = { "WHY", OUT_TEXT, OUT_WRAP | OUT_KEEP, "why it has no huge pages, or what it may get", get, C_WHY },
	[C_START] = { "START", OUT_HEX, 0, "first address", get, C_START },
	[C_END] = { "END", OUT_HEX, 0, "the address after the last", get, C_END },
	[C_OFFSET] = { "OFFSET", OUT_HEX, 0, "offset in the file", get, C_OFFSET },
	[C_INODE] = { "INODE", OUT_COUNT, 0, "inode of the file, 0 for none", get, C_INODE },
	[C_KIND] = { "KIND", OUT_TEXT, 0, "anon, shmem, file, special or hugetlb", get, C_KIND },
	[C_FILESYSTEM] = { "FILESYSTEM", OUT_TEXT, 0, "the file's mount type (mountinfo)", get, C_FILESYSTEM },
	[C_ANONHUGE] = { "ANONHUGE", OUT_SIZE, 0, "PMD-mapped anonymous THP (AnonHugePages)", get, C_ANONHUGE },
	[C_SHMEM_PMD] = { "SHMEM_PMD", OUT_SIZE, 0, "PMD-mapped shmem (ShmemPmdMapped)", get, C_SHMEM_PMD },
	[C_FILE_PMD] = { "FILE_PMD", OUT_SIZE, 0, "PMD-mapped page cache (FilePmdMapped)", get, C_FILE_PMD },
	[C_HUGETLB] = { "HUGETLB", OUT_SIZE, 0, "hugetlbfs pages (Private_ + Shared_Hugetlb)", get, C_HUGETLB },
	[C_HUGETLB_PAGE_SIZE] = { "HUGETLB_PAGE_SIZE", OUT_SIZE, 0, "page size of a hugetlbfs mapping", get,
				  C_HUGETLB_PAGE_SIZE },
	[C_PRIVATE_HUGETLB] = { "PRIVATE_HUGETLB", OUT_SIZE, 0, "of a hugetlbfs mapping, Private_Hugetlb", get,
				C_PRIVATE_HUGETLB },
	[C_SHARED_HUGETLB] = { "SHARED_HUGETLB", OUT_SIZE, 0, "of a hugetlbfs mapping, Shared_Hugetlb", get,
			       C_SHARED_HUGETLB },
	[C_VMFLAGS] = { "VMFLAGS", OUT_TEXT, OUT_TRUNC, "the kernel's VmFlags", get, C_VMFLAGS },
	[C_PMD_MAPPED] = { "PMD_MAPPED", OUT_SIZE, 0, "PMD-mapped memory found with PAGEMAP_SCAN (Linux 6.7+)", get,
			   C_PMD_MAPPED },
	[C_HUGE_ZERO] = { "HUGE_ZERO", OUT_SIZE, 0, "the huge zero page mapped (reads only, no memory)", get,
			  C_HUGE_ZERO },
	[C_MTHP_SIZES] = { "MTHP_SIZES", OUT_SIZES, 0, "the mTHP sizes it may get at a page fault", get,
			   C_MTHP_SIZES },
	[C_WHY_KEY] = { "WHY_KEY", OUT_TEXT, 0, "WHY as a stable key: huge, not-advised, ...", get, C_WHY_KEY },
};
_Static_assert(sizeof(cols) / sizeof(cols[0]) == NCOLS, "one descriptor per column");
#define NALL (NCOLS + OUT_FOLIO_COLS)
#define MAXCOLS (NALL * 2)
static const int default_cols[] = { C_RANGE, C_SIZE, C_PERMS, C_MAPPING, C_RSS, C_ANON, C_THP,
				    C_ELIGIBLE, C_ADVICE, C_ALIGNED, C_WHY };

/* Rows of text printed at a time: the table's memory does not grow with the
 * mappings of the process (see out_table_stream()). */
#define CHUNK_ROWS 256

struct opts {
	struct out_fmt fmt;
	int sel[MAXCOLS], nsel; /* the columns chosen (-o); 0: the default */
	bool all, folios, rollup;
	double tlb; /* seconds to count dTLB misses; 0: not asked */
	pid_t pid;
	int ncont;
	uint64_t cont[CONT_MAX]; /* --cont sizes in bytes */
	int jobs;                /* threads of the page walk (--jobs) */
};

/* A row of the table: one mapping as the walk found it. */
struct vrow {
	const struct thp_walk_vma *m;
	enum thp_why why;
	int nmthp;
	uint64_t mthp[THP_SIZES_MAX]; /* the mTHP sizes it may get */
};

struct show {
	const struct thp_root *root;
	struct opts *o;
	struct thp_why_ctx why;
	struct thp_ea_evidence ea;   /* PR_THP_DISABLE_EXCEPT_ADVISED evidence */
	struct thp_pstatus origin;   /* who set the THP mode; pid 0: nobody */
	struct thp_mounts mounts;
	struct thp_folio_reader *fr;
	char state[160];             /* the process's THP_STATE */
	uint64_t pt_replaced;        /* last-level page tables 2 MiB pages would replace */
	struct thp_walk *sums;       /* the first walk: the totals above the table */
	struct out_table *table;     /* the mappings, as the second walk finds them */
	struct out_col all[NALL];
	size_t shown;                /* rows added to it */
	struct thp_numa *numa;       /* NULL when unread */
	bool maps_ok;                /* MAPS was read (more than one node) */
	struct thp_numa_maps maps;   /* its static huge pages per node */
	uint64_t mthp_held;          /* without --folios: the host's anonymous mTHP (nr_anon) */
};

enum { O_FOLIOS = 256, O_ROLLUP, O_CONT, O_TLB, O_JOBS };

static const struct thp_opt opts[] = {
	THP_OPT('a', "all", NULL, "also show mappings with nothing resident"),
	THP_OPT_LONG(O_FOLIOS, "folios", NULL,
		     "how every page is really mapped, from pagemap and kpageflags\n"
		     "(root): PMD-mapped, PTE-mapped by size, aligned or not,\n"
		     "partial; the huge zero page apart (reads only, no memory);\n"
		     "with more than one NUMA node, PMD and mTHP bytes per node\n"
		     "(nodeN/memoryM)"),
	THP_OPT_LONG(O_ROLLUP, "rollup", NULL, "with --folios, only the process's sums"),
	THP_OPT_LONG(O_CONT, "cont", "SIZE", "with --folios, also memory in aligned contiguous blocks of\n"
					     "SIZE (64K: arm64 contpte), as tools/mm/thpmaps --cont;\n"
					     "repeatable"),
	THP_OPT_LONG(O_JOBS, "jobs", "N", "with --folios, walk the mappings on N threads (1 to 1024;\n"
					  "default: the CPUs thp may run on); the output is the same"),
	THP_OPT_LONG(O_TLB, "tlb", "SECONDS", "instead, count the dTLB misses of each thread for SECONDS\n"
					      "(perf_event_open, hardware counters): misses per thousand\n"
					      "instructions, page-walk cycles where the CPU names them"),
	THP_OPT_TEXT(22, "The table options (of the table of mappings):"),
	THP_OPTS_TABLE,
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] show PID [options]\n"
		 "\n"
		 "One process: its THP state (and which ancestor disabled THP), its totals, its\n"
		 "page tables (VmPTE, and an estimate with 2 MiB hugetlb pages: see PAGE TABLES\n"
		 "in thp(1)), and one row per mapping (VMA) with its huge pages, whether the\n"
		 "kernel deems it eligible, its madvise advice, how many aligned PMD-sized slots\n"
		 "it holds, and for a mapping without huge pages, the reason. Reads\n"
		 "/proc/PID/smaps.",
	.width = 18,
	.opts = opts,
	.cols = cols,
	.ncols = NCOLS,
	.after = out_folio_cols_help,
};

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
static const char *why_text(const struct show *s, const struct vrow *r, char *buf, size_t cap)
{
	if (r->why == THP_WHY_PROC_OFF) {
		snprintf(buf, cap, "process has THP %s", s->state);
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
	if (r->m->f && !r->nmthp && thp_folio_mthp(r->m->f)) {
		/* large folios no size gives it now: from before a policy
		 * changed, collapsed, or pieces of split THPs */
		char held[32], pmd[32];
		int n = snprintf(buf, cap, "holds %s of PTE-mapped large folios no size gives it now "
				 "(made before the policy changed, or split THPs); %s: ",
				 thp_size_words(thp_folio_mthp(r->m->f), held, sizeof(held)),
				 thp_size_words(s->why.pmd_size, pmd, sizeof(pmd)));
		if (n > 0 && (size_t)n < cap)
			thp_vma_why_text(r->m->v, r->why, &s->why, buf + n, cap - (size_t)n);
		return buf;
	}
	return thp_vma_why_text(r->m->v, r->why, &s->why, buf, cap);
}

/* Number column C of mapping V of S; false when it has no value there. */
static bool vma_num(const struct show *s, const struct vrow *r, int c, uint64_t *n)
{
	const struct thp_vma *v = r->m->v;
	bool hugetlb = thp_vma_kind(v, s->why.mounts) == THP_VMA_HUGETLB;

	switch (c) {
	case C_SIZE: *n = v->end - v->start; return true;
	case C_RSS: *n = v->m.rss; return true;
	case C_ANON: *n = v->m.anon; return true;
	case C_THP: *n = v->m.anon_huge + v->m.shmem_pmd + v->m.file_pmd; return true;
	case C_ELIGIBLE: *n = v->eligible > 0; return v->eligible >= 0;
	case C_ALIGNED: *n = thp_vma_pmd_slots(v, s->why.pmd_size); return !hugetlb; /* THP slots mean nothing there */
	case C_START: *n = v->start; return true;
	case C_END: *n = v->end; return true;
	case C_OFFSET: *n = v->offset; return true;
	case C_INODE: *n = v->inode; return true;
	case C_ANONHUGE: *n = v->m.anon_huge; return true;
	case C_SHMEM_PMD: *n = v->m.shmem_pmd; return true;
	case C_FILE_PMD: *n = v->m.file_pmd; return true;
	case C_HUGETLB: *n = thp_rollup_hugetlb(&v->m); return true;
	case C_HUGETLB_PAGE_SIZE: *n = v->page_size; return hugetlb && v->page_size;
	case C_PRIVATE_HUGETLB: *n = v->m.private_hugetlb; return hugetlb && thp_rollup_known(&v->m, THP_RF_PRIVATE_HUGETLB);
	case C_SHARED_HUGETLB: *n = v->m.shared_hugetlb; return hugetlb && thp_rollup_known(&v->m, THP_RF_SHARED_HUGETLB);
	case C_PMD_MAPPED: *n = r->m->pmd; return r->m->pmd_known;
	case C_HUGE_ZERO: *n = r->m->zero; return r->m->pmd_known;
	default: *n = 0; return false;
	}
}

/* Text column C of mapping R of S, written to BUF when it must be made. */
static const char *vma_text(const struct show *s, const struct vrow *r, int c, char *buf, size_t cap)
{
	static const char *const kinds[] = { "anon", "shmem", "file", "special", "hugetlb" };
	const struct thp_vma *v = r->m->v;
	const struct thp_mount *mt;

	switch (c) {
	case C_RANGE:
		snprintf(buf, cap, "%012" PRIx64 "-%012" PRIx64, v->start, v->end);
		return buf;
	case C_PERMS: return v->perms;
	case C_MAPPING: return mapping_name(v);
	case C_ADVICE: return advice(v);
	case C_WHY: return r->why == THP_WHY_HUGE ? NULL : why_text(s, r, buf, cap);
	case C_KIND: return kinds[thp_vma_kind(v, s->why.mounts)];
	case C_FILESYSTEM:
		mt = v->inode ? thp_mount_of(&s->mounts, v->dev_major, v->dev_minor) : NULL;
		return mt ? mt->fstype : NULL;
	case C_VMFLAGS: return v->vmflags;
	case C_WHY_KEY: return thp_why_key(r->why);
	default: return NULL;
	}
}

/* The getter of show's columns (arg: the column) for a struct vrow. */
static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct vrow *r = row;
	const struct show *s = ctx;

	if (c->kind == OUT_SIZES)
		out_val_set(v, ov_sizes(r->mthp, r->nmthp));
	else if (c->kind == OUT_TEXT)
		out_val_set(v, ov_str(vma_text(s, r, c->arg, v->buf, v->cap)));
	else
		v->null = !vma_num(s, r, c->arg, &v->u);
}

/* The getter of the folio columns (arg: out_folio_col()'s I). */
static void get_folio(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct vrow *r = row;

	(void)ctx;
	out_val_set(v, out_folio_col(r->m->f, c->arg));
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

/* A node of the folios (CTX: the text table, NULL in JSON): an element of
 * folio_nodes, a row of the text. */
static void node_line(int node, uint64_t pmd, uint64_t mthp, void *ctx)
{
	char id[24], b[2][32];

	out_obj(NULL);
	out_put(OUT_JSON, "node", NULL, ov_if(node >= 0, ov_int(node)));
	out_put(OUT_JSON, "pmd", NULL, ov_size(pmd));
	out_put(OUT_JSON, "mthp", NULL, ov_size(mthp));
	out_end();
	if (!ctx)
		return;
	if (node < 0)
		snprintf(id, sizeof(id), "no known node");
	else
		snprintf(id, sizeof(id), "node %d", node);
	const char *row[] = { id, out_size(b[0], sizeof(b[0]), pmd, out_bytes_on()),
			      out_size(b[1], sizeof(b[1]), mthp, out_bytes_on()) };
	out_table_row(ctx, row);
}

/* The folios F by node (nodeN/memoryM): in text when there is more than one
 * node, or why they cannot be placed when the block size is malformed. */
static void print_folio_nodes(const struct show *s, const struct thp_folio_stats *f)
{
	static const char *const heads[] = { "BY NODE", "PMD", "MTHP" };
	const struct thp_pfn_nodes *nodes = thp_folio_reader_nodes(s->fr);
	struct out_table *t = NULL;
	char why[160];

	if (!out_json_on() && nodes->err != -EINVAL && __builtin_popcountll(nodes->nodes) >= 2) {
		t = out_table_new(3, heads, false);
		out_table_right(t, 1);
		out_table_right(t, 2);
		out_text("\n");
	}
	out_arr("folio_nodes");
	out_folio_nodes(f, nodes, node_line, t);
	out_end();
	out_table_print(t, 2);
	if (nodes->err == -EINVAL)
		out_text("  by node: unknown (%s)\n", nodes_why(nodes, why, sizeof(why)));
	out_put(OUT_JSON, "folio_nodes_error", NULL, ov_str(nodes_why(nodes, why, sizeof(why))));
}

static void print_counter(const char *name, uint64_t bytes, void *ctx)
{
	char b[32];

	if (!bytes)
		return;
	const char *row[] = { name, out_size(b, sizeof(b), bytes, out_bytes_on()) };
	out_table_row(ctx, row);
}

/* The folio counters F of the walk of W (in text those above zero). */
static void print_folios(const struct show *s, const struct thp_walk *w)
{
	const struct thp_folio_stats *f = &w->folios;
	uint64_t hugetlb = thp_rollup_hugetlb(&w->sum);

	struct out_table *t = out_json_on() ? NULL : out_table_new(2, NULL, true);

	out_put(OUT_ANY, "folios_walked", "Folios (%s of mapping analysed", ov_size(f->walked));
	out_text("%s)\n", f->scan ? ", PMD mappings found with PAGEMAP_SCAN" : "");
	out_put(OUT_JSON, "folios", NULL, ov_folios(f));
	if (t) {
		out_table_right(t, 1);
		out_folio_counters(f, print_counter, t);
	}
	if (!thp_folio_pmd(f) && !thp_folio_mthp(f))
		out_text("  no THP folio is mapped\n");
	out_table_print(t, 2);
	if (f->huge_zero)
		out_put(OUT_FP, NULL, "  huge zero page: %s mapped (reads only, no memory; not counted above)\n",
			ov_size(f->huge_zero));
	if (hugetlb)
		out_put(OUT_FP, NULL, "  not walked: %s of hugetlbfs pages (HUGETLB, not THP)\n", ov_size(hugetlb));
	print_folio_nodes(s, f);
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

/* The page tables of process ST: VmPTE now, and the estimate with 2 MiB pages. */
static void print_pt(const struct show *s, const struct thp_pstatus *st)
{
	bool est = st->has_pte && pt_estimable(s);
	uint64_t e = thp_pt_estimate(st->pte, s->pt_replaced);
	char now[32], es[32], line[160];

	out_obj("page_tables");
	out_kv(OUT_JSON, "vmpte", NULL, NULL, ov_if(st->has_pte, ov_size(st->pte)));
	out_kv(OUT_JSON, "tables_replaced", NULL, NULL, ov_count(s->pt_replaced));
	out_kv(OUT_JSON, "estimate_2m", NULL, NULL, ov_if(est, ov_size(e)));
	out_end();
	out_size(now, sizeof(now), st->pte, out_bytes_on());
	if (!st->has_pte)
		snprintf(line, sizeof(line), "not shown by the kernel (no VmPTE)");
	else if (!est)
		snprintf(line, sizeof(line), "%s (VmPTE); no estimate for a PMD size other than 2 MiB", now);
	else
		snprintf(line, sizeof(line), "%s (VmPTE); with 2 MiB hugetlb pages about %s (estimate, see thp(1))",
			 now, out_size(es, sizeof(es), e, out_bytes_on()));
	out_kv(OUT_FP, NULL, "page tables", NULL, ov_str(line));
}

/* "node0 1 GiB, node1 512 MiB": the static huge pages of the process per node. */
static const char *per_node(const struct thp_numa_maps *m, char *buf, size_t cap)
{
	size_t len = 0;
	char sz[32];

	buf[0] = '\0';
	for (int i = 0; i < THP_NUMA_MAX && len < cap; i++)
		if (m->hugetlb[i])
			len += (size_t)snprintf(buf + len, cap - len, "%snode%d %s", len ? ", " : "", i,
						out_size(sz, sizeof(sz), m->hugetlb[i], out_bytes_on()));
	return buf;
}

/* Where the process runs and holds its static huge pages: allowed CPUs and
 * memory nodes, and with more than one node its hugetlb per node (numa_maps). */
static void print_numa(const struct show *s, const struct thp_pstatus *st)
{
	char b[320];
	uint64_t remote;

	out_kv(st->cpus_allowed[0] ? OUT_ANY : OUT_JSON, "cpus_allowed", "CPUs allowed", NULL,
	       ov_str(st->cpus_allowed[0] ? st->cpus_allowed : NULL));
	out_kv(st->mems_allowed[0] ? OUT_ANY : OUT_JSON, "mems_allowed", "memory nodes allowed", NULL,
	       ov_str(st->mems_allowed[0] ? st->mems_allowed : NULL));
	if (!s->numa || s->numa->n <= 1 || !s->maps_ok)
		return;
	out_arr("hugetlb_per_node");
	for (int i = 0; i < THP_NUMA_MAX; i++)
		if (s->maps.hugetlb[i]) {
			out_obj(NULL);
			out_kv(OUT_JSON, "node", NULL, NULL, ov_int(i));
			out_kv(OUT_JSON, "hugetlb", NULL, NULL, ov_size(s->maps.hugetlb[i]));
			out_end();
		}
	out_end();
	remote = thp_numa_remote(s->numa, st->cpus_allowed, &s->maps);
	out_kv(OUT_JSON, "hugetlb_remote", NULL, NULL, ov_size(remote));
	if (!s->maps.total)
		return;
	out_kv(OUT_FP, NULL, "HUGETLB per node", NULL, ov_str(per_node(&s->maps, b, sizeof(b))));
	if (remote * 2 > s->maps.total)
		out_kv(OUT_FP, NULL, "remote huge pages", "%s of HUGETLB is on nodes whose CPUs it may not run on",
		       ov_size(remote));
}

/* The process's memory: the sums of the first walk W. */
static void print_totals(const struct show *s, const struct thp_walk *w)
{
	const struct thp_rollup *t = &w->sum;
	uint64_t all = t->anon_huge + t->shmem_pmd + t->file_pmd;
	char pct[16], thp[96], sz[32], anon[32];

	out_obj("totals");
	out_kv(OUT_ANY, "rss", "RSS", NULL, ov_size(t->rss));
	out_kv(OUT_ANY, "anon", "ANON", NULL, ov_size(t->anon));
	/* in text, the sum of the table's THP column, of which anonymous (JSON:
	 * thp, as in ps), SHMEM_PMD and FILE_PMD */
	out_size(anon, sizeof(anon), t->anon_huge, out_bytes_on());
	out_pct(pct, sizeof(pct), t->anon_huge, t->anon);
	if (all == t->anon_huge)
		snprintf(thp, sizeof(thp), "%s (%s of ANON)", anon, pct);
	else
		snprintf(thp, sizeof(thp), "%s (anonymous %s, %s of ANON)",
			 out_size(sz, sizeof(sz), all, out_bytes_on()), anon, pct);
	out_kv(OUT_JSON, "thp", NULL, NULL, ov_size(t->anon_huge));
	out_kv(OUT_JSON, "cover", NULL, NULL, ov_pct(t->anon_huge, t->anon));
	out_kv(OUT_FP, NULL, "THP", NULL, ov_str(thp));
	out_kv(OUT_ANY, "shmem_pmd", "SHMEM_PMD", NULL, ov_size(t->shmem_pmd));
	out_kv(OUT_ANY, "file_pmd", "FILE_PMD", NULL, ov_size(t->file_pmd));
	out_kv(OUT_ANY, "hugetlb", "HUGETLB", NULL, ov_size(thp_rollup_hugetlb(t)));
	out_end();
	(void)s;
}

/* The huge zero page the first walk W found, from the page walk when it ran,
 * else from PAGEMAP_SCAN; null when neither could tell. */
static struct out_val huge_zero(const struct show *s, const struct thp_walk *w)
{
	if (s->fr && w->fr)
		return ov_size(w->folios.huge_zero);
	return ov_if(w->pmd_known, ov_size(w->zero));
}

/* What is above the table: the process, its THP state and policy, its
 * totals from the first walk W, page tables, NUMA placement. */
static void print_head(const struct show *s, const struct thp_pstatus *st, const char *cmdline, const char *user,
		       const struct thp_walk *w)
{
	char b[256];
	struct out_val zero = huge_zero(s, w);

	out_put(OUT_ANY, "pid", "Process %s", ov_count((uint64_t)st->pid));
	out_put(OUT_JSON, "ppid", NULL, ov_count((uint64_t)st->ppid));
	out_put(OUT_ANY, "command", " (%s)", ov_str(st->name));
	out_put(OUT_ANY, "cmdline", cmdline[0] ? " %s" : "", ov_str(cmdline));
	out_text("\n");
	out_kv_open(2, true);
	out_kv(OUT_ANY, "user", "user", NULL, ov_str(user));
	out_kv(OUT_JSON, "uid", NULL, NULL, ov_if(st->uid != (uid_t)-1, ov_count(st->uid)));
	for (int p = OUT_PS_STATE; p <= OUT_PS_SET_BY; p++) {
		static const char *const keys[] = { "thp_state", "thp_enabled", "except_advised", "set_by_pid", "set_by" };
		out_kv(p == OUT_PS_STATE ? OUT_ANY : OUT_JSON, keys[p], "THP state", NULL,
		       out_pstate(p, st, s->origin.pid ? &s->origin : NULL, b, sizeof(b)));
	}
	out_obj("policy");
	out_kv(OUT_JSON, "anon", NULL, NULL, ov_str(s->why.anon_policy));
	out_kv(OUT_JSON, "shmem", NULL, NULL, ov_str(s->why.shmem_policy));
	out_kv(OUT_JSON, "pmd_size", NULL, NULL, ov_size(s->why.pmd_size));
	out_end();
	snprintf(b, sizeof(b), "anon %s, shmem %s", s->why.anon_policy ? s->why.anon_policy : "unknown",
		 s->why.shmem_policy ? s->why.shmem_policy : "unknown");
	out_kv(OUT_FP, NULL, "policy (PMD size)", NULL, ov_str(s->why.pmd_size ? b : "no THP in this kernel"));
	bool mthp = mthp_policy(&s->why, b, sizeof(b));
	out_kv(mthp ? OUT_ANY : OUT_JSON, "mthp_policy", "policy (mTHP)", NULL, ov_str(mthp ? b : NULL));
	print_totals(s, w);
	print_pt(s, st);
	out_kv(w->pmd_known ? OUT_ANY : OUT_JSON, "pmd_mapped", "PMD-mapped", NULL, ov_if(w->pmd_known, ov_size(w->pmd)));
	print_numa(s, st);
	out_kv(!zero.null && zero.u ? OUT_ANY : OUT_JSON, "huge_zero_mapped", "huge zero page",
	       "%s mapped (reads only, no memory)", zero);
	out_kv_close();
	out_text("\n");
}

/* The first walk: sums each mapping's page tables 2 MiB pages would replace. */
static int sum_vma(const struct thp_walk_vma *m, void *ctx)
{
	struct show *s = ctx;

	s->pt_replaced += thp_vma_pt_replaced(m->v);
	return 0;
}

/* The second walk: each mapping as a row of the table as soon as it is read
 * (with --all also those without resident memory). */
static int row_vma(const struct thp_walk_vma *m, void *ctx)
{
	struct show *s = ctx;
	const struct thp_vma *v = m->v;
	struct vrow r = { .m = m };
	unsigned mask;

	if (!s->o->all && !v->m.rss && !thp_rollup_hugetlb(&v->m))
		return 0;
	r.why = thp_vma_why(v, &s->why);
	mask = thp_vma_mthp(v, &s->why);
	for (int i = 0; i < s->why.nsizes; i++)
		if (mask & (1u << i))
			r.mthp[r.nmthp++] = s->why.sizes[i].bytes;
	out_table_add(s->table, &r);
	s->shown++;
	return 0;
}

/* Chooses O's columns: -o, else the default, with --folios the folio columns
 * before WHY. Returns -1, or 2 after a message. */
static int select_cols(struct opts *o)
{
	struct out_col all[NALL];
	int def[NALL], n = 0;

	for (int i = 0; !o->fmt.json && i < (int)(sizeof(default_cols) / sizeof(default_cols[0])); i++) {
		for (int k = 0; o->folios && default_cols[i] == C_WHY && k < OUT_FOLIO_SUMMARY; k++)
			def[n++] = NCOLS + k;
		def[n++] = default_cols[i];
	}
	/* JSON: every column */
	for (int i = 0; o->fmt.json && i < (o->folios ? NALL : NCOLS); i++)
		def[n++] = i;
	out_cols_folios(all, cols, NCOLS, NULL);
	o->nsel = out_cols_select(all, NALL, &o->fmt, def, n, o->sel, MAXCOLS);
	return o->nsel < 0 || out_cols_folios_refused(all, NCOLS, o->sel, o->nsel, o->folios) ? 2 : -1;
}

static int parse_opts(struct thp_ctx *ctx, struct opts *o, int argc, char **argv)
{
	int c, pid;

	o->jobs = thp_jobs_default();
	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		if (out_fmt_opt(&o->fmt, c, optarg))
			continue;
		switch (c) {
		case 'a': o->all = true; break;
		case O_FOLIOS: o->folios = true; break;
		case O_ROLLUP: o->rollup = o->folios = true; break;
		case O_CONT:
			if (thp_parse_size(optarg, &o->cont[o->ncont]) || !o->cont[o->ncont]) {
				thp_err("invalid --cont size '%s' (e.g. 64K)", optarg);
				return thp_usage_error("show");
			}
			if (o->ncont + 1 < CONT_MAX)
				o->ncont++;
			o->folios = true;
			break;
		case O_TLB:
			if (!thp_opt_decimal("--tlb", optarg, "seconds", 0.01, 3600, &o->tlb))
				return thp_usage_error("show");
			break;
		case O_JOBS:
			if (!thp_opt_int("--jobs", optarg, 1, THP_JOBS_MAX, &o->jobs))
				return thp_usage_error("show");
			break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	o->fmt.json = ctx->json;
	if (optind >= argc) {
		thp_err("which process? give a PID");
		return thp_usage_error("show");
	}
	if (optind + 1 < argc) {
		thp_err("unexpected argument '%s'", argv[optind + 1]);
		return thp_usage_error("show");
	}
	if (!thp_opt_int("process id", argv[optind], 1, THP_PID_MAX, &pid))
		return thp_usage_error("show");
	if (o->tlb > 0 && (o->folios || o->all)) {
		thp_err("--tlb counts misses; it does not go with %s", o->folios ? "--folios" : "--all");
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
			thp_err("--cont %s is not a power-of-two number of at least two %s pages up to the PMD size (%s)",
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
	"--folios reads the process's pagemap and /proc/kpageflags, which this recorded " \
	"tree does not hold ('thp capture' records neither); run it on the host itself"

/* Prints the message for ERR from reading process PID's FILE below ROOT; returns 1. */
static int proc_error(const struct thp_root *root, pid_t pid, const char *file, int err)
{
	if (err == -ENOENT && !root->live && strcmp(file, "pagemap") == 0)
		thp_err(FOLIOS_ABSENT);
	else if (err == -ENOENT && !root->live)
		thp_err("the recorded tree holds process %d but not its '/proc/%d/%s' "
			"(it could not be read when it was recorded)", (int)pid, (int)pid, file);
	else if (err == -ESRCH)
		thp_err("process %d exited while it was read", (int)pid);
	else if (thp_proc_gone(err))
		thp_err("no process %d", (int)pid);
	else
		thp_err("cannot read '/proc/%d/%s': %s%s", (int)pid, file, thp_strerror(err),
			thp_root_hint(err));
	return 1;
}

/* The THP state of process ST: off and who set it, or an inferred
 * PR_THP_DISABLE_EXCEPT_ADVISED (which then shapes S's reasons) and who set
 * it. Fills S->origin (pid 0 when none) and S->state. */
static void proc_state(struct show *s, struct thp_pstatus *st)
{
	memset(&s->origin, 0, sizeof(s->origin));
	if (st->thp_enabled == 0)
		thp_thp_origin(s->root, st, &s->origin);
	else if (thp_except_advised_infer(s->root, st, &s->why, &s->ea, &s->origin))
		st->except_advised = s->why.except_advised = true;
	out_thp_state(s->state, sizeof(s->state), st, s->origin.pid ? &s->origin : NULL);
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
	err = thp_folio_reader_jobs(s->fr, s->o->jobs);
	if (err) {
		thp_err("cannot prepare %d walks: %s", s->o->jobs, thp_strerror(err));
		return 1;
	}
	return 0;
}

/* The file of process ST an error ERR of a walk with --folios (S->fr) came
 * from: its pagemap when that cannot be opened, else its smaps. */
static const char *failed_file(const struct show *s, const struct thp_pstatus *st, int err)
{
	char rel[64];
	int fd;

	if (err == -ESRCH || !s->fr)
		return err == -ESRCH && s->fr ? "pagemap" : "smaps";
	snprintf(rel, sizeof(rel), "proc/%d/pagemap", (int)st->pid);
	fd = thp_open(s->root, rel);
	if (fd < 0)
		return "pagemap";
	close(fd);
	return "smaps";
}

/* The first walk of process ST into W: the sums above the table (with
 * --rollup, and with --folios where PAGEMAP_SCAN cannot tell the huge zero
 * page, the page walk too). Returns 0 or the walk's error. */
static int first_walk(struct show *s, const struct thp_pstatus *st, struct thp_walk *w)
{
	int err;

	*w = (struct thp_walk){ .fr = s->o->rollup ? s->fr : NULL, .smaps = !s->o->rollup, .pmd_scan = true,
				.jobs = s->o->jobs, .fn = sum_vma, .ctx = s };
	err = thp_proc_walk(s->root, st, w);
	if (err || w->fr || !s->fr || w->pmd_known)
		return err;
	s->pt_replaced = 0;
	w->fr = s->fr;
	return thp_proc_walk(s->root, st, w);
}

/* Prints the mappings of process ST, each as the second walk reads it, then
 * with --folios their folios. Returns 0 or the walk's error. */
static int print_vmas(struct show *s, const struct thp_pstatus *st, struct thp_walk *w)
{
	const struct opts *o = s->o;
	int err;

	out_cols_folios(s->all, cols, NCOLS, get_folio);
	s->table = out_table_open("vmas", s->all, o->sel, o->nsel, &o->fmt, s);
	out_table_stream(s->table, CHUNK_ROWS, 0);
	*w = (struct thp_walk){ .fr = s->fr, .smaps = true, .pmd_scan = true, .jobs = s->o->jobs, .fn = row_vma,
				.ctx = s };
	err = thp_proc_walk(s->root, st, w);
	out_table_close(s->table, 0);
	if (!s->shown)
		out_text("no mapping with resident memory (--all shows every mapping)\n");
	if (s->mthp_held) {
		char held[32];
		out_text("\nThis host holds %s of mTHP (hugepages-*/stats/nr_anon), which smaps does not show:\n"
			 "THP and WHY above leave it out; 'thp show %d --folios' (root) shows which mappings hold it.\n",
			 out_size(held, sizeof(held), s->mthp_held, out_bytes_on()), (int)o->pid);
	}
	if (!err && o->folios) {
		out_text("\n");
		print_folios(s, w);
	}
	return err;
}

/* Reads the mappings of process ST twice and prints them as they come: the
 * sums above the table first, then the table (or with --rollup the folios).
 * Memory does not grow with the mappings. Returns the exit status. */
static int show_maps(struct thp_ctx *ctx, struct show *s, const struct thp_pstatus *st, const char *cmdline)
{
	struct thp_walk *w = malloc(sizeof(*w));
	struct thp_users users;
	int err;

	if (!w)
		return 1;
	err = first_walk(s, st, w);
	if (err) {
		free(w);
		return proc_error(&ctx->root, st->pid, failed_file(s, st, err), err);
	}
	thp_users_init(&users, &ctx->root);
	out_doc_begin(s->o->fmt.json, s->o->fmt.bytes, "thp-show/2");
	print_head(s, st, cmdline, thp_user_name(&users, st->uid), w);
	if (s->o->rollup)
		print_folios(s, w);
	else
		err = print_vmas(s, st, w);
	free(w);
	out_doc_end();
	return err ? proc_error(&ctx->root, st->pid, failed_file(s, st, err), err) : 0;
}

/* --tlb: counts the dTLB misses of the threads of process ST for SECS
 * seconds and prints them. Returns the exit status. */
static int show_tlb(const struct thp_ctx *ctx, const struct thp_pstatus *st, double secs, bool json, bool bytes)
{
	struct thp_tlb_proc p;
	struct thp_rollup r = { 0 };
	int err = thp_tlb_count_proc(&ctx->root, st->pid, secs, &p);

	if (err == -ENOMEM) {
		thp_err("out of memory");
		return 1;
	}
	if (err) {
		thp_err("%s (perf_event_open: %s)%s", thp_tlb_unavailable(err), strerror(-err),
			err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV ? "; virtual machines often have no PMU" : "");
		return 1;
	}
	thp_rollup_read(&ctx->root, st->pid, &r);
	out_doc_begin(json, bytes, THP_SHOW_TLB_SCHEMA);
	thp_tlb_print(st, secs, &p, &r);
	thp_tlb_proc_free(&p);
	return out_doc_end() ? 1 : 0;
}

int cmd_show(struct thp_ctx *ctx, int argc, char **argv)
{
	struct opts o = { 0 };
	struct show s = { .root = &ctx->root, .o = &o };
	struct thp_pstatus st;
	struct thp_status *host;
	char cmdline[4096] = "";
	int rc = parse_opts(ctx, &o, argc, argv);

	if (rc >= 0)
		return rc;
	if (o.tlb > 0 && thp_live_only(ctx, "--tlb"))
		return 2;
	if (thp_pid_target(ctx, o.pid, false, &st))
		return 1;
	if (o.tlb > 0)
		return show_tlb(ctx, &st, o.tlb, o.fmt.json, o.fmt.bytes);
	thp_cmdline_read(&ctx->root, o.pid, cmdline, sizeof(cmdline));
	host = malloc(sizeof(*host));
	if (!host)
		return 1;
	thp_status_read_policy(&ctx->root, host);
	if (!o.folios) {
		thp_status_read_size_stats(&ctx->root, host);
		s.mthp_held = thp_status_mthp_held(host, NULL);
	}
	thp_why_ctx_init(&s.why, host, &st); /* its policy words point into HOST */
	if (thp_mountinfo_read(&ctx->root, o.pid, &s.mounts) == 0)
		s.why.mounts = &s.mounts;
	proc_state(&s, &st);
	s.numa = malloc(sizeof(*s.numa));
	if (s.numa && thp_numa_read(&ctx->root, host->pmd_size, host->page_size, s.numa) == 0 && s.numa->n > 1)
		s.maps_ok = thp_numa_maps_read(&ctx->root, o.pid, &s.maps) == 0;
	rc = open_folios(ctx, &s, host);
	if (!rc)
		rc = show_maps(ctx, &s, &st, cmdline);
	thp_folio_reader_close(s.fr);
	thp_mounts_free(&s.mounts);
	free(s.numa);
	free(host);
	return rc;
}
