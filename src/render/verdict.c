/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verdict.c - the plain-words answer to "is THP on?" for every layer */
#include "../control/modes.h"
#include "../core/exp.h"
#include "escape.h"
#include "msg.h"
#include "render.h"
#include "term.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sb {
	char *buf;
	size_t cap, len;
};

static void add(struct sb *b, const char *fmt, ...)
{
	va_list ap;

	if (b->len >= b->cap)
		return;
	if (b->len) {
		int n = snprintf(b->buf + b->len, b->cap - b->len, "; ");
		b->len += n > 0 ? (size_t)n : 0;
		if (b->len >= b->cap)
			return;
	}
	va_start(ap, fmt);
	int n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += n > 0 ? (size_t)n : 0;
}

static bool is(const char *a, const char *b)
{
	return a && strcmp(a, b) == 0;
}

/* Lists sizes other than the PMD size whose effective policy (anon or shmem) is WANT,
 * as "16 KiB, 64 KiB"; returns the count. */
static int list_sizes(const struct thp_status *st, bool shmem, const char *want, char *out,
		      size_t cap)
{
	int n = 0;
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < st->nsizes; i++) {
		const struct thp_size *z = &st->sizes[i];
		const char *eff = shmem ? z->shmem_effective : z->anon_effective;
		char sz[32];

		if (z->bytes == st->pmd_size || !is(eff, want))
			continue;
		out_size(sz, sizeof(sz), z->bytes, false);
		int w = snprintf(out + len, cap - len, "%s%s", n ? ", " : "", sz);
		if (w > 0 && (size_t)w < cap - len)
			len += (size_t)w;
		n++;
	}
	return n;
}

static void anon_part(const struct thp_status *st, struct sb *b)
{
	const char *p = thp_status_pmd_policy(st);
	char pmd[32], list[256];

	if (st->pmd_size)
		out_size(pmd, sizeof(pmd), st->pmd_size, false);
	else
		snprintf(pmd, sizeof(pmd), "huge"); /* size unknown (no hpage_pmd_size) */
	if (is(p, "always"))
		add(b, "%s pages for all anonymous memory", pmd);
	else if (is(p, "madvise"))
		add(b, "%s pages only where a program asks (MADV_HUGEPAGE)", pmd);
	else if (is(p, "never"))
		add(b, "no %s pages at page fault", pmd);
	else
		add(b, "anonymous THP policy unknown ('enabled' could not be read)");
	if (list_sizes(st, false, "always", list, sizeof(list)))
		add(b, "%s mTHP for all anonymous memory", list);
	if (list_sizes(st, false, "madvise", list, sizeof(list)))
		add(b, "%s mTHP only where a program asks", list);
}

static void shmem_part(const struct thp_status *st, struct sb *b)
{
	const char *w = thp_setting_word(thp_status_setting(st, "shmem_enabled"));
	char list[256];

	if (is(w, "never"))
		add(b, "shmem never (tmpfs mounts follow their huge= option)");
	else if (is(w, "always"))
		add(b, "shmem always huge");
	else if (is(w, "within_size"))
		add(b, "shmem huge within the file size");
	else if (is(w, "advise"))
		add(b, "shmem huge only with MADV_HUGEPAGE");
	else if (is(w, "deny"))
		add(b, "shmem and every tmpfs never (deny)");
	else if (is(w, "force"))
		add(b, "shmem and every tmpfs forced huge (force, for testing)");
	else if (w)
		add(b, "shmem %s", w);
	if (is(w, "deny") || is(w, "force"))
		return;
	static const char *const modes[] = { "always", "within_size", "advise" };
	for (size_t i = 0; i < 3; i++)
		if (list_sizes(st, true, modes[i], list, sizeof(list)))
			add(b, "%s shmem mTHP %s", list, modes[i]);
}

static void defrag_part(const struct thp_status *st, struct sb *b)
{
	const char *d = thp_setting_word(thp_status_setting(st, "defrag"));

	if (is(d, "always"))
		add(b, "every THP fault may stall in direct compaction");
	else if (is(d, "defer"))
		add(b, "faults never stall in compaction (kcompactd works in the background)");
	else if (is(d, "defer+madvise"))
		add(b, "faults may stall in compaction only for advised ranges, others defer");
	else if (is(d, "madvise"))
		add(b, "faults may stall in compaction only for advised ranges");
	else if (is(d, "never"))
		add(b, "faults never stall in compaction");
}

static void policy_line(const struct thp_status *st, char *out, size_t cap)
{
	struct sb b = { out, cap, 0 };

	out[0] = '\0';
	if (!st->dir) {
		add(&b, "not available: this kernel has no /sys/kernel/mm/transparent_hugepage "
			"(built without CONFIG_TRANSPARENT_HUGEPAGE)");
		return;
	}
	anon_part(st, &b);
	shmem_part(st, &b);
	if (st->kmajor > 6 || (st->kmajor == 6 && st->kminor >= 1))
		add(&b, is(thp_status_pmd_policy(st), "never") ?
			"MADV_COLLAPSE still works (it ignores 'enabled')" : "MADV_COLLAPSE works");
	else if (st->kmajor >= 0)
		add(&b, "no MADV_COLLAPSE (needs Linux 6.1+)");
	defrag_part(st, &b);
	if (b.len + 1 < cap)
		strcat(out, ".");
}

