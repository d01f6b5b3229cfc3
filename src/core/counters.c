/* SPDX-License-Identifier: GPL-2.0-or-later */
/* counters.c - THP and compaction counters from /proc/vmstat, THP lines of /proc/meminfo */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct collect {
	struct thp_counter *v;
	int *n;
	bool (*want)(const char *key, size_t klen);
};

static bool starts(const char *key, size_t klen, const char *prefix)
{
	size_t n = strlen(prefix);
	return klen > n && strncmp(key, prefix, n) == 0;
}

static bool want_vmstat(const char *key, size_t klen)
{
	return starts(key, klen, "thp_") || starts(key, klen, "compact_") ||
	       starts(key, klen, "allocstall_") || (klen == 13 && strncmp(key, "pgscan_kswapd", 13) == 0) ||
	       (klen == 13 && strncmp(key, "pgscan_direct", 13) == 0);
}

static const char *const meminfo_keys[] = {
	"MemTotal", "AnonHugePages", "ShmemHugePages", "ShmemPmdMapped", "FileHugePages",
	"FilePmdMapped", "PageTables", "HugePages_Total", "HugePages_Free", "HugePages_Rsvd",
	"HugePages_Surp", "Hugepagesize", "Hugetlb",
};

static bool want_meminfo(const char *key, size_t klen)
{
	for (size_t i = 0; i < sizeof(meminfo_keys) / sizeof(meminfo_keys[0]); i++)
		if (strlen(meminfo_keys[i]) == klen && strncmp(meminfo_keys[i], key, klen) == 0)
			return true;
	return false;
}

static int collect(const char *key, size_t klen, uint64_t val, void *ctx)
{
	struct collect *c = ctx;

	struct thp_counter *slot = &c->v[*c->n];

	if (!c->want(key, klen) || klen >= THP_NAME_MAX || *c->n >= THP_COUNTERS_MAX)
		return 0;
	memcpy(slot->name, key, klen);
	slot->name[klen] = '\0';
	if (thp_counter_get(c->v, *c->n, slot->name, NULL))
		return 0; /* a repeated key keeps its first value */
	slot->val = val;
	(*c->n)++;
	return 0;
}

bool thp_counter_get(const struct thp_counter *v, int n, const char *name, uint64_t *val)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(v[i].name, name) == 0) {
			if (val)
				*val = v[i].val;
			return true;
		}
	}
	return false;
}

/* Reads FILE and collects the wanted keys with PARSE into V/N; returns 0 or -errno. */
static int read_counters(const struct thp_root *root, const char *file,
			 int (*parse)(const char *, thp_kv_fn, void *),
			 bool (*want)(const char *, size_t), struct thp_counter *v, int *n)
{
	struct collect c = { v, n, want };
	char *buf;
	int err = thp_read(root, file, &buf, NULL);

	if (err)
		return err;
	parse(buf, collect, &c);
	free(buf);
	return 0;
}

struct one_field {
	const char *name;
	uint64_t *val;
	bool found;
};

static int find_field(const char *key, size_t klen, uint64_t val, void *ctx)
{
	struct one_field *f = ctx;

	if (strlen(f->name) != klen || strncmp(f->name, key, klen) != 0)
		return 0;
	*f->val = val;
	f->found = true;
	return 1;
}

int thp_meminfo_get(const struct thp_root *root, const char *name, uint64_t *val)
{
	struct one_field f = { name, val, false };
	char *buf;
	int err = thp_read(root, "proc/meminfo", &buf, NULL);

	if (err)
		return err;
	thp_parse_meminfo(buf, find_field, &f);
	free(buf);
	return f.found ? 0 : -ENOENT;
}

int thp_vmstat_read(const struct thp_root *root, struct thp_counter *v, int *n)
{
	*n = 0;
	return read_counters(root, "proc/vmstat", thp_parse_vmstat, want_vmstat, v, n);
}

void thp_counters_read(const struct thp_root *root, struct thp_status *st)
{
	st->vmstat_err = thp_vmstat_read(root, st->vmstat, &st->nvmstat);
	st->meminfo_err = read_counters(root, "proc/meminfo", thp_parse_meminfo, want_meminfo,
					st->meminfo, &st->nmeminfo);
	st->tlb_err = thp_tlb_irqs_read(root, &st->tlb);
}

/* What each known counter counts, for help texts: /proc/vmstat fields, then
 * the files of hugepages-<size>kB/stats, then /proc/meminfo fields. */
