// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat --by node, zone and fs (src/core/groups.c) against the kernel's own counters:
// /sys/devices/system/node/node*/meminfo, /proc/zoneinfo, and the file systems of files this
// test reads. Run as root; the node test runs on more than one node in the VM matrix's
// two-node boot (tools/vm/matrix.sh).
#include <glob.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "helpers.h"

extern "C" {
#include "memstat_int.h"
#include "meminfo.h"
#include "backend.h"
#include "groups.h"
}

using namespace mstest;

namespace {

const long kMiB = 1 << 20;

// One --by walk as JSON; fails the test when memstat fails.
json by(const std::vector<std::string> &args)
{
	std::vector<std::string> a = { "--json" };
	a.insert(a.end(), args.begin(), args.end());
	RunResult r = run_memstat(a);
	EXPECT_EQ(r.status, 0) << "memstat --json " << args[0] << " " << args[1];
	try {
		return json::parse(r.out);
	} catch (const std::exception &e) {
		ADD_FAILURE() << "invalid JSON: " << e.what() << "\n" << r.out;
		return json::object();
	}
}

long long d(const json &g, const char *sub)
{
	return g["detail"][sub].get<long long>();
}

// The counters the reconciliation compares (meminfo.c ms_reconcile_between()), per group,
// but for free: a zone's NR_FREE_PAGES (zoneinfo "pages free", node MemFree) counts buddy and
// unaccepted blocks. Uninitialised struct pages exist at run time only on the lazy-init test
// kernel (docs/page-classes.md 1.4), whose patch counts them in the global MemFree alone:
// NodeMeminfoFreeLacksOnlyUninitialised checks that.
long long walk_free(const json &g)
{
	return d(g, "free_buddy") + d(g, "free_unaccepted");
}
long long walk_anon(const json &g)
{
	return d(g, "anon_private") + d(g, "anon_swapcache") + d(g, "anon_ksm");
}
long long walk_file(const json &g)
{
	return d(g, "page_cache_file") + d(g, "exec") + d(g, "page_cache_buffers") +
	       d(g, "page_cache_swapcache") + d(g, "shmem") + d(g, "anon_swapcache");
}

// "Node N Field: V kB" of every node, in pages: node -> field -> pages
std::map<int, std::map<std::string, long long>> node_meminfo()
{
	std::map<int, std::map<std::string, long long>> m;
	glob_t gl;
	if (glob("/sys/devices/system/node/node*/meminfo", 0, nullptr, &gl))
		return m;
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		std::istringstream in(read_file(gl.gl_pathv[i]));
		std::string line;
		while (std::getline(in, line)) {
			int node;
			char field[64];
			long long kb;
			if (sscanf(line.c_str(), "Node %d %63[^:]: %lld", &node, field, &kb) == 3)
				m[node][field] = kb * 1024 / page_size();
		}
	}
	globfree(&gl);
	return m;
}

struct Zone {
	long long free = -1, spanned = -1, present = -1, managed = -1, start = -1;
};

// "node/zone" -> its /proc/zoneinfo counters
std::map<std::string, Zone> zoneinfo()
{
	std::map<std::string, Zone> m;
	std::istringstream in(read_file("/proc/zoneinfo"));
	std::string line, cur;
	while (std::getline(in, line)) {
		int node;
		char name[32];
		long long v;
		if (sscanf(line.c_str(), "Node %d, zone %31s", &node, name) == 2) {
			cur = std::to_string(node) + "/" + name;
			continue;
		}
		if (cur.empty())
			continue;
		Zone &z = m[cur];
		if (sscanf(line.c_str(), " pages free %lld", &v) == 1)
			z.free = v;
		else if (sscanf(line.c_str(), " spanned %lld", &v) == 1)
			z.spanned = v;
		else if (sscanf(line.c_str(), " present %lld", &v) == 1)
			z.present = v;
		else if (sscanf(line.c_str(), " managed %lld", &v) == 1)
			z.managed = v;
		else if (sscanf(line.c_str(), " start_pfn: %lld", &v) == 1)
			z.start = v;
	}
	return m;
}

