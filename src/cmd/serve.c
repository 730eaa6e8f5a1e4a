// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat serve: the Prometheus endpoint.
 *
 * Two processes. The root process loads the walker, walks every interval (the sampling loop of
 * sample.c, its Prometheus text) and hands each exposition to the HTTP process through a pipe,
 * one frame each: "MSF1 WALKS EPOCH LEN\n" and LEN bytes. The HTTP process is forked once the
 * socket listens; it closes every descriptor but the socket and the pipe, becomes nobody (no
 * capability, no_new_privs) and serves the last exposition to every scrape, so that a scrape
 * costs no walk however many scrapers ask; a scrape that comes before the first walk waits for
 * it. It ends when the pipe closes (the root process ended or was killed).
 *
 * HTTP: a small parser (ms_http_parse(), with its own fuzz target) rather than a library:
 * Debian's libmicrohttpd links GnuTLS and p11-kit, which have no static archive, and the
 * endpoint needs GET and HEAD of two paths. One request per connection (Connection: close);
 * at most MS_SERVE_MAX_CONNS clients at once, MS_SERVE_MAX_REQUEST bytes of request, and
 * MS_SERVE_TIMEOUT_S seconds from connection to the end of the answer, all non-blocking in one
 * poll(2) loop, so a client that sends a byte a second holds one slot, never the others. No
 * TLS and no authentication: it listens on loopback unless told otherwise; behind a reverse
 * proxy for more (docs/serve.md).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memstat_int.h"
#include "serve.h"

/* ---- the request ---- */

/* the header value of name (case-insensitive) in the header lines hdr[0..len), or NULL */
static const char *header(const char *hdr, size_t len, const char *name, size_t *vlen)
{
	size_t n = strlen(name);

	for (const char *p = hdr, *end = hdr + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *lend = eol ? eol : end;

		if ((size_t)(lend - p) > n && p[n] == ':' && !strncasecmp(p, name, n)) {
			const char *v = p + n + 1;

			while (v < lend && (*v == ' ' || *v == '\t'))
				v++;
			*vlen = (size_t)(lend - v) - (lend > v && lend[-1] == '\r');
			return v;
		}
		p = lend + 1;
	}
	return NULL;
}

enum ms_http_status ms_http_parse(const char *buf, size_t len, struct ms_http_req *req)
{
	const char *end = NULL, *sp1, *sp2, *eol, *v;
	size_t mlen, tlen, vlen;

