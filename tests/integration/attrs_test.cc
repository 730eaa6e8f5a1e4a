// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat -a (src/core/attrs.c): the attributes of pages this test puts in a known state, page
// by page (an in-process record walk tells each folio's verdict, and the test looks up its own
// pages by their pfns), and the new reconcile rows against /proc/meminfo.
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <unordered_map>

#include "helpers.h"

extern "C" {
#include "memstat_int.h"
#include "attrs_int.h"
#include "backend.h"
#include "attrs.h"
}

using namespace mstest;

namespace {

const long kMiB = 1 << 20;

// The attribute mask (1 << enum ms_attr) one record walk gives each page of [p, p + len).
struct PageAttrs {
	std::vector<uint32_t> mask;	// per page of the range; 0 also for a page not found
	uint64_t moved = 0;		// pages whose pfn changed during the walk (left out)
	uint64_t gone = 0;		// of them, no longer in memory (reclaimed)
	struct ms_attrs totals;		// the whole walk's counts
	uint64_t with(enum ms_attr a) const
	{
		return std::count_if(mask.begin(), mask.end(),
				     [a](uint32_t m) { return m & (1U << a); });
	}
};

PageAttrs attrs_of(const char *p, size_t len)
{
	PageAttrs out;
	struct Look {
		std::unordered_map<uint64_t, size_t> idx;
		std::vector<uint32_t> *mask;
	} look;
	std::vector<uint64_t> pf = pfns_of(p, len);
	out.mask.assign(pf.size(), 0);
	for (size_t i = 0; i < pf.size(); i++)
		if (pf[i])
			look.idx[pf[i]] = i;
	look.mask = &out.mask;

	struct ms_ranges r = {};
	EXPECT_EQ(ms_ranges_from_iomem("/proc/iomem", &r), 0);
	struct ms_backend be = {};
	char why[512] = "";
	EXPECT_EQ(ms_backend_open(MS_BE_AUTO, MS_BPF_ALLPAGES, false, &be, why, sizeof(why),
				  nullptr, 0), 0) << why;
	if (be.kmod)	/* as memstat -a asks the module */
		ms_kmod_set_folio_counters(be.kmod, true);
	struct ms_attrs *a = (struct ms_attrs *)calloc(1, sizeof(*a));
	EXPECT_EQ(ms_attr_facts_load(&a->f), 0);
	a->on_folio = [](void *arg, __u64 first, __u64 n, __u32 mask, __u8) {
		Look *l = (Look *)arg;
		for (__u64 q = first; q < first + n; q++) {
			auto it = l->idx.find(q);
			if (it != l->idx.end())
				(*l->mask)[it->second] = mask;
		}
	};
	a->on_folio_arg = &look;
	ms_attrs_reset(a);
	struct ms_result res;
	EXPECT_EQ(ms_backend_pages(&be, &r, &res, ms_attrs_page, a), 0);
	ms_attrs_finish(a);
	out.totals = *a;
	free(a);
	ms_backend_close(&be);
	ms_ranges_free(&r);
	std::vector<uint64_t> pf2 = pfns_of(p, len);
	for (size_t i = 0; i < pf.size(); i++)
		if (!pf[i] || pf[i] != pf2[i]) {
			out.mask[i] = 0;
			out.moved++;
			out.gone += !pf2[i];
		}
	return out;
}

json attrs_reconcile()
{
	RunResult r = run_memstat({ "-a", "--reconcile", "--json" });
	try {
		json j = json::parse(r.out);
		EXPECT_TRUE(j.contains("attributes")) << r.out;
		return j;
	} catch (const std::exception &e) {
		ADD_FAILURE() << "invalid JSON: " << e.what() << "\n" << r.out;
		return json::object();
	}
}

void expect_row_ok(const json &j, const std::string &field)
{
	json row = recon_row(j, field);
	EXPECT_TRUE(row.value("ok", false)) << row.dump();
	EXPECT_EQ(row.value("tolerance_pct", 0.0), 0.1) << row.dump();
}

std::string trim(std::string s)
{
	while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
		s.pop_back();
	return s;
}

// Why a THP test cannot run here ("": it can)
std::string thp_off()
{
	std::string en = read_file("/sys/kernel/mm/transparent_hugepage/enabled");
	if (en.empty() || en.find("[never]") != std::string::npos)
		return "transparent huge pages are off here (" + trim(en) + ")";
	return "";
}

// len bytes of private anon memory from a 2 MiB boundary, MADV_HUGEPAGE, every page written
struct HugeAnon {
	static constexpr size_t kAlign = 2 * kMiB;
	Mapping raw;
	char *p = nullptr;
	bool advised = false;
	explicit HugeAnon(size_t len)
		: raw(mmap(nullptr, len + kAlign, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), len + kAlign)
	{
		if (!raw.ok())
			return;
		p = (char *)(((uintptr_t)raw.data() + kAlign - 1) & ~(uintptr_t)(kAlign - 1));
		advised = madvise(p, len, MADV_HUGEPAGE) == 0;
		touch_write(p, len);
	}
	bool ok() const { return raw.ok() && advised; }
};

// AnonHugePages of the mappings in [from, to) in /proc/self/smaps, in kB (the kernel's own count
// of the range's PMD-mapped anon THP); -1 when no mapping starts there
long long smaps_anon_huge_kb(const char *from, const char *to)
{
	std::ifstream sm("/proc/self/smaps");
	std::string line;
	bool in = false, found = false;
	long long kb = 0;
	while (std::getline(sm, line)) {
		unsigned long lo, hi;
		if (isxdigit((unsigned char)line[0]) && sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2) {
			in = lo >= (uintptr_t)from && hi <= (uintptr_t)to;
			found = found || lo == (uintptr_t)from;
		}
		if (in && line.rfind("AnonHugePages:", 0) == 0)
			kb += std::stoll(line.substr(14));
	}
	return found ? kb : -1;
}

} // namespace

