/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status.c - `thp status`: is THP on, for every layer, and what has it done since boot */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/changes.h"
#include "../core/features.h"
#include "../core/numa.h"
#include "../core/settings.h"
#include "../core/state.h"
#include "../core/status.h"
#include "../core/vm.h"
#include "../render/render.h"
#include "cmd.h"
#include "opt.h"

#define WIDTH 100

struct opts {
	bool bytes;
	bool procs;
	bool features; /* --features: only the feature table */
};

enum { O_NO_PROCS = 0x100, O_FEATURES };

static const struct thp_opt opts[] = {
	THP_OPT_JSON("one JSON document (sizes in bytes)"),
	THP_OPT('b', "bytes", NULL, "print sizes in bytes"),
	THP_OPT_LONG(O_NO_PROCS, "no-procs", NULL, "do not scan processes for the verdict"),
	THP_OPT_LONG(O_FEATURES, "features", NULL, "only the kernel's THP features, and since which Linux"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] status [options]\n"
		 "\n"
		 "Show the whole THP state of the host: a verdict in plain words, then the kernel,\n"
		 "global and per-size policy, khugepaged, counters since boot, and boot settings.",
	.width = 20,
	.opts = opts,
	.in_order = true,
};

static const char *meminfo_meaning(const char *name)
{
	static const char *const m[][2] = {
		{ "MemTotal", "usable RAM" },
		{ "AnonHugePages", "PMD-mapped anonymous THP" },
		{ "ShmemHugePages", "shmem/tmpfs memory in huge pages" },
		{ "ShmemPmdMapped", "shmem/tmpfs huge pages mapped with a PMD" },
		{ "FileHugePages", "page cache in huge pages" },
		{ "FilePmdMapped", "page cache huge pages mapped with a PMD" },
		{ "PageTables", "memory spent on page tables" },
		{ "HugePages_Total", "pages in the default-size pool" },
		{ "HugePages_Free", "pool pages not yet faulted in" },
		{ "HugePages_Rsvd", "pool pages promised to mappings, not yet faulted" },
		{ "HugePages_Surp", "pages above the pool size (overcommit)" },
		{ "Hugepagesize", "default static huge page size" },
		{ "Hugetlb", "memory taken by all static pools" },
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (strcmp(m[i][0], name) == 0)
			return m[i][1];
	return "";
}

static bool is_hugetlb_key(const char *name)
{
	return strncmp(name, "HugePages_", 10) == 0 || strcmp(name, "Hugepagesize") == 0 ||
	       strcmp(name, "Hugetlb") == 0;
}

static bool is_count_key(const char *name)
{
	return strncmp(name, "HugePages_", 10) == 0;
}

/* Value column of a setting: the selected word, the number, or "unknown". */
static const char *setting_value(const struct thp_setting *s, char *buf, size_t cap)
{
	switch (s->kind) {
	case THP_CHOICE:
		return s->choice.words[s->choice.sel];
	case THP_INT:
		snprintf(buf, cap, "%" PRIu64, s->num);
		return buf;
	case THP_TEXT:
		return s->text;
	case THP_MISSING:
		return "absent";
	default:
		return "unknown";
	}
}

/* Detail column: the choices with the current one bracketed, or the error. */
static const char *setting_detail(const struct thp_setting *s, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	if (s->kind == THP_ERROR) {
		snprintf(buf, cap, "(%s)", thp_strerror(s->err));
		return buf;
	}
	if (s->kind != THP_CHOICE)
		return buf;
	for (int i = 0; i < s->choice.n && len < cap; i++) {
		int n = snprintf(buf + len, cap - len, i == s->choice.sel ? "%s[%s]" : "%s%s",
				 i ? " " : "", s->choice.words[i]);
		len += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

static void print_settings(const struct thp_status *st, const struct thp_setting *v, int n, bool khugepaged)
{
	struct out_table *t = out_table_new(4, NULL, true);
	char val[64], det[512], mb[96];

	out_table_wrap(t, 2);
	out_table_wrap(t, 3);

	for (int i = 0; i < n; i++) {
		const char *m = thp_status_setting_meaning(st, v[i].name, khugepaged, mb, sizeof(mb));
		const char *row[] = { v[i].name, setting_value(&v[i], val, sizeof(val)),
				      setting_detail(&v[i], det, sizeof(det)), m ? m : "" };
		out_table_row(t, row);
	}
	out_table_print(t, 2);
}

/* The TLB reach line: what the data TLB covers with 4 KiB and with 2 MiB pages. */
static const char *reach_text(const struct thp_tlb_reach *r, bool bytes, char *buf, size_t cap)
{
	char a[32], b[32];

	out_size(a, sizeof(a), thp_tlb_reach_bytes(&r->k4, 4096), bytes);
	out_size(b, sizeof(b), thp_tlb_reach_bytes(&r->m2, 2 << 20), bytes);
	if (r->src == THP_TLB_SRC_CPUID && r->k4.entries && r->m2.entries)
		snprintf(buf, cap, "with 4 KiB pages the data TLB covers %s; with 2 MiB pages, %s "
			 "(cpuid: L%d %u entries for 4 KiB, L%d %u for 2 MiB)", a, b, r->k4.level,
			 r->k4.entries, r->m2.level, r->m2.entries);
	else if (r->src == THP_TLB_SRC_CPUID)
		snprintf(buf, cap, "with 4 KiB pages the data TLB covers %s; with 2 MiB pages, %s "
			 "(cpuid: L%d %u entries)", r->k4.entries ? a : "unknown",
			 r->m2.entries ? b : "unknown", r->k4.entries ? r->k4.level : r->m2.level,
			 r->k4.entries ? r->k4.entries : r->m2.entries);
	else if (r->src == THP_TLB_SRC_CPUINFO)
		snprintf(buf, cap, "with 4 KiB pages the TLBs cover %s (/proc/cpuinfo 'TLB size: %u 4K "
			 "pages', instruction and data together); with 2 MiB pages, unknown", a,
			 r->k4.entries);
	else
		snprintf(buf, cap, "unknown (%s)", r->why);
	return buf;
}

static void print_kernel(const struct thp_status *st, const struct opts *o)
{
	char ps[32], pg[32], sup[160], rel[96], reach[256];
	struct out_table *t = out_table_new(2, NULL, true);

	snprintf(rel, sizeof(rel), "unknown (%s)", thp_strerror(st->release_err));
	if (st->dir)
		snprintf(sup, sizeof(sup), "yes (/%s)", st->dir);
	else
		snprintf(sup, sizeof(sup), "no (kernel built without CONFIG_TRANSPARENT_HUGEPAGE)");
	const char *rows[][2] = {
		{ "release", st->release_err ? rel : st->release },
		{ "THP support", sup },
		{ "PMD huge page", st->pmd_size ? out_size(ps, sizeof(ps), st->pmd_size, o->bytes)
						: "unknown (no hpage_pmd_size)" },
		{ "base page", st->page_size ? out_size(pg, sizeof(pg), st->page_size, o->bytes)
					     : "unknown" },
		{ "TLB reach", reach_text(&st->reach, o->bytes, reach, sizeof(reach)) },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		out_table_row(t, rows[i]);
	puts("Kernel");
	out_table_print(t, 2);
}

static void print_sizes(const struct thp_status *st, const struct opts *o)
{
	static const char *const hdr[] = { "SIZE", "ANON", "EFFECTIVE", "SHMEM", "EFFECTIVE" };
	struct out_table *t;
	char sz[32];
	bool any = false;

	puts("\nPer-size policy (mTHP)");
	if (!st->nsizes) {
		puts(st->sizes_err ? "  unknown: the THP directory could not be listed"
				   : "  none: per-size THP (mTHP) needs Linux 6.8+");
		return;
	}
	t = out_table_new(5, hdr, false);
	for (int i = 0; i < st->nsizes; i++) {
		const struct thp_size *z = &st->sizes[i];
		bool anon = z->enabled.kind != THP_MISSING;
		bool shm = z->shmem_enabled.kind != THP_MISSING;
		const char *row[] = {
			out_size(sz, sizeof(sz), z->bytes, o->bytes),
			anon ? (thp_setting_word(&z->enabled) ? thp_setting_word(&z->enabled) : "unknown") : "-",
			anon ? (z->anon_effective ? z->anon_effective : "unknown") : "no anon control (shmem/file only)",
			shm ? (thp_setting_word(&z->shmem_enabled) ? thp_setting_word(&z->shmem_enabled) : "unknown") : "-",
			shm ? (z->shmem_effective ? z->shmem_effective : "unknown") : "-",
		};
		out_table_row(t, row);
	}
	out_table_print(t, 2);

	puts("\nPer-size counters (non-zero, hugepages-<size>kB/stats)");
	t = out_table_new(3, (const char *const[]){ "SIZE", "COUNTER", "VALUE" }, false);
	out_table_right(t, 2);
	for (int i = 0; i < st->nsizes; i++) {
		const struct thp_size *z = &st->sizes[i];
		for (int j = 0; j < z->nstats; j++) {
			char v[32];
			if (!z->stats[j].val)
				continue;
			const char *row[] = { out_size(sz, sizeof(sz), z->bytes, o->bytes), z->stats[j].name,
					      out_count(v, sizeof(v), z->stats[j].val) };
			out_table_row(t, row);
			any = true;
		}
	}
	if (any)
		out_table_print(t, 2);
	else {
		out_table_print(t, 2);
		puts("  all zero");
	}
}

/* Detail of the vm sysctl S (table row D): for a file the kernel lacks, since when. */
static const char *vm_detail(const struct thp_setting_desc *d, const struct thp_setting *s, char *buf,
			     size_t cap)
{
	if (s->kind != THP_MISSING)
		return setting_detail(s, buf, cap);
	snprintf(buf, cap, "(this kernel lacks it; Linux %s+%s)", d->since,
		 strcmp(d->file, "zone_reclaim_mode") == 0 ? " with NUMA" : "");
	return buf;
}

/* "min_free_kbytes: 66 MiB, 0.3% of RAM; ..." with the kernel's own value. */
static void print_min_free(const struct thp_status *st, const struct opts *o)
{
	struct thp_min_free m;
	char a[32], b[32], c[32], pct[32];
	uint64_t kb, total;

	if (!thp_vm_num(st, "min_free_kbytes", &kb) ||
	    !thp_counter_get(st->meminfo, st->nmeminfo, "MemTotal", &total) || !total)
		return;
	out_pct(pct, sizeof(pct), kb << 10, total);
	printf("  min_free_kbytes holds back %s, %s of RAM", out_size(a, sizeof(a), kb << 10, o->bytes), pct);
	if (!thp_min_free_default(st, &m)) {
		putchar('\n');
		return;
	}
	printf("; the kernel would choose %s\n", out_size(b, sizeof(b), m.kb << 10, o->bytes));
	out_note("(estimated: %s from RAM, %s for THP: 11 pageblocks in each of %d zones)",
		 out_size(c, sizeof(c), m.base_kb << 10, o->bytes),
		 m.thp_kb ? out_size(a, sizeof(a), m.thp_kb << 10, o->bytes) : "none", st->nzones);
}

/* The settings of /proc/sys/vm that shape compaction and reclaim, and what
 * kcompactd, kswapd and allocating threads did since boot. */
static void print_vm(const struct thp_status *st, const struct opts *o)
{
	struct out_table *t = out_table_new(4, NULL, true);
	uint64_t wake, scan, stalls;
	char val[64], det[512], a[32], b[32], c[32];

	out_table_wrap(t, 2);
	out_table_wrap(t, 3);

	puts("\nCompaction and watermarks (/" THP_SYSCTL_DIR ")");
	for (int i = 0; i < st->nvm; i++) {
		const struct thp_setting *s = &st->vm[i];
		const struct thp_setting_desc *d = thp_setting_desc_find(THP_PLACE_VM, s->name, strlen(s->name));
		const char *row[] = { s->name, setting_value(s, val, sizeof(val)),
				      vm_detail(d, s, det, sizeof(det)), d->meaning };
		out_table_row(t, row);
	}
	out_table_print(t, 2);
	print_min_free(st, o);
	if (thp_counter_get(st->vmstat, st->nvmstat, "compact_daemon_wake", &wake) &&
	    thp_counter_get(st->vmstat, st->nvmstat, "pgscan_kswapd", &scan) &&
	    thp_allocstalls(st->vmstat, st->nvmstat, &stalls))
		printf("  since boot: kcompactd woke %s times, kswapd scanned %s pages, threads stalled\n"
		       "  in direct reclaim %s times (allocstall_*); rates per second: thp watch\n",
		       out_count(a, sizeof(a), wake), out_count(b, sizeof(b), scan),
		       out_count(c, sizeof(c), stalls));
}

/* Huge pages per NUMA node; one line when there is a single node. */
static void print_numa(const struct thp_status *st, const struct thp_numa *n, const struct opts *o)
{
	static const char *const head[] = { "NODE", "CPUS", "MEMORY", "ANONHUGE", "SHMEMHUGE", "FILEHUGE",
					    "FREE-PMD", "HUGETLB", "HUGETLB-FREE" };
	struct out_table *t;
	char v[8][32], pmd[32];

	puts("\nNUMA nodes (/sys/devices/system/node)");
	if (n->n <= 1) {
		printf("  1 NUMA node%s\n", n->err ? " (this kernel shows no NUMA nodes)" : "");
		return;
	}
	t = out_table_new(9, head, false);
	out_table_fitted(t);
	for (int c = 2; c < 9; c++)
		out_table_right(t, c);
	for (int i = 0; i < n->n; i++) {
		const struct thp_numa_node *d = &n->nodes[i];
		const char *row[9] = { v[0], d->cpus[0] ? d->cpus : "-", "-", "-", "-", "-", "-", v[6], v[7] };

		snprintf(v[0], sizeof(v[0]), "%d", d->id);
		if (d->has_meminfo) {
			row[2] = out_size(v[1], sizeof(v[1]), d->mem_total, o->bytes);
			row[3] = out_size(v[2], sizeof(v[2]), d->anon_huge, o->bytes);
			row[4] = out_size(v[3], sizeof(v[3]), d->shmem_huge, o->bytes);
			row[5] = out_size(v[4], sizeof(v[4]), d->file_huge, o->bytes);
		}
		if (d->has_blocks)
			row[6] = out_count(v[5], sizeof(v[5]), d->free_pmd_blocks);
		out_size(v[6], sizeof(v[6]), d->hugetlb, o->bytes);
		out_size(v[7], sizeof(v[7]), d->hugetlb_free, o->bytes);
		out_table_row(t, row);
	}
	out_table_print(t, 2);
	printf("  FREE-PMD: free blocks of %s or more (/proc/buddyinfo), in %s blocks\n",
	       out_size(pmd, sizeof(pmd), st->pmd_size, false), pmd);
}

static void print_vmstat(const struct thp_status *st)
{
	struct out_table *t;
	uint64_t alloc, fb;
	char v[32];

	puts("\nCounters since boot (/proc/vmstat)");
	if (st->vmstat_err) {
		printf("  unknown: %s\n", thp_strerror(st->vmstat_err));
		return;
	}
	t = out_table_new(2, NULL, true);
	out_table_right(t, 1);
	for (int i = 0; i < st->nvmstat; i++) {
		const char *row[] = { st->vmstat[i].name, out_count(v, sizeof(v), st->vmstat[i].val) };
		out_table_row(t, row);
	}
	out_table_print(t, 2);
	if (thp_counter_get(st->vmstat, st->nvmstat, "thp_fault_alloc", &alloc) &&
	    thp_counter_get(st->vmstat, st->nvmstat, "thp_fault_fallback", &fb)) {
		if (alloc + fb)
			printf("  fallback ratio: %s of THP faults fell back to small pages\n",
			       out_pct(v, sizeof(v), fb, alloc + fb));
		else
			puts("  fallback ratio: no THP page faults since boot");
	}
}

/* Prints the meminfo lines that are (HUGETLB) or are not static pool lines. */
static void print_meminfo(const struct thp_status *st, const struct opts *o, bool hugetlb)
{
	struct out_table *t;
	char v[32];

	puts(hugetlb ? "\nStatic huge page pools (hugetlbfs; reserved memory, not THP)"
		     : "\nMemory (/proc/meminfo)");
	if (st->meminfo_err) {
		printf("  unknown: %s\n", thp_strerror(st->meminfo_err));
		return;
	}
	t = out_table_new(3, NULL, true);
	out_table_right(t, 1);
	int shown = 0;
	for (int i = 0; i < st->nmeminfo; i++) {
		const struct thp_counter *c = &st->meminfo[i];
		if (is_hugetlb_key(c->name) != hugetlb)
			continue;
		shown++;
		const char *row[] = { c->name,
				      is_count_key(c->name) ? out_count(v, sizeof(v), c->val)
							    : out_size(v, sizeof(v), c->val, o->bytes),
				      meminfo_meaning(c->name) };
		out_table_row(t, row);
	}
	out_table_print(t, 2);
	if (!shown)
		puts("  none reported by /proc/meminfo");
}

static void print_boot(const struct thp_status *st)
{
	struct out_table *t;

	puts("\nBoot settings (/proc/cmdline)");
	if (st->cmdline_err) {
		printf("  unknown: %s\n", thp_strerror(st->cmdline_err));
		return;
	}
	if (!st->nboot) {
		puts("  none: no THP or huge page parameters, the kernel's built-in defaults apply");
		return;
	}
	t = out_table_new(2, NULL, true);
	for (int i = 0; i < st->nboot; i++) {
		const char *row[] = { st->boot[i].name, st->boot[i].value };
		out_table_row(t, row);
	}
	out_table_print(t, 2);
}

/* "enabled always, was madvise; defrag ..." for the settings J finds changed. */
static void journal_changes(const struct thp_host_journal *j, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < j->nchanged && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s %s, was %s", i ? "; " : "",
					j->changed[i].key, j->changed[i].running, j->changed[i].other);
}

/* What a journal holds: "setting" and "changing THP settings" (run/thp/journal),
 * or "pool" and "resizing huge page pools" (run/thp/pools.journal). */
struct journal_kind {
	const char *one;
	const char *doing;
};
static const struct journal_kind settings_kind = { "setting", "changing THP settings" };
static const struct journal_kind pools_kind = { "pool", "resizing huge page pools" };

/* The line about a journal J of kind K (shown as SHOWN) that the status
 * shows; "" without one. */
static void journal_line(const struct thp_host_journal *j, const struct journal_kind *k,
			 const char *shown, char *buf, size_t cap)
{
	char changes[1024];

	journal_changes(j, changes, sizeof(changes));
	switch (j->status) {
	case THP_STATE_CURRENT:
		if (j->nchanged)
			snprintf(buf, cap, "'%s' (pid %d) did not finish: %d %s%s it changed %s not "
				 "back (%s); 'thp restore' puts %s back.", j->command, j->pid, j->nchanged,
				 k->one, j->nchanged == 1 ? "" : "s", j->nchanged == 1 ? "is" : "are",
				 changes, j->nchanged == 1 ? "it" : "them");
		else
			snprintf(buf, cap, "'%s' (pid %d) did not finish, but its %ss are back; "
				 "'thp restore' removes its journal %s.", j->command, j->pid, k->one, shown);
		break;
	case THP_STATE_RUNNING:
		snprintf(buf, cap, "'%s' (pid %d) is %s now%s%s%s; it puts them back "
			 "when it ends.", j->command, j->pid, k->doing, changes[0] ? " (" : "", changes,
			 changes[0] ? ")" : "");
		break;
	case THP_STATE_OTHER_BOOT:
		snprintf(buf, cap, "a journal of '%s' from an earlier boot is left in %s; 'thp restore' "
			 "removes it.", j->command, shown);
		break;
	case THP_STATE_DAMAGED:
		snprintf(buf, cap, "the journal %s is damaged (%s); see 'thp doctor'.", shown, j->why);
		break;
	default:
		buf[0] = '\0';
	}
}

/* Reads the journal below the root of CTX into J, with the running values. */
static void read_journal(const struct thp_root *root, struct thp_host_journal *j)
{
	struct thp_changes *cs;

	thp_journal_read(root, NULL, j);
	if (j->status == THP_STATE_ABSENT || j->status == THP_STATE_DAMAGED)
		return;
	cs = malloc(sizeof(*cs));
	if (cs && thp_changes_read(root, cs) == 0)
		thp_journal_read(root, cs, j);
	free(cs);
}

static void print_text(const struct thp_ctx *ctx, const struct thp_status *st, const struct thp_numa *n,
		       const struct opts *o)
{
	struct thp_host_journal j;
	char policy[1024], now[1024], shown[4200], pending[2048];

	out_verdict(st, policy, sizeof(policy), now, sizeof(now));
	out_wrap("THP:", policy, WIDTH);
	if (now[0])
		out_wrap("Now:", now, WIDTH);
	read_journal(&ctx->root, &j);
	thp_shown_path(ctx, THP_JOURNAL, shown, sizeof(shown));
	journal_line(&j, &settings_kind, shown, pending, sizeof(pending));
	if (pending[0])
		out_wrap("Pending:", pending, WIDTH);
	thp_pools_journal_read_host(&ctx->root, &j);
	thp_shown_path(ctx, THP_POOLS_JOURNAL, shown, sizeof(shown));
	journal_line(&j, &pools_kind, shown, pending, sizeof(pending));
	if (pending[0])
		out_wrap("Pending:", pending, WIDTH);
	putchar('\n');
	print_kernel(st, o);
	if (st->dir) {
		printf("\nGlobal policy (/%s)\n", st->dir);
		print_settings(st, st->settings, st->nsettings, false);
		print_sizes(st, o);
		puts("\nkhugepaged (background collapse)");
		if (st->nkhugepaged)
			print_settings(st, st->khugepaged, st->nkhugepaged, true);
		else
			printf("  unknown: %s\n", thp_strerror(st->khugepaged_err ? st->khugepaged_err : -2));
	}
	print_vm(st, o);
	print_numa(st, n, o);
	print_vmstat(st);
	print_meminfo(st, o, false);
	print_meminfo(st, o, true);
	print_boot(st);
}

static struct json_object *json_str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *json_setting(const struct thp_status *st, const struct thp_setting *s,
					bool khugepaged)
{
	static const char *const kinds[] = { "absent", "error", "choice", "int", "text" };
	struct json_object *o = json_object_new_object();
	char mb[96];
	const char *m = thp_status_setting_meaning(st, s->name, khugepaged, mb, sizeof(mb));

	json_object_object_add(o, "name", json_object_new_string(s->name));
	json_object_object_add(o, "kind", json_object_new_string(kinds[s->kind]));
	if (s->kind == THP_CHOICE) {
		struct json_object *a = json_object_new_array();
		for (int i = 0; i < s->choice.n; i++)
			json_object_array_add(a, json_object_new_string(s->choice.words[i]));
		json_object_object_add(o, "value", json_object_new_string(s->choice.words[s->choice.sel]));
		json_object_object_add(o, "choices", a);
	} else if (s->kind == THP_INT) {
		json_object_object_add(o, "value", out_json_u64(s->num));
	} else if (s->kind == THP_TEXT) {
		json_object_object_add(o, "value", json_object_new_string(s->text));
	} else if (s->kind == THP_ERROR) {
		json_object_object_add(o, "error", json_object_new_string(thp_strerror(s->err)));
	}
	if (m)
		json_object_object_add(o, "meaning", json_object_new_string(m));
	return o;
}

static struct json_object *json_settings(const struct thp_status *st, const struct thp_setting *v, int n,
					 bool khugepaged)
{
	struct json_object *a = json_object_new_array();
	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_setting(st, &v[i], khugepaged));
	return a;
}

static struct json_object *json_counters(const struct thp_counter *v, int n, int filter)
{
	struct json_object *o = json_object_new_object();
	for (int i = 0; i < n; i++)
		if (filter < 0 || is_hugetlb_key(v[i].name) == (filter == 1))
			json_object_object_add(o, v[i].name, out_json_u64(v[i].val));
	return o;
}

static struct json_object *json_sizes(const struct thp_status *st)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < st->nsizes; i++) {
		const struct thp_size *z = &st->sizes[i];
		struct json_object *o = json_object_new_object();
		bool anon = z->enabled.kind != THP_MISSING, shm = z->shmem_enabled.kind != THP_MISSING;

		json_object_object_add(o, "size", out_json_u64(z->bytes));
		json_object_object_add(o, "anon_control", json_object_new_boolean(anon));
		json_object_object_add(o, "enabled", anon ? json_setting(st, &z->enabled, false) : NULL);
		json_object_object_add(o, "anon_effective", json_str_or_null(z->anon_effective));
		json_object_object_add(o, "shmem_enabled",
				       shm ? json_setting(st, &z->shmem_enabled, false) : NULL);
		json_object_object_add(o, "shmem_effective", json_str_or_null(z->shmem_effective));
		json_object_object_add(o, "stats", json_counters(z->stats, z->nstats, -1));
		json_object_array_add(a, o);
	}
	return a;
}

