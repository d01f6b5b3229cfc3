/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prom.c - Prometheus text exposition: the writer, and what thp exports for a host */
#include "prom.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at P, or 0 when it is not one. */
static int utf8_len(const unsigned char *p)
{
	unsigned cp, min;
	int n;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		n = 2, min = 0x80;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3, min = 0x800;
	else if ((p[0] & 0xf8) == 0xf0)
		n = 4, min = 0x10000;
	else
		return 0;
	cp = p[0] & (0x7fu >> n);
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Writes S escaped for a label value (QUOTES) or a HELP text. */
static void put_escaped(FILE *f, const char *s, bool quotes)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = utf8_len(p);
		if (n == 0) {
			fputs("\xef\xbf\xbd", f);
			p++;
			continue;
		}
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '"' && quotes)
			fputs("\\\"", f);
		else
			fwrite(p, 1, (size_t)n, f);
		p += n;
	}
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

/* "64kB": the label of a size, as the kernel names its directory. */
static const char *size_label(char *buf, size_t cap, uint64_t bytes)
{
	snprintf(buf, cap, "%" PRIu64 "kB", bytes / 1024);
	return buf;
}

static void put_kernel(FILE *f, const struct thp_status *st)
{
	if (!st->release_err) {
		out_prom_family(f, "thp_kernel_info", "gauge", "Kernel release, as a label");
		out_prom_u64(f, "thp_kernel_info", 1, "release", st->release, OUT_PROM_END);
	}
	out_prom_family(f, "thp_supported", "gauge",
			"1 when the kernel has transparent huge pages (a THP sysfs directory)");
	out_prom_u64(f, "thp_supported", st->dir != NULL, OUT_PROM_END);
	if (st->pmd_size) {
		out_prom_family(f, "thp_pmd_size_bytes", "gauge", "Size of a PMD-mapped huge page");
		out_prom_u64(f, "thp_pmd_size_bytes", st->pmd_size, OUT_PROM_END);
	}
	if (st->page_size) {
		out_prom_family(f, "thp_page_size_bytes", "gauge", "Size of a base page");
		out_prom_u64(f, "thp_page_size_bytes", st->page_size, OUT_PROM_END);
	}
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
	char name[128], stem[96];

	for (int i = 0; i < st->nkhugepaged; i++) {
		const struct thp_setting *s = &st->khugepaged[i];
		const char *m = thp_setting_meaning(s->name, true);
		size_t n = strlen(s->name), sn;

		if (s->kind != THP_INT)
			continue;
		sn = strlen(out_prom_snake(stem, sizeof(stem), s->name));
		if (strcmp(s->name, "full_scans") == 0 || strcmp(s->name, "pages_collapsed") == 0) {
			snprintf(name, sizeof(name), "thp_khugepaged_%s_total", stem);
			out_prom_family(f, name, "counter", m ? m : "khugepaged progress");
			out_prom_u64(f, name, s->num, OUT_PROM_END);
		} else if (n > 10 && sn > 10 && strcmp(s->name + n - 10, "_millisecs") == 0) {
			stem[sn - 10] = '\0';
			snprintf(name, sizeof(name), "thp_khugepaged_%s_seconds", stem);
			out_prom_family(f, name, "gauge", m ? m : "khugepaged tunable");
			out_prom_num(f, name, (double)s->num / 1000.0, OUT_PROM_END);
		} else {
			snprintf(name, sizeof(name), "thp_khugepaged_%s", stem);
			out_prom_family(f, name, "gauge", m ? m : "khugepaged tunable");
			out_prom_u64(f, name, s->num, OUT_PROM_END);
		}
	}
}

static const char *vmstat_meaning(const char *name)
{
	static const char *const m[][2] = {
		{ "thp_fault_alloc", "THP allocated on a page fault" },
		{ "thp_fault_fallback", "THP page faults that fell back to small pages" },
		{ "thp_fault_fallback_charge", "THP faults that fell back because of a memory cgroup charge" },
		{ "thp_collapse_alloc", "huge pages allocated by khugepaged to collapse a range" },
		{ "thp_collapse_alloc_failed", "khugepaged collapses that failed to allocate a huge page" },
		{ "thp_split_page", "huge pages split into small pages" },
		{ "thp_split_page_failed", "huge page splits that failed" },
		{ "thp_deferred_split_page", "huge pages queued for splitting when partly unmapped" },
		{ "thp_split_pmd", "PMD mappings split into PTE mappings" },
		{ "thp_zero_page_alloc", "huge zero pages allocated" },
		{ "thp_zero_page_alloc_failed", "huge zero page allocations that failed" },
		{ "compact_stall", "direct compactions: an allocation stalled to compact memory" },
		{ "compact_fail", "direct compactions that did not free a large enough block" },
		{ "compact_success", "direct compactions that freed a large enough block" },
		{ "compact_daemon_wake", "times kcompactd woke up" },
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (strcmp(m[i][0], name) == 0)
			return m[i][1];
	return NULL;
}

static void put_vmstat(FILE *f, const struct thp_status *st)
{
	char name[128], stem[96], help[160];

	for (int i = 0; !st->vmstat_err && i < st->nvmstat; i++) {
		const char *v = st->vmstat[i].name, *m = vmstat_meaning(v);
		out_prom_snake(stem, sizeof(stem), v);
		snprintf(name, sizeof(name), "%s%s_total", strncmp(stem, "thp_", 4) ? "thp_" : "", stem);
		if (m)
			snprintf(help, sizeof(help), "%s (/proc/vmstat %s)", m, v);
		else
			snprintf(help, sizeof(help), "Kernel event counter /proc/vmstat %s", v);
		out_prom_family(f, name, "counter", help);
		out_prom_u64(f, name, st->vmstat[i].val, OUT_PROM_END);
	}
}

/* Per-size counters: one family per stat name, with a sample for each size. */
static void put_size_stats(FILE *f, const struct thp_status *st)
{
	const char *names[THP_STATS_MAX * 2];
	int nnames = 0;
	char name[128], stem[96], help[192], sz[32];

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
		snprintf(help, sizeof(help), "Per-size THP %s %s from hugepages-<size>kB/stats",
			 gauge ? "gauge" : "counter", names[k]);
		out_prom_family(f, name, gauge ? "gauge" : "counter", help);
		for (int i = 0; i < st->nsizes; i++) {
			uint64_t v;
			if (thp_counter_get(st->sizes[i].stats, st->sizes[i].nstats, names[k], &v))
				out_prom_u64(f, name, v, "size", size_label(sz, sizeof(sz), st->sizes[i].bytes),
					     OUT_PROM_END);
		}
	}
}

