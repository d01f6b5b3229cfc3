/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply.c - write the changes of settings in order, read each back, roll back */
#include "control.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/changes.h"

/* Writes VALUE to a setting and reads it back into NOW ("?" when unreadable):
 * also after a failed write, which may have taken (a close that fails after a
 * good write). A read-back that differs after a good write goes to GOT ("" when
 * it agrees or the write failed). On the live kernel the file gets the bare
 * value; a fake root gets what the kernel would then show (a line, or the
 * choice list with VALUE bracketed), so that later reads see the same. */
static int write_value(const struct thp_root *root, const struct thp_change *c, const char *value,
		      char got[THP_VALUE_MAX], char now[THP_VALUE_MAX])
{
	char wire[THP_CHOICES_MAX * (THP_WORD_MAX + 3)];
	struct thp_setting s;
	int err;

	snprintf(wire, sizeof(wire), root->live ? "%s" : "%s\n", value);
	if (!root->live && c->cur.kind == THP_CHOICE) {
		size_t len = 0;
		for (int i = 0; i < c->cur.choice.n; i++) {
			const char *w = c->cur.choice.words[i];
			bool sel = strcmp(w, value) == 0;
			len += (size_t)snprintf(wire + len, sizeof(wire) - len, "%s%s%s%s",
						i ? " " : "", sel ? "[" : "", w, sel ? "]" : "");
		}
		snprintf(wire + len, sizeof(wire) - len, "\n");
	}
	err = thp_write_file(root, c->path, wire);
	thp_setting_read(root, c->path, c->k.d->file, &s);
	thp_setting_value(&s, now, THP_VALUE_MAX);
	if (!now[0])
		snprintf(now, THP_VALUE_MAX, "?");
	got[0] = '\0';
	if (err || strcmp(now, value) == 0)
		return err;
	snprintf(got, THP_VALUE_MAX, "%s", now);
	return s.kind == THP_ERROR ? s.err : -EIO;
}

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	caught = sig;
}

/* Puts back the old value of every setting written so far, last first; also the
 * failed one when it no longer reads its old value (its write took effect, as
 * something else or despite an error). A setting that reads its old value
 * again is put back, whatever the write returned. */
static void roll_back(const struct thp_root *root, struct thp_changes *cs, int upto)
{
	for (int i = upto; i >= 0; i--) {
		struct thp_change *c = &cs->v[i];
		char got[THP_VALUE_MAX], now[THP_VALUE_MAX];

		if (c->result != THP_CHANGE_WRITTEN && !(c->result == THP_CHANGE_FAILED && c->moved))
			continue;
		c->undo_err = write_value(root, c, c->old, got, now);
		if (c->undo_err && strcmp(now, c->old) == 0)
			c->undo_err = 0;
		if (c->undo_err)
			c->result = THP_CHANGE_STUCK;
		else if (c->result == THP_CHANGE_WRITTEN)
			c->result = THP_CHANGE_ROLLED_BACK;
	}
}

int thp_changes_apply(const struct thp_root *root, struct thp_changes *cs, int *signo)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal }, old[3];
	char now[THP_VALUE_MAX];
	int err = 0, last = -1;

	*signo = 0;
	if (root->live && geteuid() != 0)
		return -EPERM;
	caught = 0;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]); /* no SA_RESTART: a blocked write returns EINTR */
	for (int i = 0; i < cs->n && !err; i++) {
		struct thp_change *c = &cs->v[i];

		if (!thp_change_pending(c))
			continue;
		if (caught) {
			err = -EINTR;
			break;
		}
		last = i;
		err = write_value(root, c, c->want, c->got, now);
		c->moved = strcmp(now, c->old) != 0;
		c->result = err ? THP_CHANGE_FAILED : THP_CHANGE_WRITTEN;
		c->err = err;
	}
	if (!err && caught)
		err = -EINTR;
	if (err)
		roll_back(root, cs, last);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	*signo = caught;
	return caught ? -EINTR : err;
}
