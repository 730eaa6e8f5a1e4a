// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: memstat serve's HTTP request parser (src/cmd/serve.c ms_http_parse()), the input
 * whatever a client sends.
 *
 * Invariants: the status is one of MS_HTTP_*; MS_HTTP_MORE only when no empty line ends the
 * headers yet and the request is under MS_SERVE_MAX_REQUEST bytes; MS_HTTP_OK only for a
 * request line of GET or HEAD, /metrics (with or without a query) or /, and HTTP/1.0 or 1.1;
 * a request that gets an answer still gets the same one with bytes after its end (the parser
 * reads only up to the empty line).
 */
#include "fuzz.h"

#include "serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_http_req req, again;
	enum ms_http_status st, st2;
	const char *b = (const char *)data;
	char *more;

	if (size > 2 * MS_SERVE_MAX_REQUEST)
		return 0;
	st = ms_http_parse(b, size, &req);
	FUZZ_CHECK(st == MS_HTTP_MORE || st == MS_HTTP_OK || st == MS_HTTP_BAD ||
		   st == MS_HTTP_NOT_FOUND || st == MS_HTTP_METHOD || st == MS_HTTP_TOO_LARGE,
		   "status %d", (int)st);
	FUZZ_CHECK(st != MS_HTTP_MORE || size < MS_SERVE_MAX_REQUEST, "MORE for %zu bytes", size);
	if (st == MS_HTTP_OK) {
		bool get = size >= 4 && !memcmp(b, "GET ", 4), head = size >= 5 && !memcmp(b, "HEAD ", 5);
		const char *t = b + (get ? 4 : 5);

		FUZZ_CHECK(get || head, "OK for a method that is neither GET nor HEAD");
		FUZZ_CHECK(req.head == head, "head %d", req.head);
		FUZZ_CHECK(*t == '/', "OK for a target that is not a path");
		FUZZ_CHECK(!req.metrics || !memcmp(t, "/metrics", 8), "metrics for another path");
	}
	if (st != MS_HTTP_MORE && st != MS_HTTP_TOO_LARGE) {
		/* bytes after the request change nothing */
		more = malloc(size + 16);
		if (!more)
			return 0;
		memcpy(more, b, size);
		static const char tail[] = "GARBAGE\r\n\r\nXX";

		memcpy(more + size, tail, sizeof(tail) - 1);
		st2 = ms_http_parse(more, size + sizeof(tail) - 1, &again);
		free(more);
		FUZZ_CHECK(st2 == st && !memcmp(&req, &again, sizeof(req)),
			   "%d then %d with bytes after the request", (int)st, (int)st2);
	}
	return 0;
}
