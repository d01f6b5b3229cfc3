/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the folio walk (synthetic pagemap and kpageflags in a fake
 * root) and of the reasons a mapping has no huge pages (cmocka). */
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

#include "put.h"

#include "core/folios.h"
#include "core/status.h"
#include "core/why.h"

#define THP (1ull << 22)
#define HEAD (1ull << 15)
#define TAIL (1ull << 16)
#define ZERO (1ull << 24)
#define ANON (1ull << 12)
#define PRESENT (1ull << 63)
#define EXCLUSIVE (1ull << 56) /* pagemap: mapped by this process alone */
#define V 0x10000ull /* first virtual page of the test mapping (2 MiB aligned) */

static char dir[] = "/tmp/thp-test-folios.XXXXXX";

/* The walk ps makes with --folios (thp_proc_walk): folios into S, the
 * figures into SUM (when not NULL). */
static int proc_walk(const struct thp_root *root, struct thp_folio_reader *fr, pid_t pid, struct thp_folio_stats *s,
		struct thp_rollup *sum)
{
	struct thp_walk w = { .fr = fr };
	int err = thp_proc_walk(root, &(struct thp_pstatus){ .pid = pid }, &w);

	*s = w.folios;
	if (sum)
		*sum = w.sum;
	return err;
}

/* Adds each mapping's own folios (CTX) as show's rows get them. */
static int add_vma(const struct thp_walk_vma *m, void *ctx)
{
	assert_non_null(m->f);
	thp_folio_stats_add(ctx, m->f);
	return 0;
}
static int pm_fd, kf_fd;

static void entry(int fd, uint64_t index, uint64_t val)
{
	assert_int_equal(pwrite(fd, &val, 8, (off_t)(index * 8)), 8);
}

/* Maps pages [FIRST, FIRST+N) of the mapping to PFN.. as one folio slice:
 * HEADAT is the page index (within the slice) of the folio head, or -1. */
static void folio(uint64_t first, uint64_t n, uint64_t pfn, long headat, uint64_t kind)
{
	for (uint64_t i = 0; i < n; i++) {
		entry(pm_fd, V + first + i, PRESENT | (pfn + i));
		entry(kf_fd, pfn + i, THP | kind | ((long)i == headat ? HEAD : TAIL));
	}
}

static void put(const char *rel, const char *text)
{
	put_file(dir, rel, text);
}

/* Makes the fake root: proc/100 and proc/101, pagemap of 100 and kpageflags open. */
static void fake_root(void)
{
	char p[512];

	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/proc", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/100", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/101", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/100/pagemap", dir);
	pm_fd = open(p, O_RDWR | O_CREAT, 0644);
	snprintf(p, sizeof(p), "%s/proc/kpageflags", dir);
	kf_fd = open(p, O_RDWR | O_CREAT, 0644);
	assert_true(pm_fd >= 0 && kf_fd >= 0);
}

static void fake_root_remove(void)
{
	char p[600];

	close(pm_fd);
	close(kf_fd);
	snprintf(p, sizeof(p), "rm -rf %s", dir);
	assert_int_equal(system(p), 0);
}

