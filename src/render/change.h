/* SPDX-License-Identifier: GPL-2.0-or-later */
/* change.h - the words of a change of THP settings */
#ifndef THP_RENDER_CHANGE_H
#define THP_RENDER_CHANGE_H

#include <stdbool.h>

#include "../core/changes.h"
#include "../core/state.h"

/* Prints the planned (DRY) or made changes of CS, in JSON with JSON; nothing
 * more in text after a failure ERR. SAVED: where the previous state is, as
 * shown; USER_FILE: a file the user named. */
void thp_change_report(bool json, const struct thp_changes *cs, bool dry, int err, const char *saved,
		       bool user_file);

/* Explains on stderr why a change of CS failed (ERR, or signal SIGNO); KEPT
 * names where the previous state is kept. */
void thp_change_explain(const struct thp_changes *cs, int err, int signo, const char *kept);

/* Explains that the journal (shown as JOURNAL) is damaged. */
void thp_journal_damaged(const char *journal, const struct thp_state_file *f);

/* Says that JOURNAL, left by an earlier run, cannot be used: ERR its read
 * error, or (0) it is damaged, at LINE (0: unknown); FIX what to do then
 * ("set the pools it names with 'thp hugetlb set'"). */
void thp_journal_unusable(const char *journal, int err, int line, const char *fix);

struct thp_lock_holder;
struct thp_run;
struct thp_recovery;

/* Says why the settings below ROOT could not be read (ERR of
 * thp_change_load). Returns 1, the exit status. */
int thp_change_load_failed(const struct thp_root *root, int err);

/* Says why the KEY=VALUE arguments of command CMD were refused (ERR and WHY
 * of thp_change_want_args). Returns the exit status: 0 when ERR is 0, else 2. */
int thp_want_report(int err, const char *why, const char *cmd);

/* Says why the writers' lock below ROOT was not taken (ERR of
 * thp_writer_lock, with the holder H when it is -EBUSY). Returns 1, the exit
 * status, or 0 when ERR is 0. */
int thp_lock_report(const struct thp_root *root, int err, const struct thp_lock_holder *h);

struct thp_pools_recovery;

/* Reports the change R of CS made (thp_change_report, with SAVED and
 * USER_FILE), and explains on stderr what failed. Returns the exit status:
 * 0, 1, or ends thp by the signal that interrupted the change once it was
 * rolled back (thp_die_by). */
int thp_run_report(bool json, const struct thp_changes *cs, const struct thp_run *r, const char *saved,
		   bool user_file);

/* Says on stderr what the recovery R of the settings' journal found and did
 * (NULL: out of memory), and returns the exit status it means: 0 when the
 * change may go on, else 1, or ends thp by the signal that interrupted the
 * put-back (thp_die_by) once said. */
int thp_recovery_report(const struct thp_recovery *r);

/* The same for the recovery R of the pools' journal. */
int thp_pools_recovery_report(const struct thp_pools_recovery *r);

#endif
