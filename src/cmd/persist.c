/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.c - `thp persist`: keep THP settings across reboot, or check what is kept */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../control/boot.h"
#include "../control/change.h"
#include "../core/drift.h"
#include "../core/persist.h"
#include "../render/change.h"
#include "../render/persist.h"
#include "../render/render.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

#define TMPFILES_DIR THP_TMPFILES_DIR
#define TMPFILES_NAME THP_TMPFILES_NAME
#define TMPFILES_DEFAULT TMPFILES_DIR "/" TMPFILES_NAME
#define UNIT_DIR THP_UNIT_DIR
#define UNIT_NAME THP_UNIT_NAME
#define UNIT_DEFAULT UNIT_DIR "/" UNIT_NAME
#define SYSCTL_DIR THP_SYSCTLD_DIR
#define SYSCTL_NAME THP_SYSCTLD_NAME
#define SYSCTL_DEFAULT SYSCTL_DIR "/" SYSCTL_NAME

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
	out_doc_begin(ctx->json, false, "thp-persist-check/1");
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
	out_doc_begin(ctx->json, false, "thp-persist-cmdline/1");
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
	free(opts);
	free(rest);
}

/* Writes the file of MODE (TMPFILES, SYSTEMD, SYSCTL) for the settings L:
 * FILE, or the default below the root; with DRY only shows it. */
static int write_out(const struct thp_ctx *ctx, enum mode mode, const struct thp_kvlist *l,
		     const char *file, bool dry, bool force)
{
	static const char *const dirs[] = { [THP_PERSIST_TMPFILES] = TMPFILES_DIR,
					    [THP_PERSIST_UNIT] = UNIT_DIR, [THP_PERSIST_SYSCTL] = SYSCTL_DIR };
	static const char *const names[] = { [THP_PERSIST_TMPFILES] = TMPFILES_NAME,
					     [THP_PERSIST_UNIT] = UNIT_NAME, [THP_PERSIST_SYSCTL] = SYSCTL_NAME };
	enum thp_persist_kind kind = mode == SYSTEMD ? THP_PERSIST_UNIT
				     : mode == SYSCTL ? THP_PERSIST_SYSCTL : THP_PERSIST_TMPFILES;
	struct thp_boot_file f = { .dir = dirs[kind], .name = names[kind], .mark = THP_PERSIST_MARK };
	struct thp_persist_run r;
	bool unit = kind == THP_PERSIST_UNIT && !file;
	int rc = 0;

	f.text = kind == THP_PERSIST_UNIT ? thp_unit_format(l) : kind == THP_PERSIST_SYSCTL ? thp_sysctl_format(l)
											  : thp_tmpfiles_format(l);
	if (!f.text) {
		thp_err("out of memory");
		return 1;
	}
	if (file) {
		snprintf(f.shown, sizeof(f.shown), "%s", file);
		if (thp_read_user(file, &f.cur, NULL))
			f.cur = NULL; /* absent or unreadable: nothing of thp's or anyone's to keep */
	} else {
		thp_boot_files_read(&ctx->root, &f, 1);
	}
	if (dry) {
		rc = thp_persist_dry(ctx->json, &f);
	} else if (file || (rc = thp_change_begin(ctx, "writing what boot applies")) == 0) {
		thp_persist_write(&ctx->root, &f, file, unit, force, &r);
		rc = thp_persist_report(ctx->json, &ctx->root, kind, &f, l->n, unit, &r);
	}
	thp_boot_files_free(&f, 1);
	return rc;
}

int cmd_persist(struct thp_ctx *ctx, int argc, char **argv)
{
	static const char *const mode_opt[] = { [TMPFILES] = "--tmpfiles", [SYSTEMD] = "--systemd",
						 [CMDLINE] = "--cmdline", [CHECK] = "--check" };
	enum mode mode = TMPFILES;
	const char *file = NULL, *given = NULL, *writes = NULL;
	struct thp_changes *cs = NULL;
	struct thp_kvlist *l = NULL;
	char why[512];
	bool dry = false, force = false;
	int c, rc = 1, nvm = 0, err;

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
	if ((err = thp_change_load(&ctx->root, &cs)) != 0)
		thp_change_load_failed(&ctx->root, err);
	if (err || !l)
		goto out;
	if (mode == CHECK) {
		rc = check(ctx, cs);
		goto out;
	}
	rc = thp_want_report(thp_change_want_args(cs, argc - optind, argv + optind, why, sizeof(why)), why,
			     "persist");
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
