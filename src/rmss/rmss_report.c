// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat rmss's report: AIX's layout on the terminal and in -o FILE, the page table, the knee,
 * --json and --plot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "memstat_int.h"
#include "report.h"
#include "escape.h"
#include "outfile.h"
#include "json.h"
#include "rmss.h"
#include "testhooks.h"
#include "svg.h"
#include "picture.h"

#define rerr ms_rmss_err



void ms_rmss_emit(struct driver *d, const char *fmt, ...)
{
	va_list ap;

	if (d->out) {
		va_start(ap, fmt);
		vfprintf(d->out, fmt, ap);
		va_end(ap);
		fflush(d->out);
	}
	if (d->to_stdout) {
		va_start(ap, fmt);
		vfprintf(stdout, fmt, ap);
		va_end(ap);
		fflush(stdout);
	}
}

static const char *fmt_mb(double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", v);
	return buf;
}

void ms_rmss_print_header(struct driver *d, double start_mb)
{
	char host[256] = "", tbuf[64];
	time_t t = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	localtime_r(&t, &tm);
	strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", &tm);
	ms_rmss_emit(d, "Hostname:  %s\n", host);
	ms_rmss_emit(d, "Real memory size:  %8.2f Mb\n", d->m.real_mb);
	ms_rmss_emit(d, "Time of day:  %s\n", tbuf);
	ms_rmss_emit(d, "Command: ");
	for (int i = 0; i < d->o->ncmd; i++) {
		char *arg = ms_esc_str(d->o->cmd[i], MS_ESC_TERM);	/* a name, like a file's */

		ms_rmss_emit(d, " %s", arg ? arg : "?");
		free(arg);
	}
	ms_rmss_emit(d, "\n");
	if (d->m.swap_mb <= 0)
		ms_rmss_emit(d, "Swap: none\n");
	else if (d->st.zram >= 0)
		ms_rmss_emit(d, "Swap:  %.2f Mb (zram%d for this run, %.2f Mb)\n", d->m.swap_mb, d->st.zram,
		     d->o->zram_mb);
	else
		ms_rmss_emit(d, "Swap:  %.2f Mb\n", d->m.swap_mb);
	if (d->cg.v)
		ms_rmss_emit(d, "Mode: cgroup (the command alone, in %s, v%d); page-ins: the cgroup's "
		     "refaults\n", d->cg.dir, d->cg.v);
	else
		ms_rmss_emit(d, "Mode: machine (free frames stolen by a pool process); page-ins: pgpgin "
		     "pages + zswpin of /proc/vmstat\n");
	ms_rmss_emit(d, "\nSimulated memory size initialized to %6.2f Mb.\n\n", start_mb);
	ms_rmss_emit(d, "Number of iterations per memory size = 1 warm-up + %ld measured = %ld.\n\n",
	     d->iterations, d->iterations + 1);
	ms_rmss_emit(d, "Memory size   Avg. Pageins     Avg. Response Time   Avg. Pagein Rate\n");
	ms_rmss_emit(d, "(megabytes)                         (sec.)          (pageins / sec.)\n");
	ms_rmss_emit(d, "--------------------------------------------------------------------\n");
}

void ms_rmss_print_row(struct driver *d, const struct size_row *r)
{
	if (!r->ok_runs)
		ms_rmss_emit(d, "%-12.2f  %12s     %12s       %12s", r->mb, "-", "-", "-");
	else
		ms_rmss_emit(d, "%-12.2f  %12.1f     %12.3f       %12.1f", r->mb,
			     r->sum_pageins / r->ok_runs, r->sum_secs / r->ok_runs,
			     r->sum_rate / r->ok_runs);
	if (r->oom_kills)
		ms_rmss_emit(d, "   (%d of %d runs killed by the OOM killer)", r->oom_kills, r->measured);
	if (r->failed)	/* not in the averages, and the size not in the knee */
		ms_rmss_emit(d, "   (%d of %d runs failed, the last with exit status %d)", r->failed,
			     r->measured, r->exit_status);
	ms_rmss_emit(d, "\n");
}

/*
 * the ms_rmss_knee (docs/rmss.md): -1 when there is none. *base_out: the rate at the largest
 * size; *abs_out: the absolute part of the tolerance (10/s, or 1% of the highest rate measured)
 */
