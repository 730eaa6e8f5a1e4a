// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The SVG writer of memstat's pictures (svg.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

/* by class: distinct in hue and lightness; free is light, so that used memory stands out */
const char *const ms_class_colours[MS_NR_CLASSES] = {
	[MS_C_KERNEL] = "#d62728",	/* red */
	[MS_C_ANON] = "#1f77b4",	/* blue */
	[MS_C_SHMEM] = "#9467bd",	/* purple */
	[MS_C_EXEC] = "#ff7f0e",	/* orange */
	[MS_C_PAGE_CACHE] = "#2ca02c",	/* green */
	[MS_C_HUGETLB] = "#8c564b",	/* brown */
	[MS_C_FREE] = "#d9d9d9",	/* light grey */
	[MS_C_UNKNOWN] = "#17becf",	/* cyan */
};

void ms_svg_escape(FILE *f, const char *t)
{
	for (; *t; t++) {
		unsigned char c = (unsigned char)*t;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* XML 1.0 allows no control character but tab, LF and CR */
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
		}
	}
}

void ms_svg_begin(struct ms_svg *s, FILE *f, double w, double h, const char *title)
{
	s->f = f;
	s->w = w;
	s->h = h;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\">\n<title>",
		w, h, w, h, MS_SVG_FONT);
	ms_svg_escape(f, title);
	fputs("</title>\n<defs><pattern id=\"ms-hole\" width=\"6\" height=\"6\" "
	      "patternUnits=\"userSpaceOnUse\"><rect width=\"6\" height=\"6\" fill=\"#ffffff\"/>"
	      "<path d=\"M0,6 L6,0\" stroke=\"#707070\" stroke-width=\"1\"/></pattern></defs>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", w, h);
}

int ms_svg_end(struct ms_svg *s)
{
	fputs("</svg>\n", s->f);
	/* the write's own error (a full disk is ENOSPC), which fflush() meets again */
	if (fflush(s->f))
		return -(errno ? errno : EIO);
	return ferror(s->f) ? -EIO : 0;
}

static const char *anchor_name(enum ms_svg_anchor a)
{
	return a == MS_SVG_MIDDLE ? "middle" : a == MS_SVG_END ? "end" : "start";
}

void ms_svg_text(struct ms_svg *s, double x, double y, double size, enum ms_svg_anchor a,
		 const char *fill, const char *text)
{
	fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.1f\" text-anchor=\"%s\" "
		"fill=\"%s\">", x, y, size, anchor_name(a), fill ? fill : "#000000");
	ms_svg_escape(s->f, text);
	fputs("</text>\n", s->f);
}

void ms_svg_textf(struct ms_svg *s, double x, double y, double size, enum ms_svg_anchor a,
		  const char *fill, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ms_svg_text(s, x, y, size, a, fill, buf);
}

void ms_svg_text_vertical(struct ms_svg *s, double x, double y, double size, bool cw,
			  const char *text)
{
	fprintf(s->f, "<text x=\"0\" y=\"0\" font-size=\"%.1f\" text-anchor=\"middle\" "
		"transform=\"translate(%.1f,%.1f) rotate(%d)\">", size, x, y, cw ? 90 : -90);
	ms_svg_escape(s->f, text);
	fputs("</text>\n", s->f);
}

static void paint(FILE *f, const char *fill, const char *stroke, double stroke_w)
{
	fprintf(f, " fill=\"%s\"", fill ? fill : "none");
	if (stroke)
		fprintf(f, " stroke=\"%s\" stroke-width=\"%.2g\"", stroke, stroke_w);
}

void ms_svg_rect(struct ms_svg *s, double x, double y, double w, double h, const char *fill,
		 const char *stroke, double stroke_w)
{
	fprintf(s->f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"", x, y, w, h);
	paint(s->f, fill, stroke, stroke_w);
	fputs("/>\n", s->f);
}

void ms_svg_line(struct ms_svg *s, double x1, double y1, double x2, double y2,
		 const char *stroke, double stroke_w, bool dashed)
{
	fprintf(s->f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
		"stroke-width=\"%.2g\"%s/>\n", x1, y1, x2, y2, stroke ? stroke : "#000000",
		stroke_w, dashed ? " stroke-dasharray=\"4,3\"" : "");
}

