/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_cgroup.c - /proc/PID/cgroup (v1 and v2 lines) */
#include "core/proc.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	char path[8192];

	thp_cgroup_path(s, path, sizeof(path));
	if (strnlen(path, sizeof(path)) == sizeof(path))
		abort();
	/* the path shown (when not cut at 4 KiB) is one the process is in */
	if (path[0] && strlen(path) < 4095 && !thp_cgroup_in(s, path))
		abort();
	thp_cgroup_in(s, "/");
	thp_cgroup_in(s, "/system.slice");
	free(s);
	return 0;
}
