/* SPDX-License-Identifier: GPL-2.0-or-later */
/* serve.c - `thp serve`: `thp metrics` over HTTP (libmicrohttpd) for Prometheus */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include "../core/admit.h"
#include "../core/arg.h"
#include "../render/prom.h"
#include "cmd.h"
#include "opt.h"

#define DEFAULT_LISTEN "127.0.0.1:9567"
#define REQUEST_MEMORY (16u << 10) /* request line and headers; more is answered 431/414 */
#define THREADS 4 /* scrapes answered at once; each thread also polls its share of connections */
#define STR_(x) #x
#define STR(x) STR_(x)
#define TIMEOUT_DEFAULT 10 /* seconds a connection may stay idle */
#define TIMEOUT_MAX 3600
#define HEADER_DEFAULT 5 /* seconds a request's line and headers may take in all */
#define CONNS_DEFAULT 256 /* connections open at once, from everywhere */
#define CONNS_MAX 65536
#define PER_IP_DEFAULT 16 /* connections open at once from one address */
/* Connections shut down by the limits (admit.c) are closed by the server's
 * threads a moment later; until then they count against libmicrohttpd's own
 * limit, which is therefore this many times --max-connections. */
#define CLOSING_ROOM 2
#define FDS_OTHER 64 /* descriptors besides the connections: listener, epoll, files read */

/* libmicrohttpd is opened when 'thp serve' starts instead of being linked into
 * thp: through GnuTLS it would add about 1.3 ms to the start of every command. */
#ifndef THP_MHD_SONAME
#define THP_MHD_SONAME "libmicrohttpd.so.12"
#endif
#define MHD_FUNCS(X)                                                                    \
	X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_get_daemon_info)                   \
	X(MHD_create_response_from_buffer) X(MHD_add_response_header)                  \
	X(MHD_queue_response) X(MHD_destroy_response) X(MHD_get_connection_info)
#define MHD_PTR(f) static __typeof__(f) *p_##f;
MHD_FUNCS(MHD_PTR)

