/* SPDX-License-Identifier: GPL-2.0-or-later */
/* version.c - 'thp --version' */

#include "cmd.h"
#include "../render/render.h"

int thp_version(const struct thp_ctx *ctx, const char *version)
{
	out_doc_begin(ctx->json, false, "thp-version/1");
	out_put(OUT_ANY, "version", "thp %s\n", ov_str(version));
	return out_doc_end() ? 1 : 0;
}
