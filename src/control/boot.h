/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boot.h - writing the files that boot applies (sysctl.d, tmpfiles.d,
 * systemd unit): those of 'thp hugetlb persist' as one change, the one of
 * 'thp persist'. Nothing here prints: each writer returns what it wrote,
 * put back or could not, which render/persist.h puts in words. */
#ifndef THP_CONTROL_BOOT_H
#define THP_CONTROL_BOOT_H

#include <stdbool.h>
#include <sys/types.h>

#include "../core/persist.h"
#include "../core/root.h"

/* What became of the journal of a change of boot files that did not finish
 * (THP_BOOT_JOURNAL), before a new change. */
enum thp_boot_back_case {
	THP_BOOT_BACK_NONE,       /* no journal */
	THP_BOOT_BACK_UNREADABLE, /* it cannot be read: err */
	THP_BOOT_BACK_DAMAGED,    /* damaged at line (0: the file as a whole), or it names
				     other files */
	THP_BOOT_BACK_STUCK,      /* the files with a put_err cannot be put back */
	THP_BOOT_BACK_KEPT,       /* its files are put back, but it cannot be removed: err */
	THP_BOOT_BACK_PUT_BACK,   /* its n files are put back and it is removed */
};

struct thp_boot_back {
	enum thp_boot_back_case what;
	char journal[4200]; /* its path as shown */
	int err, line;
	char command[256]; /* of the change that did not finish */
	pid_t owner;
	int n; /* files in its journal */
	struct {
		char path[256]; /* below the root */
		int put_err;    /* putting it back failed: -errno */
	} v[THP_BOOT_FILES_MAX];
};

/* Before a change of the N files F, holding the writers' lock: puts back the
 * files of such a change that did not finish (its journal below ROOT) and
 * removes its journal. Says in B what happened; returns 0 when the change
 * may go on (no journal, or one put back and removed). */
int thp_boot_files_recover(const struct thp_root *root, const struct thp_boot_file *f, int n,
			   struct thp_boot_back *b);

/* What a change of boot files (thp_boot_files_write) did. */
enum thp_boot_case {
	THP_BOOT_FOREIGN,      /* file `file` is there and thp did not write it */
	THP_BOOT_NO_JOURNAL,   /* the journal cannot be written: err */
	THP_BOOT_FAILED,       /* file `file` cannot be written (removed): err; the files
				  before it are put back, but those with an undo_err */
	THP_BOOT_CHANGED,      /* every file changed (each file's done says how) */
};

struct thp_boot_run {
	enum thp_boot_case what;
	char journal[4200]; /* THP_BOOT_JOURNAL as shown */
	int err, file;
	int undo_err[THP_BOOT_FILES_MAX]; /* THP_BOOT_FAILED: putting file I back failed */
	bool stuck;                       /* so the journal stays, for the next change */
	int drop_err;                     /* the journal (FAILED or CHANGED) cannot be removed */
};

/* After thp_boot_files_recover, replaces each of the N files F (read with
 * thp_boot_files_read; N at most THP_BOOT_FILES_MAX) below ROOT by its text,
 * or removes it when its text is NULL and thp wrote it. The files are read
 * again first; with more than one file to change, they are journaled as they
 * are (THP_BOOT_JOURNAL); each file goes through a temporary file renamed
 * over it, and the files already changed are put back when a later one
 * fails. A file that thp did not write is replaced only with FORCE. The
 * caller holds the writers' lock. Says in R what happened; returns 0 when
 * every file changed and no journal stays. */
int thp_boot_files_write(const struct thp_root *root, struct thp_boot_file *f, int n, bool force,
			 struct thp_boot_run *r);

/* What thp_persist_write did with the file of 'thp persist'. */
enum thp_persist_case {
	THP_PERSIST_WRITTEN,     /* written; the unit also enabled */
	THP_PERSIST_FOREIGN,     /* it is there and thp did not write it */
	THP_PERSIST_FAILED,      /* it cannot be written: err */
	THP_PERSIST_NOT_ENABLED, /* the unit cannot be enabled: err; it is put back as it
				    was, unless undo_err */
};

struct thp_persist_run {
	enum thp_persist_case what;
	int err, undo_err;
};

/* Replaces the file of 'thp persist' F (read as it is) by its text, through a
 * temporary file renamed over it: PATH, a file the user named, or (PATH
 * NULL) F's name in F's directory below ROOT, which must exist. A file that
 * thp did not write (F's mark) is replaced only with FORCE. With UNIT, F is
 * the unit, then enabled as 'systemctl enable' does (a link in
 * THP_UNIT_WANTS, created when missing); when it cannot be, the unit is put
 * back as it was, so that boot applies the old state or the new one, never a
 * unit that nothing starts. Says in R what happened; returns 0 when F is
 * written (and enabled). */
int thp_persist_write(const struct thp_root *root, const struct thp_boot_file *f, const char *path, bool unit,
		      bool force, struct thp_persist_run *r);

#endif
