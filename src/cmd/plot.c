// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat plot LOG... -o FILE.svg|.png: the classes of a sampling log over time, as stacked
 * areas (MB) over a time axis (UTC).
 *
 * A log is a CSV log (a header naming the columns, then one row per sample) or a JSON-lines
 * log (one `memstat --json` object per line with "epoch"), told apart by its first character.
 * The columns are found by name in each header, and a header may come again within a file (logs
 * joined after a rotation, or a log restarted by another version: --rotate-incompatible keeps
 * the old one aside, and both may be given, oldest first): plot_read.c. The areas break where time goes
 * back (a clock set back, logs given out of order) or jumps by more than MS_PLOT_GAP times the
 * usual interval (memstat stopped, a reboot); a dashed line marks each break. A data row that
 * cannot be read (the torn last line of a crash) is skipped and counted on stderr; a file that
 * is not a memstat log at all is refused with exit 2.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "picture.h"
#include "svg.h"

#define MS_PLOT_GAP	3.0	/* a step of more than this many usual intervals is a gap */
#define W	1200.0
#define H	620.0
#define PX	90.0		/* the plot area */
#define PY	70.0
#define PW	820.0
#define PH	460.0

/* bottom to top */
static const enum ms_class stack[] = { MS_C_KERNEL, MS_C_ANON, MS_C_SHMEM, MS_C_EXEC,
				       MS_C_PAGE_CACHE, MS_C_HUGETLB, MS_C_UNKNOWN, MS_C_FREE };
#define NSTACK (sizeof(stack) / sizeof(stack[0]))

static const char usage_text[] =
	"Usage: memstat plot [--hide CLASS,... | --only CLASS,...] [--log] LOG... -o FILE\n"
	"Draw a sampling log (memstat -o LOG, CSV or JSON lines) as stacked areas of the\n"
	"classes in MB over time. Several logs (a rotated log's files, oldest first) make one\n"
	"picture; the areas break where time goes back or samples stop for a while (a reboot).\n"
	"\n"
	"      --hide CLASS,...   leave these classes out of the stack (kernel, anon, shmem,\n"
	"                         exec, page_cache, hugetlb, unknown, free): --hide free\n"
	"                         scales the picture to what is in use\n"
	"      --only CLASS,...   draw only these classes\n"
	"      --log              each class a line on a log scale, not stacked: small\n"
	"                         classes stay visible beside Free\n"
	"  -o, --output FILE      the picture: FILE.svg, or FILE.png (rendered by\n"
	"                         rsvg-convert); replaced whole, or left as it was on a\n"
	"                         failure; - (or /dev/stdout, /dev/fd/N): the SVG there\n"
	"  -h, --help             print this help\n"
	"\n"
	"See memstat-plot(8).\n";

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void ms_plot_breaks(struct ms_plot *p)
{
	double *dt, usual;
	size_t n = 0;

	if (p->n < 2)
		return;
	dt = malloc((p->n - 1) * sizeof(*dt));
	if (!dt)
		return;
	for (size_t i = 1; i < p->n; i++)
		if (p->s[i].t > p->s[i - 1].t)
			dt[n++] = p->s[i].t - p->s[i - 1].t;
	qsort(dt, n, sizeof(*dt), cmp_double);
	usual = n ? dt[n / 2] : 0;
	free(dt);
	for (size_t i = 1; i < p->n; i++) {
		double d = p->s[i].t - p->s[i - 1].t;

		p->s[i].brk = d <= 0 || (usual > 0 && d > MS_PLOT_GAP * usual);
	}
}

void ms_plot_size(const struct ms_plot *p, double *w, double *h)
{
	(void)p;
	*w = W;
	*h = H;
}

static double mb(const struct ms_plot_sample *s, int k)
{
	return s->pages[k] * s->page_size / (1024.0 * 1024.0);
}

/*
 * one sample's stack: top[j] the MB under and including stack[j] (a hidden class adds none);
 * --log: each class's own MB
 */
static void cumulate(const struct ms_plot *p, const struct ms_plot_sample *s, double *top)
{
	double sum = 0;

	for (size_t j = 0; j < NSTACK; j++) {
		if (!(p->hide & (1U << stack[j])))
			sum = (p->log ? 0 : sum) + mb(s, stack[j]);
		top[j] = p->log && (p->hide & (1U << stack[j])) ? 0 : sum;
	}
}

