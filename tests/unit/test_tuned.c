/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of tuned's active profile as tuned loads it: includes, the two
 * directory layouts, merging of units, variables, conditions and the
 * profiles tuned cannot load (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/tuned.h"
#include "put.h"

static char dir[64];

/* Writes TEXT to REL below the test directory, making its directories. */
static void put(const char *rel, const char *text)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s/%s')\"", dir, rel);
	assert_int_equal(system(cmd), 0);
	put_file(dir, rel, text);
}

/* Reads the tree SUB of the test directory into T. */
static void load_in(struct thp_tuned *t, const char *sub)
{
	struct thp_root r;
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	assert_int_equal(thp_root_open(&r, path), 0);
	thp_tuned_read(&r, t);
	thp_root_close(&r);
}

static void load(struct thp_tuned *t)
{
	load_in(t, ".");
}

/* The value tuned writes to KEY in T ("?" when unknown), or NULL. */
static const struct thp_tuned_value *get(const struct thp_tuned *t, const char *key)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->v[i].key, key) == 0)
			return &t->v[i];
	return NULL;
}

static void assert_value(const struct thp_tuned *t, const char *key, const char *value)
{
	const struct thp_tuned_value *v = get(t, key);

	assert_non_null(v);
	assert_null(v->unknown);
	assert_string_equal(v->value, value);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/thp-tuned-test.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[96];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* Two active profiles, includes separated by ';' and ',', both layouts:
 * a parent first, the child over it, the later active profile last. */
static void include_order(void **state)
{
	struct thp_tuned *t = malloc(sizeof(*t));
	(void)state;

	put("etc/tuned/active_profile", "child  extra\n");
	put("etc/tuned/child/tuned.conf", "[main]\ninclude = base ; other\n[vm]\ntransparent_hugepages=madvise\n");
	put("usr/lib/tuned/base/tuned.conf",
	    "# stock\n[vm]\ntransparent_hugepages=never\ntransparent_hugepage.defrag=never\n"
	    "[sysctl]\nvm.min_free_kbytes = 1000\nvm.swappiness = 10\nkernel.x = 1\n");
	/* tuned reads a '/' of a sysctl name as a '.' of the file's name */
	put("usr/lib/tuned/profiles/other/tuned.conf", "[sysctl]\nvm.watermark_scale_factor=150\nvm/extfrag_threshold=1\n");
	put("etc/tuned/profiles/extra/tuned.conf", "[vm]\ntransparent_hugepage.defrag=defer   # after base\n");
	load(t);
	assert_string_equal(t->problem, "");
	assert_string_equal(t->profiles, "child extra");
	assert_int_equal(t->nfiles, 4);
	assert_string_equal(t->files[0], "/etc/tuned/child/tuned.conf");
	assert_string_equal(t->files[1], "/usr/lib/tuned/base/tuned.conf");
	assert_string_equal(t->files[2], "/usr/lib/tuned/profiles/other/tuned.conf");
	assert_string_equal(t->files[3], "/etc/tuned/profiles/extra/tuned.conf");
	assert_int_equal(t->n, 4);
	assert_value(t, "enabled", "madvise");
	assert_int_equal(get(t, "enabled")->file, 0);
	assert_int_equal(get(t, "enabled")->line, 4);
	assert_string_equal(get(t, "enabled")->option, "[vm] transparent_hugepages");
	assert_value(t, "defrag", "defer");
	assert_value(t, "vm.min_free_kbytes", "1000");
	assert_true(get(t, "vm.min_free_kbytes")->sysctl);
	assert_value(t, "vm.watermark_scale_factor", "150");
	assert_null(get(t, "vm.extfrag_threshold"));
	assert_true(t->reapply_sysctl);
	free(t);
}

/* /etc/tuned/NAME including NAME reads /usr/lib/tuned/NAME, as tuned skips
 * a file read already. */
static void self_include(void **state)
{
	struct thp_tuned *t = malloc(sizeof(*t));
	(void)state;

	put("etc/tuned/active_profile", "balanced");
	put("etc/tuned/balanced/tuned.conf", "[main]\ninclude=balanced\n[vm]\ntransparent_hugepage.defrag=defer\n");
	put("usr/lib/tuned/balanced/tuned.conf", "[vm]\ntransparent_hugepages=never\n");
	load(t);
	assert_string_equal(t->problem, "");
	assert_int_equal(t->nfiles, 2);
	assert_value(t, "enabled", "never");
	assert_value(t, "defrag", "defer");
	free(t);
}

/* replace=true, enabled=false, type=, variables, sysfs paths, globs,
 * functions and continuation lines. */
static void units(void **state)
{
	struct thp_tuned *t = malloc(sizeof(*t));
	(void)state;

	put("etc/tuned/active_profile", "p");
	put("usr/lib/tuned/q/tuned.conf",
	    "[sysctl]\nvm.min_free_kbytes=1000\nvm.watermark_scale_factor=150\n"
	    "[thp]\ntype=vm\ntransparent_hugepages=always\n[variables]\nv=madvise\n");
	put("usr/lib/tuned/p/tuned.conf",
	    "[main]\ninclude=q\n[sysctl]\nreplace=true\nvm.watermark_boost_factor=0\n"
	    "[thp]\nenabled=false\n"
	    "[mine]\ntype=vm\ntransparent_hugepage.defrag=${v}\n"
	    "[sysfs]\n/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan=4096\n"
	    "/sys/kernel/mm/transparent_hugepage/hugepages-*/enabled=never\n"
	    "[sysctl2]\ntype=sysctl\nvm.extfrag_threshold = ${f:x}\nvm.zone_reclaim_mode=1\n  2\n"
	    "vm.compaction_proactiveness=>30\n");
	load(t);
	assert_string_equal(t->problem, "");
	assert_null(get(t, "vm.min_free_kbytes"));
	assert_null(get(t, "vm.watermark_scale_factor"));
	assert_value(t, "vm.watermark_boost_factor", "0");
	assert_null(get(t, "enabled"));
	assert_value(t, "defrag", "madvise");
	assert_value(t, "khugepaged.pages_to_scan", "4096");
	assert_string_equal(get(t, "khugepaged.pages_to_scan")->option,
			    "[sysfs] /sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan");
	assert_string_equal(get(t, "vm.extfrag_threshold")->unknown, "uses a variable");
	assert_string_equal(get(t, "vm.zone_reclaim_mode")->unknown, "spans several lines");
	assert_string_equal(get(t, "vm.compaction_proactiveness")->unknown,
			    "is written only when above or below the running value");
	assert_int_equal(t->n, 6);
	free(t);
}

/* transparent_hugepage= on the command line, units for other CPUs and
 * kernels, and tuned-main.conf. */
static void conditions(void **state)
{
	struct thp_tuned *t = malloc(sizeof(*t));
	(void)state;

	put("proc/cmdline", "BOOT_IMAGE=/vmlinuz ro transparent_hugepage=never\n");
	put("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n");
	put("proc/sys/kernel/ostype", "Linux\n");
	put("proc/sys/kernel/hostname", "h\n");
	put("proc/sys/kernel/osrelease", "6.1.0-30-amd64\n");
	put("proc/sys/kernel/version", "#1 SMP\n");
	put("proc/sys/kernel/arch", "x86_64\n");
	put("etc/tuned/tuned-main.conf", "# tuned\nreapply_sysctl = 0\n");
	put("etc/tuned/active_profile", "p");
	put("etc/tuned/p/tuned.conf",
	    "[variables]\nre=Ampere\n[vm]\ntransparent_hugepages=always\n"
	    "[arm]\ntype=sysctl\ncpuinfo_regex=${re}\nvm.min_free_kbytes=1\n"
	    "[arm2]\ntype=sysctl\nuname_regex=aarch64\nvm.watermark_scale_factor=1\n"
	    "[x86]\ntype=sysctl\nuname_regex=x86_64$\ncpuinfo_regex=^vendor_id\\s+: GenuineIntel\nvm.watermark_boost_factor=0\n"
	    "[odd]\ntype=sysctl\ncpuinfo_regex=${undefined}\nvm.zone_reclaim_mode=1\n");
	load(t);
	assert_string_equal(t->problem, "");
	assert_false(t->reapply_sysctl);
	assert_null(get(t, "enabled"));
	assert_null(get(t, "vm.min_free_kbytes"));
	assert_null(get(t, "vm.watermark_scale_factor"));
	assert_value(t, "vm.watermark_boost_factor", "0");
	assert_string_equal(get(t, "vm.zone_reclaim_mode")->unknown,
			    "is written only on hosts its cpuinfo_regex and uname_regex match");
	free(t);
}

/* profile_dirs of tuned-main.conf: only its directories, a later one
 * winning, each normalized as tuned does. */
static void profile_dirs(void **state)
{
	struct thp_tuned *t = malloc(sizeof(*t));
	struct thp_tuned_dirs d;
	struct thp_root r;
	(void)state;

	put("etc/tuned/tuned-main.conf", "daemon = 1\nprofile_dirs = /usr/lib/tuned/profiles, opt//site/./x/../profiles/ ,"
					  "/opt/empty\nreapply_sysctl = 0\n");
	put("etc/tuned/active_profile", "p");
	put("etc/tuned/p/tuned.conf", "[vm]\ntransparent_hugepages=madvise\n");
	put("usr/lib/tuned/profiles/p/tuned.conf", "[vm]\ntransparent_hugepages=never\n");
	put("opt/site/profiles/p/tuned.conf", "[main]\ninclude=q,p\n[vm]\ntransparent_hugepages=always\n");
	put("usr/lib/tuned/profiles/q/tuned.conf", "[vm]\ntransparent_hugepage.defrag=defer\n");
	load(t);
	assert_string_equal(t->problem, "");
	assert_false(t->reapply_sysctl);
	assert_int_equal(t->nfiles, 3);
	assert_string_equal(t->files[0], "/opt/site/profiles/p/tuned.conf");
	assert_string_equal(t->files[1], "/usr/lib/tuned/profiles/q/tuned.conf");
	assert_string_equal(t->files[2], "/usr/lib/tuned/profiles/p/tuned.conf");
	assert_value(t, "enabled", "always");
	assert_value(t, "defrag", "defer");
	assert_int_equal(thp_root_open(&r, dir), 0);
	thp_tuned_dirs_read(&r, &d);
	thp_root_close(&r);
	assert_true(d.configured);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.d[0], "opt/empty");
	assert_string_equal(d.d[1], "opt/site/profiles");
	assert_string_equal(d.d[2], "usr/lib/tuned/profiles");
	free(t);
}

