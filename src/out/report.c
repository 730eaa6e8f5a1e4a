// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The Solaris ::memstat table, its -v sub-rows, the reconciliation table and JSON. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memstat_int.h"
#include "groups.h"
#include "meminfo.h"
#include "approx.h"
#include "json.h"
#include "report.h"
#include "wss.h"
#include "procs_out.h"
#include "attrs.h"
#include "escape.h"

/* err: the --approx error of the row, or -1 (an exact walk: no column) */
static void line(FILE *out, const char *label, __u64 pages, __u64 total, bool pct, long long err)
{
	fprintf(out, "%-24s %16llu  %16.0f", label, (unsigned long long)pages, ms_mb(pages));
	if (pct)
		fprintf(out, "  %3.0f%%", total ? 100.0 * (double)pages / (double)total : 0.0);
	else if (err >= 0)
		fputs("      ", out);
	if (err >= 0)
		fprintf(out, "  %11lld", err);
	fputc('\n', out);
}

/* the --approx error of a class or sub-class, -1 for an exact walk */
#define ERR(r, field) ((r)->approx.on ? (long long)(r)->approx.field : -1LL)

static void subrows(FILE *out, const struct ms_result *r, enum ms_class c, __u64 total,
		    const int *only, int nonly)
{
	char label[64];
	int i, k, pos;

	for (pos = 0; pos < MS_NR_SUBS; pos++) {
		i = ms_sub_display(pos);
		if (ms_subs[i].cls != c)
			continue;
		if (i == MS_KERNEL_SLAB_RECLAIM && !r->slab_split)
			continue;	/* 0: the walk could not tell (the "slab" row has them all) */
		if (only) {
			for (k = 0; k < nonly && only[k] != i; k++)
				;
			if (k == nonly)
				continue;
		}
		snprintf(label, sizeof(label), "  %s", i == MS_KERNEL_SLAB && r->slab_split ?
			 "slab, unreclaimable" : ms_subs[i].label);
		line(out, label, r->sub[i], total, true, ERR(r, err_sub[i]));
	}
}

void ms_print_moved(FILE *out, const struct ms_result *r)
{
	if (r->moved_pages > 0)
		fprintf(out, "(the kernel moved %lld pages while the walk ran: a row may be off by up "
			"to that many)\n", r->moved_pages);
}

