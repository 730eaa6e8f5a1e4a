// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Synthetic kernels and struct pages for the classifier tests (classify_test.cc).
//
// A Family is one kernel layout: the struct ms_features that the detect program
// (bpf/core_fixes.bpf.h) fills from that kernel's BTF, plus what the tests know about the kernel
// from docs/page-classes.md (which marker it uses for hugetlb, slab, zsmalloc ...), so a
// test builds pages the way that kernel writes them and not the way the classifier reads them.
// A Memmap holds struct pages by pfn; a Walker runs the range walk of include/walk.h over it, the
// same code the BPF walker and the kernel module run, in any of its three modes.
#ifndef MEMSTAT_TEST_LAYOUTS_H
#define MEMSTAT_TEST_LAYOUTS_H

#include <cassert>
#include <cstdio>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#define MS_WALK_HOOKS
#define MS_WALK_LOOP
#include "walk.h"

namespace mstest {

using u8 = __u8;
using u32 = __u32;
using u64 = __u64;

// x86_64 vmemmap_base defaults (arch/x86/include/asm/pgtable_64_types.h, docs/page-classes.md 6.1)
constexpr u64 kVmemmap4 = 0xffffea0000000000ULL;	// 4-level paging
constexpr u64 kVmemmap5 = 0xffd4000000000000ULL;	// 5-level paging

constexpr u64 kUpperFlags = 0x0017fff800000000ULL;	// node/zone/cpupid bits seen on 6.18
constexpr u64 kListPoison1 = 0xdead000000000100ULL;	// LIST_POISON1
constexpr u64 kListPoison2 = 0xdead000000000122ULL;	// LIST_POISON2

// ---- what ms_kernel_facts() reads from BTF ----

enum class Scheme { kBits, kEnum, kByte };	// docs/page-classes.md 3.3: the three encodings

struct Btf {
	u8 pg_head, pg_reserved, pg_swapbacked, pg_owner_priv_1, pg_lru;
	u8 pg_slab = MS_NO_BIT;		// enum pageflags PG_slab (<= 6.9)
	u8 pg_hugetlb = MS_NO_BIT;	// PG_hugetlb (6.6.0-6.6.29)
	u8 pg_movable_ops = MS_NO_BIT;	// PG_movable_ops (6.17+)
	bool compound_dtor = false;	// struct page has compound_dtor (<= 6.5)
	bool compound_dtor_id = false;	// BTF has enum compound_dtor_id (<= 6.5)
	int hugetlb_page_dtor = -1;	// its HUGETLB_PAGE_DTOR, -1: absent (!CONFIG_HUGETLB_PAGE)
	Scheme scheme = Scheme::kBits;
	bool pgty_large_kmalloc = false;	// PGTY_large_kmalloc (6.17+)
	bool pp_dma_index = false;	// struct page_pool has dma_mapped (6.16+, 6.12.y)
	u8 slab_cache_word = 1;		// struct slab's slab_cache / 8: 3 on 6.1 (130d4df57390)
	u64 vmemmap_base = kVmemmap4;
};

// What the BPF detect program makes of a kernel described by b: b as struct ms_kernel_facts
// (what ms_kernel_facts() in bpf/core_fixes.bpf.h reads from BTF), then the shared rules.
inline ms_features detect(const Btf &b)
{
	ms_kernel_facts k = {};
	ms_features f = {};

	k.page_size = 64;
	k.pg_head = b.pg_head;
	k.pg_reserved = b.pg_reserved;
	k.pg_swapbacked = b.pg_swapbacked;
	k.pg_owner_priv_1 = b.pg_owner_priv_1;
	k.pg_lru = b.pg_lru;
	k.pg_slab = b.pg_slab;
	k.pg_hugetlb = b.pg_hugetlb;
	k.pg_movable_ops = b.pg_movable_ops;
	k.has_compound_dtor = b.compound_dtor;
	k.has_dtor_enum = b.compound_dtor_id;
	k.hugetlb_page_dtor = (__s16)b.hugetlb_page_dtor;
	k.pp_dma_index = b.pp_dma_index;
	k.slab_cache_word = b.slab_cache_word;
	switch (b.scheme) {
	case Scheme::kByte:	// enum pagetype, PGTY_* (6.12+)
		k.type_scheme = MS_PT_UPPER_BYTE;
		for (u32 t = MS_T_BUDDY; t <= MS_T_UNACCEPTED; t++)
			k.ptype[t] = 0xf0 + (t - MS_T_BUDDY);
		k.ptype[MS_T_LARGE_KMALLOC] = b.pgty_large_kmalloc ? 0xf8 : 0;
		break;
	case Scheme::kEnum:	// 6.11 enum pagetype, inverted
		k.type_scheme = MS_PT_INVERTED_ENUM;
		k.pt_base = 0x80000000u;
		for (u32 t = MS_T_BUDDY; t <= MS_T_ZSMALLOC; t++)
			k.ptype[t] = 0x40000000u >> (t - MS_T_BUDDY);
		break;
	case Scheme::kBits:	// <= 6.10 macros, not in BTF
		k.type_scheme = MS_PT_INVERTED_BITS;
		break;
	}
	ms_features_from_facts(&k, &f);
	f.vmemmap_base = b.vmemmap_base;
	return f;
}

// ---- the layout families ----

enum class HugetlbMark {
	kDtor,		// page[1].compound_dtor == HUGETLB_PAGE_DTOR (<= 6.5)
	kPage1Flag,	// PG_hugetlb in page[1].flags (6.6.0-6.6.29, 6.7, 6.8.0-6.8.8)
	kType,		// a page type on the head (6.6.30+, 6.9+)
};

enum class ZsmallocMark {
	kMovableMapping,	// untyped, mapping = &zsmalloc_mops | 2, raw offset in page_type
				// (<= 6.10)
	kTypeAndMapping,	// PGTY_zsmalloc + mapping | 2 (6.12-6.16)
	kTypeAndFlag,		// PGTY_zsmalloc + PG_movable_ops, mapping 0 (6.17+)
};

struct Family {
	const char *name;		// test-name suffix
	ms_features f;
	HugetlbMark hugetlb;
	ZsmallocMark zsmalloc;
	bool slab_flag;			// PG_slab rather than a slab page type
	bool unaccepted;		// has the unaccepted page type
	bool large_kmalloc;		// has the large_kmalloc page type
	bool fake_heads;		// HVO fake heads exist (6.1-6.18)
	bool info_mask;			// tails hold the 7.x compound_info mask
	u8 pg_active;			// for tests that set PG_active
	u8 pg_workingset;		// = PG_large_rmappable in page[1] (6.6+)
};

inline void PrintTo(const Family &fam, std::ostream *os)
{
	*os << fam.name;
}

// Bit numbers: docs/page-classes.md table 3.2.
inline Family family_6_1()
{
	Btf b = {};
	b.pg_head = 16, b.pg_reserved = 12, b.pg_swapbacked = 19, b.pg_owner_priv_1 = 10;
	b.pg_lru = 4, b.pg_slab = 9;
	b.compound_dtor = true, b.compound_dtor_id = true, b.hugetlb_page_dtor = 2;
	b.slab_cache_word = 3;
	b.vmemmap_base = kVmemmap4;
	return {"v6_1", detect(b), HugetlbMark::kDtor, ZsmallocMark::kMovableMapping,
		true, false, false, true, false, 5, 6};
}

inline Family family_6_6_0()
{
	Btf b = {};
	b.pg_head = 6, b.pg_reserved = 14, b.pg_swapbacked = 19, b.pg_owner_priv_1 = 12;
	b.pg_lru = 5, b.pg_slab = 11, b.pg_hugetlb = 8;	// PG_hugetlb = PG_active
	b.vmemmap_base = kVmemmap5;
	return {"v6_6_0", detect(b), HugetlbMark::kPage1Flag, ZsmallocMark::kMovableMapping,
		true, false, false, true, false, 8, 9};
}

inline Family family_6_6_30()
{
	Btf b = {};
	b.pg_head = 6, b.pg_reserved = 14, b.pg_swapbacked = 19, b.pg_owner_priv_1 = 12;
	b.pg_lru = 5, b.pg_slab = 11;
	b.vmemmap_base = kVmemmap4;
	return {"v6_6_30", detect(b), HugetlbMark::kType, ZsmallocMark::kMovableMapping,
		true, false, false, true, false, 8, 9};
}

inline Family family_6_12()
{
	Btf b = {};
	b.pg_head = 6, b.pg_reserved = 13, b.pg_swapbacked = 17, b.pg_owner_priv_1 = 10;
	b.pg_lru = 5;
	b.scheme = Scheme::kByte;
	b.pp_dma_index = true;	// ee62ce7a1d90 is in Debian's 6.12.117 (the VM's kernel)
	b.vmemmap_base = kVmemmap5;
	return {"v6_12", detect(b), HugetlbMark::kType, ZsmallocMark::kTypeAndMapping,
		false, true, false, true, false, 8, 9};
}

inline Family family_6_18()
{
	Btf b = {};
	b.pg_head = 6, b.pg_reserved = 13, b.pg_swapbacked = 17, b.pg_owner_priv_1 = 10;
	b.pg_lru = 5, b.pg_movable_ops = 3;
	b.scheme = Scheme::kByte, b.pgty_large_kmalloc = true, b.pp_dma_index = true;
	b.vmemmap_base = kVmemmap4;	// the base measured on the 6.18 machine (docs/page-classes.md section 8)
	return {"v6_18", detect(b), HugetlbMark::kType, ZsmallocMark::kTypeAndFlag,
		false, true, true, true, false, 8, 9};
}

inline Family family_7_x()
{
	Family fam = family_6_18();

	fam.name = "v7_x";
	fam.f.vmemmap_base = kVmemmap5;
	fam.fake_heads = false;
	fam.info_mask = true;
	return fam;
}

inline std::vector<Family> all_families()
{
	return {family_6_1(), family_6_6_0(), family_6_6_30(), family_6_12(), family_6_18(),
		family_7_x()};
}

// ---- names, for readable failures ----

inline std::string sub_name(u32 sub)
{
	switch (sub) {
	case MS_KERNEL_SLAB: return "KERNEL_SLAB";
	case MS_KERNEL_SLAB_RECLAIM: return "KERNEL_SLAB_RECLAIM";
	case MS_KERNEL_LARGE_KMALLOC: return "KERNEL_LARGE_KMALLOC";
	case MS_KERNEL_PAGETABLE: return "KERNEL_PAGETABLE";
	case MS_KERNEL_RESERVED: return "KERNEL_RESERVED";
	case MS_KERNEL_ZSMALLOC: return "KERNEL_ZSMALLOC";
	case MS_KERNEL_OFFLINE: return "KERNEL_OFFLINE";
	case MS_KERNEL_GUARD: return "KERNEL_GUARD";
	case MS_KERNEL_PAGE_POOL: return "KERNEL_PAGE_POOL";
	case MS_KERNEL_USER_MAPPED: return "KERNEL_USER_MAPPED";
	case MS_KERNEL_COMPOUND: return "KERNEL_COMPOUND";
	case MS_KERNEL_OTHER: return "KERNEL_OTHER";
	case MS_KERNEL_UNSTABLE: return "KERNEL_UNSTABLE";
	case MS_ANON: return "ANON";
	case MS_ANON_SWAPCACHE: return "ANON_SWAPCACHE";
	case MS_ANON_KSM: return "ANON_KSM";
	case MS_SHMEM: return "SHMEM";
	case MS_EXEC: return "EXEC";
	case MS_FILE: return "FILE";
	case MS_FILE_BUFFERS: return "FILE_BUFFERS";
	case MS_FILE_SWAPCACHE: return "FILE_SWAPCACHE";
	case MS_HUGETLB: return "HUGETLB";
	case MS_HUGETLB_FREE: return "HUGETLB_FREE";
	case MS_FREE_BUDDY: return "FREE_BUDDY";
	case MS_FREE_PCP: return "FREE_PCP";
	case MS_FREE_UNINIT: return "FREE_UNINIT";
	case MS_FREE_UNACCEPTED: return "FREE_UNACCEPTED";
	case MS_UNKNOWN: return "UNKNOWN";
	default: return "sub#" + std::to_string(sub);
	}
}

inline std::string ptype_name(u32 t)
{
	switch (t) {
	case MS_T_NONE: return "NONE";
	case MS_T_BUDDY: return "BUDDY";
	case MS_T_OFFLINE: return "OFFLINE";
	case MS_T_TABLE: return "TABLE";
	case MS_T_GUARD: return "GUARD";
	case MS_T_HUGETLB: return "HUGETLB";
	case MS_T_SLAB: return "SLAB";
	case MS_T_ZSMALLOC: return "ZSMALLOC";
	case MS_T_UNACCEPTED: return "UNACCEPTED";
	case MS_T_LARGE_KMALLOC: return "LARGE_KMALLOC";
	case MS_T_UNKNOWN: return "UNKNOWN";
	default: return "ptype#" + std::to_string(t);
	}
}

// ---- struct pages ----

inline u64 vaddr(const ms_features &f, u64 pfn)
{
	return f.vmemmap_base + pfn * 64;
}

struct Page {
	u64 w[MS_PAGE_WORDS] = {};

