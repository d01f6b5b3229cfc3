/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.h - the files that boot applies, as the persisting commands show
 * them in their JSON documents */
#ifndef THP_RENDER_PERSIST_H
#define THP_RENDER_PERSIST_H

#include <stdbool.h>

#include "../core/persist.h"

/* Members in JSON: the file SHOWN as it would be written (TEXT; NULL:
 * removed), as it is (CUR, NULL when absent), whether writing changes it,
 * and whether thp did not write it (THEIRS); nothing in text. */
void thp_boot_file_put(const char *shown, const char *text, const char *cur, bool theirs);

/* The N files F as they would be written ('--dry-run --json'): member KEY
 * of the JSON document, an array of thp_boot_file_put()'s objects; nothing
 * in text. */
void thp_boot_files_put(const char *key, const struct thp_boot_file *f, int n);

#endif
