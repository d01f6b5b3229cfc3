/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.c - the files that boot applies as 'thp persist' and 'thp hugetlb
 * persist' show them before writing (--dry-run), and what writing them did;
 * what 'persist --check' finds, and the options 'persist --cmdline' gives */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../control/boot.h"
#include "../control/control.h"
#include "../core/drift.h"
#include "change.h"
#include "msg.h"
#include "persist.h"
#include "render.h"

void thp_boot_file_put(const char *shown, const char *text, const char *cur, bool theirs)
{
	bool changed = text ? !cur || strcmp(cur, text) != 0 : cur && !theirs;

	out_put(OUT_JSON, "path", NULL, ov_str(shown));
	out_put(OUT_JSON, "content", NULL, ov_str(text));
	out_put(OUT_JSON, "current", NULL, ov_str(cur));
	out_put(OUT_JSON, "changed", NULL, ov_bool(changed));
	out_put(OUT_JSON, "foreign", NULL, ov_bool(theirs));
}

void thp_boot_files_put(const char *key, const struct thp_boot_file *f, int n)
{
	out_arr(key);
	for (int i = 0; i < n; i++) {
		out_obj(NULL);
		thp_boot_file_put(f[i].shown, f[i].text, f[i].cur, thp_boot_file_theirs(&f[i]));
		out_end();
	}
	out_end();
}

int thp_boot_back_report(const struct thp_boot_back *b)
{
	switch (b->what) {
	case THP_BOOT_BACK_NONE:
		break;
	case THP_BOOT_BACK_UNREADABLE:
	case THP_BOOT_BACK_DAMAGED:
		thp_journal_unusable(b->journal, b->what == THP_BOOT_BACK_UNREADABLE ? b->err : 0, b->line,
				     "put the files it names back as they were");
		break;
	case THP_BOOT_BACK_STUCK:
		for (int i = 0; i < b->n; i++)
			if (b->v[i].put_err)
				thp_err("cannot put back '/%s': %s", b->v[i].path,
					thp_file_strerror(b->v[i].put_err));
		thp_err("'%s' (pid %d) did not finish, and not every file it had changed can be put back "
			"(journal '%s'); nothing was changed", b->command, (int)b->owner, b->journal);
		break;
	case THP_BOOT_BACK_KEPT:
		thp_err("put back the files of '%s', but cannot remove its journal '%s': %s; remove it",
			b->command, b->journal, thp_file_strerror(b->err));
		break;
	case THP_BOOT_BACK_PUT_BACK:
		thp_err("'%s' (pid %d) did not finish; put back the %d files it had changed", b->command,
			(int)b->owner, b->n);
		break;
	}
	return b->what == THP_BOOT_BACK_NONE || b->what == THP_BOOT_BACK_PUT_BACK ? 0 : 1;
}

/* Says that the file SHOWN cannot be written (VERB: "write", "remove") for
 * ERR, then TAIL. */
static void cannot_write(const char *verb, const char *shown, int err, const char *tail)
{
	thp_err("cannot %s '%s': %s%s%s", verb, shown, thp_file_strerror(err),
		err == -EACCES || err == -EPERM ? " (run as root)"
		: err == -ENOENT ? " (thp creates no directory for it)" : "", tail);
}

int thp_boot_run_report(const struct thp_boot_file *f, const struct thp_boot_run *r)
{
	switch (r->what) {
	case THP_BOOT_CHANGED:
		break;
	case THP_BOOT_FOREIGN:
		thp_err("'%s' exists and was not written by thp; move it away, or --force; nothing "
			"was changed", f[r->file].shown);
		break;
	case THP_BOOT_NO_JOURNAL:
		thp_err("cannot write the journal '%s': %s; nothing was changed", r->journal,
			thp_file_strerror(r->err));
		break;
	case THP_BOOT_FAILED:
		cannot_write(f[r->file].text ? "write" : "remove", f[r->file].shown, r->err, "");
		for (int i = r->file - 1; i >= 0; i--)
			if (r->undo_err[i])
				thp_err("cannot put back '%s' as it was either: %s", f[i].shown,
					thp_file_strerror(r->undo_err[i]));
		if (r->stuck)
			thp_err("the journal '%s' stays: the next change of these files puts them back first",
				r->journal);
		else
			thp_err("nothing was changed");
		break;
	}
	if (r->drop_err)
		thp_err("cannot remove the journal '%s': %s; the next change of these files would put back "
			"what it holds: remove it to keep this change", r->journal, thp_file_strerror(r->drop_err));
	return r->what == THP_BOOT_CHANGED && !r->drop_err ? 0 : 1;
}

