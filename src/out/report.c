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
#include "report.h"
#include "attrs.h"
#include "escape.h"

static double mb(__u64 pages)
{
	return (double)pages * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

/* err: the --approx error of the row, or -1 (an exact walk: no column) */
static void line(FILE *out, const char *label, __u64 pages, __u64 total, bool pct, long long err)
{
	fprintf(out, "%-24s %16llu  %16.0f", label, (unsigned long long)pages, mb(pages));
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
	fprintf(out, "\nMeminfo is read just before and just after the walk; Diff is from the "
		"nearest value between the two\n(0 when the walk lies between them). Tolerance: "
		"%.1f%% of MemTotal, %.1f%% for the rows marked (0.1%%), and %.0f%% of the row's "
		"counter\n(at least %d pages; not Anon's, which counts mapped pages only). Not "
		"reconcilable, and why:\n", MS_RECON_TOLERANCE_PCT,
		MS_RECON_ATTR_TOLERANCE_PCT, MS_RECON_REL_PCT, MS_RECON_FLOOR_PAGES);
	fprintf(out, "  %-36s %10llu  no struct page marks them; VmallocUsed %lld kB + "
		"Percpu %lld kB cover part\n", "Kernel other",
		(unsigned long long)r->sub[MS_KERNEL_OTHER], mi->vmalloc_used, mi->percpu);
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
	ms_attrs_print_unreconciled(out, rc->attrs);
}

/*
 * ,"approx":{...}: how the sample was taken, and the error of every class and sub-class at the
 * confidence level of "confidence" ("bound" says how; the key keeps its name)
 */
static void ms_json_approx(FILE *out, const struct ms_result *r)
{
	const struct ms_approx_info *a = &r->approx;
	int c, i;

	fprintf(out, ",\"approx\":{\"fraction\":%.6g,\"seed\":%llu,\"cluster_pages\":%u,"
		"\"strata\":%llu,\"clusters\":%llu,\"clusters_sampled\":%llu,"
		"\"pages_sampled\":%llu,\"bound\":\"the error at a %.0f%% confidence level: %d "
		"standard errors and the detection limit in quadrature\",\"confidence\":%.2f,"
		"\"detection_limit_pages\":%llu,\"error_pages\":{",
		a->fraction, (unsigned long long)a->seed, a->cluster_pages,
		(unsigned long long)a->strata, (unsigned long long)a->clusters,
		(unsigned long long)a->clusters_sampled, (unsigned long long)a->pages_sampled,
		100 * MS_APPROX_CONFIDENCE, MS_APPROX_BOUND_SE, MS_APPROX_CONFIDENCE,
		(unsigned long long)a->floor_pages);
	for (c = 0; c < MS_NR_CLASSES; c++)
		fprintf(out, "\"%s\":%llu,", ms_classes[c].key,
			(unsigned long long)a->err_class[c]);
	fprintf(out, "\"total\":%llu},\"error_detail\":{", (unsigned long long)a->err_total);
	for (i = 0; i < MS_NR_SUBS; i++)
		fprintf(out, "%s\"%s\":%llu", i ? "," : "", ms_subs[i].key,
			(unsigned long long)a->err_sub[i]);
	fprintf(out, "},\"error_holes\":%llu}", (unsigned long long)a->err_holes);
}

void ms_print_json(FILE *out, const struct ms_result *r, const struct ms_report_opts *o,
		   const struct ms_recon *rc)
{
	ms_json_object(out, r, o, rc, NULL, NULL);
}

void ms_json_object(FILE *out, const struct ms_result *r, const struct ms_report_opts *o,
		    const struct ms_recon *rc, const char *iso, const struct timespec *ts)
{
	int c, i;

	fprintf(out, "{\"format_version\":%d,", MS_FORMAT_VERSION);
	if (iso && ts) {
		fputs("\"timestamp\":", out);
		ms_json_string(out, iso);
		fprintf(out, ",\"epoch\":%lld.%03ld,", (long long)ts->tv_sec, ts->tv_nsec / 1000000);
	}
	fputs("\"backend\":", out);
	ms_json_string(out, r->backend);
	fputs(",\"kernel\":", out);
	ms_json_string(out, o->kernel);
	if (o->fallback_reason) {
		fputs(",\"fallback_reason\":", out);
		ms_json_string(out, o->fallback_reason);
	}
	fprintf(out, ",\"page_size\":%ld,\"pages\":{", sysconf(_SC_PAGESIZE));
	for (c = 0; c < MS_NR_CLASSES; c++)
		fprintf(out, "\"%s\":%llu,", ms_classes[c].key,
			(unsigned long long)ms_class_pages(r, (enum ms_class)c));
	fprintf(out, "\"total\":%llu},\"detail\":{", (unsigned long long)r->total);
	for (i = 0; i < MS_NR_SUBS; i++)
		fprintf(out, "%s\"%s\":%llu", i ? "," : "", ms_subs[i].key,
			(unsigned long long)r->sub[i]);
	fprintf(out, "},\"exec_known\":%s,\"exec_all_processes\":%s,\"unaccepted_from_meminfo\":%s,\"slab_split\":%s,\"uninit_known\":%s,\"holes\":%llu,"
		"\"exec_mappings\":%llu,\"mapping_lookups\":%llu,\"reads\":%llu,"
		"\"cached_pages\":%llu,"
		"\"walk_ms\":%.3f,\"elapsed_ms\":%.3f",
		r->exec_known ? "true" : "false",
		r->exec_known && r->exec_all_processes ? "true" : "false",
		r->unaccepted_from_meminfo ? "true" : "false",
		r->slab_split ? "true" : "false",
		r->uninit_known ? "true" : "false",
		(unsigned long long)r->holes, (unsigned long long)r->exec_mappings,
		(unsigned long long)r->mapping_lookups, (unsigned long long)r->reads,
		(unsigned long long)r->cached_pages, r->walk_ms,
		o->elapsed_ms);
	fprintf(out, ",\"jobs\":%u,", r->jobs ? r->jobs : 1);
	ms_json_moved_pages(out, r);
	fprintf(out, ",\"own_maps\":{\"pages\":%llu,", (unsigned long long)r->own_maps_pages);
	if (r->own_maps_known)
		fprintf(out, "\"kernel_user_mapped\":%llu,\"kernel_other\":%llu}",
			(unsigned long long)r->own_maps_mapped,
			(unsigned long long)(r->own_maps_pages - r->own_maps_mapped));
	else
		fputs("\"kernel_user_mapped\":null,\"kernel_other\":null}", out);
	if (o->timings)
		fprintf(out, ",\"timings\":{\"ranges\":%.3f,\"bpf_open\":%.3f,\"bpf_load\":%.3f,"
			"\"detect\":%.3f,\"kmod_open\":%.3f,\"exec_set\":%.3f,"
			"\"workers_load\":%.3f,\"walk\":%.3f,\"meminfo\":%.3f}",
			o->timings->ranges, o->timings->bpf_open, o->timings->bpf_load,
			o->timings->detect, o->timings->kmod_open, o->timings->exec_set,
			o->timings->workers_load, o->timings->walk, o->timings->meminfo);
	if (r->approx.on)
		ms_json_approx(out, r);
	if (rc) {
		fprintf(out, ",\"reconcile\":{\"tolerance_pct\":%.1f,\"ok\":%s,\"rows\":[",
			MS_RECON_TOLERANCE_PCT, rc->all_ok ? "true" : "false");
		for (i = 0; i < rc->n; i++) {
			const struct ms_recon_row *w = &rc->row[i];

			fputs(i ? ",{\"name\":" : "{\"name\":", out);
			ms_json_string(out, w->name);
			fputs(",\"meminfo_field\":", out);
			ms_json_string(out, w->field);
			fprintf(out, ",\"tolerance_pct\":%.1f", w->tol_pct);
			if (w->meminfo >= 0)
				fprintf(out, ",\"tolerance_pages\":%lld", w->tol_pages);
			if (w->meminfo < 0) {
				char reason[128];

				snprintf(reason, sizeof(reason), "the kernel has no %s",
					 w->missing ? w->missing : w->field);
				fprintf(out, ",\"walk_pages\":%llu,\"meminfo_before\":null,"
					"\"meminfo_after\":null,\"meminfo_pages\":null,"
					"\"diff_pages\":null,\"diff_pct\":null,\"ok\":true,"
					"\"status\":\"n/a\",\"reason\":", (unsigned long long)w->walk);
				ms_json_string(out, reason);
				fputc('}', out);
			} else {
				fprintf(out, ",\"walk_pages\":%llu,\"meminfo_before\":%lld,"
					"\"meminfo_after\":%lld,\"meminfo_pages\":%lld,"
					"\"diff_pages\":%lld,\"diff_pct\":%.4f,\"ok\":%s,"
					"\"status\":\"%s\"}",
					(unsigned long long)w->walk, w->before, w->after, w->meminfo,
					w->diff, w->diff_pct, w->ok ? "true" : "false",
					w->ok ? "ok" : "mismatch");
			}
		}
		fputs("]}", out);
	}
	if (ms_attrs_valid(o->attrs))	/* -a */
		ms_attrs_json(out, o->attrs);
	if (o->groups) {	/* --by in periodic sampling (groups.c) */
		fputc(',', out);
		ms_groups_json_fields(out, o->groups);
	}
	fputs("}\n", out);
}
