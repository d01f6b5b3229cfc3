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

struct thp_boot_back;
struct thp_boot_run;

/* Says on stderr what became of the journal of a change of boot files that
 * did not finish (B, of thp_boot_files_recover). Returns the exit status: 0
 * when the change may go on, else 1. */
int thp_boot_back_report(const struct thp_boot_back *b);

/* Says on stderr what the change R of the boot files F (thp_boot_files_write)
 * could not do; nothing when every file changed. Returns the exit status: 0
 * when every file changed and no journal stays, else 1. */
int thp_boot_run_report(const struct thp_boot_file *f, const struct thp_boot_run *r);

/* 'persist --dry-run': the file F as it would be written; in JSON as
 * thp_boot_file_put() has it. Returns the exit status. */
int thp_persist_dry(bool json, const struct thp_boot_file *f);

struct thp_persist_run;

/* Reports the write R of the file F of 'thp persist' (of KIND, N settings;
 * UNIT: the unit, enabled) below ROOT: what was written and what applies it
 * at boot, or on stderr why nothing was changed, or what stays. Returns the
 * exit status. */
int thp_persist_report(bool json, const struct thp_root *root, enum thp_persist_kind kind,
		       const struct thp_boot_file *f, int n, bool unit, const struct thp_persist_run *r);

struct thp_drift;

/* 'persist --check': what is persisted (P), the N values of D that differ
 * from the running kernel, the units not enabled and what tuned writes again
 * at boot. Returns the exit status: 3 on drift or a second writer, else 0. */
int thp_persist_check_report(bool json, const struct thp_persisted *p, const struct thp_drift *d, int n);

/* 'persist --cmdline': the kernel command-line options OPTS ("" when none)
 * and the settings REST that have none. */
void thp_persist_cmdline_report(bool json, const char *opts, const struct thp_kvlist *rest);

#endif
