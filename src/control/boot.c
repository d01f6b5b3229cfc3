/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boot.c - the files that boot applies (sysctl.d, tmpfiles.d) written as
 * one change: under a journal when more than one changes, each through a
 * temporary file renamed over it, the ones already changed put back when a
 * later one fails or a journal of an earlier change is found; and the one
 * file of 'thp persist', a unit enabled or put back as it was */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/persist.h"
#include "boot.h"
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

/* Puts the files F[0..N) that were changed back as they were; the error of
 * each that cannot be goes to R. Returns how many cannot. */
static int boot_files_undo(const struct thp_root *root, struct thp_boot_file *f, int n,
			   struct thp_boot_run *r)
{
	int stuck = 0;

	for (int i = n - 1; i >= 0; i--) {
		int err = f[i].done == THP_BOOT_KEPT ? 0 : boot_file_put(root, &f[i], f[i].cur);
		if (err == -ENOENT && !f[i].cur)
			err = 0;
		r->undo_err[i] = err;
		if (err)
			stuck++;
		else
			f[i].done = THP_BOOT_KEPT;
	}
	return stuck;
}

/* Puts the files of J back as they were; the error of each that cannot be
 * goes to B. Returns how many cannot. */
static int journal_put_back(const struct thp_root *root, const struct thp_boot_journal *j,
			    struct thp_boot_back *b)
{
	int stuck = 0;

	for (int i = 0; i < j->n; i++) {
		char dir[256], *slash;
		struct thp_boot_file f = { .dir = dir };
		int err;

		snprintf(dir, sizeof(dir), "%s", j->v[i].path);
		snprintf(b->v[i].path, sizeof(b->v[i].path), "%s", j->v[i].path);
		slash = strrchr(dir, '/');
		f.name = slash ? slash + 1 : dir;
		if (slash)
			*slash = '\0';
		err = slash ? boot_file_put(root, &f, j->v[i].text) : -EINVAL;
		if (err == -ENOENT && !j->v[i].text)
			err = 0;
		b->v[i].put_err = err;
		stuck += err != 0;
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

int thp_boot_files_recover(const struct thp_root *root, const struct thp_boot_file *files, int nfiles,
			   struct thp_boot_back *b)
{
	struct thp_boot_journal *j = malloc(sizeof(*j));
	char *buf = NULL;
	int err = j ? thp_read(root, THP_BOOT_JOURNAL, &buf, NULL) : -ENOMEM;

	memset(b, 0, sizeof(*b));
	thp_root_shown(root, THP_BOOT_JOURNAL, b->journal, sizeof(b->journal));
	if (err == -ENOENT || err == -ENOTDIR) {
		b->what = THP_BOOT_BACK_NONE;
	} else if (err) {
		b->what = THP_BOOT_BACK_UNREADABLE;
		b->err = err;
	} else if (thp_boot_journal_parse(buf, j, &b->line) != 0 || !journal_ours(j, files, nfiles)) {
		b->what = THP_BOOT_BACK_DAMAGED;
	} else {
		snprintf(b->command, sizeof(b->command), "%s", j->command);
		b->owner = j->owner;
		b->n = j->n;
		if (journal_put_back(root, j, b))
			b->what = THP_BOOT_BACK_STUCK;
		else if ((b->err = thp_boot_journal_remove(root)) != 0)
			b->what = THP_BOOT_BACK_KEPT;
		else
			b->what = THP_BOOT_BACK_PUT_BACK;
	}
	free(buf);
	free(j);
	return b->what == THP_BOOT_BACK_NONE || b->what == THP_BOOT_BACK_PUT_BACK ? 0 : 1;
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
 * ones before (THP_BOOT_FAILED in R). Returns 0, or 1 after a failure. */
static int boot_files_put(const struct thp_root *root, struct thp_boot_file *f, int n,
			  struct thp_boot_run *r)
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
	r->what = THP_BOOT_FAILED;
	r->file = i - 1;
	r->err = err;
	r->stuck = boot_files_undo(root, f, r->file, r) != 0;
	return 1;
}

int thp_boot_files_write(const struct thp_root *root, struct thp_boot_file *f, int n, bool force,
			 struct thp_boot_run *r)
{
	int changes = 0, rc;

	memset(r, 0, sizeof(*r));
	thp_root_shown(root, THP_BOOT_JOURNAL, r->journal, sizeof(r->journal));
	for (int i = 0; i < n; i++)
		free(f[i].cur);
	thp_boot_files_read(root, f, n); /* again: the writer before may have changed them */
	for (int i = 0; i < n; i++) {
		if (f[i].text && thp_boot_file_theirs(&f[i]) && !force) {
			r->what = THP_BOOT_FOREIGN;
			r->file = i;
			return 1;
		}
		changes += boot_file_changes(&f[i]);
	}
	if ((r->err = boot_files_journal(root, f, n, changes)) != 0) {
		r->what = THP_BOOT_NO_JOURNAL;
		return 1;
	}
	rc = boot_files_put(root, f, n, r);
	if (r->stuck)
		return 1;
	if (changes > 1)
		r->drop_err = thp_boot_journal_remove(root);
	if (!rc)
		r->what = THP_BOOT_CHANGED;
	return rc || r->drop_err ? 1 : 0;
}

/* Enables the unit as 'systemctl enable' does: a link in THP_UNIT_WANTS below
 * ROOT, which is created when missing. Returns 0 or -errno. */
static int enable_unit(const struct thp_root *root)
{
	int dir = thp_root_opendir_fd(root, THP_UNIT_DIR, 0), wants, err;

	if (dir < 0)
		return dir;
	if (mkdirat(dir, THP_UNIT_WANTS, 0755) != 0 && errno != EEXIST) {
		err = -errno;
		close(dir);
		return err;
	}
	wants = openat(dir, THP_UNIT_WANTS, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	err = wants < 0 ? -errno : thp_file_link(wants, "/" THP_UNIT_DIR "/" THP_UNIT_NAME, THP_UNIT_NAME);
	if (wants >= 0)
		close(wants);
	close(dir);
	return err;
}

/* Puts NAME in DIR back as it was: OLD, or absent when OLD is NULL. Returns 0 or -errno. */
static int put_back(int dir, const char *name, const char *old)
{
	if (old)
		return thp_file_write(dir, name, old, 0644);
	return unlinkat(dir, name, 0) != 0 ? -errno : 0;
}

int thp_persist_write(const struct thp_root *root, const struct thp_boot_file *f, const char *path, bool unit,
		      bool force, struct thp_persist_run *r)
{
	const char *name = f->name;
	int dir = path ? thp_file_dir(path, &name) : thp_root_opendir_fd(root, f->dir, 0);
	int err = dir < 0 ? dir : thp_file_check(dir, name);

	memset(r, 0, sizeof(*r));
	if (!err && !force && thp_boot_file_theirs(f)) {
		r->what = THP_PERSIST_FOREIGN;
	} else if (err || (err = thp_file_write(dir, name, f->text, 0644)) != 0) {
		r->what = THP_PERSIST_FAILED;
	} else if (unit && (err = enable_unit(root)) != 0) {
		r->what = THP_PERSIST_NOT_ENABLED;
		r->undo_err = put_back(dir, name, f->cur);
	} else {
		r->what = THP_PERSIST_WRITTEN;
	}
	r->err = err;
	if (dir >= 0)
		close(dir);
	return r->what == THP_PERSIST_WRITTEN ? 0 : 1;
}
