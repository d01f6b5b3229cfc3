/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply.c - write the changes of settings in order, read each back, roll back */
#include "control.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/changes.h"

/* Writes VALUE to a setting and reads it back; a read-back that differs goes to
 * GOT ("" when it agrees or the write failed). On the live kernel the file gets
 * the bare value; a fake root gets what the kernel would then show (a line, or
 * the choice list with VALUE bracketed), so that later reads see the same. */
static int write_value(const struct thp_root *root, const struct thp_change *c, const char *value,
		      char got[THP_VALUE_MAX])
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
	if (err)
		return err;
	thp_setting_read(root, c->path, c->k.d->file, &s);
	thp_setting_value(&s, got, THP_VALUE_MAX);
	if (strcmp(got, value) == 0) {
		got[0] = '\0';
		return 0;
	}
	if (!got[0])
		snprintf(got, THP_VALUE_MAX, "?");
	return s.kind == THP_ERROR ? s.err : -EIO;
}

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	caught = sig;
}

/* Puts back the old value of every setting written so far, last first; also the
 * failed one when its write took effect as something else. */
static void roll_back(const struct thp_root *root, struct thp_changes *cs, int upto)
{
	for (int i = upto; i >= 0; i--) {
		struct thp_change *c = &cs->v[i];
		char got[THP_VALUE_MAX];

		if (c->result != THP_CHANGE_WRITTEN && !(c->result == THP_CHANGE_FAILED && c->got[0]))
			continue;
		c->undo_err = write_value(root, c, c->old, got);
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
		err = write_value(root, c, c->want, c->got);
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
