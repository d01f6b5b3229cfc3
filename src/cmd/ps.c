/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ps.c - `thp ps`: which processes hold huge pages, and how much of their memory is huge */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../core/folios.h"
#include "../core/jobs.h"
#include "../core/parse.h"
#include "../core/proc.h"
#include "../core/users.h"
#include "../core/why.h"
#include "../render/render.h"
#include "../render/term.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

enum col {
	C_PID, C_USER, C_COMMAND, C_CGROUP, C_PROCS, C_RSS, C_ANON, C_THP, C_COVER, C_SHMEM_PMD, C_FILE_PMD,
	C_HUGETLB, C_PTE, C_THP_STATE, C_PPID, C_UID, C_THP_ENABLED, C_EXCEPT_ADVISED, C_SET_BY_PID, C_SET_BY,
	C_HUGE_ZERO, NCOLS
};

static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v);

/* The one descriptor of ps's columns: -o, sorting, the help text, the table,
 * -P and JSON. */
static const struct out_col cols[] = {
	[C_PID] = { "PID", OUT_COUNT, OUT_KEEP, "process id", get, C_PID },
	[C_USER] = { "USER", OUT_TEXT, OUT_KEEP, "owner (real user)", get, C_USER },
	[C_COMMAND] = { "COMMAND", OUT_TEXT, OUT_TRUNC | OUT_KEEP, "command name (full command line with -w)", get,
			C_COMMAND },
	[C_CGROUP] = { "CGROUP", OUT_TEXT, OUT_TRUNC | OUT_KEEP, "cgroup path (v2, or the v1 memory controller)",
		       get, C_CGROUP },
	[C_PROCS] = { "PROCS", OUT_COUNT, 0, "number of processes (with --by)", get, C_PROCS },
	[C_RSS] = { "RSS", OUT_SIZE, 0, "resident memory", get, C_RSS },
	[C_ANON] = { "ANON", OUT_SIZE, 0, "anonymous resident memory", get, C_ANON },
	[C_THP] = { "THP", OUT_SIZE, OUT_KEEP, "PMD-mapped anonymous THP (AnonHugePages)", get, C_THP },
	[C_COVER] = { "COVER", OUT_PCT, OUT_KEEP, "THP as a share of ANON", get, C_COVER },
	[C_SHMEM_PMD] = { "SHMEM_PMD", OUT_SIZE, 0, "PMD-mapped shmem/tmpfs (ShmemPmdMapped)", get, C_SHMEM_PMD },
	[C_FILE_PMD] = { "FILE_PMD", OUT_SIZE, 0, "PMD-mapped page cache (FilePmdMapped)", get, C_FILE_PMD },
	[C_HUGETLB] = { "HUGETLB", OUT_SIZE, 0, "hugetlbfs pages (Private_ + Shared_Hugetlb)", get, C_HUGETLB },
	[C_PTE] = { "PTE", OUT_SIZE, 0, "page tables, every level below the top (VmPTE)", get, C_PTE },
	[C_THP_STATE] = { "THP_STATE", OUT_TEXT, OUT_TRUNC | OUT_KEEP,
			  "on, off (prctl), off (inherited from PID COMM)", get, C_THP_STATE },
	[C_PPID] = { "PPID", OUT_COUNT, 0, "parent process id", get, C_PPID },
	[C_UID] = { "UID", OUT_COUNT, 0, "owner's user id (real)", get, C_UID },
	[C_THP_ENABLED] = { "THP_ENABLED", OUT_BOOL, 0, "THP allowed for the process (no prctl, a kernel with THP)",
			    get, C_THP_ENABLED },
	[C_EXCEPT_ADVISED] = { "EXCEPT_ADVISED", OUT_BOOL, 0, "PR_THP_DISABLE_EXCEPT_ADVISED inferred", get,
			       C_EXCEPT_ADVISED },
	[C_SET_BY_PID] = { "SET_BY_PID", OUT_COUNT, 0, "the process that set THP off or except-advised", get,
			   C_SET_BY_PID },
	[C_SET_BY] = { "SET_BY", OUT_TEXT, OUT_TRUNC, "its command name", get, C_SET_BY },
	[C_HUGE_ZERO] = { "HUGE_ZERO", OUT_SIZE, 0, "the huge zero page mapped (--folios; reads only, no memory)",
			  get, C_HUGE_ZERO },
};
_Static_assert(sizeof(cols) / sizeof(cols[0]) == NCOLS, "one descriptor per column");

/* Columns meaningless for --by groups. */
static bool per_process(int c)
{
	return c == C_PID || c == C_THP_STATE || (c >= C_PPID && c <= C_SET_BY);
}

static const int default_cols[] = { C_PID, C_USER, C_COMMAND, C_RSS, C_ANON, C_THP, C_COVER,
					  C_SHMEM_PMD, C_FILE_PMD, C_HUGETLB, C_THP_STATE };
static const int default_by_cols[] = { C_COMMAND, C_PROCS, C_RSS, C_ANON, C_THP, C_COVER,
					     C_SHMEM_PMD, C_FILE_PMD, C_HUGETLB };

enum by { BY_NONE, BY_COMM, BY_USER, BY_CGROUP };

/* One row: a process, a --by group or the totals, its strings in the scan's
 * arena (offsets into it), so that a row takes about 100 bytes: 10 MiB over
 * 100,000 processes, which ps keeps to sort them. */
struct row {
	uint64_t rss, anon, anon_huge, shmem_pmd, file_pmd, hugetlb;
	uint64_t pte;             /* VmPTE, summed over a group */
	pid_t pid, ppid;
	uid_t uid;
	uint32_t nprocs;          /* processes of a group */
	uint32_t npte;            /* processes that showed VmPTE */
	uint32_t name, cmd, cgroup; /* the command name, command (line), cgroup path */
	uint32_t user;             /* the owner's name (the getters run on several threads: no lookup there) */
	int8_t thp_enabled;
	bool except_advised;
	bool total;                /* the sums of the rows */
	struct thp_pstatus *origin; /* who set THP off or except-advised; NULL when nobody */
	struct thp_folio_stats *f; /* the page walk (--folios); NULL when it did not run */
};

/* -o's columns: those of ps, then the folio columns (--folios), then with
 * --by-size one per size */
