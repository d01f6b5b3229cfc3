/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.c - `thp persist`: keep THP settings across reboot, or check what is kept */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../control/control.h"
#include "../control/journal.h"
#include "../core/drift.h"
#include "../core/persist.h"
#include "../render/render.h"
#include "cmd.h"
#include "opt.h"

#define TMPFILES_DIR THP_TMPFILES_DIR
#define TMPFILES_NAME THP_TMPFILES_NAME
#define TMPFILES_DEFAULT TMPFILES_DIR "/" TMPFILES_NAME
#define UNIT_DIR THP_UNIT_DIR
#define UNIT_NAME THP_UNIT_NAME
#define UNIT_DEFAULT UNIT_DIR "/" UNIT_NAME
#define UNIT_WANTS THP_UNIT_WANTS
#define SYSCTL_DIR THP_SYSCTLD_DIR
#define SYSCTL_NAME THP_SYSCTLD_NAME
#define SYSCTL_DEFAULT SYSCTL_DIR "/" SYSCTL_NAME
#define OURS "written by 'thp persist"

enum mode { TMPFILES, SYSTEMD, CMDLINE, CHECK, SYSCTL /* chosen by vm.* keys, not an option */ };

static const struct thp_opt opts[] = {
	THP_OPT_LONG('T', "tmpfiles", NULL, "write a tmpfiles.d drop-in (default:\n/" TMPFILES_DEFAULT ")"),
	THP_OPT_LONG('S', "systemd", NULL, "write and enable a oneshot unit\n(/" UNIT_DEFAULT ")"),
	THP_OPT_LONG('C', "cmdline", NULL, "print kernel command-line options and how to add them"),
	THP_OPT_LONG('K', "check", NULL,
		     "compare what is persisted (sysctl.d, tmpfiles.d, enabled\n"
		     "units, /proc/cmdline, tuned's active profile) with the\n"
		     "running kernel; exit 3 on drift, or when tuned writes a\n"
		     "persisted setting again at boot (a second writer)"),
	THP_OPT('o', "output", "FILE", "write FILE instead of the default path"),
	THP_OPT_LONG('n', "dry-run", NULL, "print the file, write nothing (with --json: the file as it\n"
					   "is and would be, and whether writing changes it)"),
	THP_OPT('f', "force", NULL, "replace a file that 'thp persist' did not write"),
	THP_OPT_JSON("report as JSON"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] persist [options] [KEY=VALUE...]\n"
		 "\n"
		 "Make THP settings survive reboot: the current settings, or only the KEY=VALUE\n"
		 "given (keys as for 'thp set'). Every value is checked against what the running\n"
		 "kernel accepts, and written in the order the kernel needs (per-size last).\n"
		 "vm.* keys (compaction and watermarks) are persisted only when given, and go to\n"
		 "a sysctl.d drop-in (/" SYSCTL_DEFAULT "), applied by systemd-sysctl at\n"
		 "boot; give them in a command of their own.",
	.width = 20,
	.opts = opts,
};

/* "FILE:LINE" of source SRC of P (LINE 0: the file alone) into BUF. */
static const char *where(const struct thp_persisted *p, int src, int line, char *buf, size_t cap)
{
	if (line)
		snprintf(buf, cap, "%s:%d", p->sources[src], line);
	else
		snprintf(buf, cap, "%s", p->sources[src]);
	return buf;
}

