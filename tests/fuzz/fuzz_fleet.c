/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_fleet.c - the JSON documents 'thp report' reads (status and doctor, one or more) */
#include "core/fleet.h"
#include "fuzz.h"

static void seen(void *ctx, const char *source, const char *why)
{
	(void)ctx;
	fuzz_touch(source, strlen(source));
	fuzz_touch(why, strlen(why));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct thp_fleet f = { 0 };
	int group[64];

	if (thp_fleet_parse(&f, (const char *)data, size, "fuzz", seen, NULL) < 0)
		abort();
	if (f.n <= 64 && thp_fleet_group(&f, group) < 0)
		abort();
	for (int i = 0; i < f.n; i++)
		fuzz_touch(f.v[i].name, strlen(f.v[i].name));
	thp_fleet_free(&f);
	return 0;
}
