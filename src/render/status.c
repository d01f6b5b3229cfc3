/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status.c - the status of the host as 'thp status' prints it: the verdict,
 * the kernel, the policies, the counters since boot and the boot settings,
 * in text and as the thp-status document; and the kernel's THP features */
#include <stdio.h>
#include <string.h>

#include "../core/doctor.h"
#include "../core/features.h"
#include "../core/numa.h"
#include "../core/settings.h"
#include "../core/state.h"
#include "../core/vm.h"
#include "render.h"
#include "status.h"

#define WIDTH 100

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

/* The options of a table of the status: text without headings (HEADINGS
 * false: each column as wide as its cells) or with, sizes exact with
 * --bytes, in the document begun. */
static struct out_fmt table_fmt(bool headings)
{
	return (struct out_fmt){ .noheadings = !headings, .bare = !headings, .json = out_json_on(),
				 .bytes = out_bytes_on(), .fixed = true };
}

/* In text "  unknown: REASON" after a section's heading; in JSON member KEY
 * null and KEY_error the reason. */
static void put_unknown(const char *key, int err)
{
	char ek[64];

	snprintf(ek, sizeof(ek), "%s_error", key);
	out_put(OUT_JSON, key, NULL, ov_null());
	out_put(OUT_ANY, ek, "  unknown: %s\n", ov_str(thp_strerror(err)));
}

/* ---- settings: the global policy, khugepaged and the vm sysctls ---- */

struct set_ctx {
	const struct thp_status *st;
	bool khugepaged, vm;
};

enum { S_NAME, S_KIND, S_VALUE, S_CHOICES, S_ERROR, S_MEANING, S_KEY, S_SINCE };

/* The value of setting S: the selected word, the number or the text; in
 * text "absent" or "unknown" where there is none. */
static struct out_val setting_value(const struct thp_setting *s)
{
	struct out_val v = ov_null();

	switch (s->kind) {
	case THP_CHOICE: return ov_str(s->choice.words[s->choice.sel]);
	case THP_INT: return ov_count(s->num);
	case THP_TEXT: return ov_str(s->text);
	case THP_MISSING: v.text = "absent"; return v;
	default: v.text = "unknown"; return v;
	}
}

/* The choices of setting S (a vm sysctl when D): in JSON its words, in text
 * with the current one bracketed, or why there are none. */
static void setting_choices(const struct thp_setting *s, const struct thp_setting_desc *d, struct out_val *v)
{
	size_t half = v->cap / 2, len = 0, wlen = 0;
	char *words = v->buf, *text = v->buf + half;

	out_val_set(v, ov_wordlist(NULL));
	v->text = "";
	text[0] = words[0] = '\0';
	if (s->kind == THP_ERROR) {
		snprintf(text, half, "(%s)", thp_strerror(s->err));
		v->text = text;
	} else if (s->kind == THP_MISSING && d) {
		snprintf(text, half, "(this kernel lacks it; Linux %s+%s)", d->since,
			 strcmp(d->file, "zone_reclaim_mode") == 0 ? " with NUMA" : "");
		v->text = text;
	}
	if (s->kind != THP_CHOICE)
		return;
	for (int i = 0; i < s->choice.n && len < half && wlen < half; i++) {
		const char *w = s->choice.words[i];
		len += (size_t)snprintf(text + len, half - len, i == s->choice.sel ? "%s[%s]" : "%s%s", i ? " " : "", w);
		wlen += (size_t)snprintf(words + wlen, half - wlen, "%s%s", i ? " " : "", w);
	}
	out_val_set(v, ov_wordlist(words));
	v->text = text;
}