double ms_rmss_knee(const struct driver *d, double *base_out, double *abs_out)
{
	int big = -1;
	double base, lim, k = -1, top = 0;

	for (int i = 0; i < d->nrows; i++) {
		if (d->rows[i].done && (big < 0 || d->rows[i].mb > d->rows[big].mb))
			big = i;
		if (d->rows[i].done && d->rows[i].ok_runs)
			top = fmax(top, d->rows[i].sum_rate / d->rows[i].ok_runs);
	}
	if (big < 0 || !d->rows[big].ok_runs)
		return -1;
	base = d->rows[big].sum_rate / d->rows[big].ok_runs;
	*abs_out = fmax(RMSS_KNEE_ABS, RMSS_KNEE_NOISE * top);
	lim = base + fmax(base * RMSS_KNEE_REL, *abs_out);
	*base_out = base;
	k = d->rows[big].mb;
	/* down from the largest: the smallest size above which every size stays within */
	for (;;) {
		int next = -1;

		for (int i = 0; i < d->nrows; i++)
			if (d->rows[i].done && d->rows[i].mb < k &&
			    (next < 0 || d->rows[i].mb > d->rows[next].mb))
				next = i;
		if (next < 0)
			break;
		if (!d->rows[next].ok_runs || d->rows[next].oom_kills || d->rows[next].failed ||
		    d->rows[next].sum_rate / d->rows[next].ok_runs > lim)
			break;
		k = d->rows[next].mb;
	}
	return k;
}

void ms_rmss_print_pages_table(struct driver *d)
{
	static const enum ms_class cls[] = { MS_C_KERNEL, MS_C_ANON, MS_C_SHMEM, MS_C_EXEC,
					     MS_C_PAGE_CACHE, MS_C_HUGETLB, MS_C_FREE };
	char b[32];
	int any = 0;

	for (int i = 0; i < d->nrows; i++)
		any |= d->rows[i].done;
	if (!any)
		return;
	ms_rmss_emit(d, "\nWhere the memory went after each size's measured runs (MB; %s):\n",
	     !d->o->cgroup ? "a memstat walk of the machine, the pool counted as anon" :
	     d->w.open ? "a memstat walk, the cgroup's own pages" : "the cgroup's memory.stat");
	ms_rmss_emit(d, "Memory size    Kernel      Anon     Shmem      Exec  Pagecache   Hugetlb      Free"
	     "   Peak (MB)  OOM kills  Failed\n");
	for (int i = 0; i < d->nrows; i++) {
		const struct size_row *r = &d->rows[i];

		if (!r->done)
			continue;
		ms_rmss_emit(d, "%-12.2f", r->mb);
		for (size_t j = 0; j < sizeof(cls) / sizeof(cls[0]); j++)
			ms_rmss_emit(d, " %*s", j == 4 ? 10 : 9, fmt_mb(r->pages_mb[cls[j]], b, sizeof(b)));
		ms_rmss_emit(d, "  %10s  %9d  %6d\n", fmt_mb(r->peak_mb, b, sizeof(b)), r->oom_kills,
			     r->failed);
	}
}

/* a size in MB or a mean: negative (none) or not finite is null */
static void json_num(struct ms_jw *w, const char *name, double v)
{
	if (v < 0)
		ms_jw_null_field(w, name);
	else
		ms_jw_double_field(w, name, "%.3f", v);
}

