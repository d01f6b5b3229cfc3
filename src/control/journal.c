/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal.c - push, apply and pop temporary changes of THP settings */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/hugetlb.h"
#include "../core/parse.h"
#include "../core/persist.h"
#include "control.h"

/* The start time of this process, from the kernel thp runs on (also under --root). */
static unsigned long long own_start(void)
{
	unsigned long long start = 0;
	char *buf = NULL;

	if (thp_read_user("/proc/self/stat", &buf, NULL) == 0)
		thp_stat_start_parse(buf, &start);
	free(buf);
	return start;
}

void thp_state_own_command(struct thp_state *s)
{
	char *buf = NULL;
	size_t len = 0;

	if (thp_read_user("/proc/self/cmdline", &buf, &len) == 0)
		thp_state_command(s, buf, len);
	free(buf);
}

int thp_journal_push(struct thp_journal *j, const struct thp_root *root,
		     const struct thp_changes *cs)
{
	char *text;
	int dir, err;

	memset(j, 0, sizeof(*j));
	j->root = root;
	thp_boot_id(root, j->s.boot, sizeof(j->s.boot));
	j->s.time = (long long)time(NULL);
	j->s.owner = getpid();
	j->s.owner_start = own_start();
	thp_state_own_command(&j->s);
	for (int i = 0; i < cs->n; i++)
		if (cs->v[i].want[0] && cs->v[i].old[0])
			thp_kv_set(&j->s.values, cs->v[i].key, cs->v[i].old, 0);
	text = thp_state_format(&j->s, "THP settings before the change above; if it did not end, "
				       "'thp restore' puts them back.");
	if (!text)
		return -ENOMEM;
	dir = thp_state_dir(root, true);
	err = dir < 0 ? dir : thp_file_write_new(dir, THP_JOURNAL_NAME, text, 0600);
	if (dir >= 0)
		close(dir);
	free(text);
	j->open = err == 0;
	return err;
}

int thp_values_apply(const struct thp_root *root, const struct thp_kvlist *values,
		     struct thp_changes *cs, int *signo, char *why, size_t cap)
{
	int bad, err = thp_changes_read(root, cs);

	*signo = 0;
	if (err) {
		snprintf(why, cap, "cannot read the THP settings: %s", strerror(-err));
		return err;
	}
	if (thp_changes_want_list(cs, values, &bad, why, cap) != 0)
		return -EINVAL;
	return thp_changes_apply(root, cs, signo);
}

/* Removes NAME from the state directory below ROOT. Returns 0 or -errno. */
static int state_remove(const struct thp_root *root, const char *name)
{
	int dir = thp_state_dir(root, false), err;

	if (dir < 0)
		return dir;
	err = unlinkat(dir, name, 0) == 0 ? 0 : -errno;
	close(dir);
	return err;
}

int thp_journal_remove(const struct thp_root *root)
{
	return state_remove(root, THP_JOURNAL_NAME);
}

/* Writes TEXT (malloc'd, freed here; NULL: out of memory) as the new state
 * file NAME below ROOT; a tree without run/ gets none. Returns 0 or -errno. */
static int state_write_new(const struct thp_root *root, const char *name, char *text)
{
	int dir = text ? thp_state_dir(root, true) : -ENOMEM, err;

	if (dir == -ENOENT && !root->live) {
		free(text);
		return 0; /* a tree without run/ keeps no state (and takes no lock) */
	}
	err = dir < 0 ? dir : thp_file_write_new(dir, name, text, 0600);
	if (dir >= 0)
		close(dir);
	free(text);
	return err;
}

int thp_pools_journal_push(const struct thp_root *root, const struct thp_pools_journal *j)
{
	return state_write_new(root, THP_POOLS_JOURNAL_NAME, thp_pools_journal_format(j));
}

int thp_pools_journal_remove(const struct thp_root *root)
{
	int err = state_remove(root, THP_POOLS_JOURNAL_NAME);

	return err == -ENOENT ? 0 : err;
}

int thp_boot_journal_push(const struct thp_root *root, const struct thp_boot_journal *j)
{
	return state_write_new(root, THP_BOOT_JOURNAL_NAME, thp_boot_journal_format(j));
}

int thp_boot_journal_remove(const struct thp_root *root)
{
	int err = state_remove(root, THP_BOOT_JOURNAL_NAME);

	return err == -ENOENT ? 0 : err;
}

int thp_journal_pop(struct thp_journal *j, struct thp_changes *cs, int *signo, char *why,
		    size_t cap, int *drop_err)
{
	int err;

	*signo = 0;
	*drop_err = 0;
	if (!j->open)
		return 0;
	err = thp_values_apply(j->root, &j->s.values, cs, signo, why, cap);
	if (!err && (*drop_err = thp_journal_drop(j)) != 0)
		err = -EBADE;
	return err;
}

int thp_journal_drop(struct thp_journal *j)
{
	int err = j->open ? thp_journal_remove(j->root) : 0;

	j->open = false;
	return err;
}
