/* json.c - the one JSON emitter of thp (json-c) */
#include "out.h"

#include <stdio.h>

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
