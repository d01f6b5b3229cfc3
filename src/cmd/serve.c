/* SPDX-License-Identifier: GPL-2.0-or-later */
/* serve.c - `thp serve`: `thp metrics` over HTTP (libmicrohttpd) for Prometheus */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <microhttpd.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../core/arg.h"
#include "cmd.h"

#define DEFAULT_LISTEN "127.0.0.1:9567"
#define REQUEST_MEMORY (16u << 10) /* request line and headers; more is answered 431/414 */
#define THREADS 4
#define CONN_LIMIT 64
#define CONN_TIMEOUT 10 /* seconds a connection may stay idle */

/* libmicrohttpd is opened when 'thp serve' starts instead of being linked into
 * thp: through GnuTLS it would add about 1.3 ms to the start of every command. */
#ifndef THP_MHD_SONAME
#define THP_MHD_SONAME "libmicrohttpd.so.12"
#endif
#define MHD_FUNCS(X)                                                                    \
	X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_get_daemon_info)                   \
	X(MHD_create_response_from_buffer) X(MHD_add_response_header)                  \
	X(MHD_queue_response) X(MHD_destroy_response)
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

static void usage(void)
{
	printf("Usage: thp [--root DIR] serve [options]\n"
	       "\n"
	       "Serve 'thp metrics' over HTTP: /metrics in the Prometheus text format, and / with\n"
	       "a link to it. Each scrape reads the host afresh. Stop it with Ctrl-C or SIGTERM.\n"
	       "\n"
	       "Options:\n"
	       "  -l, --listen ADDR:PORT\n"
	       "                        address to listen on (default " DEFAULT_LISTEN ");\n"
	       "                        [IPV6]:PORT for IPv6, :PORT for every IPv4 address\n"
	       "%s"
	       "  -h, --help            show this help\n", thp_metrics_opts_help);
}

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

static enum MHD_Result serve_metrics(const struct server *s, struct MHD_Connection *conn)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	err = thp_metrics_write(s->root, &s->opts, f);
	if (fclose(f) || err) {
		free(buf);
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the host\n");
	}
	return reply(conn, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", buf, len,
		     MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct request *rq = *state;
	bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
		   strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;

	(void)version;
	(void)upload;
	if (!rq) { /* headers are in; the body, if any, comes in the next calls */
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

static void request_done(void *cls, struct MHD_Connection *conn, void **state,
			 enum MHD_RequestTerminationCode code)
{
	(void)cls;
	(void)conn;
	(void)code;
	free(*state);
	*state = NULL;
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

int cmd_serve(struct thp_ctx *ctx, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "listen", required_argument, NULL, 'l' },
		THP_METRICS_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct server srv = { &ctx->root, THP_METRICS_OPTS_INIT };
	const char *listen = DEFAULT_LISTEN;
	struct addrinfo *ai = NULL;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	sigset_t stop;
	int c, sig, err;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+l:" THP_METRICS_SHORTOPTS "h", lo, NULL)) != -1) {
		switch (c) {
		case 'l': listen = optarg; break;
		case 'h': usage(); return 0;
		default:
			if (thp_metrics_opt(c, optarg, &srv.opts, "serve"))
				return thp_usage_error("serve");
		}
	}
	if (optind < argc) {
		thp_err("serve: unexpected argument '%s'", argv[optind]);
		return thp_usage_error("serve");
	}
	const char *why = load_mhd();
	if (why) {
		thp_err("serve: cannot load libmicrohttpd (%s): %s", THP_MHD_SONAME, why);
		return 1;
	}
	err = parse_listen(listen, &ai);
	if (err) {
		thp_err("serve: invalid listen address '%s' (%s; use ADDR:PORT)", listen,
			err == EAI_NONAME    ? "no such address"
			: err == EAI_SERVICE ? "the port is a decimal number from 0 to 65535"
					     : gai_strerror(err));
		return 2;
	}
	/* the server threads inherit this mask, so the signals reach sigwait below */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	d = p_MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0),
			     0, NULL, NULL, handle, &srv,
			     MHD_OPTION_SOCK_ADDR, ai->ai_addr,
			     MHD_OPTION_THREAD_POOL_SIZE, (unsigned)THREADS,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_LIMIT,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONN_TIMEOUT,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_MEMORY,
			     MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
			     MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!d) {
		thp_err("cannot listen on '%s': %s", listen, strerror(errno ? errno : EADDRINUSE));
		return 1;
	}
	info = p_MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	int hlen = (int)(strrchr(listen, ':') - listen);
	fprintf(stderr, "thp: serving http://%.*s:%u/metrics\n", hlen ? hlen : 7,
		hlen ? listen : "0.0.0.0", info ? (unsigned)info->port : 0u);
	while (sigwait(&stop, &sig) == 0 && sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
		;
	p_MHD_stop_daemon(d);
	return 0;
}