/* Adds KEY: counters, or KEY: null plus KEY_error when the file could not be read. */
static void add_counters(struct json_object *o, const char *key, int err, struct json_object *v)
{
	char ek[64];

	if (err) {
		json_object_put(v);
		json_object_object_add(o, key, NULL);
		snprintf(ek, sizeof(ek), "%s_error", key);
		json_object_object_add(o, ek, json_object_new_string(thp_strerror(err)));
		return;
	}
	json_object_object_add(o, key, v);
}

/* The "vm" object: the sysctls (with their keys for 'thp set'), the kernel's
 * own min_free_kbytes (null when unknown) and the reclaim counters. */
static struct json_object *json_vm(const struct thp_status *st)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array(), *m = NULL;
	struct thp_min_free mf;
	uint64_t v;

	for (int i = 0; i < st->nvm; i++) {
		const struct thp_setting_desc *d =
			thp_setting_desc_find(THP_PLACE_VM, st->vm[i].name, strlen(st->vm[i].name));
		struct json_object *x = json_setting(st, &st->vm[i], false);
		char key[THP_KEY_MAX];

		snprintf(key, sizeof(key), "vm.%s", d->file);
		json_object_object_add(x, "key", json_object_new_string(key));
		json_object_object_add(x, "meaning", json_object_new_string(d->meaning));
		json_object_object_add(x, "since", json_object_new_string(d->since));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "settings", a);
	if (thp_min_free_default(st, &mf)) {
		m = json_object_new_object();
		json_object_object_add(m, "bytes", out_json_u64(mf.kb << 10));
		json_object_object_add(m, "base_bytes", out_json_u64(mf.base_kb << 10));
		json_object_object_add(m, "thp_bytes", out_json_u64(mf.thp_kb << 10));
		json_object_object_add(m, "zones", json_object_new_int(st->nzones));
	}
	json_object_object_add(o, "min_free_kbytes_default", m);
	json_object_object_add(o, "allocstall", thp_allocstalls(st->vmstat, st->nvmstat, &v) ? out_json_u64(v) : NULL);
	return o;
}

