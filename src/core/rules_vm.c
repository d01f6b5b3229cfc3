/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rules_vm.c - doctor rules about the compaction and watermark sysctls */
#include "rules.h"
#include "settings.h"
#include "vm.h"

#include <stdio.h>
#include <string.h>

#define SRC_VM "/" THP_SYSCTL_DIR "/"
/* Seconds of huge page faults that kswapd should keep free memory for ahead
 * of them, for the suggested watermark_scale_factor. */
#define AHEAD_SECS 10
#define WSF_MAX 1000

/* Free blocks of PMD order or more in the Normal zones; false when unknown. */
static bool pmd_blocks_free(const struct thp_host *h, uint64_t *free)
{
	int order = thp_pmd_order(h->st->pmd_size, h->st->page_size), n = 0;

	*free = 0;
	if (!h->buddy || h->buddy_err || order < 0)
		return false;
	for (int i = 0; i < h->buddy->nzones; i++)
		if (strcmp(h->buddy->zones[i].zone, "Normal") == 0) {
			*free += thp_buddy_free_blocks(&h->buddy->zones[i], order);
			n++;
		}
	return n > 0;
}

/* The watermark_scale_factor whose gap (that share of RAM, in 1/10000) holds
 * AHEAD_SECS of the huge page faults seen over the window; 0 when there were
 * none or the figures are unknown. */
static uint64_t wsf_for_faults(const struct thp_host *h, double *faults_per_s)
{
	uint64_t alloc = 0, fb = 0, total;
	double secs = window_secs(h), bytes;

	*faults_per_s = 0;
	if (secs <= 0 || !meminfo(h, "MemTotal", &total) || !total || !h->st->pmd_size ||
	    !vm_delta(h, "thp_fault_alloc", &alloc))
		return 0;
	vm_delta(h, "thp_fault_fallback", &fb);
	*faults_per_s = (double)(alloc + fb) / secs;
	bytes = *faults_per_s * AHEAD_SECS * (double)h->st->pmd_size;
	if (bytes <= 0)
		return 0;
	bytes = bytes * 10000 / (double)total + 1;
	return bytes > WSF_MAX ? WSF_MAX : (uint64_t)bytes;
}

/* Adds the activity of kcompactd, kswapd and direct reclaim over the window. */
static void ev_reclaim(struct thp_finding *f, const struct thp_host *h)
{
	double secs = window_secs(h);
	uint64_t v;

	if (secs <= 0)
		return;
	if (vm_delta(h, "compact_daemon_wake", &v))
		ev_rate(f, "/proc/vmstat", "kcompactd wake-ups (compact_daemon_wake)", (double)v / secs);
	if (vm_delta(h, "pgscan_kswapd", &v))
		ev_rate(f, "/proc/vmstat", "pages kswapd scanned (pgscan_kswapd)", (double)v / secs);
}

void rule_proactive_off(const struct thp_host *h, struct thp_findings *out)
{
	uint64_t pro, stall = 0, free = 0, wsf, want;
	double secs = window_secs(h), rate = 0, faults;
	bool stalling, no_blocks = false;
	struct thp_finding *f;

	if (!thp_vm_num(h->st, "compaction_proactiveness", &pro) || pro != 0)
		return;
	if (vm_delta(h, "compact_stall", &stall) && secs > 0)
		rate = (double)stall / secs;
	stalling = h->before ? rate >= 0.1 : rate >= 1.0 / 60;
	if (pmd_blocks_free(h, &free))
		no_blocks = free == 0 && (word_is(thp_status_pmd_policy(h->st), "always") ||
					  word_is(thp_status_pmd_policy(h->st), "madvise"));
	if (!stalling && !no_blocks)
		return;
	f = finding_add(out, "compaction-proactive-off", THP_SEV_WARN,
			"With compaction_proactiveness at 0 kcompactd only compacts when an "
			"allocation has already failed, so threads that want a huge page do the "
			"compaction themselves and wait for it. Proactive compaction keeps the "
			"fragmentation of each node below a threshold in the background instead.");
	finding_title(f, "Background compaction is off (vm.compaction_proactiveness=0) while %s.",
		      stalling ? "threads stall in direct compaction" : "no free huge-page-sized block is left");
	ev_count(f, SRC_VM "compaction_proactiveness", "compaction_proactiveness", pro);
	if (stall) {
		ev_count(f, "/proc/vmstat", h->before ? "compact_stall (sample)" : "compact_stall", stall);
		ev_rate(f, "", "stall rate", rate);
	}
	ev_window(f, h);
	if (pmd_blocks_free(h, &free))
		ev_count(f, "/proc/buddyinfo", "free huge-page-sized blocks in Normal zones", free);
	ev_reclaim(f, h);
	finding_fix(f, "thp set vm.compaction_proactiveness=20   # the kernel's default");
	want = wsf_for_faults(h, &faults);
	if (!thp_vm_num(h->st, "watermark_scale_factor", &wsf) || want <= wsf) {
		finding_fix(f, "thp persist vm.compaction_proactiveness=20");
		return;
	}
	ev_count(f, SRC_VM "watermark_scale_factor", "watermark_scale_factor", wsf);
	ev_rate(f, "/proc/vmstat", "huge page faults (thp_fault_alloc + thp_fault_fallback)", faults);
	finding_fix(f, "thp set vm.watermark_scale_factor=%llu   # kswapd keeps %d s of these faults free ahead",
		    (unsigned long long)want, AHEAD_SECS);
	finding_fix(f, "thp persist vm.compaction_proactiveness=20 vm.watermark_scale_factor=%llu",
		    (unsigned long long)want);
}

void rule_min_free_high(const struct thp_host *h, struct thp_findings *out)
{
	struct thp_min_free m;
	uint64_t kb, total;
	struct thp_finding *f;

	if (!thp_vm_num(h->st, "min_free_kbytes", &kb) || !meminfo(h, "MemTotal", &total) || !total ||
	    !thp_min_free_default(h->st, &m) || kb <= 4 * m.kb || (kb << 10) * 100 < total ||
	    (kb << 10) >= total) /* more than all memory: figures of no real host */
		return;
	f = finding_add(out, "min-free-high", (kb << 10) * 20 >= total ? THP_SEV_WARN : THP_SEV_INFO,
			"The kernel keeps min_free_kbytes free for atomic allocations and sets the "
			"low and high watermarks above it, so kswapd reclaims page cache and swaps "
			"earlier to keep that much (and more) free: memory that applications and "
			"the cache cannot use. THP already raises it at boot (khugepaged asks for "
			"11 pageblocks per zone); a larger reserve does not make huge blocks.");
	finding_title(f, "vm.min_free_kbytes holds back %.1f%% of RAM, %llu times what the kernel would choose.",
		      100.0 * (double)(kb << 10) / (double)total, (unsigned long long)(kb / m.kb));
	ev_bytes(f, SRC_VM "min_free_kbytes", "min_free_kbytes", kb << 10);
	ev_bytes(f, "/proc/meminfo", "MemTotal", total);
	ev_bytes(f, "", "the kernel's own value (estimated from MemTotal and zones)", m.kb << 10);
	ev_bytes(f, "", "held back beyond it", (kb - m.kb) << 10);
	finding_fix(f, "thp set vm.min_free_kbytes=%llu   # the kernel's own value", (unsigned long long)m.kb);
	finding_fix(f, "grep -rn min_free_kbytes /etc/sysctl.conf /etc/sysctl.d   # where boot raises it");
}
