/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct ms_features for the kernel module, from the headers it is built against: the module's
 * counterpart of bpf/core_fixes.bpf.h, which the BPF walker fills from BTF at run time. Every
 * difference cites the commit that made it (shared/docs/kernel-pages.md sections 1-2, 7).
 */
#ifndef MEMSTAT_KFEATURES_H
#define MEMSTAT_KFEATURES_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/page-flags.h>

/* classify.h reads 64-byte struct pages (mm_types.h without KMSAN and the like) */
static_assert(sizeof(struct page) == 64, "memstat supports only 64-byte struct page");

static inline void ms_kmod_features(struct ms_features *f)
{
	memset(f, 0, sizeof(*f));
	f->page_size = sizeof(struct page);
	f->vmemmap_base = (unsigned long)vmemmap;
	f->pg_head = PG_head;
	f->pg_reserved = PG_reserved;
	f->pg_swapbacked = PG_swapbacked;
	f->pg_swapcache = PG_owner_priv_1;
	f->pg_lru = PG_lru;
	f->pg_slab = MS_NO_BIT;
	f->pg_hugetlb = MS_NO_BIT;
	f->pg_movable_ops = MS_NO_BIT;
	f->max_buddy_order = 10;	/* MAX_PAGE_ORDER / MAX_ORDER - 1 on x86_64 */
	f->hugetlb_dtor = 0xff;

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 10, 0)
	f->pg_slab = PG_slab;		/* "mm: free up PG_slab" (v6.10) made it a page type */
#endif
#if (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0) && LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 30)) || \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0) && LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 9))
	f->pg_hugetlb = PG_hugetlb;	/* 9c5ccf2db04b (v6.6) until d99e3140a4d3 (v6.9, 6.6.30) */
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	f->pg_movable_ops = PG_movable_ops;	/* movable_ops page migration rework (v6.17) */
	f->movable_flag = 1;
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
	f->has_dtor = 1;		/* ebc1baf5c9b4 moved the order to page[1].flags (v6.6) */
#ifdef CONFIG_HUGETLB_PAGE
	f->hugetlb_dtor = HUGETLB_PAGE_DTOR;
#endif
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	/* 4ffca5a96678 "mm: support only one page_type per page" (v6.12): the top byte */
	f->type_scheme = MS_PT_UPPER_BYTE;
	f->ptype[MS_T_BUDDY] = PGTY_buddy;
	f->ptype[MS_T_OFFLINE] = PGTY_offline;
	f->ptype[MS_T_TABLE] = PGTY_table;
	f->ptype[MS_T_GUARD] = PGTY_guard;
	f->ptype[MS_T_HUGETLB] = PGTY_hugetlb;
	f->ptype[MS_T_SLAB] = PGTY_slab;
	f->ptype[MS_T_ZSMALLOC] = PGTY_zsmalloc;
	f->ptype[MS_T_UNACCEPTED] = PGTY_unaccepted;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
	f->ptype[MS_T_LARGE_KMALLOC] = PGTY_large_kmalloc;	/* in 6.18, not in 6.12 */
#endif
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	/* 6.11: enum pagetype of inverted bits below PAGE_TYPE_BASE */
	f->type_scheme = MS_PT_INVERTED_ENUM;
	f->pt_base = PAGE_TYPE_BASE;
	f->ptype[MS_T_BUDDY] = PG_buddy;
	f->ptype[MS_T_OFFLINE] = PG_offline;
	f->ptype[MS_T_TABLE] = PG_table;
	f->ptype[MS_T_GUARD] = PG_guard;
	f->ptype[MS_T_HUGETLB] = PG_hugetlb;
	f->ptype[MS_T_SLAB] = PG_slab;
	f->ptype[MS_T_ZSMALLOC] = PG_zsmalloc;
#else
	/* <= 6.10: macros; a type clears its bit below 0xf0000000 */
	f->type_scheme = MS_PT_INVERTED_BITS;
	f->pt_base = 0xf0000000u;
	f->ptype[MS_T_BUDDY] = 0x80;
	f->ptype[MS_T_OFFLINE] = 0x100;
	f->ptype[MS_T_TABLE] = 0x200;
	f->ptype[MS_T_GUARD] = 0x400;
	if (!f->has_dtor && f->pg_hugetlb == MS_NO_BIT)
		f->ptype[MS_T_HUGETLB] = 0x800;	/* d99e3140a4d3 (v6.9, 6.6.30) */
	if (f->pg_slab == MS_NO_BIT)
		f->ptype[MS_T_SLAB] = 0x1000;	/* v6.10 */
#endif
}

#endif /* MEMSTAT_KFEATURES_H */
