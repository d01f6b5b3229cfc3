/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of setting keys, the saved-state/tmpfiles/unit/cmdline forms,
 * and the settings model's checks (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "control/drift.h"
#include "control/settings.h"
#include "core/keys.h"
#include "core/persist.h"

#define FIXTURE "tests/fixtures/live-6.18"

static void keys(void **state)
{
	struct thp_key k;
	char buf[256];
	uint64_t b;
	(void)state;

	assert_int_equal(thp_key_parse("enabled", &k), 0);
	assert_int_equal(k.group, THP_KEY_TOP);
	assert_int_equal(k.type, THP_VAL_CHOICE);
	assert_int_equal(thp_key_parse("khugepaged.max_ptes_none", &k), 0);
	assert_int_equal(k.type, THP_VAL_PTES);
	thp_key_path(&k, buf, sizeof(buf));
	assert_string_equal(buf, "sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none");
	assert_int_equal(thp_key_parse("hugepages.64k.shmem_enabled", &k), 0);
	assert_true(k.size == 65536);
	thp_key_format(&k, buf, sizeof(buf));
	assert_string_equal(buf, "hugepages.64K.shmem_enabled");
	thp_key_path(&k, buf, sizeof(buf));
	assert_string_equal(buf, "sys/kernel/mm/transparent_hugepage/hugepages-64kB/shmem_enabled");
	assert_int_equal(thp_key_parse("hugepages.all.enabled", &k), 0);
	assert_true(k.size == 0);
	assert_int_equal(thp_key_parse("hugepages.2048kB.enabled", &k), 0);
	assert_true(k.size == 2u << 20);
	/* read-only files, unknown names and bad sizes */
	assert_int_equal(thp_key_parse("hpage_pmd_size", &k), -ENOENT);
	assert_int_equal(thp_key_parse("khugepaged.full_scans", &k), -ENOENT);
	assert_int_equal(thp_key_parse("khugepaged.enabled", &k), -ENOENT);
	assert_int_equal(thp_key_parse("hugepages.64K.defrag", &k), -ENOENT);
	assert_int_equal(thp_key_parse("hugepages.64X.enabled", &k), -EINVAL);
	assert_int_equal(thp_key_parse("hugepages.0K.enabled", &k), -EINVAL);
	assert_int_equal(thp_key_parse("hugepages.enabled", &k), -ENOENT);
	assert_int_equal(thp_key_parse("", &k), -ENOENT);
	/* paths back to keys */
	assert_int_equal(thp_key_from_path("/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "hugepages.2M.enabled");
	assert_int_equal(thp_key_from_path("/sys/kernel/mm/transparent_hugepage/khugepaged/defrag", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "khugepaged.defrag");
	assert_int_equal(thp_key_from_path("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(thp_key_from_path("/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/stats/split", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(thp_key_from_path("/proc/sys/vm/nr_hugepages", buf, sizeof(buf)), -ENOENT);
	/* sizes */
	assert_int_equal(thp_size_parse("1G", 2, &b), 0);
	assert_true(b == 1u << 30);
	assert_int_equal(thp_size_parse("2MiB", 4, &b), 0);
	assert_true(b == 2u << 20);
	assert_int_equal(thp_size_parse("0K", 2, &b), -EINVAL);
	assert_int_equal(thp_size_parse("K", 1, &b), -EINVAL);
	assert_int_equal(thp_size_parse("64Kx", 4, &b), -EINVAL);
	assert_string_equal(thp_size_name(1536u << 10, buf, sizeof(buf)), "1536K");
	assert_string_equal(thp_size_name(1u << 30, buf, sizeof(buf)), "1G");
}

static void kvlist(void **state)
{
	struct thp_kvlist l = { 0 };
	(void)state;

	assert_int_equal(thp_kv_set(&l, "hugepages.2M.enabled", "inherit", 0), 0);
	assert_int_equal(thp_kv_set(&l, "hugepages.64K.shmem_enabled", "never", 0), 0);
	assert_int_equal(thp_kv_set(&l, "hugepages.64K.enabled", "always", 0), 0);
	assert_int_equal(thp_kv_set(&l, "khugepaged.defrag", "0", 0), 0);
	assert_int_equal(thp_kv_set(&l, "defrag", "never", 0), 0);
	assert_int_equal(thp_kv_set(&l, "enabled", "madvise", 0), 0);
	assert_int_equal(thp_kv_set(&l, "enabled", "never", 3), 0);
	assert_int_equal(l.n, 6);
	assert_string_equal(thp_kv_get(&l, "enabled")->value, "never");
	assert_int_equal(thp_kv_get(&l, "enabled")->line, 3);
	thp_kv_sort(&l);
	/* write order: top-level, khugepaged, then per-size by size */
	assert_string_equal(l.v[0].key, "enabled");
	assert_string_equal(l.v[1].key, "defrag");
	assert_string_equal(l.v[2].key, "khugepaged.defrag");
	assert_string_equal(l.v[3].key, "hugepages.64K.enabled");
	assert_string_equal(l.v[4].key, "hugepages.64K.shmem_enabled");
	assert_string_equal(l.v[5].key, "hugepages.2M.enabled");
	assert_int_equal(thp_kv_set(&l, "enabled", "a-value-far-too-long-for-it", 0), -E2BIG);
}

static void state_file(void **state)
{
	struct thp_kvlist l, back;
	char *text;
	int bad;
	(void)state;

	assert_int_equal(thp_state_parse("# saved\n\nenabled=never\n  defrag = madvise \n"
					 "hugepages.2048kB.enabled=inherit\n", &l, &bad), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[1].value, "madvise");
	assert_string_equal(l.v[2].key, "hugepages.2M.enabled");
	assert_int_equal(l.v[2].line, 5);
	text = thp_state_format(&l, "two\nlines");
	assert_non_null(text);
	assert_string_equal(text, "# two\n# lines\nenabled=never\ndefrag=madvise\nhugepages.2M.enabled=inherit\n");
	assert_int_equal(thp_state_parse(text, &back, &bad), 0);
	assert_int_equal(back.n, l.n);
	for (int i = 0; i < l.n; i++) {
		assert_string_equal(back.v[i].key, l.v[i].key);
		assert_string_equal(back.v[i].value, l.v[i].value);
	}
	free(text);
	assert_int_equal(thp_state_parse("enabled=never\nbogus=1\n", &l, &bad), -EINVAL);
	assert_int_equal(bad, 2);
	assert_int_equal(thp_state_parse("enabled\n", &l, &bad), -EINVAL);
	assert_int_equal(thp_state_parse("enabled=\n", &l, &bad), -EINVAL);
	assert_int_equal(thp_state_parse("=never\n", &l, &bad), -EINVAL);
	assert_int_equal(thp_state_parse("hugepages.all.enabled=never\n", &l, &bad), -EINVAL);
	assert_int_equal(thp_state_parse("khugepaged.full_scans=3\n", &l, &bad), -EINVAL);
}

static void tmpfiles(void **state)
{
	struct thp_kvlist l = { 0 };
	(void)state;

	assert_int_equal(thp_tmpfiles_parse(
		"# comment\n"
		"d /run/foo 0755 root root -\n"
		"w /sys/kernel/mm/transparent_hugepage/enabled - - - - never\n"
		"w- /sys/kernel/mm/transparent_hugepage/defrag - - - - defer+madvise   \n"
		"w /sys/kernel/mm/transparent_hugepage/enabled - - - - always\n" /* first wins */
		"f /sys/kernel/mm/transparent_hugepage/use_zero_page - - - - 0\n" /* not 'w' */
		"w /sys/kernel/mm/transparent_hugepage/hpage_pmd_size - - - - 1\n" /* read-only */
		"w /sys/kernel/mm/transparent_hugepage/khugepaged/defrag - - -\n" /* no argument */
		"w /proc/sys/vm/swappiness - - - - 10\n"
		"w+ /sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled - - - - inherit\n",
		&l), 3);
	assert_string_equal(thp_kv_get(&l, "enabled")->value, "never");
	assert_int_equal(thp_kv_get(&l, "enabled")->line, 3);
	assert_string_equal(thp_kv_get(&l, "defrag")->value, "defer+madvise");
	assert_string_equal(thp_kv_get(&l, "hugepages.64K.enabled")->value, "inherit");
	assert_null(thp_kv_get(&l, "use_zero_page"));
}

static void unit_file(void **state)
{
	struct thp_kvlist l = { 0 };
	(void)state;

	/* a hand-written unit in the common style */
	assert_int_equal(thp_unit_parse(
		"[Service]\n"
		"ExecStart=/bin/sh -c 'echo never > /sys/kernel/mm/transparent_hugepage/enabled'\n"
		"ExecStart=/bin/sh -c \"echo never >/sys/kernel/mm/transparent_hugepage/defrag\"\n"
		"ExecStart=/bin/sh -c ' \\\n"
		"    if test -f /sys/kernel/mm/transparent_hugepage/khugepaged/defrag; then \\\n"
		"        echo 0 > /sys/kernel/mm/transparent_hugepage/khugepaged/defrag; \\\n"
		"    fi'\n"
		"ExecStart=/bin/echo hello\n", &l), 3);
	assert_string_equal(thp_kv_get(&l, "enabled")->value, "never");
	assert_string_equal(thp_kv_get(&l, "defrag")->value, "never");
	assert_string_equal(thp_kv_get(&l, "khugepaged.defrag")->value, "0");
	assert_int_equal(thp_kv_get(&l, "khugepaged.defrag")->line, 6);
}

static void cmdline(void **state)
{
	static const uint64_t sizes[] = { 16384, 32768, 65536, 131072, 2097152 };
	struct thp_kvlist l = { 0 }, rest, back = { 0 };
	char *s;
	(void)state;

	thp_kv_set(&l, "enabled", "madvise", 0);
	thp_kv_set(&l, "defrag", "never", 0);
	thp_kv_set(&l, "hugepages.16K.enabled", "never", 0);
	thp_kv_set(&l, "hugepages.64K.enabled", "always", 0);
	thp_kv_set(&l, "hugepages.32K.enabled", "never", 0);
	thp_kv_set(&l, "hugepages.2M.enabled", "inherit", 0);
	thp_kv_set(&l, "hugepages.2M.shmem_enabled", "within_size", 0);
	s = thp_cmdline_format(&l, &rest);
	assert_string_equal(s, "transparent_hugepage=madvise thp_anon=16K,32K:never thp_anon=64K:always "
			       "thp_anon=2M:inherit thp_shmem=2M:within_size");
	assert_int_equal(rest.n, 1);
	assert_string_equal(rest.v[0].key, "defrag");
	/* parsed back, it sets what it was made from */
	assert_int_equal(thp_cmdline_parse(s, sizes, 5, &back), 5);
	assert_int_equal(back.n, l.n - 1);
	for (int i = 0; i < back.n; i++)
		assert_string_equal(thp_kv_get(&l, back.v[i].key)->value, back.v[i].value);
	free(s);
	/* ranges cover the sizes the kernel has; options after "--" go to init */
	memset(&back, 0, sizeof(back));
	assert_int_equal(thp_cmdline_parse("quiet thp_anon=16K-64K:madvise;2M:never transparent_hugepage_shmem=advise -- thp_shmem=2M:always",
					   sizes, 5, &back), 2);
	assert_int_equal(back.n, 5);
	assert_string_equal(thp_kv_get(&back, "hugepages.32K.enabled")->value, "madvise");
	assert_string_equal(thp_kv_get(&back, "hugepages.2M.enabled")->value, "never");
	assert_null(thp_kv_get(&back, "hugepages.128K.enabled"));
	assert_string_equal(thp_kv_get(&back, "shmem_enabled")->value, "advise");
	s = thp_cmdline_format(&rest, &back);
	assert_string_equal(s, "");
	free(s);
}

/* Every form 'thp persist' writes parses back to the settings it was made from. */
static void persist_round_trip(void **state)
{
	struct thp_root r;
	struct thp_knobs *ks = malloc(sizeof(*ks));
	struct thp_kvlist *l = malloc(sizeof(*l)), *back = calloc(1, sizeof(*back));
	char *t;
	int bad;
	(void)state;

	assert_int_equal(thp_root_open(&r, FIXTURE), 0);
	assert_int_equal(thp_knobs_read(&r, ks), 0);
	thp_knobs_snapshot(ks, l);
	assert_int_equal(l->n, 29);
	t = thp_tmpfiles_format(l);
	assert_int_equal(thp_tmpfiles_parse(t, back), l->n);
	free(t);
	for (int i = 0; i < l->n; i++) {
		assert_string_equal(back->v[i].key, l->v[i].key);
		assert_string_equal(back->v[i].value, l->v[i].value);
	}
	memset(back, 0, sizeof(*back));
	t = thp_unit_format(l);
	assert_int_equal(thp_unit_parse(t, back), l->n);
	free(t);
	for (int i = 0; i < l->n; i++)
		assert_string_equal(thp_kv_get(back, l->v[i].key)->value, l->v[i].value);
	t = thp_state_format(l, "x");
	assert_int_equal(thp_state_parse(t, back, &bad), 0);
	assert_int_equal(back->n, l->n);
	free(t);
	thp_root_close(&r);
	free(ks);
	free(l);
	free(back);
}

/* Forgets what KS was asked for, so that a setting may be asked again. */
static void unask(struct thp_knobs *ks)
{
	for (int i = 0; i < ks->n; i++) {
		ks->k[i].want[0] = '\0';
		ks->k[i].want_all = false;
	}
}

static void knob_checks(void **state)
{
	struct thp_root r;
	struct thp_knobs *ks = malloc(sizeof(*ks));
	char why[256];
	(void)state;

	assert_int_equal(thp_root_open(&r, FIXTURE), 0);
	assert_int_equal(thp_knobs_read(&r, ks), 0);
	assert_true(ks->ptes_max == 511);
	/* write order: top-level, khugepaged, per-size ascending */
	assert_string_equal(ks->k[0].key, "enabled");
	assert_string_equal(ks->k[5].key, "khugepaged.defrag");
	assert_string_equal(ks->k[12].key, "hugepages.8K.shmem_enabled");
	assert_string_equal(ks->k[ks->n - 1].key, "hugepages.2M.shmem_enabled");
	assert_int_equal(thp_knobs_want(ks, "enabled", "sometimes", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'enabled' accepts always, madvise, never");
	assert_int_equal(thp_knobs_want(ks, "enabled", "always", why, sizeof(why)), 0);
	/* a setting is asked for once */
	assert_int_equal(thp_knobs_want(ks, "enabled", "always", why, sizeof(why)), -EEXIST);
	assert_string_equal(why, "'enabled' is given twice");
	assert_int_equal(thp_knobs_want(ks, "shmem_enabled", "force", why, sizeof(why)), 0);
	assert_int_equal(thp_knobs_want(ks, "khugepaged.max_ptes_none", "512", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_knobs_want(ks, "khugepaged.max_ptes_none", "511", why, sizeof(why)), 0);
	assert_int_equal(thp_knobs_want(ks, "khugepaged.pages_to_scan", "0", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_knobs_want(ks, "khugepaged.scan_sleep_millisecs", "4294967296", why, sizeof(why)), -EINVAL);
	/* a number as a user types it: decimal, no leading zero; a file may have one */
	assert_int_equal(thp_knobs_want(ks, "khugepaged.scan_sleep_millisecs", "007", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'khugepaged.scan_sleep_millisecs' accepts a decimal integer from 0 to 4294967295");
	assert_int_equal(thp_knobs_want(ks, "khugepaged.scan_sleep_millisecs", "0x7", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_knobs_want(ks, "khugepaged.scan_sleep_millisecs", "7", why, sizeof(why)), 0);
	assert_string_equal(thp_knob_find(ks, "khugepaged.scan_sleep_millisecs")->want, "7");
	char canon[THP_VALUE_MAX];
	assert_int_equal(thp_knob_check(ks, thp_knob_find(ks, "khugepaged.scan_sleep_millisecs"), "007\n",
					false, canon, why, sizeof(why)), 0);
	assert_string_equal(canon, "7");
	assert_int_equal(thp_knobs_want(ks, "use_zero_page", "2", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_knobs_want(ks, "use_zero_page", "-1", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_knobs_want(ks, "hugepages.8K.enabled", "never", why, sizeof(why)), -ENOENT);
	assert_int_equal(thp_knobs_want(ks, "hugepages.4M.enabled", "never", why, sizeof(why)), -ENOENT);
	assert_int_equal(thp_knobs_want(ks, "hugepages.2M.enabled", "within_size", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_knobs_want(ks, "anon_beside_full", "1", why, sizeof(why)), -ENOENT);
	/* "all" reaches every size with the file: 8K has shmem_enabled only */
	assert_int_equal(thp_knobs_want(ks, "hugepages.all.enabled", "never", why, sizeof(why)), 0);
	assert_int_equal(thp_knobs_changes(ks), 4); /* enabled, shmem_enabled, scan_sleep, 2M */
	assert_string_equal(thp_knob_find(ks, "hugepages.2M.enabled")->want, "never");
	/* a size's own key may follow "all"; "all" may not follow it, nor come twice */
	assert_int_equal(thp_knobs_want(ks, "hugepages.2M.enabled", "always", why, sizeof(why)), 0);
	assert_string_equal(thp_knob_find(ks, "hugepages.2M.enabled")->want, "always");
	assert_int_equal(thp_knobs_want(ks, "hugepages.2048K.enabled", "never", why, sizeof(why)), -EEXIST);
	assert_string_equal(why, "'hugepages.2M.enabled' is given twice");
	assert_int_equal(thp_knobs_want(ks, "hugepages.all.enabled", "never", why, sizeof(why)), -EEXIST);
	assert_string_equal(why, "'hugepages.all.enabled' is given twice");
	unask(ks);
	assert_int_equal(thp_knobs_want(ks, "hugepages.64K.shmem_enabled", "never", why, sizeof(why)), 0);
	assert_int_equal(thp_knobs_want(ks, "hugepages.all.shmem_enabled", "never", why, sizeof(why)), -EEXIST);
	assert_string_equal(why, "'hugepages.64K.shmem_enabled' is given twice ('hugepages.all.shmem_enabled' covers it too)");
	thp_root_close(&r);
	free(ks);
}

static void drift(void **state)
{
	struct thp_root r;
	struct thp_knobs *ks = malloc(sizeof(*ks));
	struct thp_persisted *p = calloc(1, sizeof(*p));
	struct thp_drift d[8];
	(void)state;

	assert_int_equal(thp_root_open(&r, FIXTURE), 0);
	assert_int_equal(thp_knobs_read(&r, ks), 0);
	p->nsources = 1;
	strcpy(p->sources[0], "/etc/tmpfiles.d/thp.conf");
	thp_kv_set(&p->values, "enabled", "madvise", 1);   /* agrees */
	thp_kv_set(&p->values, "defrag", "never", 2);      /* drift */
	thp_kv_set(&p->values, "shmem_enabled", "huge", 3); /* refused */
	thp_kv_set(&p->values, "hugepages.4M.enabled", "never", 4); /* absent */
	thp_kv_set(&p->values, "khugepaged.pages_to_scan", "04096", 5); /* agrees */
	assert_int_equal(thp_drift_check(ks, p, d, 8), 3);
	assert_string_equal(d[0].key, "defrag");
	assert_string_equal(d[0].running, "madvise");
	assert_string_equal(d[0].refused, "");
	assert_int_equal(d[0].line, 2);
	assert_string_equal(d[1].key, "shmem_enabled");
	assert_string_equal(d[1].refused, "'shmem_enabled' accepts always, within_size, advise, never, deny, force");
	assert_string_equal(d[2].running, "");
	assert_string_equal(d[2].refused, "this kernel has no 'hugepages.4M.enabled'");
	thp_root_close(&r);
	free(ks);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keys),      cmocka_unit_test(kvlist),
		cmocka_unit_test(state_file), cmocka_unit_test(tmpfiles),
		cmocka_unit_test(unit_file), cmocka_unit_test(cmdline),
		cmocka_unit_test(persist_round_trip), cmocka_unit_test(knob_checks),
		cmocka_unit_test(drift),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
