/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hugetlb.c - `thp hugetlb`: static huge page pools, who uses them, resizing a
 * pool (`set`) and sizing one for a buffer (`plan`) */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../control/boot.h"
#include "../control/change.h"
#include "../control/control.h"
#include "../core/arg.h"
#include "../core/hugetlb.h"
#include "../core/numa.h"
#include "../core/persist.h"
#include "../render/change.h"
#include "../render/persist.h"
#include "../render/pools.h"
#include "../render/render.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

#define SETS_MAX THP_POOLS_MAX
/* The highest NUMA node number Linux has (MAX_NUMNODES is at most 1 << 10). */
#define NODE_MAX 1023
/* The largest size 'hugetlb plan' accepts: 4 PiB, what 52-bit physical
 * addresses (the widest of Linux's 64-bit architectures) can hold. */
#define PLAN_MAX (1ull << 52)

/* The columns of the pool tables, of the host (-o) and per node. */
enum { P_SIZE, P_TOTAL, P_IN_USE, P_FREE, P_RESERVED, P_SURPLUS, P_OVERCOMMIT, P_MEMORY, P_ERROR, P_NODE, P_NCOLS };
static void get_pool(const struct out_col *c, const void *row, void *ctx, struct out_val *v);
static const struct out_col pool_cols[] = {
	[P_SIZE] = { "SIZE", OUT_SIZE, OUT_KEEP, "page size", get_pool, P_SIZE },
	[P_TOTAL] = { "TOTAL", OUT_GROUPED, OUT_KEEP, "pages in the pool (nr_hugepages)", get_pool, P_TOTAL },
	[P_IN_USE] = { "IN_USE", OUT_GROUPED, 0, "pages in use (TOTAL - FREE)", get_pool, P_IN_USE },
	[P_FREE] = { "FREE", OUT_GROUPED, OUT_KEEP, "free pages, reserved ones included", get_pool, P_FREE },
	[P_RESERVED] = { "RESERVED", OUT_GROUPED, 0, "pages promised to mappings, not yet faulted", get_pool,
			 P_RESERVED },
	[P_SURPLUS] = { "SURPLUS", OUT_GROUPED, 0, "pages above TOTAL from overcommit", get_pool, P_SURPLUS },
	[P_OVERCOMMIT] = { "OVERCOMMIT", OUT_GROUPED, 0, "most surplus pages allowed", get_pool, P_OVERCOMMIT },
	[P_MEMORY] = { "MEMORY", OUT_SIZE, 0, "memory the pool holds (TOTAL x SIZE)", get_pool, P_MEMORY },
	[P_ERROR] = { "ERROR", OUT_TEXT, OUT_WRAP | OUT_KEEP, "why the pool could not be read", get_pool, P_ERROR },
	[P_NODE] = { "NODE", OUT_COUNT, OUT_KEEP, "the NUMA node (per node)", get_pool, P_NODE },
};
_Static_assert(sizeof(pool_cols) / sizeof(pool_cols[0]) == P_NCOLS, "one descriptor per column");
/* The columns of the table per node, always */
static const int node_cols[] = { P_NODE, P_SIZE, P_TOTAL, P_IN_USE, P_FREE, P_SURPLUS, P_ERROR };
#define NODE_TEXT_COLS 6 /* ERROR in JSON only */

/* The other tables: every column, always. */
enum { M_MOUNT, M_PAGE_SIZE, M_OPTIONS, M_NCOLS };
static void get_mount(const struct out_col *c, const void *row, void *ctx, struct out_val *v);
static const struct out_col mount_cols[] = {
	[M_MOUNT] = { "MOUNT", OUT_TEXT, OUT_TRUNC | OUT_KEEP, "", get_mount, M_MOUNT },
	[M_PAGE_SIZE] = { "PAGE_SIZE", OUT_SIZE, OUT_KEEP, "", get_mount, M_PAGE_SIZE },
	[M_OPTIONS] = { "OPTIONS", OUT_TEXT, OUT_TRUNC, "", get_mount, M_OPTIONS },
};
enum { U_PID, U_COMMAND, U_PRIVATE, U_SHARED, U_NCOLS };
static void get_user(const struct out_col *c, const void *row, void *ctx, struct out_val *v);
static const struct out_col user_cols[] = {
	[U_PID] = { "PID", OUT_COUNT, OUT_KEEP, "", get_user, U_PID },
	[U_COMMAND] = { "COMMAND", OUT_TEXT, OUT_TRUNC | OUT_KEEP, "", get_user, U_COMMAND },
	[U_PRIVATE] = { "PRIVATE", OUT_SIZE, 0, "", get_user, U_PRIVATE },
	[U_SHARED] = { "SHARED", OUT_SIZE, 0, "", get_user, U_SHARED },
};

/* Every column of a table, in order. */
static const int all_cols[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };

struct opts {
	struct out_fmt fmt;
	int sel[P_NCOLS * 2], nsel; /* the pool columns shown */
	bool procs;
	bool dry_run;
	int node;           /* -1: the host-wide pool */
	unsigned margin_bp; /* plan: basis points */
};

enum { O_NO_PROCS = 256 };

