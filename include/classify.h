/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The page classifier: one pure decision procedure over the raw words of a struct page,
 * shared by the BPF walker (bpf/memstat.bpf.c), the unit tests (tests/unit/classify_test.cc) and
 * the kernel module. It never dereferences anything: the caller passes the words it read and
 * the features of the running kernel (struct ms_features, filled from BTF by
 * bpf/core_fixes.bpf.h). The rules and their kernel sources are in docs/page-classes.md
 * sections 1.3, 2 and 3; every layout difference is a field of struct ms_features.
 *
 * Word indices of a 64-byte struct page (include/linux/mm_types.h, identical from 6.1 to 7.3;
 * the detect program refuses a kernel where the BTF offsets differ):
 *   0 flags, 1 compound_head / compound_info (bit 0 = tail), 3 mapping, 5 private,
 *   6 low half: page_type / _mapcount, high half: _refcount, 7 memcg_data.
 */
#ifndef MEMSTAT_CLASSIFY_H
#define MEMSTAT_CLASSIFY_H

#include "memstat.h"

#if defined(__bpf__)
#define MS_INLINE static __always_inline
#else
#define MS_INLINE static inline
#endif

#define MS_W_FLAGS	0
#define MS_W_HEAD	1
#define MS_W_MAPPING	3
#define MS_W_PRIVATE	5
#define MS_W_TYPE	6
#define MS_W_MEMCG	7
#define MS_PAGE_WORDS	8

/* The largest folio the walker trusts: a 1 GiB (PUD) hugetlb page. */
#define MS_MAX_FOLIO_ORDER 18

/*
 * sizeof(struct page): 64 on every supported kernel (the detect program refuses others, e.g.
 * KMSAN builds), so pfn <-> vmemmap address conversions are shifts, not divisions.
 */
#define MS_PAGE_SHIFT_STRUCT	6
#define MS_PAGES_PER_VMEMMAP_PAGE (4096 >> MS_PAGE_SHIFT_STRUCT)

/*
 * struct ms_features from what the kernel has. The rules, with the commits behind them
 * (docs/page-classes.md sections 3.2-3.7):
 * - <= 6.10 page types are macros, not in BTF: PAGE_TYPE_BASE 0xf0000000, a type clears its
 *   bit (include/linux/page-flags.h): buddy 0x80, offline 0x100, table 0x200, guard 0x400;
 *   hugetlb 0x800 from d99e3140a4d3 (v6.9, backported to 6.6.30), which exists exactly where
 *   neither the compound dtor nor PG_hugetlb does; slab 0x1000 from v6.10 ("mm: free up
 *   PG_slab"), where PG_slab is gone.
 * - 6.11 and >= 6.12 (4ffca5a96678) take their values from enum pagetype.
 * - <= 6.5 enum compound_dtor_id lists HUGETLB_PAGE_DTOR only with CONFIG_HUGETLB_PAGE;
 *   without it 2 is TRANSHUGE_PAGE_DTOR, so the enum without the enumerator means no hugetlb
 *   (0xff); without the enum at all, assume 2.
 * - movable_ops is a page flag from v6.17 ("mm/migration: rework movable_ops page migration").
 */
