/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pools.c - keys of the static huge page pools kept at boot, and the pools
 * of the kernel command line */
#include "pools.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hugetlb.h"
#include "numa.h"
#include "parse.h"

#define DEFAULT_PATH THP_SYSCTL_DIR "/nr_hugepages"

enum thp_pool_boot thp_pool_boot(const struct thp_pool *p, uint64_t default_size)
{
	if (p->size >= THP_POOL_CMDLINE_SIZE)
		return THP_POOL_CMDLINE;
	return p->node < 0 && p->size == default_size ? THP_POOL_SYSCTL : THP_POOL_TMPFILES;
}

void thp_pool_key(uint64_t size, int node, char *buf, size_t cap)
{
	char sz[24], nd[24] = "";

	if (node >= 0)
		snprintf(nd, sizeof(nd), "node%d.", node);
	snprintf(buf, cap, THP_POOL_KEY_PREFIX "%s%s", nd, thp_size_name(size, sz, sizeof(sz)));
}

int thp_pool_key_parse(const char *key, uint64_t *size, int *node)
{
	const char *rest = key + strlen(THP_POOL_KEY_PREFIX), *dot;
	char name[24], canon[THP_KEY_MAX];

	*size = 0;
	*node = -1;
	if (strcmp(key, THP_POOL_DEFAULT_KEY) == 0)
		return 0;
	if (strncmp(key, THP_POOL_KEY_PREFIX, strlen(THP_POOL_KEY_PREFIX)) != 0)
		return -ENOENT;
	dot = strchr(rest, '.');
	if (dot && (size_t)(dot - rest) < sizeof(name)) {
		snprintf(name, sizeof(name), "%.*s", (int)(dot - rest), rest);
		*node = thp_numa_node_id(name);
		rest = dot + 1;
	}
	if ((dot && *node < 0) || thp_size_parse(rest, strlen(rest), size) != 0)
		return -ENOENT;
	thp_pool_key(*size, *node, canon, sizeof(canon));
	return strcmp(canon, key) == 0 ? 0 : -ENOENT;
}

bool thp_is_pool_key(const char *key)
{
	uint64_t size;
	int node;

	return thp_pool_key_parse(key, &size, &node) == 0;
}

/* Cuts the last component off PATH (in place) and returns it, or NULL. */
static const char *cut_last(char *path)
{
	char *slash = strrchr(path, '/');

	if (!slash)
		return NULL;
	*slash = '\0';
	return slash + 1;
}

int thp_pool_key_from_path(const char *path, char *key, size_t cap)
{
	char rel[256], probe[256];
	const char *file, *dir, *up;
	uint64_t kb;
	int node;

	path += strspn(path, "/");
	if (strcmp(path, DEFAULT_PATH) == 0) {
		snprintf(key, cap, "%s", THP_POOL_DEFAULT_KEY);
		return 0;
	}
	if (strlen(path) >= sizeof(rel))
		return -ENOENT;
	snprintf(rel, sizeof(rel), "%s", path);
	/* .../nodeN/hugepages/hugepages-2048kB/nr_hugepages, or .../mm/hugepages/... */
	file = cut_last(rel);
	dir = file ? cut_last(rel) : NULL;
	up = dir && cut_last(rel) ? strrchr(rel, '/') : NULL;
	if (!file || !dir || strcmp(file, "nr_hugepages") != 0 || !(kb = thp_parse_size_dir(dir)))
		return -ENOENT;
	node = up ? thp_numa_node_id(up + 1) : -1;
	/* exactly the path of that pool, nothing that merely looks like it */
	thp_hugetlb_path(probe, sizeof(probe), kb * 1024, node);
	if (strcmp(probe, path) != 0)
		return -ENOENT;
	thp_pool_key(kb * 1024, node, key, cap);
	return 0;
}

/* Sets the pool of SIZE on NODE (-1: the host) to the count [V, V+LEN). */
static void cmdline_pool(struct thp_pools_cmdline *c, uint64_t size, int node, const char *v, size_t len)
{
	char buf[THP_VALUE_MAX], key[THP_KEY_MAX];
	uint64_t pages;

	if (!len || len >= sizeof(buf))
		return;
	snprintf(buf, sizeof(buf), "%.*s", (int)len, v);
	if (thp_parse_u64(buf, &pages) != 0)
		return;
	if (size)
		thp_pool_key(size, node, key, sizeof(key));
	else if (node < 0)
		snprintf(key, sizeof(key), "%s", THP_POOL_DEFAULT_KEY);
	else
		return;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)pages);
	thp_kv_set(c->l, key, buf, 0);
}

/* hugepages=N, or per node "0:2,1:2" (Linux 5.16+), of the pool of SIZE. */
static void cmdline_pages(struct thp_pools_cmdline *c, uint64_t size, const char *val, size_t vlen)
{
	const char *end = val + vlen;

	if (!memchr(val, ':', vlen)) {
		cmdline_pool(c, size, -1, val, vlen);
		return;
	}
	for (const char *p = val; p < end;) {
		const char *comma = memchr(p, ',', (size_t)(end - p)), *stop = comma ? comma : end;
		const char *colon = memchr(p, ':', (size_t)(stop - p));
		char id[16];
		int node;

		if (colon && (size_t)(colon - p) < sizeof(id)) {
			snprintf(id, sizeof(id), "node%.*s", (int)(colon - p), p);
			if ((node = thp_numa_node_id(id)) >= 0)
				cmdline_pool(c, size, node, colon + 1, (size_t)(stop - colon - 1));
		}
		p = stop + 1;
	}
}

static bool is_param(const char *key, size_t klen, const char *name)
{
	return klen == strlen(name) && strncmp(key, name, klen) == 0;
}

void thp_pools_cmdline_param(struct thp_pools_cmdline *c, const char *key, size_t klen, const char *val,
			     size_t vlen)
{
	char buf[32];

	if (!val)
		return;
	if (is_param(key, klen, "hugepagesz")) {
		snprintf(buf, sizeof(buf), "%.*s", (int)(vlen < sizeof(buf) ? vlen : 0), val);
		if (thp_parse_size(buf, &c->size) != 0 || !c->size)
			c->size = UINT64_MAX;
	} else if (is_param(key, klen, "hugepages")) {
		c->found++;
		if (c->size != UINT64_MAX) /* the kernel ignores the count of a bad size */
			cmdline_pages(c, c->size ? c->size : c->default_size, val, vlen);
	}
}

static int cmdline_param(const char *key, size_t klen, const char *val, size_t vlen, void *ctx)
{
	thp_pools_cmdline_param(ctx, key, klen, val, vlen);
	return 0;
}

int thp_pools_cmdline_parse(const char *cmdline, uint64_t default_size, struct thp_kvlist *l)
{
	struct thp_pools_cmdline c = { default_size, 0, l, 0 };

	thp_parse_cmdline(cmdline, cmdline_param, &c);
	return c.found;
}
