/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prom.c - Prometheus text exposition: the writer, and what thp exports for a host */
#include "prom.h"
#include "escape.h"

#include "../core/settings.h"
#include "../core/vm.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Writes S escaped for a label value (QUOTES) or a HELP text: first with
 * OUT_ESC_LABEL (valid UTF-8, no control character, so no newline either),
 * then with the exposition format's escapes for backslash and, in a label
 * value, double quote. */
static void put_escaped(FILE *f, const char *s, bool quotes)
{
	char *e = out_esc_dup(s, strlen(s), OUT_ESC_LABEL);

	for (const char *p = e ? e : ""; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '"' && quotes)
			fputs("\\\"", f);
		else
			fputc(*p, f);
	}
	free(e);
}

void out_prom_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s ", name);
	put_escaped(f, help, false);
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

static void sample(FILE *f, const char *name, const char *value, va_list ap)
{
	const char *k;
	bool first = true;

	fputs(name, f);
	while ((k = va_arg(ap, const char *))) {
		fprintf(f, "%s%s=\"", first ? "{" : ",", k);
		put_escaped(f, va_arg(ap, const char *), true);
		fputc('"', f);
		first = false;
	}
	if (!first)
		fputc('}', f);
	fprintf(f, " %s\n", value);
}

void out_prom_u64(FILE *f, const char *name, uint64_t v, ...)
{
	char buf[32];
	va_list ap;

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	va_start(ap, v);
	sample(f, name, buf, ap);
	va_end(ap);
}

void out_prom_num(FILE *f, const char *name, double v, ...)
{
	char buf[40];
	va_list ap;

	snprintf(buf, sizeof(buf), "%.10g", v);
	va_start(ap, v);
	sample(f, name, buf, ap);
	va_end(ap);
}

const char *out_prom_snake(char *buf, size_t cap, const char *text)
{
	size_t o = 0;

	for (const char *p = text; *p && o + 2 < cap; p++) {
		unsigned char c = (unsigned char)*p;
		if (isupper(c) && p > text && (islower((unsigned char)p[-1]) || isdigit((unsigned char)p[-1])))
			buf[o++] = '_';
		buf[o++] = isalnum(c) ? (char)tolower(c) : '_';
	}
	buf[o] = '\0';
	return buf;
}

/* A family whose HELP and TYPE are written before its first sample, so that a
 * family with nothing to show is left out. */
struct fam {
	const char *name, *type, *help;
	bool open;
};

static void fam_open(FILE *f, struct fam *m)
{
	if (!m->open)
		out_prom_family(f, m->name, m->type, m->help);
	m->open = true;
}

/* "2097152": the label of a page size, in bytes. */
static const char *size_label(char *buf, size_t cap, uint64_t bytes)
{
	snprintf(buf, cap, "%" PRIu64, bytes);
	return buf;
}

/* A family of one sample without labels. */
static void single(FILE *f, const char *name, const char *type, const char *help, uint64_t v)
{
	out_prom_family(f, name, type, help);
	out_prom_u64(f, name, v, OUT_PROM_END);
}

static void put_kernel(FILE *f, const struct thp_status *st)
{
	out_prom_family(f, "thp_build_info", "gauge", "Version of thp that wrote these metrics, as a label");
	out_prom_u64(f, "thp_build_info", 1, "version", THP_VERSION, OUT_PROM_END);
	if (!st->release_err) {
		out_prom_family(f, "thp_kernel_info", "gauge", "Kernel release, as a label");
		out_prom_u64(f, "thp_kernel_info", 1, "release", st->release, OUT_PROM_END);
	}
	single(f, "thp_supported", "gauge",
	       "1 when the kernel has transparent huge pages (a THP sysfs directory)", st->dir != NULL);
	if (st->pmd_size)
		single(f, "thp_pmd_size_bytes", "gauge", "Size of a PMD-mapped huge page", st->pmd_size);
	if (st->page_size)
		single(f, "thp_page_size_bytes", "gauge", "Size of a base page", st->page_size);
}