// Every new row agrees with meminfo within 0.1% of MemTotal (or is n/a on a kernel without
// the counter); the two slab rows are listed as not reconcilable, with the reason.
TEST(Attributes, ReconcileRowsWithinTenthOfAPercent)
{
	json j = attrs_reconcile();
	std::string rows;
	for (auto &row : j["reconcile"]["rows"])
		rows += row.dump() + "\n";
	bool mglru = j["attributes"].value("mglru", false);
	std::vector<std::string> fields = { "Dirty", "Writeback", "Mlocked", "Unevictable",
					    "AnonHugePages", "ShmemHugePages", "FileHugePages",
					    "Unaccepted", "SReclaimable", "SUnreclaim" };
	if (mglru) {
		fields.push_back("Active(anon)+Inactive(anon)");
		fields.push_back("Active(file)+Inactive(file)");
	} else {
		for (const char *f : { "Active(anon)", "Inactive(anon)", "Active(file)",
				       "Inactive(file)" })
			fields.push_back(f);
	}
	for (auto &f : fields) {
		json row = recon_row(j, f);
		EXPECT_TRUE(row.value("ok", false)) << row.dump();
		if (row.value("status", "") != "n/a") {
			EXPECT_LE(std::abs(row["diff_pct"].get<double>()), 0.1) << row.dump();
		}
	}
	EXPECT_TRUE(j["reconcile"]["ok"].get<bool>()) << rows;
	RunResult t = run_memstat({ "-a", "--reconcile" });
	// the slab split is a row of its own, not in the list of what cannot be reconciled
	EXPECT_NE(t.out.find("Slab reclaimable"), std::string::npos) << t.out;
	EXPECT_EQ(t.out.find("SReclaimable, SUnreclaim apart"), std::string::npos) << t.out;
	EXPECT_NE(t.out.find("DMA-pinned"), std::string::npos) << t.out;
	EXPECT_NE(t.out.find("Page Attributes"), std::string::npos) << t.out;
}

