/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hog - a test workload: maps anonymous memory, optionally advises and touches it,
 * prints "ready ADDRESS" and holds it until standard input closes.
 *   hog MIB [--huge] [--nohuge] [--disable] [--sparse] [--no-touch] [--read] [--holes] [--misalign]
 * --read touches by reading (a kernel that maps the zero page uses no memory for it).
 * --holes frees every other 4 KiB page after touching, to fragment free memory.
 * --misalign advises and touches a range that starts 4 KiB past a 2 MiB
 * boundary, so that (below 2 MiB) it holds no aligned PMD slot. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64, len = mib << 20, step = 4096;
	int advice = -1, touch = 1, holes = 0, misalign = 0, readonly = 0;
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
		else if (!strcmp(argv[i], "--no-touch"))
			touch = 0;
		else if (!strcmp(argv[i], "--read"))
			readonly = 1;
		else if (!strcmp(argv[i], "--holes"))
			holes = 1;
		else if (!strcmp(argv[i], "--misalign"))
			misalign = 1;
	}
	/* over-allocate by 2 MiB and align, so that every 2 MiB slot can be huge */
	char *raw = mmap(NULL, len + (2u << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (raw == MAP_FAILED)
		return perror("mmap"), 1;
	char *p = (char *)(((uintptr_t)raw + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
	if (misalign)
		p += 4096;
	if (advice >= 0 && madvise(p, len, advice))
		return perror("madvise"), 1;
	for (size_t off = 0; touch && off < len; off += step) {
		if (readonly)
			(void)*(volatile char *)(p + off);
		else
			p[off] = 1;
	}
	for (size_t off = 4096; holes && off < len; off += 8192)
		if (madvise(p + off, 4096, MADV_DONTNEED))
			return perror("madvise"), 1;
	printf("ready %p\n", (void *)p);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
