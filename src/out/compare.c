// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --compare TOOL: the walk laid out in another tool's terms, each difference named.
 *
 * free: procps-ng's free (4.x, Debian 12) computes its columns from /proc/meminfo: total
 * MemTotal, used MemTotal - MemAvailable, free MemFree, shared Shmem, buff/cache Buffers + Cached
 * + SReclaimable, available MemAvailable. memstat's rows say what those hold page by page, and
 * where a column holds something no page shows (reserved pages left out of MemTotal, per-cpu free
 * pages left out of MemFree, the kernel's estimate behind MemAvailable) the row says so.
 *
 * smem: smem -w (1.5, Debian 12) splits memory from /proc/meminfo: firmware/hardware and kernel
 * image (0 unless told the RAM size, -R, and the kernel file, -K), kernel dynamic memory MemTotal
 * - MemFree - AnonPages - Mapped, userspace memory AnonPages + Mapped, free memory MemFree. Its
 * split is mapped against not mapped: the page cache no process maps is kernel memory to it.
 *
 * slabtop: slabtop (procps-ng) sums /proc/slabinfo: objects in use and all object slots, each
 * times its cache's slot size; the walk counts slab pages. The pages /proc/slabinfo gives
 * (num_slabs * pagesperslab) are the walk's count; the slots and objects are less by what the
 * slabs hold besides.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"
#include "meminfo.h"
#include "json.h"
#include "report.h"
#include "slabs.h"

struct cmp_row {
	const char *name;	/* free's column */
	long long tool;		/* free's value, pages; -1: its counter is absent */
	long long mem;		/* memstat's, pages; -1: no walk gives it */
	const char *rows;	/* memstat's rows that make it */
	char why[240];		/* what the difference is */
};
enum { C_TOTAL, C_USED, C_FREE, C_SHARED, C_BUFFCACHE, C_AVAILABLE, NCMP };
static const char *const tool_name[] = { "", "free", "smem", "slabtop" };
static const char *const tool_head[] = { "", "free -m", "smem -w", "slabtop" };

static long long kb(long long v, long page_kb)
{
	return v < 0 ? -1 : v / page_kb;
}

static void row(struct cmp_row *c, const char *name, long long tool, long long mem,
		const char *rows)
{
	c->name = name;
	c->tool = tool;
	c->mem = mem;
	c->rows = rows;
}

static void rows_free(const struct ms_result *r, const struct ms_meminfo *mi, long page_kb,
		      struct cmp_row *c)
{
	const __u64 *s = r->sub;
	long long reserved = (long long)s[MS_KERNEL_RESERVED], pcp = (long long)s[MS_FREE_PCP];
	long long recl = r->slab_split ? (long long)s[MS_KERNEL_SLAB_RECLAIM] : 0;
	long long avail = kb(mi->mem_available, page_kb), total = kb(mi->mem_total, page_kb);
	long long freed = (long long)(s[MS_FREE_BUDDY] + s[MS_FREE_UNINIT] + s[MS_FREE_UNACCEPTED]);
	long long bc = (long long)(s[MS_FILE] + s[MS_FILE_BUFFERS] + s[MS_EXEC] + s[MS_SHMEM]) + recl;
	long long rest;

	memset(c, 0, NCMP * sizeof(*c));
	row(&c[C_TOTAL], "total", total, (long long)r->total, "Total");
	rest = total < 0 ? 0 : (long long)r->total - reserved - total;
	snprintf(c[C_TOTAL].why, sizeof(c[C_TOTAL].why), "the reserved pages (Kernel, reserved: "
		 "%.0f MB) are outside MemTotal%s", ms_mb(reserved), ms_mb(llabs(rest)) >= 1 ?
		 "; the rest is pages that the kernel took or gave back meanwhile" : "");
	row(&c[C_FREE], "free", kb(mi->mem_free, page_kb), freed,
				      "Free less its per-cpu lists");
	snprintf(c[C_FREE].why, sizeof(c[C_FREE].why), "MemFree leaves out the free pages on the "
		 "per-cpu lists (%.0f MB), which free counts as used", ms_mb(pcp));
	row(&c[C_SHARED], "shared", kb(mi->shmem, page_kb), (long long)s[MS_SHMEM],
					"Shmem");
	snprintf(c[C_SHARED].why, sizeof(c[C_SHARED].why), "the same pages: tmpfs, memfd, SysV "
		 "shm, shared anonymous");
	row(&c[C_BUFFCACHE], "buff/cache", mi->buffers < 0 || mi->cached < 0 ||
					   mi->s_reclaimable < 0 ? -1 : kb(mi->buffers +
					   mi->cached + mi->s_reclaimable, page_kb), bc,
					   "Page cache (files, block devices) + Exec and libs + "
					   "Shmem + slab, reclaimable");
	snprintf(c[C_BUFFCACHE].why, sizeof(c[C_BUFFCACHE].why), "more than memstat's Page cache: "
		 "it holds Exec and libs (%.0f MB), Shmem (%.0f MB) and reclaimable slab (%s)",
		 ms_mb((long long)s[MS_EXEC]), ms_mb((long long)s[MS_SHMEM]),
		 r->slab_split ? "counted here" : "this walk cannot tell it: left out");
	row(&c[C_USED], "used", total < 0 || avail < 0 ? -1 : total - avail,
				      (long long)r->total - reserved - freed - bc,
				      "Kernel (less reserved and reclaimable slab) + Anon + Hugetlb "
				      "+ per-cpu free + swap cache");
	snprintf(c[C_USED].why, sizeof(c[C_USED].why), "free's used is MemTotal - MemAvailable, "
		 "an estimate: it also counts the part of buff/cache the kernel does not expect to "
		 "reclaim, and leaves out free pages it keeps in reserve (the watermarks)");
	row(&c[C_AVAILABLE], "available", avail, -1, "-");
	snprintf(c[C_AVAILABLE].why, sizeof(c[C_AVAILABLE].why), "the kernel's estimate of what "
		 "can be allocated without swapping (MemAvailable): no page says it");
}

/* smem -w's areas (its firmware and kernel image rows are 0 without -R and -K: left out) */
static int rows_smem(const struct ms_result *r, const struct ms_meminfo *mi, long page_kb,
		     struct cmp_row *c)
{
	const __u64 *s = r->sub;
	long long reserved = (long long)s[MS_KERNEL_RESERVED], pcp = (long long)s[MS_FREE_PCP];
	long long freed = (long long)(s[MS_FREE_BUDDY] + s[MS_FREE_UNINIT] + s[MS_FREE_UNACCEPTED]);
	long long anon = (long long)(s[MS_ANON] + s[MS_ANON_SWAPCACHE] + s[MS_ANON_KSM]);
	long long cache = (long long)(s[MS_FILE] + s[MS_FILE_BUFFERS] + s[MS_FILE_SWAPCACHE] +
				      s[MS_EXEC] + s[MS_SHMEM]);
	long long mapped = kb(mi->mapped, page_kb), ap = kb(mi->anon_pages, page_kb);
	long long total = kb(mi->mem_total, page_kb), mfree = kb(mi->mem_free, page_kb);
	bool known = mapped >= 0 && ap >= 0 && total >= 0 && mfree >= 0;

	memset(c, 0, 3 * sizeof(*c));
	row(&c[0], "kernel dynamic memory", known ? total - mfree - ap - mapped : -1,
	    known ? (long long)r->total - reserved - freed - anon - mapped : -1,
	    "Kernel (less reserved) + Hugetlb + per-cpu Free + the Page cache, Exec and Shmem no "
	    "process maps");
	snprintf(c[0].why, sizeof(c[0].why), "smem counts as kernel the cache no process maps: of "
		 "Page cache, Exec and Shmem (%.0f MB), all but meminfo's Mapped (%.0f MB); "
		 "memstat's Kernel is %.0f MB", ms_mb(cache), ms_mb(mapped),
		 ms_mb((long long)ms_class_pages(r, MS_C_KERNEL) - reserved));
	row(&c[1], "userspace memory", known ? ap + mapped : -1, known ? anon + mapped : -1,
	    "Anon + the Page cache, Exec and Shmem processes map");
	snprintf(c[1].why, sizeof(c[1].why), "Anon is AnonPages (%.0f MB walked, %.0f MB in "
		 "meminfo); the mapped cache is meminfo's Mapped, which no walk of pages counts",
		 ms_mb(anon), ms_mb(ap));
	row(&c[2], "free memory", mfree, freed, "Free less its per-cpu lists");
	snprintf(c[2].why, sizeof(c[2].why), "MemFree leaves out the free pages on the per-cpu "
		 "lists (%.0f MB), which smem counts as kernel", ms_mb(pcp));
	return 3;
}

/* slabtop's sizes, and /proc/slabinfo's pages (slabtop does not show them) */
static int rows_slabtop(const struct ms_result *r, const struct ms_slab_totals *t,
			struct cmp_row *c)
{
	long long slab = (long long)(r->sub[MS_KERNEL_SLAB] + r->sub[MS_KERNEL_SLAB_RECLAIM]);
	long long psize = sysconf(_SC_PAGESIZE);

	memset(c, 0, 3 * sizeof(*c));
	row(&c[0], "active size", t ? (long long)(t->active_size / psize) : -1, slab,
	    "Kernel, slab");
	snprintf(c[0].why, sizeof(c[0].why), "slabtop counts the objects in use (%llu of %llu "
		 "slots) times their slot size: less than the slab pages by the free slots and "
		 "what fits no slot", t ? t->active_objs : 0, t ? t->objs : 0);
	row(&c[1], "total size", t ? (long long)(t->size / psize) : -1, slab, "Kernel, slab");
	snprintf(c[1].why, sizeof(c[1].why), "every slot, in use or not: less than the slab pages "
		 "by the end of each slab that no slot fits");
	row(&c[2], "slab pages", t ? (long long)t->pages : -1, slab, "Kernel, slab");
	snprintf(c[2].why, sizeof(c[2].why), "/proc/slabinfo's num_slabs times pagesperslab (%llu "
		 "caches): the same pages, but for slabs made or freed between the walk and the "
		 "reading", t ? t->caches : 0);
	return 3;
}

static int rows_of(const struct ms_result *r, const struct ms_compare_in *in, struct cmp_row *c)
{
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;

	if (in->tool == MS_CMP_SMEM)
		return rows_smem(r, in->mi, page_kb, c);
	if (in->tool == MS_CMP_SLABTOP)
		return rows_slabtop(r, in->slabs, c);
	rows_free(r, in->mi, page_kb, c);
	return NCMP;
}

void ms_compare_print(FILE *out, const struct ms_result *r, const struct ms_compare_in *in)
{
	struct cmp_row c[NCMP];
	int n = rows_of(r, in, c);
	int w = in->tool == MS_CMP_SMEM ? 21 : 11;

	if (in->tool == MS_CMP_SLABTOP)
		fprintf(out, "Compared with slabtop(1) (MB; slabtop sums /proc/slabinfo, read just "
			"after the walk%s):\n", in->slabs ? "" : ": it could not be read");
	else
		fprintf(out, "Compared with %s(1) (MB; %s computes its %s from /proc/meminfo, read "
			"just after the walk):\n", tool_name[in->tool], tool_name[in->tool],
			in->tool == MS_CMP_SMEM ? "areas" : "columns");
	fprintf(out, "%-*s %10s %10s %10s  %s\n", w, tool_head[in->tool], tool_name[in->tool],
		"memstat", "Diff", "memstat's rows (and under them, what the difference is)");
	for (int i = 0; i < n; i++) {
		fprintf(out, "%-*s ", w, c[i].name);
		if (c[i].tool < 0)
			fprintf(out, "%10s ", "-");
		else
			fprintf(out, "%10.0f ", ms_mb(c[i].tool));
		if (c[i].mem < 0)
			fprintf(out, "%10s %10s", "-", "-");
		else if (c[i].tool < 0)
			fprintf(out, "%10.0f %10s", ms_mb(c[i].mem), "-");
		else	/* no "-0" */
			fprintf(out, "%10.0f %+10.0f", ms_mb(c[i].mem),
				fabs(ms_mb(c[i].mem - c[i].tool)) < 0.5 ? 0.0 : ms_mb(c[i].mem - c[i].tool));
		fprintf(out, "  %s\n%*s%s\n", c[i].rows, w + 36, "", c[i].why);
	}
}

void ms_compare_json(struct ms_jw *w, const struct ms_result *r, const struct ms_compare_in *in)
{
	struct cmp_row c[NCMP];
	int n = rows_of(r, in, c);

	ms_jw_object_field(w, "compare");
	ms_jw_string_field(w, "tool", tool_name[in->tool]);
	ms_jw_array_field(w, "rows");
	for (int i = 0; i < n; i++) {
		ms_jw_start_object(w);
		ms_jw_string_field(w, "name", c[i].name);
		if (c[i].tool < 0)
			ms_jw_null_field(w, "tool_pages");
		else
			ms_jw_i64_field(w, "tool_pages", c[i].tool);
		if (c[i].mem < 0) {
			ms_jw_null_field(w, "memstat_pages");
			ms_jw_null_field(w, "diff_pages");
		} else {
			ms_jw_i64_field(w, "memstat_pages", c[i].mem);
			if (c[i].tool < 0)
				ms_jw_null_field(w, "diff_pages");
			else
				ms_jw_i64_field(w, "diff_pages", c[i].mem - c[i].tool);
		}
		ms_jw_string_field(w, "memstat_rows", c[i].rows);
		ms_jw_string_field(w, "why", c[i].why);
		ms_jw_end_object(w);
	}
	ms_jw_end_array(w);
	ms_jw_end_object(w);
}