// 256 MiB written without fsync: every page dirty (and Dirty reconciles); after fsync none is.
TEST(Attributes, DirtyFileThenFsync)
{
	const size_t len = 256 * kMiB;
	// no background or periodic writeback while the test looks (restored afterwards)
	SysfsGuard bg_bytes("/proc/sys/vm/dirty_background_bytes"),
		bg_ratio("/proc/sys/vm/dirty_background_ratio"),
		bytes("/proc/sys/vm/dirty_bytes"), ratio("/proc/sys/vm/dirty_ratio"),
		expire("/proc/sys/vm/dirty_expire_centisecs"),
		wb("/proc/sys/vm/dirty_writeback_centisecs");
	ASSERT_TRUE(bytes.write(std::to_string(2048 * kMiB)));
	ASSERT_TRUE(bg_bytes.write(std::to_string(1024 * kMiB)));
	ASSERT_TRUE(expire.write("360000"));
	ASSERT_TRUE(wb.write("0"));
	// Room first: in the 3 GiB 7.x VM the page cache of the earlier tests fills memory, and
	// writing 256 MiB then starts reclaim, which meets the file's newest pages too (under
	// MGLRU new file pages start in the second-oldest generation): once 1536 of them moved
	// or went under the walk (the check below says which now). Dropping the clean page cache
	// leaves reclaim nothing to do during the test.
	sync();
	{
		std::ofstream drop("/proc/sys/vm/drop_caches");
		drop << "1";
		drop.flush();
		ASSERT_TRUE(drop.good()) << "cannot drop the page cache";
	}
	TempFile f("/var/tmp");
	ASSERT_GE(f.fd(), 0);
	std::vector<char> chunk(kMiB, 'd');
	for (size_t done = 0; done < len; done += chunk.size())
		ASSERT_EQ(write(f.fd(), chunk.data(), chunk.size()), (ssize_t)chunk.size());
	Mapping m(mmap(nullptr, len, PROT_READ, MAP_SHARED, f.fd(), 0), len);
	ASSERT_TRUE(m.ok());
	touch_read(m.data(), len);
	const uint64_t want = len / page_size();

	PageAttrs a = attrs_of(m.data(), len);
	// A page the walk did not call dirty must have been written back meanwhile (reclaim
	// wakes the flusher for dirty pages it meets, whatever vm.dirty_* say: seen in the 3 GiB
	// 7.x VM): /proc/kpageflags, read after the walk, must call it neither dirty nor under
	// writeback.
	std::vector<uint64_t> pf = pfns_of(m.data(), len);
	int kpf = open("/proc/kpageflags", O_RDONLY);
	ASSERT_GE(kpf, 0);
	uint64_t dirty = 0, cleaned = 0;
	for (size_t i = 0; i < pf.size(); i++) {
		uint64_t k = 0;
		if (a.mask[i] & (1U << MS_A_DIRTY)) {
			dirty++;
			continue;
		}
		if (!pf[i] || pread(kpf, &k, 8, pf[i] * 8) != 8)
			continue;	// moved: counted in a.moved
		if (!(k & (1ULL << 4)) && !(k & (1ULL << 8)))	// KPF_DIRTY, KPF_WRITEBACK
			cleaned++;
	}
	close(kpf);
	EXPECT_EQ(dirty + cleaned + a.moved, want) << "pages of the written file that the walk did "
		"not call dirty, and that the kernel still calls dirty or under writeback";
	if (cleaned)
		std::printf("dirty: %llu of %llu pages written back during the test\n",
			    (unsigned long long)cleaned, (unsigned long long)want);
	EXPECT_GT(dirty, want / 2) << "writeback took most of the file before the walk";
	EXPECT_LT(a.moved, want / 100) << a.gone << " of them reclaimed, the others migrated";
	EXPECT_GE(a.totals.acct_dirty, a.with(MS_A_DIRTY));
	json j = attrs_reconcile();
	expect_row_ok(j, "Dirty");

	ASSERT_EQ(fsync(f.fd()), 0);
	PageAttrs b = attrs_of(m.data(), len);
	EXPECT_EQ(b.with(MS_A_DIRTY), 0u) << "pages still dirty after fsync";
	EXPECT_EQ(b.with(MS_A_WRITEBACK), 0u) << "pages under writeback after fsync returned";
	expect_row_ok(attrs_reconcile(), "Dirty");
}

