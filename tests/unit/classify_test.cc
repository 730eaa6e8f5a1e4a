// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Unit tests of the page classifier (include/classify.h) on every layout family it supports (6.1,
// 6.6.0-6.6.29, 6.6.30+, 6.12, 6.18, 7.x) and on raw words measured on 6.18. The rules and the
// values come from docs/page-classes.md; section numbers below refer to it.
#include <gtest/gtest.h>

#include "layouts.h"

using namespace mstest;

namespace {

// Pointers as the kernel leaves them in struct page (8-aligned; low bits are the tags)
constexpr u64 kAnonVma = 0xffff888132489068ULL;		// anon: mapping = anon_vma | 1
constexpr u64 kStableNode = 0xffff88814e398300ULL;	// KSM: mapping = stable_node | 3
constexpr u64 kFileMapping = 0xffff888104a2c6f8ULL;	// an ext4 address_space
constexpr u64 kBdevMapping = 0xffff888100c5a3e0ULL;	// a block device's address_space
constexpr u64 kShmemMapping = 0xffff88810a039688ULL;	// a memfd's (section 8)
constexpr u64 kHugetlbfsMapping = 0xffff888109b4e2a8ULL;
constexpr u64 kSlabCache = 0xffff88810022f100ULL;	// struct kmem_cache * (section 8)
constexpr u64 kZsMops = 0xffffffff82a1b2c0ULL;		// &zsmalloc_mops
constexpr u64 kBalloonMops = 0xffffffff82a1b3a0ULL;	// &balloon_mops
constexpr u64 kZspage = 0xffff8881327d3f18ULL;		// private of a zsmalloc page (section 8)

constexpr u8 kTranshugeDtor = 3;	// 6.1 TRANSHUGE_PAGE_DTOR with CONFIG_HUGETLB_PAGE=y
constexpr u8 kHugetlbDtor = 2;		// 6.1 HUGETLB_PAGE_DTOR

// What the walker counts for a page that is not a tail: a sub-class and how many pfns it covers.
struct Verdict {
	u32 sub;
	u32 npages;

	bool operator==(const Verdict &o) const { return sub == o.sub && npages == o.npages; }
};

void PrintTo(const Verdict &v, std::ostream *os)
{
	*os << sub_name(v.sub) << " x" << v.npages;
}

// visit() on a page that is not a tail: ms_classify_head() (h1 = the next struct page), then
// ms_refine_file() with the mapping's facts.
Verdict classify(const Family &fam, u64 pfn, const Page &h, const Page *h1 = nullptr,
		 u32 facts = 0)
{
	u32 n = 0;
	u32 sub = ms_classify_head(&fam.f, pfn, h.data(), h1 ? h1->data() : nullptr, &n);

	return {ms_refine_file(sub, facts), n};
}

// ms_tail_head() as a value: -1 torn, 0 not a tail, else 1 and the head pfn.
struct TailOf {
	int tail;
	u64 head;

	bool operator==(const TailOf &o) const
	{
		return tail == o.tail && (tail <= 0 || head == o.head);
	}
};

void PrintTo(const TailOf &t, std::ostream *os)
{
	if (t.tail > 0)
		*os << "tail of 0x" << std::hex << t.head;
	else
		*os << (t.tail < 0 ? "torn tail" : "not a tail");
}

TailOf tail_of(const Family &fam, u64 pfn, const Page &p, const Page *p1 = nullptr)
{
	u64 head = ~0ULL;
	int r = ms_tail_head(&fam.f, pfn, p.data(), p1 ? p1->data() : nullptr, &head);

	return {r, head};
}

std::string ptype_of(const ms_features &f, u32 pt)
{
	return ptype_name(ms_ptype(&f, pt));
}

const TailOf kNotATail = {0, 0};
const TailOf kTorn = {-1, 0};

TailOf tail_at(u64 head)
{
	return {1, head};
}

// ---- pages as each family's kernel writes them ----


// A free page on a per-cpu list: on pcp_list, no type, no owner, no reference.
Page pcp_free(const Family &fam)
{
	return Page::fresh().refcount(0).word1(vaddr(fam.f, 0x9a0c1) + 8);
}

Page typed(const Family &fam, u32 t)
{
	return Page::fresh().page_type(type_word(fam, t));
}

// An order-0 slab page: PG_slab (<= 6.9) or the slab type; 6.1 keeps slab_cache in mapping.
Page slab(const Family &fam)
{
	Page p = Page::fresh();

	if (fam.slab_flag)
		p.flag(fam.f.pg_slab);
	else
		p.page_type(type_word(fam, MS_T_SLAB));
	if (fam.f.has_dtor)
		p.mapping(kSlabCache);
	else
		p.word1(kSlabCache);
	return p;
}

Page anon(const Family &fam)
{
	return Page::fresh().flag(fam.f.pg_lru).flag(fam.f.pg_swapbacked).mapping(kAnonVma | 1);
}

Page file(const Family &fam, u64 mapping = kFileMapping)
{
	return Page::fresh().flag(fam.f.pg_lru).mapping(mapping);
}

Page shmem(const Family &fam)
{
	return Page::fresh().flag(fam.f.pg_lru).flag(fam.f.pg_swapbacked).mapping(kShmemMapping);
}

// A zsmalloc page (zram, zswap) as each family marks it (2.7).
Page zsmalloc(const Family &fam)
{
	Page p = Page::fresh().priv(kZspage);

	switch (fam.zsmalloc) {
	case ZsmallocMark::kMovableMapping:	// set_first_obj_offset() writes page_type raw
		return p.mapping(kZsMops | 2).page_type(0x700);
	case ZsmallocMark::kTypeAndMapping:
		return p.mapping(kZsMops | 2).page_type(type_word(fam, MS_T_ZSMALLOC) | 0x700);
	case ZsmallocMark::kTypeAndFlag:
		return p.flag(fam.f.pg_movable_ops)
			.page_type(type_word(fam, MS_T_ZSMALLOC) | 0x700);
	}
	return p;
}

// Mark the folio at head_pfn hugetlb the way fam's kernel does (2.5).
void mark_hugetlb(Memmap &mm, u64 head_pfn)
{
	switch (mm.fam.hugetlb) {
	case HugetlbMark::kDtor:
		set_dtor(mm.page1(head_pfn), kHugetlbDtor);
		break;
	case HugetlbMark::kPage1Flag:	// PG_hugetlb = PG_active, in page[1].flags
		mm.page1(head_pfn).flag(mm.fam.pg_active);
		break;
	case HugetlbMark::kType:
		mm[head_pfn].page_type(type_word(mm.fam, MS_T_HUGETLB));
		break;
	}
}

// A hugetlb folio of 2^order pages at head_pfn, mapped through hugetlbfs, with refcount ref.
Page &hugetlb_folio(Memmap &mm, u64 head_pfn, unsigned order, int ref)
{
	Page &h = mm.folio(head_pfn, order);

	h.mapping(kHugetlbfsMapping).refcount(ref);
	mark_hugetlb(mm, head_pfn);
	return h;
}

// An anonymous THP: LRU, swapbacked, anon mapping; page[1] says THP / large_rmappable.
Page &anon_thp(Memmap &mm, u64 head_pfn, unsigned order)
{
	Page &h = mm.folio(head_pfn, order);

	h.flag(mm.fam.f.pg_lru).flag(mm.fam.f.pg_swapbacked).mapping(kAnonVma | 1);
	if (mm.fam.f.has_dtor)
		set_dtor(mm.page1(head_pfn), kTranshugeDtor);
	else
		mm.page1(head_pfn).flag(mm.fam.pg_workingset);	// PG_large_rmappable
	return h;
}

// HVO (2.2): every vmemmap page of the folio after the first maps the first one, so the
// struct pages at head + 64k + i read as copies of head + i.
void hvo_remap(Memmap &mm, u64 head_pfn, unsigned order)
{
	for (u64 pfn = head_pfn + 64; pfn < head_pfn + (1ULL << order); pfn++)
		mm[pfn] = mm[head_pfn + (pfn - head_pfn) % 64];
}

std::string family_name(const testing::TestParamInfo<Family> &info)
{
	return info.param.name;
}

std::vector<Family> families_if(bool (*keep)(const Family &))
{
	std::vector<Family> out;

	for (const Family &fam : all_families())
		if (keep(fam))
			out.push_back(fam);
	return out;
}

}	// namespace

// ================= every family =================