/* "64 KiB mTHP: 1,024 folios (64 MiB)" for non-PMD sizes with nr_anon > 0. */
static void mthp_in_use(const struct thp_status *st, struct sb *b)
{
	for (int i = 0; i < st->nsizes; i++) {
		const struct thp_size *z = &st->sizes[i];
		uint64_t nr;
		char sz[32], cnt[32], tot[32];

		if (z->bytes == st->pmd_size ||
		    !thp_counter_get(z->stats, z->nstats, "nr_anon", &nr) || nr == 0)
			continue;
		add(b, "%s anonymous mTHP in use: %s folios (%s)", out_size(sz, sizeof(sz), z->bytes, false),
		    out_count(cnt, sizeof(cnt), nr), out_size(tot, sizeof(tot), nr * z->bytes, false));
	}
}

static void now_line(const struct thp_status *st, char *out, size_t cap)
{
	struct sb b = { out, cap, 0 };
	uint64_t huge = 0, stall, alloc, fb;
	char a[32], c[32], d[32], den[200];
	bool have_huge = thp_counter_get(st->meminfo, st->nmeminfo, "AnonHugePages", &huge);

	out[0] = '\0';
	if (!st->dir)
		return;
	if (st->procs.scanned && st->procs.with_huge)
		add(&b, "%d process%s hold%s %s of PMD-mapped THP", st->procs.with_huge,
		    st->procs.with_huge == 1 ? "" : "es", st->procs.with_huge == 1 ? "s" : "",
		    out_size(a, sizeof(a), huge, false));
	else if (have_huge && huge)
		add(&b, "%s of PMD-mapped THP in use (AnonHugePages)", out_size(a, sizeof(a), huge, false));
	else if (have_huge)
		add(&b, "no process holds PMD-mapped THP (AnonHugePages 0)");
	if (st->procs.scanned && st->procs.unreadable.n)
		add(&b, "%s", out_denied(den, sizeof(den), &st->procs.unreadable));
	mthp_in_use(st, &b);
	if (thp_counter_get(st->vmstat, st->nvmstat, "compact_stall", &stall) &&
	    thp_counter_get(st->vmstat, st->nvmstat, "thp_fault_alloc", &alloc) &&
	    thp_counter_get(st->vmstat, st->nvmstat, "thp_fault_fallback", &fb)) {
		add(&b, "%s compaction stall%s and %s fallback%s since boot", out_count(a, sizeof(a), stall),
		    stall == 1 ? "" : "s", out_count(c, sizeof(c), fb), fb == 1 ? "" : "s");
		if (alloc + fb)
			snprintf(out + b.len, cap - b.len, " (%s of THP faults fell back)",
				 out_pct(d, sizeof(d), fb, alloc + fb));
		b.len = strlen(out);
	}
	if (b.len + 1 < cap && b.len)
		strcat(out, ".");
}

void out_verdict(const struct thp_status *st, char *policy, size_t pcap, char *now, size_t ncap)
{
	policy_line(st, policy, pcap);
	now_line(st, now, ncap);
}

void out_wrap(const char *label, const char *text, int max)
{
	int width = out_term_width(max, max), indent = out_term_len(label) + 1, col = indent;
	char *safe = out_esc_dup(text, strlen(text), OUT_ESC_TEXT);
	const char *p = safe ? safe : "";

	printf("%s ", label);
	while (*p) {
		const char *sp = strchr(p, ' ');
		int len = sp ? (int)(sp - p) : (int)strlen(p);

		if (col > indent && col + 1 + len > width) {
			printf("\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", len, p);
		col += len;
		p += len;
		while (*p == ' ')
			p++;
	}
	putchar('\n');
	free(safe);
}

void out_note(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out_wrap(" ", buf, 100);
}

void out_busy_warning(const struct thp_busy *b, const char *result)
{
	char text[160], line[sizeof(text) + 128];

	snprintf(line, sizeof(line), "the host is busy (%s): %s.", thp_busy_text(b, text, sizeof(text)), result);
	out_wrap("Warning:", line, 100);
	putchar('\n');
}

void out_modes_notice(const struct modes *m, const char *prior, const char *span)
{
	char list[MODES_MAX * (MODE_LEN + 2)] = "";

	for (int i = 0; i < m->n; i++)
		if (modes_switches(m->word[i]))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 list[0] ? ", " : "", m->word[i]);
	thp_err("switches the host-wide THP policy 'enabled' (now '%s') to %s in turn, %s, and "
		"puts it back after, also on Ctrl-C (-q: no notice)", prior, list, span);
}
