/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numa.c - huge pages per NUMA node */
#include "numa.h"

#include <ctype.h>
#include <stddef.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buddyinfo.h"
#include "hugetlb.h"
#include "parse.h"

_Static_assert(THP_NUMA_MAX <= 64, "a uint64_t node mask has a bit for every node id kept");

static int node_kv(const char *key, size_t klen, uint64_t val, void *ctx)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{ "MemTotal", offsetof(struct thp_numa_node, mem_total) },
		{ "AnonHugePages", offsetof(struct thp_numa_node, anon_huge) },
		{ "ShmemHugePages", offsetof(struct thp_numa_node, shmem_huge) },
		{ "FileHugePages", offsetof(struct thp_numa_node, file_huge) },
	};
	struct thp_numa_node *d = ctx;
	const char *name = key + klen;

	while (name > key && name[-1] != ' ') /* "Node 1 AnonHugePages": the last word */
		name--;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strlen(fields[i].name) == (size_t)(key + klen - name) &&
		    strncmp(name, fields[i].name, strlen(fields[i].name)) == 0) {
			*(uint64_t *)((char *)d + fields[i].off) = val;
			d->has_meminfo = true;
		}
	return 0;
}

int thp_node_meminfo_parse(const char *buf, struct thp_numa_node *d)
{
	d->has_meminfo = false;
	thp_parse_meminfo(buf, node_kv, d);
	return d->has_meminfo ? 0 : -EINVAL;
}