/* A profile_dirs entry climbing out of the tree by '..' stays in it, as
 * tuned's normpath keeps '/..' at '/'; one leaving it by a link is not
 * followed. */
static void profile_dirs_hostile(void **state)
{
	static const struct {
		const char *dirs, *problem;
	} c[] = {
		{ "/../../out", "profile 'p' cannot be loaded: no such profile in the profile_dirs of "
				"/etc/tuned/tuned-main.conf; tuned applies none of its profiles" },
		{ "/etc/tuned/up", "cannot read /etc/tuned/up/p/tuned.conf: a link there points outside the recorded "
				   "tree; what tuned writes is not known here" },
		{ "/etc/tuned/abs", "cannot read /etc/tuned/abs/p/tuned.conf: a link there points outside the "
				    "recorded tree; what tuned writes is not known here" },
	};
	struct thp_tuned *t = malloc(sizeof(*t));
	char target[128], link[160];
	(void)state;

	put("out/p/tuned.conf", "[vm]\ntransparent_hugepages=always\n");
	put("root/etc/tuned/active_profile", "p");
	assert_int_equal(symlink("../../../out", strcat(strcpy(link, dir), "/root/etc/tuned/up")), 0);
	snprintf(target, sizeof(target), "%s/out", dir);
	assert_int_equal(symlink(target, strcat(strcpy(link, dir), "/root/etc/tuned/abs")), 0);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char conf[64];

		snprintf(conf, sizeof(conf), "profile_dirs=%s\n", c[i].dirs);
		put("root/etc/tuned/tuned-main.conf", conf);
		load_in(t, "root");
		assert_int_equal(t->n, 0);
		assert_string_equal(t->problem, c[i].problem);
	}
	free(t);
}