// 64 MiB written to a memfd: shmem pages stay dirty (no file to write back to), which meminfo's
// Dirty leaves out. The table's dirty total counts them, so -a says how much of it is meminfo's
// Dirty (JSON: dirty_file), and that part leaves the memfd's pages out.
TEST(Attributes, DirtyShmemIsNotMeminfosDirty)
{
	const size_t len = 64 * kMiB;
	int fd = memfd_create("memstat-dirty-shmem", MFD_CLOEXEC);
	ASSERT_GE(fd, 0) << strerror(errno);
	std::vector<char> chunk(kMiB, 's');
	for (size_t done = 0; done < len; done += chunk.size())
		ASSERT_EQ(write(fd, chunk.data(), chunk.size()), (ssize_t)chunk.size());
	const long long want = (long long)(len / page_size());

	RunResult r = run_memstat({ "-a", "--json" });
	ASSERT_EQ(r.status, 0) << r.out;
	json a = json::parse(r.out)["attributes"];
	long long total = a["dirty"], file = a["dirty_file"];
	long long shmem = a["by_class"]["shmem"]["dirty"];
	EXPECT_GE(shmem, want) << "the memfd's pages are not all dirty shmem";
	EXPECT_LE(file, total - shmem) << a.dump();
	EXPECT_LE(file, a["by_class"]["page_cache"]["dirty"].get<long long>() +
			a["by_class"]["exec"]["dirty"].get<long long>()) << a.dump();

	RunResult t = run_memstat({ "-a" });
	ASSERT_EQ(t.status, 0);
	EXPECT_NE(t.out.find("(dirty: every page marked dirty; meminfo's Dirty is only the page "
			     "cache that writeback\n accounts, "), std::string::npos) << t.out;
	close(fd);
}

// 128 MiB mlocked: every page mlocked, and on the unevictable list but for the few still in a
// per-cpu batch (mlock_fbatch, lru_add: at most 31 folios per CPU and batch; small folios
// here, MADV_NOHUGEPAGE, so that a folio is a page).
TEST(Attributes, MlockedIsMlockedAndUnevictable)
{
	const size_t len = 128 * kMiB;
	const uint64_t want = len / page_size();
	Mapping m(mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		  len);
	ASSERT_TRUE(m.ok());
	madvise(m.data(), len, MADV_NOHUGEPAGE);
	touch_write(m.data(), len);
	ASSERT_EQ(mlock(m.data(), len), 0) << strerror(errno);
	// compaction migrates mlocked pages too (vm.compact_unevictable_allowed), and a page it
	// tries to migrate is munlocked while unmapped, whether or not it moves: the walks are
	// taken again until the kernel attempted no migration meanwhile
	PageAttrs a;
	json j;
	bool quiet = false;
	for (int i = 0; i < 5 && !quiet; i++) {
		long long before = kernel_migrations();
		a = attrs_of(m.data(), len);
		j = attrs_reconcile();
		quiet = kernel_migrations() == before;
	}
	if (!quiet)
		GTEST_SKIP() << "the kernel attempted migrations (compaction, khugepaged) during each "
				"of 5 walks: mlocked pages were munlocked meanwhile, nothing exact to "
				"compare";
	EXPECT_EQ(a.moved, 0u) << "pages moved with no migration counted in /proc/vmstat";
	EXPECT_EQ(a.with(MS_A_MLOCKED), want);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	EXPECT_GE(a.with(MS_A_UNEVICTABLE) + 2 * 31 * cpus, want) << "mlocked pages not "
		"on the unevictable list beyond what per-cpu batches hold";
	expect_row_ok(j, "Mlocked");
	expect_row_ok(j, "Unevictable");
	EXPECT_GE(j["attributes"]["by_class"]["anon"]["mlocked"].get<uint64_t>(), want);
	munlock(m.data(), len);
}