int thp_cpulist_parse(const char *s, uint8_t *set, int max)
{
	int count = 0;

	memset(set, 0, (size_t)(max + 7) / 8);
	while (*s && *s != '\n') {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;

		if (end == s || lo < 0)
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			hi = strtol(s, &end, 10);
			if (end == s || hi < lo)
				return -EINVAL;
		}
		for (long i = lo; i <= hi && i < max; i++) {
			count += !(set[i / 8] & (1u << (i % 8)));
			set[i / 8] |= (uint8_t)(1u << (i % 8));
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return count;
}

uint64_t thp_numa_nodes_of_cpus(const struct thp_numa *n, const char *cpus)
{
	uint8_t a[THP_CPUS_MAX / 8], b[THP_CPUS_MAX / 8];
	uint64_t mask = 0;

	if (thp_cpulist_parse(cpus, a, THP_CPUS_MAX) <= 0)
		return 0;
	for (int i = 0; i < n->n; i++) {
		if (n->nodes[i].id >= 64 || thp_cpulist_parse(n->nodes[i].cpus, b, THP_CPUS_MAX) <= 0)
			continue;
		for (size_t j = 0; j < sizeof(a); j++)
			if (a[j] & b[j]) {
				mask |= 1ull << n->nodes[i].id;
				break;
			}
	}
	return mask;
}

int thp_numa_node_id(const char *name)
{
	char *end;
	long id;

	if (strncmp(name, "node", 4) != 0 || !isdigit((unsigned char)name[4]))
		return -1;
	id = strtol(name + 4, &end, 10);
	return *end || id < 0 || id > 65535 ? -1 : (int)id;
}

static int cmp_node(const void *a, const void *b)
{
	return ((const struct thp_numa_node *)a)->id - ((const struct thp_numa_node *)b)->id;
}

void thp_numa_node_read(const struct thp_root *root, struct thp_numa_node *d)
{
	char path[128], buf[8192];

	snprintf(path, sizeof(path), "sys/devices/system/node/node%d/meminfo", d->id);
	if (thp_read_buf(root, path, buf, sizeof(buf)) >= 0)
		thp_node_meminfo_parse(buf, d);
	snprintf(path, sizeof(path), "sys/devices/system/node/node%d/cpulist", d->id);
	if (thp_read_buf(root, path, d->cpus, sizeof(d->cpus)) < 0)
		d->cpus[0] = '\0';
	d->cpus[strcspn(d->cpus, "\n")] = '\0';
}

/* Adds the free PMD-sized blocks of /proc/buddyinfo and the static pools of
 * each node to N. */
static int add_blocks_and_pools(const struct thp_root *root, int order, struct thp_numa *n)
{
	struct thp_buddyinfo *b = malloc(sizeof(*b));
	struct thp_hugetlb *h = malloc(sizeof(*h));

	if (!b || !h) {
		free(b);
		free(h);
		return -ENOMEM;
	}
	if (order < 0 || thp_buddyinfo_read(root, b) != 0)
		b->nzones = 0;
	thp_hugetlb_read(root, h);
	for (int i = 0; i < n->n; i++) {
		struct thp_numa_node *d = &n->nodes[i];
		int hn = thp_hugetlb_node(h, d->id);

		for (int z = 0; z < b->nzones; z++)
			if (b->zones[z].node == d->id) {
				d->has_blocks = true;
				d->free_pmd_blocks += thp_buddy_free_blocks(&b->zones[z], order);
			}
		for (int p = 0; hn >= 0 && p < h->npools; p++) {
			const struct thp_hpool *pool = &h->nodes[hn].pools[p];
			d->hugetlb += pool->total * pool->size;
			d->hugetlb_free += pool->free * pool->size;
		}
	}
	free(b);
	free(h);
	return 0;
}

int thp_numa_read(const struct thp_root *root, uint64_t pmd_size, uint64_t page_size, struct thp_numa *n)
{
	DIR *dir = thp_opendir(root, "sys/devices/system/node");
	struct dirent *de;

	memset(n, 0, sizeof(*n));
	if (!dir) {
		n->err = -errno;
		return 0;
	}
	while ((de = readdir(dir)) && n->n < THP_NUMA_MAX) {
		int id = thp_numa_node_id(de->d_name);

		if (id < 0)
			continue;
		n->nodes[n->n].id = id;
		thp_numa_node_read(root, &n->nodes[n->n++]);
	}
	closedir(dir);
	qsort(n->nodes, (size_t)n->n, sizeof(n->nodes[0]), cmp_node);
	return add_blocks_and_pools(root, thp_pmd_order(pmd_size, page_size), n);
}

/* Adds one numa_maps line [S, S+LEN) of a hugetlb mapping to M. */
static int maps_line(const char *s, size_t len, int line, void *ctx)
{
	struct thp_numa_maps *m = ctx;
	char buf[1024], *save = NULL;
	uint64_t pages[THP_NUMA_MAX] = { 0 }, kb = 0;
	bool huge = false;

	(void)line;
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1), s);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *end;
		unsigned long long v;

		if (strcmp(w, "huge") == 0)
			huge = true;
		else if (strncmp(w, "kernelpagesize_kB=", 18) == 0)
			kb = strtoull(w + 18, NULL, 10);
		else if (w[0] == 'N' && isdigit((unsigned char)w[1])) {
			long id = strtol(w + 1, &end, 10);
			if (*end == '=' && id >= 0 && id < THP_NUMA_MAX && (v = strtoull(end + 1, NULL, 10)))
				pages[id] += v;
		}
	}
	for (int i = 0; huge && i < THP_NUMA_MAX; i++) {
		m->hugetlb[i] += pages[i] * kb * 1024;
		m->total += pages[i] * kb * 1024;
	}
	return 0;
}

int thp_numa_maps_parse(const char *buf, struct thp_numa_maps *m)
{
	memset(m, 0, sizeof(*m));
	thp_each_line(buf, maps_line, m);
	return 0;
}

int thp_numa_maps_read(const struct thp_root *root, pid_t pid, struct thp_numa_maps *m)
{
	char path[64], *buf;
	size_t len;
	int err;

	snprintf(path, sizeof(path), "proc/%d/numa_maps", (int)pid);
	err = thp_read(root, path, &buf, &len);
	if (err)
		return err;
	thp_numa_maps_parse(buf, m);
	free(buf);
	return 0;
}

uint64_t thp_numa_remote(const struct thp_numa *n, const char *cpus, const struct thp_numa_maps *m)
{
	uint64_t mask = n->n > 1 ? thp_numa_nodes_of_cpus(n, cpus) : 0, remote = 0;

	for (int i = 0; mask && i < THP_NUMA_MAX; i++)
		if (!(mask & (1ull << i)))
			remote += m->hugetlb[i];
	return remote;
}
