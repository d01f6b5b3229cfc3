/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the escaper (text, JSON strings) and of the JSON emitter's UTF-8 pass (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stdout_of.h"

#include "render/render.h"

/* S (LEN bytes) escaped for MODE, in a static buffer. */
static const char *esc(const char *s, size_t len, enum out_esc mode)
{
	static char buf[256];
	size_t n = out_escape(buf, sizeof(buf), s, len, mode);

	assert_true(n < sizeof(buf));
	assert_int_equal(n, strlen(buf));
	return buf;
}

#define TEXT(s) esc(s, sizeof(s) - 1, OUT_ESC_TEXT)
#define LABEL(s) esc(s, sizeof(s) - 1, OUT_ESC_LABEL)
#define UTF8(s) esc(s, sizeof(s) - 1, OUT_ESC_UTF8)

static void plain(void **state)
{
	(void)state;
	assert_string_equal(TEXT("bash -c 'sleep 1'"), "bash -c 'sleep 1'");
	/* a terminal gets ASCII; a label and JSON keep UTF-8 */
	assert_string_equal(TEXT("caf\xc3\xa9 \xe2\x82\xac"), "caf\\xc3\\xa9 \\xe2\\x82\\xac");
	assert_string_equal(LABEL("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	assert_string_equal(UTF8("caf\xc3\xa9 \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xf0\x9f\x98\x80");
	assert_string_equal(TEXT("C:\\dir\\new"), "C:\\dir\\new");
	assert_string_equal(TEXT("end\\"), "end\\");
	assert_int_equal(out_escape(NULL, 0, "abc", 3, OUT_ESC_TEXT), 3);
}

static void controls(void **state)
{
	(void)state;
	assert_string_equal(TEXT("a\nb\tc\rd"), "a\\x0ab\\x09c\\x0dd");
	assert_string_equal(TEXT("\x1b[31mred"), "\\x1b[31mred");
	assert_string_equal(TEXT("del\x7f"), "del\\x7f");
	assert_string_equal(TEXT("csi\xc2\x9b" "2J"), "csi\\xc2\\x9b2J");
	assert_string_equal(LABEL("a\nb\x1b[0m\x7f"), "a\\x0ab\\x1b[0m\\x7f");
	assert_string_equal(LABEL("csi\xc2\x9b" "2J"), "csi\\xc2\\x9b2J"); /* C1 control U+009B */
	assert_string_equal(LABEL("nbsp\xc2\xa0"), "nbsp\xc2\xa0");      /* U+00A0 is not one */
	assert_string_equal(esc("a\0b", 3, OUT_ESC_TEXT), "a\\x00b");
	/* JSON escapes control characters itself; NUL would end a C string */
	assert_string_equal(esc("a\0b", 3, OUT_ESC_UTF8), "a\\x00b");
	assert_string_equal(UTF8("a\nb\x1b[0m\xc2\x9b"), "a\nb\x1b[0m\xc2\x9b");
}

static void invalid(void **state)
{
	(void)state;
	assert_string_equal(TEXT("a\xff" "b"), "a\\xffb");
	assert_string_equal(UTF8("a\xff" "b"), "a\\xffb");
	assert_string_equal(UTF8("\xc0\xaf"), "\\xc0\\xaf");               /* overlong '/' */
	assert_string_equal(UTF8("\xed\xa0\x80"), "\\xed\\xa0\\x80");      /* surrogate */
	assert_string_equal(UTF8("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"); /* past U+10FFFF */
	assert_string_equal(UTF8("\xe2\x82"), "\\xe2\\x82");               /* cut short */
	assert_string_equal(UTF8("\xe2\x82(x"), "\\xe2\\x82(x");
	assert_string_equal(UTF8("\x80\xbf"), "\\x80\\xbf");               /* stray continuations */
}

static void backslash_x(void **state)
{
	(void)state;
	/* a backslash before 'x' is escaped, so a printed \xHH is always an escape */
	assert_string_equal(TEXT("\\xff"), "\\x5cxff");
	assert_string_equal(UTF8("a\\x"), "a\\x5cx");
	assert_string_equal(TEXT("\\\\x"), "\\\\x5cx");
	assert_string_equal(TEXT("\\X"), "\\X");
}

static void cut(void **state)
{
	char b[8];
	(void)state;
	/* cut before an escape or a character that does not fit, length as snprintf */
	assert_int_equal(out_escape(b, sizeof(b), "abcd\x1b", 5, OUT_ESC_TEXT), 8);
	assert_string_equal(b, "abcd");
	assert_int_equal(out_escape(b, 6, "ab\xe2\x82\xac", 5, OUT_ESC_LABEL), 5);
	assert_string_equal(b, "ab\xe2\x82\xac");
	assert_int_equal(out_escape(b, 5, "ab\xe2\x82\xac", 5, OUT_ESC_LABEL), 5);
	assert_string_equal(b, "ab");
	assert_int_equal(out_escape(b, sizeof(b), "ab\xe2\x82\xac", 5, OUT_ESC_TEXT), 14);
	assert_string_equal(b, "ab\\xe2");
	assert_int_equal(out_escape(b, 1, "a", 1, OUT_ESC_TEXT), 1);
	assert_string_equal(b, "");
	assert_string_equal(out_esc(b, sizeof(b), "\n\n"), "\\x0a");
}

static void dup_long(void **state)
{
	size_t n = 5000;
	char *s = malloc(n + 1), *e;
	(void)state;
	memset(s, '\x1b', n);
	s[n] = '\0';
	e = out_esc_dup(s, n, OUT_ESC_TEXT);
	assert_non_null(e);
	assert_int_equal(strlen(e), 4 * n);
	assert_memory_equal(e + 4 * (n - 1), "\\x1b", 4);
	free(e);
	free(s);
}

static void json_line(void *obj)
{
	assert_int_equal(out_json_line(obj), 0);
}

/* What out_json_line(OBJ) prints. */
static char *json_out(struct json_object *obj)
{
	return stdout_of(json_line, obj);
}

static void json_strings(void **state)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array(),
			   *inner = json_object_new_object();
	(void)state;
	json_object_object_add(o, "command", json_object_new_string("a\xff\n\x1b[31m"));
	json_object_object_add(o, "ok", json_object_new_string("caf\xc3\xa9"));
	json_object_array_add(a, json_object_new_string("\xc0\xaf"));
	json_object_array_add(a, NULL);
	json_object_array_add(a, json_object_new_int(7));
	json_object_object_add(o, "list", a);
	json_object_object_add(inner, "zone\xfe", json_object_new_int(1));
	json_object_object_add(inner, "b", json_object_new_string("\\x41"));
	json_object_object_add(o, "keys", inner);
	json_object_object_add(o, "none", NULL);
	assert_string_equal(json_out(o), "{\"command\":\"a\\\\xff\\n\\u001b[31m\",\"ok\":\"caf\xc3\xa9\","
					 "\"list\":[\"\\\\xc0\\\\xaf\",null,7],"
					 "\"keys\":{\"zone\\\\xfe\":1,\"b\":\"\\\\x5cx41\"},\"none\":null}\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain),	cmocka_unit_test(controls), cmocka_unit_test(invalid),
		cmocka_unit_test(backslash_x), cmocka_unit_test(cut),	    cmocka_unit_test(dup_long),
		cmocka_unit_test(json_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
