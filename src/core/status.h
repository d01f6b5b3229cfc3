/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status.h - the model of a host's THP state, as read from one root */
#ifndef THP_STATUS_H
#define THP_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#include "interrupts.h"
#include "parse.h"
#include "proc.h"
#include "root.h"
#include "tlbreach.h"

#define THP_NAME_MAX 48
#define THP_SETTINGS_MAX 48
#define THP_SIZES_MAX 24
#define THP_STATS_MAX 40
#define THP_COUNTERS_MAX 96
#define THP_BOOT_MAX 16
#define THP_VM_MAX 8

enum thp_kind {
	THP_MISSING, /* the kernel has no such file */
	THP_ERROR,   /* the file exists but could not be read or parsed: see err */
	THP_CHOICE,  /* a bracketed choice list */
	THP_INT,     /* an unsigned integer */
	THP_TEXT,    /* anything else, shown as text */
};

/* One sysfs file, classified by its content. */
struct thp_setting {
	char name[THP_NAME_MAX];
	enum thp_kind kind;
	int err; /* negative errno for THP_ERROR */
	struct thp_choice choice;
	uint64_t num;
	char text[64];
};

struct thp_counter {
	char name[THP_NAME_MAX];
	uint64_t val;
};

/* One hugepages-<size>kB directory (mTHP, Linux 6.8+). */
struct thp_size {
	uint64_t bytes;
	struct thp_setting enabled;       /* THP_MISSING when the size has no anon control */
	struct thp_setting shmem_enabled; /* THP_MISSING before per-size shmem control */
	const char *anon_effective;       /* after resolving "inherit"; NULL without control */
	const char *shmem_effective;
	int nstats;
	int stats_err; /* negative errno when stats/ could not be listed */
	struct thp_counter stats[THP_STATS_MAX];
};

struct thp_boot_param {
	char name[32];
	char value[160]; /* empty for a flag without value */
};

/* Summary of a scan of every process's smaps_rollup. */
struct thp_procs {
	bool scanned;       /* false when skipped (nothing PMD-mapped system-wide) or ERR */
	int err;            /* -errno when /proc could not be listed to its end, else 0 */
	int with_huge;      /* processes with AnonHugePages > 0 */
	int readable;
	struct thp_denied unreadable; /* permission denied */
	uint64_t anon_huge; /* sum of AnonHugePages over readable processes */
};

struct thp_status {
	char release[128];
	int release_err;
	char hostname[72];  /* /proc/sys/kernel/hostname; "" when unknown */
	int kmajor, kminor; /* -1 when unknown */

	const char *dir;    /* THP sysfs directory found, relative to the root; NULL: none */
	bool redhat;        /* RHEL 6 redhat_transparent_hugepage */
	uint64_t pmd_size;  /* 0 when hpage_pmd_size is absent */
	uint64_t page_size; /* 0 when unknown */

	int nsettings;
	struct thp_setting settings[THP_SETTINGS_MAX];
	int nsizes;
	int sizes_err;
	struct thp_size sizes[THP_SIZES_MAX];
	int nkhugepaged;
	int khugepaged_err;
	struct thp_setting khugepaged[THP_SETTINGS_MAX];

	int nvm;                  /* compaction and watermark sysctls (vm.h), table order */
	struct thp_setting vm[THP_VM_MAX];
	int nzones;               /* populated zones up to Normal (buddyinfo); 0: unknown */

	int vmstat_err;
	int nvmstat;
	struct thp_counter vmstat[THP_COUNTERS_MAX];
	int meminfo_err;
	int nmeminfo;
	struct thp_counter meminfo[THP_COUNTERS_MAX];
	int tlb_err;              /* 0, or -errno of /proc/interrupts */
	struct thp_tlb_irqs tlb;  /* TLB shootdowns; tlb.present false without a TLB row */
	struct thp_tlb_reach reach; /* data TLB sizes of the CPU */

	int cmdline_err;
	int nboot;
	struct thp_boot_param boot[THP_BOOT_MAX];

	struct thp_procs procs;
};

/* Reads the whole THP state below ROOT into ST. Missing files are recorded as
 * absent features, unreadable ones with their errno; returns 0 or -ENOMEM. */
int thp_status_read(const struct thp_root *root, struct thp_status *st, bool scan_procs);

/* Whether ST's /proc/meminfo shows PMD-mapped THP (anonymous, shmem or file),
 * or cannot tell: only then does thp_status_read() scan the processes, since
 * a zero there answers "who holds huge pages" for every process. */
bool thp_status_holds_pmd(const struct thp_status *st);

/* Counts into P a process's smaps_rollup read: ERR its error (a denial is
 * counted unreadable, any other left out), R its figures when ERR is 0. */
void thp_procs_add(struct thp_procs *p, pid_t pid, int err, const struct thp_rollup *r);

