// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The multi-gen LRU's debugfs counts (src/sys/mglru.c) and where a folio's generation sits in
// its flags (src/core/mglru_bits.c): lru_gen_full's text as the kernel prints it, and the one
// 3-bit window that the pages and the kernel's counts agree on, or none.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

extern "C" {
#include "mglru.h"
#include "mglru_bits.h"
#include "memstat_int.h"
#include "wss.h"
#include "damon.h"
#include "output.h"
#include "page_idle.h"
#include "json.h"
}

#include <map>
#include <sstream>
#include <vector>

#include "capture.h"

#include <nlohmann/json.hpp>

namespace {

// lru_gen_full as mm/vmscan.c lru_gen_seq_show() prints it (" %10lu %10u" seq and age, then
// " %10lu%c" per type; in the full file a line per tier and one of statistics after each)
const char kFull[] =
	"memcg     1 /\n"
	" node     0\n"
	"          3      21316          0           0 \n"
	"                     0          0R          0T          0x          0R          0T          0x\n"
	"                     1          0R          0T          0x          0R          0T          0x\n"
	"                                0x          0x          0x          0x\n"
	"          4      14018        120x       5000 \n"
	"                     0          0r          0e          0p          0r          0e          0p\n"
	"                                0t          0y          0f          0a\n"
	"          5       9140       3000        200 \n"
	"          6        112         40       1000 \n"
	"                                7T          5Y          1F          0A\n"
	"memcg     8 /system.slice/a b.service\n"
	" node     0\n"
	"          2       9000          1          2 \n"
	"          3         10          4          8 \n";

// 6.1's, whose tier lines may leave a count unmarked and whose statistics are six
const char kFull61[] =
	"memcg     1 /\n"
	" node     0\n"
	"          0       8836          0           0 \n"
	"                     0          0           0           0           0           0           0 \n"
	"                                0           0           0           0           0           0 \n"
	"          1       8836       2240         310 \n"
	"                     0          0r          0e          0p          0r          0e          0p\n"
	"                                0           0           0           0           0           0 \n"
	"          2       8836          0x       7731 \n"
	"          3        120         12         40 \n"
	"                     0          0R          0T          0           0R          0T          0 \n"
	"                                1L          0O          2Y          0N          0F          0A\n";

ms_mglru parse(const char *text, int *err)
{
	ms_mglru m = {};
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	if (!f) {
		ADD_FAILURE() << "fmemopen: " << strerror(errno);
		*err = -errno;
		return m;
	}
	*err = ms_mglru_parse(f, &m);
	fclose(f);
	return m;
}

// An lruvec by memcg id and node whatever the file's order; removed memcgs that 6.x prints as
// id 0 give the first of them, as a scan in the file's order would; absent ones none.
TEST(Mglru, FindsAnLruvecByMemcgAndNode)
{
	const char text[] =
		"memcg    12 /b\n node     1\n          2          5          1          1 \n"
		"memcg     0 \n node     0\n          2          5          1          1 \n"
		"memcg     3 /a\n node     0\n          2          5          1          1 \n"
		" node     1\n          2          5          1          1 \n"
		"memcg     0 \n node     0\n          7          5          1          1 \n"
		"memcg    12 /b\n node     0\n          2          5          1          1 \n";
	int err;
	ms_mglru m = parse(text, &err);
	ASSERT_EQ(err, 0);
	ASSERT_EQ(m.n, 6u);
	const struct { unsigned long long memcg; int node; size_t at; } want[] = {
		{12, 1, 0}, {0, 0, 1}, {3, 0, 2}, {3, 1, 3}, {12, 0, 5},
	};
	for (const auto &x : want)
		EXPECT_EQ(ms_mglru_find(&m, x.memcg, x.node), &m.v[x.at]) << x.memcg << " " << x.node;
	EXPECT_EQ(ms_mglru_find(&m, 0, 1), nullptr);
	EXPECT_EQ(ms_mglru_find(&m, 4, 0), nullptr);
	EXPECT_EQ(ms_mglru_find(&m, 13, 0), nullptr);
	ms_mglru_free(&m);
	EXPECT_EQ(ms_mglru_find(&m, 3, 0), nullptr);
}

TEST(Mglru, ParsesLruGenFull)
{
	int err;
	ms_mglru m = parse(kFull, &err);
	ASSERT_EQ(err, 0);
	ASSERT_EQ(m.n, 2u);
	EXPECT_EQ(m.v[0].memcg_id, 1u);
	EXPECT_EQ(m.v[0].node, 0);
	ASSERT_EQ(m.v[0].ngens, 4);
	EXPECT_EQ(m.v[0].gen[1].seq, 4u);
	EXPECT_EQ(m.v[0].gen[1].age_ms, 14018u);
	EXPECT_EQ(m.v[0].gen[1].anon, 120u);	// marked x: evicted, but counted as printed
	EXPECT_EQ(m.v[0].gen[1].file, 5000u);
	EXPECT_EQ(m.v[1].memcg_id, 8u);
	ASSERT_EQ(m.v[1].ngens, 2);
	// by gen = seq % 4: seq 3 and 3 -> 3, 4 -> 0, 5 -> 1, 6 and 2 -> 2
	__u64 by[MS_MGLRU_GENS];
	ms_mglru_by_gen(&m, by);
	EXPECT_EQ(by[0], 5120u);
	EXPECT_EQ(by[1], 3200u);
	EXPECT_EQ(by[2], 1040u + 3u);
	EXPECT_EQ(by[3], 0u + 12u);
	ms_mglru_free(&m);
}

TEST(Mglru, Parses61sLruGenFull)
{
	int err;
	ms_mglru m = parse(kFull61, &err);
	ASSERT_EQ(err, 0);
	ASSERT_EQ(m.n, 1u);
	ASSERT_EQ(m.v[0].ngens, 4);
	__u64 by[MS_MGLRU_GENS];
	ms_mglru_by_gen(&m, by);
	EXPECT_EQ(by[0], 0u);
	EXPECT_EQ(by[1], 2550u);
	EXPECT_EQ(by[2], 7731u);
	EXPECT_EQ(by[3], 52u);
	ms_mglru_free(&m);
}

TEST(Mglru, ALongPathIsReadAsItsStart)
{
	std::string text = "memcg 7 /" + std::string(6000, 'p') + "\n node 0\n 4 10 1 2 \n";
	int err;
	ms_mglru m = parse(text.c_str(), &err);
	ASSERT_EQ(err, 0);
	ASSERT_EQ(m.n, 1u);
	EXPECT_EQ(m.v[0].memcg_id, 7u);
	EXPECT_EQ(m.v[0].ngens, 1);
	ms_mglru_free(&m);
}

TEST(Mglru, RefusesWhatIsNotLruGenFull)
{
	int err;
	for (const char *bad : {"", "node 0\n 1 2 3 4\n", "memcg 1 /\n node 0\n 1 2 3 4 5\n",
				"memcg 1 /\n 1 2 3 4\n", "hello world\n",
				"memcg 1 /\n node 0\n 1 2 3 4\n 2 2 3 4\n 3 2 3 4\n 4 2 3 4\n 5 2 3 4\n"}) {
		ms_mglru m = parse(bad, &err);
		EXPECT_EQ(err, -EINVAL) << bad;
		EXPECT_EQ(m.v, nullptr);
	}
}

// pages with flags laid out as a kernel's: the page flags below bit 24, gen + 1 at gen_bit, the
// refs below it (LRU folios only), last_cpupid above it (all ones when freed), then the zone
struct Layout {
	unsigned gen_bit = 37;
	__u64 flags(unsigned gen1, unsigned refs, bool freed, unsigned low) const
	{
		__u64 f = low & 0xffffff;
		f |= (__u64)gen1 << gen_bit;
		f |= (__u64)refs << (gen_bit - 2);
		f |= (freed ? 0x1fffffULL : 0x12345ULL) << 40;
		f |= 2ULL << 61;	/* ZONE_NORMAL */
		return f;
	}
};

TEST(Mglru, FindsTheOneWindowThatAgreesWithTheKernel)
{
	Layout l;
	static ms_gen_hist h;
	memset(&h, 0, sizeof(h));
	__u64 by[MS_MGLRU_GENS] = {};
	for (int i = 0; i < 40000; i++) {
		unsigned gen = i % 7 == 0 ? 3 : i % 3;	/* seq % 4 */
		ms_gen_hist_add(&h, l.flags(gen + 1, i % 4, false, 0x10 | i), true, false);
		by[gen]++;
	}
	for (int i = 0; i < 60000; i++)
		ms_gen_hist_add(&h, l.flags(0, 0, i % 2, i % 5 ? 0 : 0x200), false, true);
	char why[512] = "";
	EXPECT_EQ(ms_gen_locate(&h, 24, by, why, sizeof(why)), 37) << why;
	// the kernel's counts moved a little during the walk: still found
	__u64 near[MS_MGLRU_GENS] = { by[0] + 100, by[1] - 100, by[2] + 40, by[3] };
	EXPECT_EQ(ms_gen_locate(&h, 24, near, why, sizeof(why)), 37) << why;
	// a workload grew by 10% while the walk ran: the walk's counts lie between the kernel's
	// before and after, each of which is too far from them alone
	__u64 before[MS_MGLRU_GENS], after[MS_MGLRU_GENS];
	for (int g = 0; g < MS_MGLRU_GENS; g++) {
		before[g] = by[g] - by[g] / 20;
		after[g] = by[g] + by[g] / 20;
	}
	EXPECT_EQ(ms_gen_locate(&h, 24, before, why, sizeof(why)), -1);
	EXPECT_EQ(ms_gen_locate(&h, 24, after, why, sizeof(why)), -1);
	EXPECT_EQ(ms_gen_locate_between(&h, 24, before, after, why, sizeof(why)), 37) << why;
	// counts that are another kernel's: none
	__u64 other[MS_MGLRU_GENS] = { by[3], by[2], by[1], by[0] };
	EXPECT_EQ(ms_gen_locate(&h, 24, other, why, sizeof(why)), -1);
	EXPECT_NE(std::string(why).find("none of"), std::string::npos) << why;
	// and it gives the nearest window's pages by generation slot beside the kernel's
	char want[160];
	snprintf(want, sizeof(want), "nearest, bit 37, ");
	EXPECT_NE(std::string(why).find(want), std::string::npos) << why;
	snprintf(want, sizeof(want), "walk vs lru_gen_full %llu vs %llu-%llu, ",
		 (unsigned long long)by[0], (unsigned long long)other[0],
		 (unsigned long long)other[0]);
	EXPECT_NE(std::string(why).find(want), std::string::npos) << why;
	// no folio on the lists: nothing to tell the window by
	static ms_gen_hist empty;
	memset(&empty, 0, sizeof(empty));
	EXPECT_EQ(ms_gen_locate(&empty, 24, by, why, sizeof(why)), -1);
}

TEST(Mglru, TwoWindowsThatFitAreNoAnswer)
{
	// a field of 1s beside the generation (bits 40-42 read 1 in LRU folios only, and the kernel
	// has them all in one generation): both windows fit, memstat says it cannot tell
	static ms_gen_hist h;
	memset(&h, 0, sizeof(h));
	__u64 by[MS_MGLRU_GENS] = { 0, 1000, 0, 0 };	/* all in gen 1: gen + 1 = 2 */
	for (int i = 0; i < 1000; i++)
		ms_gen_hist_add(&h, (2ULL << 37) | (2ULL << 44), true, false);
	for (int i = 0; i < 1000; i++)
		ms_gen_hist_add(&h, 0, false, true);
	char why[256] = "";
	EXPECT_EQ(ms_gen_locate(&h, 24, by, why, sizeof(why)), -1);
	EXPECT_NE(std::string(why).find("more than one"), std::string::npos) << why;
}

} // namespace

