/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cols.c - the options of every table command (-o, -n, -r, -P, -b,
 * --notruncate), and its columns chosen, listed and named from one descriptor */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "msg.h"
#include "render.h"

bool out_fmt_opt(struct out_fmt *f, int c, const char *arg)
{
	switch (c) {
	case 'o': f->list = arg; return true;
	case 'n': f->noheadings = true; return true;
	case 'r': f->raw = true; return true;
	case 'P': f->pairs = true; return true;
	case 'b': f->bytes = true; return true;
	case OUT_OPT_NOTRUNC: f->notrunc = true; return true;
	default: return false;
	}
}

void out_cols_help(const char *title, const struct out_col *cols, int n)
{
	struct out_table *t = out_help_list(2);
	char name[64];

	if (title)
		printf("\n%s\n", title);
	/* names at least 15 wide: a list continued by another one stays aligned */
	for (int i = 0; i < n; i++)
		out_table_row(t, (const char *const[]){
			(snprintf(name, sizeof(name), "%-15s", cols[i].name), name), cols[i].help });
	out_table_print(t, 2);
}

/* The descriptor of column NAME (LEN bytes, any case) in COLS, or -1. */
static int find_col(const struct out_col *cols, int n, const char *name, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(cols[i].name) == len && strncasecmp(cols[i].name, name, len) == 0)
			return i;
	return -1;
}

int out_cols_select(const struct out_col *cols, int n, const struct out_fmt *f,
		    const int *def, int ndef, int *sel, int cap)
{
	int k = 0;

	if (!f->list) {
		for (; k < ndef && k < cap; k++)
			sel[k] = def[k];
		return k;
	}
	for (const char *p = f->list;;) {
		size_t len = strcspn(p, ",");
		int c = find_col(cols, n, p, len);
		if (c < 0) {
			char valid[1024];
			size_t o = 0;
			for (int i = 0; i < n && o < sizeof(valid); i++)
				o += (size_t)snprintf(valid + o, sizeof(valid) - o, "%s%s", i ? ", " : "", cols[i].name);
			thp_err("unknown column '%.*s' (valid: %s)", (int)len, p, valid);
			return -1;
		}
		if (k < cap)
			sel[k++] = c;
		if (!p[len])
			break;
		p += len + 1;
	}
	return k;
}