class EveryFamily : public testing::TestWithParam<Family> {
protected:
	const Family &fam = GetParam();
	Memmap mm{GetParam()};
};

INSTANTIATE_TEST_SUITE_P(All, EveryFamily, testing::ValuesIn(all_families()), family_name);

// ---- free memory ----

TEST_P(EveryFamily, FreeBuddyHeadCoversItsWholeBlock)
{
	mm[0x1000] = buddy(fam, 3);
	mm.fill(0x1001, 0x1008, free_interior());
	mm[0x1008] = Page::fresh();

	EXPECT_EQ(classify(fam, 0x1000, mm[0x1000]), (Verdict{MS_FREE_BUDDY, 8}));
	EXPECT_EQ(walk_runs(mm, 0x1000, 0x1009), "0x1000+8 FREE_BUDDY, 0x1008+1 KERNEL_OTHER");
}

TEST_P(EveryFamily, FreeBuddyBlockOfMaxOrderCovers1024Pages)
{
	EXPECT_EQ(classify(fam, 0x400, buddy(fam, 10)), (Verdict{MS_FREE_BUDDY, 1024}));
	EXPECT_EQ(classify(fam, 0x401, buddy(fam, 0)), (Verdict{MS_FREE_BUDDY, 1}));
}

TEST_P(EveryFamily, BuddyHeadWithImplausibleOrderCountsOnlyItself)
{
	// order above MAX_PAGE_ORDER, a misaligned head, a stale slab counters value (1.1)
	EXPECT_EQ(classify(fam, 0x800, buddy(fam, 11)), (Verdict{MS_FREE_BUDDY, 1}));
	EXPECT_EQ(classify(fam, 0x1004, buddy(fam, 3)), (Verdict{MS_FREE_BUDDY, 1}));
	EXPECT_EQ(classify(fam, 0x1000, buddy(fam, 0x150015)), (Verdict{MS_FREE_BUDDY, 1}));
}

TEST_P(EveryFamily, BuddyOrderFromAStalePointerIsImplausible)
{
	// a torn read can pair the buddy type with the private of the page's previous owner; a
	// 64-bit value whose low half looks like an order is still not one
	EXPECT_EQ(classify(fam, 0x1000, buddy(fam, 0xffff888100000003)),
		  (Verdict{MS_FREE_BUDDY, 1}));
	EXPECT_EQ(classify(fam, 0x1000, buddy(fam, 0x100000002)), (Verdict{MS_FREE_BUDDY, 1}));
}

TEST_P(EveryFamily, PerCpuFreePageIsPcpFree)
{
	EXPECT_EQ(classify(fam, 0x2345, pcp_free(fam)), (Verdict{MS_FREE_PCP, 1}));
}

TEST_P(EveryFamily, GuardPageIsGuard)
{
	Page g = typed(fam, MS_T_GUARD).refcount(0).priv(0);

	EXPECT_EQ(classify(fam, 0x2345, g), (Verdict{MS_KERNEL_GUARD, 1}));
}

TEST_P(EveryFamily, GuardBlockCoversTwoToTheOrderPages)
{
	// expand() (mm/page_alloc.c) calls set_page_guard(zone, &page[size], high) on the first
	// page of a split-off half only; __set_page_guard() (mm/debug_page_alloc.c) types it and
	// sets private = order. The other pages keep the words of a free-block interior.
	// (debug_pagealloc=on debug_guardpage_minorder=N, N >= 2)
	mm[0x1004] = typed(fam, MS_T_GUARD).refcount(0).priv(2);
	mm.fill(0x1005, 0x1008, free_interior());

	EXPECT_EQ(classify(fam, 0x1004, mm[0x1004]), (Verdict{MS_KERNEL_GUARD, 4}));
	EXPECT_EQ(walk_runs(mm, 0x1004, 0x1008), "0x1004+4 KERNEL_GUARD");
	EXPECT_EQ(classify(fam, 0x1006, typed(fam, MS_T_GUARD).refcount(0).priv(2)),
		  (Verdict{MS_KERNEL_GUARD, 1}));	// misaligned
}

// ---- kernel memory ----

TEST_P(EveryFamily, SlabPageIsSlab)
{
	EXPECT_EQ(classify(fam, 0x3001, slab(fam)), (Verdict{MS_KERNEL_SLAB, 1}));
}

// KFENCE's boot-time pool is memblock memory: every page PG_reserved, every other one (from the
// third) slab-typed as an object page, with or without a cache. The pool is outside MemTotal and
// its objects outside meminfo's Slab, so all of it is reserved, none of it slab.
TEST_P(EveryFamily, KfencePoolPagesAreReservedNotSlab)
{
	for (u64 i = 0; i < 8; i++)
		mm[0x7000 + i] = Page::fresh().flag(fam.f.pg_reserved);
	mm[0x7002] = slab(fam).flag(fam.f.pg_reserved);
	mm[0x7004] = slab(fam).flag(fam.f.pg_reserved);
	mm[0x7004].w[fam.f.has_dtor ? MS_W_MAPPING : 1] = 0;	// an object never allocated
	mm[0x7006] = slab(fam).flag(fam.f.pg_reserved);

	EXPECT_EQ(classify(fam, 0x7002, mm[0x7002]), (Verdict{MS_KERNEL_RESERVED, 1}));
	EXPECT_EQ(walk_runs(mm, 0x7000, 0x7008), "0x7000+8 KERNEL_RESERVED");
	// a slab page the buddy allocator handed out is never reserved
	EXPECT_EQ(classify(fam, 0x7010, slab(fam)), (Verdict{MS_KERNEL_SLAB, 1}));
}

TEST_P(EveryFamily, LargeSlabCoversItsFolio)
{
	mm.folio(0x3000, 2);
	mm[0x3000] = slab(fam).flag(fam.f.pg_head);

	EXPECT_EQ(classify(fam, 0x3000, mm[0x3000], &mm.page1(0x3000)),
		  (Verdict{MS_KERNEL_SLAB, 4}));
	EXPECT_EQ(walk_runs(mm, 0x3000, 0x3004), "0x3000+4 KERNEL_SLAB");
}

// A slab of a cache with SLAB_RECLAIM_ACCOUNT is the kernel's SReclaimable; the cache is read
// from struct slab's slab_cache (word 3 on 6.1, word 1 after 130d4df57390), heads and tails alike.
TEST_P(EveryFamily, SlabOfAReclaimableCacheIsSlabReclaim)
{
	const std::map<u64, u32> reclaim = { { kSlabCache, kReclaimCache } };
	const u64 other = kSlabCache + 0x100;

	mm.folio(0x3000, 2);
	mm[0x3000] = slab(fam).flag(fam.f.pg_head);
	mm[0x3004] = slab(fam);
	if (fam.f.has_dtor)
		mm[0x3005] = slab(fam).mapping(other);
	else
		mm[0x3005] = slab(fam).word1(other);
	EXPECT_EQ(walk_runs(mm, 0x3000, 0x3006, reclaim),
		  "0x3000+5 KERNEL_SLAB_RECLAIM, 0x3005+1 KERNEL_SLAB");
	// met from a tail first (a range that starts inside the folio): the head's cache decides
	EXPECT_EQ(walk_runs(mm, 0x3002, 0x3004, reclaim), "0x3002+2 KERNEL_SLAB_RECLAIM");
	// the cache facts nobody could read: slab, as before
	EXPECT_EQ(walk_runs(mm, 0x3000, 0x3006), "0x3000+6 KERNEL_SLAB");
}

TEST_P(EveryFamily, SlabCacheWordUnknownOrNotAKernelAddressIsPlainSlab)
{
	const std::map<u64, u32> reclaim = { { kSlabCache, kReclaimCache },
					     { kSlabCache & 0x7fffffffffffffffULL, kReclaimCache } };

	mm[0x3004] = slab(fam);
	// a torn read: the word holds something other than a kernel address
	if (fam.f.has_dtor)
		mm[0x3005] = slab(fam).mapping(kSlabCache & 0x7fffffffffffffffULL);
	else
		mm[0x3005] = slab(fam).word1(kSlabCache & 0x7fffffffffffffffULL);
	EXPECT_EQ(walk_runs(mm, 0x3004, 0x3006, reclaim),
		  "0x3004+1 KERNEL_SLAB_RECLAIM, 0x3005+1 KERNEL_SLAB");
	mm.fam.f.slab_cache_word = 0;	// the walker could not find slab_cache or the flags
	EXPECT_EQ(walk_runs(mm, 0x3004, 0x3006, reclaim), "0x3004+2 KERNEL_SLAB");
}

