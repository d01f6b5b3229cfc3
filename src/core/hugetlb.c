/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hugetlb.c - static huge page pools, hugetlbfs mounts and their users */
#include "hugetlb.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buddyinfo.h"
#include "numa.h"
#include "parse.h"
#include "proc.h"
#include "state.h"
#include "status.h"

#define HUGEPAGES "sys/kernel/mm/hugepages"
#define NODES "sys/devices/system/node"

/* Reads one count file; keeps the first error in *ERR. */
static uint64_t read_count(const struct thp_root *root, const char *dir, const char *file, int *err)
{
	char rel[512], buf[64];
	uint64_t v = 0;
	ssize_t n;

	snprintf(rel, sizeof(rel), "%s/%s", dir, file);
	n = thp_read_buf(root, rel, buf, sizeof(buf));
	int e = n < 0 ? (int)n : thp_parse_u64(buf, &v);
	if (e && !*err)
		*err = e;
	return e ? 0 : v;
}

void thp_hpool_read(const struct thp_root *root, const char *rel, uint64_t size, struct thp_hpool *p)
{
	int unused = 0;

	memset(p, 0, sizeof(*p));
	p->size = size;
	p->total = read_count(root, rel, "nr_hugepages", &p->err);
	p->free = read_count(root, rel, "free_hugepages", &p->err);
	p->surplus = read_count(root, rel, "surplus_hugepages", &p->err);
	/* absent in node directories */
	p->resv = read_count(root, rel, "resv_hugepages", &unused);
	p->overcommit = read_count(root, rel, "nr_overcommit_hugepages", &unused);
}

static int by_size(const void *a, const void *b)
{
	const struct thp_hpool *x = a, *y = b;
	return (x->size > y->size) - (x->size < y->size);
}

/* Lists the hugepages-<N>kB directories of DIR: their sizes, ascending, into SIZES. */
static int list_sizes(const struct thp_root *root, const char *dir, uint64_t *sizes, int *n)
{
	struct thp_hpool tmp[THP_HSIZES_MAX];
	struct dirent *de;
	DIR *d = thp_opendir(root, dir);

	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint64_t kb = thp_parse_size_dir(de->d_name);
		if (kb && *n < THP_HSIZES_MAX)
			tmp[(*n)++].size = kb * 1024;
	}
	closedir(d);
	qsort(tmp, (size_t)*n, sizeof(tmp[0]), by_size);
	for (int i = 0; i < *n; i++)
		sizes[i] = tmp[i].size;
	return 0;
}

void thp_hugetlb_path(char *buf, size_t cap, uint64_t size, int node)
{
	if (node < 0)
		snprintf(buf, cap, HUGEPAGES "/hugepages-%llukB/nr_hugepages",
			 (unsigned long long)(size / 1024));
	else
		snprintf(buf, cap, NODES "/node%d/hugepages/hugepages-%llukB/nr_hugepages", node,
			 (unsigned long long)(size / 1024));
}