/* The host name of ROOT (/proc/sys/kernel/hostname, the recorded one below a
 * tree) into BUF (CAP bytes), without its newline; "" when unknown. */
void thp_hostname(const struct thp_root *root, char *buf, size_t cap);

/* Reads into ST only what decides whether a mapping may get THP: the kernel
 * release, the page and PMD sizes and the global and per-size policies (no
 * counters, per-size stats, khugepaged, vm knobs, boot options or TLB
 * facts): about 25 files where thp_status_read() reads about 230. */
void thp_status_read_policy(const struct thp_root *root, struct thp_status *st);

/* The THP directory below ROOT: the upstream one, or RHEL 6's (*REDHAT
 * true; REDHAT may be NULL). NULL when the kernel has no THP (built without
 * CONFIG_TRANSPARENT_HUGEPAGE). */
const char *thp_policy_dir(const struct thp_root *root, bool *redhat);

/* Re-reads what moves in ST, a thp_status_read() of the same ROOT: the
 * counters of /proc/vmstat, /proc/meminfo and the TLB shootdown interrupts,
 * the per-size stats files named in STATS (NSTATS of them) and the
 * khugepaged files named in KH (NKH), by the paths the first read found
 * (no directory is listed again). Everything else stays as it was read. */
void thp_status_refresh(const struct thp_root *root, struct thp_status *st, const char *const *stats,
			int nstats, const char *const *kh, int nkh);

/* Base page size from the reader's own auxiliary vector (AT_PAGESZ), which a
 * capture records as proc/self/auxv; without it, from hpage_pmd_size
 * (thp_page_size_of_pmd). Returns 0 when neither is there. */
uint64_t thp_page_size(const struct thp_root *root);

/* The base page size whose page tables make a PMD mapping PMD_SIZE bytes: a
 * table of 64-bit entries fills one page, so PMD = base * base / 8 (4 KiB ->
 * 2 MiB, 16 KiB -> 32 MiB, 64 KiB -> 512 MiB). Returns 0 for other sizes. */
uint64_t thp_page_size_of_pmd(uint64_t pmd_size);

/* Page table entries one PMD mapping replaces (PMD size / base page size:
 * 512 with 4 KiB pages, 2048 with 16 KiB, 8192 with 64 KiB); 0 when either
 * size is unknown. The khugepaged max_ptes_* limits run up to this minus one. */
uint64_t thp_status_ptes_per_pmd(const struct thp_status *st);

/* Reads and classifies one sysfs file into S (name taken from NAME). */
void thp_setting_read(const struct thp_root *root, const char *rel, const char *name,
		      struct thp_setting *s);

/* Looks a setting up by name; NULL when absent. */
const struct thp_setting *thp_setting_find(const struct thp_setting *v, int n, const char *name);

/* The selected word of a choice setting, or NULL when it is not a readable choice. */
const char *thp_setting_word(const struct thp_setting *s);

/* What the counter NAME of /proc/vmstat, hugepages-<size>kB/stats or
 * /proc/meminfo counts, in a few words; NULL for a name thp does not know. */
const char *thp_counter_meaning(const char *name);

/* Value of a counter by name; false when the kernel lacks it. */
bool thp_counter_get(const struct thp_counter *v, int n, const char *name, uint64_t *val);

/* Reads field NAME of /proc/meminfo below ROOT (bytes for a kB field).
 * Returns 0, -ENOENT when the kernel lacks it, or -errno of the read. */
int thp_meminfo_get(const struct thp_root *root, const char *name, uint64_t *val);

/* Top-level setting or khugepaged tunable lookups on the status. */
const struct thp_setting *thp_status_setting(const struct thp_status *st, const char *name);

/* The size entry whose bytes equal PMD size, or NULL. */
const struct thp_size *thp_status_pmd_size(const struct thp_status *st);

/* Reads the counters of every size (hugepages-<size>kB/stats) into ST, which
 * thp_status_read_policy() leaves out. */
void thp_status_read_size_stats(const struct thp_root *root, struct thp_status *st);

/* Bytes in anonymous mTHP folios (hugepages-<size>kB/stats/nr_anon, Linux
 * 6.13+) of the sizes other than the PMD size whose effective anonymous
 * policy is POLICY ("never": folios made while the size was enabled; NULL:
 * of every such size); 0 where the kernel does not count them. smaps shows
 * none of this memory. */
uint64_t thp_status_mthp_held(const struct thp_status *st, const char *policy);

/* Anonymous THP policy that applies to PMD-sized pages ("always", "madvise",
 * "never"), after resolving inherit; NULL when it cannot be known. */
const char *thp_status_pmd_policy(const struct thp_status *st);

/* One-line meaning of a known setting of ST, or NULL; for max_ptes_none it
 * names the value that allows any (from the page sizes), written into BUF. */
const char *thp_status_setting_meaning(const struct thp_status *st, const char *name, bool khugepaged,
				       char *buf, size_t cap);

#endif
