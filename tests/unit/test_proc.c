/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the process model: status, cgroup, smaps, the ancestor walk (cmocka). */
#include <errno.h>
#include <fcntl.h>
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

#include "core/proc.h"
#include "core/ptables.h"

static void pstatus(void **state)
{
	struct thp_pstatus s;
	(void)state;
	assert_int_equal(thp_pstatus_parse("Name:\tnode worker\nUmask:\t0022\nState:\tZ (zombie)\n"
					   "Pid:\t1234\nPPid:\t77\n"
					   "Uid:\t1000\t1000\t1000\t1000\nKthread:\t0\n"
					   "THP_enabled:\t0\n", &s), 0);
	assert_string_equal(s.name, "node worker");
	assert_int_equal(s.state, 'Z');
	assert_int_equal(s.pid, 1234);
	assert_int_equal(s.ppid, 77);
	assert_int_equal(s.uid, 1000);
	assert_int_equal(s.thp_enabled, 0);
	assert_false(thp_pstatus_kthread(&s));
	/* a 4.x kernel: no THP_enabled, no Kthread; a child of kthreadd */
	assert_int_equal(thp_pstatus_parse("Name:\tkworker/0:1\nPid:\t9\nPPid:\t2\n", &s), 0);
	assert_int_equal(s.thp_enabled, -1);
	assert_int_equal(s.kthread, -1);
	assert_int_equal(s.state, 0);
	assert_true(s.uid == (uid_t)-1);
	assert_true(thp_pstatus_kthread(&s));
	assert_int_equal(thp_pstatus_parse("Name:\tx\n", &s), -ENODATA);
	assert_int_equal(thp_pstatus_parse("", &s), -ENODATA);
	/* a line is read up to 255 bytes, a key is whole before its colon, the
	 * last line needs no newline */
	char buf[1024];
	snprintf(buf, sizeof(buf), "Name:%300s\nXPid:\t5\nPid :\t6\nName:\t%s\nPid:\t42", "x",
		 "0123456789012345678901234567890123456789012345678901234567890123456789");
	assert_int_equal(thp_pstatus_parse(buf, &s), 0);
	assert_int_equal(s.pid, 42);
	assert_string_equal(s.name, "012345678901234567890123456789012345678901234567890123456789012");
	snprintf(buf, sizeof(buf), "Pid:\t7\nName:%300s\n", "x");
	assert_int_equal(thp_pstatus_parse(buf, &s), 0);
	assert_string_equal(s.name, "");
}

static void pstatus_pte(void **state)
{
	struct thp_pstatus s;
	(void)state;
	assert_int_equal(thp_pstatus_parse("Name:\tpostgres\nPid:\t7\nVmRSS:\t 1050624 kB\nRssAnon:\t    2048 kB\n"
					   "RssFile:\t 4 kB\nRssShmem:\t 1048576 kB\nHugetlbPages:\t 4096 kB\n"
					   "VmPTE:\t    2096 kB\n", &s), 0);
	assert_true(s.has_pte);
	assert_true(s.pte == 2096 * 1024);
	assert_true(s.rss_shmem == 1048576ull * 1024);
	assert_true(s.rss == 1050624ull * 1024 && s.rss_anon == 2048 * 1024 && s.hugetlb == 4096 * 1024);
	/* a kernel thread or zombie shows none */
	assert_int_equal(thp_pstatus_parse("Name:\tz\nPid:\t8\n", &s), 0);
	assert_false(s.has_pte);
	assert_true(s.pte == 0 && s.rss_shmem == 0 && s.rss == 0 && s.rss_anon == 0 && s.hugetlb == 0);
	/* malformed values are not taken: a sign, no unit, another unit, garbage,
	 * a value past 2^64 bytes */
	static const char *const bad[] = { "-4 kB", "4", "4 MB", "4 kBx", "x kB", " kB",
					   "18014398509481984 kB", "99999999999999999999999 kB" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[128];
		snprintf(buf, sizeof(buf), "Pid:\t9\nVmPTE:\t%s\nRssShmem:\t%s\nVmRSS:\t%s\nRssAnon:\t%s\nHugetlbPages:\t%s\n",
			 bad[i], bad[i], bad[i], bad[i], bad[i]);
		assert_int_equal(thp_pstatus_parse(buf, &s), 0);
		assert_false(s.has_pte);
		assert_true(s.rss_shmem == 0 && s.rss == 0 && s.rss_anon == 0 && s.hugetlb == 0);
	}
	/* the largest value that fits in bytes */
	assert_int_equal(thp_pstatus_parse("Pid:\t9\nVmPTE:\t18014398509481983 kB\n", &s), 0);
	assert_true(s.has_pte && s.pte == 18014398509481983ull * 1024);
}

