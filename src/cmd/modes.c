/* SPDX-License-Identifier: GPL-2.0-or-later */
/* modes.c - measure under several THP modes, and put the host policy back */
#include "modes.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../control/control.h"
#include "../control/journal.h"
#include "../core/exp.h"
#include "../core/status.h"
#include "../render/render.h"

static struct thp_journal journal;
static struct thp_changes *cs;
static volatile sig_atomic_t stop;

int modes_parse(const char *list, const char *const *allowed, struct modes *m)
{
	const char *p = list;

	m->n = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		bool ok = false;

		for (int i = 0; allowed[i] && n; i++)
			ok |= strlen(allowed[i]) == n && strncmp(allowed[i], p, n) == 0;
		if (!ok || m->n >= MODES_MAX) {
			char choices[128] = "";
			for (int i = 0; allowed[i]; i++)
				snprintf(choices + strlen(choices), sizeof(choices) - strlen(choices),
					 "%s%s", i ? ", " : "", allowed[i]);
			thp_err("invalid mode '%.*s' (choose from: %s)", (int)n, p, choices);
			return 2;
		}
		for (int i = 0; i < m->n; i++) {
			if (strlen(m->word[i]) == n && strncmp(m->word[i], p, n) == 0) {
				thp_err("mode '%.*s' given twice", (int)n, p);
				return 2;
			}
		}
		memcpy(m->word[m->n], p, n);
		m->word[m->n++][n] = '\0';
		p += n + (p[n] == ',');
	}
	if (!m->n) {
		thp_err("empty mode list");
		return 2;
	}
	return 0;
}

bool modes_switches(const char *mode)
{
	return !strcmp(mode, "always") || !strcmp(mode, "madvise") || !strcmp(mode, "never");
}

int modes_need_thp(const struct thp_ctx *ctx)
{
	if (thp_policy_dir(&ctx->root, NULL))
		return 0;
	thp_err("this kernel has no THP (no /sys/kernel/mm/transparent_hugepage; built without "
		"CONFIG_TRANSPARENT_HUGEPAGE): there is nothing to measure");
	return 1;
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
 * journals the policy. Returns 0 or 1 (printed). */
static int journal_policy(struct thp_ctx *ctx, const struct modes *m)
{
	char why[512], shown[4200];
	struct thp_change *en;
	int err;

	if (thp_change_begin(ctx, "switching the THP policy") || thp_recover(ctx, false))
		return 1;
	cs = thp_changes_load(&ctx->root);
	if (!cs)
		return 1;
	en = thp_change_find(cs, "enabled");
	for (int i = 0; i < m->n; i++) {
		/* each mode is checked; the journal needs one wanted value */
		if (modes_switches(m->word[i]) &&
		    (!en || thp_change_check(cs, en, m->word[i], true, en->want, why, sizeof(why)) != 0)) {
			thp_err("this kernel does not offer 'enabled=%s'", m->word[i]);
			return 1;
		}
	}
	err = thp_journal_push(&journal, &ctx->root, cs);
	if (err) {
		thp_shown_path(ctx, THP_JOURNAL, shown, sizeof(shown));
		thp_err("cannot save the THP policy to '%s': %s%s", shown,
			err == -EEXIST ? "another thp started a change meanwhile" : thp_file_strerror(err),
			thp_root_hint(err));
		return 1;
	}
	return 0;
}

/* Says on stderr, before anything is switched, which host-wide setting the
 * command switches for the modes M, for how long (SPAN), and that it is put
 * back. */
static void notice(const struct modes *m, const char *span)
{
	const struct thp_change *en = thp_change_find(cs, "enabled");
	char list[MODES_MAX * (MODE_LEN + 2)] = "";

	for (int i = 0; i < m->n; i++)
		if (modes_switches(m->word[i]))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 list[0] ? ", " : "", m->word[i]);
	thp_err("switches the host-wide THP policy 'enabled' (now '%s') to %s in turn, %s, and "
		"puts it back after, also on Ctrl-C (-q: no notice)", en->old, list, span);
}

int modes_begin(struct thp_ctx *ctx, const struct modes *m, const char *span)
{
	struct sigaction sa;
	int n = 0;

	for (int i = 0; i < m->n; i++)
		n += modes_switches(m->word[i]);
	if (n && journal_policy(ctx, m))
		return 1;
	if (n && !m->quiet)
		notice(m, span);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a wait returns EINTR and sees the flag */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return 0;
}

int modes_apply(const char *mode)
{
	const struct thp_kv *prior = thp_kv_get(&journal.s.values, "enabled");
	char why[512];
	int err, signo = 0;

	if (!journal.open || (!modes_switches(mode) && !prior))
		return 0;
	err = thp_changes_read(journal.root, cs);
	if (!err)
		err = thp_changes_want(cs, "enabled", modes_switches(mode) ? mode : prior->value, why,
				       sizeof(why));
	if (!err)
		err = thp_changes_apply(journal.root, cs, &signo);
	if (signo)
		stop = signo;
	if (err && !signo) {
		thp_err("cannot write 'enabled': %s%s", thp_strerror(err), thp_root_hint(err));
		return 1;
	}
	return err ? 1 : 0;
}

int modes_end(void)
{
	const struct thp_kv *prior = thp_kv_get(&journal.s.values, "enabled");
	char why[512];
	int err, signo = 0, drop_err;

	if (!journal.open)
		return 0;
	err = thp_journal_pop(&journal, cs, &signo, why, sizeof(why), &drop_err);
	free(cs);
	cs = NULL;
	if (signo)
		stop = signo;
	if (err == -EBADE) {
		/* bench and ab run on the live host only */
		thp_err("put back 'enabled=%s', but cannot remove the journal '/" THP_JOURNAL "': %s; "
			"remove it", prior ? prior->value : "?", thp_file_strerror(drop_err));
		return 1;
	}
	if (err) {
		thp_err("cannot restore 'enabled=%s': %s; 'thp restore' puts it back later",
			prior ? prior->value : "?", err == -EINVAL ? why : thp_strerror(err));
		return 1;
	}
	return 0;
}

void busy_warning(const struct thp_busy *b, const char *result)
{
	char text[160], line[sizeof(text) + 128];

	snprintf(line, sizeof(line), "the host is busy (%s): %s.", thp_busy_text(b, text, sizeof(text)), result);
	out_wrap("Warning:", line, 100);
	putchar('\n');
}
