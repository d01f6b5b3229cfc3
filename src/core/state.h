/* SPDX-License-Identifier: GPL-2.0-or-later */
/* state.h - files that hold THP settings to put back: the state 'thp set'
 * saved before its change (run/thp/saved.state, or a file the user names)
 * and the journal of a change in progress (run/thp/journal). One format:
 *
 *   thp-state 2                          format version (1: without the time line)
 *   boot 7dc6ad8e-582a-...               /proc/sys/kernel/random/boot_id when written
 *   time 2026-12-04T23:48:37Z            when written (UTC)
 *   owner 4242 3050613                   a journal: pid and start time of the thp changing
 *   command thp bench --modes always     what wrote it
 *   # comments
 *   enabled=madvise                      each setting once
 *   end 1 2854106124                     number of settings, POSIX cksum of every byte before
 *
 * A file without the first line is a plain KEY=VALUE list (written by hand,
 * or by thp 0.1); it has no boot, owner or end line to check. */
#ifndef THP_STATE_H
#define THP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "keys.h"
#include "root.h"

#define THP_STATE_VERSION 2
#define THP_BOOT_ID_MAX 40

/* Where thp keeps its state below the root: a directory created 0700,
 * owned by root and never a symbolic link (control/files.c). */
#define THP_STATE_DIR "run/thp"
#define THP_SAVED_NAME "saved.state"
#define THP_SAVED THP_STATE_DIR "/" THP_SAVED_NAME
#define THP_JOURNAL_NAME "journal"
#define THP_JOURNAL THP_STATE_DIR "/" THP_JOURNAL_NAME
/* The journal of a 'thp hugetlb set' of several pools (core/hugetlb.h). */
#define THP_POOLS_JOURNAL_NAME "pools.journal"
#define THP_POOLS_JOURNAL THP_STATE_DIR "/" THP_POOLS_JOURNAL_NAME
/* The journal of a change of several files that boot applies (core/persist.h). */
#define THP_BOOT_JOURNAL_NAME "boot.journal"
#define THP_BOOT_JOURNAL THP_STATE_DIR "/" THP_BOOT_JOURNAL_NAME
/* The writers' lock: an flock held by the one thp that changes settings or
 * pools below the root; the file says who ("PID COMMAND"). */
#define THP_LOCK_NAME "lock"
#define THP_LOCK THP_STATE_DIR "/" THP_LOCK_NAME

struct thp_state {
	int version;                /* 0: a plain KEY=VALUE list */
	char boot[THP_BOOT_ID_MAX]; /* "" when not recorded */
	pid_t owner;                /* 0: none */
	unsigned long long owner_start; /* start time of OWNER in clock ticks after boot */
	long long time;             /* when written, seconds since the epoch; 0: not recorded */
	char command[256];
	struct thp_kvlist values;
};

/* Parses LEN bytes of BUF into S. Returns 0, or -EINVAL with the reason in
 * WHY and its 1-based line in *LINE (0: the file as a whole): a line that is
 * not KEY=VALUE of a setting thp writes, a key given twice, no setting at
 * all, a newer version, or (with a version) a missing or wrong end line. */
int thp_state_parse(const char *buf, size_t len, struct thp_state *s, int *line, char *why,
		    size_t cap);

/* Sets S's command from LEN bytes of /proc/PID/cmdline text (arguments
 * ending in NUL): the arguments joined by spaces, the program by its base
 * name ("thp set enabled=never"); one too long to fit is cut between two
 * UTF-8 characters and ends in "...". */
void thp_state_command(struct thp_state *s, const char *cmdline, size_t len);

/* The file form of S (its values in their order), with COMMENT as '#'
 * lines; malloc'd, NULL when out of memory. */
char *thp_state_format(const struct thp_state *s, const char *comment);

/* The CRC of POSIX cksum(1) over LEN bytes of BUF. */
uint32_t thp_cksum(const char *buf, size_t len);

/* The boot id of the system below ROOT (/proc/sys/kernel/random/boot_id);
 * "" when it cannot be read. */
void thp_boot_id(const struct thp_root *root, char *buf, size_t cap);

/* Parses the start time (field 22) of /proc/PID/stat text BUF. Returns 0 or -EINVAL. */
int thp_stat_start_parse(const char *buf, unsigned long long *start);

/* Who holds the writers' lock below a root. */
struct thp_lock_holder {
	pid_t pid; /* 0: none, or not known */
	char command[256];
};

/* Fills H with the holder of the writers' lock below ROOT (reading the lock
 * file, not locking it). Returns true when a process holds the lock now. */
bool thp_lock_holder_read(const struct thp_root *root, struct thp_lock_holder *h);

/* What a state file says about the host below a root. */
enum thp_state_status {
	THP_STATE_ABSENT,     /* no such file */
	THP_STATE_CURRENT,    /* written in this boot (or boot unknown) by no running thp */
	THP_STATE_RUNNING,    /* a journal whose owner holds the writers' lock: a change in progress */
	THP_STATE_OTHER_BOOT, /* written in an earlier boot: the kernel has started afresh since */
	THP_STATE_DAMAGED,    /* unreadable or malformed: err, or why at line */
};

struct thp_state_file {
	enum thp_state_status status;
	int err;  /* -errno of the read for an unreadable file; 0 otherwise */
	int line; /* line of the damage; 0: the file as a whole */
	char why[192];
	char boot_now[THP_BOOT_ID_MAX];
	struct thp_state s;
};

/* Reads the state file REL below ROOT into F and says what it is. */
void thp_state_load(const struct thp_root *root, const char *rel, struct thp_state_file *f);

/* The same for a file the user names (absolute, or relative to the current
 * directory), judged against the system below ROOT. */
void thp_state_load_user(const struct thp_root *root, const char *path, struct thp_state_file *f);

#endif
