/* SPDX-License-Identifier: GPL-2.0-or-later */
/* table.c - aligned text tables through libsmartcols; the tables of column
 * descriptors print as text, fitted to a terminal, raw or JSON */
#include "../core/jobs.h"
#include "escape.h"
#include "jw.h"
#include "render.h"
#include "term.h"

#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <libsmartcols.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct out_table {
	struct libscols_table *tb;
	int ncols;
	/* a table of out_table_cols() */
	const struct out_col *cols; /* NULL for out_table_new() */
	int *sel, *pos;             /* SEL[ncols]; POS[npos]: column position of a descriptor, or -1 */
	int npos;
	struct out_fmt fmt;
	struct libscols_line *ln;
	struct json_object **vals; /* the current row, in JSON */
	struct json_object *rows;  /* JSON: every row so far */
	struct out_col *own;       /* the descriptors fitting gave a table of out_table_new() */
	int width;                 /* out_table_width(): at most this wide, on a terminal or not */
	/* a table of out_table_open() */
	void *ctx;                 /* for the getters */
	bool jw, jw_closed;        /* its rows go to the JSON document as they come; its array ended */
	int chunk, nlines, indent; /* out_table_stream(): rows a chunk, rows held, the indent */
	size_t *w;                 /* the widths of a stream, fixed by its first chunk */
	size_t *nat;               /* kept rows printed in chunks: the widest cell of each column */
	const void **kept;         /* out_table_keep(): the records, printed at out_table_close() */
	size_t nkept, kcap;
	bool keep;
	int jobs;                  /* out_table_jobs(): threads printing the kept chunks */
	const char *ellipsis;      /* what cut cells end with, of EW columns */
	size_t ew;
	bool utf8;                 /* the locale the first chunk was fitted in */
	bool fitted;               /* a stream's first chunk was fitted to a terminal */
};

/* Sets how libsmartcols table TB prints: with or without its headings, raw
 * (cells apart by a space, blanks escaped), or as PAIRS (NAME="value"). */
static void table_format(struct libscols_table *tb, bool noheadings, bool raw, bool pairs)
{
	scols_table_enable_noheadings(tb, noheadings);
	/* cells are escaped by out_escape(), the same way as every other output */
	scols_table_enable_noencoding(tb, 1);
	/* the width is fitted here, never by libsmartcols (nor cut when piped) */
	scols_table_set_termforce(tb, SCOLS_TERMFORCE_NEVER);
	if (raw)
		scols_table_enable_raw(tb, 1);
	if (pairs) {
		scols_table_enable_export(tb, 1);
		scols_table_set_column_separator(tb, " ");
	} else if (!raw) {
		scols_table_set_column_separator(tb, "  ");
	}
}

/* A libsmartcols table of NCOLS columns with HEADERS (NULL: none). */
static struct out_table *table_new(int ncols, const char *const *headers, bool noheadings, bool raw)
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
	table_format(t->tb, noheadings, raw, false);
	t->ellipsis = "...";
	t->ew = 3;
	for (int i = 0; i < ncols; i++)
		scols_table_new_column(t->tb, headers ? headers[i] : "", 0, 0);
	return t;
}

struct out_table *out_table_new(int ncols, const char *const *headers, bool noheadings)
{
	return table_new(ncols, headers, noheadings, false);
}

void out_table_right(struct out_table *t, int col)
{
	struct libscols_column *c = scols_table_get_column(t->tb, (size_t)col);
	if (c)
		scols_column_set_flags(c, scols_column_get_flags(c) | SCOLS_FL_RIGHT);
}

/* Gives table T of out_table_new() descriptors of its columns (text, named by
 * their headers) so that it is fitted to a terminal. False without memory. */
static bool own_cols(struct out_table *t)
{
	if (!t->own) {
		t->own = calloc((size_t)t->ncols, sizeof(*t->own));
		t->sel = calloc((size_t)t->ncols, sizeof(*t->sel));
		if (!t->own || !t->sel)
			return false;
		for (int i = 0; i < t->ncols; i++) {
			struct libscols_column *c = scols_table_get_column(t->tb, (size_t)i);
			const char *name = c ? scols_cell_get_data(scols_column_get_header(c)) : NULL;
			t->own[i] = (struct out_col){ name ? name : "", OUT_TEXT, 0, "", NULL, 0 };
			t->sel[i] = i;
		}
		t->cols = t->own;
		t->fmt.noheadings = scols_table_is_noheadings(t->tb);
	}
	return t->own && t->sel;
}

void out_table_col(struct out_table *t, int col, unsigned flags)
{
	if (t && col >= 0 && col < t->ncols && own_cols(t))
		t->own[col].flags |= flags;
}

void out_table_wrap(struct out_table *t, int col)
{
	for (int i = 0; t && i < t->ncols; i++)
		out_table_col(t, i, i == col ? OUT_WRAP | OUT_KEEP : OUT_KEEP);
}

void out_table_width(struct out_table *t, int width)
{
	if (t && own_cols(t))
		t->width = width;
}

struct out_table *out_help_list(int ncols)
{
	struct out_table *t = out_table_new(ncols, NULL, true);

	out_table_wrap(t, ncols - 1);
	out_table_width(t, OUT_HELP_WIDTH);
	return t;
}

void out_table_fitted(struct out_table *t)
{
	if (t)
		own_cols(t);
}

/* Sets cell I of line LN to V, escaped for a terminal unless PLAIN (see
 * plain_words()). */
