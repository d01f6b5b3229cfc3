/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rules_host.c - doctor rules about host policy and health */
#include "pools.h"
#include "rules.h"
#include "state.h"

#include <stdio.h>
#include <string.h>

#define MiB (1024ull * 1024)
#define GiB (1024 * MiB)

/* Adds the top-level "enabled" and "defrag" words as evidence. */
static void ev_policy(struct thp_finding *f, const struct thp_host *h, const char *name)
{
	char src[128];
	const char *w = thp_setting_word(thp_status_setting(h->st, name));

	ev_text(f, thp_src(h, name, src, sizeof(src)), name, "%s", w ? w : "unknown");
}

/* The defrag value to suggest: defer+madvise where the kernel offers it. */
static const char *defrag_fix(const struct thp_host *h)
{
	const struct thp_setting *d = thp_status_setting(h->st, "defrag");

	return d && d->kind == THP_CHOICE && thp_choice_find(&d->choice, "defer+madvise") >= 0
		       ? "defer+madvise" : "madvise";
}

void rule_always_always(const struct thp_host *h, struct thp_findings *out)
{
	const char *defrag = thp_setting_word(thp_status_setting(h->st, "defrag"));
	struct thp_finding *f;
	uint64_t v;

	if (!word_is(thp_status_pmd_policy(h->st), "always") || !word_is(defrag, "always"))
		return;
	f = finding_add(out, "defrag-always-stalls", THP_SEV_WARN,
			"With defrag=always a page fault that finds no free huge block reclaims and "
			"compacts memory before it returns, so any thread that touches new memory can "
			"stall for milliseconds; with enabled=always that is every large allocation.");
	finding_title(f, "Every THP page fault may stall in direct compaction (enabled=always, defrag=always).");
	ev_policy(f, h, "enabled");
	ev_policy(f, h, "defrag");
	if (vm_delta(h, "compact_stall", &v))
		ev_count(f, "/proc/vmstat", h->before ? "compact_stall (sample)" : "compact_stall", v);
	finding_fix(f, "thp set defrag=%s", defrag_fix(h));
	finding_fix(f, "thp persist");
}

void rule_compaction_stalls(const struct thp_host *h, struct thp_findings *out)
{
	uint64_t stall, fail = 0, succ = 0, alloc = 0, fb = 0;
	double secs = window_secs(h), rate = 0;
	const char *defrag = thp_setting_word(thp_status_setting(h->st, "defrag"));
	enum thp_severity sev;
	struct thp_finding *f;
	bool ratio;

	if (!vm_delta(h, "compact_stall", &stall) || stall == 0)
		return;
	vm_delta(h, "compact_fail", &fail);
	vm_delta(h, "compact_success", &succ);
	ratio = vm_delta(h, "thp_fault_alloc", &alloc) && vm_delta(h, "thp_fault_fallback", &fb) &&
		alloc + fb > 0;
	if (secs > 0)
		rate = (double)stall / secs;
	if (h->before)
		sev = rate >= 1.0 ? THP_SEV_CRIT : THP_SEV_WARN;
	else if (secs > 0 ? rate >= 1.0 / 60 : stall >= 10000)
		sev = THP_SEV_WARN;
	else if (ratio && fb * 5 >= alloc + fb)
		sev = THP_SEV_INFO;
	else
		return;
	f = finding_add(out, "compaction-stalls", sev,
			"A thread in direct compaction waits while the kernel moves pages to build a "
			"free huge block: that wait is a latency spike in the application, and "
			"compact_fail counts the waits that still ended without a huge page.");
	if (h->before)
		finding_title(f, "Threads stalled in direct compaction during the sample%s.",
			      sev == THP_SEV_CRIT ? ", more than once a second" : "");
	else
		finding_title(f, "Threads have stalled in direct compaction %s since boot.",
			      secs > 0 ? "more than once a minute on average" : "many times");
	ev_count(f, "/proc/vmstat", "compact_stall", stall);
	ev_count(f, "/proc/vmstat", "compact_fail", fail);
	ev_count(f, "/proc/vmstat", "compact_success", succ);
	ev_window(f, h);
	if (secs > 0)
		ev_rate(f, "", "stall rate", rate);
	ev_tlb(f, h);
	if (ratio)
		ev_ratio(f, "/proc/vmstat", "THP faults that fell back (thp_fault_fallback)", fb,
			 alloc + fb);
	if (!h->psi_err && h->psi.some.present)
		ev_text(f, "/proc/pressure/memory", "memory pressure (some)",
			"%.2f%% avg10, %.2f%% avg60, %.2f%% avg300", h->psi.some.avg10,
			h->psi.some.avg60, h->psi.some.avg300);
	ev_policy(f, h, "defrag");
	if (word_is(defrag, "always") || word_is(defrag, "madvise")) {
		finding_fix(f, "thp set defrag=%s", defrag_fix(h));
		finding_fix(f, "thp persist");
	}
	finding_fix(f, "thp trace");
}

