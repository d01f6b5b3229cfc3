/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rawpread - the floor of 'thp show PID --folios': pread a process's pagemap
 * for every mapping (512 KiB at a time) and the kpageflags entries of each run
 * of contiguous page frames, and nothing else. Given several processes, it
 * reads each in turn (the sum of the floors of 'thp ps --all --folios');
 * one that cannot be read is skipped. --all: every process in /proc.
 *   rawpread PID... | rawpread --all */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 65536

static uint64_t pm[CHUNK], kf[CHUNK + 1];

/* Reads the pagemap of process PID and the kpageflags of what it maps.
 * Returns 0, or -1 when the process cannot be read. */
static int floor_of(const char *pid, int kffd, uint64_t *entries, uint64_t *reads)
{
	char path[64], line[512];
	FILE *maps;
	int pmfd;
	long ps = sysconf(_SC_PAGESIZE);

	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	maps = fopen(path, "r");
	snprintf(path, sizeof(path), "/proc/%s/pagemap", pid);
	pmfd = open(path, O_RDONLY);
	if (!maps || pmfd < 0) {
		if (maps)
			fclose(maps);
		if (pmfd >= 0)
			close(pmfd);
		return -1;
	}
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long start, end;
		if (sscanf(line, "%llx-%llx", &start, &end) != 2 || strstr(line, "[vsyscall]"))
			continue;
		for (uint64_t v = start / ps; v < end / ps;) {
			size_t n = end / ps - v < CHUNK ? end / ps - v : CHUNK;
			ssize_t got = pread(pmfd, pm, n * 8, (off_t)(v * 8));
			if (got <= 0)
				break;
			n = (size_t)got / 8;
			for (size_t i = 0; i < n;) {
				uint64_t pfn = pm[i] & ((1ull << 55) - 1);
				size_t j = i + 1;
				if (!(pm[i] >> 63) || !pfn) {
					i++;
					continue;
				}
				while (j < n && (pm[j] >> 63) && (pm[j] & ((1ull << 55) - 1)) == pfn + (j - i))
					j++;
				if (pread(kffd, kf, (j - i + 1) * 8, (off_t)(pfn * 8)) < 0)
					break;
				(*reads)++;
				i = j;
			}
			*entries += n;
			v += n;
		}
	}
	fclose(maps);
	close(pmfd);
	return 0;
}

int main(int argc, char **argv)
{
	int kffd, done = 0;
	uint64_t entries = 0, reads = 0;

	if (argc < 2)
		return fputs("usage: rawpread PID... | rawpread --all\n", stderr), 2;
	kffd = open("/proc/kpageflags", O_RDONLY);
	if (kffd < 0)
		return perror("/proc/kpageflags"), 1;
	if (strcmp(argv[1], "--all") == 0) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		while (d && (e = readdir(d)))
			if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
				done += floor_of(e->d_name, kffd, &entries, &reads) == 0;
		if (d)
			closedir(d);
	}
	for (int i = 1; i < argc && strcmp(argv[1], "--all") != 0; i++)
		done += floor_of(argv[i], kffd, &entries, &reads) == 0;
	if (!done)
		return fputs("rawpread: no process could be read\n", stderr), 1;
	printf("%d processes, %" PRIu64 " pagemap entries, %" PRIu64 " kpageflags reads\n", done, entries,
	       reads);
	return 0;
}
