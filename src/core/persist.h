/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.h - text forms of a set of THP settings at boot: tmpfiles.d lines,
 * a systemd unit, kernel command-line options (the saved state is in
 * state.h). Each parser takes a buffer; each formatter returns a malloc'd
 * string. */
#ifndef THP_PERSIST_H
#define THP_PERSIST_H

#include <stdbool.h>
#include <sys/types.h>

#include "keys.h"
#include "pools.h"
#include "root.h"

/* Collects the 'w' lines of a tmpfiles.d file that write a THP setting or
 * size a static huge page pool (pools.h) into L,
 * first one per path winning as in systemd-tmpfiles; other lines are ignored.
 * Returns the number of THP lines. */
int thp_tmpfiles_parse(const char *buf, struct thp_kvlist *l);

/* The key of the setting or pool that writing PATH (absolute or below the
 * root: a sysfs or /proc/sys file) sets, into KEY. Returns 0 or -ENOENT. */
int thp_boot_path_key(const char *path, char *key, size_t cap);

/* A tmpfiles.d drop-in writing L in its order. */
char *thp_tmpfiles_format(const struct thp_kvlist *l);

/* Collects the assignments of a sysctl.d file ("vm.min_free_kbytes = 65536",
 * "-vm/zone_reclaim_mode=0") that set a setting of the table or
 * vm.nr_hugepages into L, a later
 * one winning as in systemd-sysctl; other lines are ignored. Returns the
 * number of such lines. */
int thp_sysctl_parse(const char *buf, struct thp_kvlist *l);

/* A sysctl.d drop-in setting the /proc/sys keys of L in its order. */
char *thp_sysctl_format(const struct thp_kvlist *l);

/* Collects "echo VALUE > /sys/kernel/mm/transparent_hugepage/..." commands of a
 * unit or script (and those that size a pool) into L, a later one winning. Returns the number found. */
int thp_unit_parse(const char *buf, struct thp_kvlist *l);

/* What a capture records of unit BUF (the lines that thp_unit_parse reads,
 * nothing that may hold a secret): on each line where thp_unit_parse finds
 * writes, only those ("ExecStart=/bin/sh -c 'echo VALUE > PATH; ...'");
 * section headers ("[Service]") as they are; THP_PERSIST_MARK for a comment
 * that holds it; every other line (Environment=, other commands) left empty,
 * so that lines keep their numbers. It parses as BUF does. Sets *FOUND to the
 * number of writes. Malloc'd; NULL when out of memory. */
char *thp_unit_record(const char *buf, int *found);

/* A systemd oneshot unit writing L in its order. */
char *thp_unit_format(const struct thp_kvlist *l);

/* Kernel command-line options for L: transparent_hugepage=, transparent_hugepage_shmem=,
 * thp_anon=, thp_shmem= (one per value, never joined with ';'). Keys with no boot option (defrag, khugepaged.*, ...)
 * go to REST. Returns "" when nothing of L can be set at boot. */
char *thp_cmdline_format(const struct thp_kvlist *l, struct thp_kvlist *rest);

/* Settings that the THP options of CMDLINE set, with thp_anon=/thp_shmem=
 * ranges expanded over the NSIZES page sizes of SIZES. Returns the number of
 * THP options found. */
int thp_cmdline_parse(const char *cmdline, const uint64_t *sizes, int nsizes, struct thp_kvlist *l);

/* What sets the N pools V of kind B at boot: the text of the sysctl.d or
 * tmpfiles.d file, or the command-line options ("" when none). Malloc'd;
 * NULL when out of memory. */
char *thp_pools_format(const struct thp_pool *v, int n, uint64_t default_size, enum thp_pool_boot b);

/* What a file that 'thp persist' wrote holds (in its first comment). */
#define THP_PERSIST_MARK "written by 'thp persist"

/* Where 'thp persist' writes below the root, by default (sysctl.d: vm.* keys). */
#define THP_TMPFILES_DIR "etc/tmpfiles.d"
#define THP_TMPFILES_NAME "thp.conf"
#define THP_UNIT_DIR "etc/systemd/system"
#define THP_UNIT_NAME "thp.service"
#define THP_UNIT_WANTS "basic.target.wants" /* the link that enables the unit */
#define THP_SYSCTLD_DIR "etc/sysctl.d"
#define THP_SYSCTLD_NAME "90-thp.conf"

/* The files 'thp persist' writes. */
enum thp_persist_kind { THP_PERSIST_TMPFILES, THP_PERSIST_UNIT, THP_PERSIST_SYSCTL };

/* The journal of a change of several files that boot applies
 * (THP_BOOT_JOURNAL): each file as it was, written before the first one
 * changes, so that a change killed between two files is put back by the next.
 *   thp-boot 1
 *   owner 4242
 *   command thp hugetlb persist 2M=512 32M=4
 *   file etc/sysctl.d/90-thp-hugetlb.conf 154    154 bytes of the file follow, then a newline
 *   absent etc/tmpfiles.d/thp-hugetlb.conf        the file was not there
 *   end 2 2854106124                              files, POSIX cksum of every byte before */
