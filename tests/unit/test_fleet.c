/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the fleet model of 'thp report': documents, pairing, skipping, groups (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/fleet.h"

static char warned[4096];

static void warn(void *ctx, const char *source, const char *why)
{
	size_t n = strlen(warned);
	(void)ctx;
	snprintf(warned + n, sizeof(warned) - n, "%s: %s\n", source, why);
}

/* A status document of HOST with ENABLED and DEFRAG, mTHP 64K always. */
static int status(struct thp_fleet *f, const char *host, const char *enabled, const char *defrag)
{
	char doc[2048];

	snprintf(doc, sizeof(doc),
		 "{\"schema\": \"thp-status/1\", \"root\": \"/\", \"host\": \"%s\","
		 " \"kernel\": {\"release\": \"6.8.0\"},"
		 " \"settings\": [{\"name\": \"enabled\", \"kind\": \"choice\", \"value\": \"%s\"},"
		 "  {\"name\": \"defrag\", \"kind\": \"choice\", \"value\": \"%s\"},"
		 "  {\"name\": \"use_zero_page\", \"kind\": \"int\", \"value\": 1},"
		 "  {\"name\": \"hpage_pmd_size\", \"kind\": \"int\", \"value\": 2097152}],"
		 " \"khugepaged\": [{\"name\": \"max_ptes_none\", \"kind\": \"int\", \"value\": 511},"
		 "  {\"name\": \"full_scans\", \"kind\": \"int\", \"value\": 9}],"
		 " \"sizes\": [{\"size\": 65536, \"enabled\": {\"kind\": \"choice\", \"value\": \"always\"},"
		 "  \"anon_effective\": \"always\"}, {\"size\": 2097152, \"enabled\": {\"kind\": \"choice\","
		 "  \"value\": \"inherit\"}, \"anon_effective\": \"%s\"}],"
		 " \"vmstat\": {\"compact_stall\": 42}, \"fault_fallback_ratio\": 0.25,"
		 " \"meminfo\": {\"AnonHugePages\": 4194304}}",
		 host, enabled, defrag, enabled);
	return thp_fleet_parse(f, doc, strlen(doc), host, warn, NULL);
}

static void reads_status(void **state)
{
	struct thp_fleet f = { 0 };
	const struct thp_fleet_host *h;
	(void)state;

	assert_int_equal(status(&f, "db1", "always", "madvise"), 1);
	assert_int_equal(f.n, 1);
	h = &f.v[0];
	assert_string_equal(h->name, "db1");
	assert_string_equal(h->kernel, "6.8.0");
	assert_string_equal(thp_fleet_setting(h, "enabled"), "always");
	assert_string_equal(thp_fleet_setting(h, "khugepaged.max_ptes_none"), "511");
	assert_string_equal(thp_fleet_setting(h, "hugepages.64K.enabled"), "always");
	assert_null(thp_fleet_setting(h, "hpage_pmd_size"));        /* read-only */
	assert_null(thp_fleet_setting(h, "khugepaged.full_scans")); /* a counter */
	assert_string_equal(h->policy->sizes, "64K 2M");
	assert_int_equal(h->anon_huge, 4194304);
	assert_int_equal(h->stalls, 42);
	assert_true(h->fallback == 0.25);
	assert_int_equal(h->findings[2], -1); /* no doctor document */
	thp_fleet_free(&f);
}

/* thp-status/2: a size's settings are words, meminfo a table. */
static void reads_status2(void **state)
{
	static const char doc[] =
		"{\"schema\": \"thp-status/2\", \"root\": \"/\", \"host\": \"db2\","
		" \"settings\": [{\"name\": \"enabled\", \"kind\": \"choice\", \"value\": \"madvise\"}],"
		" \"sizes\": [{\"size\": 65536, \"enabled\": \"always\", \"anon_effective\": \"always\","
		"  \"shmem_enabled\": null}],"
		" \"vmstat\": {\"compact_stall\": 7},"
		" \"meminfo\": [{\"name\": \"MemTotal\", \"value\": 1}, {\"name\": \"AnonHugePages\", \"value\": 2097152}]}";
	struct thp_fleet f = { 0 };
	const struct thp_fleet_host *h;
	(void)state;

	assert_int_equal(thp_fleet_parse(&f, doc, strlen(doc), "db2", warn, NULL), 1);
	h = &f.v[0];
	assert_string_equal(thp_fleet_setting(h, "enabled"), "madvise");
	assert_string_equal(thp_fleet_setting(h, "hugepages.64K.enabled"), "always");
	assert_null(thp_fleet_setting(h, "hugepages.64K.shmem_enabled"));
	assert_string_equal(h->policy->sizes, "64K");
	assert_int_equal(h->anon_huge, 2097152);
	assert_int_equal(h->stalls, 7);
	thp_fleet_free(&f);
}

static void pairs_doctor(void **state)
{
	static const char doctor[] =
		"{\"schema\": \"thp-doctor/1\", \"root\": \"/\", \"host\": \"db1\", \"findings\": ["
		"{\"id\": \"a\", \"severity\": \"crit\"}, {\"id\": \"b\", \"severity\": \"warn\"},"
		"{\"id\": \"c\", \"severity\": \"warn\"}]}";
	struct thp_fleet f = { 0 };
	(void)state;

	assert_int_equal(status(&f, "db1", "always", "madvise"), 1);
	assert_int_equal(status(&f, "db2", "always", "madvise"), 1);
	assert_int_equal(thp_fleet_parse(&f, doctor, strlen(doctor), "d.json", warn, NULL), 1);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.v[0].findings[2], 1);
	assert_int_equal(f.v[0].findings[1], 2);
	assert_int_equal(f.v[0].findings[0], 0);
	assert_string_equal(f.v[0].source[1], "d.json");
	assert_int_equal(f.v[1].findings[1], -1);
	/* a second status document of db1 is another host line */
	assert_int_equal(status(&f, "db1", "never", "never"), 1);
	assert_int_equal(f.n, 3);
	thp_fleet_free(&f);
}

