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

#endif
