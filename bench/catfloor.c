/* SPDX-License-Identifier: GPL-2.0-or-later */
/* catfloor - the floor of 'thp ps --all': open and read to its end every
 * process's /proc/PID/status and /proc/PID/smaps_rollup once, one process
 * after the other, and nothing else (no parsing, no output). A process that
 * exits or cannot be read is skipped. Prints the number of files read.
 *   catfloor */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static char buf[65536];

/* Reads NAME below directory DIR to its end. Returns 1 when it was read. */
static int read_file(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n == 0;
}

int main(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	long files = 0;
	char path[300];

	if (!d)
		return perror("/proc"), 1;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9') {
			snprintf(path, sizeof(path), "%s/status", de->d_name);
			files += read_file(dirfd(d), path);
			snprintf(path, sizeof(path), "%s/smaps_rollup", de->d_name);
			files += read_file(dirfd(d), path);
		}
	closedir(d);
	printf("%ld files read\n", files);
	return 0;
}