/* Opens libmicrohttpd and finds its functions. Returns NULL, or why it failed. */
static const char *load_mhd(void)
{
	void *h = dlopen(THP_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return dlerror();
#define MHD_SYM(f)                                          \
	p_##f = (__typeof__(p_##f))dlsym(h, #f);            \
	if (!p_##f)                                         \
		return dlerror();
	MHD_FUNCS(MHD_SYM)
	return NULL;
}

struct server {
	const struct thp_root *root;
	struct thp_metrics_opts opts;
	struct admit *admit; /* which connections stay open */
	_Atomic uint64_t last_ns; /* how long the last scrape took; 0 before the first */
};

/* Per-request state, kept between the calls MHD makes for one request. */
struct request {
	bool body; /* the client sent a body, which no endpoint accepts */
};

static const char index_page[] =
	"<!DOCTYPE html>\n<html><head><title>thp exporter</title></head><body>\n"
	"<h1>thp exporter</h1>\n"
	"<p>Transparent Huge Pages state of this host for Prometheus.</p>\n"
	"<p><a href=\"/metrics\">Metrics</a></p>\n</body></html>\n";

static const struct thp_opt opts[] = {
	THP_OPT('l', "listen", "ADDR:PORT", "address to listen on (default " DEFAULT_LISTEN ");\n"
					    "[IPV6]:PORT for IPv6, :PORT for every IPv4 address"),
	THP_OPTS_METRICS,
	THP_OPT_LONG('T', "timeout", "SECONDS", "close a connection idle this long (default " STR(TIMEOUT_DEFAULT) ")"),
	THP_OPT_LONG('H', "header-timeout", "SECONDS",
		     "close a connection whose request line and headers take\n"
		     "longer in all, from its start or from the previous\n"
		     "answer (default " STR(HEADER_DEFAULT) ")"),
	THP_OPT_LONG('C', "max-connections", "N",
		     "connections open at once (default " STR(CONNS_DEFAULT) "); at most three\n"
		     "quarters of them still sending a header: one more\n"
		     "closes the oldest of those"),
	THP_OPT_LONG('P', "max-per-ip", "N", "connections open at once from one address (default\n"
					     STR(PER_IP_DEFAULT) "); one more closes that address's oldest one\n"
					     "still sending a header"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] serve [options]\n"
		 "\n"
		 "Serve 'thp metrics' over HTTP: /metrics in the Prometheus text format, and /\n"
		 "with a link to it. Each scrape reads the host afresh. Stop it with Ctrl-C or\n"
		 "SIGTERM.",
	.width = 24,
	.opts = opts,
	.in_order = true,
};

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *type,
			     void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = p_MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result rc;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	p_MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		p_MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	rc = p_MHD_queue_response(conn, status, r);
	p_MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned status, const char *msg)
{
	return reply(conn, status, "text/plain; charset=utf-8", (void *)msg, strlen(msg),
		     MHD_RESPMEM_PERSISTENT);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Ends a scrape's metrics with the cost of the one before it, which its
 * operators cannot see otherwise. */
static void put_last_scrape(FILE *f, uint64_t ns)
{
	if (!ns)
		return;
	out_prom_family(f, "thp_scrape_duration_seconds", "gauge",
			"Seconds the previous scrape of this 'thp serve' took to read the host and write "
			"its metrics");
	out_prom_num(f, "thp_scrape_duration_seconds", (double)ns / 1e9, OUT_PROM_END);
}

static enum MHD_Result serve_metrics(struct server *s, struct MHD_Connection *conn)
{
	uint64_t t0 = now_ns();
	struct thp_metrics m;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	err = thp_metrics_read(s->root, &s->opts, &m);
	if (!err)
		out_prom_host(f, &m);
	if (!err && m.procs_err)
		thp_procs_unlisted(s->root, m.procs_err, "the per-process metrics are left out of this scrape");
	thp_metrics_free(&m);
	put_last_scrape(f, atomic_load(&s->last_ns));
	if (fclose(f) || err) {
		free(buf);
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the host\n");
	}
	atomic_store(&s->last_ns, now_ns() - t0);
	return reply(conn, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", buf, len,
		     MHD_RESPMEM_MUST_FREE);
}

/* The admission handle of CONN (set by conn_event), or NULL. */
static struct admit_conn *conn_admitted(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *i = p_MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	const struct server *s = cls;
	struct request *rq = *state;
	bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
		   strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;

	(void)version;
	(void)upload;
	if (!rq) { /* headers are in; the body, if any, comes in the next calls */
		struct admit_conn *c = conn_admitted(conn);

		if (c)
			admit_header(s->admit, c);
		rq = calloc(1, sizeof(*rq));
		if (!rq)
			return MHD_NO;
		*state = rq;
		if (!get)
			return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
		return MHD_YES;
	}
	if (*upload_size) {
		rq->body = true;
		*upload_size = 0;
		return MHD_YES;
	}
	if (rq->body)
		return reply_text(conn, MHD_HTTP_BAD_REQUEST, "a request body is not accepted\n");
	if (strcmp(url, "/metrics") == 0)
		return serve_metrics(cls, conn);
	if (strcmp(url, "/") == 0)
		return reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)index_page,
			     sizeof(index_page) - 1, MHD_RESPMEM_PERSISTENT);
	return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found; the metrics are at /metrics\n");
}

/* A request ended: its connection, if still open, waits for the next header. */
static void request_done(void *cls, struct MHD_Connection *conn, void **state,
			 enum MHD_RequestTerminationCode code)
{
	const struct server *s = cls;
	struct admit_conn *c = conn_admitted(conn);

	(void)code;
	if (c)
		admit_answered(s->admit, c, admit_now());
	free(*state);
	*state = NULL;
}

/* A connection was accepted or closed: it enters or leaves the admission
 * table, which may shut down others (or itself) for the limits. */
static void conn_event(void *cls, struct MHD_Connection *conn, void **ctx,
		       enum MHD_ConnectionNotificationCode code)
{
	const struct server *s = cls;
	const union MHD_ConnectionInfo *fd, *addr;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (*ctx)
			admit_closed(s->admit, *ctx);
		*ctx = NULL;
		return;
	}
	fd = p_MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = p_MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (fd && addr)
		*ctx = admit_open(s->admit, fd->connect_fd, addr->client_addr, admit_now());
}

