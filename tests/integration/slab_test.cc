// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat --by slab (groups.c key_slab, slabs.c, names.bpf.h slab_name): slab pages by cache,
// named from the caches themselves, against what the test allocates and /proc/slabinfo.
#include <fcntl.h>
#include <sys/stat.h>

#include <cstring>
#include <regex>

#include "helpers.h"

using namespace mstest;

namespace {

// n empty files in a new directory on the tmpfs /dev/shm: n shmem inodes and n dentries, in
// their slab caches; removed when it goes away.
class TmpfsFiles {
public:
	explicit TmpfsFiles(size_t n)
	{
		char tmpl[] = "/dev/shm/memstat-slab-XXXXXX";
		if (!mkdtemp(tmpl))
			return;
		dir_ = tmpl;
		for (size_t i = 0; i < n; i++) {
			int fd = open((dir_ + "/" + std::to_string(i)).c_str(),
				      O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
			if (fd < 0)
				return;
			close(fd);
			made_++;
		}
	}
	~TmpfsFiles()
	{
		for (size_t i = 0; i < made_; i++)
			unlink((dir_ + "/" + std::to_string(i)).c_str());
		if (!dir_.empty())
			rmdir(dir_.c_str());
	}
	size_t made() const { return made_; }

private:
	std::string dir_;
	size_t made_ = 0;
};

json group_named(const json &j, const std::string &name)
{
	for (const auto &g : j["groups"])
		if (g["name"] == name)
			return g;
	return json();
}

// 20000 tmpfs files: their inodes are at least 20000 slots of shmem_inode_cache, which the walk
// finds in that cache's group, named by the kernel, as many pages as /proc/slabinfo says.
TEST(BySlab, TmpfsInodesAreInTheirCache)
{
	const size_t n = 20000;
	TmpfsFiles files(n);
	ASSERT_EQ(files.made(), n) << strerror(errno);

	RunResult r = run_memstat({ "--by", "slab", "--top", "1000", "--json" });
	ASSERT_EQ(r.status, 0) << r.out;
	json j = json::parse(r.out);
	EXPECT_EQ(j["by"], "slab");
	json g = group_named(j, "shmem_inode_cache");
	ASSERT_FALSE(g.is_null()) << "no shmem_inode_cache group: " << r.out;
	EXPECT_EQ(g["cache"], true);
	long long pages = g["pages"]["total"], slot = g["slot_size"];
	ASSERT_GT(slot, 0) << g.dump();
	EXPECT_GE(g["object_size"].get<long long>(), 1);
	EXPECT_LE(g["object_size"].get<long long>(), slot);
	EXPECT_GE(pages * page_size(), (long long)n * slot) << "fewer pages than the files' inodes";
	EXPECT_EQ(g["pages"]["kernel"], pages) << "a slab cache's pages are all Kernel";
	// the cache's own count, read just after the walk: the test's files hold it still
	ASSERT_FALSE(g["slabinfo_pages"].is_null()) << g.dump();
	long long si = g["slabinfo_pages"];
	EXPECT_LE(std::llabs(pages - si), si / 50 + 32) << g.dump();

	// every slab page is in a cache's group, (cache unknown) or (large kmalloc); none is in
	// (none), and the groups add up to the walk's total
	long long total = j["other"]["pages"]["total"];
	for (const auto &x : j["groups"]) {
		total += x["pages"]["total"].get<long long>();
		if (x["name"] != "(none)")
			continue;
		for (const char *k : { "kernel_slab", "kernel_slab_unreclaimable",
				       "kernel_slab_reclaimable", "kernel_large_kmalloc" })
			EXPECT_TRUE(x["detail"][k].is_null() || x["detail"][k] == 0) << k << " in (none)";
	}
	EXPECT_EQ(total, j["total"].get<long long>());

	// no kernel address in what it prints: not in the JSON, not in the table
	std::regex addr("ffff[0-9a-f]{12}");
	EXPECT_FALSE(std::regex_search(r.out, addr)) << r.out;
	RunResult t = run_memstat({ "--by", "slab" });
	ASSERT_EQ(t.status, 0) << t.out;
	EXPECT_NE(t.out.find("shmem_inode_cache\n"), std::string::npos) << t.out;
	EXPECT_FALSE(std::regex_search(t.out, addr)) << t.out;
	for (const auto &x : j["groups"])
		for (auto it = x.begin(); it != x.end(); ++it)
			if (it->is_number_unsigned()) {
				EXPECT_LT(it->get<unsigned long long>(), 1ULL << 47) << it.key();
			}
}

}  // namespace