/* tuned's active profile and what it writes over other persisted values, for --json. */
static void writers_json(struct json_object *o, const struct thp_persisted *p)
{
	struct json_object *a = json_object_new_array(), *t = NULL;

	if (p->tuned[0] || p->tuned_note[0]) {
		t = json_object_new_object();
		json_object_object_add(t, "profiles", p->tuned[0] ? json_object_new_string(p->tuned) : NULL);
		json_object_object_add(t, "note", p->tuned_note[0] ? json_object_new_string(p->tuned_note) : NULL);
	}
	for (int i = 0; i < p->nwriters; i++) {
		const struct thp_second_writer *w = &p->writers[i];
		struct json_object *x = json_object_new_object();
		bool over = w->over_source >= 0;

		json_object_object_add(x, "key", json_object_new_string(w->key));
		json_object_object_add(x, "writer", json_object_new_string("tuned"));
		json_object_object_add(x, "value", w->unknown ? NULL : json_object_new_string(w->value));
		json_object_object_add(x, "unknown", w->unknown ? json_object_new_string(w->unknown) : NULL);
		json_object_object_add(x, "option", json_object_new_string(w->option));
		json_object_object_add(x, "source", json_object_new_string(p->sources[w->source]));
		json_object_object_add(x, "line", json_object_new_int(w->line));
		json_object_object_add(x, "over", over ? json_object_new_string(w->over) : NULL);
		json_object_object_add(x, "over_source", over ? json_object_new_string(p->sources[w->over_source]) : NULL);
		json_object_object_add(x, "over_line", json_object_new_int(w->over_line));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "tuned", t);
	json_object_object_add(o, "second_writers", a);
}

/* Says what tuned writes at boot over another persisted value, or to a value
 * not known here, and why tuned's profile is left out. Returns how many
 * persisted values tuned overwrites. */
static int writers_text(const struct thp_persisted *p)
{
	int over = 0;

	for (int i = 0; i < p->nwriters; i++) {
		const struct thp_second_writer *w = &p->writers[i];
		char from[200] = "", at[200], what[160], *line = NULL;

		if (w->over_source >= 0) {
			char src[180];
			snprintf(from, sizeof(from), ", over %s from %s", w->over,
				 where(p, w->over_source, w->over_line, src, sizeof(src)));
			over++;
		}
		if (w->unknown)
			snprintf(what, sizeof(what), "%s at boot%s, a value not known here: it %s", w->key, from, w->unknown);
		else
			snprintf(what, sizeof(what), "%s=%s at boot%s", w->key, w->value, from);
		if (asprintf(&line, "%stuned writes %s (%s %s, profile '%s')", w->over_source >= 0 ? "second writer: " : "",
			     what, where(p, w->source, w->line, at, sizeof(at)), w->option, p->tuned) >= 0) {
			out_esc_put(stdout, line);
			putchar('\n');
		}
		free(line);
	}
	if (p->tuned_note[0]) {
		fputs("tuned: ", stdout);
		out_esc_put(stdout, p->tuned_note);
		putchar('\n');
	}
	if (over)
		printf("%d persisted setting%s written again by tuned when it starts at boot: tuned's value%s\n", over,
		       over == 1 ? " is" : "s are", over == 1 ? " wins" : "s win");
	return over;
}