int thp_persist_dry(bool json, const struct thp_boot_file *f)
{
	out_doc_begin(json, false, "thp-persist-file/1");
	out_put(OUT_JSON, "dry_run", NULL, ov_bool(true));
	thp_boot_file_put(f->shown, f->text, f->cur, thp_boot_file_theirs(f));
	out_text("%s", f->text);
	return out_doc_end() ? 1 : 0;
}

/* Says that N settings went to SHOWN, of KIND (ENABLED: the unit, now
 * enabled), and what applies them. The command that applies them now is
 * given on the live host only: under --root it would act on this host, not
 * on the tree ROOT. */
static void written(const struct thp_root *root, enum thp_persist_kind kind, int n, const char *shown,
		    bool enabled)
{
	static const char *const by[] = { [THP_PERSIST_TMPFILES] = "systemd-tmpfiles",
					  [THP_PERSIST_UNIT] = "systemd",
					  [THP_PERSIST_SYSCTL] = "systemd-sysctl" };

	printf("wrote %d setting%s to %s%s\n%s applies it at every boot%s", n, n == 1 ? "" : "s",
	       shown, enabled ? " and enabled it (basic.target.wants)" : "", by[kind],
	       kind == THP_PERSIST_UNIT && !enabled ? " once it is installed and enabled" : "");
	if (!root->live)
		printf(" of the host below '%s'; nothing was applied to this host\n", root->path);
	else if (kind == THP_PERSIST_UNIT)
		printf("; to load it now: systemctl daemon-reload\n");
	else if (kind == THP_PERSIST_SYSCTL)
		printf("; to apply it now: sysctl -p %s\n", shown);
	else
		printf("; to apply it now: systemd-tmpfiles --create %s\n", shown);
}

int thp_persist_report(bool json, const struct thp_root *root, enum thp_persist_kind kind,
		       const struct thp_boot_file *f, int n, bool unit, const struct thp_persist_run *r)
{
	switch (r->what) {
	case THP_PERSIST_NOT_ENABLED:
		thp_err("cannot enable '%s' (a link in %s): %s", f->shown, THP_UNIT_WANTS,
			thp_file_strerror(r->err));
		if (r->undo_err)
			thp_err("cannot put back the unit as it was either: %s; '%s' is written but not "
				"enabled, so boot does not apply it", thp_file_strerror(r->undo_err), f->shown);
		else
			thp_err("put back the unit as it was; nothing was changed");
		return 1;
	case THP_PERSIST_FOREIGN:
		thp_err("'%s' exists and was not written by thp; move it away, use -o FILE, or --force",
			f->shown);
		return 1;
	case THP_PERSIST_FAILED:
		cannot_write("write", f->shown, r->err, "; nothing was changed");
		return 1;
	case THP_PERSIST_WRITTEN:
		break;
	}
	out_doc_begin(json, false, "thp-persist/1");
	out_put(OUT_JSON, "written", NULL, ov_str(f->shown));
	out_put(OUT_JSON, "settings", NULL, ov_int(n));
	if (!json)
		written(root, kind, n, f->shown, unit);
	return out_doc_end() ? 1 : 0;
}

/* "FILE:LINE" of source SRC of P (LINE 0: the file alone) into BUF. */
static const char *where(const struct thp_persisted *p, int src, int line, char *buf, size_t cap)
{
	if (line)
		snprintf(buf, cap, "%s:%d", p->sources[src], line);
	else
		snprintf(buf, cap, "%s", p->sources[src]);
	return buf;
}

/* What tuned writes at boot over another persisted value, or to a value not
 * known here, and why tuned's profile is left out: a line each in text, the
 * members second_writers and tuned in JSON. Returns how many persisted
 * values tuned overwrites. */
