/* SPDX-License-Identifier: GPL-2.0-or-later */
/* settings.c - the one table of THP settings (see settings.h) */
#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define U32 UINT32_MAX
#define SET (THP_SET | THP_PERSIST | THP_CAPTURE)
#define SHOWN THP_CAPTURE
#define I32 INT32_MAX
#define VMSET (SET | THP_NAMED)

/* In documentation order, which is also the order of status rows and of
 * writes within a place (places are written in enum order, sizes ascending). */
const struct thp_setting_desc thp_setting_descs[] = {
	{ THP_PLACE_TOP, THP_CHOICE, "enabled", 0, 0, "always madvise never", "transparent_hugepage",
	  "2.6.38", SET, "THP for anonymous memory on page fault" },
	{ THP_PLACE_TOP, THP_CHOICE, "defrag", 0, 0, "always defer defer+madvise madvise never", NULL,
	  "2.6.38", SET, "what a THP fault does when no huge block is free" },
	{ THP_PLACE_TOP, THP_CHOICE, "shmem_enabled", 0, 0, "always within_size advise never deny force",
	  "transparent_hugepage_shmem", "4.8", SET, "THP for tmpfs and shared anonymous memory" },
	{ THP_PLACE_TOP, THP_INT, "use_zero_page", 0, 1, "", NULL, "3.8", SET,
	  "a read fault maps the shared huge zero page" },
	{ THP_PLACE_TOP, THP_INT, "shrink_underused", 0, 1, "", NULL, "6.12", SET,
	  "split THPs that are mostly zero pages under memory pressure" },
	{ THP_PLACE_TOP, THP_INT, "anon_beside_full", 0, 0, "", NULL, NULL, SHOWN,
	  "anonymous THP beside a full mapping (kernel-specific)" },
	{ THP_PLACE_TOP, THP_INT, "hpage_pmd_size", 0, 0, "", NULL, "4.10", SHOWN,
	  "size of a PMD-mapped huge page in bytes" },
	{ THP_PLACE_KHUGEPAGED, THP_INT, "pages_to_scan", 1, U32, "", NULL, "2.6.38", SET,
	  "pages scanned in each pass" },
	{ THP_PLACE_KHUGEPAGED, THP_INT, "scan_sleep_millisecs", 0, U32, "", NULL, "2.6.38", SET,
	  "sleep between passes (0 keeps a CPU busy)" },
	{ THP_PLACE_KHUGEPAGED, THP_INT, "alloc_sleep_millisecs", 0, U32, "", NULL, "2.6.38", SET,
	  "wait after a failed huge page allocation" },
	{ THP_PLACE_KHUGEPAGED, THP_TEXT, "defrag", 0, 1, "", NULL, "2.6.38", SET,
	  "khugepaged may compact memory to get a huge page" },
	{ THP_PLACE_KHUGEPAGED, THP_INT, "max_ptes_none", 0, U32, "", NULL, "2.6.38", SET | THP_PTES,
	  "empty PTEs allowed in a range it collapses (511: any)" },
	{ THP_PLACE_KHUGEPAGED, THP_INT, "max_ptes_swap", 0, U32, "", NULL, "4.8", SET | THP_PTES,
	  "swapped-out PTEs allowed in a range it collapses" },
	{ THP_PLACE_KHUGEPAGED, THP_INT, "max_ptes_shared", 0, U32, "", NULL, "5.8", SET | THP_PTES,
	  "shared PTEs allowed in a range it collapses" },
	{ THP_PLACE_KHUGEPAGED, THP_INT, "full_scans", 0, 0, "", NULL, "2.6.38", SHOWN,
	  "complete passes over all registered memory since boot" },
	{ THP_PLACE_KHUGEPAGED, THP_INT, "pages_collapsed", 0, 0, "", NULL, "2.6.38", SHOWN,
	  "huge pages made by collapsing since boot" },
	{ THP_PLACE_SIZE, THP_CHOICE, "enabled", 0, 0, "always inherit madvise never", "thp_anon",
	  "6.8", SET, "THP of this size for anonymous memory" },
	{ THP_PLACE_SIZE, THP_CHOICE, "shmem_enabled", 0, 0, "always inherit within_size advise never",
	  "thp_shmem", "6.11", SET, "THP of this size for tmpfs and shared anonymous memory" },
	{ THP_PLACE_VM, THP_INT, "compaction_proactiveness", 0, 100, "", NULL, "5.9", VMSET,
	  "how hard kcompactd compacts in the background (0: off)" },
	{ THP_PLACE_VM, THP_INT, "watermark_scale_factor", 1, 3000, "", NULL, "4.6", VMSET,
	  "gap between watermarks in 1/10000 of a zone: when kswapd wakes" },
	{ THP_PLACE_VM, THP_INT, "watermark_boost_factor", 0, I32, "", NULL, "5.0", VMSET,
	  "extra reclaim after fragmenting events, in 1/10000 of high (0: off)" },
	{ THP_PLACE_VM, THP_INT, "min_free_kbytes", 0, I32, "", NULL, "2.6", VMSET,
	  "memory kept free for atomic allocations; sets the min watermark" },
	{ THP_PLACE_VM, THP_INT, "extfrag_threshold", 0, 1000, "", NULL, "2.6.35", VMSET,
	  "fragmentation index above which compaction is tried before reclaim" },
	{ THP_PLACE_VM, THP_INT, "compact_unevictable_allowed", 0, 1, "", NULL, "4.1", VMSET,
	  "compaction may move unevictable (mlocked) pages" },
	{ THP_PLACE_VM, THP_INT, "zone_reclaim_mode", 0, 7, "", NULL, "2.6.16", VMSET,
	  "reclaim on the local node before allocating on another (0: off)" },
};