static const struct thp_opt opts[] = {
	THP_OPT_LONG(O_NO_PROCS, "no-procs", NULL, "do not look for processes that use the pools"),
	THP_OPT_LONG('N', "node", "N", "set, persist: NUMA node N's pool instead of the\n"
				       "host-wide one; plan: size the pool of node N, from that\n"
				       "node's RAM and free blocks"),
	THP_OPT_LONG('D', "dry-run", NULL, "set: validate and show the change, write nothing;\n"
					   "persist: print the files, write nothing"),
	THP_OPT_LONG('F', "force", NULL, "persist: replace a file that thp did not write"),
	THP_OPT_LONG('M', "margin", "PCT", "plan: extra room on top of SIZE (default 5%)"),
	THP_OPT_TEXT(22, "The table options (-o picks the pool table's columns; -n, -r, -P and -b apply\n"
			 "to every table):"),
	THP_OPTS_TABLE,
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] hugetlb [options]\n"
		 "       thp hugetlb set SIZE=PAGES... [--node N] [--dry-run]\n"
		 "       thp hugetlb persist [[nodeN:]SIZE=PAGES...] [--node N] [--dry-run]\n"
		 "                           [--force]\n"
		 "       thp hugetlb plan SIZE [--margin PCT] [--node N]\n"
		 "\n"
		 "Static huge page pools (hugetlbfs), which are reserved memory apart from THP:\n"
		 "pools per page size and NUMA node, hugetlbfs mounts, and the processes that map\n"
		 "pool pages. 'set' resizes a pool and reports what the kernel really gave;\n"
		 "'persist' keeps the pools given (none: the pools as they are) at every boot:\n"
		 "the default size's in /" THP_SYSCTLD_DIR "/" THP_POOLS_SYSCTLD_NAME " (vm.nr_hugepages),\n"
		 "other sizes and nodeN: pools in /" THP_TMPFILES_DIR "/" THP_POOLS_TMPFILES_NAME ", and\n"
		 "for pages of 1 GiB and more it prints the kernel command-line options;\n"
		 "'plan' computes the pages and settings a buffer of SIZE needs (e.g. 16G), on\n"
		 "the host or, with --node, in one NUMA node's pool.",
	.width = 22,
	.opts = opts,
	.cols = pool_cols,
	.ncols = P_NODE,
};

static const char *sz(char *buf, size_t cap, uint64_t bytes, const struct opts *o)
{
	return out_size(buf, cap, bytes, o->fmt.bytes);
}

static const char *cnt(char *buf, size_t cap, uint64_t n)
{
	return out_count(buf, cap, n);
}

/* Says that there is no node ID in H, naming the nodes there are. */
static void no_node(const struct thp_hugetlb *h, int id)
{
	char ids[160] = "";
	size_t len = 0;

	for (int i = 0; i < h->nnodes && len + 16 < sizeof(ids); i++)
		len += (size_t)snprintf(ids + len, sizeof(ids) - len, "%s%d", i ? ", " : "", h->nodes[i].id);
	if (h->nnodes)
		thp_err("no NUMA node %d on this host (node%s %s)", id, h->nnodes > 1 ? "s" : "",
			ids);
	else
		thp_err("no NUMA node %d on this host (this kernel shows no NUMA nodes)", id);
}

/* Why the pool list is empty, in words. */
static const char *no_pools(const struct thp_hugetlb *h)
{
	if (h->pools_err == -ENOENT)
		return "this kernel has no static huge pages (no /sys/kernel/mm/hugepages)";
	if (h->pools_err)
		return "/sys/kernel/mm/hugepages could not be listed";
	return "/sys/kernel/mm/hugepages lists no page size";
}

/* A pool of a table of pool_cols: the host's (NODE -1), or a node's. */
struct pool_row {
	const struct thp_hpool *p;
	int node;
};

/* The getter of pool_cols (arg: the column) for a struct pool_row. */
static void get_pool(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct pool_row *r = row;
	const struct thp_hpool *p = r->p;

	(void)ctx;
	if (c->arg == P_ERROR) {
		v->s = p->err ? thp_strerror(p->err) : NULL;
		v->null = !p->err;
		return;
	}
	if (p->err && c->arg != P_SIZE && c->arg != P_NODE) {
		v->null = true;
		if (c->arg == P_TOTAL)
			snprintf(v->buf, v->cap, "unknown (%s)", thp_strerror(p->err));
		v->text = c->arg == P_TOTAL ? v->buf : "";
		return;
	}
	switch (c->arg) {
	case P_SIZE: v->u = p->size; break;
	case P_TOTAL: v->u = p->total; break;
	case P_IN_USE: v->u = p->total >= p->free ? p->total - p->free : 0; break;
	case P_FREE: v->u = p->free; break;
	case P_RESERVED: v->u = p->resv; break;
	case P_SURPLUS: v->u = p->surplus; break;
	case P_OVERCOMMIT: v->u = p->overcommit; break;
	case P_MEMORY: v->u = p->total * p->size; break;
	default: v->u = (uint64_t)r->node; break;
	}
}

static void get_mount(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct thp_hmount *m = row;

	(void)ctx;
	if (c->arg == M_PAGE_SIZE) {
		v->u = m->page_size;
		v->null = !m->page_size;
		v->text = m->page_size ? NULL : "unknown";
	} else {
		v->s = c->arg == M_MOUNT ? m->path : m->options;
	}
}

static void get_user(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct thp_huser *u = row;

	(void)ctx;
	switch (c->arg) {
	case U_PID: v->u = (uint64_t)u->pid; break;
	case U_COMMAND: v->s = u->comm; break;
	case U_PRIVATE: v->u = u->private_hugetlb; break;
	default: v->u = u->shared_hugetlb; break;
	}
}

/* The host's pools: the table of the chosen columns, and what it says. */
static void print_pools(const struct thp_hugetlb *h, const struct opts *o)
{
	char b[8][32];
	uint64_t held = 0;
	bool any = false;
	struct out_table *t;

	out_text("Static huge page pools (/sys/kernel/mm/hugepages; reserved memory, not THP)\n");
	if (!h->npools)
		out_text("  %s: %s\n", h->pools_err && h->pools_err != -ENOENT ? "unknown" : "none", no_pools(h));
	t = out_table_open("pools", pool_cols, o->sel, o->nsel, &o->fmt, NULL);
	for (int i = 0; i < h->npools; i++) {
		const struct thp_hpool *p = &h->pools[i];
		held += p->err ? 0 : p->total * p->size;
		any |= !p->err && (p->total || p->overcommit);
		out_table_add(t, &(struct pool_row){ p, -1 });
	}
	out_table_close(t, 2);
	out_put(h->default_size ? OUT_ANY : OUT_JSON, "default_size",
		"  default size %s (MAP_HUGETLB, SHM_HUGETLB and mounts without pagesize=)\n",
		ov_if(h->default_size, ov_size(h->default_size)));
	out_put(OUT_JSON, "mem_total", NULL, ov_if(h->mem_total, ov_size(h->mem_total)));
	if (!h->npools)
		return;
	if (h->mem_total && held && !out_json_on())
		out_note("the pools hold %s of %s RAM (%s); no other use can have that memory", sz(b[0], 32, held, o),
			 sz(b[1], 32, h->mem_total, o), out_pct(b[2], 32, held, h->mem_total));
	if (!any)
		out_text("  no pages reserved: 'thp hugetlb plan SIZE' tells how many a buffer needs\n");
	for (int i = 0; i < h->npools; i++) {
		const struct thp_hpool *p = &h->pools[i];
		if (!p->err && p->resv > p->free)
			out_text("  %s: %s pages reserved but only %s free: the pool is overcommitted\n",
				 sz(b[0], 32, p->size, o), cnt(b[1], 32, p->resv), cnt(b[2], 32, p->free));
	}
}

