/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the doctor rules on hand-built host models, and their parsers (cmocka). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/doctor.h"
#include "core/proc.h"

static void set_choice(struct thp_status *st, const char *name, const char *text)
{
	struct thp_setting *s = &st->settings[st->nsettings++];

	snprintf(s->name, sizeof(s->name), "%s", name);
	s->kind = THP_CHOICE;
	assert_int_equal(thp_parse_choice(text, &s->choice), 0);
}

static void set_counter(struct thp_counter *v, int *n, const char *name, uint64_t val)
{
	snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
	v[(*n)++].val = val;
}

/* A madvise/madvise host with the given compact_stall counter. */
static void host(struct thp_status *st, uint64_t stalls)
{
	memset(st, 0, sizeof(*st));
	st->dir = "sys/kernel/mm/transparent_hugepage";
	set_choice(st, "enabled", "always [madvise] never");
	set_choice(st, "defrag", "always defer defer+madvise [madvise] never");
	set_counter(st->vmstat, &st->nvmstat, "compact_stall", stalls);
	set_counter(st->vmstat, &st->nvmstat, "thp_fault_alloc", 1000);
	set_counter(st->vmstat, &st->nvmstat, "thp_fault_fallback", 10);
}

static const struct thp_finding *find(const struct thp_findings *r, const char *id)
{
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->v[i].id, id) == 0)
			return &r->v[i];
	return NULL;
}

static struct thp_findings *run(const struct thp_host *h)
{
	struct thp_findings *r = malloc(sizeof(*r));

	assert_non_null(r);
	thp_doctor_run(h, r);
	return r;
}

static void stalls_sampled(void **state)
{
	struct thp_status *now = calloc(1, sizeof(*now)), *before = calloc(1, sizeof(*before));
	struct thp_host h = { 0 };
	struct thp_findings *r;
	const struct thp_finding *f;
	(void)state;

	/* 50 stalls in 10 s: five a second now is critical */
	host(before, 1000);
	host(now, 1050);
	h.st = now;
	h.before = before;
	h.sample_secs = 10;
	r = run(&h);
	f = find(r, "compaction-stalls");
	assert_non_null(f);
	assert_int_equal(f->sev, THP_SEV_CRIT);
	assert_int_equal(f->ev[0].num, 50);
	assert_ptr_equal(&r->v[0], f); /* most severe first */
	free(r);
	/* 5 stalls in 10 s: a warning; none: no finding although 1000 since boot */
	host(now, 1005);
	r = run(&h);
	assert_int_equal(find(r, "compaction-stalls")->sev, THP_SEV_WARN);
	free(r);
	host(now, 1000);
	r = run(&h);
	assert_null(find(r, "compaction-stalls"));
	free(r);
	/* since boot: 1000 stalls in a day is under one a minute; in an hour it is not */
	h.before = NULL;
	h.uptime = 86400;
	r = run(&h);
	assert_null(find(r, "compaction-stalls"));
	free(r);
	h.uptime = 3600;
	r = run(&h);
	assert_int_equal(find(r, "compaction-stalls")->sev, THP_SEV_WARN);
	free(r);
	free(now);
	free(before);
}

/* TLB shootdowns: a finding at 1000 a second per CPU during a sample, none
 * since boot; the compaction finding shows the rate beside its own */
static void tlb_shootdowns(void **state)
{
	struct thp_status *now = calloc(1, sizeof(*now)), *before = calloc(1, sizeof(*before));
	struct thp_host h = { 0 };
	struct thp_findings *r;
	const struct thp_finding *f;
	(void)state;

	host(before, 1000);
	host(now, 1050);
	before->tlb = (struct thp_tlb_irqs){ true, 4, 1000000 };
	now->tlb = (struct thp_tlb_irqs){ true, 4, 1000000 + 40000 };
	h.st = now;
	h.before = before;
	h.sample_secs = 10; /* 4000 a second: 1000 per CPU */
	r = run(&h);
	f = find(r, "tlb-shootdowns");
	assert_non_null(f);
	assert_string_equal(f->ev[0].name, "TLB shootdowns");
	assert_true(f->ev[0].x == 4000.0);
	f = find(r, "compaction-stalls");
	assert_non_null(f);
	assert_string_equal(f->ev[f->nev - 2].name, "TLB shootdowns");
	free(r);
	/* just under the line */
	now->tlb.total = 1000000 + 39990;
	r = run(&h);
	assert_null(find(r, "tlb-shootdowns"));
	free(r);
	/* a CPU went offline: its column, and the sum, are gone */
	now->tlb = (struct thp_tlb_irqs){ true, 3, 999999 + 90000 };
	r = run(&h);
	assert_null(find(r, "tlb-shootdowns"));
	free(r);
	/* no TLB row: no finding, and the compaction finding says so */
	now->tlb = before->tlb = (struct thp_tlb_irqs){ false, 4, 0 };
	r = run(&h);
	assert_null(find(r, "tlb-shootdowns"));
	f = find(r, "compaction-stalls");
	assert_string_equal(f->ev[f->nev - 2].text, "not counted on this architecture (no TLB row)");
	free(r);
	/* since boot there is no finding, however many */
	now->tlb = (struct thp_tlb_irqs){ true, 1, 1ull << 40 };
	h.before = NULL;
	h.uptime = 10;
	r = run(&h);
	assert_null(find(r, "tlb-shootdowns"));
	free(r);
	free(now);
	free(before);
}

