/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd.h - what every command gets, and the commands themselves */
#ifndef THP_CMD_H
#define THP_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../control/control.h"
#include "../core/doctor.h"
#include "../core/root.h"
#include "../render/msg.h"

/* A --root argument opened as a root: a directory, or a capture archive
 * unpacked into DIR until thp_rootarg_close (or the end of thp, however it
 * ends: a process of its own then removes DIR). */
struct thp_rootarg {
	char dir[4096]; /* the unpacked archive; "" for a directory */
	int keeper;     /* keeps the remover waiting while open; -1 */
	pid_t remover;  /* that process; 0 */
};

/* Global options, parsed by main before the command. */
struct thp_ctx {
	struct thp_root root;
	struct thp_rootarg rootarg;
	bool json;
	const char *cmd; /* the command's name, for messages */
	bool writes;     /* the command may change the host (WRITES in main's table) */
};

/* Opens ARG (a directory, or a capture archive: tar, plain or compressed) as
 * root R. A directory other than / must hold proc/ or sys/. Returns 0, or 1
 * after saying why not, calling ARG WHAT ("root"). */
int thp_rootarg_open(struct thp_root *r, struct thp_rootarg *a, const char *arg, const char *what);

/* Opens ARG as the root of CTX (thp_rootarg_open), in place of the one open:
 * the global --root, and a command's own --root that means the same. Returns
 * 0, or 1 after saying why not. */
int thp_ctx_root(struct thp_ctx *ctx, const char *arg);

/* Closes R (saying which links of it were not followed) and removes A's
 * unpacked archive. */
void thp_rootarg_close(struct thp_root *r, struct thp_rootarg *a);

/* Starts a process of its own that removes directory DIR, made by thp, and
 * everything below it when thp_dir_release(A) lets it go or thp ends, however
 * it ends (SIGKILL too); A->dir is DIR. Hold SIGINT, SIGTERM and SIGHUP from
 * making DIR until this returns: from then on they may end thp at once.
 * Returns 0 or -errno. */
int thp_dir_kept(struct thp_rootarg *a, const char *dir);

/* Removes A's directory, if any, and lets its remover go. */
void thp_dir_release(struct thp_rootarg *a);

/* Unpacks capture archive ARG (thp_unpack) into a new directory A->dir
 * (thp_unpack_dir) kept as thp_dir_kept does: SIGINT, SIGTERM and SIGHUP end
 * thp at once, also during the unpack. Returns 0, or -errno after WHY (WCAP
 * bytes) says what failed; A is then released. */
int thp_unpack_kept(struct thp_rootarg *a, const char *arg, char *why, size_t wcap);

/* Reads process PID's status into ST. Returns 0, or 1 after
 * saying why it has no memory to look at: no such process, a zombie, a kernel
 * thread (unless KTHREAD_OK), or its status unreadable. */
int thp_pid_target(const struct thp_ctx *ctx, pid_t pid, bool kthread_ok,
		   struct thp_pstatus *st);

/* A command: parses its own options from ARGV (ARGV[0] is its name) and returns
 * the exit status: 0 ok, 1 error, 2 usage. */
typedef int (*thp_cmd_fn)(struct thp_ctx *ctx, int argc, char **argv);

int cmd_status(struct thp_ctx *ctx, int argc, char **argv);
int cmd_capture(struct thp_ctx *ctx, int argc, char **argv);
int cmd_hugetlb(struct thp_ctx *ctx, int argc, char **argv);
int cmd_watch(struct thp_ctx *ctx, int argc, char **argv);
int cmd_exec(struct thp_ctx *ctx, int argc, char **argv);
int cmd_collapse(struct thp_ctx *ctx, int argc, char **argv);
int cmd_doctor(struct thp_ctx *ctx, int argc, char **argv);
int cmd_trace(struct thp_ctx *ctx, int argc, char **argv);
int cmd_set(struct thp_ctx *ctx, int argc, char **argv);
int cmd_restore(struct thp_ctx *ctx, int argc, char **argv);
int cmd_diff(struct thp_ctx *ctx, int argc, char **argv);
int cmd_persist(struct thp_ctx *ctx, int argc, char **argv);
int cmd_ps(struct thp_ctx *ctx, int argc, char **argv);
int cmd_show(struct thp_ctx *ctx, int argc, char **argv);

