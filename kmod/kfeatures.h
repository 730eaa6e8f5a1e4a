/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct ms_features for the kernel module: the module's counterpart of bpf/core_fixes.bpf.h,
 * which the BPF walker fills from BTF at run time (docs/page-classes.md section 3).
 *
 * Features are detected, not inferred from LINUX_VERSION_CODE: distributions backport changes
 * without changing the version (the hugetlb page type of d99e3140a4d3 "mm: turn folio_test_hugetlb
 * into a PageType" went into 6.6.30, and vendor kernels keep SUBLEVEL 0). So every encoding is
 * asked of the kernel's own helpers, applied at load time to two synthetic struct pages (a head
 * and its first tail, in module memory, never in vmemmap): which page_type value makes
 * PageBuddy() true, which page[1] bit or byte makes PageHuge() true, where compound_order()
 * finds the order. The answer is what the running kernel's code means, whatever its version.
 *
 * The only version tests left decide whether a helper exists at all (PageZsmalloc() and the
 * others below), each with the commit that added it: a helper's absence is a compile error,
 * not a silent misreading.
 */
#ifndef MEMSTAT_KFEATURES_H
#define MEMSTAT_KFEATURES_H

#include <linux/version.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/poison.h>

/* classify.h reads 64-byte struct pages at these word offsets (mm_types.h, 6.1 to 7.x) */
static_assert(sizeof(struct page) == 64, "memstat supports only 64-byte struct page");
static_assert(offsetof(struct page, flags) == MS_W_FLAGS * 8, "struct page: flags");
static_assert(offsetof(struct page, mapping) == MS_W_MAPPING * 8, "struct page: mapping");
static_assert(offsetof(struct page, private) == MS_W_PRIVATE * 8, "struct page: private");
static_assert(offsetof(struct page, page_type) == MS_W_TYPE * 8, "struct page: page_type");
static_assert(offsetof(struct page, _refcount) == MS_W_TYPE * 8 + 4, "struct page: _refcount");
static_assert(offsetof(struct page, pp_magic) == MS_W_HEAD * 8, "struct page: pp_magic");
#ifdef CONFIG_MEMCG
static_assert(offsetof(struct page, memcg_data) == MS_W_MEMCG * 8, "struct page: memcg_data");
#endif
/* page-flag bit numbers are kept in a byte and tested in a 64-bit word */
static_assert(PG_head < 64 && PG_reserved < 64 && PG_swapbacked < 64 &&
	      PG_owner_priv_1 < 64 && PG_lru < 64, "a page flag bit does not fit");

/* the synthetic head and first tail the probes run on */
struct ms_probe {
	struct page pg[2];
};

/* word i of a struct page (flags is a struct on 7.x: the words are what classify.h reads) */
static unsigned long *ms_probe_word(struct page *p, unsigned int i)
{
	return (unsigned long *)p + i;
}

static void ms_probe_reset(struct ms_probe *s)
{
	memset(s, 0, sizeof(*s));
	*ms_probe_word(&s->pg[0], MS_W_FLAGS) = 1UL << PG_head;
	s->pg[0].page_type = UINT_MAX;		/* _mapcount -1: untyped, as after init */
	atomic_set(&s->pg[0]._refcount, 1);
	/* page[1]: a tail of page[0] (word 1: compound_head / compound_info, bit 0) */
	*ms_probe_word(&s->pg[1], MS_W_HEAD) = (unsigned long)&s->pg[0] + 1;
	s->pg[1].page_type = UINT_MAX;
}

/*
 * The page_type values to try, per encoding: an upper-byte type (4ffca5a96678, v6.12; the low
 * 24 bits are the owner's, set here so that no inverted-bit test can take the value for one of
 * its own), or one inverted bit below PAGE_TYPE_BASE (<= 6.11).
 */
static u32 ms_probe_type(bool upper, unsigned int i)
{
	return upper ? ((0xf0u + i) << 24) | 0xffffff : ~(1u << i);
}

/* The page_type value that makes test() true on the head, or 0 when none does. */
static u32 ms_probe_ptype(struct ms_probe *s, bool upper, bool (*test)(struct page *))
{
	unsigned int i;

	for (i = 0; i < (upper ? 15 : 31); i++) {
		ms_probe_reset(s);
		s->pg[0].page_type = ms_probe_type(upper, i);
		if (test(&s->pg[0]))
			return s->pg[0].page_type;
	}
	return 0;
}