	// An order-0 page as __init_single_page() leaves it, plus one reference: allocated,
	// untyped, unmapped, no owner.
	static Page fresh()
	{
		Page p;

		p.w[MS_W_FLAGS] = kUpperFlags;
		return p.mapcount(-1).refcount(1);
	}

	static Page raw(u64 w0, u64 w1, u64 w2, u64 w3, u64 w4, u64 w5, u64 w6, u64 w7)
	{
		Page p;

		p.w[0] = w0, p.w[1] = w1, p.w[2] = w2, p.w[3] = w3;
		p.w[4] = w4, p.w[5] = w5, p.w[6] = w6, p.w[7] = w7;
		return p;
	}

	Page &flag(u8 bit)
	{
		assert(bit < 64);
		w[MS_W_FLAGS] |= 1ULL << bit;
		return *this;
	}
	Page &word1(u64 v) { w[MS_W_HEAD] = v; return *this; }
	Page &mapping(u64 m) { w[MS_W_MAPPING] = m; return *this; }
	Page &priv(u64 v) { w[MS_W_PRIVATE] = v; return *this; }
	Page &page_type(u32 pt)
	{
		w[MS_W_TYPE] = (w[MS_W_TYPE] & 0xffffffff00000000ULL) | pt;
		return *this;
	}
	Page &mapcount(int32_t c) { return page_type((u32)c); }
	Page &refcount(int32_t r)
	{
		w[MS_W_TYPE] = (w[MS_W_TYPE] & 0xffffffffULL) | ((u64)(u32)r << 32);
		return *this;
	}
	const u64 *data() const { return w; }
};

// The page_type word of type t as family fam's kernel writes it (__SetPage##uname).
inline u32 type_word(const Family &fam, u32 t)
{
	u32 v = fam.f.ptype[t];

	assert(v && "this kernel has no such page type");
	if (fam.f.type_scheme == MS_PT_UPPER_BYTE)
		return v << 24;
	return 0xffffffffu & ~v;	// S1 and S2 clear the type's bit of _mapcount == -1
}

// The compound_head / compound_info word of a tail of the folio of 2^order pages at head_pfn.
inline u64 tail_word(const Family &fam, u64 head_pfn, unsigned order)
{
	if (fam.info_mask)	// GENMASK(63, order + 6) | 1
		return (~0ULL << (order + 6)) | 1;
	return vaddr(fam.f, head_pfn) | 1;
}

// Write the folio order into page[1] the way fam's kernel does (docs/page-classes.md 3.4).
inline void set_order(const Family &fam, Page &p1, unsigned order)
{
	if (fam.f.has_dtor)	// page[1].compound_order, the byte at head + 81
		p1.w[2] = (p1.w[2] & ~0xff00ULL) | ((u64)order << 8);
	else			// page[1].flags & 0xff
		p1.w[MS_W_FLAGS] = (p1.w[MS_W_FLAGS] & ~0xffULL) | order;
}

// 6.1: page[1].compound_dtor, the byte at head + 80.
inline void set_dtor(Page &p1, u8 dtor)
{
	p1.w[2] = (p1.w[2] & ~0xffULL) | dtor;
}

// set_buddy_order(): private = order, then the buddy type; refcount 0; on the free list.
inline Page buddy(const Family &fam, u64 order)
{
	return Page::fresh().refcount(0).word1(vaddr(fam.f, 0x77000) + 8)
		.priv(order).page_type(type_word(fam, MS_T_BUDDY));
}

// The interior of a free block, words measured on 6.18 (pfn 0x100415, docs/page-classes.md
// section 8).
inline Page free_interior()
{
	return Page::raw(0x0017fff800000000, 0xdead000000000100, 0xdead000000000122, 0,
			 0xffff8881004159c0, 0, 0x00000000ffffffff, 0);
}

// Pages by pfn; a pfn never set is a vmemmap hole.
struct Memmap {
	Family fam;
	std::map<u64, Page> pages;