/* A VMA [START, END) named NAME with RSS bytes resident, SHMEM_PMD of them PMD-mapped. */
static struct thp_vma vma(uint64_t start, uint64_t end, const char *perms, const char *name,
			  uint64_t rss, uint64_t shmem_pmd)
{
	struct thp_vma v;
	memset(&v, 0, sizeof(v));
	v.start = start;
	v.end = end;
	snprintf(v.perms, sizeof(v.perms), "%s", perms);
	snprintf(v.name, sizeof(v.name), "%s", name);
	v.m.rss = rss;
	v.m.shmem_pmd = shmem_pmd;
	return v;
}

static void ptables(void **state)
{
	const uint64_t M = 1 << 20, G = 1 << 30, B = 0x7f0000000000ull;
	struct thp_vma v;
	(void)state;
	/* 1 GiB aligned and touched: 512 tables go */
	v = vma(B, B + G, "rw-p", "", G, 0);
	assert_true(thp_vma_pt_replaced(&v) == 512);
	/* the same, 4 KiB off alignment: 511 whole slots inside */
	v = vma(B + 4096, B + 4096 + G, "rw-p", "", G, 0);
	assert_true(thp_vma_pt_replaced(&v) == 511);
	/* 1 GiB mapped, 3 MiB resident: as many tables as 3 MiB fills, rounded up */
	v = vma(B, B + G, "rw-p", "", 3 * M, 0);
	assert_true(thp_vma_pt_replaced(&v) == 2);
	/* shared anonymous memory and SysV shared memory count */
	v = vma(B, B + 16 * M, "rw-s", "/dev/zero (deleted)", 16 * M, 0);
	assert_true(thp_vma_pt_replaced(&v) == 8);
	v = vma(B, B + 16 * M, "rw-s", "/SYSV00000000 (deleted)", 16 * M, 0);
	assert_true(thp_vma_pt_replaced(&v) == 8);
	/* shmem already PMD-mapped has no table to lose */
	v = vma(B, B + 16 * M, "rw-s", "/dev/zero (deleted)", 16 * M, 12 * M);
	assert_true(thp_vma_pt_replaced(&v) == 2);
	v = vma(B, B + 16 * M, "rw-s", "/dev/zero (deleted)", 4 * M, 8 * M);
	assert_true(thp_vma_pt_replaced(&v) == 0);
	/* files, stacks, special and hugetlb mappings keep what they have */
	v = vma(B, B + 16 * M, "r-xp", "/usr/lib/libc.so.6", 16 * M, 0);
	v.inode = 42;
	assert_true(thp_vma_pt_replaced(&v) == 0);
	v = vma(B, B + 16 * M, "rw-p", "[stack]", 16 * M, 0);
	assert_true(thp_vma_pt_replaced(&v) == 0);
	v = vma(B, B + 16 * M, "r-xp", "[vdso]", 16 * M, 0);
	assert_true(thp_vma_pt_replaced(&v) == 0);
	v = vma(B, B + 16 * M, "rw-s", "/dev/hugepages/x", 16 * M, 0);
	snprintf(v.vmflags, sizeof(v.vmflags), "rd wr sh mr mw me ms de ht");
	assert_true(thp_vma_pt_replaced(&v) == 0);
	/* the estimate: VmPTE less 4 KiB per table, never below 0 */
	assert_true(thp_pt_estimate(2100 * 1024, 512) == 52 * 1024);
	assert_true(thp_pt_estimate(8192, 2) == 0);
	assert_true(thp_pt_estimate(8192, 3) == 0);
	assert_true(thp_pt_estimate(8192, UINT64_MAX) == 0);
	/* shared memory's tables: 8 bytes per 4 KiB page, PMD-mapped left out, at most VmPTE */
	assert_true(thp_pt_shmem(G, 0, 4 * M) == 2 * M);
	assert_true(thp_pt_shmem(G, G / 2, 4 * M) == M);
	assert_true(thp_pt_shmem(G, 2 * G, 4 * M) == 0);
	assert_true(thp_pt_shmem(G, 0, 64 * 1024) == 64 * 1024);
}

