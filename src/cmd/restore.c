/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore.c - `thp restore [FILE]`: put back what the journal of an unfinished
 * change holds, or else the state saved before the last `thp set` */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../control/change.h"
#include "../control/control.h"
#include "../control/journal.h"
#include "../render/change.h"
#include "../render/render.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

static const struct thp_opt opts[] = {
	THP_OPT_LONG('n', "dry-run", NULL, "show the changes, write nothing"),
	THP_OPT('f', "force", NULL, "apply a state saved in an earlier boot"),
	THP_OPT_JSON("report as JSON"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] restore [options] [FILE]\n"
		 "\n"
		 "Put back the THP settings that a change which did not finish had changed\n"
		 "(its journal, /" THP_JOURNAL "); without one, the settings saved by the last\n"
		 "'thp set' (/" THP_SAVED ") or in FILE. The same checks, read-back and\n"
		 "rollback as 'thp set'. Settings the file does not name are left alone; a\n"
		 "damaged or cut file is refused, and so is one from an earlier boot unless\n"
		 "--force is given. Before it applies a file, it says whose state it is\n"
		 "(the command that wrote it, when, and in which boot). First, it puts back\n"
		 "the huge page pools that a 'thp hugetlb set' which did not finish had\n"
		 "changed (its journal, /" THP_POOLS_JOURNAL ").",
	.width = 20,
	.opts = opts,
};

/* Explains why the state file F, shown as SHOWN, cannot be put back. */
static void refuse(const struct thp_state_file *f, const char *shown)
{
	if (f->err)
		thp_err("cannot read saved state '%s': %s%s", shown, thp_file_strerror(f->err),
			f->err == -ENOENT ? " (nothing was saved: 'thp set' saves the state it changes)" : "");
	else if (f->line)
		thp_err("'%s' line %d: %s; nothing was changed", shown, f->line, f->why);
	else
		thp_err("'%s': %s; nothing was changed", shown, f->why);
}

/* "saved by 'thp set enabled=never' at 2026-12-04 23:48:37 UTC in this boot
 * (boot id ...)": whose state F is, for messages. */
static const char *whose(const struct thp_state_file *f, char *buf, size_t cap)
{
	char when[48] = "at a time not recorded", boot[160];
	time_t t = (time_t)f->s.time;
	struct tm tm;

	if (f->s.time)
		strftime(when, sizeof(when), "at %Y-%m-%d %H:%M:%S UTC", gmtime_r(&t, &tm));
	if (!f->s.boot[0])
		snprintf(boot, sizeof(boot), "in a boot not recorded");
	else if (f->status == THP_STATE_OTHER_BOOT)
		snprintf(boot, sizeof(boot), "in an earlier boot (boot id %s; this boot is %s)", f->s.boot,
			 f->boot_now);
	else
		snprintf(boot, sizeof(boot), "in this boot (boot id %s)", f->s.boot);
	if (f->s.version)
		snprintf(buf, cap, "saved by '%s' %s %s", f->s.command[0] ? f->s.command : "thp", when, boot);
	else
		snprintf(buf, cap, "a plain KEY=VALUE list (by hand or an older thp): whose, when and in "
			 "which boot is not recorded");
	return buf;
}

/* Puts back the values of F (shown as SHOWN). The journal itself (JOURNAL)
 * is applied as it is and removed once done; any other file goes through a
 * change of its own. Returns the exit status. */
static int put_back(struct thp_ctx *ctx, const struct thp_state_file *f, const char *shown,
		    bool journal, bool dry)
{
	struct thp_changes *cs;
	char why[512];
	int bad, rc = 1, err = thp_change_load(&ctx->root, &cs), signo = 0;

	if (err)
		return thp_change_load_failed(&ctx->root, err);
	if (thp_changes_want_list(cs, &f->s.values, &bad, why, sizeof(why)) != 0) {
		thp_err("'%s' line %d: %s; nothing was changed", shown, f->s.values.v[bad].line, why);
	} else if (dry || thp_changes_count(cs) == 0) {
		thp_change_report(ctx->json, cs, dry, 0, NULL, false);
		rc = 0;
	} else if (!journal) {
		struct thp_run run;

		thp_change_run(&ctx->root, cs, &run);
		rc = thp_run_report(ctx->json, cs, &run, NULL, false);
	} else {
		err = thp_changes_apply(&ctx->root, cs, &signo);
		thp_change_report(ctx->json, cs, false, err, NULL, false);
		if (err)
			thp_change_explain(cs, err, signo, shown);
		rc = !err ? 0 : signo ? thp_die_by(signo) : 1;
	}
	if (journal && !dry && rc == 0 && (err = thp_journal_remove(&ctx->root)) != 0) {
		thp_err("put back what the journal '%s' holds, but cannot remove it: %s; remove it",
			shown, thp_file_strerror(err));
		rc = 1;
	}
	free(cs);
	return rc;
}