TEST_P(EveryFamily, FrozenSlabWithoutReferenceIsSlabNotFree)
{
	// slabs are allocated frozen after 6.12 (2.3; pfn 0x100410 on 6.18)
	EXPECT_EQ(classify(fam, 0x3001, slab(fam).refcount(0)), (Verdict{MS_KERNEL_SLAB, 1}));
}

TEST_P(EveryFamily, SlabWordsInTheMappingSlotAreNotAMapping)
{
	// 6.1: slab_cache sits in mapping; 6.2+: the partial-list count `slabs` may (1.1)
	Page s = slab(fam).mapping(fam.f.has_dtor ? kSlabCache : 3);

	EXPECT_EQ(classify(fam, 0x3001, s), (Verdict{MS_KERNEL_SLAB, 1}));
}

TEST_P(EveryFamily, PageTablePageIsPagetable)
{
	EXPECT_EQ(classify(fam, 0x4001, typed(fam, MS_T_TABLE)), (Verdict{MS_KERNEL_PAGETABLE, 1}));
}

TEST_P(EveryFamily, ZsmallocPageIsZsmalloc)
{
	EXPECT_EQ(classify(fam, 0x5001, zsmalloc(fam)), (Verdict{MS_KERNEL_ZSMALLOC, 1}));
}

TEST_P(EveryFamily, BalloonPageIsOfflineNotZsmalloc)
{
	// PageOffline plus movable_ops (2.7): the type decides, not the movable marker
	Page b = typed(fam, MS_T_OFFLINE).priv(0xffff888103d2c000);

	if (fam.f.movable_flag)
		b.flag(fam.f.pg_movable_ops);
	else
		b.mapping(kBalloonMops | 2);
	EXPECT_EQ(classify(fam, 0x5001, b), (Verdict{MS_KERNEL_OFFLINE, 1}));
}

TEST_P(EveryFamily, OfflinePageIsOffline)
{
	EXPECT_EQ(classify(fam, 0x5001, typed(fam, MS_T_OFFLINE)), (Verdict{MS_KERNEL_OFFLINE, 1}));
}

TEST_P(EveryFamily, ReservedPageIsReserved)
{
	// memblock / kernel image / zero page: PG_reserved, one reference (2.8)
	EXPECT_EQ(classify(fam, 0x3b32, Page::fresh().flag(fam.f.pg_reserved)),
		  (Verdict{MS_KERNEL_RESERVED, 1}));
}

TEST_P(EveryFamily, UntypedKernelPageWithReferenceIsKernelOther)
{
	EXPECT_EQ(classify(fam, 0x6001, Page::fresh()), (Verdict{MS_KERNEL_OTHER, 1}));
	EXPECT_EQ(classify(fam, 0x6001, Page::fresh().refcount(3)), (Verdict{MS_KERNEL_OTHER, 1}));
	// charged kernel allocation (memcg_data & MEMCG_DATA_KMEM, 1.6)
	Page kmem = Page::fresh();
	kmem.w[MS_W_MEMCG] = 0xffff888104e2c002;
	EXPECT_EQ(classify(fam, 0x6001, kmem), (Verdict{MS_KERNEL_OTHER, 1}));
}

TEST_P(EveryFamily, UntypedCompoundKernelAllocationIsKernelCompound)
{
	// kmalloc_large() before PGTY_large_kmalloc (2.3), and frozen compound pages: no PCP page
	// is compound, so a compound head without a reference is not free either
	mm.folio(0x6000, 2);
	EXPECT_EQ(classify(fam, 0x6000, mm[0x6000], &mm.page1(0x6000)),
		  (Verdict{MS_KERNEL_COMPOUND, 4}));
	mm[0x6000].refcount(0);
	EXPECT_EQ(classify(fam, 0x6000, mm[0x6000], &mm.page1(0x6000)),
		  (Verdict{MS_KERNEL_COMPOUND, 4}));
	// the order comes from page[1]: without it the head counts alone, still compound
	EXPECT_EQ(classify(fam, 0x6000, mm[0x6000]), (Verdict{MS_KERNEL_COMPOUND, 1}));
}

// ---- "Kernel other" split (2.5) ----

constexpr u64 kPpSignature = 0xdead000000000040ULL;	// PP_SIGNATURE on x86_64

TEST_P(EveryFamily, PagePoolPageIsPagePool)
{
	// page_pool_set_pp_info(): pp_magic |= PP_SIGNATURE, pp = the pool, mapping pad 0
	Page pp = Page::fresh().word1(kPpSignature);
	pp.w[2] = 0xffff888104f3a000ULL;	// page->pp
	EXPECT_EQ(classify(fam, 0x6001, pp), (Verdict{MS_KERNEL_PAGE_POOL, 1}));
	// bit 1: a pfmemalloc page (page_is_pfmemalloc()), still the pool's
	EXPECT_EQ(classify(fam, 0x6001, Page(pp).word1(kPpSignature | 2)),
		  (Verdict{MS_KERNEL_PAGE_POOL, 1}));
	// TCP zerocopy receive maps pool pages into user space: still the pool's
	EXPECT_EQ(classify(fam, 0x6001, Page(pp).mapcount(0)), (Verdict{MS_KERNEL_PAGE_POOL, 1}));
	// an order-2 pool page: the head's pp_magic, the whole compound page
	mm.folio(0x6000, 2);
	mm[0x6000].word1(kPpSignature);
	EXPECT_EQ(classify(fam, 0x6000, mm[0x6000], &mm.page1(0x6000)),
		  (Verdict{MS_KERNEL_PAGE_POOL, 4}));
}

TEST_P(EveryFamily, PagePoolMaskFollowsTheDmaIndex)
{
	// ee62ce7a1d90 (6.16, 6.12.y): page_pool_register_dma_index() ORs an xarray index << 7
	// into pp_magic; PP_MAGIC_MASK ignores bits 7..38 from then on, and only then
	Family with = fam, without = fam;
	with.f.pp_dma_index = 1;
	without.f.pp_dma_index = 0;
	for (u64 idx : { 1ULL, 0x1234ULL, 0xffffffffULL }) {
		Page pp = Page::fresh().word1(kPpSignature | idx << 7);
		EXPECT_EQ(classify(with, 0x6001, pp), (Verdict{MS_KERNEL_PAGE_POOL, 1})) << idx;
		EXPECT_EQ(classify(without, 0x6001, pp), (Verdict{MS_KERNEL_OTHER, 1})) << idx;
	}
	// bit 39 up is POISON_POINTER_DELTA's: never masked
	Page bad = Page::fresh().word1(kPpSignature | 1ULL << 39);
	EXPECT_EQ(classify(with, 0x6001, bad), (Verdict{MS_KERNEL_OTHER, 1}));
	EXPECT_EQ(classify(without, 0x6001, bad), (Verdict{MS_KERNEL_OTHER, 1}));
}

TEST_P(EveryFamily, WordOneThatIsNotPpSignatureIsNotPagePool)
{
	// lru list pointers and poison, and signatures of other poison values
	for (u64 w1 : { 0ULL, kListPoison1, kListPoison2, 0xffff888104a2c000ULL,
			0xdead000000000400ULL /* TAIL_MAPPING */, kPpSignature ^ 0x40,
			kPpSignature | 0x20, kPpSignature + (1ULL << 48) }) {
		Page p = Page::fresh().word1(w1);
		EXPECT_EQ(classify(fam, 0x6001, p), (Verdict{MS_KERNEL_OTHER, 1})) << std::hex << w1;
	}
	// a page cache page's word 1 is its LRU link, whatever the mapping: never the pool's
	Page file = Page::fresh().word1(kPpSignature).mapping(kFileMapping);
	EXPECT_EQ(classify(fam, 0x6001, file), (Verdict{MS_FILE, 1}));
}

