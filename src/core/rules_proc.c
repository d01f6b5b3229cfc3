/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rules_proc.c - doctor rules about processes and the workloads they run */
#include "rules.h"
#include "parse.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "ptables.h"

#define GiB (1024ull * 1024 * 1024)

/* What the rules about programs read of P; nothing for a process that does
 * not head its family (the rules judge only those). */
static const struct thp_host_program *program(const struct thp_host_proc *p)
{
	static const struct thp_host_program none = { "", "", THP_RELAUNCH_UNKNOWN, "" };

	return p->prog ? p->prog : &none;
}

/* Adds the process's identity and THP state as evidence. */
static void ev_proc(struct thp_finding *f, const struct thp_host_proc *p)
{
	char src[64];

	f->pid = p->ps.pid;
	snprintf(src, sizeof(src), "/proc/%d/cmdline", (int)p->ps.pid);
	ev_text(f, src, "command", "%s", program(p)->cmdline[0] ? program(p)->cmdline : p->comm);
	snprintf(src, sizeof(src), "/proc/%d/status", (int)p->ps.pid);
	if (p->ps.thp_enabled == THP_ENABLED_NO_KERNEL)
		ev_text(f, src, "THP_enabled", "0 (the kernel has no THP)");
	else if (p->ps.thp_enabled >= 0)
		ev_text(f, src, "THP_enabled", "%s", p->ps.thp_enabled ? "1 (on)" : "0 (off: PR_SET_THP_DISABLE)");
	else
		ev_text(f, src, "THP_enabled", "not shown (Linux 5.0+ shows it)");
	snprintf(src, sizeof(src), "/proc/%d/smaps_rollup", (int)p->ps.pid);
	if (p->has_rollup)
		ev_bytes(f, src, "AnonHugePages", p->r.anon_huge);
}

/* A fix that starts P's program again under 'thp exec MODE', saying what
 * could not be known about its command. */
static void fix_exec(struct thp_finding *f, const char *mode, const struct thp_host_proc *p)
{
	static const char *const notes[] = {
		[THP_RELAUNCH_ARGV] = "",
		[THP_RELAUNCH_RECORDED] = "   # as recorded: a capture has no /proc/PID/exe",
		[THP_RELAUNCH_TITLE] = "   # add its arguments: the process replaced them with a title",
		[THP_RELAUNCH_LONG] = "   # add its arguments: too long to show",
		[THP_RELAUNCH_UNKNOWN] = "   # the command name: its command line is not known",
	};
	const struct thp_host_program *g = program(p);

	finding_fix(f, "thp exec %s -- %s%s", mode, g->relaunch, notes[g->relaunch_how]);
}

static void ev_enabled(struct thp_finding *f, const struct thp_host *h, const char *pol)
{
	char src[128];

	ev_text(f, thp_src(h, "enabled", src, sizeof(src)), "THP policy for 2 MiB pages", "%s",
		pol ? pol : "unknown");
}

/* Number of processes other than family members of P that hold PMD-mapped THP. */
static int other_thp_users(const struct thp_host *h, const struct thp_host_proc *p)
{
	int n = 0;

	for (int i = 0; i < h->nprocs; i++)
		if (h->procs[i].has_rollup && h->procs[i].r.anon_huge &&
		    strcmp(h->procs[i].comm, p->comm) != 0)
			n++;
	return n;
}

static const struct server {
	const char *comm, *name;
	const char *optout; /* the program's own switch, or NULL */
} servers[] = {
	{ "redis-server", "Redis", "disable-thp yes   # redis.conf (Redis 6.2+; the default)" },
	{ "valkey-server", "Valkey", "disable-thp yes   # valkey.conf (the default)" },
	{ "keydb-server", "KeyDB", NULL },
	{ "memcached", "memcached", NULL },
};

static const struct server *server_of(const struct thp_host_proc *p)
{
	for (size_t i = 0; i < sizeof(servers) / sizeof(servers[0]); i++)
		if (strcmp(p->comm, servers[i].comm) == 0)
			return &servers[i];
	return NULL;
}

/* A server under PR_SET_THP_DISABLE on an 'always' host; huge pages it
 * faulted before the prctl stay mapped, and the finding says so. */