// The reconciliation's rule (meminfo.c row()): the walk agrees with a counter read before (b)
// and after (a) it when it lies within tol pages of some value between the two readings.
::testing::AssertionResult agrees(const char *what, long long walk, long long b, long long a,
				  long long tol)
{
	long long lo = std::min(a, b), hi = std::max(a, b);
	long long diff = walk < lo ? lo - walk : walk > hi ? walk - hi : 0;
	if (diff <= tol)
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure() << what << ": walk " << walk << " pages, counter "
					     << b << " before and " << a << " after, off by "
					     << diff << " > " << tol << " pages";
}

// The groups and other add up to the walk's total; each group's pages add up to its total.
void expect_sums(const json &j)
{
	long long sum = j["other"]["pages"]["total"].get<long long>();
	for (auto &g : j["groups"]) {
		long long classes = 0, subs = 0;
		for (auto &[k, v] : g["pages"].items())
			if (k != "total")
				classes += v.get<long long>();
		for (auto &[k, v] : g["detail"].items())
			subs += v.is_null() ? 0 : v.get<long long>();	/* slab: whole or split */
		EXPECT_EQ(classes, g["pages"]["total"].get<long long>()) << g.dump();
		EXPECT_EQ(subs, classes) << g.dump();
		sum += g["pages"]["total"].get<long long>();
	}
	EXPECT_EQ(sum, j["total"].get<long long>());
}

// The rows of the table (Total MB is the first column) add up to its Total row, within the
// rounding of each row to a whole MB.
TEST(ByNode, TableRowsAddUpToTotal)
{
	RunResult r = run_memstat({ "--by", "zone" });
	ASSERT_EQ(r.status, 0);
	std::istringstream in(r.out);
	std::string line;
	std::getline(in, line);
	EXPECT_EQ(line.find("Total MB"), 2u) << line;
	double sum = 0, total = -1;
	int rows = 0;
	while (std::getline(in, line)) {
		if (line.empty() || line[0] == '(')
			continue;
		double mb = std::stod(line.substr(0, 10));
		if (line.size() > 6 && line.compare(line.size() - 6, 6, " Total") == 0)
			total = mb;
		else {
			sum += mb;
			rows++;
		}
	}
	ASSERT_GE(rows, 1);
	EXPECT_NEAR(sum, total, rows * 0.5 + 0.5);
}

// A --by walk in this process, with the kernel's counters (read()) read just before and just
// after the walk itself: memstat run as a command holds its own memory (some 16 MB of anon and heap on the
// 6.1 VM) only while it runs, where readings taken around the command cannot see it, and on a
// 3 GiB VM that is more than the tolerance. A first walk allocates what the walk uses, so that
// both readings include it.
template <typename Read>
json by_in_process(enum ms_by by, Read read, decltype(read()) *before, decltype(read()) *after)
{
	struct ms_ranges r;
	struct ms_bpf *b = nullptr;
	struct ms_result res;
	char why[512];
	json j = json::object();

	EXPECT_EQ(ms_ranges_from_iomem("/proc/iomem", &r), 0);
	EXPECT_EQ(ms_bpf_open(&b, MS_BPF_ALLPAGES, why, sizeof(why)), 0) << why;
	struct ms_groups *g = ms_groups_new(by, 0);
	if (!b || !g) {
		ADD_FAILURE() << "no bpf backend or no memory";
		ms_bpf_free(b);
		ms_groups_free(g);
		ms_ranges_free(&r);
		return j;
	}
	ms_bpf_set_jobs(b, 1);
	EXPECT_EQ(ms_groups_reset(g), 0);
	EXPECT_EQ(ms_bpf_dump(b, &r, &res, ms_groups_page, g), 0);
	EXPECT_EQ(ms_groups_reset(g), 0);
	*before = read();
	int err = ms_bpf_dump(b, &r, &res, ms_groups_page, g);
	*after = read();
	EXPECT_EQ(err, 0);
	if (!res.backend)
		res.backend = "bpf";
	EXPECT_EQ(ms_groups_finish(g, &res), 0);
	char *buf = nullptr;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f) {
		ms_groups_json(f, g, &res);
		fclose(f);
		try {
			j = json::parse(std::string(buf, len));
		} catch (const std::exception &e) {
			ADD_FAILURE() << "invalid JSON: " << e.what();
		}
	}
	free(buf);
	ms_groups_free(g);
	ms_bpf_free(b);
	ms_ranges_free(&r);
	return j;
}

