/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.c - the writable THP settings: names, sysfs paths, write order */
#include "keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

/* Every writable file outside the per-size directories, in write order. */
static const struct {
	const char *file;
	enum thp_key_group group;
	enum thp_key_type type;
} files[] = {
	{ "enabled", THP_KEY_TOP, THP_VAL_CHOICE },
	{ "defrag", THP_KEY_TOP, THP_VAL_CHOICE },
	{ "shmem_enabled", THP_KEY_TOP, THP_VAL_CHOICE },
	{ "use_zero_page", THP_KEY_TOP, THP_VAL_BOOL },
	{ "shrink_underused", THP_KEY_TOP, THP_VAL_BOOL },
	{ "defrag", THP_KEY_KHUGEPAGED, THP_VAL_BOOL },
	{ "pages_to_scan", THP_KEY_KHUGEPAGED, THP_VAL_POSITIVE },
	{ "scan_sleep_millisecs", THP_KEY_KHUGEPAGED, THP_VAL_UINT },
	{ "alloc_sleep_millisecs", THP_KEY_KHUGEPAGED, THP_VAL_UINT },
	{ "max_ptes_none", THP_KEY_KHUGEPAGED, THP_VAL_PTES },
	{ "max_ptes_swap", THP_KEY_KHUGEPAGED, THP_VAL_PTES },
	{ "max_ptes_shared", THP_KEY_KHUGEPAGED, THP_VAL_PTES },
	{ "enabled", THP_KEY_SIZE, THP_VAL_CHOICE },
	{ "shmem_enabled", THP_KEY_SIZE, THP_VAL_CHOICE },
};

#define NFILES (int)(sizeof(files) / sizeof(files[0]))

static int find_file(enum thp_key_group g, const char *name, size_t len)
{
	for (int i = 0; i < NFILES; i++)
		if (files[i].group == g && strlen(files[i].file) == len &&
		    strncmp(files[i].file, name, len) == 0)
			return i;
	return -1;
}

int thp_size_parse(const char *s, size_t len, uint64_t *bytes)
{
	char buf[32];

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (thp_parse_size(buf, bytes) != 0 || *bytes == 0)
		return -EINVAL;
	return 0;
}

const char *thp_size_name(uint64_t bytes, char *buf, size_t cap)
{
	if (bytes % (1ull << 30) == 0)
		snprintf(buf, cap, "%lluG", (unsigned long long)(bytes >> 30));
	else if (bytes % (1ull << 20) == 0)
		snprintf(buf, cap, "%lluM", (unsigned long long)(bytes >> 20));
	else
		snprintf(buf, cap, "%lluK", (unsigned long long)(bytes >> 10));
	return buf;
}

int thp_key_parse(const char *key, struct thp_key *k)
{
	const char *dot;
	int i;

	memset(k, 0, sizeof(*k));
	if (strncmp(key, "khugepaged.", 11) == 0) {
		k->group = THP_KEY_KHUGEPAGED;
		i = find_file(k->group, key + 11, strlen(key + 11));
	} else if (strncmp(key, "hugepages.", 10) == 0) {
		key += 10;
		dot = strchr(key, '.');
		if (!dot)
			return -ENOENT;
		k->group = THP_KEY_SIZE;
		if (!(dot - key == 3 && strncasecmp(key, "all", 3) == 0) &&
		    thp_size_parse(key, (size_t)(dot - key), &k->size))
			return -EINVAL;
		i = find_file(k->group, dot + 1, strlen(dot + 1));
	} else {
		k->group = THP_KEY_TOP;
		i = find_file(k->group, key, strlen(key));
	}
	if (i < 0)
		return -ENOENT;
	k->file = files[i].file;
	k->type = files[i].type;
	k->rank = i;
	return 0;
}