void rule_no_huge_blocks(const struct thp_host *h, struct thp_findings *out)
{
	const char *pol = thp_status_pmd_policy(h->st);
	int order = thp_pmd_order(h->st->pmd_size, h->st->page_size), nzones = 0;
	const char *defrag = thp_setting_word(thp_status_setting(h->st, "defrag"));
	uint64_t alloc, fb, free = 0;
	struct thp_finding *f;

	if ((!word_is(pol, "always") && !word_is(pol, "madvise")) || !h->buddy || h->buddy_err || order < 0)
		return;
	for (int i = 0; i < h->buddy->nzones; i++)
		if (strcmp(h->buddy->zones[i].zone, "Normal") == 0) {
			nzones++;
			free += thp_buddy_free_blocks(&h->buddy->zones[i], order);
		}
	if (!nzones || free)
		return;
	/* with always + always every fault stalls in compaction now */
	f = finding_add(out, "no-free-huge-blocks",
			word_is(pol, "always") && word_is(defrag, "always") ? THP_SEV_CRIT : THP_SEV_WARN,
			"Free memory is all in pieces smaller than a huge page: every THP fault "
			"now either falls back to small pages or, where defrag allows, stalls in "
			"compaction until a block is assembled.");
	finding_title(f, "No Normal zone has a free block of huge page size (order %d or more).", order);
	for (int i = 0; i < h->buddy->nzones; i++) {
		const struct thp_buddy_zone *z = &h->buddy->zones[i];
		char name[64];
		if (strcmp(z->zone, "Normal") != 0)
			continue;
		snprintf(name, sizeof(name), "node %d Normal: free blocks of order >= %d", z->node, order);
		ev_count(f, "/proc/buddyinfo", name, thp_buddy_free_blocks(z, order));
	}
	if (vm_delta(h, "thp_fault_alloc", &alloc) && vm_delta(h, "thp_fault_fallback", &fb) && alloc + fb)
		ev_ratio(f, "/proc/vmstat", "THP faults that fell back (thp_fault_fallback)", fb, alloc + fb);
	ev_policy(f, h, "defrag");
	finding_fix(f, "echo 1 > /proc/sys/vm/compact_memory   # compact all zones once, now");
	if (word_is(defrag, "always") || word_is(defrag, "madvise"))
		finding_fix(f, "thp set defrag=%s", defrag_fix(h));
}

void rule_khugepaged(const struct thp_host *h, struct thp_findings *out)
{
	const struct thp_setting *sleep = thp_setting_find(h->st->khugepaged, h->st->nkhugepaged,
							   "scan_sleep_millisecs");
	const struct thp_setting *none = thp_setting_find(h->st->khugepaged, h->st->nkhugepaged,
							  "max_ptes_none");
	const char *pol = thp_status_pmd_policy(h->st);
	struct thp_finding *f;
	char src[128];
	uint64_t huge = 0;

	if (!word_is(pol, "always") && !word_is(pol, "madvise"))
		return; /* khugepaged does not run */
	if (sleep && sleep->kind == THP_INT && sleep->num == 0) {
		f = finding_add(out, "khugepaged-no-sleep", THP_SEV_WARN,
				"khugepaged scans again at once after every pass, so one CPU stays "
				"busy scanning page tables for as long as THP is enabled.");
		finding_title(f, "khugepaged never sleeps between scans (scan_sleep_millisecs=0).");
		ev_count(f, thp_src(h, "khugepaged/scan_sleep_millisecs", src, sizeof(src)),
			 "scan_sleep_millisecs", 0);
		finding_fix(f, "thp set khugepaged.scan_sleep_millisecs=10000");
		finding_fix(f, "thp persist");
	}
	if (none && none->kind == THP_INT && none->num >= 256 && meminfo(h, "AnonHugePages", &huge) &&
	    huge >= GiB) {
		f = finding_add(out, "khugepaged-max-ptes-none", word_is(pol, "always") ? THP_SEV_WARN : THP_SEV_INFO,
				"khugepaged collapses a 2 MiB range even when most of its pages were never "
				"touched, filling them with zeros: sparse heaps grow in RSS, and memory "
				"freed by the allocator is not given back while the huge page lives.");
		finding_title(f, "khugepaged may fill mostly empty ranges into huge pages while large THP users run (max_ptes_none=%llu).",
			      (unsigned long long)none->num);
		ev_count(f, thp_src(h, "khugepaged/max_ptes_none", src, sizeof(src)), "max_ptes_none", none->num);
		ev_bytes(f, "/proc/meminfo", "AnonHugePages", huge);
		if (h->st->procs.scanned)
			ev_count(f, "/proc/PID/smaps_rollup", "processes holding THP", (uint64_t)h->st->procs.with_huge);
		ev_policy(f, h, "enabled");
		finding_fix(f, "thp set khugepaged.max_ptes_none=0");
		finding_fix(f, "thp persist");
	}
}

