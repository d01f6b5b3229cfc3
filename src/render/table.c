/* SPDX-License-Identifier: GPL-2.0-or-later */
/* table.c - aligned text tables through libsmartcols */
#include "escape.h"
#include "render.h"
#include "term.h"

#include <libsmartcols.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out_table {
	struct libscols_table *tb;
	int ncols;
};

struct out_table *out_table_new(int ncols, const char *const *headers, bool noheadings)
{
	struct out_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->tb = scols_new_table();
	t->ncols = ncols;
	if (!t->tb) {
		free(t);
		return NULL;
	}
	scols_table_enable_noheadings(t->tb, noheadings);
	/* cells are escaped by out_escape(), the same way as every other output */
	scols_table_enable_noencoding(t->tb, 1);
	scols_table_set_column_separator(t->tb, "  ");
	for (int i = 0; i < ncols; i++)
		scols_table_new_column(t->tb, headers ? headers[i] : "", 0, 0);
	return t;
}

void out_table_right(struct out_table *t, int col)
{
	struct libscols_column *c = scols_table_get_column(t->tb, (size_t)col);
	if (c)
		scols_column_set_flags(c, SCOLS_FL_RIGHT);
}

void out_table_row(struct out_table *t, const char *const *values)
{
	struct libscols_line *ln = scols_table_new_line(t->tb, NULL);

	if (!ln)
		return;
	for (int i = 0; i < t->ncols; i++) {
		const char *v = values[i] ? values[i] : "";
		char *e = out_esc_dup(v, strlen(v), OUT_ESC_TEXT);
		if (!e || scols_line_refer_data(ln, (size_t)i, e))
			free(e);
	}
}

void out_table_color(struct out_table *t, int col, enum out_hue hue)
{
	struct libscols_line *ln = scols_table_get_line(t->tb, scols_table_get_nlines(t->tb) - 1);
	struct libscols_cell *c = ln ? scols_line_get_cell(ln, (size_t)col) : NULL;

	if (!c || !*out_color(hue))
		return;
	scols_table_enable_colors(t->tb, 1);
	scols_cell_set_color(c, out_color(hue));
}

void out_table_print(struct out_table *t, int indent)
{
	char *s = NULL;

	if (!t)
		return;
	if (scols_table_get_nlines(t->tb) && scols_print_table_to_string(t->tb, &s) == 0 && s) {
		for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
			size_t n = strlen(line);
			while (n && line[n - 1] == ' ')
				line[--n] = '\0';
			printf("%*s%s\n", indent, "", line);
		}
	}
	free(s);
	scols_unref_table(t->tb);
	free(t);
}
