/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pools.c - a resize of static huge page pools ('thp hugetlb set') as one
 * change: the pools' sizes journaled first, each write read back, and the
 * pools already written put back when one fails */
#include "change.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/parse.h"
#include "control.h"
#include "journal.h"

/* The signals that wait until every pool is written or put back: a live
 * write of nr_hugepages stops filling the pool when one is pending. */
static const int held[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes PAGES to the pool file REL below ROOT. Returns 0 or -errno. */
static int pool_write(const struct thp_root *root, const char *rel, uint64_t pages)
{
	char val[32];

	snprintf(val, sizeof(val), "%" PRIu64, pages);
	return thp_write_file(root, rel, val);
}

/* Reads the pages of the pool file REL below ROOT into *V. Returns 0 or -errno. */
static int pool_read(const struct thp_root *root, const char *rel, uint64_t *v)
{
	char buf[64];
	ssize_t n = thp_read_buf(root, rel, buf, sizeof(buf));

	return n < 0 ? (int)n : thp_parse_u64(buf, v);
}

/* Writes PAGES back to the pool file REL below ROOT; *NOW is what it holds
 * then. Returns whether that is PAGES: what counts is what the pool holds,
 * whatever the write returned. */
static bool pool_put_back(const struct thp_root *root, const char *rel, uint64_t pages, uint64_t *now)
{
	pool_write(root, rel, pages);
	return pool_read(root, rel, now) == 0 && *now == pages;
}

/* Writes the pools of J back to their sizes and reads each back. Returns
 * how many do not hold their size again (0: all are back). */
static int put_back(const struct thp_root *root, const struct thp_pools_journal *j)
{
	int stuck = 0;

	for (int i = 0; i < j->n; i++) {
		char rel[256];
		uint64_t now;

		thp_hugetlb_path(rel, sizeof(rel), j->v[i].size, j->v[i].node);
		stuck += !pool_put_back(root, rel, j->v[i].pages, &now);
	}
	return stuck;
}

/* Journals the pools of PC as they are before the first write (their
 * BEFORE sizes), with this process as owner. Returns 0 or -errno. */
static int journal_push(const struct thp_root *root, const struct thp_pools_change *pc)
{
	struct thp_pools_journal j = { .owner = getpid(), .n = pc->n };
	struct thp_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	thp_state_own_command(s);
	snprintf(j.command, sizeof(j.command), "%s", s->command);
	free(s);
	for (int i = 0; i < pc->n; i++)
		j.v[i] = (struct thp_pool_pages){ pc->v[i].size, pc->node, pc->v[i].before };
	return thp_pools_journal_push(root, &j);
}

/* Writes every pool of PC and reads each back; on a failure, puts the pools
 * already written, the failed one included, back. Returns 0 or the failed
 * write's -errno. */
static int apply(const struct thp_root *root, struct thp_pools_change *pc)
{
	for (int i = 0; i < pc->n; i++) {
		struct thp_pool_change *c = &pc->v[i];
		double t0 = now();

		c->err = pool_write(root, c->rel, c->want);
		c->secs = now() - t0;
		if (!c->err)
			c->err = pool_read(root, c->rel, &c->after);
		c->written = true;
		if (!c->err)
			continue;
		for (int j = i; j >= 0; j--)
			pc->v[j].stuck = !pool_put_back(root, pc->v[j].rel, pc->v[j].before, &pc->v[j].after);
		return c->err;
	}
	return 0;
}

/* The first of the held signals that is pending and not ignored (under
 * nohup, a hang-up is no reason to stop), taken off; 0 when none is. */
static int take_pending(void)
{
	struct sigaction sa;
	sigset_t p, one;

	if (sigpending(&p) != 0)
		return 0;
	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		if (sigismember(&p, held[i]) == 1 && sigaction(held[i], NULL, &sa) == 0 &&
		    sa.sa_handler != SIG_IGN) {
			sigemptyset(&one);
			sigaddset(&one, held[i]);
			return sigtimedwait(&one, NULL, &(struct timespec){ 0 }) > 0 ? held[i] : 0;
		}
	return 0;
}

int thp_pools_run(const struct thp_root *root, struct thp_pools_change *pc, struct thp_pools_run *r)
{
	sigset_t block, old;

	memset(r, 0, sizeof(*r));
	thp_root_shown(root, THP_POOLS_JOURNAL, r->journal, sizeof(r->journal));
	/* one pool's write takes or fails as a whole: a journal for several */
	r->journaled = pc->n > 1;
	if (r->journaled && (r->journal_err = journal_push(root, pc)) != 0)
		return 1;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		sigaddset(&block, held[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	r->err = apply(root, pc);
	for (int i = 0; i < pc->n; i++)
		r->stuck |= pc->v[i].stuck;
	/* the pools hold the old sizes or the new ones, unless one is stuck: the
	 * journal goes, or stays for the next 'hugetlb set' */
	if (r->journaled && !r->stuck)
		r->drop_err = thp_pools_journal_remove(root);
	r->signo = take_pending();
	sigprocmask(SIG_SETMASK, &old, NULL);
	return r->err || r->drop_err ? 1 : 0;
}

struct thp_pools_recovery *thp_recover_pools(const struct thp_root *root, bool dry)
{
	struct thp_pools_recovery *r = calloc(1, sizeof(*r));
	char *buf = NULL;

	if (!r)
		return NULL;
	thp_root_shown(root, THP_POOLS_JOURNAL, r->journal, sizeof(r->journal));
	r->err = thp_read(root, THP_POOLS_JOURNAL, &buf, NULL);
	if (r->err == -ENOENT || r->err == -ENOTDIR)
		r->what = THP_POOLS_NONE;
	else if (r->err)
		r->what = THP_POOLS_UNREADABLE;
	else if (thp_pools_journal_parse(buf, &r->j, &r->line) != 0)
		r->what = THP_POOLS_DAMAGED;
	else if (dry)
		r->what = THP_POOLS_UNFINISHED;
	else if ((r->n = put_back(root, &r->j)) != 0)
		r->what = THP_POOLS_STUCK;
	else if ((r->err = thp_pools_journal_remove(root)) != 0)
		r->what = THP_POOLS_KEPT;
	else
		r->what = THP_POOLS_PUT_BACK;
	free(buf);
	return r;
}

bool thp_pools_recovery_ok(const struct thp_pools_recovery *r)
{
	return r->what == THP_POOLS_NONE || r->what == THP_POOLS_UNFINISHED ||
	       r->what == THP_POOLS_PUT_BACK;
}