/* Lists the sizes other than the PMD size whose effective anon policy is
 * "always" into F as evidence and fixes; returns how many. */
static int mthp_always(const struct thp_host *h, struct thp_finding *f)
{
	int n = 0;

	for (int i = 0; i < h->st->nsizes; i++) {
		const struct thp_size *z = &h->st->sizes[i];
		char dir[64], src[160];
		uint64_t nr;

		if (z->bytes == h->st->pmd_size || !word_is(z->anon_effective, "always"))
			continue;
		n++;
		if (!f)
			continue;
		snprintf(dir, sizeof(dir), "hugepages-%llukB/enabled", (unsigned long long)(z->bytes >> 10));
		ev_text(f, thp_src(h, dir, src, sizeof(src)), dir, "%s",
			thp_setting_word(&z->enabled) ? thp_setting_word(&z->enabled) : "unknown");
		if (thp_counter_get(z->stats, z->nstats, "nr_anon", &nr)) {
			snprintf(dir, sizeof(dir), "hugepages-%llukB/stats/nr_anon", (unsigned long long)(z->bytes >> 10));
			ev_count(f, thp_src(h, dir, src, sizeof(src)), dir, nr);
		}
		if (z->bytes >= MiB && z->bytes % MiB == 0)
			finding_fix(f, "thp set hugepages.%lluM.enabled=never", (unsigned long long)(z->bytes / MiB));
		else
			finding_fix(f, "thp set hugepages.%lluK.enabled=never", (unsigned long long)(z->bytes >> 10));
	}
	return n;
}

/* The finding of huge pages held under a top-level policy of 'never' (NEVER)
 * or 'madvise': only folios of mTHP sizes set back to 'never' (LEFT_ONLY),
 * which nobody asked for, or memory programs may have asked for. */
static struct thp_finding *in_use_add(struct thp_findings *out, bool never, bool left_only)
{
	struct thp_finding *f;

	if (left_only) {
		f = finding_add(out, "mthp-left-over", THP_SEV_INFO,
				"Setting an mTHP size back to 'never' stops new folios of that size only: "
				"those made while it was enabled stay until they are freed or split. No "
				"program asked for them: madvise(MADV_HUGEPAGE) gets no folio of a size "
				"set to 'never'.");
		finding_title(f, "THP is set to 'madvise', and memory is still held in large folios from "
				 "when their mTHP size was enabled.");
	} else {
		f = finding_add(out, never ? "thp-in-use-despite-never" : "thp-in-use-via-madvise",
				never ? THP_SEV_WARN : THP_SEV_INFO,
				never ? "enabled=never stops new huge pages at page fault only: pages made "
					"before the policy changed stay until they are freed or split, and "
					"MADV_COLLAPSE still makes new ones, so 'THP is off' does not mean no "
					"process has them."
				      : "With enabled=madvise, programs that call madvise(MADV_HUGEPAGE) "
					"still get huge pages (and may stall in compaction for them): THP is "
					"not off, it is off for everyone who did not ask.");
		finding_title(f, never ? "THP is set to 'never', yet processes hold huge pages."
				       : "THP is set to 'madvise', and programs that asked for it hold huge pages.");
	}
	return f;
}

