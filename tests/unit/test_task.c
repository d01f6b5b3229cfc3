/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the per-thread stat parser (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/task.h"

static void stat_ok(void **state)
{
	struct thp_task t;
	(void)state;
	assert_int_equal(thp_task_stat_parse("815 (java) D 1 812 812 0 -1 4194560\n", &t), 0);
	assert_int_equal(t.tid, 815);
	assert_int_equal(t.state, 'D');
	assert_string_equal(t.comm, "java");
	/* a command name with spaces and parentheses: the last ')' ends it */
	assert_int_equal(thp_task_stat_parse("77 (a) b (c)) R 1 2 3", &t), 0);
	assert_string_equal(t.comm, "a) b (c)");
	assert_int_equal(t.state, 'R');
	assert_int_equal(thp_task_stat_parse("9 () S 0", &t), 0);
	assert_string_equal(t.comm, "");
}

static void stat_bad(void **state)
{
	struct thp_task t;
	(void)state;
	assert_int_equal(thp_task_stat_parse("", &t), -EINVAL);
	assert_int_equal(thp_task_stat_parse("(java) D 1", &t), -EINVAL);
	assert_int_equal(thp_task_stat_parse("x (java) D 1", &t), -EINVAL);
	assert_int_equal(thp_task_stat_parse("0 (java) D 1", &t), -EINVAL);
	assert_int_equal(thp_task_stat_parse("12 (java", &t), -EINVAL);
	assert_int_equal(thp_task_stat_parse("12 (java)", &t), -EINVAL);
	assert_int_equal(thp_task_stat_parse("12 (java) DX", &t), -EINVAL);
	assert_int_equal(thp_task_stat_parse("12 java) D 1", &t), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(stat_ok), cmocka_unit_test(stat_bad) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
