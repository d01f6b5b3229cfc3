/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the settings table: keys round-trip, the manual lists
 * exactly the keys 'thp set' takes, capture records every file it marks
 * (cmocka). */
#include <errno.h>
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/capture.h"
#include "core/keys.h"
#include "core/settings.h"

#define MANUAL "man/thp.1.scd"

/* Every key of the table parses back to its row, and its path back to its key. */
static void keys_round_trip(void **state)
{
	(void)state;

	for (int i = 0; i < thp_nsetting_descs; i++) {
		const struct thp_setting_desc *d = &thp_setting_descs[i];
		struct thp_key k = { d, d->place == THP_PLACE_SIZE ? 65536 : 0 }, back;
		char key[THP_KEY_MAX], path[256], again[THP_KEY_MAX];

		thp_key_format(&k, key, sizeof(key));
		thp_key_path(&k, path, sizeof(path));
		if (!(d->flags & THP_SET)) {
			assert_int_equal(thp_key_parse(key, &back), -ENOENT);
			assert_int_equal(thp_key_from_path(path, again, sizeof(again)), -ENOENT);
			continue;
		}
		assert_int_equal(thp_key_parse(key, &back), 0);
		assert_ptr_equal(back.d, d);
		assert_true(back.size == k.size);
		assert_int_equal(thp_key_from_path(path, again, sizeof(again)), 0);
		assert_string_equal(again, key);
		assert_non_null(d->meaning);
		assert_true(d->shows != THP_CHOICE || d->choices[0]);
		assert_true(d->shows == THP_CHOICE || d->lo <= d->hi);
	}
}

/* The '## thp set' section of the manual, malloc'd. */
static char *set_section(void)
{
	FILE *f = fopen(MANUAL, "r");
	char *buf = calloc(1, 1 << 20), *start, *end;
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	buf[n] = '\0';
	start = strstr(buf, "\n## thp set\n");
	assert_non_null(start);
	end = strstr(start + 1, "\n## ");
	assert_non_null(end);
	*end = '\0';
	memmove(buf, start, strlen(start) + 1);
	return buf;
}

/* The manual lists every key 'thp set' takes, each on a line of its own
 * ("*KEY* (SINCE)"), and no other. */
static void manual_lists_the_keys(void **state)
{
	char *sec = set_section(), line[256];
	int listed = 0, set = 0;
	(void)state;

	for (int i = 0; i < thp_nsetting_descs; i++) {
		const struct thp_setting_desc *d = &thp_setting_descs[i];
		char key[THP_KEY_MAX];

		if (!(d->flags & THP_SET))
			continue;
		set++;
		thp_setting_desc_key(d, key, sizeof(key));
		snprintf(line, sizeof(line), "\n*%s* (%s)\n", key, d->since);
		if (!strstr(sec, line))
			fail_msg("the manual's 'thp set' lacks the line '%s'", line + 1);
	}
	for (const char *p = sec; (p = strstr(p, "\n*")); p++) {
		const char *close = strchr(p + 2, '*');
		if (close && strncmp(close, "* (", 3) == 0 && !memchr(p + 2, ' ', (size_t)(close - p - 2)))
			listed++;
	}
	assert_int_equal(listed, set);
	free(sec);
}

/* Every file the table marks for capture is below a path 'thp capture' records. */
static void capture_records_the_table(void **state)
{
	(void)state;

	for (int i = 0; i < thp_nsetting_descs; i++) {
		const struct thp_setting_desc *d = &thp_setting_descs[i];
		char dir[256], path[320];
		bool found = false;

		if (!(d->flags & THP_CAPTURE))
			continue;
		thp_place_dir(d->place, 65536, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/%s", dir, d->file);
		for (int j = 0; thp_capture_host_paths[j] && !found; j++) {
			size_t n = strlen(thp_capture_host_paths[j]);
			found = fnmatch(thp_capture_host_paths[j], path, FNM_PATHNAME | FNM_LEADING_DIR) == 0 ||
				(strncmp(path, thp_capture_host_paths[j], n) == 0 && (!path[n] || path[n] == '/'));
		}
		if (!found)
			fail_msg("capture records no path above %s/%s", dir, d->file);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keys_round_trip),
		cmocka_unit_test(manual_lists_the_keys),
		cmocka_unit_test(capture_records_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
