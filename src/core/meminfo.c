// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /proc/meminfo, and how the walk's classes reconcile with it (docs/page-classes.md section 4);
 * the "key value" files (/proc/vmstat, memory.stat) and the pages the kernel moved during a walk.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"
#include "meminfo.h"
#include "testhooks.h"

int ms_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return 0;
}

long long ms_kv_get(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoll(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

long long ms_kv_file(const char *path, const char *key)
{
	static char buf[65536];

	if (ms_read_text(path, buf, sizeof(buf)))
		return -1;
	return ms_kv_get(buf, key);
}

/*
 * The pages the kernel has moved so far: /proc/vmstat's pgmigrate_success (compaction, NUMA
 * balancing, memory offlining, any migrate_pages()) and thp_collapse_alloc times a PMD's pages
 * (khugepaged copies up to that many pages into each new huge page). Their growth during a
 * walk bounds what it can miscount: a page moved from a pfn the walk has passed to one it has
 * not yet read is counted twice, one moved the other way not at all. -1: unknown.
 */
long long ms_pages_moved(void)
{
	static char buf[16384];
	static long long pmd = -1;	/* a PMD's pages: read once, it does not change */
	long long mig, col;
	char sz[32];

	if (ms_read_text("/proc/vmstat", buf, sizeof(buf)))
		return -1;
	mig = ms_kv_get(buf, "pgmigrate_success");
	col = ms_kv_get(buf, "thp_collapse_alloc");
	if (col > 0 && pmd < 0)
		pmd = ms_read_text("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", sz,
				   sizeof(sz)) ? 0 : atoll(sz) / sysconf(_SC_PAGESIZE);
	if (mig < 0)
		return -1;
	return mig + (col > 0 ? col * pmd : 0);
}

const char *ms_meminfo_path(void)
{
	const char *p = ms_test_hook(MS_TEST_MEMINFO);

	return p ? p : "/proc/meminfo";
}

int ms_meminfo_read(const char *path, struct ms_meminfo *mi)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
#define F(n, m) { n, offsetof(struct ms_meminfo, m) }
		F("MemTotal", mem_total), F("MemFree", mem_free), F("MemAvailable", mem_available),
		F("Buffers", buffers),
		F("Cached", cached), F("SwapCached", swap_cached), F("AnonPages", anon_pages),
		F("Shmem", shmem), F("Slab", slab), F("PageTables", page_tables),
		F("Hugetlb", hugetlb), F("HugePages_Total", hugepages_total),
		F("Hugepagesize", hugepagesize), F("Unaccepted", unaccepted),
		F("VmallocUsed", vmalloc_used), F("Percpu", percpu),
		F("KernelStack", kernel_stack), F("Zswap", zswap), F("Dirty", dirty),
		F("SReclaimable", s_reclaimable), F("SUnreclaim", s_unreclaim),
		F("Writeback", writeback), F("Mlocked", mlocked), F("Unevictable", unevictable),
		F("Active(anon)", active_anon), F("Inactive(anon)", inactive_anon),
		F("Active(file)", active_file), F("Inactive(file)", inactive_file),
		F("AnonHugePages", anon_huge), F("ShmemHugePages", shmem_huge),
		F("FileHugePages", file_huge), F("SwapTotal", swap_total), F("Mapped", mapped),
#undef F
	};
	char line[256];
	size_t i;
	FILE *f;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		*(long long *)((char *)mi + fields[i].off) = -1;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (!strcmp(line, fields[i].name))
				*(long long *)((char *)mi + fields[i].off) = strtoll(colon + 1, NULL, 10);
	}
	fclose(f);
	/* a product past 2^63 kB is no real pool: saturate rather than overflow */
	if (mi->hugetlb < 0 && mi->hugepages_total >= 0 && mi->hugepagesize > 0 &&
	    __builtin_mul_overflow(mi->hugepages_total, mi->hugepagesize, &mi->hugetlb))
		mi->hugetlb = LLONG_MAX;
	return mi->mem_total > 0 ? 0 : -EINVAL;
}

/*
 * One row: the walk against the counter read just before (kb0) and just after (kb1) the walk.
 * Pages move while the walk runs (a process frees memory, pages go between the per-cpu and the
 * buddy lists), so any value between the two readings is one the counter really had: the walk
 * is compared with the nearest of them, and agrees when within the tolerance of it.
 * missing: the meminfo field that is absent when kb0 or kb1 < 0.
 */
