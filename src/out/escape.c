// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Names that users choose, escaped for each output (escape.h): file paths, memfd and SysV
 * names, cgroup paths, mount points and fs types reach root's terminal and the machine formats
 * through here, so that no name can move the cursor, clear the screen, forge a row, reorder a
 * line (bidi overrides), break a JSON parser (invalid UTF-8) or become a spreadsheet formula.
 *
 * One mapping for every output, reversible by ms_unesc():
 *   - a byte that starts no valid UTF-8 sequence (a stray continuation byte, an overlong form, a
 *     surrogate, a code point past U+10FFFF, a cut sequence): \xNN, NN its value in lower-case
 *     hex; a literal backslash is doubled only where what follows it could read as an escape
 *     (a backslash, x and two hex digits of a byte the mapping escapes, u{, or anything the
 *     mapping escapes), so that "system-systemd\x2dfsck.slice" (0x2d is never escaped) is
 *     unchanged, and ms_unesc() reads \xNN only for such a byte;
 *   - terminal and CSV only: C0 controls (U+0000-U+001F, newline and tab too) and DEL as \xNN;
 *     C1 controls (U+0080-U+009F; U+009B is a CSI) and the bidi embeddings, overrides and
 *     isolates (U+202A-U+202E, U+2066-U+2069) as \u{XXXX};
 * then each format's own syntax:
 *   - JSON: \" and \\; C0 controls, DEL, C1 and bidi as \u00XX/\uXXXX escapes (their decoded
 *     value is the character itself: only the raw bytes stay out of the text);
 *   - CSV: a field that starts with = + - @ (a formula) or ' gets a ' in front (OWASP's
 *     convention; a reader drops one leading '), then RFC 4180 quotes when it holds a comma or
 *     a double quote (a line break cannot remain);
 *   - Prometheus label values: \\, \" and \n, the exposition format's escapes (and a NUL byte,
 *     which no name from the kernel holds, as the mapping's \x00).
 * Printable UTF-8 comes out unchanged in every format, but for a backslash that must be doubled.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

/* where the escaped text goes: a FILE, or a buffer (counting what does not fit) */
struct sink {
	FILE *f;
	char *buf;
	size_t size, n;
};

static void put(struct sink *k, char c)
{
	if (k->f)
		fputc(c, k->f);
	else if (k->n + 1 < k->size)
		k->buf[k->n] = c;
	k->n++;
}

static void puts_(struct sink *k, const char *s)
{
	for (; *s; s++)
		put(k, *s);
}

static const char hex[] = "0123456789abcdef";

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

/* the length of the valid UTF-8 sequence at s (n bytes left), its code point in *cp; 0: none */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t v, min;
	size_t len, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		v = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		v = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		v = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* a code point no terminal may receive raw: C0, DEL, C1, bidi embedding/override/isolate */
static bool unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* the mapping's backslash: doubled in JSON and Prometheus, whose syntax escapes it */
static void backslash(struct sink *k, enum ms_esc_fmt how)
{
	if (how == MS_ESC_JSON || how == MS_ESC_PROM)
		put(k, '\\');
	put(k, '\\');
}

/* \xNN: an invalid byte, or (terminal, CSV) a C0 control or DEL */
static void byte_esc(struct sink *k, enum ms_esc_fmt how, unsigned char b)
{
	backslash(k, how);
	put(k, 'x');
	put(k, hex[b >> 4]);
	put(k, hex[b & 0xf]);
}

/* one valid code point (its len bytes at s) */
static void cp_out(struct sink *k, enum ms_esc_fmt how, uint32_t cp, const char *s, size_t len)
{
	char e[16];
	size_t i;

	switch (how) {
	case MS_ESC_TERM:
	case MS_ESC_CSV:
		if (cp < 0x20 || cp == 0x7f) {
			byte_esc(k, how, (unsigned char)cp);
			return;
		}
		if (unsafe(cp)) {
			snprintf(e, sizeof(e), "\\u{%04x}", (unsigned int)cp);
			puts_(k, e);
			return;
		}
		break;
	case MS_ESC_JSON:
		if (cp == '"') {
			puts_(k, "\\\"");
			return;
		}
		if (unsafe(cp)) {
			snprintf(e, sizeof(e), "\\u%04x", (unsigned int)cp);
			puts_(k, e);
			return;
		}
		break;
	case MS_ESC_PROM:
		if (cp == '"') {
			puts_(k, "\\\"");
			return;
		}
		if (cp == '\n') {
			puts_(k, "\\n");
			return;
		}
		if (!cp) {	/* no name from the kernel holds one; no text line either */
			byte_esc(k, how, 0);
			return;
		}
		break;
	}
	for (i = 0; i < len; i++)
		put(k, s[i]);
}

/* a byte the mapping writes as \xNN in some output: a C0 control, DEL, or a non-ASCII byte */
static bool byte_escapable(int b)
{
	return b < 0x20 || b >= 0x7f;
}

/*
 * Must the literal backslash at u[i] be doubled? Only where the text written after it could
 * read as an escape: an escape of the mapping itself (an invalid byte; terminal and CSV: a
 * control, C1 or bidi character; Prometheus: NUL), another backslash, "x" and the two hex digits
 * of an escapable byte, or "u{".
 */
static bool double_backslash(const unsigned char *u, size_t n, size_t i, enum ms_esc_fmt how)
{
	uint32_t cp;
	size_t len;

	if (i + 1 >= n)
		return false;
	len = utf8_seq(u + i + 1, n - i - 1, &cp);
	if (!len || cp == '\\')
		return true;
	if ((how == MS_ESC_TERM || how == MS_ESC_CSV) && unsafe(cp))
		return true;
	if (how == MS_ESC_PROM && cp == 0)
		return true;
	if (cp == 'x' && i + 3 < n && hexval((char)u[i + 2]) >= 0 && hexval((char)u[i + 3]) >= 0)
		return byte_escapable(hexval((char)u[i + 2]) << 4 | hexval((char)u[i + 3]));
	return cp == 'u' && i + 2 < n && u[i + 2] == '{';
}

static void esc(struct sink *k, const char *s, size_t n, enum ms_esc_fmt how)
{
	const unsigned char *u = (const unsigned char *)s;
	bool quote = false;
	size_t i, len;
	uint32_t cp;

	if (how == MS_ESC_CSV) {
		/* the mapping adds no comma or quote and leaves no line break */
		quote = memchr(s, ',', n) || memchr(s, '"', n);
		if (quote)
			put(k, '"');
		if (n && s[0] && strchr("=+-@'", s[0]))
			put(k, '\'');
	}
	for (i = 0; i < n; i += len) {
		len = utf8_seq(u + i, n - i, &cp);
		if (!len) {
			byte_esc(k, how, u[i]);
			len = 1;
		} else if (quote && cp == '"') {
			puts_(k, "\"\"");
		} else if (cp == '\\') {
			backslash(k, how);
			if (double_backslash(u, n, i, how))
				backslash(k, how);
		} else {
			cp_out(k, how, cp, s + i, len);
		}
	}
	if (quote)
		put(k, '"');
}

size_t ms_esc(char *buf, size_t size, const char *s, size_t n, enum ms_esc_fmt how)
{
	struct sink k = { .buf = buf, .size = size };

	esc(&k, s, n, how);
	if (size)
		buf[k.n < size ? k.n : size - 1] = '\0';
	return k.n;
}

char *ms_esc_str(const char *s, enum ms_esc_fmt how)
{
	size_t n, len;
	char *out;

	if (!s)
		s = "";
	n = strlen(s);
	len = ms_esc(NULL, 0, s, n, how);
	out = malloc(len + 1);
	if (out)
		ms_esc(out, len + 1, s, n, how);
	return out;
}

void ms_esc_fputs(FILE *out, const char *s, enum ms_esc_fmt how)
{
	struct sink k = { .f = out };

	if (s)
		esc(&k, s, strlen(s), how);
}


/* the UTF-8 bytes of cp (at most 0x10ffff) at d; returns their number */
static size_t utf8_put(char *d, uint32_t cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | cp >> 6);
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | cp >> 12);
		d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | cp >> 18);
	d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t ms_unesc(char *s)
{
	char *d = s, *p = s;

	while (*p) {
		if (p[0] == '\\' && p[1] == '\\') {
			*d++ = '\\';
			p += 2;
		} else if (p[0] == '\\' && p[1] == 'x' && hexval(p[2]) >= 0 && hexval(p[3]) >= 0 &&
			   byte_escapable(hexval(p[2]) << 4 | hexval(p[3]))) {
			*d++ = (char)(hexval(p[2]) << 4 | hexval(p[3]));
			p += 4;
		} else if (p[0] == '\\' && p[1] == 'u' && p[2] == '{') {
			/* \u{X...}: 1 to 6 hex digits, a code point up to U+10FFFF (4 UTF-8 bytes: no
			 * more than the 5 of the shortest escape) */
			uint32_t cp = 0;
			size_t k = 3;

			while (k < 9 && hexval(p[k]) >= 0)
				cp = cp << 4 | (uint32_t)hexval(p[k++]);
			if (k > 3 && p[k] == '}' && cp <= 0x10ffff) {
				d += utf8_put(d, cp);
				p += k + 1;
			} else {
				*d++ = *p++;
			}
		} else {
			*d++ = *p++;
		}
	}
	*d = '\0';
	return (size_t)(d - s);
}
