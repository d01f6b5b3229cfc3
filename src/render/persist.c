/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.c - the files that boot applies as 'thp persist' and 'thp hugetlb
 * persist' show them before writing (--dry-run), and what writing them did */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../control/boot.h"
#include "../control/control.h"
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
	char at[32] = "";

	switch (b->what) {
	case THP_BOOT_BACK_NONE:
		break;
	case THP_BOOT_BACK_UNREADABLE:
		thp_err("cannot read the journal '%s': %s; nothing was changed", b->journal,
			thp_file_strerror(b->err));
		break;
	case THP_BOOT_BACK_DAMAGED:
		if (b->line)
			snprintf(at, sizeof(at), ": line %d", b->line);
		thp_err("the journal '%s' is damaged%s; nothing was changed: look at it, put the files it "
			"names back as they were, then remove it", b->journal, at);
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
