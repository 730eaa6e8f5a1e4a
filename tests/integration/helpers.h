// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Helpers for the integration tests: run the memstat binary, parse its JSON, own test memory.
#ifndef MEMSTAT_TEST_HELPERS_H
#define MEMSTAT_TEST_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace mstest {

using json = nlohmann::json;

struct RunResult {
	int status = -1;	// exit code
	std::string out;	// stdout
};

inline std::string memstat_path()
{
	const char *p = getenv("MEMSTAT");
	return p ? p : "build/memstat";
}

// Run memstat with args (no shell), capturing stdout; stderr goes to the test's stderr.
inline RunResult run_memstat(const std::vector<std::string> &args)
{
	RunResult r;
	int pipefd[2];

	if (pipe(pipefd))
		return r;
	pid_t pid = fork();
	if (pid == 0) {
		std::vector<char *> argv;
		std::string path = memstat_path();

		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		argv.push_back(const_cast<char *>(path.c_str()));
		for (auto &a : args)
			argv.push_back(const_cast<char *>(a.c_str()));
		argv.push_back(nullptr);
		execv(path.c_str(), argv.data());
		_exit(127);
	}
	close(pipefd[1]);
	char buf[65536];
	ssize_t n;
	while ((n = read(pipefd[0], buf, sizeof(buf))) > 0)
		r.out.append(buf, n);
	close(pipefd[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r;
}

// One --json walk; fails the test when memstat fails or prints something that is not JSON.
inline json walk(const std::vector<std::string> &extra = {})
{
	std::vector<std::string> args = { "--json" };
	args.insert(args.end(), extra.begin(), extra.end());
	RunResult r = run_memstat(args);
	EXPECT_TRUE(r.status == 0 || r.status == 3) << "memstat exited " << r.status;
	try {
		return json::parse(r.out);
	} catch (const std::exception &e) {
		ADD_FAILURE() << "memstat --json printed invalid JSON: " << e.what() << "\n" << r.out;
		return json::object();
	}
}

inline long long pages(const json &j, const char *cls)
{
	return j["pages"][cls].get<long long>();
}

inline long long detail(const json &j, const char *sub)
{
	return j["detail"][sub].get<long long>();
}

// memstat --reconcile --json: the row of a meminfo field (fails the test when absent)
inline json recon_row(const json &j, const std::string &field)
{
	for (auto &row : j["reconcile"]["rows"])
		if (row["meminfo_field"] == field)
			return row;
	ADD_FAILURE() << "no reconcile row for " << field;
	return json::object();
}

inline long page_size()
{
	return sysconf(_SC_PAGESIZE);
}

inline std::string read_file(const std::string &path)
{
	std::ifstream f(path);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

// Write a sysctl-style file and restore the old value when the guard goes away.
class SysfsGuard {
public:
	SysfsGuard(const std::string &path) : path_(path), old_(read_file(path)) {}
	~SysfsGuard() { write(old_); }
	bool write(const std::string &v)
	{
		std::ofstream f(path_);
		f << v;
		f.flush();
		return f.good();
	}
	const std::string &old() const { return old_; }

private:
	std::string path_, old_;
};

// A child process that does work() (named name, unless NULL) and stays until it goes away;
// ok() when work() returned true.
class Child {
public:
	template <typename F> Child(const char *name, F work)
	{
		int ready[2], done[2];
		if (pipe(ready) || pipe(done))
			return;
		pid_ = fork();
		if (pid_ == 0) {
			close(ready[0]);
			close(done[1]);
			if (name)
				prctl(PR_SET_NAME, name);
			char ok = work();
			if (::write(ready[1], &ok, 1) != 1)
				_exit(1);
			char c;
			while (read(done[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		close(ready[1]);
		close(done[0]);
		done_ = done[1];
		char ok = 0;
		ok_ = pid_ > 0 && read(ready[0], &ok, 1) == 1 && ok;
		close(ready[0]);
	}
	~Child() { end(); }
	bool ok() const { return ok_; }
	pid_t pid() const { return pid_; }
	void end()
	{
		if (done_ >= 0)
			close(done_);
		done_ = -1;
		if (pid_ > 0)
			waitpid(pid_, nullptr, 0);
		pid_ = -1;
	}

private:
	pid_t pid_ = -1;
	int done_ = -1;
	bool ok_ = false;
};

// An anonymous or file mapping, unmapped when it goes away.
class Mapping {
public:
	Mapping(void *p, size_t len) : p_(p), len_(len) {}
	~Mapping()
	{
		if (p_ != MAP_FAILED && p_)
			munmap(p_, len_);
	}
	char *data() const { return static_cast<char *>(p_); }
	bool ok() const { return p_ != MAP_FAILED && p_; }
	size_t len() const { return len_; }

private:
	void *p_;
	size_t len_;
};

// A file in a directory on a disk file system, removed when it goes away.
class TempFile {
public:
	explicit TempFile(const std::string &dir)
	{
		path_ = dir + "/memstat-test-XXXXXX";
		fd_ = mkstemp(&path_[0]);
	}
	~TempFile()
	{
		if (fd_ >= 0)
			close(fd_);
		unlink(path_.c_str());
	}
	int fd() const { return fd_; }
	const std::string &path() const { return path_; }

	// Fill with len bytes of non-zero data and write it back to disk.
	bool fill(size_t len)
	{
		std::vector<char> chunk(1 << 20, 'm');
		for (size_t done = 0; done < len; done += chunk.size())
			if (::write(fd_, chunk.data(), chunk.size()) != (ssize_t)chunk.size())
				return false;
		return fsync(fd_) == 0;
	}
	// Drop the file's clean pages from the page cache.
	void drop_cache() { posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED); }

private:
	std::string path_;
	int fd_ = -1;
};

// Touch every page of a range so that it is resident (reads are enough for file pages).
inline unsigned long touch_read(const char *p, size_t len)
{
	unsigned long sum = 0;
	for (size_t i = 0; i < len; i += page_size())
		sum += *(volatile const char *)(p + i);
	return sum;
}

inline void touch_write(char *p, size_t len)
{
	for (size_t i = 0; i < len; i += page_size())
		p[i] = 1;
}

// pfns of the pages mapped at [p, p + len), from /proc/self/pagemap (0: not present)
inline std::vector<uint64_t> pfns_of(const char *p, size_t len)
{
	std::vector<uint64_t> pfns;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	EXPECT_GE(fd, 0);
	for (size_t off = 0; off < len; off += page_size()) {
		uint64_t e = 0;
		if (pread(fd, &e, 8, ((uintptr_t)(p + off) / page_size()) * 8) != 8)
			e = 0;
		pfns.push_back((e >> 63) ? (e & ((1ULL << 55) - 1)) : 0);
	}
	close(fd);
	return pfns;
}

// One counter of /proc/vmstat; -1 when it has none of that name
inline long long vmstat(const std::string &name)
{
	std::istringstream in(read_file("/proc/vmstat"));
	std::string key;
	long long v;
	while (in >> key >> v)
		if (key == name)
			return v;
	return -1;
}

// Migrations the kernel has attempted so far (/proc/vmstat: pages compaction isolated,
// migrations that succeeded or failed, huge pages khugepaged collapsed): an attempt unmaps a
// page for a while, and unmapping an mlocked page munlocks it until it is mapped again, so a
// count that did not change around a walk says no page of a test's was disturbed meanwhile.
inline long long kernel_migrations()
{
	std::istringstream in(read_file("/proc/vmstat"));
	long long sum = 0;
	std::string key;
	long long v;
	while (in >> key >> v)
		if (key == "compact_isolated" || key == "pgmigrate_success" ||
		    key == "pgmigrate_fail" || key == "thp_collapse_alloc")
			sum += v;
	return sum;
}

// The memory cgroup of this process as its directory's inode number, 0 if it cannot be
// named: "N:memory:/path" under /sys/fs/cgroup/memory (v1), else "0::/path" under
// /sys/fs/cgroup when that v2 tree has the memory controller.
inline uint64_t own_cgroup_ino()
{
	std::istringstream in(read_file("/proc/self/cgroup"));
	std::string line, dir;
	struct stat st;
	while (std::getline(in, line)) {
		size_t c1 = line.find(':'), c2 = line.find(':', c1 + 1);
		if (c1 == std::string::npos || c2 == std::string::npos)
			continue;
		std::string ctl = line.substr(c1 + 1, c2 - c1 - 1), path = line.substr(c2 + 1);
		if (ctl == "memory")
			dir = "/sys/fs/cgroup/memory" + path;
		else if (ctl.empty() && dir.empty() &&
			 read_file("/sys/fs/cgroup/cgroup.controllers").find("memory") != std::string::npos)
			dir = "/sys/fs/cgroup" + path;
	}
	return !dir.empty() && stat(dir.c_str(), &st) == 0 ? st.st_ino : 0;
}

// memstat allpages --format csv ARGS: the header's column names and each record's columns
struct AllpagesCsv {
	int status = -1;
	std::vector<std::string> header;
	std::vector<std::vector<std::string>> rows;
};

inline std::vector<std::string> csv_fields(const std::string &line)
{
	std::vector<std::string> c;
	std::istringstream fields(line);
	for (std::string x; std::getline(fields, x, ',');)
		c.push_back(x);
	if (!line.empty() && line.back() == ',')
		c.push_back("");	// getline drops an empty last field
	return c;
}

inline AllpagesCsv allpages_csv(const std::vector<std::string> &args)
{
	std::vector<std::string> a = { "allpages", "--format", "csv" };
	a.insert(a.end(), args.begin(), args.end());
	RunResult r = run_memstat(a);
	AllpagesCsv out;
	out.status = r.status;
	std::istringstream in(r.out);
	std::string line;
	if (std::getline(in, line))
		out.header = csv_fields(line);
	while (std::getline(in, line))
		out.rows.push_back(csv_fields(line));
	return out;
}

// The pages of a file (allpages --file), tallied by the allpages columns named in cols
// ("subclass: x, order: 0: N pages; ..."): what a test that finds fewer of a file's pages than
// it expects somewhere prints
inline std::string file_pages_by(const std::string &path, const std::vector<std::string> &cols)
{
	AllpagesCsv a = allpages_csv({ "--file", path });
	if (a.status)
		return "allpages --file exited " + std::to_string(a.status);
	std::vector<size_t> idx;
	for (const std::string &name : cols)
		for (size_t i = 0; i < a.header.size(); i++)
			if (a.header[i] == name)
				idx.push_back(i);
	std::map<std::string, long long> n;
	for (const auto &c : a.rows) {
		std::string key;
		for (size_t k = 0; k < idx.size(); k++)
			if (idx[k] < c.size())
				key += (k ? ", " : "") + a.header[idx[k]] + " " + c[idx[k]];
		n[key]++;
	}
	std::string out;
	for (auto &[k, v] : n)
		out += k + ": " + std::to_string(v) + " pages; ";
	return out.empty() ? "none in memory" : out;
}

} // namespace mstest

#endif