static void walk(void **state)
{
	struct thp_root root;
	struct thp_folio_reader *fr;
	struct thp_folio_stats s;
	struct thp_rollup sum;
	char zombie[512];
	(void)state;

	fake_root();
	folio(0, 16, 0x1000, 0, ANON);         /* 64 KiB, aligned */
	folio(33, 16, 0x3000, 0, ANON);        /* 64 KiB at an odd page: unaligned */
	folio(64, 8, 0x4008, -1, ANON);        /* back half of a folio: partial */
	folio(80, 8, 0x5000, 0, ANON);         /* front half ... */
	entry(kf_fd, 0x5008, THP | ANON | TAIL); /* ... whose rest is not mapped here */
	for (uint64_t i = 0; i < 10; i++) {    /* small pages */
		entry(pm_fd, V + 100 + i, PRESENT | (0x6000 + i));
		entry(kf_fd, 0x6000 + i, ANON);
	}
	folio(200, 4, 0x7000, 0, 0);           /* 16 KiB page cache folio */
	entry(pm_fd, V + 150, PRESENT | 0x9000); /* the zero page: no memory */
	entry(kf_fd, 0x9000, ZERO);
	folio(512, 512, 0x8000, 0, ANON);      /* 2 MiB, PMD-mapped (smaps says so) */
	entry(pm_fd, V + 1023, PRESENT | 0x81ff); /* the file reaches the end of the VMA */
	put("proc/100/smaps", "10000000-10400000 rw-p 00000000 00:00 0\n"
			      "Rss: 4096 kB\nAnonymous: 4096 kB\nAnonHugePages: 2048 kB\n");
	/* process 101's pagemap is empty: it exited */
	put("proc/101/pagemap", "");
	put("proc/101/smaps", "10000000-10400000 rw-p 00000000 00:00 0\nRss: 4 kB\n");
	/* process 103 is a zombie: its smaps lists no VMA */
	snprintf(zombie, sizeof(zombie), "%s/proc/103", dir);
	assert_int_equal(mkdir(zombie, 0755), 0);
	put("proc/103/pagemap", "");
	put("proc/103/smaps", "");

	assert_int_equal(thp_root_open(&root, dir), 0);
	assert_int_equal(thp_folio_reader_open(&root, &fr), 0);
	assert_int_equal(proc_walk(&root, fr, 100, &s, &sum), 0);
	assert_true(sum.rss == 4u << 20); /* the smaps figures, summed */
	assert_true(sum.anon_huge == 2u << 20);
	assert_int_equal(s.pmd_order, 9);
	assert_false(s.scan); /* a regular file has no PAGEMAP_SCAN */
	assert_true(s.aligned[THP_FOLIO_ANON][4] == 64 * 1024);
	assert_true(s.unaligned[THP_FOLIO_ANON][4] == 64 * 1024);
	assert_true(s.partial[THP_FOLIO_ANON] == 16 * 4096);
	assert_true(s.aligned[THP_FOLIO_FILE][2] == 16 * 1024);
	assert_true(s.aligned[THP_FOLIO_ANON][9] == 0); /* counted as PMD-mapped instead */
	assert_true(s.pmd[THP_FOLIO_ANON] == 2u << 20);
	assert_true(s.walked == 4u << 20);
	/* what the walk saw mapped by PTEs (here also the PMD, without
	 * PAGEMAP_SCAN), the zero page apart */
	assert_true(s.rss == 574 * 4096);
	assert_true(s.anon == 570 * 4096);
	assert_true(thp_folio_pte_aligned(&s) == 80 * 1024);
	assert_true(thp_folio_partial(&s) == 16 * 4096);
	/* show's walk: each mapping with its own folios, which add up to the
	 * same sums as ps's; every figure known from smaps */
	struct thp_folio_stats rows = { 0 };
	struct thp_walk w = { .fr = fr, .smaps = true, .fn = add_vma, .ctx = &rows };
	assert_int_equal(thp_proc_walk(&root, &(struct thp_pstatus){ .pid = 100 }, &w), 0);
	assert_memory_equal(&w.folios, &s, sizeof(s));
	assert_true(rows.aligned[THP_FOLIO_ANON][4] == s.aligned[THP_FOLIO_ANON][4]);
	assert_true(rows.partial[THP_FOLIO_ANON] == s.partial[THP_FOLIO_ANON]);
	assert_true(thp_folio_pmd(&rows) == thp_folio_pmd(&s));
	assert_true(w.sum.rss == sum.rss && w.sum.unknown == 0);
	assert_int_equal(proc_walk(&root, fr, 101, &s, NULL), -ESRCH);
	assert_int_equal(proc_walk(&root, fr, 102, &s, NULL), -ENOENT);
	assert_int_equal(proc_walk(&root, fr, 103, &s, &sum), -ESRCH);
	thp_folio_reader_close(fr);
	thp_root_close(&root);
	fake_root_remove();
}

/* With thp_folio_reader_share(), the kpageflags of frames that other
 * processes map too are read once for every process walked with the same
 * reader; a process's own frames are read again each time. */