static void get_setting(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	static const char *const kinds[] = { "absent", "error", "choice", "int", "text" };
	const struct thp_setting *s = row;
	const struct set_ctx *x = ctx;
	const struct thp_setting_desc *d =
		x->vm ? thp_setting_desc_find(THP_PLACE_VM, s->name, strlen(s->name)) : NULL;

	switch (c->arg) {
	case S_NAME: v->s = s->name; return;
	case S_KIND: v->s = kinds[s->kind]; return;
	case S_VALUE: out_val_set(v, setting_value(s)); return;
	case S_CHOICES: setting_choices(s, d, v); return;
	case S_ERROR: out_val_set(v, ov_str(s->kind == THP_ERROR ? thp_strerror(s->err) : NULL)); return;
	case S_MEANING:
		out_val_set(v, ov_str(d ? d->meaning
					: thp_status_setting_meaning(x->st, s->name, x->khugepaged, v->buf, v->cap)));
		return;
	case S_KEY: snprintf(v->buf, v->cap, "vm.%s", d ? d->file : s->name); v->s = v->buf; return;
	default: out_val_set(v, ov_str(d ? d->since : NULL)); return;
	}
}

static const struct out_col set_cols[] = {
	[S_NAME] = { "NAME", OUT_TEXT, OUT_KEEP, "", get_setting, S_NAME },
	[S_KIND] = { "KIND", OUT_TEXT, OUT_KEEP, "", get_setting, S_KIND },
	[S_VALUE] = { "VALUE", OUT_TEXT, OUT_KEEP, "", get_setting, S_VALUE },
	[S_CHOICES] = { "CHOICES", OUT_WORDLIST, OUT_WRAP | OUT_KEEP, "", get_setting, S_CHOICES },
	[S_ERROR] = { "ERROR", OUT_TEXT, OUT_KEEP, "", get_setting, S_ERROR },
	[S_MEANING] = { "MEANING", OUT_TEXT, OUT_WRAP | OUT_KEEP, "", get_setting, S_MEANING },
	[S_KEY] = { "KEY", OUT_TEXT, OUT_KEEP, "", get_setting, S_KEY },
	[S_SINCE] = { "SINCE", OUT_TEXT, OUT_KEEP, "", get_setting, S_SINCE },
};

/* The N settings V as table KEY: in text name, value, choices and meaning;
 * in JSON every column (the vm sysctls, VM, with their key and since). */
static void put_settings(const char *key, const struct thp_status *st, const struct thp_setting *v, int n,
			 bool khugepaged, bool vm)
{
	static const int text[] = { S_NAME, S_VALUE, S_CHOICES, S_MEANING };
	static const int all[] = { S_NAME, S_KIND, S_VALUE, S_CHOICES, S_ERROR, S_MEANING, S_KEY, S_SINCE };
	struct set_ctx x = { st, khugepaged, vm };
	struct out_fmt f = table_fmt(false);
	struct out_table *t = f.json ? out_table_open(key, set_cols, all, vm ? S_SINCE + 1 : S_KEY, &f, &x)
				     : out_table_open(key, set_cols, text, 4, &f, &x);

	for (int i = 0; i < n; i++)
		out_table_add(t, &v[i]);
	out_table_close(t, 2);
}

/* ---- the per-size policy (mTHP) and its counters ---- */

enum { Z_SIZE, Z_ANON, Z_ANON_EFF, Z_SHMEM, Z_SHMEM_EFF, Z_ANON_CONTROL };

/* The word of setting S of a size, in text "-" without the control (NONE)
 * and "unknown" without a word. */
static struct out_val size_word(const char *w, bool have, const char *none)
{
	struct out_val v = ov_str(have ? w : NULL);

	v.text = !have ? none : w ? NULL : "unknown";
	return v;
}

static void get_size(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct thp_size *z = row;
	bool anon = z->enabled.kind != THP_MISSING, shm = z->shmem_enabled.kind != THP_MISSING;

	(void)ctx;
	switch (c->arg) {
	case Z_SIZE: out_val_set(v, ov_size(z->bytes)); return;
	case Z_ANON: out_val_set(v, size_word(thp_setting_word(&z->enabled), anon, "-")); return;
	case Z_ANON_EFF:
		out_val_set(v, size_word(z->anon_effective, anon, "no anon control (shmem/file only)"));
		return;
	case Z_SHMEM: out_val_set(v, size_word(thp_setting_word(&z->shmem_enabled), shm, "-")); return;
	case Z_SHMEM_EFF: out_val_set(v, size_word(z->shmem_effective, shm, "-")); return;
	default: out_val_set(v, ov_bool(anon)); return;
	}
}

