/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stdout_of.h - what a function of the output layer prints, for unit tests */
#ifndef THP_TEST_STDOUT_OF_H
#define THP_TEST_STDOUT_OF_H

#include <stdio.h>
#include <unistd.h>

/* Runs FN(ARG) with standard output in a file (not a terminal) and returns
 * what it printed, in a static buffer. */
static inline char *stdout_of(void (*fn)(void *), void *arg)
{
	static char buf[4096];
	FILE *f = tmpfile();
	int saved = dup(STDOUT_FILENO);
	size_t n;

	assert_non_null(f);
	fflush(stdout);
	dup2(fileno(f), STDOUT_FILENO);
	fn(arg);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

#endif
