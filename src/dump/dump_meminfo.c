// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The meminfo a dumped kernel would have printed (memstat --core --reconcile): the counters
 * fs/proc/meminfo.c computes it from, read from the dump. They are the global vmstat arrays,
 * as meminfo reads them (global_zone_page_state(), global_node_page_state_pages()): the
 * per-cpu differences not yet folded in are not in them, for the kernel as for memstat.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "dump_meminfo.h"

enum { SYM_TOTALRAM, SYM_ZONE, SYM_NODE, SYM_HSTATES, SYM_MAX_HSTATE, SYM_VMALLOC,
       SYM_PCPU_POPULATED, SYM_PCPU_UNITS, SYM_NR };
static const char *const sym_names[SYM_NR] = {
	"_totalram_pages", "vm_zone_stat", "vm_node_stat", "hstates", "hugetlb_max_hstate",
	/* VmallocUsed: vmalloc_nr_pages(); Percpu: pcpu_nr_pages() (mm/vmalloc.c, mm/percpu.c) */
	"nr_vmalloc_pages", "pcpu_nr_populated", "pcpu_nr_units",
};
/* --by node|zone: the nodes' pglist_data (NUMA kernels), or the one node's (others) */
enum { ZSYM_NODE_DATA, ZSYM_NR_NODE_IDS, ZSYM_CONTIG, ZSYM_NR };
static const char *const zsym_names[ZSYM_NR] = { "node_data", "nr_node_ids", "contig_page_data" };
#define MAX_NODES	1024	/* MAX_NUMNODES at NODES_SHIFT 10 */
#define MAX_ZONES	8

#define MAX_HSTATES	16	/* HUGE_MAX_HSTATE is 2 on x86_64 */

/* a counter (atomic_long_t) at va in pages, negative values as 0 as the kernel reads them;
 * -1 where it cannot be read */
static long long counter(struct ms_dump *d, __u64 va)
{
	__s64 v;

	if (!va || ms_dump_read_virt(d, va, &v, sizeof(v)))
		return -1;
	return v < 0 ? 0 : v;
}

static long long stat(struct ms_dump *d, const struct ms_dump_types *t, const __u64 *sym, int i)
{
	if (t->stat_zone[i] >= 0 && sym[SYM_ZONE])
		return counter(d, sym[SYM_ZONE] + 8ULL * (__u64)t->stat_zone[i]);
	if (t->stat_node[i] >= 0 && sym[SYM_NODE])
		return counter(d, sym[SYM_NODE] + 8ULL * (__u64)t->stat_node[i]);
	return -1;
}

/* Hugetlb: every pool's pages (hugetlb_report_meminfo()), in pages; -1 unknown */
static long long hugetlb_pages(struct ms_dump *d, const struct ms_dump_types *t,
			       const __u64 *sym)
{
	long long sum = 0;
	__s32 max;

	if (!sym[SYM_HSTATES] || !sym[SYM_MAX_HSTATE] || t->hstate_size <= 0 ||
	    t->hstate_order < 0 || t->hstate_nr < 0 ||
	    ms_dump_read_virt(d, sym[SYM_MAX_HSTATE], &max, sizeof(max)) || max < 0 ||
	    max > MAX_HSTATES)
		return -1;
	for (__s32 i = 0; i < max; i++) {
		__u64 h = sym[SYM_HSTATES] + (__u64)i * (__u64)t->hstate_size, nr;
		__u32 order;

		if (ms_dump_read_virt(d, h + (__u64)t->hstate_order, &order, sizeof(order)) ||
		    ms_dump_read_virt(d, h + (__u64)t->hstate_nr, &nr, sizeof(nr)) || order > 30 ||
		    nr > (1ULL << 40))
			return -1;
		sum += (long long)(nr << order);
	}
	return sum;
}

static long long kb(long long pages, long page_kb)
{
	return pages < 0 ? -1 : pages * page_kb;
}

