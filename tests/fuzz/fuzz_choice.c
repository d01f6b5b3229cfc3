/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_choice.c - sysfs choice lists ("always [madvise] never") */
#include "core/parse.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	struct thp_choice c;

	if (thp_parse_choice(s, &c) == 0) {
		if (c.sel < 0 || c.sel >= c.n || c.n > THP_CHOICES_MAX)
			abort();
		for (int i = 0; i < c.n; i++)
			if (thp_choice_find(&c, c.words[i]) < 0)
				abort();
	}
	free(s);
	return 0;
}
