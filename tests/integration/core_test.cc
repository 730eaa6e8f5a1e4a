// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat --core: a dump's walk gives what the live walk gives. /proc/kcore is the running
// kernel as an ELF core with its VMCOREINFO note, read through the same reader, page tables and
// walk as a saved dump; the VM matrix's kernels have it (CONFIG_PROC_KCORE).
#include <sys/stat.h>

#include "helpers.h"

using namespace mstest;

namespace {

bool has_kcore(std::string &why)
{
	struct stat st;

	if (stat("/proc/kcore", &st)) {
		why = "this kernel has no /proc/kcore (CONFIG_PROC_KCORE is off): the VM matrix's "
		      "kernels have it";
		return false;
	}
	return true;
}

}	// namespace

// The dump's summary of the running kernel, between two live walks: the same present memory and
// holes, every class within 0.5% of the total of the range the two live walks span.
TEST(Core, KcoreSummaryIsTheLiveWalks)
{
	std::string why;

	if (!has_kcore(why))
		GTEST_SKIP() << why;
	json before = walk();
	RunResult r = run_memstat({ "--core", "/proc/kcore", "--json" });
	json after = walk();

	ASSERT_EQ(r.status, 0) << r.out;
	json core = json::parse(r.out);
	EXPECT_EQ(core["backend"], "dump");
	EXPECT_EQ(core["pages"]["total"], before["pages"]["total"]);
	EXPECT_EQ(core["holes"], before["holes"]);
	long long total = core["pages"]["total"].get<long long>(), tol = total / 200;
	/*
	 * free_buddy and free_pcp as one: the kernel drains and refills its per-cpu lists between
	 * walks (7.x sizes them on its own), moving free pages between the two without a page
	 * being allocated or freed
	 */
	for (json *j : { &core, &before, &after }) {
		json &d = (*j)["detail"];

		d["free_buddy"] = d["free_buddy"].get<long long>() + d["free_pcp"].get<long long>();
		d["free_pcp"] = nullptr;
	}
	for (auto &[sub, v] : core["detail"].items()) {
		if (v.is_null() || before["detail"][sub].is_null())
			continue;
		long long c = v.get<long long>(), a = before["detail"][sub].get<long long>(),
			  b = after["detail"][sub].get<long long>();
		EXPECT_GE(c, std::min(a, b) - tol) << sub << ": dump " << c << ", live " << a << " and "
						   << b;
		EXPECT_LE(c, std::max(a, b) + tol) << sub << ": dump " << c << ", live " << a << " and "
						   << b;
	}
	printf("core-kcore: total %lld, anon %lld/%lld, page cache %lld/%lld, exec %lld/%lld, "
	       "kernel %lld/%lld, free %lld/%lld (dump/live)\n", total,
	       pages(core, "anon"), pages(before, "anon"), pages(core, "page_cache"),
	       pages(before, "page_cache"), pages(core, "exec"), pages(before, "exec"),
	       pages(core, "kernel"), pages(before, "kernel"), pages(core, "free"),
	       pages(before, "free"));
}

// --runs of the dump walk cover present memory once, in pfn order.
TEST(Core, KcoreRunsCoverTheSummary)
{
	std::string why;

	if (!has_kcore(why))
		GTEST_SKIP() << why;
	RunResult j = run_memstat({ "--core", "/proc/kcore", "--json" });
	RunResult r = run_memstat({ "--core", "/proc/kcore", "--runs" });

	ASSERT_EQ(j.status, 0);
	ASSERT_EQ(r.status, 0);
	std::istringstream in(r.out);
	unsigned long long pfn, n, last = 0, sum = 0;
	std::string cls, sub;
	while (in >> std::hex >> pfn >> std::dec >> n >> cls >> sub) {
		EXPECT_GE(pfn, last) << "runs out of order";
		last = pfn + n;
		sum += n;
	}
	json core = json::parse(j.out);
	long long total = core["pages"]["total"].get<long long>();
	EXPECT_NEAR((double)sum, (double)total, total / 200.0);
}
