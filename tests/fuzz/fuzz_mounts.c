/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_mounts.c - /proc/mounts, for hugetlbfs mounts and their page sizes */
#include "core/hugetlb.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct thp_hugetlb h;
	char *s = fuzz_str(data, size);

	memset(&h, 0, sizeof(h));
	thp_hugetlb_mounts_parse(s, 2 << 20, &h);
	free(s);
	return 0;
}
