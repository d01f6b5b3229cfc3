/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diagnose.c - a host read as 'thp doctor' reads it: the status (sampled
 * twice when asked), the processes, what boot applies against what runs, the
 * journals a change left, and the rules' findings on all of it */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "changes.h"
#include "doctor.h"
#include "drift.h"
#include "hugetlb.h"
#include "parse.h"
#include "persist.h"
#include "pools.h"
#include "proc.h"
#include "state.h"
#include "status.h"

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void diff_set(struct thp_host_diff *d, const char *key, const char *other,
		     const char *running, const char *source, int line)
{
	snprintf(d->key, sizeof(d->key), "%s", key);
	snprintf(d->other, sizeof(d->other), "%s", other);
	snprintf(d->running, sizeof(d->running), "%s", running);
	if (line)
		snprintf(d->source, sizeof(d->source), "%s:%d", source, line);
	else
		snprintf(d->source, sizeof(d->source), "%s", source);
}

/* Adds a diff to *D (counting *N) when the running value of KV's setting in
 * CS differs from KV's, which comes from SOURCE. */
static void diff_running(const struct thp_changes *cs, const struct thp_kv *kv, const char *source,
			 struct thp_host_diff *d, int *n)
{
	const struct thp_change *c = thp_change_find(cs, kv->key);

	if (c && c->old[0] && strcmp(c->old, kv->value) != 0) {
		diff_set(d, c->key, kv->value, c->old, source, kv->line);
		(*n)++;
	}
}

/* True when D is a host pool that the kernel command line asks for and did
 * not get at boot: rule hugetlb-pool-short's, not drift (boot asks the same again). */
static bool cmdline_short(const struct thp_drift *d)
{
	uint64_t size, persisted, running;
	int node;

	return thp_pool_key_parse(d->key, &size, &node) == 0 && node < 0 && !d->refused[0] &&
	       strcmp(d->source, "/proc/cmdline") == 0 && thp_parse_u64(d->persisted, &persisted) == 0 &&
	       thp_parse_u64(d->running, &running) == 0 && running < persisted;
}

/* The entry of KEY in P's tuned_writes, added when missing; NULL when full. */
static struct thp_host_tuned *tuned_entry(struct thp_host_persist *p, const char *key)
{
	for (int i = 0; i < p->ntuned; i++)
		if (strcmp(p->tuned_writes[i].key, key) == 0)
			return &p->tuned_writes[i];
	if (p->ntuned == THP_DIFFS_MAX)
		return NULL;
	memset(&p->tuned_writes[p->ntuned], 0, sizeof(p->tuned_writes[0]));
	snprintf(p->tuned_writes[p->ntuned].key, sizeof(p->tuned_writes[0].key), "%s", key);
	return &p->tuned_writes[p->ntuned++];
}

/* Adds what tuned writes over other persisted values (PE's second writers
 * whose value is known) and its values that differ from the running ones
 * (drift D of N entries) to P. */
static void read_tuned(const struct thp_persisted *pe, const struct thp_drift *d, int n,
		       struct thp_host_persist *p)
{
	snprintf(p->tuned, sizeof(p->tuned), "%s", pe->tuned);
	for (int i = 0; i < pe->nwriters; i++) {
		const struct thp_second_writer *w = &pe->writers[i];
		struct thp_host_tuned *t = w->unknown || w->over_source < 0 ? NULL : tuned_entry(p, w->key);

		if (!t)
			continue;
		snprintf(t->value, sizeof(t->value), "%s", w->value);
		snprintf(t->option, sizeof(t->option), "%s", w->option);
		snprintf(t->source, sizeof(t->source), "%s:%d", pe->sources[w->source], w->line);
		snprintf(t->over, sizeof(t->over), "%s", w->over);
		if (w->over_line)
			snprintf(t->over_source, sizeof(t->over_source), "%s:%d", pe->sources[w->over_source], w->over_line);
		else
			snprintf(t->over_source, sizeof(t->over_source), "%s", pe->sources[w->over_source]);
	}
	for (int i = 0; i < n; i++) {
		struct thp_host_tuned *t = d[i].tuned && !d[i].refused[0] ? tuned_entry(p, d[i].key) : NULL;

		if (!t)
			continue;
		snprintf(t->value, sizeof(t->value), "%s", d[i].persisted);
		snprintf(t->running, sizeof(t->running), "%s", d[i].running);
		snprintf(t->source, sizeof(t->source), "%s:%d", d[i].source, d[i].line);
	}
}

/* Marks the changes of P that the 'thp set' command saved in S made: its
 * command ("thp set enabled=madvise") asked for the key, and the setting still
 * runs with the value it wrote. A change made some other way (through sysfs,
 * by another program) is not credited to it. */