#define NALL (NCOLS + OUT_FOLIO_COLS)
#define SIZES_MAX 16

struct opts {
	int cols[NALL * 2];
	int ncols;
	enum col sort;
	long limit;
	struct out_fmt fmt;
	bool all, totals, cmdline, folios, by_size;
	enum by by;
	pid_t *pids;
	int npids;
	bool have_user;
	uid_t user;
	bool have_regex;
	regex_t regex;
	const char *cgroup;
	uint64_t min;
	int jobs; /* threads reading the processes (--jobs) */
};

struct scan {
	const struct thp_root *root;
	struct opts *o;
	struct thp_users users;
	struct thp_status *host;   /* the host's THP policy */
	struct thp_why_ctx why;    /* for PR_THP_DISABLE_EXCEPT_ADVISED */
	bool infer;                /* it can be inferred on this host */
	int nsizes;                /* --by-size columns */
	uint64_t size_bytes[SIZES_MAX];
	int size_order[SIZES_MAX];
	struct thp_folio_reader *fr; /* with a reader per worker (thp_folio_reader_jobs) */
	int jobs;
	struct row *rows;
	size_t n, cap;
	char *arena;                   /* the rows' strings, each ending in NUL; "" at 0 */
	size_t alen, acap;
	struct thp_denied unreadable;
	int missing;
	uint64_t seen;                 /* processes looked at, for the progress count */
	struct batch *b;               /* [2]: one listed while the workers read the other */
	struct thp_batches q;
	int err;                       /* -ENOMEM: the scan stopped */
	struct out_progress progress;
	int folio_err;
	struct out_col all[NALL + SIZES_MAX]; /* the columns of the table */
	char size_names[SIZES_MAX][32];
};

enum { O_TOTALS = 256, O_CGROUP, O_MIN, O_BY, O_FOLIOS, O_BY_SIZE, O_LIMIT, O_JOBS };

static const struct thp_opt opts[] = {
	THP_OPT('s', "sort", "COL", "sort by COL (default THP; sizes descending)"),
	THP_OPT_LONG(O_LIMIT, "limit", "N", "show at most N rows"),
	THP_OPT('a', "all", NULL, "include processes without huge pages"),
	THP_OPT_LONG(O_TOTALS, "totals", NULL, "add a total row (over every matching process)"),
	THP_OPT('w', "cmdline", NULL, "show and match the full command line instead of the name"),
	THP_OPT('p', "pid", "LIST", "only these processes (comma-separated; implies --all)"),
	THP_OPT('u', "user", "USER", "only processes of USER (name or uid)"),
	THP_OPT('c', "command", "REGEX", "only processes whose command matches REGEX (extended)"),
	THP_OPT_LONG(O_CGROUP, "cgroup", "PATH", "only processes in cgroup PATH or below it (v1 or v2)"),
	THP_OPT_LONG(O_MIN, "min", "SIZE", "only processes with at least SIZE of huge pages (e.g. 64M)"),
	THP_OPT_LONG(O_BY, "by", "KEY", "one row per comm, user or cgroup, summed"),
	THP_OPT_LONG(O_FOLIOS, "folios", NULL,
		     "the real mapping of every page from pagemap (root): also\n"
		     "lists processes holding only mTHP, adds PMD, MTHP and\n"
		     "PTE_*"),
	THP_OPT_LONG(O_BY_SIZE, "by-size", NULL,
		     "with --folios, one column per enabled THP size (whole\n"
		     "folios of that size, PTE- or PMD-mapped)"),
	THP_OPT_LONG(O_JOBS, "jobs", "N",
		     "read the processes on N threads (1 to 1024; default:\n"
		     "the CPUs thp may run on); the output is the same"),
	THP_OPTS_TABLE,
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] ps [options]\n"
		 "\n"
		 "One row per process that holds huge pages (PMD-mapped THP, shmem or file PMD\n"
		 "mappings, or hugetlbfs pages), largest THP first. Reads each process's\n"
		 "smaps_rollup and status, one process a thread (--jobs). smaps does not show\n"
		 "mTHP (large folios mapped by PTEs): --folios finds them. A scan longer than\n"
		 "a second counts the processes read on standard error (a terminal).",
	.width = 22,
	.opts = opts,
	.cols = cols,
	.ncols = NCOLS,
	.after = out_folio_cols_help,
	.in_order = true,
};

/* Adds the comma-separated process ids of LIST to O. Returns 0, or prints
 * why and returns 2 (1 when out of memory). */
static int parse_pids(struct opts *o, const char *list)
{
	const char *p = list;

	do {
		size_t n = strcspn(p, ",");
		char one[24];
		int v;
		snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) ? n : sizeof(one) - 1), p);
		if (n >= sizeof(one) || !thp_opt_int("--pid", one, 1, THP_PID_MAX, &v)) {
			if (n >= sizeof(one))
				thp_err("--pid '%s' is not a list of process ids", list);
			return 2;
		}
		pid_t *np = realloc(o->pids, sizeof(*np) * (size_t)(o->npids + 1));
		if (!np)
			return 1;
		o->pids = np;
		o->pids[o->npids++] = (pid_t)v;
		p += n;
	} while (*p++ == ',');
	return 0;
}

/* Reads --user ARG, a user name or a decimal uid, into O. Returns 0 or prints
 * why and returns 2. */
static int parse_user(struct opts *o, struct thp_users *users, const char *arg)
{
	uint64_t v;

	if (arg[0] >= '0' && arg[0] <= '9') {
		/* (uid_t)-1 means "no user" to the kernel */
		if (!thp_opt_u64("--user", arg, 0, (uid_t)-1 - 1, &v))
			return 2;
		o->user = (uid_t)v;
	} else if (thp_user_uid(users, arg, &o->user)) {
		thp_err("unknown user '%s'", arg);
		return 2;
	}
	o->have_user = true;
	return 0;
}

static uint64_t huge_total(const struct thp_rollup *r)
{
	return r->anon_huge + r->shmem_pmd + r->file_pmd + r->private_hugetlb + r->shared_hugetlb;
}

static bool need_cgroup(const struct opts *o)
{
	if (o->cgroup || o->by == BY_CGROUP || o->fmt.json)
		return true;
	for (int i = 0; i < o->ncols; i++)
		if (o->cols[i] == C_CGROUP)
			return true;
	return false;
}

