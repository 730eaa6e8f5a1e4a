/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The sampling logs' records: CSV, JSON lines, Prometheus and the terminal row (output.c). */
#ifndef MEMSTAT_OUTPUT_H
#define MEMSTAT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "memstat_int.h"
#include "report.h"
#include "meminfo.h"

/* Sample records (output.c). */
void ms_iso8601(const struct timespec *ts, char *buf, size_t len);
void ms_csv_header(FILE *out);
/*
 * approx: the error columns (--approx); attrs: the attribute columns (-a, attrs.c); wss: the
 * window's (--wss, wss_out.c), after them
 */
void ms_csv_header_mode(FILE *out, bool approx, bool attrs, bool wss);
struct ms_wss;
void ms_csv_row(FILE *out, const struct timespec *ts, const struct ms_result *r,
		const struct ms_attrs *a, const struct ms_wss *wss);
void ms_jsonl_row(FILE *out, const struct timespec *ts, const struct ms_result *r,
		  const struct ms_report_opts *o);
/* rc: the reconciliation with meminfo read just after the walk, or NULL (none, --approx) */
void ms_prom(FILE *out, const struct timespec *ts, const struct ms_result *r,
	     const struct ms_recon *rc);
/* the terminal rows; wss (--wss): the working set's columns after the classes' */
void ms_row_header(FILE *out, bool wss);
void ms_row(FILE *out, const struct timespec *ts, const struct ms_result *r,
	    const struct ms_wss *wss);

#endif /* MEMSTAT_OUTPUT_H */
