/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct ms_features for the kernel module, from the headers it is built against: the module's
 * counterpart of bpf/core_fixes.bpf.h, which the BPF walker fills from BTF at run time. Every
 * difference cites the commit that made it (docs/page-classes.md sections 3 and 7).
 */
#ifndef MEMSTAT_KFEATURES_H
#define MEMSTAT_KFEATURES_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/page-flags.h>

/* classify.h reads 64-byte struct pages (mm_types.h without KMSAN and the like) */
static_assert(sizeof(struct page) == 64, "memstat supports only 64-byte struct page");

/* What this kernel has, from its headers; classify.h's ms_features_from_facts() does the rest. */
static inline void ms_kmod_features(struct ms_features *f)
{
	struct ms_kernel_facts k;

	memset(&k, 0, sizeof(k));
	memset(f, 0, sizeof(*f));
	k.page_size = sizeof(struct page);
	k.pg_head = PG_head;
	k.pg_reserved = PG_reserved;
	k.pg_swapbacked = PG_swapbacked;
	k.pg_owner_priv_1 = PG_owner_priv_1;
	k.pg_lru = PG_lru;
	k.pg_slab = MS_NO_BIT;
	k.pg_hugetlb = MS_NO_BIT;
	k.pg_movable_ops = MS_NO_BIT;
	k.hugetlb_page_dtor = -1;
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 10, 0)
	k.pg_slab = PG_slab;		/* "mm: free up PG_slab" (v6.10) made it a page type */
#endif
#if (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0) && LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 30)) || \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0) && LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 9))
	k.pg_hugetlb = PG_hugetlb;	/* 9c5ccf2db04b (v6.6) until d99e3140a4d3 (v6.9, 6.6.30) */
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	k.pg_movable_ops = PG_movable_ops;	/* movable_ops page migration rework (v6.17) */
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
	k.has_compound_dtor = 1;	/* ebc1baf5c9b4 moved the order to page[1].flags (v6.6) */
	k.has_dtor_enum = 1;
#ifdef CONFIG_HUGETLB_PAGE
	k.hugetlb_page_dtor = HUGETLB_PAGE_DTOR;
#endif
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	/* 4ffca5a96678 "mm: support only one page_type per page" (v6.12): the top byte */
	k.type_scheme = MS_PT_UPPER_BYTE;
	k.ptype[MS_T_BUDDY] = PGTY_buddy;
	k.ptype[MS_T_OFFLINE] = PGTY_offline;
	k.ptype[MS_T_TABLE] = PGTY_table;
	k.ptype[MS_T_GUARD] = PGTY_guard;
	k.ptype[MS_T_HUGETLB] = PGTY_hugetlb;
	k.ptype[MS_T_SLAB] = PGTY_slab;
	k.ptype[MS_T_ZSMALLOC] = PGTY_zsmalloc;
	k.ptype[MS_T_UNACCEPTED] = PGTY_unaccepted;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
	k.ptype[MS_T_LARGE_KMALLOC] = PGTY_large_kmalloc;	/* in 6.18, not in 6.12 */
#endif
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	/* 6.11: enum pagetype of inverted bits below PAGE_TYPE_BASE */
	k.type_scheme = MS_PT_INVERTED_ENUM;
	k.pt_base = PAGE_TYPE_BASE;
	k.ptype[MS_T_BUDDY] = PG_buddy;
	k.ptype[MS_T_OFFLINE] = PG_offline;
	k.ptype[MS_T_TABLE] = PG_table;
	k.ptype[MS_T_GUARD] = PG_guard;
	k.ptype[MS_T_HUGETLB] = PG_hugetlb;
	k.ptype[MS_T_SLAB] = PG_slab;
	k.ptype[MS_T_ZSMALLOC] = PG_zsmalloc;
#else
	k.type_scheme = MS_PT_INVERTED_BITS;	/* <= 6.10: macros, which classify.h knows */
#endif
	ms_features_from_facts(&k, f);
	f->vmemmap_base = (unsigned long)vmemmap;
#ifdef CONFIG_MEMCG
	f->memcg_kind = MS_MEMCG_PER_POINTER;	/* memstat_main.c memcg_cgroup_id() */
#endif
}

#endif /* MEMSTAT_KFEATURES_H */