static void recon_add(struct ms_recon *rc, const char *name, const char *field, __u64 walk,
		      long long kb0, long long kb1, const char *missing, long page_kb,
		      long long total_pages, double tol_pct, bool relative)
{
	struct ms_recon_row *r;
	long long lo, hi;

	if (rc->n >= MS_RECON_MAX)
		return;
	r = &rc->row[rc->n++];
	r->tol_pct = tol_pct;
	r->name = name;
	r->field = field;
	r->walk = walk;
	r->before = kb0 < 0 || kb1 < 0 ? -1 : kb0 / page_kb;
	r->after = kb0 < 0 || kb1 < 0 ? -1 : kb1 / page_kb;
	lo = r->before < r->after ? r->before : r->after;
	hi = r->before < r->after ? r->after : r->before;
	/* the value between the readings nearest to the walk */
	r->meminfo = r->before < 0 ? -1 : (long long)walk < lo ? lo : (long long)walk > hi ? hi :
		     (long long)walk;
	r->missing = r->before < 0 ? missing : NULL;
	r->diff = r->meminfo < 0 ? 0 : (long long)walk - r->meminfo;
	r->diff_pct = total_pages > 0 ? 100.0 * (double)r->diff / (double)total_pages : 0;
	/* within tol_pct of MemTotal, and within MS_RECON_REL_PCT of the counter (memstat_int.h) */
	{
		long long abs_tol = (long long)(tol_pct * (double)total_pages / 100.0);
		long long rel_tol = (long long)(MS_RECON_REL_PCT * (double)(r->meminfo > 0 ?
								   r->meminfo : 0) / 100.0);

		if (rel_tol < MS_RECON_FLOOR_PAGES)
			rel_tol = MS_RECON_FLOOR_PAGES;
		r->tol_pages = abs_tol < rel_tol || !relative ? abs_tol : rel_tol;
	}
	/* a counter this kernel does not have cannot disagree: the row is n/a, not a mismatch */
	r->ok = r->meminfo < 0 || (r->diff < 0 ? -r->diff : r->diff) <= r->tol_pages;
	if (!r->ok)
		rc->all_ok = false;
}

void ms_recon_add(struct ms_recon *rc, const char *name, const char *field, __u64 walk,
		  long long kb0, long long kb1, const char *missing, long page_kb,
		  long long total_pages, double tol_pct)
{
	recon_add(rc, name, field, walk, kb0, kb1, missing, page_kb, total_pages, tol_pct, true);
}

static void row(struct ms_recon *rc, const char *name, const char *field, __u64 walk,
		long long kb0, long long kb1, const char *missing, long page_kb,
		long long total_pages)
{
	ms_recon_add(rc, name, field, walk, kb0, kb1, missing, page_kb, total_pages,
		     MS_RECON_TOLERANCE_PCT);
}

static long long sum_kb(long long a, long long b)
{
	long long sum;

	if (a < 0 || b < 0)
		return -1;
	return __builtin_add_overflow(a, b, &sum) ? LLONG_MAX : sum;	/* saturate */
}

static long long file_pages_kb(const struct ms_meminfo *mi)
{
	return sum_kb(sum_kb(mi->cached, mi->buffers), mi->swap_cached);
}

/* The first of the fields of Cached+Buffers+SwapCached that a reading lacks. */
static const char *file_pages_missing(const struct ms_meminfo *a, const struct ms_meminfo *b)
{
	return a->cached < 0 || b->cached < 0 ? "Cached" :
	       a->buffers < 0 || b->buffers < 0 ? "Buffers" : "SwapCached";
}

void ms_reconcile(const struct ms_result *r, const struct ms_meminfo *mi, long page_kb,
		  struct ms_recon *rc)
{
	ms_reconcile_between(r, mi, mi, page_kb, rc);
}

