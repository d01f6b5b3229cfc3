/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of which connections 'thp serve' keeps (cmocka): connections are
 * socket pairs, and a connection shut down is one whose other end reads EOF. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/admit.h"

#define MAXC 16
struct pair {
	int fd[2];
	struct admit_conn *c;
};
static struct pair conns[MAXC];

/* Opens connection I in A from 127.0.0.HOST at NOW. */
static void open_from(struct admit *a, int i, int host, uint64_t now)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_addr.s_addr = htonl(0x7f000000u | (unsigned)host);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, conns[i].fd), 0);
	conns[i].c = admit_open(a, conns[i].fd[0], (struct sockaddr *)&sin, now);
	assert_non_null(conns[i].c);
}

/* True when connection I was shut down by A. */
static bool is_shut(int i)
{
	char b;

	return recv(conns[i].fd[1], &b, 1, MSG_DONTWAIT) == 0;
}

/* Reports connection I closed, as the server does, and closes its sockets. */
static void close_conn(struct admit *a, int i)
{
	admit_closed(a, conns[i].c);
	close(conns[i].fd[0]);
	close(conns[i].fd[1]);
}

static void close_all(struct admit *a, int n)
{
	for (int i = 0; i < n; i++)
		close_conn(a, i);
	admit_free(a);
}

static const struct admit_limits lim = { .conns = 8, .waiting = 6, .per_addr = 3, .header_ns = 100 };

/* A table holding connections 0 to 2, all from 127.0.0.1 at time 0: as many
 * as one address may have. */
static struct admit *one_address_full(void)
{
	struct admit *a = admit_new(&lim);

	for (int i = 0; i < 3; i++)
		open_from(a, i, 1, 0);
	return a;
}

/* a fourth connection from one address shuts the oldest of its waiting ones */
static void per_address(void **state)
{
	struct admit *a = one_address_full();

	(void)state;
	open_from(a, 3, 2, 0);
	assert_false(is_shut(0));
	open_from(a, 4, 1, 1);
	assert_true(is_shut(0));
	assert_false(is_shut(1) || is_shut(2) || is_shut(3) || is_shut(4));
	close_all(a, 5);
}

/* a connection whose header arrived is not shut for the limits; when no other
 * waits, the new one goes */
static void header_kept(void **state)
{
	struct admit *a = one_address_full();

	(void)state;
	admit_header(a, conns[0].c);
	open_from(a, 3, 1, 1);
	assert_false(is_shut(0));
	assert_true(is_shut(1));
	admit_header(a, conns[2].c);
	admit_header(a, conns[3].c);
	open_from(a, 4, 1, 2);
	assert_true(is_shut(4));
	assert_false(is_shut(0) || is_shut(2) || is_shut(3));
	close_all(a, 5);
}

/* at most lim.waiting wait in all: one more shuts the oldest waiting, from
 * any address; at most lim.conns are open */
static void all_addresses(void **state)
{
	struct admit *a = admit_new(&lim);

	(void)state;
	for (int i = 0; i < 6; i++)
		open_from(a, i, 10 + i, (uint64_t)i);
	admit_header(a, conns[0].c);
	open_from(a, 6, 20, 6);
	assert_false(is_shut(0) || is_shut(1));
	open_from(a, 7, 21, 7); /* the 7th waiting */
	assert_false(is_shut(0));
	assert_true(is_shut(1));
	admit_header(a, conns[2].c);
	admit_header(a, conns[3].c);
	open_from(a, 8, 22, 8);
	assert_false(is_shut(4));
	open_from(a, 9, 23, 9); /* 3 with a header and 6 waiting: one open too many */
	assert_true(is_shut(4));
	assert_false(is_shut(0) || is_shut(2) || is_shut(3) || is_shut(5) || is_shut(9));
	close_all(a, 10);
}

/* a header late by lim.header_ns from the connection's start, or from the
 * previous answer, is shut; the next deadline is returned */
static void deadline(void **state)
{
	struct admit *a = admit_new(&lim);

	(void)state;
	open_from(a, 0, 1, 0);
	open_from(a, 1, 2, 50);
	open_from(a, 2, 3, 60);
	admit_header(a, conns[2].c);
	assert_int_equal(admit_expire(a, 99), 100);
	assert_false(is_shut(0));
	assert_int_equal(admit_expire(a, 100), 150);
	assert_true(is_shut(0));
	assert_false(is_shut(1));
	admit_answered(a, conns[2].c, 120); /* kept alive: its next header by 220 */
	assert_int_equal(admit_expire(a, 219), 220);
	assert_true(is_shut(1));
	assert_false(is_shut(2));
	assert_int_equal(admit_expire(a, 220), 0);
	assert_true(is_shut(2));
	close_all(a, 3);
}

/* a connection closed by its client leaves room; an address whose
 * connections all closed counts from zero */
static void closed_frees(void **state)
{
	struct admit *a = one_address_full();

	(void)state;
	close_conn(a, 1);
	open_from(a, 1, 1, 1);
	assert_false(is_shut(0) || is_shut(2) || is_shut(1));
	close_conn(a, 0);
	close_conn(a, 1);
	close_conn(a, 2);
	for (int i = 0; i < 3; i++)
		open_from(a, i, 1, 2);
	assert_false(is_shut(0) || is_shut(1) || is_shut(2));
	assert_int_equal(admit_expire(a, 2), 102);
	close_all(a, 3);
}

/* an IPv4 address mapped into IPv6 is the same address */
static void mapped_v4(void **state)
{
	struct admit *a = one_address_full();
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

	(void)state;
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &s6.sin6_addr);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, conns[3].fd), 0);
	conns[3].c = admit_open(a, conns[3].fd[0], (struct sockaddr *)&s6, 1);
	assert_true(is_shut(0));
	close_all(a, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(per_address), cmocka_unit_test(header_kept),
		cmocka_unit_test(all_addresses), cmocka_unit_test(deadline),
		cmocka_unit_test(closed_frees), cmocka_unit_test(mapped_v4),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
