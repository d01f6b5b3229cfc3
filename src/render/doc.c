/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc.c - one document printed as text or JSON from the same calls, as
 * iproute2's print_*() with PRINT_ANY: typed values, their words in text */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jw.h"
#include "render.h"
#include "term.h"

static struct {
	bool json, bytes;
	struct out_table *kv; /* the lines of out_kv_open() */
	int kv_indent;
	FILE *mem; /* the stream of out_doc_mem() */
	char *text;
	size_t len;
} doc;

bool out_json_on(void)
{
	return doc.json;
}

bool out_bytes_on(void)
{
	return doc.bytes;
}

/* Begins a document on F; PRETTY: json-c's pretty layout, else one line. */
static void begin(FILE *f, bool json, bool bytes, const char *schema, bool pretty)
{
	doc.json = json;
	doc.bytes = bytes;
	if (!json)
		return;
	jw_begin(f, pretty);
	jw_open(NULL, false);
	jw_scalar("schema", json_object_new_string(schema));
}

void out_doc_begin(bool json, bool bytes, const char *schema)
{
	begin(stdout, json, bytes, schema, true);
}

void out_doc_line(bool json, bool bytes, const char *schema)
{
	begin(stdout, json, bytes, schema, false);
}

int out_doc_mem(const char *schema)
{
	doc.text = NULL;
	doc.mem = open_memstream(&doc.text, &doc.len);
	if (!doc.mem)
		return -1;
	begin(doc.mem, true, false, schema, false);
	return 0;
}

/* Closes what is open of the JSON document. */
static void close_all(void)
{
	while (doc.json && jw_open_now())
		jw_close();
}

char *out_doc_mem_end(void)
{
	bool ok;

	close_all();
	ok = !ferror(doc.mem);
	if (fclose(doc.mem) || !ok) {
		free(doc.text);
		doc.text = NULL;
	}
	doc.mem = NULL;
	doc.json = false;
	return doc.text;
}

int out_doc_end(void)
{
	close_all();
	return thp_flush();
}

void out_obj(const char *key)
{
	if (doc.json)
		jw_open(key, false);
}

void out_arr(const char *key)
{
	if (doc.json)
		jw_open(key, true);
}

void out_end(void)
{
	if (doc.json)
		jw_close();
}

const char *out_col_key(const struct out_col *c, char *buf, size_t cap)
{
	size_t i = 0;

	for (; c->name[i] && i + 1 < cap; i++)
		buf[i] = (char)tolower((unsigned char)c->name[i]);
	buf[i] = '\0';
	return buf;
}

/* The non-zero counters of folio stats, "name=size,..." (CTX: a struct
 * words). */
struct words {
	char *buf;
	size_t cap, len;
	bool bytes;
};

static void counter_words(const char *name, uint64_t bytes, void *ctx)
{
	struct words *w = ctx;
	char sz[32];

	if (bytes && w->len < w->cap)
		w->len += (size_t)snprintf(w->buf + w->len, w->cap - w->len, "%s%s=%s", w->len ? "," : "", name,
					   out_size(sz, sizeof(sz), bytes, w->bytes));
}

const char *out_val_text(const struct out_val *v, bool bytes, char *buf, size_t cap)
{
	if (v->text)
		return v->text;
	if (v->null)
		return v->kind == OUT_TEXT || v->kind == OUT_WORDLIST ? "" : "-";
	switch (v->kind) {
	case OUT_TEXT:
	case OUT_WORDLIST: return v->s;
	case OUT_SIZE: return out_size(buf, cap, v->u, bytes);
	case OUT_GROUPED: return out_count(buf, cap, v->u);
	case OUT_PCT: return out_pct(buf, cap, v->u, v->whole);
	case OUT_BOOL: return v->u ? "yes" : "no";
	case OUT_NS: return out_ns(buf, cap, (double)v->u);
	case OUT_NUM:
		if (v->dec < 0)
			snprintf(buf, cap, "%g", v->d);
		else
			snprintf(buf, cap, "%.*f", v->dec, v->d);
		return buf;
	case OUT_INT: snprintf(buf, cap, "%" PRId64, v->i); return buf;
	case OUT_HEX: snprintf(buf, cap, "%" PRIx64, v->u); return buf;
	case OUT_SIZES: {
		const uint64_t *z = v->obj;
		size_t len = 0;
		char sz[32];
		buf[0] = '\0';
		for (uint64_t i = 0; i < v->whole && len < cap; i++)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "",
						out_size_spec(sz, sizeof(sz), z[i]));
		return buf;
	}
	case OUT_STATS: snprintf(buf, cap, "%g", ((const struct out_stats *)v->obj)->median); return buf;
	case OUT_FOLIOS: {
		struct words w = { buf, cap, 0, bytes };
		buf[0] = '\0';
		out_folio_counters(v->obj, counter_words, &w);
		return buf;
	}
	default: snprintf(buf, cap, "%" PRIu64, v->u); return buf;
	}
}

