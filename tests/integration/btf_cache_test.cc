// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The CO-RE types cache (src/backend/btf_cache.c): relocating the walker against it must give
// the instructions that relocating against the kernel's whole BTF gives, on this kernel, with
// the kernel's own ids where the walker needs them; with it, loading never parses the kernel's
// whole BTF; a cache file that is not root's own, or not BTF, is never used. Run as root.
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
#include "attrs.h"
#include "backend.h"
#include "bpf_backend.h"
}

using namespace mstest;

// libbpf's (and memstat's) parses of the kernel's whole BTF, counted: the test binaries are
// linked with --wrap=btf__load_vmlinux_btf (Makefile INTEG_WRAP)
static int vmlinux_parses;
extern "C" struct btf *__real_btf__load_vmlinux_btf(void);
extern "C" struct btf *__wrap_btf__load_vmlinux_btf(void)
{
	vmlinux_parses++;
	return __real_btf__load_vmlinux_btf();
}

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
		ms_kernel_ids ids;
		int fd = ms_btf_cache_open(path, sizeof(path), &ids);
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
// (nullptr: the kernel's whole BTF, as libbpf finds it), loaded with `ids` as bpf_open.c loads it.
void load(Loaded &l, bool cast, const char *btf_path, const ms_kernel_ids &ids)
{
	l.skel = ms_bpf_open_skel(btf_path, 0);
	ASSERT_NE(l.skel, nullptr);
	bpf_program__set_autoload(l.skel->progs.walk_cast, cast);
	bpf_program__set_autoload(l.skel->progs.walk, !cast);
	bpf_program__set_autoload(l.skel->progs.file_paths, true);
	bpf_program__set_autoload(l.skel->progs.get_deferred, true);
	l.err = ms_bpf_load_skel(l.skel, &ids);
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
	ms_kernel_ids ids, whole_ids;
	int fd = ms_btf_cache_open(path, sizeof(path), &ids);
	ASSERT_GE(fd, 0) << "no cache was written to " << c.dir;
	// the ids it carries are the kernel's own, as libbpf finds them
	btf *kb = btf__load_vmlinux_btf();
	ASSERT_NE(kb, nullptr);
	__s32 pt_regs = btf__find_by_name_kind(kb, "pt_regs", BTF_KIND_STRUCT);
	__s32 cast_fn = btf__find_by_name_kind(kb, "bpf_rdonly_cast", BTF_KIND_FUNC);
	__s32 iter_fn = btf__find_by_name_kind(kb, "bpf_iter_task_vma", BTF_KIND_FUNC);
	btf__free(kb);
	ASSERT_GT(pt_regs, 0);
	ASSERT_GT(iter_fn, 0);
	EXPECT_EQ(ids.pt_regs, (__u32)pt_regs);
	EXPECT_EQ(ids.iter_task_vma, (__u32)iter_fn);
	EXPECT_EQ(ids.rdonly_cast, cast_fn > 0 ? (__u32)cast_fn : 0u);	// 0 on 6.1
	ASSERT_EQ(ms_btf_kernel_ids(&whole_ids), 0);
	EXPECT_EQ(memcmp(&ids, &whole_ids, sizeof(ids)), 0) << "the cache's ids are not the BTF's";
	ASSERT_EQ(c.files().size(), 1u);
	struct stat st;
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_uid, 0u);
	EXPECT_EQ(st.st_mode & 022, 0u);
	// far smaller than the kernel's BTF: what makes it worth having
	struct stat k;
	ASSERT_EQ(stat("/sys/kernel/btf/vmlinux", &k), 0);
	EXPECT_LT(st.st_size * 20, k.st_size) << st.st_size << " of " << k.st_size;
	int compared = 0, kfunc_calls = 0;
	bool cast_loaded = false;
	for (bool cast : {true, false}) {
		Loaded whole, cached;
		int parses = vmlinux_parses;
		load(whole, cast, nullptr, whole_ids);
		EXPECT_GT(vmlinux_parses, parses) << "libbpf's parse of the BTF is not counted";
		parses = vmlinux_parses;
		load(cached, cast, path, ids);
		EXPECT_EQ(vmlinux_parses, parses) << "the kernel's BTF was parsed with the cache";
		if (cast && !ids.rdonly_cast) {	// 6.1: no bpf_rdonly_cast, walk_cast is refused
			EXPECT_NE(whole.err, 0);
			EXPECT_NE(cached.err, 0);
			continue;
		}
		ASSERT_EQ(whole.err, 0);
		ASSERT_EQ(cached.err, 0) << "the cache relocated the walker differently";
		cast_loaded |= cast;
		EXPECT_EQ(bpf_program__type(cached.skel->progs.collect_exec), BPF_PROG_TYPE_TRACING);
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
				ASSERT_EQ(memcmp(&a[i], &b[i], sizeof(a[i])), 0)
					<< bpf_program__name(p) << " instruction " << i
					<< " differs: the cache lacks what a relocation needs";
				if (b[i].code != (BPF_JMP | BPF_CALL))
					continue;
				// every call of bpf_rdonly_cast was made the kfunc's, by its own id
				EXPECT_NE(b[i].imm, MS_CALL_RDONLY_CAST) << bpf_program__name(p);
				if (b[i].src_reg == BPF_PSEUDO_KFUNC_CALL) {
					EXPECT_EQ(b[i].imm, cast_fn) << bpf_program__name(p);
					kfunc_calls++;
				}
			}
			compared++;
		}
	}
	close(fd);
	EXPECT_GE(compared, 6) << "programs compared";
	// walk_cast calls bpf_rdonly_cast in visit_cast and batch_uninit; 6.1 loads no walk_cast
	if (cast_loaded) {
		EXPECT_GE(kfunc_calls, 2);
	}
}