namespace {

TEST(Mglru, KeepsEachMemcgsPathAndTheEvictedMarks)
{
	int err;
	ms_mglru m = parse(kFull, &err);
	ASSERT_EQ(err, 0);
	ASSERT_EQ(m.n, 2u);
	EXPECT_STREQ(m.v[0].path, "/");
	EXPECT_STREQ(m.v[1].path, "/system.slice/a b.service");	// blanks and all
	EXPECT_TRUE(m.v[0].gen[1].anon_gone);
	EXPECT_FALSE(m.v[0].gen[1].file_gone);
	EXPECT_FALSE(m.v[0].gen[2].anon_gone);
	ms_mglru_free(&m);
}

TEST(Mglru, AgingIsOneCommandOfTheDebugfsFile)
{
	char path[] = "/tmp/memstat-lru_gen-XXXXXX";
	int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(ms_mglru_age(path, 8, 1, 6), 0);
	FILE *f = fopen(path, "r");
	ASSERT_NE(f, nullptr);
	char buf[128] = "";
	ASSERT_NE(fgets(buf, sizeof(buf), f), nullptr);
	fclose(f);
	// memcg 8, node 1, its youngest seq, swappiness 100 (anon too), force_scan
	EXPECT_STREQ(buf, "+ 8 1 6 100 1\n");
	unlink(path);
	EXPECT_EQ(ms_mglru_age("/nonexistent/lru_gen", 1, 0, 1), -ENOENT);
}

// A window's lruvec: seq 5 opened at its start (A), 6 at its end; 3 the oldest after the start
// (of 4 generations: the end merged it into 4). The generation bits at 40, PG_lru 4,
// PG_referenced 5, PG_unevictable 18, PG_swapbacked 19.
struct WssFixture {
	ms_wss w = {};
	ms_wss_lruvec lv[1] = {};
	ms_zone zone = {};
	ms_range range = { 0, 1 << 20 };
	ms_ranges ranges = {};
	WssFixture(bool first_sight = false)
	{
		lv[0].memcg_id = 1;
		lv[0].known = true;
		lv[0].start_seq = 5;
		lv[0].end_seq = 6;
		lv[0].min_seq = 3;
		for (int t = 0; t < 2; t++) {
			lv[0].min_start[t] = 2;
			lv[0].full_start[t] = true;
			lv[0].min_end[t] = 3;
		}
		lv[0].age_ms[3 % 4] = 30000;	// seq 3: born 30 s ago
		lv[0].age_ms[4 % 4] = 20000;
		lv[0].age_ms[5 % 4] = 10000;	// the window's
		lv[0].age_ms[6 % 4] = 5;
		w.lv = lv;
		w.nlv = 1;
		zone.start = 0;
		zone.end = 1 << 20;
		w.zones = &zone;
		w.nzones = 1;
		w.gen_lo = 40;
		w.pg_lru = 4;
		w.pg_referenced = 5;
		w.pg_unevictable = 18;
		w.pg_swapbacked = 19;
		w.first_sight = first_sight;
		ranges.r = &range;
		ranges.n = 1;
		ranges.pages = range.end;
		EXPECT_EQ(ms_wss_index(&w), 0);
		EXPECT_EQ(ms_wss_alloc_before(&w, &ranges), 0);
	}
	~WssFixture()
	{
		free(w.by_key);
		free(w.before);
		free(w.range_base);
	}
	ms_page_rec rec(ms_sub sub, unsigned gen_bits, bool referenced, bool lru, __u64 cgroup)
	{
		ms_page_rec r = {};
		r.valid = 1;
		r.sub = sub;
		r.cgroup = cgroup;
		r.head_flags = ((__u64)gen_bits << 40) | ((__u64)lru << 4) |
			       ((__u64)referenced << 5) |
			       ((__u64)(sub == MS_ANON || sub == MS_SHMEM) << 19);
		return r;
	}
	// the page as the walk after the first aging saw it (gen bits of then)
	void before(__u64 pfn, ms_sub sub, unsigned gen_bits, bool referenced)
	{
		ms_page_rec r = rec(sub, gen_bits, referenced, true, 0);
		ms_wss_before_page(&w, pfn, &r);
	}
	// the page as that walk saw it off every MGLRU list (a per-CPU batch to add, isolated)
	void before_off_lru(__u64 pfn, ms_sub sub, bool referenced)
	{
		ms_page_rec r = rec(sub, 0, referenced, false, 0);
		ms_wss_before_page(&w, pfn, &r);
	}
	void page(__u64 pfn, ms_sub sub, unsigned gen_bits, bool lru = true, __u64 cgroup = 0,
		  bool referenced = false)
	{
		ms_page_rec r = rec(sub, gen_bits, referenced, lru, cgroup);
		ms_wss_page(&w, pfn, &r);
	}
};

TEST(Wss, CountsEachPageByItsGenerationAgainstTheWindowsStart)
{
	WssFixture fx;
	// gen bits hold seq % 4 + 1: seq 5 -> 2, 6 -> 3, 4 -> 1, 3 -> 4
	fx.page(1, MS_ANON, 2);		// the window's generation: accessed
	fx.page(2, MS_ANON, 3);		// the one the end opened: accessed
	fx.page(3, MS_FILE, 1);		// seq 4: idle since the window's start at least
	fx.page(4, MS_FILE, 4);		// seq 3, the oldest: idle, age unbounded
	fx.page(5, MS_SHMEM, 0);	// no generation: untracked
	EXPECT_EQ(fx.w.verdict, MS_WSS_UNTRACKED);	// a class it sees, a page it cannot tell
	fx.page(6, MS_EXEC, 2, false);	// not on an LRU list: untracked
	fx.page(7, MS_KERNEL_SLAB, 2);	// kernel: not counted at all
	EXPECT_EQ(fx.w.verdict, MS_WSS_NONE);	// a class it cannot see
	fx.page(8, MS_ANON, 2, true, 77);	// a memcg of no lruvec: unattributed
	EXPECT_EQ(fx.w.accessed[MS_ANON], 2u);
	EXPECT_EQ(fx.w.idle[MS_FILE], 2u);
	EXPECT_EQ(fx.w.idle_age[0][MS_FILE], 1u);
	EXPECT_EQ(fx.w.idle_age[1][MS_FILE], 1u);
	EXPECT_EQ(fx.w.untracked[MS_SHMEM], 1u);
	EXPECT_EQ(fx.w.untracked[MS_EXEC], 1u);
	EXPECT_EQ(fx.w.untracked[MS_ANON], 1u);
	EXPECT_EQ(fx.w.unattributed, 1u);
	EXPECT_EQ(fx.w.accessed[MS_KERNEL_SLAB] + fx.w.idle[MS_KERNEL_SLAB] +
		  fx.w.untracked[MS_KERNEL_SLAB], 0u);
	double lo, hi;
	ASSERT_TRUE(ms_wss_age_range(&fx.w, 0, &lo, &hi));
	EXPECT_DOUBLE_EQ(lo, 10.0);	// seq 4: since seq 5's birth at least
	EXPECT_DOUBLE_EQ(hi, 20.0);	// and at most since its own
	ASSERT_TRUE(ms_wss_age_range(&fx.w, 1, &lo, &hi));
	EXPECT_DOUBLE_EQ(lo, 20.0);
	EXPECT_LT(hi, 0);		// the oldest: older generations merged into it
}

// --by process --wss: each page's verdict is kept where its state after the first aging was
// (read first: a page whose PG_referenced was set before the window is still told idle), and
// ms_wss_verdict_at() gives it back for the pages the processes map; a page of no verdict, or
// outside present memory, is none.
TEST(Wss, KeepsEachPagesVerdictForTheProcesses)
{
	WssFixture fx;
	fx.w.keep_verdicts = true;
	fx.before(3, MS_FILE, 1, true);	// referenced before the window: not an access
	fx.page(1, MS_ANON, 2);		// accessed
	fx.page(2, MS_ANON, 2);
	fx.page(3, MS_FILE, 1, true, 0, true);	// idle
	fx.page(4, MS_SHMEM, 0);	// untracked
	fx.page(5, MS_KERNEL_SLAB, 2);	// a class it cannot see
	fx.page(6, MS_FILE, 1);		// idle
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, 1), MS_WSS_ACCESSED);
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, 2), MS_WSS_ACCESSED);
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, 3), MS_WSS_IDLE);
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, 4), MS_WSS_NONE);
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, 5), MS_WSS_NONE);
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, 6), MS_WSS_IDLE);
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, 9), MS_WSS_NONE);	// not walked
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, fx.range.end + 5), MS_WSS_NONE);	// not present
	fx.page(2, MS_FILE, 1);		// a page's verdict replaces the last one, its neighbours kept
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, 2), MS_WSS_IDLE);
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, 1), MS_WSS_ACCESSED);
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, 3), MS_WSS_IDLE);
	fx.w.keep_verdicts = false;	// not asked for: none
	EXPECT_EQ(ms_wss_verdict_at(&fx.w, 1), MS_WSS_NONE);
}