void ms_print_summary(FILE *out, const struct ms_result *r, const struct ms_report_opts *o)
{
	static const int freelist[] = { MS_FREE_BUDDY, MS_FREE_PCP, MS_FREE_UNACCEPTED };
	__u64 t = r->total, uninit = r->sub[MS_FREE_UNINIT];
	int c;

	if (r->approx.on) {	/* approximate: a column for each row's error */
		char head[16];

		snprintf(head, sizeof(head), "Error (%.0f%%)", 100 * MS_APPROX_CONFIDENCE);
		fprintf(out, "%-24s %16s  %16s  %4s  %11s\n", "Page Summary", "Pages", "MB", "%Tot",
			head);
		fprintf(out, "%-24s %16s  %16s  %4s  %11s\n", "------------", "----------------",
			"----------------", "----", "-----------");
	} else {
		fprintf(out, "%-24s %16s  %16s  %4s\n", "Page Summary", "Pages", "MB", "%Tot");
		fprintf(out, "%-24s %16s  %16s  %4s\n", "------------", "----------------",
			"----------------", "----");
	}
	for (c = 0; c < MS_NR_CLASSES; c++) {
		__u64 n = ms_class_pages(r, (enum ms_class)c);

		if (c == MS_C_HUGETLB && n == 0)
			continue;
		if (c == MS_C_UNKNOWN && n == 0)
			continue;
		if (c == MS_C_EXEC && !r->exec_known) {
			fprintf(out, "%-24s %16s  %16s  %4s\n", "Exec and libs", "n/a", "n/a", "");
			continue;
		}
		if (c == MS_C_FREE) {
			line(out, "Free (freelist)", n - uninit, t, true, ERR(r, err_freelist));
			if (o->verbose)
				subrows(out, r, MS_C_FREE, t, freelist, 3);
			if (uninit)
				line(out, "Free (uninitialised)", uninit, t, true,
				     ERR(r, err_sub[MS_FREE_UNINIT]));
			continue;
		}
		line(out, ms_classes[c].label, n, t, true, ERR(r, err_class[c]));
		if (o->verbose && c != MS_C_SHMEM && c != MS_C_EXEC)
			subrows(out, r, (enum ms_class)c, t, NULL, 0);
		/* -v with the record walk: the DMA-pinned pages of the class (also in its rows) */
		if (o->verbose && ms_attrs_valid(o->attrs))
			line(out, "  (of which DMA-pinned)",
			     ms_attrs_class_pages(o->attrs, (enum ms_class)c, MS_A_DMA_PINNED), t, true,
			     -1);
	}
	line(out, "Total", t, t, false, ERR(r, err_total));
	if (r->holes)
		fprintf(out, "(%llu present pages could not be read and are not in Total)\n",
			(unsigned long long)r->holes);
	if (r->approx.on)
		fprintf(out, "(approximate: estimated from %llu of %llu runs of up to %u pages, %.2f%% "
			"of the pages, in %llu strata, seed %llu;\n Error (%.0f%%) is the error at a %.0f%% "
			"confidence level, in pages: %d standard errors and the sample's detection limit, "
			"%llu pages, in quadrature)\n",
			(unsigned long long)r->approx.clusters_sampled,
			(unsigned long long)r->approx.clusters, r->approx.cluster_pages,
			t + r->holes ? 100.0 * (double)r->approx.pages_sampled /
				       (double)(t + r->holes) : 0.0,
			(unsigned long long)r->approx.strata, (unsigned long long)r->approx.seed,
			100 * MS_APPROX_CONFIDENCE, 100 * MS_APPROX_CONFIDENCE, MS_APPROX_BOUND_SE,
			(unsigned long long)r->approx.floor_pages);
	ms_print_moved(out, r);
	if (o->verbose && r->own_maps_pages && r->own_maps_known)
		fprintf(out, "(of these, memstat's own BPF maps: %llu pages, %llu in %s, %llu in %s)\n",
			(unsigned long long)r->own_maps_pages,
			(unsigned long long)r->own_maps_mapped, ms_subs[MS_KERNEL_USER_MAPPED].label,
			(unsigned long long)(r->own_maps_pages - r->own_maps_mapped),
			ms_subs[MS_KERNEL_OTHER].label);
	else if (o->verbose && r->own_maps_pages)
		fprintf(out, "(of these, memstat's own BPF maps: %llu pages, in user-mapped or "
			"other)\n", (unsigned long long)r->own_maps_pages);
	if (!r->exec_known)
		fprintf(out, "(backend %s: exec and libs are counted in Page cache; "
			"pages with no flags are Unidentified)\n", r->backend);
	if (r->exec_unknown_mappings)
		fprintf(out, "(%llu files' mappings are not wholly in the dump, their VMAs filtered "
			"out: whether they are mapped executable is unknown, and their pages count as "
			"Page cache)\n",
			(unsigned long long)r->exec_unknown_mappings);
}

