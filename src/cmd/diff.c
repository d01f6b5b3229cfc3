/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diff.c - `thp diff`: this host's settings against a saved state or another root */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/changes.h"
#include "../core/state.h"
#include "../render/render.h"
#include "cmd.h"

static void usage(void)
{
	puts("Usage: thp [--root DIR] diff [options] [FILE | --root OTHER]\n"
	     "\n"
	     "Compare every writable THP setting of this host with a saved state (FILE,\n"
	     "default /" THP_SAVED ", written by 'thp set') or with another root\n"
	     "such as a 'thp capture' directory. Exit status 3 when they differ.\n"
	     "\n"
	     "Options:\n"
	     "  -R, --root OTHER  compare with the settings below OTHER\n"
	     "  -a, --all         list settings that agree too\n"
	     "  -J, --json        report as JSON\n"
	     "  -h, --help        show this help");
}

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
		cs = thp_changes_load(&r);
		thp_rootarg_close(&r, &a);
		if (!cs)
			return -ENOENT;
		thp_changes_snapshot(cs, l);
		free(cs);
		return 0;
	}
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	thp_saved_path(ctx, file, label, cap);
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

int cmd_diff(struct thp_ctx *ctx, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "root", required_argument, NULL, 'R' }, { "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'J' },       { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *other = NULL, *file = NULL;
	struct thp_kvlist *mine = calloc(1, sizeof(*mine)), *theirs = calloc(1, sizeof(*theirs));
	struct thp_changes *cs = NULL;
	char label[4200];
	bool all = false;
	int c, ndiff = 0, rc = 1;

	optind = 0;
	while ((c = thp_getopt(argc, argv, "R:aJh", lo)) != -1) {
		switch (c) {
		case 'R': other = optarg; break;
		case 'a': all = true; break;
		case 'J': ctx->json = true; break;
		case 'h': usage(); rc = 0; goto out;
		default: rc = thp_usage_error("diff"); goto out;
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc || (file && other)) {
		thp_err("give one FILE or --root OTHER");
		rc = thp_usage_error("diff");
		goto out;
	}
	if (!mine || !theirs || !(cs = thp_changes_load(&ctx->root)))
		goto out;
	thp_changes_snapshot(cs, mine);
	if (load_other(ctx, other, file, theirs, label, sizeof(label)))
		goto out;
	/* every key of either side, in write order */
	for (int i = 0; i < theirs->n; i++)
		if (!thp_kv_get(mine, theirs->v[i].key))
			thp_kv_set(mine, theirs->v[i].key, "", 0);
	thp_kv_sort(mine);

	struct json_object *arr = ctx->json ? json_object_new_array() : NULL;
	struct out_table *t = ctx->json ? NULL
				: out_table_new(3, (const char *const[]){ "KEY", "CURRENT", other ? "OTHER" : "SAVED" }, false);
	for (int i = 0; i < mine->n; i++) {
		const struct thp_kv *a = &mine->v[i], *b = thp_kv_get(theirs, a->key);
		const char *here = a->value[0] ? a->value : NULL, *there = b ? b->value : NULL;
		bool same = here && there && strcmp(here, there) == 0;

		if (!other && !b)
			continue; /* a saved state (of an older thp) that does not hold the key */

		ndiff += !same;
		if (same && !all)
			continue;
		if (arr) {
			struct json_object *o = json_object_new_object();
			json_object_object_add(o, "key", json_object_new_string(a->key));
			json_object_object_add(o, "current", here ? json_object_new_string(here) : NULL);
			json_object_object_add(o, "other", there ? json_object_new_string(there) : NULL);
			json_object_object_add(o, "same", json_object_new_boolean(same));
			json_object_array_add(arr, o);
		} else {
			out_table_row(t, (const char *const[]){ a->key, here ? here : "-", there ? there : "-" });
		}
	}
	if (arr) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "other", json_object_new_string(label));
		json_object_object_add(o, "differences", json_object_new_int(ndiff));
		json_object_object_add(o, "settings", arr);
		out_json_print(o);
	} else {
		out_table_print(t, 0);
		if (ndiff)
			printf("%d setting%s differ%s from %s ('-': absent)\n", ndiff,
			       ndiff == 1 ? "" : "s", ndiff == 1 ? "s" : "", label);
		else
			printf("no difference: all %d settings agree with %s\n", mine->n, label);
	}
	rc = ndiff ? 3 : 0;
out:
	free(mine);
	free(theirs);
	free(cs);
	return rc;
}
