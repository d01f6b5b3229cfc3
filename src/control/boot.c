/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boot.c - the files that boot applies (sysctl.d, tmpfiles.d) written as
 * one change: under a journal when more than one changes, each through a
 * temporary file renamed over it, the ones already changed put back when a
 * later one fails or a journal of an earlier change is found */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/persist.h"
#include "control.h"
#include "journal.h"

/* Gives F the content TEXT (NULL: removes it). Returns 0 or -errno. */
static int boot_file_put(const struct thp_root *root, const struct thp_boot_file *f, const char *text)
{
	char rel[512];
	int dir, err;

	snprintf(rel, sizeof(rel), "%s/%s", f->dir, f->name);
	if (!text)
		return thp_root_unlink(root, rel);
	dir = thp_root_opendir_fd(root, f->dir, 0);
	err = dir < 0 ? dir : thp_file_check(dir, f->name);
	if (!err)
		err = thp_file_write(dir, f->name, text, 0644);
	if (dir >= 0)
		close(dir);
	return err;
}

/* Puts the files F[0..N) that were changed back as they were; says which
 * cannot be. Returns how many cannot. */
static int boot_files_undo(const struct thp_root *root, struct thp_boot_file *f, int n, thp_say_fn say)
{
	int stuck = 0;

	for (int i = n - 1; i >= 0; i--) {
		int err = f[i].done == THP_BOOT_KEPT ? 0 : boot_file_put(root, &f[i], f[i].cur);
		if (err == -ENOENT && !f[i].cur)
			err = 0;
		if (err) {
			say("cannot put back '%s' as it was either: %s", f[i].shown, thp_file_strerror(err));
			stuck++;
		} else {
			f[i].done = THP_BOOT_KEPT;
		}
	}
	return stuck;
}

/* Puts the files of J back as they were. Returns how many cannot be (said on stderr). */
static int journal_put_back(const struct thp_root *root, const struct thp_boot_journal *j, thp_say_fn say)
{
	int stuck = 0;

	for (int i = 0; i < j->n; i++) {
		char dir[256], *slash;
		struct thp_boot_file f = { .dir = dir };
		int err;

		snprintf(dir, sizeof(dir), "%s", j->v[i].path);
		slash = strrchr(dir, '/');
		f.name = slash ? slash + 1 : dir;
		if (slash)
			*slash = '\0';
		err = slash ? boot_file_put(root, &f, j->v[i].text) : -EINVAL;
		if (err && !(err == -ENOENT && !j->v[i].text)) {
			say("cannot put back '/%s': %s", j->v[i].path, thp_file_strerror(err));
			stuck++;
		}
	}
	return stuck;
}

/* True when the journal's files are among the N files F (no other file is put back). */
static bool journal_ours(const struct thp_boot_journal *j, const struct thp_boot_file *f, int n)
{
	for (int i = 0; i < j->n; i++) {
		bool found = false;
		for (int k = 0; k < n && !found; k++) {
			size_t dl = strlen(f[k].dir);
			found = strncmp(j->v[i].path, f[k].dir, dl) == 0 && j->v[i].path[dl] == '/' &&
				strcmp(j->v[i].path + dl + 1, f[k].name) == 0;
		}
		if (!found)
			return false;
	}
	return true;
}

/* Puts back the files of a change of the N files F that did not finish (its
 * journal is there; this thp holds the writers' lock). Returns 0, or 1 after
 * saying why the change cannot go on. */
static int boot_files_recover(const struct thp_root *root, const struct thp_boot_file *files, int nfiles,
			      thp_say_fn say)
{
	struct thp_boot_journal *j = malloc(sizeof(*j));
	char shown[4200], at[32] = "", *buf = NULL;
	int line = 0, rc = 1, err = j ? thp_read(root, THP_BOOT_JOURNAL, &buf, NULL) : -ENOMEM;

	thp_root_shown(root, THP_BOOT_JOURNAL, shown, sizeof(shown));
	if (err == -ENOENT || err == -ENOTDIR) {
		rc = 0;
	} else if (err) {
		say("cannot read the journal '%s': %s; nothing was changed", shown, thp_file_strerror(err));
	} else if (thp_boot_journal_parse(buf, j, &line) != 0 || !journal_ours(j, files, nfiles)) {
		if (line)
			snprintf(at, sizeof(at), ": line %d", line);
		say("the journal '%s' is damaged%s; nothing was changed: look at it, put the files it "
			"names back as they were, then remove it", shown, at);
	} else if (journal_put_back(root, j, say)) {
		say("'%s' (pid %d) did not finish, and not every file it had changed can be put back "
			"(journal '%s'); nothing was changed", j->command, (int)j->owner, shown);
	} else if ((err = thp_boot_journal_remove(root)) != 0) {
		say("put back the files of '%s', but cannot remove its journal '%s': %s; remove it",
			j->command, shown, thp_file_strerror(err));
	} else {
		say("'%s' (pid %d) did not finish; put back the %d files it had changed", j->command,
			(int)j->owner, j->n);
		rc = 0;
	}
	free(buf);
	free(j);
	return rc;
}