static void opted_out(const struct thp_host *h, const struct thp_host_proc *p, const struct server *s,
		      const char *pol, struct thp_findings *out)
{
	bool self = p->origin.pid == p->ps.pid;
	uint64_t held = p->has_rollup ? p->r.anon_huge : 0;
	struct thp_finding *f;
	char who[160], sz[32];

	if (held)
		f = finding_add(out, "latency-server-opted-out", THP_SEV_INFO,
				"PR_SET_THP_DISABLE stops new huge pages, but those faulted before the "
				"prctl stay mapped until the memory is freed: a restart gives them back. "
				"New memory is safe from THP.");
	else
		f = finding_add(out, "latency-server-opted-out", THP_SEV_INFO,
				"The host policy is 'always', but a process with PR_SET_THP_DISABLE gets no "
				"huge pages: its latency and memory use are safe from THP.");
	if (self)
		snprintf(who, sizeof(who), "disabled THP for itself (PR_SET_THP_DISABLE)");
	else
		snprintf(who, sizeof(who), "runs with THP disabled, inherited from pid %d (%s)",
			 (int)p->origin.pid, p->origin.name);
	if (held)
		finding_title(f, "%s (pid %d) %s, but still holds %s of THP faulted before that.", s->name,
			      (int)p->ps.pid, who, thp_size_words(held, sz, sizeof(sz)));
	else if (self)
		finding_title(f, "%s (pid %d) %s, so 'always' does not reach it.", s->name, (int)p->ps.pid, who);
	else
		finding_title(f, "%s (pid %d) %s.", s->name, (int)p->ps.pid, who);
	ev_proc(f, p);
	ev_enabled(f, h, pol);
}

static void latency_server(const struct thp_host *h, const struct thp_host_proc *p,
			   const struct server *s, struct thp_findings *out)
{
	const char *pol = thp_status_pmd_policy(h->st);
	struct thp_finding *f;
	int others;

	if (!word_is(pol, "always")) {
		f = finding_add(out, "latency-server-ok", THP_SEV_INFO,
				"Latency-sensitive servers suffer from THP faults that stall in compaction "
				"and from fork copy-on-write of huge pages; with this policy they only get "
				"huge pages where they ask for them.");
		finding_title(f, "%s (pid %d) runs on a '%s' host: no action is needed.", s->name,
			      (int)p->ps.pid, pol ? pol : "unknown");
		ev_proc(f, p);
		ev_enabled(f, h, pol);
		return;
	}
	if (p->ps.thp_enabled == 0) {
		opted_out(h, p, s, pol, out);
		return;
	}
	others = other_thp_users(h, p);
	f = finding_add(out, "latency-server-thp-on", p->ps.thp_enabled < 0 ? THP_SEV_INFO : THP_SEV_WARN,
			"On an 'always' host a latency-sensitive server gets huge pages for all its "
			"memory: faults may stall in compaction, a fork for snapshots copies and "
			"splits huge pages, and freed memory stays resident: latency spikes and RSS "
			"growth.");
	if (p->ps.thp_enabled < 0)
		finding_title(f, "%s (pid %d) may use THP on an 'always' host; this kernel does not show whether it opted out.",
			      s->name, (int)p->ps.pid);
	else
		finding_title(f, "%s (pid %d) did not opt out of THP on an 'always' host.", s->name,
			      (int)p->ps.pid);
	ev_proc(f, p);
	ev_enabled(f, h, pol);
	ev_count(f, "/proc/PID/smaps_rollup", "other programs holding THP", (uint64_t)others);
	if (s->optout)
		finding_fix(f, "%s", s->optout);
	/* whichever breaks fewer neighbours first */
	if (others)
		fix_exec(f, "--disable", p);
	finding_fix(f, "thp set enabled=madvise");
	finding_fix(f, "thp persist");
	if (!others)
		fix_exec(f, "--disable", p);
}

/* The first "MAJOR.MINOR.PATCH" in the program path (argv[0]) of CMDLINE, as
 * release archives name their folders; returns MAJOR or -1. */
static int path_version(const char *cmdline, int *minor)
{
	size_t end = strcspn(cmdline, " ");

	for (size_t i = 0; i < end; i++) {
		int ma, mi, pa, n = 0;
		if (!isdigit((unsigned char)cmdline[i]) || (i && isdigit((unsigned char)cmdline[i - 1])))
			continue;
		if (sscanf(cmdline + i, "%d.%d.%d%n", &ma, &mi, &pa, &n) == 3 && i + (size_t)n <= end) {
			*minor = mi;
			return ma;
		}
	}
	return -1;
}