#define THP_BOOT_FILES_MAX 4
struct thp_boot_journal {
	pid_t owner;
	char command[256];
	int n;
	struct {
		char path[256];   /* below the root */
		const char *text; /* NUL-terminated; NULL: absent */
	} v[THP_BOOT_FILES_MAX];
};

/* The file form of J; malloc'd, NULL when out of memory. */
char *thp_boot_journal_format(const struct thp_boot_journal *j);

/* Parses BUF into J, whose texts point into BUF (their newlines become NULs).
 * Returns 0, or -EINVAL with the 1-based line at fault in *LINE (0: the file
 * as a whole: no end line). */
int thp_boot_journal_parse(char *buf, struct thp_boot_journal *j, int *line);

/* A file that boot applies (sysctl.d, tmpfiles.d), below the root, and what
 * a persisting command makes of it. */
struct thp_boot_file {
	const char *dir, *name; /* below the root */
	const char *mark;       /* what a file that thp wrote holds */
	char *text;             /* the new content (malloc'd); NULL: the file goes, when thp wrote it */
	char *cur;              /* as it is (malloc'd, by thp_boot_files_read); NULL: absent */
	char shown[4200];       /* its path as shown */
	enum { THP_BOOT_KEPT, THP_BOOT_WRITTEN, THP_BOOT_REMOVED } done;
};

/* Reads the N files F below ROOT as they are. */
void thp_boot_files_read(const struct thp_root *root, struct thp_boot_file *f, int n);

/* True when boot file F is there and thp did not write it. */
bool thp_boot_file_theirs(const struct thp_boot_file *f);

/* Frees the texts of the N files F. */
void thp_boot_files_free(struct thp_boot_file *f, int n);

#define THP_SOURCES_MAX 32
#define THP_WRITERS_MAX 16

/* A setting that tuned's active profile writes when tuned starts at boot,
 * after the sources below persisted another value for it, or to a value
 * that cannot be known here. */
struct thp_second_writer {
	char key[THP_KEY_MAX];
	char value[THP_VALUE_MAX]; /* what tuned writes; "" when unknown */
	const char *unknown;       /* why it cannot be known ("uses a variable"); NULL: known */
	char option[160];          /* as the profile writes it: "[vm] transparent_hugepages" */
	int source, line;          /* tuned's profile file (index into sources), line there */
	char over[THP_VALUE_MAX];  /* the value it overwrites */
	int over_source, over_line; /* where that one is persisted; over_source -1: nowhere */
};

/* What the host applies at boot: the effective value of every persisted
 * setting and the file it comes from. Boot applies the kernel command line,
 * then sysctl.d (systemd-sysctl), then tmpfiles.d (systemd-tmpfiles-setup), then enabled units,
 * then tuned's active profile (tuned.service, when enabled), so a later
 * source overrides an earlier one; but tuned applies the sysctl.d files in
 * /etc and /run again after its sysctl values (reapply_sysctl), so those
 * keep theirs. */
struct thp_persisted {
	int nsources;
	char sources[THP_SOURCES_MAX][128]; /* "/etc/tmpfiles.d/thp.conf", "/proc/cmdline" */
	struct thp_kvlist values;           /* .line is the line in its source (0: none) */
	int source_of[THP_KV_MAX];          /* index into sources for each value */
	int nidle;
	char idle[4][128]; /* units that set THP settings but are not enabled: boot skips them */
	uint64_t pool_default; /* the default huge page size: vm.nr_hugepages is its pool */
	char tuned[256];       /* tuned's profiles that boot applies ("": none) */
	char tuned_note[320];  /* why boot applies none of them or what was left out; "" */
	int tuned_from;        /* the sources from this index on are tuned's profile files */
	int nwriters;
	struct thp_second_writer writers[THP_WRITERS_MAX];
};

/* Reads the THP settings and static huge page pools persisted below ROOT:
 * sysctl.d files (the same directories; across names the last assignment
 * wins), tmpfiles.d files in /etc, /run, /usr/local/lib and /usr/lib (same
 * name: the first directory wins; across names: the first in name order
 * wins), enabled units in /etc/systemd/system, and /proc/cmdline with
 * per-size ranges over SIZES, and tuned's active profile (tuned.h) when
 * tuned.service is enabled. POOL_DEFAULT is the default huge page size
 * (0: unknown), whose pool vm.nr_hugepages sizes. Unreadable files are skipped. */
void thp_persisted_read(const struct thp_root *root, const uint64_t *sizes, int nsizes,
			uint64_t pool_default, struct thp_persisted *p);

/* True when source SRC of P is a profile file of tuned's. */
bool thp_persisted_by_tuned(const struct thp_persisted *p, int src);

/* How to add options to the kernel command line (GRUB, grubby), one paragraph. */
extern const char thp_bootloader_help[];

#endif
