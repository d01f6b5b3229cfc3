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

/* "'thp bench --modes always' (pid 4242)" for the journal F. */
static const char *who(const struct thp_state_file *f, char *buf, size_t cap)
{
	snprintf(buf, cap, "'%s' (pid %d)", f->s.command[0] ? f->s.command : "thp", (int)f->s.owner);
	return buf;
}

int thp_recover(struct thp_ctx *ctx, bool dry)
{
	struct thp_state_file *f = malloc(sizeof(*f));
	struct thp_changes *cs = malloc(sizeof(*cs));
	char journal[4200], by[320], why[512];
	int rc = 1, err, signo = 0;

	if (!f || !cs) {
		thp_err("out of memory");
		goto out;
	}
	thp_shown_path(ctx, THP_JOURNAL, journal, sizeof(journal));
	thp_state_load(&ctx->root, THP_JOURNAL, f);
	if (f->err == -EXDEV || f->err == -ELOOP || f->err == -ENOTDIR)
		f->status = THP_STATE_ABSENT; /* no state directory of thp's: the change refuses it */
	switch (f->status) {
	case THP_STATE_ABSENT:
		rc = 0;
		break;
	case THP_STATE_RUNNING:
		thp_err("%s is changing THP settings now (journal '%s'); wait until it ends",
			who(f, by, sizeof(by)), journal);
		break;
	case THP_STATE_DAMAGED:
		thp_journal_damaged(journal, f);
		break;
	case THP_STATE_OTHER_BOOT:
		if (!dry && (err = thp_journal_remove(&ctx->root)) != 0) {
			thp_err("cannot remove '%s', left from an earlier boot: %s", journal,
				thp_file_strerror(err));
			break;
		}
		thp_err("%s '%s', left by %s in an earlier boot: the kernel has started afresh since",
			dry ? "would remove" : "removed", journal, who(f, by, sizeof(by)));
		rc = 0;
		break;
	case THP_STATE_CURRENT:
		if (dry) {
			thp_err("%s did not finish; a change first puts back the settings it had changed (journal '%s')",
				who(f, by, sizeof(by)), journal);
			rc = 0;
			break;
		}
		err = thp_values_apply(&ctx->root, &f->s.values, cs, &signo, why, sizeof(why));
		if (err == -EINVAL) {
			thp_err("the journal '%s' of %s: %s; nothing was changed", journal,
				who(f, by, sizeof(by)), why);
			break;
		}
		if (err) {
			thp_change_explain(cs, err, signo, journal);
			rc = signo ? thp_die_by(signo) : 1;
			break;
		}
		if ((err = thp_journal_remove(&ctx->root)) != 0) {
			thp_err("put back the settings that %s had changed, but cannot remove its "
				"journal '%s': %s; remove it", who(f, by, sizeof(by)), journal,
				thp_file_strerror(err));
			break;
		}
		if ((err = thp_changes_count(cs)) != 0)
			thp_err("%s did not finish; put back the %d setting%s it had changed",
				who(f, by, sizeof(by)), err, err == 1 ? "" : "s");
		else
			thp_err("%s did not finish; the settings it had changed were back already",
				who(f, by, sizeof(by)));
		rc = 0;
		break;
	}
out:
	free(f);
	free(cs);
	return rc;
}

int thp_recover_pools(struct thp_ctx *ctx, bool dry, bool *found)
{
	struct thp_pools_journal *j = malloc(sizeof(*j));
	char shown[4200], at[32] = "", *buf = NULL;
	int line = 0, err = j ? thp_read(&ctx->root, THP_POOLS_JOURNAL, &buf, NULL) : -ENOMEM, rc = 1;

	if (found)
		*found = false;
	thp_shown_path(ctx, THP_POOLS_JOURNAL, shown, sizeof(shown));
	if (err == -ENOENT || err == -ENOTDIR) {
		rc = 0;
	} else if (err) {
		thp_err("cannot read the journal '%s': %s; nothing was changed", shown,
			thp_file_strerror(err));
	} else if (thp_pools_journal_parse(buf, j, &line) != 0) {
		if (line)
			snprintf(at, sizeof(at), ": line %d", line);
		thp_err("the journal '%s' is damaged%s; nothing was changed: look at it, set the "
			"pools it names with 'thp hugetlb set', then remove it", shown, at);
	} else if (dry) {
		thp_err("'%s' (pid %d) did not finish; the %d pools it had changed would be put "
			"back first (journal '%s')", j->command, (int)j->owner, j->n, shown);
		rc = 0;
	} else if ((err = thp_pools_put_back(&ctx->root, j)) != 0) {
		thp_err("'%s' (pid %d) did not finish, and %d of the pools it had changed cannot be "
			"put back (journal '%s'); nothing was changed", j->command, (int)j->owner,
			err, shown);
	} else if ((err = thp_pools_journal_remove(&ctx->root)) != 0) {
		thp_err("put back the pools of '%s', but cannot remove its journal '%s': %s; remove "
			"it", j->command, shown, thp_file_strerror(err));
	} else {
		thp_err("'%s' (pid %d) did not finish; put back the %d pools it had changed",
			j->command, (int)j->owner, j->n);
		rc = 0;
	}
	if (found)
		*found = rc == 0 && err != -ENOENT && err != -ENOTDIR;
	free(buf);
	free(j);
	return rc;
}
