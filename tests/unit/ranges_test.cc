// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Present memory: offline memory blocks are left out of the ranges the walk covers.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

extern "C" {
#include "memstat_int.h"
#include "meminfo.h"
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

namespace {

// virtio-mem and dax/kmem memory sits nested under the driver's resource in /proc/iomem.
TEST(Ranges, DriverManagedSystemRamIsWalkedToo)
{
	char path[] = "/tmp/memstat-iomem-XXXXXX";
	int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	const char *iomem =
		"00001000-0009fbff : System RAM\n"
		"00100000-bfffffff : System RAM\n"
		"  01000000-02276507 : Kernel code\n"
		"100000000-13fffffff : System RAM\n"
		"140000000-1bfffffff : virtio0\n"
		"  140000000-17fffffff : System RAM (virtio_mem)\n"
		"  180000000-187ffffff : System RAM (virtio_mem)\n"
		"200000000-2ffffffff : Soft Reserved\n"
		"  200000000-2ffffffff : dax0.0\n"
		"    200000000-2ffffffff : System RAM (kmem)\n";
	ASSERT_EQ(write(fd, iomem, strlen(iomem)), (ssize_t)strlen(iomem));
	close(fd);
	ms_ranges r;
	ASSERT_EQ(ms_ranges_from_iomem(path, &r), 0);
	unlink(path);
	// 0x100000-0x140000 and the virtio_mem part at 0x140000 are adjacent: one range
	EXPECT_EQ(show(r), "1-9f 100-c0000 100000-188000 200000-300000");
	EXPECT_EQ(r.pages, 0x9eULL + (0xc0000 - 0x100) + (0x188000 - 0x100000) + 0x100000);
	ms_ranges_free(&r);
}

} // namespace

namespace {

// A balloon that took 1 GiB out of MemTotal: the row compares without the offline pages.
TEST(Reconcile, InflatedBalloonIsNotAMismatch)
{
	ms_result r = {};
	ms_meminfo mi = {};
	ms_recon rc;
	const long long gib = 262144;	// pages

	r.sub[MS_FREE_BUDDY] = 20 * gib;
	r.sub[MS_KERNEL_RESERVED] = 1000;
	r.sub[MS_KERNEL_OFFLINE] = gib;	// the balloon
	r.total = 21 * gib + 1000;
	mi.mem_total = 20 * gib * 4;	// kB
	mi.mem_free = 20 * gib * 4;
	mi.anon_pages = mi.shmem = mi.cached = mi.buffers = mi.swap_cached = mi.slab = 0;
	mi.page_tables = mi.hugetlb = 0;
	ms_reconcile(&r, &mi, 4, &rc);
	EXPECT_TRUE(rc.all_ok);
	EXPECT_STREQ(rc.row[0].name, "Total - reserved - offline");
	EXPECT_EQ(rc.row[0].diff, 0);

	// without offline pages a mismatch stays a mismatch
	r.sub[MS_KERNEL_OFFLINE] = 0;
	r.sub[MS_FREE_BUDDY] = 21 * gib;
	ms_reconcile(&r, &mi, 4, &rc);
	EXPECT_FALSE(rc.all_ok);
	EXPECT_STREQ(rc.row[0].name, "Total - reserved");
}

} // namespace

// The kernel's lockdown mode, as securityfs prints it: a BPF walk cannot load under
// confidentiality, and memstat says that rather than the verifier's "unknown func"
TEST(Lockdown, TheModeInBracketsIsTheKernels)
{
	char path[] = "/tmp/memstat-lockdown-XXXXXX";
	int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	close(fd);
	const struct { const char *text; int mode; } cases[] = {
		{ "[none] integrity confidentiality\n", 0 },
		{ "none [integrity] confidentiality\n", 1 },
		{ "none integrity [confidentiality]\n", 2 },
		{ "", -1 },
	};
	for (const auto &c : cases) {
		std::ofstream(path) << c.text;
		EXPECT_EQ(ms_lockdown(path), c.mode) << c.text;
	}
	unlink(path);
	EXPECT_EQ(ms_lockdown(path), -1);	// no securityfs: unknown
}
