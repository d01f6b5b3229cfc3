/* SPDX-License-Identifier: GPL-2.0-or-later */
/* modes.h - measure under several THP modes and always put the host policy back
 * (also on SIGINT, SIGTERM and SIGHUP); shared by 'thp bench' and 'thp ab' */
#ifndef THP_MODES_H
#define THP_MODES_H

#include <stdbool.h>
#include <sys/types.h>

#include "../core/root.h"

#define MODES_MAX 8
#define MODE_LEN 16

struct modes {
	int n;
	char word[MODES_MAX][MODE_LEN];
};

/* Splits the comma list LIST into M, accepting only words of ALLOWED (NULL-terminated).
 * Prints the error for command CMD and returns 2 on bad input, else 0. */
int modes_parse(const char *cmd, const char *list, const char *const *allowed, struct modes *m);

/* True for "always", "madvise" and "never": modes that switch the host policy. */
bool modes_switches(const char *mode);

/* Saves the host policy (journal under /run/thp) when M holds a switching mode,
 * and installs the signal handlers that undo it and end a watched child.
 * Prints the error and returns 1 on failure, else 0. */
int modes_begin(const struct thp_root *root, const struct modes *m);
/* Switches the host policy for MODE; other modes run under the prior policy.
 * Returns 0 or 1 (printed). */
int modes_apply(const char *mode);
/* Puts the prior policy back. Returns 0 or 1 (printed). */
int modes_end(void);
/* A signal that ends thp also sends SIGTERM to PID (0: none). */
void modes_watch_child(pid_t pid);

#endif