// PG_referenced set during the window is an access the second aging saw first (6.14+) or a
// read(); set before it, it says nothing. On 6.14+ a folio of the generation the second aging
// merged is unseen, not idle: the kernel cleared what would have told.
TEST(Wss, ReferencedInTheWindowIsAnAccessAndTheMergedGenerationIsUnseen)
{
	for (bool first_sight : {false, true}) {
		WssFixture fx(first_sight);
		fx.before(1, MS_FILE, 1, false);	// seq 4, clear then
		fx.page(1, MS_FILE, 1, true, 0, true);	// and set now: accessed
		fx.before(2, MS_FILE, 1, true);		// set then and now: idle
		fx.page(2, MS_FILE, 1, true, 0, true);
		fx.before(3, MS_FILE, 3, false);	// seq 2, the oldest after the start
		fx.page(3, MS_FILE, 4);			// merged into seq 3 by the end
		fx.page(4, MS_FILE, 4);			// a folio new in the window, in the oldest
		EXPECT_EQ(fx.w.accessed[MS_FILE], 1u);
		EXPECT_EQ(fx.w.referenced[MS_FILE], 1u);
		EXPECT_EQ(fx.w.idle[MS_FILE], first_sight ? 1u : 3u) << first_sight;
		EXPECT_EQ(fx.w.unseen[MS_FILE], first_sight ? 2u : 0u) << first_sight;
	}
}