MS_INLINE void ms_features_from_facts(const struct ms_kernel_facts *k, struct ms_features *f)
{
	int i;

	f->page_size = k->page_size;
	f->pg_head = k->pg_head;
	f->pg_reserved = k->pg_reserved;
	f->pg_swapbacked = k->pg_swapbacked;
	f->pg_swapcache = k->pg_owner_priv_1;
	f->pg_lru = k->pg_lru;
	f->pg_slab = k->pg_slab;
	f->pg_hugetlb = k->pg_hugetlb;
	f->pg_movable_ops = k->pg_movable_ops;
	f->movable_flag = k->pg_movable_ops != MS_NO_BIT;
	f->has_dtor = k->has_compound_dtor;
	if (k->hugetlb_page_dtor >= 0)
		f->hugetlb_dtor = (__u8)k->hugetlb_page_dtor;
	else
		f->hugetlb_dtor = k->has_dtor_enum ? 0xff : 2;
	f->max_buddy_order = 10;	/* MAX_PAGE_ORDER (MAX_ORDER - 1 before 6.4) on x86_64 */
	f->type_scheme = k->type_scheme;
	f->pp_dma_index = k->pp_dma_index;
	/* a word of the 8 a struct page has; 0 (flags) means unknown */
	f->slab_cache_word = k->slab_cache_word < MS_PAGE_WORDS ? k->slab_cache_word : 0;
	for (i = 0; i < MS_NR_PTYPES; i++)
		f->ptype[i] = 0;
	if (k->type_scheme == MS_PT_INVERTED_BITS && k->ptype[MS_T_BUDDY]) {
		/* the kernel module asked the kernel's own helpers (kmod/kfeatures.h): take them */
		f->pt_base = 0xf0000000u;
		for (i = MS_T_BUDDY; i < MS_NR_PTYPES; i++)
			f->ptype[i] = k->ptype[i];
		return;
	}
	if (k->type_scheme == MS_PT_INVERTED_BITS) {
		f->pt_base = 0xf0000000u;
		f->ptype[MS_T_BUDDY] = 0x80;
		f->ptype[MS_T_OFFLINE] = 0x100;
		f->ptype[MS_T_TABLE] = 0x200;
		f->ptype[MS_T_GUARD] = 0x400;
		if (!f->has_dtor && f->pg_hugetlb == MS_NO_BIT)
			f->ptype[MS_T_HUGETLB] = 0x800;
		if (f->pg_slab == MS_NO_BIT)
			f->ptype[MS_T_SLAB] = 0x1000;
		return;
	}
	f->pt_base = k->type_scheme == MS_PT_INVERTED_ENUM ?
		     (k->pt_base ? k->pt_base : 0x80000000u) : 0;
	for (i = MS_T_BUDDY; i < MS_NR_PTYPES; i++)
		f->ptype[i] = k->ptype[i];
	/* upper-byte types by byte, so that decoding one is a lookup, not a search */
	for (i = 0; i < 16; i++)
		f->s3_type[i] = MS_T_UNKNOWN;
	for (i = MS_T_BUDDY; i < MS_T_UNKNOWN; i++)
		if (f->ptype[i] >= 0xf0 && f->ptype[i] <= 0xff)
			f->s3_type[f->ptype[i] & 15] = (__u8)i;
}

/*
 * Network page_pool pages (docs/page-classes.md 2.5): page_pool_set_pp_info() ORs
 * PP_SIGNATURE (include/linux/poison.h: 0x40 + POISON_POINTER_DELTA, x86_64's
 * CONFIG_ILLEGAL_POINTER_VALUE 0xdead000000000000) into pp_magic, which overlays lru.next
 * (word 1); page_pool_clear_pp_info() clears it before the page leaves the pool. The kernel
 * tests (pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE: PP_MAGIC_MASK is ~0x3 (bit 0 compound
 * head, bit 1 pfmemalloc) up to ee62ce7a1d90 "page_pool: Track DMA-mapped pages and unmap
 * them when destroying the pool" (v6.16, backported to 6.12.y), which also masks the DMA
 * index, GENMASK(38, 7) on x86_64 (PP_DMA_INDEX_SHIFT 1 + __fls(0x40) = 7, PP_DMA_INDEX_BITS
 * MIN(32, __ffs(POISON_POINTER_DELTA) - 7) = 32; include/linux/mm.h).
 */
#define MS_PP_SIGNATURE		0xdead000000000040ULL
#define MS_PP_DMA_INDEX_MASK	0x0000007fffffff80ULL
MS_INLINE int ms_page_pool(const struct ms_features *f, __u64 pp_magic)
{
	__u64 mask = ~(f->pp_dma_index ? MS_PP_DMA_INDEX_MASK | 3ULL : 3ULL);

	return (pp_magic & mask) == MS_PP_SIGNATURE;
}

MS_INLINE __u32 ms_page_type_word(const __u64 *p)
{
	return (__u32)p[MS_W_TYPE];
}

MS_INLINE __s32 ms_refcount(const __u64 *p)
{
	return (__s32)(p[MS_W_TYPE] >> 32);
}

MS_INLINE int ms_flag(__u64 flags, __u8 bit)
{
	return bit < 64 && ((flags >> bit) & 1);
}

