/* SPDX-License-Identifier: GPL-2.0-or-later */
/* term.h - what the terminal adds to text output: colour, its width, bar
 * charts, sparklines and progress lines */
#ifndef THP_TERM_H
#define THP_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render.h"

/* --color=WHEN, as util-linux's colors: auto colours only a terminal on
 * standard output, and not when NO_COLOR is set and not empty or TERM=dumb. */
enum out_color_mode { OUT_COLOR_AUTO, OUT_COLOR_ALWAYS, OUT_COLOR_NEVER };
/* The mode named WORD ("auto", "always", "never"), or -1. */
int out_color_parse(const char *word);
/* Decides, once for the run, whether standard output gets colour. */
void out_color_init(enum out_color_mode mode);

/* What a colour marks; out_color() gives its SGR sequence, "" when colour is off. */
enum out_hue { OUT_HUE_CRIT, OUT_HUE_WARN, OUT_HUE_INFO, OUT_HUE_OFF, OUT_HUE_NHUES };
const char *out_color(enum out_hue h);
/* The sequence that ends a colour, "" when colour is off. */
const char *out_color_end(void);

/* Colours the cell of descriptor column COL in the current row of T (a table
 * of out_table_cols()) with HUE, when colour is on. */
void out_table_color(struct out_table *t, int col, enum out_hue hue);

/* Columns of the terminal on standard output, at most MAX; FALLBACK when
 * standard output is not a terminal. */
int out_term_width(int fallback, int max);

/* Columns S takes on a terminal: UTF-8 characters count one, SGR colour
 * sequences none. */
int out_term_len(const char *s);

/* Drawing in ASCII ('#' bars) instead of Unicode blocks: forced by --ascii,
 * else when the locale's character set is not UTF-8. */
void out_draw_force_ascii(void);
bool out_draw_ascii(void);

/* A bar of VALUE on a scale where MAX fills WIDTH cells, in BUF: Unicode
 * eighth blocks rounded to the nearest eighth, or with ASCII '#' per cell
 * rounded to the nearest cell. A value above zero gets at least the smallest
 * mark; zero, a negative value or MAX <= 0 gives "". BUF holds 3 * WIDTH + 1. */
const char *out_bar(char *buf, size_t cap, double value, double max, int width, bool ascii);

/* One character per value of V[0..N) in BUF, from the lowest mark for 0 to
 * the highest for MAX (V's largest when MAX <= 0): "▁▂▃▄▅▆▇█", or with ASCII
 * "_.:-=+*#". A value above zero never gets the mark of zero. BUF holds 3 * N + 1. */
const char *out_spark(char *buf, size_t cap, const double *v, int n, double max, bool ascii);

/* A row of a bar chart: LABEL, the VALUE drawn, and TEXT, the value as printed. */
struct out_chart_row {
	const char *label;
	double value;
	const char *text;
};
/* Prints ROWS as a horizontal bar chart under a table: "LABEL  TEXT BAR" per
 * row indented by INDENT, labels and texts aligned, the largest value filling
 * what is left of the terminal's width (80 columns when standard output is not
 * a terminal). */
void out_chart(const struct out_chart_row *rows, int n, int indent);

/* A progress line as out_progress() prints it (a terminal on standard error,
 * nothing in the first second, at most ten a second), with the text of FMT
 * and the seconds elapsed: "thp CMD: TEXT (12 s elapsed)". */
void out_progress_say(struct out_progress *p, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Erases the progress line shown, if any (before a message or output on the
 * terminal); the next due progress line draws it again. */
void out_progress_erase(void);

#endif
