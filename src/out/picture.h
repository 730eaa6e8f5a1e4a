/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * memstat's pictures: memstat map (map.c), memstat plot (plot.c), and how a picture reaches
 * its file (picture.c): an SVG, or a PNG rendered from it by rsvg-convert.
 */
#ifndef MEMSTAT_PICTURE_H
#define MEMSTAT_PICTURE_H

#include <stdbool.h>
#include <stdio.h>
#include "memstat_int.h"
#include "outfile.h"

/* ---- output (picture.c) ---- */

/* the PNG renderer, run by this path only (the librsvg2-bin package) */
#define MS_RSVG_CONVERT "/usr/bin/rsvg-convert"

struct ms_picture_out {
	struct ms_out out;	/* the destination (outfile.c) */
	bool png;
};
/*
 * -o FILE of a picture: FILE ends in .svg or .png (a PNG needs MS_RSVG_CONVERT), or names a
 * descriptor ("-", /dev/stdout, /dev/fd/N: the SVG). Checks the destination as outfile.c does
 * and makes the temporary file. Returns 0, or an MS_EXIT_* code with why (nothing was made).
 */
int ms_picture_open(struct ms_picture_out *po, const char *path, char *why, size_t whylen);
/*
 * Write the picture: draw(f, arg) writes the SVG of w x h pixels, which goes to the temporary
 * file or is rendered to a PNG there by rsvg-convert (as nobody); then it replaces FILE. An
 * existing file is replaced whole or left as it was. Closes po. Returns an MS_EXIT_* code with
 * why.
 */
int ms_picture_write(struct ms_picture_out *po, int (*draw)(FILE *f, void *arg), void *arg,
		     double w, double h, char *why, size_t whylen);
/* give up an opened picture (its temporary file goes); after ms_picture_write() a no-op */
void ms_picture_close(struct ms_picture_out *po);

/* ---- memstat map (map.c) ---- */

#define MS_MAP_COLS	256	/* cells per row */
#define MS_MAP_MAX_ROWS	160	/* rows drawn at most (a collapsed hole counts MS_MAP_GAP_ROWS) */
#define MS_MAP_GAP_ROWS	3
#define MS_MAP_HOLE	MS_NR_CLASSES	/* a cell's category: no present page (or unread) */

struct ms_map_seg {
	__u64 first_row, nrows;	/* rows of row_pages pages: [first_row, first_row + nrows) */
	size_t drawn;		/* the index of its first row among the drawn ones */
	__u64 start, end;	/* its present pfns: from the first to the last, [start, end) */
};
struct ms_map {
	__u64 scale;		/* pages per cell: a power of two */
	__u64 row_pages;	/* MS_MAP_COLS * scale */
	struct ms_map_seg *seg;	/* the row segments that hold present pages, in pfn order */
	size_t nseg, rows;	/* rows: drawn */
	__u64 (*cnt)[MS_NR_CLASSES + 1];	/* pages per cell and class, + present pages */
	__u64 cls[MS_NR_CLASSES];	/* pages per class (the legend's shares) */
	__u64 present;		/* present pages */
	__u64 page_size;
	const struct ms_zone *zones;	/* /proc/zoneinfo (not owned), or NULL */
	size_t nzones;
	char title[256];	/* "memstat map: HOST, kernel RELEASE, TIME" */
};
/* Lay out present memory (scale, rows) and count its present pages per cell. -ENOMEM, -EINVAL */
int ms_map_init(struct ms_map *m, const struct ms_ranges *present, __u64 page_size);
/* an ms_run_fn: count a run of the walk into its cells */
int ms_map_run(void *arg, __u64 pfn, __u64 npages, enum ms_sub sub);
/* the picture's size in pixels, and the SVG itself (a draw function of ms_picture_write()) */
void ms_map_size(const struct ms_map *m, double *w, double *h);
int ms_map_draw(FILE *f, void *m);
void ms_map_free(struct ms_map *m);
/* memstat map ...: argv[0] is "map" */
int ms_map_main(int argc, char **argv);

/* ---- memstat plot (plot.c) ---- */

struct ms_plot_sample {
	double t;			/* epoch seconds */
	double pages[MS_NR_CLASSES];
	double page_size;		/* bytes */
	bool brk;			/* the areas break before this sample (a gap, a time going back) */
	bool has_wss;			/* a sample of --wss: wss is its window's accessed pages */
	double wss;			/* of anon, shmem, exec and page cache */
};
/* the classes --wss tracks (anon, shmem, exec, page cache): the lines of its working set */
#define MS_PLOT_NWSS 4
extern const enum ms_class ms_plot_wss_classes[MS_PLOT_NWSS];
struct ms_plot {
	struct ms_plot_sample *s;
	size_t n, cap;
	size_t skipped;			/* data lines that could not be read (a torn last line) */
	char skipped_at[300];		/* the first of them: FILE:LINE */
	const char *title_files;	/* for the title */
	unsigned int hide;		/* --hide, --only: 1 << class for each class not drawn */
	bool log;			/* --log: each class a line on a log scale, not stacked */
};
/*
 * Read one log (CSV or JSON lines, told apart by its first character) and append its samples.
 * A CSV header may repeat (a rotated or restarted log); each names its columns. Returns 0, or
 * MS_EXIT_USAGE (not a memstat log, other columns) or MS_EXIT_FAIL, with why.
 */
int ms_plot_read(struct ms_plot *p, const char *path, char *why, size_t whylen);
/* Mark the breaks: a time going back, or a gap of more than 3 times the usual interval. */
void ms_plot_breaks(struct ms_plot *p);
void ms_plot_size(const struct ms_plot *p, double *w, double *h);
int ms_plot_draw(FILE *f, void *p);
void ms_plot_free(struct ms_plot *p);
/* memstat plot ...: argv[0] is "plot" */
int ms_plot_main(int argc, char **argv);

#endif /* MEMSTAT_PICTURE_H */
