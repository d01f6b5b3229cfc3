/* SPDX-License-Identifier: GPL-2.0-or-later */
/* modes.c - measure under several THP modes, and put the host policy back */
#include "modes.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "../control/control.h"
#include "cmd.h"

static struct thp_switch sw;
static volatile pid_t child;

int modes_parse(const char *cmd, const char *list, const char *const *allowed, struct modes *m)
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
			thp_err("%s: invalid mode '%.*s' (choose from: %s)", cmd, (int)n, p, choices);
			return 2;
		}
		for (int i = 0; i < m->n; i++) {
			if (strlen(m->word[i]) == n && strncmp(m->word[i], p, n) == 0) {
				thp_err("%s: mode '%.*s' given twice", cmd, (int)n, p);
				return 2;
			}
		}
		memcpy(m->word[m->n], p, n);
		m->word[m->n++][n] = '\0';
		p += n + (p[n] == ',');
	}
	if (!m->n) {
		thp_err("%s: empty mode list", cmd);
		return 2;
	}
	return 0;
}

bool modes_switches(const char *mode)
{
	return !strcmp(mode, "always") || !strcmp(mode, "madvise") || !strcmp(mode, "never");
}

static void on_signal(int sig)
{
	if (child > 0)
		kill(child, SIGTERM);
	thp_switch_end_signal(&sw);
	signal(sig, SIG_DFL);
	raise(sig);
}

static const char *perm_hint(int err)
{
	return err == -EACCES || err == -EPERM || err == -EROFS ? " (run as root)" : "";
}

int modes_begin(const struct thp_root *root, const struct modes *m)
{
	const char *want[MODES_MAX + 1], *bad;
	struct sigaction sa;
	int n = 0, err;

	for (int i = 0; i < m->n; i++)
		if (modes_switches(m->word[i]))
			want[n++] = m->word[i];
	want[n] = NULL;
	if (n) {
		err = thp_switch_begin(&sw, root, want, &bad);
		if (err == -EINVAL && bad) {
			thp_err("this kernel does not offer 'enabled=%s'", bad);
			return 1;
		}
		if (err) {
			thp_err("cannot save the THP policy to '/%s': %s%s", THP_SWITCH_JOURNAL,
				thp_file_strerror(err), perm_hint(err));
			return 1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return 0;
}

int modes_apply(const char *mode)
{
	int err;

	if (!modes_switches(mode) && !sw.active)
		return 0;
	err = thp_switch_set(&sw, modes_switches(mode) ? mode : sw.prior);
	if (err) {
		thp_err("cannot write 'enabled': %s%s", thp_strerror(err), perm_hint(err));
		return 1;
	}
	return 0;
}

int modes_end(void)
{
	int err = thp_switch_end(&sw);

	if (err) {
		thp_err("cannot restore 'enabled=%s': %s; 'thp restore /%s' puts it back later",
			sw.prior, thp_strerror(err), THP_SWITCH_JOURNAL);
		return 1;
	}
	return 0;
}

void modes_watch_child(pid_t pid)
{
	child = pid;
}