void ms_print_reconcile(FILE *out, const struct ms_recon *rc, const struct ms_meminfo *mi,
			const struct ms_result *r)
{
	int i;

	fprintf(out, "%-40s %12s %14s %14s %10s %8s  %-26s %s\n", "Walk class", "Walk pages",
		"Meminfo before", "Meminfo after", "Diff", "%MemTot", "Meminfo field", "Status");
	for (i = 0; i < rc->n; i++) {
		const struct ms_recon_row *w = &rc->row[i];

		if (w->meminfo < 0) {
			fprintf(out, "%-40s %12llu %14s %14s %10s %8s  %-26s n/a, the kernel has "
				"no %s\n", w->name, (unsigned long long)w->walk, "-", "-", "-", "-",
				w->field, w->missing ? w->missing : w->field);
			continue;
		}
		fprintf(out, "%-40s %12llu %14lld %14lld %+10lld %+7.3f%%  %-26s %s%s\n", w->name,
			(unsigned long long)w->walk, w->before, w->after, w->diff, w->diff_pct,
			w->field, w->ok ? "ok" : "MISMATCH",
			w->tol_pct != MS_RECON_TOLERANCE_PCT ? " (0.1%)" : "");
	}
	if (rc->from_dump)
		fprintf(out, "\nMeminfo is what the dumped kernel's /proc/meminfo would have "
			"printed (its counters; Buffers\nis in Cached). Tolerance: ");
	else
		fprintf(out, "\nMeminfo is read just before and just after the walk; Diff is from "
			"the nearest value between the two\n(0 when the walk lies between them). "
			"Tolerance: ");
	fprintf(out, "%.1f%% of MemTotal, %.1f%% for the rows marked (0.1%%), and %.0f%% of the "
		"row's counter\n(at least %d pages; not Anon's, which counts mapped pages only). Not "
		"reconcilable, and why:\n", MS_RECON_TOLERANCE_PCT,
		MS_RECON_ATTR_TOLERANCE_PCT, MS_RECON_REL_PCT, MS_RECON_FLOOR_PAGES);
	if (mi->vmalloc_used >= 0 && mi->percpu >= 0)
		fprintf(out, "  %-36s %10llu  no struct page marks them; VmallocUsed %lld kB + "
			"Percpu %lld kB cover part\n", "Kernel other",
			(unsigned long long)r->sub[MS_KERNEL_OTHER], mi->vmalloc_used, mi->percpu);
	else
		fprintf(out, "  %-36s %10llu  no struct page marks them (vmalloc, per-cpu areas, "
			"the kernel's own)\n", "Kernel other",
			(unsigned long long)r->sub[MS_KERNEL_OTHER]);
	fprintf(out, "  %-36s %10llu  in no counter: NR_FREE_PAGES drops when pages move "
		"to per-cpu lists\n", "Free per-cpu lists",
		(unsigned long long)r->sub[MS_FREE_PCP]);
	fprintf(out, "  %-36s %10llu  outside MemTotal (the row Total - reserved uses them)\n",
		"Kernel reserved", (unsigned long long)r->sub[MS_KERNEL_RESERVED]);
	fprintf(out, "  %-36s %10llu  zram pages are in no counter; zswap's are in Zswap\n",
		"Kernel zsmalloc", (unsigned long long)r->sub[MS_KERNEL_ZSMALLOC]);
	if (r->exec_known)
		fprintf(out, "  %-36s %10llu  a split of the page cache that no counter makes\n",
			"Exec and libs", (unsigned long long)r->sub[MS_EXEC]);
	if (r->sub[MS_UNKNOWN])
		fprintf(out, "  %-36s %10llu  kpageflags shows no flags: other kernel, per-cpu "
			"or uninitialised\n", "Unidentified",
			(unsigned long long)r->sub[MS_UNKNOWN]);
	if (!r->slab_split)
		fprintf(out, "  %-36s %10s  the %s walk cannot read the slab caches' flags "
			"(SLAB_RECLAIM_ACCOUNT);\n  %-36s %10s  their sum is the row Slab\n",
			"SReclaimable, SUnreclaim apart", "-", r->backend, "", "");
	if (rc->from_dump && !rc->attrs)
		fprintf(out, "  %-36s %10s  need -a (the dump's page records)\n",
			"Dirty ... FileHugePages", "-");
	else
		ms_attrs_print_unreconciled(out, rc->attrs);
}

/*
 * "approx":{...}: how the sample was taken, and the error of every class and sub-class at the
 * confidence level of "confidence" ("bound" says how; the key keeps its name)
 */
static void json_approx(struct ms_jw *w, const struct ms_result *r)
{
	const struct ms_approx_info *a = &r->approx;
	int c;

	ms_jw_object_field(w, "approx");
	ms_jw_double_field(w, "fraction", "%.6g", a->fraction);
	ms_jw_u64_field(w, "seed", a->seed);
	ms_jw_u64_field(w, "cluster_pages", a->cluster_pages);
	ms_jw_u64_field(w, "strata", a->strata);
	ms_jw_u64_field(w, "clusters", a->clusters);
	ms_jw_u64_field(w, "clusters_sampled", a->clusters_sampled);
	ms_jw_u64_field(w, "pages_sampled", a->pages_sampled);
	ms_jw_name(w, "bound");
	ms_jw_stringf(w, "the error at a %.0f%% confidence level: %d standard errors and the "
		      "detection limit in quadrature", 100 * MS_APPROX_CONFIDENCE, MS_APPROX_BOUND_SE);
	ms_jw_double_field(w, "confidence", "%.2f", MS_APPROX_CONFIDENCE);
	ms_jw_u64_field(w, "detection_limit_pages", a->floor_pages);
	ms_jw_object_field(w, "error_pages");
	for (c = 0; c < MS_NR_CLASSES; c++)
		ms_jw_u64_field(w, ms_classes[c].key, a->err_class[c]);
	ms_jw_u64_field(w, "total", a->err_total);
	ms_jw_end_object(w);
	ms_json_detail(w, "error_detail", a->err_sub, r->slab_split, false);
	ms_jw_u64_field(w, "error_holes", a->err_holes);
	ms_jw_end_object(w);
}