/* A page flag bit that makes test() true, on the head (page 0) or page[1]; MS_NO_BIT if none. */
static u8 ms_probe_flag(struct ms_probe *s, int page, bool (*test)(struct page *))
{
	unsigned int bit;

	for (bit = 0; bit < BITS_PER_LONG; bit++) {
		if (page == 0 && bit == PG_head)
			continue;
		ms_probe_reset(s);
		*ms_probe_word(&s->pg[page], MS_W_FLAGS) |= 1UL << bit;
		if (test(&s->pg[0]))
			return bit;
	}
	return MS_NO_BIT;
}

/* The kernel's helpers, as bool functions of a page (their signatures differ by version). */
static bool ms_t_buddy(struct page *p) { return PageBuddy(p); }
static bool ms_t_offline(struct page *p) { return PageOffline(p); }
static bool ms_t_table(struct page *p) { return PageTable(p); }
static bool ms_t_guard(struct page *p) { return PageGuard(p); }
static bool ms_t_slab(struct page *p) { return PageSlab(p); }
static bool ms_t_huge(struct page *p) { return PageHuge(p); }
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
/* "mm/zsmalloc: use a proper page type" (v6.11) */
static bool ms_t_zsmalloc(struct page *p) { return PageZsmalloc(p); }
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
/* PageUnaccepted(): a page type from v6.12 (docs/page-classes.md section 3.3) */
static bool ms_t_unaccepted(struct page *p) { return PageUnaccepted(p); }
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
/* PGTY_large_kmalloc: a6687c8ff613 "slab: Mark large folios for debugging purposes" (v6.15),
 * FOLIO_TYPE_OPS(large_kmalloc) there; later kernels add PageLargeKmalloc() beside it */
static bool ms_t_large_kmalloc(struct page *p) { return folio_test_large_kmalloc(page_folio(p)); }
#endif

/*
 * The words of a large folio's first tail page (page[1]) that hold its counters, which a record
 * keeps with MS_KMOD_FOLIO_COUNTERS: _pincount (struct folio, v6.1 on) and the PMD ("entire")
 * mapcount: struct page's compound_mapcount in 6.1; struct folio's _compound_mapcount from
 * "mm,thp,rmap: simplify compound page mapcount handling" (v6.2), renamed _entire_mapcount by
 * "mm: rename folio->_compound_mapcount to _entire_mapcount" (v6.3) (hashes not verified here;
 * the module is built on 6.1, 6.12 and 7.3 in the VM matrix). The words are the kernel's own
 * offsets: 2 and 3 on 6.1 and 6.12, both 3 on 7.3.
 */
#define MS_P1_WORD(off)	(((off) - sizeof(struct page)) / sizeof(u64))
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define MS_P1_ENTIRE_OFF	offsetof(struct folio, _entire_mapcount)
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define MS_P1_ENTIRE_OFF	offsetof(struct folio, _compound_mapcount)
#else
#define MS_P1_ENTIRE_OFF	(sizeof(struct page) + offsetof(struct page, compound_mapcount))
#endif
static const unsigned int ms_p1_counter_words[] = {
	MS_P1_WORD(offsetof(struct folio, _pincount)), MS_P1_WORD(MS_P1_ENTIRE_OFF)
};
static_assert(MS_P1_WORD(offsetof(struct folio, _pincount)) >= 2 &&
	      MS_P1_WORD(offsetof(struct folio, _pincount)) < MS_PAGE_WORDS &&
	      MS_P1_WORD(MS_P1_ENTIRE_OFF) >= 2 && MS_P1_WORD(MS_P1_ENTIRE_OFF) < MS_PAGE_WORDS,
	      "a folio counter outside page[1]'s words 2-7 (word 1 is compound_head)");

/*
 * The encoding of page types, from the page_type value PageBuddy() answers to: an upper-byte
 * type (v6.12+), or an inverted bit under PAGE_TYPE_BASE, whose bits are those that PageBuddy()
 * needs set (0xf0000000 up to 6.10, 0x80000000 in 6.11). Returns the buddy value, 0 for none.
 */
static u32 ms_probe_scheme(struct ms_probe *s, struct ms_kernel_facts *k)
{
	unsigned int bit;
	u32 buddy;

	buddy = ms_probe_ptype(s, true, ms_t_buddy);
	if (buddy) {
		k->type_scheme = MS_PT_UPPER_BYTE;
		return buddy;
	}
	buddy = ms_probe_ptype(s, false, ms_t_buddy);
	if (!buddy)
		return 0;
	k->pt_base = 0;
	for (bit = 0; bit < 32; bit++) {
		if (!(buddy & (1u << bit)))
			continue;
		ms_probe_reset(s);
		s->pg[0].page_type = buddy & ~(1u << bit);
		if (!ms_t_buddy(&s->pg[0]))
			k->pt_base |= 1u << bit;
	}
	k->type_scheme = k->pt_base == 0xf0000000u ? MS_PT_INVERTED_BITS : MS_PT_INVERTED_ENUM;
	return buddy;
}

