/* SPDX-License-Identifier: GPL-2.0-or-later */
/* msg.h - error messages in one style: "thp: CMD: cannot read 'x': Reason" */
#ifndef THP_MSG_H
#define THP_MSG_H

struct thp_root;

/* Prints "thp: CMD: MESSAGE" to stderr, CMD being the command that runs
 * (thp_err_cmd), or "thp: MESSAGE" before one runs. */
void thp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Names the command whose messages thp_err() prints from now on ("ps",
 * "hugetlb set"); NULL: none. */
void thp_err_cmd(const char *cmd);

/* " (run as root)" when ERR is -EACCES or -EPERM and thp does not run as root,
 * else "": the hint to append to a permission error. */
const char *thp_root_hint(int err);

/* Says which link of R's recorded tree was found pointing outside it (and
 * how many paths were refused for that), then closes R. */
void thp_root_done(struct thp_root *r);

/* Says that the processes below ROOT could not be listed to the end (ERR,
 * -errno), and THEN: what the command leaves out for that. */
void thp_procs_unlisted(const struct thp_root *root, int err, const char *then);

/* Handles an unknown option or stray argument: prints a hint, returns 2. */
int thp_usage_error(const char *cmd);

#endif
