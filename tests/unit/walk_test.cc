// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Unit tests of the range walk (include/walk.h), the loop the BPF walker, the kernel module and
// these tests share: a folio or free block carried from batch to batch and from call to call
// of one walker, and split between two walkers that take adjacent ranges (the parallel walk's
// workers), in counting, runs and allpages mode. docs/page-classes.md section 1.2.
#include <gtest/gtest.h>

#include "layouts.h"

using namespace mstest;

namespace {

constexpr u64 kAnonVma = 0xffff888132489068ULL;		// anon: mapping = anon_vma | 1
constexpr u64 kMemcg = 0xffff888100a3c000ULL;		// a mem_cgroup
constexpr u64 kFileMapping = 0xffff888104a2c6f8ULL;	// an ext4 address_space

void anon_thp(Memmap &mm, u64 head, unsigned order)
{
	Page &h = mm.folio(head, order);

	h.flag(mm.fam.f.pg_lru).flag(mm.fam.f.pg_swapbacked).mapping(kAnonVma | 1);
	h.w[MS_W_MEMCG] = kMemcg;
	if (mm.fam.f.has_dtor)
		set_dtor(mm.page1(head), 3);	// TRANSHUGE_PAGE_DTOR
}

void hugetlb_gigantic(Memmap &mm, u64 head)
{
	Page &h = mm.folio(head, MS_MAX_FOLIO_ORDER);

	h.mapping(kFileMapping).refcount(1);
	switch (mm.fam.hugetlb) {
	case HugetlbMark::kDtor:
		set_dtor(mm.page1(head), 2);		// HUGETLB_PAGE_DTOR
		break;
	case HugetlbMark::kPage1Flag:
		mm.page1(head).flag(mm.fam.pg_active);	// PG_hugetlb = PG_active
		break;
	case HugetlbMark::kType:
		mm[head].page_type(type_word(mm.fam, MS_T_HUGETLB));
		break;
	}
}

std::string runs_str(const std::vector<ms_run> &runs)
{
	std::string s;
	char buf[64];

	for (const ms_run &r : runs) {
		snprintf(buf, sizeof(buf), "%s0x%llx+%u ", s.empty() ? "" : ", ",
			 (unsigned long long)r.pfn, r.npages);
		s += buf + sub_name(r.sub);
	}
	return s;
}

// What allpages says of one page, comparable and printable.
std::string rec_str(const ms_page_rec &r)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s head 0x%llx order %u role %u ino %llu cgroup %llu",
		 sub_name(r.sub).c_str(), (unsigned long long)r.head_pfn, r.order, r.role,
		 (unsigned long long)r.ino, (unsigned long long)r.cgroup);
	return buf;
}

// Around a THP and a free block, pages of their own: a kernel page before, one between, one
// after. [0x3ffc0, 0x40900):
//   0x3ffc0+64 KERNEL_OTHER, 0x40000+512 ANON (order 9), 0x40200+512 KERNEL_OTHER,
//   0x40400+1024 FREE_BUDDY (order 10), 0x40800+256 KERNEL_OTHER
constexpr u64 kStart = 0x3ffc0, kEnd = 0x40900;
constexpr u64 kThp = 0x40000, kBlock = 0x40400;
const char *const kExpected = "0x3ffc0+64 KERNEL_OTHER, 0x40000+512 ANON, "
			      "0x40200+512 KERNEL_OTHER, 0x40400+1024 FREE_BUDDY, "
			      "0x40800+256 KERNEL_OTHER";

Memmap thp_and_block(const Family &fam)
{
	Memmap mm(fam);

	mm.fill(kStart, kEnd, Page::fresh());
	anon_thp(mm, kThp, 9);
	mm[kBlock] = buddy(fam, 10);
	mm.fill(kBlock + 1, kBlock + 1024, free_interior());
	return mm;
}

// Every page of [kStart, kEnd) as allpages must record it.
void expect_records(const Family &fam, const std::map<u64, ms_page_rec> &recs)
{
	ASSERT_EQ(recs.size(), kEnd - kStart);
	for (u64 pfn = kStart; pfn < kEnd; pfn++) {
		const ms_page_rec &r = recs.at(pfn);
		ms_page_rec want = {};

		want.sub = MS_KERNEL_OTHER;
		want.head_pfn = pfn;
		want.role = MS_ROLE_NONE;
		if (pfn >= kThp && pfn < kThp + 512) {
			want.sub = MS_ANON;
			want.head_pfn = kThp;
			want.order = 9;
			want.role = pfn == kThp ? MS_ROLE_HEAD : MS_ROLE_TAIL;
			want.cgroup = fake_cgroup(kMemcg);
		} else if (pfn >= kBlock && pfn < kBlock + 1024) {
			want.sub = MS_FREE_BUDDY;
			want.head_pfn = kBlock;
			want.order = 10;
			want.role = pfn == kBlock ? MS_ROLE_FREE_HEAD : MS_ROLE_FREE_TAIL;
		}
		ASSERT_EQ(rec_str(r), rec_str(want)) << fam.name << " pfn 0x" << std::hex << pfn;
	}
}

