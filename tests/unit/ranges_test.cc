// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Present memory: offline memory blocks are left out of the ranges the walk covers.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

extern "C" {
#include "memstat_int.h"
}

namespace {

struct FakeSysfs {
	std::string dir;

	FakeSysfs(unsigned long long block_bytes)
	{
		char tmpl[] = "/tmp/memstat-sysfs-XXXXXX";
		dir = mkdtemp(tmpl);
		std::ofstream(dir + "/block_size_bytes") << std::hex << block_bytes << "\n";
	}
	~FakeSysfs() { std::system(("rm -rf " + dir).c_str()); }
	void block(int id, bool online)
	{
		std::string d = dir + "/memory" + std::to_string(id);
		mkdir(d.c_str(), 0755);
		std::ofstream(d + "/online") << (online ? "1\n" : "0\n");
	}
};

std::string show(const ms_ranges &r)
{
	std::string s;
	char b[64];
	for (size_t i = 0; i < r.n; i++) {
		snprintf(b, sizeof(b), "%s%llx-%llx", i ? " " : "", (unsigned long long)r.r[i].start,
			 (unsigned long long)r.r[i].end);
		s += b;
	}
	return s;
}

TEST(Ranges, OfflineBlocksAreLeftOut)
{
	FakeSysfs sys(0x8000000);	// 128 MiB blocks: 0x8000 pages
	ms_ranges r = {};
	r.r = static_cast<ms_range *>(calloc(2, sizeof(ms_range)));
	r.r[0] = { 0x1, 0x9f };
	r.r[1] = { 0x100, 0x40000 };
	r.n = 2;
	r.pages = (0x9f - 0x1) + (0x40000 - 0x100);
	sys.block(0, true);
	sys.block(2, false);	// 0x10000-0x18000: splits the second range
	sys.block(7, false);	// 0x38000-0x40000: the end of it
	sys.block(9, false);	// beyond memory: nothing to remove
	ASSERT_EQ(ms_ranges_drop_offline(&r, sys.dir.c_str()), 0);
	EXPECT_EQ(show(r), "1-9f 100-10000 18000-38000");
	EXPECT_EQ(r.pages, (0x9eULL) + (0x10000 - 0x100) + (0x38000 - 0x18000));
	ms_ranges_free(&r);
}

TEST(Ranges, AWholeOfflineRangeDisappears)
{
	FakeSysfs sys(0x8000000);
	ms_ranges r = {};
	r.r = static_cast<ms_range *>(calloc(2, sizeof(ms_range)));
	r.r[0] = { 0x8000, 0x10000 };
	r.r[1] = { 0x10000, 0x20000 };
	r.n = 2;
	r.pages = 0x18000;
	sys.block(1, false);
	ASSERT_EQ(ms_ranges_drop_offline(&r, sys.dir.c_str()), 0);
	EXPECT_EQ(show(r), "10000-20000");
	EXPECT_EQ(r.pages, 0x10000ULL);
	ms_ranges_free(&r);
}

TEST(Ranges, NoMemoryHotplugChangesNothing)
{
	ms_ranges r = {};
	r.r = static_cast<ms_range *>(calloc(1, sizeof(ms_range)));
	r.r[0] = { 0x100, 0x200 };
	r.n = 1;
	r.pages = 0x100;
	ASSERT_EQ(ms_ranges_drop_offline(&r, "/nonexistent/memstat"), 0);
	EXPECT_EQ(show(r), "100-200");
	ms_ranges_free(&r);
}

} // namespace
