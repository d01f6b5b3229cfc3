/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_buddyinfo.c - /proc/buddyinfo */
#include "core/buddyinfo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct thp_buddyinfo b;
	char *s = fuzz_str(data, size);

	if (thp_buddyinfo_parse(s, &b) == 0) {
		if (b.nzones < 1 || b.nzones > THP_BUDDY_ZONES)
			abort();
		for (int i = 0; i < b.nzones; i++)
			for (int o = 0; o <= THP_BUDDY_ORDERS; o++)
				thp_buddy_free_blocks(&b.zones[i], o);
	}
	free(s);
	return 0;
}