	memset(req, 0, sizeof(*req));
	for (size_t i = 0; i + 1 < len && !end; i++)	/* the empty line: \r\n\r\n or \n\n */
		if (buf[i] == '\n' && (buf[i + 1] == '\n' ||
				       (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n')))
			end = buf + i + 1;
	if (!end)
		return len >= MS_SERVE_MAX_REQUEST ? MS_HTTP_TOO_LARGE : MS_HTTP_MORE;
	eol = memchr(buf, '\n', (size_t)(end - buf));
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp1 || !sp2 || sp1 == buf || sp2 == sp1 + 1)
		return MS_HTTP_BAD;
	for (const char *p = buf; p < eol; p++)	/* no control character but the line's end */
		if ((unsigned char)*p < 0x20 && !(*p == '\r' && p + 1 == eol))
			return MS_HTTP_BAD;
	vlen = (size_t)(eol - sp2 - 1) - (eol[-1] == '\r');
	if ((vlen != 8 || (strncmp(sp2 + 1, "HTTP/1.1", 8) && strncmp(sp2 + 1, "HTTP/1.0", 8))))
		return MS_HTTP_BAD;
	mlen = (size_t)(sp1 - buf);
	tlen = (size_t)(sp2 - sp1 - 1);
	req->head = mlen == 4 && !strncmp(buf, "HEAD", 4);	/* its answers have no body */
	if (!req->head && (mlen != 3 || strncmp(buf, "GET", 3)))
		return MS_HTTP_METHOD;
	if (tlen >= 8 && !strncmp(sp1 + 1, "/metrics", 8) && (tlen == 8 || sp1[9] == '?'))
		req->metrics = true;
	else if (sp1[1] != '/' || (tlen > 1 && sp1[2] != '?'))
		return MS_HTTP_NOT_FOUND;
	v = header(eol + 1, (size_t)(end - eol - 1), "Accept", &vlen);
	if (v && memmem(v, vlen, "application/openmetrics-text", 28))
		req->openmetrics = true;
	return MS_HTTP_OK;
}

/* ---- the socket ---- */

int ms_serve_listen(const char *addr, int *fd, char *why, size_t whylen)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
	char host[256], *colon;
	socklen_t sl;
	long port;
	int one = 1, s;

	if (strlen(addr) >= sizeof(host))
		goto bad;
	strcpy(host, addr);
	colon = strrchr(host, ':');
	if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    strlen(colon + 1) > 5)
		goto bad;
	*colon = '\0';
	port = strtol(colon + 1, NULL, 10);
	if (port < 1 || port > 65535)
		goto bad;
	if (host[0] == '[') {	/* [V6] */
		size_t n = strlen(host);

		if (n < 3 || host[n - 1] != ']')
			goto bad;
		host[n - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &v6->sin6_addr) != 1)
			goto bad;
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		sl = sizeof(*v6);
	} else if (!host[0] || inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		if (!host[0]) {	/* every address, both families */
			v6->sin6_family = AF_INET6;
			v6->sin6_addr = in6addr_any;
			v6->sin6_port = htons((uint16_t)port);
			sl = sizeof(*v6);
		} else {
			v4->sin_family = AF_INET;
			v4->sin_port = htons((uint16_t)port);
			sl = sizeof(*v4);
		}
	} else {
		goto bad;
	}
	s = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&ss, sl) || listen(s, 128)) {
		snprintf(why, whylen, "cannot listen on %s: %s", addr, strerror(errno));
		if (s >= 0)
			close(s);
		return MS_EXIT_FAIL;
	}
	*fd = s;
	return MS_EXIT_OK;
bad:
	snprintf(why, whylen, "invalid --listen '%s': expected HOST:PORT (127.0.0.1:9636, "
		 "[::1]:9636, or :9636 for every address), a numeric address and a port from 1 "
		 "to 65535", addr);
	return MS_EXIT_USAGE;
}

/* ---- the HTTP process ---- */

struct conn {
	int fd;
	double accepted, deadline;	/* CLOCK_MONOTONIC seconds */
	char in[MS_SERVE_MAX_REQUEST];
	size_t inlen;
	bool waiting;		/* a scrape before the first walk: answered when it comes */
	bool draining;		/* answered: what the client still sends is read and dropped
				 * (closing with unread input would reset the answer away) */
	struct ms_http_req req;
	char *out;		/* the answer, its own copy */
	size_t outlen, outoff;
};

struct server {
	char *expo;		/* the last exposition, and what the frame said of it */
	size_t expolen;
	unsigned long long walks;
	double epoch;
	char *frame;		/* the frame being read from the pipe */
	size_t framelen, framecap;
	struct conn c[MS_SERVE_MAX_CONNS];
	int n;
	double accept_again;	/* after EMFILE and the like: no accept before then */
};

/* CLOCK_MONOTONIC seconds (util.c's clock) */
static double mono(void)
{
	return ms_now_ms() / 1e3;
}

static void conn_close(struct server *sv, int i)
{
	close(sv->c[i].fd);
	free(sv->c[i].out);
	sv->c[i] = sv->c[--sv->n];
}

