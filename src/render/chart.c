/* SPDX-License-Identifier: GPL-2.0-or-later */
/* chart.c - horizontal bar charts and sparklines, in Unicode blocks or ASCII */
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "term.h"

static int ascii = -1; /* -1: not decided yet */

void out_draw_force_ascii(void)
{
	ascii = 1;
}

/* The character set of the user's locale, probed without leaving thp in it
 * (the rest of the output stays in the C locale). */
static bool locale_utf8(void)
{
	char set[32] = "";

	if (!setlocale(LC_CTYPE, ""))
		return false;
	snprintf(set, sizeof(set), "%s", nl_langinfo(CODESET));
	setlocale(LC_CTYPE, "C");
	return strcmp(set, "UTF-8") == 0;
}

bool out_draw_ascii(void)
{
	if (ascii < 0)
		ascii = !locale_utf8();
	return ascii;
}

/* Appends S to BUF (of CAP bytes, LEN used) when it fits. */
static void put(char *buf, size_t cap, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n < cap) {
		memcpy(buf + *len, s, n + 1);
		*len += n;
	}
}

/* VALUE / MAX, at most 1. */
static double ratio(double value, double max)
{
	return value < max ? value / max : 1.0;
}

const char *out_bar(char *buf, size_t cap, double value, double max, int width, bool asc)
{
	static const char *const part[8] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	int unit = asc ? 1 : 8;
	long marks = 0;
	size_t len = 0;

	if (cap)
		buf[0] = '\0';
	if (value > 0 && max > 0 && width > 0) {
		marks = (long)(ratio(value, max) * width * unit + 0.5);
		marks = marks < 1 ? 1 : marks;
	}
	for (long i = 0; i < marks / unit; i++)
		put(buf, cap, &len, asc ? "#" : "█");
	put(buf, cap, &len, part[marks % unit]);
	return buf;
}

const char *out_spark(char *buf, size_t cap, const double *v, int n, double max, bool asc)
{
	static const char *const uni[8] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char *const asc_marks[8] = { "_", ".", ":", "-", "=", "+", "*", "#" };
	size_t len = 0;

	if (cap)
		buf[0] = '\0';
	if (max <= 0)
		for (int i = 0; i < n; i++)
			max = v[i] > max ? v[i] : max;
	for (int i = 0; i < n; i++) {
		int k = 0;
		if (v[i] > 0 && max > 0) {
			double x = ratio(v[i], max) * 7;
			k = (int)x;
			k += x - k > 1e-9; /* rounded up, not by the error of the division */
			k = k < 1 ? 1 : k; /* above zero is never the mark of zero */
		}
		put(buf, cap, &len, asc ? asc_marks[k] : uni[k]);
	}
	return buf;
}

/* Prints S padded with spaces to WIDTH columns, on the left (LEFT) or the right. */
static void pad(const char *s, int width, bool left)
{
	int fill = width - out_term_len(s);

	if (left)
		fputs(s, stdout);
	printf("%*s", fill > 0 ? fill : 0, "");
	if (!left)
		fputs(s, stdout);
}

#define CHART_BAR_MIN 10

void out_chart(const struct out_chart_row *rows, int n, int indent)
{
	int lw = 0, tw = 0, bw;
	double max = 0;
	bool asc = out_draw_ascii();

	for (int i = 0; i < n; i++) {
		int l = out_term_len(rows[i].label), t = out_term_len(rows[i].text);
		lw = l > lw ? l : lw;
		tw = t > tw ? t : tw;
		max = rows[i].value > max ? rows[i].value : max;
	}
	bw = out_term_width(80, INT_MAX) - indent - lw - 2 - tw - 1;
	bw = bw < CHART_BAR_MIN ? CHART_BAR_MIN : bw;
	for (int i = 0; i < n; i++) {
		char bar[3 * 512 + 1];
		printf("%*s", indent, "");
		pad(rows[i].label, lw, true);
		fputs("  ", stdout);
		pad(rows[i].text, tw, false);
		out_bar(bar, sizeof(bar), rows[i].value, max, bw < 512 ? bw : 512, asc);
		printf("%s%s\n", bar[0] ? " " : "", bar);
	}
}
