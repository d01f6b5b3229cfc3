/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numa.h - huge pages per NUMA node: a node's THP (nodeN/meminfo), its free
 * PMD-sized blocks (buddyinfo), static pools (nodeN/hugepages) and CPUs
 * (nodeN/cpulist); which nodes a CPU list runs on; hugetlb per node of a
 * process (numa_maps) */
#ifndef THP_NUMA_H
#define THP_NUMA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "root.h"

#define THP_NUMA_MAX 64
#define THP_CPUS_MAX 4096

struct thp_numa_node {
	int id;
	char cpus[128];         /* nodeN/cpulist; "" when unknown */
	bool has_meminfo;
	uint64_t mem_total;     /* bytes of nodeN/meminfo */
	uint64_t anon_huge, shmem_huge, file_huge;
	bool has_blocks;        /* the node has zones in /proc/buddyinfo */
	uint64_t free_pmd_blocks; /* free blocks of PMD size or more, counted in PMD blocks */
	uint64_t hugetlb, hugetlb_free; /* bytes in the node's static pools, and free there */
};

struct thp_numa {
	int err; /* -errno listing /sys/devices/system/node (-ENOENT: no NUMA sysfs) */
	int n;
	struct thp_numa_node nodes[THP_NUMA_MAX]; /* by id, ascending */
};

/* Reads every node below ROOT into N; PMD_SIZE and PAGE_SIZE (0: unknown)
 * give the order of a PMD-sized block. Returns 0 or -ENOMEM. */
int thp_numa_read(const struct thp_root *root, uint64_t pmd_size, uint64_t page_size, struct thp_numa *n);

/* The id N of a directory entry named "nodeN" (0 to 65535), or -1 for any
 * other name. */
int thp_numa_node_id(const char *name);

/* Reads the meminfo and cpulist of node D (its id set) below ROOT into D;
 * what is missing stays unknown (has_meminfo false, cpus ""). */
void thp_numa_node_read(const struct thp_root *root, struct thp_numa_node *d);

/* Parses the text of a nodeN/meminfo file into D. Returns 0, or -EINVAL
 * when no line parses. */
int thp_node_meminfo_parse(const char *buf, struct thp_numa_node *d);

/* Parses a CPU or node list ("0-3,8,10-11") into SET (bit i: number i, below
 * MAX). Returns the count set, or -EINVAL for a malformed list. */
int thp_cpulist_parse(const char *s, uint8_t *set, int max);

/* Bit I of the node mask of the nodes whose CPUs meet the CPU list CPUS
 * (Cpus_allowed_list); 0 when nothing is known. */
uint64_t thp_numa_nodes_of_cpus(const struct thp_numa *n, const char *cpus);

/* Static huge pages a process holds per node, from /proc/PID/numa_maps:
 * the N<node>=<pages> counts of its hugetlb mappings ("huge") times their
 * kernelpagesize_kB. */
struct thp_numa_maps {
	uint64_t hugetlb[THP_NUMA_MAX]; /* bytes per node id */
	uint64_t total;
};

/* Parses numa_maps text into M. Returns 0 (lines that do not parse are skipped). */
int thp_numa_maps_parse(const char *buf, struct thp_numa_maps *m);

/* Reads /proc/PID/numa_maps below ROOT. Returns 0 or -errno. */
int thp_numa_maps_read(const struct thp_root *root, pid_t pid, struct thp_numa_maps *m);

/* Bytes of M's static huge pages on nodes none of the CPUS (a
 * Cpus_allowed_list) belong to; 0 with one node or when unknown. */
uint64_t thp_numa_remote(const struct thp_numa *n, const char *cpus, const struct thp_numa_maps *m);

#endif
