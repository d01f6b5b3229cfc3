/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_smaps.c - /proc/PID/smaps VMA headers and fields */
#include "core/proc.h"
#include "fuzz.h"

static int seen(const struct thp_vma *v, void *ctx)
{
	(void)ctx;
	if (strnlen(v->name, sizeof(v->name)) == sizeof(v->name) ||
	    strnlen(v->vmflags, sizeof(v->vmflags)) == sizeof(v->vmflags) ||
	    strnlen(v->perms, sizeof(v->perms)) == sizeof(v->perms))
		abort();
	thp_vma_flag(v, "hg");
	thp_vma_flag(v, "nh");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	thp_smaps_parse(s, seen, NULL);
	free(s);
	return 0;
}