/* The selected word or text of a setting, or NULL when it has none. */
static const char *setting_word(const struct thp_setting *s)
{
	if (s->kind == THP_CHOICE)
		return thp_setting_word(s);
	return s->kind == THP_TEXT ? s->text : NULL;
}

static void put_policy(FILE *f, const struct thp_status *st)
{
	struct fam info = { "thp_setting_info", "gauge",
			    "THP policy setting (global, or khugepaged/NAME) with its selected value", false };
	struct fam val = { "thp_setting_value", "gauge", "Numeric global THP setting", false };
	struct fam size = { "thp_size_setting_info", "gauge",
			    "Per-size (mTHP) policy, with the effective value after resolving inherit", false };
	char name[96], sz[32];
	const char *w;

	for (int i = 0; i < st->nsettings; i++) {
		if (!(w = setting_word(&st->settings[i])))
			continue;
		fam_open(f, &info);
		out_prom_u64(f, info.name, 1, "setting", st->settings[i].name, "value", w, OUT_PROM_END);
	}
	for (int i = 0; i < st->nkhugepaged; i++) {
		if (!(w = setting_word(&st->khugepaged[i])))
			continue;
		snprintf(name, sizeof(name), "khugepaged/%s", st->khugepaged[i].name);
		fam_open(f, &info);
		out_prom_u64(f, info.name, 1, "setting", name, "value", w, OUT_PROM_END);
	}
	for (int i = 0; i < st->nsettings; i++) {
		if (st->settings[i].kind != THP_INT)
			continue;
		fam_open(f, &val);
		out_prom_u64(f, val.name, st->settings[i].num, "setting", st->settings[i].name, OUT_PROM_END);
	}
	for (int i = 0; i < st->nsizes; i++) {
		const struct thp_size *z = &st->sizes[i];
		const char *anon = thp_setting_word(&z->enabled), *shm = thp_setting_word(&z->shmem_enabled);
		size_label(sz, sizeof(sz), z->bytes);
		if (anon || shm)
			fam_open(f, &size);
		if (anon)
			out_prom_u64(f, size.name, 1, "size", sz, "setting", "enabled", "value", anon,
				     "effective", z->anon_effective ? z->anon_effective : "unknown", OUT_PROM_END);
		if (shm)
			out_prom_u64(f, size.name, 1, "size", sz, "setting", "shmem_enabled", "value", shm,
				     "effective", z->shmem_effective ? z->shmem_effective : "unknown", OUT_PROM_END);
	}
}

static void put_khugepaged(FILE *f, const struct thp_status *st)
{
	char name[128], stem[96], help[160], mb[96];

	for (int i = 0; i < st->nkhugepaged; i++) {
		const struct thp_setting *s = &st->khugepaged[i];
		const char *m = thp_status_setting_meaning(st, s->name, true, mb, sizeof(mb));
		size_t n = strlen(s->name), sn;

		if (s->kind != THP_INT)
			continue;
		sn = strlen(out_prom_snake(stem, sizeof(stem), s->name));
		if (m)
			snprintf(help, sizeof(help), "%s (khugepaged/%s)", m, s->name);
		else
			snprintf(help, sizeof(help), "khugepaged/%s, a file thp does not describe", s->name);
		if (strcmp(s->name, "full_scans") == 0 || strcmp(s->name, "pages_collapsed") == 0) {
			snprintf(name, sizeof(name), "thp_khugepaged_%s_total", stem);
			single(f, name, "counter", help, s->num);
		} else if (n > 10 && sn > 10 && strcmp(s->name + n - 10, "_millisecs") == 0) {
			stem[sn - 10] = '\0';
			snprintf(name, sizeof(name), "thp_khugepaged_%s_seconds", stem);
			out_prom_family(f, name, "gauge", help);
			out_prom_num(f, name, (double)s->num / 1000.0, OUT_PROM_END);
		} else {
			snprintf(name, sizeof(name), "thp_khugepaged_%s", stem);
			single(f, name, "gauge", help, s->num);
		}
	}
}

