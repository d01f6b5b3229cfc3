/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.c - the files that boot applies as 'thp persist' and 'thp hugetlb
 * persist' show them before writing (--dry-run --json) */
#include <string.h>

#include "persist.h"
#include "render.h"

void thp_boot_file_put(const char *shown, const char *text, const char *cur, bool theirs)
{
	bool changed = text ? !cur || strcmp(cur, text) != 0 : cur && !theirs;

	out_put(OUT_JSON, "path", NULL, ov_str(shown));
	out_put(OUT_JSON, "content", NULL, ov_str(text));
	out_put(OUT_JSON, "current", NULL, ov_str(cur));
	out_put(OUT_JSON, "changed", NULL, ov_bool(changed));
	out_put(OUT_JSON, "foreign", NULL, ov_bool(theirs));
}

void thp_boot_files_put(const char *key, const struct thp_boot_file *f, int n)
{
	out_arr(key);
	for (int i = 0; i < n; i++) {
		out_obj(NULL);
		thp_boot_file_put(f[i].shown, f[i].text, f[i].cur, thp_boot_file_theirs(&f[i]));
		out_end();
	}
	out_end();
}