static void set_cell(struct libscols_line *ln, int i, const char *v, bool plain)
{
	char *e;

	v = v ? v : "";
	e = plain ? strdup(v) : out_esc_dup(v, strlen(v), OUT_ESC_TEXT);
	if (!e || scols_line_refer_data(ln, (size_t)i, e))
		free(e);
}

void out_table_row(struct out_table *t, const char *const *values)
{
	struct libscols_line *ln = scols_table_new_line(t->tb, NULL);

	if (!ln)
		return;
	for (int i = 0; i < t->ncols; i++)
		set_cell(ln, i, values[i], false);
}

static void table_free(struct out_table *t);

/* Whether a column of kind K is aligned to the right: numbers are. */
static bool right_aligned(enum out_kind k)
{
	return k != OUT_TEXT && k != OUT_BOOL && k != OUT_SIZES && k != OUT_FOLIOS && k != OUT_WORDLIST;
}

/* The table of the NSEL columns SEL of COLS as F says (text, raw, pairs),
 * its number columns right-aligned; NULL when out of memory. */
static struct out_table *cols_table(const struct out_col *cols, const int *sel, int nsel, const struct out_fmt *f)
{
	const char *hdr[nsel > 0 ? nsel : 1];
	struct out_table *t;

	hdr[0] = "";
	/* libsmartcols makes a column as wide as its header, shown or not: a
	 * table without headings has none (pairs name their values by them) */
	for (int i = 0; i < nsel; i++)
		hdr[i] = f->bare || (f->noheadings && !f->pairs) ? "" : cols[sel[i]].name;
	t = table_new(nsel, hdr, f->noheadings || f->bare, f->raw);
	if (!t)
		return NULL;
	if (f->pairs)
		table_format(t->tb, f->noheadings || f->bare, f->raw, true);
	t->cols = cols;
	t->fmt = *f;
	t->fmt.noheadings = f->noheadings || f->bare;
	for (int i = 0; i < nsel; i++)
		if (sel[i] + 1 > t->npos)
			t->npos = sel[i] + 1;
	t->sel = calloc((size_t)nsel + 1, sizeof(*t->sel));
	t->pos = calloc((size_t)t->npos + 1, sizeof(*t->pos));
	t->vals = calloc((size_t)nsel + 1, sizeof(struct json_object *));
	if (!t->sel || !t->pos || !t->vals) {
		table_free(t);
		return NULL;
	}
	for (int p = 0; p < t->npos; p++)
		t->pos[p] = -1;
	for (int i = 0; i < nsel; i++) {
		t->sel[i] = sel[i];
		if (t->pos[sel[i]] < 0)
			t->pos[sel[i]] = i;
		if (right_aligned(cols[sel[i]].kind))
			out_table_right(t, i);
	}
	return t;
}

struct out_table *out_table_cols(const struct out_col *cols, const int *sel, int nsel,
				 const struct out_fmt *f)
{
	struct out_table *t = cols_table(cols, sel, nsel, f);

	if (t && f->json && !(t->rows = json_object_new_array())) {
		table_free(t);
		return NULL;
	}
	return t;
}

struct out_table *out_table_open(const char *key, const struct out_col *cols, const int *sel, int nsel,
				 const struct out_fmt *f, void *ctx)
{
	struct out_table *t = cols_table(cols, sel, nsel, f);

	if (!t)
		return NULL;
	t->ctx = ctx;
	t->jw = f->json && out_json_on();
	if (t->jw)
		jw_open(key, true);
	return t;
}

/* The value of column I of T for ROW, from its getter, its words in BUF. */
static struct out_val cell_val(const struct out_table *t, int i, const void *row, char *buf, size_t cap)
{
	const struct out_col *c = &t->cols[t->sel[i]];
	struct out_val v = { .kind = c->kind, .buf = buf, .cap = cap };

	buf[0] = '\0';
	c->get(c, row, t->ctx, &v);
	return v;
}

/* Writes ROW as a JSON object of the selected columns, member KEY. */
static void row_json(const struct out_table *t, const char *key, const void *row)
{
	char buf[1024], k[64];

	jw_open(key, false);
	for (int i = 0; i < t->ncols; i++) {
		struct out_val v = cell_val(t, i, row, buf, sizeof(buf));
		jw_val(out_col_key(&t->cols[t->sel[i]], k, sizeof(k)), &v);
	}
	jw_close();
}

static void chunk_flush(struct out_table *t, bool full);

/* Adds ROW as a line of T's columns to libsmartcols table TB. False when out
 * of memory. */
/* Whether the words of value V in text are the table's own (a number and
 * its unit), which need no escaping, unlike text from a process or a file. */
static bool plain_words(const struct out_val *v)
{
	return !v->text && v->kind != OUT_TEXT && v->kind != OUT_WORDLIST;
}

static bool add_line(const struct out_table *t, struct libscols_table *tb, const void *row)
{
	char buf[1024], words[1024];
	struct libscols_line *ln = scols_table_new_line(tb, NULL);

	for (int i = 0; ln && i < t->ncols; i++) {
		struct out_val v = cell_val(t, i, row, buf, sizeof(buf));
		set_cell(ln, i, out_val_text(&v, t->fmt.bytes, words, sizeof(words)), plain_words(&v));
		if (v.hue && *out_color(v.hue - 1)) {
			scols_table_enable_colors(tb, 1);
			scols_cell_set_color(scols_line_get_cell(ln, (size_t)i), out_color(v.hue - 1));
		}
	}
	return ln != NULL;
}