const int thp_nsetting_descs = (int)(sizeof(thp_setting_descs) / sizeof(thp_setting_descs[0]));

static const struct {
	const char *prefix;
	const char *dir; /* NULL: one directory per page size */
} places[] = {
	[THP_PLACE_TOP] = { "", THP_SYSFS_DIR },
	[THP_PLACE_KHUGEPAGED] = { "khugepaged.", THP_SYSFS_DIR "/khugepaged" },
	[THP_PLACE_SIZE] = { "hugepages.", NULL },
	[THP_PLACE_VM] = { "vm.", THP_SYSCTL_DIR },
};

_Static_assert(sizeof(places) / sizeof(places[0]) == THP_PLACE_COUNT, "one row per place");

const char *thp_place_prefix(enum thp_place p)
{
	return places[p].prefix;
}

void thp_place_dir(enum thp_place p, uint64_t size, char *buf, size_t cap)
{
	if (places[p].dir)
		snprintf(buf, cap, "%s", places[p].dir);
	else
		snprintf(buf, cap, THP_SYSFS_DIR "/hugepages-%llukB", (unsigned long long)(size >> 10));
}

const struct thp_setting_desc *thp_setting_desc_find(enum thp_place p, const char *name, size_t len)
{
	for (int i = 0; i < thp_nsetting_descs; i++) {
		const struct thp_setting_desc *d = &thp_setting_descs[i];
		if (d->place == p && strlen(d->file) == len && strncmp(d->file, name, len) == 0)
			return d;
	}
	return NULL;
}

void thp_setting_desc_key(const struct thp_setting_desc *d, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s", places[d->place].prefix, d->place == THP_PLACE_SIZE ? "SIZE." : "",
		 d->file);
}

void thp_setting_expect(const struct thp_setting_desc *d, struct thp_setting *s)
{
	if (s->kind == THP_MISSING || s->kind == THP_ERROR || d->shows == THP_TEXT || s->kind == d->shows)
		return;
	s->kind = THP_ERROR;
	s->err = -EINVAL;
}

const char *thp_setting_meaning(const char *name, bool khugepaged)
{
	const struct thp_setting_desc *d =
		thp_setting_desc_find(khugepaged ? THP_PLACE_KHUGEPAGED : THP_PLACE_TOP, name, strlen(name));
	return d ? d->meaning : NULL;
}
