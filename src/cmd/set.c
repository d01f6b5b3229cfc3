/* SPDX-License-Identifier: GPL-2.0-or-later */
/* set.c - `thp set KEY=VALUE...`: change the host's THP settings as one
 * transaction, with the previous state saved first */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../control/change.h"
#include "../control/control.h"
#include "../control/journal.h"
#include "../core/changes.h"
#include "../render/change.h"
#include "../render/render.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

/* Prints the keys of the settings table, with their meaning. */
static void print_keys(void)
{
	struct out_table *t = out_help_list(3);
	char key[THP_KEY_MAX], since[32];

	for (int i = 0; i < thp_nsetting_descs; i++) {
		const struct thp_setting_desc *d = &thp_setting_descs[i];
		if (!(d->flags & THP_SET))
			continue;
		thp_setting_desc_key(d, key, sizeof(key));
		snprintf(since, sizeof(since), d->since ? "%s+" : "", d->since);
		out_table_row(t, (const char *const[]){ key, since, d->meaning });
	}
	out_table_print(t, 2);
}

enum { OPT_LIST_KEYS = 0x100 };

static const struct thp_opt opts[] = {
	THP_OPT_LONG('n', "dry-run", NULL, "show the changes, write nothing"),
	THP_OPT_LONG('s', "save", "FILE", "save the previous state to FILE (default\n"
					  "/" THP_SAVED "); without KEY=VALUE, only save the\n"
					  "current state to FILE"),
	THP_OPT_LONG(OPT_LIST_KEYS, "list-keys", NULL, "list the keys of this host and the values each accepts"),
	THP_OPT_JSON("report as JSON"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] set [options] KEY=VALUE...\n"
		 "       thp [--root DIR] set --save FILE\n"
		 "       thp [--root DIR] set --list-keys\n"
		 "\n"
		 "Change THP settings of the host as one transaction: every value is checked\n"
		 "against what the kernel accepts before the first write, each write is read\n"
		 "back, and any failure (or Ctrl-C) puts back every setting already written.\n"
		 "The state before the change is saved first; 'thp restore' puts it back.\n"
		 "A change that an earlier thp left unfinished is put back first.\n"
		 "\n"
		 "Keys, in write order, with the first kernel that has each (SIZE: 64K, 2M,\n"
		 "... or all; 'thp set --list-keys' shows this host's and the values they take):",
	.more = print_keys,
	.width = 20,
	.opts = opts,
};

/* The values a setting accepts, as --list-keys shows them: the words of its
 * choice list, or "LO-HI". */
static void accepted(const struct thp_changes *cs, const struct thp_change *c, char *buf, size_t cap)
{
	const struct thp_setting_desc *d = c->k.d;
	size_t len = 0;

	buf[0] = '\0';
	if (d->shows == THP_CHOICE) {
		for (int i = 0; c->cur.kind == THP_CHOICE && i < c->cur.choice.n && len < cap; i++)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? " " : "",
						c->cur.choice.words[i]);
		return;
	}
	snprintf(buf, cap, "%llu-%llu", (unsigned long long)d->lo,
		 (unsigned long long)((d->flags & THP_PTES) && cs->ptes_max ? cs->ptes_max : d->hi));
}

/* 'thp set --list-keys': every key of this host (and hugepages.all.X for each
 * per-size setting) with the values it accepts. */
static int list_keys(const struct thp_ctx *ctx)
{
	const struct thp_setting_desc *listed[THP_KV_MAX];
	struct thp_changes *cs;
	int nlisted = 0, err = thp_change_load(&ctx->root, &cs);

	if (err)
		return thp_change_load_failed(&ctx->root, err);
	out_doc_begin(ctx->json, false, "thp-set-keys/1");
	out_arr("keys");
	for (int i = 0; i < cs->n; i++) {
		const struct thp_change *c = &cs->v[i];
		bool first = c->k.size && nlisted < THP_KV_MAX;
		char key[THP_KEY_MAX], values[512];

		for (int j = 0; first && j < nlisted; j++)
			first = listed[j] != c->k.d;
		for (int all = first; all >= 0; all--) { /* hugepages.all.X before the first size */
			struct thp_key k = { c->k.d, all ? 0 : c->k.size };
			thp_key_format(&k, key, sizeof(key));
			accepted(cs, c, values, sizeof(values));
			out_obj(NULL);
			out_put(OUT_ANY, "key", "%s ", ov_str(key));
			out_put(OUT_ANY, "values", "%s\n", ov_str(values));
			out_end();
		}
		if (first)
			listed[nlisted++] = c->k.d;
	}
	free(cs);
	return out_doc_end() ? 1 : 0;
}

/* Saves the current values of CS as a state file: FILE (a path the user
 * named), or the default saved state below the root. Values that a journal
 * of a change still running or left unfinished holds are saved as they
 * were before that change. Returns 0 or -errno. */
