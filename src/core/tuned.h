/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tuned.h - what tuned's active profile writes when tuned starts at boot:
 * the THP settings, vm.* sysctls and static huge page pools of its vm,
 * sysctl and sysfs sections, through the profiles it includes */
#ifndef THP_TUNED_H
#define THP_TUNED_H

#include <stdbool.h>

#include "keys.h"
#include "root.h"

#define THP_TUNED_FILES_MAX 16  /* profile files read, includes and all */
#define THP_TUNED_DEPTH_MAX 8   /* includes nested in includes */
#define THP_TUNED_LINE_MAX 4096 /* a longer line of a profile is left out */

#define THP_TUNED_DIRS_MAX 8   /* directories of profile_dirs read */
#define THP_TUNED_DIR_MAX 128   /* a longer one is left out */

/* The directories tuned looks profiles up in. */
struct thp_tuned_dirs {
	int n;
	char d[THP_TUNED_DIRS_MAX][THP_TUNED_DIR_MAX]; /* below the root, the first winning: "etc/tuned/profiles" */
	bool configured; /* from profile_dirs of /etc/tuned/tuned-main.conf; else tuned's default */
	bool cut;        /* profile_dirs names more, or longer, than thp reads */
};

/* One setting the profiles write. */
struct thp_tuned_value {
	char key[THP_KEY_MAX];
	char value[THP_VALUE_MAX]; /* "" when unknown */
	const char *unknown;       /* why the value cannot be known here ("uses a variable"); NULL: known */
	char option[160];          /* as the profile writes it: "[vm] transparent_hugepages" */
	bool sysctl;               /* of a sysctl section (tuned applies sysctl.d files again after them) */
	int file, line;            /* index into files[], line there */
};

/* The profiles tuned applies, merged as tuned merges them: an included
 * profile before the one that includes it, the active profiles in the
 * order named, a later value of the same section overriding an earlier one. */
struct thp_tuned {
	char profiles[256];  /* /etc/tuned/active_profile and post_loaded_profile ("": none) */
	bool reapply_sysctl; /* tuned-main.conf: sysctl.d files in /run and /etc applied after the profile */
	int nfiles;
	char files[THP_TUNED_FILES_MAX][160]; /* "/etc/tuned/NAME/tuned.conf", in the order applied */
	int n;
	struct thp_tuned_value v[THP_KV_MAX];
	char problem[320];   /* why tuned applies nothing (n is 0), or what was left out; "" when none */
};

/* Reads into D the directories tuned looks profiles up in below ROOT: those
 * of profile_dirs in /etc/tuned/tuned-main.conf (comma-separated, a later
 * one winning; paths normalized as tuned does, none above the root), else
 * /etc/tuned/profiles, /etc/tuned, /usr/lib/tuned/profiles and
 * /usr/lib/tuned (the layouts of tuned 2.24 and of earlier ones). */
void thp_tuned_dirs_read(const struct thp_root *root, struct thp_tuned_dirs *d);

/* Reads the active profiles below ROOT into T: /etc/tuned/active_profile
 * (names separated by blanks) and post_loaded_profile, each looked up in
 * the directories of thp_tuned_dirs_read(), a file already read skipped as
 * tuned skips it. A profile tuned cannot load (missing, included again,
 * malformed) leaves T with no value and the reason in T->problem, as does a
 * file that cannot be read here. Never fails. */
void thp_tuned_read(const struct thp_root *root, struct thp_tuned *t);

#endif