static void credit_set(const struct thp_changes *cs, const struct thp_state *s, struct thp_host_persist *p)
{
	struct thp_changes *w = malloc(sizeof(*w));
	char cmd[sizeof(s->command)], why[256], *save = NULL;
	bool args = false;

	if (!w)
		return;
	memcpy(w, cs, sizeof(*w));
	snprintf(cmd, sizeof(cmd), "%s", s->command);
	for (char *t = strtok_r(cmd, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(t, '=');

		if (!args) {
			args = strcmp(t, "set") == 0;
		} else if (t[0] != '-' && eq && eq > t) {
			*eq = '\0';
			thp_changes_want(w, t, eq + 1, why, sizeof(why));
		}
	}
	for (int i = 0; i < p->nchanged; i++) {
		const struct thp_change *c = thp_change_find(w, p->changed[i].key);
		p->changed[i].by_set = c && c->want[0] && strcmp(c->want, p->changed[i].running) == 0;
	}
	free(w);
}

/* Fills P as 'thp persist --check' sees the host (CS: the running settings):
 * drift between persisted and running values, and changes since the state
 * 'thp set' saved in this boot. */
static void read_persist(const struct thp_root *root, const struct thp_changes *cs,
			 const struct thp_hugetlb *h, struct thp_host_persist *p)
{
	struct thp_persisted *pe = malloc(sizeof(*pe));
	struct thp_state_file *saved = malloc(sizeof(*saved));
	struct thp_drift *d = calloc(THP_KV_MAX, sizeof(*d));
	uint64_t sizes[THP_SIZES_MAX];
	int n;

	if (!pe || !saved || !d)
		goto out;
	p->known = true;
	n = thp_changes_sizes(cs, sizes, THP_SIZES_MAX);
	thp_persisted_read(root, sizes, n, h->default_size, pe);
	p->npersisted = pe->values.n;
	n = thp_drift_check(cs, h, pe, d, THP_KV_MAX);
	for (int i = 0; i < n && p->ndrift < THP_DIFFS_MAX; i++) {
		if (cmdline_short(&d[i]))
			continue;
		diff_set(&p->drift[p->ndrift], d[i].key, d[i].persisted, d[i].running, d[i].source, d[i].line);
		p->drift[p->ndrift].tuned = d[i].tuned && !d[i].refused[0];
		snprintf(p->drift[p->ndrift++].refused, sizeof(p->drift[0].refused), "%s", d[i].refused);
	}
	read_tuned(pe, d, n, p);
	thp_state_load(root, THP_SAVED, saved);
	p->saved = saved->status == THP_STATE_CURRENT;
	for (int i = 0; p->saved && i < saved->s.values.n && p->nchanged < THP_DIFFS_MAX; i++)
		diff_running(cs, &saved->s.values.v[i], "/" THP_SAVED, &p->changed[p->nchanged],
			     &p->nchanged);
	if (p->saved)
		credit_set(cs, &saved->s, p);
out:
	free(pe);
	free(saved);
	free(d);
}

void thp_journal_read(const struct thp_root *root, const struct thp_changes *cs,
		      struct thp_host_journal *j)
{
	struct thp_state_file *f = malloc(sizeof(*f));

	memset(j, 0, sizeof(*j));
	if (!f)
		return;
	thp_state_load(root, THP_JOURNAL, f);
	j->status = f->status;
	j->pid = (int)f->s.owner;
	j->line = f->line;
	snprintf(j->command, sizeof(j->command), "%s", f->s.command[0] ? f->s.command : "thp");
	snprintf(j->why, sizeof(j->why), "%s", f->why);
	snprintf(j->boot, sizeof(j->boot), "%s", f->s.boot);
	snprintf(j->boot_now, sizeof(j->boot_now), "%s", f->boot_now);
	for (int i = 0; cs && f->status != THP_STATE_DAMAGED && i < f->s.values.n && j->nchanged < THP_DIFFS_MAX; i++)
		diff_running(cs, &f->s.values.v[i], "/" THP_JOURNAL, &j->changed[j->nchanged], &j->nchanged);
	free(f);
}

/* True when process PID below ROOT is a thp: the owner of a journal at work. */
static bool thp_runs(const struct thp_root *root, int pid)
{
	char comm[THP_COMM_MAX];

	return pid > 0 && thp_comm_read(root, pid, comm, sizeof(comm)) == 0 && strcmp(comm, "thp") == 0;
}

/* Adds pool P of the pools journal to J when its running size differs. */
static void pool_diff(const struct thp_root *root, const struct thp_pool_pages *p,
		      struct thp_host_journal *j)
{
	char rel[256], val[32], key[48], was[24];
	uint64_t now;

	thp_hugetlb_path(rel, sizeof(rel), p->size, p->node);
	if (thp_read_buf(root, rel, val, sizeof(val)) < 0 || thp_parse_u64(val, &now) != 0 ||
	    now == p->pages || j->nchanged >= THP_DIFFS_MAX)
		return;
	thp_pool_key(p->size, p->node, key, sizeof(key));
	snprintf(was, sizeof(was), "%llu", (unsigned long long)p->pages);
	snprintf(val, sizeof(val), "%llu", (unsigned long long)now);
	diff_set(&j->changed[j->nchanged++], key, was, val, "/" THP_POOLS_JOURNAL, 0);
}

void thp_pools_journal_read_host(const struct thp_root *root, struct thp_host_journal *j)
{
	struct thp_pools_journal *pj = malloc(sizeof(*pj));
	char *buf = NULL;
	int err = pj ? thp_read(root, THP_POOLS_JOURNAL, &buf, NULL) : -ENOMEM;

	memset(j, 0, sizeof(*j));
	if (err == -ENOENT || err == -ENOTDIR || err == -ENOMEM) {
		j->status = THP_STATE_ABSENT;
	} else if (err) {
		j->status = THP_STATE_DAMAGED;
		snprintf(j->why, sizeof(j->why), "%s", thp_read_strerror(err));
	} else if (thp_pools_journal_parse(buf, pj, &j->line) != 0) {
		j->status = THP_STATE_DAMAGED;
		snprintf(j->why, sizeof(j->why), "%s", j->line ? "not a line of a pools journal"
							     : "cut short: no end line, or no pool");
	} else {
		j->pid = (int)pj->owner;
		j->status = thp_runs(root, j->pid) ? THP_STATE_RUNNING : THP_STATE_CURRENT;
		snprintf(j->command, sizeof(j->command), "%s", pj->command);
		for (int i = 0; i < pj->n; i++)
			pool_diff(root, &pj->v[i], j);
	}
	if (j->status != THP_STATE_ABSENT && !j->command[0])
		snprintf(j->command, sizeof(j->command), "thp");
	free(buf);
	free(pj);
}

struct thp_status_extra *thp_status_extra_read(const struct thp_root *root, const struct thp_status *st)
{
	struct thp_status_extra *x = calloc(1, sizeof(*x));
	struct thp_changes *cs;

	if (!x)
		return NULL;
	thp_numa_read(root, st->pmd_size, st->page_size, &x->numa);
	thp_journal_read(root, NULL, &x->journal);
	if (x->journal.status != THP_STATE_ABSENT && x->journal.status != THP_STATE_DAMAGED &&
	    (cs = malloc(sizeof(*cs))) != NULL) {
		if (thp_changes_of(root, st, cs) == 0)
			thp_journal_read(root, cs, &x->journal);
		free(cs);
	}
	thp_pools_journal_read_host(root, &x->pools_journal);
	return x;
}

/* Reads what the rules need of the writable settings (as ST holds them):
 * persistence and the journals. */
static void read_settings(const struct thp_root *root, const struct thp_status *st, struct thp_host *h)
{
	struct thp_changes *cs = malloc(sizeof(*cs));
	bool read = cs && thp_changes_of(root, st, cs) == 0;

	memset(&h->persist, 0, sizeof(h->persist));
	if (read)
		read_persist(root, cs, h->hugetlb, &h->persist);
	thp_journal_read(root, read ? cs : NULL, &h->journal);
	thp_pools_journal_read_host(root, &h->pools_journal);
	free(cs);
}

/* Waits SAMPLE seconds from T0, calling TICK (with ARG; NULL: none) after
 * every tenth of a second and once more, DONE, at the end. */
static void sample_wait(double t0, double sample, thp_sample_fn tick, void *arg)
{
	for (double now; (now = now_secs()) < t0 + sample;) {
		double step = t0 + sample - now < 0.1 ? t0 + sample - now : 0.1;
		struct timespec ts = { 0, (long)(step * 1e9) };
		nanosleep(&ts, NULL);
		if (tick)
			tick(false, arg);
	}
	if (tick)
		tick(true, arg);
}

int thp_diagnose(const struct thp_root *root, double sample, thp_sample_fn tick, void *arg,
		 struct thp_diagnosis *d)
{
	struct thp_host *h = &d->h;

	memset(d, 0, sizeof(*d));
	d->st = malloc(sizeof(*d->st));
	d->before = sample > 0 ? malloc(sizeof(*d->before)) : NULL;
	d->r = malloc(sizeof(*d->r));
	if (!d->st || (sample > 0 && !d->before) || !d->r)
		return -ENOMEM;
	if (sample > 0) {
		double t0 = now_secs();
		thp_status_read(root, d->before, false);
		sample_wait(t0, sample, tick, arg);
		h->before = d->before;
		h->sample_secs = now_secs() - t0;
	}
	thp_status_read(root, d->st, false);
	h->st = d->st;
	if (thp_host_read(root, h))
		return -ENOMEM;
	/* the scan thp_status_read() would have made, from the one of the processes */
	if (thp_status_holds_pmd(d->st))
		d->st->procs = h->rollups;
	read_settings(root, d->st, h);
	thp_doctor_run(h, d->r);
	return 0;
}

void thp_diagnosis_free(struct thp_diagnosis *d)
{
	thp_host_free(&d->h);
	free(d->r);
	free(d->st);
	free(d->before);
	memset(d, 0, sizeof(*d));
}
