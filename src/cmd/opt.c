/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opt.c - a command's options read and listed from its one declaration */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../render/render.h"
#include "cmd.h"
#include "opt.h"

/* the most options (and lines of text) a command declares */
#define OPTS_MAX 48

int thp_opt_next(struct thp_ctx *ctx, const struct thp_cmd_opts *d, int argc, char **argv)
{
	struct option lo[OPTS_MAX + 1];
	char spec[3 * OPTS_MAX + 2];
	size_t n = 0, k = 0;
	int c;

	if (d->in_order)
		spec[k++] = '+';
	for (const struct thp_opt *o = d->opts; (o->name || o->help) && n < OPTS_MAX; o++) {
		if (!o->name)
			continue;
		bool optional = o->arg && o->arg[0] == '[';

		lo[n++] = (struct option){ o->name, !o->arg ? no_argument : optional ? optional_argument
										: required_argument,
					   NULL, o->key };
		if (o->letter) {
			spec[k++] = (char)o->letter;
			if (o->arg)
				spec[k++] = ':';
			if (optional)
				spec[k++] = ':';
		}
	}
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	spec[k] = '\0';
	while ((c = thp_getopt(argc, argv, spec, lo)) == 'J')
		ctx->json = true;
	if (c == 'h') {
		thp_opt_usage(d);
		return THP_OPT_HELP_DONE;
	}
	return c == '?' ? THP_OPT_BAD : c;
}

int thp_opt_exit(const struct thp_ctx *ctx, int c)
{
	return c == THP_OPT_HELP_DONE ? 0 : thp_usage_error(ctx->cmd);
}

/* Prints the lines of HELP (separated by '\n'), the first after LABEL, each
 * from column WIDTH; a label too wide for that stands on a line of its own. */
static void opt_lines(const char *label, const char *help, int width)
{
	int pad = 0;

	if ((int)strlen(label) < width)
		printf("%-*s", width, label);
	else
		printf("%s\n%*s", label, width, "");
	for (const char *p = help;; pad = width) {
		size_t l = strcspn(p, "\n");
		printf("%*s%.*s\n", pad, "", (int)l, p);
		if (!p[l])
			break;
		p += l + 1;
	}
}

void thp_opt_usage(const struct thp_cmd_opts *d)
{
	int width = d->width;
	char label[128];

	puts(d->usage);
	if (d->more)
		d->more();
	printf("\n%s\n", d->title ? d->title : "Options:");
	for (const struct thp_opt *o = d->opts; o->name || o->help; o++) {
		if (!o->name) {
			puts(o->help);
			width = o->width ? o->width : width;
			continue;
		}
		if (!o->help)
			continue;
		snprintf(label, sizeof(label), "  %c%c%c --%s%s%s", o->letter ? '-' : ' ',
			 o->letter ? o->letter : ' ', o->letter ? ',' : ' ', o->name,
			 o->arg && o->arg[0] != '[' ? " " : "", o->arg ? o->arg : "");
		opt_lines(label, o->help, width);
	}
	if (d->cols)
		out_cols_help("Columns:", d->cols, d->ncols);
	if (d->after)
		d->after();
}
