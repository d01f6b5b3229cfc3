/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the top-N selection by AnonHugePages, on a generated /proc tree (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "put.h"

#include "core/top.h"

#define NPROC 300

static char dir[] = "/tmp/thp-test-top-XXXXXX";

/* AnonHugePages in kB of process PID: a scrambled order, with ties and zeros. */
static unsigned huge_kb(int pid)
{
	return (unsigned)((pid * 7919) % 97) * 2048;
}

static void put(const char *rel, const char *text)
{
	put_file(dir, rel, text);
}

static int setup(void **state)
{
	char rel[64], text[256];
	(void)state;

	if (!mkdtemp(dir))
		return -1;
	snprintf(rel, sizeof(rel), "%s/proc", dir);
	mkdir(rel, 0755);
	for (int pid = 1; pid <= NPROC; pid++) {
		snprintf(rel, sizeof(rel), "%s/proc/%d", dir, pid);
		mkdir(rel, 0755);
		snprintf(rel, sizeof(rel), "proc/%d/smaps_rollup", pid);
		snprintf(text, sizeof(text), "Rss: 9999 kB\nAnonHugePages: %u kB\n", huge_kb(pid));
		put(rel, text);
		snprintf(rel, sizeof(rel), "proc/%d/comm", pid);
		snprintf(text, sizeof(text), "p%d\n", pid);
		put(rel, text);
	}
	put("proc/self", ""); /* not a process */
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void ranks(void **state)
{
	struct thp_root root;
	struct thp_top t;
	int with = 0;
	(void)state;

	for (int pid = 1; pid <= NPROC; pid++)
		with += huge_kb(pid) > 0;
	assert_int_equal(thp_root_open(&root, dir), 0);
	for (int max = 1; max <= NPROC + 5; max += 37) {
		assert_int_equal(thp_top_anon_huge(&root, max, &t), 0);
		assert_true(t.scanned);
		assert_int_equal(t.readable, NPROC);
		assert_int_equal(t.with_huge, with);
		assert_int_equal(t.n, max < with ? max : with);
		for (int i = 0; i < t.n; i++) {
			char comm[16];
			snprintf(comm, sizeof(comm), "p%d", (int)t.v[i].pid);
			assert_string_equal(t.v[i].comm, comm);
			assert_true(t.v[i].anon_huge == (uint64_t)huge_kb(t.v[i].pid) * 1024);
			if (i)
				assert_true(t.v[i - 1].anon_huge > t.v[i].anon_huge ||
					    (t.v[i - 1].anon_huge == t.v[i].anon_huge && t.v[i - 1].pid < t.v[i].pid));
		}
		/* nothing left out ranks above the last one kept */
		for (int pid = 1; t.n && pid <= NPROC; pid++) {
			uint64_t b = (uint64_t)huge_kb(pid) * 1024, last = t.v[t.n - 1].anon_huge;
			bool kept = false;
			for (int i = 0; i < t.n; i++)
				kept = kept || t.v[i].pid == pid;
			if (!kept)
				assert_true(b < last || (b == last && pid > t.v[t.n - 1].pid));
		}
		thp_top_free(&t);
	}
	assert_int_equal(thp_top_anon_huge(&root, 0, &t), 0);
	assert_int_equal(t.n, 0);
	assert_int_equal(t.with_huge, with);
	thp_top_free(&t);
	thp_root_close(&root);
}

/* Processes summed per command name: 7 names over NPROC processes. */
static void by_comm(void **state)
{
	uint64_t want[7] = { 0 };
	int procs[7] = { 0 };
	struct thp_root root;
	struct thp_top t;
	(void)state;

	for (int pid = 1; pid <= NPROC; pid++) {
		char rel[64], text[16];
		snprintf(rel, sizeof(rel), "proc/%d/comm", pid);
		snprintf(text, sizeof(text), "c%d\n", pid % 7);
		put(rel, text);
		want[pid % 7] += (uint64_t)huge_kb(pid) * 1024;
		procs[pid % 7] += huge_kb(pid) > 0;
	}
	assert_int_equal(thp_root_open(&root, dir), 0);
	for (int max = 1; max <= 8; max++) {
		assert_int_equal(thp_top_by_comm(&root, max, &t), 0);
		assert_int_equal(t.n, max < 7 ? max : 7);
		for (int i = 0; i < t.n; i++) {
			int c = atoi(t.v[i].comm + 1);
			assert_int_equal(t.v[i].pid, 0);
			assert_true(t.v[i].anon_huge == want[c]);
			assert_int_equal(t.v[i].nprocs, procs[c]);
			if (i)
				assert_true(t.v[i - 1].anon_huge > t.v[i].anon_huge ||
					    (t.v[i - 1].anon_huge == t.v[i].anon_huge &&
					     strcmp(t.v[i - 1].comm, t.v[i].comm) < 0));
		}
		/* no name left out holds more than the last one kept */
		for (int c = 0; c < 7; c++) {
			bool kept = false;
			for (int i = 0; i < t.n; i++)
				kept = kept || atoi(t.v[i].comm + 1) == c;
			assert_true(kept || want[c] <= t.v[t.n - 1].anon_huge);
		}
		thp_top_free(&t);
	}
	assert_int_equal(thp_top_by_comm(&root, 0, &t), 0);
	assert_int_equal(t.n, 0);
	assert_true(t.with_huge > 0);
	thp_top_free(&t);
	thp_root_close(&root);
}

/* Processes already read (as the doctor reads them for 'thp metrics') rank
 * as the scan ranks them, per process and per command name. */
static void ranks_read(void **state)
{
	struct thp_top_entry v[NPROC];
	struct thp_root root;
	struct thp_top a, b;
	int n = 0;
	(void)state;

	assert_int_equal(thp_root_open(&root, dir), 0);
	for (int pid = 1; pid <= NPROC; pid++) {
		if (!huge_kb(pid))
			continue;
		v[n] = (struct thp_top_entry){ .pid = pid, .nprocs = 1, .anon_huge = (uint64_t)huge_kb(pid) * 1024 };
		assert_int_equal(thp_comm_read(&root, pid, v[n].comm, sizeof(v[n].comm)), 0);
		n++;
	}
	for (int by = 0; by < 2; by++)
		for (int max = 0; max <= NPROC + 5; max += 37) {
			assert_int_equal(by ? thp_top_by_comm(&root, max, &a) : thp_top_anon_huge(&root, max, &a), 0);
			assert_int_equal(thp_top_rank(v, n, max, by, &b), 0);
			assert_true(b.scanned);
			assert_int_equal(b.with_huge, a.with_huge);
			assert_int_equal(b.n, a.n);
			for (int i = 0; i < a.n; i++) {
				assert_int_equal(b.v[i].pid, a.v[i].pid);
				assert_int_equal(b.v[i].nprocs, a.v[i].nprocs);
				assert_true(b.v[i].anon_huge == a.v[i].anon_huge);
				assert_string_equal(b.v[i].comm, a.v[i].comm);
			}
			thp_top_free(&a);
			thp_top_free(&b);
		}
	thp_root_close(&root);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(ranks), cmocka_unit_test(by_comm),
					    cmocka_unit_test(ranks_read) };
	return cmocka_run_group_tests(tests, setup, teardown);
}