/* c's answer into c->out (NULL when memory runs out: the caller closes it) */
static void answer(struct server *sv, struct conn *c, int status)
{
	const char *ctype = c->req.openmetrics ?
			    "application/openmetrics-text; version=1.0.0; charset=utf-8" :
			    "text/plain; version=0.0.4; charset=utf-8";
	char *body = NULL;
	size_t blen = 0;
	FILE *m = open_memstream(&body, &blen);
	const char *text = status == 200 ? "OK" : status == 400 ? "Bad Request" :
			   status == 404 ? "Not Found" : status == 405 ? "Method Not Allowed" :
			   status == 431 ? "Request Header Fields Too Large" : "Service Unavailable";

	free(c->out);
	c->out = NULL;
	c->outoff = c->outlen = 0;
	if (!m)
		return;
	if (status == 200 && c->req.metrics) {
		fwrite(sv->expo, 1, sv->expolen, m);
		fprintf(m, "# HELP memstat_walks_total Walks since memstat serve started.\n"
			"# TYPE memstat_walks%s counter\nmemstat_walks_total %llu\n"
			"# HELP memstat_last_walk_timestamp_seconds When the last walk ended.\n"
			"# TYPE memstat_last_walk_timestamp_seconds gauge\n"
			"memstat_last_walk_timestamp_seconds %.3f\n",
			c->req.openmetrics ? "" : "_total", sv->walks, sv->epoch);
		if (c->req.openmetrics)
			fputs("# EOF\n", m);
	} else if (status == 200) {
		ctype = "text/html; charset=utf-8";
		fputs("<html><head><title>memstat</title></head><body><h1>memstat serve</h1>"
		      "<p><a href=\"/metrics\">/metrics</a></p></body></html>\n", m);
	} else {
		ctype = "text/plain; charset=utf-8";
		fprintf(m, "%d %s\n", status, text);
	}
	if (fclose(m) || !body) {
		free(body);
		return;
	}
	if (asprintf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "%sConnection: close\r\n\r\n", status, text, ctype, blen,
		     status == 405 ? "Allow: GET, HEAD\r\n" : "") < 0) {
		c->out = NULL;
	} else if (!c->req.head) {	/* the body after the headers (it may hold any byte) */
		size_t hl = strlen(c->out);
		char *o = realloc(c->out, hl + blen);

		if (!o) {
			free(c->out);
			c->out = NULL;
		} else {
			memcpy(o + hl, body, blen);
			c->out = o;
			c->outlen = hl + blen;
		}
	} else {
		c->outlen = strlen(c->out);
	}
	free(body);
	/* the whole answer within the connection's time, from now on */
	c->deadline = c->accepted + MS_SERVE_TIMEOUT_S;
}

/* a whole frame in sv->frame: the new exposition (0), more to read (1), a bad frame (-1) */
static int take_frame(struct server *sv)
{
	char *nl = memchr(sv->frame, '\n', sv->framelen);
	unsigned long long walks, len;
	double epoch;
	char *e;

	if (!nl)
		return sv->framelen > 128 ? -1 : 1;
	*nl = '\0';
	if (sscanf(sv->frame, "MSF1 %llu %lf %llu", &walks, &epoch, &len) != 3) {
		*nl = '\n';
		return -1;
	}
	*nl = '\n';
	if (sv->framelen < (size_t)(nl + 1 - sv->frame) + len)
		return 1;
	e = malloc(len ? len : 1);
	if (!e)
		return -1;
	memcpy(e, nl + 1, len);
	free(sv->expo);
	sv->expo = e;
	sv->expolen = len;
	sv->walks = walks;
	sv->epoch = epoch;
	sv->framelen -= (size_t)(nl + 1 - sv->frame) + len;
	memmove(sv->frame, nl + 1 + len, sv->framelen);
	return 0;
}

/* a client's bytes: 0, or -1 when the connection is to be closed */
static int handle_input(struct server *sv, struct conn *c)
{
	ssize_t n = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);
	enum ms_http_status st;

	if (n <= 0)
		return n == 0 || (errno != EAGAIN && errno != EINTR) ? -1 : 0;
	c->inlen += (size_t)n;
	st = ms_http_parse(c->in, c->inlen, &c->req);
	if (st == MS_HTTP_MORE)
		return 0;
	if (st == MS_HTTP_OK && c->req.metrics && !sv->expo) {
		c->waiting = true;	/* before the first walk */
		c->deadline = c->accepted + MS_SERVE_TIMEOUT_S;
		return 0;
	}
	answer(sv, c, (int)st);
	return c->out ? 0 : -1;
}

