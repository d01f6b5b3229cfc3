/* SPDX-License-Identifier: GPL-2.0-or-later */
/* modes.h - switch the host's THP policy for a measurement under several
 * modes ('thp bench', 'thp ab') and always put it back (also on SIGINT,
 * SIGTERM and SIGHUP), through the journal of a change */
#ifndef THP_MODES_H
#define THP_MODES_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/root.h"

#define MODES_MAX 8
#define MODE_LEN 16

struct modes {
	int n;
	char word[MODES_MAX][MODE_LEN];
	bool quiet; /* no notice of the switch on stderr (-q) */
};

/* True for "always", "madvise" and "never": modes that switch the host policy. */
bool modes_switches(const char *mode);

/* True when M holds a mode that switches the host policy. */
bool modes_switching(const struct modes *m);

/* Starts a measurement under the modes M below ROOT: when M holds a
 * switching mode, checks that the kernel offers every mode and journals the
 * policy (the caller holds the writers' lock, and has put back a change an
 * earlier run left unfinished). From now on SIGINT, SIGTERM and SIGHUP only
 * set a flag (modes_signal). Returns 0, or 1 after writing to WHY (CAP
 * bytes) what failed. */
int modes_begin(const struct thp_root *root, const struct modes *m, char *why, size_t cap);

/* The policy 'enabled' as modes_begin() journaled it. */
const char *modes_prior(void);

/* Switches the host policy for MODE; other modes run under the prior policy.
 * Returns 0, or 1 after writing to WHY (CAP bytes) what failed ("" when a
 * signal stopped it). */
int modes_apply(const char *mode, char *why, size_t cap);

/* Puts the prior policy back and removes the journal. Returns 0, or 1 after
 * writing to WHY (CAP bytes) what failed. */
int modes_end(char *why, size_t cap);

/* The signal that asked thp to stop since modes_begin(), or 0: measuring
 * loops check it and end early; the command then ends by it (thp_die_by)
 * once modes_end() has put the policy back. */
int modes_signal(void);

#endif
