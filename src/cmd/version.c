/* SPDX-License-Identifier: GPL-2.0-or-later */
/* version.c - 'thp --version', and 'thp status --features': the kernel's THP
 * features, detected */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "../core/features.h"
#include "../render/render.h"

static const char *const have_word[] = { "unknown", "no", "yes" };

int thp_version(const struct thp_ctx *ctx, const char *version)
{
	if (!ctx->json) {
		printf("thp %s\n", version);
		return 0;
	}
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "version", json_object_new_string(version));
	return out_json_print(o) ? 1 : 0;
}

int thp_features_show(const struct thp_ctx *ctx)
{
	struct thp_status *st = calloc(1, sizeof(*st));
	struct thp_feature f[THP_FEATURES];
	int n = st ? thp_status_read(&ctx->root, st, false) : -ENOMEM;

	if (n < 0) {
		free(st);
		thp_err("cannot read the kernel state: %s", thp_strerror(n));
		return 1;
	}
	n = thp_features(st, f);
	if (ctx->json) {
		struct json_object *o = json_object_new_object(), *fo = json_object_new_object();
		json_object_object_add(o, "kernel", st->release_err ? NULL
						    : json_object_new_string(st->release));
		for (int i = 0; i < n; i++)
			json_object_object_add(fo, f[i].name, f[i].have == THP_HAVE_UNKNOWN ? NULL
							      : json_object_new_boolean(f[i].have));
		json_object_object_add(o, "features", fo);
		free(st);
		return out_json_print(o) ? 1 : 0;
	}
	fputs("Kernel ", stdout);
	out_esc_put(stdout, st->release_err ? "release unknown" : st->release);
	if (!ctx->root.live) {
		fputs(" below ", stdout);
		out_esc_put(stdout, ctx->root.path);
	}
	puts(":");
	for (int i = 0; i < n; i++)
		printf("  %-30s %-7s (Linux %s+, from %s)\n", f[i].name, have_word[f[i].have + 1],
		       f[i].since, f[i].how);
	free(st);
	return 0;
}