static void print_nodes(const struct thp_hugetlb *h, const struct opts *o)
{
	struct out_table *t;

	out_text("\nPer NUMA node (/sys/devices/system/node/node*/hugepages)\n");
	if (!h->nnodes)
		out_text("%s\n", h->nodes_err == -ENOENT || !h->nodes_err
					 ? "  none: this kernel shows no NUMA nodes"
					 : "  unknown: /sys/devices/system/node could not be listed");
	t = out_table_open("nodes", pool_cols, node_cols, o->fmt.json ? NODE_TEXT_COLS + 1 : NODE_TEXT_COLS,
			   &o->fmt, NULL);
	for (int n = 0; n < h->nnodes; n++)
		for (int i = 0; i < h->npools; i++)
			if (h->nodes[n].pools[i].size)
				out_table_add(t, &(struct pool_row){ &h->nodes[n].pools[i], h->nodes[n].id });
	out_table_close(t, 2);
}

static void print_mounts(const struct thp_hugetlb *h, const struct opts *o)
{
	struct out_table *t;

	out_text("\nhugetlbfs mounts (/proc/mounts)\n");
	if (h->mounts_err) {
		out_text("  unknown: /proc/mounts could not be read (%s)\n", thp_strerror(h->mounts_err));
		out_put(OUT_JSON, "mounts", NULL, ov_str(NULL));
		return;
	}
	if (!h->nmounts)
		out_text("  none: only mmap(MAP_HUGETLB) and shmget(SHM_HUGETLB) can use the pools,\n"
			 "  files need a mount such as 'mount -t hugetlbfs -o pagesize=2M none /dev/hugepages'\n");
	t = out_table_open("mounts", mount_cols, all_cols, M_NCOLS, &o->fmt, NULL);
	for (int i = 0; i < h->nmounts; i++)
		out_table_add(t, &h->mounts[i]);
	out_table_close(t, 2);
}

static void print_users(const struct thp_huser *u, int n, int denied, int err, const struct opts *o)
{
	struct out_table *t;

	if (!o->procs) {
		out_put(OUT_JSON, "processes", NULL, ov_str(NULL));
		return;
	}
	out_text("\nProcesses that map pool pages (Private_Hugetlb, Shared_Hugetlb of smaps_rollup)\n");
	if (err) {
		out_text("  unknown: /proc could not be listed (%s)\n", thp_strerror(err));
		out_put(OUT_JSON, "processes", NULL, ov_str(NULL));
		return;
	}
	if (!n)
		out_text("  none\n");
	t = out_table_open("processes", user_cols, all_cols, U_NCOLS, &o->fmt, NULL);
	for (int i = 0; i < n; i++)
		out_table_add(t, &u[i]);
	out_table_close(t, 2);
	if (n)
		out_text("  a shared mapping counts in every process that maps it\n");
	out_put(denied ? OUT_ANY : OUT_JSON, "unreadable_processes", "  %s", ov_int(denied));
	if (denied)
		out_text(" %s could not be read (permission denied)%s\n", denied == 1 ? "process" : "processes",
			 thp_root_hint(-EACCES));
}

static int show(struct thp_ctx *ctx, const struct thp_hugetlb *h, const struct opts *o)
{
	struct thp_huser *u = NULL;
	int n = 0, denied = 0, err = 0;

	if (o->procs)
		err = thp_hugetlb_users(&ctx->root, &u, &n, &denied);
	out_doc_begin(o->fmt.json, o->fmt.bytes, "thp-hugetlb/2");
	out_put(OUT_JSON, "root", NULL, ov_str(ctx->root.path));
	print_pools(h, o);
	if (h->npools || o->fmt.json) {
		print_nodes(h, o);
		print_mounts(h, o);
		out_put(OUT_JSON, "hugetlb_shm_group", NULL, ov_if(h->shm_group >= 0, ov_int(h->shm_group)));
		print_users(u, n, denied, err, o);
	}
	free(u);
	if (out_doc_end())
		return 1;
	if (err) {
		thp_procs_unlisted(&ctx->root, err, "the processes that map pool pages are not shown");
		return 1;
	}
	return 0;
}

/* Whether the pools of SIZE A on node NA and of SIZE B on node NB (-1: the
 * host's) may not both be given: the same pool twice, or a size host-wide and
 * per node (the host's pool is the sum of the nodes'). Returns 2 after saying
 * why, or 0: a usage error, as the same key twice in 'thp set'. */
static int given_twice(uint64_t a, int na, uint64_t b, int nb)
{
	char s[64], node[24] = "";

	if (a != b || (na >= 0 && nb >= 0 && na != nb))
		return 0;
	if (na >= 0)
		snprintf(node, sizeof(node), "node%d:", na);
	if (na == nb)
		thp_err("%s%s is given twice; nothing was changed", node, out_size_spec(s, sizeof(s), a));
	else
		thp_err("the %s pool is given host-wide and per node; the host's is the sum of the "
			"nodes': give one or the other", out_size_spec(s, sizeof(s), a));
	return 2;
}

/* Parses "SIZE=PAGES" into *SIZE and *PAGES. Returns 0, or prints why and
 * returns 2. */