static int save_state(const struct thp_ctx *ctx, const struct thp_changes *cs, const char *file)
{
	struct thp_state_file *j = malloc(sizeof(*j));
	struct thp_state *s = calloc(1, sizeof(*s));
	const char *name = THP_SAVED_NAME;
	char comment[128], when[64];
	time_t now = time(NULL);
	char *text = NULL;
	int dir, err = -ENOMEM;

	if (!j || !s)
		goto out;
	thp_boot_id(&ctx->root, s->boot, sizeof(s->boot));
	s->time = (long long)now;
	thp_state_own_command(s);
	thp_changes_snapshot(cs, &s->values);
	thp_state_load(&ctx->root, THP_JOURNAL, j);
	for (int i = 0; (j->status == THP_STATE_CURRENT || j->status == THP_STATE_RUNNING) &&
			i < j->s.values.n; i++)
		thp_kv_set(&s->values, j->s.values.v[i].key, j->s.values.v[i].value, 0);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	snprintf(comment, sizeof(comment), "THP settings at %s; 'thp restore%s%s' puts them back.",
		 when, file ? " " : "", file ? "FILE" : "");
	text = thp_state_format(s, comment);
	if (!text)
		goto out;
	dir = file ? thp_file_dir(file, &name) : thp_state_dir(&ctx->root, true);
	err = dir < 0 ? dir : thp_file_write(dir, name, text, 0600);
	if (dir >= 0)
		close(dir);
out:
	free(text);
	free(j);
	free(s);
	return err;
}

/* Only --save FILE: records the current state. */
static int save_only(const struct thp_ctx *ctx, const char *file)
{
	struct thp_changes *cs;
	int err = thp_change_load(&ctx->root, &cs);

	if (err)
		return thp_change_load_failed(&ctx->root, err);
	err = save_state(ctx, cs, file);
	free(cs);
	if (err) {
		thp_err("cannot write '%s': %s", file, thp_file_strerror(err));
		return 1;
	}
	out_doc_begin(ctx->json, false, "thp-set-save/1");
	out_put(OUT_JSON, "saved", NULL, ov_str(file));
	out_text("saved the current settings to %s; 'thp restore %s' puts them back\n", file, file);
	out_doc_end();
	return 0;
}

int cmd_set(struct thp_ctx *ctx, int argc, char **argv)
{
	const char *file = NULL;
	struct thp_changes *cs;
	char saved[4200], why[512];
	bool dry = false, list = false;
	int c, rc;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'n': dry = true; break;
		case 's': file = optarg; break;
		case OPT_LIST_KEYS: list = true; break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	if (list && (optind < argc || file || dry)) {
		thp_err("--list-keys takes no other argument");
		return thp_usage_error("set");
	}
	if (list)
		return list_keys(ctx);
	if (optind >= argc && !file) {
		thp_err("no KEY=VALUE given");
		return thp_usage_error("set");
	}
	if (optind >= argc)
		return save_only(ctx, file);
	if ((rc = thp_change_load(&ctx->root, &cs)) != 0)
		return thp_change_load_failed(&ctx->root, rc);
	rc = thp_want_report(thp_change_want_args(cs, argc - optind, argv + optind, why, sizeof(why)), why, "set");
	/* the lock also with nothing to change, where it may be had: the recovery
	 * below may put back a change that did not finish */
	if (!rc && !dry && (thp_changes_count(cs) || !ctx->root.live || geteuid() == 0))
		rc = thp_change_begin(ctx, "changing THP settings");
	if (!rc) {
		struct thp_recovery *r = thp_recover(&ctx->root, dry);
		rc = thp_recovery_report(r);
		free(r);
	}
	if (!rc && !dry) { /* again, under the lock: a writer before, or the recovery, changed them */
		free(cs);
		rc = thp_change_load(&ctx->root, &cs);
		rc = rc ? thp_change_load_failed(&ctx->root, rc)
			: thp_want_report(thp_change_want_args(cs, argc - optind, argv + optind, why, sizeof(why)),
					  why, "set");
	}
	if (rc || dry || thp_changes_count(cs) == 0) {
		if (!rc)
			thp_change_report(ctx->json, cs, dry, 0, NULL, false);
		free(cs);
		return rc;
	}
	thp_saved_path(&ctx->root, file, saved, sizeof(saved));
	if ((rc = save_state(ctx, cs, file)) != 0) {
		thp_change_report(ctx->json, cs, false, rc, NULL, false);
		thp_err("cannot save the previous state to '%s': %s; nothing was changed", saved,
			thp_file_strerror(rc));
		rc = 1;
	} else {
		struct thp_run run;

		thp_change_run(&ctx->root, cs, &run);
		rc = thp_run_report(ctx->json, cs, &run, saved, file != NULL);
	}
	free(cs);
	return rc;
}
