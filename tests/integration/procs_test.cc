// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat --by process: each process's mapped pages by class, PSS, RSS, USS, against pages the
// test places: private anon, a memfd both the test and its child map, untouched memory read
// (the zero page), and the binary's own text.
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <cstring>
#include <sstream>
#include <algorithm>
#include <set>
#include <functional>

#include "helpers.h"

using namespace mstest;

namespace {

const size_t kMiB = 1 << 20;

json process(const json &j, pid_t pid)
{
	for (const auto &p : j["processes"])
		if (p["pid"] == pid)
			return p;
	return json();
}

void touch_write(char *p, size_t len)
{
	for (size_t i = 0; i < len; i += page_size())
		p[i] = 1;
}

// A child's work: len bytes of private anonymous memory, touched.
std::function<bool()> anon_work(size_t len)
{
	return [len] {
		char *a = (char *)mmap(nullptr, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED)
			return false;
		touch_write(a, len);
		return true;
	};
}

// The test and its child both map a 32 MiB memfd: each has all of it in RSS and half in PSS.
// The child's 64 MiB of private anon are its own (RSS, PSS and USS); the 16 MiB it only reads
// map the shared zero page, which is in nobody's memory; its text is Exec.
void shared_halved_private_whole(bool scan)
{
	const size_t shm_len = 32 * kMiB, anon_len = 64 * kMiB, zero_len = 16 * kMiB;
	const long long shm = shm_len / page_size(), anon = anon_len / page_size();
	int fd = memfd_create("memstat-by-process", MFD_CLOEXEC);
	ASSERT_GE(fd, 0) << strerror(errno);
	ASSERT_EQ(ftruncate(fd, shm_len), 0);
	Mapping m(mmap(nullptr, shm_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), shm_len);
	ASSERT_TRUE(m.ok());
	touch_write(m.data(), shm_len);
	Child c("ms-by-process", [&] {
		touch_read(m.data(), shm_len);	// the same pages, now mapped twice
		char *a = (char *)mmap(nullptr, anon_len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *z = (char *)mmap(nullptr, zero_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
				       -1, 0);
		if (a == MAP_FAILED || z == MAP_FAILED)
			return false;
		touch_write(a, anon_len);
		touch_read(z, zero_len);
		return true;
	});
	ASSERT_TRUE(c.ok());

	if (!scan)
		setenv("MEMSTAT_TEST_NO_PAGEMAP_SCAN", "1", 1);
	RunResult r = run_memstat({ "--by", "process", "--top", "1000000", "--json" });
	unsetenv("MEMSTAT_TEST_NO_PAGEMAP_SCAN");
	ASSERT_EQ(r.status, 0) << r.out;
	json j = json::parse(r.out);
	EXPECT_EQ(j["by"], "process");
	if (!scan) {
		EXPECT_EQ(j["pagemap_scan"], false) << "the test hook did not reach procs.c";
	}
	json child = process(j, c.pid()), me = process(j, getpid());
	ASSERT_FALSE(child.is_null()) << "no row for the child " << c.pid() << ": " << r.out;
	ASSERT_FALSE(me.is_null()) << "no row for the test " << getpid();
	EXPECT_EQ(child["name"], "ms-by-process");

	// the memfd: every page in both RSS, half of each page in both PSS (any other shmem the
	// child maps adds at most a whole page per page to its PSS)
	long long rss_shm = child["rss"]["shmem"];
	double pss_shm = child["pss"]["shmem"];
	EXPECT_GE(rss_shm, shm);
	EXPECT_GE(pss_shm, shm / 2.0 - 0.01);
	EXPECT_LE(pss_shm, shm / 2.0 + (double)(rss_shm - shm) + 0.01) << child.dump();
	EXPECT_GE(me["rss"]["shmem"].get<long long>(), shm);
	EXPECT_GE(me["pss"]["shmem"].get<double>(), shm / 2.0 - 0.01);

	// the private anon: whole in PSS, and in USS (mapped once)
	EXPECT_GE(child["pss"]["anon"].get<double>(), (double)anon) << child.dump();
	EXPECT_GE(child["uss"].get<long long>(), anon) << child.dump();
	EXPECT_LT(child["uss"].get<long long>(), child["rss"]["total"].get<long long>())
		<< "the memfd's pages are shared: not in USS";
	// the zero page it read: in no class of anybody's
	EXPECT_GE(j["left_out"]["zero_page_mappings"].get<long long>(),
		  (long long)(zero_len / page_size()));
	EXPECT_LT(child["rss"]["kernel"].get<long long>(), 256) << child.dump();
	// its text and libraries: Exec where the binary is a disk file's (the test VMs run it
	// from the initramfs, whose files are no file system's page cache)
	struct statfs sf;
	if (statfs("/proc/self/exe", &sf) == 0 && sf.f_type != TMPFS_MAGIC &&
	    sf.f_type != RAMFS_MAGIC) {
		EXPECT_GT(child["pss"]["exec"].get<double>(), 0) << child.dump();
	}
	// PSS adds up
	double sum = 0;
	for (const char *k : { "kernel", "anon", "shmem", "exec", "page_cache", "hugetlb", "free",
			       "unknown" })
		sum += child["pss"][k].get<double>();
	EXPECT_NEAR(sum, child["pss"]["total"].get<double>(), 0.1);
	EXPECT_EQ(j["mapcount"], "kernel");

	// the table: the child's row, by its PID and name
	RunResult t = run_memstat({ "--by", "process", "--top", "1000000" });
	ASSERT_EQ(t.status, 0) << t.out;
	EXPECT_NE(t.out.find(std::to_string(c.pid()) + "  ms-by-process\n"), std::string::npos)
		<< t.out;
	EXPECT_NE(t.out.find("PSS MB"), std::string::npos) << t.out;
	close(fd);
}

TEST(ByProcess, SharedPagesAreHalvedPrivateOnesWhole)
{
	shared_halved_private_whole(true);
}

// As before 6.7: every pagemap entry of every area read, no PAGEMAP_SCAN
TEST(ByProcess, SharedPagesAreHalvedPrivateOnesWholeWithoutPagemapScan)
{
	shared_halved_private_whole(false);
}

// --top N: N rows, the rest summed as (other), and all of them in "all".
TEST(ByProcess, TopFoldsTheRestIntoOther)
{
	RunResult r = run_memstat({ "--by", "process", "--top", "2", "--json" });
	ASSERT_EQ(r.status, 0) << r.out;
	json j = json::parse(r.out);
	ASSERT_EQ(j["processes"].size(), 2u) << r.out;
	EXPECT_GE(j["processes"][0]["pss"]["total"].get<double>(),
		  j["processes"][1]["pss"]["total"].get<double>());
	EXPECT_EQ(j["other"]["processes"].get<size_t>() + 2, j["all"]["processes"].get<size_t>());
	double rows = j["processes"][0]["pss"]["total"].get<double>() +
		      j["processes"][1]["pss"]["total"].get<double>() +
		      j["other"]["pss"]["total"].get<double>();
	EXPECT_NEAR(rows, j["all"]["pss"]["total"].get<double>(), 1.0);
}

// PSS adds up: each page's shares, 1/n to each of its n mappings, sum to the page. Counting the
// mappings memstat reads itself (kpagecount made unreadable through the test hook), the PSS of
// all processes is exactly the distinct pages they map; by the kernel's mapcount, which also
// counts mappings memstat does not read, at most that (but for pages unmapped meanwhile).
TEST(ByProcess, PssOfAllIsThePagesTheyMap)
{
	setenv("MEMSTAT_TEST_KPAGECOUNT", "/nonexistent/kpagecount", 1);
	RunResult r = run_memstat({ "--by", "process", "--json" });
	unsetenv("MEMSTAT_TEST_KPAGECOUNT");
	ASSERT_EQ(r.status, 0) << r.out;
	json j = json::parse(r.out);
	EXPECT_EQ(j["mapcount"], "mappings_read");
	double pss = j["all"]["pss"]["total"];
	long long pages = j["all"]["mapped_pages"];
	ASSERT_GT(pages, 0);
	EXPECT_NEAR(pss, (double)pages, 1.0) << j["all"].dump();
	EXPECT_GE(j["all"]["rss"]["total"].get<long long>(), pages);

	RunResult k = run_memstat({ "--by", "process", "--json" });
	ASSERT_EQ(k.status, 0) << k.out;
	json jk = json::parse(k.out);
	EXPECT_EQ(jk["mapcount"], "kernel");
	// (kpagecount is read after the page tables: a page unmapped in between counts more; a
	// thousandth of the pages allows for the machine's own churn meanwhile)
	double mapped = jk["all"]["mapped_pages"];
	EXPECT_LE(jk["all"]["pss"]["total"].get<double>(), mapped + mapped / 1000 + 1.0)
		<< jk["all"].dump();
}

// --by command: the processes of one name are one row, their pages summed.
TEST(ByCommand, ProcessesOfOneNameAreOneRow)
{
	const size_t len = 8 * kMiB;
	Child a("ms-by-command", anon_work(len)), b("ms-by-command", anon_work(len)),
		c("ms-by-command", anon_work(len));
	ASSERT_TRUE(a.ok() && b.ok() && c.ok());
	RunResult r = run_memstat({ "--by", "command", "--top", "1000000", "--json" });
	ASSERT_EQ(r.status, 0) << r.out;
	json j = json::parse(r.out);
	EXPECT_EQ(j["by"], "command");
	json row;
	for (const auto &x : j["commands"])
		if (x["name"] == "ms-by-command")
			row = x;
	ASSERT_FALSE(row.is_null()) << r.out;
	EXPECT_EQ(row["processes"], 3);
	EXPECT_GE(row["pss"]["anon"].get<double>(), 3.0 * len / page_size()) << row.dump();
	EXPECT_GE(row["uss"].get<long long>(), (long long)(3 * len / page_size()));
	long long procs = j["other"]["processes"];
	for (const auto &x : j["commands"])
		procs += x["processes"].get<long long>();
	EXPECT_EQ(procs, j["all"]["processes"].get<long long>());
}

// Periodic sampling: each JSON line and each Prometheus file has the rows of its own walk, the
// child's among them, and the terminal rows are refused.
TEST(ByProcess, SamplesInJsonLinesAndPrometheus)
{
	const size_t len = 64 * kMiB;
	Child c("ms-by-proc-log", anon_work(len));
	ASSERT_TRUE(c.ok());
	char dir[] = "/tmp/memstat-procs-XXXXXX";
	ASSERT_NE(mkdtemp(dir), nullptr);
	std::string jl = std::string(dir) + "/p.jsonl", prom = std::string(dir) + "/p.prom";
	RunResult r = run_memstat({ "--by", "process", "--top", "1000000", "-f", "jsonl", "-o", jl,
				    "1", "2" });
	ASSERT_EQ(r.status, 0) << r.out;
	std::string text = read_file(jl);
	size_t lines = 0;
	for (size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
		json j = json::parse(text.substr(at, nl - at));
		lines++;
		EXPECT_EQ(j["by"], "process");
		json child = process(j, c.pid());
		ASSERT_FALSE(child.is_null()) << "line " << lines << " has no row for the child";
		EXPECT_GE(child["pss"]["anon"].get<double>(), (double)(len / page_size()));
		EXPECT_TRUE(j.contains("timestamp")) << j.dump().substr(0, 200);
	}
	EXPECT_EQ(lines, 2u);
	RunResult p = run_memstat({ "--by", "process", "--top", "1000000", "-f", "prom", "-o", prom,
				    "1", "1" });
	ASSERT_EQ(p.status, 0) << p.out;
	std::string series = read_file(prom);
	EXPECT_NE(series.find("memstat_process_pss_pages{pid=\"" + std::to_string(c.pid()) +
			      "\",command=\"ms-by-proc-log\",class=\"anon\"}"), std::string::npos)
		<< series.substr(0, 2000);
	EXPECT_NE(series.find("# TYPE memstat_process_uss_pages gauge"), std::string::npos);
	unlink(jl.c_str());
	unlink(prom.c_str());
	rmdir(dir);
}

// allpages --pid PID: the records of the pages the process maps, 16 MiB of this test's anon
// among them, and of no page it does not map.
TEST(AllpagesPid, RecordsOfThePagesItMaps)
{
	const size_t len = 16 * kMiB;
	Mapping m(mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		  len);
	ASSERT_TRUE(m.ok());
	touch_write(m.data(), len);
	// a page the kernel moves (compaction) between the readings of its pfn and the walk is
	// not where this test looks for it: again until no page moved, else those are left out
	std::vector<uint64_t> mine, after;
	AllpagesCsv a;
	std::set<uint64_t> got;
	size_t stayed = 0, found = 0;
	for (int i = 0; i < 5 && (i == 0 || stayed != mine.size()); i++) {
		mine = pfns_of(m.data(), len);
		a = allpages_csv({ "--pid", std::to_string(getpid()), "--class", "anon" });
		after = pfns_of(m.data(), len);
		ASSERT_EQ(a.status, 0);
		ASSERT_FALSE(a.header.empty());
		size_t col = std::find(a.header.begin(), a.header.end(), "pfn") - a.header.begin();
		ASSERT_LT(col, a.header.size());
		got.clear();
		for (const auto &row : a.rows)
			got.insert(std::stoull(row[col], nullptr, 0));
		stayed = found = 0;
		for (size_t k = 0; k < mine.size(); k++)
			if (mine[k] && mine[k] == after[k]) {
				stayed++;
				found += got.count(mine[k]);
			}
	}
	ASSERT_GT(stayed, mine.size() / 2) << "the kernel moved most of the test's pages during "
					      "each of 5 runs";
	EXPECT_EQ(found, stayed) << "of the " << stayed << " pages that stayed at their pfn ("
				 << mine.size() - stayed << " moved)";
	// every record is a page this process maps (its anon: no more than its RSS)
	long long rss_anon = 0;
	std::istringstream st(read_file("/proc/self/status"));
	for (std::string line; std::getline(st, line);)
		if (line.rfind("RssAnon:", 0) == 0)
			rss_anon = std::stoll(line.substr(8)) * 1024 / page_size();
	EXPECT_LE((long long)got.size(), rss_anon + 256);

	RunResult none = run_memstat({ "allpages", "--pid", "4194304" });
	EXPECT_EQ(none.status, 2);
}

}  // namespace