/* HELP of a counter NAME read from SOURCE (which ends in ' ' or '/'): what it
 * counts, and where from. */
static const char *counter_help(char *buf, size_t cap, const char *name, const char *source)
{
	const char *m = thp_counter_meaning(name);

	if (m)
		snprintf(buf, cap, "%s (%s%s)", m, source, name);
	else
		snprintf(buf, cap, "%s%s, a counter thp does not describe", source, name);
	return buf;
}

/* The zone of vmstat field allocstall_SUFFIX as /proc/buddyinfo names it
 * ("Normal"), or SUFFIX for a zone thp does not know. */
static const char *stall_zone(const char *suffix)
{
	static const char *const zones[][2] = {
		{ "dma", "DMA" }, { "dma32", "DMA32" }, { "normal", "Normal" },
		{ "high", "HighMem" }, { "movable", "Movable" }, { "device", "Device" },
	};

	for (size_t i = 0; i < sizeof(zones) / sizeof(zones[0]); i++)
		if (strcmp(zones[i][0], suffix) == 0)
			return zones[i][1];
	return suffix;
}

/* The allocstall_<zone> fields of /proc/vmstat: one counter with a zone label. */
static void put_allocstall(FILE *f, const struct thp_status *st)
{
	struct fam stall = { "thp_allocstall_total", "counter",
			     "Times an allocation stalled in direct reclaim, by the zone it was for "
			     "(/proc/vmstat allocstall_<zone>)", false };

	for (int i = 0; !st->vmstat_err && i < st->nvmstat; i++) {
		if (strncmp(st->vmstat[i].name, "allocstall_", 11) != 0)
			continue;
		fam_open(f, &stall);
		out_prom_u64(f, stall.name, st->vmstat[i].val, "zone", stall_zone(st->vmstat[i].name + 11),
			     OUT_PROM_END);
	}
}

/* The other fields of /proc/vmstat thp reads, a counter each. */
static void put_vmstat(FILE *f, const struct thp_status *st)
{
	char name[128], stem[96], help[192];

	put_allocstall(f, st);
	for (int i = 0; !st->vmstat_err && i < st->nvmstat; i++) {
		const char *v = st->vmstat[i].name;
		if (strncmp(v, "allocstall_", 11) == 0)
			continue;
		out_prom_snake(stem, sizeof(stem), v);
		snprintf(name, sizeof(name), "%s%s_total", strncmp(stem, "thp_", 4) ? "thp_" : "", stem);
		single(f, name, "counter", counter_help(help, sizeof(help), v, "/proc/vmstat "),
		       st->vmstat[i].val);
	}
}

/* Whether sysctl NAME counts KiB ("min_free_kbytes"). */
static bool in_kib(const char *name)
{
	size_t n = strlen(name);

	return n > 7 && strcmp(name + n - 7, "_kbytes") == 0;
}

/* The compaction and watermark sysctls this kernel has, one family per unit:
 * plain numbers, and those counted in KiB converted to bytes; and the kernel's
 * own min_free_kbytes (estimated: vm.h). */
static void put_vm(FILE *f, const struct thp_status *st)
{
	struct fam val = { "thp_vm_setting", "gauge",
			   "Compaction and watermark sysctl of /proc/sys/vm that is a plain number: a ratio, "
			   "factor, threshold or flag, as the file has it (label: its name)", false };
	struct fam bytes = { "thp_vm_setting_bytes", "gauge",
			     "Compaction and watermark sysctl of /proc/sys/vm counted in KiB, converted to bytes "
			     "(label: its name)", false };
	struct thp_min_free m;

	for (int k = 0; k < 2; k++) {
		struct fam *fam = k ? &bytes : &val;
		for (int i = 0; i < st->nvm; i++) {
			if (st->vm[i].kind != THP_INT || in_kib(st->vm[i].name) != (k == 1))
				continue;
			fam_open(f, fam);
			out_prom_u64(f, fam->name, (uint64_t)st->vm[i].num << (k ? 10 : 0), "setting",
				     st->vm[i].name, OUT_PROM_END);
		}
	}
	if (thp_min_free_default(st, &m))
		single(f, "thp_vm_min_free_default_bytes", "gauge",
		       "min_free_kbytes the kernel would choose for this host, estimated from MemTotal and zones",
		       m.kb << 10);
}

