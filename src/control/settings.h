/* SPDX-License-Identifier: GPL-2.0-or-later */
/* settings.h - every writable THP setting of a host (after the kernel selftests'
 * thp_settings): read them all, check new values against what the kernel
 * accepts, write them in order with read-back, and roll back on any failure */
#ifndef THP_SETTINGS_H
#define THP_SETTINGS_H

#include <stdbool.h>

#include "../core/keys.h"
#include "../core/status.h"

enum thp_knob_result {
	THP_KNOB_KEPT,        /* not written */
	THP_KNOB_WRITTEN,     /* written and read back */
	THP_KNOB_FAILED,      /* the write or its read-back failed (err, got); not changed */
	THP_KNOB_ROLLED_BACK, /* written, then put back after a later failure */
	THP_KNOB_STUCK,       /* changed, and putting it back failed: see undo_err */
};

struct thp_knob {
	char key[THP_KEY_MAX];     /* canonical: "enabled", "hugepages.2M.enabled" */
	char path[192];            /* below the root */
	struct thp_key k;
	struct thp_setting cur;    /* as read */
	char old[THP_VALUE_MAX];   /* value as read; "" when unreadable */
	char want[THP_VALUE_MAX];  /* value to write; "" leaves the setting alone */
	bool want_all;             /* WANT was asked for by a hugepages.all.X key */
	char got[THP_VALUE_MAX];   /* what a failed read-back found; "" otherwise */
	enum thp_knob_result result;
	int err;                   /* -errno of the failed write (or read-back) */
	int undo_err;              /* -errno of a failed rollback */
};

struct thp_knobs {
	int n;
	uint64_t ptes_max; /* largest khugepaged max_ptes_* value; 0 when unknown */
	struct thp_knob k[THP_KV_MAX];
};

/* Reads every writable setting below ROOT in write order. Returns 0, -ENOENT
 * when the kernel has no THP sysfs directory, -EOPNOTSUPP for RHEL 6's
 * redhat_transparent_hugepage, or -ENOMEM. */
int thp_knobs_read(const struct thp_root *root, struct thp_knobs *ks);

/* The knob of a canonical KEY, or NULL. */
struct thp_knob *thp_knob_find(struct thp_knobs *ks, const char *key);

/* Checks VALUE against what the knob's file accepts and stores its canonical
 * form in OUT. A number is read as a user types it when STRICT (decimal
 * without sign, space or leading zero: core/arg.h), else as the kernel reads
 * the file ("04096" and a trailing newline are fine). Returns 0 or -EINVAL
 * with a reason in WHY. */
int thp_knob_check(const struct thp_knobs *ks, const struct thp_knob *kn, const char *value,
		   bool strict, char *out, char *why, size_t cap);

/* Asks for KEY=VALUE, as a user types it ("hugepages.all.X" means every size
 * that has X; numbers as thp_knob_check() reads them when STRICT). A
 * setting may be asked for once, except that a size's own key may follow the
 * "all" key that covered it. Returns 0, -ENOENT (no such setting here),
 * -EINVAL (value refused) or -EEXIST (asked for twice), with WHY. */
int thp_knobs_want(struct thp_knobs *ks, const char *key, const char *value, char *why,
		   size_t cap);

/* Current values of every readable knob, in write order ("push"; to "pop",
 * read the knobs again, thp_knobs_want_list() the snapshot and apply). */
void thp_knobs_snapshot(const struct thp_knobs *ks, struct thp_kvlist *l);

/* Asks for every KEY=VALUE of L. Returns 0, or the error of the first refused
 * entry with its index in *BAD and the reason in WHY. */
int thp_knobs_want_list(struct thp_knobs *ks, const struct thp_kvlist *l, int *bad, char *why,
			size_t cap);

/* Number of knobs whose wanted value differs from the current one. */
int thp_knobs_changes(const struct thp_knobs *ks);

/* Writes every change in order and reads each back. On the first failure, or
 * when SIGINT, SIGTERM or SIGHUP arrives, puts back every value already written
 * (last first). Refuses with -EPERM before any write on the live root without
 * root. Returns 0, the failure's -errno, or -EINTR with *SIGNO set. */
int thp_knobs_apply(const struct thp_root *root, struct thp_knobs *ks, int *signo);

#endif