void expect_counts(const u64 *counts, u64 anon, u64 buddy, u64 other)
{
	for (u32 i = 0; i < MS_COUNTS; i++) {
		u64 want = i == MS_ANON ? anon : i == MS_FREE_BUDDY ? buddy :
			   i == MS_KERNEL_OTHER ? other : 0;

		EXPECT_EQ(counts[i], want) << sub_name(i);
	}
}

// Call lengths that put call boundaries inside the THP and inside the block, on batch
// boundaries and not, and one section per call as user space does.
const u64 kSteps[] = { 1, 7, 64, 100, 0x180, 0x200, 0x8000 };

class Walk : public ::testing::TestWithParam<Family> {};

// One walker, many consecutive calls: the THP and the block are each classified at their head
// and carried into the following calls, batch after batch and call after call.
TEST_P(Walk, FolioAndFreeBlockCarryAcrossBatchesAndCalls)
{
	const Family fam = GetParam();
	Memmap mm = thp_and_block(fam);
	std::map<u64, u32> facts;

	for (u64 step : kSteps) {
		SCOPED_TRACE("calls of " + std::to_string(step) + " pages");
		Walker count(mm, facts, Mode::kCount), runs(mm, facts, Mode::kRuns),
			pages(mm, facts, Mode::kPages);

		count.walk(kStart, kEnd, step);
		expect_counts(count.w.counts, 512, 1024, 64 + 512 + 256);
		EXPECT_EQ(count.w.holes, 0u);
		runs.walk(kStart, kEnd, step);
		EXPECT_EQ(runs_str(runs.runs), kExpected);
		expect_counts(runs.w.counts, 512, 1024, 64 + 512 + 256);
		pages.walk(kStart, kEnd, step);
		expect_records(fam, pages.recs);
		expect_counts(pages.w.counts, 512, 1024, 64 + 512 + 256);
		for (u64 pfn = kStart; pfn < kEnd; pfn += 0x3f)
			ASSERT_EQ(0, memcmp(pages.recs.at(pfn).w, mm.find(pfn)->data(), 64)) << pfn;
	}
}

// The walk reads a folio's or a block's tails only where a call begins inside it: with one
// call per section, the THP and the block cost one batch each, not one per 64 pages.
TEST_P(Walk, FolioAndFreeBlockAreJumpedNotRead)
{
	Memmap mm = thp_and_block(GetParam());
	std::map<u64, u32> facts;
	Walker count(mm, facts, Mode::kCount);

	count.walk(kStart, kEnd);
	// 0x3ffc0, 0x40000 (THP), 0x40200-0x403c0 (8), 0x40400 (block), 0x40800-0x408c0 (4)
	EXPECT_EQ(count.w.reads, 1u + 1 + 8 + 1 + 4);
}

// A 1 GiB hugetlb folio spans 8 memory sections: one walker, one call per section, as user
// space walks, counts its 2^18 pages once, in each mode.
TEST_P(Walk, GiganticFolioCarriesAcrossSections)
{
	const Family fam = GetParam();
	Memmap mm(fam);
	std::map<u64, u32> facts;
	const u64 head = 0x40000, n = 1ULL << MS_MAX_FOLIO_ORDER, start = head - 0x40,
		  end = head + n + 0x40;

	mm.fill(start, head, Page::fresh());
	hugetlb_gigantic(mm, head);
	mm.fill(head + n, end, Page::fresh());
	for (Mode mode : { Mode::kCount, Mode::kRuns, Mode::kPages }) {
		Walker wk(mm, facts, mode);

		wk.walk(start, end);
		EXPECT_EQ(wk.w.counts[MS_HUGETLB], n);
		EXPECT_EQ(wk.w.counts[MS_KERNEL_OTHER], 0x80u);
		if (mode == Mode::kRuns) {
			EXPECT_EQ(runs_str(wk.runs), "0x3ffc0+64 KERNEL_OTHER, 0x40000+262144 HUGETLB, "
				  "0x80000+64 KERNEL_OTHER");
		}
		if (mode == Mode::kPages) {
			ASSERT_EQ(wk.recs.size(), end - start);
			for (u64 pfn = head; pfn < head + n; pfn += 0x1001) {
				EXPECT_EQ(wk.recs.at(pfn).head_pfn, head);
				EXPECT_EQ(wk.recs.at(pfn).order, MS_MAX_FOLIO_ORDER);
			}
			EXPECT_EQ(wk.recs.at(head + n - 1).role, MS_ROLE_TAIL);
		}
	}
}

