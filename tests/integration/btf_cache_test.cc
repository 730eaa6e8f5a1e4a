// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The CO-RE types cache (src/backend/btf_cache.c): relocating the walker against it must give
// the instructions that relocating against the kernel's whole BTF gives, on this kernel; a cache
// file that is not root's own, or not BTF, is never used. Run as root.
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include <bpf/btf.h>

#include "helpers.h"

extern "C" {
#include "bpf_backend.h"
}

using namespace mstest;

namespace {

// A cache directory of this test's own, set for ms_btf_cache_open() and memstat-test.
struct CacheDir {
	std::string dir;
	CacheDir()
	{
		char t[] = "/tmp/memstat-btf-cache-XXXXXX";
		dir = mkdtemp(t);
		setenv("MEMSTAT_CACHE_DIR", dir.c_str(), 1);
	}
	~CacheDir()
	{
		for (const std::string &f : files())
			unlink(f.c_str());
		rmdir(dir.c_str());
		unsetenv("MEMSTAT_CACHE_DIR");
	}
	// have the cache written (as memstat's first run on a kernel does): its one file
	std::string written() const
	{
		char path[64];
		__u32 id = 0;
		int fd = ms_btf_cache_open(path, sizeof(path), &id);
		EXPECT_GE(fd, 0) << "no cache was written to " << dir;
		if (fd >= 0)
			close(fd);
		std::vector<std::string> f = files();
		EXPECT_EQ(f.size(), 1u);
		return f.empty() ? "" : f[0];
	}
	std::vector<std::string> files() const
	{
		std::vector<std::string> v;
		glob_t g;
		if (!glob((dir + "/*").c_str(), 0, nullptr, &g))
			for (size_t i = 0; i < g.gl_pathc; i++)
				v.push_back(g.gl_pathv[i]);
		globfree(&g);
		return v;
	}
};

struct Loaded {
	memstat_bpf *skel = nullptr;
	int err = 0;
	~Loaded() { memstat_bpf__destroy(skel); }
};

// The walker with walk_cast or walk and every optional program, relocated against `btf_path`
// (nullptr: the kernel's whole BTF, as libbpf finds it), as bpf_open.c loads it.
void load(Loaded &l, bool cast, const char *btf_path, __u32 pt_regs_id)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .btf_custom_path = btf_path);
	l.skel = memstat_bpf__open_opts(&o);
	ASSERT_NE(l.skel, nullptr);
	l.skel->rodata->pt_regs_btf_id = pt_regs_id;
	bpf_program__set_autoload(l.skel->progs.walk_cast, cast);
	bpf_program__set_autoload(l.skel->progs.walk, !cast);
	bpf_program__set_autoload(l.skel->progs.file_paths, true);
	bpf_program__set_autoload(l.skel->progs.get_deferred, true);
	l.err = memstat_bpf__load(l.skel);
}

// A map an instruction names, by its name (the two objects' map fds differ).
std::string map_of_fd(memstat_bpf *s, int fd)
{
	bpf_map *m;
	bpf_object__for_each_map(m, s->obj)
		if (bpf_map__fd(m) == fd)
			return bpf_map__name(m);
	return "fd " + std::to_string(fd);
}

TEST(BtfCache, RelocatesAsTheWholeBtf)
{
	CacheDir c;
	char path[64];
	__u32 id = 0;
	int fd = ms_btf_cache_open(path, sizeof(path), &id);
	ASSERT_GE(fd, 0) << "no cache was written to " << c.dir;
	// the id it carries is the kernel's own
	btf *kb = btf__load_vmlinux_btf();
	ASSERT_NE(kb, nullptr);
	__s32 real = btf__find_by_name_kind(kb, "pt_regs", BTF_KIND_STRUCT);
	btf__free(kb);
	ASSERT_GT(real, 0);
	EXPECT_EQ(id, (__u32)real);
	ASSERT_EQ(c.files().size(), 1u);
	struct stat st;
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_uid, 0u);
	EXPECT_EQ(st.st_mode & 022, 0u);
	// far smaller than the kernel's BTF: what makes it worth having
	struct stat k;
	ASSERT_EQ(stat("/sys/kernel/btf/vmlinux", &k), 0);
	EXPECT_LT(st.st_size * 20, k.st_size) << st.st_size << " of " << k.st_size;
	int compared = 0, ids = 0;
	bool cast_loaded = false;
	for (bool cast : {true, false}) {
		Loaded whole, cached;
		load(whole, cast, nullptr, 0);
		load(cached, cast, path, id);
		if (cast && whole.err) {	// 6.1: no bpf_rdonly_cast, walk_cast is not loaded
			EXPECT_NE(cached.err, 0);
			continue;
		}

		ASSERT_EQ(whole.err, 0);
		ASSERT_EQ(cached.err, 0) << "the cache relocated the walker differently";
		cast_loaded |= cast;
		bpf_program *p;
		bpf_object__for_each_program(p, whole.skel->obj) {
			if (!bpf_program__autoload(p))
				continue;
			bpf_program *q = bpf_object__find_program_by_name(cached.skel->obj,
									  bpf_program__name(p));
			ASSERT_NE(q, nullptr);
			size_t n = bpf_program__insn_cnt(p);
			ASSERT_EQ(bpf_program__insn_cnt(q), n) << bpf_program__name(p);
			const bpf_insn *a = bpf_program__insns(p), *b = bpf_program__insns(q);
			for (size_t i = 0; i < n; i++) {
				bool map = a[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
					   (a[i].src_reg == BPF_PSEUDO_MAP_FD ||
					    a[i].src_reg == BPF_PSEUDO_MAP_VALUE);
				if (map) {
					EXPECT_EQ(map_of_fd(whole.skel, a[i].imm),
						  map_of_fd(cached.skel, b[i].imm));
					EXPECT_EQ(a[i].src_reg, b[i].src_reg);
					EXPECT_EQ(a[i + 1].imm, b[i + 1].imm);	// offset in the map
					i++;
					continue;
				}
				// pt_regs's id, which the walker takes from pt_regs_btf_id with the cache
				if (a[i].imm == real && b[i].imm != real && a[i].code == b[i].code &&
				    a[i].dst_reg == b[i].dst_reg) {
					ids++;
					continue;
				}
				ASSERT_EQ(memcmp(&a[i], &b[i], sizeof(a[i])), 0)
					<< bpf_program__name(p) << " instruction " << i
					<< " differs: the cache lacks what a relocation needs";
			}
			compared++;
		}
	}
	close(fd);
	EXPECT_GE(compared, 6) << "programs compared";
	// walk_cast takes pt_regs's id twice (visit_cast, batch_uninit); 6.1 loads no walk_cast
	if (cast_loaded) {
		EXPECT_GE(ids, 2);
	}
}