static void json_reconcile(struct ms_jw *w, const struct ms_recon *rc)
{
	ms_jw_object_field(w, "reconcile");
	ms_jw_double_field(w, "tolerance_pct", "%.1f", MS_RECON_TOLERANCE_PCT);
	ms_jw_bool_field(w, "ok", rc->all_ok);
	ms_jw_array_field(w, "rows");
	for (int i = 0; i < rc->n; i++) {
		const struct ms_recon_row *x = &rc->row[i];

		ms_jw_start_object(w);
		ms_jw_string_field(w, "name", x->name);
		ms_jw_string_field(w, "meminfo_field", x->field);
		ms_jw_double_field(w, "tolerance_pct", "%.1f", x->tol_pct);
		if (x->meminfo >= 0)
			ms_jw_i64_field(w, "tolerance_pages", x->tol_pages);
		ms_jw_u64_field(w, "walk_pages", x->walk);
		if (x->meminfo < 0) {
			ms_jw_null_field(w, "meminfo_before");
			ms_jw_null_field(w, "meminfo_after");
			ms_jw_null_field(w, "meminfo_pages");
			ms_jw_null_field(w, "diff_pages");
			ms_jw_null_field(w, "diff_pct");
			ms_jw_bool_field(w, "ok", true);
			ms_jw_string_field(w, "status", "n/a");
			ms_jw_name(w, "reason");
			ms_jw_stringf(w, "the kernel has no %s", x->missing ? x->missing : x->field);
		} else {
			ms_jw_i64_field(w, "meminfo_before", x->before);
			ms_jw_i64_field(w, "meminfo_after", x->after);
			ms_jw_i64_field(w, "meminfo_pages", x->meminfo);
			ms_jw_i64_field(w, "diff_pages", x->diff);
			ms_jw_double_field(w, "diff_pct", "%.4f", x->diff_pct);
			ms_jw_bool_field(w, "ok", x->ok);
			ms_jw_string_field(w, "status", x->ok ? "ok" : "mismatch");
		}
		ms_jw_end_object(w);
	}
	ms_jw_end_array(w);
	/* beside the rows: what covers part of Kernel other, which no counter reconciles */
	if (rc->vmalloc_kb >= 0)
		ms_jw_i64_field(w, "vmalloc_used_kb", rc->vmalloc_kb);
	else
		ms_jw_null_field(w, "vmalloc_used_kb");
	if (rc->percpu_kb >= 0)
		ms_jw_i64_field(w, "percpu_kb", rc->percpu_kb);
	else
		ms_jw_null_field(w, "percpu_kb");
	ms_jw_end_object(w);
}

static void json_timings(struct ms_jw *w, const struct ms_timings *t)
{
	ms_jw_object_field(w, "timings");
	ms_jw_double_field(w, "ranges", "%.3f", t->ranges);
	ms_jw_double_field(w, "bpf_open", "%.3f", t->bpf_open);
	ms_jw_double_field(w, "bpf_load", "%.3f", t->bpf_load);
	ms_jw_double_field(w, "bpf_verify", "%.3f", t->bpf_verify);
	ms_jw_double_field(w, "detect", "%.3f", t->detect);
	ms_jw_double_field(w, "kmod_open", "%.3f", t->kmod_open);
	ms_jw_double_field(w, "exec_set", "%.3f", t->exec_set);
	ms_jw_double_field(w, "workers_load", "%.3f", t->workers_load);
	ms_jw_double_field(w, "walk", "%.3f", t->walk);
	ms_jw_double_field(w, "meminfo", "%.3f", t->meminfo);
	ms_jw_end_object(w);
}