/* Resolves "ADDR:PORT", "[IPV6]:PORT" or ":PORT" (a decimal port, 0 for any)
 * into AI. Returns 0, or a getaddrinfo error (EAI_*): EAI_NONAME for a bad
 * form, EAI_SERVICE for a bad port. */
static int parse_listen(const char *spec, struct addrinfo **ai)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	const char *colon = strrchr(spec, ':');
	char host[256];
	size_t n;
	uint64_t port;

	if (!colon || !colon[1])
		return EAI_NONAME;
	if (thp_arg_u64(colon + 1, 0, 65535, &port))
		return EAI_SERVICE;
	n = (size_t)(colon - spec);
	if (n && spec[0] == '[') {
		if (n < 3 || spec[n - 1] != ']')
			return EAI_NONAME;
		spec++;
		n -= 2;
		hints.ai_family = AF_INET6;
	} else if (memchr(spec, ':', n)) {
		return EAI_NONAME; /* a bare IPv6 address needs brackets */
	} else if (!n) {
		hints.ai_family = AF_INET;
	}
	if (n >= sizeof(host))
		return EAI_NONAME;
	memcpy(host, spec, n);
	host[n] = '\0';
	return getaddrinfo(n ? host : NULL, colon + 1, &hints, ai);
}

/* What the command line asks for, beyond the metrics options. */
struct serve_opts {
	const char *listen;
	int timeout, header, conns, per_ip;
};

/* Parses the options into O and S->opts. Returns -1 to go on, or the exit status. */
static int parse_opts(struct thp_ctx *ctx, int argc, char **argv, struct serve_opts *o, struct server *s)
{
	int c;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'l': o->listen = optarg; break;
		case 'T': if (!thp_opt_int("--timeout", optarg, 1, TIMEOUT_MAX, &o->timeout)) goto usage; break;
		case 'H': if (!thp_opt_int("--header-timeout", optarg, 1, TIMEOUT_MAX, &o->header)) goto usage; break;
		case 'C': if (!thp_opt_int("--max-connections", optarg, 1, CONNS_MAX, &o->conns)) goto usage; break;
		case 'P': if (!thp_opt_int("--max-per-ip", optarg, 1, CONNS_MAX, &o->per_ip)) goto usage; break;
		default:
			if (c < 0 || thp_metrics_opt(c, optarg, &s->opts))
				return thp_opt_exit(ctx, c);
		}
	}
	if (optind == argc)
		return -1;
	thp_err("unexpected argument '%s'", argv[optind]);
usage:
	return thp_usage_error("serve");
}

/* Makes room for the descriptors of N connections and of those closing
 * (CLOSING_ROOM): raises the soft RLIMIT_NOFILE towards the hard one when it
 * is lower. Returns libmicrohttpd's connection limit, or 0 after saying that
 * not even N fit. */
static unsigned fd_room(unsigned n)
{
	rlim_t want = (rlim_t)n * CLOSING_ROOM + FDS_OTHER;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return n * CLOSING_ROOM;
	if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
		struct rlimit up = { rl.rlim_max < want ? rl.rlim_max : want, rl.rlim_max };

		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			rl = up;
	}
	if (rl.rlim_cur >= want)
		return n * CLOSING_ROOM;
	if (rl.rlim_cur > (rlim_t)n + FDS_OTHER)
		return (unsigned)(rl.rlim_cur - FDS_OTHER);
	thp_err("--max-connections %u needs %llu open files; the limit is %llu "
		"(ulimit -n, or LimitNOFILE= for a systemd unit)",
		n, (unsigned long long)n + FDS_OTHER + 1, (unsigned long long)rl.rlim_cur);
	return 0;
}