/* include= of [variables]: the file's variables where the include stands,
 * the profile's own after it winning; a child's variable over its parent's. */
static void variables_include(void **state)
{
	struct thp_tuned *t = malloc(sizeof(*t));
	(void)state;

	put("etc/tuned/active_profile", "p");
	put("etc/tuned/p/tuned.conf", "[main]\ninclude=b\n[variables]\ninclude=${i:PROFILE_DIR}/vars.conf\nmode=madvise\n"
				      "[vm]\ntransparent_hugepages=${mode}\ntransparent_hugepage.defrag=${d}\n"
				      "[sysctl]\nvm.min_free_kbytes=${kb}\nvm.watermark_scale_factor=${wsf}\n");
	put("etc/tuned/p/vars.conf", "# site\nmode=always\nd = defer   # a comment\n[more]\nkb=2048\n");
	put("usr/lib/tuned/b/tuned.conf", "[variables]\nwsf=150\nkb=1\n");
	load(t);
	assert_string_equal(t->problem, "");
	assert_value(t, "enabled", "madvise");
	assert_value(t, "defrag", "defer");
	assert_value(t, "vm.min_free_kbytes", "2048");
	assert_value(t, "vm.watermark_scale_factor", "150");
	assert_int_equal(t->nfiles, 2);
	/* a relative path is relative to tuned's directory, / */
	put("etc/tuned/p/tuned.conf", "[main]\ninclude=b\n[variables]\nwsf=7\ninclude=site/v.conf\n"
				      "[sysctl]\nvm.watermark_scale_factor=${wsf}\n");
	put("site/v.conf", "wsf=300\n");
	load(t);
	assert_string_equal(t->problem, "");
	assert_value(t, "vm.watermark_scale_factor", "300");
	/* the child's own variable wins over the one of the profile it includes */
	put("etc/tuned/p/tuned.conf", "[main]\ninclude=b\n[variables]\nwsf=7\n[sysctl]\nvm.watermark_scale_factor=${wsf}\n");
	load(t);
	assert_value(t, "vm.watermark_scale_factor", "7");
	free(t);
}