int ms_dump_meminfo(struct ms_dump *d, const struct ms_dump_types *t, const char *symbols,
		    struct ms_meminfo *mi, char *why, size_t whylen)
{
	long long s[MS_DS_NR];
	long page_kb = (long)(d->page_size / 1024);
	__u64 sym[SYM_NR];
	int ret = ms_dump_symbols(d, symbols, sym_names, SYM_NR, sym, why, whylen);

	if (ret)
		return ret;
	for (size_t i = 0; i < sizeof(*mi) / sizeof(long long); i++)
		((long long *)mi)[i] = -1;	/* every field absent until read */
	for (int i = 0; i < MS_DS_NR; i++)
		s[i] = stat(d, t, sym, i);
	mi->mem_total = kb(counter(d, sym[SYM_TOTALRAM]), page_kb);
	mi->mem_free = kb(s[MS_DS_FREE], page_kb);
	mi->anon_pages = kb(s[MS_DS_ANON], page_kb);
	mi->shmem = kb(s[MS_DS_SHMEM], page_kb);
	/*
	 * Cached is NR_FILE_PAGES less SwapCached and Buffers; Buffers is a sum over the block
	 * devices' inodes (nr_blockdev_pages()), not a counter: it stays in Cached here, and the
	 * row that reads them (Cached+Buffers+SwapCached) is NR_FILE_PAGES either way
	 */
	if (s[MS_DS_FILE] >= 0) {
		long long swap = s[MS_DS_SWAPCACHE] > 0 ? s[MS_DS_SWAPCACHE] : 0;

		mi->swap_cached = kb(swap, page_kb);
		mi->cached = kb(s[MS_DS_FILE] > swap ? s[MS_DS_FILE] - swap : 0, page_kb);
		mi->buffers = 0;
	}
	mi->s_reclaimable = kb(s[MS_DS_SLAB_R], page_kb);
	mi->s_unreclaim = kb(s[MS_DS_SLAB_U], page_kb);
	if (s[MS_DS_SLAB_R] >= 0 && s[MS_DS_SLAB_U] >= 0)
		mi->slab = kb(s[MS_DS_SLAB_R] + s[MS_DS_SLAB_U], page_kb);
	mi->page_tables = kb(s[MS_DS_PAGETABLE], page_kb);
	mi->unaccepted = kb(s[MS_DS_UNACCEPTED], page_kb);
	mi->hugetlb = kb(hugetlb_pages(d, t, sym), page_kb);
	/* not rows: what the text names beside the pages no struct page marks */
	mi->vmalloc_used = kb(s[MS_DS_VMALLOC] >= 0 ? s[MS_DS_VMALLOC] :
			      counter(d, sym[SYM_VMALLOC]), page_kb);
	{
		__s32 units;
		long long populated = counter(d, sym[SYM_PCPU_POPULATED]);

		if (populated >= 0 && sym[SYM_PCPU_UNITS] &&
		    !ms_dump_read_virt(d, sym[SYM_PCPU_UNITS], &units, sizeof(units)) &&
		    units > 0 && units < (1 << 20))
			mi->percpu = kb(populated * units, page_kb);
	}
	/* -a --reconcile: the attributes' rows (meminfo_proc_show()'s sources of the same names) */
	mi->dirty = kb(s[MS_DS_DIRTY], page_kb);
	mi->writeback = kb(s[MS_DS_WRITEBACK], page_kb);
	mi->mlocked = kb(s[MS_DS_MLOCK], page_kb);
	mi->unevictable = kb(s[MS_DS_UNEVICTABLE], page_kb);
	mi->active_anon = kb(s[MS_DS_ACTIVE_ANON], page_kb);
	mi->inactive_anon = kb(s[MS_DS_INACTIVE_ANON], page_kb);
	mi->active_file = kb(s[MS_DS_ACTIVE_FILE], page_kb);
	mi->inactive_file = kb(s[MS_DS_INACTIVE_FILE], page_kb);
	mi->anon_huge = kb(s[MS_DS_ANON_THPS], page_kb);
	mi->shmem_huge = kb(s[MS_DS_SHMEM_THPS], page_kb);
	mi->file_huge = kb(s[MS_DS_FILE_THPS], page_kb);
	if (mi->mem_total < 0)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "the kernel's "
				   "_totalram_pages (MemTotal) cannot be read in it");
	return MS_EXIT_OK;
}