/* Starts the server threads for S on address AI with the idle timeout of O and
 * at most LIMIT connections, or returns NULL with errno set. Slow clients cost
 * a connection slot each and no thread: every thread polls its connections
 * with epoll, so a scrape is answered while hundreds of connections trickle
 * their headers; S->admit closes those the limits of O no longer allow. Each
 * thread gets an equal share of LIMIT, so there are no more threads than
 * connections (with more, libmicrohttpd 0.9.75 hangs when it is stopped). */
static struct MHD_Daemon *start(struct server *s, const struct serve_opts *o, unsigned limit,
				const struct addrinfo *ai)
{
	unsigned threads = o->conns < THREADS ? (unsigned)o->conns : THREADS;

	return p_MHD_start_daemon(
		MHD_USE_EPOLL_INTERNAL_THREAD | (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0,
		NULL, NULL, handle, s,
		MHD_OPTION_SOCK_ADDR, ai->ai_addr,
		MHD_OPTION_THREAD_POOL_SIZE, threads,
		MHD_OPTION_CONNECTION_LIMIT, limit,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_MEMORY,
		MHD_OPTION_NOTIFY_COMPLETED, request_done, s,
		MHD_OPTION_NOTIFY_CONNECTION, conn_event, s,
		MHD_OPTION_END);
}

/* Serves S on AI as O asks until SIGINT, SIGTERM or SIGHUP (blocked in STOP).
 * Returns the exit status. */
static int serve(struct server *s, const struct serve_opts *o, const struct addrinfo *ai,
		 const sigset_t *stop)
{
	struct admit_limits lim = { (unsigned)o->conns, (unsigned)(o->conns - o->conns / 4),
				    (unsigned)o->per_ip, (uint64_t)o->header * 1000000000u };
	unsigned limit = fd_room(lim.conns);
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d = NULL;
	pthread_t sweeper;
	int sig;

	if (!limit)
		return 1;
	s->admit = admit_new(&lim);
	if (!s->admit || pthread_create(&sweeper, NULL, admit_run, s->admit)) {
		thp_err("%s", strerror(s->admit ? EAGAIN : ENOMEM));
		admit_free(s->admit);
		return 1;
	}
	d = start(s, o, limit, ai);
	if (!d) {
		thp_err("cannot listen on '%s': %s", o->listen, strerror(errno ? errno : EADDRINUSE));
	} else {
		info = p_MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
		int hlen = (int)(strrchr(o->listen, ':') - o->listen);
		fprintf(stderr, "thp: serving http://%.*s:%u/metrics\n", hlen ? hlen : 7,
			hlen ? o->listen : "0.0.0.0", info ? (unsigned)info->port : 0u);
		while (sigwait(stop, &sig) == 0 && sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
			;
		p_MHD_stop_daemon(d);
	}
	admit_stop(s->admit);
	pthread_join(sweeper, NULL);
	admit_free(s->admit);
	return d ? 0 : 1;
}

int cmd_serve(struct thp_ctx *ctx, int argc, char **argv)
{
	struct server srv = { &ctx->root, THP_METRICS_OPTS_INIT, NULL, 0 };
	struct serve_opts o = { DEFAULT_LISTEN, TIMEOUT_DEFAULT, HEADER_DEFAULT, CONNS_DEFAULT, PER_IP_DEFAULT };
	struct addrinfo *ai = NULL;
	sigset_t stop;
	int err = parse_opts(ctx, argc, argv, &o, &srv);

	if (err >= 0)
		return err;
	err = parse_listen(o.listen, &ai);
	if (err) {
		thp_err("invalid listen address '%s' (%s; use ADDR:PORT)", o.listen,
			err == EAI_NONAME    ? "no such address"
			: err == EAI_SERVICE ? "the port is a decimal number from 0 to 65535"
					     : gai_strerror(err));
		return 2;
	}
	/* after every usage error, which a host without the library reports too */
	const char *why = load_mhd();
	if (why) {
		thp_err("cannot load libmicrohttpd (%s): %s", THP_MHD_SONAME, why);
		freeaddrinfo(ai);
		return 1;
	}
	/* the server threads inherit this mask, so the signals reach sigwait */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	err = serve(&srv, &o, ai, &stop);
	freeaddrinfo(ai);
	return err;
}