/* Decode the u32 at offset 48 into a page type, whichever encoding the kernel uses. */
MS_INLINE __u32 ms_ptype(const struct ms_features *f, __u32 pt)
{
	__u32 t, i;

	if (f->type_scheme == MS_PT_UPPER_BYTE) {
		/* 4ffca5a96678 "mm: support only one page_type per page" (v6.12) */
		t = pt >> 24;
		if (t < 0xf0 || t == 0xff)
			return MS_T_NONE;
		return f->s3_type[t & 15];	/* filled by ms_features_from_facts() */
	}
	/* <= 6.11: a type is set by clearing its bit below PAGE_TYPE_BASE */
	if ((pt & f->pt_base) != f->pt_base || pt == 0xffffffffu)
		return MS_T_NONE;
	for (i = MS_T_BUDDY; i < MS_NR_PTYPES; i++)
		if (f->ptype[i] && (pt & (f->pt_base | f->ptype[i])) == f->pt_base)
			return i;
	return MS_T_NONE;
}

/*
 * A struct page that was never initialised: deferred init leaves it all zero, page-init
 * poisoning (CONFIG_DEBUG_VM) all 0xff. __init_single_page() (mm/mm_init.c) sets _refcount = 1
 * and _mapcount = -1; after that, word 6 is zero only if the page is mapped once with no
 * reference, which only a tail page can be, and a tail has bit 0 of word 1 set. So flags,
 * word 1 and word 6 all zero is enough, and the walker tests just those three words.
 */
/*
 * The three words ms_page_uninit() tests, OR-ed: 0 for a never-initialised (all-zero) page.
 * Branch-free, for the walker's 64-page fast paths; a batch that is not all zero goes page by
 * page through ms_page_uninit(), which also knows the 0xff poison pattern.
 */
MS_INLINE __u64 ms_words_set(__u64 flags, __u64 head, __u64 type)
{
	return flags | head | type;
}

MS_INLINE int ms_words_uninit(__u64 flags, __u64 head, __u64 type)
{
	return (flags | head | type) == 0 || (flags & head & type) == ~0ULL;
}

MS_INLINE int ms_page_uninit(const __u64 *p)
{
	return ms_words_uninit(p[MS_W_FLAGS], p[MS_W_HEAD], p[MS_W_TYPE]);
}

/*
 * 7.x "mm: rework compound_head() for power-of-2 sizeof(struct page)" stores
 * GENMASK(63, order + 6) | 1 instead of head | 1 when HVO is configured. Such a mask has at
 * least 39 leading ones, which no vmemmap address has (vmemmap sits far below the fixmap).
 */
MS_INLINE int ms_is_head_mask(__u64 info)
{
	__u64 low = ~(info & ~1ULL);

	return (info | ((1ULL << 25) - 1)) == ~0ULL && (low & (low + 1)) == 0;
}

/*
 * Resolve a compound_head word (bit 0 set) of the page at pfn to the head's pfn.
 * Returns 0 when the pointer is not a plausible head of this page (a torn read).
 */
MS_INLINE int ms_head_of(const struct ms_features *f, __u64 pfn, __u64 info, __u64 *head_pfn)
{
	__u64 self = f->vmemmap_base + (pfn << MS_PAGE_SHIFT_STRUCT);
	__u64 head, hp;

	if (!(info & 1))
		return 0;
	head = ms_is_head_mask(info) ? (self & info) : info - 1;
	if (head < f->vmemmap_base || head >= self)
		return 0;
	if ((head - f->vmemmap_base) & ((1ULL << MS_PAGE_SHIFT_STRUCT) - 1))
		return 0;
	hp = (head - f->vmemmap_base) >> MS_PAGE_SHIFT_STRUCT;
	if (pfn - hp >= (1ULL << MS_MAX_FOLIO_ORDER))
		return 0;
	*head_pfn = hp;
	return 1;
}

/*
 * Is the page at pfn a tail page, and of which head? p1 is the next struct page when the
 * caller has it (NULL otherwise): it is needed for HVO fake heads (6.1-6.18), where every
 * vmemmap page of a hugetlb folio after the first maps the first one, so a page at a
 * page-aligned vmemmap address reads as a copy of the head; page_fixed_fake_head() in
 * include/linux/page-flags.h resolves it through page[1].compound_head.
 */
MS_INLINE int ms_tail_head(const struct ms_features *f, __u64 pfn, const __u64 *p,
			   const __u64 *p1, __u64 *head_pfn)
{
	if (p[MS_W_HEAD] & 1)
		return ms_head_of(f, pfn, p[MS_W_HEAD], head_pfn) ? 1 : -1;
	if (p1 && (pfn & (MS_PAGES_PER_VMEMMAP_PAGE - 1)) == 0 && ms_flag(p[MS_W_FLAGS], f->pg_head) &&
	    (p1[MS_W_HEAD] & 1) && ms_head_of(f, pfn + 1, p1[MS_W_HEAD], head_pfn) &&
	    *head_pfn != pfn)
		return 1;
	return 0;
}