/* Adds ROW as a line of the text of T. */
static void row_text(struct out_table *t, const void *row)
{
	if (add_line(t, t->tb, row) && t->chunk && ++t->nlines >= t->chunk)
		chunk_flush(t, true);
}

/* Keeps ROW for out_table_close() (T keeps its rows). */
static void keep_row(struct out_table *t, const void *row)
{
	if (t->nkept == t->kcap) {
		size_t cap = t->kcap ? t->kcap * 2 : 256;
		const void **nk = reallocarray(t->kept, cap, sizeof(*nk));
		if (!nk)
			return;
		t->kept = nk;
		t->kcap = cap;
	}
	t->kept[t->nkept++] = row;
}

void out_table_add(struct out_table *t, const void *row)
{
	if (!t || t->jw_closed)
		return;
	if (t->jw)
		row_json(t, NULL, row);
	else if (t->keep)
		keep_row(t, row);
	else
		row_text(t, row);
}

void out_table_total(struct out_table *t, const char *key, const void *row)
{
	if (!t)
		return;
	if (!t->jw) {
		out_table_add(t, row);
		return;
	}
	jw_close();
	t->jw_closed = true;
	row_json(t, key, row);
}

void out_table_keep(struct out_table *t)
{
	if (t && !t->jw)
		t->keep = true;
}

void out_table_jobs(struct out_table *t, int jobs)
{
	if (t)
		t->jobs = jobs;
}

void out_table_stream(struct out_table *t, int n, int indent)
{
	if (t && !t->jw) {
		t->chunk = n;
		t->indent = indent;
	}
}

/* Ends the current row of a JSON table: its object, keys in column order. */
static void json_flush(struct out_table *t)
{
	struct json_object *o;

	if (!t->rows || !t->ln)
		return;
	o = json_object_new_object();
	for (int i = 0; i < t->ncols; i++) {
		char k[64];
		json_object_object_add(o, out_col_key(&t->cols[t->sel[i]], k, sizeof(k)), t->vals[i]);
		t->vals[i] = NULL;
	}
	json_object_array_add(t->rows, o);
}

void out_table_line(struct out_table *t)
{
	if (!t)
		return;
	json_flush(t);
	t->ln = scols_table_new_line(t->tb, NULL);
}

void out_cell(struct out_table *t, int col, const char *text, struct json_object *val)
{
	int i = t && t->ln && col >= 0 && col < t->npos ? t->pos[col] : -1;

	if (i < 0) {
		json_object_put(val);
		return;
	}
	if (t->rows) {
		json_object_put(t->vals[i]);
		t->vals[i] = val;
	} else {
		json_object_put(val);
		set_cell(t->ln, i, text, false);
	}
	/* a column selected twice shows the same value */
	for (int k = i + 1; k < t->ncols; k++)
		if (t->sel[k] == col && !t->rows)
			set_cell(t->ln, k, text, false);
}

void out_cell_u64(struct out_table *t, int col, uint64_t v)
{
	char buf[32];
	enum out_kind k = t && col < t->npos && t->pos[col] >= 0 ? t->cols[col].kind : OUT_COUNT;

	if (k == OUT_SIZE)
		out_cell(t, col, out_size(buf, sizeof(buf), v, t->fmt.bytes), out_json_u64(v));
	else if (k == OUT_BOOL)
		out_cell(t, col, v ? "yes" : "no", json_object_new_boolean(v != 0));
	else if (k == OUT_NS)
		out_cell(t, col, out_ns(buf, sizeof(buf), (double)v), out_json_u64(v));
	else
		out_cell(t, col, (snprintf(buf, sizeof(buf), "%" PRIu64, v), buf), out_json_u64(v));
}

void out_cell_str(struct out_table *t, int col, const char *s)
{
	out_cell(t, col, s, s ? json_object_new_string(s) : NULL);
}

void out_cell_pct(struct out_table *t, int col, uint64_t part, uint64_t whole)
{
	char buf[32];

	out_cell(t, col, out_pct(buf, sizeof(buf), part, whole),
		 whole ? out_json_num(100.0 * (double)part / (double)whole, 1) : NULL);
}

struct json_object *out_table_json(struct out_table *t)
{
	struct json_object *rows;

	if (!t)
		return NULL;
	json_flush(t);
	rows = t->rows;
	t->rows = NULL;
	table_free(t);
	return rows;
}

/* The width of the terminal on standard output; 0 when it is none. */
static int term_width(void)
{
	struct winsize ws;

	if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_col)
		return 0;
	return ws.ws_col;
}

/* Cell I of line LN, as stored (escaped). */
static const char *cell_text(struct libscols_line *ln, int i)
{
	const char *s = scols_cell_get_data(scols_line_get_cell(ln, (size_t)i));
	return s ? s : "";
}

/* The width libsmartcols gives column I of T at least: its header's (an
 * empty one is 1 wide). */
static size_t header_width(const struct out_table *t, int i)
{
	return t->fmt.noheadings || !*t->cols[t->sel[i]].name ? 1 : strlen(t->cols[t->sel[i]].name);
}

/* Fills W with the width of the header of every column of T. */
static void header_widths(const struct out_table *t, size_t *w)
{
	for (int i = 0; i < t->ncols; i++)
		w[i] = header_width(t, i);
}