// A folio off every MGLRU list when the window opened (in a per-CPU batch after a read) keeps
// the PG_referenced it had: set then, it is no access once the folio is on a list; set only
// since, it is one. (6.1 in the full VM suite: 11 cold pages of a file read just before the
// window were counted accessed.)
TEST(Wss, AFolioOffTheListsAtTheStartKeepsItsReferencedState)
{
	for (bool first_sight : {false, true}) {
		WssFixture fx(first_sight);
		fx.before_off_lru(1, MS_FILE, true);	// set then and now: idle
		fx.page(1, MS_FILE, 1, true, 0, true);
		fx.before_off_lru(2, MS_FILE, false);	// clear then, set now: accessed
		fx.page(2, MS_FILE, 1, true, 0, true);
		EXPECT_EQ(fx.w.accessed[MS_FILE], 1u) << first_sight;
		EXPECT_EQ(fx.w.referenced[MS_FILE], 1u) << first_sight;
		EXPECT_EQ(fx.w.idle[MS_FILE], 1u) << first_sight;
	}
}

TEST(Wss, ALruvecTheKernelAgedTwiceIsNotTold)
{
	WssFixture fx;
	fx.lv[0].aged_by_kernel = true;
	fx.page(1, MS_ANON, 2);
	EXPECT_EQ(fx.w.accessed[MS_ANON], 0u);
	EXPECT_EQ(fx.w.untracked[MS_ANON], 1u);
	EXPECT_EQ(fx.w.kernel_aged, 1u);
}