static void fmt_time(double v, double step, char *buf, size_t len, void *arg)
{
	time_t t = (time_t)llround(v);
	struct tm tm;

	(void)arg;
	gmtime_r(&t, &tm);
	strftime(buf, len, step >= 86400 ? "%Y-%m-%d" : step < 60 ? "%H:%M:%S" : "%H:%M", &tm);
}

static void fmt_mb(double v, double step, char *buf, size_t len, void *arg)
{
	(void)arg;
	if (step < 1)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.0f", v);
}

/*
 * The points of one segment [a, b), merged so that there is at most one point per pixel
 * column: x[] and the cumulated tops (NSTACK per point). Returns the points.
 */
static size_t segment_points(const struct ms_plot *p, size_t a, size_t b, double t0, double t1,
			     double *x, double *top)
{
	size_t n = 0, in = 0;
	double col = -1, acc[NSTACK] = { 0 }, ax = 0;

	for (size_t i = a; i < b; i++) {
		double px = PX + (p->s[i].t - t0) / (t1 - t0) * PW, one[NSTACK];

		cumulate(p, &p->s[i], one);
		if (in && floor(px) != col) {
			x[n] = ax / in;
			for (size_t j = 0; j < NSTACK; j++)
				top[n * NSTACK + j] = acc[j] / in;
			n++;
			in = 0;
			ax = 0;
			memset(acc, 0, sizeof(acc));
		}
		col = floor(px);
		ax += px;
		for (size_t j = 0; j < NSTACK; j++)
			acc[j] += one[j];
		in++;
	}
	if (in) {
		x[n] = ax / in;
		for (size_t j = 0; j < NSTACK; j++)
			top[n * NSTACK + j] = acc[j] / in;
		n++;
	}
	return n;
}

static int draw_areas(struct ms_svg *s, const struct ms_plot *p, const struct ms_svg_axis *ya,
		      double t0, double t1)
{
	double *x = malloc(p->n * sizeof(*x)), *top = malloc(p->n * NSTACK * sizeof(*top));
	double *xy = malloc((4 * p->n + 8) * sizeof(*xy));
	bool seen[NSTACK] = { false };	/* --log: a class never above 0 has no line */
	size_t a = 0;

	for (size_t i = 0; i < p->n; i++)
		for (size_t j = 0; j < NSTACK; j++)
			seen[j] |= p->s[i].pages[stack[j]] > 0;

	if (!x || !top || !xy) {
		free(x);
		free(top);
		free(xy);
		return -ENOMEM;
	}
	while (a < p->n) {
		size_t b = a + 1, n;

		while (b < p->n && !p->s[b].brk)
			b++;
		n = segment_points(p, a, b, t0, t1, x, top);
		for (size_t j = 0; j < NSTACK; j++) {
			size_t k = 0;

			if (p->hide & (1U << stack[j]) || (p->log && !seen[j]))
				continue;
			if (p->log) {	/* a line, a dot for a sample alone */
				for (size_t i = 0; i < n; i++) {
					xy[k++] = x[i];
					xy[k++] = ms_svg_axis_pos(ya, top[i * NSTACK + j]);
				}
				if (n == 1)
					ms_svg_rect(s, x[0] - 2, xy[1] - 2, 4, 4,
						    ms_class_colours[stack[j]], NULL, 0);
				else
					ms_svg_polyline(s, xy, n, ms_class_colours[stack[j]], 2);
				continue;
			}
			if (n == 1) {	/* one sample alone: a bar 3 pixels wide */
				double lo = j ? top[j - 1] : 0;

				ms_svg_rect(s, x[0] - 1.5, ms_svg_axis_pos(ya, top[j]), 3,
					    ms_svg_axis_pos(ya, lo) - ms_svg_axis_pos(ya, top[j]),
					    ms_class_colours[stack[j]], NULL, 0);
				continue;
			}
			for (size_t i = 0; i < n; i++) {
				xy[k++] = x[i];
				xy[k++] = ms_svg_axis_pos(ya, top[i * NSTACK + j]);
			}
			for (size_t i = n; i-- > 0;) {
				xy[k++] = x[i];
				xy[k++] = ms_svg_axis_pos(ya, j ? top[i * NSTACK + j - 1] : 0);
			}
			ms_svg_polygon(s, xy, k / 2, ms_class_colours[stack[j]], NULL, 0);
		}
		a = b;
	}
	free(x);
	free(top);
	free(xy);
	return 0;
}

