// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat map -o FILE.svg|.png: a picture of physical memory.
 *
 * Physical memory is drawn as rows of MS_MAP_COLS cells, each cell `scale` page frames, in pfn
 * order. The scale is the least power of two that fits every row holding a present page into
 * MS_MAP_MAX_ROWS, so 24 GiB and 4 TB alike give a picture of at most MS_MAP_COLS x
 * MS_MAP_MAX_ROWS cells. Rows with no present page at all (a large hole, such as the PCI hole
 * under 4 GiB or the gap between two nodes) are collapsed into one band that says how much is
 * missing; smaller holes are hatched cells. The runs of one sub-class that the walk hands over
 * (the `--runs` walk) are counted into their cells; a cell takes the colour of the class that
 * holds most of its pages (a hole when most of it is not present), and neighbouring cells of a
 * row with the same colour are drawn as one rectangle, so the SVG has at most one element per
 * cell however fragmented memory is. Zones and nodes (/proc/zoneinfo) are outlined and named in
 * the right margin; the legend gives each class's share of the pages walked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "picture.h"
#include "svg.h"
#include "backend.h"
#include "dump_meminfo.h"
#include "dump_walk.h"
#include "vmcore.h"

#define CELL	4.0		/* pixels per cell, both ways */
#define X0	92.0		/* the grid's left edge */
#define Y0	84.0		/* its top */
#define GRID_W	(MS_MAP_COLS * CELL)
#define ZONE_W	150.0		/* the zone labels right of the grid */
#define LEG_W	270.0		/* the legend */
#define GAP_H	(MS_MAP_GAP_ROWS * CELL)

static const char usage_text[] =
	"Usage: memstat map -o FILE [OPTIONS]\n"
	"Draw physical memory: rows of cells of page frames in pfn order, each cell coloured by\n"
	"the class of most of its pages, with nodes, zones, holes and each class's share.\n"
	"\n"
	"  -o, --output FILE      the picture: FILE.svg, or FILE.png (rendered by\n"
	"                         rsvg-convert); replaced whole, or left as it was on a\n"
	"                         failure; - (or /dev/stdout, /dev/fd/N): the SVG there\n"
	"  -b, --backend NAME     auto (default: bpf, else kmod if loaded, else kpageflags),\n"
	"                         bpf, kmod or kpageflags\n"
	"      --core FILE        a crash dump's memory instead (see memstat --core)\n"
	"      --btf FILE         with --core: the dumped kernel's BTF\n"
	"      --symbols FILE     with --core: its System.map or vmlinux (default: its\n"
	"                         kallsyms)\n"
	"  -h, --help             print this help\n"
	"\n"
	"See memstat-map(8).\n";

/* the segments of rows holding present pages at this scale; returns the rows + gap rows */
static __u64 layout(const struct ms_ranges *present, __u64 scale, struct ms_map_seg *seg,
		    size_t *nseg)
{
	__u64 rp = scale * MS_MAP_COLS, rows = 0;
	size_t n = 0;

	for (size_t i = 0; i < present->n; i++) {
		const struct ms_range *r = &present->r[i];
		__u64 r0, r1;

		if (r->end <= r->start)
			continue;
		r0 = r->start / rp;
		r1 = (r->end - 1) / rp;
		if (n && r0 <= seg[n - 1].first_row + seg[n - 1].nrows) {
			struct ms_map_seg *s = &seg[n - 1];

			if (r1 + 1 > s->first_row + s->nrows) {
				rows += r1 + 1 - (s->first_row + s->nrows);
				s->nrows = r1 + 1 - s->first_row;
			}
			if (r->end > s->end)
				s->end = r->end;
			continue;
		}
		seg[n].first_row = r0;
		seg[n].nrows = r1 - r0 + 1;
		seg[n].drawn = rows;
		seg[n].start = r->start;
		seg[n].end = r->end;
		rows += r1 - r0 + 1;
		n++;
	}
	*nseg = n;
	return rows + (n ? (n - 1) * MS_MAP_GAP_ROWS : 0);
}