// Sampling with --wss: a CSV row has a value under each column of its header, the window's counts
// under theirs; the Prometheus gauges give the same counts by class and state.
std::vector<std::string> csv_fields(const std::string &line)
{
	std::vector<std::string> f;
	std::stringstream in(line.substr(0, line.find('\n')));
	std::string x;
	while (std::getline(in, x, ','))
		f.push_back(x);
	if (!line.empty() && line[line.find('\n') - 1] == ',')
		f.push_back("");
	return f;
}

// a --wss sample's CSV header and row as column: value (empty: their lengths differ)
std::map<std::string, std::string> wss_csv_sample(const ms_wss *w)
{
	ms_result r = {};
	r.backend = "bpf";
	timespec ts = {1700000000, 0};
	std::vector<std::string> head = csv_fields(mstest::capture([&](FILE *f) {
		ms_csv_header_mode(f, false, false, true); }));
	std::vector<std::string> row = csv_fields(mstest::capture([&](FILE *f) {
		ms_csv_row(f, &ts, &r, nullptr, w); }));
	std::map<std::string, std::string> v;
	for (size_t i = 0; head.size() == row.size() && i < head.size(); i++)
		v[head[i]] = row[i];
	return v;
}

TEST(Wss, SamplesCarryTheWindowsCountsInEachFormat)
{
	WssFixture fx;
	fx.page(1, MS_ANON, 2);		// accessed
	fx.page(2, MS_ANON, 3);		// accessed
	fx.page(3, MS_FILE, 1);		// idle
	fx.page(4, MS_SHMEM, 0);	// untracked
	fx.w.window_s = 60;
	fx.w.measured_s = 60.25;
	// /proc/vmstat at the window's start and end: 12 major faults; no swap-outs counter
	for (int k = 0; k < MS_WSS_NPAGING; k++)
		fx.w.paging_start[k] = fx.w.paging_end[k] = 100;
	fx.w.paging_end[MS_WSS_PGMAJFAULT] = 112;
	fx.w.paging_end[MS_WSS_PGMIGRATE] = 130;	// 30 pages migrated in the window
	fx.w.paging_start[MS_WSS_PSWPOUT] = fx.w.paging_end[MS_WSS_PSWPOUT] = -1;
	std::map<std::string, std::string> v = wss_csv_sample(&fx.w);
	ASSERT_FALSE(v.empty()) << "the header and the row have other lengths";
	EXPECT_EQ(v["wss_window_s"], "60.000");
	EXPECT_EQ(v["wss_measured_s"], "60.250");
	EXPECT_EQ(v["wss_accessed_anon"], "2");
	EXPECT_EQ(v["wss_idle_page_cache"], "1");
	EXPECT_EQ(v["wss_untracked_shmem"], "1");
	EXPECT_EQ(v["wss_unseen_anon"], "0");
	EXPECT_EQ(v.count("wss_accessed_kernel"), 0u);	// a class it cannot see: no column
	EXPECT_EQ(v["wss_accessed_file_backed"], "0");	// shmem, exec and page cache
	EXPECT_EQ(v["wss_idle_file_backed"], "1");
	EXPECT_EQ(v["wss_pgmajfault"], "12");
	EXPECT_EQ(v["wss_workingset_refault_file"], "0");
	EXPECT_EQ(v.count("wss_pswpout"), 1u);
	EXPECT_EQ(v["wss_pswpout"], "");	// the kernel has no such counter: empty, not 0
	EXPECT_EQ(v["wss_pgmigrate_success"], "30");
	// a log without the window's columns is another kind of log
	std::string plain = mstest::capture([&](FILE *f) { ms_csv_header_mode(f, false, false, false); });
	EXPECT_EQ(plain.find("wss_"), std::string::npos);
	std::string prom = mstest::capture([&](FILE *f) { ms_wss_prom(f, &fx.w); });
	EXPECT_NE(prom.find("memstat_wss_pages{class=\"anon\",state=\"accessed\"} 2\n"),
		  std::string::npos) << prom;
	EXPECT_NE(prom.find("memstat_wss_pages{class=\"page_cache\",state=\"idle\"} 1\n"),
		  std::string::npos) << prom;
	EXPECT_NE(prom.find("memstat_wss_window_seconds 60.250\n"), std::string::npos) << prom;
	EXPECT_NE(prom.find("memstat_wss_paging_events{counter=\"pgmajfault\"} 12\n"),
		  std::string::npos) << prom;
	EXPECT_EQ(prom.find("counter=\"pswpout\""), std::string::npos) << prom;
	EXPECT_NE(prom.find("memstat_wss_paging_events{counter=\"pgmigrate_success\"} 30\n"),
		  std::string::npos) << prom;
	// the table: each counter the kernel has, with its rate
	std::string table = mstest::capture([&](FILE *f) { ms_wss_print(f, &fx.w, false); });
	EXPECT_NE(table.find("Paging in the window: 12 major faults (0.2/s)"), std::string::npos)
		<< table;
	EXPECT_EQ(table.find("swap-outs"), std::string::npos) << table;
	EXPECT_NE(table.find(", 30 pages migrated (0.5/s) (/proc/vmstat)."), std::string::npos)
		<< table;
	EXPECT_EQ(prom.find("class=\"kernel\""), std::string::npos) << prom;
	// the terminal rows: MB accessed and idle after the classes
	ms_result r = {};
	r.backend = "bpf";
	timespec ts = {1700000000, 0};
	std::string rows = mstest::capture([&](FILE *f) {
		ms_row_header(f, true);
		ms_row(f, &ts, &r, &fx.w); });
	EXPECT_NE(rows.find("Accessed"), std::string::npos) << rows;
}