// Whether the nodes' meminfo counts uninitialised pages in MemFree: kernels that initialise
// struct pages lazily count them in /proc/meminfo's MemFree, and some in their nodes' too
// (this machine's 6.18.44, deferred_init=lazy: /proc/meminfo's MemFree is the nodes' sum),
// others not (then the sum lacks them: ByNode.NodeMeminfoFreeLacksOnlyUninitialised)
static bool nodes_count_uninitialised()
{
	struct ms_meminfo m;
	long long sum = 0, kb = page_size() / 1024;

	if (ms_meminfo_read("/proc/meminfo", &m))
		return false;
	for (auto &[n, f] : node_meminfo())
		sum += f["MemFree"];
	return llabs(m.mem_free / kb - sum) <= m.mem_total / kb * MS_RECON_TOLERANCE_PCT / 100;
}

// Per node: the groups add up to the walk's total, and free (buddy; and uninitialised where the
// node's MemFree counts those), anon, file and shmem agree with the node's meminfo read just
// before and just after the walk, within 0.5% of the node's MemTotal (the tolerance of
// --reconcile, of the node's memory).
TEST(ByNode, NodesMatchNodeMeminfo)
{
	bool uninit = nodes_count_uninitialised();
	std::map<int, std::map<std::string, long long>> before, after;
	json j = by_in_process(MS_BY_NODE, node_meminfo, &before, &after);
	ASSERT_FALSE(before.empty()) << "no /sys/devices/system/node/node*/meminfo";
	expect_sums(j);
	EXPECT_EQ(j["by"], "node");
	EXPECT_EQ(j["other"]["groups"], 0) << "--by node shows every node by default";
	std::set<int> seen;
	for (auto &g : j["groups"]) {
		ASSERT_TRUE(g.contains("node")) << "a page in no zone's span: " << g.dump();
		int n = g["node"].get<int>();
		EXPECT_EQ(g["name"], std::to_string(n));
		seen.insert(n);
		ASSERT_TRUE(before.count(n) && after.count(n)) << "node " << n << " has no meminfo";
		auto &b = before[n], &a = after[n];
		long long tol = b["MemTotal"] * MS_RECON_TOLERANCE_PCT / 100;
		std::string node = "node " + std::to_string(n) + " ";
		EXPECT_TRUE(agrees((node + "MemFree").c_str(),
				   walk_free(g) + (uninit ? d(g, "free_uninit") : 0), b["MemFree"],
				   a["MemFree"], tol));
		EXPECT_TRUE(agrees((node + "AnonPages").c_str(), walk_anon(g), b["AnonPages"],
				   a["AnonPages"], tol));
		EXPECT_TRUE(agrees((node + "FilePages").c_str(), walk_file(g), b["FilePages"],
				   a["FilePages"], tol));
		EXPECT_TRUE(agrees((node + "Shmem").c_str(), d(g, "shmem"), b["Shmem"], a["Shmem"],
				   tol));
	}
	// every node with memory has a group
	for (auto &[n, f] : before)
		if (f["MemTotal"] > 0) {
			EXPECT_TRUE(seen.count(n)) << "node " << n << " has memory but no group";
		}
	printf("nodes: %zu\n", seen.size());
	// the VM matrix's two-node boot (tools/vm/matrix.sh MEMSTAT_VM_NUMA) says how many
	if (const char *want = getenv("MEMSTAT_VM_NUMA_NODES")) {
		EXPECT_EQ(seen.size(), strtoul(want, nullptr, 10)) << "nodes with memory";
	}
}

