/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pstate.c - a process's THP state (on, off by prctl, off inherited, none in
 * the kernel) as text and JSON */
#include "render.h"

#include <stdio.h>

const char *out_thp_state(char *buf, size_t cap, const struct thp_pstatus *s,
			  const struct thp_pstatus *origin)
{
	const char *mode = s->thp_enabled == 0 ? "off" : "except-advised";

	if (s->thp_enabled == THP_ENABLED_NO_KERNEL)
		snprintf(buf, cap, "kernel has no THP");
	else if (s->thp_enabled < 0)
		snprintf(buf, cap, "-");
	else if (s->thp_enabled && !s->except_advised)
		snprintf(buf, cap, "on");
	else if (!origin || origin->pid == s->pid)
		snprintf(buf, cap, "%s (prctl)", mode);
	else
		snprintf(buf, cap, "%s (inherited from %d %s)", mode, (int)origin->pid, origin->name);
	return buf;
}

void out_json_thp_state(struct json_object *o, const struct thp_pstatus *s,
			const struct thp_pstatus *origin)
{
	char buf[128];
	struct json_object *by = NULL;

	json_object_object_add(o, "thp_state", json_object_new_string(out_thp_state(buf, sizeof(buf), s, origin)));
	/* false on a kernel without THP, null where the kernel does not say */
	json_object_object_add(o, "thp_enabled", s->thp_enabled >= 0 || s->thp_enabled == THP_ENABLED_NO_KERNEL
					       ? json_object_new_boolean(s->thp_enabled > 0) : NULL);
	json_object_object_add(o, "thp_except_advised", json_object_new_boolean(s->except_advised));
	if ((s->thp_enabled == 0 || s->except_advised) && origin) {
		by = json_object_new_object();
		json_object_object_add(by, "pid", json_object_new_int(origin->pid));
		json_object_object_add(by, "command", json_object_new_string(origin->name));
	}
	json_object_object_add(o, "thp_disabled_by", by);
}
