/* SPDX-License-Identifier: GPL-2.0-or-later */
/* change.c - a change of THP settings as one transaction, and what a new
 * change does first with the settings' journal an earlier run left (the
 * pools' are in pools.c) */
#include "change.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "journal.h"

int thp_change_load(const struct thp_root *root, struct thp_changes **cs)
{
	int err;

	*cs = malloc(sizeof(**cs));
	err = *cs ? thp_changes_read(root, *cs) : -ENOMEM;
	if (err) {
		free(*cs);
		*cs = NULL;
	}
	return err;
}

int thp_change_want_args(struct thp_changes *cs, int argc, char **argv, char *why, size_t cap)
{
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		int err;

		if (!eq || eq == argv[i] || !eq[1]) {
			snprintf(why, cap, "'%s' is not KEY=VALUE", argv[i]);
			return -EBADMSG;
		}
		*eq = '\0';
		err = thp_changes_want(cs, argv[i], eq + 1, why, cap);
		*eq = '=';
		if (err)
			return err;
	}
	return 0;
}

/* True when a setting of CS could not be put back after a failure. */
static bool any_stuck(const struct thp_changes *cs)
{
	for (int i = 0; i < cs->n; i++)
		if (cs->v[i].result == THP_CHANGE_STUCK)
			return true;
	return false;
}

int thp_change_run(const struct thp_root *root, struct thp_changes *cs, struct thp_run *r)
{
	struct thp_journal j;

	memset(r, 0, sizeof(*r));
	thp_root_shown(root, THP_JOURNAL, r->journal, sizeof(r->journal));
	r->journal_err = thp_journal_push(&j, root, cs);
	if (r->journal_err)
		return 1;
	r->err = thp_changes_apply(root, cs, &r->signo);
	/* the host holds one complete state, the old or the new: the journal is done */
	r->stuck = any_stuck(cs);
	if (!r->stuck)
		r->drop_err = thp_journal_drop(&j);
	return r->err || r->drop_err ? 1 : 0;
}

void thp_saved_path(const struct thp_root *root, const char *file, char *buf, size_t cap)
{
	if (file)
		snprintf(buf, cap, "%s", file);
	else
		thp_root_shown(root, THP_SAVED, buf, cap);
}

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