// The parallel walk: [kStart, m) walked by one walker, [m, kEnd) by another that starts
// fresh, as separate workers do. Wherever m falls -- at a head, just after it, in the middle
// of a batch, on a batch boundary, on the last page -- the THP and the free block are counted
// exactly once in total, with their own sub-class, and each page is recorded once.
TEST_P(Walk, FolioAndFreeBlockSplitBetweenTwoWalkersCountOnce)
{
	const Family fam = GetParam();
	Memmap mm = thp_and_block(fam);
	std::map<u64, u32> facts;
	const u64 splits[] = { kThp, kThp + 1, kThp + 0x41, kThp + 0x100, kThp + 511, kThp + 512,
			       kBlock, kBlock + 1, kBlock + 2, kBlock + 0x40, kBlock + 0x1ff,
			       kBlock + 0x200, kBlock + 0x2c5, kBlock + 1023, kBlock + 1024 };

	for (u64 m : splits) {
		SCOPED_TRACE("workers split at 0x" + [&] {
			char b[32];
			snprintf(b, sizeof(b), "%llx", (unsigned long long)m);
			return std::string(b);
		}());
		for (Mode mode : { Mode::kCount, Mode::kRuns, Mode::kPages }) {
			Walker a(mm, facts, mode), b(mm, facts, mode);
			u64 sum[MS_COUNTS];

			a.walk(kStart, m);
			b.walk(m, kEnd);
			for (u32 i = 0; i < MS_COUNTS; i++)
				sum[i] = a.w.counts[i] + b.w.counts[i];
			expect_counts(sum, 512, 1024, 64 + 512 + 256);
			if (mode == Mode::kRuns) {
				std::vector<ms_run> all = a.runs;

				for (const ms_run &r : b.runs) {	// merged as user space merges
					if (all.back().sub == r.sub &&
					    all.back().pfn + all.back().npages == r.pfn)
						all.back().npages += r.npages;
					else
						all.push_back(r);
				}
				EXPECT_EQ(runs_str(all), kExpected);
			}
			if (mode == Mode::kPages) {
				std::map<u64, ms_page_rec> all = a.recs;

				for (const auto &[pfn, r] : b.recs)
					EXPECT_TRUE(all.emplace(pfn, r).second) << "pfn " << pfn
										<< " recorded twice";
				expect_records(fam, all);
			}
		}
	}
}

// A batch of vmemmap that cannot be read is a hole: not counted, its records invalid, and
// the walk goes on after it.
TEST_P(Walk, UnreadableBatchIsAHole)
{
	Memmap mm(GetParam());
	std::map<u64, u32> facts;

	mm.fill(0x1000, 0x1040, Page::fresh());
	mm.fill(0x1080, 0x10c0, Page::fresh());
	for (Mode mode : { Mode::kCount, Mode::kRuns, Mode::kPages }) {
		Walker wk(mm, facts, mode);

		wk.walk(0x1010, 0x10b0);
		EXPECT_EQ(wk.w.holes, 0x40u);
		EXPECT_EQ(wk.w.counts[MS_KERNEL_OTHER], 0x60u);
		if (mode == Mode::kRuns) {
			EXPECT_EQ(runs_str(wk.runs), "0x1010+48 KERNEL_OTHER, 0x1080+48 KERNEL_OTHER");
		}
		if (mode == Mode::kPages) {
			EXPECT_EQ(wk.recs.size(), 0x60u);
			EXPECT_EQ(wk.hole_pfns.size(), 0x40u);
		}
	}
}

// The module walks whatever pfns an ioctl names (kmod_abuse asks for the last section of the
// pfn space): there the last batch's base + 64 wraps to 0, and a walk that computed its end
// that way would start over and never finish. Step by step, with a bound.
TEST(WalkEnd, LastPfnsOfTheSpaceAreHolesAndTheWalkEnds)
{
	Memmap mm(family_6_18());
	std::map<u64, u32> facts;
	const u64 starts[] = { ~0ULL - MS_SECTION_PAGES, ~0ULL - 100, ~0ULL - 1 };

	for (u64 start : starts) {
		for (Mode mode : { Mode::kCount, Mode::kRuns, Mode::kPages }) {
			Walker wk(mm, facts, mode);
			int steps = 0;

			wk.new_range(start);
			wk.w.walk_start = start;
			wk.w.walk_end = ~0ULL;
			wk.w.nruns = 0;
			wk.ctx.recs.assign(~0ULL - start, ms_page_rec{});
			ms_walk_begin(&wk.w);
			while (steps < 1000 && !ms_walk_step(&wk.ctx, &wk.w, 1))
				steps++;
			EXPECT_LT(steps, 1000) << "the walk from " << start << " did not end";
			EXPECT_EQ(wk.w.holes, ~0ULL - start);
			EXPECT_EQ(wk.w.cursor, ~0ULL);
		}
	}
}

INSTANTIATE_TEST_SUITE_P(Families, Walk, ::testing::ValuesIn(all_families()),
			 [](const ::testing::TestParamInfo<Family> &i) { return i.param.name; });

}	// namespace