static void folio_member(const char *name, uint64_t bytes, void *ctx)
{
	(void)ctx;
	jw_scalar(name, json_object_new_uint64(bytes));
}

static void stats_num(const char *key, double x, bool whole)
{
	jw_scalar(key, whole ? json_object_new_uint64(x > 0 ? (uint64_t)(x + 0.5) : 0) : json_object_new_double(x));
}

static void stats_json(const char *key, const struct out_stats *s)
{
	jw_open(key, false);
	stats_num("min", s->min, s->whole);
	stats_num("median", s->median, s->whole);
	stats_num("max", s->max, s->whole);
	if (s->n > 0) {
		jw_open("runs", true);
		for (int i = 0; i < s->n; i++)
			stats_num(NULL, s->runs[i], s->whole);
		jw_close();
	}
	jw_close();
}

void jw_val(const char *key, const struct out_val *v)
{
	if (v->null) {
		jw_scalar(key, NULL);
		return;
	}
	switch (v->kind) {
	case OUT_TEXT: jw_scalar(key, json_object_new_string(v->s)); return;
	case OUT_PCT: jw_scalar(key, out_json_num(100.0 * (double)v->u / (double)v->whole, 1)); return;
	case OUT_BOOL: jw_scalar(key, json_object_new_boolean(v->u != 0)); return;
	case OUT_NUM: jw_scalar(key, v->dec < 0 ? json_object_new_double(v->d) : out_json_num(v->d, v->dec)); return;
	case OUT_INT: jw_scalar(key, json_object_new_int64(v->i)); return;
	case OUT_FOLIOS:
		jw_open(key, false);
		out_folio_counters(v->obj, folio_member, NULL);
		jw_close();
		return;
	case OUT_STATS: stats_json(key, v->obj); return;
	case OUT_WORDLIST: {
		const char *w = v->s;
		jw_open(key, true);
		while (*w) {
			size_t n = strcspn(w, " ");
			if (n) {
				char *e = strndup(w, n);
				jw_scalar(NULL, e ? json_object_new_string(e) : NULL);
				free(e);
			}
			w += n + (w[n] == ' ');
		}
		jw_close();
		return;
	}
	case OUT_SIZES:
		jw_open(key, true);
		for (uint64_t i = 0; i < v->whole; i++)
			jw_scalar(NULL, json_object_new_uint64(((const uint64_t *)v->obj)[i]));
		jw_close();
		return;
	default: jw_scalar(key, json_object_new_uint64(v->u)); return;
	}
}

/* The words of V through FMT (NULL: "%s"), malloc'd (NULL when out of
 * memory); with ESCAPE, V's words escaped for a terminal. */
static char *words(const char *fmt, const struct out_val *v, bool escape)
{
	char buf[256], *w = NULL;
	const char *t = out_val_text(v, doc.bytes, buf, sizeof(buf));
	char *e = escape ? out_esc_dup(t, strlen(t), OUT_ESC_TEXT) : strdup(t);

	if (e && asprintf(&w, fmt ? fmt : "%s", e) < 0)
		w = NULL;
	free(e);
	return w;
}

void out_put(enum out_to to, const char *key, const char *fmt, struct out_val v)
{
	if (doc.json && to != OUT_FP) {
		jw_val(key, &v);
	} else if (!doc.json && to != OUT_JSON && fmt) {
		char *w = words(fmt, &v, true);
		if (w)
			fputs(w, stdout);
		free(w);
	}
}

void out_kv_open(int indent, bool wrap)
{
	if (doc.json)
		return;
	doc.kv = out_table_new(2, NULL, true);
	doc.kv_indent = indent;
	if (wrap)
		out_table_wrap(doc.kv, 1);
}

void out_kv(enum out_to to, const char *key, const char *label, const char *fmt, struct out_val v)
{
	if (doc.json) {
		if (to != OUT_FP)
			jw_val(key, &v);
		return;
	}
	if (to == OUT_JSON || !doc.kv)
		return;
	char *w = words(fmt, &v, false); /* the table escapes its cells */
	const char *row[] = { label, w ? w : "" };
	out_table_row(doc.kv, row);
	free(w);
}

void out_kv_close(void)
{
	out_table_print(doc.kv, doc.kv_indent);
	doc.kv = NULL;
}

void out_kv_right(void)
{
	if (doc.kv)
		out_table_right(doc.kv, 1);
}

void out_wrapped(enum out_to to, const char *key, const char *label, struct out_val v, int max)
{
	if (doc.json) {
		if (to != OUT_FP)
			jw_val(key, &v);
	} else if (to != OUT_JSON && label) {
		char *w = words(NULL, &v, false); /* out_wrap escapes it */
		if (w)
			out_wrap(label, w, max);
		free(w);
	}
}

void out_text(const char *fmt, ...)
{
	va_list ap;

	if (doc.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}
