/* SPDX-License-Identifier: GPL-2.0-or-later */
/* change.c - the words of a change of THP settings: the changes planned or
 * made, why one failed and what was rolled back, a damaged journal */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "../control/change.h"
#include "../control/control.h"
#include "change.h"
#include "msg.h"
#include "render.h"

static const char *result_word(const struct thp_change *c)
{
	switch (c->result) {
	case THP_CHANGE_WRITTEN: return "written";
	case THP_CHANGE_FAILED: return "failed";
	case THP_CHANGE_ROLLED_BACK: return "rolled back";
	case THP_CHANGE_STUCK: return "rollback failed";
	default: return "not written";
	}
}

enum { C_KEY, C_FROM, C_ARROW, C_TO, C_RESULT };

/* Column C of change ROW; CTX: whether it is a dry run. */
static void get_change(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct thp_change *x = row;
	const bool *dry = ctx;

	switch (c->arg) {
	case C_KEY: v->s = x->key; return;
	case C_FROM: v->s = x->old; return;
	case C_ARROW: v->s = "->"; return;
	case C_TO: v->s = x->want; return;
	default: v->s = strcmp(x->want, x->old) == 0 ? "unchanged" : *dry ? "planned" : result_word(x); return;
	}
}

static const struct out_col change_cols[] = {
	[C_KEY] = { "KEY", OUT_TEXT, OUT_KEEP, "", get_change, C_KEY },
	[C_FROM] = { "FROM", OUT_TEXT, OUT_KEEP, "", get_change, C_FROM },
	[C_ARROW] = { "ARROW", OUT_TEXT, OUT_KEEP, "", get_change, C_ARROW },
	[C_TO] = { "TO", OUT_TEXT, OUT_KEEP, "", get_change, C_TO },
	[C_RESULT] = { "RESULT", OUT_TEXT, OUT_KEEP, "", get_change, C_RESULT },
};

void thp_change_report(bool json, const struct thp_changes *cs, bool dry, int err, const char *saved,
		       bool user_file)
{
	static const int text_sel[] = { C_KEY, C_FROM, C_ARROW, C_TO }, json_sel[] = { C_KEY, C_FROM, C_TO, C_RESULT };
	const struct out_fmt fmt = { .bare = true, .json = json };
	struct out_table *t;
	int n = thp_changes_count(cs);

	out_doc_begin(json, false, "thp-change/1");
	out_put(OUT_JSON, "dry_run", NULL, ov_bool(dry));
	out_put(OUT_JSON, "ok", NULL, ov_bool(err == 0));
	out_put(OUT_JSON, "saved", NULL, ov_str(saved));
	if (err && !json) /* the errors say what happened */
		return;
	if (n == 0)
		out_text("nothing to change: every setting already has that value\n");
	else
		out_text(dry ? "would change %d setting%s (dry run, nothing written):\n" : "changed %d setting%s:\n", n,
			 n == 1 ? "" : "s");
	/* in text the settings that change, in JSON every one asked for */
	t = json ? out_table_open("changes", change_cols, json_sel, 4, &fmt, &dry)
		      : out_table_open(NULL, change_cols, text_sel, 4, &fmt, &dry);
	for (int i = 0; i < cs->n; i++)
		if (json ? cs->v[i].want[0] != '\0' : thp_change_pending(&cs->v[i]))
			out_table_add(t, &cs->v[i]);
	out_table_close(t, 2);
	if (saved && n)
		out_text("the previous state is saved in %s; 'thp restore%s%s' puts it back\n", saved,
			 user_file ? " " : "", user_file ? saved : "");
	out_doc_end();
}

