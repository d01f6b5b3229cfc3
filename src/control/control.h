/* SPDX-License-Identifier: GPL-2.0-or-later */
/* control.h - the only code that writes to the kernel (sysfs, procfs, prctl,
 * madvise) and the files thp keeps */
#ifndef THP_CONTROL_H
#define THP_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <signal.h>
#include <sys/types.h>

#include "../core/root.h"
#include "../core/state.h"

/* Writes VALUE to the kernel file REL below ROOT: on the live kernel in one
 * write(2), as sysfs wants (it takes or fails); in a recorded tree through a
 * temporary file renamed over REL (thp_file_write), so that REL holds exactly
 * the old or the new VALUE whatever fails. Returns 0, or -errno (a short write
 * is -EIO; an error of close(2) counts, though the value may have taken).
 * Validation and read-back are the caller's job. */
int thp_write_file(const struct thp_root *root, const char *rel, const char *value);

struct thp_changes;

/* Writes every wanted change of CS in order and reads each back. On the first
 * failure, or when SIGINT, SIGTERM or SIGHUP arrives (the handlers only note
 * it), puts back every value already written (last first). Refuses with
 * -EPERM before any write on the live root without root. Returns 0, the
 * failure's -errno, or -EINTR with *SIGNO set. */
int thp_changes_apply(const struct thp_root *root, struct thp_changes *cs, int *signo);

/* THP mode of a process, as PR_GET_THP_DISABLE reports it. */
enum thp_mode {
	THP_MODE_ENABLED = 0,        /* THP as the host policy allows */
	THP_MODE_DISABLED = 1,       /* PR_SET_THP_DISABLE: no THP, MADV_COLLAPSE refused */
	THP_MODE_EXCEPT_ADVISED = 3, /* ... except in MADV_HUGEPAGE ranges (Linux 6.18+) */
};

/* The calling process's THP mode. Returns it (>= 0) or -errno. */
int thp_mode_get(void);

/* Sets the calling process's THP mode, which fork and exec pass on. Returns 0
 * or -errno; -EINVAL for THP_MODE_EXCEPT_ADVISED on a kernel before 6.18. */
int thp_mode_set(enum thp_mode mode);

/* Opens a pidfd for PID (Linux 5.3+). Returns the descriptor or -errno. */
int thp_pidfd_open(pid_t pid);

/* Asks the kernel to collapse [START, START+LEN) of the process behind PIDFD
 * into huge pages now (process_madvise with MADV_COLLAPSE, Linux 6.1+).
 * Returns 0 or -errno: -ENOSYS before process_madvise (5.10), -EINVAL when
 * the kernel lacks MADV_COLLAPSE or the range may not have THP, -EPERM
 * without CAP_SYS_NICE or ptrace access, -EAGAIN/-ENOMEM when no huge page
 * could be had. */
int thp_collapse_range(int pidfd, uint64_t start, uint64_t len);

struct thp_region;

/* madvise(2) with ADVICE on the whole of thp's own region R. Returns 0 or -errno. */
int thp_region_advise(const struct thp_region *r, int advice);
/* Takes the writers' lock below ROOT (THP_LOCK, created 0600 in the state
 * directory, created as by thp_state_dir), held until thp exits; waits for
 * it at most WAIT_MS milliseconds. Once it holds the lock, removes the
 * temporary files that killed writers left where thp writes. Taking it again is a no-op; a recorded
 * tree without run/ (no state to share) takes none. Returns 0, -EBUSY with
 * the holder in H when another process kept it, or -errno. */
int thp_writer_lock(const struct thp_root *root, int wait_ms, struct thp_lock_holder *h);

/* Opens THP_STATE_DIR below ROOT (creating it 0700 with CREATE; its parent
 * must exist). Returns an open directory descriptor or -errno: -ELOOP when it
 * is a symbolic link, -EUCLEAN when it is not owned by the caller (root) or is
 * writable by group or others. */
int thp_state_dir(const struct thp_root *root, bool create);

/* Opens the directory holding PATH (a path the user named: absolute, or
 * relative to the current directory) and points *NAME at PATH's last
 * component; creates nothing. Returns an O_PATH descriptor or -errno. */
int thp_file_dir(const char *path, const char **name);

/* 0 when NAME in DIRFD is absent or a regular file, which the writers below
 * may replace; else why not: -ELOOP (symbolic link), -EISDIR, -EEXIST
 * (device, FIFO, socket), or -errno of the lookup. */
int thp_file_check(int dirfd, const char *name);

/* A fresh name ".NAME.XXXXXX" (random letters) for a temporary file or
 * directory beside NAME. */
void thp_temp_name(const char *name, char tmp[NAME_MAX + 1]);

/* Removes the temporary files beside NAME (NULL: beside any name) in DIRFD
 * that writers killed between creating and renaming them left: those no
 * process holds locked. With LINKS also temporary symbolic links
 * (thp_file_link's), which only the writers' lock protects: the caller
 * holds it. */
void thp_temp_sweep(int dirfd, const char *name, bool links);

/* Writes a file's content to FD. Returns 0 or -errno. */
typedef int (*thp_fill_fn)(int fd, void *arg);

/* Replaces NAME in directory DIRFD by what FILL writes: into a new temporary
 * file beside it (O_CREAT|O_EXCL|O_NOFOLLOW, MODE whatever the umask), fsync,
 * rename. SIGINT, SIGTERM and SIGHUP are held meanwhile; one that arrives
 * leaves NAME as it was (-EINTR) and ends thp when held no more. The temporary
 * file never outlives the call, and is locked (flock) while it exists: one
 * that no process holds locked was left by a writer killed (SIGKILL, a crash)
 * and is removed by the next write of NAME. An existing NAME that is not a regular file is
 * never touched: -ELOOP (symbolic link), -EISDIR, -EEXIST (device, FIFO,
 * socket). Returns 0 or -errno. */
int thp_file_write_with(int dirfd, const char *name, mode_t mode, thp_fill_fn fill, void *arg);

/* thp_file_write_with() for the NUL-terminated text DATA. */
int thp_file_write(int dirfd, const char *name, const char *data, mode_t mode);

/* thp_file_write() of a file that must not exist yet: -EEXIST when it does
 * (or appears meanwhile), and nothing is replaced. */
int thp_file_write_new(int dirfd, const char *name, const char *data, mode_t mode);

/* Points NAME in DIRFD at TARGET (a symbolic link), replacing an old link
 * but nothing else (-EISDIR, -EEXIST). Removes the temporary links beside
 * NAME that a killed run left: the caller holds the writers' lock
 * (thp_writer_lock). Returns 0 or -errno. */
int thp_file_link(int dirfd, const char *target, const char *name);

/* Words for an -errno of the writers above ("it is a symbolic link, ..."). */
const char *thp_file_strerror(int err);

/* Holds SIGINT, SIGTERM and SIGHUP (the old mask goes to *OLD); whether one
 * of them that is not ignored arrived meanwhile; releases them (a pending one
 * is delivered). */
void thp_signals_hold(sigset_t *old);
bool thp_signals_pending(void);
void thp_signals_release(const sigset_t *old);

/* Ends the process by SIGNO (the default action), after a change was put back. */
int thp_die_by(int signo);

/* Removes REL below the root, in its directory opened inside the tree.
 * Returns 0 or -errno (-EXDEV: a link on the way points outside the recorded
 * tree). */
int thp_root_unlink(const struct thp_root *r, const char *rel);

#endif