static void shared_frames_once(void **state)
{
	struct thp_root root;
	struct thp_folio_reader *fr;
	struct thp_folio_stats s;
	char p[512];
	int pm2;
	(void)state;

	fake_root();
	snprintf(p, sizeof(p), "%s/proc/104", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/proc/104/pagemap", dir);
	pm2 = open(p, O_RDWR | O_CREAT, 0644);
	assert_true(pm2 >= 0);
	for (uint64_t i = 0; i < 16; i++) {
		entry(pm2, V + i, PRESENT | (0x1000 + i));                /* a 64 KiB folio shared */
		entry(pm2, V + 16 + i, PRESENT | EXCLUSIVE | (0x2000 + i)); /* and one of its own */
		entry(kf_fd, 0x1000 + i, THP | ANON | (i ? TAIL : HEAD));
		entry(kf_fd, 0x2000 + i, THP | ANON | (i ? TAIL : HEAD));
	}
	put("proc/104/smaps", "10000000-10020000 rw-p 00000000 00:00 0\nRss: 128 kB\n");
	assert_int_equal(thp_root_open(&root, dir), 0);
	assert_int_equal(thp_folio_reader_open(&root, &fr), 0);
	thp_folio_reader_share(fr);
	assert_int_equal(proc_walk(&root, fr, 104, &s, NULL), 0);
	assert_true(s.aligned[THP_FOLIO_ANON][4] == 128 * 1024);
	assert_int_equal(ftruncate(kf_fd, 0), 0); /* every frame now reads as no folio */
	assert_int_equal(proc_walk(&root, fr, 104, &s, NULL), 0);
	assert_true(s.aligned[THP_FOLIO_ANON][4] == 64 * 1024); /* the shared folio, as read before */
	close(pm2);
	thp_folio_reader_close(fr);
	thp_root_close(&root);
	fake_root_remove();
}

/* The huge zero page mapped by PMDs (as pagemap shows them: the same PFNs
 * again and again) is no memory; --cont blocks follow thpmaps' definition. */
static void zero_and_cont(void **state)
{
	struct thp_root root;
	struct thp_folio_reader *fr;
	struct thp_folio_stats s;
	(void)state;

	fake_root();
	for (uint64_t i = 0; i < 1024; i++) { /* two 2 MiB ranges read, not written */
		entry(pm_fd, V + i, PRESENT | (0x20000 + i % 512));
		entry(kf_fd, 0x20000 + i % 512, THP | ZERO | (i % 512 ? TAIL : HEAD));
	}
	folio(1024, 16, 0x30000, 0, ANON);     /* 64 KiB, aligned in both */
	folio(1056, 16, 0x30108, 0, ANON);     /* 64 KiB, physically aligned to 32 KiB only */
	folio(1088, 4, 0x31000, 0, ANON);      /* two 16 KiB folios, physically adjacent: */
	folio(1092, 4, 0x31004, 0, ANON);      /* no 32 KiB block spans them */
	put("proc/100/smaps", "10000000-10448000 rw-p 00000000 00:00 0\n"
			      "Rss: 4096 kB\nAnonymous: 4096 kB\nAnonHugePages: 0 kB\n");
	assert_int_equal(thp_root_open(&root, dir), 0);
	assert_int_equal(thp_folio_reader_open(&root, &fr), 0);
	thp_folio_reader_cont(fr, 1u << 2 | 1u << 3 | 1u << 4);
	assert_int_equal(proc_walk(&root, fr, 100, &s, NULL), 0);
	assert_true(s.huge_zero == 4u << 20);
	assert_true(thp_folio_pmd(&s) == 0);
	assert_true(s.aligned[THP_FOLIO_FILE][9] == 0); /* not a page cache folio either */
	assert_true(s.aligned[THP_FOLIO_ANON][4] == 128 * 1024);
	assert_true(s.aligned[THP_FOLIO_ANON][2] == 32 * 1024);
	assert_true(s.cont[THP_FOLIO_ANON][4] == 64 * 1024);
	assert_true(s.cont[THP_FOLIO_ANON][3] == 128 * 1024);
	assert_true(s.cont[THP_FOLIO_ANON][2] == 160 * 1024);
	assert_true(s.cont_orders == (1u << 2 | 1u << 3 | 1u << 4));
	assert_true(thp_folio_mthp(&s) == 160 * 1024);
	assert_true(thp_folio_order_bytes(&s, 4) == 128 * 1024);
	thp_folio_reader_close(fr);
	thp_root_close(&root);
	fake_root_remove();
}

/* PAGEMAP_SCAN regions: PFNZERO is the huge zero page, and anonymous PMD
 * mappings beyond AnonHugePages are too (kernels that do not flag it). */
static void pmd_found(void **state)
{
	struct thp_pmd_found f = { { 10u << 20, 2u << 20 }, 0 };
	(void)state;

	assert_int_equal(thp_pmd_region_kind(1u << 6 | 1u << 5), THP_PMD_ZERO);
	assert_int_equal(thp_pmd_region_kind(1u << 6 | 1u << 2), THP_PMD_FILE);
	assert_int_equal(thp_pmd_region_kind(1u << 6 | 1u << 3), 0);
	thp_pmd_found_settle(&f, 8u << 20);
	assert_true(f.pmd[THP_FOLIO_ANON] == 8u << 20 && f.zero == 2u << 20);
	assert_true(f.pmd[THP_FOLIO_FILE] == 2u << 20);
	thp_pmd_found_settle(&f, 16u << 20); /* less found than smaps says: kept */
	assert_true(f.pmd[THP_FOLIO_ANON] == 8u << 20 && f.zero == 2u << 20);
}

/* --cont sizes and base page sizes from the PMD size (arm64 granules). */
static void sizes(void **state)
{
	(void)state;
	assert_int_equal(thp_folio_cont_order(64 << 10, 4096, 2u << 20), 4);
	assert_int_equal(thp_folio_cont_order(2u << 20, 4096, 2u << 20), 9);
	assert_int_equal(thp_folio_cont_order(4096, 4096, 2u << 20), -EINVAL);
	assert_int_equal(thp_folio_cont_order(48 << 10, 4096, 2u << 20), -EINVAL);
	assert_int_equal(thp_folio_cont_order(4u << 20, 4096, 2u << 20), -EINVAL);
	assert_int_equal(thp_folio_cont_order(2u << 20, 64 << 10, 512u << 20), 5);
	assert_int_equal(thp_page_size_of_pmd(2u << 20), 4096);
	assert_int_equal(thp_page_size_of_pmd(32u << 20), 16384);
	assert_int_equal(thp_page_size_of_pmd(512u << 20), 65536);
	assert_int_equal(thp_page_size_of_pmd(1u << 30), 0);
}

static struct thp_vma vma(uint64_t start, uint64_t end, const char *name, const char *flags)
{
	struct thp_vma v;
	memset(&v, 0, sizeof(v));
	v.start = start;
	v.end = end;
	v.eligible = -1;
	snprintf(v.perms, sizeof(v.perms), "rw-p");
	snprintf(v.name, sizeof(v.name), "%s", name);
	snprintf(v.vmflags, sizeof(v.vmflags), "%s", flags);
	v.m.rss = 4096;
	return v;
}

static void why(void **state)
{
	struct thp_why_ctx c = { .anon_policy = "madvise", .shmem_policy = "never", .shmem_top = "never",
				 .pmd_size = 2u << 20, .proc_thp_enabled = 1 };
	struct thp_vma v = vma(0x200000, 0x600000, "", "rd wr mr mw me ac");
	(void)state;

	assert_int_equal(thp_vma_pmd_slots(&v, 2u << 20), 2);
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_NOT_ADVISED);
	snprintf(v.vmflags, sizeof(v.vmflags), "rd wr hg");
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_NOT_FAULTED);
	v.eligible = 0;
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_NOT_ELIGIBLE);
	v.start = 0x201000; /* now it holds only one aligned slot */
	assert_int_equal(thp_vma_pmd_slots(&v, 2u << 20), 1);
	v.end = 0x400000 - 0x1000;
	assert_int_equal(thp_vma_pmd_slots(&v, 2u << 20), 0);
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_NO_SLOT);
	snprintf(v.vmflags, sizeof(v.vmflags), "rd wr nh");
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_NOHUGEPAGE);
	c.proc_thp_enabled = 0;
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_PROC_OFF);
	c.proc_thp_enabled = 1;
	c.anon_policy = "never";
	v = vma(0x200000, 0x600000, "[heap]", "rd wr hg");
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_NEVER);
	v.m.anon_huge = 2u << 20;
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_HUGE);
	v = vma(0x200000, 0x600000, "/usr/lib/libc.so.6", "rd ex");
	v.inode = 42;
	assert_int_equal(thp_vma_kind(&v, NULL), THP_VMA_FILE);
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_FILE);
	v = vma(0x200000, 0x600000, "/memfd:pool (deleted)", "rd wr sh");
	v.inode = 7;
	assert_int_equal(thp_vma_kind(&v, NULL), THP_VMA_SHMEM);
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_SHMEM);
	v = vma(0x200000, 0x600000, "", "rd wr sh");
	v.perms[3] = 's';
	assert_int_equal(thp_vma_kind(&v, NULL), THP_VMA_SHMEM);
	v = vma(0x200000, 0x600000, "[vdso]", "rd ex");
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_SPECIAL);
	v = vma(0x200000, 0x600000, "/dev/hugepages/x", "rd wr ht");
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_HUGETLB);
	v = vma(0x200000, 0x600000, "/dev/zero", "rd wr");
	assert_int_equal(thp_vma_kind(&v, NULL), THP_VMA_ANON); /* private: anonymous memory */
	v.perms[3] = 's';
	assert_int_equal(thp_vma_kind(&v, NULL), THP_VMA_SHMEM);
	assert_int_equal(thp_vma_shmem_kind(&v, NULL), THP_SHM_ANON);
	c.pmd_size = 0;
	v = vma(0x200000, 0x600000, "", "rd wr");
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_NO_KERNEL);
}

