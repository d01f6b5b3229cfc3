/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_status.c - /proc/PID/status */
#include "core/proc.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	struct thp_pstatus st;

	if (thp_pstatus_parse(s, &st) == 0) {
		if (strnlen(st.name, sizeof(st.name)) == sizeof(st.name))
			abort();
		if ((st.has_pte && st.pte % 1024) || st.rss_shmem % 1024)
			abort(); /* kB values are whole KiB in bytes */
		thp_pstatus_kthread(&st);
	}
	free(s);
	return 0;
}