/* One page size's data TLB: entries, level and the bytes they cover; null when unknown. */
static struct json_object *json_reach_level(const struct thp_tlb_level *l, uint64_t page)
{
	struct json_object *o;

	if (!l->entries)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "entries", json_object_new_int64(l->entries));
	json_object_object_add(o, "level", json_object_new_int(l->level));
	json_object_object_add(o, "bytes", out_json_u64(thp_tlb_reach_bytes(l, page)));
	return o;
}

static struct json_object *json_reach(const struct thp_tlb_reach *r)
{
	static const char *const src[] = { [THP_TLB_SRC_NONE] = NULL, [THP_TLB_SRC_CPUID] = "cpuid",
					   [THP_TLB_SRC_CPUINFO] = "cpuinfo" };
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "source", json_str_or_null(src[r->src]));
	json_object_object_add(o, "data_only", json_object_new_boolean(r->src == THP_TLB_SRC_CPUID));
	json_object_object_add(o, "pages_4k", json_reach_level(&r->k4, 4096));
	json_object_object_add(o, "pages_2m", json_reach_level(&r->m2, 2 << 20));
	json_object_object_add(o, "why_unknown", json_str_or_null(r->why));
	return o;
}

static struct json_object *json_kernel(const struct thp_status *st)
{
	struct json_object *k = json_object_new_object();
	char dir[128];