/* The mTHP sizes a mapping may get, and the WHY that names them. */
static void why_mthp(void **state)
{
	struct thp_why_ctx c = { .anon_policy = "madvise", .shmem_policy = "never", .shmem_top = "never",
				 .pmd_size = 2u << 20, .proc_thp_enabled = 1, .nsizes = 3,
				 .sizes = { { 16 << 10, "never", "never" }, { 64 << 10, "always", "always" },
					    { 128 << 10, "madvise", "never" } } };
	struct thp_vma v = vma(0x200000, 0x600000, "", "rd wr mr mw me ac");
	char buf[400];
	(void)state;

	assert_int_equal(thp_vma_mthp(&v, &c), 1u << 1);
	assert_string_equal(thp_vma_why_text(&v, thp_vma_why(&v, &c), &c, buf, sizeof(buf)),
			    "64 KiB mTHP (hugepages-64kB always); 2 MiB: policy 'madvise' and range not "
			    "advised (MADV_HUGEPAGE)");
	snprintf(v.vmflags, sizeof(v.vmflags), "rd wr hg");
	assert_int_equal(thp_vma_mthp(&v, &c), 1u << 1 | 1u << 2);
	v.end = v.start + (96 << 10); /* no aligned 128 KiB slot */
	assert_int_equal(thp_vma_mthp(&v, &c), 1u << 1);
	snprintf(v.vmflags, sizeof(v.vmflags), "rd wr nh");
	assert_int_equal(thp_vma_mthp(&v, &c), 0);
	v = vma(0x200000, 0x600000, "", "rd wr");
	c.except_advised = true; /* unadvised ranges get no size at all */
	assert_int_equal(thp_vma_mthp(&v, &c), 0);
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_EXCEPT_ADVISED);
	c.except_advised = false;
	v.perms[3] = 's'; /* shared anonymous: per-size shmem_enabled */
	assert_int_equal(thp_vma_mthp(&v, &c), 1u << 1);
	assert_string_equal(thp_vma_why_text(&v, thp_vma_why(&v, &c), &c, buf, sizeof(buf)),
			    "64 KiB mTHP (hugepages-64kB shmem_enabled always); 2 MiB: shared anonymous "
			    "memory: shmem_enabled (PMD size) is 'never'");
	c.proc_thp_enabled = 0;
	assert_int_equal(thp_vma_mthp(&v, &c), 0);
	c.proc_thp_enabled = 1;
	/* a 12 KiB mapping, not advised: its size is the reason, not the advice */
	v = vma(0x200000, 0x203000, "", "rd wr");
	assert_string_equal(thp_vma_why_text(&v, thp_vma_why(&v, &c), &c, buf, sizeof(buf)),
			    "too small for a 2 MiB page or any enabled size (the smallest is 64 KiB)");
	v.end = 0x300000;
	assert_string_equal(thp_vma_why_text(&v, thp_vma_why(&v, &c), &c, buf, sizeof(buf)),
			    "64 KiB mTHP (hugepages-64kB always); 2 MiB: too small for a 2 MiB page");
	v = vma(0x201000, 0x601000 - 0x2000, "", "rd wr hg"); /* 4 MiB less 8 KiB, not aligned */
	assert_string_equal(thp_vma_why_text(&v, thp_vma_why(&v, &c), &c, buf, sizeof(buf)),
			    "64 KiB mTHP (hugepages-64kB always), 128 KiB mTHP (hugepages-128kB madvise); "
			    "2 MiB: misaligned: no aligned 2 MiB slot inside");
}