void rule_in_use_anyway(const struct thp_host *h, struct thp_findings *out)
{
	const char *pol = thp_status_pmd_policy(h->st);
	struct thp_finding *f;
	uint64_t huge = 0, left, asked;
	char src[128];
	bool never = word_is(pol, "never"), left_only;

	if (!never && !word_is(pol, "madvise"))
		return;
	if (mthp_always(h, NULL)) {
		f = finding_add(out, "mthp-always-despite-policy", THP_SEV_WARN,
				never ? "Per-size settings override the top-level one: a size set to 'always' "
					"gives every anonymous mapping huge folios of that size, whatever "
					"'enabled' says, so turning THP off at the top did not turn it off."
				      : "Per-size settings override the top-level one: a size set to 'always' "
					"gives every anonymous mapping huge folios of that size, whatever "
					"'enabled' says, so 'madvise' at the top did not keep THP to the "
					"ranges that asked for it.");
		finding_title(f, "The top-level policy is '%s', but some mTHP sizes are set to 'always' and used for all memory.", pol);
		ev_policy(f, h, "enabled");
		mthp_always(h, f);
		finding_fix(f, "thp persist");
	}
	meminfo(h, "AnonHugePages", &huge);
	left = thp_status_mthp_held(h->st, "never");   /* made while the size was enabled */
	asked = thp_status_mthp_held(h->st, "madvise"); /* advised, or left from before */
	if (huge == 0 && left == 0 && asked == 0)
		return;
	left_only = !never && huge == 0 && asked == 0;
	f = in_use_add(out, never, left_only);
	ev_policy(f, h, "enabled");
	ev_bytes(f, "/proc/meminfo", "AnonHugePages", huge);
	thp_src(h, "hugepages-*/stats/nr_anon", src, sizeof(src));
	if (asked)
		ev_bytes(f, src, "mTHP folios of sizes set to 'madvise'", asked);
	if (left)
		ev_bytes(f, src, "mTHP folios of sizes set to 'never', made while enabled", left);
	if (h->st->procs.scanned)
		ev_count(f, "/proc/PID/smaps_rollup", "processes holding THP", (uint64_t)h->st->procs.with_huge);
	if (left_only) {
		finding_fix(f, "thp ps --folios   # as root: who holds them; a restart frees them");
		return;
	}
	finding_fix(f, "thp ps");
	finding_fix(f, never ? "thp exec --disable -- CMD   # restart a program without THP"
			     : "thp exec --disable -- CMD   # run one program without THP");
}

#define POOLS_MAX (THP_HSIZES_MAX + 1)

/* The static pools: from /sys/kernel/mm/hugepages, or on kernels (and
 * captures) without it, the default-size pool of /proc/meminfo. */
static int pools(const struct thp_host *h, struct thp_hpool *v)
{
	int n = 0;

	if (h->hugetlb && !h->hugetlb->pools_err) {
		for (int i = 0; i < h->hugetlb->npools; i++)
			if (!h->hugetlb->pools[i].err)
				v[n++] = h->hugetlb->pools[i];
		return n;
	}
	memset(v, 0, sizeof(*v));
	if (meminfo(h, "Hugepagesize", &v->size) && v->size && meminfo(h, "HugePages_Total", &v->total) &&
	    meminfo(h, "HugePages_Free", &v->free)) {
		meminfo(h, "HugePages_Rsvd", &v->resv);
		n = 1;
	}
	return n;
}

/* Pages of the host's pool of SIZE the kernel command line asks for, or 0:
 * "hugepages=N" applies to the "hugepagesz=" before it, else to the default
 * size DEFSIZE. */
static uint64_t cmdline_pages(const struct thp_status *st, uint64_t defsize, uint64_t size)
{
	struct thp_kvlist l = { 0 };
	struct thp_pools_cmdline c = { defsize, 0, &l, 0 };
	const struct thp_kv *kv;
	char key[THP_KEY_MAX];
	uint64_t asked = 0;

	for (int i = 0; !st->cmdline_err && i < st->nboot; i++) {
		const struct thp_boot_param *p = &st->boot[i];
		thp_pools_cmdline_param(&c, p->name, strlen(p->name), p->value[0] ? p->value : NULL,
					strlen(p->value));
	}
	thp_pool_key(size, -1, key, sizeof(key));
	if ((kv = thp_kv_get(&l, key)))
		thp_parse_u64(kv->value, &asked);
	return asked;
}

/* "2M", "1G": a pool size as 'thp hugetlb set' takes it. */
static const char *size_word(uint64_t size, char *buf, size_t cap)
{
	if (size >= GiB && size % GiB == 0)
		snprintf(buf, cap, "%lluG", (unsigned long long)(size / GiB));
	else if (size >= MiB && size % MiB == 0)
		snprintf(buf, cap, "%lluM", (unsigned long long)(size / MiB));
	else
		snprintf(buf, cap, "%lluK", (unsigned long long)(size >> 10));
	return buf;
}

static void ev_pool(struct thp_finding *f, const struct thp_host *h, const struct thp_hpool *p)
{
	char src[128], name[64];

	if (h->hugetlb && !h->hugetlb->pools_err) {
		static const char *const files[] = { "nr_hugepages", "free_hugepages", "resv_hugepages" };
		const uint64_t vals[] = { p->total, p->free, p->resv };
		for (int i = 0; i < 3; i++) {
			snprintf(src, sizeof(src), "/sys/kernel/mm/hugepages/hugepages-%llukB/%s",
				 (unsigned long long)(p->size >> 10), files[i]);
			snprintf(name, sizeof(name), "%s", files[i]);
			ev_count(f, src, name, vals[i]);
		}
	} else {
		ev_count(f, "/proc/meminfo", "HugePages_Total", p->total);
		ev_count(f, "/proc/meminfo", "HugePages_Free", p->free);
		ev_count(f, "/proc/meminfo", "HugePages_Rsvd", p->resv);
	}
	ev_bytes(f, "", "page size", p->size);
}