static void put_meminfo(FILE *f, const struct thp_status *st)
{
	static const char *const pool[][2] = {
		{ "HugePages_Total", "total" },  { "HugePages_Free", "free" },
		{ "HugePages_Rsvd", "reserved" }, { "HugePages_Surp", "surplus" },
	};
	struct fam pages = { "thp_hugetlb_pages", "gauge",
			     "Static huge pages of the default size (hugetlbfs pool), by state", false };
	char name[128], stem[96], help[128];
	uint64_t v;

	if (st->meminfo_err)
		return;
	for (int i = 0; i < st->nmeminfo; i++) {
		const char *k = st->meminfo[i].name;
		if (strncmp(k, "HugePages_", 10) == 0 || strcmp(k, "Hugepagesize") == 0 ||
		    strcmp(k, "Hugetlb") == 0)
			continue;
		out_prom_snake(stem, sizeof(stem), k);
		snprintf(name, sizeof(name), "thp_meminfo_%s_bytes", stem);
		snprintf(help, sizeof(help), "/proc/meminfo %s", k);
		out_prom_family(f, name, "gauge", help);
		out_prom_u64(f, name, st->meminfo[i].val, OUT_PROM_END);
	}
	for (size_t i = 0; i < 4; i++)
		if (thp_counter_get(st->meminfo, st->nmeminfo, pool[i][0], &v)) {
			fam_open(f, &pages);
			out_prom_u64(f, pages.name, v, "state", pool[i][1], OUT_PROM_END);
		}
	if (thp_counter_get(st->meminfo, st->nmeminfo, "Hugepagesize", &v)) {
		out_prom_family(f, "thp_hugetlb_default_page_size_bytes", "gauge",
				"Default static huge page size (/proc/meminfo Hugepagesize)");
		out_prom_u64(f, "thp_hugetlb_default_page_size_bytes", v, OUT_PROM_END);
	}
	if (thp_counter_get(st->meminfo, st->nmeminfo, "Hugetlb", &v)) {
		out_prom_family(f, "thp_hugetlb_bytes", "gauge",
				"Memory taken by all static huge page pools (/proc/meminfo Hugetlb)");
		out_prom_u64(f, "thp_hugetlb_bytes", v, OUT_PROM_END);
	}
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

static void put_top(FILE *f, const struct thp_top *top)
{
	char pid[16];

	if (!top)
		return;
	out_prom_family(f, "thp_processes_with_anon_huge", "gauge",
			"Processes with AnonHugePages above 0 in smaps_rollup");
	out_prom_u64(f, "thp_processes_with_anon_huge", (uint64_t)top->with_huge, OUT_PROM_END);
	if (!top->scanned)
		return;
	out_prom_family(f, "thp_processes_unreadable", "gauge",
			"Processes whose smaps_rollup could not be read (permission denied)");
	out_prom_u64(f, "thp_processes_unreadable", (uint64_t)top->unreadable, OUT_PROM_END);
	if (!top->n)
		return;
	out_prom_family(f, "thp_process_anon_huge_bytes", "gauge",
			"AnonHugePages of the processes holding the most (top N)");
	for (int i = 0; i < top->n; i++) {
		snprintf(pid, sizeof(pid), "%d", (int)top->v[i].pid);
		out_prom_u64(f, "thp_process_anon_huge_bytes", top->v[i].anon_huge, "pid", pid, "comm",
			     top->v[i].comm, OUT_PROM_END);
	}
}

void out_prom_host(FILE *f, const struct thp_status *st, const struct thp_buddyinfo *buddy,
		   const struct thp_top *top)
{
	put_kernel(f, st);
	put_policy(f, st);
	put_khugepaged(f, st);
	put_vmstat(f, st);
	put_size_stats(f, st);
	put_meminfo(f, st);
	put_buddy(f, st, buddy);
	put_top(f, top);
}