void thp_change_explain(const struct thp_changes *cs, int err, int signo, const char *kept)
{
	char undone[1024] = "", stuck[1024] = "";
	int nundone = 0, nstuck = 0;

	for (int i = 0; i < cs->n; i++) {
		const struct thp_change *c = &cs->v[i];
		size_t u = strlen(undone), s = strlen(stuck);

		if (c->err && c->got[0])
			thp_err("'%s' reads '%s' after writing '%s'", c->key, c->got, c->want);
		else if (c->err)
			thp_err("cannot write '%s': %s%s", c->key, strerror(-c->err),
				c->err == -EACCES || c->err == -EPERM ? " (run as root)" : "");
		if (c->result == THP_CHANGE_ROLLED_BACK && u < sizeof(undone) - 64)
			snprintf(undone + u, sizeof(undone) - u, "%s%s", nundone++ ? ", " : "", c->key);
		if (c->result == THP_CHANGE_STUCK && s < sizeof(stuck) - 64)
			snprintf(stuck + s, sizeof(stuck) - s, "%s%s (%s)", nstuck++ ? ", " : "",
				 c->key, strerror(-c->undo_err));
	}
	if (signo && sigabbrev_np(signo))
		thp_err("interrupted by SIG%s", sigabbrev_np(signo));
	else if (signo)
		thp_err("interrupted by signal %d", signo);
	else if (err == -EPERM)
		thp_err("cannot change THP settings: %s (run as root)", strerror(-err));
	if (nundone)
		thp_err("rolled back %d setting%s already written: %s", nundone, nundone == 1 ? "" : "s",
			undone);
	else if (!nstuck)
		thp_err("nothing was changed");
	if (nstuck)
		thp_err("could not roll back %s; the previous state is saved in %s", stuck,
			kept ? kept : "(nowhere)");
}

void thp_journal_damaged(const char *journal, const struct thp_state_file *f)
{
	if (f->err) {
		thp_err("cannot read the journal '%s': %s%s; nothing was changed", journal,
			thp_file_strerror(f->err), thp_root_hint(f->err));
		return;
	}
	if (f->line)
		thp_err("the journal '%s' is damaged: line %d: %s; nothing was changed", journal,
			f->line, f->why);
	else
		thp_err("the journal '%s' is damaged: %s; nothing was changed", journal, f->why);
	thp_err("look at it, set what it should hold with 'thp set', then remove it");
}

int thp_change_load_failed(const struct thp_root *root, int err)
{
	char why[4400];

	thp_changes_read_why(root, err, why, sizeof(why));
	thp_err("%s", why);
	return 1;
}

int thp_want_report(int err, const char *why, const char *cmd)
{
	if (!err)
		return 0;
	if (err == -EBADMSG) {
		thp_err("%s", why);
		return thp_usage_error(cmd);
	}
	thp_err("%s; nothing was changed", why);
	return 2;
}

int thp_lock_report(const struct thp_root *root, int err, const struct thp_lock_holder *h)
{
	char lock[4200];

	if (!err)
		return 0;
	thp_root_shown(root, THP_LOCK, lock, sizeof(lock));
	if (err == -EBUSY && h->pid)
		thp_err("another thp is changing THP settings or pools: '%s' (pid %d) holds '%s' "
			"and did not end within %d s; nothing was changed",
			h->command[0] ? h->command : "thp", (int)h->pid, lock, THP_LOCK_WAIT_MS / 1000);
	else if (err == -EBUSY)
		thp_err("another thp holds '%s' and did not end within %d s; nothing was changed",
			lock, THP_LOCK_WAIT_MS / 1000);
	else
		thp_err("cannot take the lock '%s': %s%s; nothing was changed", lock,
			thp_file_strerror(err), thp_root_hint(err));
	return 1;
}

int thp_run_report(bool json, const struct thp_changes *cs, const struct thp_run *r, const char *saved,
		   bool user_file)
{
	if (r->journal_err) {
		thp_change_report(json, cs, false, r->journal_err, saved, user_file);
		thp_err("cannot write the journal '%s': %s%s; nothing was changed", r->journal,
			r->journal_err == -EEXIST ? "another thp started a change meanwhile"
						  : thp_file_strerror(r->journal_err),
			thp_root_hint(r->journal_err));
		return 1;
	}
	thp_change_report(json, cs, false, r->err, saved, user_file);
	if (r->drop_err && !r->err)
		thp_err("cannot remove the journal '%s': %s; it holds the settings as they were before "
			"this change, which the next change or 'thp restore' puts back: remove it to keep "
			"this change", r->journal, thp_file_strerror(r->drop_err));
	else if (r->drop_err)
		thp_err("cannot remove the journal '%s': %s; remove it", r->journal,
			thp_file_strerror(r->drop_err));
	if (!r->err)
		return r->drop_err ? 1 : 0;
	thp_change_explain(cs, r->err, r->signo, r->stuck ? r->journal : saved);
	if (r->stuck)
		thp_err("'thp restore' puts back what the journal holds");
	return r->signo ? thp_die_by(r->signo) : 1;
}

