/* SPDX-License-Identifier: GPL-2.0-or-later */
/* change.h - a change of the host's THP settings as one transaction: the
 * settings loaded and the values asked for ('thp set', 'thp restore', 'thp
 * persist', 'thp diff'), what a journal an earlier run left asks for first
 * (the settings' and the pools': also 'thp hugetlb set' and the modes of
 * 'thp bench' and 'thp ab'), then the change (journal, apply with read-back
 * and rollback, journal removed: 'thp set', 'thp restore FILE'; of pools:
 * 'thp hugetlb set'). Nothing here prints: each step returns what happened,
 * which render/change.h and render/pools.h put in words. */
#ifndef THP_CONTROL_CHANGE_H
#define THP_CONTROL_CHANGE_H

#include <stdbool.h>

#include "../core/changes.h"
#include "../core/hugetlb.h"
#include "../core/state.h"

/* How long a writer waits for another to end before it gives up. */
#define THP_LOCK_WAIT_MS 10000

/* Reads the settings below ROOT that a change writes into *CS (malloc'd;
 * NULL on failure). Returns 0 or -errno (thp_changes_read_why says why). */
int thp_change_load(const struct thp_root *root, struct thp_changes **cs);

/* Asks CS for the KEY=VALUE arguments ARGV[0..ARGC) (thp_changes_want).
 * Returns 0, -EBADMSG when one is not KEY=VALUE, or the error of the one
 * refused; WHY (CAP bytes) says which and why. */
int thp_change_want_args(struct thp_changes *cs, int argc, char **argv, char *why, size_t cap);

/* What a change of settings did (thp_change_run). */
struct thp_run {
	char journal[4200]; /* the journal's path as shown */
	int journal_err;    /* the journal could not be written (-EEXIST: another thp
			       started a change meanwhile): nothing was changed */
	int err, signo;     /* of the writes (thp_changes_apply): each change of
			       CS says whether it was rolled back or is stuck */
	bool stuck;         /* a setting could not be put back: the journal stays */
	int drop_err;       /* the journal could not be removed */
};

/* Makes the wanted changes of CS below ROOT as one transaction: the journal
 * first, then every write read back, all rolled back on a failure or on
 * SIGINT, SIGTERM or SIGHUP (the handlers only note it), then the journal
 * removed unless a setting is stuck. Says in R what happened; returns 0 when
 * every change took and the journal is gone. */
int thp_change_run(const struct thp_root *root, struct thp_changes *cs, struct thp_run *r);

/* The saved state as shown to the user: FILE, or the default below ROOT. */
void thp_saved_path(const struct thp_root *root, const char *file, char *buf, size_t cap);

/* What the settings' journal an earlier run left was, and what became of it. */
enum thp_recovery_case {
	THP_RECOVERY_NONE,       /* no journal (or no state directory of thp's) */
	THP_RECOVERY_RUNNING,    /* its writer is changing settings now */
	THP_RECOVERY_DAMAGED,    /* unreadable (f.err) or damaged (f.line, f.why) */
	THP_RECOVERY_OTHER_BOOT, /* left in an earlier boot: removed (DRY: would be);
				    err: the removal failed */
	THP_RECOVERY_UNFINISHED, /* (DRY) a change did not finish: would be put back */
	THP_RECOVERY_REFUSED,    /* this kernel refuses a value it holds: why */
	THP_RECOVERY_FAILED,     /* putting it back failed: cs, err, signo */
	THP_RECOVERY_KEPT,       /* put back, but the journal stays: err */
	THP_RECOVERY_PUT_BACK,   /* put back n settings (0: they were back already) */
};

struct thp_recovery {
	enum thp_recovery_case what;
	bool dry;                /* only looked */
	char journal[4200];      /* its path as shown */
	struct thp_state_file f; /* the journal as read */
	struct thp_changes cs;   /* the put-back */
	int err, signo, n;
	char why[512];
};

