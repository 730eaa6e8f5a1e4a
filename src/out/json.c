// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The JSON writer (json.h): every JSON document memstat writes (the summary and its members in
 * report.c, --by in groups_out.c and the keys' own members, -a in attrs.c, rmss's report, the
 * JSON errors) is built through it, so that the commas, the nesting and the escaping of names
 * (as escape.c says: always valid UTF-8) are right in one place. And the members of a walk's
 * result that more than one document carries.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"
#include "escape.h"
#include "json.h"

void ms_jw_init(struct ms_jw *w, FILE *out)
{
	w->out = out;
	w->depth = 0;
	w->first[0] = true;
	w->named = false;
}

/* before a value or a name: the comma that separates it from the one before */
static void sep(struct ms_jw *w)
{
	if (w->named) {
		w->named = false;
		return;
	}
	if (!w->first[w->depth])
		fputc(',', w->out);
	w->first[w->depth] = false;
}

static void quoted(FILE *out, const char *s)
{
	fputc('"', out);
	ms_esc_fputs(out, s, MS_ESC_JSON);
	fputc('"', out);
}

void ms_jw_name(struct ms_jw *w, const char *name)
{
	sep(w);
	quoted(w->out, name);
	fputc(':', w->out);
	w->named = true;
}

static void open_(struct ms_jw *w, int c)
{
	sep(w);
	fputc(c, w->out);
	if (w->depth < MS_JW_DEPTH)
		w->depth++;
	else
		abort();	/* a document deeper than any memstat writes: a bug */
	w->first[w->depth] = true;
}

static void close_(struct ms_jw *w, int c)
{
	fputc(c, w->out);
	if (w->depth > 0)
		w->depth--;
	w->named = false;
}

void ms_jw_start_object(struct ms_jw *w)
{
	open_(w, '{');
}

void ms_jw_end_object(struct ms_jw *w)
{
	close_(w, '}');
}

void ms_jw_start_array(struct ms_jw *w)
{
	open_(w, '[');
}

void ms_jw_end_array(struct ms_jw *w)
{
	close_(w, ']');
}

void ms_jw_string(struct ms_jw *w, const char *s)
{
	if (!s) {
		ms_jw_null(w);
		return;
	}
	sep(w);
	quoted(w->out, s);
}

void ms_jw_stringf(struct ms_jw *w, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ms_jw_string(w, buf);
}

void ms_jw_u64(struct ms_jw *w, unsigned long long v)
{
	sep(w);
	fprintf(w->out, "%llu", v);
}

void ms_jw_i64(struct ms_jw *w, long long v)
{
	sep(w);
	fprintf(w->out, "%lld", v);
}

void ms_jw_bool(struct ms_jw *w, bool v)
{
	sep(w);
	fputs(v ? "true" : "false", w->out);
}

void ms_jw_null(struct ms_jw *w)
{
	sep(w);
	fputs("null", w->out);
}

void ms_jw_double(struct ms_jw *w, const char *fmt, double v)
{
	if (!isfinite(v)) {
		ms_jw_null(w);
		return;
	}
	sep(w);
	fprintf(w->out, fmt, v);
}

void ms_jw_error_document(FILE *out, const char *msg)
{
	struct ms_jw w;

	ms_jw_init(&w, out);
	ms_jw_start_object(&w);
	ms_jw_string_field(&w, "error", msg ? msg : "");
	ms_jw_end_object(&w);
	fputc('\n', out);
}

void ms_json_detail(struct ms_jw *w, const char *name, const __u64 *sub, bool slab_split,
		    bool no_unknown)
{
	__u64 v;
	int k;

	ms_jw_object_field(w, name);
	for (k = 0; k < MS_NR_DETAIL; k++) {
		const char *key = ms_detail_key(k);

		if (no_unknown && !strcmp(key, "unknown"))
			continue;
		if (ms_detail_value(sub, slab_split, k, &v))
			ms_jw_u64_field(w, key, v);
		else
			ms_jw_null_field(w, key);
	}
	ms_jw_end_object(w);
}

void ms_json_walk_head(struct ms_jw *w, const struct ms_result *r)
{
	ms_jw_i64_field(w, "format_version", MS_FORMAT_VERSION);
	ms_jw_string_field(w, "backend", r->backend);
	ms_jw_i64_field(w, "page_size", sysconf(_SC_PAGESIZE));
	ms_jw_u64_field(w, "total", r->total);
	ms_jw_u64_field(w, "holes", r->holes);
	ms_jw_double_field(w, "walk_ms", "%.3f", r->walk_ms);
}

void ms_json_moved_pages(struct ms_jw *w, const struct ms_result *r)
{
	if (r->moved_pages >= 0)
		ms_jw_i64_field(w, "moved_pages", r->moved_pages);
	else
		ms_jw_null_field(w, "moved_pages");
}
