/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of thp_status_refresh(): what moves is read again, by the paths
 * the first read found, and nothing else; and of thp_status_read_policy():
 * the policies as the whole read finds them, nothing else (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "put.h"

#include "core/status.h"

#define FIXTURE "tests/fixtures/arm64-4k-6.18"
#define THP_DIR "sys/kernel/mm/transparent_hugepage"

static char dir[] = "/tmp/thp-refresh-test.XXXXXX";

/* Writes TEXT to REL below the copy of the fixture. */
static void put(const char *rel, const char *text)
{
	put_file(dir, rel, text);
}

static uint64_t size_stat(const struct thp_status *st, uint64_t bytes, const char *name)
{
	uint64_t v = UINT64_MAX;

	for (int i = 0; i < st->nsizes; i++)
		if (st->sizes[i].bytes == bytes)
			assert_true(thp_counter_get(st->sizes[i].stats, st->sizes[i].nstats, name, &v));
	return v;
}

static uint64_t khugepaged(const struct thp_status *st, const char *name)
{
	const struct thp_setting *s = thp_setting_find(st->khugepaged, st->nkhugepaged, name);

	assert_non_null(s);
	return s->num;
}

static void refresh_named(void **state)
{
	static const char *const stats[] = { "anon_fault_alloc" }, *const kh[] = { "pages_collapsed" };
	struct thp_status *st = calloc(1, sizeof(*st));
	struct thp_root root;
	char cmd[256];
	uint64_t v;
	(void)state;

	assert_non_null(st);
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -r %s/. %s", FIXTURE, dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(thp_root_open(&root, dir), 0);
	thp_status_read(&root, st, false);
	put(THP_DIR "/hugepages-64kB/stats/anon_fault_alloc", "77\n");
	put(THP_DIR "/hugepages-64kB/stats/anon_fault_fallback", "5\n");
	put(THP_DIR "/khugepaged/pages_collapsed", "9\n");
	put(THP_DIR "/khugepaged/full_scans", "3\n");
	put("proc/vmstat", "thp_fault_alloc 42\n");
	thp_status_refresh(&root, st, stats, 1, kh, 1);
	assert_true(size_stat(st, 65536, "anon_fault_alloc") == 77);
	assert_true(size_stat(st, 65536, "anon_fault_fallback") == 0); /* not named: as first read */
	assert_true(khugepaged(st, "pages_collapsed") == 9);
	assert_true(khugepaged(st, "full_scans") == 0);
	assert_true(thp_counter_get(st->vmstat, st->nvmstat, "thp_fault_alloc", &v));
	assert_true(v == 42);
	thp_root_close(&root);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(st);
}

static void policy_only(void **state)
{
	struct thp_status *all = calloc(1, sizeof(*all)), *pol = calloc(1, sizeof(*pol));
	struct thp_root root;
	(void)state;

	assert_non_null(all);
	assert_non_null(pol);
	assert_int_equal(thp_root_open(&root, FIXTURE), 0);
	thp_status_read(&root, all, false);
	thp_status_read_policy(&root, pol);
	assert_true(pol->pmd_size == all->pmd_size && pol->pmd_size);
	assert_true(pol->page_size == all->page_size);
	assert_int_equal(pol->kmajor, all->kmajor);
	assert_int_equal(pol->nsettings, all->nsettings);
	assert_int_equal(pol->nsizes, all->nsizes);
	assert_true(all->nsizes > 1 && all->sizes[0].nstats > 0);
	for (int i = 0; i < pol->nsizes; i++) {
		assert_true(pol->sizes[i].bytes == all->sizes[i].bytes);
		assert_string_equal(pol->sizes[i].anon_effective ? pol->sizes[i].anon_effective : "-",
				    all->sizes[i].anon_effective ? all->sizes[i].anon_effective : "-");
		assert_int_equal(pol->sizes[i].nstats, 0); /* no stats read */
	}
	assert_int_equal(pol->nkhugepaged, 0);
	assert_int_equal(pol->nvmstat, 0);
	assert_true(all->nkhugepaged > 0 && all->nvmstat > 0);
	thp_root_close(&root);
	free(all);
	free(pol);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refresh_named),
		cmocka_unit_test(policy_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
