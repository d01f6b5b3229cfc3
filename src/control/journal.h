/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal.h - every temporary change of the host's THP settings goes through
 * one journal (run/thp/journal, format in core/state.h): push writes the
 * values the change is about to overwrite before the first write; apply
 * writes with read-back and rollback; pop puts the journaled values back and
 * removes the journal. A journal left behind (thp was killed) is what 'thp
 * restore' puts back. */
#ifndef THP_JOURNAL_H
#define THP_JOURNAL_H

#include <stdbool.h>

#include "../core/changes.h"
#include "../core/state.h"

struct thp_journal {
	const struct thp_root *root;
	struct thp_state s; /* what the journal holds: the values before the change */
	bool open;          /* the journal is ours and on disk */
};

/* Journals the current value of every setting of CS that has a wanted value
 * (thp_changes_want), with this process as owner. Writes nothing to the
 * kernel. Returns 0, -EEXIST when a journal exists already (never replaced),
 * or -errno of the state directory or the write. */
int thp_journal_push(struct thp_journal *j, const struct thp_root *root,
		     const struct thp_changes *cs);

/* Sets the command of S to this process's command line. */
void thp_state_own_command(struct thp_state *s);

/* Puts the settings of VALUES back below ROOT: CS is read afresh, asked for
 * each value, and applied with read-back and rollback (thp_changes_apply).
 * Returns 0, -EINVAL when this kernel refuses a value (WHY says which), or
 * the error of thp_changes_apply() (*SIGNO set for a signal). */
int thp_values_apply(const struct thp_root *root, const struct thp_kvlist *values,
		     struct thp_changes *cs, int *signo, char *why, size_t cap);

/* Puts back what J journaled (thp_values_apply) and removes the journal.
 * On failure the journal stays for 'thp restore'. Returns 0, the error of
 * thp_values_apply(), or -EBADE with *DROP_ERR set when the settings are back
 * but the journal could not be removed. */
int thp_journal_pop(struct thp_journal *j, struct thp_changes *cs, int *signo, char *why,
		    size_t cap, int *drop_err);

/* Removes J's journal without writing settings: the change ended with the
 * host in a complete state. Returns 0 or -errno: the journal stays, and the
 * next change or 'thp restore' would put back what it holds. */
int thp_journal_drop(struct thp_journal *j);

/* Removes the journal below ROOT (one left by an earlier run). Returns 0 or -errno. */
int thp_journal_remove(const struct thp_root *root);

struct thp_pools_journal;

/* Writes J as the pools journal below ROOT (core/hugetlb.h), never replacing
 * one (-EEXIST); a tree without run/ gets none. Returns 0 or -errno. */
int thp_pools_journal_push(const struct thp_root *root, const struct thp_pools_journal *j);

/* Removes the pools journal below ROOT; none is no error. Returns 0 or -errno. */
int thp_pools_journal_remove(const struct thp_root *root);

struct thp_boot_journal;

/* Writes J as the boot files' journal below ROOT (core/persist.h), never
 * replacing one (-EEXIST); a tree without run/ gets none. Returns 0 or -errno. */
int thp_boot_journal_push(const struct thp_root *root, const struct thp_boot_journal *j);

/* Removes the boot files' journal below ROOT; none is no error. Returns 0 or -errno. */
int thp_boot_journal_remove(const struct thp_root *root);

#endif
