/* SPDX-License-Identifier: GPL-2.0-or-later */
/* users.c - user names for uids */
#include "users.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

void thp_users_init(struct thp_users *u, const struct thp_root *root)
{
	u->root = root;
	u->n = 0;
}

/* The group id of the passwd fields from the gid on; (gid_t)-1 when it does not parse. */
static gid_t line_gid(char *fields)
{
	char *end = strchr(fields, ':');
	uint64_t v;

	if (end)
		*end = '\0';
	return thp_parse_u64(fields, &v) || v >= (gid_t)-1 ? (gid_t)-1 : (gid_t)v;
}

/* Looks up NAME (when non-NULL) or UID in ROOT/etc/passwd; fills the other,
 * and *GID (when non-NULL; (gid_t)-1 when the line has none). */
static int passwd_find(const struct thp_root *root, const char *name, uid_t *uid, char *out,
		       size_t cap, gid_t *gid)
{
	char *buf, *save = NULL;
	int err = thp_read(root, "etc/passwd", &buf, NULL);

	if (err)
		return err;
	err = -ENOENT;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *c3 = c2 ? strchr(c2 + 1, ':') : NULL;
		uint64_t v;
		if (!c3)
			continue;
		*c1 = *c3 = '\0';
		/* a uid that does not fit (or is -1) is no user's */
		if (thp_parse_u64(c2 + 1, &v) || v >= (uid_t)-1)
			continue;
		uid_t id = (uid_t)v;
		if (name ? strcmp(line, name) == 0 : id == *uid) {
			*uid = id;
			snprintf(out, cap, "%s", line);
			if (gid)
				*gid = line_gid(c3 + 1);
			err = 0;
			break;
		}
	}
	free(buf);
	return err;
}

int thp_user_entry(const struct thp_root *root, uid_t uid, char *name, size_t cap, gid_t *gid)
{
	if (root->live) {
		struct passwd *pw = getpwuid(uid);
		if (!pw)
			return -ENOENT;
		snprintf(name, cap, "%s", pw->pw_name);
		*gid = pw->pw_gid;
		return 0;
	}
	return passwd_find(root, NULL, &uid, name, cap, gid) ? -ENOENT : 0;
}

const char *thp_user_name(struct thp_users *u, uid_t uid)
{
	gid_t gid;
	int i;

	for (i = 0; i < u->n; i++)
		if (u->e[i].uid == uid)
			return u->e[i].name;
	if (u->n == THP_USERS_CACHE)
		u->n = 0; /* more users than slots: start over, lookups stay correct */
	i = u->n++;
	u->e[i].uid = uid;
	if (uid == (uid_t)-1) {
		snprintf(u->e[i].name, sizeof(u->e[i].name), "-");
	} else if (thp_user_entry(u->root, uid, u->e[i].name, sizeof(u->e[i].name), &gid)) {
		snprintf(u->e[i].name, sizeof(u->e[i].name), "%u", (unsigned)uid);
	}
	return u->e[i].name;
}

int thp_user_uid(struct thp_users *u, const char *name, uid_t *uid)
{
	char tmp[33];

	if (u->root->live) {
		struct passwd *pw = getpwnam(name);
		if (!pw)
			return -ENOENT;
		*uid = pw->pw_uid;
		return 0;
	}
	return passwd_find(u->root, name, uid, tmp, sizeof(tmp), NULL) ? -ENOENT : 0;
}