static int check(const struct thp_ctx *ctx, const struct thp_changes *cs)
{
	struct thp_persisted *p = malloc(sizeof(*p));
	struct thp_drift *d = calloc(THP_KV_MAX, sizeof(*d));
	struct thp_hugetlb *h = malloc(sizeof(*h));
	uint64_t sizes[THP_SIZES_MAX];
	int n, over = 0, nsizes = thp_changes_sizes(cs, sizes, THP_SIZES_MAX);

	if (!p || !d || !h) {
		free(p);
		free(d);
		free(h);
		return 1;
	}
	thp_hugetlb_read(&ctx->root, h);
	thp_persisted_read(&ctx->root, sizes, nsizes, h->default_size, p);
	n = thp_drift_check(cs, h, p, d, THP_KV_MAX);
	free(h);
	if (ctx->json) {
		struct json_object *o = json_object_new_object(), *a = json_object_new_array(),
				   *src = json_object_new_array();
		for (int i = 0; i < p->nsources; i++)
			json_object_array_add(src, json_object_new_string(p->sources[i]));
		for (int i = 0; i < n; i++) {
			struct json_object *x = json_object_new_object();
			json_object_object_add(x, "key", json_object_new_string(d[i].key));
			json_object_object_add(x, "persisted", json_object_new_string(d[i].persisted));
			json_object_object_add(x, "running", d[i].running[0] ? json_object_new_string(d[i].running) : NULL);
			json_object_object_add(x, "source", json_object_new_string(d[i].source));
			json_object_object_add(x, "line", json_object_new_int(d[i].line));
			json_object_object_add(x, "refused", d[i].refused[0] ? json_object_new_string(d[i].refused) : NULL);
			json_object_array_add(a, x);
		}
		struct json_object *idle = json_object_new_array();
		for (int i = 0; i < p->nidle; i++)
			json_object_array_add(idle, json_object_new_string(p->idle[i]));
		json_object_object_add(o, "sources", src);
		json_object_object_add(o, "units_not_enabled", idle);
		json_object_object_add(o, "persisted", json_object_new_int(p->values.n));
		json_object_object_add(o, "drift", a);
		writers_json(o, p);
		out_json_print(o);
	} else if (p->values.n == 0) {
		puts("nothing is persisted: every THP setting returns to the kernel's default at boot");
	} else if (n == 0) {
		printf("no drift: the %d persisted setting%s the running kernel (", p->values.n,
		       p->values.n == 1 ? " matches" : "s match");
		for (int i = 0; i < p->nsources; i++) {
			fputs(i ? ", " : "", stdout);
			out_esc_put(stdout, p->sources[i]);
		}
		puts(")");
	} else {
		struct out_table *t = out_table_new(4, (const char *const[]){ "KEY", "PERSISTED", "RUNNING", "SOURCE" }, false);
		for (int i = 0; i < n; i++) {
			char src[200];
			if (d[i].line)
				snprintf(src, sizeof(src), "%s:%d", d[i].source, d[i].line);
			else
				snprintf(src, sizeof(src), "%s", d[i].source);
			out_table_row(t, (const char *const[]){ d[i].key, d[i].persisted,
							   d[i].running[0] ? d[i].running : "absent", src });
		}
		out_table_print(t, 0);
		for (int i = 0; i < n; i++) {
			if (!d[i].refused[0])
				continue;
			/* key and value come from the persisted file: one escaped line */
			char *line = NULL;
			if (asprintf(&line, "boot cannot apply %s=%s: %s", d[i].key, d[i].persisted,
				     d[i].refused) >= 0) {
				out_esc_put(stdout, line);
				putchar('\n');
			}
			free(line);
		}
		printf("%d of %d persisted setting%s differ%s from the running kernel\n", n, p->values.n,
		       p->values.n == 1 ? "" : "s", n == 1 ? "s" : "");
	}
	for (int i = 0; !ctx->json && i < p->nidle; i++) {
		fputs("not enabled, so boot does not apply it: ", stdout);
		out_esc_put(stdout, p->idle[i]);
		putchar('\n');
	}
	if (!ctx->json)
		over = writers_text(p);
	else
		for (int i = 0; i < p->nwriters; i++)
			over += p->writers[i].over_source >= 0;
	free(p);
	free(d);
	return n || over ? 3 : 0;
}

static void cmdline(const struct thp_ctx *ctx, const struct thp_kvlist *l)
{
	struct thp_kvlist *rest = malloc(sizeof(*rest));
	char *opts = rest ? thp_cmdline_format(l, rest) : NULL;

	if (!opts) {
		thp_err("out of memory");
		free(rest);
		return;
	}
	if (ctx->json) {
		struct json_object *o = json_object_new_object(), *a = json_object_new_array();
		for (int i = 0; i < rest->n; i++)
			json_object_array_add(a, json_object_new_string(rest->v[i].key));
		json_object_object_add(o, "cmdline", json_object_new_string(opts));
		json_object_object_add(o, "not_on_cmdline", a);
		out_json_print(o);
	} else {
		if (opts[0]) {
			printf("%s\n\n", opts);
			fputs(thp_bootloader_help, stdout);
			puts("thp_anon= needs Linux 6.12+; transparent_hugepage_shmem= and thp_shmem= 6.13+.\n"
			     "'thp persist --check' after the reboot shows whether they took effect.");
		} else {
			puts("none of these settings has a kernel command-line option");
		}
		if (rest->n) {
			printf("\nno command-line option exists for:");
			for (int i = 0; i < rest->n; i++)
				printf(" %s", rest->v[i].key);
			puts("\n(persist them with 'thp persist' or 'thp persist --systemd')");
		}
	}
	free(opts);
	free(rest);
}

