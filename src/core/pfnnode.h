/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pfnnode.h - the NUMA node of a page frame, from the memory blocks each node
 * lists (/sys/devices/system/node/nodeN/memoryM) and the size of a block
 * (/sys/devices/system/memory/block_size_bytes) */
#ifndef THP_PFNNODE_H
#define THP_PFNNODE_H

#include <stddef.h>
#include <stdint.h>

#include "numa.h"
#include "root.h"

/* Page frames [lo, hi) of node NODE. */
struct thp_pfn_range {
	uint64_t lo, hi;
	int node;
};

struct thp_pfn_nodes {
	int err;         /* 0, or why there is no table: -ENOENT (no memory block sysfs),
			  * -EINVAL (a malformed block_size_bytes), -errno */
	uint64_t nodes;  /* bit N: node N lists memory blocks */
	size_t n;
	struct thp_pfn_range *r; /* sorted by lo, adjacent blocks of a node merged */
};

/* Parses block_size_bytes (hex, as the kernel prints it) into BYTES: a
 * non-zero multiple of PAGE_SIZE. Returns 0 or -EINVAL. */
int thp_block_size_parse(const char *buf, uint64_t page_size, uint64_t *bytes);

/* The block number M of a directory entry named "memoryM". Returns 0, or
 * -EINVAL for any other name. */
int thp_memory_block_name(const char *name, uint64_t *m);

/* Reads the table of every node below ROOT into T (T->err says why it is
 * empty). PAGE_SIZE: bytes of a page frame. Returns 0 or -ENOMEM. */
int thp_pfn_nodes_read(const struct thp_root *root, uint64_t page_size, struct thp_pfn_nodes *t);

void thp_pfn_nodes_free(struct thp_pfn_nodes *t);

/* The node every block of T is on, or -1 when T is empty or spans several
 * nodes. With one node all memory is on it: no page frame need be looked up. */
int thp_pfn_sole_node(const struct thp_pfn_nodes *t);

/* The node of page frame PFN, or -1 when no block of T holds it. */
int thp_pfn_node(const struct thp_pfn_nodes *t, uint64_t pfn);

#endif