// --by cgroup: a cgroup's paging in the window is its memory.stat's growth from the window's
// start to its end; a cgroup missing at either end, or a counter its file lacks, has none.
TEST(Wss, ACgroupsPagingIsItsCountersGrowthInTheWindow)
{
	ms_wss w = {};
	ms_wss_cgstat start[2] = {{5, {10, 20, -1}}, {9, {1, 1, 1}}};
	ms_wss_cgstat end[2] = {{5, {14, 20, -1}}, {12, {3, 3, 3}}};
	w.cg_start = start;
	w.ncg_start = 2;
	w.cg_end = end;
	w.ncg_end = 2;
	EXPECT_EQ(ms_wss_cgroup_paging(&w, 5, MS_WSS_PGMAJFAULT), 4);
	EXPECT_EQ(ms_wss_cgroup_paging(&w, 5, MS_WSS_REFAULT_ANON), 0);
	EXPECT_EQ(ms_wss_cgroup_paging(&w, 5, MS_WSS_REFAULT_FILE), -1);	// no such counter
	EXPECT_EQ(ms_wss_cgroup_paging(&w, 9, MS_WSS_PGMAJFAULT), -1);	// removed in the window
	EXPECT_EQ(ms_wss_cgroup_paging(&w, 12, MS_WSS_PGMAJFAULT), -1);	// made in the window
	EXPECT_EQ(ms_wss_cgroup_paging(&w, 5, MS_WSS_PSWPIN), -1);	// not a cgroup's counter
}

