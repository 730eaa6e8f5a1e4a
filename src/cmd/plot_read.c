// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat plot's reader of sampling logs (picture.h ms_plot_read()): CSV, its columns found by
 * name in each header (a header may come again within a file), or JSON lines; a data row that
 * cannot be read is skipped and counted, a file that is not a memstat log refused.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "picture.h"

static int add_sample(struct ms_plot *p, const struct ms_plot_sample *s)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 1024;
		struct ms_plot_sample *n = realloc(p->s, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->s = n;
		p->cap = cap;
	}
	p->s[p->n++] = *s;
	return 0;
}

static void skip(struct ms_plot *p, const char *path, size_t line)
{
	if (!p->skipped++)
		snprintf(p->skipped_at, sizeof(p->skipped_at), "%s:%zu", path, line);
}

/* a non-negative finite number that fills the whole field */
static bool number(const char *s, double *v)
{
	char *end;

	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return !*end && !errno && isfinite(*v) && *v >= 0;
}

/* the classes --wss tracks: its working set's, and the resident size drawn beside it */
const enum ms_class ms_plot_wss_classes[MS_PLOT_NWSS] = { MS_C_ANON, MS_C_SHMEM, MS_C_EXEC,
							 MS_C_PAGE_CACHE };

struct csv_cols {
	size_t n;			/* fields per row */
	long epoch;			/* column index, -1: none */
	long cls[MS_NR_CLASSES];	/* -1: absent (0) */
	long wss[MS_PLOT_NWSS];			/* wss_accessed_<class> (--wss), -1: absent */
	long wss_file;				/* wss_accessed_file_backed, -1: absent */
};

/* the columns a header names; false when it is not a memstat header */
static bool csv_header(char *line, struct csv_cols *c, char *why, size_t whylen)
{
	static const enum ms_class needed[] = { MS_C_KERNEL, MS_C_ANON, MS_C_PAGE_CACHE,
						MS_C_FREE };
	char *f[MS_CSV_MAX_FIELDS];
	size_t n = ms_csv_split(line, f, MS_CSV_MAX_FIELDS);

	c->n = n;
	c->epoch = -1;
	for (int k = 0; k < MS_NR_CLASSES; k++)
		c->cls[k] = -1;
	for (size_t k = 0; k < MS_PLOT_NWSS; k++)
		c->wss[k] = -1;
	c->wss_file = -1;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(f[i], "epoch"))
			c->epoch = (long)i;
		if (!strcmp(f[i], "wss_accessed_file_backed"))
			c->wss_file = (long)i;
		for (size_t k = 0; k < MS_PLOT_NWSS; k++)
			if (!strncmp(f[i], "wss_accessed_", 13) &&
			    !strcmp(f[i] + 13, ms_classes[ms_plot_wss_classes[k]].key))
				c->wss[k] = (long)i;
		for (int k = 0; k < MS_NR_CLASSES; k++)
			if (!strcmp(f[i], ms_classes[k].key))
				c->cls[k] = (long)i;
	}
	if (n < 2 || strcmp(f[0], "timestamp") || c->epoch < 0) {
		snprintf(why, whylen, "not a memstat log: its header has no 'timestamp' and "
			 "'epoch' columns");
		return false;
	}
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (c->cls[needed[i]] < 0) {
			snprintf(why, whylen, "not a memstat log: its header has no '%s' column",
				 ms_classes[needed[i]].key);
			return false;
		}
	return true;
}

/*
 * A sample's time must be one the axis can write: at most 9999-12-31 23:59:59 UTC (a larger one,
 * or one past what time_t holds, as 1e34 from a damaged line, makes the line unreadable)
 */
#define MAX_EPOCH 253402300799.0

static bool csv_row(char *line, const struct csv_cols *c, double page_size,
		    struct ms_plot_sample *s)
{
	char *f[MS_CSV_MAX_FIELDS];
	size_t n = ms_csv_split(line, f, MS_CSV_MAX_FIELDS);

	if (n != c->n || !number(f[c->epoch], &s->t) || s->t > MAX_EPOCH)
		return false;
	for (int k = 0; k < MS_NR_CLASSES; k++) {
		s->pages[k] = 0;
		if (c->cls[k] >= 0 && !number(f[c->cls[k]], &s->pages[k]))
			return false;
	}
	s->page_size = page_size;
	s->brk = false;
	s->has_wss = true;
	s->wss = 0;
	/* anon and file-backed where the log has them (DAMON's tells no other class) */
	if (c->wss_file >= 0 && c->wss[0] >= 0) {
		double v;

		if (!number(f[c->wss[0]], &s->wss) || !number(f[c->wss_file], &v))
			return false;
		s->wss += v;
		return true;
	}
	for (size_t k = 0; k < MS_PLOT_NWSS; k++) {
		double v;

		if (c->wss[k] < 0) {
			s->has_wss = false;
			break;
		}
		if (!number(f[c->wss[k]], &v))
			return false;
		s->wss += v;
	}
	return true;
}

/*
 * The number after "key": in a JSON object's text: 1, and *v set; 0 when the key is absent; -1
 * when its value is no non-negative finite number (*v is then left as it was)
 */
static int json_number(const char *obj, const char *key, double *v)
{
	char pat[64];
	const char *p;
	char *end;
	double x;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(obj, pat);
	if (!p)
		return 0;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	errno = 0;
	x = strtod(p, &end);
	if (end == p || errno || !isfinite(x) || x < 0 ||
	    (*end != ',' && *end != '}' && *end != ' '))
		return -1;
	*v = x;
	return 1;
}