// 256 MiB of MADV_HUGEPAGE anon memory: the pages the kernel maps with PMDs (smaps'
// AnonHugePages of this mapping) are exactly the mapping's anon_thp pages.
TEST(Attributes, MadvHugepageIsAnonThp)
{
	if (!thp_off().empty())
		GTEST_SKIP() << thp_off();
	const size_t len = 256 * kMiB;
	HugeAnon h(len);
	ASSERT_TRUE(h.ok());
	char *p = h.p;
	PageAttrs a = attrs_of(p, len);
	long long thp_kb = smaps_anon_huge_kb(p, p + len);
	ASSERT_GE(thp_kb, 0) << "no smaps entry for the mapping";
	if (thp_kb == 0)
		GTEST_SKIP() << "the kernel gave this mapping no huge page (memory too fragmented)";
	EXPECT_LT(a.moved, len / page_size() / 100);
	EXPECT_EQ(a.with(MS_A_ANON_THP) + a.moved, (uint64_t)thp_kb * 1024 / page_size());
	std::printf("anon THP: %lld kB of 256 MiB\n", thp_kb);
	expect_row_ok(attrs_reconcile(), "AnonHugePages");
}

// meminfo's AnonHugePages (NR_ANON_THPS) counts the anon THP mapped by a PMD: a folio whose PMD
// mapping was split (here by an mprotect of one page of each 2 MiB; also a partial munmap, a
// COW after fork) stays one order-9 folio, mapped by 512 PTEs, and is no longer counted there
// nor in smaps. memstat -a must not count it as anon THP either.
TEST(Attributes, PteMappedThpIsNoAnonHugePage)
{
	if (!thp_off().empty())
		GTEST_SKIP() << thp_off();
	const size_t len = 64 * kMiB, align = 2 * kMiB;
	HugeAnon h(len);
	ASSERT_TRUE(h.ok());
	char *p = h.p;
	long long huge_kb = smaps_anon_huge_kb(p, p + len);
	ASSERT_GE(huge_kb, 0) << "no smaps entry for the mapping";
	if (huge_kb == 0)
		GTEST_SKIP() << "the kernel gave this mapping no huge page (memory too fragmented)";
	PageAttrs before = attrs_of(p, len);
	EXPECT_EQ(before.with(MS_A_ANON_THP) + before.moved, (uint64_t)huge_kb * 1024 / page_size());

	// khugepaged could collapse the ranges again (into new folios): not while this runs
	ASSERT_EQ(madvise(p, len, MADV_NOHUGEPAGE), 0);
	for (size_t off = 0; off < len; off += align)
		ASSERT_EQ(mprotect(p + off, page_size(), PROT_READ), 0) << strerror(errno);
	EXPECT_EQ(smaps_anon_huge_kb(p, p + len), 0) << "a PMD mapping survived the mprotect";
	PageAttrs a = attrs_of(p, len);
	// the folios are still huge: kpageflags calls their pages THP (KPF_THP: large anon folios)
	std::vector<uint64_t> pf = pfns_of(p, len);
	int kpf = open("/proc/kpageflags", O_RDONLY);
	ASSERT_GE(kpf, 0);
	uint64_t thp = 0;
	for (uint64_t f : pf) {
		uint64_t k = 0;
		if (f && pread(kpf, &k, 8, f * 8) == 8 && (k & (1ULL << 22)))
			thp++;
	}
	close(kpf);
	EXPECT_GE(thp + a.moved, (uint64_t)huge_kb * 1024 / page_size())
		<< "the split PMDs' folios were split too: nothing left to test";
	EXPECT_EQ(a.with(MS_A_ANON_THP), 0u) << "PTE-mapped huge folios counted as anon THP";
	std::printf("PTE-mapped THP: %llu pages in huge folios, %llu of them called anon THP\n",
		    (unsigned long long)thp, (unsigned long long)a.with(MS_A_ANON_THP));
	expect_row_ok(attrs_reconcile(), "AnonHugePages");
}