static void mongodb(const struct thp_host *h, const struct thp_host_proc *p, struct thp_findings *out)
{
	const char *pol = thp_status_pmd_policy(h->st);
	const char *defrag = thp_setting_word(thp_status_setting(h->st, "defrag"));
	const struct thp_setting *none = thp_setting_find(h->st->khugepaged, h->st->nkhugepaged,
							  "max_ptes_none");
	bool none0 = none && none->kind == THP_INT && none->num == 0;
	const char *cmdline = program(p)->cmdline;
	int minor = 0, major = path_version(cmdline, &minor);
	struct thp_finding *f;
	char src[128];

	if (major >= 8) {
		if (word_is(pol, "always") && word_is(defrag, "defer+madvise") && none0 && p->ps.thp_enabled != 0)
			return;
		f = finding_add(out, "mongodb-thp", THP_SEV_WARN,
				"MongoDB 8.0 and later use TCMalloc with per-CPU caches built on huge "
				"pages and are tuned for enabled=always, defrag=defer+madvise and "
				"khugepaged max_ptes_none=0; other settings cost memory or throughput.");
		finding_title(f, "MongoDB %d.%d (pid %d) wants THP on, and this host is not set up the way it expects.",
			      major, minor, (int)p->ps.pid);
	} else if (major >= 0) {
		if (!word_is(pol, "always") || p->ps.thp_enabled == 0)
			return;
		f = finding_add(out, "mongodb-thp", THP_SEV_WARN,
				"MongoDB 7.0 and older recommend THP off: their allocator and access "
				"pattern gain little and suffer from compaction stalls and memory bloat.");
		finding_title(f, "MongoDB %d.%d (pid %d) runs with THP on, which versions before 8.0 advise against.",
			      major, minor, (int)p->ps.pid);
	} else {
		f = finding_add(out, "mongodb-thp", THP_SEV_INFO,
				"MongoDB 8.0+ wants enabled=always, defrag=defer+madvise and "
				"max_ptes_none=0; 7.0 and older want THP off. Which applies depends on "
				"the version, which could not be read from the command line.");
		finding_title(f, "MongoDB (pid %d) runs, but its version is unknown, so the THP advice for it is unsure.",
			      (int)p->ps.pid);
	}
	ev_proc(f, p);
	ev_enabled(f, h, pol);
	ev_text(f, thp_src(h, "defrag", src, sizeof(src)), "defrag", "%s", defrag ? defrag : "unknown");
	if (none && none->kind == THP_INT)
		ev_count(f, thp_src(h, "khugepaged/max_ptes_none", src, sizeof(src)), "max_ptes_none", none->num);
	if (major >= 0)
		ev_text(f, "", "version", "%d.%d (from the program path)", major, minor);
	else
		ev_text(f, "", "version", "unknown");
	if (major >= 8) {
		finding_fix(f, "thp set enabled=always defrag=defer+madvise khugepaged.max_ptes_none=0");
		finding_fix(f, "thp persist");
		if (p->ps.thp_enabled == 0)
			fix_exec(f, "--enable", p);
	} else if (major >= 0) {
		fix_exec(f, "--disable", p);
		finding_fix(f, "thp set enabled=madvise   # if no other program needs 'always'");
	} else {
		char prog[300] = "", word[256];
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(cmdline, " "), cmdline);
		thp_sh_quote_append(prog, sizeof(prog), word[0] ? word : p->comm);
		finding_fix(f, "%s --version", prog);
	}
}

static const struct database {
	const char *comm, *name, *config;
} databases[] = {
	{ "postgres", "PostgreSQL", "huge_pages = on   # postgresql.conf" },
	{ "postmaster", "PostgreSQL", "huge_pages = on   # postgresql.conf" },
	{ "mysqld", "MySQL", "large-pages   # my.cnf, [mysqld] section" },
	{ "mariadbd", "MariaDB", "large-pages   # my.cnf, [mysqld] section" },
};