/* Fills W with the widest cell (and header) of every column of T. */
static void natural_widths(struct out_table *t, size_t *w)
{
	struct libscols_iter *it = scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln;

	header_widths(t, w);
	while (it && scols_table_next_line(t->tb, it, &ln) == 0)
		for (int i = 0; i < t->ncols; i++) {
			size_t n = strlen(cell_text(ln, i));
			w[i] = n > w[i] ? n : w[i];
		}
	scols_free_iter(it);
}

/* Where the first line of the N bytes of S ends when lines take at most
 * WIDTH columns: at the last space that fits (*SKIP 1: the space is dropped),
 * else after the last '/' that fits past the first third of the line (paths
 * break between their parts), else after the last '/', ',' or '-' (lists,
 * ranges), else at WIDTH. */
static size_t line_end(const char *s, size_t n, size_t width, size_t *skip)
{
	static const char *const after[] = { "/", "/,-" };

	*skip = 0;
	if (n <= width)
		return n;
	for (size_t i = width; i > 0; i--)
		if (s[i] == ' ') {
			*skip = 1;
			return i;
		}
	for (size_t k = 0; k < sizeof(after) / sizeof(after[0]); k++)
		for (size_t i = width - 1; i > (k ? 0 : width / 3); i--)
			if (strchr(after[k], s[i]))
				return i + 1;
	return width;
}

/* S cut to WIDTH columns: the end replaced by ELLIPSIS (of EW columns), or
 * wrapped onto lines of WIDTH (WRAP, see line_end()). Malloc'd; NULL when out
 * of memory. */
static char *fit_cell(const char *s, size_t width, bool wrap, const char *ellipsis, size_t ew)
{
	size_t n = strlen(s), o = 0, skip;
	char *r;

	if (n <= width)
		return strdup(s);
	if (!wrap) {
		size_t keep = width > ew ? width - ew : 0;
		r = malloc(keep + strlen(ellipsis) + 1);
		if (r)
			sprintf(r, "%.*s%s", (int)keep, s, ellipsis);
		return r;
	}
	r = malloc(n * 2 + 1);
	while (r && n) {
		size_t len = line_end(s, n, width ? width : 1, &skip);
		if (o)
			r[o++] = '\n';
		memcpy(r + o, s, len);
		o += len;
		for (s += len, n -= len; n && (skip || *s == ' '); s++, n--)
			skip = 0;
	}
	if (r)
		r[o] = '\0';
	return r;
}

/* The narrowest a column gets on the first try: a wrapped one a few words a
 * line, a cut one enough to tell its values apart. */
#define WRAP_MIN 24
#define TRUNC_MIN 16
/* The narrowest a wrapped column ever gets. */
#define WRAP_HARD 12

/* Lets column I of T wrap its cells at their newlines. */
static void wrap_column(struct out_table *t, int i)
{
	struct libscols_column *c = scols_table_get_column(t->tb, (size_t)i);

	scols_column_set_wrapfunc(c, scols_wrapnl_chunksize, scols_wrapnl_nextchunk, NULL);
	scols_column_set_flags(c, scols_column_get_flags(c) | SCOLS_FL_WRAP);
}

static bool hidden(const struct out_table *t, int i)
{
	return scols_column_get_flags(scols_table_get_column(t->tb, (size_t)i)) & SCOLS_FL_HIDDEN;
}

/* The narrowest column I of T may be made: its width when it may be neither
 * cut nor wrapped; else its header, and on the first try (not HARD)
 * TRUNC_MIN or WRAP_MIN, on the last an ellipsis and a character or
 * WRAP_HARD. */
static size_t col_min(const struct out_table *t, int i, bool hard)
{
	const struct out_col *c = &t->cols[t->sel[i]];
	size_t hdr = t->fmt.noheadings ? 0 : strlen(c->name), min;

	if (!(c->flags & (OUT_TRUNC | OUT_WRAP)))
		return SIZE_MAX;
	if (c->flags & OUT_WRAP)
		min = hard ? WRAP_HARD : WRAP_MIN;
	else
		min = hard ? t->ew + 1 : TRUNC_MIN;
	return hdr > min ? hdr : min;
}

/* Narrows the columns of T (W their N widths) that may be cut or wrapped,
 * widest first, until its lines take at most WIDTH columns (*TOTAL) or those
 * are at their col_min(HARD): only the OUT_KEEP ones when KEEP, else only
 * the others (with HARD, all). */
static void narrow(const struct out_table *t, size_t *w, int n, size_t *total, size_t width, bool keep, bool hard)
{
	while (*total > width) {
		int widest = -1;
		for (int i = 0; i < n; i++) {
			bool k = t->cols[t->sel[i]].flags & OUT_KEEP;
			if (hidden(t, i) || (!hard && k != keep) || w[i] <= col_min(t, i, hard))
				continue;
			if (widest < 0 || w[i] > w[widest])
				widest = i;
		}
		if (widest < 0)
			return;
		w[widest]--;
		(*total)--;
	}
}

/* The width of the lines of T, W the widths of its N columns; with LEAST,
 * when those are at their col_min() of the first try (or narrower by nature). */
static size_t lines_width(const struct out_table *t, const size_t *w, int n, bool least)
{
	size_t total = 0;

	for (int i = 0; i < n; i++) {
		size_t m = least ? col_min(t, i, false) : SIZE_MAX;
		if (!hidden(t, i))
			total += (m < w[i] ? m : w[i]) + (total ? 2 : 0);
	}
	return total;
}

