/* SPDX-License-Identifier: GPL-2.0-or-later */
/* version.c - 'thp --version' */
#include <stdio.h>

#include "cmd.h"
#include "../render/render.h"

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
