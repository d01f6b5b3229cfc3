/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c - the one JSON emitter of thp (json-c) */
#include "render.h"

#include <stdio.h>
#include <string.h>

static int emit(struct json_object *obj, int flags)
{
	const char *s = json_object_to_json_string_ext(obj, flags | JSON_C_TO_STRING_NOSLASHESCAPE);
	int rc = s && puts(s) >= 0 ? 0 : -1;

	json_object_put(obj);
	return rc;
}

int out_json_print(struct json_object *obj)
{
	return emit(obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
}

int out_json_line(struct json_object *obj)
{
	return emit(obj, JSON_C_TO_STRING_PLAIN);
}

struct json_object *out_json_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

struct json_object *out_json_num(double v, int decimals)
{
	char buf[64];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%.*f", decimals, v);

	/* "12.500" -> "12.5", "3.000" -> "3.0": short, and still a JSON number */
	while (n > 1 && strchr(buf, '.') && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return json_object_new_double_s(v, buf);
}

void out_json_rollup(struct json_object *obj, const struct thp_rollup *r)
{
	json_object_object_add(obj, "rss", out_json_u64(r->rss));
	json_object_object_add(obj, "anon", out_json_u64(r->anon));
	json_object_object_add(obj, "anon_huge", out_json_u64(r->anon_huge));
	json_object_object_add(obj, "shmem_pmd", out_json_u64(r->shmem_pmd));
	json_object_object_add(obj, "file_pmd", out_json_u64(r->file_pmd));
	json_object_object_add(obj, "hugetlb", out_json_u64(r->private_hugetlb + r->shared_hugetlb));
}