/* Is h1, the struct page after the head at pfn, a tail of that head? */
MS_INLINE int ms_is_tail_of(const struct ms_features *f, __u64 pfn, const __u64 *h1)
{
	__u64 hp = 0;

	return (h1[MS_W_HEAD] & 1) && ms_head_of(f, pfn + 1, h1[MS_W_HEAD], &hp) && hp == pfn;
}

/* The folio order of a head page, from its first tail page's words h1 (NULL: unknown). */
MS_INLINE __u32 ms_folio_order(const struct ms_features *f, const __u64 *h, const __u64 *h1)
{
	if (!ms_flag(h[MS_W_FLAGS], f->pg_head) || !h1)
		return 0;
	if (f->has_dtor)	/* <= 6.5: page[1].compound_order, the byte at +81 */
		return (__u32)((h1[2] >> 8) & 0xff);
	/* ebc1baf5c9b4 "mm: free up a word in the first tail page" (v6.6): low byte of flags */
	return (__u32)(h1[MS_W_FLAGS] & 0xff);
}

/*
 * Pages a head at pfn covers, or 1 when the order is implausible or misaligned. The order is
 * taken as 64 bits: a buddy head's private may still hold a stale pointer in a torn read.
 */
MS_INLINE __u32 ms_run_len(__u64 pfn, __u64 order, __u32 max_order)
{
	if (order == 0 || order > max_order || (pfn & ((1ULL << order) - 1)))
		return 1;
	return 1U << order;
}

/*
 * A slab-typed page (page type from 6.10, PG_slab before) that is also PG_reserved is an object
 * page of KFENCE's pool: the buddy allocator never hands out a reserved page, but a pool that
 * KFENCE took from memblock at boot (kfence.sample_interval or CONFIG_KFENCE_SAMPLE_INTERVAL not
 * 0; mm/kfence/core.c kfence_alloc_pool() and kfence_init_pool(), since 0ce20dd84089 "mm: add
 * Kernel Electric-Fence infrastructure", v5.12) keeps PG_reserved on every page, and KFENCE sets
 * the slab type on every other one. Those pages are outside MemTotal and outside meminfo's Slab
 * (KFENCE's objects bypass the slab counters), like the pool's guard pages in between, which
 * carry PG_reserved alone: the whole pool is reserved memory.
 */
MS_INLINE __u32 ms_slab_or_kfence(const struct ms_features *f, __u64 fl)
{
	return ms_flag(fl, f->pg_reserved) ? MS_KERNEL_RESERVED : MS_KERNEL_SLAB;
}

/*
 * Classify a page that is not a tail (a head, or an order-0 page). h1 is the next struct page
 * (needed for the order of a large folio), or NULL when the caller does not have it.
 * *npages receives how many pages from pfn on share the verdict (a free block or a folio).
 * MS_FILE is returned for every file page: the caller refines it with the mapping's facts
 * through ms_refine_file().
 */
