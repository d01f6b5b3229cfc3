/* SPDX-License-Identifier: GPL-2.0-or-later */
/* settings.h - the one table of THP settings: every file thp knows below the
 * THP sysfs directory and the compaction and watermark sysctls of
 * /proc/sys/vm, where it lives, what it holds and means, since which
 * kernel, and which commands carry it. Status rows, the checks of set,
 * persist and diff, help text, 'thp set --list-keys' (and so completion),
 * the manual's key list (checked by a test) and metrics derive from it. */
#ifndef THP_SETTINGS_H
#define THP_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define THP_SYSFS_DIR "sys/kernel/mm/transparent_hugepage"
#define THP_SYSCTL_DIR "proc/sys/vm"

/* Where a setting's file lives. Its key is the place's prefix and the file
 * name: "enabled", "khugepaged.defrag", "hugepages.64K.enabled". A place
 * may be any directory below the root (/sys or /proc/sys). */
enum thp_place {
	THP_PLACE_TOP,        /* THP_SYSFS_DIR/FILE */
	THP_PLACE_KHUGEPAGED, /* THP_SYSFS_DIR/khugepaged/FILE */
	THP_PLACE_SIZE,       /* THP_SYSFS_DIR/hugepages-<size>kB/FILE, one per page size */
	THP_PLACE_VM,         /* THP_SYSCTL_DIR/FILE: compaction and watermark sysctls */
	THP_PLACE_COUNT
};

/* What a command does with a setting. */
enum {
	THP_SET = 1 << 0,     /* 'thp set', 'restore', 'diff' and journals write or compare it */
	THP_PERSIST = 1 << 1, /* 'thp persist' writes it at boot (tmpfiles.d 'w' line, unit) */
	THP_CAPTURE = 1 << 2, /* 'thp capture' records it */
	THP_PTES = 1 << 3,    /* a count of PTEs: at most (PMD size / page size) - 1 */
	THP_NAMED = 1 << 4,   /* 'thp persist' writes it only when named (KEY=VALUE), as a
			       * sysctl.d line, never from the current value alone */
};

/* One setting. */
struct thp_setting_desc {
	enum thp_place place;
	enum thp_kind shows; /* THP_CHOICE, THP_INT, or THP_TEXT for either (old kernels) */
	const char *file;    /* name of its file in the place's directory */
	uint64_t lo, hi;     /* range of a number thp writes */
	const char *choices; /* the words of a choice, as documented ("" for numbers) */
	const char *boot;    /* the kernel command-line option that sets it, or NULL */
	const char *since;   /* first kernel that has it; NULL: this kernel's own */
	unsigned flags;
	const char *meaning;
};

extern const struct thp_setting_desc thp_setting_descs[];
extern const int thp_nsetting_descs;

/* Key prefix of place P ("khugepaged."; "hugepages." for the per-size ones,
 * followed by the size and a dot). */
const char *thp_place_prefix(enum thp_place p);

/* The directory of place P below the root, for per-size page size SIZE in
 * bytes (ignored elsewhere): "sys/kernel/mm/transparent_hugepage/hugepages-64kB". */
void thp_place_dir(enum thp_place p, uint64_t size, char *buf, size_t cap);

/* The setting of file NAME (LEN bytes) at place P, or NULL. */
const struct thp_setting_desc *thp_setting_desc_find(enum thp_place p, const char *name, size_t len);

/* The key of D in help text form: "khugepaged.defrag", "hugepages.SIZE.enabled". */
void thp_setting_desc_key(const struct thp_setting_desc *d, char *buf, size_t cap);

/* Applies what D says a file holds to S, which was read from it: a value of
 * another kind becomes THP_ERROR with -EINVAL. */
void thp_setting_expect(const struct thp_setting_desc *d, struct thp_setting *s);

/* One-line meaning of the top-level or khugepaged file NAME, or NULL. */
const char *thp_setting_meaning(const char *name, bool khugepaged);

#endif