/* --wss logs: the resident size (0) or the working set (1) of a sample, in MB */
static double wss_line_mb(const struct ms_plot_sample *s, int which)
{
	double v = 0;

	if (which)
		return s->wss * s->page_size / (1024.0 * 1024.0);
	for (size_t k = 0; k < MS_PLOT_NWSS; k++)
		v += mb(s, ms_plot_wss_classes[k]);
	return v;
}

static const char *const wss_line_colour[2] = { "#404040", "#000000" };

/*
 * A --wss log: the resident size of the classes the window tracks and the working set (their
 * pages accessed in each window) as two lines over the areas, through the samples of --wss, at
 * most one point per pixel column (their mean), broken where the areas break.
 */
static int draw_wss_lines(struct ms_svg *s, const struct ms_plot *p, const struct ms_svg_axis *ya,
			  double t0, double t1)
{
	double *xy = malloc((2 * p->n + 2) * sizeof(*xy));

	if (!xy)
		return -ENOMEM;
	for (int which = 0; which < 2; which++) {
		size_t k = 0, in = 0;
		double col = -1, ax = 0, ay = 0;

		for (size_t i = 0; i <= p->n; i++) {
			bool end = i == p->n || p->s[i].brk || !p->s[i].has_wss;
			double px = i < p->n ? PX + (p->s[i].t - t0) / (t1 - t0) * PW : 0;

			if (in && (end || floor(px) != col)) {
				xy[k++] = ax / in;
				xy[k++] = ms_svg_axis_pos(ya, ay / in);
				in = 0;
				ax = ay = 0;
			}
			if (end && k) {
				if (k == 2)	/* a sample alone: a dot */
					ms_svg_rect(s, xy[0] - 2, xy[1] - 2, 4, 4,
						    wss_line_colour[which], NULL, 0);
				else
					ms_svg_polyline(s, xy, k / 2, wss_line_colour[which],
							which ? 2 : 1.5);
				k = 0;
			}
			if (i == p->n || !p->s[i].has_wss)
				continue;
			col = floor(px);
			ax += px;
			ay += wss_line_mb(&p->s[i], which);
			in++;
		}
	}
	free(xy);
	return 0;
}

