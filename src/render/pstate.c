/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pstate.c - a process's THP state (on, off by prctl, off inherited, none in
 * the kernel), and its parts as values */
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

struct out_val out_pstate(enum out_pstate f, const struct thp_pstatus *s, const struct thp_pstatus *origin,
			  char *buf, size_t cap)
{
	bool set = (s->thp_enabled == 0 || s->except_advised) && origin;

	switch (f) {
	case OUT_PS_STATE: return ov_str(out_thp_state(buf, cap, s, origin));
	/* false on a kernel without THP, null where the kernel does not say */
	case OUT_PS_ENABLED:
		return ov_if(s->thp_enabled >= 0 || s->thp_enabled == THP_ENABLED_NO_KERNEL, ov_bool(s->thp_enabled > 0));
	case OUT_PS_EXCEPT_ADVISED: return ov_bool(s->except_advised);
	case OUT_PS_SET_BY_PID: return ov_if(set, ov_count(set ? (uint64_t)origin->pid : 0));
	default: return ov_str(set ? origin->name : NULL);
	}
}