/* Text shows the first five (a size left-aligned, as a name), JSON the size
 * and the last six. */
static const struct out_col size_cols[] = {
	{ "SIZE", OUT_TEXT, OUT_KEEP, "", get_size, Z_SIZE },
	{ "ANON", OUT_TEXT, OUT_KEEP, "", get_size, Z_ANON },
	{ "EFFECTIVE", OUT_TEXT, OUT_KEEP, "", get_size, Z_ANON_EFF },
	{ "SHMEM", OUT_TEXT, OUT_KEEP, "", get_size, Z_SHMEM },
	{ "EFFECTIVE", OUT_TEXT, OUT_KEEP, "", get_size, Z_SHMEM_EFF },
	{ "ANON_CONTROL", OUT_BOOL, OUT_KEEP, "", get_size, Z_ANON_CONTROL },
	{ "ENABLED", OUT_TEXT, OUT_KEEP, "", get_size, Z_ANON },
	{ "ANON_EFFECTIVE", OUT_TEXT, OUT_KEEP, "", get_size, Z_ANON_EFF },
	{ "SHMEM_ENABLED", OUT_TEXT, OUT_KEEP, "", get_size, Z_SHMEM },
	{ "SHMEM_EFFECTIVE", OUT_TEXT, OUT_KEEP, "", get_size, Z_SHMEM_EFF },
};

/* One counter of one size. */
struct size_stat {
	const struct thp_size *z;
	const struct thp_counter *c;
};

static void get_stat(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct size_stat *s = row;

	(void)ctx;
	if (c->arg == 0)
		out_val_set(v, ov_size(s->z->bytes));
	else if (c->arg == 1)
		v->s = s->c->name;
	else
		out_val_set(v, ov_grouped(s->c->val));
}

static const struct out_col stat_cols[] = {
	{ "SIZE", OUT_TEXT, OUT_KEEP, "", get_stat, 0 },
	{ "COUNTER", OUT_TEXT, OUT_KEEP, "", get_stat, 1 },
	{ "VALUE", OUT_GROUPED, OUT_KEEP, "", get_stat, 2 },
};

/* The sizes and, as table size_stats, their counters: in text those that
 * are not zero. */
static void put_sizes(const struct thp_status *st)
{
	static const int text[] = { 0, 1, 2, 3, 4 }, json[] = { 0, 5, 6, 7, 8, 9 }, stat[] = { 0, 1, 2 };
	struct out_fmt f = table_fmt(true);
	struct out_table *t;
	bool any = false, shown = st->dir && st->nsizes;

	if (st->dir)
		out_text("\nPer-size policy (mTHP)\n");
	if (st->dir && !st->nsizes)
		out_text(st->sizes_err ? "  unknown: the THP directory could not be listed\n"
				       : "  none: per-size THP (mTHP) needs Linux 6.8+\n");
	t = f.json ? out_table_open("sizes", size_cols, json, 6, &f, NULL)
		   : out_table_open("sizes", size_cols, text, 5, &f, NULL);
	for (int i = 0; i < st->nsizes; i++)
		out_table_add(t, &st->sizes[i]);
	out_table_close(t, 2);

	if (shown)
		out_text("\nPer-size counters (non-zero, hugepages-<size>kB/stats)\n");
	t = out_table_open("size_stats", stat_cols, stat, 3, &f, NULL);
	for (int i = 0; i < st->nsizes; i++)
		for (int j = 0; j < st->sizes[i].nstats; j++) {
			struct size_stat s = { &st->sizes[i], &st->sizes[i].stats[j] };
			if (!s.c->val && !f.json)
				continue;
			out_table_add(t, &s);
			any = true;
		}
	out_table_close(t, 2);
	if (shown && !any)
		out_text("  all zero\n");
}

