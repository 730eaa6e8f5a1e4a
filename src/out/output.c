// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sample records for logs: CSV, JSON lines, Prometheus text exposition, and the compact
 * terminal row. Each function appends whole lines to a memory stream, so that a sample
 * reaches its file in one write(2).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memstat_int.h"
#include "approx.h"
#include "meminfo.h"
#include "report.h"
#include "attrs.h"
#include "escape.h"
#include "wss.h"

static const enum ms_class row_classes[] = { MS_C_KERNEL, MS_C_ANON, MS_C_SHMEM, MS_C_EXEC,
					     MS_C_PAGE_CACHE, MS_C_FREE };
static const char *row_names[] = { "kernel", "anon", "shmem", "exec", "cache", "free" };
#define NROW (sizeof(row_classes) / sizeof(row_classes[0]))

void ms_iso8601(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&ts->tv_sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 ts->tv_nsec / 1000000);
}

/* a text field: RFC 4180 quotes when needed, names escaped (escape.h: no formula either) */
static void csv_field(FILE *out, const char *s)
{
	ms_esc_fputs(out, s, MS_ESC_CSV);
}

/*
 * The header of a log; with approx (--approx), the columns of the estimate's error appended:
 * approx_fraction, approx_seed, approx_pages_sampled, err_<class> ..., err_total,
 * err_<sub-class> ... (the error of each at a 99% confidence level, in pages). A log of one
 * kind refuses samples of the other (sample.c): its header differs.
 */
/*
 * The columns of the classes, total and detail keys (detail_<key>: a class and its sub-class may
 * share a name), each name after prefix.
 */
static void csv_class_columns(FILE *out, const char *prefix)
{
	int i;

	for (i = 0; i < MS_NR_CLASSES; i++)
		fprintf(out, ",%s%s", prefix, ms_classes[i].key);
	fprintf(out, ",%stotal", prefix);
	for (i = 0; i < MS_NR_DETAIL; i++)
		fprintf(out, ",%sdetail_%s", prefix, ms_detail_key(i));
}

/* the detail columns of sub[]: an empty field where the key is null */
static void csv_detail(FILE *out, const __u64 *sub, bool slab_split)
{
	__u64 v;
	int k;

	for (k = 0; k < MS_NR_DETAIL; k++) {
		if (ms_detail_value(sub, slab_split, k, &v))
			fprintf(out, ",%llu", (unsigned long long)v);
		else
			fputc(',', out);
	}
}

void ms_csv_header_mode(FILE *out, bool approx, bool attrs, bool wss)
{
	fputs("timestamp,epoch,backend", out);
	csv_class_columns(out, "");
	fputs(",holes,walk_ms", out);
	if (approx) {
		fputs(",approx_fraction,approx_seed,approx_pages_sampled", out);
		csv_class_columns(out, "err_");
	}
	if (attrs)	/* -a: attr_<attribute> (all classes) and attr_<class>_<attribute> */
		ms_attrs_csv_header(out);
	if (wss)	/* --wss: wss_window_s, wss_measured_s, wss_<state>_<class> */
		ms_wss_csv_header(out);
	fputc('\n', out);
}

void ms_csv_header(FILE *out)
{
	ms_csv_header_mode(out, false, false, false);
}

void ms_csv_row(FILE *out, const struct timespec *ts, const struct ms_result *r,
		const struct ms_attrs *a, const struct ms_wss *wss)
{
	char iso[40];
	int c;

	ms_iso8601(ts, iso, sizeof(iso));
	csv_field(out, iso);
	fprintf(out, ",%lld.%03ld,", (long long)ts->tv_sec, ts->tv_nsec / 1000000);
	csv_field(out, r->backend);
	for (c = 0; c < MS_NR_CLASSES; c++)
		fprintf(out, ",%llu", (unsigned long long)ms_class_pages(r, (enum ms_class)c));
	fprintf(out, ",%llu", (unsigned long long)r->total);
	csv_detail(out, r->sub, r->slab_split);
	fprintf(out, ",%llu,%.3f", (unsigned long long)r->holes, r->walk_ms);
	if (r->approx.on) {
		fprintf(out, ",%.6g,%llu,%llu", r->approx.fraction, (unsigned long long)r->approx.seed,
			(unsigned long long)r->approx.pages_sampled);
		for (c = 0; c < MS_NR_CLASSES; c++)
			fprintf(out, ",%llu", (unsigned long long)r->approx.err_class[c]);
		fprintf(out, ",%llu", (unsigned long long)r->approx.err_total);
		csv_detail(out, r->approx.err_sub, r->slab_split);
	}
	if (a)
		ms_attrs_csv_row(out, a);
	if (wss)
		ms_wss_csv_row(out, wss);
	fputc('\n', out);
}