/* Prints FMT as one escaped line (it quotes a command read from a file),
 * unless the report is JSON. */
static void say(const struct thp_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct thp_ctx *ctx, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	int n;

	if (ctx->json)
		return;
	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	out_esc_put(stdout, line);
	putchar('\n');
	free(line);
}

/* Says whose state F (SHOWN) is, then puts it back. Returns the exit status. */
static int put_back_saved(struct thp_ctx *ctx, const struct thp_state_file *f, const char *shown,
			  bool dry)
{
	char by[640];

	say(ctx, "putting back '%s', %s", shown, whose(f, by, sizeof(by)));
	return put_back(ctx, f, shown, false, dry);
}

/* 'thp restore' without FILE: the journal of an unfinished change first. */
static int from_journal(struct thp_ctx *ctx, struct thp_state_file *f, bool dry, bool *done)
{
	char shown[4200];
	int err;

	*done = true;
	thp_root_shown(&ctx->root, THP_JOURNAL, shown, sizeof(shown));
	thp_state_load(&ctx->root, THP_JOURNAL, f);
	switch (f->status) {
	case THP_STATE_ABSENT:
		*done = false;
		return 0;
	case THP_STATE_DAMAGED:
		thp_journal_damaged(shown, f);
		return 1;
	case THP_STATE_RUNNING:
		thp_err("'%s' (pid %d) is changing THP settings now and puts them back when it "
			"ends (journal '%s')", f->s.command, (int)f->s.owner, shown);
		return 1;
	case THP_STATE_OTHER_BOOT:
		err = dry ? 0 : thp_journal_remove(&ctx->root);
		thp_err("'%s' was written by '%s' in an earlier boot: the kernel has started "
			"afresh since, so it is not applied%s", shown, f->s.command,
			dry ? "" : err ? " (and it cannot be removed)" : "; removed it");
		return 1;
	case THP_STATE_CURRENT:
		break;
	}
	say(ctx, "'%s' (pid %d) did not finish; putting back what it changed (journal %s)", f->s.command,
	    (int)f->s.owner, shown);
	return put_back(ctx, f, shown, true, dry);
}

int cmd_restore(struct thp_ctx *ctx, int argc, char **argv)
{
	struct thp_state_file *f = malloc(sizeof(*f));
	struct thp_pools_recovery *pr;
	const char *file = NULL;
	char shown[4200], by[640];
	bool dry = false, done = false, force = false, pools = false;
	int c, rc = 1;

	if (!f) {
		thp_err("out of memory");
		return 1;
	}
	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'n': dry = true; break;
		case 'f': force = true; break;
		default: rc = thp_opt_exit(ctx, c); goto out;
		}
	}
	if (argc - optind > 1) {
		thp_err("unexpected argument '%s'", argv[optind + 1]);
		rc = thp_usage_error("restore");
		goto out;
	}
	file = optind < argc ? argv[optind] : NULL;
	if (!dry && (rc = thp_change_begin(ctx, "changing THP settings")) != 0)
		goto out;
	pr = thp_recover_pools(&ctx->root, dry);
	rc = thp_pools_recovery_report(pr);
	pools = pr && pr->what != THP_POOLS_NONE;
	free(pr);
	if (rc)
		goto out;
	if (!file) {
		rc = from_journal(ctx, f, dry, &done);
		if (done)
			goto out;
	} else { /* FILE applies to the host as it was before an unfinished change */
		struct thp_recovery *r = thp_recover(&ctx->root, dry);
		rc = thp_recovery_report(r);
		free(r);
		if (rc)
			goto out;
	}
	rc = 1;
	thp_saved_path(&ctx->root, file, shown, sizeof(shown));
	if (file)
		thp_state_load_user(&ctx->root, file, f);
	else
		thp_state_load(&ctx->root, THP_SAVED, f);
	if (f->status == THP_STATE_ABSENT)
		f->err = -ENOENT;
	if (f->status == THP_STATE_ABSENT && !file && pools)
		rc = 0; /* the pools were what was left to put back */
	else if (f->status == THP_STATE_ABSENT || f->status == THP_STATE_DAMAGED)
		refuse(f, shown);
	else if (f->status == THP_STATE_OTHER_BOOT && !force)
		thp_err("'%s' was %s: the kernel has started afresh since, so it is not "
			"applied (--force applies it)", shown, whose(f, by, sizeof(by)));
	else
		rc = put_back_saved(ctx, f, shown, dry);
out:
	free(f);
	return rc;
}
