/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doctor.c - the findings of 'thp doctor' with their evidence and the exact
 * fix, most severe first, as text and as its JSON document (which 'thp
 * report' reads of a capture too) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "render.h"
#include "term.h"

/* The width of the findings, on a terminal (or a narrower one) and in a file */
#define WIDTH 80
#define FIX_INDENT 4

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
