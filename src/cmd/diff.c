/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diff.c - `thp diff`: this host's settings against a saved state or another root */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../control/change.h"
#include "../control/control.h"
#include "../core/changes.h"
#include "../core/state.h"
#include "../render/change.h"
#include "../render/render.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

static const struct thp_opt opts[] = {
	THP_OPT_ROOT("OTHER", "compare with the settings below OTHER"),
	THP_OPT('a', "all", NULL, "list settings that agree too"),
	THP_OPT_JSON("report as JSON"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] diff [options] [FILE | --root OTHER]\n"
		 "\n"
		 "Compare every writable THP setting of this host with a saved state (FILE,\n"
		 "default /" THP_SAVED ", written by 'thp set') or with another root\n"
		 "such as a 'thp capture' directory. Exit status 3 when they differ.",
	.width = 20,
	.opts = opts,
};

/* Loads the other side: the settings below OTHER, or the saved state FILE. */
static int load_other(const struct thp_ctx *ctx, const char *other, const char *file,
		      struct thp_kvlist *l, char *label, size_t cap)
{
	struct thp_state_file *f;
	int err;

	if (other) {
		struct thp_root r = { .fd = -1 };
		struct thp_rootarg a;
		struct thp_changes *cs;

		snprintf(label, cap, "%s", other);
		if (thp_rootarg_open(&r, &a, other, "root"))
			return -EINVAL;
		err = thp_change_load(&r, &cs);
		if (err)
			thp_change_load_failed(&r, err);
		thp_rootarg_close(&r, &a);
		if (err)
			return -ENOENT;
		thp_changes_snapshot(cs, l);
		free(cs);
		return 0;
	}
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	thp_saved_path(&ctx->root, file, label, cap);
	if (file)
		thp_state_load_user(&ctx->root, file, f);
	else
		thp_state_load(&ctx->root, THP_SAVED, f);
	err = f->status == THP_STATE_ABSENT ? -ENOENT : f->err;
	if (err)
		thp_err("cannot read saved state '%s': %s", label, thp_file_strerror(err));
	else if (f->status == THP_STATE_DAMAGED && f->line)
		thp_err("'%s' line %d: %s", label, f->line, f->why);
	else if (f->status == THP_STATE_DAMAGED)
		thp_err("'%s': %s", label, f->why);
	if (!err && f->status == THP_STATE_DAMAGED)
		err = -EINVAL;
	*l = f->s.values;
	free(f);
	return err;
}

/* A setting on both sides: NULL where a side lacks it. */
struct setting {
	const char *key, *here, *there;
	bool same;
};

enum { C_KEY, C_CURRENT, C_OTHER, C_SAVED, C_SAME };

static void get_setting(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct setting *s = row;
	const char *x = c->arg == C_KEY ? s->key : c->arg == C_CURRENT ? s->here : s->there;

	(void)ctx;
	if (c->arg == C_SAME) {
		v->u = s->same;
		return;
	}
	out_val_set(v, ov_str(x));
	v->text = x ? NULL : "-";
}

/* The other side is OTHER in JSON, and in text OTHER or SAVED as it is. */
static const struct out_col setting_cols[] = {
	[C_KEY] = { "KEY", OUT_TEXT, OUT_KEEP, "", get_setting, C_KEY },
	[C_CURRENT] = { "CURRENT", OUT_TEXT, OUT_KEEP, "", get_setting, C_CURRENT },
	[C_OTHER] = { "OTHER", OUT_TEXT, OUT_KEEP, "", get_setting, C_OTHER },
	[C_SAVED] = { "SAVED", OUT_TEXT, OUT_KEEP, "", get_setting, C_SAVED },
	[C_SAME] = { "SAME", OUT_BOOL, 0, "", get_setting, C_SAME },
};

/* The setting I of MINE (every key of both sides) against THEIRS; false when
 * a saved state (of an older thp, OTHER not given) does not hold the key. */
static bool setting_at(const struct thp_kvlist *mine, const struct thp_kvlist *theirs, int i, bool other,
		       struct setting *s)
{
	const struct thp_kv *a = &mine->v[i], *b = thp_kv_get(theirs, a->key);

	s->key = a->key;
	s->here = a->value[0] ? a->value : NULL;
	s->there = b ? b->value : NULL;
	s->same = s->here && s->there && strcmp(s->here, s->there) == 0;
	return other || b;
}

/* Prints the settings of MINE and THEIRS that differ (with ALL, every one)
 * against LABEL, OTHER the root given or NULL; returns how many differ. */
static int print_diff(const struct thp_kvlist *mine, const struct thp_kvlist *theirs, const char *other,
		      const char *label, bool all, bool json)
{
	const int text_sel[] = { C_KEY, C_CURRENT, other ? C_OTHER : C_SAVED };
	const int json_sel[] = { C_KEY, C_CURRENT, C_OTHER, C_SAME };
	const struct out_fmt fmt = { .json = json };
	struct out_table *t;
	struct setting s;
	int ndiff = 0;

	for (int i = 0; i < mine->n; i++)
		ndiff += setting_at(mine, theirs, i, other, &s) && !s.same;
	out_doc_begin(json, false, "thp-diff/1");
	out_put(OUT_JSON, "other", NULL, ov_str(label));
	out_put(OUT_JSON, "differences", NULL, ov_int(ndiff));
	t = json ? out_table_open("settings", setting_cols, json_sel, 4, &fmt, NULL)
		 : out_table_open(NULL, setting_cols, text_sel, 3, &fmt, NULL);
	for (int i = 0; i < mine->n; i++)
		if (setting_at(mine, theirs, i, other, &s) && (all || !s.same))
			out_table_add(t, &s);
	out_table_close(t, 0);
	if (ndiff)
		out_text("%d setting%s differ%s from %s ('-': absent)\n", ndiff, ndiff == 1 ? "" : "s",
			 ndiff == 1 ? "s" : "", label);
	else
		out_text("no difference: all %d settings agree with %s\n", mine->n, label);
	out_doc_end();
	return ndiff;
}

int cmd_diff(struct thp_ctx *ctx, int argc, char **argv)
{
	const char *other = NULL, *file = NULL;
	struct thp_kvlist *mine = calloc(1, sizeof(*mine)), *theirs = calloc(1, sizeof(*theirs));
	struct thp_changes *cs = NULL;
	char label[4200];
	bool all = false;
	int c, ndiff = 0, rc = 1, err;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'R': other = optarg; break;
		case 'a': all = true; break;
		default: rc = thp_opt_exit(ctx, c); goto out;
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc || (file && other)) {
		thp_err("give one FILE or --root OTHER");
		rc = thp_usage_error("diff");
		goto out;
	}
	if (!mine || !theirs)
		goto out;
	if ((err = thp_change_load(&ctx->root, &cs)) != 0) {
		thp_change_load_failed(&ctx->root, err);
		goto out;
	}
	thp_changes_snapshot(cs, mine);
	if (load_other(ctx, other, file, theirs, label, sizeof(label)))
		goto out;
	/* every key of either side, in write order */
	for (int i = 0; i < theirs->n; i++)
		if (!thp_kv_get(mine, theirs->v[i].key))
			thp_kv_set(mine, theirs->v[i].key, "", 0);
	thp_kv_sort(mine);

	ndiff = print_diff(mine, theirs, other, label, all, ctx->json);
	rc = ndiff ? 3 : 0;
out:
	free(mine);
	free(theirs);
	free(cs);
	return rc;
}