// /proc/meminfo's MemFree less the nodes' MemFree is the walk's uninitialised pages (0 on
// kernels that finish deferred init at boot; a lazy-init kernel that counts them globally
// only), or none (one that counts them in its nodes too), within 0.5% of MemTotal, read
// before and after the walk: so that the per-node and per-zone free comparisons leave out
// nothing else.
TEST(ByNode, NodeMeminfoFreeLacksOnlyUninitialised)
{
	struct ms_meminfo mb, ma;
	ASSERT_EQ(ms_meminfo_read("/proc/meminfo", &mb), 0);
	auto before = node_meminfo();
	json j = by({ "--by", "node" });
	auto after = node_meminfo();
	ASSERT_EQ(ms_meminfo_read("/proc/meminfo", &ma), 0);
	long long nb = 0, na = 0, uninit = 0, kb = page_size() / 1024;
	for (auto &[n, f] : before)
		nb += f["MemFree"];
	for (auto &[n, f] : after)
		na += f["MemFree"];
	for (auto &g : j["groups"])
		uninit += d(g, "free_uninit");
	uninit += d(j["other"], "free_uninit");
	long long tol = ma.mem_total / kb * MS_RECON_TOLERANCE_PCT / 100;
	long long lo = std::min(mb.mem_free / kb - nb, ma.mem_free / kb - na);
	long long hi = std::max(mb.mem_free / kb - nb, ma.mem_free / kb - na);
	bool none = lo - tol <= 0 && 0 <= hi + tol;	// the nodes count them too
	if (!none) {
		EXPECT_TRUE(agrees("MemFree - the nodes' MemFree", uninit, mb.mem_free / kb - nb,
				   ma.mem_free / kb - na, tol));
	}
	printf("uninitialised pages %lld, in the nodes' MemFree: %s\n", uninit, none ? "yes" : "no");
}

// Per zone: the zone's span and its pages agree with /proc/zoneinfo: start_pfn and spanned
// exactly, present pages = the group's pages (the walk's holes, pages whose struct page could
// not be read, aside), and free (buddy) with "pages free" before and after the walk within
// 0.5% of the zone's managed pages.
TEST(ByZone, ZonesMatchZoneinfo)
{
	decltype(zoneinfo()) before, after;
	json j = by_in_process(MS_BY_ZONE, zoneinfo, &before, &after);
	expect_sums(j);
	long long holes = j["holes"].get<long long>(), present_off = 0;
	size_t zones_with_pages = 0;
	for (auto &[name, z] : before)
		zones_with_pages += z.present > 0;
	EXPECT_EQ(j["groups"].size(), zones_with_pages) << j.dump();
	for (auto &g : j["groups"]) {
		ASSERT_TRUE(g.contains("zone")) << "a page in no zone's span: " << g.dump();
		std::string name = std::to_string(g["node"].get<int>()) + "/" +
				   g["zone"].get<std::string>();
		EXPECT_EQ(g["name"], name);
		ASSERT_TRUE(before.count(name)) << name << " is not in /proc/zoneinfo";
		const Zone &b = before[name], &a = after[name];
		EXPECT_EQ(g["start_pfn"].get<long long>(), b.start) << name;
		EXPECT_EQ(g["end_pfn"].get<long long>() - g["start_pfn"].get<long long>(), b.spanned)
			<< name;
		present_off += std::llabs(b.present - g["pages"]["total"].get<long long>());
		long long tol = std::max(b.managed, a.managed) * MS_RECON_TOLERANCE_PCT / 100;
		EXPECT_TRUE(agrees((name + " pages free").c_str(), walk_free(g), b.free, a.free, tol));
	}
	EXPECT_LE(present_off, holes) << "zones' present pages differ from their groups' pages "
				      << "by more than the walk's holes";
}