/* A variables file tuned cannot read or parse gives no variable and is
 * said; one out of the tree by '..' or a link is not read. */
static void variables_include_bad(void **state)
{
	static const struct {
		const char *include, *problem;
	} c[] = {
		{ "/etc/tuned/bad.conf", "/etc/tuned/bad.conf ([variables] include=) cannot be parsed: line 2 is "
					 "neither a [section] nor name=value; tuned reads none of its variables" },
		{ "/etc/tuned/none.conf", "cannot read /etc/tuned/none.conf, the variables file of [variables] include=: "
					  "No such file or directory; a value using its variables is not known here" },
		{ "../../../out/v.conf", "cannot read /out/v.conf, the variables file of [variables] include=: No such "
					 "file or directory; a value using its variables is not known here" },
		{ "/etc/tuned/up/v.conf", "cannot read /etc/tuned/up/v.conf, the variables file of [variables] "
					  "include=: a link there points outside the recorded tree; a value using its "
					  "variables is not known here" },
	};
	struct thp_tuned *t = malloc(sizeof(*t));
	char link[160];
	(void)state;

	put("out/v.conf", "wsf=300\n");
	put("root/etc/tuned/active_profile", "p");
	put("root/etc/tuned/bad.conf", "wsf=300\njunk\n");
	assert_int_equal(symlink("../../../out", strcat(strcpy(link, dir), "/root/etc/tuned/up")), 0);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char conf[256];

		snprintf(conf, sizeof(conf), "[variables]\ninclude=%s\n[sysctl]\nvm.watermark_scale_factor=${wsf}\n",
			 c[i].include);
		put("root/etc/tuned/p/tuned.conf", conf);
		load_in(t, "root");
		assert_string_equal(t->problem, c[i].problem);
		assert_string_equal(get(t, "vm.watermark_scale_factor")->unknown, "uses a variable");
	}
	free(t);
}

/* [sysfs] names with a glob write each THP file of this host they match,
 * '*' within one component of the path. */
