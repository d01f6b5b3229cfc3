/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the NUMA readers: CPU lists, node meminfo, numa_maps, and
 * which static huge pages sit on nodes a process does not run on (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/numa.h"

static void cpulists(void **state)
{
	uint8_t set[16];
	(void)state;

	assert_int_equal(thp_cpulist_parse("0-3,8,10-11\n", set, 128), 7);
	assert_int_equal(set[0], 0x0f);
	assert_int_equal(set[1], 0x0d);
	assert_int_equal(thp_cpulist_parse("", set, 128), 0);
	assert_int_equal(thp_cpulist_parse("3-1", set, 128), -EINVAL);
	assert_int_equal(thp_cpulist_parse("1,,2", set, 128), -EINVAL);
	assert_int_equal(thp_cpulist_parse("x", set, 128), -EINVAL);
	/* numbers beyond the set are left out, not written past it */
	assert_int_equal(thp_cpulist_parse("126-200", set, 128), 2);
}

static void node_meminfo(void **state)
{
	struct thp_numa_node d = { 0 };
	(void)state;

	assert_int_equal(thp_node_meminfo_parse("Node 1 MemTotal:        4417272 kB\n"
						"Node 1 AnonHugePages:    2048 kB\n"
						"Node 1 ShmemHugePages:      0 kB\n"
						"Node 1 FileHugePages:    4096 kB\n"
						"Node 1 HugePages_Total:     0\n", &d), 0);
	assert_true(d.mem_total == 4417272ull * 1024);
	assert_true(d.anon_huge == 2048 * 1024);
	assert_true(d.file_huge == 4096 * 1024);
	assert_int_equal(thp_node_meminfo_parse("nothing here\n", &d), -EINVAL);
}

static void numa_maps(void **state)
{
	struct thp_numa_maps m;
	struct thp_numa n = { .n = 2 };
	(void)state;

	thp_numa_maps_parse("7f00 default file=/anon_hugepage\\040(deleted) huge anon=4 dirty=4 N0=1 N1=3 kernelpagesize_kB=2048\n"
			    "7f80 default anon=512 dirty=512 N0=512 kernelpagesize_kB=4\n"
			    "7fa0 bind:1 file=/dev/hugepages/x huge dirty=1 N1=1 kernelpagesize_kB=1048576\n", &m);
	assert_true(m.hugetlb[0] == 2ull << 20);
	assert_true(m.hugetlb[1] == (6ull << 20) + (1ull << 30));
	assert_true(m.total == (8ull << 20) + (1ull << 30));
	n.nodes[0] = (struct thp_numa_node){ .id = 0, .cpus = "0-7" };
	n.nodes[1] = (struct thp_numa_node){ .id = 1, .cpus = "8-15" };
	assert_true(thp_numa_nodes_of_cpus(&n, "2-3") == 1);
	assert_true(thp_numa_nodes_of_cpus(&n, "7-8") == 3);
	assert_true(thp_numa_remote(&n, "0-7", &m) == m.hugetlb[1]);
	assert_true(thp_numa_remote(&n, "0-15", &m) == 0);
	/* a CPU list that names no node's CPUs says nothing */
	assert_true(thp_numa_remote(&n, "", &m) == 0);
	n.n = 1;
	assert_true(thp_numa_remote(&n, "0-7", &m) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpulists),
		cmocka_unit_test(node_meminfo),
		cmocka_unit_test(numa_maps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
