/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_persist.c - saved state, tmpfiles.d drop-ins, units and kernel command
 * lines as 'thp restore' and 'thp persist --check' read them; what parses
 * must format and parse back to the same list */
#include "core/persist.h"
#include "fuzz.h"

static void same(const struct thp_kvlist *a, const struct thp_kvlist *b)
{
	if (a->n != b->n)
		abort();
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, b->v[i].key) || strcmp(a->v[i].value, b->v[i].value))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t sizes[] = { 16 << 10, 64 << 10, 2 << 20, 1 << 30 };
	static struct thp_kvlist l, back, rest;
	char *s = fuzz_str(data, size), *out;
	int bad;

	memset(&l, 0, sizeof(l));
	if (thp_state_parse(s, &l, &bad) == 0) {
		out = thp_state_format(&l, "fuzz");
		memset(&back, 0, sizeof(back));
		if (!out || thp_state_parse(out, &back, &bad) != 0)
			abort();
		same(&l, &back);
		free(out);
		memset(&rest, 0, sizeof(rest));
		free(thp_cmdline_format(&l, &rest));
		free(thp_tmpfiles_format(&l));
		free(thp_unit_format(&l));
	}
	memset(&l, 0, sizeof(l));
	thp_tmpfiles_parse(s, &l);
	memset(&l, 0, sizeof(l));
	thp_unit_parse(s, &l);
	memset(&l, 0, sizeof(l));
	thp_cmdline_parse(s, sizes, 4, &l);
	free(s);
	return 0;
}