int cmd_metrics(struct thp_ctx *ctx, int argc, char **argv);
int cmd_serve(struct thp_ctx *ctx, int argc, char **argv);
int cmd_report(struct thp_ctx *ctx, int argc, char **argv);

struct thp_changes;
struct thp_state_file;

/* Reads the settings below ROOT that thp writes (malloc'd), or explains why
 * not and returns NULL. */
struct thp_changes *thp_changes_load(const struct thp_root *root);

/* Asks CS for the KEY=VALUE arguments ARGV[0..ARGC) of command CMD. Returns 0,
 * or the exit status (2) after explaining a malformed or refused one. */
int thp_want_args(struct thp_changes *cs, int argc, char **argv, const char *cmd);

/* The saved state as shown to the user: FILE, or the default below the root. */
void thp_saved_path(const struct thp_ctx *ctx, const char *file, char *buf, size_t cap);

/* REL below the root as shown to the user: "/run/thp/journal", "DIR/run/thp/journal". */
void thp_shown_path(const struct thp_ctx *ctx, const char *rel, char *buf, size_t cap);

/* How long a writer waits for another to end before it gives up. */
#define THP_LOCK_WAIT_MS 10000

/* Before the first change of a writing command (WHAT, as for
 * thp_need_root): needs root on the live host, refuses an archive root, and
 * takes the writers' lock below the root, waiting up to THP_LOCK_WAIT_MS for
 * another writer to end. Returns 0, or the exit status after saying why not
 * (1 naming the holder when it did not end in time). */
int thp_change_begin(const struct thp_ctx *ctx, const char *what);

/* Makes the wanted changes of CS as one transaction: the journal first,
 * then every write read back and rolled back on failure or a signal; reports
 * them (SAVED: where the previous state is, as shown; FILE:
 * a file the user named). Returns the exit status; a signal that
 * interrupted it ends thp after the rollback. */
int thp_change_run(struct thp_ctx *ctx, struct thp_changes *cs, const char *saved, bool user_file);

/* Before a change: deals with the journal an earlier thp left.
 * None, or one from an earlier boot (removed): nothing to do. One of a
 * change that did not finish: its settings are put back now (with DRY, only
 * said). Returns 0 when the change may go on, or 1 after explaining why not
 * (a change still running, a damaged journal, a failed put-back). */
int thp_recover(struct thp_ctx *ctx, bool dry);

/* Before a change (holding the writers' lock): puts back the
 * pools of a 'thp hugetlb set' that did not finish (its journal,
 * THP_POOLS_JOURNAL), and removes the journal; with DRY, only says so.
 * *FOUND (when FOUND is non-NULL) tells whether there was such a journal.
 * Returns 0 when the change may go on, or 1 after explaining why not (a
 * damaged or unreadable journal, a failed put-back). */
int thp_recover_pools(struct thp_ctx *ctx, bool dry, bool *found);

int cmd_bench(struct thp_ctx *ctx, int argc, char **argv);
int cmd_ab(struct thp_ctx *ctx, int argc, char **argv);

struct modes;

/* Splits the comma list LIST of --modes into M, accepting only words of
 * ALLOWED (NULL-terminated). Prints the error and returns 2 on bad input,
 * else 0. */
int modes_parse(const char *list, const char *const *allowed, struct modes *m);

/* For a command that measures THP: prints that this kernel has none and
 * returns 1 when its THP directory is absent, before anything is changed;
 * else returns 0. */
int modes_need_thp(const struct thp_ctx *ctx);