/* TLB shootdowns from /proc/interrupts; absent where the kernel has no TLB row. */
static void put_tlb(FILE *f, const struct thp_status *st)
{
	if (st->tlb_err || !st->tlb.present)
		return;
	single(f, "thp_tlb_shootdowns_total", "counter",
	       "TLB shootdown interrupts received, summed over the CPUs (/proc/interrupts TLB)",
	       st->tlb.total);
}

/* Per-size counters: one family per stat name, with a sample for each size. */
static void put_size_stats(FILE *f, const struct thp_status *st)
{
	const char *names[THP_STATS_MAX * 2];
	int nnames = 0;
	char name[128], stem[96], help[224], sz[32];

	for (int i = 0; i < st->nsizes; i++)
		for (int j = 0; j < st->sizes[i].nstats; j++) {
			const char *s = st->sizes[i].stats[j].name;
			int k = 0;
			while (k < nnames && strcmp(names[k], s) != 0)
				k++;
			if (k == nnames && nnames < (int)(sizeof(names) / sizeof(names[0])))
				names[nnames++] = s;
		}
	for (int k = 0; k < nnames; k++) {
		bool gauge = strncmp(names[k], "nr_", 3) == 0;
		out_prom_snake(stem, sizeof(stem), names[k]);
		snprintf(name, sizeof(name), "thp_size_%s%s", stem, gauge ? "" : "_total");
		out_prom_family(f, name, gauge ? "gauge" : "counter",
				counter_help(help, sizeof(help), names[k], "hugepages-<size>kB/stats/"));
		for (int i = 0; i < st->nsizes; i++) {
			uint64_t v;
			if (thp_counter_get(st->sizes[i].stats, st->sizes[i].nstats, names[k], &v))
				out_prom_u64(f, name, v, "size", size_label(sz, sizeof(sz), st->sizes[i].bytes),
					     OUT_PROM_END);
		}
	}
}

/* The lines of /proc/meminfo thp reads (huge pages, MemTotal, PageTables), as
 * thp_meminfo_*_bytes, and the two of hugetlb as thp_hugetlb_*_bytes. */
static void put_meminfo(FILE *f, const struct thp_status *st)
{
	char name[128], stem[96], help[192];

	for (int i = 0; !st->meminfo_err && i < st->nmeminfo; i++) {
		const char *k = st->meminfo[i].name;
		if (strncmp(k, "HugePages_", 10) == 0)
			continue;
		if (strcmp(k, "Hugepagesize") == 0)
			snprintf(name, sizeof(name), "thp_hugetlb_default_page_size_bytes");
		else if (strcmp(k, "Hugetlb") == 0)
			snprintf(name, sizeof(name), "thp_hugetlb_bytes");
		else
			snprintf(name, sizeof(name), "thp_meminfo_%s_bytes", out_prom_snake(stem, sizeof(stem), k));
		single(f, name, "gauge", counter_help(help, sizeof(help), k, "/proc/meminfo "), st->meminfo[i].val);
	}
}

/* The static pools of every size (H), or of the default size from /proc/meminfo
 * when the kernel has no per-size pools in sysfs. */
