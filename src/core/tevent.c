/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tevent.c - decoding of raw trace events by field name (libtraceevent) */
#include "tevent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct thp_tevent_spec thp_tevent_specs[THP_EV_NTYPES] = {
	[THP_EV_COMPACT_TRY] = { "compaction", "mm_compaction_try_to_compact_pages", "status", NULL },
	[THP_EV_COMPACT_BEGIN] = { "compaction", "mm_compaction_begin", "status", NULL },
	[THP_EV_COMPACT_END] = { "compaction", "mm_compaction_end", "status", NULL },
	[THP_EV_KCOMPACTD_WAKE] = { "compaction", "mm_compaction_kcompactd_wake", "status", NULL },
	[THP_EV_KCOMPACTD_SLEEP] = { "compaction", "mm_compaction_kcompactd_sleep", "status", NULL },
	[THP_EV_RECLAIM_BEGIN] = { "vmscan", "mm_vmscan_direct_reclaim_begin", "status", NULL },
	[THP_EV_RECLAIM_END] = { "vmscan", "mm_vmscan_direct_reclaim_end", "status", "nr_reclaimed" },
	[THP_EV_COLLAPSE] = { "huge_memory", "mm_collapse_huge_page", "status", NULL },
	[THP_EV_SCAN_PMD] = { "huge_memory", "mm_khugepaged_scan_pmd", "status", NULL },
	[THP_EV_TLB_FLUSH] = { "tlb", "tlb_flush", "reason", NULL },
};

/* A value of the event's "status" field and its name from the print format. */
struct sym {
	long long value;
	char *str;
};

/* One traced event: where its fields are, for this kernel. */
struct evinfo {
	struct tep_event *ev; /* NULL when the kernel lacks the event */
	struct tep_format_field *order, *sync, *status, *value;
	struct sym *syms;
	size_t nsyms;
};

struct thp_tevents {
	struct tep_handle *tep;
	struct evinfo ev[THP_EV_NTYPES];
};

/* Collects the __print_symbolic() table that names FIELD's values. */
static int load_syms(struct evinfo *e, const char *field)
{
	for (struct tep_print_arg *a = e->ev->print_fmt.args; a; a = a->next) {
		struct tep_print_arg *f;

		if (a->type != TEP_PRINT_SYMBOL)
			continue;
		for (f = a->symbol.field; f && f->type == TEP_PRINT_TYPE; f = f->typecast.item)
			;
		if (!f || f->type != TEP_PRINT_FIELD || strcmp(f->field.name, field) != 0)
			continue;
		for (struct tep_print_flag_sym *s = a->symbol.symbols; s; s = s->next) {
			struct sym *n = realloc(e->syms, (e->nsyms + 1) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			e->syms = n;
			n[e->nsyms].value = strtoll(s->value, NULL, 0);
			if (!(n[e->nsyms].str = strdup(s->str)))
				return -ENOMEM;
			e->nsyms++;
		}
	}
	return 0;
}

/* The name of status VALUE; values the format does not name become "status=N". */
static const char *sym_name(struct evinfo *e, long long value)
{
	char buf[32];
	struct sym *n;

	for (size_t i = 0; i < e->nsyms; i++)
		if (e->syms[i].value == value)
			return e->syms[i].str;
	snprintf(buf, sizeof(buf), "status=%lld", value);
	n = realloc(e->syms, (e->nsyms + 1) * sizeof(*n));
	if (!n)
		return NULL;
	e->syms = n;
	n[e->nsyms].value = value;
	n[e->nsyms].str = strdup(buf);
	return n[e->nsyms++].str;
}

struct thp_tevents *thp_tevents_new(struct tep_handle *tep)
{
	struct thp_tevents *tv = calloc(1, sizeof(*tv));

	if (!tv)
		return NULL;
	tv->tep = tep;
	for (int i = 0; i < THP_EV_NTYPES; i++) {
		struct evinfo *e = &tv->ev[i];

		e->ev = tep_find_event_by_name(tep, thp_tevent_specs[i].sys, thp_tevent_specs[i].name);
		if (!e->ev)
			continue;
		e->order = tep_find_field(e->ev, "order");
		e->sync = tep_find_field(e->ev, "sync");
		e->status = thp_tevent_specs[i].status ? tep_find_field(e->ev, thp_tevent_specs[i].status) : NULL;
		e->value = thp_tevent_specs[i].value ? tep_find_field(e->ev, thp_tevent_specs[i].value) : NULL;
		if (e->status && load_syms(e, thp_tevent_specs[i].status)) {
			thp_tevents_free(tv);
			return NULL;
		}
	}
	return tv;
}

void thp_tevents_free(struct thp_tevents *tv)
{
	if (!tv)
		return;
	for (int i = 0; i < THP_EV_NTYPES; i++) {
		for (size_t j = 0; j < tv->ev[i].nsyms; j++)
			free(tv->ev[i].syms[j].str);
		free(tv->ev[i].syms);
	}
	free(tv);
}

bool thp_tevents_has(const struct thp_tevents *tv, enum thp_ev_type type)
{
	return type < THP_EV_NTYPES && tv->ev[type].ev;
}

static long long field_val(struct tep_format_field *f, void *data, long long dflt)
{
	unsigned long long v;

	if (!f || tep_read_number_field(f, data, &v) < 0)
		return dflt;
	/* signed fields narrower than 64 bits come back zero-extended */
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size == 4)
		return (int32_t)v;
	return (long long)v;
}

bool thp_tevents_decode(struct thp_tevents *tv, void *data, int size, int cpu, uint64_t ts,
			struct thp_ev *ev)
{
	struct tep_record rec = { .ts = ts, .data = data, .size = size, .cpu = cpu };
	int id = tep_data_type(tv->tep, &rec), i;
	struct evinfo *e = NULL;

	for (i = 0; i < THP_EV_NTYPES && !e; i++)
		if (tv->ev[i].ev && tv->ev[i].ev->id == id)
			e = &tv->ev[i];
	if (!e)
		return false;
	memset(ev, 0, sizeof(*ev));
	ev->type = (enum thp_ev_type)(i - 1);
	ev->ts = ts;
	ev->cpu = cpu;
	ev->tid = tep_data_pid(tv->tep, &rec);
	ev->order = (int)field_val(e->order, data, -1);
	ev->sync = (int)field_val(e->sync, data, -1);
	ev->value = (uint64_t)field_val(e->value, data, 0);
	if (e->status)
		ev->result = sym_name(e, field_val(e->status, data, 0));
	return true;
}