	snprintf(dir, sizeof(dir), "/%s", st->dir ? st->dir : "");
	json_object_object_add(k, "release", st->release_err ? NULL : json_object_new_string(st->release));
	json_object_object_add(k, "major", st->kmajor >= 0 ? json_object_new_int(st->kmajor) : NULL);
	json_object_object_add(k, "minor", st->kminor >= 0 ? json_object_new_int(st->kminor) : NULL);
	json_object_object_add(k, "thp_supported", json_object_new_boolean(st->dir != NULL));
	json_object_object_add(k, "sysfs_dir", st->dir ? json_object_new_string(dir) : NULL);
	json_object_object_add(k, "pmd_size", st->pmd_size ? out_json_u64(st->pmd_size) : NULL);
	json_object_object_add(k, "page_size", st->page_size ? out_json_u64(st->page_size) : NULL);
	json_object_object_add(k, "tlb_reach", json_reach(&st->reach));
	return k;
}

static struct json_object *json_procs(const struct thp_procs *p)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "scanned", json_object_new_boolean(p->scanned));
	json_object_object_add(o, "with_anon_huge", json_object_new_int(p->with_huge));
	json_object_object_add(o, "anon_huge_sum", out_json_u64(p->anon_huge));
	json_object_object_add(o, "readable", json_object_new_int(p->readable));
	json_object_object_add(o, "unreadable", json_object_new_int(p->unreadable.n));
	return o;
}