/* the object of numbers that starts at p ("{...}", no object inside) into obj: 0, or -1 */
static int inner_object(const char *p, char *obj, size_t objlen)
{
	const char *close = strchr(p, '}');
	size_t len = close ? (size_t)(close - p + 1) : objlen;

	if (len >= objlen)
		return -1;
	memcpy(obj, p, len);
	obj[len] = 0;
	return 0;
}

/* one JSON line: 1 a sample, 0 a memstat line without one (an error object), -1 unreadable */
static int json_row(const char *line, struct ms_plot_sample *s)
{
	const char *pages, *file;
	char obj[1024];

	if (strncmp(line, "{", 1))
		return -1;
	if (!strncmp(line, "{\"error\":", 9))
		return 0;
	pages = strstr(line, "\"pages\":{");
	if (!pages || json_number(line, "epoch", &s->t) < 1 || s->t > MAX_EPOCH)
		return -1;
	if (inner_object(pages + 8, obj, sizeof(obj)))
		return -1;
	for (int k = 0; k < MS_NR_CLASSES; k++) {
		int r;

		s->pages[k] = 0;
		r = json_number(obj, ms_classes[k].key, &s->pages[k]);
		/* a class may be absent (an older log), but not damaged */
		if (r < 0 || (!r && (k == MS_C_KERNEL || k == MS_C_ANON ||
				     k == MS_C_PAGE_CACHE || k == MS_C_FREE)))
			return -1;
	}
	if (json_number(line, "page_size", &s->page_size) < 1 || s->page_size < 512)
		s->page_size = (double)sysconf(_SC_PAGESIZE);
	s->brk = false;
	s->has_wss = false;
	s->wss = 0;
	/* --wss: the machine's "wss":{"mechanism":...,"accessed":{"anon":N,...}...} (a group's
	 * "wss" of --by has no mechanism) */
	pages = strstr(line, "\"wss\":{\"mechanism\":");
	file = pages ? strstr(pages, "\"file_backed\":{") : NULL;
	pages = pages ? strstr(pages, "\"accessed\":{") : NULL;
	if (pages && file) {	/* anon and file-backed (DAMON's tells no other class) */
		double v;

		if (inner_object(pages + 11, obj, sizeof(obj)) ||
		    json_number(obj, ms_classes[MS_C_ANON].key, &s->wss) < 1 ||
		    inner_object(file + 14, obj, sizeof(obj)) || json_number(obj, "accessed", &v) < 1)
			return -1;
		s->wss += v;
		s->has_wss = true;
	} else if (pages) {	/* a log of before file_backed: the classes' sum */
		if (inner_object(pages + 11, obj, sizeof(obj)))
			return -1;
		for (size_t k = 0; k < MS_PLOT_NWSS; k++) {
			double v;

			if (json_number(obj, ms_classes[ms_plot_wss_classes[k]].key, &v) < 1)
				return -1;
			s->wss += v;
		}
		s->has_wss = true;
	}
	return 1;
}

int ms_plot_read(struct ms_plot *p, const char *path, char *why, size_t whylen)
{
	double page_size = (double)sysconf(_SC_PAGESIZE);
	size_t lineno = 0, before = p->n;
	struct csv_cols cols = {};
	char *line = NULL, reason[200];
	bool csv = false, started = false;
	size_t cap = 0;
	struct stat st;
	ssize_t len;
	FILE *f;
	int fd, ret = 0;

	/* O_NONBLOCK: a FIFO would block the open until a writer came; it is refused below */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: cannot read the log: %s", path, strerror(errno));
		return MS_EXIT_USAGE;
	}
	if (fstat(fd, &st)) {
		snprintf(why, whylen, "%s: cannot read the log: %s", path, strerror(errno));
		close(fd);
		return MS_EXIT_USAGE;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s: cannot read the log: %s", path,
			 S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file");
		close(fd);
		return MS_EXIT_USAGE;
	}
	f = fdopen(fd, "r");
	if (!f) {
		snprintf(why, whylen, "%s: cannot read the log: %s", path, strerror(errno));
		close(fd);
		return MS_EXIT_USAGE;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		struct ms_plot_sample s;

		lineno++;
		if (line[0] == '\n' || (line[0] == '\r' && line[1] == '\n'))
			continue;
		if (!started) {
			started = true;
			csv = line[0] != '{';
			if (csv && !csv_header(line, &cols, reason, sizeof(reason))) {
				snprintf(why, whylen, "%s: line %zu: %s", path, lineno, reason);
				ret = MS_EXIT_USAGE;
				break;
			}
			if (csv)
				continue;
		}
		if (csv && !strncmp(line, "timestamp,", 10)) {
			/* a header again: logs joined after a rotation, or another version's */
			if (!csv_header(line, &cols, reason, sizeof(reason))) {
				snprintf(why, whylen, "%s: line %zu: %s", path, lineno, reason);
				ret = MS_EXIT_USAGE;
				break;
			}
			continue;
		}
		if (csv) {
			if (!csv_row(line, &cols, page_size, &s)) {
				skip(p, path, lineno);
				continue;
			}
		} else {
			int r = json_row(line, &s);

			if (r < 0)
				skip(p, path, lineno);
			if (r <= 0)
				continue;	/* 0: {"error":...}, a failed sample */
		}
		if (add_sample(p, &s)) {
			snprintf(why, whylen, "%s: out of memory", path);
			ret = MS_EXIT_FAIL;
			break;
		}
	}
	if (!ret && ferror(f)) {
		snprintf(why, whylen, "%s: cannot read the log: %s", path, strerror(errno));
		ret = MS_EXIT_USAGE;
	}
	if (!ret && p->n == before) {
		snprintf(why, whylen, "%s: no samples in this file: not a memstat log (CSV or JSON "
			 "lines of memstat -o)", path);
		ret = MS_EXIT_USAGE;
	}
	free(line);
	fclose(f);
	return ret;
}
