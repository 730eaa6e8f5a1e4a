// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The parallel walk's chunks (ms_split_chunks()) and its default number of workers.
#include <stdlib.h>

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

extern "C" {
#include "memstat_int.h"
#include "backend.h"
}

namespace {

struct Ranges {
	std::vector<ms_range> v;
	ms_ranges r = {};
	explicit Ranges(std::vector<ms_range> in) : v(std::move(in))
	{
		r.r = v.data();
		r.n = v.size();
		for (auto &x : v)
			r.pages += x.end - x.start;
	}
};

struct Chunks {
	std::vector<ms_ranges> c;
	size_t n;
	Chunks(const ms_ranges &r, unsigned int jobs) : c(jobs) { n = ms_split_chunks(&r, jobs, c.data()); }
	~Chunks()
	{
		for (auto &x : c)
			ms_ranges_free(&x);
	}
};

// This machine's layout: 24 GiB in three ranges, the first two below 4 GiB.
const std::vector<ms_range> kLayout = { { 0x1, 0x9f }, { 0x100, 0xbffe0 }, { 0x100000, 0x640000 } };

// The chunks are the ranges cut in pfn order: glued back they are the ranges, every page once.
void expect_cover(const ms_ranges &r, const Chunks &ch)
{
	std::vector<ms_range> glued;
	uint64_t pages = 0;
	for (size_t i = 0; i < ch.n; i++) {
		EXPECT_GT(ch.c[i].n, 0u) << "chunk " << i << " is empty";
		uint64_t p = 0;
		for (size_t k = 0; k < ch.c[i].n; k++) {
			const ms_range &x = ch.c[i].r[k];
			EXPECT_LT(x.start, x.end);
			p += x.end - x.start;
			if (!glued.empty() && glued.back().end == x.start)
				glued.back().end = x.end;
			else
				glued.push_back(x);
		}
		EXPECT_EQ(ch.c[i].pages, p);
		pages += p;
	}
	EXPECT_EQ(pages, r.pages);
	ASSERT_EQ(glued.size(), r.n);
	for (size_t i = 0; i < r.n; i++) {
		EXPECT_EQ(glued[i].start, r.r[i].start);
		EXPECT_EQ(glued[i].end, r.r[i].end);
	}
}

TEST(Jobs, ChunksAreWholeSectionsInPfnOrderBalancedByPages)
{
	Ranges m(kLayout);
	for (unsigned int jobs : { 1u, 2u, 3u, 5u, 7u, 16u }) {
		SCOPED_TRACE("jobs " + std::to_string(jobs));
		Chunks ch(m.r, jobs);
		ASSERT_EQ(ch.n, jobs);
		expect_cover(m.r, ch);
		for (size_t i = 1; i < ch.n; i++) {
			EXPECT_EQ(ch.c[i].r[0].start % MS_SECTION_PAGES, 0u) << "chunk " << i;
			EXPECT_GT(ch.c[i].r[0].start, ch.c[i - 1].r[ch.c[i - 1].n - 1].start);
		}
		for (size_t i = 0; i < ch.n; i++)	/* within a section of an even share */
			EXPECT_LE(std::max(ch.c[i].pages, m.r.pages / jobs) -
					  std::min(ch.c[i].pages, m.r.pages / jobs),
				  (uint64_t)MS_SECTION_PAGES) << "chunk " << i;
	}
}

TEST(Jobs, NoMoreChunksThanSections)
{
	Ranges m({ { 0x100, 3 * MS_SECTION_PAGES } });	/* 3 sections, the first not whole */
	Chunks ch(m.r, 8);
	EXPECT_GE(ch.n, 2u);
	EXPECT_LE(ch.n, 3u);
	expect_cover(m.r, ch);
	Ranges one({ { 0x100, 0x200 } });
	Chunks c1(one.r, 4);
	EXPECT_EQ(c1.n, 1u);
	expect_cover(one.r, c1);
}

// For tests only: MEMSTAT_TEST_SPLIT_PFN puts the one boundary at that pfn, inside a section;
// outside present memory it is ignored.
TEST(Jobs, TestHookSplitsAtThePfn)
{
	Ranges m(kLayout);
	setenv("MEMSTAT_TEST_SPLIT_PFN", "0x100123", 1);
	{
		Chunks ch(m.r, 5);
		ASSERT_EQ(ch.n, 2u);
		expect_cover(m.r, ch);
		EXPECT_EQ(ch.c[1].r[0].start, 0x100123u);
		Chunks one(m.r, 1);
		EXPECT_EQ(one.n, 1u);
	}
	setenv("MEMSTAT_TEST_SPLIT_PFN", "0x7000000", 1);
	{
		Chunks ch(m.r, 3);
		EXPECT_EQ(ch.n, 3u);
		expect_cover(m.r, ch);
	}
	unsetenv("MEMSTAT_TEST_SPLIT_PFN");
}

// The default: the CPUs, at most one worker per 16 sections (2 GiB), one-shot or not.
TEST(Jobs, DefaultFollowsSectionsAndCpus)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	if (!sched_getaffinity(0, sizeof(set), &set))
		cpus = CPU_COUNT(&set);
	Ranges m(kLayout);	/* 192 sections */
	EXPECT_EQ(ms_jobs_auto(&m.r), (unsigned int)std::min<long>(cpus, 12));
	Ranges small({ { 0x100, 0x8000 } });
	EXPECT_EQ(ms_jobs_auto(&small.r), 1u);
	Ranges two({ { 0x100000, 0x100000 + 47ULL * MS_SECTION_PAGES } });	/* 5.9 GiB */
	EXPECT_EQ(ms_jobs_auto(&two.r), (unsigned int)std::min<long>(cpus, 2));
	Ranges big({ { 0x100000, 0x100000 + 1024ULL * MS_SECTION_PAGES } });	/* 128 GiB */
	EXPECT_EQ(ms_jobs_auto(&big.r), (unsigned int)std::min<long>(cpus, 64));
}

} // namespace
