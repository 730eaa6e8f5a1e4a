/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A small SVG writer for memstat's pictures (memstat map, memstat plot, rmss --plot): a
 * document, text (XML-escaped), rectangles, paths and polylines, linear axes with nice ticks
 * (bottom, left and right), a legend, and one colour per class. Everything goes to a stdio
 * stream; the caller checks ferror()/fclose() once at the end.
 */
#ifndef MEMSTAT_SVG_H
#define MEMSTAT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "memstat.h"

struct ms_svg {
	FILE *f;
	double w, h;
};

/* The colour of each class (memstat map and memstat plot use the same), and of a hole. */
extern const char *const ms_class_colours[MS_NR_CLASSES];
#define MS_SVG_HOLE_COLOUR "#ffffff"
#define MS_SVG_HOLE_PATTERN "url(#ms-hole)"	/* hatched: the fill of a hole */
#define MS_SVG_FONT "DejaVu Sans, Arial, Helvetica, sans-serif"

/* <?xml ...?><svg ...> with a white background and title (also the <title> element). */
void ms_svg_begin(struct ms_svg *s, FILE *f, double w, double h, const char *title);
/* </svg>; returns 0, or -errno (-EIO when unknown) when anything written to s->f failed */
int ms_svg_end(struct ms_svg *s);

/* text with &, <, >, " and ' escaped; control characters become '?' */
void ms_svg_escape(FILE *f, const char *text);

enum ms_svg_anchor { MS_SVG_START, MS_SVG_MIDDLE, MS_SVG_END };
void ms_svg_text(struct ms_svg *s, double x, double y, double size, enum ms_svg_anchor a,
		 const char *fill, const char *text);
void ms_svg_textf(struct ms_svg *s, double x, double y, double size, enum ms_svg_anchor a,
		  const char *fill, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* text turned 90 degrees counter-clockwise (clockwise with cw), centred on (x, y) */
void ms_svg_text_vertical(struct ms_svg *s, double x, double y, double size, bool cw,
			  const char *text);

/* fill or stroke NULL: none; stroke_w is used only with a stroke */
void ms_svg_rect(struct ms_svg *s, double x, double y, double w, double h, const char *fill,
		 const char *stroke, double stroke_w);
void ms_svg_line(struct ms_svg *s, double x1, double y1, double x2, double y2,
		 const char *stroke, double stroke_w, bool dashed);
/* n points xy[2k], xy[2k+1]: an open polyline (stroke only) */
void ms_svg_polyline(struct ms_svg *s, const double *xy, size_t n, const char *stroke,
		     double stroke_w);
/* a closed path through n points (a polygon), filled */
void ms_svg_polygon(struct ms_svg *s, const double *xy, size_t n, const char *fill,
		    const char *stroke, double stroke_w);

/*
 * Nice ticks over [lo, hi]: a step of 1, 2 or 5 times a power of ten giving at most max_ticks
 * ticks (at least 2 asked for). Returns the step; *first is the first tick >= lo.
 */
double ms_svg_nice_step(double lo, double hi, int max_ticks, double *first);
/* The same for seconds: 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, days. */
double ms_svg_time_step(double lo, double hi, int max_ticks, double *first);

enum ms_svg_side { MS_SVG_BOTTOM, MS_SVG_LEFT, MS_SVG_RIGHT };
struct ms_svg_axis {
	enum ms_svg_side side;
	double lo, hi;		/* the values at the two ends (log: both > 0) */
	bool log;		/* a log10 scale, a tick at each power of ten (step unused) */
	double x, y;		/* the axis line's start: bottom: its left end; left/right: its
				 * bottom end */
	double len;		/* its length in pixels */
	double grid;		/* > 0: grid lines this long across the plot (up or inwards) */
	int max_ticks;		/* 0: 6 */
	double step;		/* 0: ms_svg_nice_step() */
	const char *label;	/* under (bottom) or beside (left, right) the ticks, or NULL */
	const char *colour;	/* of the line, the ticks and the labels; NULL: black */
	/* the text of a tick; NULL: the value with as few decimals as the step needs */
	void (*format)(double v, double step, char *buf, size_t len, void *arg);
	void *arg;
};
/* the pixel of value v on the axis */
double ms_svg_axis_pos(const struct ms_svg_axis *a, double v);
void ms_svg_axis(struct ms_svg *s, const struct ms_svg_axis *a);

struct ms_svg_legend_item {
	const char *colour;	/* the swatch's fill (may be MS_SVG_HOLE_PATTERN) */
	const char *label;
};
/* one row per item from (x, y), each with a swatch; returns the height used */
double ms_svg_legend(struct ms_svg *s, double x, double y, const struct ms_svg_legend_item *it,
		     size_t n);

#endif /* MEMSTAT_SVG_H */