static void database(const struct thp_host *h, const struct thp_host_proc *p,
		     const struct database *d, struct thp_findings *out)
{
	uint64_t hugetlb = p->r.hugetlb, total = 0;
	struct thp_finding *f;
	char src[64];

	if (!p->has_rollup)
		return;
	if (hugetlb) {
		f = finding_add(out, "database-hugetlb", THP_SEV_INFO,
				"Static huge pages are the recommended path for a database's shared "
				"buffers: reserved at start, never compacted or split, no THP stalls.");
		finding_title(f, "%s (pid %d) uses static huge pages%s.", d->name, (int)p->ps.pid,
			      p->r.anon_huge ? ", and THP for other memory" : "");
	} else {
		f = finding_add(out, "database-no-hugetlb", p->r.rss >= GiB ? THP_SEV_WARN : THP_SEV_INFO,
				"A database's shared buffers are large, long-lived and mapped by every "
				"backend: static huge pages cut page-table memory and TLB misses, and "
				"unlike THP they are not compacted, split or subject to policy.");
		finding_title(f, "%s (pid %d) does not use static huge pages%s.", d->name, (int)p->ps.pid,
			      p->r.anon_huge ? "; THP is in play instead" : "");
	}
	ev_proc(f, p);
	snprintf(src, sizeof(src), "/proc/%d/smaps_rollup", (int)p->ps.pid);
	ev_bytes(f, src, "Rss", p->r.rss);
	ev_bytes(f, src, "Private_Hugetlb + Shared_Hugetlb", hugetlb);
	if (meminfo(h, "HugePages_Total", &total))
		ev_count(f, "/proc/meminfo", "HugePages_Total", total);
	if (!hugetlb) {
		finding_fix(f, "thp hugetlb plan SIZE   # SIZE: shared_buffers or the buffer pool");
		finding_fix(f, "%s", d->config);
	}
}

static void jvm(const struct thp_host *h, const struct thp_host_proc *p, struct thp_findings *out)
{
	const char *pol = thp_status_pmd_policy(h->st);
	const char *cmdline = program(p)->cmdline;
	bool thp = strstr(cmdline, "-XX:+UseTransparentHugePages") != NULL;
	bool large = strstr(cmdline, "-XX:+UseLargePages") != NULL;
	uint64_t total = 0;
	struct thp_finding *f;

	if (thp && word_is(pol, "never")) {
		f = finding_add(out, "jvm-thp-never", THP_SEV_WARN,
				"-XX:+UseTransparentHugePages makes the JVM advise its heap with "
				"MADV_HUGEPAGE; with enabled=never the kernel ignores that, so the flag "
				"does nothing.");
		finding_title(f, "A JVM (pid %d) asks for transparent huge pages, but the host policy is 'never'.",
			      (int)p->ps.pid);
		ev_proc(f, p);
		ev_enabled(f, h, pol);
		finding_fix(f, "thp set enabled=madvise");
		finding_fix(f, "thp persist");
	} else if (large && !thp && meminfo(h, "HugePages_Total", &total) && total == 0) {
		f = finding_add(out, "jvm-large-pages-no-pool", THP_SEV_WARN,
				"-XX:+UseLargePages without UseTransparentHugePages maps the heap from "
				"the static huge page pool; with no pool the JVM warns and falls back to "
				"small pages.");
		finding_title(f, "A JVM (pid %d) asks for static huge pages, but no pool is reserved.",
			      (int)p->ps.pid);
		ev_proc(f, p);
		ev_count(f, "/proc/meminfo", "HugePages_Total", total);
		finding_fix(f, "thp hugetlb plan SIZE   # SIZE: the heap (-Xmx)");
		finding_fix(f, "-XX:+UseTransparentHugePages   # instead, with enabled=madvise");
	}
}

static bool is_java(const struct thp_host_proc *p)
{
	const char *cmdline = program(p)->cmdline;
	size_t n = strcspn(cmdline, " ");

	return strcmp(p->comm, "java") == 0 || (n >= 5 && strncmp(cmdline + n - 5, "/java", 5) == 0);
}

/* The advice about servers and MongoDB is about THP: none on a kernel without
 * it (doctor names it unchecked); the static huge page advice stays. */
void rule_workloads(const struct thp_host *h, struct thp_findings *out)
{
	for (int i = 0; i < h->nprocs; i++) {
		const struct thp_host_proc *p = &h->procs[i];
		const struct server *s = server_of(p);

		if (!thp_host_family_head(h, p))
			continue;
		if (s && h->st->dir)
			latency_server(h, p, s, out);
		else if (strcmp(p->comm, "mongod") == 0 && h->st->dir)
			mongodb(h, p, out);
		else if (is_java(p))
			jvm(h, p, out);
		for (size_t j = 0; j < sizeof(databases) / sizeof(databases[0]); j++)
			if (strcmp(p->comm, databases[j].comm) == 0)
				database(h, p, &databases[j], out);
	}
}

