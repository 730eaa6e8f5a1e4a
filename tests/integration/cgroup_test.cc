// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat --by cgroup (src/sys/cgroup.c, groups.c) and allpages --cgroup against the kernel's
// own memory.stat, with cgroups this test makes under the memory controller: v1 on the test
// machine, v2 in the VM matrix (which mounts no cgroup file system: the test mounts cgroup2
// itself when no memory hierarchy is mounted). Run as root.
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "helpers.h"
#include "cgroups.h"

extern "C" {
#include "cgroup.h"
#include "memstat_int.h"
#include "backend.h"
}

using namespace mstest;

namespace {

json by_cgroup(const std::vector<std::string> &extra = {})
{
	std::vector<std::string> args = { "--json", "--by", "cgroup" };
	args.insert(args.end(), extra.begin(), extra.end());
	RunResult r = run_memstat(args);
	EXPECT_EQ(r.status, 0) << "memstat --json --by cgroup";
	try {
		return json::parse(r.out);
	} catch (const std::exception &e) {
		ADD_FAILURE() << "invalid JSON: " << e.what() << "\n" << r.out;
		return json::object();
	}
}

// The group of cgroup id in a --by cgroup JSON, or null.
json group_of(const json &j, unsigned long long id)
{
	for (auto &g : j["groups"])
		if (g.contains("id") && g["id"].get<unsigned long long>() == id)
			return g;
	return nullptr;
}

long long pg(const json &g, const char *cls)
{
	return g["pages"][cls].get<long long>();
}

// memstat's classes as memory.stat counts them (docs/groups.md "--by cgroup"): anon is anon; file is
// shmem, exec and page cache (NR_FILE_PAGES); shmem is shmem. In bytes.
void walk_anon_file_shmem(const json &pages, long long *anon, long long *file, long long *shmem)
{
	long long ps = page_size();
	*anon = pages["anon"].get<long long>() * ps;
	*shmem = pages["shmem"].get<long long>() * ps;
	*file = (pages["shmem"].get<long long>() + pages["exec"].get<long long>() +
		 pages["page_cache"].get<long long>()) * ps;
}

// memory.stat's anon, file and shmem and the usage, read just before and just after a walk
struct Kernel {
	long long anon[2], file[2], shmem[2], usage;
};

void read_kernel(const Cgroup &cg, Kernel *k, int i)
{
	cg.anon_file_shmem(&k->anon[i], &k->file[i], &k->shmem[i]);
	if (i)
		k->usage = std::max(k->usage, cg.usage());
	else
		k->usage = cg.usage();
}

// How far v lies outside the values the counter had during the walk (between the readings).
long long off(long long v, const long long k[2])
{
	long long lo = std::min(k[0], k[1]), hi = std::max(k[0], k[1]);
	return v < lo ? lo - v : v > hi ? v - hi : 0;
}

// The walk's anon, file and shmem of a cgroup against its memory.stat, within 1% of its usage.
void expect_matches_memory_stat(const Kernel &k, const json &pages, const char *what)
{
	long long wa, wf, ws;
	walk_anon_file_shmem(pages, &wa, &wf, &ws);
	long long tol = k.usage / 100;
	EXPECT_LE(off(wa, k.anon), tol) << what << " anon: walk " << wa << " memory.stat "
					<< k.anon[0] << ".." << k.anon[1] << " bytes, usage " << k.usage;
	EXPECT_LE(off(wf, k.file), tol) << what << " file: walk " << wf << " memory.stat "
					<< k.file[0] << ".." << k.file[1] << " bytes, usage " << k.usage;
	EXPECT_LE(off(ws, k.shmem), tol) << what << " shmem: walk " << ws << " memory.stat "
					 << k.shmem[0] << ".." << k.shmem[1] << " bytes, usage "
					 << k.usage;
}

// One child cgroup holds 300 MiB of touched anon, 200 MiB of a file read into the page cache
// and a 64 MiB memfd; its empty sibling holds nothing. Each against its memory.stat, and their
// parent's --tree row against the parent's (hierarchical) memory.stat.
TEST(ByCgroup, WorkloadMatchesMemoryStat)
{
	Hierarchy h;
	if (!h.ok())
		GTEST_SKIP() << "no memory cgroup hierarchy: " << h.why;
	std::string top = test_name("by");
	Cgroup parent(h, top);
	ASSERT_TRUE(parent.ok()) << parent.err();
	ASSERT_TRUE(parent.give_memory_to_children()) << "+memory in cgroup.subtree_control";
	Cgroup child(h, top + "/workload"), sibling(h, top + "/empty");
	ASSERT_TRUE(child.ok()) << child.err();
	ASSERT_TRUE(sibling.ok()) << sibling.err();
	TempFile f("/var/tmp");
	ASSERT_GE(f.fd(), 0);
	const size_t anon_len = 300 * kMiB, file_len = 200 * kMiB, memfd_len = 64 * kMiB;
	Member m(child, [&] {
		char *a = (char *)mmap(nullptr, anon_len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED)
			return false;
		touch_write(a, anon_len);
		int mfd = memfd_create("memstat-cgroup-test", MFD_CLOEXEC);
		if (mfd < 0 || ftruncate(mfd, memfd_len))
			return false;
		char *s = (char *)mmap(nullptr, memfd_len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
		if (s == MAP_FAILED)
			return false;
		touch_write(s, memfd_len);
		return mlock(a, anon_len) == 0 && mlock(s, memfd_len) == 0 &&
		       fill_drop_read(f.fd(), file_len) && lock_file(f.fd(), file_len);
	});
	ASSERT_TRUE(m.ok()) << "the workload in " << child.dir() << " failed";

	Kernel kc, ks, kp;
	read_kernel(child, &kc, 0);
	read_kernel(sibling, &ks, 0);
	json j = by_cgroup();
	read_kernel(child, &kc, 1);
	read_kernel(sibling, &ks, 1);
	json g = group_of(j, child.id());
	ASSERT_FALSE(g.is_null()) << "no group for " << child.path() << " (id " << child.id() << ")";
	EXPECT_EQ(g["name"], child.path());
	EXPECT_EQ(g["removed"], false);
	EXPECT_EQ(g["parent_id"], parent.id());
	const long long ps = page_size();
	EXPECT_GE(pg(g, "anon") * ps, (long long)anon_len);
	EXPECT_GE((pg(g, "page_cache") + pg(g, "exec")) * ps, (long long)file_len);
	EXPECT_GE(pg(g, "shmem") * ps, (long long)memfd_len);
	expect_matches_memory_stat(kc, g["pages"], "the workload's cgroup");
	EXPECT_TRUE(group_of(j, sibling.id()).is_null())
		<< "the empty sibling has a group: " << group_of(j, sibling.id()).dump();
	expect_matches_memory_stat(ks, json{ { "anon", 0 }, { "shmem", 0 }, { "exec", 0 },
						   { "page_cache", 0 } },
				   "the empty sibling");

	// --tree: the parent's row is itself and the workload; against its memory.stat, which is
	// hierarchical, but whose counts the kernel may publish late (its statistics are flushed
	// up the tree when enough have changed, else every 2 s): in a CI run the parent's file
	// was 70 MB, the same before and after the walk, which found 276 MB in its subtree (and
	// matched the child's own memory.stat). Wait (10 s at most) until the parent's counts
	// hold its child's.
	for (int i = 0; i < 100; i++) {
		Kernel cc, pp;
		read_kernel(child, &cc, 0);
		read_kernel(parent, &pp, 0);
		if (pp.anon[0] >= cc.anon[0] && pp.file[0] >= cc.file[0] && pp.shmem[0] >= cc.shmem[0])
			break;
		usleep(100000);
	}
	read_kernel(parent, &kp, 0);
	json t = by_cgroup({ "--tree" });
	read_kernel(parent, &kp, 1);
	json tp = group_of(t, parent.id()), tc = group_of(t, child.id());
	ASSERT_FALSE(tp.is_null()) << "--tree has no row for " << parent.path();
	ASSERT_FALSE(tc.is_null()) << "--tree has no row for " << child.path();
	ASSERT_TRUE(tp.contains("tree") && tc.contains("tree")) << "--tree rows without tree";
	EXPECT_EQ(tp["name"], parent.path());
	EXPECT_EQ(tc["depth"].get<int>(), tp["depth"].get<int>() + 1);
	EXPECT_EQ(tp["tree"]["pages"]["total"].get<long long>(), pg(tp, "total") + pg(tc, "total"))
		<< "the parent's tree is itself and its one child with pages";
	EXPECT_EQ(tc["tree"]["pages"], tc["pages"]) << "a leaf's tree is itself";
	expect_matches_memory_stat(kp, tp["tree"]["pages"], "the parent's --tree row");
	size_t ip = 0, ic = 0;
	for (size_t i = 0; i < t["groups"].size(); i++) {
		if (t["groups"][i] == tp)
			ip = i;
		if (t["groups"][i] == tc)
			ic = i;
	}
	EXPECT_EQ(ic, ip + 1) << "depth first: the child right after its parent";
}

// What the kernel does with the pages of a removed cgroup: up to 6.18 a user folio points to
// its mem_cgroup, which stays (offline) as long as it has pages: they show as "(removed) id
// N". From 7.x the folio points to an obj_cgroup, which the kernel hands to the parent when
// the cgroup goes offline: the pages are then the parent's (docs/page-classes.md 3.8).
TEST(ByCgroup, RemovedCgroupsPagesAreItsOwnGroupOrTheParents)
{
	Hierarchy h;
	if (!h.ok())
		GTEST_SKIP() << "no memory cgroup hierarchy: " << h.why;
	int kind = memcg_kind();
	ASSERT_TRUE(kind == MS_MEMCG_DIRECT || kind == MS_MEMCG_OBJCG)
		<< "the probe could not tell what a user folio's memcg_data points to";

	std::string top = test_name("removed");
	Cgroup parent(h, top);
	ASSERT_TRUE(parent.ok()) << parent.err();
	ASSERT_TRUE(parent.give_memory_to_children());
	Cgroup gone(h, top + "/gone");
	ASSERT_TRUE(gone.ok()) << gone.err();
	TempFile f("/var/tmp");
	ASSERT_GE(f.fd(), 0);
	const size_t len = 32 * kMiB;
	// the reader stays, locking the file's pages, but moves to the root: its charges stay
	Member m(gone, [&] { return fill_drop_read(f.fd(), len) && lock_file(f.fd(), len); });
	ASSERT_TRUE(m.ok()) << "the reader in " << gone.dir() << " failed";
	unsigned long long id = gone.id();
	ASSERT_TRUE(gone.remove()) << "its processes moved out, the cgroup removed";
	ASSERT_NE(access((h.mount + "/" + top + "/gone").c_str(), F_OK), 0);

	json j = by_cgroup();
	json g = group_of(j, id), p = group_of(j, parent.id());
	const long long want = len / page_size();
	if (kind == MS_MEMCG_DIRECT) {
		ASSERT_FALSE(g.is_null()) << "no group for the removed cgroup's id " << id;
		EXPECT_EQ(g["name"], "(removed) id " + std::to_string(id));
		EXPECT_EQ(g["removed"], true);
		EXPECT_TRUE(g["parent_id"].is_null());
		EXPECT_GE(pg(g, "page_cache"), want) << "the file's pages stay charged to it";
		// allpages --cgroup ID finds a removed cgroup's pages by its id
		RunResult r = run_memstat({ "allpages", "--cgroup", std::to_string(id), "--class",
					    "page_cache", "--format", "csv" });
		EXPECT_EQ(r.status, 0);
		EXPECT_GE((long long)std::count(r.out.begin(), r.out.end(), '\n') - 1, want);
	} else {
		EXPECT_TRUE(g.is_null()) << "the removed cgroup's pages were to go to the parent: "
					 << g.dump();
		ASSERT_FALSE(p.is_null()) << "no group for the parent " << parent.path();
		EXPECT_GE(pg(p, "page_cache"), want)
			<< "the file's pages, reparented; where the file's pages are now: "
			<< file_pages_by(f.path(), { "cgroup", "subclass", "order" })
			<< "; parent id " << parent.id();
	}
}

// Removed cgroups still charged with a few pages (often dozens on a busy machine) are noise: by
// default one under 1 MB is summed into (other), counted in other.removed_cgroups and said under
// the table; --min 0 shows every group, --min SIZE folds any group under SIZE.
TEST(ByCgroup, SmallRemovedCgroupsAreFoldedUnlessAsked)
{
	Hierarchy h;
	if (!h.ok())
		GTEST_SKIP() << "no memory cgroup hierarchy: " << h.why;
	int kind = memcg_kind();
	if (kind != MS_MEMCG_DIRECT)
		GTEST_SKIP() << "from 7.x the pages of a removed cgroup are its parent's: no removed "
				"cgroup has pages to fold";
	std::string top = test_name("small-removed");
	Cgroup parent(h, top);
	ASSERT_TRUE(parent.ok()) << parent.err();
	ASSERT_TRUE(parent.give_memory_to_children());
	Cgroup gone(h, top + "/gone");
	ASSERT_TRUE(gone.ok()) << gone.err();
	TempFile f("/var/tmp");
	ASSERT_GE(f.fd(), 0);
	const size_t len = 256 * 1024;
	Member m(gone, [&] {	/* 256 KiB of page cache charged to it */
		std::vector<char> buf(len, 's');
		return ::write(f.fd(), buf.data(), len) == (ssize_t)len && !fsync(f.fd()) &&
		       !posix_fadvise(f.fd(), 0, 0, POSIX_FADV_DONTNEED) &&
		       pread(f.fd(), buf.data(), len, 0) == (ssize_t)len && lock_file(f.fd(), len);
	});
	ASSERT_TRUE(m.ok()) << "the reader in " << gone.dir() << " failed";
	unsigned long long id = gone.id();
	ASSERT_TRUE(gone.remove());

	json j = by_cgroup();
	EXPECT_TRUE(group_of(j, id).is_null()) << "a removed cgroup of 256 KiB is shown";
	EXPECT_GE(j["other"]["removed_cgroups"].get<long long>(), 1) << j["other"].dump();
	EXPECT_GE(j["other"]["groups"].get<long long>(),
		  j["other"]["removed_cgroups"].get<long long>());
	json all = by_cgroup({ "--min", "0" });
	json g = group_of(all, id);
	ASSERT_FALSE(g.is_null()) << "--min 0 does not show the removed cgroup";
	EXPECT_EQ(g["removed"], true);
	EXPECT_EQ(all["other"]["groups"], 0);
	RunResult t = run_memstat({ "--by", "cgroup" });
	EXPECT_NE(t.out.find(" removed cgroups of under 1 MB each are in (other): --min 0 shows "
			     "them)\n"), std::string::npos) << t.out;
	json big = by_cgroup({ "--min", "1G" });
	for (auto &x : big["groups"]) {
		if (x["name"] != "(none)") {
			EXPECT_GE(x["pages"]["total"].get<long long>() * page_size(), 1LL << 30)
				<< x.dump();
		}
	}
	EXPECT_EQ(big["other"]["removed_cgroups"], 0) << "--min counts no removed cgroup apart";
}

// In a container the memory hierarchy's mount shows part of it (a bind-mounted subtree, a cgroup
// namespace): a cgroup outside that view is alive, not removed. memstat runs in a mount
// namespace whose only memory hierarchy mount is a bind mount of top/inner, while a process in
// top/outer (outside that view; a sibling, since a v2 cgroup that gives its children the memory
// controller holds no process) holds anon pages: outer's group is "(outside this view) id N",
// with removed false and outside_view true. (A removed cgroup is still "(removed)":
// RemovedCgroupsPagesAreItsOwnGroupOrTheParents.)
TEST(ByCgroup, CgroupsOutsideTheMountsViewAreNotRemoved)
{
	Hierarchy h;
	if (!h.ok())
		GTEST_SKIP() << "no memory cgroup hierarchy: " << h.why;
	std::string top = test_name("view");
	Cgroup parent(h, top);
	ASSERT_TRUE(parent.ok()) << parent.err();
	ASSERT_TRUE(parent.give_memory_to_children());
	Cgroup inner(h, top + "/inner");
	ASSERT_TRUE(inner.ok()) << inner.err();
	Cgroup outer(h, top + "/outer");
	ASSERT_TRUE(outer.ok()) << outer.err();
	const size_t len = 16 * kMiB;
	Member m(outer, [&] {
		void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		return p != MAP_FAILED && memset(p, 0x5a, len) == p;
	});
	ASSERT_TRUE(m.ok()) << "the process in " << outer.dir() << " failed";
	char view[] = "/tmp/memstat-test-view-XXXXXX";
	ASSERT_TRUE(mkdtemp(view)) << strerror(errno);
	int out[2];
	ASSERT_EQ(pipe(out), 0);
	pid_t pid = fork();
	if (pid == 0) {
		// the container's view: inner bind-mounted, every other mount of the hierarchy gone
		// (memstat's lookup prefers them: they show its root)
		if (unshare(CLONE_NEWNS) || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) ||
		    mount(inner.dir().c_str(), view, nullptr, MS_BIND, nullptr))
			_exit(126);
		for (int i = 0; i < 16; i++) {
			char *mnt = nullptr, *root = nullptr;
			int v = 0;
			if (ms_cgroup_find_mount("/proc/self/mountinfo", &mnt, &root, &v))
				_exit(126);
			bool ours = !strcmp(mnt, view);
			if (!ours && umount2(mnt, MNT_DETACH))
				_exit(126);
			free(mnt);
			free(root);
			if (ours)
				break;
		}
		dup2(out[1], 1);
		close(out[0]);
		close(out[1]);
		std::string path = memstat_path();
		execl(path.c_str(), path.c_str(), "--json", "--by", "cgroup", (char *)nullptr);
		_exit(127);
	}
	close(out[1]);
	std::string text;
	char buf[65536];
	ssize_t n;
	while ((n = read(out[0], buf, sizeof(buf))) > 0)
		text.append(buf, n);
	close(out[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	rmdir(view);
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		<< "memstat in the container's view: status " << st << "\n" << text;
	json j = json::parse(text);
	json g = group_of(j, outer.id());
	ASSERT_FALSE(g.is_null()) << "no group for " << outer.path() << ", id " << outer.id();
	EXPECT_EQ(g["name"], "(outside this view) id " + std::to_string(outer.id()));
	EXPECT_EQ(g["removed"], false);
	EXPECT_EQ(g["outside_view"], true);
	EXPECT_GE(pg(g, "anon"), (long long)(len / page_size())) << g.dump();
}

// allpages --cgroup PATH prints the pages --by cgroup counts for it (walks before and after
// bound the count: nothing of the cgroup's changes between them but what the kernel moves).
TEST(ByCgroup, AllpagesCgroupCountsTheGroupsPages)
{
	Hierarchy h;
	if (!h.ok())
		GTEST_SKIP() << "no memory cgroup hierarchy: " << h.why;
	std::string top = test_name("allpages");
	Cgroup cg(h, top);
	ASSERT_TRUE(cg.ok()) << cg.err();
	const size_t len = 32 * kMiB;
	Member m(cg, [&] {
		char *a = (char *)mmap(nullptr, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED)
			return false;
		touch_write(a, len);
		return mlock(a, len) == 0;
	});
	ASSERT_TRUE(m.ok());
	json g1 = group_of(by_cgroup(), cg.id());
	RunResult r = run_memstat({ "allpages", "--cgroup", cg.path(), "--format", "csv" });
	json g2 = group_of(by_cgroup(), cg.id());
	ASSERT_EQ(r.status, 0);
	ASSERT_FALSE(g1.is_null());
	ASSERT_FALSE(g2.is_null());
	long long n = (long long)std::count(r.out.begin(), r.out.end(), '\n') - 1;	// the header
	long long lo = std::min(pg(g1, "total"), pg(g2, "total"));
	long long hi = std::max(pg(g1, "total"), pg(g2, "total"));
	EXPECT_GE(n, lo);
	EXPECT_LE(n, hi);
	EXPECT_GE(n, (long long)(len / page_size()));
	// every record is the cgroup's: the cgroup column is its id
	std::istringstream in(r.out);
	std::string line, id = std::to_string(cg.id());
	std::getline(in, line);
	long long others = 0;
	while (std::getline(in, line)) {
		size_t c = 0, k = 0;
		for (; k < 12 && c != std::string::npos; k++)
			c = line.find(',', c + 1);	// the 13th column: cgroup
		size_t e = line.find(',', c + 1);
		if (c == std::string::npos || line.substr(c + 1, e - c - 1) != id)
			others++;
	}
	EXPECT_EQ(others, 0);
	// the same cgroup by its directory and by its id
	RunResult byid = run_memstat({ "allpages", "--cgroup", id, "--format", "csv", "--class", "anon" });
	RunResult bydir = run_memstat({ "allpages", "--cgroup", cg.dir(), "--format", "csv", "--class", "anon" });
	EXPECT_EQ(byid.status, 0);
	EXPECT_EQ(bydir.status, 0);
	EXPECT_GE((long long)std::count(byid.out.begin(), byid.out.end(), '\n') - 1,
		  (long long)(len / page_size()));
	EXPECT_GE((long long)std::count(bydir.out.begin(), bydir.out.end(), '\n') - 1,
		  (long long)(len / page_size()));
	// a path that is no cgroup: exit 2, nothing on stdout
	RunResult bad = run_memstat({ "allpages", "--cgroup", "/" + top + "/no-such-cgroup" });
	EXPECT_EQ(bad.status, 2);
	EXPECT_EQ(bad.out, "");
}

} // namespace