static void cgroup(void **state)
{
	char p[256];
	const char *hybrid = "9:name=systemd:/\n4:memory:/jobs/a\n1:cpu,cpuacct:/\n0::/\n";
	const char *v2 = "0::/system.slice/redis.service\n";
	(void)state;
	thp_cgroup_path(hybrid, p, sizeof(p));
	assert_string_equal(p, "/jobs/a");
	thp_cgroup_path(v2, p, sizeof(p));
	assert_string_equal(p, "/system.slice/redis.service");
	thp_cgroup_path("4:cpu,memory:/x\n", p, sizeof(p));
	assert_string_equal(p, "/x");
	thp_cgroup_path("garbage", p, sizeof(p));
	assert_string_equal(p, "");
	assert_true(thp_cgroup_in(v2, "/system.slice"));
	assert_true(thp_cgroup_in(v2, "/system.slice/"));
	assert_true(thp_cgroup_in(v2, "/system.slice/redis.service"));
	assert_false(thp_cgroup_in(v2, "/system.sl"));
	assert_false(thp_cgroup_in(v2, "/user.slice"));
	assert_true(thp_cgroup_in(v2, "/"));
	assert_true(thp_cgroup_in(hybrid, "/jobs"));
	assert_false(thp_cgroup_in(hybrid, "/jobs/ab"));
}

struct collected {
	int n;
	struct thp_vma v[4];
};

static int collect(const struct thp_vma *v, void *ctx)
{
	struct collected *c = ctx;
	if (c->n < 4)
		c->v[c->n] = *v;
	c->n++;
	return 0;
}

static const char smaps[] =
	"7f0000000000-7f0000600000 rw-p 00000000 00:00 0 \n"
	"Size:               6144 kB\n"
	"Rss:                4096 kB\n"
	"Anonymous:          4096 kB\n"
	"AnonHugePages:      4096 kB\n"
	"THPeligible:    1\n"
	"VmFlags: rd wr mr mw me ac hg \n"
	"55d0c0a00000-55d0c0a21000 r-xp 00002000 fe:00 247498                     /usr/bin/my prog\n"
	"Rss:                  24 kB\n"
	"FilePmdMapped:         0 kB\n"
	"VmFlags: rd ex mr mw me\n"
	"7ffd10000000-7ffd10021000 rw-p 00000000 00:00 0                          [stack]\n"
	"Rss:                  12 kB\n";

/* Every figure of struct thp_rollup has its smaps name, parsed into its own
 * place; smaps gives every one, and a sum knows what each part knows. */
