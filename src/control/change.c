/* SPDX-License-Identifier: GPL-2.0-or-later */
/* change.c - a change of THP settings as one transaction, and what a new
 * change does first with the journals an earlier run left */
#include "change.h"

#include <errno.h>
#include <stdlib.h>

#include "control.h"
#include "journal.h"

/* Puts back the settings that the unfinished change of R->f had changed,
 * and removes its journal. */
static void put_back(const struct thp_root *root, struct thp_recovery *r)
{
	r->err = thp_values_apply(root, &r->f.s.values, &r->cs, &r->signo, r->why, sizeof(r->why));
	if (r->err == -EINVAL)
		r->what = THP_RECOVERY_REFUSED;
	else if (r->err)
		r->what = THP_RECOVERY_FAILED;
	else if ((r->err = thp_journal_remove(root)) != 0)
		r->what = THP_RECOVERY_KEPT;
	else
		r->n = thp_changes_count(&r->cs);
}

struct thp_recovery *thp_recover(const struct thp_root *root, bool dry)
{
	struct thp_recovery *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->dry = dry;
	thp_root_shown(root, THP_JOURNAL, r->journal, sizeof(r->journal));
	thp_state_load(root, THP_JOURNAL, &r->f);
	if (r->f.err == -EXDEV || r->f.err == -ELOOP || r->f.err == -ENOTDIR)
		r->f.status = THP_STATE_ABSENT; /* no state directory of thp's: the change refuses it */
	switch (r->f.status) {
	case THP_STATE_ABSENT: r->what = THP_RECOVERY_NONE; break;
	case THP_STATE_RUNNING: r->what = THP_RECOVERY_RUNNING; break;
	case THP_STATE_DAMAGED: r->what = THP_RECOVERY_DAMAGED; break;
	case THP_STATE_OTHER_BOOT:
		r->what = THP_RECOVERY_OTHER_BOOT;
		r->err = dry ? 0 : thp_journal_remove(root);
		break;
	case THP_STATE_CURRENT:
		r->what = dry ? THP_RECOVERY_UNFINISHED : THP_RECOVERY_PUT_BACK;
		if (!dry)
			put_back(root, r);
		break;
	}
	return r;
}

bool thp_recovery_ok(const struct thp_recovery *r)
{
	switch (r->what) {
	case THP_RECOVERY_NONE:
	case THP_RECOVERY_UNFINISHED:
	case THP_RECOVERY_PUT_BACK:
		return true;
	case THP_RECOVERY_OTHER_BOOT:
		return r->err == 0;
	default:
		return false;
	}
}

struct thp_pools_recovery *thp_recover_pools(const struct thp_root *root, bool dry)
{
	struct thp_pools_recovery *r = calloc(1, sizeof(*r));
	char *buf = NULL;

	if (!r)
		return NULL;
	thp_root_shown(root, THP_POOLS_JOURNAL, r->journal, sizeof(r->journal));
	r->err = thp_read(root, THP_POOLS_JOURNAL, &buf, NULL);
	if (r->err == -ENOENT || r->err == -ENOTDIR)
		r->what = THP_POOLS_NONE;
	else if (r->err)
		r->what = THP_POOLS_UNREADABLE;
	else if (thp_pools_journal_parse(buf, &r->j, &r->line) != 0)
		r->what = THP_POOLS_DAMAGED;
	else if (dry)
		r->what = THP_POOLS_UNFINISHED;
	else if ((r->n = thp_pools_put_back(root, &r->j)) != 0)
		r->what = THP_POOLS_STUCK;
	else if ((r->err = thp_pools_journal_remove(root)) != 0)
		r->what = THP_POOLS_KEPT;
	else
		r->what = THP_POOLS_PUT_BACK;
	free(buf);
	return r;
}

bool thp_pools_recovery_ok(const struct thp_pools_recovery *r)
{
	return r->what == THP_POOLS_NONE || r->what == THP_POOLS_UNFINISHED ||
	       r->what == THP_POOLS_PUT_BACK;
}