static struct row *add_row(struct scan *sc)
{
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 64;
		struct row *nr = realloc(sc->rows, cap * sizeof(*nr));
		if (!nr)
			return NULL;
		sc->rows = nr;
		sc->cap = cap;
	}
	memset(&sc->rows[sc->n], 0, sizeof(sc->rows[0]));
	return &sc->rows[sc->n++];
}

/* Copies S into SC's arena; *OFF its offset there (0 for ""). Returns 0 or
 * -ENOMEM. */
static int arena_add(struct scan *sc, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1;

	*off = 0;
	if (n == 1 && sc->alen)
		return 0;
	if (sc->alen + n + 1 > sc->acap) {
		size_t cap = sc->acap ? sc->acap * 2 : 65536;
		char *na;
		while (cap < sc->alen + n + 1)
			cap *= 2;
		if (cap > UINT32_MAX || !(na = realloc(sc->arena, cap)))
			return -ENOMEM;
		sc->arena = na;
		sc->acap = cap;
	}
	if (!sc->alen)
		sc->arena[sc->alen++] = '\0';
	if (n == 1)
		return 0;
	memcpy(sc->arena + sc->alen, s, n);
	*off = (uint32_t)sc->alen;
	sc->alen += n;
	return 0;
}

/* The string at offset OFF of SC's arena. */
static const char *str(const struct scan *sc, uint32_t off)
{
	return sc->arena ? sc->arena + off : "";
}

/* ROW's state from its process's status ST: THP off and who set it, or
 * PR_THP_DISABLE_EXCEPT_ADVISED when the host lets it be inferred (policy
 * 'always', Linux 6.18+), and who set it. Returns 0 or -ENOMEM. */
static int proc_state(struct scan *sc, struct thp_pstatus *st, struct row *row)
{
	struct thp_ea_evidence e = { 0, 0 };
	struct thp_pstatus origin = { 0 };

	if (st->thp_enabled == 0)
		thp_thp_origin(sc->root, st, &origin);
	else if (sc->infer && thp_except_advised_infer(sc->root, st, &sc->why, &e, &origin))
		st->except_advised = true;
	row->ppid = st->ppid;
	row->thp_enabled = (int8_t)st->thp_enabled;
	row->except_advised = st->except_advised;
	if (!origin.pid)
		return 0;
	row->origin = malloc(sizeof(*row->origin));
	if (!row->origin)
		return -ENOMEM;
	*row->origin = origin;
	return 0;
}

/* One process as a worker read it: its row, and what the scan counts of it. */
struct slot {
	bool listed;   /* it passed the filters of its status (scan_head): ST, NAME and CMD hold them */
	struct thp_pstatus st;
	int kept;      /* 1: ROW holds the process; 0: left out; -ENOMEM */
	bool walked;   /* its figures were read: DENIED counts */
	int denied;    /* the error of reading them (thp_denied_add) */
	int folio_err; /* the page walk's error, the figures kept from smaps_rollup */
	struct row row;
	char name[THP_COMM_MAX]; /* its strings, for the scan's arena */
	char *cmd, *cgroup;
};

/* Reads the figures of process ST into R and, with a folio reader FR, the
 * page walk into F (thp_proc_walk), noting in SL what the scan counts.
 * Returns 0; -ESRCH when the process is to be skipped (it exited, or is
 * counted as unreadable); or the walk's error, keeping R from smaps_rollup. */
static int proc_figures(struct scan *sc, struct thp_folio_reader *fr, const struct thp_pstatus *st,
			struct thp_rollup *r, struct thp_folio_stats *f, struct slot *sl)
{
	struct thp_walk w = { .fr = fr };
	int err = thp_proc_walk(sc->root, st, &w), rerr = err;

	if (err && fr && !thp_proc_gone(err)) {
		/* the page walk failed: the figures of smaps_rollup */
		w.fr = NULL;
		rerr = thp_proc_walk(sc->root, st, &w);
	}
	sl->walked = true;
	sl->denied = rerr;
	if (rerr)
		return -ESRCH;
	*r = w.sum;
	if (!err) {
		*f = w.folios;
		return 0;
	}
	sl->folio_err = err;
	return err;
}

/* Reads the status of process PID into SL (GIVEN: -p read it), and its
 * command (name or line), when it passes the filters they answer. */
static void scan_head(struct scan *sc, pid_t pid, const struct thp_pstatus *given, struct slot *sl)
{
	const struct opts *o = sc->o;
	const struct thp_pstatus *st = &sl->st;
	char cmd[4096];
	int err = 0;

	if (given)
		sl->st = *given;
	else
		err = thp_pstatus_read(sc->root, pid, &sl->st);
	if (err || thp_pstatus_kthread(st))
		return; /* exited, or a kernel thread */
	if (o->have_user && st->uid != o->user)
		return;
	snprintf(cmd, sizeof(cmd), "%s", st->name);
	if (o->cmdline && (err = thp_cmdline_read(sc->root, pid, cmd, sizeof(cmd))) == 0 && !cmd[0])
		snprintf(cmd, sizeof(cmd), "[%s]", st->name);
	if (err)
		return;
	if (o->have_regex && regexec(&o->regex, cmd, 0, NULL, 0) != 0)
		return;
	snprintf(sl->name, sizeof(sl->name), "%s", st->name);
	sl->cmd = strcmp(cmd, st->name) != 0 ? strdup(cmd) : NULL;
	sl->listed = sl->cmd || strcmp(cmd, st->name) == 0;
	if (!sl->listed)
		sl->kept = -ENOMEM;
}

/* Reads the figures of listed process SL with folio reader FR (NULL without
 * --folios): its row when it passes the filters they answer. */
