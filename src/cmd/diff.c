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
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <time.h>
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
	"Usage: memstat diff [--json] [--from TIME] [--to TIME] A [B]\n"
	"What grew and what shrank from A to B: per class, sub-class and group (--by), largest\n"
	"change first. A and B are `memstat --json` outputs or logs (memstat -o LOG: JSON lines\n"
	"or CSV), of which the last sample counts; with one log, its first and last samples.\n"
	"\n"
	"  -j, --json             one JSON object: the inputs' keys, every count B - A\n"
	"      --from TIME        only samples at TIME or later: A's first (UTC: 09:00,\n"
	"                         09:00:30, 2026-11-28T09:00 or seconds since the epoch; a\n"
	"                         time of day is of the day of the log's first sample)\n"
	"      --to TIME          only samples at TIME or earlier: B's last\n"
	"  -h, --help             print this help\n"
	"\n"
	"Exit codes: 0 ok, 1 a file cannot be read, 2 bad input (usage, not a memstat log,\n"
	"walks that count different things: format_version, backend, page size, --approx).\n"
	"See memstat-diff(8).\n";

struct side {
	const char *file;
	json_t *doc;		/* the sample (owned) */
	long line;		/* its line in the file */
};

/* the samples of a log between --from and --to (epoch seconds; NAN: no bound) */
struct window {
	double from, to;
};

/*
 * A row of a CSV log as the object of its JSON line: timestamp, epoch, backend, pages (the
 * classes and total) and detail (the detail_<key> columns, an empty field null), page_size
 * this machine's (a CSV log counts pages), format_version 2, or 1 for a log of the columns
 * before detail_ (its sub-classes unnamed here), and "approx" when it has the estimate's
 * columns. NULL for a row that is not a sample (a torn line) or a header again.
 */
/* the fields of a CSV line, split in place (ms_csv_split()); NULL: out of memory */
static char **split_fields(char *line, size_t *n)
{
	char **f = malloc(MS_CSV_MAX_FIELDS * sizeof(*f));

	if (f)
		*n = ms_csv_split(line, f, MS_CSV_MAX_FIELDS);
	return f;
}

/* a whole number of pages, or -1 (an empty field: null) or -2 (not a number) */
static long long csv_count(const char *s)
{
	char *end;
	long long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return *end || errno || v < 0 ? -2 : v;
}

/*
 * A row of a CSV log as the object of its JSON line: timestamp, epoch, backend, pages (the
 * classes and total) and detail (the detail_<key> columns, an empty field null), page_size
 * this machine's (a CSV log counts pages), format_version 2, or 1 for a log of the columns
 * before detail_ (whose sub-classes are left out), and "approx" when it has the estimate's
 * columns. NULL for a row that is not a sample (a torn line).
 */
static json_t *csv_object(char **head, size_t nhead, char *line)
{
	json_t *o, *pages, *detail;
	size_t n, i;
	char **f = split_fields(line, &n);
	bool v2 = false, bad = false;
	char *end;
	double epoch;

	if (!f || n != nhead) {
		free(f);
		return NULL;
	}
	epoch = strtod(f[1], &end);
	if (*end || end == f[1]) {
		free(f);
		return NULL;
	}
	o = json_object();
	pages = json_object();
	detail = json_object();
	for (i = 0; i < nhead; i++)
		v2 |= !strncmp(head[i], "detail_", 7);
	for (i = 3; i < nhead && !bad; i++) {
		bool cls = !strcmp(head[i], "total");
		long long v;

		for (int c = 0; c < MS_NR_CLASSES && !cls; c++)
			cls = !strcmp(head[i], ms_classes[c].key);
		if (!strncmp(head[i], "approx_", 7))
			json_object_set_new(o, "approx", json_object());
		if (!cls && strncmp(head[i], "detail_", 7))
			continue;	/* holes, walk_ms, err_*, attr_*, v1's sub-classes */
		if (cls && json_object_get(pages, head[i]))
			continue;	/* v1: a sub-class of a class's name */
		v = csv_count(f[i]);
		bad = v == -2 || (cls && v < 0);
		if (cls)
			json_object_set_new(pages, head[i], json_integer(v));
		else
			json_object_set_new(detail, head[i] + 7, v < 0 ? json_null() : json_integer(v));
	}
	if (bad || !json_object_get(pages, "total")) {
		free(f);
		json_decref(o);
		json_decref(pages);
		json_decref(detail);
		return NULL;
	}
	json_object_set_new(o, "format_version", json_integer(v2 ? 2 : 1));
	json_object_set_new(o, "timestamp", json_string(f[0]));
	json_object_set_new(o, "epoch", json_real(epoch));
	json_object_set_new(o, "backend", json_string(f[2]));
	json_object_set_new(o, "page_size", json_integer(sysconf(_SC_PAGESIZE)));
	json_object_set_new(o, "pages", pages);
	json_object_set_new(o, "detail", detail);
	free(f);
	return o;
}

/* a time of day (negative) on the UTC day of the file's first sample, whose epoch is first */
static double on_day(double t, double first)
{
	return t < 0 ? floor(first / 86400) * 86400 + (-1.0 - t) : t;
}

/*
 * The first and last samples of a file in the window, one a line: JSON lines (memstat --json
 * prints one) or a CSV log. A bound that is a time of day (negative) is made the time on the day
 * of the file's first sample, in *win, when that sample is read. MS_EXIT_*
 */