static void points(FILE *f, const double *xy, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%.2f,%.2f", i ? " " : "", xy[2 * i], xy[2 * i + 1]);
}

void ms_svg_polyline(struct ms_svg *s, const double *xy, size_t n, const char *stroke,
		     double stroke_w)
{
	fputs("<polyline points=\"", s->f);
	points(s->f, xy, n);
	fputc('"', s->f);
	paint(s->f, NULL, stroke ? stroke : "#000000", stroke_w);
	fputs(" stroke-linejoin=\"round\"/>\n", s->f);
}

void ms_svg_polygon(struct ms_svg *s, const double *xy, size_t n, const char *fill,
		    const char *stroke, double stroke_w)
{
	fputs("<polygon points=\"", s->f);
	points(s->f, xy, n);
	fputc('"', s->f);
	paint(s->f, fill, stroke, stroke_w);
	fputs("/>\n", s->f);
}

double ms_svg_nice_step(double lo, double hi, int max_ticks, double *first)
{
	double span = hi - lo, raw, mag, step = 1;
	static const double mult[] = { 1, 2, 5, 10 };

	if (max_ticks < 2)
		max_ticks = 2;
	if (!(span > 0) || !isfinite(span))
		span = fabs(lo) > 0 ? fabs(lo) : 1;
	raw = span / (max_ticks - 1);
	mag = pow(10, floor(log10(raw)));
	for (size_t i = 0; i < sizeof(mult) / sizeof(mult[0]); i++) {
		step = mult[i] * mag;
		/* ticks: floor(hi/step) - ceil(lo/step) + 1 of them */
		if (floor(hi / step + 1e-9) - ceil(lo / step - 1e-9) + 1 <= max_ticks)
			break;
	}
	if (first)
		*first = ceil(lo / step - 1e-9) * step;
	return step;
}

double ms_svg_time_step(double lo, double hi, int max_ticks, double *first)
{
	static const double steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
					7200, 10800, 21600, 43200, 86400 };
	double step = 0;

	if (max_ticks < 2)
		max_ticks = 2;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		step = steps[i];
		if (floor(hi / step) - ceil(lo / step) + 1 <= max_ticks)
			break;
	}
	/* beyond a day: whole days, nicely */
	while (floor(hi / step) - ceil(lo / step) + 1 > max_ticks)
		step = step < 2 * 86400 ? 2 * 86400 : step < 7 * 86400 ? 7 * 86400 : step * 2;
	if (first)
		*first = ceil(lo / step) * step;
	return step;
}

double ms_svg_axis_pos(const struct ms_svg_axis *a, double v)
{
	double span = a->hi - a->lo, t = span ? (v - a->lo) / span : 0;

	if (a->log) {	/* a value at or under lo is drawn at lo */
		span = log10(a->hi) - log10(a->lo);
		t = span > 0 && v > a->lo ? (log10(v) - log10(a->lo)) / span : 0;
	}

	return a->side == MS_SVG_BOTTOM ? a->x + t * a->len : a->y - t * a->len;
}

static void default_format(double v, double step, char *buf, size_t len, void *arg)
{
	int dec = 0;

	(void)arg;
	while (dec < 6 && fabs(step * pow(10, dec) - round(step * pow(10, dec))) > 1e-6)
		dec++;
	if (fabs(v) < step * 1e-9)
		v = 0;	/* no "-0" */
	snprintf(buf, len, "%.*f", dec, v);
}