/* A probed page_type value as struct ms_kernel_facts keeps it: the type byte or the bit. */
static u32 ms_probe_value(const struct ms_kernel_facts *k, u32 pt)
{
	if (!pt)
		return 0;
	return k->type_scheme == MS_PT_UPPER_BYTE ? pt >> 24 : ~pt & ~k->pt_base;
}

/* The probed value of the page type test() answers to, in this kernel's encoding. */
static u32 ms_probe_typed(struct ms_probe *s, const struct ms_kernel_facts *k,
			  bool (*test)(struct page *))
{
	return ms_probe_value(k, ms_probe_ptype(s, k->type_scheme == MS_PT_UPPER_BYTE, test));
}

/*
 * Slab pages (classify.h ms_refine()): where struct slab keeps slab_cache and struct kmem_cache
 * its flags. Both structs are in mm/slab.h, which no module can include, so two caches of the
 * module's own answer: one created with SLAB_RECLAIM_ACCOUNT, one without, each with a
 * constructor, which keeps a cache from merging with another (mm/slab_common.c
 * slab_unmergeable()). The word of an object's slab head that holds the first cache's address
 * is slab_cache (3 on 6.1, 1 from 130d4df57390, v6.2); the one 32-bit word, in the first 128
 * bytes of the two caches, that differs by exactly SLAB_RECLAIM_ACCOUNT is flags. Anything
 * else (no such word, or several) leaves both unknown, and the walk then does not split slab.
 * Returns flags' offset (0: unknown) and sets k->slab_cache_word.
 */
static void ms_probe_ctor(void *obj)
{
}

static u32 ms_probe_slab(struct ms_kernel_facts *k)
{
	struct kmem_cache *r, *u = NULL;
	void *obj = NULL;
	u64 w[MS_PAGE_WORDS];
	u32 off, found = 0, nfound = 0, word = 0, i;

	if (!SLAB_RECLAIM_ACCOUNT)
		return 0;	/* CONFIG_SLUB_TINY: the flag is unused, every slab is SUnreclaim */
	r = kmem_cache_create("memstat_probe_rcl", 64, 0, SLAB_RECLAIM_ACCOUNT, ms_probe_ctor);
	if (r)
		u = kmem_cache_create("memstat_probe", 64, 0, 0, ms_probe_ctor);
	if (u)
		obj = kmem_cache_alloc(r, GFP_KERNEL);
	if (obj && !copy_from_kernel_nofault(w, virt_to_head_page(obj), sizeof(w))) {
		for (i = 1; i < MS_PAGE_WORDS; i++)
			if (w[i] == (unsigned long)r)
				word = word ? MS_PAGE_WORDS : i;	/* twice: not sure */
		for (off = 0; off < 128; off += 4) {
			u32 a, b;

			if (copy_from_kernel_nofault(&a, (char *)r + off, 4) ||
			    copy_from_kernel_nofault(&b, (char *)u + off, 4))
				break;
			if ((a ^ b) == SLAB_RECLAIM_ACCOUNT && (a & SLAB_RECLAIM_ACCOUNT)) {
				found = off;
				nfound++;
			}
		}
	}
	if (obj)
		kmem_cache_free(r, obj);
	kmem_cache_destroy(u);
	kmem_cache_destroy(r);
	if (nfound != 1 || !word || word >= MS_PAGE_WORDS)
		return 0;
	k->slab_cache_word = word;
	return found;
}

