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

/* Looks up NAME (when non-NULL) or UID in ROOT/etc/passwd; fills the other. */
static int passwd_find(const struct thp_root *root, const char *name, uid_t *uid, char *out,
		       size_t cap)
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
			err = 0;
			break;
		}
	}
	free(buf);
	return err;
}

const char *thp_user_name(struct thp_users *u, uid_t uid)
{
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
	} else if (u->root->live) {
		struct passwd *pw = getpwuid(uid);
		if (pw)
			snprintf(u->e[i].name, sizeof(u->e[i].name), "%s", pw->pw_name);
		else
			snprintf(u->e[i].name, sizeof(u->e[i].name), "%u", (unsigned)uid);
	} else if (passwd_find(u->root, NULL, &uid, u->e[i].name, sizeof(u->e[i].name))) {
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
	return passwd_find(u->root, name, uid, tmp, sizeof(tmp)) ? -ENOENT : 0;
}
