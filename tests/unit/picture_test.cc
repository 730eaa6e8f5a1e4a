// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat map's layout and cells (src/cmd/map.c) at 24 GiB and 4 TB, from synthetic runs, and
// memstat plot's log reader and breaks (src/cmd/plot.c).
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "capture.h"

extern "C" {
#include "picture.h"
#include "svg.h"
}

using namespace mstest;

namespace {

std::string draw(int (*fn)(FILE *, void *), void *arg)
{
	return capture([&](FILE *f) { EXPECT_EQ(fn(f, arg), 0); });
}

struct Ranges {
	std::vector<ms_range> v;
	ms_ranges r{};

	Ranges(std::initializer_list<ms_range> l) : v(l)
	{
		r.r = v.data();
		r.n = v.size();
		for (auto &x : v)
			r.pages += x.end - x.start;
	}
};

// a cell of the first row holding 192 anon and 64 kernel pages: one anon rectangle of 192
// cells' width and one kernel rectangle of 64 (runs merged within the row)
TEST(Map, CellsOfOneClassAreOneRectangle)
{
	Ranges pr({ { 0, 256 } });
	ms_map m;

	ASSERT_EQ(ms_map_init(&m, &pr.r, 4096), 0);
	EXPECT_EQ(m.scale, 1u);
	EXPECT_EQ(m.rows, 1u);
	// the walk's runs, split across calls like a walker's
	ASSERT_EQ(ms_map_run(&m, 0, 100, MS_ANON), 0);
	ASSERT_EQ(ms_map_run(&m, 100, 92, MS_ANON_SWAPCACHE), 0);
	ASSERT_EQ(ms_map_run(&m, 192, 64, MS_KERNEL_SLAB), 0);
	snprintf(m.title, sizeof(m.title), "t");
	std::string s = draw(ms_map_draw, &m);
	EXPECT_NE(s.find("width=\"768.00\" height=\"4.00\" fill=\"" +
			 std::string(ms_class_colours[MS_C_ANON]) + "\""), std::string::npos) << s;
	EXPECT_NE(s.find("width=\"256.00\" height=\"4.00\" fill=\"" +
			 std::string(ms_class_colours[MS_C_KERNEL]) + "\""), std::string::npos);
	EXPECT_NE(s.find("Anon  75.0%"), std::string::npos);
	EXPECT_NE(s.find("Kernel  25.0%"), std::string::npos);
	ms_map_free(&m);
}

// a cell goes to the class of most of its pages; a cell mostly outside present memory is a hole
TEST(Map, CellTakesTheMajorityClass)
{
	// 161 rows of pages at scale 1: scale 2; pfns 0-3 present, 4-299 not (hole cells)
	Ranges pr({ { 0, 4 }, { 300, 256 * 161 } });
	ms_map m;

	ASSERT_EQ(ms_map_init(&m, &pr.r, 4096), 0);
	EXPECT_EQ(m.scale, 2u);
	ASSERT_EQ(ms_map_run(&m, 0, 1, MS_KERNEL_SLAB), 0);
	ASSERT_EQ(ms_map_run(&m, 1, 3, MS_FILE), 0);	// cell 0: kernel 1, cache 1; cell 1: cache
	ASSERT_EQ(ms_map_run(&m, 300, 256 * 161 - 300, MS_FREE_BUDDY), 0);
	snprintf(m.title, sizeof(m.title), "t");
	std::string s = draw(ms_map_draw, &m);
	// a tie goes to the first class (kernel), then one cache cell: two cells, two rectangles
	EXPECT_NE(s.find("x=\"92.00\" y=\"84.00\" width=\"4.00\" height=\"4.00\" fill=\"" +
			 std::string(ms_class_colours[MS_C_KERNEL]) + "\""), std::string::npos) << s;
	EXPECT_NE(s.find("x=\"96.00\" y=\"84.00\" width=\"4.00\" height=\"4.00\" fill=\"" +
			 std::string(ms_class_colours[MS_C_PAGE_CACHE]) + "\""), std::string::npos);
	// cells 2-149 are not present: one hatched rectangle
	EXPECT_NE(s.find("x=\"100.00\" y=\"84.00\" width=\"592.00\" height=\"4.00\" fill=\"" +
			 std::string(MS_SVG_HOLE_PATTERN) + "\""), std::string::npos);
	ms_map_free(&m);
}

// this machine's layout: 24 GiB with the PCI hole under 4 GiB
TEST(Map, TwentyFourGiB)
{
	Ranges pr({ { 0x1, 0x9f }, { 0x100, 0xc0000 }, { 0x100000, 0x640000 } });
	ms_map m;

	ASSERT_EQ(ms_map_init(&m, &pr.r, 4096), 0);
	EXPECT_EQ(m.scale, 256u);	// 1 MiB a cell, 256 MiB a row
	EXPECT_EQ(m.nseg, 2u);		// the hole 3-4 GiB is four whole rows: collapsed
	EXPECT_EQ(m.rows, 12u + 84u);
	EXPECT_EQ(m.present, pr.r.pages);
	for (size_t i = 0; i < pr.v.size(); i++)
		ASSERT_EQ(ms_map_run(&m, pr.v[i].start, pr.v[i].end - pr.v[i].start, MS_FREE_BUDDY), 0);
	snprintf(m.title, sizeof(m.title), "t");
	std::string s = draw(ms_map_draw, &m);
	EXPECT_NE(s.find("hole: 1 GiB with no memory, up to 4 GiB"), std::string::npos);
	EXPECT_NE(s.find("1 cell = 1 MiB (256 pages)"), std::string::npos);
	EXPECT_NE(s.find(">4 GiB</text>"), std::string::npos);	// the row after the hole
	ms_map_free(&m);
}

// 4 TB in two nodes 2 TB apart, memory as fragmented as it can be at the cell scale: the scale
// grows so that the rows stay within MS_MAP_MAX_ROWS, and the SVG within one element a cell
TEST(Map, FourTerabytesStaysBounded)
{
	const __u64 tb2 = 1ULL << 29;	// 2 TiB of 4 KiB pages
	Ranges pr({ { 0x1, 0x9f }, { 0x100, 0xc0000 }, { 0x100000, tb2 }, { 2 * tb2, 3 * tb2 } });
	ms_zone zones[] = { { 0, "DMA", 1, 4096 }, { 0, "DMA32", 4096, 0x100000 },
			    { 0, "Normal", 0x100000, tb2 }, { 1, "Normal", 2 * tb2, 3 * tb2 } };
	__u64 anon = 0, total = 0;
	ms_map m;

	ASSERT_EQ(ms_map_init(&m, &pr.r, 4096), 0);
	EXPECT_EQ(m.scale, 1ULL << 15);		// 128 MiB a cell, 32 GiB a row
	EXPECT_LE(m.rows + (m.nseg - 1) * MS_MAP_GAP_ROWS, (size_t)MS_MAP_MAX_ROWS);
	EXPECT_EQ(m.nseg, 2u);
	m.zones = zones;
	m.nzones = 4;
	// every cell the other class of its neighbours: anon, free, anon, ... plus, in each cell, a
	// few pages of page cache in runs of one page
	for (auto &r : pr.v) {
		__u64 p = r.start;
		bool a = true;

		while (p < r.end) {
			__u64 n = m.scale - p % m.scale, k;

			if (n > r.end - p)
				n = r.end - p;
			k = n > 8 ? 4 : 0;
			for (__u64 i = 0; i < k; i++)
				ASSERT_EQ(ms_map_run(&m, p + i, 1, MS_FILE), 0);
			ASSERT_EQ(ms_map_run(&m, p + k, n - k, a ? MS_ANON : MS_FREE_BUDDY), 0);
			if (a)
				anon += n - k;
			total += n;
			p += n;
			a = !a;
		}
	}
	EXPECT_EQ(total, pr.r.pages);
	snprintf(m.title, sizeof(m.title), "memstat map: big, kernel x, now");
	std::string s = draw(ms_map_draw, &m);
	size_t rects = count(s, "<rect");
	EXPECT_GE(rects, (size_t)MS_MAP_COLS * 100);	// it is fragmented
	EXPECT_LE(rects, (size_t)MS_MAP_COLS * m.rows + 64);
	EXPECT_LT(s.size(), 4u << 20) << "an SVG of " << s.size() << " bytes";
	EXPECT_NE(s.find("hole: 2 TiB with no memory, up to 4 TiB"), std::string::npos);
	EXPECT_NE(s.find("node 1 Normal"), std::string::npos);
	EXPECT_NE(s.find("node 0 DMA32"), std::string::npos);
	EXPECT_NE(s.find("1 cell = 128 MiB (32768 pages)"), std::string::npos);
	char share[64];
	snprintf(share, sizeof(share), "Anon  %.1f%%", 100.0 * anon / total);
	EXPECT_NE(s.find(share), std::string::npos) << share;
	ms_map_free(&m);
}

// ---- memstat plot ----

struct TmpFile {
	std::string path;

