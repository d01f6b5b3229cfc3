/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pools.h - static huge page pools kept at boot: their keys among the
 * persisted settings ("hugetlb.2M", "hugetlb.node1.2M"), the files and
 * kernel command-line options that set them, and where boot sets each pool:
 * the default size's host pool in sysctl.d (vm.nr_hugepages), other sizes and
 * the nodes' pools in tmpfiles.d, pages of 1 GiB and more on the command line
 * only (a running host rarely has such a contiguous range free). */
#ifndef THP_POOLS_H
#define THP_POOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keys.h"

#define THP_POOL_KEY_PREFIX "hugetlb."
/* The key of the default size's pool while that size is unknown. */
#define THP_POOL_DEFAULT_KEY "vm.nr_hugepages"
/* Pools of pages this large or larger are reserved on the kernel command line. */
#define THP_POOL_CMDLINE_SIZE (1ull << 30)
/* Where 'thp hugetlb persist' writes below the root. */
#define THP_POOLS_SYSCTLD_NAME "90-thp-hugetlb.conf"
#define THP_POOLS_TMPFILES_NAME "thp-hugetlb.conf"
#define THP_POOLS_MARK "written by 'thp hugetlb persist'"

/* One pool as boot should size it. */
struct thp_pool {
	uint64_t size;  /* page size in bytes */
	int node;       /* -1: the host's pool */
	uint64_t pages; /* nr_hugepages */
};

/* Where boot sets a pool. */
enum thp_pool_boot { THP_POOL_SYSCTL, THP_POOL_TMPFILES, THP_POOL_CMDLINE };

/* Where boot sets P when the default page size is DEFAULT_SIZE. */
enum thp_pool_boot thp_pool_boot(const struct thp_pool *p, uint64_t default_size);

/* The key of the pool of SIZE, host-wide when NODE < 0: "hugetlb.2M",
 * "hugetlb.node1.2M". */
void thp_pool_key(uint64_t size, int node, char *buf, size_t cap);

/* Parses a pool key into *SIZE (0 for THP_POOL_DEFAULT_KEY) and *NODE.
 * Returns 0 or -ENOENT. */
int thp_pool_key_parse(const char *key, uint64_t *size, int *node);

/* True when KEY is a pool key. */
bool thp_is_pool_key(const char *key);

/* Maps an absolute or root-relative path that sizes a pool to its key: the
 * nr_hugepages of a pool of the host or of a node, or /proc/sys/vm/nr_hugepages
 * (THP_POOL_DEFAULT_KEY). Returns 0 or -ENOENT. */
int thp_pool_key_from_path(const char *path, char *key, size_t cap);

/* Collects the pools that the hugepagesz= and hugepages= options of CMDLINE
 * reserve into L (hugepages= also per node: "0:2,1:2"); a hugepages= before
 * any hugepagesz= is of DEFAULT_SIZE, the Hugepagesize that
 * default_hugepagesz= sets (THP_POOL_DEFAULT_KEY when 0).
 * Returns the number of hugepages= options. */
int thp_pools_cmdline_parse(const char *cmdline, uint64_t default_size, struct thp_kvlist *l);

/* The same, one parameter at a time (VAL NULL: a flag), for parameters
 * already split: start with { DEFAULT_SIZE, 0, L, 0 }. */
struct thp_pools_cmdline {
	uint64_t default_size;
	uint64_t size; /* of the last hugepagesz=; 0: none yet, UINT64_MAX: a bad one */
	struct thp_kvlist *l;
	int found; /* hugepages= options */
};
void thp_pools_cmdline_param(struct thp_pools_cmdline *c, const char *key, size_t klen, const char *val,
			     size_t vlen);

#endif
