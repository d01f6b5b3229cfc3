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

#include "core/changes.h"
#include "core/drift.h"
#include "core/keys.h"
#include "core/persist.h"
#include "core/pools.h"
#include "core/state.h"

#define FIXTURE "tests/fixtures/live-6.18"

static void keys(void **state)
{
	struct thp_key k;
	char buf[256];
	uint64_t b;
	(void)state;

	assert_int_equal(thp_key_parse("enabled", &k), 0);
	assert_int_equal(k.d->place, THP_PLACE_TOP);
	assert_int_equal(k.d->shows, THP_CHOICE);
	assert_int_equal(thp_key_parse("khugepaged.max_ptes_none", &k), 0);
	assert_true(k.d->flags & THP_PTES);
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

/* Parses TEXT as a state file; returns the error and leaves the line in *LINE. */
static int parse(const char *text, struct thp_state *st, int *line)
{
	char why[192];

	return thp_state_parse(text, strlen(text), st, line, why, sizeof(why));
}

static void state_file(void **state)
{
	struct thp_state *s = calloc(1, sizeof(*s)), *back = calloc(1, sizeof(*back));
	char *text, why[192];
	int line;
	(void)state;

	/* a plain KEY=VALUE list, as written by hand */
	assert_int_equal(parse("# saved\n\nenabled=never\n  defrag = madvise \n"
			       "hugepages.2048kB.enabled=inherit\n", s, &line), 0);
	assert_int_equal(s->version, 0);
	assert_int_equal(s->values.n, 3);
	assert_string_equal(s->values.v[1].value, "madvise");
	assert_string_equal(s->values.v[2].key, "hugepages.2M.enabled");
	assert_int_equal(s->values.v[2].line, 5);
	/* the file form: version, boot, time, owner, command, values, end with checksum */
	snprintf(s->boot, sizeof(s->boot), "7dc6ad8e-582a-4df8-83ba-81f984662768");
	s->time = 1733355000; /* 2024-12-04T23:30:00Z */
	s->owner = 4242;
	s->owner_start = 99;
	snprintf(s->command, sizeof(s->command), "thp bench\n--modes always");
	text = thp_state_format(s, "two\nlines");
	assert_non_null(text);
	assert_non_null(strstr(text, "thp-state 2\nboot 7dc6ad8e-582a-4df8-83ba-81f984662768\n"
				     "time 2024-12-04T23:30:00Z\nowner 4242 99\n"
				     "command thp bench?--modes always\n# two\n# lines\nenabled=never\n"));
	assert_int_equal(parse(text, back, &line), 0);
	assert_int_equal(back->version, 2);
	assert_true(back->time == 1733355000);
	assert_string_equal(back->boot, s->boot);
	assert_int_equal(back->owner, 4242);
	assert_true(back->owner_start == 99);
	assert_int_equal(back->values.n, 3);
	for (int i = 0; i < s->values.n; i++) {
		assert_string_equal(back->values.v[i].key, s->values.v[i].key);
		assert_string_equal(back->values.v[i].value, s->values.v[i].value);
	}
	/* cut anywhere before its last newline, it is refused: no end line, or a
	 * checksum over less */
	for (size_t cut = 0; cut < strlen(text) - 1; cut++) {
		assert_int_equal(thp_state_parse(text, cut, back, &line, why, sizeof(why)), -EINVAL);
	}
	/* one byte changed */
	text[strlen("thp-state 2\nboot 7")] = '8';
	assert_int_equal(thp_state_parse(text, strlen(text), back, &line, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "the checksum does not match: the file was changed or damaged");
	free(text);
	/* the end line: counts, checksum, nothing after it */
	assert_int_equal(parse("thp-state 1\nenabled=never\nend 2 1\n", back, &line), -EINVAL);
	assert_int_equal(line, 3);
	assert_int_equal(parse("thp-state 3\nenabled=never\n", back, &line), -EINVAL);
	assert_int_equal(line, 1);
	/* a version 1 file (no time line) is still read; a malformed time is refused */
	assert_int_equal(parse("thp-state 1\nboot x\ncommand thp set\nenabled=never\nend 1 1\n", back,
			       &line), -EINVAL); /* (only its checksum is wrong) */
	assert_int_equal(line, 5);
	assert_int_equal(parse("thp-state 2\ntime yesterday\nenabled=never\n", back, &line), -EINVAL);
	assert_int_equal(line, 2);
	/* refused: a key twice, no key at all, bad lines */
	assert_int_equal(parse("enabled=never\ndefrag=never\nenabled=always\n", back, &line), -EINVAL);
	assert_int_equal(line, 3);
	assert_int_equal(parse("", back, &line), -EINVAL);
	assert_int_equal(line, 0);
	assert_int_equal(parse("# only a comment\n", back, &line), -EINVAL);
	assert_int_equal(parse("enabled=never\nbogus=1\n", back, &line), -EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(parse("enabled\n", back, &line), -EINVAL);
	assert_int_equal(parse("enabled=\n", back, &line), -EINVAL);
	assert_int_equal(parse("=never\n", back, &line), -EINVAL);
	assert_int_equal(parse("hugepages.all.enabled=never\n", back, &line), -EINVAL);
	assert_int_equal(parse("khugepaged.full_scans=3\n", back, &line), -EINVAL);
	assert_int_equal(parse("boot 1\nenabled=never\n", back, &line), -EINVAL); /* no header without a version */
	assert_int_equal(thp_state_parse("enabled=never\n\0x", 16, back, &line, why, sizeof(why)), -EINVAL);
	free(s);
	free(back);
}

/* POSIX cksum(1): the values 'printf ... | cksum' prints. */
static void cksum(void **state)
{
	unsigned long long start;
	(void)state;

	assert_true(thp_cksum("", 0) == 4294967295u);
	assert_true(thp_cksum("a", 1) == 1220704766u);
	assert_true(thp_cksum("hello\n", 6) == 3015617425u);
	assert_true(thp_cksum("123456789", 9) == 930766865u);
	assert_int_equal(thp_stat_start_parse("42 (a) b) c) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 777 19", &start), 0);
	assert_true(start == 777);
	assert_int_equal(thp_stat_start_parse("42 (a) S 1", &start), -EINVAL);
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

/* What a capture records of a unit: its writes on their lines, its section
 * headers and thp's mark, nothing else; it parses as the unit does. */
static void unit_record(void **state)
{
	static const char unit[] =
		"# Transparent Huge Pages settings, written by 'thp persist --systemd'.\n"
		"[Unit]\n"
		"Description=secret plans\n"
		"[Service]\n"
		"Environment=TOKEN=s3cret\n"
		"ExecStart=/usr/bin/env TOKEN=s3cret /bin/sh -c 'echo never > /sys/kernel/mm/transparent_hugepage/enabled;"
		"echo 1 >/sys/kernel/mm/transparent_hugepage/khugepaged/defrag'\n"
		"ExecStart=/bin/sh -c \\\n"
		"  \"echo 512 > /proc/sys/vm/nr_hugepages\"\n"
		"ExecStart=/bin/sh -c 'echo always > /sys/kernel/mm/transparent_hugepage/enabled'";
	struct thp_kvlist l = { 0 }, back = { 0 };
	int found = -1;
	char *r = thp_unit_record(unit, &found);
	(void)state;

	assert_non_null(r);
	assert_string_equal(r, "# written by 'thp persist'\n"
			       "[Unit]\n"
			       "\n"
			       "[Service]\n"
			       "\n"
			       "ExecStart=/bin/sh -c 'echo never > /sys/kernel/mm/transparent_hugepage/enabled; "
			       "echo 1 > /sys/kernel/mm/transparent_hugepage/khugepaged/defrag'\n"
			       "\n"
			       "ExecStart=/bin/sh -c 'echo 512 > /proc/sys/vm/nr_hugepages'\n"
			       "ExecStart=/bin/sh -c 'echo always > /sys/kernel/mm/transparent_hugepage/enabled'\n");
	assert_int_equal(found, thp_unit_parse(unit, &l));
	assert_int_equal(found, 4);
	assert_int_equal(thp_unit_parse(r, &back), found);
	assert_int_equal(back.n, l.n);
	for (int i = 0; i < l.n; i++) {
		assert_string_equal(back.v[i].key, l.v[i].key);
		assert_string_equal(back.v[i].value, l.v[i].value);
		assert_int_equal(back.v[i].line, l.v[i].line);
	}
	free(r);
	r = thp_unit_record("[Service]\nExecStart=/bin/true\n", &found);
	assert_string_equal(r, "[Service]\n\n");
	assert_int_equal(found, 0);
	free(r);
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
	struct thp_changes *cs = malloc(sizeof(*cs));
	struct thp_kvlist *l = malloc(sizeof(*l)), *back = calloc(1, sizeof(*back));
	struct thp_state *st = calloc(1, sizeof(*st)), *st2 = malloc(sizeof(*st2));
	char *t;
	int bad;
	(void)state;

	assert_int_equal(thp_root_open(&r, FIXTURE), 0);
	assert_int_equal(thp_changes_read(&r, cs), 0);
	thp_changes_snapshot(cs, l);
	assert_int_equal(l->n, 36);
	/* the seven vm.* keys come last, and go to a sysctl.d file instead */
	t = thp_tmpfiles_format(l);
	assert_int_equal(thp_tmpfiles_parse(t, back), l->n - 7);
	free(t);
	for (int i = 0; i < l->n - 7; i++) {
		assert_string_equal(back->v[i].key, l->v[i].key);
		assert_string_equal(back->v[i].value, l->v[i].value);
	}
	memset(back, 0, sizeof(*back));
	t = thp_unit_format(l);
	assert_int_equal(thp_unit_parse(t, back), l->n - 7);
	free(t);
	for (int i = 0; i < back->n; i++)
		assert_string_equal(thp_kv_get(l, back->v[i].key)->value, back->v[i].value);
	memset(back, 0, sizeof(*back));
	t = thp_sysctl_format(l);
	assert_int_equal(thp_sysctl_parse(t, back), 7);
	free(t);
	for (int i = 0; i < 7; i++) {
		assert_string_equal(back->v[i].key, l->v[l->n - 7 + i].key);
		assert_string_equal(back->v[i].value, l->v[l->n - 7 + i].value);
	}
	st->values = *l;
	t = thp_state_format(st, "x");
	assert_int_equal(parse(t, st2, &bad), 0);
	assert_int_equal(st2->values.n, l->n);
	free(t);
	thp_root_close(&r);
	free(cs);
	free(l);
	free(back);
	free(st);
	free(st2);
}

/* Forgets what CS was asked for, so that a setting may be asked again. */
static void unask(struct thp_changes *cs)
{
	for (int i = 0; i < cs->n; i++) {
		cs->v[i].want[0] = '\0';
		cs->v[i].want_all = false;
	}
}

static void change_checks(void **state)
{
	struct thp_root r;
	struct thp_changes *cs = malloc(sizeof(*cs));
	char why[256];
	(void)state;

	assert_int_equal(thp_root_open(&r, FIXTURE), 0);
	assert_int_equal(thp_changes_read(&r, cs), 0);
	assert_true(cs->ptes_max == 511);
	/* write order: top-level, khugepaged, per-size ascending */
	assert_string_equal(cs->v[0].key, "enabled");
	assert_string_equal(cs->v[5].key, "khugepaged.pages_to_scan");
	assert_string_equal(cs->v[8].key, "khugepaged.defrag");
	assert_string_equal(cs->v[12].key, "hugepages.8K.shmem_enabled");
	assert_string_equal(cs->v[cs->n - 8].key, "hugepages.2M.shmem_enabled");
	assert_string_equal(cs->v[cs->n - 7].key, "vm.compaction_proactiveness");
	assert_string_equal(cs->v[cs->n - 1].key, "vm.zone_reclaim_mode");
	/* a range per sysctl (one this kernel lacks: golden linux-4.19/set-vm-absent) */
	assert_int_equal(thp_changes_want(cs, "vm.compaction_proactiveness", "101", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'vm.compaction_proactiveness' accepts a decimal integer from 0 to 100");
	assert_int_equal(thp_changes_want(cs, "vm.watermark_scale_factor", "0", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'vm.watermark_scale_factor' accepts a decimal integer from 1 to 3000");
	assert_int_equal(thp_changes_want(cs, "vm.watermark_scale_factor", "200", why, sizeof(why)), 0);
	unask(cs);
	assert_int_equal(thp_changes_want(cs, "vm.nr_hugepages", "2", why, sizeof(why)), -ENOENT);
	assert_int_equal(thp_changes_want(cs, "enabled", "sometimes", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'enabled' accepts always, madvise, never");
	assert_int_equal(thp_changes_want(cs, "enabled", "always", why, sizeof(why)), 0);
	/* a setting is asked for once */
	assert_int_equal(thp_changes_want(cs, "enabled", "always", why, sizeof(why)), -EEXIST);
	assert_string_equal(why, "'enabled' is given twice");
	assert_int_equal(thp_changes_want(cs, "shmem_enabled", "force", why, sizeof(why)), 0);
	assert_int_equal(thp_changes_want(cs, "khugepaged.max_ptes_none", "512", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_changes_want(cs, "khugepaged.max_ptes_none", "511", why, sizeof(why)), 0);
	assert_int_equal(thp_changes_want(cs, "khugepaged.pages_to_scan", "0", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_changes_want(cs, "khugepaged.scan_sleep_millisecs", "4294967296", why, sizeof(why)), -EINVAL);
	/* a number as a user types it: decimal, no leading zero; a file may have one */
	assert_int_equal(thp_changes_want(cs, "khugepaged.scan_sleep_millisecs", "007", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'khugepaged.scan_sleep_millisecs' accepts a decimal integer from 0 to 4294967295");
	assert_int_equal(thp_changes_want(cs, "khugepaged.scan_sleep_millisecs", "0x7", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_changes_want(cs, "khugepaged.scan_sleep_millisecs", "7", why, sizeof(why)), 0);
	assert_string_equal(thp_change_find(cs, "khugepaged.scan_sleep_millisecs")->want, "7");
	char canon[THP_VALUE_MAX];
	assert_int_equal(thp_change_check(cs, thp_change_find(cs, "khugepaged.scan_sleep_millisecs"), "007\n",
					false, canon, why, sizeof(why)), 0);
	assert_string_equal(canon, "7");
	assert_int_equal(thp_changes_want(cs, "use_zero_page", "2", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_changes_want(cs, "use_zero_page", "-1", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_changes_want(cs, "hugepages.8K.enabled", "never", why, sizeof(why)), -ENOENT);
	assert_int_equal(thp_changes_want(cs, "hugepages.4M.enabled", "never", why, sizeof(why)), -ENOENT);
	assert_int_equal(thp_changes_want(cs, "hugepages.2M.enabled", "within_size", why, sizeof(why)), -EINVAL);
	assert_int_equal(thp_changes_want(cs, "anon_beside_full", "1", why, sizeof(why)), -ENOENT);
	/* "all" reaches every size with the file: 8K has shmem_enabled only */
	assert_int_equal(thp_changes_want(cs, "hugepages.all.enabled", "never", why, sizeof(why)), 0);
	assert_int_equal(thp_changes_count(cs), 4); /* enabled, shmem_enabled, scan_sleep, 2M */
	assert_string_equal(thp_change_find(cs, "hugepages.2M.enabled")->want, "never");
	/* a size's own key may follow "all"; "all" may not follow it, nor come twice */
	assert_int_equal(thp_changes_want(cs, "hugepages.2M.enabled", "always", why, sizeof(why)), 0);
	assert_string_equal(thp_change_find(cs, "hugepages.2M.enabled")->want, "always");
	assert_int_equal(thp_changes_want(cs, "hugepages.2048K.enabled", "never", why, sizeof(why)), -EEXIST);
	assert_string_equal(why, "'hugepages.2M.enabled' is given twice");
	assert_int_equal(thp_changes_want(cs, "hugepages.all.enabled", "never", why, sizeof(why)), -EEXIST);
	assert_string_equal(why, "'hugepages.all.enabled' is given twice");
	unask(cs);
	assert_int_equal(thp_changes_want(cs, "hugepages.64K.shmem_enabled", "never", why, sizeof(why)), 0);
	assert_int_equal(thp_changes_want(cs, "hugepages.all.shmem_enabled", "never", why, sizeof(why)), -EEXIST);
	assert_string_equal(why, "'hugepages.64K.shmem_enabled' is given twice ('hugepages.all.shmem_enabled' covers it too)");
	thp_root_close(&r);
	free(cs);
}

/* sysctl.d lines: both separators, '-', comments, keys of no setting, and
 * the last assignment of a key wins; vm.nr_hugepages sizes the default pool. */
static void sysctl_parse(void **state)
{
	struct thp_kvlist l = { 0 };
	(void)state;

	assert_int_equal(thp_sysctl_parse("# comment = 1\n; vm.min_free_kbytes = 1\n"
					  "vm.compaction_proactiveness = 0\n"
					  "-vm/zone_reclaim_mode=1\n"
					  "kernel.pid_max = 4194304\n"
					  "vm.nr_hugepages = 8\n"
					  "vm.watermark_scale_factor\n"
					  "  vm.compaction_proactiveness=20  \n"
					  "net/ipv4/vm.x = 1\n", &l), 3);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].key, "vm.compaction_proactiveness");
	assert_string_equal(l.v[0].value, "20");
	assert_int_equal(l.v[0].line, 8);
	assert_string_equal(l.v[1].key, "vm.zone_reclaim_mode");
	assert_string_equal(l.v[1].value, "1");
	assert_string_equal(l.v[2].key, THP_POOL_DEFAULT_KEY);
	assert_string_equal(l.v[2].value, "8");
}

/* Pool keys, the paths that size pools, and the pools of a command line. */
static void pool_keys(void **state)
{
	struct thp_kvlist l = { 0 };
	char key[THP_KEY_MAX];
	uint64_t size;
	int node;
	(void)state;

	thp_pool_key(2u << 20, -1, key, sizeof(key));
	assert_string_equal(key, "hugetlb.2M");
	thp_pool_key(1u << 30, 3, key, sizeof(key));
	assert_string_equal(key, "hugetlb.node3.1G");
	assert_int_equal(thp_pool_key_parse("hugetlb.node3.1G", &size, &node), 0);
	assert_true(size == 1u << 30 && node == 3);
	assert_int_equal(thp_pool_key_parse("hugetlb.64K", &size, &node), 0);
	assert_true(size == 64u << 10 && node == -1);
	assert_int_equal(thp_pool_key_parse(THP_POOL_DEFAULT_KEY, &size, &node), 0);
	assert_true(size == 0 && node == -1);
	/* only the canonical spelling */
	assert_int_equal(thp_pool_key_parse("hugetlb.2048K", &size, &node), -ENOENT);
	assert_int_equal(thp_pool_key_parse("hugetlb.node01.2M", &size, &node), -ENOENT);
	assert_int_equal(thp_pool_key_parse("hugetlb.nodeX.2M", &size, &node), -ENOENT);
	assert_int_equal(thp_pool_key_parse("hugepages.2M.enabled", &size, &node), -ENOENT);
	assert_false(thp_is_pool_key("enabled"));

	assert_int_equal(thp_pool_key_from_path("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", key, sizeof(key)), 0);
	assert_string_equal(key, "hugetlb.2M");
	assert_int_equal(thp_pool_key_from_path("sys/devices/system/node/node1/hugepages/hugepages-1048576kB/nr_hugepages", key, sizeof(key)), 0);
	assert_string_equal(key, "hugetlb.node1.1G");
	assert_int_equal(thp_pool_key_from_path("/proc/sys/vm/nr_hugepages", key, sizeof(key)), 0);
	assert_string_equal(key, THP_POOL_DEFAULT_KEY);
	assert_int_equal(thp_pool_key_from_path("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", key, sizeof(key)), -ENOENT);
	assert_int_equal(thp_pool_key_from_path("/sys/devices/system/node/node01/hugepages/hugepages-2048kB/nr_hugepages", key, sizeof(key)), -ENOENT);
	assert_int_equal(thp_pool_key_from_path("/x/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", key, sizeof(key)), -ENOENT);
	assert_int_equal(thp_pool_key_from_path("/proc/sys/vm/nr_overcommit_hugepages", key, sizeof(key)), -ENOENT);

	/* hugepages= before any hugepagesz= is of the default size; per node; a bad size's count is ignored */
	assert_int_equal(thp_pools_cmdline_parse("ro hugepages=16 hugepagesz=1G hugepages=0:2,1:3 "
						 "hugepagesz=3X hugepages=7 hugepagesz=32M hugepages=4 quiet",
						 2u << 20, &l), 4);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0].key, "hugetlb.2M");
	assert_string_equal(l.v[0].value, "16");
	assert_string_equal(l.v[1].key, "hugetlb.node0.1G");
	assert_string_equal(l.v[1].value, "2");
	assert_string_equal(l.v[2].key, "hugetlb.node1.1G");
	assert_string_equal(l.v[2].value, "3");
	assert_string_equal(l.v[3].key, "hugetlb.32M");
	memset(&l, 0, sizeof(l));
	assert_int_equal(thp_pools_cmdline_parse("hugepages=16", 0, &l), 1);
	assert_string_equal(l.v[0].key, THP_POOL_DEFAULT_KEY);
}

/* Where boot sets each pool, and the text of each place. */
static void pool_format(void **state)
{
	const struct thp_pool v[] = {
		{ 2u << 20, -1, 512 }, { 32u << 20, -1, 8 }, { 1u << 30, -1, 4 },
		{ 2u << 20, 1, 64 },   { 1ull << 30, 0, 2 }, { 1ull << 30, 1, 3 },
	};
	char *s;
	(void)state;

	assert_int_equal(thp_pool_boot(&v[0], 2u << 20), THP_POOL_SYSCTL);
	assert_int_equal(thp_pool_boot(&v[0], 1u << 30), THP_POOL_TMPFILES);
	assert_int_equal(thp_pool_boot(&v[2], 1u << 30), THP_POOL_CMDLINE);
	assert_int_equal(thp_pool_boot(&v[3], 2u << 20), THP_POOL_TMPFILES);
	s = thp_pools_format(v, 6, 2u << 20, THP_POOL_SYSCTL);
	assert_non_null(strstr(s, THP_POOLS_MARK));
	assert_non_null(strstr(s, "\nvm.nr_hugepages = 512\n"));
	assert_null(strstr(s, "= 8"));
	free(s);
	s = thp_pools_format(v, 6, 2u << 20, THP_POOL_TMPFILES);
	assert_non_null(strstr(s, "\nw /sys/kernel/mm/hugepages/hugepages-32768kB/nr_hugepages - - - - 8\n"
				  "w /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages - - - - 64\n"));
	assert_null(strstr(s, "1048576kB"));
	free(s);
	/* the host's pool and the nodes' */
	s = thp_pools_format(v, 6, 2u << 20, THP_POOL_CMDLINE);
	assert_string_equal(s, "hugepagesz=1G hugepages=4 hugepagesz=1G hugepages=0:2,1:3");
	free(s);
	s = thp_pools_format(v, 2, 2u << 20, THP_POOL_CMDLINE);
	assert_string_equal(s, "");
	free(s);
	/* what is written parses back */
	{
		struct thp_kvlist l = { 0 };
		s = thp_pools_format(v, 6, 2u << 20, THP_POOL_TMPFILES);
		assert_int_equal(thp_tmpfiles_parse(s, &l), 2);
		assert_string_equal(l.v[1].key, "hugetlb.node1.2M");
		assert_string_equal(l.v[1].value, "64");
		free(s);
	}
}

/* The journal of boot files: any content comes back byte for byte; a
 * changed byte, a short file or a bad length is refused with its line. */
static void boot_journal(void **state)
{
	struct thp_boot_journal j = { .owner = 4242, .command = "thp hugetlb persist\n2M=8", .n = 3 }, k;
	char *text, *copy;
	int line;
	(void)state;

	snprintf(j.v[0].path, sizeof(j.v[0].path), "etc/sysctl.d/90-thp-hugetlb.conf");
	j.v[0].text = "vm.nr_hugepages = 8\nend 1 1\n";
	snprintf(j.v[1].path, sizeof(j.v[1].path), "etc/tmpfiles.d/thp-hugetlb.conf");
	snprintf(j.v[2].path, sizeof(j.v[2].path), "etc/tmpfiles.d/x.conf");
	j.v[2].text = "no newline";
	text = thp_boot_journal_format(&j);
	assert_non_null(text);
	assert_non_null(strstr(text, "command thp hugetlb persist?2M=8\n"));
	copy = strdup(text);
	assert_int_equal(thp_boot_journal_parse(copy, &k, &line), 0);
	assert_int_equal(k.owner, 4242);
	assert_int_equal(k.n, 3);
	assert_string_equal(k.v[0].text, j.v[0].text);
	assert_null(k.v[1].text);
	assert_string_equal(k.v[1].path, "etc/tmpfiles.d/thp-hugetlb.conf");
	assert_string_equal(k.v[2].text, "no newline");
	free(copy);
	/* one byte changed: the sum of the end line does not match */
	copy = strdup(text);
	*strstr(copy, "= 8") = '+';
	assert_int_equal(thp_boot_journal_parse(copy, &k, &line), -EINVAL);
	assert_int_equal(line, 12); /* the end line, after the files' lines */
	free(copy);
	/* cut short: no end line */
	copy = strdup(text);
	*strstr(copy, "absent") = '\0';
	assert_int_equal(thp_boot_journal_parse(copy, &k, &line), -EINVAL);
	assert_int_equal(line, 0);
	free(copy);
	/* a length past the end */
	copy = strdup("thp-boot 1\nfile etc/x 99\nshort\n");
	assert_int_equal(thp_boot_journal_parse(copy, &k, &line), -EINVAL);
	assert_int_equal(line, 2);
	free(copy);
	free(text);
}

/* Persisted pools against the pools of a two-node host. */
static void pool_drift(void **state)
{
	struct thp_root r;
	struct thp_changes *cs = malloc(sizeof(*cs));
	struct thp_hugetlb *h = malloc(sizeof(*h));
	struct thp_persisted *p = calloc(1, sizeof(*p));
	struct thp_drift d[8];
	(void)state;

	assert_int_equal(thp_root_open(&r, "tests/fixtures/hugetlb-numa"), 0);
	assert_int_equal(thp_changes_read(&r, cs), 0);
	thp_hugetlb_read(&r, h);
	p->nsources = 1;
	strcpy(p->sources[0], "/etc/tmpfiles.d/thp-hugetlb.conf");
	thp_kv_set(&p->values, "hugetlb.2M", "1024", 1);       /* agrees: 1030 less 6 surplus */
	thp_kv_set(&p->values, "hugetlb.node1.2M", "500", 2);  /* drift: 512 */
	thp_kv_set(&p->values, "hugetlb.16M", "3", 3);         /* refused: no such pool */
	thp_kv_set(&p->values, "hugetlb.node7.2M", "3", 4);    /* refused: no such node */
	thp_kv_set(&p->values, "hugetlb.node0.1G", "2", 5);    /* agrees */
	thp_kv_set(&p->values, "hugetlb.1G", "x", 6);          /* refused: not a count */
	assert_int_equal(thp_drift_check(cs, h, p, d, 8), 4);
	assert_string_equal(d[0].key, "hugetlb.node1.2M");
	assert_string_equal(d[0].running, "512");
	assert_string_equal(d[0].refused, "");
	assert_int_equal(d[0].line, 2);
	assert_string_equal(d[1].refused, "this kernel has no pool of 16M pages");
	assert_string_equal(d[2].refused, "this host has no NUMA node 7");
	assert_string_equal(d[3].refused, "a pool's size is a number of pages");
	thp_root_close(&r);
	free(cs);
	free(h);
	free(p);
}

static void drift(void **state)
{
	struct thp_root r;
	struct thp_changes *cs = malloc(sizeof(*cs));
	struct thp_persisted *p = calloc(1, sizeof(*p));
	struct thp_drift d[8];
	(void)state;

	assert_int_equal(thp_root_open(&r, FIXTURE), 0);
	assert_int_equal(thp_changes_read(&r, cs), 0);
	p->nsources = 1;
	strcpy(p->sources[0], "/etc/tmpfiles.d/thp.conf");
	thp_kv_set(&p->values, "enabled", "madvise", 1);   /* agrees */
	thp_kv_set(&p->values, "defrag", "never", 2);      /* drift */
	thp_kv_set(&p->values, "shmem_enabled", "huge", 3); /* refused */
	thp_kv_set(&p->values, "hugepages.4M.enabled", "never", 4); /* absent */
	thp_kv_set(&p->values, "khugepaged.pages_to_scan", "04096", 5); /* agrees */
	assert_int_equal(thp_drift_check(cs, &(struct thp_hugetlb){ 0 }, p, d, 8), 3);
	assert_string_equal(d[0].key, "defrag");
	assert_string_equal(d[0].running, "madvise");
	assert_string_equal(d[0].refused, "");
	assert_int_equal(d[0].line, 2);
	assert_string_equal(d[1].key, "shmem_enabled");
	assert_string_equal(d[1].refused, "'shmem_enabled' accepts always, within_size, advise, never, deny, force");
	assert_string_equal(d[2].running, "");
	assert_string_equal(d[2].refused, "this kernel has no 'hugepages.4M.enabled'");
	thp_root_close(&r);
	free(cs);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keys),      cmocka_unit_test(kvlist),
		cmocka_unit_test(state_file), cmocka_unit_test(cksum), cmocka_unit_test(tmpfiles),
		cmocka_unit_test(unit_file), cmocka_unit_test(unit_record), cmocka_unit_test(cmdline),
		cmocka_unit_test(persist_round_trip), cmocka_unit_test(change_checks),
		cmocka_unit_test(sysctl_parse),
		cmocka_unit_test(drift),     cmocka_unit_test(pool_keys),
		cmocka_unit_test(pool_format), cmocka_unit_test(pool_drift),
		cmocka_unit_test(boot_journal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
