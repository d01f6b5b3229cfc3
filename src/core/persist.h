/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.h - text forms of a set of THP settings at boot: tmpfiles.d lines,
 * a systemd unit, kernel command-line options (the saved state is in
 * state.h). Each parser takes a buffer; each formatter returns a malloc'd
 * string. */
#ifndef THP_PERSIST_H
#define THP_PERSIST_H

#include <stdbool.h>

#include "keys.h"
#include "root.h"

/* Collects the 'w' lines of a tmpfiles.d file that write a THP setting into L,
 * first one per path winning as in systemd-tmpfiles; other lines are ignored.
 * Returns the number of THP lines. */
int thp_tmpfiles_parse(const char *buf, struct thp_kvlist *l);

/* A tmpfiles.d drop-in writing L in its order. */
char *thp_tmpfiles_format(const struct thp_kvlist *l);

/* Collects the assignments of a sysctl.d file ("vm.min_free_kbytes = 65536",
 * "-vm/zone_reclaim_mode=0") that set a setting of the table into L, a later
 * one winning as in systemd-sysctl; other lines are ignored. Returns the
 * number of such lines. */
int thp_sysctl_parse(const char *buf, struct thp_kvlist *l);

/* A sysctl.d drop-in setting the /proc/sys keys of L in its order. */
char *thp_sysctl_format(const struct thp_kvlist *l);

/* Collects "echo VALUE > /sys/kernel/mm/transparent_hugepage/..." commands of a
 * unit or script into L, a later one winning. Returns the number found. */
int thp_unit_parse(const char *buf, struct thp_kvlist *l);

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

/* Where 'thp persist' writes below the root, by default (sysctl.d: vm.* keys). */
#define THP_TMPFILES_DIR "etc/tmpfiles.d"
#define THP_TMPFILES_NAME "thp.conf"
#define THP_UNIT_DIR "etc/systemd/system"
#define THP_UNIT_NAME "thp.service"
#define THP_UNIT_WANTS "basic.target.wants" /* the link that enables the unit */
#define THP_SYSCTLD_DIR "etc/sysctl.d"
#define THP_SYSCTLD_NAME "90-thp.conf"

#define THP_SOURCES_MAX 32

/* What the host applies at boot: the effective value of every persisted
 * setting and the file it comes from. Boot applies the kernel command line,
 * then sysctl.d (systemd-sysctl), then tmpfiles.d (systemd-tmpfiles-setup), then enabled units, so a later
 * source overrides an earlier one. */
struct thp_persisted {
	int nsources;
	char sources[THP_SOURCES_MAX][128]; /* "/etc/tmpfiles.d/thp.conf", "/proc/cmdline" */
	struct thp_kvlist values;           /* .line is the line in its source (0: none) */
	int source_of[THP_KV_MAX];          /* index into sources for each value */
	int nidle;
	char idle[4][128]; /* units that set THP settings but are not enabled: boot skips them */
};

/* Reads the THP settings persisted below ROOT: sysctl.d files (the same
 * directories; across names the last assignment wins), tmpfiles.d files in
 * /etc, /run, /usr/local/lib and /usr/lib (same name: the first directory
 * wins; across names: the first in name order wins), enabled units in /etc/systemd/system,
 * and /proc/cmdline with per-size ranges over SIZES. Unreadable files are skipped. */
void thp_persisted_read(const struct thp_root *root, const uint64_t *sizes, int nsizes,
			struct thp_persisted *p);

#endif
