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
} doc;

bool out_json_on(void)
{
	return doc.json;
}

bool out_bytes_on(void)
{
	return doc.bytes;
}

/* Begins a document; PRETTY: json-c's pretty layout, else one line. */
static void begin(bool json, bool bytes, const char *schema, bool pretty)
{
	doc.json = json;
	doc.bytes = bytes;
	if (!json)
		return;
	jw_begin(stdout, pretty);
	jw_open(NULL, false);
	jw_scalar("schema", json_object_new_string(schema));
}

void out_doc_begin(bool json, bool bytes, const char *schema)
{
	begin(json, bytes, schema, true);
}

void out_doc_line(bool json, bool bytes, const char *schema)
{
	begin(json, bytes, schema, false);
}

int out_doc_end(void)
{
	while (doc.json && jw_open_now())
		jw_close();
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
		return v->kind == OUT_TEXT ? "" : "-";
	switch (v->kind) {
	case OUT_TEXT: return v->s;
	case OUT_SIZE: return out_size(buf, cap, v->u, bytes);
	case OUT_GROUPED: return out_count(buf, cap, v->u);
	case OUT_PCT: return out_pct(buf, cap, v->u, v->whole);
	case OUT_BOOL: return v->u ? "yes" : "no";
	case OUT_NS: return out_ns(buf, cap, (double)v->u);
	case OUT_NUM: snprintf(buf, cap, "%.*f", v->dec, v->d); return buf;
	case OUT_INT: snprintf(buf, cap, "%" PRId64, v->i); return buf;
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
	case OUT_NUM: jw_scalar(key, out_json_num(v->d, v->dec)); return;
	case OUT_INT: jw_scalar(key, json_object_new_int64(v->i)); return;
	case OUT_FOLIOS:
		jw_open(key, false);
		out_folio_counters(v->obj, folio_member, NULL);
		jw_close();
		return;
	default: jw_scalar(key, json_object_new_uint64(v->u)); return;
	}
}

void out_put(enum out_to to, const char *key, const char *fmt, struct out_val v)
{
	char buf[256];

	if (doc.json && to != OUT_FP) {
		jw_val(key, &v);
	} else if (!doc.json && to != OUT_JSON && fmt) {
		const char *w = out_val_text(&v, doc.bytes, buf, sizeof(buf));
		char *e = out_esc_dup(w, strlen(w), OUT_ESC_TEXT);
		printf(fmt, e ? e : "");
		free(e);
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
