// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* memstat --by process: the table and the JSON document of the processes procs.c read. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"
#include "json.h"
#include "escape.h"
#include "procs.h"
#include "procs_out.h"
#include "wss.h"

/* the table's class columns (PSS); free and unknown pages are said below it */
static const enum ms_class cols[] = { MS_C_KERNEL, MS_C_ANON, MS_C_SHMEM, MS_C_EXEC,
				      MS_C_PAGE_CACHE, MS_C_HUGETLB };
static const char *const col_label[] = { "Kernel", "Anon", "Shmem", "Exec", "Cache", "Hugetlb" };
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static void row(FILE *out, const struct ms_procs *ps, const struct ms_proc *p, const char *pid,
		const char *name)
{
	fprintf(out, "%9.1f", ms_mb(p->pss_total));
	for (size_t c = 0; c < NCOLS; c++)
		fprintf(out, " %8.1f", ms_mb(p->pss[cols[c]]));
	fprintf(out, " %8.1f %8.1f %8.1f", ms_mb((double)p->rss_total), ms_mb((double)p->uss),
		ms_mb((double)p->swap));
	for (int v = 0; ps->verdict && v < MS_WSS_VERDICTS; v++)
		fprintf(out, " %8.1f", ms_mb((double)ms_wss_tracked_pages(p->wss[v])));
	fprintf(out, " %8s  ", pid);
	ms_esc_fputs(out, name, MS_ESC_TERM);
	fputc('\n', out);
}

void ms_procs_print(FILE *out, const struct ms_procs *ps)
{
	char pid[24], name[64];
	double late;

	fprintf(out, "%9s", "PSS MB");
	for (size_t c = 0; c < NCOLS; c++)
		fprintf(out, " %8s", col_label[c]);
	fprintf(out, " %8s %8s %8s", "RSS", "USS", "Swap");
	if (ps->verdict)
		fprintf(out, " %8s %8s %8s", "Accessed", "Idle", "Unseen");
	fprintf(out, " %8s  %s\n", ps->by_command ? "Procs" : "PID", "Command");
	for (size_t i = 0; i < ps->nshown; i++) {
		const struct ms_proc *p = &ps->p[ps->order[i]];

		if (ps->by_command)
			snprintf(pid, sizeof(pid), "%zu", p->nprocs);
		else
			snprintf(pid, sizeof(pid), "%d", p->pid);
		row(out, ps, p, pid, p->comm);
	}
	if (ps->nother) {
		snprintf(name, sizeof(name), "(other: %zu %s)", ps->nother, ps->by_command ?
			 (ps->nother == 1 ? "command" : "commands") :
			 (ps->nother == 1 ? "process" : "processes"));
		snprintf(pid, sizeof(pid), "%zu", ps->other.nprocs);
		row(out, ps, &ps->other, ps->by_command ? pid : "-", name);
	}
	snprintf(pid, sizeof(pid), "%zu", ps->total.nprocs);
	row(out, ps, &ps->total, ps->by_command ? pid : "-", "Total");
	fprintf(out, "(MB; a page mapped n times counts 1/n to the PSS of each mapping's process:\n"
		" the class columns are PSS, Cache is page cache; RSS counts every page mapped, USS\n"
		" the pages no other mapping shares, Swap the pages swapped out)\n");
	if (ps->verdict)
		fprintf(out, "(Accessed, Idle, Unseen: of its RSS, the anon, shmem, exec and page cache "
			"pages used in the\n window of --wss, not used, and of unknown use (the working "
			"set below))\n");
	if (!ps->kernel_mapcount)
		fprintf(out, "(/proc/kpagecount could not be read: a page's n is its mappings in the "
			"processes read)\n");
	late = ps->total.pss[MS_C_FREE] + ps->total.pss[MS_C_UNKNOWN];
	if (late >= 0.5)
		fprintf(out, "(%.0f MB of PSS were free pages when walked, mapped since: in PSS, "
			"in no class column)\n", ms_mb(late));
	if (ps->exited)
		fprintf(out, "(left out: %zu process%s that exited while read)\n", ps->exited,
			ps->exited == 1 ? "" : "es");
	if (ps->partial)
		fprintf(out, "(in part: %zu process%s with more than 1 TiB of address space, read "
			"only so far: this kernel has no PAGEMAP_SCAN, 6.7)\n", ps->partial,
			ps->partial == 1 ? "" : "es");
	if (ps->unreadable) {
		fprintf(out, "(left out: %zu process%s whose page tables memstat may not read%s "
			"PID %d ", ps->unreadable, ps->unreadable == 1 ? "" : "es",
			ps->unreadable == 1 ? ":" : ", the first", ps->unreadable_pid);
		ms_esc_fputs(out, ps->unreadable_comm, MS_ESC_TERM);
		fprintf(out, ", %s)\n", strerror(ps->unreadable_err));
	}
}