int ms_plot_draw(FILE *f, void *arg)
{
	const struct ms_plot *p = arg;
	char hidden[128] = "";

	for (size_t j = 0; j < NSTACK; j++)
		if (p->hide & (1U << stack[j]))
			snprintf(hidden + strlen(hidden), sizeof(hidden) - strlen(hidden), "%s%s",
				 hidden[0] ? ", " : "", ms_classes[stack[j]].label);
	struct ms_svg_legend_item it[NSTACK + 2];
	char lab[NSTACK + 2][96], from[40], to[40];
	const struct ms_plot_sample *last_wss = NULL;	/* the last sample of --wss */
	double t0 = p->s[0].t, t1 = p->s[0].t, ymax = 0, ymin = 0, first;
	struct ms_svg_axis xa = {}, ya = {};
	size_t nbreaks = 0, nit = 0;
	const struct ms_plot_sample *last = &p->s[p->n - 1];
	struct ms_svg s;
	int err;

	for (size_t i = 0; i < p->n; i++) {
		double top[NSTACK];

		cumulate(p, &p->s[i], top);
		for (size_t j = 0; j < NSTACK; j++) {
			if (top[j] > ymax)
				ymax = top[j];
			if (top[j] > 0 && (!ymin || top[j] < ymin))
				ymin = top[j];
		}
		if (p->s[i].has_wss) {	/* the lines of --wss on the same axis */
			last_wss = &p->s[i];
			for (int w = 0; w < 2; w++) {
				double v = wss_line_mb(&p->s[i], w);

				if (v > ymax)
					ymax = v;
				if (v > 0 && (!ymin || v < ymin))
					ymin = v;
			}
		}
		if (p->s[i].t < t0)
			t0 = p->s[i].t;
		if (p->s[i].t > t1)
			t1 = p->s[i].t;
		nbreaks += p->s[i].brk;
	}
	/* the title gives the samples' own first and last times, whatever the axis spans */
	fmt_time(t0, 1, from, sizeof(from), NULL);
	fmt_time(t1, 1, to, sizeof(to), NULL);
	if (t1 - t0 <= 0) {	/* one sample: a minute around it */
		t0 -= 30;
		t1 += 30;
	} else if (t1 - t0 < 2) {	/* a log of less than 2 s: an axis of 2 s around it */
		double mid = (t0 + t1) / 2;

		t0 = mid - 1;
		t1 = mid + 1;
	}
	if (ymax <= 0)
		ymax = 1;
	{
		time_t a = (time_t)t0, b = (time_t)t1;
		struct tm ta, tb;
		char da[16], db[16], title[400];

		gmtime_r(&a, &ta);
		gmtime_r(&b, &tb);
		strftime(da, sizeof(da), "%Y-%m-%d", &ta);
		strftime(db, sizeof(db), "%Y-%m-%d", &tb);
		snprintf(title, sizeof(title), "memstat plot: %s, %zu samples, %s %s to %s%s%s UTC",
			 p->title_files ? p->title_files : "", p->n, da, from,
			 strcmp(da, db) ? db : "", strcmp(da, db) ? " " : "", to);
		ms_svg_begin(&s, f, W, H, title);
		ms_svg_text(&s, 16, 26, 16, MS_SVG_START, NULL, title);
	}
	ms_svg_textf(&s, 16, 46, 12, MS_SVG_START, "#404040",
		     "Pages of each class, %s, in MB (page size %.0f bytes)%s%s%s%s",
		     p->log ? "each a line on a log scale (under the axis: at its foot)" : "stacked",
		     last->page_size, last_wss ? "; lines: resident anon, shmem, exec and cache, "
		     "and of it the working set (accessed in each window of --wss)" : "",
		     p->hide ? "; not drawn: " : "", hidden,
		     nbreaks ? "; a dashed line: the log breaks there (a gap, or time going back)" :
		     "");
	ya.side = MS_SVG_LEFT;
	ya.lo = 0;
	ms_svg_nice_step(0, ymax, 7, &first);
	ya.hi = ymax;
	if (p->log) {	/* from the decade under the least value (0.1 MB at least) to a decade up */
		ya.log = true;
		ya.lo = pow(10, floor(log10(ymin > 0.1 ? ymin : 0.1)));
		ya.hi = pow(10, ceil(log10(ymax > ya.lo ? ymax : ya.lo * 10)));
	}
	ya.x = PX;
	ya.y = PY + PH;
	ya.len = PH;
	ya.grid = PW;
	ya.max_ticks = 7;
	ya.label = "MB";
	ya.format = fmt_mb;
	xa.side = MS_SVG_BOTTOM;
	xa.lo = t0;
	xa.hi = t1;
	xa.x = PX;
	xa.y = PY + PH;
	xa.len = PW;
	xa.step = ms_svg_time_step(t0, t1, 8, &first);
	xa.format = fmt_time;
	xa.label = "time (UTC)";
	err = draw_areas(&s, p, &ya, t0, t1);
	if (!err && last_wss)
		err = draw_wss_lines(&s, p, &ya, t0, t1);
	if (err)
		return err;
	ms_svg_axis(&s, &ya);
	ms_svg_axis(&s, &xa);
	for (size_t i = 0; i < p->n; i++) {
		double x;

		if (!p->s[i].brk)
			continue;
		x = PX + (p->s[i].t - t0) / (t1 - t0) * PW;
		ms_svg_line(&s, x, PY, x, PY + PH, "#000000", 1.2, true);
		if (nbreaks <= 12)
			ms_svg_text(&s, x + 3, PY + 12, 10, MS_SVG_START, NULL,
				    p->s[i].t <= p->s[i - 1].t ? "time went back" : "gap");
	}
	ms_svg_rect(&s, PX, PY, PW, PH, NULL, "#000000", 0.8);
	/* the legend, top of the stack first, with the last sample's values */
	for (size_t j = NSTACK; j-- > 0;) {
		enum ms_class c = stack[j];

		if (p->hide & (1U << c))
			continue;
		if (c == MS_C_UNKNOWN || c == MS_C_HUGETLB) {
			bool any = false;

			for (size_t i = 0; i < p->n && !any; i++)
				any = p->s[i].pages[c] > 0;
			if (!any)
				continue;	/* never seen: not in the legend */
		}
		snprintf(lab[nit], sizeof(lab[nit]), "%s  (last: %.0f MB)", ms_classes[c].label,
			 mb(last, c));
		it[nit].colour = ms_class_colours[c];
		it[nit].label = lab[nit];
		nit++;
	}
	for (int w = 0; last_wss && w < 2; w++) {
		snprintf(lab[nit], sizeof(lab[nit]), "%s  (last: %.0f MB)",
			 w ? "Working set" : "Resident", wss_line_mb(last_wss, w));
		it[nit].colour = wss_line_colour[w];
		it[nit].label = lab[nit];
		nit++;
	}
	ms_svg_text(&s, PX + PW + 30, PY + 4, 13, MS_SVG_START, NULL, "Class");
	ms_svg_legend(&s, PX + PW + 30, PY + 14, it, nit);
	return ms_svg_end(&s);
}