/* The journal J as JSON; NULL when there is none. */
static struct json_object *json_journal(const struct thp_host_journal *j)
{
	static const char *const states[] = { [THP_STATE_CURRENT] = "unfinished",
					      [THP_STATE_RUNNING] = "running",
					      [THP_STATE_OTHER_BOOT] = "earlier-boot",
					      [THP_STATE_DAMAGED] = "damaged" };
	struct json_object *o, *a;

	if (j->status == THP_STATE_ABSENT)
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	json_object_object_add(o, "state", json_object_new_string(states[j->status]));
	json_object_object_add(o, "command", json_object_new_string(j->command));
	json_object_object_add(o, "pid", j->pid ? json_object_new_int(j->pid) : NULL);
	json_object_object_add(o, "error", j->status == THP_STATE_DAMAGED ? json_object_new_string(j->why) : NULL);
	for (int i = 0; i < j->nchanged; i++) {
		struct json_object *x = json_object_new_object();
		json_object_object_add(x, "key", json_object_new_string(j->changed[i].key));
		json_object_object_add(x, "running", json_object_new_string(j->changed[i].running));
		json_object_object_add(x, "journaled", json_object_new_string(j->changed[i].other));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "changed", a);
	return o;
}

/* The "numa" object: every node with its huge pages (sizes in bytes). */
static struct json_object *json_numa(const struct thp_numa *n)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	for (int i = 0; i < n->n; i++) {
		const struct thp_numa_node *d = &n->nodes[i];
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "node", json_object_new_int(d->id));
		json_object_object_add(x, "cpus", d->cpus[0] ? json_object_new_string(d->cpus) : NULL);
		json_object_object_add(x, "mem_total", d->has_meminfo ? out_json_u64(d->mem_total) : NULL);
		json_object_object_add(x, "anon_huge", d->has_meminfo ? out_json_u64(d->anon_huge) : NULL);
		json_object_object_add(x, "shmem_huge", d->has_meminfo ? out_json_u64(d->shmem_huge) : NULL);
		json_object_object_add(x, "file_huge", d->has_meminfo ? out_json_u64(d->file_huge) : NULL);
		json_object_object_add(x, "free_pmd_blocks", d->has_blocks ? out_json_u64(d->free_pmd_blocks) : NULL);
		json_object_object_add(x, "hugetlb", out_json_u64(d->hugetlb));
		json_object_object_add(x, "hugetlb_free", out_json_u64(d->hugetlb_free));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "nodes", a);
	return o;
}