void ms_rmss_print_json(struct driver *d, double knee_mb, bool interrupted)
{
	struct ms_jw jw, *w = &jw;

	ms_jw_init(w, stdout);
	ms_jw_start_object(w);
	ms_jw_i64_field(w, "format_version", MS_RMSS_FORMAT_VERSION);
	ms_jw_string_field(w, "mode", d->o->cgroup ? "cgroup" : "machine");
	ms_jw_array_field(w, "command");
	for (int i = 0; i < d->o->ncmd; i++)
		ms_jw_string(w, d->o->cmd[i]);
	ms_jw_end_array(w);
	ms_jw_i64_field(w, "iterations", d->iterations);
	json_num(w, "real_mb", d->m.real_mb);
	json_num(w, "floor_mb", d->floor_mb);
	ms_jw_object_field(w, "swap");
	ms_jw_double_field(w, "total_mb", "%.3f", d->m.swap_mb);
	ms_jw_double_field(w, "zram_mb", "%.3f",
			   d->st.zram >= 0 || d->o->zram_mb > 0 ? d->o->zram_mb : 0.0);
	ms_jw_end_object(w);
	ms_jw_string_field(w, "pageins_from",
			   d->o->cgroup ? "cgroup_refaults" : "vmstat_pgpgin_zswpin");
	ms_jw_string_field(w, "pages_from", d->o->cgroup && !d->w.open ? "memory.stat" :
			   d->o->cgroup ? "walk_cgroup" : "walk");
	ms_jw_array_field(w, "sizes");
	for (int i = 0; i < d->nrows; i++) {
		const struct size_row *r = &d->rows[i];
		bool ok = r->ok_runs > 0;
		char key[64];

		if (!r->done)
			continue;
		ms_jw_start_object(w);
		ms_jw_double_field(w, "mb", "%.3f", r->mb);
		json_num(w, "avg_pageins", ok ? r->sum_pageins / r->ok_runs : -1);
		json_num(w, "avg_response_s", ok ? r->sum_secs / r->ok_runs : -1);
		json_num(w, "avg_pagein_rate", ok ? r->sum_rate / r->ok_runs : -1);
		ms_jw_i64_field(w, "runs", r->measured);
		ms_jw_i64_field(w, "oom_kills", r->oom_kills);
		ms_jw_i64_field(w, "failed_runs", r->failed);
		if (r->failed)
			ms_jw_i64_field(w, "exit_status", r->exit_status);
		else
			ms_jw_null_field(w, "exit_status");
		ms_jw_i64_field(w, "majfaults", r->majfaults);
		json_num(w, "peak_mb", r->peak_mb);
		json_num(w, "stolen_mb", d->o->cgroup ? -1 : r->stolen_mb);
		ms_jw_object_field(w, "pages");
		for (int c = 0; c < MS_NR_CLASSES; c++) {
			if (r->pages_mb[c] < 0)
				continue;
			snprintf(key, sizeof(key), "%s_mb", ms_classes[c].key);
			ms_jw_double_field(w, key, "%.3f", r->pages_mb[c]);
		}
		ms_jw_end_object(w);
		ms_jw_end_object(w);
	}
	ms_jw_end_array(w);
	json_num(w, "knee_mb", knee_mb);
	ms_jw_bool_field(w, "interrupted", interrupted);
	ms_jw_end_object(w);
	fputc('\n', stdout);
	fflush(stdout);
}

/* what the plot draws: the sizes measured without OOM kills, the axes' ranges */
struct plot {
	struct driver *d;
	double xlo, xhi, tmax, rmax;
	double *tx, *rx;	/* the points of the two lines, in memory-size order */
};

#define PLOT_W 760.0
#define PLOT_H 460.0