static void severity_order(void **state)
{
	struct thp_status *st = calloc(1, sizeof(*st));
	struct thp_host h = { .st = st, .uptime = 60 };
	struct thp_findings *r;
	(void)state;

	host(st, 0);
	snprintf(h.virt, sizeof(h.virt), "test");
	set_counter(st->meminfo, &st->nmeminfo, "HugePages_Total", 4);
	set_counter(st->meminfo, &st->nmeminfo, "HugePages_Free", 4);
	set_counter(st->meminfo, &st->nmeminfo, "Hugepagesize", 2 << 20);
	set_counter(st->meminfo, &st->nmeminfo, "AnonHugePages", 2 << 20);
	r = run(&h);
	/* young host: the unused pool is only information, listed by rule order */
	assert_int_equal(r->n, 3);
	assert_string_equal(r->v[0].id, "thp-in-use-via-madvise");
	assert_string_equal(r->v[1].id, "hugetlb-pool-unused");
	assert_int_equal(r->v[1].sev, THP_SEV_INFO);
	assert_string_equal(r->v[2].id, "virtual-machine");
	free(r);
	h.uptime = 7200;
	r = run(&h);
	assert_string_equal(r->v[0].id, "hugetlb-pool-unused");
	assert_int_equal(r->v[0].sev, THP_SEV_WARN);
	free(r);
	free(st);
}

static void inherited(void **state)
{
	struct thp_status *st = calloc(1, sizeof(*st));
	struct thp_host_proc p[4];
	struct thp_host h = { .st = st, .procs = p, .nprocs = 4 };
	struct thp_findings *r;
	const struct thp_finding *f;
	(void)state;

	host(st, 0);
	memset(p, 0, sizeof(p));
	for (int i = 0; i < 4; i++) {
		p[i].ps.pid = 10 + i;
		p[i].ps.ppid = i ? 10 : 1;
		p[i].ps.thp_enabled = 0;
		snprintf(p[i].comm, sizeof(p[i].comm), i ? "child" : "launcher");
		p[i].origin.pid = 10;
		p[i].origin.name = "launcher";
	}
	r = run(&h);
	f = find(r, "thp-disabled-inherited");
	assert_non_null(f);
	assert_int_equal(f->pid, 10);
	assert_non_null(strstr(f->title, "3 processes"));
	assert_non_null(strstr(f->title, "pid 10 (launcher)"));
	free(r);
	/* Redis turning THP off for itself and its save child is no finding */
	snprintf(p[0].comm, sizeof(p[0].comm), "redis-server");
	r = run(&h);
	assert_null(find(r, "thp-disabled-inherited"));
	free(r);
	free(st);
}

static void parsers(void **state)
{
	char out[32];
	enum thp_severity s;
	static const char env[] = "A=1\0MALLOC_CONF=thp:always\0B=\0";
	(void)state;

	assert_true(thp_cpuinfo_flag("processor\t: 0\nflags\t\t: fpu hypervisor lm\n", "hypervisor"));
	assert_false(thp_cpuinfo_flag("flags\t\t: fpu hypervisorx lm\n", "hypervisor"));
	assert_false(thp_cpuinfo_flag("model name: hypervisor\n", "hypervisor"));
	assert_int_equal(thp_severity_parse("warn", &s), 0);
	assert_int_equal(s, THP_SEV_WARN);
	assert_int_equal(thp_severity_parse("error", &s), -EINVAL);
	assert_int_equal(thp_environ_find(env, sizeof(env) - 1, "MALLOC_CONF", out, sizeof(out)), 0);
	assert_string_equal(out, "thp:always");
	assert_int_equal(thp_environ_find(env, sizeof(env) - 1, "B", out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(thp_environ_find(env, sizeof(env) - 1, "MALLOC", out, sizeof(out)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stalls_sampled),
		cmocka_unit_test(tlb_shootdowns), cmocka_unit_test(severity_order),
		cmocka_unit_test(inherited),      cmocka_unit_test(parsers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