struct json_object *thp_status_json(const struct thp_root *root, const struct thp_status *st)
{
	struct thp_numa *numa = malloc(sizeof(*numa));
	struct thp_host_journal j;
	struct json_object *journal, *pools;
	struct json_object *o = json_object_new_object(), *v = json_object_new_object();
	struct json_object *boot = json_object_new_array();
	char policy[1024], now[1024];
	uint64_t alloc, fb;

	out_verdict(st, policy, sizeof(policy), now, sizeof(now));
	json_object_object_add(v, "policy", json_object_new_string(policy));
	json_object_object_add(v, "now", json_object_new_string(now));
	json_object_object_add(o, "schema", json_object_new_string("thp-status/1"));
	json_object_object_add(o, "root", json_object_new_string(root->path));
	json_object_object_add(o, "host", st->hostname[0] ? json_object_new_string(st->hostname) : NULL);
	json_object_object_add(o, "verdict", v);
	json_object_object_add(o, "kernel", json_kernel(st));
	json_object_object_add(o, "settings", json_settings(st, st->settings, st->nsettings, false));
	json_object_object_add(o, "sizes", json_sizes(st));
	json_object_object_add(o, "khugepaged", json_settings(st, st->khugepaged, st->nkhugepaged, true));
	json_object_object_add(o, "vm", json_vm(st));
	if (numa && thp_numa_read(root, st->pmd_size, st->page_size, numa) == 0)
		json_object_object_add(o, "numa", json_numa(numa));
	free(numa);
	add_counters(o, "vmstat", st->vmstat_err, json_counters(st->vmstat, st->nvmstat, -1));
	if (thp_counter_get(st->vmstat, st->nvmstat, "thp_fault_alloc", &alloc) &&
	    thp_counter_get(st->vmstat, st->nvmstat, "thp_fault_fallback", &fb) && alloc + fb)
		json_object_object_add(o, "fault_fallback_ratio",
				       json_object_new_double((double)fb / (double)(alloc + fb)));
	else
		json_object_object_add(o, "fault_fallback_ratio", NULL);
	add_counters(o, "meminfo", st->meminfo_err, json_counters(st->meminfo, st->nmeminfo, 0));
	add_counters(o, "hugetlb", st->meminfo_err, json_counters(st->meminfo, st->nmeminfo, 1));
	for (int i = 0; i < st->nboot; i++) {
		struct json_object *p = json_object_new_object();
		json_object_object_add(p, "name", json_object_new_string(st->boot[i].name));
		json_object_object_add(p, "value", json_object_new_string(st->boot[i].value));
		json_object_array_add(boot, p);
	}
	add_counters(o, "boot", st->cmdline_err, boot);
	json_object_object_add(o, "processes", json_procs(&st->procs));
	read_journal(root, &j);
	journal = json_journal(&j);
	thp_pools_journal_read_host(root, &j);
	pools = json_journal(&j);
	if (journal)
		json_object_object_add(o, "journal", journal);
	if (pools)
		json_object_object_add(o, "pools_journal", pools);
	return o;
}