/* ---- the kernel ---- */

/* One page size's data TLB: entries, level and the bytes they cover; null when unknown. */
static void put_reach_level(const char *key, const struct thp_tlb_level *l, uint64_t page)
{
	if (!l->entries) {
		out_put(OUT_JSON, key, NULL, ov_null());
		return;
	}
	out_obj(key);
	out_put(OUT_JSON, "entries", NULL, ov_int(l->entries));
	out_put(OUT_JSON, "level", NULL, ov_int(l->level));
	out_put(OUT_JSON, "bytes", NULL, ov_size(thp_tlb_reach_bytes(l, page)));
	out_end();
}

/* The TLB reach: a line in text, its figures in JSON. */
static void put_reach(const struct thp_tlb_reach *r)
{
	static const char *const src[] = { [THP_TLB_SRC_NONE] = NULL, [THP_TLB_SRC_CPUID] = "cpuid",
					   [THP_TLB_SRC_CPUINFO] = "cpuinfo" };
	char reach[256];

	out_kv(OUT_FP, NULL, "TLB reach", NULL, ov_str(reach_text(r, out_bytes_on(), reach, sizeof(reach))));
	out_obj("tlb_reach");
	out_put(OUT_JSON, "source", NULL, ov_str(src[r->src]));
	out_put(OUT_JSON, "data_only", NULL, ov_bool(r->src == THP_TLB_SRC_CPUID));
	put_reach_level("pages_4k", &r->k4, 4096);
	put_reach_level("pages_2m", &r->m2, 2 << 20);
	out_put(OUT_JSON, "why_unknown", NULL, ov_str(r->why));
	out_end();
}

static void put_kernel(const struct thp_status *st)
{
	char sup[160], rel[96], dir[128];
	struct out_val v;

	snprintf(rel, sizeof(rel), "unknown (%s)", thp_strerror(st->release_err));
	snprintf(dir, sizeof(dir), "/%s", st->dir ? st->dir : "");
	if (st->dir)
		snprintf(sup, sizeof(sup), "yes (/%s)", st->dir);
	else
		snprintf(sup, sizeof(sup), "no (kernel built without CONFIG_TRANSPARENT_HUGEPAGE)");
	out_text("\nKernel\n");
	out_obj("kernel");
	out_kv_open(2, false);
	out_kv(OUT_ANY, "release", "release", NULL, ov_words(ov_str(st->release_err ? NULL : st->release), st->release_err ? rel : NULL));
	out_kv(OUT_JSON, "major", NULL, NULL, ov_if(st->kmajor >= 0, ov_int(st->kmajor)));
	out_kv(OUT_JSON, "minor", NULL, NULL, ov_if(st->kminor >= 0, ov_int(st->kminor)));
	v = ov_bool(st->dir != NULL);
	v.text = sup;
	out_kv(OUT_ANY, "thp_supported", "THP support", NULL, v);
	out_kv(OUT_JSON, "sysfs_dir", NULL, NULL, ov_str(st->dir ? dir : NULL));
	out_kv(OUT_ANY, "pmd_size", "PMD huge page", NULL,
	       ov_words(ov_if(st->pmd_size, ov_size(st->pmd_size)), st->pmd_size ? NULL : "unknown (no hpage_pmd_size)"));
	out_kv(OUT_ANY, "page_size", "base page", NULL, ov_words(ov_if(st->page_size, ov_size(st->page_size)), st->page_size ? NULL : "unknown"));
	put_reach(&st->reach);
	out_kv_close();
	out_end();
}

/* ---- compaction, reclaim and the vm sysctls ---- */

/* "min_free_kbytes: 66 MiB, 0.3% of RAM; ..." with the kernel's own value M
 * (NULL when unknown). Text only. */