static void put_hugetlb(FILE *f, const struct thp_status *st, const struct thp_hugetlb *h)
{
	struct thp_hugetlb mem = { .npools = 1 };
	struct thp_hpool *p = &mem.pools[0];
	char sz[32];

	if (!h || !h->npools) {
		if (st->meminfo_err || !thp_counter_get(st->meminfo, st->nmeminfo, "Hugepagesize", &p->size) ||
		    !thp_counter_get(st->meminfo, st->nmeminfo, "HugePages_Total", &p->total))
			return;
		thp_counter_get(st->meminfo, st->nmeminfo, "HugePages_Free", &p->free);
		thp_counter_get(st->meminfo, st->nmeminfo, "HugePages_Rsvd", &p->resv);
		thp_counter_get(st->meminfo, st->nmeminfo, "HugePages_Surp", &p->surplus);
		h = &mem;
	}
	out_prom_family(f, "thp_hugetlb_pool_pages", "gauge",
			"Static huge pages (hugetlbfs) in the pool of this size, surplus pages included");
	for (int i = 0; i < h->npools; i++)
		out_prom_u64(f, "thp_hugetlb_pool_pages", h->pools[i].total, "size",
			     size_label(sz, sizeof(sz), h->pools[i].size), OUT_PROM_END);
	out_prom_family(f, "thp_hugetlb_pages", "gauge",
			"Static huge pages of the pool by state, which sum to thp_hugetlb_pool_pages: used "
			"(faulted in), reserved (free but promised to a mapping), free (neither)");
	for (int i = 0; i < h->npools; i++) {
		const struct thp_hpool *q = &h->pools[i];
		uint64_t free = q->free > q->resv ? q->free - q->resv : 0;
		size_label(sz, sizeof(sz), q->size);
		out_prom_u64(f, "thp_hugetlb_pages", q->total > q->free ? q->total - q->free : 0, "size", sz,
			     "state", "used", OUT_PROM_END);
		out_prom_u64(f, "thp_hugetlb_pages", q->free - free, "size", sz, "state", "reserved", OUT_PROM_END);
		out_prom_u64(f, "thp_hugetlb_pages", free, "size", sz, "state", "free", OUT_PROM_END);
	}
	out_prom_family(f, "thp_hugetlb_surplus_pages", "gauge",
			"Static huge pages above the pool size, allowed by nr_overcommit_hugepages");
	for (int i = 0; i < h->npools; i++)
		out_prom_u64(f, "thp_hugetlb_surplus_pages", h->pools[i].surplus, "size",
			     size_label(sz, sizeof(sz), h->pools[i].size), OUT_PROM_END);
}

static void put_buddy(FILE *f, const struct thp_status *st, const struct thp_buddyinfo *b)
{
	int order = thp_pmd_order(st->pmd_size, st->page_size);
	char node[16], ord[16];

	if (!b || !b->nzones)
		return;
	out_prom_family(f, "thp_buddyinfo_free_blocks", "gauge",
			"Free blocks of 2^order base pages per node and zone (/proc/buddyinfo)");
	for (int i = 0; i < b->nzones; i++) {
		const struct thp_buddy_zone *z = &b->zones[i];
		snprintf(node, sizeof(node), "%d", z->node);
		for (int k = 0; k < z->norders; k++) {
			snprintf(ord, sizeof(ord), "%d", k);
			out_prom_u64(f, "thp_buddyinfo_free_blocks", z->free[k], "node", node, "zone",
				     z->zone, "order", ord, OUT_PROM_END);
		}
	}
	if (order < 0)
		return;
	out_prom_family(f, "thp_free_pmd_blocks", "gauge",
			"Free memory in blocks of the PMD order or larger, counted in PMD-sized "
			"blocks: huge pages that can be had without compaction");
	for (int i = 0; i < b->nzones; i++) {
		snprintf(node, sizeof(node), "%d", b->zones[i].node);
		out_prom_u64(f, "thp_free_pmd_blocks", thp_buddy_free_blocks(&b->zones[i], order),
			     "node", node, "zone", b->zones[i].zone, OUT_PROM_END);
	}
}