void rule_thp_inherited(const struct thp_host *h, struct thp_findings *out)
{
	for (int i = 0; i < h->nprocs; i++) {
		const struct thp_host_proc *o = &h->procs[i];
		struct thp_finding *f = NULL;
		int n = 0;
		char src[64];

		/* an origin: THP off by its own hand; known opt-outs are left alone */
		if (o->ps.thp_enabled != 0 || o->origin.pid != o->ps.pid || server_of(o))
			continue;
		for (int j = 0; j < h->nprocs; j++) {
			const struct thp_host_proc *p = &h->procs[j];
			if (p->ps.thp_enabled != 0 || p->origin.pid != o->ps.pid || p == o)
				continue;
			if (!f) {
				f = finding_add(out, "thp-disabled-inherited", THP_SEV_WARN,
						"PR_SET_THP_DISABLE is inherited across fork and exec: every "
						"program this process starts runs without huge pages, whatever "
						"the host policy or the program itself wants.");
				snprintf(src, sizeof(src), "/proc/%d/status", (int)o->ps.pid);
				ev_text(f, src, "disabled by", "pid %d (%s), THP_enabled 0", (int)o->ps.pid, o->comm);
				f->pid = o->ps.pid;
			}
			if (++n <= 3) {
				snprintf(src, sizeof(src), "/proc/%d/status", (int)p->ps.pid);
				ev_text(f, src, "inherits it", "pid %d (%s)", (int)p->ps.pid, p->comm);
			}
		}
		if (!f)
			continue;
		finding_title(f, "THP is disabled for %d process%s by inheritance from pid %d (%s).", n,
			      n == 1 ? "" : "es", (int)o->ps.pid, o->comm);
		ev_count(f, "", "descendants with THP disabled", (uint64_t)n);
		finding_fix(f, "thp ps --all   # THP_STATE names the process each one inherits from");
		finding_fix(f, "thp exec --enable -- CMD   # start a program under it with THP back on");
	}
}

void rule_malloc_conf(const struct thp_host *h, struct thp_findings *out)
{
	const char *pol = thp_status_pmd_policy(h->st);

	/* jemalloc's thp option means nothing to a kernel without THP */
	for (int i = 0; h->st->dir && i < h->nprocs; i++) {
		const struct thp_host_proc *p = &h->procs[i];
		const char *conf = program(p)->malloc_conf, *t = strstr(conf, "thp:");
		struct thp_finding *f;
		char val[32], src[64];
		bool never_host;

		if (!t || (t > conf && t[-1] != ',') || !thp_host_family_head(h, p))
			continue;
		snprintf(val, sizeof(val), "%.*s", (int)strcspn(t + 4, ","), t + 4);
		never_host = word_is(val, "always") && word_is(pol, "never");
		f = finding_add(out, "jemalloc-thp", never_host ? THP_SEV_WARN : THP_SEV_INFO,
				"jemalloc's thp option overrides the host policy for its heap: "
				"'always' advises it MADV_HUGEPAGE (huge pages even on a 'madvise' host, "
				"none on a 'never' host), 'never' advises MADV_NOHUGEPAGE (none even on "
				"an 'always' host).");
		finding_title(f, "%s (pid %d) tells jemalloc thp:%s%s.", p->comm, (int)p->ps.pid, val,
			      never_host ? ", which the 'never' host policy ignores" : "");
		ev_proc(f, p);
		snprintf(src, sizeof(src), "/proc/%d/environ", (int)p->ps.pid);
		ev_text(f, src, "MALLOC_CONF", "%s", conf);
		ev_enabled(f, h, pol);
		if (never_host)
			finding_fix(f, "thp set enabled=madvise");
	}
}

/* Page tables for shared memory, summed over the processes named COMM:
 * the bytes, how many processes, and the largest RssShmem among them. */
struct pt_group {
	uint64_t bytes, nprocs, shmem_max;
};

static void pt_group_sum(const struct thp_host *h, const char *comm, struct pt_group *g)
{
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < h->nprocs; i++) {
		const struct thp_host_proc *p = &h->procs[i];
		if (strcmp(p->comm, comm) != 0 || !p->ps.has_pte)
			continue;
		g->bytes += thp_pt_shmem(p->ps.rss_shmem, p->has_rollup ? p->r.shmem_pmd : 0, p->ps.pte);
		g->nprocs++;
		if (p->ps.rss_shmem > g->shmem_max)
			g->shmem_max = p->ps.rss_shmem;
	}
}