// The idle page bitmap (MGLRU off): a page of a folio on an LRU list is idle when the bitmap still
// says so at the window's end, accessed when not (touched, read, or faulted in since the marking);
// one on no LRU list was never marked: untracked. No ages.
TEST(Wss, TheIdleBitmapTellsEachLruPageIdleOrAccessed)
{
	ms_wss w = {};
	ms_range range = {128, 320};	// words 2 to 4 of the bitmap
	ms_ranges ranges = {&range, 1, 192};
	size_t base[1] = {0};
	__u64 words[3] = {0, 0, 0};
	w.mech = MS_WSS_IDLE_BITMAP;
	w.ranges = &ranges;
	w.idle_base = base;
	w.idle_words = words;
	w.idle_limit = ~0ull;
	w.pg_lru = 4;
	w.keep_verdicts = true;		// and each page's verdict kept (--by process)
	ASSERT_EQ(ms_wss_alloc_before(&w, &ranges), 0);
	words[0] = 1ull << 3;		// pfn 131: still idle
	words[2] = 1ull << 63;		// pfn 319, the range's last: still idle
	auto page = [&](__u64 pfn, ms_sub sub, bool lru) {
		ms_page_rec r = {};
		r.valid = 1;
		r.sub = sub;
		r.head_flags = (__u64)lru << 4;
		ms_wss_page(&w, pfn, &r);
		return w.verdict;
	};
	EXPECT_EQ(page(131, MS_ANON, true), MS_WSS_IDLE);
	EXPECT_EQ(page(132, MS_ANON, true), MS_WSS_ACCESSED);
	EXPECT_EQ(page(319, MS_FILE, true), MS_WSS_IDLE);
	EXPECT_EQ(page(200, MS_FILE, false), MS_WSS_UNTRACKED);
	EXPECT_EQ(page(133, MS_KERNEL_SLAB, true), MS_WSS_NONE);
	EXPECT_EQ(w.idle[MS_ANON], 1u);
	EXPECT_EQ(w.accessed[MS_ANON], 1u);
	EXPECT_EQ(w.idle[MS_FILE], 1u);
	EXPECT_EQ(w.untracked[MS_FILE], 1u);
	EXPECT_EQ(ms_wss_verdict_at(&w, 131), MS_WSS_IDLE);
	EXPECT_EQ(ms_wss_verdict_at(&w, 132), MS_WSS_ACCESSED);
	EXPECT_EQ(ms_wss_verdict_at(&w, 200), MS_WSS_NONE);
	free(w.before);
	free(w.range_base);
	w.before = nullptr;
	w.range_base = nullptr;
	double lo, hi;
	EXPECT_FALSE(ms_wss_age_range(&w, 0, &lo, &hi));	// the bitmap gives no age
	std::string table = mstest::capture([&](FILE *f) { ms_wss_print(f, &w, false); });
	EXPECT_NE(table.find("idle page bitmap"), std::string::npos) << table;
}

// The bitmap's I/O: whole words at pfn / 64 * 8, every word that covers a range marked, and read
// back in the layout of ms_page_idle_words()
TEST(Wss, TheIdleBitmapIsWrittenAndReadInWholeWords)
{
	char path[] = "/tmp/memstat-page-idle-XXXXXX";
	int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	ms_range r[2] = {{100, 200}, {1000, 1001}};	// words 1-3, word 15
	ms_ranges ranges = {r, 2, 101};
	size_t base[2];
	EXPECT_EQ(ms_page_idle_words(&ranges, base), 4u);
	EXPECT_EQ(base[1], 3u);
	ASSERT_EQ(ms_page_idle_mark(path, &ranges), 0);
	unsigned char file[16 * 8] = {};
	ASSERT_EQ(pread(fd, file, sizeof(file), 0), (ssize_t)sizeof(file));
	for (size_t b = 0; b < sizeof(file); b++) {
		size_t word = b / 8;
		bool marked = (word >= 1 && word <= 3) || word == 15;
		EXPECT_EQ(file[b], marked ? 0xff : 0) << "byte " << b;
	}
	__u64 words[4] = {};
	ASSERT_EQ(pwrite(fd, "\x01", 1, 15 * 8), 1);	// as the kernel: pfns 961-967 accessed since
	__u64 limit = 0;
	ASSERT_EQ(ms_page_idle_read(path, &ranges, base, words, &limit), 0);
	EXPECT_EQ(limit, ~0ull);	// every word read
	EXPECT_EQ(words[0], ~0ull);
	EXPECT_EQ(words[3], ~0ull ^ 0xfe);
	close(fd);
	unlink(path);
}

TEST(Wss, TheFirstSightRuleIsSix14AndLater)
{
	EXPECT_FALSE(ms_wss_first_sight_kernel("6.1.0-56-cloud-amd64"));
	EXPECT_FALSE(ms_wss_first_sight_kernel("6.13.2"));
	EXPECT_TRUE(ms_wss_first_sight_kernel("6.14.0"));
	EXPECT_TRUE(ms_wss_first_sight_kernel("6.18.15+deb13-cloud-amd64"));
	EXPECT_TRUE(ms_wss_first_sight_kernel("7.3.4"));
	EXPECT_TRUE(ms_wss_first_sight_kernel("weird"));	// unknown: the rule that tells less
}

} // namespace