static void set_hidden(struct out_table *t, int i, bool hide)
{
	struct libscols_column *c = scols_table_get_column(t->tb, (size_t)i);
	int f = scols_column_get_flags(c);

	scols_column_set_flags(c, hide ? f | SCOLS_FL_HIDDEN : f & ~SCOLS_FL_HIDDEN);
}

/* Leaves out columns of T that are not OUT_KEEP (never the first), the last
 * first, while those left cannot be narrowed to WIDTH: identity and the
 * answer stay, details go. Then shows again, the first first, those that
 * fit in the room left. */
static void leave_out(struct out_table *t, const size_t *w, int n, size_t width)
{
	int last = n;

	for (int i = n - 1; i > 0 && lines_width(t, w, n, true) > width; i--)
		if (!(t->cols[t->sel[i]].flags & OUT_KEEP))
			set_hidden(t, last = i, true);
	for (int i = last + 1; i < n; i++)
		if (hidden(t, i)) {
			set_hidden(t, i, false);
			if (lines_width(t, w, n, true) > width)
				set_hidden(t, i, true);
		}
}

/* Cuts or wraps the cells of the lines of TB (of T's columns) that are wider
 * than W, the widths their columns were narrowed to from NAT. */
static void fit_lines(const struct out_table *t, struct libscols_table *tb, const size_t *w, const size_t *nat)
{
	struct libscols_iter *it = scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln;

	while (it && scols_table_next_line(tb, it, &ln) == 0)
		for (int i = 0; i < t->ncols; i++) {
			bool wrap = t->cols[t->sel[i]].flags & OUT_WRAP;
			char *s;
			if (w[i] == nat[i] || !(s = fit_cell(cell_text(ln, i), w[i], wrap, t->ellipsis, t->ew)))
				continue;
			if (scols_line_refer_data(ln, (size_t)i, s))
				free(s);
		}
	scols_free_iter(it);
}

/* Fits the lines of T to WIDTH columns: detail columns left out, then the
 * others cut or wrapped (see narrow()) with ELLIPSIS (of EW columns). */
static void fit(struct out_table *t, int width, const char *ellipsis, size_t ew)
{
	const int n = t->ncols;
	size_t w[n > 0 ? n : 1], nat[n > 0 ? n : 1], total;

	if (t->nat)
		memcpy(w, t->nat, sizeof(w));
	else
		natural_widths(t, w);
	memcpy(nat, w, sizeof(nat));
	t->ellipsis = ellipsis;
	t->ew = ew;
	leave_out(t, w, n, (size_t)width);
	total = lines_width(t, w, n, false);
	narrow(t, w, n, &total, (size_t)width, false, false);
	narrow(t, w, n, &total, (size_t)width, true, false);
	narrow(t, w, n, &total, (size_t)width, true, true);
	fit_lines(t, t->tb, w, nat);
	for (int i = 0; i < n; i++)
		if ((w[i] != nat[i] || (t->chunk && !t->nat)) && (t->cols[t->sel[i]].flags & OUT_WRAP))
			wrap_column(t, i);
	if (t->chunk && (t->w = malloc(sizeof(w))))
		memcpy(t->w, w, sizeof(w));
}

/* Fits a table of columns to the terminal on standard output, unless
 * --notruncate, --raw or no terminal, and to the width of out_table_width().
 * Returns the LC_CTYPE to restore after printing (malloc'd), or NULL. */
static char *fit_terminal(struct out_table *t, int indent)
{
	int width = t->cols && !t->fmt.notrunc && !t->fmt.raw && !t->fmt.pairs ? term_width() : 0;
	const char *cur;
	char *saved;
	bool utf8;

	if (t->width && (!width || t->width < width))
		width = t->width;
	if (!t->cols || width <= indent || !(cur = setlocale(LC_CTYPE, NULL)) || !(saved = strdup(cur)))
		return NULL;
	/* libsmartcols measures the ellipsis in the user's locale */
	setlocale(LC_CTYPE, "");
	utf8 = !strcasecmp(nl_langinfo(CODESET), "UTF-8");
	if (!utf8)
		setlocale(LC_CTYPE, saved);
	t->utf8 = utf8;
	fit(t, width - indent, utf8 ? "\u2026" : "...", utf8 ? 1 : 3);
	return saved;
}

void out_table_color(struct out_table *t, int col, enum out_hue hue)
{
	int i = t && t->ln && !t->rows && col >= 0 && col < t->npos ? t->pos[col] : -1;
	struct libscols_cell *c = i >= 0 ? scols_line_get_cell(t->ln, (size_t)i) : NULL;

	if (!c || !*out_color(hue))
		return;
	scols_table_enable_colors(t->tb, 1);
	scols_cell_set_color(c, out_color(hue));
}

/* Names the columns of T that fit() left out, under the table. */
static void left_out(const struct out_table *t, int indent)
{
	char label[32], names[1024] = "";
	size_t o = 0;

	for (int i = 0; i < t->ncols && o < sizeof(names); i++)
		if (hidden(t, i))
			o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", o ? ", " : "",
					      t->cols[t->sel[i]].name);
	if (!o)
		return;
	snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s",
		 t->own || t->fmt.fixed ? " (a wider terminal or a pipe shows them)" : " (--notruncate or -o shows them)");
	snprintf(label, sizeof(label), "%*sNot shown at this width:", indent, "");
	out_wrap(label, names, 100);
}

/* Prints the lines of text S (of a table), each indented by INDENT spaces,
 * without trailing spaces; frees S. */