TEST_P(EveryFamily, UntypedUnownedMappedPageIsUserMapped)
{
	// vm_insert_page(): a kernel page, no mapping, _mapcount counts the user PTEs
	EXPECT_EQ(classify(fam, 0x6001, Page::fresh().mapcount(0)),
		  (Verdict{MS_KERNEL_USER_MAPPED, 1}));
	EXPECT_EQ(classify(fam, 0x6001, Page::fresh().mapcount(7).refcount(9)),
		  (Verdict{MS_KERNEL_USER_MAPPED, 1}));
	// unmapped again: other
	EXPECT_EQ(classify(fam, 0x6001, Page::fresh().mapcount(-1)), (Verdict{MS_KERNEL_OTHER, 1}));
	// a compound buffer whose head is mapped: the whole compound page
	mm.folio(0x6000, 2);
	mm[0x6000].mapcount(0);
	EXPECT_EQ(classify(fam, 0x6000, mm[0x6000], &mm.page1(0x6000)),
		  (Verdict{MS_KERNEL_USER_MAPPED, 4}));
	// mapped pages with an owner keep their class
	EXPECT_EQ(classify(fam, 0x6001, Page::fresh().mapcount(0).mapping(kAnonVma | 1)),
		  (Verdict{MS_ANON, 1}));
	EXPECT_EQ(classify(fam, 0x6001, Page::fresh().mapcount(0).mapping(kFileMapping)),
		  (Verdict{MS_FILE, 1}));
	EXPECT_EQ(classify(fam, 0x6001,
			   Page::fresh().mapcount(0).flag(fam.f.pg_reserved)),
		  (Verdict{MS_KERNEL_RESERVED, 1}));
}

TEST_P(EveryFamily, TypedPagesAreNeverUserMapped)
{
	// page_type overlays _mapcount: a type is not a mapcount, whatever the encoding
	for (u32 t : { (u32)MS_T_TABLE, (u32)MS_T_OFFLINE, (u32)MS_T_GUARD }) {
		Verdict v = classify(fam, 0x6001, typed(fam, t));
		EXPECT_NE(v.sub, (u32)MS_KERNEL_USER_MAPPED) << t;
		EXPECT_NE(v.sub, (u32)MS_KERNEL_OTHER) << t;
	}
}

// ---- hugetlb ----

TEST_P(EveryFamily, HugetlbFolioInUseIsHugetlb)
{
	Page &h = hugetlb_folio(mm, 0x40000, 9, 1);

	EXPECT_EQ(classify(fam, 0x40000, h, &mm.page1(0x40000)), (Verdict{MS_HUGETLB, 512}));
	EXPECT_EQ(walk_runs(mm, 0x40000, 0x40200), "0x40000+512 HUGETLB");
}

TEST_P(EveryFamily, HugetlbFolioInFreePoolIsHugetlbFree)
{
	Page &h = hugetlb_folio(mm, 0x40000, 9, 0);
	h.mapping(0);

	EXPECT_EQ(classify(fam, 0x40000, h, &mm.page1(0x40000)), (Verdict{MS_HUGETLB_FREE, 512}));
}

TEST_P(EveryFamily, GiganticHugetlbFolioCoversAGigabyte)
{
	// head and page[1] are all the classifier reads of a head
	mm[0x40000] = Page::fresh().flag(fam.f.pg_head).mapping(kHugetlbfsMapping);
	mm[0x40001] = Page::fresh().refcount(0).word1(tail_word(fam, 0x40000, 18));
	set_order(fam, mm[0x40001], 18);
	mark_hugetlb(mm, 0x40000);

	EXPECT_EQ(classify(fam, 0x40000, mm[0x40000], &mm[0x40001]),
		  (Verdict{MS_HUGETLB, 1u << 18}));
}

// ---- user memory ----

TEST_P(EveryFamily, AnonPageIsAnon)
{
	EXPECT_EQ(classify(fam, 0x7001, anon(fam)), (Verdict{MS_ANON, 1}));
}

TEST_P(EveryFamily, LazyfreeAnonWithoutSwapbackedIsAnon)
{
	Page p = Page::fresh().flag(fam.f.pg_lru).mapping(kAnonVma | 1);

	EXPECT_EQ(classify(fam, 0x7001, p), (Verdict{MS_ANON, 1}));
}

TEST_P(EveryFamily, AnonInSwapCacheIsAnonSwapcache)
{
	EXPECT_EQ(classify(fam, 0x7001, anon(fam).flag(fam.f.pg_swapcache)),
		  (Verdict{MS_ANON_SWAPCACHE, 1}));
}

TEST_P(EveryFamily, KsmPageIsKsm)
{
	Page p = anon(fam).mapping(kStableNode | 3).mapcount(0x3f).refcount(0x40);

	EXPECT_EQ(classify(fam, 0x7001, p), (Verdict{MS_ANON_KSM, 1}));
	EXPECT_EQ(classify(fam, 0x7001, p.flag(fam.f.pg_swapcache)), (Verdict{MS_ANON_KSM, 1}));
}

TEST_P(EveryFamily, AnonThpCovers512Pages)
{
	Page &h = anon_thp(mm, 0x40000, 9);

	EXPECT_EQ(classify(fam, 0x40000, h, &mm.page1(0x40000)), (Verdict{MS_ANON, 512}));
	EXPECT_EQ(walk_runs(mm, 0x40000, 0x40200), "0x40000+512 ANON");
}

// A torn read: the head still says PG_head, but page[1] is no longer its tail (the folio was
// split or freed and page[1] reused). Its order byte must not be trusted: the head counts alone
// and the next pages get their own verdicts, instead of 2^18 pages being skipped.
TEST_P(EveryFamily, HeadWhosePage1IsNotItsTailCountsAlone)
{
	Page &h = anon_thp(mm, 0x40000, 9);

	set_order(fam, mm.page1(0x40000), 18);		// a stale order in page[1]
	mm.page1(0x40000).word1(vaddr(fam.f, 0x3fe00) | 1);	// a tail of another head
	EXPECT_EQ(classify(fam, 0x40000, h, &mm.page1(0x40000)), (Verdict{MS_ANON, 1}));
	mm.page1(0x40000).word1(vaddr(fam.f, 0x9a0c1) + 8);	// not a tail at all (on a list)
	EXPECT_EQ(classify(fam, 0x40000, h, &mm.page1(0x40000)), (Verdict{MS_ANON, 1}));
	// the pages after it are not swallowed by the head
	for (u64 pfn = 0x40001; pfn < 0x40200; pfn++)
		mm[pfn] = anon(fam);
	EXPECT_EQ(walk_runs(mm, 0x40000, 0x40200), "0x40000+512 ANON");
	mm[0x40100] = pcp_free(fam);
	EXPECT_EQ(walk_runs(mm, 0x40000, 0x40200),
		  "0x40000+256 ANON, 0x40100+1 FREE_PCP, 0x40101+255 ANON");
}

TEST_P(EveryFamily, WalkStartingInsideAFolioCountsTheRestAsTheHeadsClass)
{
	anon_thp(mm, 0x40000, 9);

	EXPECT_EQ(walk_runs(mm, 0x40005, 0x40200), "0x40005+507 ANON");
}

TEST_P(EveryFamily, ShmemPageIsShmem)
{
	Page p = shmem(fam);

	EXPECT_EQ(classify(fam, 0x8001, p, nullptr, MS_MAP_SHMEM), (Verdict{MS_SHMEM, 1}));
	// shmem is not refined per mapping: an exec'd memfd stays shmem
	EXPECT_EQ(ms_file_mapping(MS_SHMEM, p.data()), 0u);
}

TEST_P(EveryFamily, FilePageIsRefinedByItsMapping)
{
	Page p = file(fam);
	Page b = file(fam, kBdevMapping);

	EXPECT_EQ(classify(fam, 0x8001, p), (Verdict{MS_FILE, 1}));
	EXPECT_EQ(ms_file_mapping(MS_FILE, p.data()), kFileMapping);
	EXPECT_EQ(classify(fam, 0x8001, p, nullptr, MS_MAP_EXEC), (Verdict{MS_EXEC, 1}));
	EXPECT_EQ(classify(fam, 0x8001, b, nullptr, MS_MAP_BDEV), (Verdict{MS_FILE_BUFFERS, 1}));
	mm[0x8001] = p;
	mm[0x8002] = b;
	mm[0x8003] = file(fam, kFileMapping + 0x400);
	EXPECT_EQ(walk_runs(mm, 0x8001, 0x8004,
			    {{kFileMapping, MS_MAP_EXEC}, {kBdevMapping, MS_MAP_BDEV}}),
		  "0x8001+1 EXEC, 0x8002+1 FILE_BUFFERS, 0x8003+1 FILE");
}

TEST_P(EveryFamily, LargeFileFolioCoversItsPages)
{
	Page &h = mm.folio(0x9000, 4);

	h.flag(fam.f.pg_lru).mapping(kFileMapping);
	EXPECT_EQ(classify(fam, 0x9000, h, &mm.page1(0x9000)), (Verdict{MS_FILE, 16}));
}

