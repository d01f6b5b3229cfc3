/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doctor.c - `thp doctor`: findings with evidence and the exact fix, most severe first */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/doctor.h"
#include "../core/hugetlb.h"
#include "../core/drift.h"
#include "../core/parse.h"
#include "../core/pools.h"
#include "../core/proc.h"
#include "../core/state.h"
#include "../render/render.h"
#include "../render/term.h"
#include "cmd.h"

/* The width of the findings, on a terminal (or a narrower one) and in a file */
#define WIDTH 80
#define FIX_INDENT 4
#define SAMPLE_MAX 3600

static void usage(void)
{
	puts("Usage: thp [--root DIR] doctor [options]\n"
	     "\n"
	     "Check the host (or a capture) for THP problems and print findings, most severe\n"
	     "first: what is wrong, the evidence, why it matters, and the commands that fix\n"
	     "it.\n"
	     "Exits 3 when a finding at or above --severity exists, 0 otherwise.\n"
	     "\n"
	     "Options:\n"
	     "  -R, --root DIR        read a capture made by 'thp capture' (as the global\n"
	     "                        option)\n"
	     "  -s, --severity LEVEL  info, warn or crit (default): the level that makes\n"
	     "                        exit 3\n"
	     "  -S, --sample SECONDS  read the counters twice, SECONDS apart, for rates now\n"
	     "  -J, --json            one JSON document (sizes in bytes)\n"
	     "  -h, --help            show this help");
}

/* "3d 4h", "2h 5m", "42s", "1.5s". */
static const char *duration(char *buf, size_t cap, double s)
{
	unsigned long long t = (unsigned long long)s;

	if (s < 60)
		snprintf(buf, cap, s < 10 && s != (double)(long long)s ? "%.1f s" : "%.0f s", s);
	else if (t < 3600)
		snprintf(buf, cap, "%llum %llus", t / 60, t % 60);
	else if (t < 86400)
		snprintf(buf, cap, "%lluh %llum", t / 3600, t % 3600 / 60);
	else
		snprintf(buf, cap, "%llud %lluh", t / 86400, t % 86400 / 3600);
	return buf;
}

static const char *ev_value(const struct thp_evidence *e, char *buf, size_t cap)
{
	char a[32], b[32], p[32];

	switch (e->kind) {
	case THP_EV_COUNT:
		return out_count(buf, cap, e->num);
	case THP_EV_BYTES:
		return out_size(buf, cap, e->num, false);
	case THP_EV_RATIO:
		snprintf(buf, cap, "%s (%s of %s)", out_pct(p, sizeof(p), e->num, e->whole),
			 out_count(a, sizeof(a), e->num), out_count(b, sizeof(b), e->whole));
		return buf;
	case THP_EV_RATE:
		if (e->x >= 1 || e->x == 0)
			snprintf(buf, cap, "%.1f/s", e->x);
		else if (e->x * 60 >= 1)
			snprintf(buf, cap, "%.1f/min", e->x * 60);
		else
			snprintf(buf, cap, "%.2f/h", e->x * 3600);
		return buf;
	case THP_EV_SECONDS:
		return duration(buf, cap, e->x);
	default:
		return e->text;
	}
}

/* Prints command CMD (escaped, N bytes) of a fix at FIX_INDENT, wrapped at
 * spaces onto lines of at most WIDTH columns that end in a backslash (pasted
 * into a shell it is still one command), the next ones indented two more. */