/* shmem by where its policy comes from; files by filesystem; hugetlb. */
static void why_mounts(void **state)
{
	struct thp_mounts m;
	struct thp_why_ctx c = { .anon_policy = "madvise", .shmem_policy = "always", .shmem_top = "always",
				 .pmd_size = 2u << 20, .proc_thp_enabled = 1, .kmajor = 6, .kminor = 12 };
	struct thp_vma v = vma(0x200000, 0x600000, "/dev/shm/pool", "rd wr sh");
	char buf[400];
	(void)state;

	assert_int_equal(thp_mountinfo_parse("24 23 0:22 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=4k\n"
					     "25 23 0:23 / /mnt/huge\\040x rw - tmpfs t rw,huge=within_size\n"
					     "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
					     "27 1 254:1 / /data rw shared:5 - xfs /dev/vdb rw\n"
					     "garbage\n", &m), 0);
	assert_int_equal(m.n, 4);
	assert_string_equal(m.v[1].point, "/mnt/huge x");
	assert_string_equal(m.v[1].huge, "within_size");
	assert_string_equal(m.v[3].fstype, "xfs");
	c.mounts = &m;
	v.perms[3] = 's';
	v.inode = 9;
	v.dev_minor = 22;
	assert_int_equal(thp_vma_kind(&v, &m), THP_VMA_SHMEM);
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_TMPFS);
	assert_string_equal(thp_vma_why_text(&v, THP_WHY_TMPFS, &c, buf, sizeof(buf)),
			    "tmpfs /dev/shm mounted huge=never");
	v.dev_minor = 23; /* huge=within_size: eligible */
	assert_int_equal(thp_vma_why(&v, &c), THP_WHY_NOT_FAULTED);
	c.shmem_top = "deny";
	assert_string_equal(thp_vma_why_text(&v, thp_vma_why(&v, &c), &c, buf, sizeof(buf)),
			    "tmpfs: shmem_enabled 'deny' overrides every mount's huge= option");
	v = vma(0x200000, 0x600000, "/data/db", "rd mr");
	v.perms[1] = '-';
	v.inode = 5;
	v.dev_major = 254;
	v.dev_minor = 1;
	v.eligible = 0;
	assert_int_equal(thp_vma_kind(&v, &m), THP_VMA_FILE);
	assert_string_equal(thp_vma_why_text(&v, thp_vma_why(&v, &c), &c, buf, sizeof(buf)),
			    "xfs file: large folios (Linux 5.18+), PMD only where a 2 MiB folio lines up; "
			    "no read-only collapse (THPeligible 0)");
	v.dev_minor = 0; /* ext4 before 6.16 */
	v.eligible = 1;
	assert_string_equal(thp_vma_why_text(&v, thp_vma_why(&v, &c), &c, buf, sizeof(buf)),
			    "ext4 file: large folios only from Linux 6.16; read-only collapse possible "
			    "(THPeligible 1)");
	v = vma(0x40000000, 0x51800000, "/anon_hugepage (deleted)", "rd wr sh ht");
	v.page_size = 2u << 20;
	v.m.shared_hugetlb = 280u << 20;
	assert_string_equal(thp_vma_why_text(&v, thp_vma_why(&v, &c), &c, buf, sizeof(buf)),
			    "hugetlbfs: static 2 MiB pages, not THP; 280 MiB held (Shared_Hugetlb)");
	thp_mounts_free(&m);
}