/* True when CUR, the text of the file to write (NULL: there is none), was not written by thp. */
static bool foreign(const char *cur)
{
	return cur && !strstr(cur, OURS);
}

/* Adds to O the file SHOWN as it would be written (TEXT; NULL: removed), as
 * it is (CUR, NULL when absent), whether writing changes it, and whether thp
 * did not write it (FOREIGN). */
static void file_json(struct json_object *o, const char *shown, const char *text, const char *cur,
		      bool theirs)
{
	bool changed = text ? !cur || strcmp(cur, text) != 0 : cur && !theirs;

	json_object_object_add(o, "path", json_object_new_string(shown));
	json_object_object_add(o, "content", text ? json_object_new_string(text) : NULL);
	json_object_object_add(o, "current", cur ? json_object_new_string(cur) : NULL);
	json_object_object_add(o, "changed", json_object_new_boolean(changed));
	json_object_object_add(o, "foreign", json_object_new_boolean(theirs));
}

/* 'persist --dry-run --json': one file as file_json() has it. */
static int dry_json(const char *shown, const char *text, const char *cur)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "dry_run", json_object_new_boolean(true));
	file_json(o, shown, text, cur, foreign(cur));
	return out_json_print(o) ? 1 : 0;
}

/* True when CUR, the text of boot file F (NULL: there is none), was not written by thp. */
static bool theirs(const struct thp_boot_file *f)
{
	return f->cur && !strstr(f->cur, f->mark);
}

void thp_boot_files_read(const struct thp_ctx *ctx, struct thp_boot_file *f, int n)
{
	for (int i = 0; i < n; i++) {
		char rel[512];

		snprintf(rel, sizeof(rel), "%s/%s", f[i].dir, f[i].name);
		thp_shown_path(ctx, rel, f[i].shown, sizeof(f[i].shown));
		if (thp_read(&ctx->root, rel, &f[i].cur, NULL))
			f[i].cur = NULL; /* absent or unreadable: nothing of thp's or anyone's to keep */
		f[i].done = THP_BOOT_KEPT;
	}
}

struct json_object *thp_boot_files_json(const struct thp_boot_file *f, int n)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();
		file_json(o, f[i].shown, f[i].text, f[i].cur, theirs(&f[i]));
		json_object_array_add(a, o);
	}
	return a;
}

/* Gives F the content TEXT (NULL: removes it). Returns 0 or -errno. */
static int boot_file_put(const struct thp_ctx *ctx, const struct thp_boot_file *f, const char *text)
{
	char rel[512];
	int dir, err;

	snprintf(rel, sizeof(rel), "%s/%s", f->dir, f->name);
	if (!text)
		return thp_root_unlink(&ctx->root, rel);
	dir = thp_root_opendir_fd(&ctx->root, f->dir, 0);
	err = dir < 0 ? dir : thp_file_check(dir, f->name);
	if (!err)
		err = thp_file_write(dir, f->name, text, 0644);
	if (dir >= 0)
		close(dir);
	return err;
}

/* Puts the files F[0..N) that were changed back as they were; says which
 * cannot be. Returns how many cannot. */