static void min_free_text(const struct thp_status *st, const struct thp_min_free *m)
{
	char a[32], b[32], c[32], pct[32];
	bool bytes = out_bytes_on();
	uint64_t kb, total;

	if (out_json_on() || !thp_vm_num(st, "min_free_kbytes", &kb) ||
	    !thp_counter_get(st->meminfo, st->nmeminfo, "MemTotal", &total) || !total)
		return;
	out_pct(pct, sizeof(pct), kb << 10, total);
	out_text("  min_free_kbytes holds back %s, %s of RAM", out_size(a, sizeof(a), kb << 10, bytes), pct);
	if (!m) {
		out_text("\n");
		return;
	}
	out_text("; the kernel would choose %s\n", out_size(b, sizeof(b), m->kb << 10, bytes));
	out_note("(estimated: %s from RAM, %s for THP: 11 pageblocks in each of %d zones)",
		 out_size(c, sizeof(c), m->base_kb << 10, bytes),
		 m->thp_kb ? out_size(a, sizeof(a), m->thp_kb << 10, bytes) : "none", st->nzones);
}

/* The settings of /proc/sys/vm that shape compaction and reclaim, the
 * kernel's own min_free_kbytes, and what kcompactd, kswapd and allocating
 * threads did since boot. */
static void put_vm(const struct thp_status *st)
{
	struct thp_min_free mf;
	bool def = thp_min_free_default(st, &mf);
	uint64_t wake, scan, stalls;
	bool have = thp_allocstalls(st->vmstat, st->nvmstat, &stalls);
	char a[32], b[32], c[32];

	out_text("\nCompaction and watermarks (/" THP_SYSCTL_DIR ")\n");
	out_obj("vm");
	put_settings("settings", st, st->vm, st->nvm, false, true);
	min_free_text(st, def ? &mf : NULL);
	if (def) {
		out_obj("min_free_kbytes_default");
		out_put(OUT_JSON, "bytes", NULL, ov_size(mf.kb << 10));
		out_put(OUT_JSON, "base_bytes", NULL, ov_size(mf.base_kb << 10));
		out_put(OUT_JSON, "thp_bytes", NULL, ov_size(mf.thp_kb << 10));
		out_put(OUT_JSON, "zones", NULL, ov_int(st->nzones));
		out_end();
	} else {
		out_put(OUT_JSON, "min_free_kbytes_default", NULL, ov_null());
	}
	out_put(OUT_JSON, "allocstall", NULL, ov_if(have, ov_count(stalls)));
	out_end();
	if (have && thp_counter_get(st->vmstat, st->nvmstat, "compact_daemon_wake", &wake) &&
	    thp_counter_get(st->vmstat, st->nvmstat, "pgscan_kswapd", &scan))
		out_text("  since boot: kcompactd woke %s times, kswapd scanned %s pages, threads stalled\n"
			 "  in direct reclaim %s times (allocstall_*); rates per second: thp watch\n",
			 out_count(a, sizeof(a), wake), out_count(b, sizeof(b), scan),
			 out_count(c, sizeof(c), stalls));
}

/* ---- NUMA nodes ---- */

enum { N_NODE, N_CPUS, N_MEM, N_ANON, N_SHMEM, N_FILE, N_FREE_PMD, N_HUGETLB, N_HUGETLB_FREE };

static void get_node(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct thp_numa_node *d = row;
	const uint64_t mem[] = { [N_MEM] = d->mem_total, [N_ANON] = d->anon_huge, [N_SHMEM] = d->shmem_huge,
				 [N_FILE] = d->file_huge };

	(void)ctx;
	switch (c->arg) {
	case N_NODE: out_val_set(v, ov_int(d->id)); return;
	case N_CPUS: out_val_set(v, ov_words(ov_str(d->cpus[0] ? d->cpus : NULL), d->cpus[0] ? NULL : "-")); return;
	case N_FREE_PMD: out_val_set(v, ov_if(d->has_blocks, ov_grouped(d->free_pmd_blocks))); return;
	case N_HUGETLB: v->u = d->hugetlb; return;
	case N_HUGETLB_FREE: v->u = d->hugetlb_free; return;
	default: out_val_set(v, ov_if(d->has_meminfo, ov_size(mem[c->arg]))); return;
	}
}