/* The lines of text S as printed: each indented by INDENT spaces, without
 * trailing spaces, and empty lines left out; *LEN the length. A new
 * string; NULL when out of memory. */
static char *final_text(const char *s, int indent, size_t *len)
{
	size_t cap = 1, n = 0;
	char *out;

	for (const char *p = s; *p; p++)
		cap += *p == '\n' ? (size_t)indent + 1 : 1;
	if (!(out = malloc(cap + (size_t)indent + 1)))
		return NULL;
	for (const char *p = s; *p;) {
		const char *nl = strchrnul(p, '\n'), *end = nl;
		while (end > p && end[-1] == ' ')
			end--;
		if (nl > p) {
			memset(out + n, ' ', (size_t)indent);
			memcpy(out + n + (size_t)indent, p, (size_t)(end - p));
			n += (size_t)indent + (size_t)(end - p);
			out[n++] = '\n';
		}
		p = *nl ? nl + 1 : nl;
	}
	out[n] = '\0';
	*len = n;
	return out;
}

/* Writes the LEN bytes of S to stdout, keeping the reason it failed for
 * thp_stdout_done() (a write larger than stdio's buffer is not retried). */
static void put_text(const char *s, size_t len)
{
	errno = 0;
	if (fwrite(s, 1, len, stdout) != len)
		thp_stdout_failed(errno);
}

/* Prints text S (and lets it go) as final_text() makes it. */
static void print_text(char *s, int indent)
{
	size_t len;
	char *f = s ? final_text(s, indent, &len) : NULL;

	if (f)
		put_text(f, len);
	free(f);
	free(s);
}

/* Prints the lines of T (the table's text), each indented by INDENT spaces,
 * without trailing spaces. */
static void print_lines(struct out_table *t, int indent)
{
	char *s = NULL;

	if (scols_table_get_nlines(t->tb) && scols_print_table_to_string(t->tb, &s) == 0)
		print_text(s, indent);
	else
		free(s);
}

void out_table_print(struct out_table *t, int indent)
{
	char *locale;

	if (!t)
		return;
	if (t->fmt.raw)
		indent = 0;
	locale = t->rows ? NULL : fit_terminal(t, indent);
	if (!t->rows)
		print_lines(t, indent);
	if (locale)
		setlocale(LC_CTYPE, locale);
	free(locale);
	left_out(t, indent);
	table_free(t);
}

/* Cell I of line LN made WIDTH wide: cut (or wrapped) when CUT and wider,
 * padded with spaces on the side away from its alignment when narrower. */
static void set_width(struct out_table *t, struct libscols_line *ln, int i, size_t width, bool cut)
{
	const char *c = cell_text(ln, i), *last;
	bool wrap = t->cols[t->sel[i]].flags & OUT_WRAP, right = right_aligned(t->cols[t->sel[i]].kind);
	char *s = cut && strlen(c) > width ? fit_cell(c, width, wrap, t->ellipsis, t->ew) : strdup(c);
	size_t n;

	if (!s)
		return;
	last = strrchr(s, '\n') ? strrchr(s, '\n') + 1 : s;
	n = strlen(last);
	if (n < width) {
		char *p = malloc(strlen(s) + width - n + 1);
		if (p && right)
			sprintf(p, "%*s", (int)width, s);
		else if (p)
			sprintf(p, "%s%*s", s, (int)(width - n), "");
		free(s);
		s = p;
	}
	if (s && scols_line_refer_data(ln, (size_t)i, s))
		free(s);
}

/* Gives the cells of the lines T holds the widths of its first chunk:
 * columns that may be cut (on a terminal) are cut to them, others widen
 * them when a cell is wider. */
static void keep_widths(struct out_table *t)
{
	struct libscols_iter *it = scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln;

	for (int pass = 0; it && pass < 2; pass++) {
		scols_reset_iter(it, SCOLS_ITER_FORWARD);
		while (scols_table_next_line(t->tb, it, &ln) == 0)
			for (int i = 0; i < t->ncols; i++) {
				bool cut = t->fitted && (t->cols[t->sel[i]].flags & (OUT_TRUNC | OUT_WRAP));
				size_t n = strlen(cell_text(ln, i));
				if (pass == 0 && !cut && n > t->w[i])
					t->w[i] = n;
				else if (pass == 1)
					set_width(t, ln, i, t->w[i], cut);
			}
	}
	scols_free_iter(it);
}

/* The widest words of a value of kind K in text: a size ("1023.9 KiB"), a
 * percentage ("100.0%"), a duration ("999.9 ms"); 0 when it varies. */
static size_t kind_width(enum out_kind k, bool bytes)
{
	switch (k) {
	case OUT_SIZE: return bytes ? 0 : strlen("1023.9 KiB");
	case OUT_PCT: return strlen("100.0%");
	case OUT_NS: return strlen("999.9 ms");
	default: return 0;
	}
}

/* Gives the columns of T's first chunk, when more rows follow, the widest
 * words their kind can have, so that later chunks keep their alignment. */
static void kind_widths(struct out_table *t)
{
	size_t w[t->ncols > 0 ? t->ncols : 1];

	natural_widths(t, w);
	t->w = w;
	for (int i = 0; i < t->ncols; i++) {
		size_t k = kind_width(t->cols[t->sel[i]].kind, t->fmt.bytes);
		w[i] = k > w[i] ? k : w[i];
	}
	keep_widths(t);
	t->w = NULL;
}

