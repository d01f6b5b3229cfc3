/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_task.c - /proc/PID/stat and /proc/PID/task/TID/stat ("TID (COMM) STATE ...") */
#include "core/exp.h"
#include "core/task.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	struct thp_task t;
	struct thp_pstat ps;

	if (thp_task_stat_parse(s, &t) == 0 && strnlen(t.comm, sizeof(t.comm)) == sizeof(t.comm))
		abort();
	if (thp_pstat_parse(s, &ps) == 0 && strnlen(ps.comm, sizeof(ps.comm)) == sizeof(ps.comm))
		abort();
	free(s);
	return 0;
}
