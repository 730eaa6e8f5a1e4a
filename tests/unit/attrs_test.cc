// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat -a (src/core/attrs.c) on made-up page records: a folio is judged at its head and its
// tails share the verdict; DMA pins as folio_maybe_dma_pinned() tells them.
#include <cstring>

#include <gtest/gtest.h>

extern "C" {
#include "memstat_int.h"
#include "attrs_int.h"
#include "attrs.h"
}

namespace {

// a layout like 6.18's: the bits of enum pageflags, _refcount in bytes 52-55, _entire_mapcount
// and _pincount in bytes 24-27 and 28-31 of the first tail page
struct ms_attr_facts facts()
{
	struct ms_attr_facts f;
	memset(&f, 0, sizeof(f));
	f.pg_referenced = 2;
	f.pg_dirty = 4;
	f.pg_lru = 5;
	f.pg_active = 7;
	f.pg_writeback = 3;
	f.pg_swapbacked = 19;
	f.pg_unevictable = 20;
	f.pg_mlocked = 21;
	f.refcount_word = 6;
	f.refcount_shift = 32;
	f.pincount_page = 1;
	f.pincount_word = 3;
	f.pincount_shift = 32;
	f.entire_page = 1;
	f.entire_word = 3;
	f.entire_shift = 0;
	f.pmd_order = 9;
	f.btf_ok = true;
	return f;
}

struct ms_page_rec rec(uint8_t sub, uint8_t role, uint8_t order, uint64_t flags, uint64_t head)
{
	struct ms_page_rec r;
	memset(&r, 0, sizeof(r));
	r.valid = 1;
	r.sub = sub;
	r.role = role;
	r.order = order;
	r.w[0] = flags;
	r.head_pfn = head;
	return r;
}

struct Walk {
	struct ms_attrs a;
	Walk()
	{
		memset(&a, 0, sizeof(a));
		a.f = facts();
		ms_attrs_reset(&a);
	}
	void page(uint64_t pfn, const struct ms_page_rec &r) { ms_attrs_page(&a, pfn, &r); }
	// a folio of 1 << order pages at pfn: head flags hf; tails carry other flags of their own;
	// entire: the PMD mapcount (-1 based: 0 is one PMD mapping, -1 none)
	void folio(uint64_t pfn, uint8_t sub, uint8_t order, uint64_t hf, int32_t pincount = 0,
		   int32_t entire = 0)
	{
		if (!order) {
			page(pfn, rec(sub, MS_ROLE_NONE, 0, hf, pfn));
			return;
		}
		page(pfn, rec(sub, MS_ROLE_HEAD, order, hf, pfn));
		for (uint64_t i = 1; i < (1ULL << order); i++) {
			struct ms_page_rec t = rec(sub, MS_ROLE_TAIL, order, 0x3f, pfn);
			t.head_flags = hf;
			if (i == 1)
				t.w[3] = (uint64_t)(uint32_t)pincount << 32 | (uint32_t)entire;
			page(pfn + i, t);
		}
	}
};

const uint64_t LRU = 1ULL << 5, ACTIVE = 1ULL << 7, SWAPBACKED = 1ULL << 19,
	       DIRTY = 1ULL << 4, UNEVICTABLE = 1ULL << 20, MLOCKED = 1ULL << 21;

} // namespace

TEST(Attrs, TailsShareTheHeadsVerdict)
{
	Walk w;
	w.folio(1024, MS_FILE, 4, DIRTY | LRU | ACTIVE);
	ms_attrs_finish(&w.a);
	EXPECT_EQ(w.a.cls[MS_C_PAGE_CACHE][MS_A_DIRTY], 16u);
	EXPECT_EQ(w.a.cls[MS_C_PAGE_CACHE][MS_A_ACTIVE_FILE], 16u);
	EXPECT_EQ(w.a.cls[MS_C_PAGE_CACHE][MS_A_WRITEBACK], 0u) << "a tail's own flags were used";
	EXPECT_EQ(w.a.acct_dirty, 16u);
	EXPECT_EQ(w.a.orders[4], 16u);
}

TEST(Attrs, LruListsFollowSwapbackedActiveAndUnevictable)
{
	Walk w;
	w.folio(0, MS_ANON, 0, LRU | SWAPBACKED | ACTIVE);
	w.folio(1, MS_ANON, 0, LRU | SWAPBACKED);
	w.folio(2, MS_SHMEM, 0, LRU | SWAPBACKED | UNEVICTABLE | MLOCKED);
	w.folio(3, MS_FILE, 0, LRU);
	w.folio(4, MS_ANON, 0, SWAPBACKED | ACTIVE);	// off the LRU (isolated, in a batch)
	ms_attrs_finish(&w.a);
	EXPECT_EQ(ms_attrs_total(&w.a, MS_A_ACTIVE_ANON), 1u);
	EXPECT_EQ(ms_attrs_total(&w.a, MS_A_INACTIVE_ANON), 1u);
	EXPECT_EQ(ms_attrs_total(&w.a, MS_A_UNEVICTABLE), 1u);
	EXPECT_EQ(ms_attrs_total(&w.a, MS_A_MLOCKED), 1u);
	EXPECT_EQ(ms_attrs_total(&w.a, MS_A_INACTIVE_FILE), 1u);
	EXPECT_EQ(ms_attrs_total(&w.a, MS_A_ACTIVE_FILE), 0u);
	EXPECT_EQ(w.a.acct_dirty, 0u);
}

