/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The summary's table, its reconciliation table and its JSON document (report.c). */
#ifndef MEMSTAT_REPORT_H
#define MEMSTAT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "memstat_int.h"
#include "meminfo.h"

/* --compare TOOL (compare.c): what the walk is laid out against, read just after it */
enum ms_compare_tool { MS_CMP_NONE, MS_CMP_FREE, MS_CMP_SMEM, MS_CMP_SLABTOP };
struct ms_slab_totals;
struct ms_compare_in {
	enum ms_compare_tool tool;
	const struct ms_meminfo *mi;		/* /proc/meminfo */
	const struct ms_slab_totals *slabs;	/* slabtop: /proc/slabinfo summed, NULL unreadable */
};

/* Output. */
struct ms_attrs;
struct ms_procs;
struct ms_wss;
struct ms_report_opts {
	bool verbose;
	bool reconcile;
	double elapsed_ms;	/* process start to end of walk */
	const char *kernel;	/* uname -r */
	const char *fallback_reason;	/* why the bpf backend was not used, or NULL */
	const struct ms_timings *timings;	/* --json "timings" (one-shot), or NULL */
	struct ms_groups *const *groups;	/* --by: JSON lines (one key) and prom (every key)
						 * carry the groups */
	size_t ngroups;
	const struct ms_procs *procs;	/* --by process or command: the same of its rows */
	const struct ms_attrs *attrs;	/* -a (attrs.h): the attributes of the walk, or NULL */
	const struct ms_compare_in *compare;	/* --compare: what it compares with, or NULL */
	const struct ms_wss *wss;	/* --wss (wss.h): the window's pages, or NULL */
};
/* "(the kernel moved N pages while the walk ran ...)" when it did (res->moved_pages > 0) */
void ms_print_moved(FILE *out, const struct ms_result *r);
void ms_print_summary(FILE *out, const struct ms_result *r, const struct ms_report_opts *o);
void ms_print_reconcile(FILE *out, const struct ms_recon *rc, const struct ms_meminfo *mi,
			const struct ms_result *r);
void ms_print_json(FILE *out, const struct ms_result *r, const struct ms_report_opts *o,
		   const struct ms_recon *rc);
/* --compare (compare.c): the walk in the tool's terms, each difference named */
struct ms_jw;
void ms_compare_print(FILE *out, const struct ms_result *r, const struct ms_compare_in *in);
void ms_compare_json(struct ms_jw *w, const struct ms_result *r, const struct ms_compare_in *in);
/* The --json object; with a timestamp (iso, ts) for JSON lines. */
struct timespec;
void ms_json_object(FILE *out, const struct ms_result *r, const struct ms_report_opts *o,
		    const struct ms_recon *rc, const char *iso, const struct timespec *ts);

#endif /* MEMSTAT_REPORT_H */
