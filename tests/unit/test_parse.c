/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the kernel-text parsers (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/parse.h"
#include "core/proc.h"

static void choice_ok(void **state)
{
	struct thp_choice c;
	(void)state;
	assert_int_equal(thp_parse_choice("always [madvise] never\n", &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.sel, 1);
	assert_string_equal(c.words[1], "madvise");
	assert_int_equal(thp_parse_choice("[always] defer defer+madvise madvise never", &c), 0);
	assert_int_equal(c.sel, 0);
	assert_string_equal(c.words[2], "defer+madvise");
	assert_int_equal(thp_choice_find(&c, "never"), 4);
	assert_int_equal(thp_choice_find(&c, "nope"), -1);
	/* trailing spaces and tabs, a selection at the end */
	assert_int_equal(thp_parse_choice("  always\tinherit madvise [never]   \n\n", &c), 0);
	assert_int_equal(c.sel, 3);
	assert_int_equal(c.n, 4);
}

static void choice_bad(void **state)
{
	struct thp_choice c;
	(void)state;
	assert_int_equal(thp_parse_choice("always madvise never", &c), -EINVAL);   /* no brackets */
	assert_int_equal(thp_parse_choice("[always] [never]", &c), -EINVAL);       /* doubled */
	assert_int_equal(thp_parse_choice("[always never", &c), -EINVAL);          /* unclosed */
	assert_int_equal(thp_parse_choice("always] never", &c), -EINVAL);          /* unopened */
	assert_int_equal(thp_parse_choice("[]", &c), -EINVAL);                     /* empty word */
	assert_int_equal(thp_parse_choice("", &c), -EINVAL);                       /* empty file */
	assert_int_equal(thp_parse_choice("\n", &c), -EINVAL);
	assert_int_equal(thp_parse_choice("[a]b", &c), -EINVAL);                   /* glued */
	assert_int_equal(thp_parse_choice("[[a]]", &c), -EINVAL);
	assert_int_equal(thp_parse_choice("[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]", &c), -E2BIG);
	assert_int_equal(thp_parse_choice("a b c d e f g h i j k l m n o p [q]", &c), -E2BIG);
}

static void u64_cases(void **state)
{
	uint64_t v = 7;
	(void)state;
	assert_int_equal(thp_parse_u64("4096\n", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(thp_parse_u64("  0  ", &v), 0);
	assert_true(v == 0);
	assert_int_equal(thp_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(thp_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(thp_parse_u64("99999999999999999999999", &v), -ERANGE);
	assert_int_equal(thp_parse_u64("-1", &v), -EINVAL);
	assert_int_equal(thp_parse_u64("", &v), -EINVAL);
	assert_int_equal(thp_parse_u64("12abc", &v), -EINVAL);
	assert_int_equal(thp_parse_u64("1 2", &v), -EINVAL);
	assert_int_equal(thp_parse_u64("0x10", &v), -EINVAL);
	assert_int_equal(thp_parse_u64("+5", &v), -EINVAL);
}

struct kv {
	int n;
	char keys[16][48];
	uint64_t vals[16];
};

static int kv_collect(const char *key, size_t klen, uint64_t val, void *ctx)
{
	struct kv *kv = ctx;
	if (kv->n < 16) {
		snprintf(kv->keys[kv->n], sizeof(kv->keys[0]), "%.*s", (int)klen, key);
		kv->vals[kv->n++] = val;
	}
	return 0;
}

static void vmstat_lines(void **state)
{
	struct kv kv = { 0 };
	(void)state;
	thp_parse_vmstat("thp_fault_alloc 3006\nthp_fault_fallback 706\nbroken\n"
			 "neg -5\nbig 18446744073709551616\nx 1 2\n\ncompact_stall\t2631", kv_collect, &kv);
	assert_int_equal(kv.n, 3);
	assert_string_equal(kv.keys[0], "thp_fault_alloc");
	assert_true(kv.vals[0] == 3006);
	assert_string_equal(kv.keys[2], "compact_stall");
	assert_true(kv.vals[2] == 2631);
}

static void vmstat_long_line(void **state)
{
	struct kv kv = { 0 };
	size_t n = 1 << 20;
	char *buf = malloc(n + 64);
	(void)state;
	assert_non_null(buf);
	memset(buf, 'a', n);
	strcpy(buf + n, " 5\nthp_split_pmd 9\n");
	thp_parse_vmstat(buf, kv_collect, &kv);
	assert_int_equal(kv.n, 2);
	assert_true(kv.vals[1] == 9);
	free(buf);
}

static void meminfo_lines(void **state)
{
	struct kv kv = { 0 };
	(void)state;
	thp_parse_meminfo("MemTotal:       16384 kB\nAnonHugePages:  2048 kB\n"
			  "HugePages_Total:     4\nBad:  x kB\nNoColon 5\n"
			  "Huge:  18014398509481984 kB\nUnit:  5 MB\n", kv_collect, &kv);
	assert_int_equal(kv.n, 3);
	assert_true(kv.vals[0] == 16384ull * 1024);
	assert_true(kv.vals[1] == 2048ull * 1024);
	assert_string_equal(kv.keys[2], "HugePages_Total");
	assert_true(kv.vals[2] == 4); /* counts have no unit and stay counts */
}

struct params {
	int n;
	char keys[8][40];
	char vals[8][80];
	int flag[8];
};

static int param_collect(const char *key, size_t klen, const char *val, size_t vlen, void *ctx)
{
	struct params *p = ctx;
	if (p->n < 8) {
		snprintf(p->keys[p->n], 40, "%.*s", (int)klen, key);
		snprintf(p->vals[p->n], 80, "%.*s", val ? (int)vlen : 0, val ? val : "");
		p->flag[p->n++] = val == NULL;
	}
	return 0;
}

static void cmdline_params(void **state)
{
	struct params p = { 0 };
	(void)state;
	thp_parse_cmdline("BOOT_IMAGE=/vmlinuz ro  transparent_hugepage=madvise "
			  "thp_anon=\"64K,128K:always;2M:inherit\" quiet -- transparent_hugepage=always\n",
			  param_collect, &p);
	assert_int_equal(p.n, 5);
	assert_string_equal(p.keys[1], "ro");
	assert_true(p.flag[1]);
	assert_string_equal(p.keys[2], "transparent_hugepage");
	assert_string_equal(p.vals[2], "madvise");
	assert_string_equal(p.vals[3], "64K,128K:always;2M:inherit");
	assert_string_equal(p.keys[4], "quiet");
	memset(&p, 0, sizeof(p));
	thp_parse_cmdline("", param_collect, &p);
	assert_int_equal(p.n, 0);
	thp_parse_cmdline("a=\"unterminated b=c", param_collect, &p);
	assert_int_equal(p.n, 1);
}

static void release_and_dirs(void **state)
{
	int a, b;
	(void)state;
	assert_int_equal(thp_parse_release("6.12.94+deb13-amd64\n", &a, &b), 0);
	assert_int_equal(a, 6);
	assert_int_equal(b, 12);
	assert_int_equal(thp_parse_release("2.6.32-754.el6.x86_64", &a, &b), 0);
	assert_int_equal(b, 6);
	assert_int_equal(thp_parse_release("garbage", &a, &b), -EINVAL);
	assert_int_equal(thp_parse_release("6", &a, &b), -EINVAL);
	assert_true(thp_parse_size_dir("hugepages-2048kB") == 2048);
	assert_true(thp_parse_size_dir("hugepages-64kB") == 64);
	assert_true(thp_parse_size_dir("hugepages-kB") == 0);
	assert_true(thp_parse_size_dir("hugepages-64MB") == 0);
	assert_true(thp_parse_size_dir("khugepaged") == 0);
}

static void rollup(void **state)
{
	struct thp_rollup r;
	(void)state;
	assert_int_equal(thp_rollup_parse("55d0-7ffd ---p 00000000 00:00 0 [rollup]\n"
					  "Rss:   1024 kB\nAnonymous:  512 kB\nAnonHugePages: 2048 kB\n"
					  "Private_Hugetlb: 4096 kB\n", &r), 0);
	assert_true(r.rss == 1024 * 1024);
	assert_true(r.anon_huge == 2048 * 1024);
	assert_true(r.private_hugetlb == 4096 * 1024);
	assert_true(r.shmem_pmd == 0);
	assert_int_equal(thp_rollup_parse("", &r), -ENODATA);
}

static void task_status(void **state)
{
	struct thp_pstatus ps;
	(void)state;
	assert_int_equal(thp_pstatus_parse("Name:\tredis-server\nUmask:\t0022\nState:\tS (sleeping)\n"
					   "Tgid:\t812\nNgid:\t0\nPid:\t815\nPPid:\t1\n", &ps), 0);
	assert_int_equal(ps.tgid, 812);
	assert_int_equal(ps.pid, 815);
	assert_string_equal(ps.name, "redis-server");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(choice_ok),      cmocka_unit_test(choice_bad),
		cmocka_unit_test(u64_cases),      cmocka_unit_test(vmstat_lines),
		cmocka_unit_test(vmstat_long_line), cmocka_unit_test(meminfo_lines),
		cmocka_unit_test(cmdline_params), cmocka_unit_test(release_and_dirs),
		cmocka_unit_test(rollup),         cmocka_unit_test(task_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