static void scan_rest(struct scan *sc, struct thp_folio_reader *fr, struct slot *sl)
{
	const struct opts *o = sc->o;
	struct thp_pstatus *st = &sl->st;
	struct thp_rollup r;
	struct thp_folio_stats f = { 0 };
	uint64_t held;
	char cg[8192] = "", cgpath[4096] = "";
	struct row *row = &sl->row;
	int err = proc_figures(sc, fr, st, &r, &f, sl);

	if (err == -ESRCH)
		return;
	held = huge_total(&r) + (fr && !err ? thp_folio_mthp(&f) : 0);
	if ((!o->all && held == 0) || held < o->min)
		return;
	if (need_cgroup(o)) {
		if (thp_cgroup_read(sc->root, st->pid, cg, sizeof(cg)) == 0)
			thp_cgroup_path(cg, cgpath, sizeof(cgpath));
		if (o->cgroup && !thp_cgroup_in(cg, o->cgroup))
			return;
	}
	sl->kept = -ENOMEM;
	*row = (struct row){ .rss = r.rss, .anon = r.anon, .anon_huge = r.anon_huge, .shmem_pmd = r.shmem_pmd,
			     .file_pmd = r.file_pmd, .hugetlb = thp_rollup_hugetlb(&r), .pte = st->pte,
			     .pid = st->pid, .uid = st->uid, .nprocs = 1, .npte = st->has_pte };
	if (proc_state(sc, st, row))
		return;
	sl->cgroup = *cgpath ? strdup(cgpath) : NULL;
	if (fr && !err && (row->f = malloc(sizeof(*row->f))))
		*row->f = f;
	if ((sl->cgroup || !*cgpath) && (row->f || !fr || err))
		sl->kept = 1;
}

static void free_row(struct row *r)
{
	free(r->f);
	free(r->origin);
}

static void free_slot(struct slot *sl)
{
	free_row(&sl->row);
	free(sl->cmd);
	free(sl->cgroup);
}

/* Gives ROW the strings of slot SL, copied to SC's arena, and its owner's
 * name. Returns 0 or -ENOMEM. */
static int slot_strings(struct scan *sc, const struct slot *sl, struct row *row)
{
	if (arena_add(sc, sl->name, &row->name) || arena_add(sc, sl->cgroup ? sl->cgroup : "", &row->cgroup) ||
	    arena_add(sc, thp_user_name(&sc->users, row->uid), &row->user))
		return -ENOMEM;
	row->cmd = row->name;
	return sl->cmd ? arena_add(sc, sl->cmd, &row->cmd) : 0;
}

/* Processes read at a time by the workers, kept in order after (2.3 MB of
 * slots a batch; the main thread lists the next batch meanwhile, then
 * reads with them). */
#define BATCH 4096

/* A batch of processes: PIDS (with -p, GIVEN their statuses) in the order
 * they were listed, SLOTS what was read of each; for page walks, ORDER the
 * listed ones by resident memory, largest first, as the workers take them
 * (a large process taken last would keep one worker busy alone). */
struct batch {
	struct scan *sc;
	pid_t *pids;
	struct thp_pstatus *given;
	struct slot *slots;
	size_t *order, norder;
};

static void head_job(void *ctx, int worker, size_t i)
{
	struct batch *b = ctx;

	(void)worker;
	scan_head(b->sc, b->pids[i], b->given ? &b->given[i] : NULL, &b->slots[i]);
}

static void rest_job(void *ctx, int worker, size_t i)
{
	struct batch *b = ctx;
	struct scan *sc = b->sc;

	scan_rest(sc, thp_folio_reader_worker(sc->fr, worker), &b->slots[b->order[i]]);
}

/* Reads process I of batch CTX whole, without a page walk (the kernel has
 * just made its status when its smaps_rollup is read). */
static void read_job(void *ctx, int worker, size_t i)
{
	struct batch *b = ctx;

	head_job(ctx, worker, i);
	if (b->slots[i].listed)
		scan_rest(b->sc, NULL, &b->slots[i]);
}

static const struct slot *sort_slots;

static int cmp_size(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct thp_pstatus *x = &sort_slots[i].st, *y = &sort_slots[j].st;
	uint64_t sx = x->rss + x->hugetlb, sy = y->rss + y->hugetlb;

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return (i > j) - (i < j);
}

/* The listed ones of B's N processes into its ORDER, largest first. */
static void order_batch(struct batch *b, size_t n)
{
	b->norder = 0;
	for (size_t i = 0; i < n; i++)
		if (b->slots[i].listed)
			b->order[b->norder++] = i;
	sort_slots = b->slots;
	qsort(b->order, b->norder, sizeof(b->order[0]), cmp_size);
}

/* Takes slot SL of process PID into the scan, as if read alone. Returns 0 or -ENOMEM. */
static int take_slot(struct scan *sc, pid_t pid, struct slot *sl)
{
	struct row *row;
	int err;

	out_progress(&sc->progress, "ps", ++sc->seen, "processes read");
	if (sl->walked)
		thp_denied_add(&sc->unreadable, pid, sl->denied);
	if (sl->folio_err && !sc->folio_err)
		sc->folio_err = sl->folio_err;
	if (sl->kept <= 0 || !(row = add_row(sc))) {
		free_slot(sl);
		return sl->kept ? -ENOMEM : 0;
	}
	*row = sl->row;
	err = slot_strings(sc, sl, row);
	free(sl->cmd);
	free(sl->cgroup);
	return err;
}

/* Starts reading the N processes of batch K of scan CTX on RUN; for page
 * walks, after their statuses (read on every worker, waited for) put them
 * in order. */
static void start_batch(void *ctx, int k, size_t n, struct thp_jobs *run)
{
	struct scan *sc = ctx;
	struct batch *b = &sc->b[k];

	if (!sc->fr) {
		thp_jobs_start(run, sc->jobs, n, read_job, b);
		return;
	}
	thp_jobs_run(sc->jobs, n, head_job, b);
	order_batch(b, n);
	thp_jobs_start(run, sc->jobs, b->norder, rest_job, b);
}

/* Keeps the rows of the N processes of batch K of scan CTX (read) in their
 * order, or lets them go once the scan failed (ERR, set to -ENOMEM when it
 * fails here). Returns ERR. */
static int keep_batch(void *ctx, int k, size_t n)
{
	struct scan *sc = ctx;
	struct batch *b = &sc->b[k];

	for (size_t i = 0; i < n; i++) {
		if (sc->err)
			free_slot(&b->slots[i]);
		else
			sc->err = take_slot(sc, b->pids[i], &b->slots[i]);
	}
	memset(b->slots, 0, n * sizeof(*b->slots));
	return sc->err;
}