void ms_jsonl_row(FILE *out, const struct timespec *ts, const struct ms_result *r,
		  const struct ms_report_opts *o)
{
	char iso[40];

	ms_iso8601(ts, iso, sizeof(iso));
	ms_json_object(out, r, o, NULL, iso, ts);
}

/*
 * The reconciliation with /proc/meminfo (rc: meminfo.c ms_reconcile(), by the sampler, from
 * meminfo read just after the walk): walk - meminfo for each row that has its counter, in pages
 * and in % of MemTotal. Nothing without it (meminfo unreadable, or --approx).
 */
/* metric{class,subclass} of each detail key that is not null (exec: absent where unknown) */
static void prom_detail(FILE *out, const char *metric, const __u64 *sub,
			const struct ms_result *r)
{
	__u64 v;
	int k;

	for (k = 0; k < MS_NR_DETAIL; k++) {
		const char *key = ms_detail_key(k);

		if (!ms_detail_value(sub, r->slab_split, k, &v) ||
		    (!strcmp(key, "exec") && !r->exec_known))
			continue;
		fprintf(out, "%s{class=\"%s\",subclass=\"%s\"} %llu\n", metric,
			ms_classes[ms_detail_class(k)].key, key, (unsigned long long)v);
	}
}

static void prom_reconcile(FILE *out, const struct ms_recon *rc)
{
	int i;

	if (!rc)
		return;
	fputs("# HELP memstat_reconcile_diff_pages The walk less /proc/meminfo read just after it, "
	      "per row of --reconcile.\n# TYPE memstat_reconcile_diff_pages gauge\n", out);
	for (i = 0; i < rc->n; i++)
		if (!rc->row[i].missing)
			fprintf(out, "memstat_reconcile_diff_pages{row=\"%s\",field=\"%s\"} %lld\n",
				rc->row[i].name, rc->row[i].field, rc->row[i].diff);
	fputs("# HELP memstat_reconcile_diff_percent memstat_reconcile_diff_pages in % of MemTotal "
	      "(--reconcile's tolerance: 0.5).\n# TYPE memstat_reconcile_diff_percent gauge\n", out);
	for (i = 0; i < rc->n; i++)
		if (!rc->row[i].missing)
			fprintf(out, "memstat_reconcile_diff_percent{row=\"%s\",field=\"%s\"} %.4f\n",
				rc->row[i].name, rc->row[i].field, rc->row[i].diff_pct);
}