// The mount point of the file system of path: a mount whose directory has its st_dev
std::string mount_of_dev(dev_t dev, const json &g)
{
	struct stat st;
	if (!g.contains("mount") || g["mount"].is_null())
		return "(not mounted)";
	std::string m = g["mount"].get<std::string>();
	if (stat(m.c_str(), &st) || st.st_dev != dev)
		return "(a mount point of another file system: " + m + ")";
	return m;
}

// One group of --by fs: the one of dev
json fs_group(const json &j, dev_t dev)
{
	std::string want = std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
	for (auto &g : j["groups"])
		if (g.contains("dev") && g["dev"] == want)
			return g;
	return json::object();
}

// A file read into the page cache on a known mount shows under that mount's row: the row of
// its device holds at least the file's pages as page cache, its name is a mount point of that
// file system and its fstype is the one statfs() names; a tmpfs file's pages are shmem under
// its tmpfs mount.
TEST(ByFs, FileReadIsUnderItsMount)
{
	const size_t len = 128 * kMiB;
	const long long want = len / page_size();
	TempFile f("/var/tmp");
	ASSERT_GE(f.fd(), 0);
	ASSERT_TRUE(f.fill(len));
	std::vector<char> buf(kMiB);
	ASSERT_EQ(lseek(f.fd(), 0, SEEK_SET), 0);
	while (read(f.fd(), buf.data(), buf.size()) > 0)
		;
	TempFile t("/dev/shm");
	ASSERT_GE(t.fd(), 0);
	ASSERT_TRUE(t.fill(len));
	struct stat sf, stt;
	ASSERT_EQ(fstat(f.fd(), &sf), 0);
	ASSERT_EQ(fstat(t.fd(), &stt), 0);
	std::vector<unsigned char> vec(want);
	Mapping m(mmap(nullptr, len, PROT_READ, MAP_SHARED, f.fd(), 0), len);
	ASSERT_TRUE(m.ok());
	ASSERT_EQ(mincore(m.data(), len, vec.data()), 0);
	long long resident = std::count_if(vec.begin(), vec.end(), [](unsigned char c) {
		return c & 1;
	});

	json j = by({ "--by", "fs" });
	expect_sums(j);
	json g = fs_group(j, sf.st_dev);
	ASSERT_FALSE(g.empty()) << "no group for the device of /var/tmp: " << j.dump();
	EXPECT_EQ(mount_of_dev(sf.st_dev, g), g["name"].get<std::string>());
	EXPECT_GE(d(g, "page_cache_file") + d(g, "exec"), resident - want / 100)
		<< "the file's " << resident << " cached pages are not under its mount";
	EXPECT_GE(resident, want * 99 / 100) << "the file left the page cache";

	json s = fs_group(j, stt.st_dev);
	ASSERT_FALSE(s.empty()) << "no group for the device of /dev/shm: " << j.dump();
	EXPECT_EQ(mount_of_dev(stt.st_dev, s), s["name"].get<std::string>());
	EXPECT_EQ(s["fstype"], "tmpfs");
	EXPECT_GE(d(s, "shmem"), want - want / 100) << "the tmpfs file's pages";
	// pages of no file are in (none), which has no device
	for (auto &x : j["groups"])
		if (x["name"] == "(none)") {
			EXPECT_FALSE(x.contains("dev"));
			EXPECT_EQ(x["pages"]["page_cache"], 0) << x.dump();
			EXPECT_EQ(x["pages"]["shmem"], 0) << x.dump();
		}
}