/* Lists process PID to be read. */
static int add_pid(pid_t pid, void *ctx)
{
	struct scan *sc = ctx;

	sc->b[sc->q.cur].pids[thp_batch_slot(&sc->q)] = pid;
	return thp_batch_added(&sc->q);
}

/* Makes SC's two batches, with room for statuses when GIVEN. Returns 0 or
 * -ENOMEM. */
static int batches_new(struct scan *sc, bool given)
{
	sc->q = (struct thp_batches){ .size = BATCH, .start = start_batch, .keep = keep_batch, .ctx = sc };
	if (!(sc->b = calloc(2, sizeof(*sc->b))))
		return -ENOMEM;
	for (int k = 0; k < 2; k++) {
		struct batch *b = &sc->b[k];
		b->sc = sc;
		b->pids = malloc(BATCH * sizeof(*b->pids));
		b->slots = calloc(BATCH, sizeof(*b->slots));
		b->order = malloc(BATCH * sizeof(*b->order));
		b->given = given ? malloc(BATCH * sizeof(*b->given)) : NULL;
		if (!b->pids || !b->slots || !b->order || (given && !b->given))
			return -ENOMEM;
	}
	return 0;
}

static void batches_free(struct scan *sc)
{
	for (int k = 0; sc->b && k < 2; k++) {
		free(sc->b[k].pids);
		free(sc->b[k].slots);
		free(sc->b[k].order);
		free(sc->b[k].given);
	}
	free(sc->b);
}

static uint64_t row_num(const struct row *r, enum col c)
{
	switch (c) {
	case C_PID: return (uint64_t)r->pid;
	case C_PROCS: return r->nprocs;
	case C_RSS: return r->rss;
	case C_ANON: return r->anon;
	case C_THP: return r->anon_huge;
	case C_COVER: return r->anon ? r->anon_huge * 1000 / r->anon : 0;
	case C_SHMEM_PMD: return r->shmem_pmd;
	case C_FILE_PMD: return r->file_pmd;
	case C_HUGETLB: return r->hugetlb;
	case C_PTE: return r->pte;
	case C_PPID: return (uint64_t)r->ppid;
	case C_UID: return r->uid;
	case C_HUGE_ZERO: return r->f ? r->f->huge_zero : 0;
	default: return 0;
	}
}

/* R's state as the output layer takes a status. */
static struct thp_pstatus row_pstatus(const struct scan *sc, const struct row *r)
{
	struct thp_pstatus s = { .pid = r->pid, .ppid = r->ppid, .thp_enabled = r->thp_enabled,
				 .except_advised = r->except_advised };

	snprintf(s.name, sizeof(s.name), "%s", str(sc, r->name));
	return s;
}

/* Text of text column C for row R, written to BUF when it must be formatted. */
static const char *row_text(const struct row *r, enum col c, const struct scan *sc, char *buf, size_t cap)
{
	switch (c) {
	case C_USER: return str(sc, r->user);
	case C_COMMAND: return str(sc, r->cmd);
	case C_CGROUP: return str(sc, r->cgroup);
	case C_THP_STATE: {
		struct thp_pstatus st = row_pstatus(sc, r);
		return out_thp_state(buf, cap, &st, r->origin);
	}
	default: return "";
	}
}

/* Whether column C of row R has no value: a total of a text or per-process
 * column, a figure the kernel does not show. */
static bool row_null(const struct scan *sc, const struct row *r, enum col c)
{
	if (r->total)
		return cols[c].kind == OUT_TEXT || per_process(c) || c == C_USER;
	switch (c) {
	case C_PTE: return !r->npte;
	case C_UID: return r->uid == (uid_t)-1;
	case C_HUGE_ZERO: return !r->f || !sc->fr;
	default: return false;
	}
}

/* The part of the THP state column C shows. */
static bool pstate_col(enum col c, enum out_pstate *f)
{
	switch (c) {
	case C_THP_STATE: *f = OUT_PS_STATE; return true;
	case C_THP_ENABLED: *f = OUT_PS_ENABLED; return true;
	case C_EXCEPT_ADVISED: *f = OUT_PS_EXCEPT_ADVISED; return true;
	case C_SET_BY_PID: *f = OUT_PS_SET_BY_PID; return true;
	case C_SET_BY: *f = OUT_PS_SET_BY; return true;
	default: return false;
	}
}

/* The column that names a row: COMMAND, or with --by the key. */
static bool key_col(const struct scan *sc, enum col c)
{
	return c == C_COMMAND || (c == C_CGROUP && sc->o->by == BY_CGROUP) || (c == C_USER && sc->o->by == BY_USER);
}

/* The getter of ps's columns (arg: enum col) for a struct row. */
static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct row *r = row;
	const struct scan *sc = ctx;
	enum col k = (enum col)c->arg;
	enum out_pstate part;

	if (row_null(sc, r, k)) {
		v->null = true;
		v->text = r->total && key_col(sc, k) ? "total" : r->total ? "" : NULL;
	} else if (k == C_COVER) {
		out_val_set(v, ov_pct(r->anon_huge, r->anon));
	} else if (pstate_col(k, &part)) {
		struct thp_pstatus st = row_pstatus(sc, r);
		out_val_set(v, out_pstate(part, &st, r->origin, v->buf, v->cap));
		if (k == C_THP_STATE && strncmp(v->s, "off", 3) == 0)
			v->hue = 1 + OUT_HUE_OFF;
	} else if (c->kind == OUT_TEXT) {
		v->s = row_text(r, k, sc, v->buf, v->cap);
	} else {
		v->u = row_num(r, k);
	}
}

/* The getter of the folio columns (arg: out_folio_col()'s I). */
static void get_folio(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct row *r = row;

	(void)ctx;
	out_val_set(v, out_folio_col(r->f, c->arg));
}

/* The getter of the --by-size columns (arg: the size's index). */
static void get_size(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct row *r = row;
	const struct scan *sc = ctx;

	v->null = !r->f;
	v->u = r->f ? thp_folio_order_bytes(r->f, sc->size_order[c->arg]) : 0;
}

