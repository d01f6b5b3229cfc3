/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hugetlb.h - static huge page pools (hugetlbfs): per size, per NUMA node,
 * mounts, the processes that use them, and how many pages a size needs */
#ifndef THP_HUGETLB_H
#define THP_HUGETLB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "root.h"

#define THP_HSIZES_MAX 8
#define THP_NODES_MAX 64
#define THP_MOUNTS_MAX 16

/* One pool: hugepages-<size>kB below /sys/kernel/mm/hugepages (host) or a
 * node's hugepages directory. Counts are pages. Nodes have no resv or
 * overcommit files: those stay 0 there. */
struct thp_hpool {
	uint64_t size;       /* page size in bytes; 0 for a size a node lacks */
	uint64_t total;      /* nr_hugepages: pages in the pool, surplus included */
	uint64_t free;       /* free_hugepages: not faulted in by anyone */
	uint64_t resv;       /* resv_hugepages: promised to mappings, not yet faulted */
	uint64_t surplus;    /* surplus_hugepages: above the pool size, from overcommit */
	uint64_t overcommit; /* nr_overcommit_hugepages: how many surplus pages may exist */
	int err;             /* first -errno among the files; 0 when all were read */
};

struct thp_hnode {
	int id;
	struct thp_hpool pools[THP_HSIZES_MAX]; /* in the order of thp_hugetlb.pools */
};

/* A hugetlbfs mount from /proc/mounts. */
struct thp_hmount {
	char path[256];
	uint64_t page_size; /* pagesize= option, else the default size; 0 when unknown */
	char options[256];
};

struct thp_hugetlb {
	uint64_t default_size; /* Hugepagesize of /proc/meminfo; 0 when unknown */
	uint64_t mem_total;    /* MemTotal; 0 when unknown */
	uint64_t mem_available; /* MemAvailable; 0 when unknown */
	uint64_t page_size;    /* base page size; 0 when unknown */

	int npools;
	int pools_err; /* -errno listing /sys/kernel/mm/hugepages (-ENOENT: no hugetlb) */
	struct thp_hpool pools[THP_HSIZES_MAX];

	int nnodes;
	int nodes_err; /* -errno listing /sys/devices/system/node (-ENOENT: no NUMA sysfs) */
	struct thp_hnode nodes[THP_NODES_MAX];

	int nmounts;
	int mounts_err;
	struct thp_hmount mounts[THP_MOUNTS_MAX];

	int64_t shm_group; /* vm.hugetlb_shm_group; -1 when unknown */
};

/* Reads pools, nodes, mounts and limits below ROOT into H. Missing files are
 * recorded as errors in H; returns 0. */
int thp_hugetlb_read(const struct thp_root *root, struct thp_hugetlb *h);

/* Reads one pool directory REL (".../hugepages-<N>kB") into P. */
void thp_hpool_read(const struct thp_root *root, const char *rel, uint64_t size,
		    struct thp_hpool *p);

/* Parses /proc/mounts text and adds its hugetlbfs mounts to H (the mounts
 * without pagesize= get DEFAULT_SIZE). Returns the number added. */
int thp_hugetlb_mounts_parse(const char *buf, uint64_t default_size, struct thp_hugetlb *h);

/* Index of the pool of SIZE bytes in H, or -1. */
int thp_hugetlb_find(const struct thp_hugetlb *h, uint64_t size);

/* Index of node ID in H, or -1. */
int thp_hugetlb_node(const struct thp_hugetlb *h, int id);

/* Path of the nr_hugepages file of the pool of SIZE, host-wide when NODE < 0. */
void thp_hugetlb_path(char *buf, size_t cap, uint64_t size, int node);

/* The journal of a 'thp hugetlb set' of several pools (THP_POOLS_JOURNAL):
 * each pool's size before it, written before the first pool, so that a set
 * killed between two pools is put back by the next one.
 *   thp-pools 1
 *   owner 4242
 *   command thp hugetlb set 2M=1100 1G=2
 *   hugepages-2048kB=1030            a pool of the host: its pages before
 *   node1/hugepages-2048kB=7         a pool of NUMA node 1
 *   end 2 2854106124                 number of pools, POSIX cksum of every byte before */
#define THP_POOLS_MAX THP_HSIZES_MAX
struct thp_pools_journal {
	pid_t owner;
	char command[256];
	int n;
	struct thp_pool_pages {
		uint64_t size; /* page size in bytes */
		int node;      /* -1: the host's pool */
		uint64_t pages;
	} v[THP_POOLS_MAX];
};

/* The file form of J; malloc'd, NULL when out of memory. */
char *thp_pools_journal_format(const struct thp_pools_journal *j);

/* Parses NUL-terminated BUF into J. Returns 0, or -EINVAL with the 1-based
 * line at fault in *LINE (0: the file as a whole: no end line, no pool). */
int thp_pools_journal_parse(const char *buf, struct thp_pools_journal *j, int *line);

/* Pages of SIZE bytes needed to hold BYTES plus a margin of MARGIN_BP basis
 * points (500 = 5%), rounded up. Saturates at UINT64_MAX. */
uint64_t thp_hugetlb_pages_for(uint64_t bytes, unsigned margin_bp, uint64_t size);

/* Free blocks in /proc/buddyinfo large enough for one page of SIZE bytes, over
 * all zones of NODE (all nodes when NODE < 0), with base pages of PAGE_SIZE.
 * Returns 0 or -errno; -ERANGE when SIZE is above the largest buddy order
 * (such pages come only from a contiguous range, best reserved at boot). */
int thp_buddy_blocks(const struct thp_root *root, int node, uint64_t size, uint64_t page_size,
		     uint64_t *blocks);

/* A process that maps static huge pages (smaps_rollup), sizes in bytes. */
struct thp_huser {
	pid_t pid;
	char comm[64];
	uint64_t private_hugetlb, shared_hugetlb;
};

/* Lists processes with Private_Hugetlb or Shared_Hugetlb above 0 into a
 * malloc'd array *V of *N entries, largest first; *DENIED counts processes
 * that could not be read. Returns 0 or -errno. */
int thp_hugetlb_users(const struct thp_root *root, struct thp_huser **v, int *n, int *denied);

#endif
