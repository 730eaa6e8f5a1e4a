// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Unaccepted memory on kernels without its page type (< 6.12): the walk sees those blocks as
// per-cpu free pages, and meminfo's Unaccepted is moved to free_unaccepted (meminfo.c).
#include <gtest/gtest.h>

extern "C" {
#include "memstat_int.h"
#include "meminfo.h"
}

namespace {

struct Case {
	ms_result r = {};
	ms_features f = {};
	ms_meminfo mi = {};

	Case(__u64 pcp, long long unaccepted_kb)
	{
		r.sub[MS_FREE_PCP] = pcp;
		r.sub[MS_FREE_BUDDY] = 1000;
		mi.unaccepted = unaccepted_kb;
	}
};

TEST(UnacceptedBefore612, MeminfoUnacceptedMovesFromPerCpuToUnaccepted)
{
	Case c(5000, 4096 * 4);	// 4 blocks of 4 MiB
	ms_unaccepted_from_meminfo(&c.r, &c.f, &c.mi, 4);
	EXPECT_EQ(c.r.sub[MS_FREE_UNACCEPTED], 4096u);
	EXPECT_EQ(c.r.sub[MS_FREE_PCP], 5000u - 4096u);
	EXPECT_EQ(c.r.sub[MS_FREE_BUDDY], 1000u);
	EXPECT_TRUE(c.r.unaccepted_from_meminfo);
}

TEST(UnacceptedBefore612, NeverMoreThanThePerCpuPagesHold)
{
	// accepted between the walk and the reading: the counter may exceed what the walk saw
	Case c(100, 4096 * 4);
	ms_unaccepted_from_meminfo(&c.r, &c.f, &c.mi, 4);
	EXPECT_EQ(c.r.sub[MS_FREE_UNACCEPTED], 100u);
	EXPECT_EQ(c.r.sub[MS_FREE_PCP], 0u);
}

TEST(UnacceptedBefore612, KernelWithThePageTypeCountsPerPage)
{
	Case c(5000, 4096 * 4);
	c.f.ptype[MS_T_UNACCEPTED] = 0xf7;	// PGTY_unaccepted (6.12+)
	c.r.sub[MS_FREE_UNACCEPTED] = 3000;
	ms_unaccepted_from_meminfo(&c.r, &c.f, &c.mi, 4);
	EXPECT_EQ(c.r.sub[MS_FREE_UNACCEPTED], 3000u);
	EXPECT_EQ(c.r.sub[MS_FREE_PCP], 5000u);
	EXPECT_FALSE(c.r.unaccepted_from_meminfo);
}

TEST(UnacceptedBefore612, NoCounterOrNoUnacceptedMemoryMovesNothing)
{
	for (long long kb : { -1LL, 0LL }) {
		Case c(5000, kb);
		ms_unaccepted_from_meminfo(&c.r, &c.f, &c.mi, 4);
		EXPECT_EQ(c.r.sub[MS_FREE_PCP], 5000u);
		EXPECT_EQ(c.r.sub[MS_FREE_UNACCEPTED], 0u);
		EXPECT_FALSE(c.r.unaccepted_from_meminfo);
	}
}

// The MemFree row then reconciles: buddy + unaccepted against MemFree.
TEST(UnacceptedBefore612, MemFreeRowReconcilesAfterTheMove)
{
	Case c(5000, 4096 * 4);
	c.r.total = 100000;
	c.r.sub[MS_ANON] = 100000 - 6000;
	c.mi.mem_total = 100000 * 4;
	c.mi.mem_free = (1000 + 4096) * 4;
	ms_recon before, after;
	ms_reconcile(&c.r, &c.mi, 4, &before);
	ms_unaccepted_from_meminfo(&c.r, &c.f, &c.mi, 4);
	ms_reconcile(&c.r, &c.mi, 4, &after);
	EXPECT_EQ(before.row[1].diff, -4096);
	EXPECT_EQ(after.row[1].diff, 0);
}

}  // namespace
