/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.c - keys of the settings thp writes: names, paths, write order */
#include "keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

/* The setting 'thp set' writes that is file [NAME, NAME+LEN) at place P, or NULL. */
static const struct thp_setting_desc *writable(enum thp_place p, const char *name, size_t len)
{
	const struct thp_setting_desc *d = thp_setting_desc_find(p, name, len);
	return d && (d->flags & THP_SET) ? d : NULL;
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
	memset(k, 0, sizeof(*k));
	for (int p = THP_PLACE_COUNT - 1; p >= 0; p--) {
		const char *prefix = thp_place_prefix((enum thp_place)p), *rest = key + strlen(prefix);
		const char *dot;

		if (strncmp(key, prefix, strlen(prefix)) != 0)
			continue;
		if (p == THP_PLACE_SIZE) {
			dot = strchr(rest, '.');
			if (!dot)
				return -ENOENT;
			if (!(dot - rest == 3 && strncasecmp(rest, "all", 3) == 0) &&
			    thp_size_parse(rest, (size_t)(dot - rest), &k->size))
				return -EINVAL;
			rest = dot + 1;
		}
		k->d = writable((enum thp_place)p, rest, strlen(rest));
		return k->d ? 0 : -ENOENT;
	}
	return -ENOENT;
}

void thp_key_path(const struct thp_key *k, char *buf, size_t cap)
{
	char dir[128];

	thp_place_dir(k->d->place, k->size, dir, sizeof(dir));
	snprintf(buf, cap, "%s/%s", dir, k->d->file);
}

void thp_key_format(const struct thp_key *k, char *buf, size_t cap)
{
	char sz[24] = "all";

	if (k->d->place != THP_PLACE_SIZE)
		snprintf(buf, cap, "%s%s", thp_place_prefix(k->d->place), k->d->file);
	else
		snprintf(buf, cap, "%s%s.%s", thp_place_prefix(k->d->place),
			 k->size ? thp_size_name(k->size, sz, sizeof(sz)) : sz, k->d->file);
}

/* The per-size page size of the directory in [DIR, DIR+LEN) (hugepages-64kB), or 0. */
static uint64_t size_of_dir(const char *dir, size_t len)
{
	char name[64];

	if (len >= sizeof(name))
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)len, dir);
	return thp_parse_size_dir(name) << 10;
}

int thp_key_from_path(const char *path, char *key, size_t cap)
{
	const char *slash = strrchr(path, '/');
	struct thp_key k = { 0 };
	char dir[128];

	while (*path == '/')
		path++;
	if (!slash)
		return -ENOENT;
	for (int p = 0; p < THP_PLACE_COUNT && !k.d; p++) {
		size_t dl;

		if (p == THP_PLACE_SIZE) {
			const char *sd = slash - 1;
			while (sd > path && *sd != '/')
				sd--;
			k.size = size_of_dir(sd + 1, (size_t)(slash - sd - 1));
			if (!k.size)
				continue;
		}
		thp_place_dir((enum thp_place)p, k.size, dir, sizeof(dir));
		dl = strlen(dir);
		if (path + dl == slash && strncmp(path, dir, dl) == 0)
			k.d = writable((enum thp_place)p, slash + 1, strlen(slash + 1));
	}
	if (!k.d)
		return -ENOENT;
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
	if (kx.d->place != ky.d->place)
		return (int)kx.d->place - (int)ky.d->place;
	if (kx.size != ky.size)
		return kx.size < ky.size ? -1 : 1;
	return (int)(kx.d - ky.d);
}

void thp_kv_sort(struct thp_kvlist *l)
{
	qsort(l->v, (size_t)l->n, sizeof(l->v[0]), cmp_kv);
}