/* Gives the columns of T the widths of all of its kept rows (T->W, fitted
 * to a terminal): each chunk is printed in them. A cut column is as wide
 * as it was cut to, as its cut cells are; so is a wrapped one here, which
 * alone may differ from the table printed whole (there its widest line).
 * libsmartcols makes a column at least as wide as its header, printed or
 * not, and widens it to its hint past that only when the column is strict. */
static void hint_widths(struct out_table *t)
{
	for (int i = 0; i < t->ncols && !t->fmt.raw && !t->fmt.pairs; i++) {
		struct libscols_column *c = scols_table_get_column(t->tb, (size_t)i);
		size_t hdr = header_width(t, i);
		scols_column_set_whint(c, (double)(t->w[i] > hdr ? t->w[i] : hdr));
		if (t->w[i] > hdr)
			scols_column_set_flags(c, scols_column_get_flags(c) | SCOLS_FL_STRICTWIDTH);
	}
}

/* Prints the lines a stream holds, and lets them go; FULL when more rows
 * may follow. */
static void chunk_flush(struct out_table *t, bool full)
{
	char *locale = NULL;
	int indent = t->fmt.raw ? 0 : t->indent;

	if (!t->cols)
		return;
	if (!t->w && full && !t->nat && !t->fmt.raw && !t->fmt.pairs)
		kind_widths(t);
	if (!t->w) {
		locale = fit_terminal(t, indent);
		t->fitted = t->w != NULL;
		if (!t->w && (t->w = malloc(sizeof(*t->w) * (size_t)(t->ncols ? t->ncols : 1))) && t->nat)
			memcpy(t->w, t->nat, sizeof(*t->w) * (size_t)t->ncols);
		else if (t->w && !t->fitted)
			natural_widths(t, t->w);
		if (t->w && t->nat)
			hint_widths(t);
	} else if (!t->fmt.raw && !t->fmt.pairs) {
		if (t->nat)
			fit_lines(t, t->tb, t->w, t->nat);
		else
			keep_widths(t);
		if (t->utf8 && (locale = strdup(setlocale(LC_CTYPE, NULL))))
			setlocale(LC_CTYPE, "");
	}
	print_lines(t, indent);
	if (locale)
		setlocale(LC_CTYPE, locale);
	free(locale);
	scols_table_remove_lines(t->tb);
	scols_table_enable_noheadings(t->tb, 1);
	t->nlines = 0;
}

/* A share of T's kept rows, [FROM, TO), for a thread: the widest cell of
 * each column (W), or the text of a chunk's table TB. */
struct share {
	const struct out_table *t;
	size_t from, to;
	size_t *w;
	struct libscols_table *tb;
	char *text; /* LEN bytes */
	size_t len;
};

/* Widens W to the widest cell of every column of T over its kept rows
 * [FROM, TO), as row_text() gives them. */
static void rows_widths(const struct out_table *t, size_t from, size_t to, size_t *w)
{
	char buf[1024], words[1024];

	for (size_t r = from; r < to; r++)
		for (int i = 0; i < t->ncols; i++) {
			struct out_val v = cell_val(t, i, t->kept[r], buf, sizeof(buf));
			const char *s = out_val_text(&v, t->fmt.bytes, words, sizeof(words));
			size_t n = !s ? 0 : plain_words(&v) ? strlen(s) : out_escape(NULL, 0, s, strlen(s), OUT_ESC_TEXT);
			w[i] = n > w[i] ? n : w[i];
		}
}

static void widths_job(void *ctx, int worker, size_t i)
{
	struct share *x = (struct share *)ctx + i;

	(void)worker;
	rows_widths(x->t, x->from, x->to, x->w);
}

/* Fills NAT with the widest cell (and header) of every column of T over the
 * rows it kept, a chunk of them at a time on T->JOBS threads (each takes the
 * next as it ends one: one held up by the scheduler holds up no share of
 * the others). */
static void kept_widths(struct out_table *t, size_t *nat, size_t chunk)
{
	size_t n = (t->nkept + chunk - 1) / chunk, nc = (size_t)t->ncols;
	struct share *x = calloc(n, sizeof(*x));
	size_t *w = calloc(n * (nc ? nc : 1), sizeof(*w));

	header_widths(t, nat);
	for (size_t k = 0; x && w && k < n; k++)
		x[k] = (struct share){ t, k * chunk, k + 1 < n ? (k + 1) * chunk : t->nkept, w + k * nc, NULL, NULL, 0 };
	if (x && w)
		thp_jobs_run(t->jobs > 1 ? t->jobs : 1, n, widths_job, x);
	else
		rows_widths(t, 0, t->nkept, nat);
	for (size_t k = 0; x && w && k < n; k++)
		for (size_t i = 0; i < nc; i++)
			nat[i] = x[k].w[i] > nat[i] ? x[k].w[i] : nat[i];
	free(x);
	free(w);
}

/* Rows a chunk of a kept table: OUT_TABLE_CHUNK, or THP_TABLE_CHUNK (for
 * the tests of chunks). */
static int kept_chunk(void)
{
	const char *e = getenv("THP_TABLE_CHUNK");
	long n = e ? strtol(e, NULL, 10) : 0;

	return n > 0 && n <= INT32_MAX ? (int)n : OUT_TABLE_CHUNK;
}

/* A table for the chunks of kept table T after its first: its columns as
 * that chunk left them (widths, hidden, cut or wrapped; T holds no lines
 * then), without headings. NULL when out of memory. */
