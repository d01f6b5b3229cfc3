/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nothp - runs a command with THP disabled by prctl(PR_SET_THP_DISABLE), which
 * its children inherit: nothp CMD [ARGS...] */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return fputs("usage: nothp CMD [ARGS...]\n", stderr), 2;
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		return perror("prctl"), 1;
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