static void rollup_figures(void **state)
{
	char text[1024] = "";
	struct thp_rollup r, a = { 0 }, b = { .unknown = 1u << THP_RF_SHARED_DIRTY };
	size_t len = 0;
	(void)state;

	for (int f = 0; f < THP_RF_N; f++) {
		assert_non_null(thp_rollup_name(f));
		for (int g = 0; g < f; g++)
			assert_string_not_equal(thp_rollup_name(f), thp_rollup_name(g));
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s: %d kB\n", thp_rollup_name(f), f + 1);
	}
	assert_int_equal(thp_rollup_parse(text, &r), 0);
	for (int f = 0; f < THP_RF_N; f++) {
		assert_true(*thp_rollup_at(&r, f) == (uint64_t)(f + 1) * 1024);
		assert_true(thp_rollup_known(&r, f));
	}
	assert_true(r.anon_huge == 3 * 1024 && r.shared_dirty == THP_RF_N * 1024);
	thp_rollup_add(&a, &r);
	thp_rollup_add(&a, &b);
	assert_true(a.rss == 1024);
	assert_false(thp_rollup_known(&a, THP_RF_SHARED_DIRTY));
	assert_true(thp_rollup_known(&a, THP_RF_PRIVATE_DIRTY));
}

static void smaps_parse(void **state)
{
	struct collected c = { 0 };
	(void)state;
	assert_int_equal(thp_smaps_parse(smaps, collect, &c), 0);
	assert_int_equal(c.n, 3);
	assert_true(c.v[0].start == 0x7f0000000000ull && c.v[0].end == 0x7f0000600000ull);
	assert_string_equal(c.v[0].perms, "rw-p");
	assert_string_equal(c.v[0].name, "");
	assert_true(c.v[0].m.anon_huge == 4096 * 1024);
	assert_int_equal(c.v[0].eligible, 1);
	assert_true(thp_vma_flag(&c.v[0], "hg"));
	assert_false(thp_vma_flag(&c.v[0], "nh"));
	assert_false(thp_vma_flag(&c.v[0], "h"));
	assert_string_equal(c.v[1].name, "/usr/bin/my prog");
	assert_true(c.v[1].offset == 0x2000 && c.v[1].inode == 247498);
	assert_true(c.v[1].m.rss == 24 * 1024);
	assert_int_equal(c.v[1].eligible, -1);
	assert_true(thp_vma_flag(&c.v[1], "me"));
	assert_string_equal(c.v[2].name, "[stack]");
	assert_string_equal(c.v[2].vmflags, "");
	c.n = 0;
	assert_int_equal(thp_smaps_parse("", collect, &c), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(thp_smaps_parse("junk\nRss: 4 kB\n", collect, &c), 0);
	assert_int_equal(c.n, 0);
}

/* Writes LEN bytes of TEXT as FILE below DIR/proc/PID. */
static void putn(const char *dir, int pid, const char *file, const char *text, size_t len)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/proc", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/%d", dir, pid);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/%d/%s", dir, pid, file);
	f = fopen(p, "w");
	assert_non_null(f);
	fwrite(text, 1, len, f);
	fclose(f);
}

static void put(const char *dir, int pid, const char *file, const char *text)
{
	putn(dir, pid, file, text, strlen(text));
}

static void put_status(const char *dir, int pid, int ppid, const char *name, int thp)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "Name:\t%s\nPid:\t%d\nPPid:\t%d\nUid:\t0\t0\t0\t0\nTHP_enabled:\t%d\n",
		 name, pid, ppid, thp);
	put(dir, pid, "status", buf);
}