void rule_hugetlb_pool(const struct thp_host *h, struct thp_findings *out)
{
	struct thp_hpool v[POOLS_MAX];
	uint64_t def = 0, asked;
	struct thp_finding *f;
	char sz[32];
	int n = pools(h, v);

	if (!meminfo(h, "Hugepagesize", &def) && h->hugetlb)
		def = h->hugetlb->default_size;
	for (int i = 0; i < n; i++) {
		const struct thp_hpool *p = &v[i];
		asked = cmdline_pages(h->st, def, p->size);
		size_word(p->size, sz, sizeof(sz));
		if (p->total > 0 && p->free == p->total && p->resv == 0) {
			bool young = !h->before && h->uptime > 0 && h->uptime < 3600;
			f = finding_add(out, "hugetlb-pool-unused", young ? THP_SEV_INFO : THP_SEV_WARN,
					"Pages of a static pool are taken from the rest of the system when the "
					"pool is made, used or not: nothing else (page cache, THP, programs) can "
					"have that memory while no program maps the pool.");
			finding_title(f, "The static pool of %s pages is reserved but no program uses it.", sz);
			ev_pool(f, h, p);
			ev_bytes(f, "", "memory held by the pool", p->total * p->size);
			ev_window(f, h);
			finding_fix(f, "thp hugetlb");
			finding_fix(f, "thp hugetlb set %s=0   # if no program is going to use it", sz);
			if (asked)
				finding_fix(f, "remove 'hugepages=%llu' for %s from the kernel command line (/etc/default/grub), then update-grub",
					    (unsigned long long)asked, sz);
		}
		if (asked > p->total) {
			f = finding_add(out, "hugetlb-pool-short", THP_SEV_WARN,
					"The kernel could not find enough free memory in huge blocks for the pool: "
					"programs configured for static huge pages (PostgreSQL huge_pages=on, "
					"a JVM with -XX:+UseLargePages) fail to start or fall back to small pages.");
			finding_title(f, "The static pool of %s pages is smaller than the kernel command line asks for.", sz);
			ev_count(f, "/proc/cmdline", "hugepages asked for", asked);
			ev_pool(f, h, p);
			finding_fix(f, "thp hugetlb set %s=%llu", sz, (unsigned long long)asked);
			finding_fix(f, "thp hugetlb");
		}
	}
}

void rule_page_tables(const struct thp_host *h, struct thp_findings *out)
{
	uint64_t pt, total;
	struct thp_finding *f;
	char src[128];

	if (!meminfo(h, "PageTables", &pt) || !meminfo(h, "MemTotal", &total) || total == 0)
		return;
	if (pt * 50 < total || pt < 64 * MiB) /* under 2% of RAM, or small */
		return;
	f = finding_add(out, "page-tables-large", pt * 20 >= total ? THP_SEV_WARN : THP_SEV_INFO,
			"Every base page costs 8 bytes of page table in each process that maps it; "
			"large shared or long-lived mappings (database buffers, JVM heaps, many "
			"forked workers) multiply that. A PMD-mapped huge page needs one entry "
			"instead of a whole table of them.");
	finding_title(f, "Page tables take a large share of memory; huge pages for the big mappings would save most of it.");
	ev_bytes(f, "/proc/meminfo", "PageTables", pt);
	ev_bytes(f, "/proc/meminfo", "MemTotal", total);
	ev_ratio(f, "/proc/meminfo", "PageTables / MemTotal", pt, total);
	if (thp_status_ptes_per_pmd(h->st))
		ev_count(f, thp_src(h, "hpage_pmd_size", src, sizeof(src)), "entries one huge page replaces",
			 thp_status_ptes_per_pmd(h->st));
	finding_fix(f, "thp ps --all -s RSS -n 10");
	finding_fix(f, "thp hugetlb plan SIZE   # static huge pages for a database buffer or JVM heap");
}

/* TLB shootdowns per CPU and second during a sample that make a finding. */
#define TLB_PER_CPU_RATE 1000

/* The vmstat counters of work that sends TLB shootdowns, shown as rates beside them. */
static const char *const tlb_causes[] = { "compact_stall", "pgmigrate_success", "thp_split_pmd",
					  "thp_collapse_alloc", "numa_pages_migrated" };

