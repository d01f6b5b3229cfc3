/* SPDX-License-Identifier: GPL-2.0-or-later */
/* changes.h - every setting of a host that 'thp set' writes (after the kernel
 * selftests' thp_settings): read them all, and check the values a change
 * asks for against what the kernel accepts. control/ writes them
 * (thp_changes_apply). */
#ifndef THP_CHANGES_H
#define THP_CHANGES_H

#include <stdbool.h>

#include "keys.h"
#include "status.h"

enum thp_change_result {
	THP_CHANGE_KEPT,        /* not written */
	THP_CHANGE_WRITTEN,     /* written and read back */
	THP_CHANGE_FAILED,      /* the write or its read-back failed (err, got); changed only
				   when MOVED, and then rolled back like a written one */
	THP_CHANGE_ROLLED_BACK, /* written, then put back after a later failure */
	THP_CHANGE_STUCK,       /* changed, and putting it back failed: see undo_err */
};

/* One setting of the host and what a change does to it. */
struct thp_change {
	char key[THP_KEY_MAX];     /* canonical: "enabled", "hugepages.2M.enabled" */
	char path[192];            /* below the root */
	struct thp_key k;
	struct thp_setting cur;    /* as read */
	char old[THP_VALUE_MAX];   /* value as read; "" when unreadable */
	char want[THP_VALUE_MAX];  /* value to write; "" leaves the setting alone */
	bool want_all;             /* WANT was asked for by a hugepages.all.X key */
	char got[THP_VALUE_MAX];   /* what a failed read-back found; "" otherwise */
	bool moved;                /* after a failed write: the setting no longer reads OLD
				      (the value took although the write or close failed) */
	enum thp_change_result result;
	int err;                   /* -errno of the failed write (or read-back) */
	int undo_err;              /* -errno of a failed rollback */
};

/* Every setting of a host that 'thp set' writes, in write order. */
struct thp_changes {
	int n;
	uint64_t ptes_max; /* largest khugepaged max_ptes_* value; 0 when unknown */
	struct thp_change v[THP_KV_MAX];
};

/* Reads every setting below ROOT that the table marks THP_SET, in write
 * order. Returns 0, -ENOENT when the kernel has no THP sysfs directory,
 * -EOPNOTSUPP for RHEL 6's redhat_transparent_hugepage, or -ENOMEM. */
int thp_changes_read(const struct thp_root *root, struct thp_changes *cs);

/* thp_changes_read() from ST, read below ROOT by thp_status_read() or
 * thp_status_read_policy(): only the settings ST lacks are read. */
int thp_changes_of(const struct thp_root *root, const struct thp_status *st, struct thp_changes *cs);

/* Says in WHY (CAP bytes) why thp_changes_read() below ROOT failed with ERR. */
void thp_changes_read_why(const struct thp_root *root, int err, char *why, size_t cap);

/* The setting of a canonical KEY, or NULL (non-const, as strchr(3) does). */
struct thp_change *thp_change_find(const struct thp_changes *cs, const char *key);

/* Checks VALUE against what the setting's file accepts and stores its
 * canonical form in OUT. A number is read as a user types it when STRICT
 * (decimal without sign, space or leading zero: core/arg.h), else as the
 * kernel reads the file ("04096" and a trailing newline are fine). Returns 0
 * or -EINVAL with a reason in WHY. */
int thp_change_check(const struct thp_changes *cs, const struct thp_change *c, const char *value,
		     bool strict, char *out, char *why, size_t cap);

/* Asks for KEY=VALUE, as a user types it ("hugepages.all.X" means every size
 * that has X; numbers as thp_change_check() reads them when STRICT). A
 * setting may be asked for once, except that a size's own key may follow the
 * "all" key that covered it. Returns 0, -ENOENT (no such setting here),
 * -EINVAL (value refused) or -EEXIST (asked for twice), with WHY. */
int thp_changes_want(struct thp_changes *cs, const char *key, const char *value, char *why,
		     size_t cap);

/* Current values of every readable setting, in write order. */
void thp_changes_snapshot(const struct thp_changes *cs, struct thp_kvlist *l);

/* Asks for every KEY=VALUE of L. Returns 0, or the error of the first refused
 * entry with its index in *BAD and the reason in WHY. */
int thp_changes_want_list(struct thp_changes *cs, const struct thp_kvlist *l, int *bad, char *why,
			  size_t cap);

/* True when C is asked for a value other than the one it holds. */
bool thp_change_pending(const struct thp_change *c);

/* Number of settings asked for a value other than the one they hold. */
int thp_changes_count(const struct thp_changes *cs);

/* Sizes of the per-size settings in CS, ascending; returns the count (at most MAX). */
int thp_changes_sizes(const struct thp_changes *cs, uint64_t *sizes, int max);

/* The value of a setting as a string: the selected word or the number; ""
 * for anything else. */
void thp_setting_value(const struct thp_setting *s, char *buf, size_t cap);

#endif
