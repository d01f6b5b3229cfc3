/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn - a population of idle processes for the 'thp ps' benchmark.
 *   spawn N [EVERY]
 * Forks N children that sleep; every EVERY-th one (default 10) first maps
 * 4 MiB, advises MADV_HUGEPAGE and touches it, so that some hold THP. Prints
 * "ready" when all exist, and when standard input closes it kills them. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000, every = argc > 2 ? strtol(argv[2], NULL, 10) : 10;
	pid_t *kids = calloc((size_t)(n > 0 ? n : 1), sizeof(*kids));
	char c;

	if (!kids || n <= 0 || every <= 0)
		return fputs("usage: spawn N [EVERY]\n", stderr), 2;
	for (long i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			return perror("fork"), 1;
		if (kids[i] == 0) {
			if (i % every == 0) {
				size_t len = 4u << 20;
				char *raw = mmap(NULL, len + (2u << 20), PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				if (raw != MAP_FAILED) {
					char *p = (char *)(((uintptr_t)raw + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
					madvise(p, len, MADV_HUGEPAGE);
					for (size_t off = 0; off < len; off += 4096)
						p[off] = 1;
				}
			}
			for (;;)
				pause();
		}
	}
	printf("ready\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	for (long i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return 0;
}