	explicit Memmap(const Family &family) : fam(family) {}

	Page &operator[](u64 pfn) { return pages[pfn]; }
	const Page *find(u64 pfn) const
	{
		auto it = pages.find(pfn);

		return it == pages.end() ? nullptr : &it->second;
	}
	void fill(u64 start, u64 end, const Page &p)
	{
		for (u64 pfn = start; pfn < end; pfn++)
			pages[pfn] = p;
	}

	// A compound folio of 2^order pages: head (PG_head), page[1] (order, tail word) and tails
	// (tail word, TAIL_MAPPING, refcount 0). Returns the head to be given its owner's marks.
	Page &folio(u64 head_pfn, unsigned order)
	{
		Page &h = pages[head_pfn] = Page::fresh().flag(fam.f.pg_head);

		for (u64 i = 1; i < (1ULL << order); i++) {
			Page t = Page::fresh().refcount(0).word1(tail_word(fam, head_pfn, order));

			t.mapping(0xdead000000000400ULL);	// TAIL_MAPPING
			if (i == 1) {
				t.mapping(0);
				set_order(fam, t, order);
				if (fam.f.has_dtor)
					set_dtor(t, 1);		// COMPOUND_PAGE_DTOR
			}
			pages[head_pfn + i] = t;
		}
		return h;
	}
	Page &page1(u64 head_pfn) { return pages.at(head_pfn + 1); }
};

// ---- the walker ----

constexpr u32 kHole = 0xff;

// What walk.h's hooks read in the tests: a synthetic memmap, per-mapping facts, and the
// buffers a walker fills.
struct WalkCtx {
	const Memmap *mm;
	const std::map<u64, u32> *facts;
	u64 batch[MS_BATCH_PAGES * MS_PAGE_WORDS];
	u64 scratch[2 * MS_PAGE_WORDS];
	std::vector<ms_page_rec> recs;	// allpages: one section's records
};

// In the facts map of a test, the mark of a slab cache created with SLAB_RECLAIM_ACCOUNT (the
// key is then the cache's address, not a mapping's).
constexpr u32 kReclaimCache = 0x100;

// What the hooks make up for allpages: a file mapping's inode and device, a memcg's cgroup id.
inline u64 fake_ino(u64 mapping) { return (mapping >> 4) & 0xffffff; }
constexpr u32 kFakeDev = 0x800001;
inline u64 fake_cgroup(u64 memcg_data) { return memcg_data ? (memcg_data >> 4) & 0xffff : 0; }

}	// namespace mstest