static struct scan *sort_scan;
static enum col sort_col;

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	char bx[128], by[128];
	int d = 0;

	if (cols[sort_col].kind == OUT_TEXT) {
		d = strcmp(row_text(x, sort_col, sort_scan, bx, sizeof(bx)),
			   row_text(y, sort_col, sort_scan, by, sizeof(by)));
	} else {
		uint64_t vx = row_num(x, sort_col), vy = row_num(y, sort_col);
		d = vx == vy ? 0 : vx < vy ? -1 : 1;
		if (sort_col != C_PID)
			d = -d; /* sizes and counts: largest first */
	}
	if (d == 0)
		d = x->pid < y->pid ? -1 : x->pid > y->pid;
	return d;
}

/* Key of row R for --by. */
static const char *group_key(struct scan *sc, const struct row *r)
{
	switch (sc->o->by) {
	case BY_USER: return str(sc, r->user);
	case BY_CGROUP: return str(sc, r->cgroup);
	default: return str(sc, r->name);
	}
}

/* Adds the figures of row B to A. */
static void row_add(struct row *a, const struct row *b)
{
	a->rss += b->rss;
	a->anon += b->anon;
	a->anon_huge += b->anon_huge;
	a->shmem_pmd += b->shmem_pmd;
	a->file_pmd += b->file_pmd;
	a->hugetlb += b->hugetlb;
	a->pte += b->pte;
	a->npte += b->npte;
	a->nprocs += b->nprocs;
}

/* Adds *FROM to *INTO (taking it over when *INTO is NULL); *FROM ends NULL. */
static void folio_merge(struct thp_folio_stats **into, struct thp_folio_stats **from)
{
	if (*from && *into) {
		thp_folio_stats_add(*into, *from);
		free(*from);
	} else if (*from) {
		*into = *from;
	}
	*from = NULL;
}

/* Orders the indexes of SC's rows by their --by key, then by index (qsort_r). */
static int cmp_key(const void *a, const void *b, void *arg)
{
	struct scan *sc = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int d = strcmp(group_key(sc, &sc->rows[x]), group_key(sc, &sc->rows[y]));

	return d ? d : (x > y) - (x < y);
}

/* Folds rows with the same --by key into the first of them, named by the
 * key. The rows' indexes sorted by key find each row's first (n log n, where
 * comparing every row with every group was n x groups). Returns 0 or -ENOMEM. */
static int group_rows(struct scan *sc)
{
	size_t out = 0, *slot = malloc(sc->n * sizeof(*slot)), *first = malloc(sc->n * sizeof(*first));

	if (sc->n && (!slot || !first)) {
		free(slot);
		free(first);
		return -ENOMEM;
	}
	for (size_t i = 0; i < sc->n; i++)
		slot[i] = i;
	qsort_r(slot, sc->n, sizeof(*slot), cmp_key, sc);
	for (size_t k = 0; k < sc->n; k++) {
		const char *key = group_key(sc, &sc->rows[slot[k]]);
		bool same = k && strcmp(group_key(sc, &sc->rows[slot[k - 1]]), key) == 0;
		first[slot[k]] = same ? first[slot[k - 1]] : slot[k];
	}
	/* slot[I]: where the group of first row I goes */
	for (size_t i = 0; i < sc->n; i++) {
		struct row *r = &sc->rows[i];
		if (first[i] == i) {
			slot[i] = out;
			sc->rows[out] = *r;
			if (out != i) { /* the group owns them now */
				r->f = NULL;
				r->origin = NULL;
			}
			sc->rows[out].pid = (pid_t)out; /* keeps first-seen order for ties */
			sc->rows[out].cmd = sc->o->by == BY_CGROUP ? r->cgroup : sc->o->by == BY_USER ? r->user : r->name;
			out++;
		} else {
			struct row *g = &sc->rows[slot[first[i]]];
			row_add(g, r);
			folio_merge(&g->f, &r->f);
			free(r->origin);
			r->origin = NULL;
		}
	}
	sc->n = out;
	free(slot);
	free(first);
	return 0;
}

/* Sums the rows into T; its folio sums, when a row has any, go to F. */
static void totals(const struct scan *sc, struct row *t, struct thp_folio_stats *f)
{
	memset(t, 0, sizeof(*t));
	memset(f, 0, sizeof(*f));
	t->total = true;
	for (size_t i = 0; i < sc->n; i++) {
		row_add(t, &sc->rows[i]);
		if (sc->rows[i].f) {
			thp_folio_stats_add(f, sc->rows[i].f);
			t->f = f;
		}
	}
}

/* Names the columns of SC's table: the key of --by, and the --by-size ones. */
static void name_cols(struct scan *sc)
{
	struct out_col *all = sc->all;

	out_cols_folios(all, cols, NCOLS, get_folio);
	if (sc->o->by != BY_NONE)
		all[C_COMMAND].name = sc->o->by == BY_USER ? "USER" : sc->o->by == BY_CGROUP ? "CGROUP" : "COMMAND";
	for (int z = 0; z < sc->nsizes; z++)
		all[NALL + z] = (struct out_col){ out_size_spec(sc->size_names[z], sizeof(sc->size_names[z]),
								 sc->size_bytes[z]),
						  OUT_SIZE, 0, "", get_size, z };
}

/* The SHOWN rows and TOTAL (NULL: none) as a table of the chosen columns,
 * the --by-size ones after them: text, or the document's member KEY. */
static void put_table(struct scan *sc, const char *key, size_t shown, const struct row *total)
{
	int sel[NALL * 2 + SIZES_MAX], n = sc->o->ncols;
	struct out_table *t;

	memcpy(sel, sc->o->cols, sizeof(sel[0]) * (size_t)n);
	for (int z = 0; z < sc->nsizes && !(sc->o->fmt.list && sc->o->fmt.json); z++)
		sel[n++] = NALL + z;
	t = out_table_open(key, sc->all, sel, n, &sc->o->fmt, sc);
	out_table_keep(t);
	out_table_jobs(t, sc->o->jobs);
	for (size_t k = 0; k < shown; k++)
		out_table_add(t, &sc->rows[k]);
	if (total)
		out_table_total(t, "totals", total);
	out_table_close(t, 0);
}

/* The mTHP sizes (not the PMD size) enabled for anonymous memory, as "64K
 * always, 128K madvise"; "" when none. */