static int put_writers(const struct thp_persisted *p)
{
	int over = 0;

	out_arr("second_writers");
	for (int i = 0; i < p->nwriters; i++) {
		const struct thp_second_writer *w = &p->writers[i];
		bool o = w->over_source >= 0;
		char from[200] = "", at[200], what[160], *line = NULL;

		out_obj(NULL);
		out_put(OUT_JSON, "key", NULL, ov_str(w->key));
		out_put(OUT_JSON, "writer", NULL, ov_str("tuned"));
		out_put(OUT_JSON, "value", NULL, ov_str(w->unknown ? NULL : w->value));
		out_put(OUT_JSON, "unknown", NULL, ov_str(w->unknown));
		out_put(OUT_JSON, "option", NULL, ov_str(w->option));
		out_put(OUT_JSON, "source", NULL, ov_str(p->sources[w->source]));
		out_put(OUT_JSON, "line", NULL, ov_int(w->line));
		out_put(OUT_JSON, "over", NULL, ov_str(o ? w->over : NULL));
		out_put(OUT_JSON, "over_source", NULL, ov_str(o ? p->sources[w->over_source] : NULL));
		out_put(OUT_JSON, "over_line", NULL, ov_int(w->over_line));
		out_end();
		if (o) {
			char src[180];
			snprintf(from, sizeof(from), ", over %s from %s", w->over,
				 where(p, w->over_source, w->over_line, src, sizeof(src)));
			over++;
		}
		if (w->unknown)
			snprintf(what, sizeof(what), "%s at boot%s, a value not known here: it %s", w->key, from, w->unknown);
		else
			snprintf(what, sizeof(what), "%s=%s at boot%s", w->key, w->value, from);
		if (asprintf(&line, "%stuned writes %s (%s %s, profile '%s')", o ? "second writer: " : "", what,
			     where(p, w->source, w->line, at, sizeof(at)), w->option, p->tuned) >= 0)
			out_put(OUT_FP, NULL, "%s\n", ov_str(line));
		free(line);
	}
	out_end();
	if (p->tuned[0] || p->tuned_note[0]) {
		out_obj("tuned");
		out_put(OUT_JSON, "profiles", NULL, ov_str(p->tuned[0] ? p->tuned : NULL));
		out_put(p->tuned_note[0] ? OUT_ANY : OUT_JSON, "note", "tuned: %s\n",
			ov_str(p->tuned_note[0] ? p->tuned_note : NULL));
		out_end();
	} else {
		out_put(OUT_JSON, "tuned", NULL, ov_null());
	}
	if (over)
		out_text("%d persisted setting%s written again by tuned when it starts at boot: tuned's value%s\n", over,
			 over == 1 ? " is" : "s are", over == 1 ? " wins" : "s win");
	return over;
}

enum { C_KEY, C_PERSISTED, C_RUNNING, C_SOURCE, C_LINE, C_REFUSED };

/* Column C of drift ROW: in text the source is FILE:LINE and a running value
 * the kernel lacks is "absent". */
static void get_drift(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct thp_drift *d = row;

	(void)ctx;
	switch (c->arg) {
	case C_KEY: v->s = d->key; return;
	case C_PERSISTED: v->s = d->persisted; return;
	case C_RUNNING:
		out_val_set(v, ov_str(d->running[0] ? d->running : NULL));
		v->text = d->running[0] ? NULL : "absent";
		return;
	case C_SOURCE:
		v->s = d->source;
		if (d->line)
			snprintf(v->buf, v->cap, "%s:%d", d->source, d->line);
		v->text = d->line ? v->buf : NULL;
		return;
	case C_LINE: v->i = d->line; return;
	default: out_val_set(v, ov_str(d->refused[0] ? d->refused : NULL)); return;
	}
}