/* the cell of pfn, or -1 when its row is not drawn */
static long cell_of(const struct ms_map *m, __u64 pfn)
{
	__u64 row = pfn / m->row_pages;
	size_t lo = 0, hi = m->nseg;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct ms_map_seg *s = &m->seg[mid];

		if (row < s->first_row)
			hi = mid;
		else if (row >= s->first_row + s->nrows)
			lo = mid + 1;
		else
			return (long)((s->drawn + (row - s->first_row)) * MS_MAP_COLS +
				      (pfn % m->row_pages) / m->scale);
	}
	return -1;
}

/* add n pages of pfn on to category k of their cells */
static void add_pages(struct ms_map *m, __u64 pfn, __u64 n, int k)
{
	__u64 end = pfn + n;

	while (pfn < end) {
		__u64 cell_end = (pfn / m->scale + 1) * m->scale, chunk;
		long c = cell_of(m, pfn);

		chunk = (cell_end < end ? cell_end : end) - pfn;
		if (c >= 0)
			m->cnt[c][k] += chunk;
		pfn += chunk;
	}
}

int ms_map_init(struct ms_map *m, const struct ms_ranges *present, __u64 page_size)
{
	__u64 scale;

	memset(m, 0, sizeof(*m));
	m->page_size = page_size ? page_size : 4096;
	m->seg = calloc(present->n ? present->n : 1, sizeof(*m->seg));
	if (!m->seg)
		return -ENOMEM;
	for (scale = 1; ; scale *= 2) {
		if (layout(present, scale, m->seg, &m->nseg) <= MS_MAP_MAX_ROWS)
			break;
		if (scale >= 1ULL << 44)
			return -EINVAL;	/* cannot be: pfns have fewer bits */
	}
	m->scale = scale;
	m->row_pages = scale * MS_MAP_COLS;
	m->rows = m->nseg ? m->seg[m->nseg - 1].drawn + m->seg[m->nseg - 1].nrows : 0;
	m->cnt = calloc(m->rows ? m->rows * MS_MAP_COLS : 1, sizeof(*m->cnt));
	if (!m->cnt)
		return -ENOMEM;
	for (size_t i = 0; i < present->n; i++)
		if (present->r[i].end > present->r[i].start) {
			add_pages(m, present->r[i].start, present->r[i].end - present->r[i].start,
				  MS_NR_CLASSES);
			m->present += present->r[i].end - present->r[i].start;
		}
	return 0;
}

int ms_map_run(void *arg, __u64 pfn, __u64 npages, enum ms_sub sub)
{
	struct ms_map *m = arg;
	enum ms_class c;

	if ((unsigned int)sub >= MS_NR_SUBS)
		return 0;
	c = ms_subs[sub].cls;
	m->cls[c] += npages;
	add_pages(m, pfn, npages, c);
	return 0;
}

void ms_map_free(struct ms_map *m)
{
	free(m->seg);
	free(m->cnt);
	m->seg = NULL;
	m->cnt = NULL;
}

void ms_map_size(const struct ms_map *m, double *w, double *h)
{
	double grid = m->rows * CELL + (m->nseg ? (m->nseg - 1) * GAP_H : 0);
	double legend = 24 + 18 * (MS_NR_CLASSES + 1) + 90;

	*w = X0 + GRID_W + ZONE_W + LEG_W;
	*h = Y0 + (grid > legend ? grid : legend) + 36;
}

/* "640 KiB", "3.0 GiB", "4.0 TiB" */
static void fmt_bytes(double b, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int u = 0;

	if (b == 0) {
		snprintf(buf, len, "0");
		return;
	}
	while (b >= 1024 && u < 5) {
		b /= 1024;
		u++;
	}
	snprintf(buf, len, b == (double)(__u64)b || u == 0 ? "%.0f %s" : b < 10 ? "%.2f %s" :
		 "%.1f %s", b, units[u]);
}