// The pinned column of memstat allpages --pfn FIRST-LAST --format csv, one value per record.
std::vector<std::string> allpages_pinned(uint64_t first, uint64_t last,
				       const char *backend = nullptr)
{
	char range[64];
	snprintf(range, sizeof(range), "0x%llx-0x%llx", (unsigned long long)first,
		 (unsigned long long)last);
	std::vector<std::string> args = { "--pfn", range };
	if (backend)
		args.insert(args.end(), { "--backend", backend });
	AllpagesCsv a = allpages_csv(args);
	EXPECT_EQ(a.status, 0) << range;
	size_t col = std::find(a.header.begin(), a.header.end(), "pinned") - a.header.begin();
	EXPECT_LT(col, a.header.size()) << "no pinned column";
	std::vector<std::string> v;
	for (const auto &c : a.rows)
		v.push_back(col < c.size() ? c[col] : "?");
	return v;
}

// memstat --by cgroup -a --json: the dma_pinned pages of the group of cgroup id (of every
// group and (other) when id is 0: this process's cgroup could not be named), -1 when absent
long long cgroup_pinned(uint64_t id)
{
	RunResult r = run_memstat({ "--by", "cgroup", "-a", "--json" });
	EXPECT_EQ(r.status, 0);
	long long n = -1;
	try {
		json j = json::parse(r.out);
		for (auto &g : j["groups"])
			if (!id || (g.contains("id") && g["id"] == id))
				n = std::max(n, 0LL) + g["dma_pinned"].get<long long>();
		if (!id)
			n += j["other"]["dma_pinned"].get<long long>();
	} catch (const std::exception &e) {
		ADD_FAILURE() << "invalid JSON: " << e.what() << "\n" << r.out.substr(0, 2000);
	}
	return n;
}

// The same from the Prometheus file of memstat --by cgroup -a -f prom: the value of
// memstat_group_dma_pinned_pages of the group whose key is the cgroup id, -1 when absent
long long cgroup_pinned_prom(uint64_t id)
{
	TempFile f("/tmp");	/* memstat renames its file over it; removed on return */

	EXPECT_GE(f.fd(), 0) << strerror(errno);
	if (f.fd() < 0)
		return -1;
	RunResult r = run_memstat({ "--by", "cgroup", "-a", "-f", "prom", "-o", f.path() });
	EXPECT_EQ(r.status, 0);
	std::string text = read_file(f.path()), want = "\",key=\"" + std::to_string(id) + "\"} ";
	long long n = -1;
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);) {
		size_t k = line.find(want);

		if (line.rfind("memstat_group_dma_pinned_pages{", 0) == 0 && k != std::string::npos)
			n = std::stoll(line.substr(k + want.size()));
	}
	EXPECT_NE(n, -1) << "no memstat_group_dma_pinned_pages for cgroup id " << id << "\n"
			 << text.substr(0, 4000);
	return n;
}

size_t count_of(const std::vector<std::string> &v, const std::string &s)
{
	return (size_t)std::count(v.begin(), v.end(), s);
}