static int parse_assign(const char *arg, uint64_t *size, uint64_t *pages)
{
	char spec[64];
	const char *eq = strchr(arg, '=');

	if (!eq || (size_t)(eq - arg) >= sizeof(spec)) {
		thp_err("expected SIZE=PAGES such as 2M=512, got '%s'", arg);
		return 2;
	}
	snprintf(spec, sizeof(spec), "%.*s", (int)(eq - arg), arg);
	if (thp_arg_size(spec, 1, UINT64_MAX, size)) {
		thp_err("'%s' is not a page size (write 2M, 1G, 64K or 2048kB)", spec);
		return 2;
	}
	if (!thp_opt_u64("number of pages", eq + 1, 0, UINT64_MAX, pages))
		return 2;
	return 0;
}

/* Lists the pool sizes of H as "2M, 1G" for messages. */
static const char *size_list(const struct thp_hugetlb *h, char *buf, size_t cap)
{
	size_t len = 0;
	char s[32];

	buf[0] = '\0';
	for (int i = 0; i < h->npools && len < cap; i++) {
		int n = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
				 out_size_spec(s, sizeof(s), h->pools[i].size));
		len += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

/* 0 when every pool file of PC may be opened for writing, else 1 after
 * saying which may not. */
static int writable(const struct thp_ctx *ctx, const struct thp_pools_change *pc)
{
	for (int i = 0; i < pc->n; i++) {
		int fd = thp_root_openat(&ctx->root, pc->v[i].rel, O_WRONLY | O_NONBLOCK, 0);

		if (fd < 0) {
			thp_err("cannot write '/%s': %s%s", pc->v[i].rel, strerror(-fd), thp_root_hint(fd));
			return 1;
		}
		close(fd);
	}
	return 0;
}

/* True after saying so when SUB asks for PAGES pages of SIZE, more than the
 * RAM of H holds, or (RAM unknown) than 64 bits count in bytes. */
static bool too_many(const struct thp_hugetlb *h, uint64_t size, uint64_t pages, bool bytes)
{
	uint64_t most = (h->mem_total ? h->mem_total : UINT64_MAX) / size;
	char spec[32], ask[80] = "", ram[64];

	if (pages <= most)
		return false;
	out_size_spec(spec, sizeof(spec), size);
	if (!h->mem_total) {
		thp_err("%s=%" PRIu64 " asks for more bytes than 64 bits count (at most %"
			PRIu64 " pages of %s)", spec, pages, most, spec);
		return true;
	}
	if (pages <= UINT64_MAX / size) { /* else the size itself is too large to say */
		out_size(ask, sizeof(ask) - 2, pages * size, bytes);
		strcat(ask, ", ");
	}
	thp_err("%s=%" PRIu64 " asks for %smore than the %s of RAM (at most %" PRIu64
		" pages of %s)", spec, pages, ask, out_size(ram, sizeof(ram), h->mem_total, bytes),
		most, spec);
	return true;
}

/* Points *P at the pool of SIZE of H, NODE's (-1: the host's). Returns 0,
 * or after saying why there is none: 1 when H has no pools or no node NODE,
 * 2 when it has no pool of SIZE (there), which the kernel would refuse. */
static int pool_for(const struct thp_hugetlb *h, uint64_t size, int node, const struct thp_hpool **p)
{
	char b[64], list[128];
	int i, nd = -1;

	if (!h->npools) {
		thp_err("%s", no_pools(h));
		return 1;
	}
	if (node >= 0 && (nd = thp_hugetlb_node(h, node)) < 0) {
		no_node(h, node);
		return 1;
	}
	if ((i = thp_hugetlb_find(h, size)) < 0) {
		thp_err("no %s pool; this kernel has %s", out_size_spec(b, sizeof(b), size),
			size_list(h, list, sizeof(list)));
		return 2;
	}
	if (nd >= 0 && !h->nodes[nd].pools[i].size) {
		thp_err("node %d has no %s pool", node, out_size_spec(b, sizeof(b), size));
		return 2;
	}
	*p = nd >= 0 ? &h->nodes[nd].pools[i] : &h->pools[i];
	return 0;
}

/* Checks every pool of PC against H before anything is written, and notes
 * what the change and its report need: each pool's size before and file in
 * PC, the pages it holds and the free blocks in SEEN. Returns 0, or after
 * saying why not 2 for a pool or a number of pages the kernel would refuse
 * (no pool of that size, more pages than RAM), else 1. */
static int validate(const struct thp_ctx *ctx, const struct thp_hugetlb *h, struct thp_pools_change *pc,
		    struct thp_pool_seen *seen, const struct opts *o)
{
	const struct thp_hpool *p;
	char b[64];
	int rc;

	for (int i = 0; i < pc->n; i++) {
		struct thp_pool_change *c = &pc->v[i];
		if ((rc = pool_for(h, c->size, o->node, &p)) != 0)
			return rc;
		if (p->err) {
			thp_err("cannot read the %s pool: %s",
				out_size_spec(b, sizeof(b), c->size), thp_strerror(p->err));
			return 1;
		}
		if (too_many(h, c->size, c->want, o->fmt.bytes))
			return 2;
		c->before = p->total;
		seen[i].in_use = p->total >= p->free ? p->total - p->free : 0;
		seen[i].resv = o->node >= 0 ? 0 : p->resv;
		thp_hugetlb_path(c->rel, sizeof(c->rel), c->size, o->node);
		seen[i].blocks_err = thp_buddy_blocks(&ctx->root, o->node, c->size, h->page_size,
						      &seen[i].blocks);
	}
	return 0;
}

static int set(struct thp_ctx *ctx, struct thp_hugetlb *h, char **args, int nargs,
	       const struct opts *o)
{
	struct thp_pools_change pc = { .node = o->node };
	struct thp_pool_seen seen[SETS_MAX];
	struct thp_pools_run run;
	int rc;

	if (nargs == 0) {
		thp_err("expected SIZE=PAGES such as 2M=512");
		return thp_usage_error("hugetlb");
	}
	if (nargs > SETS_MAX) {
		thp_err("at most %d sizes at once", SETS_MAX);
		return 2;
	}
	memset(seen, 0, sizeof(seen));
	for (pc.n = 0; pc.n < nargs; pc.n++) {
		struct thp_pool_change *c = &pc.v[pc.n];
		if (parse_assign(args[pc.n], &c->size, &c->want))
			return thp_usage_error("hugetlb");
		for (int j = 0; j < pc.n; j++)
			if (given_twice(pc.v[j].size, o->node, c->size, o->node))
				return 2;
	}
	/* refused before the lock, as before a change that did not finish is put back */
	if ((rc = validate(ctx, h, &pc, seen, o)) != 0)
		return rc;
	if (o->dry_run)
		return thp_pools_report(&o->fmt, h, &pc, seen, NULL);
	if ((rc = thp_change_begin(ctx, "changing a pool")) != 0)
		return rc;
	struct thp_pools_recovery *r = thp_recover_pools(&ctx->root, false);
	rc = thp_pools_recovery_report(r);
	free(r);
	if (rc)
		return rc;
	thp_hugetlb_read(&ctx->root, h); /* again: the writer before, or its journal, changed it */
	if ((rc = validate(ctx, h, &pc, seen, o)) != 0 || (rc = writable(ctx, &pc)) != 0)
		return rc;
	thp_pools_run(&ctx->root, &pc, &run);
	return thp_pools_report(&o->fmt, h, &pc, seen, &run);
}

/* The pools 'hugetlb persist' keeps at boot, at most: every size, host-wide and on a few nodes. */
#define PERSIST_MAX 64
#define PERSIST_SCHEMA "thp-hugetlb-persist/2"

/* Parses "[nodeN:]SIZE=PAGES" (NODE: the node without a prefix, -1: the host)
 * into P. Returns 0, or prints why and returns 2. */
static int parse_pool(const char *arg, int node, struct thp_pool *p)
{
	const char *colon = strchr(arg, ':');
	char id[16];

	p->node = node;
	if (colon && strncmp(arg, "node", 4) == 0) {
		snprintf(id, sizeof(id), "%.*s", (int)(colon - arg - 4 < 15 ? colon - arg - 4 : 15), arg + 4);
		if (!thp_opt_int("node", id, 0, NODE_MAX, &p->node))
			return 2;
		arg = colon + 1;
	}
	return parse_assign(arg, &p->size, &p->pages);
}

/* The pools of H now (of node NODE; -1: the host's) that hold pages, as V;
 * returns their number. */
static int current_pools(const struct thp_hugetlb *h, int node, struct thp_pool *v)
{
	int nd = node < 0 ? -1 : thp_hugetlb_node(h, node), n = 0;

	for (int i = 0; i < h->npools && (node < 0 || nd >= 0); i++) {
		const struct thp_hpool *p = nd < 0 ? &h->pools[i] : &h->nodes[nd].pools[i];
		if (p->size && !p->err && p->total > p->surplus)
			v[n++] = (struct thp_pool){ p->size, node, p->total - p->surplus };
	}
	return n;
}

/* Checks the N pools V against H: each there and within RAM. Returns 0 or 1
 * after saying why not. */
static int persist_check(const struct thp_hugetlb *h, const struct thp_pool *v, int n, bool bytes)
{
	const struct thp_hpool *p;

	for (int i = 0; i < n; i++)
		if (pool_for(h, v[i].size, v[i].node, &p) || too_many(h, v[i].size, v[i].pages, bytes))
			return 1;
	return 0;
}

static int by_node_size(const void *a, const void *b)
{
	const struct thp_pool *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->size > y->size) - (x->size < y->size);
}

