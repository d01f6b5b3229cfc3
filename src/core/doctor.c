/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doctor.c - the rule table, evidence helpers and the extra host facts rules need */
#include "rules.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"

/* Every rule, in the order findings of equal severity are listed. */
static const thp_rule_fn rules[] = {
	rule_always_always,
	rule_compaction_stalls,
	rule_no_huge_blocks,
	rule_proactive_off,
	rule_min_free_high,
	rule_in_use_anyway,
	rule_khugepaged,
	rule_persistence,
	rule_tuned,
	rule_journal,
	rule_pools_journal,
	rule_fallback_charge,
	rule_hugetlb_pool,
	rule_page_tables,
	rule_page_tables_shared,
	rule_remote_hugetlb,
	rule_tlb_shootdowns,
	rule_workloads,
	rule_thp_inherited,
	rule_malloc_conf,
	rule_virtual_machine,
};

static const char *const sev_names[] = { "info", "warn", "crit" };

int thp_doctor_exit(const struct thp_findings *r, enum thp_severity min)
{
	for (int i = 0; i < r->n; i++)
		if (r->v[i].sev >= min)
			return 3;
	return 0;
}

const char *thp_severity_name(enum thp_severity s)
{
	return sev_names[s];
}

int thp_severity_parse(const char *s, enum thp_severity *out)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, sev_names[i]) == 0) {
			*out = (enum thp_severity)i;
			return 0;
		}
	return -EINVAL;
}

struct thp_finding *finding_add(struct thp_findings *out, const char *id, enum thp_severity sev,
				const char *why)
{
	static struct thp_finding scratch;
	struct thp_finding *f = &scratch;

	if (out->n < THP_FINDINGS_MAX)
		f = &out->v[out->n++];
	else
		out->dropped++;
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->sev = sev;
	f->why = why;
	return f;
}

void finding_title(struct thp_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->title, sizeof(f->title), fmt, ap);
	va_end(ap);
}

void finding_fix(struct thp_finding *f, const char *fmt, ...)
{
	va_list ap;

	if (f->nfix >= THP_FIX_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(f->fix[f->nfix++], sizeof(f->fix[0]), fmt, ap);
	va_end(ap);
}

static struct thp_evidence *ev_new(struct thp_finding *f, const char *src, const char *name,
				   enum thp_ev_kind kind)
{
	static struct thp_evidence scratch;
	struct thp_evidence *e = f->nev < THP_EV_MAX ? &f->ev[f->nev++] : &scratch;

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->source, sizeof(e->source), "%s", src);
	return e;
}

void ev_count(struct thp_finding *f, const char *src, const char *name, uint64_t v)
{
	ev_new(f, src, name, THP_EV_COUNT)->num = v;
}

void ev_bytes(struct thp_finding *f, const char *src, const char *name, uint64_t v)
{
	ev_new(f, src, name, THP_EV_BYTES)->num = v;
}

void ev_ratio(struct thp_finding *f, const char *src, const char *name, uint64_t part,
	      uint64_t whole)
{
	struct thp_evidence *e = ev_new(f, src, name, THP_EV_RATIO);

	e->num = part;
	e->whole = whole;
}

void ev_rate(struct thp_finding *f, const char *src, const char *name, double per_sec)
{
	ev_new(f, src, name, THP_EV_RATE)->x = per_sec;
}

void ev_seconds(struct thp_finding *f, const char *src, const char *name, double secs)
{
	ev_new(f, src, name, THP_EV_SECONDS)->x = secs;
}

void ev_text(struct thp_finding *f, const char *src, const char *name, const char *fmt, ...)
{
	struct thp_evidence *e = ev_new(f, src, name, THP_EV_TEXT);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
}

const char *thp_src(const struct thp_host *h, const char *name, char *buf, size_t cap)
{
	snprintf(buf, cap, "/%s/%s", h->st->dir ? h->st->dir : "sys/kernel/mm/transparent_hugepage",
		 name);
	return buf;
}

bool meminfo(const struct thp_host *h, const char *name, uint64_t *v)
{
	return !h->st->meminfo_err && thp_counter_get(h->st->meminfo, h->st->nmeminfo, name, v);
}

bool vm_delta(const struct thp_host *h, const char *name, uint64_t *v)
{
	uint64_t old;

	if (h->st->vmstat_err || !thp_counter_get(h->st->vmstat, h->st->nvmstat, name, v))
		return false;
	if (h->before && thp_counter_get(h->before->vmstat, h->before->nvmstat, name, &old))
		*v = *v >= old ? *v - old : 0;
	return true;
}