static int load(const char *file, struct window *win, json_t **first, json_t **last,
		long *first_line, long *last_line)
{
	json_error_t err;
	char *line = NULL, *hdr = NULL, **head = NULL;
	size_t cap = 0, nhead = 0;
	long no = 0;
	FILE *f = fopen(file, "re");
	int ret = MS_EXIT_OK, c;

	*first = *last = NULL;
	if (!f) {
		ms_err("diff: cannot open %s: %s", file, strerror(errno));
		return MS_EXIT_FAIL;
	}
	c = fgetc(f);
	rewind(f);
	while (getline(&line, &cap, f) > 0) {
		json_t *o;
		double t;

		no++;
		if (line[0] == '\n')
			continue;
		if (c != '{' && !strncmp(line, "timestamp,epoch,", 16)) {	/* a CSV header */
			free(hdr);
			free(head);
			hdr = strdup(line);
			head = hdr ? split_fields(hdr, &nhead) : NULL;
			if (!head) {
				ms_err("diff: out of memory");
				ret = MS_EXIT_FAIL;
				break;
			}
			continue;
		}
		o = c == '{' ? json_loads(line, 0, &err) : head ? csv_object(head, nhead, line) : NULL;
		if (!o || !json_is_object(o) || json_object_get(o, "error")) {
			/* a failed sample ({"error":...}) or a torn last line: skipped */
			json_decref(o);
			continue;
		}
		t = json_number_value(json_object_get(o, "epoch"));
		if (win->from < 0 || win->to < 0) {	/* the day of the first sample */
			win->from = isnan(win->from) ? NAN : on_day(win->from, t);
			win->to = isnan(win->to) ? NAN : on_day(win->to, t);
			if (!isnan(win->from) && !isnan(win->to) && win->to < win->from) {
				json_decref(o);
				ret = ms_usage_error("diff", "%s", "--to is before --from");
				break;
			}
		}
		if ((!isnan(win->from) && t < win->from) || (!isnan(win->to) && t > win->to)) {
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
	} else if (!ret && !*first) {
		if (c != '{' && !head)
			ms_err("diff: %s is not a memstat log (--json output, JSON lines or a CSV log of "
			       "memstat -o)", file);
		else if (!isnan(win->from) || !isnan(win->to))
			ms_err("diff: %s holds no memstat sample between --from and --to", file);
		else
			ms_err("diff: %s holds no memstat sample", file);
		ret = MS_EXIT_USAGE;
	}
	free(head);
	free(hdr);
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
		printf("%+12.1f %+12lld%s%s\n", fabs(mb(change(&r[i]), ps)) < 0.05 ? 0.0 :
		       mb(change(&r[i]), ps), change(&r[i]),
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

/*
 * --from/--to: seconds since the epoch; "YYYY-MM-DDTHH:MM[:SS][Z]" (UTC); or "HH:MM[:SS]",
 * returned negative (-1 - seconds into the day) for the day of the first sample. NAN: bad.
 */
static double parse_time(const char *s)
{
	struct tm tm = {};
	const char *end;
	char *e;
	double v;

	errno = 0;
	v = strtod(s, &e);
	if (e != s && !*e && !errno && v >= 0 && strchr(s, ':') == NULL)
		return v;
	end = strptime(s, "%Y-%m-%dT%H:%M", &tm);
	if (end) {
		if (*end == ':')
			end = strptime(end, ":%S", &tm);
		if (end && *end == 'Z')
			end++;
		return end && !*end ? (double)timegm(&tm) : NAN;
	}
	end = strptime(s, "%H:%M", &tm);
	if (end && *end == ':')
		end = strptime(end, ":%S", &tm);
	return end && !*end ? -1.0 - (tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec) : NAN;
}


int ms_diff_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct window win = { NAN, NAN };
	double from = NAN, to = NAN;
	struct side a = {}, b = {};
	json_t *first = NULL, *last = NULL, *unused;
	long l1 = 0, l2 = 0, u;
	bool as_json = false;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = true;
			break;
		case 'F':
		case 'T':
			if (isnan(c == 'F' ? (from = parse_time(optarg)) : (to = parse_time(optarg))))
				return ms_usage_error("diff", "invalid --%s '%s': expected a UTC time "
						      "(09:00, 09:00:30, 2026-11-28T09:00) or seconds since "
						      "the epoch", c == 'F' ? "from" : "to", optarg);
			break;
		case ':':
			return ms_usage_error("diff", "option '%s' needs an argument", argv[optind - 1]);
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
	if ((!isnan(from) || !isnan(to)) && argc - optind == 2)
		return ms_usage_error("diff", "%s", "--from and --to choose the samples of one log: "
				      "memstat diff --from TIME --to TIME LOG");
	win.from = from;	/* a time of day: load() puts it on the day of the first sample */
	win.to = to;
	if (from >= 0 && to >= 0 && to < from)
		return ms_usage_error("diff", "%s", "--to is before --from");
	ret = load(a.file, &win, &first, &last, &l1, &l2);
	if (ret)
		return ret;
	if (argc - optind == 1) {
		if (l1 == l2) {
			json_decref(first);
			json_decref(last);
			return ms_usage_error("diff", "%s holds one sample%s: give two files, or a log "
					      "of two samples or more", a.file, isnan(from) &&
					      isnan(to) ? "" : " between --from and --to");
		}
		a.doc = first;
		b.doc = last;
		a.line = l1;
		b.line = l2;
	} else {
		json_decref(first);
		a.doc = last;
		a.line = l2;
		ret = load(b.file, &win, &unused, &b.doc, &u, &b.line);
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
