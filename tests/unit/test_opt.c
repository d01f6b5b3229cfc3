/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of a command's option table (cmd/opt.h): the Options section of
 * --help and the options getopt reads are the one declaration (cmocka). */
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stdout_of.h"

#include "cmd/cmd.h"
#include "cmd/opt.h"

enum { O_LIMIT = 0x100, O_OLD, O_COLOR };

static const struct thp_opt opts[] = {
	THP_OPT('s', "sort", "COL", "sort by COL"),
	THP_OPT_LONG(O_LIMIT, "limit", "N", "show at most N rows\nof the table"),
	THP_OPT_LONG(O_OLD, "old-name", NULL, NULL),
	THP_OPT_LONG(O_COLOR, "color", "[=WHEN]", "colour"),
	THP_OPT_LONG('x', "a-long-option-name", "ARG", "its help"),
	THP_OPT_TEXT(14, "More options:"),
	THP_OPT_JSON("JSON"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp test",
	.width = 20,
	.opts = opts,
};

static void usage_of(void *arg)
{
	thp_opt_usage(arg);
}

/* The Options section: a letter or its room, the argument after a space (an
 * optional one after '='), the help from the column, a later line of it
 * indented to the column, a label too wide on a line of its own, a line of
 * text that sets a new column, and no line for an option without help. */
static void test_usage(void **state)
{
	(void)state;
	assert_string_equal(stdout_of(usage_of, (void *)&decl),
			    "Usage: thp test\n"
			    "\n"
			    "Options:\n"
			    "  -s, --sort COL    sort by COL\n"
			    "      --limit N     show at most N rows\n"
			    "                    of the table\n"
			    "      --color[=WHEN]\n"
			    "                    colour\n"
			    "      --a-long-option-name ARG\n"
			    "                    its help\n"
			    "More options:\n"
			    "  -J, --json  JSON\n"
			    "  -h, --help  show this help\n");
}

/* Parses ARGV (ARGC words) with DECL into CTX; the keys returned, as letters
 * or '#' for a key of its own, in a static buffer. */
static const char *keys_of(struct thp_ctx *ctx, int argc, char **argv)
{
	static char buf[32];
	size_t n = 0;
	int c;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1 && n < sizeof(buf) - 1)
		buf[n++] = c < 0 ? '!' : c < 0x100 ? (char)c : '#';
	buf[n] = '\0';
	return buf;
}

/* Every option of the table is read, those without help too, and a long
 * one by its prefix; --json is taken into the context and not returned. */
static void test_next(void **state)
{
	char *argv[] = { "test", "-s", "THP", "--limit=3", "--old-name", "-J", "--color", "--a-long", "1", NULL };
	struct thp_ctx ctx = { .json = false };

	(void)state;
	assert_string_equal(keys_of(&ctx, 9, argv), "s###x");
	assert_true(ctx.json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_next),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