static void put_top(FILE *f, const struct thp_top *top, bool pids)
{
	char pid[16];

	if (!top)
		return;
	single(f, "thp_processes_with_anon_huge", "gauge", "Processes with AnonHugePages above 0 in smaps_rollup",
	       (uint64_t)top->with_huge);
	if (!top->scanned)
		return;
	single(f, "thp_processes_unreadable", "gauge",
	       "Processes whose smaps_rollup could not be read (permission denied)", (uint64_t)top->unreadable);
	if (!top->n)
		return;
	if (pids) {
		out_prom_family(f, "thp_process_anon_huge_bytes", "gauge",
				"AnonHugePages of the processes holding the most (top N, one series per pid)");
		for (int i = 0; i < top->n; i++) {
			snprintf(pid, sizeof(pid), "%d", (int)top->v[i].pid);
			out_prom_u64(f, "thp_process_anon_huge_bytes", top->v[i].anon_huge, "pid", pid, "comm",
				     top->v[i].comm, OUT_PROM_END);
		}
		return;
	}
	out_prom_family(f, "thp_comm_anon_huge_bytes", "gauge",
			"AnonHugePages summed over the processes of a command name (the top N names)");
	for (int i = 0; i < top->n; i++)
		out_prom_u64(f, "thp_comm_anon_huge_bytes", top->v[i].anon_huge, "comm", top->v[i].comm,
			     OUT_PROM_END);
	out_prom_family(f, "thp_comm_processes", "gauge",
			"Processes of a command name holding AnonHugePages (the names of thp_comm_anon_huge_bytes)");
	for (int i = 0; i < top->n; i++)
		out_prom_u64(f, "thp_comm_processes", (uint64_t)top->v[i].nprocs, "comm", top->v[i].comm,
			     OUT_PROM_END);
}

/* The doctor's findings counted per id, and how the settings compare with
 * what boot applies. */
static void put_doctor(FILE *f, const struct thp_findings *r, const struct thp_host_persist *p)
{
	if (p && p->known) {
		single(f, "thp_persisted_settings", "gauge",
		       "THP settings that boot applies (tmpfiles.d, systemd units, kernel command line)",
		       (uint64_t)p->npersisted);
		single(f, "thp_persist_drift_settings", "gauge",
		       "THP settings whose running value differs from what boot applies ('thp persist --check')",
		       (uint64_t)p->ndrift);
	}
	if (!r)
		return;
	out_prom_family(f, "thp_doctor_findings", "gauge",
			"Findings of 'thp doctor' by id and severity: how many processes or host facts the "
			"rule flagged; 'thp doctor' shows the evidence and the fix");
	for (int i = 0; i < r->n; i++) {
		int n = 1, j = 0;
		while (j < i && strcmp(r->v[j].id, r->v[i].id) != 0)
			j++;
		if (j < i)
			continue; /* counted with its first */
		for (j = i + 1; j < r->n; j++)
			n += strcmp(r->v[j].id, r->v[i].id) == 0;
		out_prom_u64(f, "thp_doctor_findings", (uint64_t)n, "id", r->v[i].id, "severity",
			     thp_severity_name(r->v[i].sev), OUT_PROM_END);
	}
	single(f, "thp_doctor_findings_dropped", "gauge", "Findings beyond the 64 'thp doctor' keeps, left out",
	       (uint64_t)r->dropped);
}

void out_prom_host(FILE *f, const struct thp_metrics *m)
{
	put_kernel(f, m->st);
	put_policy(f, m->st);
	put_khugepaged(f, m->st);
	put_vm(f, m->st);
	put_vmstat(f, m->st);
	put_tlb(f, m->st);
	put_size_stats(f, m->st);
	put_meminfo(f, m->st);
	put_hugetlb(f, m->st, m->hugetlb);
	put_buddy(f, m->st, m->buddy);
	put_top(f, m->top, m->pids);
	put_doctor(f, m->findings, m->persist);
}