TEST_P(EveryFamily, CheckedFilePageIsNotSwapCache)
{
	// PG_owner_priv_1 alone is PG_checked; swap cache needs PG_swapbacked too (2.6)
	EXPECT_EQ(classify(fam, 0x8001, file(fam).flag(fam.f.pg_swapcache)), (Verdict{MS_FILE, 1}));
}

TEST_P(EveryFamily, UnmappedSwapCachePageIsFileSwapcache)
{
	// swap readahead, or shmem after swap-out: mapping cleared (2.6)
	Page p = Page::fresh().flag(fam.f.pg_swapbacked).flag(fam.f.pg_swapcache).priv(0x3a4f);

	EXPECT_EQ(classify(fam, 0x8001, p), (Verdict{MS_FILE_SWAPCACHE, 1}));
}

// ---- tails ----

TEST_P(EveryFamily, TailResolvesToItsHead)
{
	anon_thp(mm, 0x18ce00, 9);

	EXPECT_EQ(tail_of(fam, 0x18ce01, mm[0x18ce01], &mm[0x18ce02]), tail_at(0x18ce00));
	EXPECT_EQ(tail_of(fam, 0x18ce05, mm[0x18ce05], &mm[0x18ce06]), tail_at(0x18ce00));
	EXPECT_EQ(tail_of(fam, 0x18cfff, mm[0x18cfff]), tail_at(0x18ce00));
	EXPECT_EQ(tail_of(fam, 0x18ce00, mm[0x18ce00], &mm[0x18ce01]), kNotATail);
}

// ================= page types some families lack =================

class UpperByteFamilies : public EveryFamily {};
INSTANTIATE_TEST_SUITE_P(S3, UpperByteFamilies,
			 testing::ValuesIn(families_if([](const Family &f) {
				 return f.unaccepted;
			 })),
			 family_name);

TEST_P(UpperByteFamilies, UnacceptedBlockCoversMaxOrderPages)
{
	Page u = typed(fam, MS_T_UNACCEPTED).refcount(0);

	EXPECT_EQ(classify(fam, 0x400, u), (Verdict{MS_FREE_UNACCEPTED, 1024}));
	EXPECT_EQ(classify(fam, 0x600, u), (Verdict{MS_FREE_UNACCEPTED, 1}));
}

TEST_P(UpperByteFamilies, UnknownTypeByteIsKernelOther)
{
	// 0xf9..0xfe: typed, with a type this build does not know (1.4)
	for (u32 t = 0xf9; t <= 0xfe; t++) {
		Page p = Page::fresh().page_type(t << 24).mapping(kAnonVma | 1);

		EXPECT_EQ(classify(fam, 0x5001, p), (Verdict{MS_KERNEL_OTHER, 1})) << std::hex << t;
	}
}

TEST_P(UpperByteFamilies, ZsmallocTypeAloneIsZsmalloc)
{
	Page p = Page::fresh().page_type(type_word(fam, MS_T_ZSMALLOC) | 0x123).mapping(0);

	EXPECT_EQ(classify(fam, 0x5001, p), (Verdict{MS_KERNEL_ZSMALLOC, 1}));
}

class LargeKmallocFamilies : public EveryFamily {};
INSTANTIATE_TEST_SUITE_P(V617, LargeKmallocFamilies,
			 testing::ValuesIn(families_if([](const Family &f) {
				 return f.large_kmalloc;
			 })),
			 family_name);

TEST_P(LargeKmallocFamilies, LargeKmallocCoversItsFolio)
{
	Page &h = mm.folio(0x100054, 2);

	h.page_type(type_word(fam, MS_T_LARGE_KMALLOC)).refcount(0);
	EXPECT_EQ(classify(fam, 0x100054, h, &mm.page1(0x100054)),
		  (Verdict{MS_KERNEL_LARGE_KMALLOC, 4}));
}

TEST_P(LargeKmallocFamilies, UptodatePageIsNotMovableOps)
{
	// PG_movable_ops is the PG_uptodate bit (1.5): it means movable_ops only on a typed page
	EXPECT_EQ(classify(fam, 0x8001, file(fam).flag(fam.f.pg_movable_ops)),
		  (Verdict{MS_FILE, 1}));
	EXPECT_EQ(classify(fam, 0x6001, Page::fresh().flag(fam.f.pg_movable_ops)),
		  (Verdict{MS_KERNEL_OTHER, 1}));
}

// ================= hugetlb markers, family by family =================

TEST(Hugetlb61, ThpDtorIsNotHugetlb)
{
	Memmap mm(family_6_1());
	Page &h = anon_thp(mm, 0x40000, 9);

	EXPECT_EQ(classify(mm.fam, 0x40000, h, &mm.page1(0x40000)), (Verdict{MS_ANON, 512}));
}

TEST(Hugetlb61, HugetlbDtorMarksHugetlbEvenWithoutMappingOrReference)
{
	Memmap mm(family_6_1());
	Page &h = mm.folio(0x40000, 9);

	set_dtor(mm.page1(0x40000), kHugetlbDtor);
	h.refcount(0);
	EXPECT_EQ(classify(mm.fam, 0x40000, h, &mm.page1(0x40000)),
		  (Verdict{MS_HUGETLB_FREE, 512}));
}

TEST(Hugetlb61, KernelWithoutHugetlbPageTakesNoThpForHugetlb)
{
	// include/linux/mm.h 6.1: enum compound_dtor_id { NULL_COMPOUND_DTOR, COMPOUND_PAGE_DTOR,
	// HUGETLB_PAGE_DTOR (CONFIG_HUGETLB_PAGE only), TRANSHUGE_PAGE_DTOR, ... }: without
	// hugetlb, a THP's dtor byte is 2
	Family fam = family_6_1();
	Btf b = {};

	b.pg_head = 16, b.pg_reserved = 12, b.pg_swapbacked = 19, b.pg_owner_priv_1 = 10;
	b.pg_lru = 4, b.pg_slab = 9;
	b.compound_dtor = true, b.compound_dtor_id = true, b.hugetlb_page_dtor = -1;
	fam.f = detect(b);
	Memmap mm(fam);
	Page &h = anon_thp(mm, 0x40000, 9);

	set_dtor(mm.page1(0x40000), 2);
	EXPECT_EQ(classify(fam, 0x40000, h, &mm.page1(0x40000)), (Verdict{MS_ANON, 512}));
}

TEST(Hugetlb66Early, PgActiveOnTheHeadIsNotPgHugetlb)
{
	// PG_hugetlb = PG_active, but in page[1].flags only (9c5ccf2db04b)
	Memmap mm(family_6_6_0());
	Page &h = anon_thp(mm, 0x40000, 9);

	h.flag(mm.fam.pg_active);
	EXPECT_EQ(classify(mm.fam, 0x40000, h, &mm.page1(0x40000)), (Verdict{MS_ANON, 512}));
	mm.page1(0x40000).flag(mm.fam.pg_active);
	EXPECT_EQ(classify(mm.fam, 0x40000, h, &mm.page1(0x40000)), (Verdict{MS_HUGETLB, 512}));
}

TEST(Hugetlb66Late, TypeOnTheHeadIsHugetlb)
{
	// d99e3140a4d3 backported to 6.6.30: PG_hugetlb 0x800, page_type 0xfffff7ff
	Memmap mm(family_6_6_30());
	Page &h = mm.folio(0x40000, 9);

	h.page_type(0xfffff7ff);
	EXPECT_EQ(classify(mm.fam, 0x40000, h, &mm.page1(0x40000)), (Verdict{MS_HUGETLB, 512}));
}

// ================= fake heads (HVO, 6.1-6.18) =================

class FakeHeads : public EveryFamily {};
INSTANTIATE_TEST_SUITE_P(Hvo, FakeHeads,
			 testing::ValuesIn(families_if([](const Family &f) {
				 return f.fake_heads;
			 })),
			 family_name);

TEST_P(FakeHeads, CopyOfTheHeadAtA64AlignedPfnIsATail)
{
	hugetlb_folio(mm, 0x113200, 9, 0);
	hvo_remap(mm, 0x113200, 9);

	// 0x113240 and 0x113280 are byte copies of the head, 0x113241 of page[1]
	EXPECT_EQ(tail_of(fam, 0x113240, mm[0x113240], &mm[0x113241]), tail_at(0x113200));
	EXPECT_EQ(tail_of(fam, 0x113280, mm[0x113280], &mm[0x113281]), tail_at(0x113200));
	EXPECT_EQ(tail_of(fam, 0x113241, mm[0x113241], &mm[0x113242]), tail_at(0x113200));
}

