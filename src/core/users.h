/* SPDX-License-Identifier: GPL-2.0-or-later */
/* users.h - user names for uids, from the system (live root) or ROOT/etc/passwd */
#ifndef THP_USERS_H
#define THP_USERS_H

#include <sys/types.h>

#include "root.h"

#define THP_USERS_CACHE 64

/* A small cache of uid -> name lookups, so a scan of many processes asks once per user. */
struct thp_users {
	const struct thp_root *root;
	int n;
	struct {
		uid_t uid;
		char name[33];
	} e[THP_USERS_CACHE];
};

void thp_users_init(struct thp_users *u, const struct thp_root *root);

/* Name of UID, or the decimal uid when it has none (or "-" for (uid_t)-1).
 * The string lives as long as U. */
const char *thp_user_name(struct thp_users *u, uid_t uid);

/* Uid of user NAME. Returns 0 or -ENOENT. */
int thp_user_uid(struct thp_users *u, const char *name, uid_t *uid);

/* The name and primary group of UID, asked directly (not cached): from the
 * system for the live root, else from ROOT/etc/passwd (*GID (gid_t)-1 when
 * its line has none). Returns 0 or -ENOENT. */
int thp_user_entry(const struct thp_root *root, uid_t uid, char *name, size_t cap, gid_t *gid);

#endif
