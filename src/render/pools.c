/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pools.c - the words of a resize of static huge page pools ('thp hugetlb
 * set'): each pool before and after, why one fell short, what a failure
 * left, and the command that undoes it */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../control/change.h"
#include "../control/control.h"
#include "msg.h"
#include "pools.h"
#include "render.h"

/* One pool of a report: its change, what was seen of it, the report's form. */
struct pool_line {
	const struct thp_pool_change *x;
	const struct thp_pool_seen *s;
	const struct out_fmt *fmt;
};

static const char *sz(char *buf, size_t cap, uint64_t bytes, const struct out_fmt *fmt)
{
	return out_size(buf, cap, bytes, fmt->bytes);
}

static const char *cnt(char *buf, size_t cap, uint64_t n)
{
	return out_count(buf, cap, n);
}

/* "3 pages are in use and 1 more is reserved by a mapping that has not
 * faulted it in": the pages of a pool seen as S that the kernel will not
 * free. */
static const char *held(const struct thp_pool_seen *s, char *buf, size_t cap)
{
	char a[32], r[32];
	bool one = s->resv == 1;

	cnt(a, sizeof(a), s->in_use);
	cnt(r, sizeof(r), s->resv);
	if (!s->resv)
		snprintf(buf, cap, "%s page%s in use", a, s->in_use == 1 ? " is" : "s are");
	else if (!s->in_use)
		snprintf(buf, cap, "%s page%s reserved by %s that ha%s not faulted %s in", r,
			 one ? " is" : "s are", one ? "a mapping" : "mappings", one ? "s" : "ve", one ? "it" : "them");
	else
		snprintf(buf, cap, "%s page%s in use and %s more %s reserved by %s that ha%s not faulted %s in",
			 a, s->in_use == 1 ? " is" : "s are", r, one ? "is" : "are", one ? "a mapping" : "mappings",
			 one ? "s" : "ve", one ? "it" : "them");
	return buf;
}

/* "thp hugetlb set 2M=1030 1G=4 --node 1": the command that gives the pools
 * of PC their sizes before. */
static void undo_line(char *buf, size_t cap, const struct thp_pools_change *pc)
{
	size_t len = (size_t)snprintf(buf, cap, "thp hugetlb set");
	char s[32];

	for (int i = 0; i < pc->n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, " %s=%" PRIu64,
					out_size_spec(s, sizeof(s), pc->v[i].size), pc->v[i].before);
	if (pc->node >= 0 && len < cap)
		snprintf(buf + len, cap - len, " --node %d", pc->node);
}

/* Explains why the kernel gave pool L fewer pages than asked, on the host
 * H. */
static void explain_short(const struct thp_hugetlb *h, const struct pool_line *l)
{
	const struct thp_pool_change *c = l->x;
	const struct thp_pool_seen *s = l->s;
	char b[3][32];

	if (s->blocks_err == -ERANGE) {
		printf("  a %s page needs a physically contiguous range larger than the buddy allocator\n"
		       "  hands out; a running system rarely has one free: reserve them at boot with\n"
		       "  hugepagesz=%s hugepages=%" PRIu64 "\n",
		       sz(b[0], 32, c->size, l->fmt), out_size_spec(b[1], 32, c->size), c->want);
		return;
	}
	printf("  the kernel reclaims and compacts while it fills a pool: it found no more free\n"
	       "  %s ranges, so memory is fragmented or in use", sz(b[0], 32, c->size, l->fmt));
	if (!s->blocks_err)
		printf(" (before the write: %s free %s blocks in\n  /proc/buddyinfo",
		       cnt(b[1], 32, s->blocks), sz(b[2], 32, c->size, l->fmt));
	if (h->mem_available)
		printf("%s MemAvailable %s", s->blocks_err ? " (before the write:" : ",",
		       sz(b[1], 32, h->mem_available, l->fmt));
	if (!s->blocks_err || h->mem_available)
		putchar(')');
	printf("\n  to get more: stop memory users or run 'echo 1 > /proc/sys/vm/compact_memory' and\n"
	       "  retry, or reserve at boot with hugepagesz=%s hugepages=%" PRIu64 "\n",
	       out_size_spec(b[1], 32, c->size), c->want);
}

/* Pool L as JSON: the pool, its file, the sizes before, the pages in use
 * and reserved when validated (below which it cannot shrink; reserved null
 * for a node's pool, HOST false), asked and after, the error, the free
 * blocks before and the time the write took. */
static void change_json(const struct pool_line *l, bool host)
{
	const struct thp_pool_change *x = l->x;

	out_obj(NULL);
	out_put(OUT_JSON, "size", NULL, ov_size(x->size));
	out_put(OUT_JSON, "file", NULL, ov_str(x->rel));
	out_put(OUT_JSON, "before", NULL, ov_count(x->before));
	out_put(OUT_JSON, "in_use", NULL, ov_count(l->s->in_use));
	out_put(OUT_JSON, "reserved", NULL, ov_if(host, ov_count(l->s->resv)));
	out_put(OUT_JSON, "requested", NULL, ov_count(x->want));
	out_put(OUT_JSON, "after", NULL, ov_if(x->written && !x->err, ov_count(x->after)));
	out_put(OUT_JSON, "error", NULL, ov_str(x->err ? strerror(-x->err) : NULL));
	out_put(OUT_JSON, "free_blocks_before", NULL, ov_if(!l->s->blocks_err, ov_count(l->s->blocks)));
	out_put(OUT_JSON, "seconds", NULL, ov_if(x->written, ov_num(x->secs, -1)));
	out_end();
}

/* Pool L in words (in pools WHERE) on the host H, planned (DRY) or
 * written. */
static void change_text(const struct thp_hugetlb *h, const struct pool_line *l, const char *where, bool dry)
{
	const struct thp_pool_change *x = l->x;
	const struct out_fmt *f = l->fmt;
	char b[4][32], hb[160];

	if (dry) {
		out_text("%s pool%s: %s -> %s pages (%s), would write /%s\n", sz(b[0], 32, x->size, f), where,
			 cnt(b[1], 32, x->before), cnt(b[2], 32, x->want), sz(b[3], 32, x->want * x->size, f), x->rel);
		if (x->want < l->s->in_use + l->s->resv)
			out_text("  %s: the pool cannot shrink below %s pages now\n", held(l->s, hb, sizeof(hb)),
				 cnt(b[2], 32, l->s->in_use + l->s->resv));
		return;
	}
	if (!x->written || x->err)
		return; /* a pool after a failed one is left as it was; the failed one is an error */
	out_text("%s pool%s: %s -> %s pages (%s) in %.2f s", sz(b[0], 32, x->size, f), where, cnt(b[1], 32, x->before),
		 cnt(b[2], 32, x->after), sz(b[3], 32, x->after * x->size, f), x->secs);
	if (x->after < x->want) {
		out_text(", asked %s: %s short\n", cnt(b[1], 32, x->want), cnt(b[2], 32, x->want - x->after));
		explain_short(h, l);
	} else if (x->after > x->want) {
		out_text(", asked %s: %s pages stay as surplus pages (%s before the write);\n"
			 "  they return to the kernel when their users unmap them\n",
			 cnt(b[1], 32, x->want), cnt(b[2], 32, x->after - x->want), held(l->s, hb, sizeof(hb)));
	} else {
		out_text("\n");
	}
}

/* Says on stderr what became of the pools' journal of R. */
static void journal_end(const struct thp_pools_run *r)
{
	if (r->journaled && r->stuck)
		thp_err("the journal '%s' stays: the next 'thp hugetlb set' puts the pools back first", r->journal);
	else if (r->drop_err)
		thp_err("cannot remove the journal '%s': %s; the next 'thp hugetlb set' would put "
			"back the pools it holds: remove it to keep this change", r->journal,
			thp_file_strerror(r->drop_err));
}

int thp_pools_report(const struct out_fmt *fmt, const struct thp_hugetlb *h, const struct thp_pools_change *pc,
		     const struct thp_pool_seen *seen, const struct thp_pools_run *r)
{
	char where[32] = "", undo[256];
	int rc;

	if (r && r->journal_err) {
		thp_err("cannot write the journal '%s': %s; nothing was changed", r->journal,
			thp_file_strerror(r->journal_err));
		return 1;
	}
	if (r)
		journal_end(r);
	if (pc->node >= 0)
		snprintf(where, sizeof(where), " on node %d", pc->node);
	undo_line(undo, sizeof(undo), pc);
	out_doc_begin(fmt->json, fmt->bytes, "thp-hugetlb-set/2");
	out_put(OUT_JSON, "dry_run", NULL, ov_bool(!r));
	out_put(OUT_JSON, "node", NULL, ov_if(pc->node >= 0, ov_int(pc->node)));
	out_arr("changes");
	for (int i = 0; i < pc->n; i++) {
		const struct pool_line l = { &pc->v[i], &seen[i], fmt };

		change_json(&l, pc->node < 0);
		if (l.x->written && l.x->err) /* in JSON too, beside the document's error */
			thp_err("cannot write '/%s': %s", l.x->rel, strerror(-l.x->err));
		else if (!out_json_on())
			change_text(h, &l, where, !r);
	}
	out_end();
	out_put(OUT_JSON, "undo", NULL, ov_str(undo));
	if (r && r->stuck)
		thp_err("some pools could not be put back after the failure; to put "
			"them back: %s", undo);
	else if (r && r->err && out_json_on())
		thp_err("nothing changed: every pool written before the failure was put back");
	else if (r && r->err)
		out_text("nothing changed: every pool written before the failure was put back\n");
	else if (r)
		out_text("undo: %s\n", undo);
	rc = out_doc_end() ? 1 : 0;
	for (int i = 0; r && i < pc->n; i++)
		if (pc->v[i].after != pc->v[i].want)
			rc = 1;
	if (r && (r->err || r->drop_err))
		rc = 1;
	return r && r->signo ? thp_die_by(r->signo) : rc;
}
