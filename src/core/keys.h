/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.h - names of the writable THP settings ("enabled", "khugepaged.defrag",
 * "hugepages.64K.enabled"), their sysfs paths, and lists of KEY=VALUE pairs */
#ifndef THP_KEYS_H
#define THP_KEYS_H

#include <stddef.h>
#include <stdint.h>

#define THP_KEY_MAX 48
#define THP_VALUE_MAX 24
#define THP_KV_MAX 96
#define THP_SYSFS_DIR "sys/kernel/mm/transparent_hugepage"

/* One setting and its value, with where it came from (0: no line). */
struct thp_kv {
	char key[THP_KEY_MAX];
	char value[THP_VALUE_MAX];
	int line;
};

/* An ordered list of settings; a key appears at most once. */
struct thp_kvlist {
	int n;
	struct thp_kv v[THP_KV_MAX];
};

/* Where a key is written, in order: top-level files, khugepaged, per-size. */
enum thp_key_group { THP_KEY_TOP, THP_KEY_KHUGEPAGED, THP_KEY_SIZE };

/* What values a setting's file accepts. */
enum thp_key_type {
	THP_VAL_CHOICE,   /* one of the words the file lists */
	THP_VAL_BOOL,     /* 0 or 1 */
	THP_VAL_UINT,     /* 0 to 2^32-1 */
	THP_VAL_POSITIVE, /* 1 to 2^32-1 */
	THP_VAL_PTES,     /* 0 to (PMD size / page size) - 1 */
};

/* A key taken apart. SIZE is the per-size page size in bytes, 0 for "all". */
struct thp_key {
	enum thp_key_group group;
	enum thp_key_type type;
	uint64_t size;
	const char *file; /* file name inside its directory */
	int rank;         /* position in write order within the group */
};

/* Parses KEY into K. Returns 0, or -ENOENT when it names no writable setting
 * (read-only counters and unknown names included), -EINVAL for a bad size. */
int thp_key_parse(const char *key, struct thp_key *k);

/* Formats the path of a parsed key (size must not be 0) relative to the root,
 * e.g. "sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled". */
void thp_key_path(const struct thp_key *k, char *buf, size_t cap);

/* Formats the canonical key of K ("hugepages.2M.enabled"). */
void thp_key_format(const struct thp_key *k, char *buf, size_t cap);

/* Maps an absolute or root-relative sysfs path to its key. Returns 0 or -ENOENT. */
int thp_key_from_path(const char *path, char *key, size_t cap);

/* Parses the page size [S, S+LEN) as thp_parse_size() does ("64K", "2M",
 * "2048kB"). Returns 0, or -EINVAL for anything else and for 0. */
int thp_size_parse(const char *s, size_t len, uint64_t *bytes);

/* Writes a size the way keys and thp_anon= spell it: "64K", "2M", "1G". */
const char *thp_size_name(uint64_t bytes, char *buf, size_t cap);

/* Sets KEY to VALUE in L (replacing an earlier value). Returns 0, -E2BIG when
 * the list is full or a string too long. */
int thp_kv_set(struct thp_kvlist *l, const char *key, const char *value, int line);

/* The entry of KEY in L, or NULL. */
const struct thp_kv *thp_kv_get(const struct thp_kvlist *l, const char *key);

/* Sorts L into write order (top-level, khugepaged, per-size by size). */
void thp_kv_sort(struct thp_kvlist *l);

#endif