TEST_P(FakeHeads, GenuineHeadAtA64AlignedPfnIsNotATail)
{
	hugetlb_folio(mm, 0x113200, 9, 0);
	hvo_remap(mm, 0x113200, 9);

	EXPECT_EQ(tail_of(fam, 0x113200, mm[0x113200], &mm[0x113201]), kNotATail);
}

TEST_P(FakeHeads, OnlyPageAlignedCopiesOfAHeadAreFakeHeads)
{
	// page_fixed_fake_head(): IS_ALIGNED(page, PAGE_SIZE) && PG_head. A head whose next page
	// still points to an older head (a folio being split) is a head where it is not aligned.
	hugetlb_folio(mm, 0x113200, 9, 0);
	Page h = mm[0x113200];

	EXPECT_EQ(tail_of(fam, 0x113220, h, &mm[0x113221]), kNotATail);
}

TEST_P(FakeHeads, PageWithoutPgHeadIsNeverAFakeHead)
{
	// an order-0 page split off at a 64-aligned pfn while the next page is still a tail
	anon_thp(mm, 0x113200, 9);
	Page p = anon(fam);

	EXPECT_EQ(tail_of(fam, 0x113240, p, &mm[0x113241]), kNotATail);
}

TEST_P(FakeHeads, WalkCountsAnHvoFolioAsOneFolio)
{
	hugetlb_folio(mm, 0x113200, 9, 0).mapping(0);
	hvo_remap(mm, 0x113200, 9);

	EXPECT_EQ(walk_runs(mm, 0x113200, 0x113400), "0x113200+512 HUGETLB_FREE");
	// a walk that starts at a fake head counts the rest of the folio once, not a new folio
	EXPECT_EQ(walk_runs(mm, 0x113240, 0x113400), "0x113240+448 HUGETLB_FREE");
}

// ================= torn tail pointers (the head | 1 encoding, 6.1-6.18) =================

class TornTails : public EveryFamily {};
INSTANTIATE_TEST_SUITE_P(Pointer, TornTails,
			 testing::ValuesIn(families_if([](const Family &f) {
				 return !f.info_mask;
			 })),
			 family_name);

TEST_P(TornTails, TailPointerThatCannotBeItsHeadIsTorn)
{
	const u64 pfn = 0x18ce05;
	Page t = Page::fresh().refcount(0);

	// below vmemmap_base
	EXPECT_EQ(tail_of(fam, pfn, t.word1((fam.f.vmemmap_base - 64) | 1)), kTorn);
	// a direct-map pointer (slab_cache | 1)
	EXPECT_EQ(tail_of(fam, pfn, t.word1(kSlabCache | 1)), kTorn);
	// not at a struct page boundary
	EXPECT_EQ(tail_of(fam, pfn, t.word1((vaddr(fam.f, 0x18ce00) + 32) | 1)), kTorn);
	// the page itself, and a head after the page
	EXPECT_EQ(tail_of(fam, pfn, t.word1(vaddr(fam.f, pfn) | 1)), kTorn);
	EXPECT_EQ(tail_of(fam, pfn, t.word1(vaddr(fam.f, pfn + 1) | 1)), kTorn);
	// farther than the largest folio (2^18 pages)
	EXPECT_EQ(tail_of(fam, pfn, t.word1(vaddr(fam.f, pfn - (1 << 18)) | 1)), kTorn);
	EXPECT_EQ(tail_of(fam, pfn, t.word1(vaddr(fam.f, pfn - (1 << 18) + 1) | 1)),
		  tail_at(pfn - (1 << 18) + 1));
}

TEST(TailPointer, ResolvesOnBothVmemmapBases)
{
	// the defaults, and two KASLR bases (1 GiB aligned, section 6.1)
	for (u64 base : {kVmemmap4, kVmemmap5, 0xffffd7a540000000ULL, 0xffffc00000000000ULL}) {
		Family fam = family_6_18();
		Page t = Page::fresh().refcount(0);

		fam.f.vmemmap_base = base;
		SCOPED_TRACE(testing::Message() << std::hex << base);
		EXPECT_EQ(tail_of(fam, 0x18ce05, t.word1(vaddr(fam.f, 0x18ce00) | 1)),
			  tail_at(0x18ce00));
		EXPECT_EQ(tail_of(fam, 1, t.word1(base | 1)), tail_at(0));
		EXPECT_EQ(tail_of(fam, 0x63ffff, t.word1(vaddr(fam.f, 0x600000) | 1)),
			  tail_at(0x600000));
		EXPECT_FALSE(ms_is_head_mask(vaddr(fam.f, 0x18ce00) | 1));
		EXPECT_FALSE(ms_is_head_mask(base | 1));
		EXPECT_FALSE(ms_is_head_mask(vaddr(fam.f, 0x3ffffffff) | 1));	// 64 TiB of RAM
	}
}

// ================= 7.x compound_info mask =================

TEST(InfoMask7x, MaskTailsResolveForOrders1_9_18)
{
	for (u64 base : {kVmemmap4, kVmemmap5}) {
		Family fam = family_7_x();

		fam.f.vmemmap_base = base;
		for (unsigned order : {1u, 9u, 18u}) {
			const u64 head = 0x40000 + (1ULL << 18);	// aligned for every order
			const u64 n = 1ULL << order;
			Page t = Page::fresh().refcount(0).word1(tail_word(fam, head, order));

			SCOPED_TRACE(testing::Message() << "order " << order << " base " << std::hex
				     << base);
			ASSERT_TRUE(ms_is_head_mask(t.w[MS_W_HEAD]));
			EXPECT_EQ(tail_of(fam, head + 1, t), tail_at(head));
			EXPECT_EQ(tail_of(fam, head + n / 2, t), tail_at(head));
			EXPECT_EQ(tail_of(fam, head + n - 1, t), tail_at(head));
		}
	}
}

TEST(InfoMask7x, HeadMaskTestAcceptsEveryFolioOrder)
{
	for (unsigned order = 1; order <= MS_MAX_FOLIO_ORDER; order++)
		EXPECT_TRUE(ms_is_head_mask((~0ULL << (order + 6)) | 1)) << order;
}

TEST(InfoMask7x, WalkCountsAHugetlbFolioOfMaskTailsAsOneFolio)
{
	Memmap mm(family_7_x());

	hugetlb_folio(mm, 0x113200, 9, 1);
	EXPECT_EQ(walk_runs(mm, 0x113200, 0x113400), "0x113200+512 HUGETLB");
	EXPECT_EQ(walk_runs(mm, 0x113240, 0x113400), "0x113240+448 HUGETLB");
}

TEST(InfoMask7x, PointerFormStillResolvesWithoutHvo)
{
	// compound_info_has_mask() is false without CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP
	Family fam = family_7_x();
	Page t = Page::fresh().refcount(0).word1(vaddr(fam.f, 0x113200) | 1);

	EXPECT_EQ(tail_of(fam, 0x113241, t), tail_at(0x113200));
}

// ================= uninitialised struct pages =================

TEST(Uninit, AllZeroAndAllOnesAreUninitialised)
{
	Page zero = Page::raw(0, 0, 0, 0, 0, 0, 0, 0);
	Page ones = Page::raw(~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL);

	EXPECT_TRUE(ms_page_uninit(zero.data()));
	EXPECT_TRUE(ms_page_uninit(ones.data()));
}

TEST(Uninit, InitialisedPagesAreNotUninitialised)
{
	const u64 head = kVmemmap4 + 0x4000;

	// freed: _refcount 0, _mapcount -1
	EXPECT_FALSE(ms_page_uninit(Page::raw(0, 0, 0, 0, 0, 0, 0x00000000ffffffff, 0).data()));
	// a tail mapped once with no reference of its own: word 6 is 0, word 1 is head | 1
	EXPECT_FALSE(ms_page_uninit(Page::raw(0, head | 1, 0, 0, 0, 0, 0, 0).data()));
	// only flags (node/zone bits)
	EXPECT_FALSE(ms_page_uninit(Page::raw(kUpperFlags, 0, 0, 0, 0, 0, 0, 0).data()));
	// an all-0xff flags word alone is not page poisoning
	EXPECT_FALSE(ms_page_uninit(Page::raw(~0ULL, 0, 0, 0, 0, 0, ~0ULL, 0).data()));
}

