/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * memstat serve (serve.c): the Prometheus endpoint. The root process walks every interval and
 * hands each exposition to an HTTP process that runs as nobody and serves the last one.
 */
#ifndef MEMSTAT_SERVE_H
#define MEMSTAT_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define MS_SERVE_DEFAULT_LISTEN "127.0.0.1:9636"
#define MS_SERVE_MAX_CONNS 64		/* clients served at once; more wait in the backlog */
#define MS_SERVE_MAX_REQUEST 8192	/* bytes of a request line and its headers */
#define MS_SERVE_REQUEST_TIMEOUT_S 3	/* from a client's connection to the end of its request */
#define MS_SERVE_TIMEOUT_S 10		/* from a client's connection to the end of its answer */

/* A parsed request: what serve answers (ms_http_parse()). */
enum ms_http_status {
	MS_HTTP_MORE = 0,	/* no end of headers yet */
	MS_HTTP_OK = 200,
	MS_HTTP_BAD = 400,
	MS_HTTP_NOT_FOUND = 404,
	MS_HTTP_METHOD = 405,
	MS_HTTP_TOO_LARGE = 431,
};
struct ms_http_req {
	bool head;		/* HEAD: the headers only */
	bool metrics;		/* /metrics (else /) */
	bool openmetrics;	/* Accept names application/openmetrics-text */
};
/*
 * Parse the request in buf[0..len): GET or HEAD of /metrics or / in HTTP/1.0 or 1.1, headers
 * up to an empty line, at most MS_SERVE_MAX_REQUEST bytes. Returns MS_HTTP_MORE while the
 * headers have not ended, MS_HTTP_OK with req filled in, or the status of the error.
 */
enum ms_http_status ms_http_parse(const char *buf, size_t len, struct ms_http_req *req);

/*
 * Listen on addr ("HOST:PORT", "[V6]:PORT" or ":PORT", all addresses), before the privileges go.
 * MS_EXIT_OK with *fd, MS_EXIT_USAGE (a bad address) or MS_EXIT_FAIL (bind), with why.
 */
int ms_serve_listen(const char *addr, int *fd, char *why, size_t whylen);
/*
 * Start the HTTP process on listen_fd: it drops root's privileges and serves from what
 * ms_serve_publish() hands it through *pipe_w. Returns its pid, or -1 with why.
 */
pid_t ms_serve_start(int listen_fd, int *pipe_w, char *why, size_t whylen);
/* Hand the HTTP process a new exposition (walks so far, its time). 0 or -errno. */
int ms_serve_publish(int pipe_w, unsigned long long walks, double epoch, const char *text,
		     size_t len);
/* End the HTTP process (closing the pipe ends it) and wait for it. */
void ms_serve_stop(pid_t child, int pipe_w);

#endif /* MEMSTAT_SERVE_H */