MS_INLINE __u32 ms_classify_head(const struct ms_features *f, __u64 pfn, const __u64 *h,
				 const __u64 *h1, __u32 *npages)
{
	__u64 fl = h[MS_W_FLAGS], m = h[MS_W_MAPPING];
	__u32 t = ms_ptype(f, ms_page_type_word(h));
	__u32 order, large;
	int swapcache;

	*npages = 1;
	/* free blocks: the head carries the type and the order; interiors carry nothing */
	if (t == MS_T_BUDDY) {
		*npages = ms_run_len(pfn, h[MS_W_PRIVATE], f->max_buddy_order);
		return MS_FREE_BUDDY;
	}
	/* debug_pagealloc: set_page_guard() types the first page and keeps the order in private */
	if (t == MS_T_GUARD) {
		*npages = ms_run_len(pfn, h[MS_W_PRIVATE], f->max_buddy_order);
		return MS_KERNEL_GUARD;
	}
	if (t == MS_T_UNACCEPTED) {
		*npages = ms_run_len(pfn, f->max_buddy_order, f->max_buddy_order);
		return MS_FREE_UNACCEPTED;
	}
	large = ms_flag(fl, f->pg_head);
	/*
	 * page[1] says the order (and, up to 6.8, whether it is hugetlb) only while it is a tail of
	 * this head: in a torn read (the folio split or freed while read) it may hold anything, and
	 * an order taken from it would skip up to 2^18 pages. Then the head counts alone and the
	 * next page gets its own verdict.
	 */
	if (large && h1 && !ms_is_tail_of(f, pfn, h1))
		h1 = 0;
	order = large ? ms_folio_order(f, h, h1) : 0;
	*npages = ms_run_len(pfn, order, MS_MAX_FOLIO_ORDER);

	/* typed pages first: their mapping word is not a mapping */
	switch (t) {
	case MS_T_SLAB:
		return ms_slab_or_kfence(f, fl);
	case MS_T_LARGE_KMALLOC:
		return MS_KERNEL_LARGE_KMALLOC;
	case MS_T_TABLE:
		return MS_KERNEL_PAGETABLE;
	case MS_T_HUGETLB:
		return ms_refcount(h) == 0 ? MS_HUGETLB_FREE : MS_HUGETLB;
	case MS_T_ZSMALLOC:
		return MS_KERNEL_ZSMALLOC;
	case MS_T_OFFLINE:
		return MS_KERNEL_OFFLINE;
	case MS_T_UNKNOWN:
		return MS_KERNEL_OTHER;
	default:
		break;
	}
	/* <= 6.9: PG_slab, tested before mapping because 6.1 keeps slab_cache there */
	if (ms_flag(fl, f->pg_slab))
		return ms_slab_or_kfence(f, fl);
	/* <= 6.5: HUGETLB_PAGE_DTOR in page[1].compound_dtor (the byte at +80); 0xff: no hugetlb */
	if (large && h1 && f->has_dtor && f->hugetlb_dtor != 0xff &&
	    ((h1[2] & 0xff) == f->hugetlb_dtor))
		return ms_refcount(h) == 0 ? MS_HUGETLB_FREE : MS_HUGETLB;
	/* 6.6.0-6.6.29, 6.7, 6.8.0-6.8.8: PG_hugetlb in page[1].flags (9c5ccf2db04b) */
	if (large && h1 && ms_flag(h1[MS_W_FLAGS], f->pg_hugetlb))
		return ms_refcount(h) == 0 ? MS_HUGETLB_FREE : MS_HUGETLB;
	if (ms_flag(fl, f->pg_reserved))
		return MS_KERNEL_RESERVED;
	/* <= 6.16: non-LRU movable pages (zsmalloc, z3fold) have mapping = ops | 2 */
	if (!f->movable_flag && (m & 3) == 2)
		return MS_KERNEL_ZSMALLOC;
	swapcache = ms_flag(fl, f->pg_swapbacked) && ms_flag(fl, f->pg_swapcache);
	if (m & 1) {
		if ((m & 3) == 3)
			return MS_ANON_KSM;
		return swapcache ? MS_ANON_SWAPCACHE : MS_ANON;
	}
	if (swapcache)
		return MS_FILE_SWAPCACHE;
	if (m)
		return ms_flag(fl, f->pg_swapbacked) ? MS_SHMEM : MS_FILE;
	/* untyped, unowned: docs/page-classes.md 2.5 */
	if (ms_page_pool(f, h[MS_W_HEAD]))
		return MS_KERNEL_PAGE_POOL;
	if (ms_refcount(h) == 0 && !large)
		return MS_FREE_PCP;
	/*
	 * vm_insert_page() and vm_insert_pages() (mm/memory.c insert_page_into_pte_locked())
	 * take a kernel page with no mapping into a user page table and count it in _mapcount
	 * (folio_add_file_rmap_pte(); page_add_file_rmap() up to 6.7): mapcount >= 0 with no
	 * mapping is a driver's buffer mapped in user space (DRM/GEM, RDMA, v4l2, io_uring
	 * rings, packet mmap). Untyped, so the word is _mapcount, -1 when unmapped.
	 */
	if ((__s32)ms_page_type_word(h) >= 0)
		return MS_KERNEL_USER_MAPPED;
	/* a compound allocation nobody typed: kmalloc_large() before 6.15 (PGTY_large_kmalloc),
	 * alloc_pages(__GFP_COMP) of drivers and the network stack */
	if (large)
		return MS_KERNEL_COMPOUND;
	return MS_KERNEL_OTHER;
}

