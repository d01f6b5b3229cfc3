/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_persist.c - saved states and journals, tmpfiles.d drop-ins, units and
 * kernel command lines (their pools too) as 'thp restore' and 'thp persist
 * --check' read them, and the boot files' journal; a state or journal that
 * parses must format and parse back to the same, and what a capture records
 * of a unit must parse as the unit does */
#include "core/persist.h"
#include "core/state.h"
#include "fuzz.h"

static void same(const struct thp_kvlist *a, const struct thp_kvlist *b)
{
	if (a->n != b->n)
		abort();
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, b->v[i].key) || strcmp(a->v[i].value, b->v[i].value))
			abort();
}

/* A boot files' journal that parses formats and parses back the same. */
static void boot_journal(const char *s)
{
	static struct thp_boot_journal j, back;
	char *copy = strdup(s), *out, *again;
	int line;

	if (copy && thp_boot_journal_parse(copy, &j, &line) == 0) {
		out = thp_boot_journal_format(&j);
		again = out ? strdup(out) : NULL;
		if (!again || thp_boot_journal_parse(again, &back, &line) != 0 || back.n != j.n)
			abort();
		for (int i = 0; i < j.n; i++)
			if (strcmp(j.v[i].path, back.v[i].path) || !j.v[i].text != !back.v[i].text ||
			    (j.v[i].text && strcmp(j.v[i].text, back.v[i].text)))
				abort();
		free(out);
		free(again);
	}
	free(copy);
}

/* What a capture records of unit S parses as S does, on the same lines; L
 * is S's. */
static void unit_record(const char *s, struct thp_kvlist *l)
{
	static struct thp_kvlist back;
	int found, n = thp_unit_parse(s, l);
	char *r = thp_unit_record(s, &found);

	memset(&back, 0, sizeof(back));
	if (!r || found != n || thp_unit_parse(r, &back) != n)
		abort();
	same(l, &back);
	for (int i = 0; i < l->n; i++)
		if (l->v[i].line != back.v[i].line)
			abort();
	free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t sizes[] = { 16 << 10, 64 << 10, 2 << 20, 1 << 30 };
	static struct thp_state st, back;
	static struct thp_kvlist l, rest;
	char *s = fuzz_str(data, size), *out, why[192];
	int line;

	if (thp_state_parse((const char *)data, size, &st, &line, why, sizeof(why)) == 0) {
		out = thp_state_format(&st, "fuzz");
		if (!out || thp_state_parse(out, strlen(out), &back, &line, why, sizeof(why)) != 0)
			abort();
		same(&st.values, &back.values);
		free(out);
		memset(&rest, 0, sizeof(rest));
		free(thp_cmdline_format(&st.values, &rest));
		free(thp_tmpfiles_format(&st.values));
		free(thp_unit_format(&st.values));
	}
	memset(&l, 0, sizeof(l));
	thp_tmpfiles_parse(s, &l);
	memset(&l, 0, sizeof(l));
	unit_record(s, &l);
	memset(&l, 0, sizeof(l));
	thp_cmdline_parse(s, sizes, 4, &l);
	memset(&l, 0, sizeof(l));
	thp_pools_cmdline_parse(s, 2 << 20, &l);
	boot_journal(s);
	free(s);
	return 0;
}