/* The boot file F left as it was because thp did not write it (and has
 * nothing for it). */
static bool left_alone(const struct thp_boot_file *f)
{
	return f->done == THP_BOOT_KEPT && !f->text && f->cur;
}

/* Member KEY: the paths of the N files F in state DONE (THP_BOOT_KEPT: those
 * left alone). */
static void put_paths(const char *key, const struct thp_boot_file *f, int n, int done)
{
	out_arr(key);
	for (int i = 0; i < n; i++)
		if ((int)f[i].done == done && (done != THP_BOOT_KEPT || left_alone(&f[i])))
			out_put(OUT_JSON, NULL, NULL, ov_str(f[i].shown));
	out_end();
}

/* What 'hugetlb persist' says after writing F (N files) for the NP pools
 * with command-line options OPTS. */
static int persist_report(const struct thp_ctx *ctx, const struct thp_boot_file *f, int n, int np,
			  const char *opts)
{
	static const char *const by[] = { "systemd-sysctl", "systemd-tmpfiles" };
	static const char *const what[] = { "the pool of the default page size", "these pools" };

	out_doc_begin(ctx->json, false, PERSIST_SCHEMA);
	out_put(OUT_JSON, "pools", NULL, ov_int(np));
	put_paths("written", f, n, THP_BOOT_WRITTEN);
	put_paths("removed", f, n, THP_BOOT_REMOVED);
	put_paths("left", f, n, THP_BOOT_KEPT);
	for (int i = 0; i < n; i++) {
		if (f[i].done == THP_BOOT_WRITTEN)
			out_text("wrote %s: %s sizes %s at every boot\n", f[i].shown, by[i], what[i]);
		else if (f[i].done == THP_BOOT_REMOVED)
			out_text("removed %s: no pool it sized is given\n", f[i].shown);
		else if (left_alone(&f[i]))
			out_text("left %s alone: thp did not write it\n", f[i].shown);
	}
	out_put(OUT_JSON, "cmdline", NULL, ov_str(opts));
	if (opts[0])
		out_text("\npages of 1 GiB and more are reserved only on the kernel command line:\n%s\n\n%s%s",
			 opts, thp_bootloader_help,
			 strchr(opts, ':') ? "hugepages=NODE:PAGES,... needs Linux 5.16+.\n" : "");
	if (!ctx->root.live)
		out_text("this is the host below '%s'; nothing was applied to this host\n", ctx->root.path);
	else
		out_text("'thp hugetlb set' resizes the pools now; 'thp persist --check' compares them with "
			 "the kernel after a reboot\n");
	return out_doc_end() ? 1 : 0;
}