// A memfd's pages are on the kernel's internal tmpfs, which no mount shows: the group says so
// (not "(not mounted)"), with the memfd's device and its pages as shmem; block devices' page
// cache (buffer pages, the bdev pseudo file system) is named too.
TEST(ByFs, KernelInternalFileSystemsAreNamed)
{
	const size_t len = 32 * kMiB;
	const long long want = len / page_size();
	int fd = memfd_create("memstat-by-fs", MFD_CLOEXEC);
	ASSERT_GE(fd, 0) << strerror(errno);
	std::vector<char> chunk(kMiB, 'm');
	for (size_t done = 0; done < len; done += chunk.size())
		ASSERT_EQ(write(fd, chunk.data(), chunk.size()), (ssize_t)chunk.size());
	struct stat st;
	ASSERT_EQ(fstat(fd, &st), 0);

	json j = by({ "--by", "fs" });
	expect_sums(j);
	json g = fs_group(j, st.st_dev);
	ASSERT_FALSE(g.empty()) << "no group for the memfd's device: " << j.dump();
	EXPECT_EQ(g["name"], "(internal tmpfs: memfd, SysV shm, shared anonymous)") << g.dump();
	EXPECT_TRUE(g["mount"].is_null()) << g.dump();
	EXPECT_GE(d(g, "shmem"), want) << g.dump();
	for (auto &x : j["groups"]) {
		if (x["name"] == "(block devices)") {
			EXPECT_EQ(d(x, "page_cache_buffers"), x["pages"]["total"].get<long long>());
		}
	}
	close(fd);
}

// -a with --by: each group's pages of every attribute. 32 MiB of a tmpfs file, mlocked, are
// mlocked pages of its file system's group (small folios: the kernel marks a large file folio
// mlocked only where one mapping holds all of it); the table has the attribute columns.
TEST(ByFs, AttributesPerGroup)
{
	const size_t len = 32 * kMiB;
	const long long want = len / page_size();
	TempFile f("/dev/shm");
	ASSERT_GE(f.fd(), 0);
	ASSERT_TRUE(f.fill(len));
	Mapping m(mmap(nullptr, len, PROT_READ, MAP_SHARED, f.fd(), 0), len);
	ASSERT_TRUE(m.ok());
	ASSERT_EQ(madvise(m.data(), len, MADV_NOHUGEPAGE), 0);
	ASSERT_EQ(mlock(m.data(), len), 0) << strerror(errno);
	struct stat st;
	ASSERT_EQ(fstat(f.fd(), &st), 0);

	json j = by({ "--by", "fs", "-a" });
	expect_sums(j);
	json g = fs_group(j, st.st_dev);
	ASSERT_FALSE(g.empty()) << j.dump();
	ASSERT_TRUE(g.contains("attributes")) << g.dump();
	const json &a = g["attributes"];
	EXPECT_GE(a["mlocked"].get<long long>(), want) << a.dump();
	EXPECT_LE(a["mlocked"].get<long long>(), g["pages"]["total"].get<long long>());
	EXPECT_EQ(a["dma_pinned"], g["dma_pinned"]);
	for (auto &[k, v] : a.items())
		EXPECT_TRUE(v.is_number() && v.get<long long>() <= g["pages"]["total"].get<long long>())
			<< k << " " << v;
	RunResult t = run_memstat({ "--by", "fs", "-a" });
	ASSERT_EQ(t.status, 0);
	EXPECT_NE(t.out.find("    Dirty  Mlocked      THP   Pinned  Dev"), std::string::npos) << t.out;
	munlock(m.data(), len);
}

// --top N: N rows besides (none), the rest in other, still adding up to the total (one walk:
// the zones with present pages are /proc/zoneinfo's, as ZonesMatchZoneinfo checks).
TEST(ByFs, TopFoldsTheRestIntoOther)
{
	size_t zones = 0;
	for (auto &[name, z] : zoneinfo())
		zones += z.present > 0;
	ASSERT_GE(zones, 2u) << "one zone: --top 1 leaves nothing to fold";
	json j = by({ "--by", "zone", "--top", "1" });
	expect_sums(j);
	EXPECT_EQ(j["groups"].size(), 1u);
	EXPECT_EQ(j["other"]["groups"].get<size_t>(), zones - 1);
	EXPECT_GT(j["other"]["pages"]["total"].get<long long>(), 0);
}

} // namespace