/* Fails unless figure F of R is known exactly when KNOWN, non-zero when it
 * must be filled (FILLED), and 0 when unknown. */
static void figure_is(const char *path, struct thp_rollup *r, int f, bool known, bool filled)
{
	uint64_t v = *thp_rollup_at(r, f);

	if (thp_rollup_known(r, f) != known || (filled && !v) || (!known && v))
		fail_msg("%s, %s: %s, %llu", path, thp_rollup_name(f), thp_rollup_known(r, f) ? "known" : "unknown",
			 (unsigned long long)v);
}

/* Each figure of struct thp_rollup from each producer: smaps gives every one;
 * a walk without smaps fills those thp_rollup_source() names (each mapping's
 * from its page walk, the process's also from its status) and marks the
 * others unknown. A figure added to the rollup and left unfilled by a path
 * fails here. */
static void rollup_sources(void **state)
{
	char text[1024];
	size_t len = 0;
	struct thp_rollup smaps, vma[2], proc = { 0 };
	/* findings that are all non-zero: a figure taken from none of them stays 0 */
	const struct thp_walked x[2] = { { 11u << 12, 7u << 12, { 2u << 21, 1u << 21 }, true },
					 { 13u << 12, 5u << 12, { 3u << 21, 4u << 21 }, false } };
	const struct thp_pstatus st = { .rss = 99u << 20, .rss_anon = 77u << 20, .hugetlb = 4u << 20 };
	(void)state;

	for (int f = 0; f < THP_RF_N; f++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s: %d kB\n", thp_rollup_name(f), f + 1);
	assert_int_equal(thp_rollup_parse(text, &smaps), 0);
	for (int i = 0; i < 2; i++) {
		thp_rollup_walked(&vma[i], &x[i]);
		thp_rollup_add(&proc, &vma[i]);
	}
	thp_rollup_status(&proc, &st);
	assert_true(proc.rss == st.rss && proc.anon == st.rss_anon);
	assert_true(thp_rollup_hugetlb(&proc) == st.hugetlb);
	proc.private_hugetlb = 0; /* the sum of two unknown figures, checked */
	for (int f = 0; f < THP_RF_N; f++) {
		unsigned src = thp_rollup_source(f);
		struct thp_rollup both = vma[0];

		/* ShmemPmdMapped or FilePmdMapped: one of them per mapping */
		*thp_rollup_at(&both, f) += *thp_rollup_at(&vma[1], f);
		figure_is("smaps", &smaps, f, true, true);
		figure_is("mapping", &vma[0], f, src & THP_RS_WALK, false);
		figure_is("mappings", &both, f, src & THP_RS_WALK, src & THP_RS_WALK);
		figure_is("process", &proc, f, src, src);
	}
}

/* PR_THP_DISABLE_EXCEPT_ADVISED from smaps: only under 'always' on 6.18+. */
static void except_advised(void **state)
{
	struct thp_why_ctx c = { .anon_policy = "always", .pmd_size = 2u << 20, .proc_thp_enabled = 1,
				 .kmajor = 6, .kminor = 18 };
	struct thp_ea_evidence e = { 0, 0 };
	struct thp_vma v = vma(0x200000, 0x600000, "", "rd wr mr mw me ac");
	(void)state;

	v.eligible = 0;
	thp_except_advised_evidence(&v, &c, &e);
	assert_true(e.support == 1 && e.against == 0);
	assert_true(thp_except_advised_inferred(&e));
	snprintf(v.vmflags, sizeof(v.vmflags), "rd wr hg"); /* advised: says nothing */
	thp_except_advised_evidence(&v, &c, &e);
	v = vma(0x200000, 0x201000, "", "rd wr"); /* no aligned slot: says nothing */
	v.eligible = 0;
	thp_except_advised_evidence(&v, &c, &e);
	assert_true(e.support == 1 && e.against == 0);
	v = vma(0x200000, 0x600000, "[heap]", "rd wr");
	v.eligible = 1;
	thp_except_advised_evidence(&v, &c, &e);
	assert_false(thp_except_advised_inferred(&e));
	c.kminor = 17; /* the mode does not exist before 6.18 */
	memset(&e, 0, sizeof(e));
	v.eligible = 0;
	thp_except_advised_evidence(&v, &c, &e);
	assert_false(thp_except_advised_inferred(&e));
	c.kminor = 18;
	c.anon_policy = "madvise"; /* unadvised ranges are ineligible anyway */
	thp_except_advised_evidence(&v, &c, &e);
	assert_false(thp_except_advised_inferred(&e));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walk),
		cmocka_unit_test(rollup_sources),
		cmocka_unit_test(zero_and_cont),
		cmocka_unit_test(shared_frames_once),
		cmocka_unit_test(pmd_found),
		cmocka_unit_test(sizes),
		cmocka_unit_test(why),
		cmocka_unit_test(why_mthp),
		cmocka_unit_test(why_mounts),
		cmocka_unit_test(except_advised),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
