/* SPDX-License-Identifier: GPL-2.0-or-later */
/* oddname - a test workload with hostile names: sets its own name (PR_SET_NAME)
 * to NAME, maps FILE (created, 4 KiB) and a memfd called NAME, advises and
 * touches 4 MiB (for huge pages where the policy allows), prints "ready" and
 * holds it all until standard input closes. Its command line holds NAME and FILE.
 *   oddname NAME FILE */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Maps 4 KiB of FD shared and writes to it; returns 0 or -1. */
static int map_fd(int fd)
{
	char *p;

	if (fd < 0 || ftruncate(fd, 4096))
		return -1;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	p[0] = 1;
	return 0;
}

int main(int argc, char **argv)
{
	size_t len = 4u << 20;
	char c;

	if (argc != 3)
		return fputs("usage: oddname NAME FILE\n", stderr), 2;
	if (prctl(PR_SET_NAME, argv[1], 0, 0, 0))
		return perror("prctl"), 1;
	if (map_fd(open(argv[2], O_RDWR | O_CREAT, 0600)) || map_fd(memfd_create(argv[1], 0)))
		return perror("map"), 1;
	char *raw = mmap(NULL, len + (2u << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return perror("mmap"), 1;
	char *p = (char *)(((uintptr_t)raw + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 1, len);
	printf("ready %p\n", (void *)p);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
