// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Reconciliation with /proc/meminfo read just before and just after the walk:
// a row agrees when the walk is within the tolerance of some value between the two readings.
#include <gtest/gtest.h>

extern "C" {
#include "memstat_int.h"
#include "backend.h"
#include "meminfo.h"
}

namespace {

const long long kTotal = 6000000;	// pages: 0.5% of it is 30000 pages
const long kPageKb = 4;

// A walk and a meminfo reading that agree exactly in every row.
struct Quiet {
	ms_result r = {};
	ms_meminfo mi = {};

	Quiet()
	{
		r.sub[MS_FREE_BUDDY] = 5000000;
		r.sub[MS_KERNEL_RESERVED] = 1000;
		r.sub[MS_ANON] = 100000;
		r.sub[MS_FILE] = 400000;
		r.sub[MS_KERNEL_SLAB] = 20000;
		r.sub[MS_KERNEL_PAGETABLE] = 1000;
		r.sub[MS_KERNEL_OTHER] = kTotal - 5000000 - 100000 - 400000 - 20000 - 1000;
		r.total = kTotal + 1000;
		mi.mem_total = kTotal * kPageKb;
		mi.mem_free = 5000000 * kPageKb;
		mi.anon_pages = 100000 * kPageKb;
		mi.cached = 400000 * kPageKb;
		mi.buffers = mi.swap_cached = mi.shmem = mi.hugetlb = 0;
		mi.slab = 20000 * kPageKb;
		mi.page_tables = 1000 * kPageKb;
	}
};

const ms_recon_row &find(const ms_recon &rc, const char *field)
{
	for (int i = 0; i < rc.n; i++)
		if (!strcmp(rc.row[i].field, field))
			return rc.row[i];
	ADD_FAILURE() << "no row " << field;
	return rc.row[0];
}

TEST(ReconcileBetween, QuietMachineEveryRowZero)
{
	Quiet q;
	ms_recon rc;

	ms_reconcile_between(&q.r, &q.mi, &q.mi, kPageKb, &rc);
	EXPECT_TRUE(rc.all_ok);
	for (int i = 0; i < rc.n; i++)
		EXPECT_EQ(rc.row[i].diff, 0) << rc.row[i].name;
}

// The 6.1 VM's flake: pages freed just before the walk moved between the per-cpu and the buddy
// lists, MemFree 1% apart in the two readings. The walk saw a state between them: no mismatch,
// though it is 0.5% or more away from each reading.
TEST(ReconcileBetween, ARowThatMovedBetweenTheReadingsIsJudgedAgainstTheInterval)
{
	Quiet q;
	ms_meminfo before = q.mi, after = q.mi;
	ms_recon rc;

	before.mem_free = (5000000 - 31000) * kPageKb;	// walk - 0.52% of MemTotal
	after.mem_free = (5000000 + 31000) * kPageKb;	// walk + 0.52%
	ms_reconcile_between(&q.r, &before, &after, kPageKb, &rc);
	const ms_recon_row &free = find(rc, "MemFree");
	EXPECT_TRUE(free.ok);
	EXPECT_TRUE(rc.all_ok);
	EXPECT_EQ(free.before, 5000000 - 31000);
	EXPECT_EQ(free.after, 5000000 + 31000);
	EXPECT_EQ(free.meminfo, 5000000);	// the value between them nearest to the walk
	EXPECT_EQ(free.diff, 0);

	// either reading alone is a mismatch: what a single reading made of it
	ms_reconcile(&q.r, &before, kPageKb, &rc);
	EXPECT_FALSE(find(rc, "MemFree").ok);
	ms_reconcile(&q.r, &after, kPageKb, &rc);
	EXPECT_FALSE(find(rc, "MemFree").ok);

	// the order of the readings does not matter (memory freed or taken during the walk)
	ms_reconcile_between(&q.r, &after, &before, kPageKb, &rc);
	EXPECT_TRUE(find(rc, "MemFree").ok);
	EXPECT_EQ(find(rc, "MemFree").diff, 0);
}

// Outside the interval the walk is measured from the nearer reading, with the same tolerance.
TEST(ReconcileBetween, OutsideTheIntervalTheToleranceIsUnchanged)
{
	Quiet q;
	ms_meminfo before = q.mi, after = q.mi;
	ms_recon rc;

	// 200000 anon pages, so that 0.5% of MemTotal (30000) is under 25% of the counter
	q.r.sub[MS_ANON] += 100000;
	q.r.sub[MS_KERNEL_OTHER] -= 100000;
	before.anon_pages = (200000 - 50000) * kPageKb;
	after.anon_pages = (200000 - 30000) * kPageKb;	// walk is 30000 pages (0.5%) above it
	ms_reconcile_between(&q.r, &before, &after, kPageKb, &rc);
	EXPECT_EQ(find(rc, "AnonPages").meminfo, 170000);
	EXPECT_EQ(find(rc, "AnonPages").diff, 30000);
	EXPECT_EQ(find(rc, "AnonPages").tol_pages, 30000);
	EXPECT_TRUE(find(rc, "AnonPages").ok);

	after.anon_pages = (200000 - 30001) * kPageKb;	// one page more than 0.5%
	ms_reconcile_between(&q.r, &before, &after, kPageKb, &rc);
	EXPECT_EQ(find(rc, "AnonPages").diff, 30001);
	EXPECT_FALSE(find(rc, "AnonPages").ok);
	EXPECT_FALSE(rc.all_ok);

	// below the interval: the difference is negative, from the lower reading
	before.anon_pages = (200000 + 40000) * kPageKb;
	after.anon_pages = (200000 + 20000) * kPageKb;
	ms_reconcile_between(&q.r, &before, &after, kPageKb, &rc);
	EXPECT_EQ(find(rc, "AnonPages").meminfo, 220000);
	EXPECT_EQ(find(rc, "AnonPages").diff, -20000);
	EXPECT_TRUE(find(rc, "AnonPages").ok);
}

// A small counter is held to its own size, not only to MemTotal's 0.5%: a classifier that found no
// page tables (or shmem, or hugetlb) at all must fail its row. PageTables was 536 pages on a 24 GiB
// machine, whose 0.5% is 30855: every walk from 0 to 31391 pages passed.
TEST(ReconcileBetween, ASmallCounterIsHeldToItsOwnSize)
{
	Quiet q;
	ms_recon rc;

	q.mi.page_tables = 536 * kPageKb;
	q.r.sub[MS_KERNEL_OTHER] += q.r.sub[MS_KERNEL_PAGETABLE];
	q.r.sub[MS_KERNEL_PAGETABLE] = 0;	// the classifier found none
	ms_reconcile_between(&q.r, &q.mi, &q.mi, kPageKb, &rc);
	EXPECT_EQ(find(rc, "PageTables").diff, -536);
	EXPECT_EQ(find(rc, "PageTables").tol_pages, MS_RECON_FLOOR_PAGES);
	EXPECT_FALSE(find(rc, "PageTables").ok);
	EXPECT_FALSE(rc.all_ok);

	// pages that moved while the walk passed: within the floor of 256 pages, or 25%
	q.r.sub[MS_KERNEL_PAGETABLE] = 536 - MS_RECON_FLOOR_PAGES;
	ms_reconcile_between(&q.r, &q.mi, &q.mi, kPageKb, &rc);
	EXPECT_TRUE(find(rc, "PageTables").ok);
	q.r.sub[MS_KERNEL_PAGETABLE] = 536 - MS_RECON_FLOOR_PAGES - 1;
	ms_reconcile_between(&q.r, &q.mi, &q.mi, kPageKb, &rc);
	EXPECT_FALSE(find(rc, "PageTables").ok);

	// a pool of 2048 hugetlb pages that the walk missed entirely, and one it found
	q.mi.page_tables = 536 * kPageKb;
	q.r.sub[MS_KERNEL_PAGETABLE] = 536;
	q.mi.hugetlb = 2048 * kPageKb;
	ms_reconcile_between(&q.r, &q.mi, &q.mi, kPageKb, &rc);
	EXPECT_FALSE(find(rc, "Hugetlb").ok);
	q.r.sub[MS_HUGETLB_FREE] = 2048;
	ms_reconcile_between(&q.r, &q.mi, &q.mi, kPageKb, &rc);
	EXPECT_TRUE(find(rc, "Hugetlb").ok);
	EXPECT_EQ(find(rc, "Hugetlb").tol_pages, 512);
}

// A counter absent from either reading makes the row n/a, not a mismatch.
TEST(ReconcileBetween, ACounterMissingFromAReadingIsNotApplicable)
{
	Quiet q;
	ms_meminfo before = q.mi, after = q.mi;
	ms_recon rc;

	after.slab = -1;
	ms_reconcile_between(&q.r, &before, &after, kPageKb, &rc);
	const ms_recon_row &slab = find(rc, "Slab");
	EXPECT_EQ(slab.meminfo, -1);
	EXPECT_STREQ(slab.missing, "Slab");
	EXPECT_TRUE(slab.ok);
	EXPECT_TRUE(rc.all_ok);

	before.swap_cached = -1;
	ms_reconcile_between(&q.r, &before, &after, kPageKb, &rc);
	EXPECT_STREQ(find(rc, "Cached+Buffers+SwapCached").missing, "SwapCached");
	EXPECT_TRUE(rc.all_ok);
}

} // namespace