static int by_id(const void *a, const void *b)
{
	const struct thp_hnode *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static void read_nodes(const struct thp_root *root, struct thp_hugetlb *h)
{
	struct dirent *de;
	DIR *d = thp_opendir(root, NODES);

	if (!d) {
		h->nodes_err = -errno;
		return;
	}
	while ((de = readdir(d)) && h->nnodes < THP_NODES_MAX) {
		char rel[512];
		int id = thp_numa_node_id(de->d_name);

		if (id < 0)
			continue;
		struct thp_hnode *nd = &h->nodes[h->nnodes++];
		nd->id = id;
		for (int i = 0; i < h->npools; i++) {
			snprintf(rel, sizeof(rel), NODES "/%s/hugepages/hugepages-%llukB", de->d_name,
				 (unsigned long long)(h->pools[i].size / 1024));
			thp_hpool_read(root, rel, h->pools[i].size, &nd->pools[i]);
			if (nd->pools[i].err == -ENOENT)
				nd->pools[i].size = 0;
		}
	}
	closedir(d);
	qsort(h->nodes, (size_t)h->nnodes, sizeof(h->nodes[0]), by_id);
}

int thp_hugetlb_mounts_parse(const char *buf, uint64_t default_size, struct thp_hugetlb *h)
{
	int added = 0;

	for (const char *p = buf; *p && h->nmounts < THP_MOUNTS_MAX;) {
		const char *end = strchr(p, '\n'), *f[4];
		size_t len[4];
		int nf;

		if (!end)
			end = p + strlen(p);
		nf = thp_split_fields(p, end, f, len, 4);
		if (nf == 4 && len[2] == 9 && strncmp(f[2], "hugetlbfs", 9) == 0) {
			struct thp_hmount *m = &h->mounts[h->nmounts++];
			uint64_t v;

			char val[32];

			thp_unescape_octal(m->path, sizeof(m->path), f[1], len[1]);
			snprintf(m->options, sizeof(m->options), "%.*s", (int)len[3], f[3]);
			m->page_size = default_size;
			if (thp_mount_option(m->options, "pagesize", val, sizeof(val)) == 0)
				m->page_size = thp_parse_size(val, &v) == 0 ? v : 0;
			added++;
		}
		p = *end ? end + 1 : end;
	}
	return added;
}

static int meminfo_field(const char *key, size_t klen, uint64_t val, void *ctx)
{
	struct thp_hugetlb *h = ctx;

	if (klen == 12 && strncmp(key, "Hugepagesize", 12) == 0)
		h->default_size = val;
	else if (klen == 8 && strncmp(key, "MemTotal", 8) == 0)
		h->mem_total = val;
	else if (klen == 12 && strncmp(key, "MemAvailable", 12) == 0)
		h->mem_available = val;
	return 0;
}

int thp_hugetlb_read(const struct thp_root *root, struct thp_hugetlb *h)
{
	uint64_t sizes[THP_HSIZES_MAX], v;
	char rel[512], buf[64], *text;

	memset(h, 0, sizeof(*h));
	h->shm_group = -1;
	h->page_size = thp_page_size(root);
	if (thp_read(root, "proc/meminfo", &text, NULL) == 0) {
		thp_parse_meminfo(text, meminfo_field, h);
		free(text);
	}
	h->pools_err = list_sizes(root, HUGEPAGES, sizes, &h->npools);
	for (int i = 0; i < h->npools; i++) {
		snprintf(rel, sizeof(rel), HUGEPAGES "/hugepages-%llukB",
			 (unsigned long long)(sizes[i] / 1024));
		thp_hpool_read(root, rel, sizes[i], &h->pools[i]);
	}
	read_nodes(root, h);
	h->mounts_err = thp_read(root, "proc/mounts", &text, NULL);
	if (!h->mounts_err) {
		thp_hugetlb_mounts_parse(text, h->default_size, h);
		free(text);
	}
	if (thp_read_buf(root, "proc/sys/vm/hugetlb_shm_group", buf, sizeof(buf)) > 0 &&
	    thp_parse_u64(buf, &v) == 0 && v <= INT64_MAX)
		h->shm_group = (int64_t)v;
	return 0;
}

int thp_hugetlb_find(const struct thp_hugetlb *h, uint64_t size)
{
	for (int i = 0; i < h->npools; i++)
		if (h->pools[i].size == size)
			return i;
	return -1;
}

int thp_hugetlb_node(const struct thp_hugetlb *h, int id)
{
	for (int i = 0; i < h->nnodes; i++)
		if (h->nodes[i].id == id)
			return i;
	return -1;
}

uint64_t thp_hugetlb_pages_for(uint64_t bytes, unsigned margin_bp, uint64_t size)
{
	unsigned __int128 need = (unsigned __int128)bytes * (10000u + margin_bp);
	unsigned __int128 unit = (unsigned __int128)size * 10000u;
	unsigned __int128 pages;

	if (!size)
		return 0;
	pages = (need + unit - 1) / unit;
	return pages > UINT64_MAX ? UINT64_MAX : (uint64_t)pages;
}

int thp_buddy_blocks(const struct thp_root *root, int node, uint64_t size, uint64_t page_size,
		     uint64_t *blocks)
{
	struct thp_buddyinfo *b;
	int order = 0, orders = 0, err;

	*blocks = 0;
	if (!page_size || size < page_size)
		return -EINVAL;
	while ((page_size << order) < size)
		order++;
	b = malloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	err = thp_buddyinfo_read(root, b);
	for (int i = 0; !err && i < b->nzones; i++) {
		const struct thp_buddy_zone *z = &b->zones[i];
		if (z->norders > orders)
			orders = z->norders; /* the most orders shown: the buddy allocator's limit */
		if (node < 0 || z->node == node)
			*blocks += thp_buddy_free_blocks(z, order);
	}
	free(b);
	if (!err && order >= orders)
		err = -ERANGE;
	if (err)
		*blocks = 0;
	return err;
}

static int by_use(const void *a, const void *b)
{
	const struct thp_huser *x = a, *y = b;
	uint64_t ux = x->private_hugetlb + x->shared_hugetlb, uy = y->private_hugetlb + y->shared_hugetlb;

	if (ux != uy)
		return ux < uy ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

struct users {
	const struct thp_root *root;
	struct thp_huser *v;
	int n, cap, denied, err;
};

static int add_user(pid_t pid, void *ctx)
{
	struct users *u = ctx;
	struct thp_rollup r = { 0 };
	int err = thp_rollup_read(u->root, pid, &r);

	if (thp_proc_denied(err))
		u->denied++;
	if (err || !(r.private_hugetlb + r.shared_hugetlb))
		return 0;
	if (u->n == u->cap) {
		int cap = u->cap ? u->cap * 2 : 16;
		struct thp_huser *nv = realloc(u->v, (size_t)cap * sizeof(*nv));
		if (!nv) {
			u->err = -ENOMEM;
			return 1;
		}
		u->v = nv;
		u->cap = cap;
	}
	struct thp_huser *e = &u->v[u->n++];
	e->pid = pid;
	e->private_hugetlb = r.private_hugetlb;
	e->shared_hugetlb = r.shared_hugetlb;
	if (thp_comm_read(u->root, pid, e->comm, sizeof(e->comm)))
		e->comm[0] = '\0';
	return 0;
}

int thp_hugetlb_users(const struct thp_root *root, struct thp_huser **v, int *n, int *denied)
{
	struct users u = { .root = root };
	int err = thp_proc_each(root, add_user, &u);

	if (!err)
		err = u.err;
	if (err) {
		free(u.v);
		u.v = NULL;
		u.n = 0;
	} else if (u.n) {
		qsort(u.v, (size_t)u.n, sizeof(u.v[0]), by_use);
	}
	*v = u.v;
	*n = u.n;
	*denied = u.denied;
	return err;
}

char *thp_pools_journal_format(const struct thp_pools_journal *j)
{
	size_t cap = 512 + sizeof(j->command) + (size_t)j->n * 64, len = 0;
	char *buf = malloc(cap), command[sizeof(j->command)];

	if (!buf)
		return NULL;
	snprintf(command, sizeof(command), "%s", j->command);
	for (char *c = command; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?'; /* one line */
	thp_put(buf, cap, &len, "thp-pools 1\nowner %d\ncommand %s\n", (int)j->owner, command);
	thp_put(buf, cap, &len, "# the pools before the change above; the next 'thp hugetlb set' puts them back\n");
	for (int i = 0; i < j->n; i++) {
		char node[24] = "";
		if (j->v[i].node >= 0)
			snprintf(node, sizeof(node), "node%d/", j->v[i].node);
		thp_put(buf, cap, &len, "%shugepages-%llukB=%llu\n", node,
			(unsigned long long)(j->v[i].size / 1024), (unsigned long long)j->v[i].pages);
	}
	thp_put(buf, cap, &len, "end %d %u\n", j->n, thp_cksum(buf, len));
	if (len >= cap) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct pools_parse {
	const char *buf;
	struct thp_pools_journal *j;
	bool ended;
};

/* A pool line "[nodeN/]hugepages-NkB=PAGES" (S, LEN). Returns 0 or -1. */
static int pool_line(struct thp_pools_journal *j, const char *s, size_t len)
{
	char text[96], num[32];
	unsigned long long kb;
	int node = -1, used = 0;
	struct thp_pool_pages *p;

	if (len >= sizeof(text) || j->n >= THP_POOLS_MAX)
		return -1;
	snprintf(text, sizeof(text), "%.*s", (int)len, s);
	if (sscanf(text, "node%d/%n", &node, &used) < 1 || !used) {
		node = -1;
		used = 0;
	}
	if (node < -1 || node >= THP_NODES_MAX)
		return -1;
	if (sscanf(text + used, "hugepages-%llukB=%31s", &kb, num) != 2 || !kb || kb > UINT64_MAX / 1024)
		return -1;
	p = &j->v[j->n];
	if (thp_parse_u64(num, &p->pages) != 0)
		return -1;
	p->size = kb * 1024;
	p->node = node;
	j->n++;
	return 0;
}

static int pools_line(const char *s, size_t len, int line, void *ctx)
{
	struct pools_parse *p = ctx;
	char text[320];
	int n, pid;
	unsigned long sum;

	if (p->ended)
		return line;
	if (line == 1)
		return len == 11 && strncmp(s, "thp-pools 1", 11) == 0 ? 0 : line;
	snprintf(text, sizeof(text), "%.*s", (int)(len < sizeof(text) - 1 ? len : sizeof(text) - 1), s);
	if (!len || text[0] == '#')
		return 0;
	if (strncmp(text, "owner ", 6) == 0) {
		if (sscanf(text + 6, "%d", &pid) != 1 || pid <= 0)
			return line;
		p->j->owner = pid;
		return 0;
	}
	if (strncmp(text, "command ", 8) == 0) {
		snprintf(p->j->command, sizeof(p->j->command), "%s", text + 8);
		return 0;
	}
	if (strncmp(text, "end ", 4) == 0) {
		if (sscanf(text, "end %d %lu", &n, &sum) != 2 || n != p->j->n ||
		    sum != thp_cksum(p->buf, (size_t)(s - p->buf)))
			return line;
		p->ended = true;
		return 0;
	}
	return pool_line(p->j, s, len) ? line : 0;
}

int thp_pools_journal_parse(const char *buf, struct thp_pools_journal *j, int *line)
{
	struct pools_parse p = { buf, j, false };

	memset(j, 0, sizeof(*j));
	*line = thp_each_line(buf, pools_line, &p);
	if (!*line && (!p.ended || !j->n))
		return -EINVAL;
	return *line ? -EINVAL : 0;
}