void thp_key_path(const struct thp_key *k, char *buf, size_t cap)
{
	switch (k->group) {
	case THP_KEY_TOP:
		snprintf(buf, cap, THP_SYSFS_DIR "/%s", k->file);
		break;
	case THP_KEY_KHUGEPAGED:
		snprintf(buf, cap, THP_SYSFS_DIR "/khugepaged/%s", k->file);
		break;
	case THP_KEY_SIZE:
		snprintf(buf, cap, THP_SYSFS_DIR "/hugepages-%llukB/%s",
			 (unsigned long long)(k->size >> 10), k->file);
		break;
	}
}

void thp_key_format(const struct thp_key *k, char *buf, size_t cap)
{
	char sz[24];

	switch (k->group) {
	case THP_KEY_TOP:
		snprintf(buf, cap, "%s", k->file);
		break;
	case THP_KEY_KHUGEPAGED:
		snprintf(buf, cap, "khugepaged.%s", k->file);
		break;
	case THP_KEY_SIZE:
		snprintf(buf, cap, "hugepages.%s.%s",
			 k->size ? thp_size_name(k->size, sz, sizeof(sz)) : "all", k->file);
		break;
	}
}

int thp_key_from_path(const char *path, char *key, size_t cap)
{
	size_t dl = strlen(THP_SYSFS_DIR);
	const char *rest, *slash;
	struct thp_key k = { 0 };
	int i;

	while (*path == '/')
		path++;
	if (strncmp(path, THP_SYSFS_DIR, dl) != 0 || path[dl] != '/')
		return -ENOENT;
	rest = path + dl + 1;
	slash = strchr(rest, '/');
	if (!slash) {
		k.group = THP_KEY_TOP;
		i = find_file(k.group, rest, strlen(rest));
	} else if (strncmp(rest, "khugepaged/", 11) == 0) {
		k.group = THP_KEY_KHUGEPAGED;
		i = find_file(k.group, rest + 11, strlen(rest + 11));
	} else {
		uint64_t kb = 0;
		char dir[64];

		if ((size_t)(slash - rest) >= sizeof(dir))
			return -ENOENT;
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rest), rest);
		kb = thp_parse_size_dir(dir);
		if (!kb || strchr(slash + 1, '/'))
			return -ENOENT;
		k.group = THP_KEY_SIZE;
		k.size = kb << 10;
		i = find_file(k.group, slash + 1, strlen(slash + 1));
	}
	if (i < 0)
		return -ENOENT;
	k.file = files[i].file;
	thp_key_format(&k, key, cap);
	return 0;
}

int thp_kv_set(struct thp_kvlist *l, const char *key, const char *value, int line)
{
	struct thp_kv *e = (struct thp_kv *)thp_kv_get(l, key);

	if (strlen(key) >= THP_KEY_MAX || strlen(value) >= THP_VALUE_MAX)
		return -E2BIG;
	if (!e) {
		if (l->n >= THP_KV_MAX)
			return -E2BIG;
		e = &l->v[l->n++];
		snprintf(e->key, sizeof(e->key), "%s", key);
	}
	snprintf(e->value, sizeof(e->value), "%s", value);
	e->line = line;
	return 0;
}

const struct thp_kv *thp_kv_get(const struct thp_kvlist *l, const char *key)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i].key, key) == 0)
			return &l->v[i];
	return NULL;
}

static int cmp_kv(const void *a, const void *b)
{
	const struct thp_kv *x = a, *y = b;
	struct thp_key kx, ky;
	int ex = thp_key_parse(x->key, &kx), ey = thp_key_parse(y->key, &ky);

	if (ex || ey)
		return ex != ey ? (ex ? 1 : -1) : strcmp(x->key, y->key);
	if (kx.group != ky.group)
		return (int)kx.group - (int)ky.group;
	if (kx.size != ky.size)
		return kx.size < ky.size ? -1 : 1;
	return kx.rank - ky.rank;
}

void thp_kv_sort(struct thp_kvlist *l)
{
	qsort(l->v, (size_t)l->n, sizeof(l->v[0]), cmp_kv);
}
