/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* /proc/meminfo, /proc/vmstat and the key-value files, and the reconciliation of a walk with meminfo (meminfo.c). */
#ifndef MEMSTAT_MEMINFO_H
#define MEMSTAT_MEMINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "memstat_int.h"

/* /proc/meminfo, in kB; -1 when a field is absent. */
struct ms_meminfo {
	long long mem_total, mem_free, mem_available, buffers, cached, swap_cached, anon_pages, shmem, slab,
		page_tables, hugetlb, hugepages_total, hugepagesize, unaccepted, vmalloc_used,
		percpu, kernel_stack, zswap, s_reclaimable, s_unreclaim, swap_total, mapped;
	/* the rows of memstat -a --reconcile (attrs.c) */
	long long dirty, writeback, mlocked, unevictable, active_anon, inactive_anon,
		active_file, inactive_file, anon_huge, shmem_huge, file_huge;
};
int ms_meminfo_read(const char *path, struct ms_meminfo *mi);
/*
 * The meminfo the walk is reconciled with: /proc/meminfo, or in test builds the file
 * MEMSTAT_MEMINFO names (testhooks.h), so that a test can show a kernel without some counter.
 */
const char *ms_meminfo_path(void);
/* The whole of a small /proc or sysfs file, NUL-terminated (at most len - 1 bytes): 0, -errno. */
int ms_read_text(const char *path, char *buf, size_t len);
/* In "key value" lines (/proc/vmstat, memory.stat, memory.events): key's value, or -1. */
long long ms_kv_get(const char *text, const char *key);
/* The same of a whole file (at most 64 KiB: memory.stat, memory.events): its value, or -1. */
long long ms_kv_file(const char *path, const char *key);
/* Pages the kernel has moved so far (migrated, or copied into a collapsed THP), -1 unknown. */
long long ms_pages_moved(void);
/* Unaccepted memory on a kernel without the page type (< 6.12), from meminfo (meminfo.c). */
void ms_unaccepted_from_meminfo(struct ms_result *r, const struct ms_features *f,
				const struct ms_meminfo *mi, long page_kb);

/* Reconciliation of the walk with /proc/meminfo. */
struct ms_recon_row {
	const char *name;	/* what the walk counted */
	const char *field;	/* the meminfo counter(s) it should match */
	__u64 walk;		/* pages */
	long long before, after;	/* the counter read just before and after the walk, pages;
					 * -1 when absent */
	long long meminfo;	/* the value between before and after nearest to walk; -1: absent */
	const char *missing;	/* the absent meminfo field (the row is n/a), or NULL */
	long long diff;		/* walk - meminfo, pages: 0 when walk lies between the readings */
	double diff_pct;	/* of MemTotal */
	bool ok;		/* not a mismatch: |diff| <= tol_pages, or n/a */
	double tol_pct;		/* MS_RECON_TOLERANCE_PCT, or the attribute rows' */
	long long tol_pages;	/* the row's bound: tol_pct of MemTotal, and (every row but
				 * Anon) MS_RECON_REL_PCT of its counter, at least
				 * MS_RECON_FLOOR_PAGES */
};
#define MS_RECON_MAX 32
#define MS_RECON_TOLERANCE_PCT 0.5
#define MS_RECON_ATTR_TOLERANCE_PCT 0.1	/* memstat -a --reconcile's rows, slab split, unaccepted */
/*
 * Each row is also held to its own size: within MS_RECON_REL_PCT of the counter, but never less
 * than MS_RECON_FLOOR_PAGES (pages that move while the walk passes them). A tolerance of MemTotal
 * alone passes a small counter whatever the walk found: PageTables, 536 pages on a 24 GiB
 * machine, against 0.5% of MemTotal, 30855.
 */
#define MS_RECON_REL_PCT 25.0
#define MS_RECON_FLOOR_PAGES 256
/* Adds a row (meminfo.c): the walk against kb0 (before) and kb1 (after), within tol_pct. */
struct ms_recon;
void ms_recon_add(struct ms_recon *rc, const char *name, const char *field, __u64 walk,
		  long long kb0, long long kb1, const char *missing, long page_kb,
		  long long total_pages, double tol_pct);
struct ms_recon {
	struct ms_recon_row row[MS_RECON_MAX];
	const struct ms_attrs *attrs;	/* -a: its rows were added (attrs.c), or NULL */
	int n;
	bool all_ok;
	bool from_dump;		/* memstat --core: meminfo is the dump's counters, read once */
	/* what covers part of Kernel other (no struct page marks it): kB after the walk, -1 none */
	long long vmalloc_kb, percpu_kb;
};
void ms_reconcile(const struct ms_result *r, const struct ms_meminfo *mi, long page_kb,
		  struct ms_recon *out);
/* The same with /proc/meminfo read just before (b) and just after (a) the walk: a row agrees
 * when the walk is within the tolerance of some value between the two readings. */
void ms_reconcile_between(const struct ms_result *r, const struct ms_meminfo *b,
			  const struct ms_meminfo *a, long page_kb, struct ms_recon *out);

#endif /* MEMSTAT_MEMINFO_H */
