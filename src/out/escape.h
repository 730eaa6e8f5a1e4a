/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Escaping of names that users choose (file paths, memfd and SysV names, cgroup paths, mount
 * points, fs types, command lines) for each output of memstat: the terminal, JSON, CSV and
 * Prometheus label values (escape.c). The rules are in docs/memstat.8.scd, NAMES.
 */
#ifndef MEMSTAT_ESCAPE_H
#define MEMSTAT_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

enum ms_esc_fmt {
	MS_ESC_TERM,	/* tables and text: no control, C1 or bidi character reaches the terminal */
	MS_ESC_JSON,	/* the inside of a JSON string (no quotes) */
	MS_ESC_CSV,	/* one CSV field: as MS_ESC_TERM, formula-safe, quoted when needed */
	MS_ESC_PROM,	/* the inside of a Prometheus label value (no quotes) */
};

/*
 * s (n bytes, which may hold NUL bytes) escaped for how into buf of size bytes, NUL-terminated
 * and cut to fit (buf may be NULL when size is 0). Returns the length of the whole escaped text,
 * as snprintf() does: size must exceed it for nothing to be cut.
 */
size_t ms_esc(char *buf, size_t size, const char *s, size_t n, enum ms_esc_fmt how);

/* the string s (NULL: "") escaped for how, malloc'd; NULL when out of memory */
char *ms_esc_str(const char *s, enum ms_esc_fmt how);

/* the string s (NULL: "") escaped for how, written to out */
void ms_esc_fputs(FILE *out, const char *s, enum ms_esc_fmt how);

/*
 * The name back from its escaped text, in place: \\ is a backslash, \xNN the byte NN, \u{X...}
 * the code point in UTF-8; any other backslash stays. Reverses MS_ESC_TERM and the value a JSON,
 * CSV or Prometheus reader decodes (less a CSV field's leading ' of a formula). Returns the
 * name's length (it may hold NUL bytes); s is NUL-terminated after it.
 */
size_t ms_unesc(char *s);

#endif /* MEMSTAT_ESCAPE_H */