TEST(Uninit, WalkCountsUninitialisedPagesAsFreeUninit)
{
	Memmap mm(family_6_18());

	mm.fill(0x400000, 0x400040, Page::raw(0, 0, 0, 0, 0, 0, 0, 0));
	mm[0x400040] = Page::raw(~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL);
	mm[0x400041] = pcp_free(mm.fam);
	EXPECT_EQ(walk_runs(mm, 0x400000, 0x400042),
		  "0x400000+65 FREE_UNINIT, 0x400041+1 FREE_PCP");
}

// ================= ms_ptype on each encoding =================

TEST(PtypeS1, InvertedBitsOn61)
{
	const ms_features f = family_6_1().f;

	EXPECT_EQ(ptype_of(f, 0xffffff7f), "BUDDY");
	EXPECT_EQ(ptype_of(f, 0xfffffeff), "OFFLINE");
	EXPECT_EQ(ptype_of(f, 0xfffffdff), "TABLE");
	EXPECT_EQ(ptype_of(f, 0xfffffbff), "GUARD");
	// 6.1 has neither a hugetlb (dtor) nor a slab (PG_slab) page type
	EXPECT_EQ(ptype_of(f, 0xfffff7ff), "NONE");
	EXPECT_EQ(ptype_of(f, 0xffffefff), "NONE");
}

TEST(PtypeS1, MapcountsAndZsmallocOffsetsAreUntyped)
{
	for (const Family &fam : {family_6_1(), family_6_6_0(), family_6_6_30()}) {
		SCOPED_TRACE(fam.name);
		for (u32 pt : {0xffffffffu,		// _mapcount -1
			       0u, 1u, 5u, 0x3fu,	// mapped 1, 2, 6, 64 times
			       0x700u, 0xfc0u,		// zsmalloc first-object offsets (<= 6.10)
			       0xfffffffeu, 0xffffff80u})	// underflow, PAGE_MAPCOUNT_RESERVE
			EXPECT_EQ(ptype_of(fam.f, pt), "NONE") << std::hex << pt;
	}
}

TEST(PtypeS1, HugetlbBitOnlyWhereNeitherDtorNorPgHugetlb)
{
	EXPECT_EQ(ptype_of(family_6_6_0().f, 0xfffff7ff), "NONE");
	EXPECT_EQ(ptype_of(family_6_6_30().f, 0xfffff7ff), "HUGETLB");
}

TEST(PtypeS1, SlabBitOnlyWherePgSlabIsGone)
{
	Btf b610 = {};	// 6.10: "mm: free up PG_slab"; flags as 6.6 minus PG_slab

	b610.pg_head = 6, b610.pg_reserved = 14, b610.pg_swapbacked = 19;
	b610.pg_owner_priv_1 = 12, b610.pg_lru = 5;
	const ms_features f610 = detect(b610);

	EXPECT_EQ(ptype_of(family_6_6_30().f, 0xffffefff), "NONE");
	EXPECT_EQ(ptype_of(f610, 0xffffefff), "SLAB");
	EXPECT_EQ(ptype_of(f610, 0xfffff7ff), "HUGETLB");
	EXPECT_EQ(ptype_of(f610, 0xffffff7f), "BUDDY");
}

TEST(PtypeS2, InvertedEnumOf611)
{
	Btf b611 = {};

	b611.pg_head = 6, b611.pg_reserved = 13, b611.pg_swapbacked = 17;
	b611.pg_owner_priv_1 = 10, b611.pg_lru = 5;
	b611.scheme = Scheme::kEnum;
	const ms_features f = detect(b611);

	EXPECT_EQ(ptype_of(f, 0xbfffffff), "BUDDY");
	EXPECT_EQ(ptype_of(f, 0xdfffffff), "OFFLINE");
	EXPECT_EQ(ptype_of(f, 0xefffffff), "TABLE");
	EXPECT_EQ(ptype_of(f, 0xf7ffffff), "GUARD");
	EXPECT_EQ(ptype_of(f, 0xfbffffff), "HUGETLB");
	EXPECT_EQ(ptype_of(f, 0xfdffffff), "SLAB");
	EXPECT_EQ(ptype_of(f, 0xfeffffff), "ZSMALLOC");
	EXPECT_EQ(ptype_of(f, 0xfeff0700), "ZSMALLOC");	// low 16 bits: owner's
	for (u32 pt : {0xffffffffu, 0xfffffffeu, 0xffff8000u, 0u, 0x3fu, 0x7fffffffu})
		EXPECT_EQ(ptype_of(f, pt), "NONE") << std::hex << pt;
}

TEST(PtypeS3, UpperByteOf618)
{
	const ms_features f = family_6_18().f;
	const char *names[] = {"BUDDY", "OFFLINE", "TABLE", "GUARD", "HUGETLB", "SLAB", "ZSMALLOC",
			       "UNACCEPTED", "LARGE_KMALLOC"};

	for (u32 t = 0xf0; t <= 0xf8; t++) {
		EXPECT_EQ(ptype_of(f, t << 24), names[t - 0xf0]) << std::hex << t;
		EXPECT_EQ(ptype_of(f, (t << 24) | 0x000700), names[t - 0xf0]);
	}
	for (u32 t = 0xf9; t <= 0xfe; t++)
		EXPECT_EQ(ptype_of(f, t << 24), "UNKNOWN") << std::hex << t;
}

TEST(PtypeS3, MapcountsAreUntyped)
{
	for (const Family &fam : {family_6_12(), family_6_18(), family_7_x()}) {
		SCOPED_TRACE(fam.name);
		for (u32 pt : {0xffffffffu, 0xfffffffeu, 0xff000000u,	// -1, underflow
			       0u, 0x3fu, 0x7fffffffu,			// mapcounts
			       0x80000000u, 0xef000000u, 0xefffffffu})	// overflow reserve
			EXPECT_EQ(ptype_of(fam.f, pt), "NONE") << std::hex << pt;
	}
}

TEST(PtypeS3, LargeKmallocByteIsUnknownOn612)
{
	EXPECT_EQ(ptype_of(family_6_12().f, 0xf8000000), "UNKNOWN");
	EXPECT_EQ(classify(family_6_12(), 0x100054, Page::fresh().page_type(0xf8000000)),
		  (Verdict{MS_KERNEL_OTHER, 1}));
}

// ================= raw words measured on 6.18.44 (section 8) =================

class Measured618 : public testing::Test {
protected:
	Family fam = family_6_18();
	Memmap mm{family_6_18()};
};

TEST_F(Measured618, FreeBlockOfOrder1CountsItsInteriorAsBuddy)
{
	mm[0x100414] = Page::raw(0x0017fff800000000, 0xffffea0005418b88, 0xffffea0004ec9f88, 0,
				 0xffff888100414270, 1, 0xf0000000, 0);
	mm[0x100415] = Page::raw(0x0017fff800000000, 0xdead000000000100, 0xdead000000000122, 0,
				 0xffff8881004159c0, 0, 0xffffffff, 0);

	EXPECT_EQ(classify(fam, 0x100414, mm[0x100414], &mm[0x100415]),
		  (Verdict{MS_FREE_BUDDY, 2}));
	EXPECT_EQ(walk_runs(mm, 0x100414, 0x100416), "0x100414+2 FREE_BUDDY");
}

TEST_F(Measured618, FrozenSlabHeadIsSlab)
{
	Page s = Page::raw(0x0017fff800000000, 0xffff88810022f100, 0xdead000000000122, 0, 0,
			   0x150015, 0xf5000000, 0);

	EXPECT_EQ(classify(fam, 0x100410, s), (Verdict{MS_KERNEL_SLAB, 1}));
}

TEST_F(Measured618, LargeKmallocIsLargeKmalloc)
{
	Page k = Page::raw(0x0017fff800000040, 0, 0xdead000000000122, 0, 0, 0, 0xf8000000, 0);

	EXPECT_EQ(classify(fam, 0x100054, k).sub, (u32)MS_KERNEL_LARGE_KMALLOC);
}