static void classes(struct ms_jw *w, const char *name, const double *pss, const __u64 *rss,
		    double total)
{
	ms_jw_object_field(w, name);
	for (int c = 0; c < MS_NR_CLASSES; c++)
		if (pss)
			ms_jw_double_field(w, ms_classes[c].key, "%.2f", pss[c]);
		else
			ms_jw_u64_field(w, ms_classes[c].key, rss[c]);
	if (pss)
		ms_jw_double_field(w, "total", "%.2f", total);
	else
		ms_jw_u64_field(w, "total", (__u64)total);
	ms_jw_end_object(w);
}

static void members(struct ms_jw *w, const struct ms_procs *ps, const struct ms_proc *p)
{
	classes(w, "pss", p->pss, NULL, p->pss_total);
	classes(w, "rss", NULL, p->rss, (double)p->rss_total);
	ms_jw_u64_field(w, "uss", p->uss);
	ms_jw_u64_field(w, "swap", p->swap);
	if (!ps->verdict)
		return;
	/* --wss: its mapped pages by verdict, per class (null: a class the window cannot see) */
	ms_jw_object_field(w, "wss");
	ms_wss_verdicts_json(w, p->wss, NULL, MS_NR_CLASSES);
	ms_jw_end_object(w);
}

void ms_procs_json_fields(struct ms_jw *w, const struct ms_procs *ps)
{
	ms_jw_string_field(w, "by", ps->by_command ? "command" : "process");
	ms_jw_double_field(w, "read_ms", "%.3f", ps->read_ms);
	ms_jw_bool_field(w, "pagemap_scan", ps->scan);
	ms_jw_string_field(w, "mapcount", ps->kernel_mapcount ? "kernel" : "mappings_read");
	ms_jw_array_field(w, ps->by_command ? "commands" : "processes");
	for (size_t i = 0; i < ps->nshown; i++) {
		const struct ms_proc *p = &ps->p[ps->order[i]];

		ms_jw_start_object(w);
		if (ps->by_command)
			ms_jw_u64_field(w, "processes", p->nprocs);
		else
			ms_jw_i64_field(w, "pid", p->pid);
		ms_jw_string_field(w, "name", p->comm);
		members(w, ps, p);
		ms_jw_end_object(w);
	}
	ms_jw_end_array(w);
	ms_jw_object_field(w, "other");
	if (ps->by_command)
		ms_jw_u64_field(w, "commands", ps->nother);
	ms_jw_u64_field(w, "processes", ps->other.nprocs);
	members(w, ps, &ps->other);
	ms_jw_end_object(w);
	ms_jw_object_field(w, "all");
	ms_jw_u64_field(w, "processes", ps->total.nprocs);
	ms_jw_u64_field(w, "mapped_pages", ps->mapped_pages);
	members(w, ps, &ps->total);
	ms_jw_end_object(w);
	ms_jw_object_field(w, "left_out");
	ms_jw_u64_field(w, "exited", ps->exited);
	ms_jw_u64_field(w, "unreadable", ps->unreadable);
	ms_jw_u64_field(w, "read_in_part", ps->partial);
	ms_jw_u64_field(w, "no_address_space", ps->no_mm);
	ms_jw_u64_field(w, "zero_page_mappings", ps->zero);
	ms_jw_u64_field(w, "non_ram_mappings", ps->outside);
	ms_jw_end_object(w);
}