bool tlb_delta(const struct thp_host *h, uint64_t *v)
{
	const struct thp_tlb_irqs *now = &h->st->tlb, *old = h->before ? &h->before->tlb : NULL;

	if (h->st->tlb_err || !now->present)
		return false;
	if (old && (h->before->tlb_err || !old->present || old->ncpus != now->ncpus || old->total > now->total))
		return false; /* CPUs went offline or online during the sample */
	*v = now->total - (old ? old->total : 0);
	return true;
}

void ev_tlb(struct thp_finding *f, const struct thp_host *h)
{
	double secs = window_secs(h);
	uint64_t d;

	if (!h->st->tlb_err && !h->st->tlb.present)
		ev_text(f, "/proc/interrupts", "TLB shootdowns", "not counted on this architecture (no TLB row)");
	else if (tlb_delta(h, &d) && secs > 0)
		ev_rate(f, "/proc/interrupts", "TLB shootdowns", (double)d / secs);
}

double window_secs(const struct thp_host *h)
{
	return h->before ? h->sample_secs : h->uptime;
}

void ev_window(struct thp_finding *f, const struct thp_host *h)
{
	if (h->before)
		ev_seconds(f, "", "sample length", h->sample_secs);
	else if (h->uptime > 0)
		ev_seconds(f, "/proc/uptime", "uptime (counters are since boot)", h->uptime);
	else
		ev_text(f, "/proc/uptime", "uptime", "unknown (counters are since boot)");
}

bool word_is(const char *w, const char *s)
{
	return w && strcmp(w, s) == 0;
}

bool thp_cpuinfo_flag(const char *buf, const char *flag)
{
	size_t fl = strlen(flag);

	for (const char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *colon, *end = strchr(line, '\n');
		if (strncmp(line, "flags", 5) != 0 || !(colon = strchr(line, ':')) || (end && colon > end))
			continue;
		if (!end)
			end = line + strlen(line);
		for (const char *p = colon + 1; p < end;) {
			p += strspn(p, " \t");
			size_t n = strcspn(p, " \t\n");
			if (n == fl && strncmp(p, flag, fl) == 0)
				return true;
			p += n ? n : 1;
		}
		return false; /* the first CPU's flags answer for all */
	}
	return false;
}

/* Names the hypervisor from DMI strings that virtual machines report. */
static const char *dmi_hypervisor(const char *vendor, const char *product)
{
	static const char *const known[][2] = {
		{ "QEMU", "QEMU" }, { "KVM", "KVM" }, { "VMware", "VMware" },
		{ "VirtualBox", "VirtualBox" }, { "innotek", "VirtualBox" }, { "Xen", "Xen" },
		{ "Virtual Machine", "Hyper-V" }, { "Amazon EC2", "Amazon EC2" },
		{ "Google Compute Engine", "Google Compute Engine" }, { "Firecracker", "Firecracker" },
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strstr(vendor, known[i][0]) || strstr(product, known[i][0]))
			return known[i][1];
	return NULL;
}