static int draw_plot(FILE *f, void *arg)
{
	const double W = PLOT_W, H = PLOT_H, L = 80, R = 90, T = 50, B = 70;
	const double pw = W - L - R, ph = H - T - B;
	struct plot *p = arg;
	struct driver *d = p->d;
	double kmb, base, noise;
	char title[300];
	struct ms_svg s;
	size_t k = 0;
	struct ms_svg_axis x = { .side = MS_SVG_BOTTOM, .lo = p->xlo, .hi = p->xhi, .x = L,
				 .y = T + ph, .len = pw, .grid = ph,
				 .label = d->o->cgroup ? "Memory size: the cgroup's limit (MB)" :
				 "Memory size: the simulated machine (MB)" };
	struct ms_svg_axis yl = { .side = MS_SVG_LEFT, .lo = 0, .hi = p->tmax, .x = L,
				  .y = T + ph, .len = ph, .label = "Avg. response time (s)",
				  .colour = "#1f77b4" };
	struct ms_svg_axis yr = { .side = MS_SVG_RIGHT, .lo = 0, .hi = p->rmax, .x = L + pw,
				  .y = T + ph, .len = ph,
				  .label = "Avg. page-in rate (page-ins / s)",
				  .colour = "#d62728" };
	struct ms_svg_legend_item leg[2] = { { "#1f77b4", "response time" },
					     { "#d62728", "page-in rate" } };

	snprintf(title, sizeof(title), "memstat rmss: %s%s", d->o->cmd[0],
		 d->o->ncmd > 1 ? " ..." : "");
	ms_svg_begin(&s, f, W, H, title);
	ms_svg_text(&s, W / 2, 28, 16, MS_SVG_MIDDLE, NULL, title);
	ms_svg_axis(&s, &x);
	ms_svg_axis(&s, &yl);
	ms_svg_axis(&s, &yr);
	/* in memory-size order, whichever way the range went */
	for (int pass = 0; pass < d->nrows; pass++) {
		int best = -1;

		for (int i = 0; i < d->nrows; i++) {
			const struct size_row *r = &d->rows[i];
			double px = k ? p->tx[2 * k - 2] : -INFINITY;

			if (!r->done || !r->ok_runs)
				continue;
			if (ms_svg_axis_pos(&x, r->mb) <= px + 1e-9)
				continue;
			if (best < 0 || r->mb < d->rows[best].mb)
				best = i;
		}
		if (best < 0)
			break;
		p->tx[2 * k] = p->rx[2 * k] = ms_svg_axis_pos(&x, d->rows[best].mb);
		p->tx[2 * k + 1] = ms_svg_axis_pos(&yl, d->rows[best].sum_secs /
						   d->rows[best].ok_runs);
		p->rx[2 * k + 1] = ms_svg_axis_pos(&yr, d->rows[best].sum_rate /
						   d->rows[best].ok_runs);
		k++;
	}
	ms_svg_polyline(&s, p->tx, k, "#1f77b4", 2);
	ms_svg_polyline(&s, p->rx, k, "#d62728", 2);
	for (size_t i = 0; i < k; i++) {
		ms_svg_rect(&s, p->tx[2 * i] - 3, p->tx[2 * i + 1] - 3, 6, 6, "#1f77b4", NULL, 0);
		ms_svg_rect(&s, p->rx[2 * i] - 3, p->rx[2 * i + 1] - 3, 6, 6, "#d62728", NULL, 0);
	}
	kmb = ms_rmss_knee(d, &base, &noise);
	if (kmb >= p->xlo && kmb <= p->xhi) {
		double kx = ms_svg_axis_pos(&x, kmb);

		ms_svg_line(&s, kx, T, kx, T + ph, "#444444", 1, true);
		ms_svg_textf(&s, kx + 4, T + 14, 12, MS_SVG_START, "#444444", "knee %.2f MB", kmb);
	}
	/* clear of the left, where small sizes run high */
	ms_svg_legend(&s, L + pw - 150, T + ph / 2, leg, 2);
	return ms_svg_end(&s);
}

/*
 * --plot FILE.svg or FILE.png: response time (left axis) and page-in rate (right axis) against
 * memory size (bottom axis), one point per size measured without OOM kills, like the VMS
 * study's plots. Through the pictures' writer (picture.c), as memstat map and plot: the file
 * opened at the start (d->plot) is replaced only by a whole plot; a PNG is rendered by
 * rsvg-convert.
 */
int ms_rmss_write_plot(struct driver *d)
{
	struct plot p = { .d = d, .xlo = INFINITY, .xhi = -INFINITY };
	char why[600];
	size_t n = 0;
	int ret;

	for (int i = 0; i < d->nrows; i++) {
		const struct size_row *r = &d->rows[i];

		if (!r->done || !r->ok_runs)
			continue;
		p.xlo = fmin(p.xlo, r->mb);
		p.xhi = fmax(p.xhi, r->mb);
		p.tmax = fmax(p.tmax, r->sum_secs / r->ok_runs);
		p.rmax = fmax(p.rmax, r->sum_rate / r->ok_runs);
		n++;
	}
	if (!n) {
		rerr("--plot: no size was measured: no plot");
		return -1;
	}
	if (p.xhi - p.xlo < 1e-9) {
		p.xlo -= 1;
		p.xhi += 1;
	}
	p.tmax = p.tmax > 0 ? p.tmax * 1.1 : 1;
	p.rmax = p.rmax > 0 ? p.rmax * 1.1 : 1;
	p.tx = calloc(2 * n, sizeof(double));
	p.rx = calloc(2 * n, sizeof(double));
	if (!p.tx || !p.rx) {
		rerr("--plot: cannot write %s: %s", d->o->plot, strerror(ENOMEM));
		free(p.tx);
		free(p.rx);
		return -1;
	}
	ret = ms_picture_write(&d->plot, draw_plot, &p, PLOT_W, PLOT_H, why, sizeof(why));
	free(p.tx);
	free(p.rx);
	if (ret) {
		rerr("--plot: %s", why);
		return -1;
	}
	return 0;
}
