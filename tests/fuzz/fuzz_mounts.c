/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_mounts.c - /proc/mounts, for hugetlbfs mounts and their page sizes,
 * and /proc/PID/mountinfo, for filesystems and tmpfs huge= options */
#include "core/hugetlb.h"
#include "core/mounts.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct thp_hugetlb h;
	char *s = fuzz_str(data, size);

	memset(&h, 0, sizeof(h));
	struct thp_mounts m;

	thp_hugetlb_mounts_parse(s, 2 << 20, &h);
	if (thp_mountinfo_parse(s, &m) == 0)
		thp_mounts_free(&m);
	free(s);
	return 0;
}
