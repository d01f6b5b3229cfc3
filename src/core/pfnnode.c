/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pfnnode.c - the NUMA node of a page frame, from the memory blocks of each node */
#include "pfnnode.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int thp_block_size_parse(const char *buf, uint64_t page_size, uint64_t *bytes)
{
	const char *p = buf;
	uint64_t v;

	if (thp_parse_hex(&p, &v) || (*p && strcmp(p, "\n") != 0) || !v || !page_size || v % page_size)
		return -EINVAL;
	*bytes = v;
	return 0;
}

int thp_memory_block_name(const char *name, uint64_t *m)
{
	if (strncmp(name, "memory", 6) != 0 || !isdigit((unsigned char)name[6]))
		return -EINVAL;
	for (const char *p = name + 6; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
	return thp_parse_u64(name + 6, m) ? -EINVAL : 0;
}

/* Appends page frames [LO, HI) of NODE to T. Returns 0 or -ENOMEM. */
static int add_range(struct thp_pfn_nodes *t, size_t *cap, uint64_t lo, uint64_t hi, int node)
{
	if (t->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct thp_pfn_range *r = realloc(t->r, ncap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		t->r = r;
		*cap = ncap;
	}
	t->r[t->n++] = (struct thp_pfn_range){ lo, hi, node };
	return 0;
}

/* Adds the memoryM entries of node NODE's directory below ROOT to T, each
 * PAGES page frames long. Entries of other names, and block numbers whose
 * page frames would not fit 64 bits, are skipped. */
static int add_node(const struct thp_root *root, int node, uint64_t pages, struct thp_pfn_nodes *t,
		    size_t *cap)
{
	char path[64];
	DIR *dir;
	struct dirent *de;
	int err = 0;

	snprintf(path, sizeof(path), "sys/devices/system/node/node%d", node);
	dir = thp_opendir(root, path);
	if (!dir)
		return 0;
	while (!err && (de = readdir(dir))) {
		uint64_t m;

		if (thp_memory_block_name(de->d_name, &m) || m >= UINT64_MAX / pages)
			continue;
		t->nodes |= 1ull << node;
		err = add_range(t, cap, m * pages, (m + 1) * pages, node);
	}
	closedir(dir);
	return err;
}

static int cmp_range(const void *a, const void *b)
{
	const struct thp_pfn_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts T and merges the touching ranges of one node. */
static void merge(struct thp_pfn_nodes *t)
{
	size_t k = 0;

	qsort(t->r, t->n, sizeof(t->r[0]), cmp_range);
	for (size_t i = 0; i < t->n; i++)
		if (k && t->r[k - 1].node == t->r[i].node && t->r[k - 1].hi == t->r[i].lo)
			t->r[k - 1].hi = t->r[i].hi;
		else
			t->r[k++] = t->r[i];
	t->n = k;
}

/* Reads block_size_bytes below ROOT as a number of page frames into PAGES.
 * Returns 0, -EINVAL or -errno. */
static int block_pages(const struct thp_root *root, uint64_t page_size, uint64_t *pages)
{
	char buf[64];
	uint64_t bytes;
	ssize_t got = thp_read_buf(root, "sys/devices/system/memory/block_size_bytes", buf, sizeof(buf));

	if (got < 0)
		return (int)got;
	if (thp_block_size_parse(buf, page_size, &bytes))
		return -EINVAL;
	*pages = bytes / page_size;
	return 0;
}

int thp_pfn_nodes_read(const struct thp_root *root, uint64_t page_size, struct thp_pfn_nodes *t)
{
	uint64_t pages = 0;
	size_t cap = 0;
	DIR *dir;
	struct dirent *de;
	int err = 0;

	memset(t, 0, sizeof(*t));
	t->err = block_pages(root, page_size, &pages);
	if (t->err)
		return 0;
	dir = thp_opendir(root, "sys/devices/system/node");
	if (!dir) {
		t->err = -errno;
		return 0;
	}
	while (!err && (de = readdir(dir))) {
		int id = thp_numa_node_id(de->d_name);
		if (id >= 0 && id < THP_NUMA_MAX)
			err = add_node(root, id, pages, t, &cap);
	}
	closedir(dir);
	if (err) {
		thp_pfn_nodes_free(t);
		return err;
	}
	merge(t);
	return 0;
}

void thp_pfn_nodes_free(struct thp_pfn_nodes *t)
{
	free(t->r);
	t->r = NULL;
	t->n = 0;
}

int thp_pfn_sole_node(const struct thp_pfn_nodes *t)
{
	for (size_t i = 1; i < t->n; i++)
		if (t->r[i].node != t->r[0].node)
			return -1;
	return t->n ? t->r[0].node : -1;
}

int thp_pfn_node(const struct thp_pfn_nodes *t, uint64_t pfn)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pfn < t->r[mid].lo)
			hi = mid;
		else if (pfn >= t->r[mid].hi)
			lo = mid + 1;
		else
			return t->r[mid].node;
	}
	return -1;
}
