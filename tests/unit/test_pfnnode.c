/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the page frame to node table (nodeN/memoryM and
 * block_size_bytes) and of the folios it places on nodes, on the two-node
 * fixture folios-numa (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/folios.h"
#include "core/pfnnode.h"

static void block_size(void **state)
{
	uint64_t b = 0;
	(void)state;

	assert_int_equal(thp_block_size_parse("8000000\n", 4096, &b), 0);
	assert_true(b == 128u << 20);
	assert_int_equal(thp_block_size_parse("0x800000", 4096, &b), 0);
	assert_true(b == 8u << 20);
	assert_int_equal(thp_block_size_parse("", 4096, &b), -EINVAL);
	assert_int_equal(thp_block_size_parse("zz\n", 4096, &b), -EINVAL);
	assert_int_equal(thp_block_size_parse("0\n", 4096, &b), -EINVAL);
	assert_int_equal(thp_block_size_parse("800\n", 4096, &b), -EINVAL); /* not whole pages */
	assert_int_equal(thp_block_size_parse("8000000 kB\n", 4096, &b), -EINVAL);
	assert_int_equal(thp_block_size_parse("10000000000000000\n", 4096, &b), -EINVAL); /* 17 digits */
	assert_int_equal(thp_block_size_parse("8000000\n", 0, &b), -EINVAL);
}

static void block_names(void **state)
{
	uint64_t m = 0;
	(void)state;

	assert_int_equal(thp_memory_block_name("memory12", &m), 0);
	assert_true(m == 12);
	assert_int_equal(thp_memory_block_name("memory0", &m), 0);
	assert_true(m == 0);
	assert_int_equal(thp_memory_block_name("memory", &m), -EINVAL);
	assert_int_equal(thp_memory_block_name("memoryX", &m), -EINVAL);
	assert_int_equal(thp_memory_block_name("memory3x", &m), -EINVAL);
	assert_int_equal(thp_memory_block_name("memory-1", &m), -EINVAL);
	assert_int_equal(thp_memory_block_name("memory 3", &m), -EINVAL);
	assert_int_equal(thp_memory_block_name("memory99999999999999999999", &m), -EINVAL);
	assert_int_equal(thp_memory_block_name("cpu0", &m), -EINVAL);
}

static void table(void **state)
{
	struct thp_root root;
	struct thp_pfn_nodes t;
	(void)state;

	assert_int_equal(thp_root_open(&root, "tests/fixtures/folios-numa"), 0);
	assert_int_equal(thp_pfn_nodes_read(&root, 4096, &t), 0);
	assert_int_equal(t.err, 0);
	assert_true(t.nodes == 3);
	/* blocks 0-2 on node 0 and 3-6 on node 1, merged; the names no block
	 * has (memoryX, memory-1, a number past 64 bits) are left out */
	assert_int_equal((int)t.n, 2);
	assert_int_equal(thp_pfn_node(&t, 0), 0);
	assert_int_equal(thp_pfn_node(&t, 0x17ff), 0);
	assert_int_equal(thp_pfn_node(&t, 0x1800), 1);
	assert_int_equal(thp_pfn_node(&t, 0x37ff), 1);
	assert_int_equal(thp_pfn_node(&t, 0x3800), -1); /* block 7: on no node */
	assert_int_equal(thp_pfn_node(&t, UINT64_MAX), -1);
	assert_int_equal(thp_pfn_sole_node(&t), -1); /* two nodes: each frame looked up */
	thp_pfn_nodes_free(&t);
	/* a page size the block size is no multiple of: no table, a reason */
	assert_int_equal(thp_pfn_nodes_read(&root, 3 << 20, &t), 0);
	assert_int_equal(t.err, -EINVAL);
	assert_int_equal((int)t.n, 0);
	assert_int_equal(thp_pfn_node(&t, 0), -1);
	thp_root_close(&root);
}

/* One node, however many ranges its blocks make: every frame is on it. */
static void sole_node(void **state)
{
	struct thp_pfn_range r[] = { { 0, 16, 3 }, { 32, 48, 3 }, { 64, 80, 1 } };
	struct thp_pfn_nodes t = { .n = 2, .r = r };
	(void)state;

	assert_int_equal(thp_pfn_sole_node(&t), 3);
	t.n = 3;
	assert_int_equal(thp_pfn_sole_node(&t), -1);
	t.n = 0;
	assert_int_equal(thp_pfn_sole_node(&t), -1);
}

static uint64_t sum(const uint64_t *v)
{
	uint64_t t = 0;
	for (int i = 0; i < THP_FOLIO_NODES; i++)
		t += v[i];
	return t;
}

/* The folios of each process of the fixture by node add up to its totals. */
static void folio_nodes(void **state)
{
	static const pid_t pids[] = { 4242, 4300 };
	struct thp_root root;
	struct thp_folio_reader *fr;
	static struct thp_folio_stats s;
	static struct thp_walk w;
	(void)state;

	assert_int_equal(thp_root_open(&root, "tests/fixtures/folios-numa"), 0);
	assert_int_equal(thp_folio_reader_open(&root, &fr), 0);
	for (size_t i = 0; i < sizeof(pids) / sizeof(pids[0]); i++) {
		w = (struct thp_walk){ .fr = fr };
		assert_int_equal(thp_proc_walk(&root, &(struct thp_pstatus){ .pid = pids[i] }, &w), 0);
		s = w.folios;
		assert_true(sum(s.node_pmd) == thp_folio_pmd(&s));
		assert_true(sum(s.node_mthp) == thp_folio_mthp(&s));
	}
	/* 4300: 16 MiB of 64 KiB folios, half on node 1, half on block 7 */
	assert_true(s.node_mthp[1] == 8u << 20);
	assert_true(s.node_mthp[THP_NUMA_MAX] == 8u << 20);
	w = (struct thp_walk){ .fr = fr };
	assert_int_equal(thp_proc_walk(&root, &(struct thp_pstatus){ .pid = 4242 }, &w), 0);
	s = w.folios;
	/* the PMD-mapped THP on node 0, the 8 MiB written on node 1; the 2 MiB
	 * folio mapped by PTEs stays mTHP on node 0 */
	assert_true(s.node_pmd[0] == 2u << 20);
	assert_true(s.node_pmd[1] == 8u << 20);
	assert_true(s.node_mthp[0] == thp_folio_mthp(&s));
	thp_folio_reader_close(fr);
	thp_root_close(&root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(block_size),
		cmocka_unit_test(block_names),
		cmocka_unit_test(table),
		cmocka_unit_test(sole_node),
		cmocka_unit_test(folio_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