static int boot_files_undo(const struct thp_ctx *ctx, struct thp_boot_file *f, int n)
{
	int stuck = 0;

	for (int i = n - 1; i >= 0; i--) {
		int err = f[i].done == THP_BOOT_KEPT ? 0 : boot_file_put(ctx, &f[i], f[i].cur);
		if (err == -ENOENT && !f[i].cur)
			err = 0;
		if (err) {
			thp_err("cannot put back '%s' as it was either: %s", f[i].shown, thp_file_strerror(err));
			stuck++;
		} else {
			f[i].done = THP_BOOT_KEPT;
		}
	}
	return stuck;
}

/* Puts the files of J back as they were. Returns how many cannot be (said on stderr). */
static int journal_put_back(const struct thp_ctx *ctx, const struct thp_boot_journal *j)
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
		err = slash ? boot_file_put(ctx, &f, j->v[i].text) : -EINVAL;
		if (err && !(err == -ENOENT && !j->v[i].text)) {
			thp_err("cannot put back '/%s': %s", j->v[i].path, thp_file_strerror(err));
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
static int boot_files_recover(const struct thp_ctx *ctx, const struct thp_boot_file *files, int nfiles)
{
	struct thp_boot_journal *j = malloc(sizeof(*j));
	char shown[4200], at[32] = "", *buf = NULL;
	int line = 0, rc = 1, err = j ? thp_read(&ctx->root, THP_BOOT_JOURNAL, &buf, NULL) : -ENOMEM;

	thp_shown_path(ctx, THP_BOOT_JOURNAL, shown, sizeof(shown));
	if (err == -ENOENT || err == -ENOTDIR) {
		rc = 0;
	} else if (err) {
		thp_err("cannot read the journal '%s': %s; nothing was changed", shown, thp_file_strerror(err));
	} else if (thp_boot_journal_parse(buf, j, &line) != 0 || !journal_ours(j, files, nfiles)) {
		if (line)
			snprintf(at, sizeof(at), ": line %d", line);
		thp_err("the journal '%s' is damaged%s; nothing was changed: look at it, put the files it "
			"names back as they were, then remove it", shown, at);
	} else if (journal_put_back(ctx, j)) {
		thp_err("'%s' (pid %d) did not finish, and not every file it had changed can be put back "
			"(journal '%s'); nothing was changed", j->command, (int)j->owner, shown);
	} else if ((err = thp_boot_journal_remove(&ctx->root)) != 0) {
		thp_err("put back the files of '%s', but cannot remove its journal '%s': %s; remove it",
			j->command, shown, thp_file_strerror(err));
	} else {
		thp_err("'%s' (pid %d) did not finish; put back the %d files it had changed", j->command,
			(int)j->owner, j->n);
		rc = 0;
	}
	free(buf);
	free(j);
	return rc;
}

/* Journals the files of F that change (more than one), as they are. Returns 0 or -errno. */
static int boot_files_journal(const struct thp_ctx *ctx, const struct thp_boot_file *f, int n, int changes)
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
	err = thp_boot_journal_push(&ctx->root, j);
	free(s);
	free(j);
	return err;
}

/* True when writing F changes it: it gets a text, or thp's file goes. */
static bool boot_file_changes(const struct thp_boot_file *f)
{
	return f->text || (f->cur && !theirs(f));
}

/* Writes every file of F that changes, in order; on a failure puts back the
 * ones before and says so. Returns 0, or 1 after saying what stays. */
static int boot_files_put(const struct thp_ctx *ctx, struct thp_boot_file *f, int n)
{
	int err = 0, i;

	for (i = 0; i < n && !err; i++) {
		if (!boot_file_changes(&f[i]))
			continue;
		err = boot_file_put(ctx, &f[i], f[i].text);
		if (err == -ENOENT && !f[i].text)
			err = 0; /* gone meanwhile */
		else if (!err)
			f[i].done = f[i].text ? THP_BOOT_WRITTEN : THP_BOOT_REMOVED;
	}
	if (!err)
		return 0;
	i--;
	thp_err("cannot %s '%s': %s%s", f[i].text ? "write" : "remove", f[i].shown, thp_file_strerror(err),
		err == -EACCES || err == -EPERM ? " (run as root)"
		: err == -ENOENT ? " (thp creates no directory for it)" : "");
	if (boot_files_undo(ctx, f, i))
		return -1;
	thp_err("nothing was changed");
	return 1;
}