static void sysfs_globs(void **state)
{
	static const char *const files[] = { "enabled", "defrag", "shmem_enabled", "khugepaged/pages_to_scan",
					     "khugepaged/defrag", "hugepages-64kB/enabled", "hugepages-2048kB/enabled",
					     "hpage_pmd_size" };
	struct thp_tuned *t = malloc(sizeof(*t));
	(void)state;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "sys/kernel/mm/transparent_hugepage/%s", files[i]);
		put(rel, "x\n");
	}
	put("etc/tuned/active_profile", "p");
	put("etc/tuned/p/tuned.conf", "[sysfs]\n/sys/kernel/mm/transparent_hugepage/hugepages-*/enabled=never\n"
				      "/sys/kernel/mm/*transparent_hugepage/enabled=madvise\n"
				      "/sys/kernel/*/enabled=always\n"
				      "/sys/kernel/mm/transparent_hugepage/khugepaged/*=0\n"
				      "/sys/kernel/mm/transparent_hugepage/[s]hmem_enable?=advise\n"
				      "/sys/kernel/mm/transparent_hugepage/hpage_*=1\n"
				      "/sys/kernel/mm/transparent_hugepage/nothing*=1\n");
	load(t);
	assert_string_equal(t->problem, "");
	assert_value(t, "hugepages.64K.enabled", "never");
	assert_value(t, "hugepages.2M.enabled", "never");
	assert_value(t, "enabled", "madvise");
	assert_string_equal(get(t, "enabled")->option, "[sysfs] /sys/kernel/mm/*transparent_hugepage/enabled");
	assert_int_equal(get(t, "enabled")->line, 3);
	assert_value(t, "khugepaged.pages_to_scan", "0");
	assert_value(t, "khugepaged.defrag", "0");
	assert_value(t, "shmem_enabled", "advise");
	assert_int_equal(t->n, 6);
	free(t);
}

/* Profiles tuned cannot load leave no value and say why. */
static void cannot_load(void **state)
{
	static const struct {
		const char *active, *file, *text, *problem;
	} c[] = {
		{ "a", "etc/tuned/b/tuned.conf", "[main]\ninclude=a\n",
		  "profile 'a' included by /etc/tuned/b/tuned.conf cannot be loaded: it is included again (an include "
		  "cycle); tuned applies none of its profiles" },
		{ "nope", "etc/tuned/b/tuned.conf", "",
		  "profile 'nope' cannot be loaded: no such profile in /etc/tuned or /usr/lib/tuned; tuned applies "
		  "none of its profiles" },
		{ "a", "etc/tuned/b/tuned.conf", "[vm]\njunk\n",
		  "/etc/tuned/b/tuned.conf cannot be loaded: line 2 is neither a [section] nor name=value; tuned "
		  "applies none of its profiles" },
		{ "a", "etc/tuned/b/tuned.conf", "x=1\n",
		  "/etc/tuned/b/tuned.conf cannot be loaded: line 1 comes before the first [section]; tuned applies "
		  "none of its profiles" },
	};
	struct thp_tuned *t = malloc(sizeof(*t));
	(void)state;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		put("etc/tuned/active_profile", c[i].active);
		put("etc/tuned/a/tuned.conf", "[main]\ninclude=b\n[vm]\ntransparent_hugepages=always\n");
		put(c[i].file, c[i].text);
		load(t);
		assert_int_equal(t->n, 0);
		assert_string_equal(t->problem, c[i].problem);
	}
	put("etc/tuned/active_profile", "\n");
	load(t);
	assert_string_equal(t->profiles, "");
	assert_string_equal(t->problem, "");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(include_order, setup, teardown),
		cmocka_unit_test_setup_teardown(self_include, setup, teardown),
		cmocka_unit_test_setup_teardown(units, setup, teardown),
		cmocka_unit_test_setup_teardown(conditions, setup, teardown),
		cmocka_unit_test_setup_teardown(cannot_load, setup, teardown),
		cmocka_unit_test_setup_teardown(profile_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(profile_dirs_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(variables_include, setup, teardown),
		cmocka_unit_test_setup_teardown(variables_include_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(sysfs_globs, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
