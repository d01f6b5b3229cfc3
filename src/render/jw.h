/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jw.h - the JSON writer of the output layer (json.c): a document written as
 * it is made, member by member, in json-c's layout, so that memory does not
 * grow with its length. Used by doc.c and table.c only. */
#ifndef THP_JW_H
#define THP_JW_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "render.h"

/* Starts a document on F: pretty (json-c's PRETTY | SPACED layout) or one
 * compact line (PLAIN). */
void jw_begin(FILE *f, bool pretty);
/* Opens an object (ARRAY: an array) as member KEY of the open object, or as
 * the next element of the open array (KEY ignored), or as the document. */
void jw_open(const char *key, bool array);
/* Closes the innermost object or array; closing the document ends its line. */
void jw_close(void);
/* Writes scalar V (NULL: null) as member KEY or the next element; releases V. */
void jw_scalar(const char *key, struct json_object *v);
/* Writes value V as member KEY or the next element, typed by its kind. */
void jw_val(const char *key, const struct out_val *v);
/* Whether an object or array is open. */
bool jw_open_now(void);
/* Whether the innermost open container is an array. */
bool jw_in_array(void);

#endif
