/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.h - what a command works on, for the commands that share it
 * (target.c): the --root tree or capture archive, a process, and whether
 * the host may be read or changed at all, and the writers' lock */
#ifndef THP_TARGET_H
#define THP_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct thp_ctx;
struct thp_pstatus;
struct thp_root;
struct thp_rootarg;

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

/* Before the first change of a writing command (WHAT, as for
 * thp_need_root): needs root on the live host, refuses an archive root, and
 * takes the writers' lock below the root, waiting up to THP_LOCK_WAIT_MS
 * (control/change.h) for another writer to end. Returns 0, or the exit
 * status after saying why not (1 naming the holder when it did not end in
 * time). */
int thp_change_begin(const struct thp_ctx *ctx, const char *what);

/* For a command that measures THP: prints that this kernel has none and
 * returns 1 when its THP directory is absent, before anything is changed;
 * else returns 0. */
int modes_need_thp(const struct thp_ctx *ctx);

#endif