// 64 MiB registered with io_uring (IORING_REGISTER_BUFFERS pins with FOLL_LONGTERM): exactly its
// pages are DMA-pinned, and none once unregistered. Its first half is small folios (the pin
// bias in the refcount), its second half asks for huge pages (_pincount of large folios).
TEST(Attributes, IoUringBuffersAreDmaPinned)
{
	const size_t len = 64 * kMiB;
	struct io_uring_params prm = {};
	int fd = (int)syscall(__NR_io_uring_setup, 4, &prm);
	if (fd < 0)
		GTEST_SKIP() << "io_uring_setup: " << strerror(errno)
			     << " (io_uring disabled or absent here)";
	const size_t align = 2 * kMiB;
	Mapping raw(mmap(nullptr, len + align, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), len + align);
	ASSERT_TRUE(raw.ok());
	char *p = (char *)(((uintptr_t)raw.data() + align - 1) & ~(uintptr_t)(align - 1));
	struct {
		char *d;
		char *data() const { return d; }
	} m{ p };	// the aligned 64 MiB of raw
	madvise(p, len / 2, MADV_NOHUGEPAGE);
	madvise(p + len / 2, len / 2, MADV_HUGEPAGE);
	touch_write(m.data(), len);
	PageAttrs before = attrs_of(m.data(), len);
	EXPECT_EQ(before.with(MS_A_DMA_PINNED), 0u) << "pinned before registration";
	struct iovec iov = { m.data(), len };
	ASSERT_EQ(syscall(__NR_io_uring_register, fd, IORING_REGISTER_BUFFERS, &iov, 1), 0)
		<< strerror(errno);
	PageAttrs a = attrs_of(m.data(), len);	// pfns after the pin (FOLL_LONGTERM migrates)
	EXPECT_EQ(a.moved, 0u) << "pinned pages moved";
	EXPECT_EQ(a.with(MS_A_DMA_PINNED), len / page_size());
	EXPECT_EQ(std::count_if(a.mask.begin(), a.mask.begin() + a.mask.size() / 2,
				[](uint32_t k) { return k & (1U << MS_A_DMA_PINNED); }),
		  (long)a.mask.size() / 2) << "small folios not pinned";
	std::printf("pinned: %llu of the huge half's pages in anon THP\n",
		    (unsigned long long)std::count_if(a.mask.begin() + a.mask.size() / 2,
						      a.mask.end(), [](uint32_t k) {
							      return k & (1U << MS_A_ANON_THP);
						      }));
	EXPECT_GE(ms_attrs_total(&a.totals, MS_A_DMA_PINNED), len / page_size());

	// memstat allpages says the same in its pinned column: a small page, and a huge folio of
	// the second half (the records of its head, its first tail page and all the rest); a
	// range that begins past a folio's first tail page cannot tell (empty)
	std::vector<uint64_t> pf = pfns_of(m.data(), len);
	uint64_t small = pf[0], head = 0;
	for (size_t i = pf.size() / 2; i < pf.size() && !head; i += 512)
		if (a.mask[i] & (1U << MS_A_ANON_THP) && pf[i] % 512 == 0)
			head = pf[i];
	EXPECT_EQ(allpages_pinned(small, small), std::vector<std::string>{ "1" });
	if (head) {
		std::vector<std::string> h = allpages_pinned(head, head + 511);
		EXPECT_EQ(h.size(), 512u);
		EXPECT_EQ(count_of(h, "1"), 512u) << "the huge folio's pages, pinned";
		EXPECT_EQ(count_of(allpages_pinned(head + 5, head + 6), ""), 2u);
	}
	// the module says the same without raw pointers (which lockdown refuses): its records
	// keep the folio's counters of the first tail page
	if (!access(MS_KMOD_DEVICE, F_OK)) {
		EXPECT_EQ(allpages_pinned(small, small, "kmod"), std::vector<std::string>{ "1" });
		if (head) {
			EXPECT_EQ(count_of(allpages_pinned(head, head + 511, "kmod"), "1"), 512u)
				<< "the huge folio's pages, pinned, from the module";
		}
		RunResult k = run_memstat({ "--backend", "kmod", "-a", "--json" });
		ASSERT_EQ(k.status, 0);
		EXPECT_GE(json::parse(k.out)["attributes"]["dma_pinned"].get<long long>(),
			  (long long)(len / page_size()));
	}
	// memstat --by cgroup -a: in this process's cgroup
	const uint64_t own = own_cgroup_ino();
	const long long in_group = cgroup_pinned(own);
	EXPECT_GE(in_group, (long long)(len / page_size())) << "cgroup id " << own;
	// and in the Prometheus series of --by -a (sampling to a textfile)
	if (own) {
		EXPECT_GE(cgroup_pinned_prom(own), (long long)(len / page_size()))
			<< "cgroup id " << own;
	}
	RunResult v = run_memstat({ "-v" });
	EXPECT_NE(v.out.find("(of which DMA-pinned)"), std::string::npos) << v.out;
	ASSERT_EQ(syscall(__NR_io_uring_register, fd, IORING_UNREGISTER_BUFFERS, nullptr, 0), 0)
		<< strerror(errno);
	PageAttrs b = attrs_of(m.data(), len);
	EXPECT_EQ(b.with(MS_A_DMA_PINNED), 0u) << "still pinned after unregistering";
	std::vector<uint64_t> after = pfns_of(m.data(), len);
	if (after[0] == small) {
		EXPECT_EQ(allpages_pinned(small, small), std::vector<std::string>{ "0" });
	}
	if (head && std::find(after.begin(), after.end(), head) != after.end()) {
		EXPECT_EQ(count_of(allpages_pinned(head, head + 511), "0"), 512u);
	}
	EXPECT_EQ(cgroup_pinned(own) + (long long)(len / page_size()), in_group)
		<< "the group's pinned pages did not drop by exactly the buffer's";
	close(fd);
}