/* Before a change, holding the writers' lock: deals with the settings'
 * journal an earlier run left below ROOT. One from an earlier boot is
 * removed; one of a change that did not finish is put back (with DRY, only
 * looked at). Returns what happened (malloc'd), or NULL when out of memory. */
struct thp_recovery *thp_recover(const struct thp_root *root, bool dry);

/* Whether the change may go on after R: no journal, or one dealt with. */
bool thp_recovery_ok(const struct thp_recovery *r);

/* What the pools' journal of a 'thp hugetlb set' that did not finish was. */
enum thp_pools_recovery_case {
	THP_POOLS_NONE,       /* no journal */
	THP_POOLS_UNREADABLE, /* err */
	THP_POOLS_DAMAGED,    /* at line (0: the file as a whole) */
	THP_POOLS_UNFINISHED, /* (DRY) its pools would be put back */
	THP_POOLS_STUCK,      /* n of its pools do not hold their size again */
	THP_POOLS_KEPT,       /* put back, but the journal stays: err */
	THP_POOLS_PUT_BACK,   /* its pools hold their sizes again */
};

struct thp_pools_recovery {
	enum thp_pools_recovery_case what;
	char journal[4200];         /* its path as shown */
	struct thp_pools_journal j; /* the journal as read */
	int err, line, n;
};

/* Before a change, holding the writers' lock: puts back the pools of a 'thp
 * hugetlb set' that did not finish (THP_POOLS_JOURNAL below ROOT) and
 * removes its journal; with DRY, only looks. Returns what happened
 * (malloc'd), or NULL when out of memory. */
struct thp_pools_recovery *thp_recover_pools(const struct thp_root *root, bool dry);

/* Whether the change may go on after R: no journal, or one dealt with. */
bool thp_pools_recovery_ok(const struct thp_pools_recovery *r);

/* One pool of a 'thp hugetlb set': the caller gives its page SIZE, its pages
 * BEFORE, the pages it WANTs and its nr_hugepages file REL below the root
 * (thp_hugetlb_path); thp_pools_run says what became of it. */
struct thp_pool_change {
	uint64_t size, before, want;
	char rel[256];
	uint64_t after; /* read back after the write, or after the put-back */
	double secs;    /* the write took */
	int err;        /* -errno of the write or of its read-back */
	bool written;   /* tried: the pools after a failed one are left alone */
	bool stuck;     /* written, and putting it back after a failure failed */
};

/* The pools of one 'thp hugetlb set', in write order: all of NUMA node NODE,
 * or (-1) host-wide. */
struct thp_pools_change {
	int node;
	int n;
	struct thp_pool_change v[THP_POOLS_MAX];
};

/* What a resize of pools did (thp_pools_run). */
struct thp_pools_run {
	char journal[4200]; /* the pools' journal's path as shown */
	bool journaled;     /* several pools: their sizes were journaled first */
	int journal_err;    /* the journal could not be written: nothing was changed */
	int err;            /* of the failed write: the pools written before it, and it,
			       were put back; each pool says whether it is stuck */
	bool stuck;         /* a pool could not be put back: the journal stays */
	int drop_err;       /* the journal could not be removed */
	int signo;          /* SIGINT, SIGTERM, SIGHUP or SIGQUIT arrived meanwhile */
};

/* Resizes the pools of PC below ROOT as one change, holding the writers'
 * lock: the pools' sizes journaled first when there are several
 * (THP_POOLS_JOURNAL, never replacing one), then each written and read
 * back, and on a failed write every pool written put back; then the journal
 * removed unless a pool is stuck. SIGINT, SIGTERM, SIGHUP and SIGQUIT wait
 * until the writes are done (a live pool stops filling when one is pending):
 * the first that arrived is taken off and said in R, for the caller to end
 * by once it has reported (thp_die_by). Says in R what happened; returns 0
 * when every write took and the journal is gone. */
int thp_pools_run(const struct thp_root *root, struct thp_pools_change *pc, struct thp_pools_run *r);

#endif