static void print_command(const char *cmd, size_t n, int width)
{
	int col = FIX_INDENT, indent = FIX_INDENT;

	printf("%*s", indent, "");
	while (n) {
		size_t len = strcspn(cmd, " ");
		len = len < n ? len : n;
		if (col > indent && col + 1 + (int)len + 2 > width) {
			indent = FIX_INDENT + 2;
			printf(" \\\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)len, cmd);
		col += (int)len;
		for (cmd += len, n -= len; n && *cmd == ' '; cmd++, n--)
			;
	}
	putchar('\n');
}

/* Prints FIX, a command and maybe "   # " and a comment: on one line when it
 * fits, else the comment as a line of its own above the command, wrapped. */
static void print_fix(const char *fix)
{
	int width = out_term_width(WIDTH, WIDTH);
	char *e = out_esc_dup(fix, strlen(fix), OUT_ESC_TEXT);
	const char *hash = e ? strstr(e, "   # ") : NULL;

	if (!e || FIX_INDENT + out_term_len(e) <= width) {
		printf("%*s", FIX_INDENT, "");
		out_esc_put(stdout, fix);
		putchar('\n');
	} else {
		if (hash)
			out_wrap("    #", hash + 5, width);
		print_command(e, hash ? (size_t)(hash - e) : strlen(e), width);
	}
	free(e);
}

/* F's evidence: in text a table at most WIDTH wide, its name, value and
 * source wrapped onto more lines when they do not fit (a source between the
 * parts of its path); in JSON an object each, the value typed. */
static void put_evidence(const struct thp_finding *f)
{
	static const char *const units[] = { NULL, "count", "bytes", "ratio", "per_second", "seconds" };
	struct out_table *t = NULL;
	char val[256];

	out_text("  evidence:\n");
	if (!out_json_on()) {
		t = out_table_new(3, NULL, true);
		for (int c = 0; c < 3; c++)
			out_table_col(t, c, OUT_WRAP | OUT_KEEP);
		out_table_width(t, WIDTH);
	}
	out_arr("evidence");
	for (int i = 0; i < f->nev; i++) {
		const struct thp_evidence *e = &f->ev[i];
		const char *row[] = { e->name, ev_value(e, val, sizeof(val)), e->source };
		if (t)
			out_table_row(t, row);
		out_obj(NULL);
		out_put(OUT_JSON, "name", NULL, ov_str(e->name));
		switch (e->kind) {
		case THP_EV_COUNT:
		case THP_EV_BYTES: out_put(OUT_JSON, "value", NULL, ov_count(e->num)); break;
		case THP_EV_RATIO:
			out_put(OUT_JSON, "value", NULL, ov_num((double)e->num / (double)e->whole, -1));
			out_put(OUT_JSON, "part", NULL, ov_count(e->num));
			out_put(OUT_JSON, "whole", NULL, ov_count(e->whole));
			break;
		case THP_EV_RATE:
		case THP_EV_SECONDS: out_put(OUT_JSON, "value", NULL, ov_num(e->x, -1)); break;
		default: out_put(OUT_JSON, "value", NULL, ov_str(e->text));
		}
		out_put(OUT_JSON, "unit", NULL, ov_str(units[e->kind]));
		out_put(OUT_JSON, "source", NULL, ov_str(e->source[0] ? e->source : NULL));
		out_end();
	}
	out_end();
	if (t)
		out_table_print(t, FIX_INDENT);
}

static void put_finding(const struct thp_finding *f)
{
	static const struct {
		const char *tag;
		enum out_hue hue;
	} sev[] = { [THP_SEV_INFO] = { "INFO", OUT_HUE_INFO }, [THP_SEV_WARN] = { "WARN", OUT_HUE_WARN },
		    [THP_SEV_CRIT] = { "CRIT", OUT_HUE_CRIT } };
	char head[128];

	out_obj(NULL);
	out_put(OUT_JSON, "id", NULL, ov_str(f->id));
	out_put(OUT_JSON, "severity", NULL, ov_str(thp_severity_name(f->sev)));
	out_put(OUT_JSON, "title", NULL, ov_str(f->title));
	out_put(OUT_JSON, "pid", NULL, ov_if(f->pid, ov_int(f->pid)));
	if (!out_json_on()) {
		snprintf(head, sizeof(head), "%s%s%s %s:", out_color(sev[f->sev].hue), sev[f->sev].tag,
			 out_color_end(), f->id);
		out_wrap(head, f->title, WIDTH);
	}
	put_evidence(f);
	out_put(OUT_JSON, "why", NULL, ov_str(f->why));
	if (!out_json_on())
		out_wrap("  why:", f->why, WIDTH);
	out_text("  fix:\n");
	out_arr("fix");
	for (int i = 0; i < f->nfix; i++) {
		out_put(OUT_JSON, NULL, NULL, ov_str(f->fix[i]));
		if (!out_json_on())
			print_fix(f->fix[i]);
	}
	out_end();
	if (!f->nfix)
		out_text("    nothing to run on this host\n");
	out_end();
	out_text("\n");
}

void thp_doctor_print(const struct thp_root *root, const struct thp_diagnosis *d, enum thp_severity min, int rc)
{
	const struct thp_findings *r = d->r;
	const struct thp_host *h = &d->h;
	const char *during = h->before ? " during the sample" : "";
	char line[200];
	int n[3] = { 0 };

	out_put(OUT_JSON, "root", NULL, ov_str(root->path));
	out_put(OUT_JSON, "host", NULL, ov_str(h->st->hostname[0] ? h->st->hostname : NULL));
	out_put(OUT_JSON, "severity", NULL, ov_str(thp_severity_name(min)));
	out_put(OUT_JSON, "sample_seconds", NULL, ov_if(h->before, ov_num(h->sample_secs, -1)));
	out_put(OUT_JSON, "exit", NULL, ov_int(rc));
	out_arr("findings");
	for (int i = 0; i < r->n; i++) {
		n[r->v[i].sev]++;
		put_finding(&r->v[i]);
	}
	out_end();
	out_arr("unchecked");
	for (int i = 0; i < r->nunchecked; i++) {
		const struct thp_unchecked *u = &r->unchecked[i];
		char why[512];
		out_obj(NULL);
		out_put(OUT_JSON, "what", NULL, ov_str(u->what));
		out_put(OUT_JSON, "path", NULL, ov_str(u->path));
		out_put(OUT_JSON, "error", NULL, ov_str(thp_strerror(u->err)));
		out_end();
		snprintf(why, sizeof(why), "%s (%s: %s)", u->what, u->path, thp_strerror(u->err));
		if (!out_json_on())
			out_wrap("Not checked:", why, WIDTH);
	}
	out_end();
	if (!r->n && r->nunchecked)
		out_text("No findings in what could be checked%s; the rest is listed above.\n", during);
	else if (!r->n)
		out_text("No findings: nothing about THP needs attention on this host%s.\n", during);
	else
		out_text("%d finding%s: %d critical, %d warning%s, %d info\n", r->n, r->n == 1 ? "" : "s",
			 n[THP_SEV_CRIT], n[THP_SEV_WARN], n[THP_SEV_WARN] == 1 ? "" : "s", n[THP_SEV_INFO]);
	out_put(OUT_JSON, "dropped", NULL, ov_int(r->dropped));
	if (r->dropped)
		out_text("%d more findings were left out\n", r->dropped);
	out_put(OUT_JSON, "unreadable_processes", NULL, ov_int(h->unreadable.n));
	if (h->unreadable.n)
		out_text("%s\n", out_denied(line, sizeof(line), &h->unreadable));
}

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

/* Reads what the rules need of the writable settings: persistence and the journals. */
static void read_settings(const struct thp_root *root, struct thp_host *h)
{
	struct thp_changes *cs = malloc(sizeof(*cs));
	bool read = cs && thp_changes_read(root, cs) == 0;

	memset(&h->persist, 0, sizeof(h->persist));
	if (read)
		read_persist(root, cs, h->hugetlb, &h->persist);
	thp_journal_read(root, read ? cs : NULL, &h->journal);
	thp_pools_journal_read_host(root, &h->pools_journal);
	free(cs);
}

int thp_doctor_exit(const struct thp_findings *r, enum thp_severity min)
{
	for (int i = 0; i < r->n; i++)
		if (r->v[i].sev >= min)
			return 3;
	return 0;
}

/* Waits SAMPLE seconds from T0, saying so on a terminal with PROGRESS. */
static void sample_wait(double t0, double sample, bool progress)
{
	struct out_progress p;

	out_progress_init(&p);
	p.tty = p.tty && progress;
	for (double now; (now = now_secs()) < t0 + sample;) {
		double step = t0 + sample - now < 0.1 ? t0 + sample - now : 0.1;
		struct timespec ts = { 0, (long)(step * 1e9) };
		nanosleep(&ts, NULL);
		out_progress_say(&p, "doctor", "sampling the counters for %g s", sample);
	}
	out_progress_end(&p);
}

int thp_diagnose(const struct thp_root *root, double sample, bool progress, struct thp_diagnosis *d)
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
		sample_wait(t0, sample, progress);
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
	read_settings(root, h);
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

int cmd_doctor(struct thp_ctx *ctx, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "severity", required_argument, NULL, 's' }, { "sample", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'J' },           { "help", no_argument, NULL, 'h' },
		{ "root", required_argument, NULL, 'R' },     { NULL, 0, NULL, 0 },
	};
	enum thp_severity min = THP_SEV_CRIT;
	struct thp_diagnosis d;
	double sample = 0;
	int c, rc = 1;

	optind = 0;
	while ((c = thp_getopt(argc, argv, "+s:S:JhR:", lo)) != -1) {
		switch (c) {
		case 's':
			if (thp_severity_parse(optarg, &min)) {
				thp_err("invalid --severity '%s' (info, warn or crit)", optarg);
				return thp_usage_error("doctor");
			}
			break;
		case 'S':
			if (!thp_opt_decimal("--sample", optarg, "seconds", 0.01, SAMPLE_MAX, &sample))
				return thp_usage_error("doctor");
			break;
		case 'J': ctx->json = true; break;
		case 'h': usage(); return 0;
		case 'R':
			if (thp_ctx_root(ctx, optarg))
				return 1;
			break;
		default: return thp_usage_error("doctor");
		}
	}
	if (optind < argc) {
		thp_err("unexpected argument '%s'", argv[optind]);
		return thp_usage_error("doctor");
	}
	if (sample > 0 && thp_live_only(ctx, "--sample"))
		return 2;
	if (thp_diagnose(&ctx->root, sample, !ctx->json, &d)) {
		thp_err("out of memory");
	} else {
		rc = thp_doctor_exit(d.r, min);
		out_doc_begin(ctx->json, false, THP_DOCTOR_SCHEMA);
		thp_doctor_print(&ctx->root, &d, min, rc);
		rc = out_doc_end() ? 1 : rc;
	}
	thp_diagnosis_free(&d);
	return rc;
}
