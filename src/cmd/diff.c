// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat diff A [B]: what grew and what shrank between two walks, each a `memstat --json`
 * document (with or without --by) or the sample of a JSON-lines log (memstat -f jsonl -o LOG):
 * per class, per sub-class (the "detail" keys) and per group, largest change first; --json gives
 * the inputs' own shape with every count B - A. With one file, its first and last samples.
 *
 * The inputs are parsed by Jansson. Two walks are compared only where they count the same
 * things: another format_version, backend or page size, or an estimate (--approx) against an
 * exact walk, is refused (exit 2); groups of another --by key are left out, saying so.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "memstat_int.h"
#include "escape.h"
#include "json.h"

static const char usage_text[] =
	"Usage: memstat diff [--json] A [B]\n"
	"What grew and what shrank from A to B: per class, sub-class and group (--by), largest\n"
	"change first. A and B are `memstat --json` outputs or JSON-lines logs (memstat -f jsonl\n"
	"-o LOG), of which the last sample counts; with one log, its first and last samples.\n"
	"\n"
	"  -j, --json             one JSON object: the inputs' keys, every count B - A\n"
	"  -h, --help             print this help\n"
	"\n"
	"Exit codes: 0 ok, 1 a file cannot be read, 2 bad input (usage, not memstat JSON,\n"
	"walks that count different things: format_version, backend, page size, --approx).\n"
	"See memstat-diff(8).\n";

struct side {
	const char *file;
	json_t *doc;		/* the sample (owned) */
	long line;		/* its line in the file */
};

/* The first and last JSON objects of a file, one a line (memstat --json prints one). MS_EXIT_* */
static int load(const char *file, json_t **first, json_t **last, long *first_line,
		long *last_line)
{
	json_error_t err;
	char *line = NULL;
	size_t cap = 0;
	long no = 0;
	FILE *f = fopen(file, "re");
	int ret = MS_EXIT_OK;

	*first = *last = NULL;
	if (!f) {
		ms_err("diff: cannot open %s: %s", file, strerror(errno));
		return MS_EXIT_FAIL;
	}
	if (fgetc(f) != '{') {
		ms_err("diff: %s is not memstat JSON (a CSV log? diff reads --json output and "
		       "JSON-lines logs: -f jsonl)", file);
		fclose(f);
		return MS_EXIT_USAGE;
	}
	rewind(f);
	while (getline(&line, &cap, f) > 0) {
		json_t *o;

		no++;
		if (line[0] == '\n')
			continue;
		o = json_loads(line, 0, &err);
		if (!o || !json_is_object(o) || json_object_get(o, "error")) {
			/* a failed sample ({"error":...}) or a torn last line: skipped */
			json_decref(o);
			continue;
		}
		if (!*first) {
			*first = json_incref(o);
			*first_line = no;
		}
		json_decref(*last);
		*last = o;
		*last_line = no;
	}
	if (ferror(f)) {
		ms_err("diff: cannot read %s: %s", file, strerror(errno));
		ret = MS_EXIT_FAIL;
	} else if (!*first) {
		ms_err("diff: %s holds no memstat sample", file);
		ret = MS_EXIT_USAGE;
	}
	free(line);
	fclose(f);
	return ret;
}

/* add the counts of object from (or null) to object to, key by key */
static void add_counts(json_t *to, json_t *from)
{
	const char *key;
	json_t *v;

	json_object_foreach(from, key, v) {
		json_t *have = json_object_get(to, key);

		if (!json_is_integer(v))
			continue;
		json_object_set_new(to, key, json_integer(json_integer_value(v) +
							  (json_is_integer(have) ?
							   json_integer_value(have) : 0)));
	}
}

/*
 * memstat --json --by KEY prints the groups, not the classes: those are the sums of the
 * groups (and "other"), which always add up to the walk's total
 */