/* Journals the files of F that change (more than one), as they are. Returns 0 or -errno. */
static int boot_files_journal(const struct thp_root *root, const struct thp_boot_file *f, int n,
			      int changes)
{
	struct thp_boot_journal *j = changes > 1 ? calloc(1, sizeof(*j)) : NULL;
	struct thp_state *s = j ? calloc(1, sizeof(*s)) : NULL;
	int err;

	if (changes < 2)
		return 0;
	if (!s) {
		free(j);
		return -ENOMEM;
	}
	thp_state_own_command(s);
	snprintf(j->command, sizeof(j->command), "%s", s->command);
	j->owner = getpid();
	for (int i = 0; i < n && j->n < THP_BOOT_FILES_MAX; i++) {
		snprintf(j->v[j->n].path, sizeof(j->v[0].path), "%s/%s", f[i].dir, f[i].name);
		j->v[j->n++].text = f[i].cur;
	}
	err = thp_boot_journal_push(root, j);
	free(s);
	free(j);
	return err;
}

/* True when writing F changes it: it gets a text, or thp's file goes. */
static bool boot_file_changes(const struct thp_boot_file *f)
{
	return f->text || (f->cur && !thp_boot_file_theirs(f));
}

/* Writes every file of F that changes, in order; on a failure puts back the
 * ones before and says so. Returns 0, or 1 after saying what stays. */
static int boot_files_put(const struct thp_root *root, struct thp_boot_file *f, int n, thp_say_fn say)
{
	int err = 0, i;

	for (i = 0; i < n && !err; i++) {
		if (!boot_file_changes(&f[i]))
			continue;
		err = boot_file_put(root, &f[i], f[i].text);
		if (err == -ENOENT && !f[i].text)
			err = 0; /* gone meanwhile */
		else if (!err)
			f[i].done = f[i].text ? THP_BOOT_WRITTEN : THP_BOOT_REMOVED;
	}
	if (!err)
		return 0;
	i--;
	say("cannot %s '%s': %s%s", f[i].text ? "write" : "remove", f[i].shown, thp_file_strerror(err),
		err == -EACCES || err == -EPERM ? " (run as root)"
		: err == -ENOENT ? " (thp creates no directory for it)" : "");
	if (boot_files_undo(root, f, i, say))
		return -1;
	say("nothing was changed");
	return 1;
}

int thp_boot_files_write(const struct thp_root *root, struct thp_boot_file *f, int n, bool force,
			 thp_say_fn say)
{
	char shown[4200];
	int rc, changes = 0, err;

	if ((rc = boot_files_recover(root, f, n, say)) != 0)
		return rc;
	for (int i = 0; i < n; i++)
		free(f[i].cur);
	thp_boot_files_read(root, f, n); /* again: the writer before may have changed them */
	for (int i = 0; i < n; i++) {
		if (f[i].text && thp_boot_file_theirs(&f[i]) && !force) {
			say("'%s' exists and was not written by thp; move it away, or --force; nothing "
				"was changed", f[i].shown);
			return 1;
		}
		changes += boot_file_changes(&f[i]);
	}
	thp_root_shown(root, THP_BOOT_JOURNAL, shown, sizeof(shown));
	if ((err = boot_files_journal(root, f, n, changes)) != 0) {
		say("cannot write the journal '%s': %s; nothing was changed", shown, thp_file_strerror(err));
		return 1;
	}
	rc = boot_files_put(root, f, n, say);
	if (rc < 0) {
		say("the journal '%s' stays: the next change of these files puts them back first", shown);
		return 1;
	}
	if (changes > 1 && (err = thp_boot_journal_remove(root)) != 0) {
		say("cannot remove the journal '%s': %s; the next change of these files would put back "
			"what it holds: remove it to keep this change", shown, thp_file_strerror(err));
		return 1;
	}
	return rc;
}
