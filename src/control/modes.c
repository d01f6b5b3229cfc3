/* SPDX-License-Identifier: GPL-2.0-or-later */
/* modes.c - switch the host's THP policy for a measurement, and put it back */
#include "modes.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "journal.h"

static struct thp_journal journal;
static struct thp_changes *cs;
static volatile sig_atomic_t stop;

bool modes_switches(const char *mode)
{
	return !strcmp(mode, "always") || !strcmp(mode, "madvise") || !strcmp(mode, "never");
}

bool modes_switching(const struct modes *m)
{
	for (int i = 0; i < m->n; i++)
		if (modes_switches(m->word[i]))
			return true;
	return false;
}

static void on_signal(int sig)
{
	stop = sig;
}

int modes_signal(void)
{
	return stop;
}

/* Checks every switching mode of M against the kernel's 'enabled' and
 * journals the policy. Returns 0, or 1 after writing to WHY what failed. */
static int journal_policy(const struct thp_root *root, const struct modes *m, char *why, size_t cap)
{
	char refused[512];
	struct thp_change *en;
	int err;

	cs = malloc(sizeof(*cs));
	err = cs ? thp_changes_read(root, cs) : -ENOMEM;
	if (err) {
		thp_changes_read_why(root, err, why, cap);
		return 1;
	}
	en = thp_change_find(cs, "enabled");
	for (int i = 0; i < m->n; i++) {
		/* each mode is checked; the journal needs one wanted value */
		if (modes_switches(m->word[i]) &&
		    (!en || thp_change_check(cs, en, m->word[i], true, en->want, refused, sizeof(refused)) != 0)) {
			snprintf(why, cap, "this kernel does not offer 'enabled=%s'", m->word[i]);
			return 1;
		}
	}
	err = thp_journal_push(&journal, root, cs);
	if (err) {
		/* bench and ab run on the live host only */
		snprintf(why, cap, "cannot save the THP policy to '/" THP_JOURNAL "': %s",
			 err == -EEXIST ? "another thp started a change meanwhile" : thp_file_strerror(err));
		return 1;
	}
	return 0;
}

int modes_begin(const struct thp_root *root, const struct modes *m, char *why, size_t cap)
{
	struct sigaction sa;

	if (modes_switching(m) && journal_policy(root, m, why, cap))
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a wait returns EINTR and sees the flag */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return 0;
}

const char *modes_prior(void)
{
	const struct thp_change *en = cs ? thp_change_find(cs, "enabled") : NULL;

	return en ? en->old : "";
}

int modes_apply(const char *mode, char *why, size_t cap)
{
	const struct thp_kv *prior = thp_kv_get(&journal.s.values, "enabled");
	char refused[512];
	int err, signo = 0;

	why[0] = '\0';
	if (!journal.open || (!modes_switches(mode) && !prior))
		return 0;
	err = thp_changes_read(journal.root, cs);
	if (!err)
		err = thp_changes_want(cs, "enabled", modes_switches(mode) ? mode : prior->value, refused,
				       sizeof(refused));
	if (!err)
		err = thp_changes_apply(journal.root, cs, &signo);
	if (signo)
		stop = signo;
	/* as root, which a switch needs: no hint to run as root */
	if (err && !signo)
		snprintf(why, cap, "cannot write 'enabled': %s", thp_strerror(err));
	return err ? 1 : 0;
}

int modes_end(char *why, size_t cap)
{
	const struct thp_kv *prior = thp_kv_get(&journal.s.values, "enabled");
	char refused[512];
	int err, signo = 0, drop_err;

	if (!journal.open)
		return 0;
	err = thp_journal_pop(&journal, cs, &signo, refused, sizeof(refused), &drop_err);
	free(cs);
	cs = NULL;
	if (signo)
		stop = signo;
	if (err == -EBADE) {
		/* bench and ab run on the live host only */
		snprintf(why, cap, "put back 'enabled=%s', but cannot remove the journal '/" THP_JOURNAL "': %s; "
			 "remove it", prior ? prior->value : "?", thp_file_strerror(drop_err));
		return 1;
	}
	if (err) {
		snprintf(why, cap, "cannot restore 'enabled=%s': %s; 'thp restore' puts it back later",
			 prior ? prior->value : "?", err == -EINVAL ? refused : thp_strerror(err));
		return 1;
	}
	return 0;
}
