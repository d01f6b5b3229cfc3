/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c - the one JSON emitter of thp (json-c) */
#include "escape.h"
#include "jw.h"
#include "render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True when S (LEN bytes) is valid UTF-8 without a backslash before 'x'. */
static bool utf8_clean(const char *s, size_t len)
{
	return out_escape(NULL, 0, s, len, OUT_ESC_UTF8) == len;
}

/* A copy of object O whose keys are escaped (OUT_ESC_UTF8), values shared. */
static struct json_object *escape_keys(struct json_object *o)
{
	struct json_object *n = json_object_new_object();

	json_object_object_foreach(o, k, v) {
		char *e = out_esc_dup(k, strlen(k), OUT_ESC_UTF8);
		if (!n || !e || json_object_object_add(n, e, json_object_get(v))) {
			free(e);
			json_object_put(n);
			return NULL;
		}
		free(e);
	}
	return n;
}

/* Makes every string and key below O valid UTF-8 (see OUT_ESC_UTF8), in place
 * where it can. Returns 0, or -1 when out of memory; sets *TO to O or to the
 * object that replaces it (O is then left to the caller to release). */
static int make_utf8(struct json_object *o, struct json_object **to)
{
	bool keys_clean = true;

	*to = o;
	switch (json_object_get_type(o)) {
	case json_type_string: {
		const char *s = json_object_get_string(o);
		size_t len = (size_t)json_object_get_string_len(o);
		if (utf8_clean(s, len))
			return 0;
		char *e = out_esc_dup(s, len, OUT_ESC_UTF8);
		int err = !e || json_object_set_string(o, e) == 0;
		free(e);
		return err ? -1 : 0;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			struct json_object *c = json_object_array_get_idx(o, i), *f;
			if (make_utf8(c, &f))
				return -1;
			if (f != c)
				json_object_array_put_idx(o, i, f);
		}
		return 0;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			struct json_object *f;
			if (make_utf8(v, &f))
				return -1;
			if (f != v)
				json_object_object_add(o, k, f); /* replaces V in place */
			keys_clean = keys_clean && utf8_clean(k, strlen(k));
		}
		if (!keys_clean)
			*to = escape_keys(o);
		return *to ? 0 : -1;
	}
	default:
		return 0;
	}
}

/* OBJ as text with FLAGS, every string valid UTF-8, malloc'd; releases OBJ.
 * NULL when out of memory. */
static char *text(struct json_object *obj, int flags)
{
	struct json_object *safe;
	int err = make_utf8(obj, &safe);
	char *s = NULL;

	if (safe != obj) {
		json_object_put(obj);
		obj = safe;
	}
	if (!err && obj) {
		const char *t = json_object_to_json_string_ext(obj, flags | JSON_C_TO_STRING_NOSLASHESCAPE);
		s = t ? strdup(t) : NULL;
	}
	json_object_put(obj);
	return s;
}

static int emit(struct json_object *obj, int flags)
{
	char *s = text(obj, flags);
	int rc = s && puts(s) >= 0 ? 0 : -1;

	if (s && rc)
		thp_stdout_failed(errno);
	free(s);
	return rc;
}

char *out_json_text(struct json_object *obj)
{
	return text(obj, JSON_C_TO_STRING_PLAIN);
}

int out_json_print(struct json_object *obj)
{
	return emit(obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
}

int out_json_line(struct json_object *obj)
{
	return emit(obj, JSON_C_TO_STRING_PLAIN);
}

struct json_object *out_json_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

struct json_object *out_json_num(double v, int decimals)
{
	char buf[64];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%.*f", decimals, v);

	/* "12.500" -> "12.5", "3.000" -> "3.0": short, and still a JSON number */
	while (n > 1 && strchr(buf, '.') && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return json_object_new_double_s(v, buf);
}

void out_json_rollup(struct json_object *obj, const struct thp_rollup *r)
{
	json_object_object_add(obj, "rss", out_json_u64(r->rss));
	json_object_object_add(obj, "anon", out_json_u64(r->anon));
	json_object_object_add(obj, "anon_huge", out_json_u64(r->anon_huge));
	json_object_object_add(obj, "shmem_pmd", out_json_u64(r->shmem_pmd));
	json_object_object_add(obj, "file_pmd", out_json_u64(r->file_pmd));
	json_object_object_add(obj, "hugetlb", out_json_u64(r->private_hugetlb + r->shared_hugetlb));
}

/* ---- the writer of documents made as they are printed (jw.h) ---- */

#define JW_DEPTH 32

static struct {
	FILE *f;
	bool pretty;
	int depth;          /* containers open */
	bool array[JW_DEPTH];
	unsigned n[JW_DEPTH]; /* members or elements written in each */
} jw;

void jw_begin(FILE *f, bool pretty)
{
	jw.f = f;
	jw.pretty = pretty;
	jw.depth = 0;
}

bool jw_open_now(void)
{
	return jw.depth > 0;
}

bool jw_in_array(void)
{
	return jw.depth > 0 && jw.array[jw.depth - 1];
}

/* Writes S (a JSON text) to the document. */
static void jw_put(const char *s)
{
	if (fputs(s, jw.f) < 0 && jw.f == stdout)
		thp_stdout_failed(errno);
}

/* Writes the separator, the indent and, in an object, "KEY": before the
 * next member or element. */
static void jw_member(const char *key)
{
	if (!jw.depth)
		return;
	if (jw.n[jw.depth - 1]++)
		jw_put(",");
	if (jw.pretty)
		fprintf(jw.f, "\n%*s", 2 * jw.depth, "");
	if (jw.array[jw.depth - 1])
		return;
	char *s = text(json_object_new_string(key ? key : ""), JSON_C_TO_STRING_PLAIN);
	jw_put(s ? s : "\"\"");
	jw_put(jw.pretty ? ": " : ":");
	free(s);
}

void jw_open(const char *key, bool array)
{
	jw_member(key);
	jw_put(array ? "[" : "{");
	if (jw.depth < JW_DEPTH) {
		jw.array[jw.depth] = array;
		jw.n[jw.depth] = 0;
	}
	jw.depth++;
}

void jw_close(void)
{
	bool array;

	if (!jw.depth)
		return;
	array = jw.depth <= JW_DEPTH && jw.array[jw.depth - 1];
	jw.depth--;
	if (jw.pretty)
		fprintf(jw.f, "\n%*s", 2 * jw.depth, "");
	jw_put(array ? "]" : "}");
	if (!jw.depth)
		jw_put("\n");
}

void jw_scalar(const char *key, struct json_object *v)
{
	char *s = v ? text(v, JSON_C_TO_STRING_PLAIN) : NULL;

	jw_member(key);
	jw_put(s ? s : "null");
	free(s);
}