	explicit TmpFile(const std::string &text)
	{
		char tmpl[] = "/tmp/memstat-plot-XXXXXX";
		int fd = mkstemp(tmpl);

		path = tmpl;
		EXPECT_EQ(write(fd, text.data(), text.size()), (ssize_t)text.size());
		close(fd);
	}
	~TmpFile() { unlink(path.c_str()); }
};

const char *kHeader = "timestamp,epoch,backend,kernel,anon,shmem,exec,page_cache,hugetlb,free,"
		      "unknown,total,kernel_slab,holes,walk_ms\n";

std::string row(double epoch, int kernel, int anon, int cache, int free_)
{
	char b[256];

	snprintf(b, sizeof(b), "2026-01-01T00:00:00.000Z,%.3f,bpf,%d,%d,0,0,%d,0,%d,0,%d,1,0,1.5\n",
		 epoch, kernel, anon, cache, free_, kernel + anon + cache + free_);
	return b;
}

TEST(Plot, CsvWithARepeatedHeader)
{
	// a rotated log joined with the next: the header again, with columns in another order
	TmpFile f(std::string(kHeader) + row(100, 10, 20, 30, 40) + row(160, 11, 21, 31, 41) +
		  "timestamp,epoch,backend,free,page_cache,anon,kernel,total\n" +
		  "2026-01-01T00:04:00.000Z,220,\"bpf\",400,300,200,100,1000\n" +
		  "2026-01-01T00:05:00.000Z,280,bpf,401,301");	// torn
	ms_plot p = {};
	char why[256] = "";

	ASSERT_EQ(ms_plot_read(&p, f.path.c_str(), why, sizeof(why)), 0) << why;
	ASSERT_EQ(p.n, 3u);
	EXPECT_EQ(p.skipped, 1u);
	EXPECT_EQ(std::string(p.skipped_at), f.path + ":6");
	EXPECT_DOUBLE_EQ(p.s[0].t, 100);
	EXPECT_DOUBLE_EQ(p.s[1].pages[MS_C_PAGE_CACHE], 31);
	EXPECT_DOUBLE_EQ(p.s[2].pages[MS_C_KERNEL], 100);
	EXPECT_DOUBLE_EQ(p.s[2].pages[MS_C_FREE], 400);
	EXPECT_DOUBLE_EQ(p.s[2].pages[MS_C_SHMEM], 0);	// not in that header
	EXPECT_DOUBLE_EQ(p.s[2].page_size, (double)sysconf(_SC_PAGESIZE));
	ms_plot_free(&p);
}

TEST(Plot, JsonLines)
{
	TmpFile f("{\"format_version\":1,\"timestamp\":\"x\",\"epoch\":1000.5,\"backend\":\"bpf\","
		  "\"kernel\":\"6.1\",\"page_size\":16384,\"pages\":{\"kernel\":5,\"anon\":6,\"shmem\":1,"
		  "\"exec\":2,\"page_cache\":7,\"hugetlb\":0,\"free\":8,\"unknown\":0,\"total\":29},"
		  "\"detail\":{\"kernel_slab\":5}}\n"
		  "{\"error\":\"the page walk failed\"}\n"
		  "{\"format_version\":1,\"epoch\":1060,\"page_size\":16384,\"pages\":{\"kernel\":6,"
		  "\"anon\":7,\"page_cache\":8,\"free\":9,\"total\":30}}\n");
	ms_plot p = {};
	char why[256] = "";

	ASSERT_EQ(ms_plot_read(&p, f.path.c_str(), why, sizeof(why)), 0) << why;
	ASSERT_EQ(p.n, 2u);
	EXPECT_EQ(p.skipped, 0u);
	EXPECT_DOUBLE_EQ(p.s[0].t, 1000.5);
	EXPECT_DOUBLE_EQ(p.s[0].page_size, 16384);
	EXPECT_DOUBLE_EQ(p.s[0].pages[MS_C_EXEC], 2);
	EXPECT_DOUBLE_EQ(p.s[1].pages[MS_C_FREE], 9);
	ms_plot_free(&p);
}

// A log of --wss (CSV or JSON lines): each sample's working set, the pages of anon, shmem, exec
// and page cache accessed in its window (the machine's, not a group's of --by), drawn as a line
// beside the resident size of those classes; a log without them draws neither.
TEST(Plot, WssLogsDrawTheWorkingSetBesideTheResidentSize)
{
	TmpFile csv("timestamp,epoch,backend,kernel,anon,shmem,exec,page_cache,hugetlb,free,unknown,"
		    "total,holes,walk_ms,wss_window_s,wss_measured_s,wss_accessed_anon,"
		    "wss_accessed_shmem,wss_accessed_exec,wss_accessed_page_cache\n"
		    "2026-01-01T00:00:00.000Z,100,bpf,1,2000,10,20,3000,0,5000,0,10031,0,1.5,60,60.1,"
		    "500,1,2,300\n"
		    "2026-01-01T00:01:00.000Z,160,bpf,1,2000,10,20,3000,0,5000,0,10031,0,1.5,60,60.1,"
		    "600,1,2,x\n");	// damaged: skipped
	TmpFile jsonl("{\"format_version\":1,\"epoch\":1000,\"page_size\":4096,\"pages\":{"
		      "\"kernel\":5,\"anon\":600,\"page_cache\":7,\"free\":8,\"total\":620},"
		      "\"groups\":[{\"name\":\"a\",\"wss\":{\"accessed\":{\"anon\":1,\"shmem\":0,"
		      "\"exec\":0,\"page_cache\":0}}}],\"wss\":{\"mechanism\":\"mglru\","
		      "\"window_s\":60.000,\"accessed\":{\"anon\":400,\"shmem\":0,\"exec\":3,"
		      "\"page_cache\":4,\"hugetlb\":null}}}\n");
	TmpFile plain(std::string(kHeader) + row(100, 10, 20, 30, 40) + row(160, 11, 21, 31, 41));
	ms_plot p = {};
	char why[256] = "";

	ASSERT_EQ(ms_plot_read(&p, csv.path.c_str(), why, sizeof(why)), 0) << why;
	ASSERT_EQ(p.n, 1u);
	EXPECT_EQ(p.skipped, 1u);
	EXPECT_TRUE(p.s[0].has_wss);
	EXPECT_DOUBLE_EQ(p.s[0].wss, 803);
	ASSERT_EQ(ms_plot_read(&p, jsonl.path.c_str(), why, sizeof(why)), 0) << why;
	ASSERT_EQ(p.n, 2u);
	EXPECT_TRUE(p.s[1].has_wss);
	EXPECT_DOUBLE_EQ(p.s[1].wss, 407);	// the machine's, not group a's
	ms_plot_breaks(&p);
	std::string svg = draw(ms_plot_draw, &p);
	EXPECT_EQ(count(svg, "Working set"), 1u) << svg;
	EXPECT_EQ(count(svg, "Resident"), 1u) << svg;
	ms_plot_free(&p);
	ASSERT_EQ(ms_plot_read(&p, plain.path.c_str(), why, sizeof(why)), 0) << why;
	EXPECT_FALSE(p.s[0].has_wss);
	svg = draw(ms_plot_draw, &p);
	EXPECT_EQ(count(svg, "Working set"), 0u);
	EXPECT_EQ(count(svg, "<polyline"), 0u);
	ms_plot_free(&p);
}

// A log of --wss on DAMON, which tells anon from file-backed and no other class (their fields
// empty in CSV, null in JSON): the working set is anon's and file-backed's accessed pages; the
// group's file_backed (before the machine's wss in a line) is not the machine's
TEST(Plot, DamonLogsDrawAnonAndFileBackedAccessed)
{
	TmpFile csv("timestamp,epoch,backend,kernel,anon,shmem,exec,page_cache,hugetlb,free,unknown,"
		    "total,holes,walk_ms,wss_window_s,wss_measured_s,wss_accessed_anon,"
		    "wss_accessed_shmem,wss_accessed_exec,wss_accessed_page_cache,wss_idle_anon,"
		    "wss_accessed_file_backed,wss_idle_file_backed\n"
		    "2026-01-01T00:00:00.000Z,100,bpf,1,2000,10,20,3000,0,5000,0,10031,0,1.5,60,60.1,"
		    "500,,,,1500,300,2700\n"
		    "2026-01-01T00:01:00.000Z,160,bpf,1,2000,10,20,3000,0,5000,0,10031,0,1.5,60,60.1,"
		    "600,,,,1400,,2700\n");	// damaged (no file-backed count): skipped
	TmpFile jsonl("{\"format_version\":1,\"epoch\":1000,\"page_size\":4096,\"pages\":{"
		      "\"kernel\":5,\"anon\":600,\"page_cache\":7,\"free\":8,\"total\":620},"
		      "\"groups\":[{\"name\":\"a\",\"wss\":{\"accessed\":{\"anon\":1,\"shmem\":null},"
		      "\"file_backed\":{\"accessed\":9,\"idle\":1}}}],\"wss\":{\"mechanism\":\"damon\","
		      "\"window_s\":60.000,\"accessed\":{\"anon\":400,\"shmem\":null,\"exec\":null,"
		      "\"page_cache\":null,\"hugetlb\":null},\"file_backed\":{\"accessed\":70,"
		      "\"idle\":30}}}\n");
	ms_plot p = {};
	char why[256] = "";

	ASSERT_EQ(ms_plot_read(&p, csv.path.c_str(), why, sizeof(why)), 0) << why;
	ASSERT_EQ(p.n, 1u);
	EXPECT_EQ(p.skipped, 1u);
	EXPECT_TRUE(p.s[0].has_wss);
	EXPECT_DOUBLE_EQ(p.s[0].wss, 800);
	ASSERT_EQ(ms_plot_read(&p, jsonl.path.c_str(), why, sizeof(why)), 0) << why;
	ASSERT_EQ(p.n, 2u);
	EXPECT_TRUE(p.s[1].has_wss);
	EXPECT_DOUBLE_EQ(p.s[1].wss, 470);	// the machine's, not group a's
	ms_plot_breaks(&p);
	std::string svg = draw(ms_plot_draw, &p);
	EXPECT_EQ(count(svg, "Working set"), 1u) << svg;
	ms_plot_free(&p);
}

TEST(Plot, NotAMemstatLog)
{
	TmpFile other("a,b,c\n1,2,3\n");
	TmpFile no_free("timestamp,epoch,backend,kernel,anon,page_cache\n");
	TmpFile empty("");
	TmpFile json("{\"a\":1}\n{\"b\":2}\n");
	ms_plot p = {};
	char why[256] = "";

	EXPECT_EQ(ms_plot_read(&p, other.path.c_str(), why, sizeof(why)), MS_EXIT_USAGE);
	EXPECT_NE(std::string(why).find("line 1: not a memstat log"), std::string::npos) << why;
	EXPECT_EQ(ms_plot_read(&p, no_free.path.c_str(), why, sizeof(why)), MS_EXIT_USAGE);
	EXPECT_NE(std::string(why).find("no 'free' column"), std::string::npos) << why;
	EXPECT_EQ(ms_plot_read(&p, empty.path.c_str(), why, sizeof(why)), MS_EXIT_USAGE);
	EXPECT_NE(std::string(why).find("no samples"), std::string::npos) << why;
	EXPECT_EQ(ms_plot_read(&p, json.path.c_str(), why, sizeof(why)), MS_EXIT_USAGE);
	EXPECT_EQ(ms_plot_read(&p, "/nonexistent/memstat.csv", why, sizeof(why)), MS_EXIT_USAGE);
	EXPECT_NE(std::string(why).find("No such file"), std::string::npos) << why;
	EXPECT_EQ(ms_plot_read(&p, "/tmp", why, sizeof(why)), MS_EXIT_USAGE);
	EXPECT_NE(std::string(why).find("directory"), std::string::npos) << why;
	EXPECT_EQ(p.n, 0u);
	ms_plot_free(&p);
}

// a reboot (a gap of more than 3 intervals) and a clock set back break the areas
TEST(Plot, BreaksAtAGapAndWhereTimeGoesBack)
{
	std::string log = kHeader;

	for (double t : { 0, 60, 120, 180, 240, 1000, 1060, 1120, 500, 560, 620 })
		log += row(t, 10, 20, 30, 40);
	TmpFile f(log);
	ms_plot p = {};
	char why[256] = "";

	ASSERT_EQ(ms_plot_read(&p, f.path.c_str(), why, sizeof(why)), 0) << why;
	ms_plot_breaks(&p);
	std::vector<size_t> brk;
	for (size_t i = 0; i < p.n; i++)
		if (p.s[i].brk)
			brk.push_back(i);
	EXPECT_EQ(brk, (std::vector<size_t>{ 5, 8 }));
	// three segments of more than one sample: a polygon per class drawn in each
	std::string s = draw(ms_plot_draw, &p);
	EXPECT_EQ(count(s, "<polygon"), 3u * 8);
	EXPECT_EQ(count(s, "stroke-dasharray"), 2u);
	EXPECT_NE(s.find(">gap</text>"), std::string::npos);
	EXPECT_NE(s.find(">time went back</text>"), std::string::npos);
	ms_plot_free(&p);
}

// one sample per minute for a year: at most one point per pixel column in the SVG
TEST(Plot, LongLogStaysBounded)
{
	ms_plot p = {};

	for (int i = 0; i < 365 * 1440; i++) {
		ms_plot_sample s = {};

		s.t = 1.7e9 + 60.0 * i;
		s.pages[MS_C_ANON] = 1000 + i % 977;
		s.pages[MS_C_FREE] = 5000 - i % 977;
		s.page_size = 4096;
		s.has_wss = true;	// a year of --wss samples: the lines as bounded as the areas
		s.wss = 200 + i % 300;
		p.n++;
		if (p.n > p.cap) {
			p.cap = p.cap ? 2 * p.cap : 4096;
			p.s = (ms_plot_sample *)realloc(p.s, p.cap * sizeof(*p.s));
		}
		p.s[p.n - 1] = s;
	}
	ms_plot_breaks(&p);
	std::string s = draw(ms_plot_draw, &p);
	EXPECT_EQ(count(s, "<polygon"), 8u);
	EXPECT_EQ(count(s, "<polyline"), 2u);
	EXPECT_LT(s.size(), 2u << 20) << s.size();
	ms_plot_free(&p);
}

} // namespace
