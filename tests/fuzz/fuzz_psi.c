/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_psi.c - /proc/pressure/memory */
#include "core/psi.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	struct thp_psi p;

	thp_psi_parse(s, &p);
	free(s);
	return 0;
}
