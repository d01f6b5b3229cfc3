/* SPDX-License-Identifier: GPL-2.0-or-later */
/* control.h - the only code that writes to the kernel (sysfs, procfs, prctl, madvise) */
#ifndef THP_CONTROL_H
#define THP_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../core/root.h"

/* Writes VALUE to the kernel file REL below ROOT in one write(2), as sysfs wants
 * (the file is truncated first, as a shell redirection does, so that a recorded
 * tree under --root holds exactly VALUE).
 * Returns 0, or -errno (a short write is -EIO). Validation and read-back are
 * the caller's job. */
int thp_write_file(const struct thp_root *root, const char *rel, const char *value);

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
/* Replaces PATH (relative to DIRFD) with DATA through a temporary file, fsync
 * and rename, creating missing parent directories. Returns 0 or -errno. */
int thp_file_replace(int dirfd, const char *path, const char *data, mode_t mode);

/* Creates the symbolic link PATH -> TARGET (relative to DIRFD), replacing an
 * old link and creating parent directories. Returns 0 or -errno. */
int thp_file_link(int dirfd, const char *target, const char *path);

/* thp_file_replace() and thp_file_link() of REL below the root, in its
 * directory opened inside the tree (missing directories are made), and the
 * removal of REL there. Return 0 or -errno (-EXDEV: a link on the way points
 * outside the recorded tree). */
int thp_root_replace(const struct thp_root *r, const char *rel, const char *data, mode_t mode);
int thp_root_link(const struct thp_root *r, const char *target, const char *rel);
int thp_root_unlink(const struct thp_root *r, const char *rel);

/* A temporary change of the global THP policy ('enabled'). The prior value is
 * written to a journal before the first change, so that an interrupted run can
 * be undone; thp_switch_end() restores it and removes the journal. */
struct thp_switch {
	const struct thp_root *root;
	char prior[32];   /* the policy to restore */
	char journal[96]; /* below the root */
	bool active;      /* the journal exists and the policy may differ from prior */
};

/* Where the journal of the policy switch lives, below the root. */
#define THP_SWITCH_JOURNAL "run/thp/bench.journal"

/* Validates MODES (NULL-terminated) against the kernel's choices for 'enabled',
 * reads the prior policy (or takes it from the journal of an interrupted run)
 * and writes the journal. Returns 0 or -errno; *BAD names a refused mode. */
int thp_switch_begin(struct thp_switch *s, const struct thp_root *root,
		     const char *const *modes, const char **bad);
/* Writes MODE to 'enabled' and reads it back. Returns 0, -errno or -EIO (read-back). */
int thp_switch_set(struct thp_switch *s, const char *mode);
/* Restores the prior policy, reads it back and removes the journal. Returns 0 or -errno. */
int thp_switch_end(struct thp_switch *s);
/* The same, with async-signal-safe calls only, for a signal handler. */
void thp_switch_end_signal(struct thp_switch *s);

#endif