/* True when an earlier process of H has P's command name. */
static bool comm_seen(const struct thp_host *h, const struct thp_host_proc *p)
{
	for (const struct thp_host_proc *q = h->procs; q < p; q++)
		if (strcmp(q->comm, p->comm) == 0)
			return true;
	return false;
}

/* Page tables for shared memory worth a finding: this share of RAM (in
 * basis points), and at least PT_SHARED_MIN bytes. */
#define PT_SHARED_BP 100
#define PT_SHARED_WARN_BP 500
#define PT_SHARED_MIN (64ull << 20)

void rule_page_tables_shared(const struct thp_host *h, struct thp_findings *out)
{
	uint64_t total;

	if (!meminfo(h, "MemTotal", &total) || total == 0)
		return;
	for (int i = 0; i < h->nprocs; i++) {
		const struct thp_host_proc *p = &h->procs[i];
		struct thp_finding *f;
		struct pt_group g;

		if (comm_seen(h, p))
			continue;
		pt_group_sum(h, p->comm, &g);
		if (g.bytes < PT_SHARED_MIN || g.bytes * 10000 < total * PT_SHARED_BP)
			continue;
		f = finding_add(out, "page-tables-shared",
				g.bytes * 10000 >= total * PT_SHARED_WARN_BP ? THP_SEV_WARN : THP_SEV_INFO,
				"Each process that maps shared memory with 4 KiB pages builds its own page "
				"tables for it, 8 bytes per page: many processes on one shared buffer "
				"(PostgreSQL backends, forked workers) pay for it many times over. With "
				"2 MiB hugetlb pages a process needs one entry per 2 MiB instead of 512; "
				"THP on shared memory (shmem_enabled) saves the same where it maps PMDs.");
		finding_title(f, "%llu %s processes spend about %llu MiB on page tables for shared memory.",
			      (unsigned long long)g.nprocs, p->comm, (unsigned long long)(g.bytes >> 20));
		ev_count(f, "/proc/PID/status", "processes", g.nprocs);
		ev_bytes(f, "", "page tables for shared memory (RssShmem / 512, at most VmPTE)", g.bytes);
		ev_bytes(f, "/proc/PID/status", "largest RssShmem", g.shmem_max);
		ev_ratio(f, "/proc/meminfo", "of MemTotal", g.bytes, total);
		finding_fix(f, "thp ps --by comm -o command,procs,rss,pte -s pte");
		finding_fix(f, "thp hugetlb plan %lluM   # the largest RssShmem of %s",
			    (unsigned long long)((g.shmem_max + (1 << 20) - 1) >> 20), p->comm);
	}
}

void rule_remote_hugetlb(const struct thp_host *h, struct thp_findings *out)
{
	for (int i = 0; i < h->nprocs; i++) {
		const struct thp_host_proc *p = &h->procs[i];
		struct thp_finding *f;
		char src[64];

		if (!p->hugetlb_numa || p->hugetlb_remote * 2 <= p->hugetlb_numa || p->hugetlb_node < 0)
			continue;
		f = finding_add(out, "remote-huge-pages", THP_SEV_WARN,
				"A process that runs on one node's CPUs and reads memory of another node "
				"crosses the interconnect on every cache miss, which costs more than the "
				"TLB misses huge pages save. Pools are sized per node, and numactl binds "
				"a program's CPUs and memory to one node.");
		f->pid = p->ps.pid;
		finding_title(f, "%s (pid %d) holds most of its static huge pages on nodes whose CPUs it does not run on.",
			      p->comm, (int)p->ps.pid);
		snprintf(src, sizeof(src), "/proc/%d/status", (int)p->ps.pid);
		ev_text(f, src, "Cpus_allowed_list", "%s", p->cpus_allowed);
		snprintf(src, sizeof(src), "/proc/%d/numa_maps", (int)p->ps.pid);
		ev_ratio(f, src, "static huge pages on other nodes", p->hugetlb_remote, p->hugetlb_numa);
		ev_text(f, src, "most of them on", "node %d", p->hugetlb_node);
		finding_fix(f, "numactl --cpunodebind=%d --membind=%d %s   # run it on the node of its memory",
			    p->hugetlb_node, p->hugetlb_node, p->comm);
		finding_fix(f, "thp hugetlb   # the pools per node, to size one on the node it runs on");
	}
}