/* --dry-run: the files as they would be, and the command-line options OPTS. */
static int persist_dry(const struct thp_ctx *ctx, const struct thp_boot_file *f, int n, const char *opts)
{
	out_doc_begin(ctx->json, false, PERSIST_SCHEMA);
	out_put(OUT_JSON, "dry_run", NULL, ov_bool(true));
	thp_boot_files_put("files", f, n);
	for (int i = 0; i < n; i++)
		if (f[i].text)
			out_text("# %s\n%s", f[i].shown, f[i].text);
		else if (f[i].cur)
			out_text("# %s: removed\n", f[i].shown);
	out_put(OUT_JSON, "cmdline", NULL, ov_str(opts));
	if (opts[0])
		out_text("# kernel command line\n%s\n", opts);
	return out_doc_end() ? 1 : 0;
}

/* Gives the files F (N: the sysctl.d file, then the tmpfiles.d one) the
 * text that sizes the NP pools V at boot (NULL when they size none), and
 * *OPTS the command-line options. Returns false when out of memory. */
static bool persist_texts(const struct thp_pool *v, int np, uint64_t default_size,
			  struct thp_boot_file *f, int n, char **opts)
{
	static const enum thp_pool_boot kind[] = { THP_POOL_SYSCTL, THP_POOL_TMPFILES };

	for (int i = 0; i < n; i++) {
		bool any = false;
		for (int j = 0; j < np; j++)
			any = any || thp_pool_boot(&v[j], default_size) == kind[i];
		if (any && !(f[i].text = thp_pools_format(v, np, default_size, kind[i])))
			return false;
	}
	return (*opts = thp_pools_format(v, np, default_size, THP_POOL_CMDLINE)) != NULL;
}

/* Puts back the files of a 'hugetlb persist' that did not finish, then
 * writes the N files F (FORCE: also over files thp did not write), saying
 * what failed. Returns the exit status. */
static int persist_write(const struct thp_ctx *ctx, struct thp_boot_file *f, int n, bool force)
{
	struct thp_boot_back b;
	struct thp_boot_run r;
	int rc;

	thp_boot_files_recover(&ctx->root, f, n, &b);
	if ((rc = thp_boot_back_report(&b)) != 0)
		return rc;
	thp_boot_files_write(&ctx->root, f, n, force, &r);
	return thp_boot_run_report(f, &r);
}

/* 'hugetlb persist': keeps the pools of ARGS (none: the pools now) at boot. */
static int persist(struct thp_ctx *ctx, const struct thp_hugetlb *h, char **args, int nargs,
		   const struct opts *o, bool force)
{
	struct thp_boot_file f[] = {
		{ .dir = THP_SYSCTLD_DIR, .name = THP_POOLS_SYSCTLD_NAME, .mark = THP_POOLS_MARK },
		{ .dir = THP_TMPFILES_DIR, .name = THP_POOLS_TMPFILES_NAME, .mark = THP_POOLS_MARK },
	};
	struct thp_pool v[PERSIST_MAX];
	char *opts = NULL;
	int n = nargs, rc = 1, nf = (int)(sizeof(f) / sizeof(f[0]));

	if (nargs > PERSIST_MAX) {
		thp_err("at most %d pools at once", PERSIST_MAX);
		return 2;
	}
	for (int i = 0; i < nargs; i++) {
		if (parse_pool(args[i], o->node, &v[i]))
			return thp_usage_error("hugetlb");
		for (int j = 0; j < i; j++)
			if (given_twice(v[j].size, v[j].node, v[i].size, v[i].node))
				return 2;
	}
	if (!nargs && !h->npools) {
		thp_err("%s", no_pools(h));
		return 1;
	}
	if (!nargs && o->node >= 0 && thp_hugetlb_node(h, o->node) < 0) {
		no_node(h, o->node);
		return 1;
	}
	if (!nargs)
		n = current_pools(h, o->node, v);
	if (persist_check(h, v, n, o->fmt.bytes))
		return 1;
	qsort(v, (size_t)n, sizeof(v[0]), by_node_size);
	thp_boot_files_read(&ctx->root, f, nf);
	if (!persist_texts(v, n, h->default_size, f, nf, &opts))
		thp_err("out of memory");
	else if (o->dry_run)
		rc = persist_dry(ctx, f, nf, opts);
	else if ((rc = thp_change_begin(ctx, "writing what boot applies")) == 0 &&
		 (rc = persist_write(ctx, f, nf, force)) == 0 && (rc = persist_report(ctx, f, nf, n, opts)))
		for (int i = 0; i < nf; i++) /* the files are changed all the same */
			if (f[i].done != THP_BOOT_KEPT)
				thp_err("%s %s, but the report cannot be printed",
					f[i].done == THP_BOOT_WRITTEN ? "wrote" : "removed", f[i].shown);
	free(opts);
	thp_boot_files_free(f, nf);
	return rc;
}

/* What 'hugetlb plan' sizes for: the host, or one NUMA node. */
struct plan_scope {
	int node;                     /* -1: the host */
	uint64_t mem_total;           /* bytes of RAM there; 0: unknown */
	const struct thp_hpool *pools; /* in the order of thp_hugetlb.pools; size 0: none there */
	char where[32];               /* "" or " on node N" */
};

/* The lines that make a pool of PAGES pages of SIZE in scope SC, now and at
 * every boot. */