/* the y of a drawn row's top edge */
static double row_y(const struct ms_map *m, size_t seg, __u64 row_in_seg)
{
	return Y0 + (m->seg[seg].drawn + row_in_seg) * CELL + seg * GAP_H;
}

/* the segment and row of pfn's row, or false when no drawn row holds it */
static bool find_row(const struct ms_map *m, __u64 pfn, size_t *seg, __u64 *row)
{
	__u64 r = pfn / m->row_pages;

	for (size_t i = 0; i < m->nseg; i++)
		if (r >= m->seg[i].first_row && r < m->seg[i].first_row + m->seg[i].nrows) {
			*seg = i;
			*row = r - m->seg[i].first_row;
			return true;
		}
	return false;
}

/* the category a cell is drawn in: the class of most of its pages, or a hole */
static int cell_category(const struct ms_map *m, size_t cell)
{
	const __u64 *c = m->cnt[cell];
	__u64 classified = 0, best = 0, hole;
	int k = MS_MAP_HOLE;

	for (int i = 0; i < MS_NR_CLASSES; i++) {
		classified += c[i];
		if (c[i] > best) {
			best = c[i];
			k = i;
		}
	}
	/* not present, or present and not read (the walk's holes) */
	hole = m->scale - (c[MS_NR_CLASSES] < classified ? c[MS_NR_CLASSES] : classified);
	return hole > best ? MS_MAP_HOLE : k;
}

static const char *category_fill(int k)
{
	return k == MS_MAP_HOLE ? MS_SVG_HOLE_PATTERN : ms_class_colours[k];
}

/* the outline where the pages from pfn on begin: under the row's cells before it, up at it,
 * over the row's cells after it */
static void boundary(struct ms_svg *s, const struct ms_map *m, __u64 pfn, double width)
{
	size_t seg;
	__u64 row;
	double xy[8], y, x;

	if (!find_row(m, pfn, &seg, &row)) {
		/* in a collapsed hole: the next drawn row's top */
		for (seg = 0; seg < m->nseg && m->seg[seg].start < pfn; seg++)
			;
		if (seg == m->nseg)
			return;
		row = 0;
		pfn = m->seg[seg].first_row * m->row_pages;
	}
	y = row_y(m, seg, row);
	x = X0 + (double)(pfn % m->row_pages) / m->scale * CELL;
	xy[0] = X0;
	xy[1] = y + CELL;
	xy[2] = x;
	xy[3] = y + CELL;
	xy[4] = x;
	xy[5] = y;
	xy[6] = X0 + GRID_W;
	xy[7] = y;
	if (x <= X0)
		ms_svg_line(s, X0, y, X0 + GRID_W, y, "#000000", width, false);
	else
		ms_svg_polyline(s, xy, 4, "#000000", width);
}

/* the y of pfn's row (its top), for a label */
static double pfn_y(const struct ms_map *m, __u64 pfn)
{
	size_t seg;
	__u64 row;

	if (find_row(m, pfn, &seg, &row))
		return row_y(m, seg, row);
	for (seg = 0; seg < m->nseg && m->seg[seg].start < pfn; seg++)
		;
	if (seg == m->nseg)
		return row_y(m, m->nseg - 1, m->seg[m->nseg - 1].nrows);
	return row_y(m, seg, 0);
}

static void draw_zones(struct ms_svg *s, const struct ms_map *m)
{
	double last_label = -1e9;
	int last_node = -1;

	for (size_t i = 0; i < m->nzones; i++) {
		const struct ms_zone *z = &m->zones[i];
		double y0 = pfn_y(m, z->start), y1 = pfn_y(m, z->end - 1) + CELL, ly;
		double bx = X0 + GRID_W + 6 + (i % 2) * 4;
		bool new_node = z->node != last_node;

		if (z->end <= z->start)
			continue;
		boundary(s, m, z->start, new_node ? 3 : 1.5);
		/* a bracket from the zone's first row to its last, and its name */
		ms_svg_line(s, bx, y0, bx, y1, new_node ? "#000000" : "#404040", 2, false);
		ms_svg_line(s, bx - 3, y0, bx + 2, y0, "#000000", 1, false);
		ly = y0 + 10 > last_label + 13 ? y0 + 10 : last_label + 13;
		ms_svg_textf(s, X0 + GRID_W + 16, ly, 11, MS_SVG_START, NULL, "node %d %s", z->node,
			     z->name);
		last_label = ly;
		last_node = z->node;
	}
}