static int ms_hook_read(void *ctx, __u64 pfn, __u64 *w, __u32 nwords)
{
	const mstest::WalkCtx *c = static_cast<const mstest::WalkCtx *>(ctx);

	for (__u32 i = 0; i < nwords; i += MS_PAGE_WORDS) {
		const mstest::Page *pg = c->mm->find(pfn + i / MS_PAGE_WORDS);

		if (!pg)
			return -1;	/* a hole: the read faults */
		for (__u32 k = 0; k < MS_PAGE_WORDS; k++)
			w[i + k] = pg->data()[k];
	}
	return 0;
}

static __u32 ms_hook_facts(void *ctx, __u64 mapping)
{
	const mstest::WalkCtx *c = static_cast<const mstest::WalkCtx *>(ctx);
	auto it = c->facts->find(mapping);

	return it == c->facts->end() ? 0 : it->second;
}

// A slab cache is reclaimable when the facts map lists its address with kReclaimCache.
static int ms_hook_slab_reclaim(void *ctx, __u64 cache)
{
	return (ms_hook_facts(ctx, cache) & mstest::kReclaimCache) != 0;
}

// The 64 struct pages of one 4 KiB piece of vmemmap, which is mapped or not as a whole: a hole
// when no page of it is set; a page not set beside set ones reads as all-zero.
static const __u64 *ms_hook_batch(void *ctx, struct ms_walker *w, __u64 base)
{
	mstest::WalkCtx *c = static_cast<mstest::WalkCtx *>(ctx);
	bool any = false;

	for (__u64 i = 0; i < MS_BATCH_PAGES; i++) {
		const mstest::Page *pg = c->mm->find(base + i);

		for (__u32 k = 0; k < MS_PAGE_WORDS; k++)
			c->batch[i * MS_PAGE_WORDS + k] = pg ? pg->data()[k] : 0;
		any |= pg != nullptr;
	}
	return any ? c->batch : nullptr;
}