/* The address_space a file page belongs to, or 0 when sub is not a file page. */
MS_INLINE __u64 ms_file_mapping(__u32 sub, const __u64 *h)
{
	return sub == MS_FILE ? h[MS_W_MAPPING] : 0;
}

/* Refine MS_FILE with the per-mapping facts (MS_MAP_* flags). */
MS_INLINE __u32 ms_refine_file(__u32 sub, __u32 facts)
{
	if (sub != MS_FILE)
		return sub;
	if (facts & MS_MAP_BDEV)
		return MS_FILE_BUFFERS;
	if (facts & MS_MAP_EXEC)
		return MS_EXEC;
	return MS_FILE;
}

/*
 * A word that may be a kernel address (x86-64 with 4- or 5-level page tables, arm64: the top
 * byte all ones), which the module blanks from allpages records unless raw pointers were asked
 * for. No other word of a struct page has that top byte: page->flags keeps node and zone in its
 * top bits (node 0..1023 and zone 0..3 never make 0xff), _refcount and _mapcount are small or
 * page types (0xf0..0xff in the low word's top byte, not the high word's), index and counters are
 * far below it.
 */
MS_INLINE int ms_looks_like_kernel_address(__u64 w)
{
	return (w >> 56) == 0xff;
}

/*
 * SLAB_RECLAIM_ACCOUNT's mask in struct kmem_cache's flags, from what the kernel's BTF shows:
 * flags_size, the size of the flags field (anything but 4: unknown); whether enum
 * _slab_flag_bits exists (6.12 on: the flags are its bits, the bit depends on the config) and
 * whether it has _SLAB_RECLAIM_ACCOUNT, whose value is bit. The enum without that value is
 * CONFIG_SLUB_TINY, where the flag is __SLAB_FLAG_UNUSED (include/linux/slab.h): no cache has
 * it and the kernel counts every slab in SUnreclaim, so the answer is "no such flag", 0. Without
 * the enum (6.1) the flag is the macro 0x00020000. Returns the mask, 0 for no such flag, or -1
 * when unknown.
 */
MS_INLINE long long ms_slab_reclaim_mask_of(__u32 flags_size, int enum_exists, int value_exists,
					    __u32 bit)
{
	if (flags_size != 4)
		return -1;
	if (value_exists)
		return bit < 32 ? (long long)(1u << bit) : -1;
	if (enum_exists)
		return 0;
	return 0x00020000;
}

#ifdef MS_WALK_HOOKS
/*
 * The walker's whole per-page decision, shared by the BPF walker, the unit tests and the
 * kernel module. An includer that defines MS_WALK_HOOKS provides, in the same file:
 *   static int ms_hook_read(void *ctx, __u64 pfn, __u64 *w, __u32 nwords);
 *	copy nwords (8 or 16) words of the struct pages from pfn on; 0, or non-zero on a hole
 *   static __u32 ms_hook_facts(void *ctx, __u64 mapping);
 *	the MS_MAP_* facts of a file mapping (exec-mapped? a block device?)
 *   static int ms_hook_slab_reclaim(void *ctx, __u64 cache);
 *	1 when the struct kmem_cache at cache has SLAB_RECLAIM_ACCOUNT; 0 when not or unreadable
 */
static int ms_hook_read(void *ctx, __u64 pfn, __u64 *w, __u32 nwords);
static __u32 ms_hook_facts(void *ctx, __u64 mapping);
static int ms_hook_slab_reclaim(void *ctx, __u64 cache);

/*
 * The struct kmem_cache a slab head h belongs to: struct slab's slab_cache, word 3 on 6.1 and
 * word 1 from 130d4df57390 "mm/sl[au]b: rearrange struct slab fields to allow larger rcu_head"
 * (v6.2) on (f->slab_cache_word, from BTF or the module's probe caches; 0: unknown). Only a
 * kernel address is taken: a torn read (the slab freed while read) may leave anything there.
 */
MS_INLINE __u64 ms_slab_cache(const struct ms_features *f, const __u64 *h)
{
	__u64 c;

	if (!f->slab_cache_word)
		return 0;
	c = h[f->slab_cache_word & (MS_PAGE_WORDS - 1)];
	return (__s64)c < 0 ? c : 0;
}