void ms_print_json(FILE *out, const struct ms_result *r, const struct ms_report_opts *o,
		   const struct ms_recon *rc)
{
	ms_json_object(out, r, o, rc, NULL, NULL);
}

void ms_json_object(FILE *out, const struct ms_result *r, const struct ms_report_opts *o,
		    const struct ms_recon *rc, const char *iso, const struct timespec *ts)
{
	struct ms_jw jw, *w = &jw;
	int c;

	ms_jw_init(w, out);
	ms_jw_start_object(w);
	ms_jw_i64_field(w, "format_version", MS_FORMAT_VERSION);
	if (iso && ts) {
		ms_jw_string_field(w, "timestamp", iso);
		/* seconds with milliseconds, as a number */
		ms_jw_double_field(w, "epoch", "%.3f",
				   (double)ts->tv_sec + (double)(ts->tv_nsec / 1000000) / 1000.0);
	}
	ms_jw_string_field(w, "backend", r->backend);
	ms_jw_string_field(w, "kernel", o->kernel);
	if (o->fallback_reason)
		ms_jw_string_field(w, "fallback_reason", o->fallback_reason);
	ms_jw_i64_field(w, "page_size", sysconf(_SC_PAGESIZE));
	ms_jw_object_field(w, "pages");
	for (c = 0; c < MS_NR_CLASSES; c++)
		ms_jw_u64_field(w, ms_classes[c].key, ms_class_pages(r, (enum ms_class)c));
	ms_jw_u64_field(w, "total", r->total);
	ms_jw_end_object(w);
	ms_json_detail(w, "detail", r->sub, r->slab_split, false);
	ms_jw_bool_field(w, "exec_known", r->exec_known);
	ms_jw_bool_field(w, "exec_all_processes", r->exec_known && r->exec_all_processes);
	ms_jw_bool_field(w, "unaccepted_from_meminfo", r->unaccepted_from_meminfo);
	ms_jw_bool_field(w, "slab_split", r->slab_split);
	ms_jw_bool_field(w, "uninit_known", r->uninit_known);
	ms_jw_u64_field(w, "holes", r->holes);
	ms_jw_u64_field(w, "exec_mappings", r->exec_mappings);
	ms_jw_u64_field(w, "exec_unknown_mappings", r->exec_unknown_mappings);
	ms_jw_u64_field(w, "mapping_lookups", r->mapping_lookups);
	ms_jw_u64_field(w, "reads", r->reads);
	ms_jw_u64_field(w, "cached_pages", r->cached_pages);
	ms_jw_double_field(w, "walk_ms", "%.3f", r->walk_ms);
	ms_jw_double_field(w, "elapsed_ms", "%.3f", o->elapsed_ms);
	ms_jw_u64_field(w, "jobs", r->jobs ? r->jobs : 1);
	ms_json_moved_pages(w, r);
	ms_jw_object_field(w, "own_maps");
	ms_jw_u64_field(w, "pages", r->own_maps_pages);
	if (r->own_maps_known) {
		ms_jw_u64_field(w, "kernel_user_mapped", r->own_maps_mapped);
		ms_jw_u64_field(w, "kernel_other", r->own_maps_pages - r->own_maps_mapped);
	} else {
		ms_jw_null_field(w, "kernel_user_mapped");
		ms_jw_null_field(w, "kernel_other");
	}
	ms_jw_end_object(w);
	if (o->timings)
		json_timings(w, o->timings);
	if (r->approx.on)
		json_approx(w, r);
	if (rc)
		json_reconcile(w, rc);
	if (o->compare)
		ms_compare_json(w, r, o->compare);
	if (ms_attrs_valid(o->attrs))	/* -a */
		ms_attrs_json(w, o->attrs);
	if (o->ngroups)	/* --by in periodic sampling (groups_out.c): one key */
		ms_groups_json_fields(w, o->groups[0]);
	if (o->procs)	/* --by process or command (procs_out.c) */
		ms_procs_json_fields(w, o->procs);
	if (o->wss)	/* --wss (wss_out.c) */
		ms_wss_json(w, o->wss);
	ms_jw_end_object(w);
	fputc('\n', out);
}