static const char *const meanings[][2] = {
	{ "thp_fault_alloc", "huge pages allocated on a page fault" },
	{ "thp_fault_fallback", "page faults that wanted a huge page and fell back to small pages" },
	{ "thp_fault_fallback_charge", "THP faults that fell back because the memory cgroup charge failed" },
	{ "thp_collapse_alloc", "huge pages allocated by khugepaged to collapse a range" },
	{ "thp_collapse_alloc_failed", "khugepaged collapses given up because no huge page could be allocated" },
	{ "thp_file_alloc", "file or shmem huge pages allocated" },
	{ "thp_file_fallback", "file or shmem huge page allocations that fell back to small pages" },
	{ "thp_file_fallback_charge", "file huge page allocations that fell back because the memory cgroup charge failed" },
	{ "thp_file_mapped", "file huge pages mapped into user address space by a PMD" },
	{ "thp_split", "huge pages split into small pages (kernels before 4.5)" },
	{ "thp_split_page", "huge pages split into small pages" },
	{ "thp_split_page_failed", "huge page splits that failed (the page was pinned or busy)" },
	{ "thp_deferred_split_page", "partly unmapped huge pages queued to be split under memory pressure" },
	{ "thp_underused_split_page", "huge pages split because most of them were zero-filled (shrink_underused)" },
	{ "thp_split_pmd", "PMD mappings of huge pages split into PTE mappings" },
	{ "thp_split_pud", "PUD mappings (1 GiB DAX) split" },
	{ "thp_scan_exceed_none_pte", "collapses khugepaged skipped: more empty PTEs than max_ptes_none" },
	{ "thp_scan_exceed_swap_pte", "collapses khugepaged skipped: more swapped PTEs than max_ptes_swap" },
	{ "thp_scan_exceed_share_pte", "collapses khugepaged skipped: more shared PTEs than max_ptes_shared" },
	{ "thp_zero_page_alloc", "huge zero pages allocated (one serves every read fault)" },
	{ "thp_zero_page_alloc_failed", "huge zero page allocations that failed" },
	{ "thp_swpout", "huge pages swapped out whole" },
	{ "thp_swpout_fallback", "huge pages split before being swapped out" },
	{ "thp_migration_success", "huge pages migrated whole" },
	{ "thp_migration_fail", "huge page migrations that failed" },
	{ "thp_migration_split", "huge pages split to be migrated" },
	{ "compact_stall", "direct compactions: an allocation stalled to compact memory" },
	{ "compact_fail", "direct compactions that did not free a large enough block" },
	{ "compact_success", "direct compactions that freed a large enough block" },
	{ "compact_migrate_scanned", "pages the compaction migration scanner looked at" },
	{ "compact_free_scanned", "pages the compaction free scanner looked at" },
	{ "compact_isolated", "pages isolated for migration by compaction" },
	{ "compact_daemon_wake", "times kcompactd woke up to compact in the background" },
	{ "pgscan_kswapd", "pages kswapd scanned to reclaim memory in the background" },
	{ "pgscan_direct", "pages scanned by allocating threads reclaiming memory themselves" },
	{ "allocstall_dma", "times an allocation in the DMA zone stalled in direct reclaim" },
	{ "allocstall_dma32", "times an allocation in the DMA32 zone stalled in direct reclaim" },
	{ "allocstall_normal", "times an allocation in the Normal zone stalled in direct reclaim" },
	{ "allocstall_movable", "times an allocation in the Movable zone stalled in direct reclaim" },
	{ "allocstall_device", "times an allocation in the Device zone stalled in direct reclaim" },
	{ "compact_daemon_migrate_scanned", "pages the migration scanner of kcompactd looked at" },
	{ "compact_daemon_free_scanned", "pages the free scanner of kcompactd looked at" },
	{ "compact_pages_moved", "pages moved by compaction (kernels before 3.8)" },
	{ "compact_pagemigrate_failed", "page migrations that failed during compaction (kernels before 3.8)" },
	{ "compact_blocks_moved", "page blocks compaction moved pages in (kernels before 3.8)" },
	{ "anon_fault_alloc", "anonymous huge pages of this size allocated on a page fault" },
	{ "anon_fault_fallback", "page faults that wanted this size and fell back to a smaller one" },
	{ "anon_fault_fallback_charge", "faults of this size that fell back because the memory cgroup charge failed" },
	{ "zswpout", "huge pages of this size stored in zswap whole" },
	{ "swpin", "huge pages of this size swapped in whole" },
	{ "swpin_fallback", "swap-ins of this size that fell back to smaller pages" },
	{ "swpin_fallback_charge", "swap-ins of this size that fell back because the memory cgroup charge failed" },
	{ "swpout", "huge pages of this size swapped out whole" },
	{ "swpout_fallback", "huge pages of this size split before being swapped out" },
	{ "shmem_alloc", "shmem huge pages of this size allocated" },
	{ "shmem_fallback", "shmem allocations of this size that fell back to smaller pages" },
	{ "shmem_fallback_charge", "shmem allocations of this size that fell back because the memory cgroup charge failed" },
	{ "split", "huge pages of this size split into smaller ones" },
	{ "split_failed", "splits of huge pages of this size that failed" },
	{ "split_deferred", "partly unmapped huge pages of this size queued to be split" },
	{ "nr_anon", "anonymous huge pages of this size in memory now" },
	{ "nr_anon_partially_mapped", "anonymous huge pages of this size that are only partly mapped now" },
	{ "MemTotal", "usable RAM" },
	{ "AnonHugePages", "anonymous memory mapped by PMD-sized huge pages (THP)" },
	{ "ShmemHugePages", "shmem and tmpfs memory in huge pages" },
	{ "ShmemPmdMapped", "shmem memory mapped into user space by PMD-sized huge pages" },
	{ "FileHugePages", "file page cache in huge pages" },
	{ "FilePmdMapped", "file page cache mapped into user space by PMD-sized huge pages" },
	{ "PageTables", "memory used by page tables" },
	{ "HugePages_Total", "static huge pages of the default size in the pool" },
	{ "HugePages_Free", "static huge pages of the default size nobody has faulted in" },
	{ "HugePages_Rsvd", "free static huge pages promised to a mapping" },
	{ "HugePages_Surp", "static huge pages above the pool size (overcommit)" },
	{ "Hugepagesize", "default static huge page size" },
	{ "Hugetlb", "memory taken by the static huge page pools of every size" },
};

const char *thp_counter_meaning(const char *name)
{
	for (size_t i = 0; i < sizeof(meanings) / sizeof(meanings[0]); i++)
		if (strcmp(meanings[i][0], name) == 0)
			return meanings[i][1];
	return NULL;
}
