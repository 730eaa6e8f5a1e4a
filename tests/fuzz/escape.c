// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: the escaping of names that users choose (src/out/escape.c), the input a name
 * of any bytes.
 *
 * Invariants, for each format: the output is valid UTF-8 and decodes back to the input (the
 * mapping is reversible, so no two names print alike); the terminal's holds no byte below 0x20,
 * no DEL, no C1 (U+0080-U+009F) and no bidi override or isolate; JSON's parses as the inside of
 * a JSON string (no raw control, every escape complete); CSV's is one line, its quotes RFC 4180's;
 * Prometheus's has no raw newline or bare quote. The length ms_esc() returns is what it writes,
 * and a buffer too small gets the start of that text.
 */
#include "fuzz.h"
#include <stdbool.h>

#include "escape.h"

/* valid UTF-8 (RFC 3629); *cps the code points (for the terminal's check), at most n */
static bool utf8_ok(const uint8_t *p, size_t n, uint32_t *cps, size_t *ncp)
{
	size_t i = 0, k = 0;

	while (i < n) {
		uint32_t cp;
		size_t len;

		if (p[i] < 0x80)
			len = 1, cp = p[i];
		else if (p[i] >= 0xc2 && p[i] <= 0xdf)
			len = 2, cp = p[i] & 0x1f;
		else if (p[i] >= 0xe0 && p[i] <= 0xef)
			len = 3, cp = p[i] & 0x0f;
		else if (p[i] >= 0xf0 && p[i] <= 0xf4)
			len = 4, cp = p[i] & 0x07;
		else
			return false;
		if (i + len > n)
			return false;
		for (size_t j = 1; j < len; j++) {
			if ((p[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i + j] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
		    (len == 4 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		if (cps)
			cps[k++] = cp;
		i += len;
	}
	if (ncp)
		*ncp = k;
	return true;
}

/*
 * The name back from a decoded value of n bytes: ms_unesc() of each part between NUL bytes (an
 * escape never holds a NUL; a NUL of the name comes through JSON and Prometheus as itself).
 * Returns the length, in place.
 */
static size_t unesc_n(char *s, size_t n)
{
	size_t out = 0, i = 0;

	for (;;) {
		size_t len = strnlen(s + i, n - i), m;
		char *part = malloc(len + 1);

		if (!part)
			abort();
		memcpy(part, s + i, len);
		part[len] = '\0';
		m = ms_unesc(part);
		memcpy(s + out, part, m);
		free(part);
		out += m;
		i += len;
		if (i >= n)
			return out;
		s[out++] = '\0';	/* the NUL */
		i++;
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* the inside of a JSON string decoded (RFC 8259; \u escapes of surrogates refused); -1: invalid */
static long json_decode(const char *e, size_t n, char *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		unsigned char c = (unsigned char)e[i];

		if (c < 0x20 || c == '"')
			return -1;
		if (c != '\\') {
			out[o++] = e[i++];
			continue;
		}
		if (i + 1 >= n)
			return -1;
		switch (e[i + 1]) {
		case '"': case '\\': case '/':
			out[o++] = e[i + 1];
			break;
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'u': {
			uint32_t cp = 0;

			if (i + 6 > n)
				return -1;
			for (int k = 2; k < 6; k++) {
				if (hexval(e[i + k]) < 0)
					return -1;
				cp = cp << 4 | (uint32_t)hexval(e[i + k]);
			}
			if (cp >= 0xd800 && cp <= 0xdfff)
				return -1;
			if (cp < 0x80) {
				out[o++] = (char)cp;
			} else if (cp < 0x800) {
				out[o++] = (char)(0xc0 | cp >> 6);
				out[o++] = (char)(0x80 | (cp & 0x3f));
			} else {
				out[o++] = (char)(0xe0 | cp >> 12);
				out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				out[o++] = (char)(0x80 | (cp & 0x3f));
			}
			i += 6;
			continue;
		}
		default:
			return -1;
		}
		i += 2;
	}
	return (long)o;
}

/* a Prometheus label value's inside decoded (\\, \", \n); -1: invalid */
static long prom_decode(const char *e, size_t n, char *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		if (e[i] == '\n' || e[i] == '"')
			return -1;
		if (e[i] != '\\') {
			out[o++] = e[i++];
			continue;
		}
		if (i + 1 >= n || (e[i + 1] != '\\' && e[i + 1] != '"' && e[i + 1] != 'n'))
			return -1;
		out[o++] = e[i + 1] == 'n' ? '\n' : e[i + 1];
		i += 2;
	}
	return (long)o;
}

/* one CSV field decoded (RFC 4180), less a formula's leading '; -1: invalid */
static long csv_decode(const char *e, size_t n, char *out)
{
	size_t i = 0, o = 0;

	if (memchr(e, '\n', n) || memchr(e, '\r', n))
		return -1;	/* a record is one line */
	if (n && e[0] == '"') {
		if (n < 2 || e[n - 1] != '"')
			return -1;
		for (i = 1; i + 1 < n; i++) {
			if (e[i] == '"' && e[++i] != '"')
				return -1;
			out[o++] = e[i];
		}
		if (i != n - 1)
			return -1;
	} else {
		if (memchr(e, ',', n) || memchr(e, '"', n))
			return -1;
		memcpy(out, e, n);
		o = n;
	}
	if (o && out[0] == '\'') {
		memmove(out, out + 1, o - 1);
		o--;
	}
	return (long)o;
}

static const char *const fmt_name[] = { "terminal", "JSON", "CSV", "Prometheus" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;

	for (int how = MS_ESC_TERM; how <= MS_ESC_PROM; how++) {
		size_t len = ms_esc(NULL, 0, in, size, how), ncp = 0, cut;
		char *e = malloc(len + 1), *dec = malloc(len + 1), *part;
		uint32_t *cps = malloc((len + 1) * sizeof(*cps));
		long d;

		if (!e || !dec || !cps)
			abort();
		FUZZ_CHECK(ms_esc(e, len + 1, in, size, how) == len, "%s: two lengths",
			   fmt_name[how]);
		FUZZ_CHECK(strlen(e) == len, "%s: a NUL inside the escaped text", fmt_name[how]);
		FUZZ_CHECK(utf8_ok((const uint8_t *)e, len, cps, &ncp), "%s: invalid UTF-8 out",
			   fmt_name[how]);
		if (how == MS_ESC_TERM || how == MS_ESC_CSV)
			for (size_t k = 0; k < ncp; k++)
				FUZZ_CHECK(cps[k] >= 0x20 && !(cps[k] >= 0x7f && cps[k] <= 0x9f) &&
					   !(cps[k] >= 0x202a && cps[k] <= 0x202e) &&
					   !(cps[k] >= 0x2066 && cps[k] <= 0x2069),
					   "%s: U+%04X reaches the output", fmt_name[how],
					   (unsigned int)cps[k]);
		if (how == MS_ESC_JSON)
			for (size_t k = 0; k < ncp; k++)
				FUZZ_CHECK(cps[k] >= 0x20 && cps[k] != 0x7f &&
					   !(cps[k] >= 0x80 && cps[k] <= 0x9f),
					   "JSON: a raw U+%04X", (unsigned int)cps[k]);
		switch (how) {
		case MS_ESC_JSON:
			d = json_decode(e, len, dec);
			break;
		case MS_ESC_CSV:
			d = csv_decode(e, len, dec);
			break;
		case MS_ESC_PROM:
			d = prom_decode(e, len, dec);
			break;
		default:
			memcpy(dec, e, len);
			d = (long)len;
		}
		FUZZ_CHECK(d >= 0, "%s: the output does not parse: '%s'", fmt_name[how], e);
		d = (long)unesc_n(dec, (size_t)d);
		FUZZ_CHECK((size_t)d == size && !memcmp(dec, in, size),
			   "%s: '%s' decodes to %ld bytes, not the %zu of the name", fmt_name[how], e,
			   d, size);
		/* a buffer too small: the start of the same text */
		cut = size % (len + 1);
		part = malloc(cut + 1);
		if (!part)
			abort();
		FUZZ_CHECK(ms_esc(part, cut + 1, in, size, how) == len && strlen(part) == cut &&
			   !memcmp(part, e, cut), "%s: cut to %zu bytes, not the start of the text",
			   fmt_name[how], cut);
		free(part);
		free(cps);
		free(dec);
		free(e);
	}
	return 0;
}
