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
/* the header of an --approx log (approx true): the error columns appended */
/* approx: the error columns (--approx); attrs: the attribute columns (-a, attrs.c) */
void ms_csv_header_mode(FILE *out, bool approx, bool attrs);
void ms_csv_row(FILE *out, const struct timespec *ts, const struct ms_result *r,
		const struct ms_attrs *a);
void ms_jsonl_row(FILE *out, const struct timespec *ts, const struct ms_result *r,
		  const struct ms_report_opts *o);
/* rc: the reconciliation with meminfo read just after the walk, or NULL (none, --approx) */
void ms_prom(FILE *out, const struct timespec *ts, const struct ms_result *r,
	     const struct ms_recon *rc);
void ms_row_header(FILE *out);
void ms_row(FILE *out, const struct timespec *ts, const struct ms_result *r);

#endif /* MEMSTAT_OUTPUT_H */
