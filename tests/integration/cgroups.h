// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Memory cgroups the integration tests make (cgroup_test.cc, pod_test.cc): the hierarchy memstat
// finds (v1 on the test machine; in the VM matrix, which mounts none, cgroup2 mounted here), a
// cgroup removed when it goes away, a child process in a cgroup, page cache it holds, and what
// a folio's memcg link is on this kernel.
#ifndef MEMSTAT_TEST_CGROUPS_H
#define MEMSTAT_TEST_CGROUPS_H

#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <map>
#include <sstream>

#include "helpers.h"

extern "C" {
#include "cgroup.h"
#include "backend.h"
#include "memstat_int.h"
}

namespace mstest {

const long kMiB = 1 << 20;

// The memory controller's hierarchy: the one memstat will find (cgroup.c), else cgroup2
// mounted here on a temporary directory, unmounted at the end.
struct Hierarchy {
	std::string mount, root, why;
	int version = 0;
	bool mounted_here = false;

	Hierarchy()
	{
		char *m = nullptr, *r = nullptr;
		if (ms_cgroup_find_mount("/proc/self/mountinfo", &m, &r, &version) == 0) {
			mount = m;
			root = r;
			free(m);
			free(r);
			remove_stale();
			return;
		}
		char tmpl[] = "/tmp/memstat-cgroup2-XXXXXX";
		if (!mkdtemp(tmpl)) {
			why = std::string("mkdtemp: ") + strerror(errno);
			return;
		}
		if (::mount("cgroup2", tmpl, "cgroup2", 0, nullptr)) {
			why = std::string("no memory cgroup hierarchy is mounted and mounting cgroup2 "
					  "failed: ") + strerror(errno);
			rmdir(tmpl);
			return;
		}
		mounted_here = true;
		mount = tmpl;
		if (ms_cgroup_find_mount("/proc/self/mountinfo", &m, &r, &version) || mount != m) {
			why = "cgroup2 mounted, but without the memory controller (bound to v1 elsewhere?)";
			version = 0;
		} else {
			root = r;
		}
		free(m);
		free(r);
	}
	~Hierarchy()
	{
		if (mounted_here) {
			umount2(mount.c_str(), MNT_DETACH);
			rmdir(mount.c_str());
		}
	}
	bool ok() const { return version == 1 || version == 2; }
	// cgroups left by a run of this test that was killed (name memstat-test-WHAT-PID, PID gone)
	void remove_stale() const
	{
		DIR *d = opendir(mount.c_str());
		struct dirent *e;
		std::vector<std::string> stale;
		while (d && (e = readdir(d))) {
			std::string n = e->d_name;
			size_t dash = n.rfind('-');
			if (n.rfind("memstat-test-", 0) || dash == std::string::npos)
				continue;
			pid_t pid = atoi(n.c_str() + dash + 1);
			if (pid > 0 && kill(pid, 0) && errno == ESRCH)
				stale.push_back(mount + "/" + n);
		}
		if (d)
			closedir(d);
		for (auto &dir : stale) {
			// children first, at any depth (pod_test.cc makes kubepods trees)
			std::system(("find '" + dir + "' -depth -type d | while read -r d; do "
				     "for p in $(cat \"$d/cgroup.procs\"); do echo $p > '" + mount +
				     "/cgroup.procs'; done; rmdir \"$d\"; done 2>/dev/null").c_str());
		}
	}
};

inline bool write_str(const std::string &path, const std::string &v)
{
	int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool ok = ::write(fd, v.data(), v.size()) == (ssize_t)v.size();
	close(fd);
	return ok;
}

// A cgroup the test makes (rel: under the hierarchy's mount); removed when it goes away, after
// its processes are moved to the root. A v2 parent gives its children the memory controller.
class Cgroup {
public:
	Cgroup(const Hierarchy &h, const std::string &rel) : h_(h), rel_(rel), dir_(h.mount + "/" + rel)
	{
		made_ = mkdir(dir_.c_str(), 0755) == 0;
		if (!made_)
			err_ = std::string("mkdir ") + dir_ + ": " + strerror(errno);
	}
	~Cgroup() { remove(); }
	bool ok() const { return made_; }
	const std::string &err() const { return err_; }
	const std::string &dir() const { return dir_; }
	// the name memstat gives it: its path from the hierarchy's root
	std::string path() const { return (h_.root == "/" ? "" : h_.root) + "/" + rel_; }
	unsigned long long id() const
	{
		struct stat st;
		return ::stat(dir_.c_str(), &st) ? 0 : (unsigned long long)st.st_ino;
	}
	bool give_memory_to_children() const
	{
		if (h_.version != 2)
			return true;
		return write_str(h_.mount + "/cgroup.subtree_control", "+memory") &&
		       write_str(dir_ + "/cgroup.subtree_control", "+memory");
	}
	// memory.stat, in bytes: v1's hierarchical total_* fields, v2's (hierarchical) own
	std::map<std::string, long long> stat() const
	{
		std::map<std::string, long long> m;
		std::istringstream in(read_file(dir_ + "/memory.stat"));
		std::string k;
		long long v;
		while (in >> k >> v)
			m[k] = v;
		return m;
	}
	long long usage() const
	{
		return atoll(read_file(dir_ + (h_.version == 1 ? "/memory.usage_in_bytes" :
							   "/memory.current")).c_str());
	}
	// anon, file (page cache with shmem) and shmem of memory.stat, in bytes
	void anon_file_shmem(long long *anon, long long *file, long long *shmem) const
	{
		auto s = stat();
		bool v1 = h_.version == 1;
		*anon = s[v1 ? "total_rss" : "anon"];
		*file = s[v1 ? "total_cache" : "file"];
		*shmem = s[v1 ? "total_shmem" : "shmem"];
	}
	// the processes out (to the root: a v2 parent that gives its children the memory
	// controller may hold none), then rmdir; a dying cgroup's rmdir succeeds at once
	bool remove()
	{
		if (!made_)
			return true;
		std::istringstream in(read_file(dir_ + "/cgroup.procs"));
		std::string pid;
		while (in >> pid)
			write_str(h_.mount + "/cgroup.procs", pid);
		for (int i = 0; i < 100; i++) {
			if (!rmdir(dir_.c_str()) || errno == ENOENT) {
				made_ = false;
				return true;
			}
			usleep(20000);	// a process that just exited may still populate it
		}
		ADD_FAILURE() << "rmdir " << dir_ << ": " << strerror(errno);
		return false;
	}

private:
	const Hierarchy &h_;
	std::string rel_, dir_, err_;
	bool made_ = false;
};

// A child process that joins a cgroup, does work() there and stays until it goes away.
class Member : public Child {
public:
	template <typename F>
	Member(const Cgroup &cg, F work)
		: Child(nullptr, [&] {
			  return write_str(cg.dir() + "/cgroup.procs", std::to_string(getpid())) &&
				 work();
		  })
	{
	}
};

inline std::string test_name(const char *what)
{
	return std::string("memstat-test-") + what + "-" + std::to_string(getpid());
}

// Page cache that a cgroup's process reads: written first, dropped from the cache
// (posix_fadvise DONTNEED once it is clean), then read back.
inline bool fill_drop_read(int fd, size_t len)
{
	std::vector<char> chunk(kMiB, 'c');
	if (lseek(fd, 0, SEEK_SET))
		return false;
	for (size_t done = 0; done < len; done += chunk.size())
		if (::write(fd, chunk.data(), chunk.size()) != (ssize_t)chunk.size())
			return false;
	if (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		return false;
	size_t got = 0;
	ssize_t n;
	if (lseek(fd, 0, SEEK_SET))
		return false;
	while ((n = read(fd, chunk.data(), chunk.size())) > 0)
		got += n;
	return got == len;
}

// The cgroups, made parents first and removed children first
struct Tree {
	const Hierarchy &h;
	std::vector<std::unique_ptr<Cgroup>> cgs;

	explicit Tree(const Hierarchy &hh) : h(hh) {}
	~Tree()
	{
		while (!cgs.empty())
			cgs.pop_back();
	}
	// rel and every cgroup above it; the parents give their children the memory controller
	Cgroup *make(const std::string &rel)
	{
		size_t at = 0;
		Cgroup *c = nullptr;
		while (at != std::string::npos) {
			at = rel.find('/', at + 1);
			std::string part = rel.substr(0, at);
			c = nullptr;
			for (auto &x : cgs)
				if (x->dir() == h.mount + "/" + part)
					c = x.get();
			if (c)
				continue;
			// v2: each ancestor of the new one (not a leaf: one with processes would refuse,
			// and a cgroup that gives its children the controller cannot take a process)
			for (auto &x : cgs)
				if (part.rfind(x->dir().substr(h.mount.size() + 1) + "/", 0) == 0 &&
				    !x->give_memory_to_children())
					ADD_FAILURE() << "+memory in " << x->dir();
			cgs.push_back(std::make_unique<Cgroup>(h, part));
			c = cgs.back().get();
			if (!c->ok()) {
				ADD_FAILURE() << c->err();
				return nullptr;
			}
		}
		return c;
	}
};

// Map a file's pages (resident: they stay charged where they are) and lock them, so that no
// reclaim (another test's memory pressure, the VMs' zram swap) takes them while we count.
// MADV_NOHUGEPAGE: khugepaged may otherwise collapse the mapped range into new PMD-sized folios,
// charged to the memcg the mapping process is in *then* (collapse_file() charges the new folio
// to the mm's cgroup): on 7.3, after the reader moved to the root, 8 of the file's 16 2 MiB
// ranges came back as order-9 folios of the root cgroup (3 runs in 8 of the 7.x VM).
inline bool lock_file(int fd, size_t len)
{
	void *p = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
	return p != MAP_FAILED && madvise(p, len, MADV_NOHUGEPAGE) == 0 && mlock(p, len) == 0;
}

// What a user folio's memcg_data points to on this kernel (the walker's probe), or -1.
inline int memcg_kind()
{
	struct ms_bpf *b = nullptr;
	char why[512];
	if (ms_bpf_open(&b, MS_BPF_ALLPAGES, why, sizeof(why))) {
		ADD_FAILURE() << why;
		return -1;
	}
	int kind = ms_bpf_features(b)->memcg_kind;
	ms_bpf_free(b);
	return kind;
}

} // namespace mstest

#endif