static void draw_cells(struct ms_svg *s, const struct ms_map *m)
{
	for (size_t seg = 0; seg < m->nseg; seg++)
		for (__u64 r = 0; r < m->seg[seg].nrows; r++) {
			size_t base = (m->seg[seg].drawn + r) * MS_MAP_COLS;
			double y = row_y(m, seg, r);
			int col = 0;

			while (col < MS_MAP_COLS) {
				int k = cell_category(m, base + col), end = col + 1;

				while (end < MS_MAP_COLS && cell_category(m, base + end) == k)
					end++;
				ms_svg_rect(s, X0 + col * CELL, y, (end - col) * CELL, CELL,
					    category_fill(k), NULL, 0);
				col = end;
			}
		}
}

/* the physical offset of rows on the left; the size of each collapsed hole in its band */
static void draw_rows(struct ms_svg *s, const struct ms_map *m)
{
	char b[32], c[32];

	for (size_t seg = 0; seg < m->nseg; seg++) {
		for (__u64 r = 0; r < m->seg[seg].nrows; r += 16) {
			if (r && m->seg[seg].nrows - r < 4)
				break;	/* too near the next segment's label */
			fmt_bytes((double)((m->seg[seg].first_row + r) * m->row_pages) *
				  m->page_size, b, sizeof(b));
			ms_svg_text(s, X0 - 6, row_y(m, seg, r) + 8, 10, MS_SVG_END, "#404040", b);
			ms_svg_line(s, X0 - 4, row_y(m, seg, r), X0, row_y(m, seg, r), "#404040",
				    1, false);
		}
		if (seg + 1 < m->nseg) {
			double y = row_y(m, seg, m->seg[seg].nrows);

			fmt_bytes((double)(m->seg[seg + 1].start - m->seg[seg].end) * m->page_size,
				  b, sizeof(b));
			fmt_bytes((double)m->seg[seg + 1].start * m->page_size, c, sizeof(c));
			ms_svg_rect(s, X0, y + 1, GRID_W, GAP_H - 2, MS_SVG_HOLE_PATTERN, NULL, 0);
			char t[96];

			snprintf(t, sizeof(t), "hole: %s with no memory, up to %s", b, c);
			/* about 0.55 em per character, on white */
			ms_svg_rect(s, X0 + GRID_W / 2 - strlen(t) * 2.9 - 4, y + 1,
				    strlen(t) * 5.8 + 8, GAP_H - 2, "#ffffff", NULL, 0);
			ms_svg_text(s, X0 + GRID_W / 2, y + GAP_H - 2.5, 10, MS_SVG_MIDDLE, NULL, t);
		}
	}
}