int thp_boot_files_write(const struct thp_ctx *ctx, struct thp_boot_file *f, int n, bool force)
{
	char shown[4200];
	int rc, changes = 0, err;

	if ((rc = thp_change_begin(ctx, "writing what boot applies")) != 0 || (rc = boot_files_recover(ctx, f, n)))
		return rc;
	for (int i = 0; i < n; i++)
		free(f[i].cur);
	thp_boot_files_read(ctx, f, n); /* again: the writer before may have changed them */
	for (int i = 0; i < n; i++) {
		if (f[i].text && theirs(&f[i]) && !force) {
			thp_err("'%s' exists and was not written by thp; move it away, or --force; nothing "
				"was changed", f[i].shown);
			return 1;
		}
		changes += boot_file_changes(&f[i]);
	}
	thp_shown_path(ctx, THP_BOOT_JOURNAL, shown, sizeof(shown));
	if ((err = boot_files_journal(ctx, f, n, changes)) != 0) {
		thp_err("cannot write the journal '%s': %s; nothing was changed", shown, thp_file_strerror(err));
		return 1;
	}
	rc = boot_files_put(ctx, f, n);
	if (rc < 0) {
		thp_err("the journal '%s' stays: the next change of these files puts them back first", shown);
		return 1;
	}
	if (changes > 1 && (err = thp_boot_journal_remove(&ctx->root)) != 0) {
		thp_err("cannot remove the journal '%s': %s; the next change of these files would put back "
			"what it holds: remove it to keep this change", shown, thp_file_strerror(err));
		return 1;
	}
	return rc;
}

void thp_boot_files_free(struct thp_boot_file *f, int n)
{
	for (int i = 0; i < n; i++) {
		free(f[i].text);
		free(f[i].cur);
		f[i].text = f[i].cur = NULL;
	}
}

/* Enables the unit as 'systemctl enable' does: a link in UNIT_WANTS, which
 * is created when missing. Returns 0 or -errno. */
