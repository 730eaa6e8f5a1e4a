// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The multi-gen LRU's debugfs counts (src/sys/mglru.c) and where a folio's generation sits in
// its flags (src/core/mglru_bits.c): lru_gen_full's text as the kernel prints it, and the one
// 3-bit window that the pages and the kernel's counts agree on, or none.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <string>

#include <gtest/gtest.h>

extern "C" {
#include "mglru.h"
#include "mglru_bits.h"
}

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
	char why[256] = "";
	EXPECT_EQ(ms_gen_locate(&h, 24, by, why, sizeof(why)), 37) << why;
	// the kernel's counts moved a little during the walk: still found
	__u64 near[MS_MGLRU_GENS] = { by[0] + 100, by[1] - 100, by[2] + 40, by[3] };
	EXPECT_EQ(ms_gen_locate(&h, 24, near, why, sizeof(why)), 37) << why;
	// counts that are another kernel's: none
	__u64 other[MS_MGLRU_GENS] = { by[3], by[2], by[1], by[0] };
	EXPECT_EQ(ms_gen_locate(&h, 24, other, why, sizeof(why)), -1);
	EXPECT_NE(std::string(why).find("none of"), std::string::npos) << why;
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