/* 'thp --version': prints VERSION, one line (or {"version"} in JSON). */
int thp_version(const struct thp_ctx *ctx, const char *version);

/* Options of 'thp metrics' that 'thp serve' takes too (core/metrics.h). */
struct thp_metrics_opts;
enum { THP_OPT_PIDS = 0x100, THP_OPT_NODE_EXPORTER_COMPAT, THP_OPT_NO_DOCTOR };
/* Those options, for a table of opt.h (help at column 24). */
#define THP_OPTS_METRICS                                                                           \
	THP_OPT('t', "top", "N", "export AnonHugePages of the N command names holding the\n"      \
				 "most, summed over their processes (default 20; 0: none)"),       \
	THP_OPT_LONG(THP_OPT_PIDS, "pids", NULL, "one series per process (labels pid and comm) instead of\n" \
						 "one per command name"),                          \
	THP_OPT_LONG(THP_OPT_NODE_EXPORTER_COMPAT, "node-exporter-compat", NULL, NULL),            \
	THP_OPT_LONG(THP_OPT_NO_DOCTOR, "no-doctor", NULL,                                         \
		     "leave out the doctor's findings and persistence drift\n"                      \
		     "(then no process is read beyond the --top scan)")

/* Takes option C (with ARG) of THP_OPTS_METRICS into O.
 * Returns 0, 1 when C is not one of them, or 2 after explaining a bad value. */
int thp_metrics_opt(int c, const char *arg, struct thp_metrics_opts *o);

/* Numeric arguments, read with core/arg.h (decimal, no leading zero, in
 * range). On a bad value each prints "thp: CMD: WHAT 'ARG' is ..." (thp_err) with what
 * it accepts and returns false; the caller then exits 2 having changed
 * nothing. WHAT names the option ("--interval") or the operand ("process id"). */
bool thp_opt_u64(const char *what, const char *arg, uint64_t min, uint64_t max,
		 uint64_t *v);
bool thp_opt_int(const char *what, const char *arg, int min, int max, int *v);
/* A number of UNIT ("seconds") with up to THP_ARG_DECIMALS decimals. */
bool thp_opt_decimal(const char *what, const char *arg, const char *unit, double min,
		     double max, double *v);
/* A size ("64M"); MAX_IS, when not NULL, says where MAX comes from ("MemAvailable"). */
bool thp_opt_size(const char *what, const char *arg, uint64_t min, uint64_t max,
		  const char *max_is, uint64_t *v);
/* A percentage ("5%", "2.5") in basis points, at most MAX_BP. */
bool thp_opt_percent(const char *what, const char *arg, unsigned max_bp, unsigned *bp);

struct option;

/* getopt_long(3) with getopt's own messages replaced: an unknown or ambiguous
 * option, a missing argument or an argument given to a flag prints "thp: CMD:
 * ..." (thp_err) and returns '?', on which the caller exits with
 * thp_usage_error(). */
int thp_getopt(int argc, char **argv, const char *opts, const struct option *lo);

/* The largest process or thread id any command accepts. */
#define THP_PID_MAX INT32_MAX

/* Returns 0 when the command of CTX may go on: it works below a recorded tree,
 * or thp runs as root. Otherwise says "thp: CMD: WHAT needs root (run as
 * root)" (WHAT NULL: the command needs root) and returns 1, the exit status.
 * Only commands marked WRITES in main's table ask it with a WHAT, before
 * their first change: below a capture archive (a temporary directory) WHAT
 * is refused with exit 2. */
int thp_need_root(const struct thp_ctx *ctx, const char *what);

/* Returns 0 on the live host. Below a recorded tree says "thp: CMD: WHAT
 * works on the running kernel only; it cannot be used with --root" (WHAT
 * NULL: the whole command, as main's LIVE_ONLY) and returns 2, the exit
 * status of a usage error. */
int thp_live_only(const struct thp_ctx *ctx, const char *what);

#endif