TEST(BtfCache, FileNotRootsOwnOrWritableByOthersIsNotUsed)
{
	CacheDir c;
	char path[64];
	__u32 id;
	std::string f = c.written();
	ASSERT_EQ(chmod(f.c_str(), 0666), 0);
	EXPECT_LT(ms_btf_cache_open(path, sizeof(path), &id), 0) << "a world-writable file was used";
	ASSERT_EQ(chmod(f.c_str(), 0644), 0);
	ASSERT_EQ(chown(f.c_str(), 65534, 65534), 0);
	EXPECT_LT(ms_btf_cache_open(path, sizeof(path), &id), 0) << "a file of nobody's was used";
	// a symbolic link in its place, to a file of root's, is not followed
	ASSERT_EQ(unlink(f.c_str()), 0);
	ASSERT_EQ(symlink("/sys/kernel/btf/vmlinux", f.c_str()), 0);
	EXPECT_LT(ms_btf_cache_open(path, sizeof(path), &id), 0) << "a symbolic link was followed";
	ASSERT_EQ(unlink(f.c_str()), 0);
	// a directory others may write to is not read, nor written
	ASSERT_EQ(chmod(c.dir.c_str(), 0777), 0);
	EXPECT_LT(ms_btf_cache_open(path, sizeof(path), &id), 0);
	EXPECT_TRUE(c.files().empty());
	ASSERT_EQ(chmod(c.dir.c_str(), 0700), 0);
}

TEST(BtfCache, StaleOrBrokenFilesAreReplacedAndTheRunSucceeds)
{
	CacheDir c;
	std::string f = c.written();
	// another kernel's file goes when this kernel's is written
	std::string stale = c.dir + "/core-0000-1-2-0000000000000000.btf";
	ASSERT_EQ(rename(f.c_str(), stale.c_str()), 0);
	ASSERT_EQ(c.written(), f);
	// a file that is not BTF (a write cut short): the next run writes it again, and uses it
	auto overwrite = [&](const void *data, size_t len) {
		int w = open(f.c_str(), O_WRONLY | O_TRUNC);
		ASSERT_GE(w, 0);
		ASSERT_EQ(write(w, data, len), (ssize_t)len);
		close(w);
	};
	overwrite("not BTF", 7);
	RunResult r = run_memstat({"--json"});
	ASSERT_EQ(r.status, 0);
	EXPECT_EQ(json::parse(r.out)["backend"], "bpf");
	ASSERT_EQ(c.files(), std::vector<std::string>{f});
	EXPECT_GT(read_file(f).size(), 1000u) << "the broken file was kept";
	// a BTF of ours in a form that the walker cannot be relocated against: memstat loads from
	// the kernel's whole BTF, and removes it
	btf *bad = btf__new_empty();
	ASSERT_NE(bad, nullptr);
	ASSERT_GT(btf__add_struct(bad, "memstat_pt_regs_id", 1), 0);
	__u32 size = 0;
	const void *raw = btf__raw_data(bad, &size);
	ASSERT_NE(raw, nullptr);
	overwrite(raw, size);
	btf__free(bad);
	r = run_memstat({"--json"});
	ASSERT_EQ(r.status, 0);
	EXPECT_EQ(json::parse(r.out)["backend"], "bpf");
	EXPECT_TRUE(c.files().empty()) << "the file that failed was kept";
}

} // namespace