// What the cache is for: a run that has it loads the walker without parsing the kernel's whole
// BTF (5 MiB, 6 to 9 ms of a one-shot run here); without it, the BTF is parsed.
TEST(BtfCache, LoadingWithItNeverParsesTheKernelsBtf)
{
	CacheDir c;
	c.written();
	char why[256];
	ms_bpf *b = nullptr;
	setenv("MEMSTAT_NO_CACHE", "1", 1);
	vmlinux_parses = 0;
	ASSERT_EQ(ms_bpf_open(&b, MS_BPF_ONE_WALK, why, sizeof(why)), 0) << why;
	ms_bpf_free(b);
	unsetenv("MEMSTAT_NO_CACHE");
	EXPECT_GE(vmlinux_parses, 1) << "the count sees no parse without the cache";
	vmlinux_parses = 0;
	ASSERT_EQ(ms_bpf_open(&b, MS_BPF_ONE_WALK, why, sizeof(why)), 0) << why;
	EXPECT_EQ(vmlinux_parses, 0) << "the kernel's BTF was parsed though the cache was there";
	ms_bpf_free(b);
	// and walk_cast wherever the kernel has bpf_rdonly_cast (6.2+)
	ms_kernel_ids ids;
	ASSERT_EQ(ms_btf_kernel_ids(&ids), 0);
	ASSERT_EQ(ms_bpf_open(&b, MS_BPF_ONE_WALK, why, sizeof(why)), 0) << why;
	EXPECT_EQ(ms_bpf_has_cast(b), ids.rdonly_cast != 0);
	ms_bpf_free(b);
}

// -a and allpages read struct page, struct folio and the page flags from the cache too: the
// same facts as from the whole BTF, without parsing it.
TEST(BtfCache, GivesTheAttributesTheFactsOfTheWholeBtf)
{
	CacheDir c;
	c.written();
	ms_attr_facts cached, whole;
	vmlinux_parses = 0;
	ASSERT_EQ(ms_attr_facts_load(&cached), 0);
	EXPECT_EQ(vmlinux_parses, 0) << "-a parsed the kernel's BTF though the cache was there";
	setenv("MEMSTAT_NO_CACHE", "1", 1);
	ASSERT_EQ(ms_attr_facts_load(&whole), 0);
	unsetenv("MEMSTAT_NO_CACHE");
	EXPECT_EQ(vmlinux_parses, 1);
	EXPECT_EQ(memcmp(&cached, &whole, sizeof(cached)), 0);
	// allpages' flag names: enum pageflags whole, every name and value
	btf *r = ms_kernel_btf(), *k = btf__load_vmlinux_btf();
	ASSERT_NE(r, nullptr);
	ASSERT_NE(k, nullptr);
	EXPECT_LT(btf__type_cnt(r) * 20, btf__type_cnt(k)) << "not the cache's BTF";
	__s32 ri = btf__find_by_name_kind(r, "pageflags", BTF_KIND_ENUM);
	__s32 ki = btf__find_by_name_kind(k, "pageflags", BTF_KIND_ENUM);
	ASSERT_GT(ri, 0);
	ASSERT_GT(ki, 0);
	const btf_type *rt = btf__type_by_id(r, ri), *kt = btf__type_by_id(k, ki);
	ASSERT_EQ(btf_vlen(rt), btf_vlen(kt));
	for (int i = 0; i < btf_vlen(kt); i++) {
		EXPECT_STREQ(btf__name_by_offset(r, btf_enum(rt)[i].name_off),
			     btf__name_by_offset(k, btf_enum(kt)[i].name_off));
		EXPECT_EQ(btf_enum(rt)[i].val, btf_enum(kt)[i].val);
	}
	btf__free(r);
	btf__free(k);
}

TEST(BtfCache, FileNotRootsOwnOrWritableByOthersIsNotUsed)
{
	CacheDir c;
	char path[64];
	ms_kernel_ids id;
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
	for (const char *carrier : {"memstat_id_pt_regs", "memstat_id_rdonly_cast",
				    "memstat_id_iter_task_vma"})
		ASSERT_GT(btf__add_struct(bad, carrier, 1), 0);
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