static int enable_unit(const struct thp_ctx *ctx)
{
	int dir = thp_root_opendir_fd(&ctx->root, UNIT_DIR, 0), wants, err;

	if (dir < 0)
		return dir;
	if (mkdirat(dir, UNIT_WANTS, 0755) != 0 && errno != EEXIST) {
		err = -errno;
		close(dir);
		return err;
	}
	wants = openat(dir, UNIT_WANTS, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	err = wants < 0 ? -errno : thp_file_link(wants, "/" UNIT_DEFAULT, UNIT_NAME);
	if (wants >= 0)
		close(wants);
	close(dir);
	return err;
}

/* Writes the unit TEXT into DIR (shown as SHOWN) and enables it. When it
 * cannot be enabled, the unit is put back as it was (OLD; NULL: absent), so
 * that boot applies the old state or the new one, never a unit that nothing
 * starts. Returns 0, -errno of the unit's write, or -ECANCELED after saying
 * why it is not enabled. */
static int write_unit(const struct thp_ctx *ctx, int dir, const char *text, const char *old,
		      const char *shown)
{
	int err = thp_file_write(dir, UNIT_NAME, text, 0644), undo;

	if (err || (err = enable_unit(ctx)) == 0)
		return err;
	undo = old ? thp_file_write(dir, UNIT_NAME, old, 0644)
		   : unlinkat(dir, UNIT_NAME, 0) != 0 ? -errno : 0;
	thp_err("cannot enable '%s' (a link in %s): %s", shown, UNIT_WANTS, thp_file_strerror(err));
	if (undo)
		thp_err("cannot put back the unit as it was either: %s; '%s' is written but not "
			"enabled, so boot does not apply it", thp_file_strerror(undo), shown);
	else
		thp_err("put back the unit as it was; nothing was changed");
	return -ECANCELED;
}

/* Opens the directory of FILE (a path the user named), or of the default file
 * of MODE below the root (which must exist), and points *NAME at the file's
 * name there. Returns the descriptor or -errno. */
static int target_dir(const struct thp_ctx *ctx, enum mode mode, const char *file, const char **name)
{
	static const char *const dirs[] = { [TMPFILES] = TMPFILES_DIR, [SYSTEMD] = UNIT_DIR,
					    [SYSCTL] = SYSCTL_DIR };
	static const char *const names[] = { [TMPFILES] = TMPFILES_NAME, [SYSTEMD] = UNIT_NAME,
					     [SYSCTL] = SYSCTL_NAME };

	*name = names[mode];
	return file ? thp_file_dir(file, name) : thp_root_opendir_fd(&ctx->root, dirs[mode], 0);
}

/* Says that N settings went to SHOWN (ENABLED: a unit, now enabled) and what
 * applies them. The command that applies them now is given on the live host
 * only: under --root it would act on this host, not on the tree. */
static void written(const struct thp_ctx *ctx, enum mode mode, int n, const char *shown, bool enabled)
{
	static const char *const by[] = { [TMPFILES] = "systemd-tmpfiles", [SYSTEMD] = "systemd",
					  [SYSCTL] = "systemd-sysctl" };

	printf("wrote %d setting%s to %s%s\n%s applies it at every boot%s", n, n == 1 ? "" : "s",
	       shown, enabled ? " and enabled it (basic.target.wants)" : "", by[mode],
	       mode == SYSTEMD && !enabled ? " once it is installed and enabled" : "");
	if (!ctx->root.live)
		printf(" of the host below '%s'; nothing was applied to this host\n", ctx->root.path);
	else if (mode == SYSTEMD)
		printf("; to load it now: systemctl daemon-reload\n");
	else if (mode == SYSCTL)
		printf("; to apply it now: sysctl -p %s\n", shown);
	else
		printf("; to apply it now: systemd-tmpfiles --create %s\n", shown);
}

static int write_out(const struct thp_ctx *ctx, enum mode mode, const struct thp_kvlist *l,
		     const char *file, bool dry, bool force)
{
	const char *path = mode == SYSTEMD ? UNIT_DEFAULT : mode == SYSCTL ? SYSCTL_DEFAULT : TMPFILES_DEFAULT, *name;
	char *text = mode == SYSTEMD ? thp_unit_format(l) : mode == SYSCTL ? thp_sysctl_format(l)
									   : thp_tmpfiles_format(l);
	char *cur = NULL;
	char shown[4200];
	bool theirs;
	int dir, err;

	if (file)
		snprintf(shown, sizeof(shown), "%s", file);
	else
		thp_shown_path(ctx, path, shown, sizeof(shown));
	if (!text) {
		thp_err("out of memory");
		return 1;
	}
	if (file ? thp_read_user(file, &cur, NULL) : thp_read(&ctx->root, path, &cur, NULL))
		cur = NULL; /* absent or unreadable: nothing of thp's or anyone's to keep */
	if (dry) {
		err = ctx->json ? dry_json(shown, text, cur) : fputs(text, stdout) < 0;
		free(text);
		free(cur);
		return err ? 1 : 0;
	}
	if (!file && (err = thp_change_begin(ctx, "writing what boot applies")) != 0) {
		free(text);
		free(cur);
		return err;
	}
	dir = target_dir(ctx, mode, file, &name);
	err = dir < 0 ? dir : thp_file_check(dir, name);
	theirs = !err && !force && foreign(cur);
	if (!err && !theirs && mode == SYSTEMD && !file)
		err = write_unit(ctx, dir, text, cur, shown);
	else if (!err && !theirs)
		err = thp_file_write(dir, name, text, 0644);
	free(cur);
	if (dir >= 0)
		close(dir);
	free(text);
	if (err == -ECANCELED)
		return 1;
	if (theirs) {
		thp_err("'%s' exists and was not written by thp; move it away, use -o FILE, or --force",
			shown);
		return 1;
	}
	if (err) {
		thp_err("cannot write '%s': %s%s; nothing was changed", shown, thp_file_strerror(err),
			err == -EACCES || err == -EPERM ? " (run as root)"
			: err == -ENOENT ? " (thp creates no directory for it)" : "");
		return 1;
	}
	if (ctx->json) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "written", json_object_new_string(shown));
		json_object_object_add(o, "settings", json_object_new_int(l->n));
		out_json_print(o);
	} else {
		written(ctx, mode, l->n, shown, mode == SYSTEMD && !file);
	}
	return 0;
}