/* What this kernel has, asked of its own helpers; classify.h's ms_features_from_facts() does the rest. */
static int ms_kmod_features(struct ms_features *f, u32 *slab_flags_off)
{
	static struct ms_probe s;	/* 128 bytes, used only at load */
	struct ms_kernel_facts k;
	u32 buddy;

	memset(&k, 0, sizeof(k));
	memset(f, 0, sizeof(*f));
	k.page_size = sizeof(struct page);
	k.pg_head = PG_head;
	k.pg_reserved = PG_reserved;
	k.pg_swapbacked = PG_swapbacked;
	k.pg_owner_priv_1 = PG_owner_priv_1;
	k.pg_lru = PG_lru;
	k.pg_movable_ops = MS_NO_BIT;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	/* "mm/migration: rework movable_ops page migration" (v6.17): a page flag */
	static_assert(PG_movable_ops < 64, "PG_movable_ops does not fit");
	k.pg_movable_ops = PG_movable_ops;
#endif

	/*
	 * page_pool pages (classify.h ms_page_pool()): the kernel's own PP_SIGNATURE and
	 * PP_MAGIC_MASK must be what classify.h assumes. PP_DMA_INDEX_BITS comes with
	 * ee62ce7a1d90 "page_pool: Track DMA-mapped pages..." (v6.16, backported to 6.12.y).
	 */
	BUILD_BUG_ON(PP_SIGNATURE != MS_PP_SIGNATURE);
#ifdef PP_DMA_INDEX_BITS
	BUILD_BUG_ON(PP_MAGIC_MASK != ~(MS_PP_DMA_INDEX_MASK | 3UL));
	k.pp_dma_index = 1;
#endif

	buddy = ms_probe_scheme(&s, &k);
	if (!buddy)
		return -ENODEV;	/* PageBuddy() answers to no page_type: not a layout we know */
	k.ptype[MS_T_BUDDY] = ms_probe_value(&k, buddy);
	k.ptype[MS_T_OFFLINE] = ms_probe_typed(&s, &k, ms_t_offline);
	k.ptype[MS_T_TABLE] = ms_probe_typed(&s, &k, ms_t_table);
	k.ptype[MS_T_GUARD] = ms_probe_typed(&s, &k, ms_t_guard);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	k.ptype[MS_T_ZSMALLOC] = ms_probe_typed(&s, &k, ms_t_zsmalloc);
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	k.ptype[MS_T_UNACCEPTED] = ms_probe_typed(&s, &k, ms_t_unaccepted);
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
	k.ptype[MS_T_LARGE_KMALLOC] = ms_probe_typed(&s, &k, ms_t_large_kmalloc);
#endif

	/* slab: a page type ("mm: free up PG_slab", v6.10) or the PG_slab flag before it */
	k.ptype[MS_T_SLAB] = ms_probe_typed(&s, &k, ms_t_slab);
	k.pg_slab = k.ptype[MS_T_SLAB] ? MS_NO_BIT : ms_probe_flag(&s, 0, ms_t_slab);

	/*
	 * hugetlb, in the order the kernel moved it: a page type on the head (d99e3140a4d3, v6.9 and
	 * 6.6.30+), PG_hugetlb in page[1].flags (9c5ccf2db04b, v6.6), or HUGETLB_PAGE_DTOR in
	 * page[1].compound_dtor (<= 6.5). None of them: no CONFIG_HUGETLB_PAGE.
	 */
	k.pg_hugetlb = MS_NO_BIT;
	k.hugetlb_page_dtor = -1;
	k.has_dtor_enum = 1;		/* the probe knows: no answer means no hugetlb */
	k.ptype[MS_T_HUGETLB] = ms_probe_typed(&s, &k, ms_t_huge);
	if (!k.ptype[MS_T_HUGETLB])
		k.pg_hugetlb = ms_probe_flag(&s, 1, ms_t_huge);
	if (!k.ptype[MS_T_HUGETLB] && k.pg_hugetlb == MS_NO_BIT) {
		unsigned int v;

		for (v = 1; v < 256; v++) {
			ms_probe_reset(&s);
			((u8 *)&s.pg[1])[16] = v;	/* compound_dtor: the byte at +80 of the head */
			if (ms_t_huge(&s.pg[0])) {
				k.hugetlb_page_dtor = v;
				break;
			}
		}
	}

	/* the folio order: page[1].compound_order (the byte at +81, <= 6.5) or its flags' low byte */
	ms_probe_reset(&s);
	((u8 *)&s.pg[1])[17] = 5;
	k.has_compound_dtor = compound_order(&s.pg[0]) == 5;
	if (!k.has_compound_dtor) {
		ms_probe_reset(&s);
		*ms_probe_word(&s.pg[1], MS_W_FLAGS) |= 5;
		if (compound_order(&s.pg[0]) != 5)
			return -ENODEV;	/* the order is in neither place classify.h reads */
	}

	*slab_flags_off = ms_probe_slab(&k);

	ms_features_from_facts(&k, f);
	f->vmemmap_base = (unsigned long)vmemmap;
#ifdef CONFIG_MEMCG
	f->memcg_kind = MS_MEMCG_PER_POINTER;	/* memstat_main.c memcg_cgroup_id() */
#endif
	return 0;
}

#endif /* MEMSTAT_KFEATURES_H */