/* one tick of an axis at value v, its text and grid line; widest: the widest text so far */
static void draw_tick(struct ms_svg *s, const struct ms_svg_axis *a, double v, double step,
		      const char *col, double *widest)
{
	double tick = 5, fs = 11, p;
	char buf[64];

	p = ms_svg_axis_pos(a, v);
	if (a->format)
		a->format(v, step, buf, sizeof(buf), a->arg);
	else
		default_format(v, step, buf, sizeof(buf), NULL);
	/* about 0.6 em per character */
	if (strlen(buf) * fs * 0.6 > *widest)
		*widest = strlen(buf) * fs * 0.6;
	switch (a->side) {
	case MS_SVG_BOTTOM:
		if (a->grid > 0)
			ms_svg_line(s, p, a->y, p, a->y - a->grid, "#e0e0e0", 0.8, false);
		ms_svg_line(s, p, a->y, p, a->y + tick, col, 1, false);
		ms_svg_text(s, p, a->y + tick + fs + 1, fs, MS_SVG_MIDDLE, col, buf);
		break;
	case MS_SVG_LEFT:
		if (a->grid > 0)
			ms_svg_line(s, a->x, p, a->x + a->grid, p, "#e0e0e0", 0.8, false);
		ms_svg_line(s, a->x - tick, p, a->x, p, col, 1, false);
		ms_svg_text(s, a->x - tick - 3, p + fs * 0.35, fs, MS_SVG_END, col, buf);
		break;
	case MS_SVG_RIGHT:
		if (a->grid > 0)
			ms_svg_line(s, a->x - a->grid, p, a->x, p, "#e0e0e0", 0.8, false);
		ms_svg_line(s, a->x, p, a->x + tick, p, col, 1, false);
		ms_svg_text(s, a->x + tick + 3, p + fs * 0.35, fs, MS_SVG_START, col, buf);
		break;
	}
}

void ms_svg_axis(struct ms_svg *s, const struct ms_svg_axis *a)
{
	const char *col = a->colour ? a->colour : "#000000";
	double first, step = a->step, tick = 5, fs = 11, widest = 0;
	int max_ticks = a->max_ticks ? a->max_ticks : 6;
	double lo = a->lo < a->hi ? a->lo : a->hi, hi = a->lo < a->hi ? a->hi : a->lo;

	if (step > 0)
		first = ceil(lo / step - 1e-9) * step;
	else
		step = ms_svg_nice_step(lo, hi, max_ticks, &first);
	if (a->side == MS_SVG_BOTTOM)
		ms_svg_line(s, a->x, a->y, a->x + a->len, a->y, col, 1, false);
	else
		ms_svg_line(s, a->x, a->y, a->x, a->y - a->len, col, 1, false);
	for (int i = 0; i < 1000; i++) {
		double v = a->log ? pow(10, ceil(log10(lo) - 1e-9) + i) : first + i * step;

		if (a->log ? v > hi * (1 + 1e-9) : v > hi + step * 1e-9)
			break;
		draw_tick(s, a, v, a->log ? v : step, col, &widest);
	}
	if (!a->label)
		return;
	switch (a->side) {
	case MS_SVG_BOTTOM:
		ms_svg_text(s, a->x + a->len / 2, a->y + tick + 2 * fs + 8, fs + 1, MS_SVG_MIDDLE,
			    col, a->label);
		break;
	case MS_SVG_LEFT:
		fprintf(s->f, "<g fill=\"%s\">", col);
		ms_svg_text_vertical(s, a->x - tick - 8 - widest - fs / 2, a->y - a->len / 2, fs + 1,
				     false, a->label);
		fputs("</g>\n", s->f);
		break;
	case MS_SVG_RIGHT:
		fprintf(s->f, "<g fill=\"%s\">", col);
		ms_svg_text_vertical(s, a->x + tick + 8 + widest + fs / 2, a->y - a->len / 2, fs + 1,
				     true, a->label);
		fputs("</g>\n", s->f);
		break;
	}
}

double ms_svg_legend(struct ms_svg *s, double x, double y, const struct ms_svg_legend_item *it,
		     size_t n)
{
	const double row = 18, sw = 12;

	for (size_t i = 0; i < n; i++) {
		ms_svg_rect(s, x, y + i * row, sw, sw, it[i].colour, "#606060", 0.6);
		ms_svg_text(s, x + sw + 6, y + i * row + sw - 1.5, 12, MS_SVG_START, NULL,
			    it[i].label);
	}
	return n * row;
}