static void plan_commands(const struct thp_hugetlb *h, const struct plan_scope *sc, uint64_t size,
			  uint64_t pages)
{
	char s[32], rel[256], node[24] = "", cmdline_node[16] = "";

	out_size_spec(s, sizeof(s), size);
	thp_hugetlb_path(rel, sizeof(rel), size, sc->node);
	if (sc->node >= 0) {
		snprintf(node, sizeof(node), " --node %d", sc->node);
		snprintf(cmdline_node, sizeof(cmdline_node), "%d:", sc->node);
	}
	printf("    now:       thp hugetlb set %s=%" PRIu64 "%s\n", s, pages, node);
	printf("               (or: echo %" PRIu64 " > /%s)\n", pages, rel);
	if (thp_pool_boot(&(struct thp_pool){ size, sc->node, pages }, h->default_size) != THP_POOL_CMDLINE)
		printf("    at boot:   thp hugetlb persist %s%s%s=%" PRIu64 "\n"
		       "               (early in boot; still subject to fragmentation)\n",
		       sc->node >= 0 ? "node" : "", sc->node >= 0 ? cmdline_node : "", s, pages);
	printf("    kernel:    hugepagesz=%s hugepages=%s%" PRIu64
	       "  (most reliable: reserved before memory fragments)\n", s, cmdline_node, pages);
	if (sc->node >= 0)
		puts("               (a count per node needs Linux 5.16+)");
	if (size != h->default_size)
		printf("               add default_hugepagesz=%s to make it the size MAP_HUGETLB and\n"
		       "               SHM_HUGETLB get without asking for one\n", s);
}

/* Sets SC to the host, or to node O->node of H with the MemTotal of its
 * nodeN/meminfo. Returns 0, or 2 after saying the node is not there. */
static int plan_scope(struct thp_ctx *ctx, const struct thp_hugetlb *h, const struct opts *o,
		      struct plan_scope *sc)
{
	struct thp_numa_node d = { .id = o->node };
	int nd;

	memset(sc, 0, sizeof(*sc));
	sc->node = o->node;
	sc->mem_total = h->mem_total;
	sc->pools = h->pools;
	if (o->node < 0)
		return 0;
	nd = thp_hugetlb_node(h, o->node);
	if (nd < 0) {
		no_node(h, o->node);
		return thp_usage_error("hugetlb");
	}
	thp_numa_node_read(&ctx->root, &d);
	sc->mem_total = d.has_meminfo ? d.mem_total : 0;
	sc->pools = h->nodes[nd].pools;
	snprintf(sc->where, sizeof(sc->where), " on node %d", o->node);
	return 0;
}

/* "5%", "2.5%" from basis points. */
static const char *percent(char *buf, size_t cap, unsigned bp)
{
	if (bp % 100 == 0)
		snprintf(buf, cap, "%u%%", bp / 100);
	else if (bp % 10 == 0)
		snprintf(buf, cap, "%u.%u%%", bp / 100, bp % 100 / 10);
	else
		snprintf(buf, cap, "%u.%02u%%", bp / 100, bp % 100);
	return buf;
}

/* Pool I of H sized for BYTES in scope SC: its pages, how they fit, and the
 * lines that make them (in JSON, an element of sizes). */
static void plan_size(struct thp_ctx *ctx, const struct thp_hugetlb *h, const struct plan_scope *sc, int i,
		      uint64_t bytes, const struct opts *o)
{
	const struct thp_hpool *p = &h->pools[i], *here = &sc->pools[i];
	uint64_t pages = thp_hugetlb_pages_for(bytes, o->margin_bp, p->size), blocks;
	int berr = thp_buddy_blocks(&ctx->root, sc->node, p->size, h->page_size, &blocks);
	char b[6][32], path[256] = "/";

	thp_hugetlb_path(path + 1, sizeof(path) - 1, p->size, sc->node);
	out_obj(NULL);
	out_put(OUT_JSON, "page_size", NULL, ov_size(p->size));
	out_put(OUT_JSON, "pages", NULL, ov_count(pages));
	out_put(OUT_JSON, "bytes", NULL, ov_size(pages * p->size));
	out_put(OUT_JSON, "pool_now", NULL, ov_if(!here->err && here->size, ov_count(here->total)));
	out_put(OUT_JSON, "file", NULL, ov_str(path));
	out_put(OUT_JSON, "boot_only", NULL, ov_bool(berr == -ERANGE));
	out_put(OUT_JSON, "free_blocks", NULL, ov_if(!berr, ov_count(blocks)));
	out_put(OUT_JSON, "default", NULL, ov_bool(p->size == h->default_size));
	out_end();
	if (out_json_on())
		return;
	printf("\n  %s pages%s: %s pages = %s", sz(b[0], 32, p->size, o),
	       p->size == h->default_size ? " (the default size)" : "", cnt(b[1], 32, pages),
	       sz(b[2], 32, pages * p->size, o));
	if (sc->mem_total)
		printf(", %s of %s", out_pct(b[3], 32, pages * p->size, sc->mem_total),
		       sc->node >= 0 ? "the node's RAM" : "RAM");
	if (!here->err && here->size)
		printf("; the pool has %s now", cnt(b[4], 32, here->total));
	putchar('\n');
	if (sc->mem_total && pages > sc->mem_total / p->size)
		printf("    more than this %s's RAM: not possible here\n", sc->node >= 0 ? "node" : "host");
	else if (sc->mem_total && pages > sc->mem_total / 10 * 9 / p->size)
		printf("    leaves less than 10%% of %sRAM for the kernel and every other use\n",
		       sc->node >= 0 ? "the node's " : "");
	else if (berr == -ERANGE)
		puts("    larger than the buddy allocator's blocks: at run time the kernel needs a\n"
		     "    free physically contiguous range per page, which a running host rarely has");
	else if (!berr && !here->err && pages > here->total && pages - here->total > blocks)
		printf("    only %s free %s blocks%s now (/proc/buddyinfo): a runtime resize may fall\n"
		       "    short; the kernel compacts and reclaims to find more\n",
		       cnt(b[3], 32, blocks), sz(b[5], 32, p->size, o), sc->where);
	plan_commands(h, sc, p->size, pages);
}