// DAMON's totals: the table has the rows Anon and File-backed and no unseen or ages; the JSON
// gives anon's accessed and idle, every other class null with its reason, and file_backed.
TEST(Wss, DamonsTotalsInTheTableAndTheJson)
{
	ms_wss w = {};
	w.mech = MS_WSS_DAMON;
	w.window_s = 10;
	w.measured_s = 10.2;
	w.damon[0][0] = 49152;	// anon accessed
	w.damon[0][1] = 147456;
	w.damon[1][0] = 16384;	// file-backed
	w.damon[1][1] = 49152;
	for (int k = 0; k < MS_WSS_NPAGING; k++)
		w.paging_start[k] = w.paging_end[k] = -1;
	std::string table = mstest::capture([&](FILE *f) { ms_wss_print(f, &w, true); });
	EXPECT_NE(table.find("Working Set (DAMON)"), std::string::npos) << table;
	EXPECT_NE(table.find("Anon                      49152     192     147456     576"),
		  std::string::npos) << table;
	EXPECT_NE(table.find("File-backed               16384      64      49152     192"),
		  std::string::npos) << table;
	EXPECT_NE(table.find("Total                     65536     256     196608     768"),
		  std::string::npos) << table;
	EXPECT_EQ(table.find("Unseen"), std::string::npos) << table;
	std::string text = mstest::capture([&](FILE *f) {
		struct ms_jw jw;

		ms_jw_init(&jw, f);
		ms_jw_start_object(&jw);
		ms_wss_json(&jw, &w);
		ms_jw_end_object(&jw);
	});
	nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
	ASSERT_FALSE(j.is_discarded()) << text;
	const nlohmann::json &x = j["wss"];
	EXPECT_EQ(x["mechanism"], "damon");
	EXPECT_EQ(x["accessed"]["anon"], 49152);
	EXPECT_EQ(x["idle"]["anon"], 147456);
	EXPECT_EQ(x["file_backed"]["accessed"], 16384);
	EXPECT_EQ(x["file_backed"]["idle"], 49152);
	for (const char *c : {"shmem", "exec", "page_cache", "kernel", "free"}) {
		EXPECT_TRUE(x["accessed"][c].is_null()) << c;
		EXPECT_TRUE(x["why_null"][c].is_string()) << c;
	}
	EXPECT_TRUE(x["unseen"]["anon"].is_null());
	EXPECT_TRUE(x["idle_by_age"].empty());
	EXPECT_TRUE(x["paging"]["pgmajfault"].is_null()) << "the kernel's absent counter";
	// a sample: CSV has anon's and file-backed columns, the classes it cannot tell empty
	std::map<std::string, std::string> v = wss_csv_sample(&w);
	ASSERT_FALSE(v.empty()) << "the header and the row have other lengths";
	EXPECT_EQ(v["wss_accessed_anon"], "49152");
	EXPECT_EQ(v["wss_idle_anon"], "147456");
	EXPECT_EQ(v["wss_accessed_file_backed"], "16384");
	EXPECT_EQ(v["wss_idle_file_backed"], "49152");
	for (const char *c : {"wss_accessed_shmem", "wss_idle_page_cache", "wss_unseen_anon",
			      "wss_untracked_exec"}) {
		EXPECT_EQ(v.count(c), 1u) << c;
		EXPECT_EQ(v[c], "") << c << ": DAMON cannot tell, so empty, never 0";
	}
	// the terminal rows: MB accessed and idle, anon and file-backed
	std::string trow = mstest::capture([&](FILE *f) { ms_wss_row(f, &w); });
	EXPECT_EQ(trow, "       256      768");
	std::string prom = mstest::capture([&](FILE *f) { ms_wss_prom(f, &w); });
	EXPECT_NE(prom.find("memstat_wss_pages{class=\"file_backed\",state=\"idle\"} 49152\n"),
		  std::string::npos) << prom;
	EXPECT_EQ(prom.find("class=\"shmem\""), std::string::npos) << prom;
}

// --wss on DAMON, --by node: a kdamond per node over the present memory within its zones' spans
// (merged: a Movable zone within another's span is walked once); a node with no present memory
// gets none; two nodes whose spans interleave are refused (exit 5), for a folio would meet two
// kdamonds' young filters.
TEST(Wss, DamonNodesAreThePresentMemoryOfTheirZones)
{
	ms_range present[] = { { 1, 100 }, { 256, 20000 } };
	ms_ranges ranges = { present, 2, 0 };
	static const ms_zone zones[] = { { 0, "DMA", 1, 4096 }, { 0, "DMA32", 4096, 10000 },
					 { 0, "Movable", 5000, 8000 }, { 1, "Normal", 10000, 30000 },
					 { 2, "Normal", 40000, 50000 } };
	ms_wss w = {};
	ms_ranges *kd = nullptr;
	size_t nkd = 0;
	char why[256] = "";

	ASSERT_EQ(ms_damon_nodes(&w, &ranges, zones, 5, &kd, &nkd, why, sizeof(why)), MS_EXIT_OK)
		<< why;
	ASSERT_EQ(nkd, 2u);
	ASSERT_EQ(w.ndamon_g, 2u);
	EXPECT_EQ(w.damon_g[0].id, 0u);
	EXPECT_EQ(w.damon_g[1].id, 1u);
	ASSERT_EQ(kd[0].n, 2u);
	EXPECT_EQ(kd[0].r[0].start, 1u);
	EXPECT_EQ(kd[0].r[0].end, 100u);
	EXPECT_EQ(kd[0].r[1].start, 256u);
	EXPECT_EQ(kd[0].r[1].end, 10000u);
	EXPECT_EQ(kd[0].pages, 99u + 9744u);
	ASSERT_EQ(kd[1].n, 1u);
	EXPECT_EQ(kd[1].r[0].start, 10000u);
	EXPECT_EQ(kd[1].r[0].end, 20000u);
	for (size_t k = 0; k < nkd; k++)
		ms_ranges_free(&kd[k]);
	free(kd);
	ms_wss_free(&w);

	static const ms_zone interleaved[] = { { 0, "Normal", 1, 1000 }, { 1, "Normal", 500, 5000 } };
	ms_wss w2 = {};
	EXPECT_EQ(ms_damon_nodes(&w2, &ranges, interleaved, 2, &kd, &nkd, why, sizeof(why)),
		  MS_EXIT_UNSUPPORTED);
	EXPECT_NE(std::string(why).find("nodes 0 and 1 interleave"), std::string::npos) << why;
	for (size_t k = 0; k < nkd; k++)
		ms_ranges_free(&kd[k]);
	free(kd);
	ms_wss_free(&w2);
}