TEST_F(Measured618, ThpHeadAndTailAreOneAnonFolio)
{
	// words 1, 2, 5 and 7 of the head and 2..7 of page[1] were not recorded: plausible values
	mm[0x18ce00] = Page::raw(0x0017fff800620868, 0xffffea000633a008, 0xffffea0006330008,
				 0xffff888132489069, 0x7fb876e00, 0, 0x00000001ffffffff,
				 0xffff888100e6a000);
	mm[0x18ce01] = Page::raw(0x0017fff800000209, 0xffffea0006338001, 0, 0, 0, 0,
				 0x00000000ffffffff, 0x200);
	for (u64 pfn = 0x18ce02; pfn < 0x18d000; pfn++)
		mm[pfn] = Page::raw(0x0017fff800000000, 0xffffea0006338001, 0xdead000000000122,
				    0xdead000000000400, 0, 0, 0x00000000ffffffff, 0);

	EXPECT_EQ(classify(fam, 0x18ce00, mm[0x18ce00], &mm[0x18ce01]), (Verdict{MS_ANON, 512}));
	EXPECT_EQ(tail_of(fam, 0x18ce05, mm[0x18ce05], &mm[0x18ce06]), tail_at(0x18ce00));
	EXPECT_EQ(walk_runs(mm, 0x18ce00, 0x18d000), "0x18ce00+512 ANON");
	EXPECT_EQ(walk_runs(mm, 0x18ce05, 0x18d000), "0x18ce05+507 ANON");
}

TEST_F(Measured618, KsmPageIsKsm)
{
	// flags ...2003c, mapping ...303, _mapcount 0x3f; the refcount was not recorded
	Page k = Page::raw(0x0017fff80002003c, 0xffffea00053ba308, 0xffffea00053ba388,
			   0xffff88814e398303, 0x7f3a1c2e5, 0, 0x000000400000003f,
			   0xffff888100e6a000);

	EXPECT_EQ(classify(fam, 0x14ee8c, k), (Verdict{MS_ANON_KSM, 1}));
}

TEST_F(Measured618, MemfdPageIsShmem)
{
	Page s = Page::raw(0x0017fff800020038, 0xffffea000514d4c8, 0xffffea000514d548,
			   0xffff88810a039688, 0, 0, 0x00000001ffffffff, 0xffff888100e6a000);

	EXPECT_EQ(classify(fam, 0x145375, s, nullptr, MS_MAP_SHMEM), (Verdict{MS_SHMEM, 1}));
}

TEST_F(Measured618, ZsmallocPageIsZsmalloc)
{
	// flags 8 (PG_movable_ops), mapping 0, page_type f6000700; refcount not recorded
	Page z = Page::raw(0x8, 0, 0, 0, 0, 0xffff8881327d3f18, 0x00000001f6000700, 0);

	EXPECT_EQ(classify(fam, 0x13adfb, z), (Verdict{MS_KERNEL_ZSMALLOC, 1}));
}

TEST_F(Measured618, FreePoolHugetlbFolioWithFakeHeadsIsOneFreeHugetlbFolio)
{
	// head: flags ...40, page_type f4000000, refcount 0; page[1].flags ...09 (1.2)
	mm[0x113200] = Page::raw(0x0017fff800000040, 0xffffea00044c8008, 0xffffea00044c8008, 0,
				 0, 0, 0x00000000f4000000, 0);
	mm[0x113201] = Page::raw(0x0017fff800000009, 0xffffea00044c8001, 0, 0, 0, 0,
				 0x00000000ffffffff, 0x200);
	for (u64 pfn = 0x113202; pfn < 0x113240; pfn++)
		mm[pfn] = Page::raw(0x0017fff800000000, 0xffffea00044c8001, 0, 0, 0, 0,
				    0x00000000ffffffff, 0);
	hvo_remap(mm, 0x113200, 9);

	EXPECT_EQ(classify(fam, 0x113200, mm[0x113200], &mm[0x113201]),
		  (Verdict{MS_HUGETLB_FREE, 512}));
	EXPECT_EQ(tail_of(fam, 0x113240, mm[0x113240], &mm[0x113241]), tail_at(0x113200));
	EXPECT_EQ(tail_of(fam, 0x113280, mm[0x113280], &mm[0x113281]), tail_at(0x113200));
	EXPECT_EQ(walk_runs(mm, 0x113200, 0x113400), "0x113200+512 HUGETLB_FREE");
}

TEST_F(Measured618, ZeroPageIsReserved)
{
	Page z = Page::raw(0x0017fff800002000, 0xffffea00000ecc88, 0xffffea00000ecc88, 0, 0, 0,
			   0x00000001ffffffff, 0);

	EXPECT_EQ(classify(fam, 0x3b32, z), (Verdict{MS_KERNEL_RESERVED, 1}));
}

TEST_F(Measured618, ReservedPageInTheDeferredRangeIsReservedNotUninit)
{
	// flags ...2000, lru linked to itself, one reference
	const u64 self = vaddr(fam.f, 0x624c00) + 8;
	Page r = Page::raw(0x0017fff800002000, self, self, 0, 0, 0, 0x00000001ffffffff, 0);

	EXPECT_FALSE(ms_page_uninit(r.data()));
	EXPECT_EQ(classify(fam, 0x624c00, r), (Verdict{MS_KERNEL_RESERVED, 1}));
}

TEST_F(Measured618, AllZeroPageIsUninit)
{
	mm[0x400000] = Page::raw(0, 0, 0, 0, 0, 0, 0, 0);

	EXPECT_TRUE(ms_page_uninit(mm[0x400000].data()));
	EXPECT_EQ(walk_runs(mm, 0x400000, 0x400001), "0x400000+1 FREE_UNINIT");
}

// A free block counted at its head (order 1 at 0x2000, so the walk jumps to 0x2002) merges
// with its higher buddy before the walk gets there: the merged block is order 2 at 0x2000,
// and 0x2002, the absorbed head, is untyped with refcount 0. The walk must still count
// 0x2002-0x2003 as buddy (is_free_buddy_page() semantics), not as per-cpu free pages.
TEST(WalkRace, BuddyMergedBehindTheWalkStaysBuddy)
{
	for (const Family &fam : all_families()) {
		Memmap mm(fam);
		ms_walk_state st = {};

		SCOPED_TRACE(fam.name);
		mm[0x2000] = buddy(fam, 2);		/* after the merge */
		mm.fill(0x2001, 0x2004, free_interior());
		st.free_end = 0x2002;			/* the walk counted order 1 at 0x2000 */
		EXPECT_EQ(walk_runs(mm, 0x2002, 0x2004, {}, st), "0x2002+2 FREE_BUDDY");
	}
}

// A page on a per-cpu list right after a free block is not covered by it: still per-cpu.
TEST(WalkRace, PerCpuPageAfterAFreeBlockStaysPerCpu)
{
	for (const Family &fam : all_families()) {
		Memmap mm(fam);

		SCOPED_TRACE(fam.name);
		mm[0x2000] = buddy(fam, 1);
		mm[0x2001] = free_interior();
		mm[0x2002] = pcp_free(fam);
		mm[0x2003] = pcp_free(fam);
		EXPECT_EQ(walk_runs(mm, 0x2000, 0x2004), "0x2000+2 FREE_BUDDY, 0x2002+2 FREE_PCP");
	}
}

// SLAB_RECLAIM_ACCOUNT's mask from what BTF shows (bpf/core_fixes.bpf.h feeds it): 6.1's macro
// without enum _slab_flag_bits, the enum's bit from 6.12 on; CONFIG_SLUB_TINY has the enum but
// not the value (the flag is __SLAB_FLAG_UNUSED): no cache is reclaimable, never bit 17 (the old
// macro, which the walk took before and so counted any cache with bit 17 set as SReclaimable).
TEST(SlabReclaimMask, FromBtf)
{
	EXPECT_EQ(ms_slab_reclaim_mask_of(4, 0, 0, 0), 0x00020000);	// 6.1: the macro
	EXPECT_EQ(ms_slab_reclaim_mask_of(4, 1, 1, 15), 1LL << 15);	// 6.18: bit 15
	EXPECT_EQ(ms_slab_reclaim_mask_of(4, 1, 1, 17), 1LL << 17);
	EXPECT_EQ(ms_slab_reclaim_mask_of(4, 1, 0, 0), 0);		// SLUB_TINY: no such flag
	EXPECT_EQ(ms_slab_reclaim_mask_of(8, 1, 1, 15), -1);	// flags not 4 bytes: unknown
	EXPECT_EQ(ms_slab_reclaim_mask_of(0, 0, 0, 0), -1);	// no flags field: unknown
	EXPECT_EQ(ms_slab_reclaim_mask_of(4, 1, 1, 40), -1);	// a bit past the field: unknown
}