static const struct out_col node_cols[] = {
	{ "NODE", OUT_TEXT, 0, "", get_node, N_NODE },
	{ "CPUS", OUT_TEXT, 0, "", get_node, N_CPUS },
	{ "MEMORY", OUT_SIZE, 0, "", get_node, N_MEM },
	{ "ANONHUGE", OUT_SIZE, 0, "", get_node, N_ANON },
	{ "SHMEMHUGE", OUT_SIZE, 0, "", get_node, N_SHMEM },
	{ "FILEHUGE", OUT_SIZE, 0, "", get_node, N_FILE },
	{ "FREE-PMD", OUT_GROUPED, 0, "", get_node, N_FREE_PMD },
	{ "HUGETLB", OUT_SIZE, 0, "", get_node, N_HUGETLB },
	{ "HUGETLB-FREE", OUT_SIZE, 0, "", get_node, N_HUGETLB_FREE },
};

/* Huge pages per NUMA node; in text one line when there is a single node. */
static void put_numa(const struct thp_status *st, const struct thp_numa *n)
{
	static const int all[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct out_fmt f = table_fmt(true);
	struct out_table *t;
	char pmd[32];

	out_text("\nNUMA nodes (/sys/devices/system/node)\n");
	if (n->n <= 1)
		out_text("  1 NUMA node%s\n", n->err ? " (this kernel shows no NUMA nodes)" : "");
	out_obj("numa");
	t = out_table_open("nodes", node_cols, all, 9, &f, NULL);
	for (int i = 0; i < n->n && (n->n > 1 || f.json); i++)
		out_table_add(t, &n->nodes[i]);
	out_table_close(t, 2);
	out_end();
	if (n->n > 1)
		out_text("  FREE-PMD: free blocks of %s or more (/proc/buddyinfo), in %s blocks\n",
			 out_size(pmd, sizeof(pmd), st->pmd_size, false), pmd);
}

/* ---- counters, memory and the boot line ---- */

static void put_vmstat(const struct thp_status *st)
{
	uint64_t alloc, fb;
	char v[32];
	bool have = thp_counter_get(st->vmstat, st->nvmstat, "thp_fault_alloc", &alloc) &&
		    thp_counter_get(st->vmstat, st->nvmstat, "thp_fault_fallback", &fb);

	out_text("\nCounters since boot (/proc/vmstat)\n");
	if (st->vmstat_err) {
		put_unknown("vmstat", st->vmstat_err);
	} else {
		out_obj("vmstat");
		out_kv_open(2, false);
		out_kv_right();
		for (int i = 0; i < st->nvmstat; i++)
			out_kv(OUT_ANY, st->vmstat[i].name, st->vmstat[i].name, NULL, ov_grouped(st->vmstat[i].val));
		out_kv_close();
		out_end();
	}
	out_put(OUT_JSON, "fault_fallback_ratio", NULL,
		ov_if(have && alloc + fb, ov_num(have && alloc + fb ? (double)fb / (double)(alloc + fb) : 0, -1)));
	if (have && alloc + fb)
		out_text("  fallback ratio: %s of THP faults fell back to small pages\n",
			 out_pct(v, sizeof(v), fb, alloc + fb));
	else if (have)
		out_text("  fallback ratio: no THP page faults since boot\n");
}

static void get_meminfo(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct thp_counter *m = row;

	(void)ctx;
	if (c->arg == 0)
		v->s = m->name;
	else if (c->arg == 1)
		out_val_set(v, is_count_key(m->name) ? ov_grouped(m->val) : ov_size(m->val));
	else
		v->s = meminfo_meaning(m->name);
}

static const struct out_col mem_cols[] = {
	{ "NAME", OUT_TEXT, OUT_KEEP, "", get_meminfo, 0 },
	{ "VALUE", OUT_SIZE, OUT_KEEP, "", get_meminfo, 1 },
	{ "MEANING", OUT_TEXT, OUT_KEEP, "", get_meminfo, 2 },
};

/* The meminfo lines that are (HUGETLB) or are not static pool lines. */
static void put_meminfo(const struct thp_status *st, bool hugetlb)
{
	static const int all[] = { 0, 1, 2 };
	const char *key = hugetlb ? "hugetlb" : "meminfo";
	struct out_fmt f = table_fmt(false);
	struct out_table *t;
	int shown = 0;

	out_text(hugetlb ? "\nStatic huge page pools (hugetlbfs; reserved memory, not THP)\n"
			 : "\nMemory (/proc/meminfo)\n");
	if (st->meminfo_err) {
		put_unknown(key, st->meminfo_err);
		return;
	}
	t = out_table_open(key, mem_cols, all, 3, &f, NULL);
	for (int i = 0; i < st->nmeminfo; i++)
		if (is_hugetlb_key(st->meminfo[i].name) == hugetlb) {
			out_table_add(t, &st->meminfo[i]);
			shown++;
		}
	out_table_close(t, 2);
	if (!shown)
		out_text("  none reported by /proc/meminfo\n");
}

static void get_boot(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct thp_boot_param *b = row;

	(void)ctx;
	v->s = c->arg ? b->value : b->name;
}

static const struct out_col boot_cols[] = {
	{ "NAME", OUT_TEXT, OUT_KEEP, "", get_boot, 0 },
	{ "VALUE", OUT_TEXT, OUT_KEEP, "", get_boot, 1 },
};

static void put_boot(const struct thp_status *st)
{
	static const int all[] = { 0, 1 };
	struct out_fmt f = table_fmt(false);
	struct out_table *t;

	out_text("\nBoot settings (/proc/cmdline)\n");
	if (st->cmdline_err) {
		put_unknown("boot", st->cmdline_err);
		return;
	}
	if (!st->nboot)
		out_text("  none: no THP or huge page parameters, the kernel's built-in defaults apply\n");
	t = out_table_open("boot", boot_cols, all, 2, &f, NULL);
	for (int i = 0; i < st->nboot; i++)
		out_table_add(t, &st->boot[i]);
	out_table_close(t, 2);
}

static void put_procs(const struct thp_procs *p)
{
	out_obj("processes");
	out_put(OUT_JSON, "scanned", NULL, ov_bool(p->scanned));
	out_put(OUT_JSON, "with_anon_huge", NULL, ov_int(p->with_huge));
	out_put(OUT_JSON, "anon_huge_sum", NULL, ov_size(p->anon_huge));
	out_put(OUT_JSON, "readable", NULL, ov_int(p->readable));
	out_put(OUT_JSON, "unreadable", NULL, ov_int(p->unreadable.n));
	out_end();
}

/* ---- the verdict and the journals ---- */

/* Journal J of kind K (file REL) as member KEY, and its Pending: line in
 * text; nothing without one. */
static void put_journal(const struct thp_root *root, const char *key, const char *rel,
			const struct thp_host_journal *j, const struct journal_kind *k)
{
	static const char *const states[] = { [THP_STATE_CURRENT] = "unfinished",
					      [THP_STATE_RUNNING] = "running",
					      [THP_STATE_OTHER_BOOT] = "earlier-boot",
					      [THP_STATE_DAMAGED] = "damaged" };
	char shown[4200], pending[2048];

	if (j->status == THP_STATE_ABSENT)
		return;
	thp_root_shown(root, rel, shown, sizeof(shown));
	journal_line(j, k, shown, pending, sizeof(pending));
	out_obj(key);
	out_put(OUT_JSON, "state", NULL, ov_str(states[j->status]));
	out_put(OUT_JSON, "command", NULL, ov_str(j->command));
	out_put(OUT_JSON, "pid", NULL, ov_if(j->pid, ov_int(j->pid)));
	out_put(OUT_JSON, "error", NULL, ov_str(j->status == THP_STATE_DAMAGED ? j->why : NULL));
	out_arr("changed");
	for (int i = 0; i < j->nchanged; i++) {
		out_obj(NULL);
		out_put(OUT_JSON, "key", NULL, ov_str(j->changed[i].key));
		out_put(OUT_JSON, "running", NULL, ov_str(j->changed[i].running));
		out_put(OUT_JSON, "journaled", NULL, ov_str(j->changed[i].other));
		out_end();
	}
	out_end();
	out_end();
	if (pending[0])
		out_wrapped(OUT_FP, NULL, "Pending:", ov_str(pending), WIDTH);
}

static void put_verdict(const struct thp_root *root, const struct thp_status *st,
			const struct thp_status_extra *x)
{
	char policy[1024], now[1024];

	out_verdict(st, policy, sizeof(policy), now, sizeof(now));
	out_obj("verdict");
	out_wrapped(OUT_ANY, "policy", "THP:", ov_str(policy), WIDTH);
	out_wrapped(now[0] ? OUT_ANY : OUT_JSON, "now", "Now:", ov_str(now), WIDTH);
	out_end();
	put_journal(root, "journal", THP_JOURNAL, &x->journal, &settings_kind);
	put_journal(root, "pools_journal", THP_POOLS_JOURNAL, &x->pools_journal, &pools_kind);
}

void thp_status_print(const struct thp_root *root, const struct thp_status *st,
		      const struct thp_status_extra *x)
{
	out_put(OUT_JSON, "root", NULL, ov_str(root->path));
	out_put(OUT_JSON, "host", NULL, ov_str(st->hostname[0] ? st->hostname : NULL));
	put_verdict(root, st, x);
	put_kernel(st);
	if (st->dir)
		out_text("\nGlobal policy (/%s)\n", st->dir);
	put_settings("settings", st, st->settings, st->nsettings, false, false);
	put_sizes(st);
	if (st->dir)
		out_text("\nkhugepaged (background collapse)\n");
	if (st->dir && !st->nkhugepaged)
		out_text("  unknown: %s\n", thp_strerror(st->khugepaged_err ? st->khugepaged_err : -2));
	put_settings("khugepaged", st, st->khugepaged, st->nkhugepaged, true, false);
	put_vm(st);
	put_numa(st, &x->numa);
	put_vmstat(st);
	put_meminfo(st, false);
	put_meminfo(st, true);
	put_boot(st);
	put_procs(&st->procs);
}

/* Whether the kernel has feature F: yes, no, or unknown (null in JSON). */
static struct out_val have(const struct thp_feature *f)
{
	struct out_val v = ov_if(f->have != THP_HAVE_UNKNOWN, ov_bool(f->have == THP_HAVE_YES));

	v.text = v.null ? "unknown" : NULL;
	return v;
}

int thp_features_print(const struct thp_root *root, const struct thp_status *st, bool json)
{
	struct thp_feature f[THP_FEATURES];
	int n = thp_features(st, f);

	out_doc_begin(json, false, THP_FEATURES_SCHEMA);
	out_put(OUT_ANY, "kernel", "Kernel %s", ov_words(ov_str(st->release_err ? NULL : st->release), st->release_err ? "release unknown" : NULL));
	if (!root->live)
		out_put(OUT_FP, NULL, " below %s", ov_str(root->path));
	out_text(":\n");
	out_obj("features");
	for (int i = 0; i < n; i++) {
		out_text("  %-30s ", f[i].name);
		out_put(OUT_ANY, f[i].name, "%-7s", have(&f[i]));
		out_text(" (Linux %s+, from %s)\n", f[i].since, f[i].how);
	}
	out_end();
	return out_doc_end() ? 1 : 0;
}