static void ms_hook_visit(void *ctx, struct ms_walker *w, __u64 pfn, __u32 j, const __u64 *p,
			  const __u64 *p1)
{
	mstest::WalkCtx *c = static_cast<mstest::WalkCtx *>(ctx);

	ms_walk_page(ctx, w, &c->mm->fam.f, pfn, j, p, p1, c->scratch);
}

static void ms_hook_file(void *ctx, __u64 mapping, __u64 *ino, __u32 *dev)
{
	*ino = mstest::fake_ino(mapping);
	*dev = mstest::kFakeDev;
}

static __u64 ms_hook_cgroup(void *ctx, __u64 memcg_data)
{
	return mstest::fake_cgroup(memcg_data);
}

static struct ms_page_rec *ms_hook_rec(void *ctx, struct ms_walker *w, __u32 idx)
{
	mstest::WalkCtx *c = static_cast<mstest::WalkCtx *>(ctx);

	return idx < c->recs.size() ? &c->recs[idx] : nullptr;
}

namespace mstest {

enum class Mode { kCount, kRuns, kPages };

// One walker (one worker of a parallel walk): its own struct ms_walker, fed ranges call by call
// as user space feeds the BPF program (at most one section per call) or the module.
struct Walker {
	WalkCtx ctx;
	ms_walker w = {};
	std::vector<ms_run> runbuf;		// runs mode: one call's (the BPF program's runs[])
	std::vector<ms_run> runs;		// runs mode: every call's runs, merged
	std::map<u64, ms_page_rec> recs;	// allpages: every valid record, by pfn
	std::vector<u64> hole_pfns;		// allpages: pfns whose record was invalid

