/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rawpread - the floor of 'thp show PID --folios': pread a process's pagemap
 * for every resident mapping (512 KiB at a time) and the kpageflags entries of
 * each run of contiguous page frames, and nothing else.
 *   rawpread PID */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 65536

static uint64_t pm[CHUNK], kf[CHUNK + 1];

int main(int argc, char **argv)
{
	char path[64], line[512];
	FILE *maps;
	int pmfd, kffd;
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t entries = 0, reads = 0;

	if (argc != 2)
		return fputs("usage: rawpread PID\n", stderr), 2;
	snprintf(path, sizeof(path), "/proc/%s/maps", argv[1]);
	maps = fopen(path, "r");
	snprintf(path, sizeof(path), "/proc/%s/pagemap", argv[1]);
	pmfd = open(path, O_RDONLY);
	kffd = open("/proc/kpageflags", O_RDONLY);
	if (!maps || pmfd < 0 || kffd < 0)
		return perror("open"), 1;
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
					return perror("kpageflags"), 1;
				reads++;
				i = j;
			}
			entries += n;
			v += n;
		}
	}
	printf("%" PRIu64 " pagemap entries, %" PRIu64 " kpageflags reads\n", entries, reads);
	return 0;
}