/* A new client; when every slot is taken, the oldest one still sending its request goes. */
static void take_client(struct server *sv, int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), old = -1;

	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == ENOBUFS)
			sv->accept_again = mono() + 1;	/* else poll would wake at once */
		return;
	}
	if (sv->n == MS_SERVE_MAX_CONNS) {
		for (int i = 0; i < sv->n; i++)
			if (!sv->c[i].out && !sv->c[i].waiting &&
			    (old < 0 || sv->c[i].accepted < sv->c[old].accepted))
				old = i;
		if (old < 0) {
			close(fd);	/* all of them are being answered */
			return;
		}
		conn_close(sv, old);
	}
	memset(&sv->c[sv->n], 0, sizeof(sv->c[sv->n]));
	sv->c[sv->n].fd = fd;
	sv->c[sv->n].accepted = mono();
	sv->c[sv->n].deadline = sv->c[sv->n].accepted + MS_SERVE_REQUEST_TIMEOUT_S;
	sv->n++;
}

static void serve_loop(int lfd, int pipe_r)
{
	struct server sv = {};
	struct pollfd pf[MS_SERVE_MAX_CONNS + 2];

	for (;;) {
		double now = mono();
		int np = 0, i;

		for (i = 0; i < sv.n; i++)
			if (now >= sv.c[i].deadline) {
				if (sv.c[i].waiting) {	/* no walk yet: say so, best effort */
					static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
						"Content-Length: 0\r\nConnection: close\r\n\r\n";

					if (write(sv.c[i].fd, busy, sizeof(busy) - 1) < 0) {
						/* it goes anyway */
					}
				}
				conn_close(&sv, i);
				i--;
			}
		pf[np++] = (struct pollfd){ .fd = pipe_r, .events = POLLIN };
		pf[np++] = (struct pollfd){ .fd = now >= sv.accept_again ? lfd : -1,
					    .events = POLLIN };
		for (i = 0; i < sv.n; i++)
			pf[np++] = (struct pollfd){ .fd = sv.c[i].fd,
						    .events = sv.c[i].draining ? POLLIN :
							      sv.c[i].out ? POLLOUT :
							      sv.c[i].waiting ? 0 : POLLIN };
		if (poll(pf, (nfds_t)np, 500) < 0 && errno != EINTR)
			_exit(1);
		if (pf[0].revents) {	/* a frame, or the end */
			ssize_t n;

			if (sv.framecap - sv.framelen < 65536) {
				char *f = realloc(sv.frame, sv.framecap + 65536);

				if (!f)
					_exit(1);
				sv.frame = f;
				sv.framecap += 65536;
			}
			n = read(pipe_r, sv.frame + sv.framelen, sv.framecap - sv.framelen);
			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
				_exit(0);	/* the walking process has ended */
			if (n > 0) {
				int r;

				sv.framelen += (size_t)n;
				while ((r = take_frame(&sv)) == 0)
					;
				if (r < 0)
					_exit(1);
				for (i = 0; sv.expo && i < sv.n; i++)
					if (sv.c[i].waiting) {
						sv.c[i].waiting = false;
						answer(&sv, &sv.c[i], 200);
					}
			}
		}
		/* the clients polled: pf[2 + i] is sv.c[i] as it was before any closed (going
		 * down, a client swapped into slot i by conn_close() has had its turn) */
		for (i = np - 3; i >= 0; i--) {
			struct conn *c = &sv.c[i];
			short rev = pf[2 + i].revents;

			if (!rev)
				continue;
			if (rev & (POLLERR | POLLNVAL)) {
				conn_close(&sv, i);
			} else if (c->draining) {
				char sink[4096];
				ssize_t r = read(c->fd, sink, sizeof(sink));

				if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
					conn_close(&sv, i);
			} else if (c->out) {
				ssize_t w = write(c->fd, c->out + c->outoff, c->outlen - c->outoff);

				if (w > 0)
					c->outoff += (size_t)w;
				if (w < 0 && errno != EAGAIN && errno != EINTR) {
					conn_close(&sv, i);
				} else if (c->outoff >= c->outlen) {
					shutdown(c->fd, SHUT_WR);	/* then read to the end */
					c->draining = true;
					if (c->deadline > mono() + 2)
						c->deadline = mono() + 2;
				}
			} else if (!c->waiting && (rev & (POLLIN | POLLHUP))) {
				if (handle_input(&sv, c))
					conn_close(&sv, i);
			}
		}
		if (pf[1].fd >= 0 && (pf[1].revents & POLLIN))
			for (int k = 0; k < 16; k++)	/* a few at a time: the others get a turn */
				take_client(&sv, lfd);
	}
}