	Walker(const Memmap &mm, const std::map<u64, u32> &facts, Mode mode)
	{
		ctx.mm = &mm;
		ctx.facts = &facts;
		w.dump = mode == Mode::kRuns;
		w.dump_pages = mode == Mode::kPages;
		if (w.dump)
			runbuf.resize(MS_MAX_RUNS);
		w.runs = runbuf.data();
	}

	// A range that does not continue the previous call's (what user space does at a gap).
	void new_range(u64 start) { ms_walk_new_range(&w, start); }

	// One call over [start, end): the BPF program's run, or one ioctl of the module.
	void call(u64 start, u64 end)
	{
		assert(end > start && end - start <= MS_SECTION_PAGES);
		w.walk_start = start;
		w.walk_end = end;
		w.nruns = 0;
		if (w.dump_pages)
			ctx.recs.assign(end - start, ms_page_rec{});
		ms_walk_range(&ctx, &w);
		for (u32 i = 0; i < w.nruns; i++) {
			const ms_run &r = runbuf[i];

			if (!runs.empty() && runs.back().sub == r.sub &&
			    runs.back().pfn + runs.back().npages == r.pfn)
				runs.back().npages += r.npages;
			else
				runs.push_back(r);
		}
		for (u64 pfn = start; w.dump_pages && pfn < end; pfn++) {
			if (ctx.recs[pfn - start].valid)
				recs[pfn] = ctx.recs[pfn - start];
			else
				hole_pfns.push_back(pfn);
		}
	}

