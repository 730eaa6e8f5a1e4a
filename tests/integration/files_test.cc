// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat --by file and --by exec, the names from the kernel's dentries (src/sys/files.c, the
// file_paths BPF program), and allpages --file / --inode. Run as root.
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <sstream>

#include "helpers.h"

extern "C" {
#include "memstat_int.h"
#include "backend.h"
#include "files.h"
}

using namespace mstest;

namespace {

const long kMiB = 1 << 20;
// files big enough to be among the 1000 largest of any test machine's page cache
const int kTop = 1000;

std::string dev_str(dev_t d)
{
	return std::to_string(major(d)) + ":" + std::to_string(minor(d));
}

// Pages of the file in the page cache, as fincore(1) counts them: mincore() of a mapping
// (the mapping itself brings nothing in). -1 when the file cannot be mapped.
long long resident(int fd)
{
	struct stat st;
	if (fstat(fd, &st) || st.st_size == 0)
		return -1;
	size_t len = st.st_size, n = (len + page_size() - 1) / page_size();
	void *p = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	std::vector<unsigned char> v(n);
	long long c = -1;
	if (!mincore(p, len, v.data()))
		c = std::count_if(v.begin(), v.end(), [](unsigned char x) { return x & 1; });
	munmap(p, len);
	return c;
}

long long resident(const std::string &path)
{
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	long long c = resident(fd);
	close(fd);
	return c;
}

// fincore(1)'s count of the file's pages, or -1 when there is no fincore
long long fincore_pages(const std::string &path)
{
	if (access("/usr/bin/fincore", X_OK))
		return -1;
	std::string cmd = "/usr/bin/fincore --raw --noheadings --output PAGES '" + path + "'";
	FILE *p = popen(cmd.c_str(), "r");
	if (!p)
		return -1;
	long long n = -1;
	if (fscanf(p, "%lld", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

// A file of len bytes in dir, written, flushed and dropped from the page cache, then read
// through once and closed: no process has it open. Removed when it goes away.
class ClosedFile {
public:
	ClosedFile(const std::string &dir, size_t len)
	{
		char real[PATH_MAX];
		if (!realpath(dir.c_str(), real))
			return;
		path_ = std::string(real) + "/memstat-files-test-XXXXXX";
		int fd = mkstemp(&path_[0]);
		if (fd < 0)
			return;
		std::vector<char> chunk(kMiB, 'f');
		for (size_t done = 0; done < len;) {
			size_t k = std::min(chunk.size(), len - done);
			if (write(fd, chunk.data(), k) != (ssize_t)k) {
				close(fd);
				return;
			}
			done += k;
		}
		bool ok = !fsync(fd) && !posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		struct stat st;
		ok = ok && !fstat(fd, &st);
		close(fd);
		if (!ok || resident(path_) != 0)
			return;	// the cache must start empty: the read below brings in every page
		fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		size_t got = 0;
		ssize_t n;
		while ((n = read(fd, chunk.data(), chunk.size())) > 0)
			got += n;
		close(fd);
		dev_ = st.st_dev;
		ino_ = st.st_ino;
		ok_ = got == len;
	}
	~ClosedFile()
	{
		if (!path_.empty())
			unlink(path_.c_str());
	}
	bool ok() const { return ok_; }
	const std::string &path() const { return path_; }
	dev_t dev() const { return dev_; }
	ino_t ino() const { return ino_; }

private:
	std::string path_;
	dev_t dev_ = 0;
	ino_t ino_ = 0;
	bool ok_ = false;
};

// The group of (dev, ino) in a --by file/exec JSON, or null
json find_group(const json &j, dev_t dev, ino_t ino)
{
	if (!j.contains("groups"))
		return json();
	for (const auto &g : j["groups"])
		if (g.contains("inode") && g["dev"] == dev_str(dev) &&
		    g["inode"].get<unsigned long long>() == ino)
			return g;
	return json();
}

json by(const char *key, int top = kTop)
{
	RunResult r = run_memstat({ "--by", key, "--top", std::to_string(top), "--json" });
	EXPECT_EQ(r.status, 0);
	try {
		return json::parse(r.out);
	} catch (const std::exception &e) {
		ADD_FAILURE() << "memstat --by " << key << " --json printed invalid JSON: " << e.what();
		return json::object();
	}
}

// the pages the kernel moved while run j walked (compaction, khugepaged): a page moved from a
// pfn the walk had passed to one it had not yet read is counted twice, one moved the other way
// not at all, so a count is exact only within that many pages (0 when unknown: exact)
long long moved_of(const json &j)
{
	return j.contains("moved_pages") && j["moved_pages"].is_number() &&
			       j["moved_pages"].get<long long>() > 0 ?
		       j["moved_pages"].get<long long>() :
		       0;
}

// a count from run j: exactly `want` when nothing moved during its walk, else within what moved
#define EXPECT_PAGES(got, want, j)                                                             \
	EXPECT_LE(std::llabs((long long)(got) - (long long)(want)), moved_of(j))                 \
		<< #got << " = " << (long long)(got) << ", " << (want) << " expected; "           \
		<< moved_of(j) << " pages moved during the walk"

// `--by KEY` with the page cache of fd (or path) counted just before and just after: the
// same count both times means the file's pages did not change while memstat walked (nobody
// reads the test's files: their pages can only leave, under memory pressure, never come back).
// Up to kTries tries, until one where the kernel also moved no page during the walk (else the
// last stable one: its counts are exact within moved_of()); *count receives the stable count
// (-1: never stable).
const int kTries = 5;
// what a test says when memory pressure from elsewhere moved its file's pages every time
#define UNSTABLE_SKIP(what)                                                                    \
	GTEST_SKIP() << what << " changed during each of " << kTries << " runs (memory pressure "  \
		     << "from another process reclaims it): nothing stable to compare"

json by_stable(const char *key, const std::string &path, int fd, long long *count)
{
	json j, stable;
	*count = -1;
	for (int i = 0; i < kTries; i++) {
		long long before = fd >= 0 ? resident(fd) : resident(path);
		j = by(key);
		long long after = fd >= 0 ? resident(fd) : resident(path);
		if (before == after && before >= 0) {
			*count = before;
			stable = j;
			if (!moved_of(j))
				return j;
		}
	}
	return *count >= 0 ? stable : j;
}

// jsonl records of memstat allpages with args (one per line)
long long allpages_lines(const std::vector<std::string> &args, int *status)
{
	std::vector<std::string> a = { "allpages", "-f", "jsonl" };
	a.insert(a.end(), args.begin(), args.end());
	RunResult r = run_memstat(a);
	*status = r.status;
	return std::count(r.out.begin(), r.out.end(), '\n');
}

} // namespace

// A file read and closed is found by --by file with exactly the pages the page cache holds of
// it (mincore, and fincore where installed), all page cache, and its path.
TEST(Files, ClosedFileHasItsPathAndExactPageCount)
{
	const size_t len = 64 * kMiB + 100;	// a partial last page: 16385 pages
	const long long want = (len + page_size() - 1) / page_size();
	ClosedFile f("/var/tmp", len);
	ASSERT_TRUE(f.ok()) << "could not make a file read into a cold page cache in /var/tmp";
	long long n;
	json j = by_stable("file", f.path(), -1, &n);
	if (n < 0)
		UNSTABLE_SKIP("the file's page cache");
	ASSERT_GT(n, 0) << "the file's pages all left the page cache";
	if (n != want)
		printf("%lld of the file's %lld pages were reclaimed before the run\n", want - n, want);
	long long fc = fincore_pages(f.path());
	if (fc >= 0)
		EXPECT_EQ(fc, n) << "fincore and mincore disagree";
	else
		printf("fincore(1) not installed: compared with mincore() only\n");
	json g = find_group(j, f.dev(), f.ino());
	ASSERT_FALSE(g.is_null()) << f.path() << " not among the --by file groups";
	EXPECT_EQ(g["name"], f.path());
	EXPECT_EQ(g["path"], f.path());
	EXPECT_EQ(g["path_source"], "dentry");
	EXPECT_EQ(g["deleted"], false);
	EXPECT_PAGES(g["pages"]["total"].get<long long>(), n, j);
	EXPECT_PAGES(g["pages"]["page_cache"].get<long long>(), n, j);
	EXPECT_PAGES(g["cached_pages"].get<long long>(), n, j);
	EXPECT_EQ(g["exec_pages"].get<long long>(), 0);
	EXPECT_EQ(g["mapped_exec"], false);
}

// A file deleted while open: found, marked (deleted), with its exact page count.
TEST(Files, FileDeletedWhileOpenIsMarkedDeleted)
{
	const size_t len = 32 * kMiB;
	ClosedFile f("/var/tmp", len);
	ASSERT_TRUE(f.ok());
	int fd = open(f.path().c_str(), O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(unlink(f.path().c_str()), 0);
	long long n;
	json j = by_stable("file", "", fd, &n);
	close(fd);
	if (n < 0)
		UNSTABLE_SKIP("the file's page cache");
	ASSERT_GT(n, 0) << "the file's pages all left the page cache";
	json g = find_group(j, f.dev(), f.ino());
	ASSERT_FALSE(g.is_null()) << "the deleted file is not among the --by file groups";
	EXPECT_EQ(g["name"], f.path() + " (deleted)");
	EXPECT_EQ(g["deleted"], true);
	EXPECT_PAGES(g["pages"]["total"].get<long long>(), n, j);
}

// A memfd: named memfd:NAME as the kernel names it, its pages shmem.
TEST(Files, MemfdIsNamedMemfdName)
{
	const size_t len = 16 * kMiB;
	std::string name = "memstat-files-test-" + std::to_string(getpid());
	int fd = memfd_create(name.c_str(), MFD_CLOEXEC);
	ASSERT_GE(fd, 0);
	std::vector<char> chunk(kMiB, 'm');
	for (size_t done = 0; done < len; done += chunk.size())
		ASSERT_EQ(write(fd, chunk.data(), chunk.size()), (ssize_t)chunk.size());
	struct stat st;
	ASSERT_EQ(fstat(fd, &st), 0);
	long long n;
	json j = by_stable("file", "", fd, &n);
	close(fd);
	if (n < 0)
		UNSTABLE_SKIP("the memfd's pages in memory");
	ASSERT_GT(n, 0) << "the memfd's pages all left memory (swapped out)";
	json g = find_group(j, st.st_dev, st.st_ino);
	ASSERT_FALSE(g.is_null()) << "the memfd is not among the --by file groups";
	EXPECT_EQ(g["name"], "memfd:" + name);
	EXPECT_EQ(g["pseudo"], true);
	EXPECT_EQ(g["deleted"], false) << "a pseudo file is not marked deleted";
	EXPECT_PAGES(g["pages"]["shmem"].get<long long>(), n, j);
	EXPECT_PAGES(g["pages"]["total"].get<long long>(), n, j);
}

// Names are a user's choice: a memfd whose name holds escape sequences and a newline
// (it cleared root's screen and forged a row of the table) and one whose name is not UTF-8 (it
// made the JSON invalid). The table shows both escaped, one row each, with no ESC byte; the JSON
// is strict UTF-8 (nlohmann, and python3's json.loads where installed) and gives the hostile name
// as it is and the other with \xff as text; the Prometheus series stay one line each.
TEST(Files, MemfdNamesAreEscapedInTableJsonAndPrometheus)
{
	const std::string hostile = "x\x1b[2J\x1b[31mOWNED\n     9999  fake row  /etc/shadow";
	const std::string shown = "memfd:x\\x1b[2J\\x1b[31mOWNED\\x0a     9999  fake row  /etc/shadow";
	const size_t len = 8 * kMiB;
	int fds[2] = { memfd_create(hostile.c_str(), MFD_CLOEXEC),
		       memfd_create("bad\xffname", MFD_CLOEXEC) };
	ASSERT_GE(fds[0], 0);
	ASSERT_GE(fds[1], 0);
	struct stat st[2];
	std::vector<char> chunk(kMiB, 'm');
	for (int i = 0; i < 2; i++) {
		for (size_t done = 0; done < len; done += chunk.size())
			ASSERT_EQ(write(fds[i], chunk.data(), chunk.size()), (ssize_t)chunk.size());
		ASSERT_EQ(fstat(fds[i], &st[i]), 0);
	}
	if (resident(fds[0]) <= 0 || resident(fds[1]) <= 0)
		GTEST_SKIP() << "the memfds' pages left memory (swapped out)";

	RunResult t = run_memstat({ "--by", "file", "--top", std::to_string(kTop) });
	EXPECT_EQ(t.status, 0);
	EXPECT_EQ(t.out.find('\x1b'), std::string::npos) << "an ESC byte reached the terminal";
	EXPECT_EQ(t.out.find("\n     9999"), std::string::npos) << "a forged row";
	EXPECT_NE(t.out.find("  " + shown + "\n"), std::string::npos) << t.out.substr(0, 4000);
	EXPECT_NE(t.out.find("  memfd:bad\\xffname\n"), std::string::npos);

	RunResult r = run_memstat({ "--by", "file", "--top", std::to_string(kTop), "--json" });
	EXPECT_EQ(r.status, 0);
	json j;
	try {
		j = json::parse(r.out);	// nlohmann refuses invalid UTF-8
	} catch (const std::exception &e) {
		FAIL() << "memstat --by file --json printed invalid JSON: " << e.what();
	}
	EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "JSON writes controls as \\u escapes";
	json a = find_group(j, st[0].st_dev, st[0].st_ino), b = find_group(j, st[1].st_dev, st[1].st_ino);
	ASSERT_FALSE(a.is_null() || b.is_null()) << "the memfds are not among the --by file groups";
	EXPECT_EQ(a["name"], "memfd:" + hostile);
	EXPECT_EQ(a["path"], "memfd:" + hostile);
	EXPECT_EQ(b["name"], "memfd:bad\\xffname");
	if (system("command -v python3 >/dev/null 2>&1") == 0) {
		TempFile out("/tmp");
		ASSERT_GE(out.fd(), 0);
		ASSERT_EQ(write(out.fd(), r.out.data(), r.out.size()), (ssize_t)r.out.size());
		std::string cmd = "python3 -c 'import json, sys; json.loads(open(sys.argv[1], \"rb\")"
				  ".read().decode(\"utf-8\", \"strict\"))' " + out.path();
		EXPECT_EQ(system(cmd.c_str()), 0) << "python3 json.loads refused the output";
	} else {
		printf("python3 not installed: the JSON was checked by nlohmann's parser only\n");
	}

	TempFile prom("/tmp");	/* memstat renames its file over it; removed on return */
	ASSERT_GE(prom.fd(), 0);
	RunResult p = run_memstat({ "--by", "file", "--top", std::to_string(kTop), "-f", "prom",
				    "-o", prom.path() });
	EXPECT_EQ(p.status, 0);
	std::string text = read_file(prom.path());
	EXPECT_EQ(text.find('\xff'), std::string::npos) << "an invalid byte in the Prometheus file";
	size_t with_a = 0, with_b = 0;
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);) {
		if (line.empty() || line[0] == '#')
			continue;
		EXPECT_EQ(line.rfind("memstat_", 0), 0u) << "a line that is no series: " << line;
		with_a += line.find("group=\"memfd:x\x1b[2J\x1b[31mOWNED\\n     9999  fake row  /etc/shadow\"") !=
			  std::string::npos;
		with_b += line.find("group=\"memfd:bad\\\\xffname\"") != std::string::npos;
	}
	EXPECT_EQ(with_a, 8u) << "7 classes and the total, one line each";
	EXPECT_EQ(with_b, 8u);
	close(fds[0]);
	close(fds[1]);
}

// SysV shared memory: named as the kernel names its file, SYSV and the key in hex.
TEST(Files, SysvShmIsNamedAsTheKernelNamesIt)
{
	const size_t len = 8 * kMiB;
	key_t key = 0x6d730000 | (getpid() & 0xffff);
	int id = shmget(key, len, IPC_CREAT | IPC_EXCL | 0600);
	if (id < 0 && errno == EEXIST)
		GTEST_SKIP() << "a segment with key " << std::hex << key << " exists already";
	ASSERT_GE(id, 0) << strerror(errno);
	char *p = static_cast<char *>(shmat(id, nullptr, 0));
	shmctl(id, IPC_RMID, nullptr);	// removed once detached, whatever happens below
	ASSERT_NE(p, (char *)-1) << strerror(errno);
	touch_write(p, len);
	char want[32];
	snprintf(want, sizeof(want), "SYSV%08x", (unsigned int)key);
	// its device and inode where this process's maps show them: "... 00:01 32770
	// /SYSV6d730123 (deleted)" (the group is found by its name in any case)
	std::istringstream maps(read_file("/proc/self/maps"));
	std::string line, devs;
	unsigned long long ino = 0;
	while (std::getline(maps, line))
		if (line.find(want) != std::string::npos) {
			std::istringstream f(line);
			std::string range, perms, off;
			f >> range >> perms >> off >> devs >> ino;
			break;
		}
	unsigned int maj = 0, min = 0;
	bool in_maps = ino && sscanf(devs.c_str(), "%x:%x", &maj, &min) == 2;
	if (!in_maps)
		printf("%s not in /proc/self/maps: its device and inode are not checked\n", want);
	auto in_memory = [&] {
		std::vector<unsigned char> v(len / page_size());
		if (mincore(p, len, v.data()))
			return -1L;
		return (long)std::count_if(v.begin(), v.end(), [](unsigned char c) { return c & 1; });
	};
	long before = -1, after = -2;
	json j;
	for (int i = 0; i < kTries && before != after; i++) {
		before = in_memory();
		j = by("file");
		after = in_memory();
	}
	shmdt(p);
	if (before != after)
		UNSTABLE_SKIP("the segment's pages in memory");
	ASSERT_GT(before, 0) << "the segment's pages all left memory (swapped out)";
	json g;
	std::string names;
	for (const auto &x : j["groups"]) {
		names += " " + x["name"].get<std::string>();
		if (x["name"] == want)
			g = x;
	}
	ASSERT_FALSE(g.is_null()) << want << " is not among the --by file groups:" << names;
	if (in_maps) {
		EXPECT_EQ(g["dev"], dev_str(makedev(maj, min)));
		EXPECT_EQ(g["inode"].get<unsigned long long>(), ino);
	}
	EXPECT_EQ(g["pseudo"], true);
	EXPECT_PAGES(g["pages"]["shmem"].get<long long>(), before, j);
}

// A file mapped PROT_EXEC: under --by exec with all its cached pages exec-mapped, and under
// --by file as mapped executable.
TEST(Files, ExecMappedFileIsUnderByExec)
{
	const size_t len = 8 * kMiB;
	ClosedFile f("/var/tmp", len);
	ASSERT_TRUE(f.ok());
	{
		int fd = open(f.path().c_str(), O_RDONLY | O_CLOEXEC);
		ASSERT_GE(fd, 0);
		Mapping x(mmap(nullptr, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0), len);
		close(fd);
		ASSERT_TRUE(x.ok()) << strerror(errno);
		touch_read(x.data(), len);
		for (const char *key : { "exec", "file" }) {
			// a folio the kernel moves while the walk runs (khugepaged collapses an exec
			// mapping of a file; compaction migrates) may be seen at both places or at
			// neither: the walk says how many pages moved meanwhile (moved_pages), and
			// the count is exact within that
			long long n = -1;
			json j = by_stable(key, f.path(), -1, &n);
			if (n < 0)	// reclaim took pages of it during every walk
				UNSTABLE_SKIP("the file's page cache");
			ASSERT_GT(n, 0) << "the file's pages all left the page cache";
			ASSERT_TRUE(j["moved_pages"].is_number()) << "moved_pages: " << j["moved_pages"];
			const long long moved = j["moved_pages"];
			json g = find_group(j, f.dev(), f.ino());
			ASSERT_FALSE(g.is_null()) << f.path() << " not among the --by " << key
						  << " groups";
			EXPECT_EQ(g["name"], f.path()) << key;
			EXPECT_LE(std::llabs(g["exec_pages"].get<long long>() - n), moved)
				<< key << ": " << g["pages"].dump() << " for " << n << " pages, "
				<< moved << " moved; the file's pages now: "
				<< file_pages_by(f.path(), { "subclass", "role", "order" });
			EXPECT_LE(std::llabs(g["pages"]["exec"].get<long long>() - n), moved) << key;
			EXPECT_EQ(g["mapped_exec"], true) << key;
			if (moved)
				printf("--by %s: %lld pages moved during the walk\n", key, moved);
		}
	}
	// and not under --by exec once nothing maps it executable
	json j = by("exec");
	EXPECT_TRUE(find_group(j, f.dev(), f.ino()).is_null()) << "still exec once unmapped";
}

// allpages --file and --inode print that file's pages only, as many as it has cached.
TEST(Files, AllpagesFileAndInodeFilters)
{
	const size_t len = 16 * kMiB;
	ClosedFile f("/var/tmp", len);
	ASSERT_TRUE(f.ok());
	std::string inode = dev_str(f.dev()) + ":" + std::to_string(f.ino());
	for (int i = 0;; i++) {
		long long before = resident(f.path());
		int s1, s2;
		long long by_path = allpages_lines({ "--file", f.path() }, &s1);
		long long by_inode = allpages_lines({ "--inode", inode }, &s2);
		long long after = resident(f.path());
		ASSERT_EQ(s1, 0);
		ASSERT_EQ(s2, 0);
		if (before != after && i < kTries - 1)
			continue;	// the file's cache changed meanwhile: again
		if (before != after)
			UNSTABLE_SKIP("the file's page cache");
		EXPECT_EQ(by_path, before) << "allpages --file " << f.path();
		EXPECT_EQ(by_inode, before) << "allpages --inode " << inode;
		break;
	}
	// every record is the file's
	RunResult r = run_memstat({ "allpages", "-f", "jsonl", "--file", f.path() });
	std::istringstream in(r.out);
	std::string line;
	long long recs = 0;
	while (std::getline(in, line)) {
		json rec = json::parse(line);
		EXPECT_EQ(rec["inode"].get<unsigned long long>(), f.ino()) << line;
		EXPECT_EQ(rec["dev"], dev_str(f.dev())) << line;
		recs++;
	}
	EXPECT_GT(recs, 0);
	int st;
	allpages_lines({ "--file", f.path() + "-does-not-exist" }, &st);
	EXPECT_EQ(st, 2) << "a path that does not exist";
	for (const char *bad : { "", "254", "254:0", "254:0:", "254:0:x", "x:0:1", "-1:0:1",
				 "254:0:1:2", "4096:0:1", "0:1048576:1" }) {
		allpages_lines({ "--inode", bad }, &st);
		EXPECT_EQ(st, 2) << "--inode '" << bad << "'";
	}
}

// The path program trusts a mapping pointer only while it is the address_space of the inode
// the walk saw: a wrong inode or device, garbage and a freed inode all give "unknown", and
// nothing faults. And its cost: load and 20 names.
TEST(Files, PathProgramChecksThePointer)
{
	struct ms_ranges ranges = {};
	ASSERT_EQ(ms_ranges_from_iomem("/proc/iomem", &ranges), 0);
	std::unique_ptr<struct ms_ranges, void (*)(struct ms_ranges *)> own_r(&ranges,
									     ms_ranges_free);
	// a first open, not measured, warms what any open reads (vmlinux BTF, the binary's pages)
	struct ms_bpf *plain = nullptr;
	char why[512];
	ASSERT_EQ(ms_bpf_open(&plain, MS_BPF_ALLPAGES | MS_BPF_ONE_WALK, why, sizeof(why)), 0)
		<< why;
	ms_bpf_free(plain);
	auto cpu = [] {
		struct timespec t;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
	};
	double c0 = cpu();
	auto t0 = std::chrono::steady_clock::now();
	ASSERT_EQ(ms_bpf_open(&plain, MS_BPF_ALLPAGES | MS_BPF_ONE_WALK, why, sizeof(why)), 0)
		<< why;
	auto t1 = std::chrono::steady_clock::now();
	double c1 = cpu();
	ms_bpf_free(plain);
	struct ms_bpf *b = nullptr;
	double c2 = cpu();
	auto t2 = std::chrono::steady_clock::now();
	ASSERT_EQ(ms_bpf_open(&b, MS_BPF_ALLPAGES | MS_BPF_ONE_WALK | MS_BPF_PATHS, why,
			      sizeof(why)), 0) << why;
	auto t3 = std::chrono::steady_clock::now();
	double c3 = cpu();
	std::unique_ptr<struct ms_bpf, void (*)(struct ms_bpf *)> own(b, ms_bpf_free);

	ClosedFile f("/var/tmp", 4 * kMiB);
	ASSERT_TRUE(f.ok());
	int fd = open(f.path().c_str(), O_RDONLY | O_CLOEXEC);	// keeps the inode
	ASSERT_GE(fd, 0);
	struct Find {
		__u32 dev;
		__u64 ino, mapping;
	} find = { (__u32)(major(f.dev()) << 20 | minor(f.dev())), f.ino(), 0 };
	struct ms_result res = {};
	ASSERT_EQ(ms_bpf_dump(b, &ranges, &res,
			      [](void *arg, __u64, const struct ms_page_rec *r) -> int {
				      Find *x = static_cast<Find *>(arg);
				      if (!x->mapping && r->valid && r->dev == x->dev &&
					  r->ino == x->ino && r->role != MS_ROLE_TAIL)
					      x->mapping = r->w[3];
				      return 0;
			      }, &find), 0);
	ASSERT_NE(find.mapping, 0u) << "no page of the file in the walk";

	struct ms_mountinfo mounts = {};
	ASSERT_EQ(ms_mountinfo_load("/proc/self/mountinfo", &mounts), 0);
	auto name = [&](__u64 mapping, __u64 ino, __u32 dev, __u32 *status) {
		std::vector<struct ms_path_slot> s(1);
		s[0].mapping = mapping;
		s[0].ino = ino;
		s[0].dev = dev;
		EXPECT_EQ(ms_bpf_paths(b, s.data(), 1), 0);
		*status = s[0].status;
		struct ms_file_info fi;
		char *p = ms_file_compose(&s[0], &mounts, &fi);
		std::string out = p ? p : "";
		free(p);
		return out;
	};
	__u32 st;
	EXPECT_EQ(name(find.mapping, find.ino, find.dev, &st), f.path());
	EXPECT_EQ(st, (__u32)MS_PATH_OK);
	name(find.mapping, find.ino + 1, find.dev, &st);
	EXPECT_EQ(st, (__u32)MS_PATH_UNKNOWN) << "another inode number";
	name(find.mapping, find.ino, find.dev + 1, &st);
	EXPECT_EQ(st, (__u32)MS_PATH_UNKNOWN) << "another device";
	// not kernel addresses; the start of the direct map (memory, but no address_space);
	// the last page of the address space
	for (__u64 bad : { 0x1ULL, 0x1000ULL, 0xffff888000000000ULL, 0xfffffffffffff000ULL,
			   find.mapping + 8 }) {
		name(bad, find.ino, find.dev, &st);
		EXPECT_EQ(st, (__u32)MS_PATH_UNKNOWN) << std::hex << "a bad pointer " << bad;
	}

	// cost: 20 names in one call (one run of file_paths)
	std::vector<struct ms_path_slot> slots(20);
	for (auto &s : slots) {
		s.mapping = find.mapping;
		s.ino = find.ino;
		s.dev = find.dev;
	}
	auto t4 = std::chrono::steady_clock::now();
	EXPECT_EQ(ms_bpf_paths(b, slots.data(), slots.size()), 0);
	auto t5 = std::chrono::steady_clock::now();
	for (int i = 0; i < 20; i++) {
		__u32 s1;
		name(find.mapping, find.ino, find.dev, &s1);
	}
	auto t6 = std::chrono::steady_clock::now();
	auto ms = [](auto a, auto b) {
		return std::chrono::duration<double, std::milli>(b - a).count();
	};
	// CPU time includes the verifier's (it runs in this process's bpf() calls); wall time
	// is as noisy as the machine is busy
	printf("path program cost: open+load with it %.1f ms CPU (%.1f ms wall), without %.1f ms "
	       "CPU (%.1f ms wall): +%.1f ms CPU; 20 names in one run %.3f ms, in 20 runs %.3f ms\n",
	       c3 - c2, ms(t2, t3), c1 - c0, ms(t0, t1), (c3 - c2) - (c1 - c0), ms(t4, t5),
	       ms(t5, t6));

	// the inode freed: close the last reference to an unlinked file
	ASSERT_EQ(unlink(f.path().c_str()), 0);
	close(fd);
	std::string after = name(find.mapping, find.ino, find.dev, &st);
	EXPECT_TRUE(st == MS_PATH_UNKNOWN || (st == MS_PATH_OK && after != f.path()))
		<< "a freed inode gave status " << st << ", '" << after << "'";
	ms_mountinfo_free(&mounts);
}

// The kmod backend has no pointers: its file groups say so, by dev and inode.
TEST(Files, KmodBackendSaysPathUnavailable)
{
	if (access(MS_KMOD_DEVICE, R_OK))
		GTEST_SKIP() << MS_KMOD_DEVICE << " absent: the kernel module is not loaded";
	RunResult r = run_memstat({ "--backend", "kmod", "--by", "file", "--top", "5", "--json" });
	ASSERT_EQ(r.status, 0);
	json j = json::parse(r.out);
	int files = 0;
	for (const auto &g : j["groups"]) {
		if (!g.contains("inode"))
			continue;
		files++;
		EXPECT_EQ(g["path"], "path unavailable with the kmod backend");
		EXPECT_EQ(g["path_source"], "unavailable");
	}
	EXPECT_GT(files, 0);
}