// Two identical 64 MiB MADV_MERGEABLE regions merged by ksmd: the pages are KSM (the KSM
// settings are restored afterwards, also on failure: the guards).
TEST(Attributes, MergedPagesAreKsm)
{
	if (access("/sys/kernel/mm/ksm/run", W_OK))
		GTEST_SKIP() << "this kernel has no KSM (/sys/kernel/mm/ksm/run)";
	const size_t len = 64 * kMiB;
	const uint64_t n = len / page_size();
	SysfsGuard run("/sys/kernel/mm/ksm/run"), scan("/sys/kernel/mm/ksm/pages_to_scan"),
		sleep_ms("/sys/kernel/mm/ksm/sleep_millisecs");
	Mapping a(mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		  len),
		b(mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		  len);
	ASSERT_TRUE(a.ok() && b.ok());
	for (uint64_t i = 0; i < n; i++) {	// each page differs from the others of its region
		char *pa = a.data() + i * page_size(), *pb = b.data() + i * page_size();
		memset(pa, 0x5a, page_size());
		memcpy(pa, &i, sizeof(i));
		memcpy(pb, pa, page_size());
	}
	ASSERT_EQ(madvise(a.data(), len, MADV_MERGEABLE), 0) << strerror(errno);
	ASSERT_EQ(madvise(b.data(), len, MADV_MERGEABLE), 0) << strerror(errno);
	ASSERT_TRUE(scan.write("20000"));
	ASSERT_TRUE(sleep_ms.write("10"));
	ASSERT_TRUE(run.write("1"));
	auto t0 = std::chrono::steady_clock::now();
	uint64_t merged = 0;
	while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120)) {
		std::vector<uint64_t> pa = pfns_of(a.data(), len), pb = pfns_of(b.data(), len);
		merged = 0;
		for (uint64_t i = 0; i < n; i++)
			merged += pa[i] && pa[i] == pb[i];
		if (merged == n)
			break;
		std::this_thread::sleep_for(std::chrono::milliseconds(200));
	}
	ASSERT_EQ(merged, n) << "ksmd did not merge the two regions in 120 s";
	PageAttrs k = attrs_of(a.data(), len);
	EXPECT_EQ(k.with(MS_A_KSM) + k.moved, n);
	EXPECT_LT(k.moved, n / 100);
	json j = attrs_reconcile();
	EXPECT_GE(j["attributes"]["ksm"].get<uint64_t>(), n - k.moved);
	madvise(a.data(), len, MADV_UNMERGEABLE);
	madvise(b.data(), len, MADV_UNMERGEABLE);
}
