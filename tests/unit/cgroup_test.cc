// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Memory cgroups (src/sys/cgroup.c): the memory controller's mount in mountinfo (v1, v2,
// hybrid), a process's cgroup directory (rmss --cgroup), the directory walk that names ids,
// --cgroup's PATH|ID and --tree's totals.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

extern "C" {
#include "cgroup.h"
}

namespace {

struct TempDir {
	std::string dir;

	TempDir()
	{
		char tmpl[] = "/tmp/memstat-cgroup-XXXXXX";
		dir = mkdtemp(tmpl);
	}
	~TempDir() { std::system(("rm -rf '" + dir + "'").c_str()); }
	std::string mkdirs(const std::string &rel)
	{
		std::string p = dir;
		size_t s = 0;
		while (s != std::string::npos) {
			size_t e = rel.find('/', s);
			p = dir + "/" + rel.substr(0, e);
			mkdir(p.c_str(), 0755);
			s = e == std::string::npos ? e : e + 1;
		}
		return p;
	}
	std::string write(const std::string &rel, const std::string &text)
	{
		std::ofstream(dir + "/" + rel) << text;
		return dir + "/" + rel;
	}
};

unsigned long long ino(const std::string &path)
{
	struct stat st;
	return stat(path.c_str(), &st) ? 0 : (unsigned long long)st.st_ino;
}

struct Found {
	int err = 0, version = 0;
	std::string mount, root;
};

Found find(const std::string &mountinfo)
{
	Found f;
	char *m = nullptr, *r = nullptr;
	f.err = ms_cgroup_find_mount(mountinfo.c_str(), &m, &r, &f.version);
	f.mount = m ? m : "";
	f.root = r ? r : "";
	free(m);
	free(r);
	return f;
}

const char kHybrid[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

TEST(CgroupMount, V1MemoryHierarchyOfAHybridSystem)
{
	TempDir t;
	Found f = find(t.write("mountinfo", kHybrid));
	EXPECT_EQ(f.err, 0);
	EXPECT_EQ(f.version, 1);
	EXPECT_EQ(f.mount, "/sys/fs/cgroup/memory");
	EXPECT_EQ(f.root, "/");
}

TEST(CgroupMount, MemoryIsAWholeOptionNotAPrefix)
{
	TempDir t;
	Found f = find(t.write("mountinfo",
			       "35 31 0:32 / /x rw - cgroup cgroup rw,memory_recursiveprot\n"
			       "36 31 0:33 / /y rw - cgroup cgroup rw,cpu,memory\n"));
	EXPECT_EQ(f.err, 0);
	EXPECT_EQ(f.mount, "/y");
}

TEST(CgroupMount, V2WhenItsControllersListMemory)
{
	TempDir t;
	std::string with = t.mkdirs("with"), without = t.mkdirs("without");
	t.write("with/cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
	t.write("without/cgroup.controllers", "cpuset cpu io pids\n");
	Found f = find(t.write("mi1", "29 23 0:26 / " + without + " rw - cgroup2 cgroup2 rw\n"));
	EXPECT_EQ(f.err, -ENOENT) << "a v2 hierarchy without the memory controller";
	f = find(t.write("mi2", "29 23 0:26 / " + without + " rw - cgroup2 cgroup2 rw\n"
				"30 23 0:26 / " + with + " rw - cgroup2 cgroup2 rw,nsdelegate\n"));
	EXPECT_EQ(f.err, 0);
	EXPECT_EQ(f.version, 2);
	EXPECT_EQ(f.mount, with);
}

TEST(CgroupMount, TheHierarchysRootBeforeAMountOfACgroupBelowIt)
{
	TempDir t;
	Found f = find(t.write("mountinfo",
			       "50 31 0:32 /docker/abc /in/container rw - cgroup cgroup rw,memory\n"
			       "35 31 0:32 / /sys/fs/cgroup/mem\\040ory rw - cgroup cgroup rw,memory\n"));
	EXPECT_EQ(f.err, 0);
	EXPECT_EQ(f.mount, "/sys/fs/cgroup/mem ory") << "mountinfo's \\040 is a space";
	f = find(t.write("mountinfo2",
			 "50 31 0:32 /docker/abc /in/container rw - cgroup cgroup rw,memory\n"));
	EXPECT_EQ(f.mount, "/in/container");
	EXPECT_EQ(f.root, "/docker/abc") << "paths are the cgroups' own, from the mount's root";
}

TEST(CgroupMount, NoneMounted)
{
	TempDir t;
	EXPECT_EQ(find(t.write("mountinfo", "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n")).err,
		  -ENOENT);
	EXPECT_EQ(find(t.dir + "/no-such-file").err, -ENOENT);
}

TEST(CgroupMount, FreezerOnlyOnV1)
{
	TempDir t;
	std::string v2 = t.mkdirs("v2");
	t.write("v2/cgroup.controllers", "cpuset cpu io memory pids\n");
	char *m = nullptr, *r = nullptr;
	int v = 0;
	std::string mi = t.write("mountinfo",
				 std::string(kHybrid) +
				 "36 31 0:33 / /sys/fs/cgroup/freezer rw - cgroup cgroup rw,freezer\n");
	ASSERT_EQ(ms_cgroup_find_controller(mi.c_str(), "freezer", &m, &r, &v), 0);
	EXPECT_STREQ(m, "/sys/fs/cgroup/freezer");
	EXPECT_EQ(v, 1);
	free(m);
	free(r);
	mi = t.write("mountinfo2", "29 23 0:26 / " + v2 + " rw - cgroup2 cgroup2 rw\n");
	EXPECT_EQ(ms_cgroup_find_controller(mi.c_str(), "freezer", &m, &r, &v), -ENOENT)
		<< "v2 freezes through cgroup.freeze: no controller to find";
	EXPECT_EQ(m, nullptr);
}

std::string proc_path(const std::string &text, int version, const char *ctrl, int *err,
		      size_t len = 4096)
{
	std::vector<char> t(text.begin(), text.end()), buf(len);
	t.push_back('\0');
	*err = ms_cgroup_proc_path(t.data(), version, ctrl, buf.data(), len);
	return *err ? "" : std::string(buf.data());
}

TEST(CgroupProcPath, TheLineOfTheHierarchy)
{
	const std::string hybrid = "12:freezer:/\n"
				   "11:cpu,cpuacct:/user.slice\n"
				   "6:memory_x:/wrong\n"
				   "5:memory:/user.slice/user-0.slice/session-1.scope\n"
				   "1:name=systemd:/user.slice/user-0.slice/session-1.scope\n"
				   "0::/user.slice/user-0.slice/session-1.scope\n";
	int err;
	EXPECT_EQ(proc_path(hybrid, 1, "memory", &err),
		  "/user.slice/user-0.slice/session-1.scope");
	EXPECT_EQ(proc_path(hybrid, 1, "cpuacct", &err), "/user.slice") << "one of several";
	EXPECT_EQ(proc_path(hybrid, 1, "freezer", &err), "/") << "the root";
	EXPECT_EQ(proc_path(hybrid, 2, nullptr, &err), "/user.slice/user-0.slice/session-1.scope");
	proc_path("0::/a\n", 1, "memory", &err);
	EXPECT_EQ(err, -ENOENT) << "no v1 memory line";
	proc_path("5:memory:/a\n", 2, nullptr, &err);
	EXPECT_EQ(err, -ENOENT) << "no v2 line";
	proc_path("junk\n\n::\n", 2, nullptr, &err);
	EXPECT_EQ(err, -ENOENT);
	proc_path("0::/a/very/long/path\n", 2, nullptr, &err, 8);
	EXPECT_EQ(err, -ENAMETOOLONG);
}

/*
 * This process's own cgroup directory under a mount described by a mountinfo written here, on
 * whichever hierarchy this machine has the memory controller on.
 */
TEST(CgroupDirOf, TheMountPointAndThePathBelowTheMountsRoot)
{
	TempDir t;
	char text[8192] = "", dir[4096];
	std::ifstream("/proc/self/cgroup").read(text, sizeof(text) - 1);
	std::string own(text);
	int err, v1 = 0, v = 0;
	std::string path = proc_path(own, 1, "memory", &err);
	if (!err) {
		v1 = 1;
	} else {
		path = proc_path(own, 2, nullptr, &err);
		ASSERT_EQ(err, 0) << "no cgroup line in /proc/self/cgroup";
	}
	std::string point = t.mkdirs("mnt");
	t.write("mnt/cgroup.controllers", "cpu memory pids\n");
	auto line = [&](const std::string &root) {
		return "35 31 0:32 " + root + " " + point + " rw - " +
		       (v1 ? "cgroup cgroup rw,memory\n" : "cgroup2 cgroup2 rw\n");
	};
	std::string mi = t.write("mi-root", line("/"));
	ASSERT_EQ(ms_cgroup_dir_of(mi.c_str(), getpid(), "memory", dir, sizeof(dir), &v), 0);
	EXPECT_EQ(v, v1 ? 1 : 2);
	EXPECT_EQ(std::string(dir), path == "/" ? point : point + path);

	mi = t.write("mi-own", line(path));
	ASSERT_EQ(ms_cgroup_dir_of(mi.c_str(), getpid(), "memory", dir, sizeof(dir), &v), 0);
	EXPECT_EQ(std::string(dir), point) << "a mount of this very cgroup shows it at its point";

	mi = t.write("mi-other", line("/memstat-no-such-cgroup"));
	EXPECT_EQ(ms_cgroup_dir_of(mi.c_str(), getpid(), "memory", dir, sizeof(dir), &v), -ENOENT)
		<< "a mount that does not show this process's cgroup";
	EXPECT_EQ(v, 0);
	mi = t.write("mi-root", line("/"));
	EXPECT_EQ(ms_cgroup_dir_of(mi.c_str(), getpid(), "memory", dir, 4, &v), -ENAMETOOLONG);
	mi = t.write("mi-none", "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n");
	EXPECT_EQ(ms_cgroup_dir_of(mi.c_str(), getpid(), "memory", dir, sizeof(dir), &v), -ENOENT);
}

struct Scanned {
	TempDir t;
	ms_cgroups cg = {};

	explicit Scanned(const char *root = "/")
	{
		t.mkdirs("a/b/c");
		t.mkdirs("a/d");
		t.mkdirs("e");
		t.write("a/memory.stat", "anon 0\n");	// files are not cgroups
		EXPECT_EQ(ms_cgroups_scan(&cg, t.dir.c_str(), root), 0);
	}
	~Scanned() { ms_cgroups_free(&cg); }
};

TEST(CgroupScan, EveryDirectoryByInodeWithItsParentAndDepth)
{
	Scanned s;
	ASSERT_EQ(s.cg.n, 6u);
	struct Want {
		const char *rel, *path, *parent;
		unsigned depth;
	} want[] = { { "", "/", nullptr, 0 },     { "a", "/a", "", 1 },
		     { "a/b", "/a/b", "a", 2 },  { "a/b/c", "/a/b/c", "a/b", 3 },
		     { "a/d", "/a/d", "a", 2 },  { "e", "/e", "", 1 } };
	for (auto &w : want) {
		std::string dir = s.t.dir + (*w.rel ? "/" : "") + w.rel;
		const ms_cgroup *c = ms_cgroups_find(&s.cg, ino(dir));
		ASSERT_NE(c, nullptr) << w.rel;
		EXPECT_STREQ(c->path, w.path);
		EXPECT_EQ(c->depth, w.depth) << w.path;
		EXPECT_EQ(c->parent, w.parent ? ino(s.t.dir + (*w.parent ? "/" : "") + w.parent) : 0)
			<< w.path;
	}
	EXPECT_EQ(ms_cgroups_find(&s.cg, ino(s.t.dir + "/a/memory.stat")), nullptr);
}

TEST(CgroupScan, PathsStartAtTheMountsRoot)
{
	Scanned s("/docker/abc");
	const ms_cgroup *c = ms_cgroups_find(&s.cg, ino(s.t.dir + "/a/b"));
	ASSERT_NE(c, nullptr);
	EXPECT_STREQ(c->path, "/docker/abc/a/b");
	c = ms_cgroups_find(&s.cg, ino(s.t.dir));
	ASSERT_NE(c, nullptr);
	EXPECT_STREQ(c->path, "/docker/abc");
}

TEST(CgroupResolve, IdPathOrDirectory)
{
	Scanned s;
	__u64 id = 0;
	unsigned long long b = ino(s.t.dir + "/a/b");
	EXPECT_EQ(ms_cgroup_resolve(&s.cg, "/a/b", &id), 0);
	EXPECT_EQ(id, b);
	id = 0;
	EXPECT_EQ(ms_cgroup_resolve(&s.cg, "a/b/", &id), 0);
	EXPECT_EQ(id, b);
	id = 0;
	EXPECT_EQ(ms_cgroup_resolve(&s.cg, (s.t.dir + "/a/b").c_str(), &id), 0);
	EXPECT_EQ(id, b);
	EXPECT_EQ(ms_cgroup_resolve(&s.cg, "/", &id), 0);
	EXPECT_EQ(id, ino(s.t.dir));
	EXPECT_EQ(ms_cgroup_resolve(&s.cg, "123456789", &id), 0) << "an id: a removed cgroup's too";
	EXPECT_EQ(id, 123456789u);
	EXPECT_EQ(ms_cgroup_resolve(&s.cg, "/a/x", &id), -ENOENT);
	EXPECT_EQ(ms_cgroup_resolve(&s.cg, "/proc", &id), -ENOENT) << "a directory on another file system";
	EXPECT_EQ(ms_cgroup_resolve(&s.cg, "0", &id), -ENOENT) << "0 is no cgroup";
	EXPECT_EQ(ms_cgroup_resolve(&s.cg, "99999999999999999999999", &id), -ENOENT);
	EXPECT_EQ(ms_cgroup_resolve(&s.cg, "", &id), -ENOENT);
	char *name = ms_cgroup_name(&s.cg, b, nullptr);
	EXPECT_STREQ(name, "/a/b");
	free(name);
	name = ms_cgroup_name(&s.cg, 123456789, nullptr);
	EXPECT_STREQ(name, "(removed) id 123456789");
	free(name);
}

// Two sub-classes; groups: / 1+0, /a/b 10+1, /a/b/c 5+5, /e 2+0, removed 77: 3+0, removed 78:
// 30+0. /a and /a/d have no pages of their own, /a/d none below it either.
TEST(CgroupTree, SubtreeTotalsDepthFirstRemovedAfter)
{
	Scanned s;
	std::vector<__u64> ids = { ino(s.t.dir), ino(s.t.dir + "/a/b"), ino(s.t.dir + "/a/b/c"),
				   ino(s.t.dir + "/e"), 77, 78 };
	std::vector<__u64> own = { 1, 0, 10, 1, 5, 5, 2, 0, 3, 0, 30, 0 };
	ms_cgroup_row *rows = nullptr;
	size_t n = 0;
	ASSERT_EQ(ms_cgroup_tree(&s.cg, ids.data(), own.data(), ids.size(), 2, 2, &rows, &n), 0);
	struct Want {
		__u64 id;
		unsigned depth;
		size_t group;
		__u64 t0, t1, total;
		bool removed;
	} want[] = {
		{ ino(s.t.dir), 0, 0, 18, 6, 24, false },
		{ ino(s.t.dir + "/a"), 1, (size_t)-1, 15, 6, 21, false },
		{ ino(s.t.dir + "/a/b"), 2, 1, 15, 6, 21, false },
		{ ino(s.t.dir + "/a/b/c"), 3, 2, 5, 5, 10, false },
		{ ino(s.t.dir + "/e"), 1, 3, 2, 0, 2, false },
		{ 78, 0, 5, 30, 0, 30, true },
		{ 77, 0, 4, 3, 0, 3, true },
	};
	ASSERT_EQ(n, sizeof(want) / sizeof(want[0])) << "/a/d has no pages: no row";
	for (size_t i = 0; i < n; i++) {
		EXPECT_EQ(rows[i].id, want[i].id) << "row " << i;
		EXPECT_EQ(rows[i].depth, want[i].depth) << "row " << i;
		EXPECT_EQ(rows[i].group, want[i].group) << "row " << i;
		EXPECT_EQ(rows[i].tree[0], want[i].t0) << "row " << i;
		EXPECT_EQ(rows[i].tree[1], want[i].t1) << "row " << i;
		EXPECT_EQ(rows[i].tree_total, want[i].total) << "row " << i;
		EXPECT_EQ(rows[i].removed, want[i].removed) << "row " << i;
	}
	ms_cgroup_rows_free(rows, n);
}

} // namespace
