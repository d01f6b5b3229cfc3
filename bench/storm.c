/* SPDX-License-Identifier: GPL-2.0-or-later */
/* storm - an event flood for the trace benchmark, at a chosen rate.
 *
 * Maps MIB of THP-backed memory, then calls madvise(MADV_COLLAPSE) over it
 * again and again: each call scans every PMD, finds it already huge and emits
 * one huge_memory:mm_khugepaged_scan_pmd event per PMD in the calling thread,
 * without changing anything. Calls are paced to RATE events per second (0: as
 * fast as possible) for SECONDS. Prints "huge N" (PMDs that are huge) before
 * the flood and, at the end, "events N calls N ns_per_call X".
 *   storm MIB RATE SECONDS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define PMD (2ul << 20)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* PMD-mapped anonymous memory of the process, in bytes. */
static unsigned long anon_huge(void)
{
	char line[256];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb << 10;
}

int main(int argc, char **argv)
{
	size_t len = (argc > 1 ? strtoul(argv[1], NULL, 10) : 64) << 20;
	double rate = argc > 2 ? strtod(argv[2], NULL) : 0, secs = argc > 3 ? strtod(argv[3], NULL) : 5;
	char *raw = mmap(NULL, len + PMD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p = (char *)(((uintptr_t)raw + PMD - 1) & ~(uintptr_t)(PMD - 1));
	uint64_t per_call = len / PMD, calls = 0, busy = 0, start, end;

	if (raw == MAP_FAILED || madvise(p, len, MADV_HUGEPAGE))
		return perror("storm: mmap/madvise"), 1;
	memset(p, 1, len);
	madvise(p, len, MADV_COLLAPSE); /* makes huge whatever the faults did not */
	printf("huge %lu\n", anon_huge() / PMD);
	fflush(stdout);
	start = now_ns();
	end = start + (uint64_t)(secs * 1e9);
	for (uint64_t t = start; t < end; t = now_ns()) {
		/* the call that should have started by now, at RATE */
		if (rate > 0 && (double)(calls * per_call) > (double)(t - start) / 1e9 * rate) {
			struct timespec nap = { 0, 100000 };
			nanosleep(&nap, NULL);
			continue;
		}
		madvise(p, len, MADV_COLLAPSE);
		busy += now_ns() - t;
		calls++;
	}
	printf("events %llu calls %llu ns_per_call %.0f\n", (unsigned long long)(calls * per_call),
	       (unsigned long long)calls, calls ? (double)busy / (double)calls : 0.0);
	return 0;
}
