/* SPDX-License-Identifier: GPL-2.0-or-later */
/* modes.h - measure under several THP modes and always put the host policy back
 * (also on SIGINT, SIGTERM and SIGHUP); shared by 'thp bench' and 'thp ab' */
#ifndef THP_MODES_H
#define THP_MODES_H

#include <stdbool.h>
#include <sys/types.h>

#include "cmd.h"

#define MODES_MAX 8
#define MODE_LEN 16

struct modes {
	int n;
	char word[MODES_MAX][MODE_LEN];
	bool quiet; /* no notice of the switch on stderr (-q) */
};

/* Splits the comma list LIST into M, accepting only words of ALLOWED (NULL-terminated).
 * Prints the error and returns 2 on bad input, else 0. */
int modes_parse(const char *list, const char *const *allowed, struct modes *m);

/* True for "always", "madvise" and "never": modes that switch the host policy. */
bool modes_switches(const char *mode);

/* For a command that measures THP: prints that this kernel has none and
 * returns 1 when its THP directory is absent, before anything is changed;
 * else returns 0. */
int modes_need_thp(const struct thp_ctx *ctx);

/* Starts a measurement under the modes M: when M
 * holds a switching mode, puts back a change an earlier run left unfinished,
 * checks that the kernel offers every mode, journals the policy and (unless
 * M->quiet) says on stderr what it switches, for how long (SPAN: "for the 5
 * runs of the command under each mode") and that it is put back. From now
 * on SIGINT, SIGTERM and SIGHUP only set a flag (modes_signal). Prints the
 * error and returns 1 on failure, else 0. */
int modes_begin(struct thp_ctx *ctx, const struct modes *m, const char *span);
/* Switches the host policy for MODE; other modes run under the prior policy.
 * Returns 0 or 1 (printed). */
int modes_apply(const char *mode);
/* Puts the prior policy back and removes the journal. Returns 0 or 1 (printed). */
int modes_end(void);
/* The signal that asked thp to stop since modes_begin(), or 0: measuring
 * loops check it and end early; the command then ends by it (thp_die_by)
 * once modes_end() has put the policy back. */
int modes_signal(void);

struct thp_busy;
/* Prints that the host is busy (thp_busy_text) and that RESULT follows,
 * wrapped as out_wrap() does, then an empty line. */
void busy_warning(const struct thp_busy *b, const char *result);

#endif