static void read_line(const struct thp_root *root, const char *rel, char *buf, size_t cap)
{
	if (thp_read_buf(root, rel, buf, cap) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* Processes are read this many at a time, on every CPU (thp_batches; the
 * next ones are listed meanwhile): the kernel builds each smaps_rollup as
 * it is read, the most of a scrape. */
#define PROC_BATCH 4096

/* What the reading of one process gave: its status and smaps_rollup. */
struct proc_read {
	pid_t pid;
	int status_err, rollup_err; /* rollup_err: not read for a kernel thread */
	struct thp_pstatus s;
	struct thp_rollup r;
};

struct proc_scan;

/* A batch of PROC_BATCH processes of scan SC. */
struct proc_batch {
	struct proc_scan *sc;
	struct proc_read *r;
};

struct proc_scan {
	const struct thp_root *root;
	struct thp_host *h;
	int cap;
	int err;
	int jobs;
	struct proc_batch b[2]; /* one listed while the other is read */
	struct thp_batches q;
};

/* The command name of process PS into BUF (THP_COMM_MAX bytes): the Name of
 * its status, which is /proc/PID/comm unless the kernel escaped a newline or
 * a backslash in it; then, or when it is missing, /proc/PID/comm itself. */
static void comm_of(const struct thp_root *root, const struct thp_pstatus *ps, char *buf)
{
	if ((!ps->name[0] || strchr(ps->name, '\\')) && thp_comm_read(root, ps->pid, buf, THP_COMM_MAX) == 0)
		return;
	snprintf(buf, THP_COMM_MAX, "%s", ps->name);
}

/* True when the host has more than one node and P has static huge pages: its
 * numa_maps is read (read_numa_maps) and its allowed CPUs kept. */
static bool numa_looked_at(const struct thp_host *h, const struct thp_host_proc *p)
{
	return h->numa->n > 1 && p->has_rollup && p->r.hugetlb;
}

/* Keeps of S and R what the rules read in P (with THP off, who turned it
 * off). Returns 0 or -ENOMEM. */
static int keep_proc(const struct thp_root *root, const struct thp_host *h, const struct thp_pstatus *s,
		     const struct thp_rollup *r, struct thp_host_proc *p)
{
	p->ps = (struct thp_host_status){ .pid = s->pid, .ppid = s->ppid, .thp_enabled = s->thp_enabled,
					  .has_pte = s->has_pte, .pte = s->pte, .rss_shmem = s->rss_shmem };
	p->r = (struct thp_host_rollup){ .rss = r->rss, .anon_huge = r->anon_huge, .shmem_pmd = r->shmem_pmd,
					 .hugetlb = thp_rollup_hugetlb(r) };
	comm_of(root, s, p->comm);
	if (s->thp_enabled == 0) {
		struct thp_pstatus o;
		thp_thp_origin(root, s, &o);
		p->origin.pid = o.pid;
		if (!(p->origin.name = strdup(o.name)))
			return -ENOMEM;
	}
	if (numa_looked_at(h, p) && !(p->cpus_allowed = strdup(s->cpus_allowed)))
		return -ENOMEM;
	return 0;
}

/* Reads process I of batch CTX (on a thread of thp_jobs_start()). */
static void read_job(void *ctx, int worker, size_t i)
{
	struct proc_read *pr = &((struct proc_batch *)ctx)->r[i];
	const struct thp_root *root = ((struct proc_batch *)ctx)->sc->root;

	(void)worker;
	memset(&pr->r, 0, sizeof(pr->r));
	pr->status_err = thp_pstatus_read(root, pr->pid, &pr->s);
	if (!pr->status_err && !thp_pstatus_kthread(&pr->s))
		pr->rollup_err = thp_rollup_read(root, pr->pid, &pr->r);
}

/* Keeps the process PR read into the host's list; kernel threads and
 * processes that exited meanwhile are skipped. Returns 0 or -ENOMEM. */
static int keep_read(struct proc_scan *sc, const struct proc_read *pr)
{
	struct thp_host *h = sc->h;
	struct thp_host_proc *p;

	if (pr->status_err) {
		thp_denied_add(&h->unreadable, pr->pid, pr->status_err);
		thp_procs_add(&h->rollups, pr->pid, pr->status_err, NULL);
		return 0;
	}
	if (thp_pstatus_kthread(&pr->s))
		return 0;
	if (h->nprocs == sc->cap) {
		int cap = sc->cap ? sc->cap * 2 : 256;
		void *v = realloc(h->procs, (size_t)cap * sizeof(*h->procs));
		if (!v)
			return -ENOMEM;
		h->procs = v;
		sc->cap = cap;
	}
	thp_procs_add(&h->rollups, pr->pid, pr->rollup_err, &pr->r);
	p = &h->procs[h->nprocs++];
	memset(p, 0, sizeof(*p));
	p->has_rollup = pr->rollup_err == 0;
	return keep_proc(sc->root, h, &pr->s, &pr->r, p);
}

/* Starts reading the N processes of batch K of scan CTX on every CPU. */
static void start_batch(void *ctx, int k, size_t n, struct thp_jobs *run)
{
	struct proc_scan *sc = ctx;

	thp_jobs_start(run, sc->jobs, n, read_job, &sc->b[k]);
}

/* Keeps the N processes of batch K of scan CTX, read, in the order they
 * were listed. Returns 0 or -ENOMEM. */
static int keep_batch(void *ctx, int k, size_t n)
{
	struct proc_scan *sc = ctx;

	for (size_t i = 0; i < n && !sc->err; i++)
		sc->err = keep_read(sc, &sc->b[k].r[i]);
	return sc->err;
}

/* Lists process PID to be read. */
static int list_proc(pid_t pid, void *ctx)
{
	struct proc_scan *sc = ctx;

	sc->b[sc->q.cur].r[thp_batch_slot(&sc->q)].pid = pid;
	return thp_batch_added(&sc->q) ? 1 : 0;
}

/* Reads what the rules about programs look at of P (its command line, once,
 * for the text and the command that starts it again; its environment, once,
 * for both allocator variables) into one allocation. Returns 0 or -ENOMEM. */
static int read_program(const struct thp_root *root, struct thp_host_proc *p)
{
	char cmdline[512], relaunch[320], conf[160] = "", *argv = NULL, *env = NULL, rel[64];
	struct thp_host_program *g;
	size_t len = 0, elen = 0, n1, n2, n3;
	enum thp_relaunch how;

	snprintf(rel, sizeof(rel), "proc/%d/cmdline", (int)p->ps.pid);
	if (thp_read(root, rel, &argv, &len))
		len = 0;
	thp_cmdline_text(argv ? argv : "", len, cmdline, sizeof(cmdline));
	how = thp_relaunch_read(root, p->ps.pid, argv ? argv : "", len, p->comm, relaunch, sizeof(relaunch));
	free(argv);
	if (thp_environ_load(root, p->ps.pid, &env, &elen) == 0) {
		for (int i = 0; thp_environ_names[i]; i++)
			if (thp_environ_find(env, elen, thp_environ_names[i], conf, sizeof(conf)) == 0)
				break;
		free(env);
	}
	n1 = strlen(cmdline) + 1;
	n2 = strlen(relaunch) + 1;
	n3 = strlen(conf) + 1;
	g = malloc(sizeof(*g) + n1 + n2 + n3);
	if (!g)
		return -ENOMEM;
	g->cmdline = memcpy(g->text, cmdline, n1);
	g->relaunch = memcpy(g->text + n1, relaunch, n2);
	g->malloc_conf = memcpy(g->text + n1 + n2, conf, n3);
	g->relaunch_how = how;
	p->prog = g;
	return 0;
}

/* Where the static huge pages of P are (numa_maps), when it has any (numa_looked_at). */
static void read_numa_maps(const struct thp_root *root, const struct thp_numa *n, struct thp_host_proc *p)
{
	struct thp_numa_maps m;

	p->hugetlb_node = -1;
	if (!p->cpus_allowed || thp_numa_maps_read(root, p->ps.pid, &m) != 0)
		return;
	p->hugetlb_numa = m.total;
	p->hugetlb_remote = thp_numa_remote(n, p->cpus_allowed, &m);
	for (int i = 0; i < THP_NUMA_MAX; i++)
		if (m.hugetlb[i] && (p->hugetlb_node < 0 || m.hugetlb[i] > m.hugetlb[p->hugetlb_node]))
			p->hugetlb_node = i;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct thp_host_proc *x = a, *y = b;

	return (x->ps.pid > y->ps.pid) - (x->ps.pid < y->ps.pid);
}

bool thp_host_family_head(const struct thp_host *h, const struct thp_host_proc *p)
{
	struct thp_host_proc key = { .ps.pid = p->ps.ppid };
	const struct thp_host_proc *parent =
		h->nprocs ? bsearch(&key, h->procs, (size_t)h->nprocs, sizeof(*h->procs), cmp_pid) : NULL;

	return !parent || strcmp(parent->comm, p->comm) != 0;
}

int thp_host_read(const struct thp_root *root, struct thp_host *h)
{
	char buf[128], vendor[128], product[128], *cpu;
	struct proc_scan sc = { .root = root, .h = h, .jobs = thp_jobs_default() };
	const char *name;
	bool room;

	h->uptime = 0;
	h->virt[0] = '\0';
	if (thp_read_buf(root, "proc/uptime", buf, sizeof(buf)) > 0)
		h->uptime = strtod(buf, NULL);
	read_line(root, "sys/hypervisor/type", buf, sizeof(buf));
	read_line(root, "sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	read_line(root, "sys/class/dmi/id/product_name", product, sizeof(product));
	if (buf[0]) {
		snprintf(h->virt, sizeof(h->virt), "/sys/hypervisor/type is '%s'", buf);
	} else if ((name = dmi_hypervisor(vendor, product))) {
		snprintf(h->virt, sizeof(h->virt), "DMI reports '%s %s' (%s)", vendor, product, name);
	} else if (thp_read(root, "proc/cpuinfo", &cpu, NULL) == 0) {
		if (thp_cpuinfo_flag(cpu, "hypervisor"))
			snprintf(h->virt, sizeof(h->virt), "the CPU flags in /proc/cpuinfo include 'hypervisor'");
		free(cpu);
	}
	h->buddy = malloc(sizeof(*h->buddy));
	if (!h->buddy)
		return -ENOMEM;
	h->buddy_err = thp_buddyinfo_read(root, h->buddy);
	h->psi_err = thp_psi_read(root, &h->psi);
	h->hugetlb = malloc(sizeof(*h->hugetlb));
	if (!h->hugetlb)
		return -ENOMEM;
	thp_hugetlb_read(root, h->hugetlb);
	h->numa = malloc(sizeof(*h->numa));
	if (!h->numa)
		return -ENOMEM;
	thp_numa_read(root, h->st ? h->st->pmd_size : 0, h->st ? h->st->page_size : 0, h->numa);
	h->nprocs = 0;
	memset(&h->unreadable, 0, sizeof(h->unreadable));
	memset(&h->rollups, 0, sizeof(h->rollups));
	h->procs = NULL;
	sc.q = (struct thp_batches){ .size = PROC_BATCH, .start = start_batch, .keep = keep_batch, .ctx = &sc };
	for (int k = 0; k < 2; k++)
		sc.b[k] = (struct proc_batch){ &sc, malloc(PROC_BATCH * sizeof(*sc.b[k].r)) };
	room = sc.b[0].r && sc.b[1].r;
	if (room) {
		h->rollups.err = thp_proc_each(root, list_proc, &sc);
		h->rollups.scanned = !h->rollups.err;
		thp_batch_end(&sc.q);
	}
	free(sc.b[0].r);
	free(sc.b[1].r);
	if (!room)
		return -ENOMEM;
	if (h->nprocs > 1)
		qsort(h->procs, (size_t)h->nprocs, sizeof(*h->procs), cmp_pid);
	for (int i = 0; !sc.err && i < h->nprocs; i++)
		if (thp_host_family_head(h, &h->procs[i]))
			sc.err = read_program(root, &h->procs[i]);
	for (int i = 0; h->numa->n > 1 && i < h->nprocs; i++)
		read_numa_maps(root, h->numa, &h->procs[i]);
	return sc.err;
}

void thp_host_free(struct thp_host *h)
{
	free(h->buddy);
	free(h->hugetlb);
	free(h->numa);
	for (int i = 0; i < h->nprocs; i++) {
		free((void *)h->procs[i].prog);
		free((void *)h->procs[i].cpus_allowed);
		free((void *)h->procs[i].origin.name);
	}
	free(h->procs);
	h->buddy = NULL;
	h->hugetlb = NULL;
	h->numa = NULL;
	h->procs = NULL;
	h->nprocs = 0;
}

static void add_unchecked(struct thp_findings *out, const char *what, const char *path, int err)
{
	struct thp_unchecked *u = &out->unchecked[out->nunchecked++];

	u->what = what;
	snprintf(u->path, sizeof(u->path), "%s", path);
	u->err = err;
}

/* Why setting NAME gives no word: -ENOENT when absent, its read error, or
 * -EINVAL when it is not a choice list with one selected word. */
static int word_err(const struct thp_status *st, const char *name)
{
	const struct thp_setting *s = thp_status_setting(st, name);

	if (!s || s->kind == THP_MISSING)
		return -ENOENT;
	return s->kind == THP_ERROR && s->err ? s->err : -EINVAL;
}

/* Names in OUT what no rule could judge on H: a kernel without THP, a THP or
 * defrag policy that cannot be read, counters that cannot be read. */
static void find_unchecked(const struct thp_host *h, struct thp_findings *out)
{
	const struct thp_status *st = h->st;
	char path[96];

	if (!st->dir) {
		add_unchecked(out, "every THP rule: this kernel has no THP",
			      "/sys/kernel/mm/transparent_hugepage", -ENOENT);
		return;
	}
	if (!thp_setting_word(thp_status_setting(st, "enabled")))
		add_unchecked(out, "the rules that depend on the THP policy",
			      thp_src(h, "enabled", path, sizeof(path)), word_err(st, "enabled"));
	if (!thp_setting_word(thp_status_setting(st, "defrag")))
		add_unchecked(out, "the rules that depend on the defrag policy",
			      thp_src(h, "defrag", path, sizeof(path)), word_err(st, "defrag"));
	if (st->vmstat_err)
		add_unchecked(out, "the rules that read the counters since boot", "/proc/vmstat",
			      st->vmstat_err);
}

void thp_doctor_run(const struct thp_host *h, struct thp_findings *out)
{
	struct thp_finding tmp;

	memset(out, 0, sizeof(*out));
	find_unchecked(h, out);
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		rules[i](h, out);
	/* stable insertion sort: most severe first, rule order kept within a severity */
	for (int i = 1; i < out->n; i++) {
		int j = i;
		tmp = out->v[i];
		while (j > 0 && out->v[j - 1].sev < tmp.sev) {
			out->v[j] = out->v[j - 1];
			j--;
		}
		out->v[j] = tmp;
	}
}
