/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.h - keys of the settings that thp writes ("enabled", "khugepaged.defrag",
 * "hugepages.64K.enabled"), their paths, and lists of KEY=VALUE pairs */
#ifndef THP_KEYS_H
#define THP_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "settings.h"

#define THP_KEY_MAX 48
#define THP_VALUE_MAX 24
#define THP_KV_MAX 96

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

/* A key taken apart. */
struct thp_key {
	const struct thp_setting_desc *d;
	uint64_t size; /* per-size page size in bytes; 0 for "all" */
};

/* Parses KEY into K. Returns 0, or -ENOENT when it names no setting that
 * 'thp set' writes (read-only files and unknown names included), -EINVAL
 * for a bad size. */
int thp_key_parse(const char *key, struct thp_key *k);

/* Formats the path of a parsed key (size must not be 0) relative to the root,
 * e.g. "sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled". */
void thp_key_path(const struct thp_key *k, char *buf, size_t cap);

/* Formats the canonical key of K ("hugepages.2M.enabled"). */
void thp_key_format(const struct thp_key *k, char *buf, size_t cap);

/* Maps an absolute or root-relative path to the key of a setting 'thp set'
 * writes. Returns 0 or -ENOENT. */
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

/* Sorts L into write order: by place, per-size by size, then as the table
 * lists them; keys of no setting last. */
void thp_kv_sort(struct thp_kvlist *l);

#endif