int cmd_persist(struct thp_ctx *ctx, int argc, char **argv)
{
	static const char *const mode_opt[] = { [TMPFILES] = "--tmpfiles", [SYSTEMD] = "--systemd",
						 [CMDLINE] = "--cmdline", [CHECK] = "--check" };
	enum mode mode = TMPFILES;
	const char *file = NULL, *given = NULL, *writes = NULL;
	struct thp_changes *cs = NULL;
	struct thp_kvlist *l = NULL;
	bool dry = false, force = false;
	int c, rc = 1, nvm = 0;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'T':
		case 'S':
		case 'C':
		case 'K': {
			enum mode m = c == 'T' ? TMPFILES : c == 'S' ? SYSTEMD : c == 'C' ? CMDLINE : CHECK;
			if (given && m != mode) {
				thp_err("%s and %s cannot be combined; give one", given, mode_opt[m]);
				return thp_usage_error("persist");
			}
			mode = m;
			given = mode_opt[m];
			break;
		}
		case 'o': file = optarg; writes = "--output"; break;
		case 'n': dry = true; writes = "--dry-run"; break;
		case 'f': force = true; writes = "--force"; break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	if (writes && (mode == CMDLINE || mode == CHECK)) {
		thp_err("%s applies to --tmpfiles and --systemd, not to %s", writes, mode_opt[mode]);
		return thp_usage_error("persist");
	}
	if (mode == CHECK && optind < argc) {
		thp_err("--check takes no KEY=VALUE");
		return thp_usage_error("persist");
	}
	l = calloc(1, sizeof(*l));
	cs = thp_changes_load(&ctx->root);
	if (!cs || !l)
		goto out;
	if (mode == CHECK) {
		rc = check(ctx, cs);
		goto out;
	}
	rc = thp_want_args(cs, argc - optind, argv + optind, "persist");
	if (rc)
		goto out;
	for (int i = 0; i < cs->n; i++) {
		const struct thp_change *c = &cs->v[i];
		const char *v = optind < argc ? c->want : c->old;
		bool named = (c->k.d->flags & THP_NAMED) != 0;

		if (!v[0] || !(c->k.d->flags & THP_PERSIST) || (named && optind >= argc))
			continue;
		thp_kv_set(l, c->key, v, 0);
		nvm += named;
	}
	if (nvm && nvm < l->n && mode != CMDLINE) {
		thp_err("vm.* settings go to /" SYSCTL_DEFAULT " and the others to a tmpfiles.d "
			"file or unit; give them in two commands");
		rc = thp_usage_error("persist");
		goto out;
	}
	if (nvm && mode == SYSTEMD) {
		thp_err("vm.* settings go to a sysctl.d drop-in, not to a unit; leave out --systemd");
		rc = thp_usage_error("persist");
		goto out;
	}
	if (nvm && mode == TMPFILES)
		mode = SYSCTL;
	if (mode == CMDLINE) {
		cmdline(ctx, l);
		rc = 0;
	} else {
		rc = write_out(ctx, mode, l, file, dry, force);
	}
out:
	free(cs);
	free(l);
	return rc;
}