static void draw_legend(struct ms_svg *s, const struct ms_map *m, double x, double y)
{
	struct ms_svg_legend_item it[MS_NR_CLASSES + 1];
	char lab[MS_NR_CLASSES + 1][96], b[32], r[32];
	__u64 total = 0;
	size_t n = 0;

	for (int c = 0; c < MS_NR_CLASSES; c++)
		total += m->cls[c];
	ms_svg_text(s, x, y, 13, MS_SVG_START, NULL, "Class: share of the pages walked");
	y += 10;
	for (int c = 0; c < MS_NR_CLASSES; c++) {
		if (c == MS_C_UNKNOWN && !m->cls[c])
			continue;	/* only the kpageflags backend has it */
		fmt_bytes((double)m->cls[c] * m->page_size, b, sizeof(b));
		snprintf(lab[n], sizeof(lab[n]), "%s  %.1f%%  (%s)", ms_classes[c].label,
			 total ? 100.0 * m->cls[c] / total : 0.0, b);
		it[n].colour = ms_class_colours[c];
		it[n].label = lab[n];
		n++;
	}
	snprintf(lab[n], sizeof(lab[n]), "hole: no memory, or not read");
	it[n].colour = MS_SVG_HOLE_PATTERN;
	it[n].label = lab[n];
	n++;
	y += ms_svg_legend(s, x, y, it, n) + 14;
	fmt_bytes((double)m->scale * m->page_size, b, sizeof(b));
	fmt_bytes((double)m->row_pages * m->page_size, r, sizeof(r));
	ms_svg_textf(s, x, y, 11, MS_SVG_START, "#404040", "1 cell = %s (%llu pages)", b,
		     (unsigned long long)m->scale);
	ms_svg_textf(s, x, y + 15, 11, MS_SVG_START, "#404040", "1 row = %d cells = %s",
		     MS_MAP_COLS, r);
	ms_svg_text(s, x, y + 30, 11, MS_SVG_START, "#404040",
		    "a cell: the class of most of its pages");
	fmt_bytes((double)m->present * m->page_size, b, sizeof(b));
	ms_svg_textf(s, x, y + 45, 11, MS_SVG_START, "#404040", "present: %s", b);
}

int ms_map_draw(FILE *f, void *arg)
{
	const struct ms_map *m = arg;
	struct ms_svg s;
	double w, h, gh = m->rows * CELL + (m->nseg ? (m->nseg - 1) * GAP_H : 0);

	ms_map_size(m, &w, &h);
	ms_svg_begin(&s, f, w, h, m->title);
	ms_svg_text(&s, 16, 26, 17, MS_SVG_START, NULL, m->title);
	ms_svg_text(&s, 16, 48, 12, MS_SVG_START, "#404040",
		    "Physical memory in page frame order, left to right and top to bottom; "
		    "the left margin gives the physical offset of each row.");
	ms_svg_text(&s, X0 + GRID_W + 10, Y0 - 10, 12, MS_SVG_START, NULL, "Nodes and zones");
	draw_cells(&s, m);
	ms_svg_rect(&s, X0, Y0, GRID_W, gh, NULL, "#000000", 0.8);
	draw_rows(&s, m);
	draw_zones(&s, m);
	draw_legend(&s, m, X0 + GRID_W + ZONE_W, Y0);
	return ms_svg_end(&s);
}

static void set_title(struct ms_map *m)
{
	struct utsname u;
	char when[64];
	time_t now = time(NULL);
	struct tm tm;

	uname(&u);
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	snprintf(m->title, sizeof(m->title), "memstat map: %s, kernel %s, %s", u.nodename,
		 u.release, when);
}

/* memstat map --core: a dump's memory, walked with its own types (vmcore.c), and its zones */
static int map_core(struct ms_map *m, struct ms_picture_out *pic, const char *path,
		    const char *btf, const char *symbols)
{
	struct ms_core c;
	struct ms_result res;
	struct ms_zone *zones = NULL;
	size_t nzones = 0;
	char why[1024];
	const char *base = strrchr(path, '/');
	double w, h;
	int ret = ms_core_open(path, btf, symbols, &c), err;

	if (ret)
		return ret;
	err = ms_map_init(m, &c.r, c.d.page_size);
	/* the zone outlines: none where the dump's symbols cannot be read */
	if (!err && !ms_dump_zones(&c.d, &c.t, symbols, &zones, &nzones, why, sizeof(why))) {
		m->zones = zones;
		m->nzones = nzones;
	}
	if (!err)
		err = ms_dump_walk(&c.d, &c.t, &c.r, 1, &res, ms_map_run, m);
	if (err) {
		ms_err("map: %s", err == -EIO ? "the walk failed" : strerror(-err));
		ret = MS_EXIT_FAIL;
		goto out;
	}
	snprintf(m->title, sizeof(m->title), "memstat map: crash dump %s, kernel %s",
		 base ? base + 1 : path, c.d.release[0] ? c.d.release : "unknown");
	ms_map_size(m, &w, &h);
	ret = ms_picture_write(pic, ms_map_draw, m, w, h, why, sizeof(why));
	if (ret)
		ms_err("map: %s", why);
out:
	ms_map_free(m);
	free(zones);
	ms_core_close(&c, ret);
	return ret;
}