void rule_tlb_shootdowns(const struct thp_host *h, struct thp_findings *out)
{
	uint64_t d;
	double rate;
	struct thp_finding *f;

	if (!h->before || h->sample_secs <= 0 || !tlb_delta(h, &d) || h->st->tlb.ncpus <= 0)
		return;
	rate = (double)d / h->sample_secs;
	if (rate < (double)TLB_PER_CPU_RATE * h->st->tlb.ncpus)
		return;
	f = finding_add(out, "tlb-shootdowns", THP_SEV_INFO,
			"A TLB shootdown interrupts a CPU to drop translations another CPU changed: "
			"unmapping (free, munmap, MADV_DONTNEED), page migration (compaction, NUMA "
			"balancing), and splitting or collapsing huge pages all send them to every CPU "
			"that runs the process. Each costs the interrupted thread its TLB contents.");
	finding_title(f, "CPUs received %.0f TLB shootdowns a second each during the sample.",
		      rate / h->st->tlb.ncpus);
	ev_tlb(f, h);
	ev_count(f, "/proc/interrupts", "CPUs", (uint64_t)h->st->tlb.ncpus);
	ev_window(f, h);
	for (size_t i = 0; i < sizeof(tlb_causes) / sizeof(tlb_causes[0]); i++)
		if (vm_delta(h, tlb_causes[i], &d))
			ev_rate(f, "/proc/vmstat", tlb_causes[i], (double)d / h->sample_secs);
	finding_fix(f, "thp watch   # which of compaction, splits and collapses moves with them");
}

void rule_fallback_charge(const struct thp_host *h, struct thp_findings *out)
{
	uint64_t charge, fb = 0;
	struct thp_finding *f;

	if (!vm_delta(h, "thp_fault_fallback_charge", &charge) || charge == 0)
		return;
	vm_delta(h, "thp_fault_fallback", &fb);
	f = finding_add(out, "fallback-charge", h->before ? THP_SEV_WARN : THP_SEV_INFO,
			"A memory cgroup refused to charge a huge page because its limit was near, "
			"so the fault fell back to small pages: the workload runs at its memory "
			"limit, gets no THP there, and is close to reclaim or the OOM killer.");
	finding_title(f, h->before ? "THP faults fell back during the sample because a cgroup memory limit was reached."
				   : "THP faults have fallen back because a cgroup memory limit was reached.");
	ev_count(f, "/proc/vmstat", "thp_fault_fallback_charge", charge);
	if (fb)
		ev_ratio(f, "/proc/vmstat", "share of all THP fallbacks", charge, fb);
	ev_window(f, h);
	finding_fix(f, "thp ps --by cgroup");
	finding_fix(f, "systemctl set-property UNIT MemoryMax=SIZE   # raise the limit of that unit");
}

void rule_virtual_machine(const struct thp_host *h, struct thp_findings *out)
{
	struct thp_finding *f;

	if (!h->virt[0])
		return;
	f = finding_add(out, "virtual-machine", THP_SEV_INFO,
			"In a guest every TLB miss walks two sets of page tables, the guest's and the "
			"hypervisor's: a guest huge page shortens the first walk, and the second "
			"only when the hypervisor backs guest RAM with huge pages too. How much THP "
			"gains here is not known until measured: 'thp bench chase' times random "
			"loads with small pages and with THP.");
	finding_title(f, "This host is a virtual machine: THP gains here depend on huge pages on the hypervisor too.");
	ev_text(f, "", "detected by", "%s", h->virt);
	finding_fix(f, "thp bench chase   # measure what THP gains in this guest");
	finding_fix(f, "on the hypervisor (libvirt): <memoryBacking><hugepages/></memoryBacking>");
	finding_fix(f, "on the hypervisor (QEMU): -object memory-backend-memfd,id=mem,size=SIZE,hugetlb=on");
}

/* Adds D, a setting that differs from the state 'thp set' saved, as evidence:
 * credited to 'thp set' only when it made the change. */
static void ev_saved_change(struct thp_finding *f, const struct thp_host_diff *d)
{
	if (d->by_set)
		ev_text(f, d->source, d->key, "running '%s', was '%s' before 'thp set'", d->running, d->other);
	else
		ev_text(f, d->source, d->key, "running '%s', was '%s' when the state was saved; changed since",
			d->running, d->other);
}