/* descriptor fd moved to at least 10 (so that dup2() onto 3 and 4 clobbers neither), or -1 */
static int high_fd(int fd)
{
	return fcntl(fd, F_DUPFD, 10);
}

pid_t ms_serve_start(int listen_fd, int *pipe_w, char *why, size_t whylen)
{
	pid_t parent = getpid(), pid;
	int p[2];

	if (pipe2(p, O_CLOEXEC)) {
		snprintf(why, whylen, "cannot make the pipe to the HTTP process: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "cannot start the HTTP process: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int l = high_fd(listen_fd), r = high_fd(p[0]), err, fd;
		long max = sysconf(_SC_OPEN_MAX);

		signal(SIGPIPE, SIG_IGN);
		signal(SIGINT, SIG_IGN);	/* the walking process ends it, by the pipe */
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_IGN);
		close(p[1]);	/* the pipe's write end: the walking process's alone */
		if (l < 0 || r < 0 || dup2(l, 3) < 0 || dup2(r, 4) < 0)
			_exit(1);
		/* every other descriptor: no BPF object, no file of root's */
		if (syscall(SYS_close_range, 5, ~0U, 0))
			for (fd = 5; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
				close(fd);
		err = ms_drop_root();
		if (err) {
			dprintf(2, "memstat serve: cannot drop root's privileges for the HTTP "
				"process: %s\n", strerror(-err));
			_exit(1);
		}
		/* ended with the walking process, even one killed (the closed pipe ends it too) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		if (chdir("/")) {
			/* nothing it needs is relative */
		}
		fcntl(4, F_SETFL, O_NONBLOCK);
		serve_loop(3, 4);
	}
	close(p[0]);
	fcntl(p[1], F_SETFL, O_NONBLOCK);	/* a stopped HTTP process never blocks the walks */
	*pipe_w = p[1];
	return pid;
}

int ms_serve_publish(int pipe_w, unsigned long long walks, double epoch, const char *text,
		     size_t len)
{
	char head[96];
	int n = snprintf(head, sizeof(head), "MSF1 %llu %.3f %zu\n", walks, epoch, len);
	struct {
		const char *b;
		size_t l;
	} part[2] = { { head, (size_t)n }, { text, len } };

	for (int k = 0; k < 2; k++)
		for (size_t off = 0; off < part[k].l;) {
			ssize_t w = write(pipe_w, part[k].b + off, part[k].l - off);
			struct pollfd pf = { .fd = pipe_w, .events = POLLOUT };

			if (w > 0) {
				off += (size_t)w;
				continue;
			}
			if (w < 0 && errno == EINTR)
				continue;
			if (w == 0 || errno != EAGAIN)
				return w ? -errno : -EIO;
			/* the HTTP process reads its pipe in every turn of its loop: 10 s without
			 * room means it has stopped (SIGSTOP) or hangs */
			if (poll(&pf, 1, 10000) == 0)
				return -ETIMEDOUT;
		}
	return 0;
}

void ms_serve_stop(pid_t child, int pipe_w)
{
	int st;

	if (pipe_w >= 0)
		close(pipe_w);
	if (child > 0) {
		for (int i = 0; i < 50; i++) {	/* the closed pipe ends it at once */
			if (waitpid(child, &st, WNOHANG) == child)
				return;
			usleep(20000);
		}
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
	}
}