static void classes_from_groups(json_t *doc)
{
	json_t *groups = json_object_get(doc, "groups"), *pages, *detail, *g;
	size_t i;

	if (json_object_get(doc, "pages") || !json_is_array(groups))
		return;
	pages = json_object();
	detail = json_object();
	json_array_foreach(groups, i, g) {
		add_counts(pages, json_object_get(g, "pages"));
		add_counts(detail, json_object_get(g, "detail"));
	}
	add_counts(pages, json_object_get(json_object_get(doc, "other"), "pages"));
	add_counts(detail, json_object_get(json_object_get(doc, "other"), "detail"));
	json_object_set_new(doc, "pages", pages);
	json_object_set_new(doc, "detail", detail);
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* what makes two walks comparable: refused with one line (exit 2) when they differ */
static int comparable(const struct side *a, const struct side *b)
{
	static const char *const keys[] = { "format_version", "backend", "page_size" };
	json_t *pa = json_object_get(a->doc, "pages"), *pb = json_object_get(b->doc, "pages");

	if (!json_is_object(pa) || !json_is_object(pb) || !json_integer_value(
	    json_object_get(a->doc, "format_version"))) {
		ms_err("diff: %s is not memstat --json output (no \"pages\" or \"format_version\")",
		       !json_is_object(pa) || !json_integer_value(json_object_get(a->doc,
		       "format_version")) ? a->file : b->file);
		return MS_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *x = json_object_get(a->doc, keys[i]), *y = json_object_get(b->doc, keys[i]);

		if (!json_equal(x, y)) {
			char *sx = json_dumps(x, JSON_ENCODE_ANY), *sy = json_dumps(y, JSON_ENCODE_ANY);

			ms_err("diff: the walks are not comparable: %s is %s in %s and %s in %s",
			       keys[i], sx ? sx : "absent", a->file, sy ? sy : "absent", b->file);
			free(sx);
			free(sy);
			return MS_EXIT_USAGE;
		}
	}
	if (!json_object_get(a->doc, "approx") != !json_object_get(b->doc, "approx")) {
		ms_err("diff: the walks are not comparable: %s is an estimate (--approx) and %s an "
		       "exact walk", json_object_get(a->doc, "approx") ? a->file : b->file,
		       json_object_get(a->doc, "approx") ? b->file : a->file);
		return MS_EXIT_USAGE;
	}
	return MS_EXIT_OK;
}

/* one row of a table: a name and its two counts (-1: null on that side) */
struct row {
	char *name;
	long long a, b;
	const char *status;	/* groups: "appeared", "gone" or NULL */
};

static long long count_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

static long long change(const struct row *r)
{
	return (r->b < 0 ? 0 : r->b) - (r->a < 0 ? 0 : r->a);
}

static int by_change(const void *x, const void *y)
{
	long long a = llabs(change(x)), b = llabs(change(y));

	return a != b ? (a > b ? -1 : 1) : strcmp(((const struct row *)x)->name,
						  ((const struct row *)y)->name);
}

/* rows of the keys of object a and b (a's order, then b's own), both null skipped */
static size_t key_rows(json_t *a, json_t *b, struct row **out)
{
	size_t n = 0, cap = json_object_size(a) + json_object_size(b) + 1;
	struct row *r = calloc(cap, sizeof(*r));
	const char *key;
	json_t *v;

	*out = r;
	if (!r)
		return 0;
	json_object_foreach(a, key, v) {
		r[n].name = (char *)key;
		r[n].a = count_of(a, key);
		r[n].b = count_of(b, key);
		if (r[n].a >= 0 || r[n].b >= 0)
			n++;
	}
	json_object_foreach(b, key, v)
		if (!json_object_get(a, key) && json_is_integer(v)) {
			r[n].name = (char *)key;
			r[n].a = -1;
			r[n].b = json_integer_value(v);
			n++;
		}
	return n;
}

/* a group's identity: its name and its key's own id (cgroup id, dev, dev:inode) */
static char *group_id(json_t *g)
{
	const char *name = str_of(g, "name"), *dev = str_of(g, "dev");
	json_t *id = json_object_get(g, "id"), *ino = json_object_get(g, "inode");

	return ms_strdupf("%s|%s|%lld|%lld", name ? name : "", dev ? dev : "",
			  json_is_integer(id) ? (long long)json_integer_value(id) : -1LL,
			  json_is_integer(ino) ? (long long)json_integer_value(ino) : -1LL);
}

static json_t *find_group(json_t *groups, const char *id)
{
	size_t i;
	json_t *g;

	json_array_foreach(groups, i, g) {
		char *gid = group_id(g);
		bool same = gid && !strcmp(gid, id);

		free(gid);
		if (same)
			return g;
	}
	return NULL;
}

static long long group_total(json_t *g)
{
	return g ? count_of(json_object_get(g, "pages"), "total") : -1;
}

/* the groups of a and b (each once), with their totals; NULL groups when --by differs */
static size_t group_rows(json_t *ga, json_t *gb, struct row **out)
{
	size_t n = 0, i;
	struct row *r = calloc(json_array_size(ga) + json_array_size(gb) + 1, sizeof(*r));
	json_t *g;

	*out = r;
	if (!r)
		return 0;
	json_array_foreach(ga, i, g) {
		char *id = group_id(g);
		json_t *other = id ? find_group(gb, id) : NULL;

		free(id);
		r[n].name = (char *)str_of(g, "name");
		r[n].a = group_total(g);
		r[n].b = other ? group_total(other) : -1;
		r[n].status = other ? NULL : "gone";
		n += r[n].name != NULL;
	}
	json_array_foreach(gb, i, g) {
		char *id = group_id(g);
		bool seen = id && find_group(ga, id);

		free(id);
		if (seen)
			continue;
		r[n].name = (char *)str_of(g, "name");
		r[n].a = -1;
		r[n].b = group_total(g);
		r[n].status = "appeared";
		n += r[n].name != NULL;
	}
	return n;
}

static double mb(long long pages, long page_size)
{
	return (double)pages * (double)page_size / (1024.0 * 1024.0);
}

static void print_rows(const char *what, struct row *r, size_t n, long ps, bool all)
{
	qsort(r, n, sizeof(*r), by_change);
	printf("%-44s %12s %12s %12s %12s\n", what, "A MB", "B MB", "Change MB", "Pages");
	for (size_t i = 0; i < n; i++) {
		char *name;

		if (!all && !change(&r[i]) && !r[i].status)
			continue;
		name = ms_esc_str(r[i].name, MS_ESC_TERM);
		printf("%-44s ", name ? name : "?");
		free(name);
		if (r[i].a < 0)
			printf("%12s ", "-");
		else
			printf("%12.1f ", mb(r[i].a, ps));
		if (r[i].b < 0)
			printf("%12s ", "-");
		else
			printf("%12.1f ", mb(r[i].b, ps));
		printf("%+12.1f %+12lld%s%s\n", mb(change(&r[i]), ps), change(&r[i]),
		       r[i].status ? "  " : "", r[i].status ? r[i].status : "");
	}
}

/* {key: b - a, ...}: null where both are null */
static void json_change(struct ms_jw *w, const char *name, struct row *r, size_t n)
{
	ms_jw_object_field(w, name);
	for (size_t i = 0; i < n; i++)
		ms_jw_i64_field(w, r[i].name, change(&r[i]));
	ms_jw_end_object(w);
}

static void json_side(struct ms_jw *w, const char *name, const struct side *s)
{
	const char *ts = str_of(s->doc, "timestamp");

	ms_jw_object_field(w, name);
	ms_jw_string_field(w, "file", s->file);
	ms_jw_i64_field(w, "line", s->line);
	if (ts)
		ms_jw_string_field(w, "timestamp", ts);
	else
		ms_jw_null_field(w, "timestamp");
	ms_jw_end_object(w);
}

static int report(const struct side *a, const struct side *b, bool as_json)
{
	long ps = (long)json_integer_value(json_object_get(a->doc, "page_size"));
	json_t *ga = json_object_get(a->doc, "groups"), *gb = json_object_get(b->doc, "groups");
	const char *bya = str_of(a->doc, "by"), *byb = str_of(b->doc, "by");
	bool groups = bya && byb && !strcmp(bya, byb) && json_is_array(ga) && json_is_array(gb);
	struct row *cls, *sub, *grp = NULL;
	size_t ncls, nsub, ngrp = 0;
	struct ms_jw w;

	ncls = key_rows(json_object_get(a->doc, "pages"), json_object_get(b->doc, "pages"), &cls);
	nsub = key_rows(json_object_get(a->doc, "detail"), json_object_get(b->doc, "detail"), &sub);
	if (groups)
		ngrp = group_rows(ga, gb, &grp);
	if (!cls || !sub || (groups && !grp)) {
		ms_err("diff: out of memory");
		free(cls);
		free(sub);
		free(grp);
		return MS_EXIT_FAIL;
	}
	if ((bya || byb) && !groups)
		ms_err("diff: groups not compared: %s %s, %s %s", a->file,
		       bya ? bya : "has no --by", b->file, byb ? byb : "has no --by");
	if (as_json) {
		ms_jw_init(&w, stdout);
		ms_jw_start_object(&w);
		ms_jw_i64_field(&w, "format_version", json_integer_value(json_object_get(a->doc,
				"format_version")));
		json_side(&w, "a", a);
		json_side(&w, "b", b);
		ms_jw_string_field(&w, "backend", str_of(a->doc, "backend"));
		ms_jw_i64_field(&w, "page_size", ps);
		json_change(&w, "pages", cls, ncls);
		json_change(&w, "detail", sub, nsub);
		if (groups) {
			ms_jw_string_field(&w, "by", bya);
			ms_jw_array_field(&w, "groups");
			qsort(grp, ngrp, sizeof(*grp), by_change);
			for (size_t i = 0; i < ngrp; i++) {
				ms_jw_start_object(&w);
				ms_jw_string_field(&w, "name", grp[i].name);
				ms_jw_string_field(&w, "status", grp[i].status ? grp[i].status :
						   "both");
				ms_jw_i64_field(&w, "total", change(&grp[i]));
				ms_jw_end_object(&w);
			}
			ms_jw_end_array(&w);
		}
		ms_jw_end_object(&w);
		fputc('\n', stdout);
	} else {
		const char *ta = str_of(a->doc, "timestamp"), *tb = str_of(b->doc, "timestamp");

		printf("A: %s:%ld%s%s\nB: %s:%ld%s%s\n\n", a->file, a->line, ta ? "  " : "",
		       ta ? ta : "", b->file, b->line, tb ? "  " : "", tb ? tb : "");
		print_rows("Class", cls, ncls, ps, true);
		printf("\n");
		print_rows("Sub-class (changed)", sub, nsub, ps, false);
		if (groups) {
			printf("\n");
			print_rows(bya, grp, ngrp, ps, false);
		}
		printf("(largest change first; Pages: the change in %ld-byte pages)\n", ps);
	}
	free(cls);
	free(sub);
	free(grp);
	return fflush(stdout) || ferror(stdout) ? MS_EXIT_FAIL : MS_EXIT_OK;
}

int ms_diff_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct side a = {}, b = {};
	json_t *first = NULL, *last = NULL, *unused;
	long l1 = 0, l2 = 0, u;
	bool as_json = false;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return MS_EXIT_OK;
		default:
			return ms_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return ms_usage_error("diff", "expected one log, or two files: memstat diff A [B]");
	a.file = argv[optind];
	b.file = argc - optind == 2 ? argv[optind + 1] : argv[optind];
	ret = load(a.file, &first, &last, &l1, &l2);
	if (ret)
		return ret;
	if (argc - optind == 1) {
		if (l1 == l2) {
			json_decref(first);
			json_decref(last);
			return ms_usage_error("diff", "%s holds one sample: give two files, or a log "
					      "of two samples or more", a.file);
		}
		a.doc = first;
		b.doc = last;
		a.line = l1;
		b.line = l2;
	} else {
		json_decref(first);
		a.doc = last;
		a.line = l2;
		ret = load(b.file, &unused, &b.doc, &u, &b.line);
		json_decref(unused);
		if (ret) {
			json_decref(a.doc);
			return ret;
		}
	}
	classes_from_groups(a.doc);
	if (b.doc != a.doc)
		classes_from_groups(b.doc);
	ret = comparable(&a, &b);
	if (!ret)
		ret = report(&a, &b, as_json);
	json_decref(a.doc);
	json_decref(b.doc);
	return ret;
}