void ms_procs_json(FILE *out, const struct ms_procs *ps, const struct ms_result *r,
		   const struct ms_wss *wss)
{
	struct ms_jw w;

	ms_jw_init(&w, out);
	ms_jw_start_object(&w);
	ms_json_walk_head(&w, r);
	ms_json_moved_pages(&w, r);
	ms_procs_json_fields(&w, ps);
	if (wss)	/* --wss: the machine's window (wss_out.c) */
		ms_wss_json(&w, wss);
	ms_jw_end_object(&w);
	fputc('\n', out);
}

static void prom_rows(FILE *out, const struct ms_procs *ps, const char *metric, int what)
{
	for (size_t i = 0; i <= ps->nshown; i++) {
		const struct ms_proc *p = i < ps->nshown ? &ps->p[ps->order[i]] : &ps->other;
		const char *name = i < ps->nshown ? p->comm : "(other)";
		char pid[24] = "";

		if (i == ps->nshown && !ps->nother)
			break;
		if (i < ps->nshown && !ps->by_command)
			snprintf(pid, sizeof(pid), "%d", p->pid);
		else if (i == ps->nshown)	/* no process has this pid, whatever its name */
			snprintf(pid, sizeof(pid), "other");
		for (int c = 0; what < 2 && c <= MS_NR_CLASSES; c++) {
			fprintf(out, "%s{pid=\"%s\",command=\"", metric, pid);
			ms_esc_fputs(out, name, MS_ESC_PROM);
			if (c < MS_NR_CLASSES)
				fprintf(out, "\",class=\"%s\"} ", ms_classes[c].key);
			else
				fputs("\",class=\"total\"} ", out);
			if (what == 0)
				fprintf(out, "%.2f\n", c < MS_NR_CLASSES ? p->pss[c] : p->pss_total);
			else
				fprintf(out, "%llu\n", (unsigned long long)(c < MS_NR_CLASSES ?
					p->rss[c] : p->rss_total));
		}
		for (int c = 0; what == 4 && c < MS_NR_CLASSES; c++) {
			if (!ms_wss_class_tracked(c))
				continue;
			for (int v = 0; v < MS_WSS_VERDICTS; v++) {
				fprintf(out, "%s{pid=\"%s\",command=\"", metric, pid);
				ms_esc_fputs(out, name, MS_ESC_PROM);
				fprintf(out, "\",class=\"%s\",state=\"%s\"} %llu\n",
					ms_classes[c].key, ms_wss_verdict_names[v],
					(unsigned long long)p->wss[v][c]);
			}
		}
		if (what == 2 || what == 3) {
			fprintf(out, "%s{pid=\"%s\",command=\"", metric, pid);
			ms_esc_fputs(out, name, MS_ESC_PROM);
			fprintf(out, "\"} %llu\n", (unsigned long long)(what == 2 ? p->uss : p->swap));
		}
	}
}

void ms_procs_prom(FILE *out, const struct ms_procs *ps)
{
	fputs("# HELP memstat_process_pss_pages Proportional set size by class of each process of "
	      "--by process or command (the top N, and (other) with pid \"other\"; pid empty "
	      "for a command).\n"
	      "# TYPE memstat_process_pss_pages gauge\n", out);
	prom_rows(out, ps, "memstat_process_pss_pages", 0);
	fputs("# HELP memstat_process_rss_pages Pages mapped, by class, of each process of --by "
	      "process or command.\n# TYPE memstat_process_rss_pages gauge\n", out);
	prom_rows(out, ps, "memstat_process_rss_pages", 1);
	fputs("# HELP memstat_process_uss_pages Pages each process of --by process or command "
	      "alone maps.\n# TYPE memstat_process_uss_pages gauge\n", out);
	prom_rows(out, ps, "memstat_process_uss_pages", 2);
	fputs("# HELP memstat_process_swap_pages Pages of each process of --by process or command "
	      "swapped out.\n# TYPE memstat_process_swap_pages gauge\n", out);
	prom_rows(out, ps, "memstat_process_swap_pages", 3);
	if (!ps->verdict)
		return;
	fputs("# HELP memstat_process_wss_pages Pages mapped by each process of --by process or "
	      "command, by class and their state in the window of --wss (accessed, idle, "
	      "unseen).\n# TYPE memstat_process_wss_pages gauge\n", out);
	prom_rows(out, ps, "memstat_process_wss_pages", 4);
}
