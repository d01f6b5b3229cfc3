/* SPDX-License-Identifier: GPL-2.0-or-later */
/* put.h - the unit tests' writer of files below a test directory */
#ifndef THP_TEST_PUT_H
#define THP_TEST_PUT_H

#include <stdio.h>

/* Writes TEXT to DIR/REL (the caller's cmocka test fails when it cannot). */
static inline void put_file(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

#endif