static struct libscols_table *chunk_table(const struct out_table *t)
{
	struct libscols_table *tb = scols_copy_table(t->tb);

	if (!tb)
		return NULL;
	table_format(tb, true, t->fmt.raw, t->fmt.pairs);
	/* a copied column keeps its flags, not its wrapping function */
	for (int i = 0; i < t->ncols; i++)
		if (scols_column_get_flags(scols_table_get_column(tb, (size_t)i)) & SCOLS_FL_WRAP)
			scols_column_set_wrapfunc(scols_table_get_column(tb, (size_t)i), scols_wrapnl_chunksize,
						  scols_wrapnl_nextchunk, NULL);
	return tb;
}

/* Makes the text of a chunk as it is printed (final_text()): its lines,
 * cut to the widths of the first chunk (on a terminal), printed by
 * libsmartcols; and lets its lines go. */
static void chunk_job(void *ctx, int worker, size_t i)
{
	struct share *c = (struct share *)ctx + i;
	const struct out_table *t = c->t;
	char *s = NULL;

	(void)worker;
	for (size_t r = c->from; r < c->to; r++)
		add_line(t, c->tb, t->kept[r]);
	if (!t->fmt.raw && !t->fmt.pairs)
		fit_lines(t, c->tb, t->w, t->nat);
	c->text = scols_print_table_to_string(c->tb, &s) == 0 ? final_text(s, t->fmt.raw ? 0 : t->indent, &c->len)
							       : NULL;
	free(s);
	scols_table_remove_lines(c->tb);
}

/* Parts a round of the printing of a kept table: ROUND_PARTS for each
 * thread, each part a ROUND_PARTS-th of a chunk, each thread taking the next
 * part as it ends one (one held up by the scheduler holds up no share of the
 * others), as many rows held as a chunk a thread; and at most ROUND_MAX
 * parts. */
#define ROUND_PARTS 4
#define ROUND_MAX 64

/* Prints the kept rows of T from FROM on (its first chunk printed) on
 * T->JOBS threads, in rounds of ROUND_PARTS parts of a chunk a thread (see
 * out_table_jobs()). False, nothing printed, when out of memory. */
static bool print_chunks(struct out_table *t, size_t from)
{
	size_t rows = t->chunk > ROUND_PARTS ? (size_t)t->chunk / ROUND_PARTS : 1;
	size_t left = (t->nkept - from + rows - 1) / rows;
	int n = t->jobs < ROUND_MAX / ROUND_PARTS ? t->jobs * ROUND_PARTS : ROUND_MAX, made = 0;
	struct share c[ROUND_MAX];

	if ((size_t)n > left)
		n = (int)left;
	char *locale = NULL;

	while (made < n && (c[made].tb = chunk_table(t)))
		c[made++].text = NULL;
	if (made == n && t->utf8 && (locale = strdup(setlocale(LC_CTYPE, NULL))))
		setlocale(LC_CTYPE, "");
	while (made == n && from < t->nkept) {
		int k = 0;
		for (; k < n && from < t->nkept; k++) {
			c[k].t = t;
			c[k].from = from;
			from = t->nkept - from > rows ? from + rows : t->nkept;
			c[k].to = from;
		}
		thp_jobs_run(t->jobs, (size_t)k, chunk_job, c);
		for (int i = 0; i < k; i++) {
			if (c[i].text)
				put_text(c[i].text, c[i].len);
			free(c[i].text);
			c[i].text = NULL;
		}
	}
	if (locale)
		setlocale(LC_CTYPE, locale);
	free(locale);
	for (int i = 0; i < made; i++)
		scols_unref_table(c[i].tb);
	return made == n;
}

/* Gives T's text the rows it kept: all of them, or, more than a chunk, a
 * chunk at a time, each printed when full, in the widths of all of them
 * (after the first, on T->JOBS threads). */
static void add_kept(struct out_table *t, int indent)
{
	int chunk = kept_chunk();
	size_t i = 0;

	if (t->nkept > (size_t)chunk && !t->chunk &&
	    (t->nat = malloc(sizeof(*t->nat) * (size_t)(t->ncols ? t->ncols : 1)))) {
		kept_widths(t, t->nat, (size_t)chunk);
		out_table_stream(t, chunk, indent);
	}
	/* the first chunk fits the widths to the terminal (T->W) */
	for (; i < t->nkept && !(t->jobs > 1 && t->nat && t->w); i++)
		row_text(t, t->kept[i]);
	if (i < t->nkept && !print_chunks(t, i))
		for (; i < t->nkept; i++)
			row_text(t, t->kept[i]);
}

void out_table_close(struct out_table *t, int indent)
{
	if (!t)
		return;
	if (t->jw) {
		if (!t->jw_closed)
			jw_close();
		table_free(t);
		return;
	}
	if (t->keep)
		add_kept(t, indent);
	if (!t->chunk) {
		out_table_print(t, indent);
		return;
	}
	if (t->nlines || !t->w)
		chunk_flush(t, false);
	left_out(t, t->fmt.raw ? 0 : t->indent);
	table_free(t);
}

static void table_free(struct out_table *t)
{
	for (int i = 0; t->vals && i < t->ncols; i++)
		json_object_put(t->vals[i]);
	json_object_put(t->rows);
	free(t->vals);
	free(t->sel);
	free(t->pos);
	free(t->own);
	free(t->w);
	free(t->nat);
	free(t->kept);
	scols_unref_table(t->tb);
	free(t);
}