namespace {

bool has_row(const ms_recon &rc, const char *field)
{
	for (int i = 0; i < rc.n; i++)
		if (!strcmp(rc.row[i].field, field))
			return true;
	return false;
}

// Where the walk read the slab caches' flags (slab_split), SReclaimable is the reclaimable slab
// and SUnreclaim the rest with large kmalloc, each within 0.1% of MemTotal; the Slab row is
// their sum. Without the split the two rows are not made (the report says why).
TEST(ReconcileBetween, SlabSplitRowsOnlyWhereTheWalkReadTheCaches)
{
	Quiet q;
	ms_recon rc;

	q.r.sub[MS_KERNEL_SLAB] = 5000;
	q.r.sub[MS_KERNEL_SLAB_RECLAIM] = 14000;
	q.r.sub[MS_KERNEL_LARGE_KMALLOC] = 1000;
	q.mi.s_reclaimable = 14000 * kPageKb;
	q.mi.s_unreclaim = 6000 * kPageKb;
	ms_reconcile_between(&q.r, &q.mi, &q.mi, kPageKb, &rc);
	EXPECT_FALSE(has_row(rc, "SReclaimable"));
	EXPECT_FALSE(has_row(rc, "SUnreclaim"));
	EXPECT_EQ(find(rc, "Slab").diff, 0);

	q.r.slab_split = true;
	ms_reconcile_between(&q.r, &q.mi, &q.mi, kPageKb, &rc);
	EXPECT_TRUE(rc.all_ok);
	EXPECT_EQ(find(rc, "SReclaimable").walk, 14000u);
	EXPECT_EQ(find(rc, "SUnreclaim").walk, 6000u);
	EXPECT_EQ(find(rc, "SReclaimable").tol_pct, MS_RECON_ATTR_TOLERANCE_PCT);

	// 7000 pages (0.12% of MemTotal) of reclaimable slab counted as unreclaimable: both rows
	// mismatch, while the Slab row, their sum, still agrees
	q.r.sub[MS_KERNEL_SLAB] += 7000;
	q.r.sub[MS_KERNEL_SLAB_RECLAIM] -= 7000;
	ms_reconcile_between(&q.r, &q.mi, &q.mi, kPageKb, &rc);
	EXPECT_FALSE(rc.all_ok);
	EXPECT_FALSE(find(rc, "SReclaimable").ok);
	EXPECT_FALSE(find(rc, "SUnreclaim").ok);
	EXPECT_TRUE(find(rc, "Slab").ok);
}

}	// namespace

// The kpageflags backend sorts a page by its flag bits (KPF_SLAB 7, KPF_RESERVED 32): slab and
// reserved together is an object page of KFENCE's boot-time pool, which is outside MemTotal and
// outside meminfo's Slab, as the struct page classifier says too.
TEST(Kpageflags, KfencePoolObjectPageIsReservedNotSlab)
{
	const __u64 slab = 1ULL << 7, reserved = 1ULL << 32;

	EXPECT_EQ(ms_kpf_classify(slab | reserved, MS_NR_SUBS), MS_KERNEL_RESERVED);
	EXPECT_EQ(ms_kpf_classify(reserved, MS_NR_SUBS), MS_KERNEL_RESERVED);
	EXPECT_EQ(ms_kpf_classify(slab, MS_NR_SUBS), MS_KERNEL_SLAB);
}