void rule_persistence(const struct thp_host *h, struct thp_findings *out)
{
	const struct thp_host_persist *p = &h->persist;
	struct thp_finding *f;

	if (!p->known)
		return;
	int ndrift = 0;

	for (int i = 0; i < p->ndrift; i++)
		ndrift += !p->drift[i].tuned; /* tuned's values: rule persist-tuned */
	if (ndrift) {
		f = finding_add(out, "persist-drift", THP_SEV_WARN,
				"At the next boot the persisted values win: the host comes back with "
				"settings other than the ones it runs with now, and a value the kernel "
				"refuses is silently skipped at boot.");
		finding_title(f, "Running THP settings differ from what boot will apply.");
		bool pools = false, settings = false;
		for (int i = 0; i < p->ndrift; i++) {
			const struct thp_host_diff *d = &p->drift[i];
			bool pool = thp_is_pool_key(d->key);

			if (d->tuned)
				continue;
			pools = pools || pool;
			settings = settings || !pool;
			if (d->refused[0])
				ev_text(f, d->source, d->key, "boot applies '%s', refused: %s", d->other, d->refused);
			else
				ev_text(f, d->source, d->key, "running '%s', boot applies '%s'",
					d->running[0] ? d->running : "absent", d->other);
		}
		if (settings)
			finding_fix(f, "thp persist   # keep the running values across reboot");
		if (pools)
			finding_fix(f, "thp hugetlb persist   # keep the running pools across reboot");
		finding_fix(f, "thp persist --check");
	}
	if (p->npersisted == 0 && p->nchanged) {
		f = finding_add(out, "persist-none", THP_SEV_WARN,
				"Settings changed at run time live only until the next boot: then the "
				"kernel's defaults (or its command line) apply again, and the problem "
				"the change fixed comes back.");
		finding_title(f, "THP settings were changed since boot, and nothing persists them.");
		for (int i = 0; i < p->nchanged; i++)
			ev_saved_change(f, &p->changed[i]);
		finding_fix(f, "thp persist");
		finding_fix(f, "thp persist --cmdline   # or as kernel command-line options");
	}
}

void rule_tuned(const struct thp_host *h, struct thp_findings *out)
{
	const struct thp_host_persist *p = &h->persist;
	struct thp_finding *f;
	bool over = false;

	if (!p->known || !p->ntuned)
		return;
	for (int i = 0; i < p->ntuned; i++)
		over = over || p->tuned_writes[i].over[0];
	f = finding_add(out, "persist-tuned", THP_SEV_WARN,
			"tuned applies its active profile whenever it starts: at boot after systemd-sysctl "
			"and systemd-tmpfiles, so its values replace what those files persist for the same "
			"settings (but for sysctl.d files in /etc and /run, which it applies again after its "
			"own), and after every restart of tuned, whatever was set since.");
	if (over)
		finding_title(f, "tuned (profile '%s') writes THP settings at boot over the values persisted for them.",
			      p->tuned);
	else
		finding_title(f, "tuned (profile '%s') writes THP settings at boot that differ from the running ones.",
			      p->tuned);
	for (int i = 0; i < p->ntuned; i++) {
		const struct thp_host_tuned *t = &p->tuned_writes[i];

		if (t->over[0] && t->running[0])
			ev_text(f, t->source, t->key, "tuned writes '%s' over '%s' of %s; running '%s'", t->value, t->over,
				t->over_source, t->running);
		else if (t->over[0])
			ev_text(f, t->source, t->key, "tuned writes '%s' over '%s' of %s", t->value, t->over, t->over_source);
		else
			ev_text(f, t->source, t->key, "tuned writes '%s', running '%s'", t->value, t->running);
	}
	finding_fix(f, "tuned-adm active   # the profiles tuned applies");
	for (int i = 0; i < p->ntuned && i < 2; i++) {
		const struct thp_host_tuned *t = &p->tuned_writes[i];
		const char *name = strstr(t->option, "] ");
		finding_fix(f, "%s: %s=%s", t->source, name ? name + 2 : t->key,
			    t->over[0] ? t->over : t->running);
	}
	finding_fix(f, "tuned-adm profile %s   # apply the edited profile", p->tuned);
	finding_fix(f, "thp persist --check");
}

/* Adds what the journal H holds against the running values as evidence. */
static void ev_journal(struct thp_finding *f, const struct thp_host_journal *j)
{
	for (int i = 0; i < j->nchanged; i++) {
		const struct thp_host_diff *d = &j->changed[i];
		ev_text(f, d->source, d->key, "running '%s', was '%s' before it", d->running, d->other);
	}
}

/* What the findings of one journal say: the settings journal of set, bench
 * and ab, or the pools journal of 'thp hugetlb set'. */
struct journal_words {
	const char *path;                          /* "/run/thp/..." */
	const char *id_pending, *id_running, *id_damaged;
	const char *why_pending, *why_running, *why_damaged;
	const char *not_back;                      /* title of a pending one, after "did not finish: " */
	const char *changing;                      /* title of a running one, after "(pid N) " */
	const char *name;                          /* "journal", "pools journal" */
	const char *what, *same;                   /* the evidence when nothing differs now */
	const char *held, *reset;                  /* the fixes of a damaged one */
};