/* node's zones (pglist_data at pgdat) appended to *out: 0, or -ENOMEM */
static int node_zones(struct ms_dump *d, const struct ms_dump_types *t, int node, __u64 pgdat,
		      struct ms_zone **out, size_t *n)
{
	for (long i = 0; i < t->nr_zones && i < MAX_ZONES; i++) {
		__u64 z = pgdat + (__u64)t->pgdat_zones + (__u64)i * (__u64)t->zone_size;
		__u64 start, spanned, name_va;
		char name[16] = "";
		struct ms_zone *nz;

		if (ms_dump_read_virt(d, z + (__u64)t->zone_start, &start, sizeof(start)) ||
		    ms_dump_read_virt(d, z + (__u64)t->zone_spanned, &spanned, sizeof(spanned)) ||
		    !spanned || start + spanned < start)
			continue;	/* an empty zone, or one the dump lacks */
		name_va = t->zone_name >= 0 ? ms_dump_u64(d, z + (__u64)t->zone_name) : 0;
		if (!name_va || ms_dump_read_virt(d, name_va, name, sizeof(name) - 1))
			snprintf(name, sizeof(name), "zone%ld", i);
		for (size_t k = 0; k < sizeof(name); k++)	/* a name, not the dump's bytes */
			if (name[k] && (name[k] < '!' || name[k] > '~'))
				name[k] = 0;
		nz = realloc(*out, (*n + 1) * sizeof(*nz));
		if (!nz)
			return -ENOMEM;
		*out = nz;
		nz[*n].node = node;
		snprintf(nz[*n].name, sizeof(nz[*n].name), "%s", name);
		nz[*n].start = start;
		nz[*n].end = start + spanned;
		(*n)++;
	}
	return 0;
}

int ms_dump_zones(struct ms_dump *d, const struct ms_dump_types *t, const char *symbols,
		  struct ms_zone **out, size_t *n, char *why, size_t whylen)
{
	__u64 sym[ZSYM_NR];
	__u32 nodes = 1;
	int ret = ms_dump_symbols(d, symbols, zsym_names, ZSYM_NR, sym, why, whylen), err = 0;

	*out = NULL;
	*n = 0;
	if (ret)
		return ret;
	if (t->nr_zones <= 0 || t->zone_size <= 0 || t->pgdat_zones < 0 || t->zone_start < 0 ||
	    t->zone_spanned < 0)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "its BTF has no "
				   "pglist_data.node_zones or zone.zone_start_pfn/spanned_pages");
	if (sym[ZSYM_NODE_DATA]) {
		if (sym[ZSYM_NR_NODE_IDS])
			ms_dump_read_virt(d, sym[ZSYM_NR_NODE_IDS], &nodes, sizeof(nodes));
		for (__u32 i = 0; i < nodes && i < MAX_NODES && !err; i++) {
			__u64 pgdat = ms_dump_u64(d, sym[ZSYM_NODE_DATA] + 8ULL * i);

			if (pgdat)
				err = node_zones(d, t, (int)i, pgdat, out, n);
		}
	} else if (sym[ZSYM_CONTIG]) {
		err = node_zones(d, t, 0, sym[ZSYM_CONTIG], out, n);
	}
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
		return ms_dump_bad(why, whylen, MS_EXIT_FAIL, "%s", "out of memory");
	}
	if (!*n)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "no node's zones could "
				   "be read in it (node_data or contig_page_data)");
	return MS_EXIT_OK;
}