static void origin_and_stream(void **state)
{
	char dir[] = "/tmp/thp-test-proc.XXXXXX", big[300000], cmd[600];
	struct thp_root root;
	struct thp_pstatus s, o;
	struct collected c = { 0 };
	size_t len = 0;
	(void)state;

	assert_non_null(mkdtemp(dir));
	put_status(dir, 1, 0, "init", 1);
	put_status(dir, 100, 1, "supervisor", 0);
	put_status(dir, 200, 100, "node", 0);
	put_status(dir, 300, 200, "worker", 0);
	put_status(dir, 400, 1, "solo", 0);
	put_status(dir, 500, 999, "orphan", 0);
	putn(dir, 300, "cmdline", "node\0--max-old-space-size=4096\0", 31);
	put(dir, 300, "comm", "worker\n");
	/* smaps larger than one read chunk, split across reads */
	for (int i = 0; i < 3000; i++)
		len += (size_t)snprintf(big + len, sizeof(big) - len,
					"%08x000-%08x000 rw-p 00000000 00:00 0 \nRss: 4 kB\nVmFlags: rd wr\n",
					i * 2, i * 2 + 1);
	put(dir, 300, "smaps", big);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/kernel/mm/transparent_hugepage", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(thp_root_open(&root, dir), 0);

	assert_int_equal(thp_pstatus_read(&root, 300, &s), 0);
	assert_int_equal(thp_thp_origin(&root, &s, &o), 0);
	assert_int_equal(o.pid, 100);
	assert_string_equal(o.name, "supervisor");
	assert_int_equal(thp_pstatus_read(&root, 400, &s), 0);
	assert_int_equal(thp_thp_origin(&root, &s, &o), 0);
	assert_int_equal(o.pid, 400); /* set it itself */
	assert_int_equal(thp_pstatus_read(&root, 500, &s), 0);
	assert_int_equal(thp_thp_origin(&root, &s, &o), 0);
	assert_int_equal(o.pid, 500); /* parent unreadable: stop */
	assert_int_equal(thp_pstatus_read(&root, 1, &s), 0);
	assert_int_equal(thp_thp_origin(&root, &s, &o), -EINVAL);
	assert_int_equal(thp_pstatus_read(&root, 42, &s), -ENOENT);
	/* a kernel without THP shows THP_enabled 0 for every process: nobody disabled it */
	snprintf(cmd, sizeof(cmd), "%s/sys/kernel/mm/transparent_hugepage", dir);
	assert_int_equal(rmdir(cmd), 0);
	assert_int_equal(thp_pstatus_read(&root, 300, &s), 0);
	assert_int_equal(s.thp_enabled, THP_ENABLED_NO_KERNEL);
	assert_int_equal(thp_thp_origin(&root, &s, &o), -EINVAL);
	assert_int_equal(thp_pstatus_read(&root, 1, &s), 0);
	assert_int_equal(s.thp_enabled, 1);

	assert_int_equal(thp_cmdline_read(&root, 300, cmd, sizeof(cmd)), 0);
	assert_string_equal(cmd, "node --max-old-space-size=4096");
	assert_int_equal(thp_comm_read(&root, 300, cmd, sizeof(cmd)), 0);
	assert_string_equal(cmd, "worker");
	assert_int_equal(thp_smaps_read(&root, 300, collect, &c), 0);
	assert_int_equal(c.n, 3000);
	assert_true(c.v[3].start == 0x6000ull && c.v[3].m.rss == 4096);
	assert_int_equal(thp_smaps_read(&root, 42, collect, &c), -ENOENT);
	thp_root_close(&root);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* The commands doctor suggests: shell-quoted, from exe and argv (recorded
 * /proc/PID/cmdline contents), and what is said when argv is a title. */
static void relaunch(void **state)
{
	static const char redis_title[] = "redis-server *:6390\0\0\0";
	static const char pg[] = "/usr/lib/postgresql/16/bin/postgres\0-D\0/var/lib/postgresql/16/main\0"
				 "-c\0config_file=/etc/postgresql/16/main/postgresql.conf\0";
	static const char odd[] = "myd\0--name\0it's here\0\0--x=$HOME;rm\0";
	static const char busybox[] = "sh\0-c\0sleep 9\0";
	char b[512], small[24] = "";
	(void)state;
	/* a title written over argv: the program from exe, no arguments claimed */
	assert_int_equal(thp_relaunch_build(redis_title, sizeof(redis_title) - 1, "/usr/bin/redis-server",
					    "redis-server", b, sizeof(b)), THP_RELAUNCH_TITLE);
	assert_string_equal(b, "/usr/bin/redis-server");
	/* the same recorded without exe: the title's first word */
	assert_int_equal(thp_relaunch_build(redis_title, sizeof(redis_title) - 1, NULL, "redis-server", b,
					    sizeof(b)), THP_RELAUNCH_TITLE);
	assert_string_equal(b, "redis-server");
	/* plain argv: exe as the program, arguments as they are */
	assert_int_equal(thp_relaunch_build(pg, sizeof(pg) - 1, "/usr/lib/postgresql/16/bin/postgres", "postgres",
					    b, sizeof(b)), THP_RELAUNCH_ARGV);
	assert_string_equal(b, "/usr/lib/postgresql/16/bin/postgres -D /var/lib/postgresql/16/main "
			       "-c config_file=/etc/postgresql/16/main/postgresql.conf");
	/* a bare argv[0] becomes exe; spaces, quotes, empty and shell words are quoted */
	assert_int_equal(thp_relaunch_build(odd, sizeof(odd) - 1, "/opt/bin/myd", "myd", b, sizeof(b)),
			 THP_RELAUNCH_ARGV);
	assert_string_equal(b, "/opt/bin/myd --name 'it'\\''s here' '' '--x=$HOME;rm'");
	/* recorded (no exe): argv[0] as it is */
	assert_int_equal(thp_relaunch_build(odd, sizeof(odd) - 1, NULL, "myd", b, sizeof(b)), THP_RELAUNCH_RECORDED);
	assert_string_equal(b, "myd --name 'it'\\''s here' '' '--x=$HOME;rm'");
	/* a multi-call binary keeps the name it was started by */
	assert_int_equal(thp_relaunch_build(busybox, sizeof(busybox) - 1, "/bin/busybox", "sh", b, sizeof(b)),
			 THP_RELAUNCH_ARGV);
	assert_string_equal(b, "sh -c 'sleep 9'");
	/* arguments that do not all fit: the program alone, never some of them */
	assert_int_equal(thp_relaunch_build(pg, sizeof(pg) - 1, NULL, "postgres", b, 60), THP_RELAUNCH_LONG);
	assert_string_equal(b, "/usr/lib/postgresql/16/bin/postgres");
	/* no command line (a capture made with --no-cmdline): the command name */
	assert_int_equal(thp_relaunch_build("", 0, NULL, "redis-server", b, sizeof(b)), THP_RELAUNCH_UNKNOWN);
	assert_string_equal(b, "redis-server");
	/* quoting leaves a buffer it does not fit in as it was */
	assert_false(thp_sh_quote_append(small, sizeof(small), "a string far too long to fit"));
	assert_string_equal(small, "");
	assert_true(thp_sh_quote_append(small, sizeof(small), "a b"));
	assert_string_equal(small, "'a b'");
}

/* On the live host the program comes from /proc/PID/exe: this test's own. */
static void relaunch_live(void **state)
{
	struct thp_root root;
	char b[4096], exe[4096], quoted[4200] = "", rel[64], *argv;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t len;
	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	assert_true(thp_sh_quote_append(quoted, sizeof(quoted), exe)); /* a build directory may need quotes */
	assert_int_equal(thp_root_open(&root, "/"), 0);
	snprintf(rel, sizeof(rel), "proc/%d/cmdline", (int)getpid());
	assert_int_equal(thp_read(&root, rel, &argv, &len), 0);
	assert_int_equal(thp_relaunch_read(&root, getpid(), argv, len, "test_proc", b, sizeof(b)), THP_RELAUNCH_ARGV);
	free(argv);
	assert_string_equal(b, quoted);
	thp_root_close(&root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pstatus),
		cmocka_unit_test(pstatus_pte),
		cmocka_unit_test(ptables),
		cmocka_unit_test(cgroup),
		cmocka_unit_test(rollup_figures),
		cmocka_unit_test(smaps_parse),
		cmocka_unit_test(origin_and_stream),
		cmocka_unit_test(relaunch),
		cmocka_unit_test(relaunch_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