/*
 * The walker's refinements of the head's verdict by what the struct page points to: a file
 * page's mapping facts (exec-mapped? a block device?), and a slab page's cache, whose flags say
 * which meminfo counter the kernel charges it to: mm/slab.h cache_vmstat_idx(), SReclaimable
 * (NR_SLAB_RECLAIMABLE_B) when the cache has SLAB_RECLAIM_ACCOUNT, else SUnreclaim. The hook
 * answers 1 for reclaimable; 0 for not, or when the flags cannot be read (then the page stays
 * MS_KERNEL_SLAB, and user space says the split is unknown where the walker cannot read them).
 */
MS_INLINE __u32 ms_refine(void *ctx, const struct ms_features *f, __u32 sub, const __u64 *h)
{
	__u64 m = ms_file_mapping(sub, h), cache;

	if (sub == MS_KERNEL_SLAB) {
		cache = ms_slab_cache(f, h);
		return cache && ms_hook_slab_reclaim(ctx, cache) > 0 ?
		       (__u32)MS_KERNEL_SLAB_RECLAIM : sub;
	}
	return m ? ms_refine_file(sub, ms_hook_facts(ctx, m)) : sub;
}

/*
 * A free block counted at its head can merge with its higher buddy before the walk gets
 * there: that buddy's head loses its type and its pages look like per-cpu free pages. So a
 * per-cpu-looking page right after a counted free block is checked as is_free_buddy_page()
 * does (mm/page_alloc.c): is there a free block, headed at an aligned pfn below, whose order
 * covers it? The head is left in scratch.
 */
MS_INLINE int ms_merged_into(void *ctx, const struct ms_features *f, __u64 pfn, __u64 *scratch,
			     struct ms_verdict *v)
{
	__u32 o;

	for (o = 1; o <= 10 && o <= f->max_buddy_order; o++) {
		__u64 head = pfn & ~((1ULL << o) - 1), order;

		if (ms_hook_read(ctx, head, scratch, MS_PAGE_WORDS))
			return 0;
		if (ms_ptype(f, ms_page_type_word(scratch)) != MS_T_BUDDY)
			continue;
		order = scratch[MS_W_PRIVATE];
		if (order < o || order > f->max_buddy_order)
			continue;
		if (head + (1ULL << order) <= pfn)
			return 0;
		v->start = head;
		v->n = 1U << (order & 31);
		v->sub = MS_FREE_BUDDY;
		return 1;
	}
	return 0;
}

/*
 * The verdict on the page at pfn, whose words are p (and the next page's p1, or NULL). scratch
 * (16 words) receives the head when the verdict comes from another page: then v->start != pfn
 * and scratch holds the head's words, else they are p.
 */
MS_INLINE void ms_page_verdict(void *ctx, const struct ms_features *f, struct ms_walk_state *st,
			       __u64 pfn, const __u64 *p, const __u64 *p1, __u64 *scratch,
			       struct ms_verdict *v)
{
	__u64 head_pfn = 0;
	__u32 sub, n;
	int tail;

	v->start = pfn;
	v->n = 1;
	v->sub = MS_KERNEL_UNSTABLE;
	if (ms_page_uninit(p)) {
		v->sub = MS_FREE_UNINIT;
		return;
	}
	tail = ms_tail_head(f, pfn, p, p1, &head_pfn);
	if (tail < 0)
		return;		/* a head pointer that cannot be: changed while read */
	if (tail > 0) {
		/* met before its head (the walk started inside the folio): read the head */
		if (ms_hook_read(ctx, head_pfn, scratch, 2 * MS_PAGE_WORDS) ||
		    !ms_flag(scratch[MS_W_FLAGS], f->pg_head) || (scratch[MS_W_HEAD] & 1))
			return;
		sub = ms_classify_head(f, head_pfn, scratch, scratch + MS_PAGE_WORDS, &n);
		if (head_pfn + n <= pfn)
			return;	/* the head no longer covers this page */
		v->start = head_pfn;
		v->n = n;
		v->sub = ms_refine(ctx, f, sub, scratch);
		return;
	}
	sub = ms_classify_head(f, pfn, p, p1, &n);
	if (sub == MS_FREE_PCP && pfn == st->free_end && ms_merged_into(ctx, f, pfn, scratch, v)) {
		st->free_end = v->start + v->n;
		return;
	}
	v->n = n;
	v->sub = ms_refine(ctx, f, sub, p);
	if (sub == MS_FREE_BUDDY)
		st->free_end = pfn + n;
}
#endif /* MS_WALK_HOOKS */

#endif /* MEMSTAT_CLASSIFY_H */