/* "'thp bench --modes always' (pid 4242)" for the journal F. */
static const char *who(const struct thp_state_file *f, char *buf, size_t cap)
{
	snprintf(buf, cap, "'%s' (pid %d)", f->s.command[0] ? f->s.command : "thp", (int)f->s.owner);
	return buf;
}

int thp_recovery_report(const struct thp_recovery *r)
{
	char by[320];

	if (!r) {
		thp_err("out of memory");
		return 1;
	}
	switch (r->what) {
	case THP_RECOVERY_NONE:
		break;
	case THP_RECOVERY_RUNNING:
		thp_err("%s is changing THP settings now (journal '%s'); wait until it ends",
			who(&r->f, by, sizeof(by)), r->journal);
		break;
	case THP_RECOVERY_DAMAGED:
		thp_journal_damaged(r->journal, &r->f);
		break;
	case THP_RECOVERY_OTHER_BOOT:
		if (r->err)
			thp_err("cannot remove '%s', left from an earlier boot: %s", r->journal,
				thp_file_strerror(r->err));
		else
			thp_err("%s '%s', left by %s in an earlier boot: the kernel has started afresh since",
				r->dry ? "would remove" : "removed", r->journal, who(&r->f, by, sizeof(by)));
		break;
	case THP_RECOVERY_UNFINISHED:
		thp_err("%s did not finish; a change first puts back the settings it had changed (journal '%s')",
			who(&r->f, by, sizeof(by)), r->journal);
		break;
	case THP_RECOVERY_REFUSED:
		thp_err("the journal '%s' of %s: %s; nothing was changed", r->journal,
			who(&r->f, by, sizeof(by)), r->why);
		break;
	case THP_RECOVERY_FAILED:
		thp_change_explain(&r->cs, r->err, r->signo, r->journal);
		if (r->signo)
			return thp_die_by(r->signo);
		break;
	case THP_RECOVERY_KEPT:
		thp_err("put back the settings that %s had changed, but cannot remove its "
			"journal '%s': %s; remove it", who(&r->f, by, sizeof(by)), r->journal,
			thp_file_strerror(r->err));
		break;
	case THP_RECOVERY_PUT_BACK:
		if (r->n)
			thp_err("%s did not finish; put back the %d setting%s it had changed",
				who(&r->f, by, sizeof(by)), r->n, r->n == 1 ? "" : "s");
		else
			thp_err("%s did not finish; the settings it had changed were back already",
				who(&r->f, by, sizeof(by)));
		break;
	}
	return thp_recovery_ok(r) ? 0 : 1;
}

void thp_journal_unusable(const char *journal, int err, int line, const char *fix)
{
	char at[32] = "";

	if (err) {
		thp_err("cannot read the journal '%s': %s; nothing was changed", journal, thp_file_strerror(err));
		return;
	}
	if (line)
		snprintf(at, sizeof(at), ": line %d", line);
	thp_err("the journal '%s' is damaged%s; nothing was changed: look at it, %s, then remove it", journal, at,
		fix);
}

int thp_pools_recovery_report(const struct thp_pools_recovery *r)
{
	if (!r) {
		thp_err("out of memory");
		return 1;
	}
	switch (r->what) {
	case THP_POOLS_NONE:
		break;
	case THP_POOLS_UNREADABLE:
	case THP_POOLS_DAMAGED:
		thp_journal_unusable(r->journal, r->what == THP_POOLS_UNREADABLE ? r->err : 0, r->line,
				     "set the pools it names with 'thp hugetlb set'");
		break;
	case THP_POOLS_UNFINISHED:
		thp_err("'%s' (pid %d) did not finish; the %d pools it had changed would be put "
			"back first (journal '%s')", r->j.command, (int)r->j.owner, r->j.n, r->journal);
		break;
	case THP_POOLS_STUCK:
		thp_err("'%s' (pid %d) did not finish, and %d of the pools it had changed cannot be "
			"put back (journal '%s'); nothing was changed", r->j.command, (int)r->j.owner,
			r->n, r->journal);
		break;
	case THP_POOLS_KEPT:
		thp_err("put back the pools of '%s', but cannot remove its journal '%s': %s; remove "
			"it", r->j.command, r->journal, thp_file_strerror(r->err));
		break;
	case THP_POOLS_PUT_BACK:
		thp_err("'%s' (pid %d) did not finish; put back the %d pools it had changed",
			r->j.command, (int)r->j.owner, r->j.n);
		break;
	}
	return thp_pools_recovery_ok(r) ? 0 : 1;
}