static const struct out_col drift_cols[] = {
	[C_KEY] = { "KEY", OUT_TEXT, OUT_KEEP, "", get_drift, C_KEY },
	[C_PERSISTED] = { "PERSISTED", OUT_TEXT, OUT_KEEP, "", get_drift, C_PERSISTED },
	[C_RUNNING] = { "RUNNING", OUT_TEXT, OUT_KEEP, "", get_drift, C_RUNNING },
	[C_SOURCE] = { "SOURCE", OUT_TEXT, OUT_KEEP, "", get_drift, C_SOURCE },
	[C_LINE] = { "LINE", OUT_INT, 0, "", get_drift, C_LINE },
	[C_REFUSED] = { "REFUSED", OUT_TEXT, 0, "", get_drift, C_REFUSED },
};

/* The N values of D that differ from the running kernel, of the persisted
 * ones of P: a table and why boot refuses some in text, member drift in JSON. */
static void put_drift(const struct thp_persisted *p, const struct thp_drift *d, int n)
{
	static const int text_sel[] = { C_KEY, C_PERSISTED, C_RUNNING, C_SOURCE };
	static const int json_sel[] = { C_KEY, C_PERSISTED, C_RUNNING, C_SOURCE, C_LINE, C_REFUSED };
	const struct out_fmt fmt = { .json = out_json_on() };
	struct out_table *t = NULL;

	if (fmt.json)
		t = out_table_open("drift", drift_cols, json_sel, 6, &fmt, NULL);
	else if (n)
		t = out_table_open(NULL, drift_cols, text_sel, 4, &fmt, NULL);
	for (int i = 0; i < n; i++)
		out_table_add(t, &d[i]);
	out_table_close(t, 0);
	for (int i = 0; !fmt.json && i < n; i++) {
		/* key and value come from the persisted file: one escaped line */
		char *line = NULL;
		if (d[i].refused[0] && asprintf(&line, "boot cannot apply %s=%s: %s", d[i].key, d[i].persisted,
						d[i].refused) >= 0)
			out_put(OUT_FP, NULL, "%s\n", ov_str(line));
		free(line);
	}
	if (n)
		out_text("%d of %d persisted setting%s differ%s from the running kernel\n", n, p->values.n,
			 p->values.n == 1 ? "" : "s", n == 1 ? "s" : "");
}

int thp_persist_check_report(bool json, const struct thp_persisted *p, const struct thp_drift *d, int n)
{
	int over;

	out_doc_begin(json, false, "thp-persist-check/1");
	out_put(OUT_JSON, "persisted", NULL, ov_int(p->values.n));
	if (p->values.n == 0)
		out_text("nothing is persisted: every THP setting returns to the kernel's default at boot\n");
	else if (n == 0)
		out_text("no drift: the %d persisted setting%s the running kernel (", p->values.n,
			 p->values.n == 1 ? " matches" : "s match");
	out_arr("sources");
	for (int i = 0; i < p->nsources; i++)
		out_put(p->values.n && !n ? OUT_ANY : OUT_JSON, NULL, i ? ", %s" : "%s", ov_str(p->sources[i]));
	out_end();
	if (p->values.n && !n)
		out_text(")\n");
	put_drift(p, d, n);
	out_arr("units_not_enabled");
	for (int i = 0; i < p->nidle; i++)
		out_put(OUT_ANY, NULL, "not enabled, so boot does not apply it: %s\n", ov_str(p->idle[i]));
	out_end();
	over = put_writers(p);
	out_doc_end();
	return n || over ? 3 : 0;
}

void thp_persist_cmdline_report(bool json, const char *opts, const struct thp_kvlist *rest)
{
	out_doc_begin(json, false, "thp-persist-cmdline/1");
	out_put(OUT_JSON, "cmdline", NULL, ov_str(opts));
	if (opts[0])
		out_text("%s\n\n%sthp_anon= needs Linux 6.12+; transparent_hugepage_shmem= and thp_shmem= 6.13+.\n"
			 "'thp persist --check' after the reboot shows whether they took effect.\n",
			 opts, thp_bootloader_help);
	else
		out_text("none of these settings has a kernel command-line option\n");
	if (rest->n)
		out_text("\nno command-line option exists for:");
	out_arr("not_on_cmdline");
	for (int i = 0; i < rest->n; i++)
		out_put(OUT_ANY, NULL, " %s", ov_str(rest->v[i].key));
	out_end();
	if (rest->n)
		out_text("\n(persist them with 'thp persist' or 'thp persist --systemd')\n");
	out_doc_end();
}