int ms_map_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "backend", required_argument, NULL, 'b' },
		{ "core", required_argument, NULL, 'C' },
		{ "btf", required_argument, NULL, 'B' },
		{ "symbols", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum ms_backend_choice choice = MS_BE_AUTO;
	struct ms_backend be = {};
	struct ms_ranges ranges = {};
	struct ms_result res = {};
	struct ms_zone *zones = NULL;
	struct ms_map m = {};
	const char *out = NULL, *core_path = NULL, *btf = NULL, *symbols = NULL;
	bool backend_given = false;
	char why[1024] = "", fallback[600] = "";
	struct ms_picture_out pic;
	size_t nzones = 0;
	int c, ret, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:b:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'b':
			if (ms_backend_parse(optarg, &choice))
				return ms_usage_error("map", "unknown backend '%s' (expected auto, bpf, "
						       "kmod or kpageflags)", optarg);
			backend_given = true;
			break;
		case 'C':
		case 'B':
		case 'S':
			if (!*optarg)
				return ms_usage_error("map", "%s needs a file name", c == 'C' ?
						      "--core" : c == 'B' ? "--btf" : "--symbols");
			*(c == 'C' ? &core_path : c == 'B' ? &btf : &symbols) = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return MS_EXIT_OK;
		case ':':
			return ms_usage_error("map", "option '%s' needs an argument", argv[optind - 1]);
		default:
			return ms_usage_error("map", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return ms_usage_error("map", "unexpected argument '%s'", argv[optind]);
	if (!out)
		return ms_usage_error("map", "%s", "-o FILE is needed: the picture's file (.svg or .png)");
	if ((btf || symbols) && !core_path)
		return ms_usage_error("map", "%s needs --core FILE", btf ? "--btf" : "--symbols");
	if (core_path && backend_given)
		return ms_usage_error("map", "%s", "--core reads a dump: no --backend");
	ret = ms_picture_open(&pic, out, why, sizeof(why));
	if (ret) {
		ms_err("map: %s", why);
		return ret;
	}
	if (core_path) {
		ret = map_core(&m, &pic, core_path, btf, symbols);
		ms_picture_close(&pic);
		return ret;
	}
	ret = ms_present_memory(&ranges);
	if (ret)
		goto out;
	err = ms_map_init(&m, &ranges, (__u64)sysconf(_SC_PAGESIZE));
	if (err) {
		ms_err("map: %s", strerror(-err));
		ret = MS_EXIT_FAIL;
		goto out;
	}
	if (!ms_zones_read("/proc/zoneinfo", &zones, &nzones)) {
		m.zones = zones;
		m.nzones = nzones;
	}
	set_title(&m);
	ret = ms_backend_open(choice, MS_BPF_ONE_WALK |
			      MS_BPF_WORKERS(ms_jobs_auto(&ranges)), true, &be, why,
			      sizeof(why), fallback, sizeof(fallback));
	if (ret) {
		ms_err("%s", why);
		goto out;
	}
	if (fallback[0])
		ms_err("%s", fallback);
	ret = ms_backend_walk(&be, &ranges, &res, ms_map_run, &m);
	if (ret)
		goto out;
	{
		double w, h;

		ms_map_size(&m, &w, &h);
		ret = ms_picture_write(&pic, ms_map_draw, &m, w, h, why, sizeof(why));
	}
	if (ret)
		ms_err("map: %s", why);
out:
	ms_picture_close(&pic);
	ms_backend_close(&be);
	ms_map_free(&m);
	free(zones);
	ms_ranges_free(&ranges);
	return ret;
}