void ms_plot_free(struct ms_plot *p)
{
	free(p->s);
	p->s = NULL;
	p->n = p->cap = 0;
}

/* "anon,free": 1 << class for each; -1 for a name that is no class */
static int class_mask(const char *arg, unsigned int *mask)
{
	const char *q = arg;

	*mask = 0;
	do {
		size_t len = strcspn(q, ",");
		int c;

		for (c = 0; c < MS_NR_CLASSES; c++)
			if (strlen(ms_classes[c].key) == len && !strncmp(q, ms_classes[c].key, len))
				break;
		if (c == MS_NR_CLASSES)
			return -1;
		*mask |= 1U << c;
		q += len;
	} while (*q++ == ',');
	return 0;
}

int ms_plot_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "hide", required_argument, NULL, 'H' },
		{ "only", required_argument, NULL, 'O' },
		{ "log", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ms_plot p = {};
	const char *out = NULL;
	char why[1024] = "", files[200] = "";
	struct ms_picture_out pic;
	int c, ret = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'H':
		case 'O': {
			unsigned int m;

			if (class_mask(optarg, &m))
				return ms_usage_error("plot", "invalid --%s '%s': expected classes (kernel, "
						      "anon, shmem, exec, page_cache, hugetlb, unknown, "
						      "free), comma separated", c == 'H' ? "hide" : "only",
						      optarg);
			if (p.hide)
				return ms_usage_error("plot", "%s", "--hide and --only are one at a time");
			p.hide = c == 'H' ? m : ~m & ((1U << MS_NR_CLASSES) - 1);
			if (p.hide == (1U << MS_NR_CLASSES) - 1)
				return ms_usage_error("plot", "%s", "--hide leaves no class to draw");
			break;
		}
		case 'L':
			p.log = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return MS_EXIT_OK;
		case ':':
			return ms_usage_error("plot", "option '%s' needs an argument", argv[optind - 1]);
		default:
			return ms_usage_error("plot", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return ms_usage_error("plot", "%s", "a LOG to draw is needed (memstat -o LOG's CSV or "
					"JSON lines)");
	if (!out)
		return ms_usage_error("plot", "%s", "-o FILE is needed: the picture's file (.svg or .png)");
	ret = ms_picture_open(&pic, out, why, sizeof(why));
	if (ret) {
		ms_err("plot: %s", why);
		return ret;
	}
	for (int i = optind; i < argc; i++) {
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		size_t used = strlen(files);

		ret = ms_plot_read(&p, argv[i], why, sizeof(why));
		if (ret) {
			ms_err("plot: %s", why);
			goto out;
		}
		if (used < 120)
			snprintf(files + used, sizeof(files) - used, "%s%s", used ? ", " : "",
				 used + strlen(base) < 120 ? base : "...");
	}
	if (p.skipped)
		ms_err("plot: skipped %zu line(s) that are not samples, the first at %s",
		       p.skipped, p.skipped_at);
	p.title_files = files;
	ms_plot_breaks(&p);
	ret = ms_picture_write(&pic, ms_plot_draw, &p, W, H, why, sizeof(why));
	if (ret)
		ms_err("plot: %s", why);
out:
	ms_picture_close(&pic);
	ms_plot_free(&p);
	return ret;
}