static void several_and_arrays(void **state)
{
	static const char two[] = "{\"schema\": \"thp-doctor/1\", \"root\": \"/srv/cap/web1/\", \"host\": null,"
				  " \"findings\": []}\n [{\"schema\": \"thp-doctor/1\", \"root\": \"/\","
				  " \"findings\": []}, 7]";
	struct thp_fleet f = { 0 };
	(void)state;

	warned[0] = '\0';
	assert_int_equal(thp_fleet_parse(&f, two, strlen(two), "all.json", warn, NULL), 2);
	assert_int_equal(f.n, 2);
	assert_string_equal(f.v[0].name, "web1");     /* the root's last part */
	assert_string_equal(f.v[1].name, "all.json"); /* a live root: the file */
	assert_non_null(strstr(warned, "all.json (document 2) [1]: not an object"));
	thp_fleet_free(&f);
}

static void skips_foreign_and_malformed(void **state)
{
	static const char *const bad[] = {
		"{\"schema\": \"thp-ps/1\"}", "{\"hello\": 1}", "[1, 2", "not json", "{\"schema\": \"thp-status/1\"}",
		"{\"schema\": \"thp-doctor/1\", \"findings\": 3}", "",
	};
	struct thp_fleet f = { 0 };
	(void)state;

	warned[0] = '\0';
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(thp_fleet_parse(&f, bad[i], strlen(bad[i]), "x", warn, NULL), 0);
	assert_int_equal(f.n, 0);
	assert_non_null(strstr(warned, "x: a 'thp-ps/1' document, not thp status or doctor JSON"));
	assert_non_null(strstr(warned, "x: an object without a schema"));
	assert_non_null(strstr(warned, "x: not JSON at byte"));
	assert_non_null(strstr(warned, "without its settings"));
	assert_non_null(strstr(warned, "without its findings"));
	assert_non_null(strstr(warned, "x: empty (no JSON document in it)"));
	thp_fleet_free(&f);
}

static void groups(void **state)
{
	static const char doctor_only[] = "{\"schema\": \"thp-doctor/1\", \"host\": \"lone\", \"findings\": []}";
	struct thp_fleet f = { 0 };
	const char *keys[8];
	int group[8];
	(void)state;

	status(&f, "a", "always", "always");
	status(&f, "b", "madvise", "madvise");
	status(&f, "c", "madvise", "madvise");
	thp_fleet_parse(&f, doctor_only, strlen(doctor_only), "d", warn, NULL);
	status(&f, "e", "madvise", "madvise");
	assert_int_equal(thp_fleet_group(&f, group), 3);
	assert_int_equal(group[1], 0); /* the most hosts: b, c, e */
	assert_int_equal(group[2], 0);
	assert_int_equal(group[4], 0);
	assert_int_equal(group[0], 1);
	assert_int_equal(group[3], 2); /* unknown policy comes last */
	/* hosts of one policy share one copy of it */
	assert_int_equal(f.npol, 2);
	assert_ptr_equal(f.v[1].policy, f.v[2].policy);
	assert_ptr_equal(f.v[1].policy, f.v[4].policy);
	assert_ptr_not_equal(f.v[0].policy, f.v[1].policy);
	assert_null(f.v[3].policy);
	/* hugepages.2M.enabled is inherit in both: its effective value differs, the setting does not */
	assert_int_equal(thp_fleet_policy_diff(&f.v[1], &f.v[0], keys, 8), 2);
	assert_string_equal(keys[0], "defrag");
	assert_string_equal(keys[1], "enabled");
	thp_fleet_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_status), cmocka_unit_test(reads_status2),
		cmocka_unit_test(pairs_doctor),
		cmocka_unit_test(several_and_arrays),
		cmocka_unit_test(skips_foreign_and_malformed),
		cmocka_unit_test(groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
