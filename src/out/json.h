/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one JSON writer every JSON document of memstat goes through (json.c): objects, arrays,
 * names and values, the commas between them, names escaped as escape.h says. Compact output,
 * one document a line. Numbers that are not finite are written as null.
 *
 * The one exception is allpages' per-page records (pagefmt.c), formatted by hand into a buffer
 * because they are millions of lines (docs/development.md says why).
 */
#ifndef MEMSTAT_JSON_H
#define MEMSTAT_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define MS_JW_DEPTH 16

struct ms_jw {
	FILE *out;
	int depth;		/* open objects and arrays */
	bool first[MS_JW_DEPTH + 1];	/* nothing written yet in the one open at that depth */
	bool named;		/* a member's name was written: its value follows */
};

void ms_jw_init(struct ms_jw *w, FILE *out);
/* a member's name, in an object: its value is the next call */
void ms_jw_name(struct ms_jw *w, const char *name);

void ms_jw_start_object(struct ms_jw *w);
void ms_jw_end_object(struct ms_jw *w);
void ms_jw_start_array(struct ms_jw *w);
void ms_jw_end_array(struct ms_jw *w);

/* values: s NULL is null; v not finite is null */
void ms_jw_string(struct ms_jw *w, const char *s);
void ms_jw_u64(struct ms_jw *w, unsigned long long v);
void ms_jw_i64(struct ms_jw *w, long long v);
void ms_jw_bool(struct ms_jw *w, bool v);
void ms_jw_null(struct ms_jw *w);
/* a number with its printf format (e.g. "%.3f"), the document's contract for that member */
void ms_jw_double(struct ms_jw *w, const char *fmt, double v);
/* a string written with a printf format (it is escaped all the same) */
void ms_jw_stringf(struct ms_jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* NAME: VALUE, in an object */
static inline void ms_jw_string_field(struct ms_jw *w, const char *name, const char *s)
{
	ms_jw_name(w, name);
	ms_jw_string(w, s);
}

static inline void ms_jw_u64_field(struct ms_jw *w, const char *name, unsigned long long v)
{
	ms_jw_name(w, name);
	ms_jw_u64(w, v);
}

static inline void ms_jw_i64_field(struct ms_jw *w, const char *name, long long v)
{
	ms_jw_name(w, name);
	ms_jw_i64(w, v);
}

static inline void ms_jw_bool_field(struct ms_jw *w, const char *name, bool v)
{
	ms_jw_name(w, name);
	ms_jw_bool(w, v);
}

static inline void ms_jw_null_field(struct ms_jw *w, const char *name)
{
	ms_jw_name(w, name);
	ms_jw_null(w);
}

static inline void ms_jw_double_field(struct ms_jw *w, const char *name, const char *fmt,
				      double v)
{
	ms_jw_name(w, name);
	ms_jw_double(w, fmt, v);
}

static inline void ms_jw_object_field(struct ms_jw *w, const char *name)
{
	ms_jw_name(w, name);
	ms_jw_start_object(w);
}

static inline void ms_jw_array_field(struct ms_jw *w, const char *name)
{
	ms_jw_name(w, name);
	ms_jw_start_array(w);
}

/* the member "moved_pages": N (null when unknown), for every JSON document of a walk */
struct ms_result;
void ms_json_moved_pages(struct ms_jw *w, const struct ms_result *r);
/* the members of a --by document before its own: format_version, backend, page_size, total,
 * holes, walk_ms */
void ms_json_walk_head(struct ms_jw *w, const struct ms_result *r);

/* the object "name": {detail key: pages or null, ...} of sub[] (ms_detail_value()); without
 * the key "unknown" when no_unknown */
void ms_json_detail(struct ms_jw *w, const char *name, const __u64 *sub, bool slab_split,
		    bool no_unknown);

/* a whole document that says only why memstat failed: {"error":"..."} and a newline */
void ms_jw_error_document(FILE *out, const char *msg);

#endif /* MEMSTAT_JSON_H */
