// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat rmss --cgroup against a known working set, with whichever memory cgroup the kernel
// offers: v1 on a host that has it (tests/rmss_test.py tests the rest of rmss there), v2 in the
// VMs of tools/vm/matrix.sh, which mount no cgroup file system: the test mounts cgroup2.
#include <algorithm>
#include <filesystem>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "helpers.h"

namespace {

constexpr size_t kWorkingSetMb = 64;	// a file of 64 MiB on the disk, read through 3 times

// The workload: this binary started with MEMSTAT_RMSS_WSREAD=FILE maps FILE, reads one byte of
// every page three times and exits, before GoogleTest starts (the VMs have no other program to
// run on their disk; tests/tools/wsread.c is the same for the host's suite).
__attribute__((constructor)) void rmss_workload()
{
	const char *f = getenv("MEMSTAT_RMSS_WSREAD");
	struct stat st;
	volatile unsigned long sum = 0;

	if (!f)
		return;
	int fd = open(f, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		_exit(1);
	auto *p = static_cast<const unsigned char *>(mmap(nullptr, st.st_size, PROT_READ,
							  MAP_SHARED, fd, 0));
	if (p == MAP_FAILED)
		_exit(1);
	long pg = sysconf(_SC_PAGESIZE);
	for (int pass = 0; pass < 3; pass++)
		for (off_t off = 0; off < st.st_size; off += pg)
			sum += p[off];
	_exit(0);
}

// 1 or 2, mounting cgroup2 where no cgroup file system is mounted; 0 (why says why): none
int memory_cgroup(std::string &why)
{
	if (access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK) == 0)
		return 1;
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0)
		return 2;
	struct statfs sf;
	if (statfs("/sys/fs/cgroup", &sf) == 0 && sf.f_type != 0x62656572 /* SYSFS_MAGIC */) {
		why = "/sys/fs/cgroup holds neither a v1 memory controller nor cgroup2";
		return 0;
	}
	if (mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, nullptr) ||
	    access("/sys/fs/cgroup/cgroup.controllers", F_OK)) {
		why = std::string("no memory cgroup and cgroup2 cannot be mounted: ") + strerror(errno);
		return 0;
	}
	return 2;
}

// rmss's cgroups wherever they are made (under or beside memstat's own cgroup, docs/rmss.md)
std::vector<std::string> rmss_cgroups()
{
	std::vector<std::string> out;
	std::error_code ec;

	namespace fs = std::filesystem;

	for (auto it = fs::recursive_directory_iterator("/sys/fs/cgroup",
							fs::directory_options::skip_permission_denied, ec);
	     !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
		std::string name = it->path().filename().string();

		if (it->is_directory(ec) && name.rfind("memstat-rmss-", 0) == 0)
			out.push_back(it->path().string());
	}
	std::sort(out.begin(), out.end());
	return out;
}

} // namespace

TEST(Rmss, CgroupModeFindsTheWorkingSet)
{
	std::string why;
	struct statfs sf;

	if (geteuid() != 0)
		GTEST_SKIP() << "memstat rmss --cgroup needs root";
	int v = memory_cgroup(why);
	if (!v)
		GTEST_SKIP() << why;
	// a disk file system: a tmpfs file's pages are shmem, never read back from a disk
	ASSERT_EQ(statfs("/var/tmp", &sf), 0);
	if (sf.f_type == 0x01021994 /* TMPFS_MAGIC */ || sf.f_type == 0x858458f6 /* RAMFS */)
		GTEST_SKIP() << "/var/tmp is not on a disk";

	mstest::TempFile file("/var/tmp");
	ASSERT_TRUE(file.fill(kWorkingSetMb << 20));
	// cached pages stay charged to the cgroup that read them: the command's must read its own
	file.drop_cache();
	char rundir[] = "/tmp/memstat-rmss-run-XXXXXX";
	ASSERT_TRUE(mkdtemp(rundir));
	std::string out = std::string(rundir) + "/rmss.out";
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_GT(n, 0);
	exe[n] = '\0';
	auto before = rmss_cgroups();

	setenv("MEMSTAT_RMSS_WSREAD", file.path().c_str(), 1);
	setenv("MEMSTAT_RMSS_RUNDIR", rundir, 1);
	auto r = mstest::run_memstat({ "rmss", "--cgroup", "-s", "112", "-f", "48", "-d", "16", "-n",
				       "1", "-o", out, "--json", exe });
	unsetenv("MEMSTAT_RMSS_WSREAD");
	unsetenv("MEMSTAT_RMSS_RUNDIR");
	unlink(out.c_str());
	unlink((std::string(rundir) + "/memstat-rmss.lock").c_str());
	rmdir(rundir);

	ASSERT_EQ(r.status, 0) << r.out;
	EXPECT_EQ(rmss_cgroups(), before) << "the cgroup was left behind";
	auto j = mstest::json::parse(r.out);
	EXPECT_EQ(j["mode"], "cgroup");
	double file_pages = (double)(kWorkingSetMb << 20) / sysconf(_SC_PAGESIZE);
	std::vector<double> sizes;
	for (auto &s : j["sizes"]) {
		double mb = s["mb"];
		sizes.push_back(mb);
		EXPECT_EQ(s["oom_kills"], 0) << "cgroup v" << v << " at " << mb << " MB";
		// well above the working set nothing is paged in
		if (mb >= 1.25 * kWorkingSetMb) {
			EXPECT_LT(s["avg_pageins"].get<double>(), 0.01 * file_pages)
				<< "cgroup v" << v << " at " << mb << " MB";
		}
		// below it, what does not fit is read again in passes 2 and 3, whatever the kernel
		// keeps: no cache of mb can miss fewer than (working set - mb) pages a pass. Not a
		// whole file a pass: the kernel's refault detection (MGLRU's tiers, or the active
		// list) keeps part of the file resident, a 6.18 VM read 9341 pages at 48 MB
		if (mb < kWorkingSetMb) {
			double must = 2.0 * ((kWorkingSetMb - mb) * (1 << 20)) / sysconf(_SC_PAGESIZE);
			EXPECT_GE(s["avg_pageins"].get<double>(), must)
				<< "cgroup v" << v << " at " << mb << " MB";
		}
	}
	EXPECT_EQ(sizes, (std::vector<double>{ 112, 96, 80, 64, 48 }));
	// the knee lies within 25% above the working set
	ASSERT_TRUE(j["knee_mb"].is_number()) << r.out;
	EXPECT_GE(j["knee_mb"].get<double>(), (double)kWorkingSetMb) << "cgroup v" << v;
	EXPECT_LE(j["knee_mb"].get<double>(), 1.25 * kWorkingSetMb) << "cgroup v" << v;
}