void ms_reconcile_between(const struct ms_result *r, const struct ms_meminfo *b,
			  const struct ms_meminfo *a, long page_kb, struct ms_recon *rc)
{
	const __u64 *s = r->sub;
	long long tot = a->mem_total / page_kb;

	memset(rc, 0, sizeof(*rc));
	rc->all_ok = true;
	rc->vmalloc_kb = a->vmalloc_used;
	rc->percpu_kb = a->percpu;
	/*
	 * MemTotal = totalram_pages(): present pages minus PG_reserved ones. A balloon that
	 * cannot deflate on OOM also takes its (PageOffline) pages out of it
	 * (adjust_managed_page_count()): then compare without the offline pages.
	 */
	row(rc, "Total - reserved", "MemTotal", r->total - s[MS_KERNEL_RESERVED],
	    b->mem_total, a->mem_total, "MemTotal", page_kb, tot);
	if (!rc->row[0].ok && s[MS_KERNEL_OFFLINE]) {
		rc->n = 0;
		rc->all_ok = true;
		row(rc, "Total - reserved - offline", "MemTotal",
		    r->total - s[MS_KERNEL_RESERVED] - s[MS_KERNEL_OFFLINE],
		    b->mem_total, a->mem_total, "MemTotal", page_kb, tot);
	}
	/* NR_FREE_PAGES: buddy blocks, unaccepted blocks and (lazy init) uninitialised pages;
	 * pages on per-cpu lists are not in it */
	row(rc, "Free (buddy, uninitialised, unaccepted)", "MemFree",
	    s[MS_FREE_BUDDY] + s[MS_FREE_UNINIT] + s[MS_FREE_UNACCEPTED],
	    b->mem_free, a->mem_free, "MemFree", page_kb, tot);
	/*
	 * NR_ANON_MAPPED: mapped anon pages only. The walk counts an unmapped anon page still in
	 * the swap cache, and a large folio partly mapped whole (docs/page-classes.md section 4),
	 * which on a small machine is a large share of the counter (984 of 1945 pages in a 3 GiB
	 * VM of 6.12 after the THP tests): held to MemTotal's share only, not to its own size.
	 */
	recon_add(rc, "Anon", "AnonPages", s[MS_ANON] + s[MS_ANON_SWAPCACHE] + s[MS_ANON_KSM],
		  b->anon_pages, a->anon_pages, "AnonPages", page_kb, tot, MS_RECON_TOLERANCE_PCT,
		  false);
	row(rc, "Shmem", "Shmem", s[MS_SHMEM], b->shmem, a->shmem, "Shmem", page_kb, tot);
	/* NR_FILE_PAGES = Cached + Buffers + SwapCached: all page cache and swap cache */
	row(rc, "Page cache + Exec + Shmem + swap cache", "Cached+Buffers+SwapCached",
	    s[MS_FILE] + s[MS_EXEC] + s[MS_FILE_BUFFERS] + s[MS_FILE_SWAPCACHE] + s[MS_SHMEM] +
	    s[MS_ANON_SWAPCACHE], file_pages_kb(b), file_pages_kb(a), file_pages_missing(b, a),
	    page_kb, tot);
	/* NR_SLAB_*_B: slab pages and kmalloc_large pages */
	row(rc, "Kernel slab + large kmalloc", "Slab",
	    s[MS_KERNEL_SLAB] + s[MS_KERNEL_SLAB_RECLAIM] + s[MS_KERNEL_LARGE_KMALLOC], b->slab,
	    a->slab, "Slab", page_kb, tot);
	/*
	 * The two apart (where the walker could read the caches' flags): a slab is in
	 * NR_SLAB_RECLAIMABLE_B when its cache has SLAB_RECLAIM_ACCOUNT (mm/slab.h
	 * cache_vmstat_idx()); kmalloc_large pages are in NR_SLAB_UNRECLAIMABLE_B
	 */
	if (r->slab_split) {
		ms_recon_add(rc, "Slab reclaimable", "SReclaimable", s[MS_KERNEL_SLAB_RECLAIM],
			     b->s_reclaimable, a->s_reclaimable, "SReclaimable", page_kb, tot,
			     MS_RECON_ATTR_TOLERANCE_PCT);
		ms_recon_add(rc, "Slab unreclaimable + large kmalloc", "SUnreclaim",
			     s[MS_KERNEL_SLAB] + s[MS_KERNEL_LARGE_KMALLOC], b->s_unreclaim,
			     a->s_unreclaim, "SUnreclaim", page_kb, tot,
			     MS_RECON_ATTR_TOLERANCE_PCT);
	}
	row(rc, "Kernel page tables", "PageTables", s[MS_KERNEL_PAGETABLE],
	    b->page_tables, a->page_tables, "PageTables", page_kb, tot);
	row(rc, "Hugetlb", "Hugetlb", s[MS_HUGETLB] + s[MS_HUGETLB_FREE],
	    b->hugetlb < 0 ? 0 : b->hugetlb, a->hugetlb < 0 ? 0 : a->hugetlb, "Hugetlb",
	    page_kb, tot);
	/*
	 * NR_UNACCEPTED (v6.5 on): blocks of unaccepted memory (the page type since v6.12; before
	 * it, ms_unaccepted_from_meminfo() took the number from this counter)
	 */
	ms_recon_add(rc, "Free unaccepted", "Unaccepted", s[MS_FREE_UNACCEPTED], b->unaccepted,
		     a->unaccepted, "Unaccepted", page_kb, tot, MS_RECON_ATTR_TOLERANCE_PCT);
}

/*
 * Unaccepted memory (TDX and SNP guests) before 6.12: the head of an unaccepted block sits on
 * zone->unaccepted_pages with no page type (PageUnaccepted() came with the v6.12 page-type
 * rework, docs/page-classes.md section 2.4), and its pages look like per-cpu free pages to the
 * walk, while the kernel counts them in MemFree and in Unaccepted. So where the kernel has no
 * such type, the walk's per-cpu free pages hold them: meminfo's Unaccepted is moved from
 * free_pcp to free_unaccepted (never more than free_pcp holds), and the result says where the
 * number came from. A kernel with the type counts them page by page; nothing is moved then.
 */
void ms_unaccepted_from_meminfo(struct ms_result *r, const struct ms_features *f,
				const struct ms_meminfo *mi, long page_kb)
{
	__u64 n;

	r->unaccepted_from_meminfo = false;
	if (!f || f->ptype[MS_T_UNACCEPTED] || !mi || mi->unaccepted <= 0 || page_kb <= 0)
		return;
	n = (__u64)(mi->unaccepted / page_kb);
	if (n > r->sub[MS_FREE_PCP])
		n = r->sub[MS_FREE_PCP];
	r->sub[MS_FREE_PCP] -= n;
	r->sub[MS_FREE_UNACCEPTED] += n;
	r->unaccepted_from_meminfo = true;
}