static const struct journal_words settings_journal = {
	.path = "/" THP_JOURNAL,
	.id_pending = "journal-pending",
	.id_running = "journal-running",
	.id_damaged = "journal-damaged",
	.why_pending = "thp journals every temporary change before it writes; this one was "
		       "killed before it put the settings back, so the host runs with values "
		       "nobody chose to keep. The next change by thp puts them back first.",
	.why_running = "While a measurement or a change runs, the values below are temporary: "
		       "it puts them back when it ends, also on SIGINT, SIGTERM and SIGHUP.",
	.why_damaged = "A journal holds the settings to put back after an interrupted change; "
		       "this one cannot be trusted, so 'thp restore' refuses it and settings it "
		       "held may still be changed.",
	.not_back = "THP settings it changed were not put back.",
	.changing = "is changing THP settings now.",
	.name = "journal",
	.what = "settings",
	.same = "back at the journaled values already",
	.held = "the settings it held",
	.reset = "thp set KEY=VALUE...",
};

static const struct journal_words pools_journal = {
	.path = "/" THP_POOLS_JOURNAL,
	.id_pending = "pools-journal-pending",
	.id_running = "pools-journal-running",
	.id_damaged = "pools-journal-damaged",
	.why_pending = "'thp hugetlb set' journals the pools before it resizes several; this "
		       "one was killed before it finished, so some pools may have their new "
		       "size and others their old one. 'thp restore' or the next 'thp hugetlb "
		       "set' puts them back first.",
	.why_running = "While 'thp hugetlb set' resizes several pools, their sizes are "
		       "changing; it puts them back if a pool fails.",
	.why_damaged = "A pools journal holds the sizes to put back after an interrupted 'thp "
		       "hugetlb set'; this one cannot be trusted, so thp refuses to resize "
		       "pools until it is removed.",
	.not_back = "huge page pools it changed were not put back.",
	.changing = "is resizing huge page pools now.",
	.name = "pools journal",
	.what = "pools",
	.same = "at the journaled sizes already",
	.held = "the pools it held",
	.reset = "thp hugetlb set SIZE=PAGES...",
};

/* The findings of journal J, worded by W; a journal of an earlier boot is
 * left to the caller. */
static void journal_findings(const struct thp_host_journal *j, const struct journal_words *w,
			     struct thp_findings *out)
{
	struct thp_finding *f;

	switch (j->status) {
	case THP_STATE_CURRENT:
		f = finding_add(out, w->id_pending, THP_SEV_WARN, w->why_pending);
		finding_title(f, "'%s' (pid %d) did not finish: %s", j->command, j->pid, w->not_back);
		ev_journal(f, j);
		if (!j->nchanged)
			ev_text(f, w->path, w->what, "%s", w->same);
		finding_fix(f, "thp restore");
		break;
	case THP_STATE_RUNNING:
		f = finding_add(out, w->id_running, THP_SEV_INFO, w->why_running);
		finding_title(f, "'%s' (pid %d) %s", j->command, j->pid, w->changing);
		ev_journal(f, j);
		finding_fix(f, "wait until pid %d ends; if it is killed with SIGKILL: thp restore", j->pid);
		break;
	case THP_STATE_DAMAGED:
		f = finding_add(out, w->id_damaged, THP_SEV_WARN, w->why_damaged);
		finding_title(f, "The %s %s is damaged.", w->name, w->path);
		if (j->line)
			ev_text(f, w->path, "line", "%d: %s", j->line, j->why);
		else
			ev_text(f, w->path, "file", "%s", j->why);
		finding_fix(f, "cat %s   # %s", w->path, w->held);
		finding_fix(f, "%s   # as they should be, then: rm %s", w->reset, w->path);
		break;
	default:
		break;
	}
}

void rule_pools_journal(const struct thp_host *h, struct thp_findings *out)
{
	journal_findings(&h->pools_journal, &pools_journal, out);
}

void rule_journal(const struct thp_host *h, struct thp_findings *out)
{
	const struct thp_host_journal *j = &h->journal;
	struct thp_finding *f;

	if (j->status != THP_STATE_OTHER_BOOT) {
		journal_findings(j, &settings_journal, out);
		return;
	}
	f = finding_add(out, "journal-stale", THP_SEV_INFO,
			"The kernel started with its own settings at boot: nothing in the journal "
			"applies any more.");
	finding_title(f, "A journal left by '%s' in an earlier boot is still in /" THP_JOURNAL ".", j->command);
	ev_text(f, "/" THP_JOURNAL, "written in boot", "%s", j->boot);
	ev_text(f, "/proc/sys/kernel/random/boot_id", "this boot", "%s", j->boot_now);
	finding_fix(f, "thp restore   # says so and removes it");
}
