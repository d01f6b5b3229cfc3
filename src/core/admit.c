/* SPDX-License-Identifier: GPL-2.0-or-later */
/* admit.c - which connections 'thp serve' keeps open (see admit.h). One lock
 * guards the table: the server's threads report their connections, a thread
 * of its own (admit_run) shuts down those past their header deadline. */
#include <netinet/in.h>
#include <pthread.h>
#include <search.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admit.h"

/* a link of a circular list with a head of its own */
struct link {
	struct link *prev, *next;
};

static void link_init(struct link *h) { h->prev = h->next = h; }
static void link_tail(struct link *h, struct link *l)
{
	l->prev = h->prev;
	l->next = h;
	h->prev->next = l;
	h->prev = l;
}
static void link_del(struct link *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
}

/* A client address and its connections. */
struct peer {
	unsigned char key[17]; /* the address's length, then the address */
	unsigned open;         /* connections kept */
	unsigned refs;         /* connections not yet closed, kept or shut down */
	struct link waiting;   /* its connections waiting for a header, oldest first */
};

enum conn_state { WAITING, HEADER, SHUT };

struct admit_conn {
	int fd;
	enum conn_state state;
	uint64_t since; /* when it began to wait for its header */
	struct peer *peer;
	struct link all, mine; /* in the table's and its peer's lists of waiting ones */
};

struct admit {
	struct admit_limits lim;
	unsigned open, waiting; /* connections kept, and of them waiting */
	struct link queue;      /* every waiting connection, oldest first */
	void *peers;            /* tsearch tree of struct peer */
	pthread_mutex_t lock;
	pthread_cond_t wake; /* the queue was empty, or stop */
	bool stop;
};

#define CONN_OF(l, member) ((struct admit_conn *)((char *)(l) - offsetof(struct admit_conn, member)))

uint64_t admit_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

struct admit *admit_new(const struct admit_limits *l)
{
	struct admit *a = calloc(1, sizeof(*a));
	pthread_condattr_t ca;

	if (!a)
		return NULL;
	a->lim = *l;
	link_init(&a->queue);
	pthread_mutex_init(&a->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&a->wake, &ca);
	pthread_condattr_destroy(&ca);
	return a;
}

void admit_free(struct admit *a)
{
	if (!a)
		return;
	tdestroy(a->peers, free);
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

static int peer_cmp(const void *x, const void *y)
{
	return memcmp(((const struct peer *)x)->key, ((const struct peer *)y)->key,
		      sizeof(((const struct peer *)x)->key));
}

/* The key of ADDR into P: an IPv4 address mapped into IPv6 is the IPv4 one. */
static void peer_key(struct peer *p, const struct sockaddr *addr)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)addr;

	memset(p->key, 0, sizeof(p->key));
	if (addr->sa_family == AF_INET) {
		p->key[0] = 4;
		memcpy(p->key + 1, &((const struct sockaddr_in *)addr)->sin_addr, 4);
	} else if (addr->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		p->key[0] = 4;
		memcpy(p->key + 1, s6->sin6_addr.s6_addr + 12, 4);
	} else if (addr->sa_family == AF_INET6) {
		p->key[0] = 16;
		memcpy(p->key + 1, &s6->sin6_addr, 16);
	}
}

/* The peer of ADDR, added to A when new, or NULL (out of memory). */
static struct peer *peer_get(struct admit *a, const struct sockaddr *addr)
{
	struct peer *p = calloc(1, sizeof(*p)), **found;

	if (!p)
		return NULL;
	peer_key(p, addr);
	found = tsearch(p, &a->peers, peer_cmp);
	if (!found || *found != p) {
		free(p);
		return found ? *found : NULL;
	}
	link_init(&p->waiting);
	return p;
}

static void peer_put(struct admit *a, struct peer *p)
{
	if (--p->refs)
		return;
	tdelete(p, &a->peers, peer_cmp);
	free(p);
}

