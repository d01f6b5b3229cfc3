/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hog - a test workload: maps anonymous memory, optionally advises and touches it,
 * prints "ready ADDRESS" and holds it until standard input closes.
 *   hog MIB [--huge] [--nohuge] [--disable] [--sparse] [--ends] [--late-huge] [--no-touch] [--read] [--holes]
 *           [--misalign] [--prot-none]
 *           [--shared] [--hugetlb] [--fork N] [--vmas N] [--scatter] [--split] [--parts N]
 * --read touches by reading (a kernel that maps the zero page uses no memory for it).
 * --holes frees every other 4 KiB page after touching, to fragment free memory.
 * --ends touches only the first 64 MiB and the last 4 KiB page (a mapping
 * almost all hole).
 * --late-huge touches the first half with THP disabled (prctl), the second
 * half after enabling it again: one VMA of 4 KiB pages, then THP where the
 * policy is 'always'.
 * --prot-none takes every access away (PROT_NONE) after touching: memory that
 * stays resident, and huge, with no access, as a reserved heap has.
 * --misalign advises and touches a range that starts 4 KiB past a 2 MiB
 * boundary, so that (below 2 MiB) it holds no aligned PMD slot.
 * --shared maps shared anonymous memory (shmem), --hugetlb 2 MiB hugetlb pages
 * (MAP_HUGETLB, from the static pool); --fork N starts N children that touch
 * the same memory (the PostgreSQL backends' shared buffer) before "ready".
 * --vmas N also maps N pages, written, every other one read-only: N mappings
 * (VMAs) of one resident page each, as a database or JVM with many mappings
 * has (vm.max_map_count bounds N).
 * --scatter touches the 4 KiB pages in a scrambled order, so that pages next
 * to each other in the mapping get page frames far apart (faults take frames
 * in the order they come).
 * --split frees the last 4 KiB page of every 2 MiB after touching: the kernel
 * splits the mapping of each THP and queues the folio for splitting, which it
 * does under memory pressure or on 'echo 2 > /proc/sys/vm/drop_caches'; then
 * the mapping is 4 KiB pages on runs of 511 contiguous page frames.
 * --parts N makes every other of N equal parts of the memory read-only after
 * touching: N mappings (VMAs) of one kind. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Touches LEN bytes at P every STEP bytes, by reading when READONLY. */
static void touch_all(char *p, size_t len, size_t step, int readonly)
{
	for (size_t off = 0; off < len; off += step) {
		if (readonly)
			(void)*(volatile char *)(p + off);
		else
			p[off] = 1;
	}
}

/* Touches the 4 KiB pages of LEN bytes at P once each, page I of the mapping
 * as the (I * K mod N)th: K is prime and larger than N, so no two coincide. */
static void touch_scattered(char *p, size_t len, int readonly)
{
	const uint64_t k = 2654435761u;
	uint64_t n = len / 4096;

	for (uint64_t i = 0; i < n; i++) {
		char *q = p + (i * k % n) * 4096;

		if (readonly)
			(void)*(volatile char *)q;
		else
			*q = 1;
	}
}

/* Maps N pages, writes each and makes every other one read-only: N VMAs.
 * Returns 0 or -1. */
static int many_vmas(size_t n)
{
	char *v = n ? mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;

	if (v == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < n; i++) {
		v[i * 4096] = 1;
		if (i % 2 && mprotect(v + i * 4096, 4096, PROT_READ))
			return -1;
	}
	return 0;
}

/* Starts N children that touch P like the parent and hold it until standard
 * input closes; returns once each has touched it, or -1. */
static int fork_touchers(int n, char *p, size_t len, size_t step, int readonly)
{
	int fd[2];
	char c;

	if (pipe(fd))
		return -1;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0) {
			close(fd[0]);
			touch_all(p, len, step, readonly);
			if (write(fd[1], "t", 1) != 1)
				_exit(1);
			while (read(0, &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(fd[1]);
	for (int i = 0; i < n; i++)
		if (read(fd[0], &c, 1) != 1)
			return -1;
	close(fd[0]);
	return 0;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64, len = mib << 20, step = 4096;
	int advice = -1, touch = 1, holes = 0, misalign = 0, none = 0, readonly = 0, children = 0, late = 0, ends = 0,
	    scatter = 0, split = 0;
	size_t vmas = 0, parts = 0;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	size_t extra = 2u << 20;
	char c;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--huge"))
			advice = MADV_HUGEPAGE;
		else if (!strcmp(argv[i], "--nohuge"))
			advice = MADV_NOHUGEPAGE;
		else if (!strcmp(argv[i], "--disable") && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
			return perror("prctl"), 1;
		else if (!strcmp(argv[i], "--sparse"))
			step = 2u << 20;
		else if (!strcmp(argv[i], "--ends"))
			ends = 1;
		else if (!strcmp(argv[i], "--late-huge"))
			late = 1;
		else if (!strcmp(argv[i], "--split"))
			split = 1;
		else if (!strcmp(argv[i], "--scatter"))
			scatter = 1;
		else if (!strcmp(argv[i], "--no-touch"))
			touch = 0;
		else if (!strcmp(argv[i], "--read"))
			readonly = 1;
		else if (!strcmp(argv[i], "--holes"))
			holes = 1;
		else if (!strcmp(argv[i], "--misalign"))
			misalign = 1;
		else if (!strcmp(argv[i], "--prot-none"))
			none = 1;
		else if (!strcmp(argv[i], "--shared"))
			flags = (flags & ~MAP_PRIVATE) | MAP_SHARED;
		else if (!strcmp(argv[i], "--hugetlb")) {
			flags |= MAP_HUGETLB; /* the kernel aligns it */
			extra = 0;
		} else if (!strcmp(argv[i], "--fork") && i + 1 < argc)
			children = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--vmas") && i + 1 < argc)
			vmas = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--parts") && i + 1 < argc)
			parts = strtoul(argv[++i], NULL, 10);
	}
	if (many_vmas(vmas))
		return perror("--vmas"), 1;
	/* over-allocate by 2 MiB and align, so that every 2 MiB slot can be huge */
	char *raw = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (raw == MAP_FAILED)
		return perror("mmap"), 1;
	char *p = (char *)(((uintptr_t)raw + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
	if (misalign)
		p += 4096;
	if (advice >= 0 && madvise(p, len, advice))
		return perror("madvise"), 1;
	if (late) {
		if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
			return perror("prctl"), 1;
		touch_all(p, len / 2, step, readonly);
		if (prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0))
			return perror("prctl"), 1;
		touch_all(p + len / 2, len - len / 2, step, readonly);
	} else if (ends) {
		touch_all(p, len < (64u << 20) ? len : 64u << 20, step, readonly);
		touch_all(p + len - 4096, 4096, step, readonly);
	} else if (touch && scatter) {
		touch_scattered(p, len, readonly);
	} else if (touch) {
		touch_all(p, len, step, readonly);
	}
	for (size_t off = 4096; holes && off < len; off += 8192)
		if (madvise(p + off, 4096, MADV_DONTNEED))
			return perror("madvise"), 1;
	for (size_t off = (2u << 20) - 4096; split && off < len; off += 2u << 20)
		if (madvise(p + off, 4096, MADV_DONTNEED))
			return perror("madvise"), 1;
	if (none && mprotect(p, len, PROT_NONE))
		return perror("mprotect"), 1;
	for (size_t i = 1; i < parts; i += 2)
		if (mprotect(p + i * (len / parts), len / parts, PROT_READ))
			return perror("--parts"), 1;
	if (children && fork_touchers(children, p, len, step, readonly))
		return perror("fork"), 1;
	printf("ready %p\n", (void *)p);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	while (children && wait(NULL) > 0)
		;
	return 0;
}
