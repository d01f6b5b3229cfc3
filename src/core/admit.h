/* SPDX-License-Identifier: GPL-2.0-or-later */
/* admit.h - which connections 'thp serve' keeps open: every request's header
 * has a deadline, one address and all addresses have a limit, and room is
 * kept for requests whose header has arrived. What has to go is the oldest
 * connection still sending its header (or waiting to send one). */
#ifndef THP_ADMIT_H
#define THP_ADMIT_H

#include <stdint.h>
#include <sys/socket.h>

struct admit_limits {
	unsigned conns;     /* connections kept at once */
	unsigned waiting;   /* of them, waiting for their header (at most conns) */
	unsigned per_addr;  /* connections kept at once from one address */
	uint64_t header_ns; /* a header arrives within this long of the connection, or
			       of the previous answer on a connection kept alive */
};

struct admit;
struct admit_conn;

/* A table of connections under the limits L, or NULL (out of memory). */
struct admit *admit_new(const struct admit_limits *l);
/* Frees A; every connection must have been reported closed. */
void admit_free(struct admit *a);

/* The time the functions below take, in nanoseconds (CLOCK_MONOTONIC). */
uint64_t admit_now(void);

/* Admits the connection on socket FD from ADDR, which began at NOW, waiting
 * for its header. What the limits no longer allow is shut down
 * (shutdown(2): its server sees it closed and closes it): the oldest
 * connection from ADDR waiting for its header when ADDR has too many, the
 * oldest waiting one of all when too many wait or too many are open; that may
 * be this one. Returns its handle, or NULL (out of memory; it is shut down). */
struct admit_conn *admit_open(struct admit *a, int fd, const struct sockaddr *addr, uint64_t now);
/* C's request header has arrived: it no longer waits, nor can it be shut down
 * by the limits until it is answered. */
void admit_header(struct admit *a, struct admit_conn *c);
/* C's request was answered at NOW: it waits for its next header. */
void admit_answered(struct admit *a, struct admit_conn *c, uint64_t now);
/* C was closed (its socket not yet): forgets and frees it. */
void admit_closed(struct admit *a, struct admit_conn *c);

/* Shuts down the connections whose header is late at NOW. Returns the next
 * deadline, or 0 when no connection waits. */
uint64_t admit_expire(struct admit *a, uint64_t now);
/* Calls admit_expire at each deadline until admit_stop (a thread's body). */
void *admit_run(void *a);
void admit_stop(struct admit *a);

#endif