static const char *mthp_enabled(const struct thp_status *st, char *buf, size_t cap);

/* Prints what ps found: the table, or in JSON one document with its rows. */
static void print_ps(struct scan *sc, size_t shown, const struct row *total)
{
	static const char *const by_names[] = { NULL, "comm", "user", "cgroup" };
	const struct opts *o = sc->o;
	char mthp[256];

	name_cols(sc);
	out_doc_begin(o->fmt.json, o->fmt.bytes, "thp-ps/2");
	if (o->by)
		out_put(OUT_JSON, "by", NULL, ov_str(by_names[o->by]));
	if (sc->n == 0 && !o->all)
		out_text("no process holds huge pages (%s--all lists every process)\n",
			 sc->host->dir ? "" : "this kernel has no THP; ");
	if (sc->n || o->all || o->fmt.json)
		put_table(sc, o->by ? "groups" : "processes", shown, total);
	if (!o->folios && *mthp_enabled(sc->host, mthp, sizeof(mthp)))
		out_text("mTHP is enabled (%s): smaps shows only PMD mappings, so THP above leaves out mTHP; "
			 "'thp ps --folios' (root) shows it.\n", mthp);
	out_put(OUT_JSON, "unreadable", NULL, ov_int(sc->unreadable.n));
	out_doc_end();
}

/* False when the tree has a cgroup file system and neither its v2 hierarchy
 * nor the v1 memory controller holds PATH. A capture records none: every
 * path is taken there. */
static bool cgroup_known(const struct thp_root *root, const char *path)
{
	static const char *const base[] = { "sys/fs/cgroup", "sys/fs/cgroup/memory" };
	char rel[4200];
	int fd = thp_root_openat(root, base[0], O_PATH | O_DIRECTORY, 0);

	if (fd < 0)
		return true;
	close(fd);
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/%s", base[i], path);
		fd = thp_root_openat(root, rel, O_PATH | O_DIRECTORY, 0);
		if (fd >= 0) {
			close(fd);
			return true;
		}
	}
	return false;
}

/* Chooses O's columns: -o, else the default (of --by), and with --folios the
 * folio columns after it. Returns 0, or 2 after a message. */
static int select_cols(struct opts *o)
{
	const int *d = o->by ? default_by_cols : default_cols;
	int nd = o->by ? (int)(sizeof(default_by_cols) / sizeof(default_by_cols[0]))
		       : (int)(sizeof(default_cols) / sizeof(default_cols[0]));
	struct out_col all[NALL];
	int def[NALL], n = 0;

	for (int i = 0; !o->fmt.json && i < nd; i++)
		def[n++] = d[i];
	/* JSON: every column that has a value for these rows */
	for (int i = 0; o->fmt.json && i < NCOLS; i++)
		if (o->by ? !per_process(i) && i != C_USER && i != C_CGROUP : i != C_PROCS)
			if (i != C_HUGE_ZERO || o->folios)
				def[n++] = i;
	for (int i = 0; o->folios && i < (o->fmt.json ? OUT_FOLIO_COLS : OUT_FOLIO_SUMMARY); i++)
		def[n++] = NCOLS + i;
	out_cols_folios(all, cols, NCOLS, NULL);
	o->ncols = out_cols_select(all, NALL, &o->fmt, def, n, o->cols, NALL * 2);
	if (o->ncols < 0 || out_cols_folios_refused(all, NCOLS, o->cols, o->ncols, o->folios))
		return 2;
	for (int i = 0; o->by && i < o->ncols; i++)
		if (per_process(o->cols[i])) {
			thp_err("column '%s' is per process and cannot be used with --by", all[o->cols[i]].name);
			return 2;
		}
	return 0;
}