void ms_prom(FILE *out, const struct timespec *ts, const struct ms_result *r,
	     const struct ms_recon *rc)
{
	int c;

	fputs("# HELP memstat_pages Physical pages by class, from a walk of every struct page.\n"
	      "# TYPE memstat_pages gauge\n", out);
	for (c = 0; c < MS_NR_CLASSES; c++) {
		if (c == MS_C_EXEC && !r->exec_known)
			continue;	/* absent, not 0: the backend cannot tell */
		fprintf(out, "memstat_pages{class=\"%s\"} %llu\n", ms_classes[c].key,
			(unsigned long long)ms_class_pages(r, (enum ms_class)c));
	}
	fprintf(out, "memstat_pages{class=\"total\"} %llu\n", (unsigned long long)r->total);
	fputs("# HELP memstat_subclass_pages Physical pages by sub-class.\n"
	      "# TYPE memstat_subclass_pages gauge\n", out);
	prom_detail(out, "memstat_subclass_pages", r->sub, r);
	fprintf(out, "# HELP memstat_page_size_bytes Bytes per page.\n"
		"# TYPE memstat_page_size_bytes gauge\n"
		"memstat_page_size_bytes %ld\n", sysconf(_SC_PAGESIZE));
	fprintf(out, "# HELP memstat_holes_pages Present pages whose struct page could not be read.\n"
		"# TYPE memstat_holes_pages gauge\n"
		"memstat_holes_pages %llu\n", (unsigned long long)r->holes);
	fprintf(out, "# HELP memstat_walk_seconds Duration of the page walk.\n"
		"# TYPE memstat_walk_seconds gauge\n"
		"memstat_walk_seconds %.6f\n", r->walk_ms / 1000.0);
	fprintf(out, "# HELP memstat_sample_timestamp_seconds When the sample was taken.\n"
		"# TYPE memstat_sample_timestamp_seconds gauge\n"
		"memstat_sample_timestamp_seconds %lld.%03ld\n", (long long)ts->tv_sec,
		ts->tv_nsec / 1000000);
	fprintf(out, "# HELP memstat_info The backend that classified the pages.\n"
		"# TYPE memstat_info gauge\n"
		"memstat_info{backend=\"%s\"} 1\n", r->backend);
	prom_reconcile(out, rc);
	if (!r->approx.on)
		return;
	/* --approx: the sampled fraction and the error of each estimate (at 99% confidence) */
	fprintf(out, "# HELP memstat_approx_fraction Fraction of clusters of pages asked for "
		"(--approx); the pages are estimates.\n"
		"# TYPE memstat_approx_fraction gauge\n"
		"memstat_approx_fraction %.6g\n", r->approx.fraction);
	fprintf(out, "# HELP memstat_approx_sampled_pages Pages read for the estimate.\n"
		"# TYPE memstat_approx_sampled_pages gauge\n"
		"memstat_approx_sampled_pages %llu\n", (unsigned long long)r->approx.pages_sampled);
	fprintf(out, "# HELP memstat_error_pages Error of the estimate of memstat_pages at a %.0f%% "
		"confidence level (%d standard errors and the detection limit in quadrature).\n"
		"# TYPE memstat_error_pages gauge\n", 100 * MS_APPROX_CONFIDENCE, MS_APPROX_BOUND_SE);
	for (c = 0; c < MS_NR_CLASSES; c++) {
		if (c == MS_C_EXEC && !r->exec_known)
			continue;
		fprintf(out, "memstat_error_pages{class=\"%s\"} %llu\n", ms_classes[c].key,
			(unsigned long long)r->approx.err_class[c]);
	}
	fprintf(out, "memstat_error_pages{class=\"total\"} %llu\n",
		(unsigned long long)r->approx.err_total);
	fprintf(out, "# HELP memstat_subclass_error_pages Error of the estimate of "
		"memstat_subclass_pages at a %.0f%% confidence level (%d standard errors and the "
		"detection limit in quadrature).\n"
		"# TYPE memstat_subclass_error_pages gauge\n", 100 * MS_APPROX_CONFIDENCE,
		MS_APPROX_BOUND_SE);
	prom_detail(out, "memstat_subclass_error_pages", r->approx.err_sub, r);
}

void ms_row_header(FILE *out, bool wss)
{
	size_t i;

	fputs("        ", out);
	for (i = 0; i < NROW; i++) {
		char g[16];
		int n = (int)strlen(row_names[i]), left = (11 - n) / 2, right = 11 - n - left;

		snprintf(g, sizeof(g), "%.*s%s%.*s", left, "-----", row_names[i], right, "-----");
		fprintf(out, " %s", g);
	}
	if (wss)
		ms_wss_row_header(out, 0);
	fputs("\n    time", out);
	for (i = 0; i < NROW; i++)
		fputs("      MB   %", out);
	if (wss)
		ms_wss_row_header(out, 1);
	fputc('\n', out);
}

void ms_row(FILE *out, const struct timespec *ts, const struct ms_result *r,
	    const struct ms_wss *wss)
{
	double mb = (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
	struct tm tm;
	size_t i;

	localtime_r(&ts->tv_sec, &tm);
	fprintf(out, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
	for (i = 0; i < NROW; i++) {
		__u64 n = ms_class_pages(r, row_classes[i]);

		if (row_classes[i] == MS_C_EXEC && !r->exec_known) {
			fputs("       -   -", out);
			continue;
		}
		fprintf(out, " %7.0f %3.0f", (double)n * mb,
			r->total ? 100.0 * (double)n / (double)r->total : 0.0);
	}
	if (wss)
		ms_wss_row(out, wss);
	fputc('\n', out);
}
