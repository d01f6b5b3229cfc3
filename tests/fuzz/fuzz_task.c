/* fuzz_task.c - /proc/PID/task/TID/stat ("TID (COMM) STATE ...") */
#include "core/task.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	struct thp_task t;

	if (thp_task_stat_parse(s, &t) == 0 && strnlen(t.comm, sizeof(t.comm)) == sizeof(t.comm))
		abort();
	free(s);
	return 0;
}
