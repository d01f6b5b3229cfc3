/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the output layer's one path: a document and a table of
 * column descriptors printed as text, -P pairs and JSON from the same calls
 * (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/render.h"
#include "stdout_of.h"

struct rec {
	const char *name;
	uint64_t size;
	bool has_pct;
};

static void get(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct rec *r = row;

	(void)ctx;
	switch (c->arg) {
	case 0: v->s = r->name; break;
	case 1: v->u = r->size; break;
	default: out_val_set(v, ov_pct(r->size / 2, r->has_pct ? r->size : 0)); break;
	}
}

static const struct out_col cols[] = {
	{ "NAME", OUT_TEXT, 0, "", get, 0 },
	{ "SIZE", OUT_SIZE, 0, "", get, 1 },
	{ "HALF%", OUT_PCT, 0, "", get, 2 },
};
static const struct rec recs[] = { { "a b", 2097152, true }, { "c\"d", 4096, false } };

static void print_table(void *arg)
{
	const struct out_fmt *f = arg;
	const int sel[] = { 0, 1, 2 };

	out_doc_begin(f->json, f->bytes, "thp-test/1");
	out_put(OUT_ANY, "count", "count %s\n", ov_count(2));
	struct out_table *t = out_table_open("rows", cols, sel, 3, f, NULL);
	for (size_t i = 0; i < 2; i++)
		out_table_add(t, &recs[i]);
	out_table_close(t, 0);
	out_put(OUT_JSON, "only_json", "never shown\n", ov_bool(true));
	out_put(OUT_FP, "never_json", "text only %s\n", ov_str("x"));
	out_doc_end();
}

/* One descriptor: text, pairs and JSON name the same values. */
static void table_text_pairs_json(void **state)
{
	struct out_fmt text = { 0 }, pairs = { .pairs = true, .bytes = true }, json = { .json = true };

	(void)state;
	assert_string_equal(stdout_of(print_table, &text), "count 2\n"
							   "NAME   SIZE  HALF%\n"
							   "a b   2 MiB  50.0%\n"
							   "c\"d   4 KiB      -\n"
							   "text only x\n");
	assert_string_equal(stdout_of(print_table, &pairs),
			    "count 2\n"
			    "NAME=\"a b\" SIZE=\"2097152\" HALF%=\"50.0%\"\n"
			    "NAME=\"c\\x22d\" SIZE=\"4096\" HALF%=\"-\"\n"
			    "text only x\n");
	assert_string_equal(stdout_of(print_table, &json), "{\n"
							   "  \"schema\": \"thp-test/1\",\n"
							   "  \"count\": 2,\n"
							   "  \"rows\": [\n"
							   "    {\n"
							   "      \"name\": \"a b\",\n"
							   "      \"size\": 2097152,\n"
							   "      \"half%\": 50.0\n"
							   "    },\n"
							   "    {\n"
							   "      \"name\": \"c\\\"d\",\n"
							   "      \"size\": 4096,\n"
							   "      \"half%\": null\n"
							   "    }\n"
							   "  ],\n"
							   "  \"only_json\": true\n"
							   "}\n");
}

static void print_bare(void *arg)
{
	const struct out_fmt f = { .bare = !arg, .noheadings = arg != NULL };
	const int sel[] = { 2, 0 };
	struct out_table *t = out_table_open(NULL, cols, sel, 2, &f, NULL);

	out_doc_begin(false, false, "thp-test/1");
	out_table_add(t, &recs[1]);
	out_table_close(t, 2);
	out_doc_end();
}

/* A bare table has no header, and its columns are as wide as their cells;
 * so has one of -n (no padding to the width of "HALF%" over "-"). */
static void bare(void **state)
{
	(void)state;
	assert_string_equal(stdout_of(print_bare, NULL), "  -  c\"d\n");
	assert_string_equal(stdout_of(print_bare, "n"), "  -  c\"d\n");
}

static void nested(void *arg)
{
	(void)arg;
	out_doc_begin(true, false, "thp-test/1");
	out_obj("empty");
	out_end();
	out_arr("list");
	out_put(OUT_ANY, NULL, NULL, ov_int(-1));
	out_put(OUT_ANY, NULL, NULL, ov_str(NULL));
	out_end();
	out_put(OUT_ANY, "bad\xff", NULL, ov_str("x\xffy"));
	out_doc_end();
}

/* The writer's layout is json-c's pretty one; strings and keys stay UTF-8. */
static void json_layout(void **state)
{
	(void)state;
	assert_string_equal(stdout_of(nested, NULL), "{\n"
						     "  \"schema\": \"thp-test/1\",\n"
						     "  \"empty\": {\n"
						     "  },\n"
						     "  \"list\": [\n"
						     "    -1,\n"
						     "    null\n"
						     "  ],\n"
						     "  \"bad\\\\xff\": \"x\\\\xffy\"\n"
						     "}\n");
}

static void in_memory(void *arg)
{
	char *text;

	(void)arg;
	assert_int_equal(out_doc_mem("thp-test/1"), 0);
	out_text("not in JSON\n");
	out_arr("list");
	out_put(OUT_ANY, NULL, "never shown", ov_count(7));
	text = out_doc_mem_end();
	assert_non_null(text);
	assert_string_equal(text, "{\"schema\":\"thp-test/1\",\"list\":[7]}\n");
	free(text);
	out_put(OUT_ANY, "after", "text again %s\n", ov_count(1));
}

/* A document in memory is one compact line, and printing goes on as text. */
static void memory(void **state)
{
	(void)state;
	assert_string_equal(stdout_of(in_memory, NULL), "text again 1\n");
}

static void words_doc(void *arg)
{
	const bool *json = arg;

	out_doc_begin(*json, false, "thp-test/1");
	out_wrapped(OUT_ANY, "policy", "THP:", ov_str("one two three four"), 12);
	out_wrapped(OUT_FP, NULL, "Pending:", ov_str("only in text"), 80);
	out_put(OUT_ANY, "choices", "%s\n", ov_wordlist("always  madvise never"));
	out_obj("counts");
	out_kv_open(2, false);
	out_kv_right();
	out_kv(OUT_ANY, "a", "a", NULL, ov_grouped(5));
	out_kv(OUT_ANY, "bb", "bb", NULL, ov_grouped(2631));
	out_kv_close();
	out_end();
	out_doc_end();
}

/* Words, wrapped lines and right-aligned values from the same calls. */
static void words_wrapped_kv(void **state)
{
	bool text = false, json = true;

	(void)state;
	assert_string_equal(stdout_of(words_doc, &text), "THP: one two\n"
							 "     three\n"
							 "     four\n"
							 "Pending: only in text\n"
							 "always  madvise never\n"
							 "  a       5\n"
							 "  bb  2,631\n");
	assert_string_equal(stdout_of(words_doc, &json), "{\n"
							 "  \"schema\": \"thp-test/1\",\n"
							 "  \"policy\": \"one two three four\",\n"
							 "  \"choices\": [\n"
							 "    \"always\",\n"
							 "    \"madvise\",\n"
							 "    \"never\"\n"
							 "  ],\n"
							 "  \"counts\": {\n"
							 "    \"a\": 5,\n"
							 "    \"bb\": 2631\n"
							 "  }\n"
							 "}\n");
}

static void values(void **state)
{
	char b[64];
	struct out_val v = ov_size(3 << 20);
	const struct out_col c = { "THP_STATE", OUT_TEXT, 0, "", NULL, 0 };

	(void)state;
	assert_string_equal(out_val_text(&v, false, b, sizeof(b)), "3 MiB");
	assert_string_equal(out_val_text(&v, true, b, sizeof(b)), "3145728");
	v = ov_if(false, ov_size(1));
	assert_string_equal(out_val_text(&v, false, b, sizeof(b)), "-");
	v = ov_str(NULL);
	assert_string_equal(out_val_text(&v, false, b, sizeof(b)), "");
	v = ov_grouped(2631);
	assert_string_equal(out_val_text(&v, false, b, sizeof(b)), "2,631");
	v = ov_num(2.5, 2);
	assert_string_equal(out_val_text(&v, false, b, sizeof(b)), "2.50");
	assert_string_equal(out_col_key(&c, b, sizeof(b)), "thp_state");
}

/* Figures of several runs: an object in JSON, whole numbers with WHOLE, the
 * median in text. */
static void stats(void **state)
{
	const double runs[] = { 2, 1.4 };
	const struct out_stats st = { 1.4, 1.7, 2, runs, 2, true }, frac = { 1.5, 2, 2.5, NULL, 0, false };
	struct out_val v = ov_stats(&frac);
	char b[64], *text;

	(void)state;
	assert_string_equal(out_val_text(&v, false, b, sizeof(b)), "2");
	assert_int_equal(out_doc_mem("thp-test/1"), 0);
	out_put(OUT_ANY, "whole", NULL, ov_stats(&st));
	out_put(OUT_ANY, "frac", NULL, v);
	text = out_doc_mem_end();
	assert_non_null(text);
	assert_string_equal(text, "{\"schema\":\"thp-test/1\",\"whole\":{\"min\":1,\"median\":2,\"max\":2,\"runs\":[2,1]},"
				  "\"frac\":{\"min\":1.5,\"median\":2.0,\"max\":2.5}}\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(table_text_pairs_json), cmocka_unit_test(json_layout),
					    cmocka_unit_test(memory),
					    cmocka_unit_test(bare),
					    cmocka_unit_test(values), cmocka_unit_test(stats),
					    cmocka_unit_test(words_wrapped_kv) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
