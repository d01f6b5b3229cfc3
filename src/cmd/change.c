/* SPDX-License-Identifier: GPL-2.0-or-later */
/* change.c - a change of THP settings as 'thp set' and 'thp restore' make it
 * (journal, apply with read-back and rollback, report), and what a new change
 * does first with a journal an earlier run left behind */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../control/journal.h"
#include "../core/hugetlb.h"
#include "../render/change.h"
#include "../render/render.h"
#include "cmd.h"

/* True when a setting of CS could not be put back after a failure. */
static bool any_stuck(const struct thp_changes *cs)
{
	for (int i = 0; i < cs->n; i++)
		if (cs->v[i].result == THP_CHANGE_STUCK)
			return true;
	return false;
}

int thp_change_run(struct thp_ctx *ctx, struct thp_changes *cs, const char *saved, bool user_file)
{
	struct thp_journal j;
	char journal[4200];
	int err, signo = 0, drop_err = 0;

	thp_shown_path(ctx, THP_JOURNAL, journal, sizeof(journal));
	err = thp_journal_push(&j, &ctx->root, cs);
	if (err) {
		thp_err("cannot write the journal '%s': %s%s; nothing was changed", journal,
			err == -EEXIST ? "another thp started a change meanwhile" : thp_file_strerror(err),
			thp_root_hint(err));
		return 1;
	}
	err = thp_changes_apply(&ctx->root, cs, &signo);
	/* the host holds one complete state, the old or the new: the journal is done */
	if (!any_stuck(cs))
		drop_err = thp_journal_drop(&j);
	thp_change_report(ctx->json, cs, false, err, saved, user_file);
	if (drop_err && !err)
		thp_err("cannot remove the journal '%s': %s; it holds the settings as they were before "
			"this change, which the next change or 'thp restore' puts back: remove it to keep "
			"this change", journal, thp_file_strerror(drop_err));
	else if (drop_err)
		thp_err("cannot remove the journal '%s': %s; remove it", journal,
			thp_file_strerror(drop_err));
	if (!err)
		return drop_err ? 1 : 0;
	thp_change_explain(cs, err, signo, any_stuck(cs) ? journal : saved);
	if (any_stuck(cs))
		thp_err("'thp restore' puts back what the journal holds");
	return signo ? thp_die_by(signo) : 1;
}
