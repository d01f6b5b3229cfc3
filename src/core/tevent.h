/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tevent.h - raw trace events decoded into struct thp_ev, fields found by name
 *
 * Event layouts differ between kernel versions, so every field is looked up by
 * name in the event's format (parsed by libtraceevent) and status values are
 * named from the event's own print format. Works on buffers; no I/O. */
#ifndef THP_TEVENT_H
#define THP_TEVENT_H

#include <stdbool.h>
#include <stdint.h>

#include <event-parse.h>

#include "stall.h"

/* System and name of each traced event, indexed by enum thp_ev_type, and the
 * fields read into thp_ev's result (named by the event's print format) and value. */
struct thp_tevent_spec {
	const char *sys, *name;
	const char *status, *value; /* NULL: the event has none */
};
extern const struct thp_tevent_spec thp_tevent_specs[THP_EV_NTYPES];

struct thp_tevents;

/* Finds the traced events among those TEP has parsed, and their fields.
 * TEP must outlive the result. Returns NULL when out of memory. */
struct thp_tevents *thp_tevents_new(struct tep_handle *tep);
void thp_tevents_free(struct thp_tevents *tv);

/* True when the parsed formats include event TYPE. */
bool thp_tevents_has(const struct thp_tevents *tv, enum thp_ev_type type);

/* Decodes the raw event DATA, recorded on CPU at TS, into EV (tid, type and
 * fields; comm and tgid left empty). Returns false for events not traced. */
bool thp_tevents_decode(struct thp_tevents *tv, void *data, int size, int cpu, uint64_t ts,
			struct thp_ev *ev);

#endif