TEST(Attrs, SmallFoliosArePinnedByTheRefcountBias)
{
	Walk w;
	struct ms_page_rec r = rec(MS_ANON, MS_ROLE_NONE, 0, 0, 10);
	r.w[6] = 1024ULL << 32;
	w.page(10, r);
	r.w[6] = 1023ULL << 32;
	w.page(11, r);
	ms_attrs_finish(&w.a);
	EXPECT_EQ(w.a.cls[MS_C_ANON][MS_A_DMA_PINNED], 1u);
	EXPECT_EQ(w.a.sub_pinned[MS_ANON], 1u);
}

TEST(Attrs, LargeFoliosArePinnedByPincountWholly)
{
	Walk w;
	w.folio(512, MS_ANON, 9, LRU | SWAPBACKED, 1);
	w.folio(1024, MS_ANON, 9, LRU | SWAPBACKED, 0);
	w.folio(2048, MS_SHMEM, 9, LRU | SWAPBACKED, 0);
	w.folio(4096, MS_FILE, 2, LRU, 0);
	ms_attrs_finish(&w.a);
	EXPECT_EQ(w.a.cls[MS_C_ANON][MS_A_DMA_PINNED], 512u);
	EXPECT_EQ(w.a.cls[MS_C_ANON][MS_A_ANON_THP], 1024u);
	EXPECT_EQ(w.a.cls[MS_C_SHMEM][MS_A_SHMEM_THP], 512u);
	EXPECT_EQ(ms_attrs_total(&w.a, MS_A_FILE_THP), 0u) << "an order-2 folio is no PMD THP";
	EXPECT_EQ(w.a.orders[9], 1536u);
	EXPECT_EQ(w.a.orders[2], 4u);
}

TEST(Attrs, KsmAndFreePages)
{
	Walk w;
	w.folio(7, MS_ANON_KSM, 0, LRU | SWAPBACKED);
	w.page(8, rec(MS_FREE_BUDDY, MS_ROLE_FREE_HEAD, 3, DIRTY, 8));
	ms_attrs_finish(&w.a);
	EXPECT_EQ(ms_attrs_total(&w.a, MS_A_KSM), 1u);
	EXPECT_EQ(ms_attrs_total(&w.a, MS_A_DIRTY), 0u) << "free pages have no state";
	EXPECT_EQ(w.a.orders[3], 0u);
}

// AnonHugePages counts the anon THP that a PMD maps: an order-9 anon folio whose PMD mapping was
// split (PMD mapcount -1) is no anon THP, though still a folio of order 9. Page cache THP counts
// by order alone (ShmemHugePages, FileHugePages are counted when a folio enters the cache).
TEST(Attrs, AnonThpIsTheFoliosAPmdMaps)
{
	Walk w;
	w.folio(512, MS_ANON, 9, LRU | SWAPBACKED, 0, 0);
	w.folio(1024, MS_ANON, 9, LRU | SWAPBACKED, 0, -1);
	w.folio(1536, MS_ANON, 9, LRU | SWAPBACKED, 0, 2);
	w.folio(2048, MS_SHMEM, 9, LRU | SWAPBACKED, 0, -1);
	ms_attrs_finish(&w.a);
	EXPECT_EQ(w.a.cls[MS_C_ANON][MS_A_ANON_THP], 1024u) << "the PTE-mapped folio counted";
	EXPECT_EQ(w.a.cls[MS_C_SHMEM][MS_A_SHMEM_THP], 512u);
	EXPECT_EQ(w.a.orders[9], 2048u);

	Walk v;	// a kernel whose BTF names no PMD mapcount: the order alone decides
	v.a.f.entire_page = 0;
	v.folio(1024, MS_ANON, 9, LRU | SWAPBACKED, 0, -1);
	ms_attrs_finish(&v.a);
	EXPECT_EQ(v.a.cls[MS_C_ANON][MS_A_ANON_THP], 512u);

	Walk t;	// a walk that begins inside a folio, past its first tail page: cannot tell
	for (uint64_t pfn = 1024 + 2; pfn < 1536; pfn++) {
		struct ms_page_rec r = rec(MS_ANON, MS_ROLE_TAIL, 9, 0x3f, 1024);
		r.head_flags = LRU | SWAPBACKED;
		t.page(pfn, r);
	}
	ms_attrs_finish(&t.a);
	EXPECT_EQ(t.a.cls[MS_C_ANON][MS_A_ANON_THP], 510u) << "by its order, as before";
}