	// Walk [start, end) as a new range, one call per section (or per `step` pages).
	void walk(u64 start, u64 end, u64 step = MS_SECTION_PAGES)
	{
		new_range(start);
		while (start < end) {
			u64 stop = (start + step) / step * step;

			if (stop > end)
				stop = end;
			call(start, stop);
			start = stop;
		}
	}
};

// The sub-class of each pfn of [start, end) from runs (kHole where none covers it).
inline std::vector<u32> subs_of_runs(const std::vector<ms_run> &runs, u64 start, u64 end)
{
	std::vector<u32> out(end - start, kHole);

	for (const ms_run &r : runs)
		for (u64 pfn = r.pfn; pfn < r.pfn + r.npages; pfn++) {
			EXPECT_TRUE(pfn >= start && pfn < end) << "a run outside the walk at " << pfn;
			if (pfn >= start && pfn < end) {
				EXPECT_EQ(out[pfn - start], kHole) << "pfn " << pfn << " in two runs";
				out[pfn - start] = r.sub;
			}
		}
	return out;
}

// The walk of a Memmap, as the BPF walker does it: the sub-class counted for every pfn of
// [start, end). facts maps a file mapping to its MS_MAP_* flags. st, when given, replaces the
// state a new range starts with (a test of a race). Every walk is done in all three modes,
// which must agree: the runs give the result; counting must give the same totals, and
// allpages the same sub-class for every page.
inline std::vector<u32> walk(const Memmap &mm, u64 start, u64 end,
			     const std::map<u64, u32> &facts = {},
			     std::optional<ms_walk_state> st = std::nullopt)
{
	Walker byrun(mm, facts, Mode::kRuns), bycount(mm, facts, Mode::kCount),
		bypage(mm, facts, Mode::kPages);
	std::vector<u32> out;
	u64 counted[MS_COUNTS] = {};

	for (Walker *wk : { &byrun, &bycount, &bypage }) {
		wk->new_range(start);
		if (st)
			wk->w.wstate = *st;
		for (u64 s = start; s < end;) {
			u64 stop = (s + MS_SECTION_PAGES) / MS_SECTION_PAGES * MS_SECTION_PAGES;

			wk->call(s, stop < end ? stop : end);
			s = stop < end ? stop : end;
		}
	}
	out = subs_of_runs(byrun.runs, start, end);
	for (u32 sub : out)
		if (sub != kHole)
			counted[sub]++;
	for (u32 i = 0; i < MS_COUNTS; i++) {
		EXPECT_EQ(bycount.w.counts[i], counted[i]) << "counting mode, " << sub_name(i);
		EXPECT_EQ(bypage.w.counts[i], counted[i]) << "allpages mode, " << sub_name(i);
	}
	for (u64 pfn = start; pfn < end; pfn++) {
		auto it = bypage.recs.find(pfn);
		u32 sub = it == bypage.recs.end() ? kHole : it->second.sub;

		EXPECT_EQ(sub_name(sub), sub_name(out[pfn - start])) << "allpages, pfn " << pfn;
	}
	return out;
}

// walk() as runs: "0x1000+8 FREE_BUDDY, 0x1008+1 KERNEL_OTHER" (holes print as HOLE).
inline std::string walk_runs(const Memmap &mm, u64 start, u64 end,
			     const std::map<u64, u32> &facts = {},
			     std::optional<ms_walk_state> st = std::nullopt)
{
	std::vector<u32> subs = walk(mm, start, end, facts, st);
	std::string s;
	char buf[64];

	for (size_t i = 0; i < subs.size();) {
		size_t j = i;

		while (j < subs.size() && subs[j] == subs[i])
			j++;
		snprintf(buf, sizeof(buf), "%s0x%llx+%zu ", s.empty() ? "" : ", ",
			 (unsigned long long)(start + i), j - i);
		s += buf;
		s += subs[i] == kHole ? "HOLE" : sub_name(subs[i]);
		i = j;
	}
	return s;
}

}	// namespace mstest

#endif	/* MEMSTAT_TEST_LAYOUTS_H */