static const char *const have_word[] = { "unknown", "no", "yes" };

/* --features: prints the kernel's THP features the root shows, and since
 * which Linux. Returns the exit status. */
static int features_show(const struct thp_ctx *ctx)
{
	struct thp_status *st = calloc(1, sizeof(*st));
	struct thp_feature f[THP_FEATURES];
	int n = st ? thp_status_read(&ctx->root, st, false) : -ENOMEM;

	if (n < 0) {
		free(st);
		thp_err("cannot read the kernel state: %s", thp_strerror(n));
		return 1;
	}
	n = thp_features(st, f);
	if (ctx->json) {
		struct json_object *o = json_object_new_object(), *fo = json_object_new_object();
		json_object_object_add(o, "kernel", st->release_err ? NULL
						    : json_object_new_string(st->release));
		for (int i = 0; i < n; i++)
			json_object_object_add(fo, f[i].name, f[i].have == THP_HAVE_UNKNOWN ? NULL
							      : json_object_new_boolean(f[i].have));
		json_object_object_add(o, "features", fo);
		free(st);
		return out_json_print(o) ? 1 : 0;
	}
	fputs("Kernel ", stdout);
	out_esc_put(stdout, st->release_err ? "release unknown" : st->release);
	if (!ctx->root.live) {
		fputs(" below ", stdout);
		out_esc_put(stdout, ctx->root.path);
	}
	puts(":");
	for (int i = 0; i < n; i++)
		printf("  %-30s %-7s (Linux %s+, from %s)\n", f[i].name, have_word[f[i].have + 1],
		       f[i].since, f[i].how);
	free(st);
	return 0;
}

int cmd_status(struct thp_ctx *ctx, int argc, char **argv)
{
	struct opts o = { .procs = true };
	struct thp_status *st;
	int c, rc;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'b': o.bytes = true; break;
		case O_NO_PROCS: o.procs = false; break;
		case O_FEATURES: o.features = true; break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	if (optind < argc) {
		thp_err("unexpected argument '%s'", argv[optind]);
		return thp_usage_error("status");
	}
	if (o.features)
		return features_show(ctx);
	st = malloc(sizeof(*st));
	if (!st) {
		thp_err("out of memory");
		return 1;
	}
	thp_status_read(&ctx->root, st, o.procs);
	if (ctx->json)
		rc = out_json_print(thp_status_json(&ctx->root, st)) ? 1 : 0;
	else {
		struct thp_numa *n = calloc(1, sizeof(*n));
		if (n) {
			thp_numa_read(&ctx->root, st->pmd_size, st->page_size, n);
			print_text(ctx, st, n, &o);
		}
		rc = n ? 0 : 1;
		free(n);
	}
	free(st);
	return rc;
}