static int plan(struct thp_ctx *ctx, const struct thp_hugetlb *h, const char *arg,
		const struct opts *o)
{
	uint64_t bytes, want;
	char b[6][32];
	struct plan_scope sc;

	if (!thp_opt_size("size", arg, 1, PLAN_MAX, "the most a Linux host addresses",
			  &bytes))
		return thp_usage_error("hugetlb");
	if (plan_scope(ctx, h, o, &sc))
		return 2;
	if (!h->npools) {
		thp_err("%s", no_pools(h));
		return 1;
	}
	want = thp_hugetlb_pages_for(bytes, o->margin_bp, 1);
	out_doc_begin(o->fmt.json, o->fmt.bytes, "thp-hugetlb-plan/1");
	out_put(OUT_JSON, "size", NULL, ov_size(bytes));
	out_text("Static huge pages%s for %s", sc.where, sz(b[0], 32, bytes, o));
	out_put(OUT_JSON, "margin_percent", NULL, ov_num(o->margin_bp / 100.0, -1));
	if (o->margin_bp)
		out_text(" + %s margin = %s", percent(b[2], 32, o->margin_bp), sz(b[1], 32, want, o));
	out_text("\n");
	out_put(OUT_JSON, "node", NULL, ov_if(sc.node >= 0, ov_int(sc.node)));
	out_arr("sizes");
	for (int i = 0; i < h->npools; i++)
		plan_size(ctx, h, &sc, i, bytes, o);
	out_end();
	out_put(OUT_JSON, "mem_total", NULL, ov_if(sc.mem_total, ov_size(sc.mem_total)));
	out_put(OUT_JSON, "hugetlb_shm_group", NULL, ov_if(h->shm_group >= 0, ov_int(h->shm_group)));
	if (out_json_on())
		return out_doc_end() ? 1 : 0;
	printf("\n  Access (mmap(MAP_HUGETLB) needs no extra permission):\n"
	       "    PostgreSQL   huge_pages = on; PostgreSQL 15+ tells the exact count with\n"
	       "                 'postgres -D DATADIR -C shared_memory_size_in_huge_pages';\n"
	       "                 a non-default size needs huge_page_size (PostgreSQL 14+)\n"
	       "    JVM          -XX:+UseLargePages, and -XX:LargePageSizeInBytes=1g for 1 GiB pages;\n"
	       "                 -XX:+AlwaysPreTouch faults the heap in at start\n"
	       "    MySQL InnoDB large_pages = ON uses System V shared memory (SHM_HUGETLB): the\n"
	       "                 user needs CAP_IPC_LOCK or membership of vm.hugetlb_shm_group");
	if (h->shm_group >= 0)
		printf(" (now %" PRId64 ")", h->shm_group);
	printf(",\n"
	       "                 e.g. 'sysctl -w vm.hugetlb_shm_group=$(id -g mysql)'; without it\n"
	       "                 the kernel falls back to RLIMIT_MEMLOCK >= the segment (memlock\n"
	       "                 %" PRIu64 " in /etc/security/limits.conf, LimitMEMLOCK=%" PRIu64 "K in\n"
	       "                 the unit), a route it logs as obsolete\n"
	       "    hugetlbfs    files need a mount the service user may write, e.g.\n"
	       "                 mount -t hugetlbfs -o pagesize=%s,uid=USER,mode=0700 none DIR\n",
	       (want + 1023) / 1024, (want + 1023) / 1024,
	       out_size_spec(b[2], 32, h->default_size ? h->default_size : h->pools[0].size));
	return out_doc_end() ? 1 : 0;
}

int cmd_hugetlb(struct thp_ctx *ctx, int argc, char **argv)
{
	struct opts o = { .procs = true, .node = -1, .margin_bp = 500 };
	const char *sub = "show";
	bool margin = false, force = false;
	struct thp_hugetlb *h;
	int c, rc;

	if (argc > 1 && (strcmp(argv[1], "set") == 0 || strcmp(argv[1], "plan") == 0 ||
			 strcmp(argv[1], "persist") == 0)) {
		static char name[32];

		sub = argv[1];
		argc--;
		argv++;
		snprintf(name, sizeof(name), "hugetlb %s", sub);
		thp_err_cmd(name);
	}
	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		if (out_fmt_opt(&o.fmt, c, optarg))
			continue;
		switch (c) {
		case O_NO_PROCS: o.procs = false; break;
		case 'D': o.dry_run = true; break;
		case 'F': force = true; break;
		case 'N':
			if (!thp_opt_int("--node", optarg, 0, NODE_MAX, &o.node))
				return thp_usage_error("hugetlb");
			break;
		case 'M':
			margin = true;
			if (!thp_opt_percent("--margin", optarg, 100000, &o.margin_bp))
				return thp_usage_error("hugetlb");
			break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	bool writes = strcmp(sub, "set") == 0 || strcmp(sub, "persist") == 0;
	if ((strcmp(sub, "show") == 0 && o.node >= 0) || (!writes && o.dry_run) ||
	    (strcmp(sub, "plan") != 0 && margin) || (strcmp(sub, "persist") != 0 && force)) {
		thp_err("--node belongs to 'set', 'persist' and 'plan', --dry-run to 'set' and "
			"'persist', --force to 'persist', --margin to 'plan'");
		return thp_usage_error("hugetlb");
	}
	o.fmt.json = ctx->json;
	/* the host's pools have no NODE; ERROR in JSON only, without -o */
	o.nsel = out_cols_select(pool_cols, P_NODE, &o.fmt, all_cols, o.fmt.json ? P_ERROR + 1 : P_ERROR,
				 o.sel, P_NCOLS * 2);
	if (o.nsel < 0)
		return 2;
	if (strcmp(sub, "show") == 0 && optind < argc) {
		thp_err("unexpected argument '%s'", argv[optind]);
		return thp_usage_error("hugetlb");
	}
	if (strcmp(sub, "plan") == 0 && optind + 1 != argc) {
		thp_err("expected one SIZE such as 16G");
		return thp_usage_error("hugetlb");
	}
	h = malloc(sizeof(*h));
	if (!h) {
		thp_err("out of memory");
		return 1;
	}
	thp_hugetlb_read(&ctx->root, h);
	if (strcmp(sub, "set") == 0)
		rc = set(ctx, h, argv + optind, argc - optind, &o);
	else if (strcmp(sub, "plan") == 0)
		rc = plan(ctx, h, argv[optind], &o);
	else if (strcmp(sub, "persist") == 0)
		rc = persist(ctx, h, argv + optind, argc - optind, &o, force);
	else
		rc = show(ctx, h, &o);
	free(h);
	return rc;
}
