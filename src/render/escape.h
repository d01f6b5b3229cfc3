/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape.h - text from processes and recorded trees made safe to print: the one
 * escaper behind tables, headers, error messages, JSON strings and Prometheus labels */
#ifndef THP_ESCAPE_H
#define THP_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

enum out_esc {
	/* For a terminal, whatever its character set: every byte that is not
	 * printable ASCII becomes \xHH (a UTF-8 "é" shows as \xc3\xa9, as
	 * libsmartcols has always shown it without a locale). */
	OUT_ESC_TEXT,
	/* For a Prometheus label or HELP text: a control character (C0, DEL, C1)
	 * or a byte that is not part of valid UTF-8 becomes \xHH; other UTF-8 stays. */
	OUT_ESC_LABEL,
	/* For JSON: only a byte that is not part of valid UTF-8, and NUL, become
	 * \xHH (JSON escapes the other control characters itself). */
	OUT_ESC_UTF8,
};

/* Escapes the LEN bytes of S into DST for MODE. Every mode also writes a NUL
 * and a backslash that is followed by 'x' as \x00 and \x5c, so that every \xHH
 * of the output is an escape and the input can be recovered; the output is
 * valid UTF-8 (ASCII for OUT_ESC_TEXT).
 * DST gets at most CAP-1 bytes and a NUL (when CAP > 0), cut before the first
 * character or escape that does not fit. Returns the length of the whole
 * escaped text (as snprintf does): never less than LEN, and equal to LEN
 * exactly when the text needs no escape. DST may be NULL when CAP is 0. */
size_t out_escape(char *dst, size_t cap, const char *s, size_t len, enum out_esc mode);

/* S escaped for a terminal (OUT_ESC_TEXT) into BUF, cut to CAP; returns BUF. */
const char *out_esc(char *buf, size_t cap, const char *s);

/* S escaped for MODE in a malloc'd string (NULL when out of memory). */
char *out_esc_dup(const char *s, size_t len, enum out_esc mode);

/* Writes S escaped for a terminal to F, however long it is. */
void out_esc_put(FILE *f, const char *s);

#endif