/* Parses the options into O. Returns -1 to go on, or the exit status. */
static int parse_opts(struct thp_ctx *ctx, struct opts *o, int argc, char **argv)
{
	const char *sortarg = NULL;
	struct thp_users users;
	int c, rc;

	thp_users_init(&users, &ctx->root);
	o->limit = -1;
	o->sort = C_THP;
	o->jobs = thp_jobs_default();
	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		if (out_fmt_opt(&o->fmt, c, optarg))
			continue;
		switch (c) {
		case 's': sortarg = optarg; break;
		case O_LIMIT: {
			int n;
			if (!thp_opt_int("--limit", optarg, 0, INT32_MAX, &n))
				return 2;
			o->limit = n;
			break;
		}
		case 'a': o->all = true; break;
		case O_TOTALS: o->totals = true; break;
		case 'w': o->cmdline = true; break;
		case 'p':
			if ((rc = parse_pids(o, optarg)))
				return rc;
			break;
		case 'u':
			if ((rc = parse_user(o, &users, optarg)))
				return rc;
			break;
		case 'c':
			if (o->have_regex)
				regfree(&o->regex);
			if (regcomp(&o->regex, optarg, REG_EXTENDED | REG_NOSUB)) {
				thp_err("invalid regular expression '%s'", optarg);
				return 2;
			}
			o->have_regex = true;
			break;
		case O_CGROUP:
			if (!*optarg) {
				thp_err("--cgroup needs a path, such as /system.slice");
				return 2;
			}
			o->cgroup = optarg;
			break;
		case O_MIN:
			if (!thp_opt_size("--min", optarg, 0, UINT64_MAX, NULL, &o->min))
				return 2;
			break;
		case O_BY:
			o->by = !strcmp(optarg, "comm") ? BY_COMM : !strcmp(optarg, "user") ? BY_USER
				: !strcmp(optarg, "cgroup") ? BY_CGROUP : BY_NONE;
			if (o->by == BY_NONE) {
				thp_err("cannot group by '%s' (comm, user or cgroup)", optarg);
				return 2;
			}
			break;
		case O_FOLIOS: o->folios = true; break;
		case O_BY_SIZE: o->by_size = o->folios = true; break;
		case O_JOBS:
			if (!thp_opt_int("--jobs", optarg, 1, THP_JOBS_MAX, &o->jobs))
				return 2;
			break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	o->fmt.json = ctx->json;
	if (optind < argc) {
		thp_err("unexpected argument '%s'", argv[optind]);
		return thp_usage_error("ps");
	}
	if (o->cgroup && !cgroup_known(&ctx->root, o->cgroup)) {
		thp_err("no cgroup '%s' (not below /sys/fs/cgroup, nor its v1 memory controller)",
			o->cgroup);
		return 1;
	}
	if (select_cols(o))
		return 2;
	if (sortarg) {
		int s = -1;
		for (int i = 0; i < NCOLS && s < 0; i++)
			s = strcasecmp(cols[i].name, sortarg) ? -1 : i;
		if (s < 0 || (o->by && per_process(s))) {
			thp_err("cannot sort by '%s'", sortarg);
			return 2;
		}
		o->sort = (enum col)s;
	}
	if (o->pids)
		o->all = true;
	return -1;
}

/* True when a size policy word gives huge pages somewhere. */
static bool on(const char *w)
{
	return w && strcmp(w, "never") != 0 && strcmp(w, "deny") != 0;
}

/* The --by-size columns: every size enabled for anonymous or shared memory,
 * and any other size some row holds, ascending. */
static void pick_sizes(struct scan *sc)
{
	uint64_t page = thp_page_size(sc->root);
	const struct thp_status *st = sc->host;

	if (!page)
		page = 4096;
	for (int i = 0; i < st->nsizes && sc->nsizes < SIZES_MAX; i++) {
		const struct thp_size *z = &st->sizes[i];
		int order = thp_folio_cont_order(z->bytes, page, st->pmd_size ? st->pmd_size : z->bytes);
		bool keep = on(z->anon_effective) || on(z->shmem_effective);

		for (size_t k = 0; order > 0 && !keep && k < sc->n; k++)
			keep = sc->rows[k].f && thp_folio_order_bytes(sc->rows[k].f, order) > 0;
		if (order > 0 && keep) {
			sc->size_bytes[sc->nsizes] = z->bytes;
			sc->size_order[sc->nsizes++] = order;
		}
	}
}

/* The mTHP sizes (not the PMD size) enabled for anonymous memory, as "64K
 * always, 128K madvise"; "" when none. */
static const char *mthp_enabled(const struct thp_status *st, char *buf, size_t cap)
{
	size_t len = 0;
	char sz[32];

	buf[0] = '\0';
	for (int i = 0; i < st->nsizes && len + 1 < cap; i++)
		if (st->sizes[i].bytes != st->pmd_size && on(st->sizes[i].anon_effective))
			len += (size_t)snprintf(buf + len, cap - len, "%s%s %s", len ? ", " : "",
						out_size_spec(sz, sizeof(sz), st->sizes[i].bytes),
						st->sizes[i].anon_effective);
	return buf;
}

static void free_opts(struct opts *o)
{
	free(o->pids);
	if (o->have_regex)
		regfree(&o->regex);
}

int cmd_ps(struct thp_ctx *ctx, int argc, char **argv)
{
	struct opts o = { 0 };
	struct scan sc = { 0 };
	struct row total;
	struct thp_folio_stats total_f;
	size_t shown;
	char line[200];
	int rc = parse_opts(ctx, &o, argc, argv), err = 0;

	if (rc >= 0) {
		free_opts(&o);
		return rc;
	}
	sc.root = &ctx->root;
	sc.o = &o;
	thp_users_init(&sc.users, &ctx->root);
	sc.host = malloc(sizeof(*sc.host));
	if (!sc.host) {
		free_opts(&o);
		return 1;
	}
	thp_status_read_policy(&ctx->root, sc.host);
	thp_why_ctx_init(&sc.why, sc.host, NULL);
	sc.infer = thp_except_advised_possible(&sc.why);
	if (o.folios) {
		err = thp_folio_reader_open(&ctx->root, &sc.fr);
		if (err) {
			thp_err("cannot read page flags '/proc/kpageflags': %s%s", thp_strerror(err),
				thp_proc_denied(err) ? " (--folios needs root)" : "");
			free(sc.host);
			free_opts(&o);
			return 1;
		}
		thp_folio_reader_share(sc.fr);
		err = thp_folio_reader_jobs(sc.fr, o.jobs);
	}
	sc.jobs = o.jobs;
	if (!err)
		err = batches_new(&sc, o.pids != NULL);
	if (err) {
		thp_err("cannot prepare %d walks: %s", o.jobs, thp_strerror(err));
		rc = 1;
		goto out;
	}
	out_progress_init(&sc.progress);
	if (o.pids) {
		for (int i = 0; !sc.err && i < o.npids; i++) {
			if (thp_pid_target(ctx, o.pids[i], false, &sc.b[sc.q.cur].given[thp_batch_slot(&sc.q)]))
				sc.missing++;
			else
				add_pid(o.pids[i], &sc);
		}
	} else {
		err = thp_proc_each(&ctx->root, add_pid, &sc);
	}
	thp_batch_end(&sc.q);
	if (!err)
		err = sc.err;
	out_progress_end(&sc.progress);
	if (err) {
		thp_procs_unlisted(&ctx->root, err, "no process is shown");
		rc = 1;
		goto out;
	}
	if (o.by_size)
		pick_sizes(&sc);
	if (o.by && (err = group_rows(&sc))) {
		thp_err("cannot group processes: %s", thp_strerror(err));
		rc = 1;
		goto out;
	}
	sort_scan = &sc;
	sort_col = o.sort;
	if (sc.n)
		qsort(sc.rows, sc.n, sizeof(sc.rows[0]), cmp_rows);
	shown = o.limit >= 0 && (size_t)o.limit < sc.n ? (size_t)o.limit : sc.n;
	if (o.totals)
		totals(&sc, &total, &total_f);
	print_ps(&sc, shown, o.totals ? &total : NULL);
	rc = 0;
	if (sc.folio_err) {
		thp_err("cannot read page mappings: %s", thp_strerror(sc.folio_err));
		rc = 1;
	}
	if (sc.unreadable.n)
		fprintf(stderr, "%s\n", out_denied(line, sizeof(line), &sc.unreadable));
	if (sc.missing)
		rc = 1;
out:
	for (size_t i = 0; i < sc.n; i++)
		free_row(&sc.rows[i]);
	free(sc.rows);
	free(sc.arena);
	batches_free(&sc);
	free(sc.host);
	thp_folio_reader_close(sc.fr);
	free_opts(&o);
	return rc;
}