static void wait_begin(struct admit *a, struct admit_conn *c, uint64_t now)
{
	if (a->queue.next == &a->queue)
		pthread_cond_signal(&a->wake); /* a deadline to watch again */
	c->state = WAITING;
	c->since = now;
	link_tail(&a->queue, &c->all);
	link_tail(&c->peer->waiting, &c->mine);
	a->waiting++;
}

static void wait_end(struct admit *a, struct admit_conn *c)
{
	link_del(&c->all);
	link_del(&c->mine);
	a->waiting--;
}

/* Shuts C down; it stays in A until reported closed. */
static void shut(struct admit *a, struct admit_conn *c)
{
	shutdown(c->fd, SHUT_RDWR);
	wait_end(a, c);
	c->state = SHUT;
	c->peer->open--;
	a->open--;
}

/* Shuts down what the limits no longer allow, after a connection from P
 * (NULL: none) came or one began to wait. */
static void enforce(struct admit *a, struct peer *p)
{
	if (p && p->open > a->lim.per_addr && p->waiting.next != &p->waiting)
		shut(a, CONN_OF(p->waiting.next, mine));
	while ((a->waiting > a->lim.waiting || a->open > a->lim.conns) && a->queue.next != &a->queue)
		shut(a, CONN_OF(a->queue.next, all));
}

struct admit_conn *admit_open(struct admit *a, int fd, const struct sockaddr *addr, uint64_t now)
{
	struct admit_conn *c = calloc(1, sizeof(*c));

	pthread_mutex_lock(&a->lock);
	if (c)
		c->peer = peer_get(a, addr);
	if (!c || !c->peer) {
		pthread_mutex_unlock(&a->lock);
		free(c);
		shutdown(fd, SHUT_RDWR);
		return NULL;
	}
	c->fd = fd;
	c->peer->refs++;
	c->peer->open++;
	a->open++;
	wait_begin(a, c, now);
	enforce(a, c->peer);
	pthread_mutex_unlock(&a->lock);
	return c;
}

void admit_header(struct admit *a, struct admit_conn *c)
{
	pthread_mutex_lock(&a->lock);
	if (c->state == WAITING) {
		wait_end(a, c);
		c->state = HEADER;
	}
	pthread_mutex_unlock(&a->lock);
}

void admit_answered(struct admit *a, struct admit_conn *c, uint64_t now)
{
	pthread_mutex_lock(&a->lock);
	if (c->state == HEADER) {
		wait_begin(a, c, now);
		enforce(a, NULL);
	}
	pthread_mutex_unlock(&a->lock);
}

void admit_closed(struct admit *a, struct admit_conn *c)
{
	pthread_mutex_lock(&a->lock);
	if (c->state == WAITING)
		wait_end(a, c);
	if (c->state != SHUT) {
		c->peer->open--;
		a->open--;
	}
	peer_put(a, c->peer);
	pthread_mutex_unlock(&a->lock);
	free(c);
}

static uint64_t expire_locked(struct admit *a, uint64_t now)
{
	while (a->queue.next != &a->queue) {
		struct admit_conn *c = CONN_OF(a->queue.next, all);

		if (c->since + a->lim.header_ns > now)
			return c->since + a->lim.header_ns;
		shut(a, c);
	}
	return 0;
}

uint64_t admit_expire(struct admit *a, uint64_t now)
{
	uint64_t next;

	pthread_mutex_lock(&a->lock);
	next = expire_locked(a, now);
	pthread_mutex_unlock(&a->lock);
	return next;
}

void *admit_run(void *arg)
{
	struct admit *a = arg;

	pthread_mutex_lock(&a->lock);
	while (!a->stop) {
		uint64_t next = expire_locked(a, admit_now());
		struct timespec t = { (time_t)(next / 1000000000u), (long)(next % 1000000000u) };

		if (next)
			pthread_cond_timedwait(&a->wake, &a->lock, &t);
		else
			pthread_cond_wait(&a->wake, &a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

void admit_stop(struct admit *a)
{
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
}
