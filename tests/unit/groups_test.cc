// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The --by group engine (src/core/groups.c) fed synthetic page records: every page in exactly
// one group, the hash under many keys, --top with (none) and (other), the check against the
// walk's total, node and zone by pfn, fs names from a mountinfo file.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "capture.h"

extern "C" {
#include "memstat_int.h"
#include "report.h"
#include "groups.h"
#include "groups_int.h"
#include "wss.h"
}

namespace {

using json = nlohmann::json;

ms_page_rec file_rec(uint32_t dev, uint64_t ino, uint8_t sub = MS_FILE)
{
	ms_page_rec r = {};
	r.valid = 1;
	r.sub = sub;
	r.dev = dev;
	r.ino = ino;
	return r;
}

ms_page_rec anon_rec()
{
	ms_page_rec r = {};
	r.valid = 1;
	r.sub = MS_ANON;
	return r;
}

struct Groups {
	ms_groups *g;
	explicit Groups(ms_by by, size_t top = 0) : g(ms_groups_new(by, top)) {}
	~Groups() { ms_groups_free(g); }
};

ms_result result_of(uint64_t total)
{
	ms_result r = {};
	r.backend = "bpf";
	r.total = total;
	return r;
}

std::string json_of(const ms_groups *g, const ms_result *r)
{
	return mstest::capture([&](FILE *f) { ms_groups_json(f, g, r); });
}

// Many file systems whose pages alternate (no two neighbours in one group: every page a
// lookup), and a run of one (the cached previous group): each gets exactly its pages.
TEST(Groups, EveryPageInItsGroupUnderManyKeys)
{
	Groups x(MS_BY_FS, 1000000);
	const uint64_t nfiles = 50000;
	uint64_t pfn = 0, pages = 0;
	for (int round = 0; round < 3; round++)
		for (uint64_t i = 0; i < nfiles; i++) {
			ms_page_rec r = file_rec(0x800000 + 1000 + i, 5);
			ASSERT_EQ(ms_groups_page(x.g, pfn++, &r), 0);
			pages++;
		}
	for (uint64_t i = 0; i < 100; i++) {	// a run of 100 pages of the first file
		ms_page_rec r = file_rec(0x800000 + 1000, 5);
		ASSERT_EQ(ms_groups_page(x.g, pfn++, &r), 0);
		pages++;
	}
	ms_page_rec hole = {};
	ASSERT_EQ(ms_groups_page(x.g, pfn++, &hole), 0);	// not valid: not counted
	EXPECT_EQ(x.g->n, nfiles);
	EXPECT_EQ(x.g->total, pages);
	ms_result res = result_of(pages);
	x.g->mountinfo_path = "/nonexistent/mountinfo";
	ASSERT_EQ(ms_groups_finish(x.g, &res), MS_EXIT_OK);
	ASSERT_EQ(x.g->nshown, nfiles);
	const ms_group &top = x.g->g[x.g->order[0]];
	EXPECT_EQ(top.k1, 0x800000u + 1000);
	EXPECT_EQ(top.total, 103u);
	for (size_t i = 1; i < x.g->nshown; i++) {
		const ms_group &e = x.g->g[x.g->order[i]];
		EXPECT_EQ(e.total, 3u) << "dev " << e.k1;
		EXPECT_EQ(e.sub[MS_FILE], 3u);
	}
}

// --top N: N keyed rows sorted by total, (none) always shown, the rest summed into other; the
// JSON's groups and other add up to the total.
TEST(Groups, TopKeepsNoneAndFoldsTheRestIntoOther)
{
	Groups x(MS_BY_FS, 2);
	std::map<uint32_t, int> want = { { 0x800001, 50 }, { 0x800002, 40 }, { 0x100005, 30 },
					 { 0x100006, 20 }, { 0x100007, 10 } };
	uint64_t pfn = 0, pages = 0;
	for (auto &[dev, n] : want)
		for (int i = 0; i < n; i++) {
			ms_page_rec r = file_rec(dev, 7 + i, i % 2 ? MS_FILE : MS_SHMEM);
			ASSERT_EQ(ms_groups_page(x.g, pfn++, &r), 0);
			pages++;
		}
	for (int i = 0; i < 25; i++) {
		ms_page_rec r = anon_rec();
		ASSERT_EQ(ms_groups_page(x.g, pfn++, &r), 0);
		pages++;
	}
	x.g->mountinfo_path = "/nonexistent/mountinfo";	// every fs not mounted
	ms_result res = result_of(pages);
	ASSERT_EQ(ms_groups_finish(x.g, &res), MS_EXIT_OK);
	ASSERT_EQ(x.g->nshown, 3u);	// the top 2 and (none)
	EXPECT_EQ(x.g->g[x.g->order[0]].total, 50u);
	EXPECT_STREQ(x.g->g[x.g->order[0]].name, "(not mounted)");
	EXPECT_EQ(x.g->g[x.g->order[1]].total, 40u);
	EXPECT_STREQ(x.g->g[x.g->order[2]].name, "(none)");
	EXPECT_EQ(x.g->g[x.g->order[2]].sub[MS_ANON], 25u);
	EXPECT_EQ(x.g->nother, 3u);
	EXPECT_EQ(x.g->other.total, 60u);
	EXPECT_EQ(x.g->other.sub[MS_SHMEM] + x.g->other.sub[MS_FILE], 60u);

	json j = json::parse(json_of(x.g, &res));
	EXPECT_EQ(j["by"], "fs");
	uint64_t sum = j["other"]["pages"]["total"].get<uint64_t>();
	for (auto &g : j["groups"]) {
		sum += g["pages"]["total"].get<uint64_t>();
		if (g["name"] == "(none)")
			EXPECT_FALSE(g.contains("dev"));
		else
			EXPECT_TRUE(g["mount"].is_null() && g["fstype"].is_null()) << g.dump();
	}
	EXPECT_EQ(sum, pages);
	EXPECT_EQ(j["groups"][0]["dev"], "8:1");
	EXPECT_EQ(j["other"]["groups"], 3);
}

// A walk whose groups do not hold exactly the pages it counted is an error, not a table.
TEST(Groups, GroupsThatDoNotAddUpToTheWalkAreAnError)
{
	Groups x(MS_BY_CGROUP);
	ms_page_rec r = anon_rec();
	r.cgroup = 42;
	ASSERT_EQ(ms_groups_page(x.g, 1, &r), 0);
	ms_result res = result_of(2);
	EXPECT_EQ(ms_groups_finish(x.g, &res), MS_EXIT_FAIL);
}

// node and zone come from the pfn: the zone whose span holds it; a pfn in no zone is (none).
TEST(Groups, NodeAndZoneByPfn)
{
	static const ms_zone zones[] = { { 0, "DMA", 1, 4096 }, { 0, "Normal", 4096, 10000 },
					 { 1, "Normal", 10000, 20000 } };
	for (ms_by by : { MS_BY_NODE, MS_BY_ZONE }) {
		Groups x(by);
		x.g->zones = static_cast<ms_zone *>(malloc(sizeof(zones)));
		memcpy(x.g->zones, zones, sizeof(zones));
		x.g->nzones = 3;
		uint64_t pages = 0;
		for (uint64_t pfn : { 1, 2, 4095, 4096, 9999, 10000, 19999, 20000, 5000, 3 }) {
			ms_page_rec r = anon_rec();
			ASSERT_EQ(ms_groups_page(x.g, pfn, &r), 0);
			pages++;
		}
		ms_result res = result_of(pages);
		ASSERT_EQ(ms_groups_finish(x.g, &res), MS_EXIT_OK);
		std::map<std::string, uint64_t> got;
		for (size_t i = 0; i < x.g->nshown; i++)
			got[x.g->g[x.g->order[i]].name] = x.g->g[x.g->order[i]].total;
		if (by == MS_BY_NODE)
			EXPECT_EQ(got, (std::map<std::string, uint64_t>{ { "0", 7 }, { "1", 2 },
									 { "(none)", 1 } }));
		else
			EXPECT_EQ(got, (std::map<std::string, uint64_t>{ { "0/DMA", 4 }, { "0/Normal", 3 },
									 { "1/Normal", 2 },
									 { "(none)", 1 } }));
		json j = json::parse(json_of(x.g, &res));
		for (auto &g : j["groups"])
			if (g["name"] == "1/Normal" || g["name"] == "1") {
				EXPECT_EQ(g["start_pfn"], 10000);
				EXPECT_EQ(g["end_pfn"], 20000);
				EXPECT_EQ(g["node"], 1);
			}
	}
}

// fs: the mount point from mountinfo (escapes decoded), a mount of the root of the file system
// before a bind mount of a directory in it, and the device as s_dev (major << 20 | minor).
TEST(Groups, FsNamesFromMountinfo)
{
	char path[] = "/tmp/memstat-groups-XXXXXX";
	int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs("22 1 259:3 /srv /mnt/bind rw - ext4 /dev/nvme0n1p3 rw\n"
	      "23 1 259:3 / /data\\040disk rw shared:1 - ext4 /dev/nvme0n1p3 rw\n"
	      "24 1 0:25 / /dev/shm rw - tmpfs tmpfs rw\n"
	      "garbage line\n", f);
	fclose(f);
	Groups x(MS_BY_FS);
	x.g->mountinfo_path = path;
	uint64_t pfn = 0;
	for (uint32_t dev : { (259u << 20) | 3, (259u << 20) | 3, 25u, 26u }) {
		ms_page_rec r = file_rec(dev, 12);
		ASSERT_EQ(ms_groups_page(x.g, pfn++, &r), 0);
	}
	ms_result res = result_of(4);
	ASSERT_EQ(ms_groups_finish(x.g, &res), MS_EXIT_OK);
	unlink(path);
	json j = json::parse(json_of(x.g, &res));
	std::map<std::string, json> by_dev;
	for (auto &g : j["groups"])
		by_dev[g["dev"].get<std::string>()] = g;
	ASSERT_EQ(by_dev.size(), 3u) << j.dump();
	EXPECT_EQ(by_dev["259:3"]["name"], "/data disk");
	EXPECT_EQ(by_dev["259:3"]["fstype"], "ext4");
	EXPECT_EQ(by_dev["259:3"]["pages"]["total"], 2);
	EXPECT_EQ(by_dev["0:25"]["mount"], "/dev/shm");
	EXPECT_EQ(by_dev["0:25"]["fstype"], "tmpfs");
	EXPECT_EQ(by_dev["0:26"]["name"], "(not mounted)");
	EXPECT_TRUE(by_dev["0:26"]["mount"].is_null());
}

TEST(Groups, KeysParse)
{
	ms_by by;
	for (const char *k : { "cgroup", "node", "zone", "fs", "file", "exec" }) {
		ASSERT_EQ(ms_by_parse(k, &by), 0) << k;
		EXPECT_STREQ(ms_by_keys[by].key_name, k);
	}
	EXPECT_NE(ms_by_parse("Node", &by), 0);
	EXPECT_NE(ms_by_parse("", &by), 0);
}

// --wss --by: each page's verdict goes to its group, (other) sums the rest, and the JSON has
// each group's accessed, idle and unseen per class (null where the window cannot see).
TEST(Groups, WssVerdictsGoToThePagesGroups)
{
	Groups x(MS_BY_FS, 1);
	ms_wss w = {};
	ms_groups_set_wss(x.g, &w);
	uint64_t pfn = 0;
	auto page = [&](uint32_t dev, uint8_t sub, int verdict) {
		ms_page_rec r = file_rec(dev, 5, sub);
		ASSERT_EQ(ms_groups_page(x.g, pfn++, &r), 0);
		ms_groups_wss(x.g, verdict, ms_subs[sub].cls);
	};
	for (int i = 0; i < 6; i++)
		page(0x800001, MS_FILE, i < 4 ? MS_WSS_ACCESSED : MS_WSS_IDLE);
	for (int i = 0; i < 3; i++)
		page(0x800002, MS_SHMEM, i ? MS_WSS_UNSEEN : MS_WSS_NONE);
	page(0x800003, MS_FILE, MS_WSS_IDLE);
	x.g->mountinfo_path = "/nonexistent/mountinfo";
	ms_result res = result_of(pfn);
	ASSERT_EQ(ms_groups_finish(x.g, &res), MS_EXIT_OK);
	json j = json::parse(json_of(x.g, &res));
	const json &top = j["groups"][0];
	EXPECT_EQ(top["wss"]["accessed"]["page_cache"], 4) << top.dump();
	EXPECT_EQ(top["wss"]["idle"]["page_cache"], 2);
	EXPECT_TRUE(top["wss"]["accessed"]["kernel"].is_null());
	EXPECT_EQ(j["other"]["wss"]["unseen"]["shmem"], 2) << j["other"].dump();
	EXPECT_EQ(j["other"]["wss"]["idle"]["page_cache"], 1);
	EXPECT_EQ(j["wss"]["mechanism"], "mglru");	// the window's own summary beside them
	std::string table = mstest::capture([&](FILE *f) { ms_groups_print(f, x.g); });
	EXPECT_NE(table.find("Accessed     Idle   Unseen"), std::string::npos) << table;
}

// --wss on DAMON, --by cgroup: a cgroup DAMON measured gets its counts (anon by class, the rest
// as file_backed), one it did not gets null and "-", (other) sums what was measured of its groups
// and says how many were not.
TEST(Groups, DamonCountsGoToTheirCgroupsRows)
{
	Groups x(MS_BY_CGROUP, 2);
	x.g->min_set = true;	/* these ids are no cgroup's here: removed, shown anyway */
	x.g->min_pages = 0;
	const uint64_t a = (1ULL << 40) + 10, b = (1ULL << 40) + 20, c = (1ULL << 40) + 30;
	ms_wss w = {};
	w.mech = MS_WSS_DAMON;
	w.damon_by = MS_WSS_DAMON_BY_CGROUP;
	w.ndamon_g = 2;
	w.damon_g = static_cast<ms_wss_damon_group *>(calloc(2, sizeof(ms_wss_damon_group)));
	w.damon_g[0] = { a, strdup("/a"), 0, { { 4, 5 }, { 6, 7 } } };	/* sorted by id */
	w.damon_g[1] = { c, strdup("/c"), 0, { { 1, 0 }, { 2, 3 } } };
	w.damon_g_unmeasured = 1;
	ms_groups_set_wss(x.g, &w);
	uint64_t pfn = 0;
	for (uint64_t id : { a, a, a, b, b, c }) {
		ms_page_rec r = anon_rec();
		r.cgroup = id;
		ASSERT_EQ(ms_groups_page(x.g, pfn++, &r), 0);
		ms_groups_wss(x.g, MS_WSS_NONE, MS_C_ANON);
	}
	ms_result res = result_of(pfn);
	ASSERT_EQ(ms_groups_finish(x.g, &res), MS_EXIT_OK);
	json j = json::parse(json_of(x.g, &res));
	ASSERT_EQ(j["groups"].size(), 2u) << j.dump();
	const json &ga = j["groups"][0]["wss"], &gb = j["groups"][1]["wss"];
	EXPECT_EQ(ga["accessed"]["anon"], 4) << ga.dump();
	EXPECT_EQ(ga["idle"]["anon"], 5);
	EXPECT_TRUE(ga["accessed"]["page_cache"].is_null());
	EXPECT_TRUE(ga["unseen"]["anon"].is_null());
	EXPECT_EQ(ga["file_backed"]["accessed"], 6);
	EXPECT_EQ(ga["file_backed"]["idle"], 7);
	EXPECT_TRUE(gb["accessed"]["anon"].is_null()) << gb.dump();
	EXPECT_TRUE(gb["file_backed"].is_null());
	const json &o = j["other"]["wss"];
	EXPECT_EQ(o["accessed"]["anon"], 1) << o.dump();
	EXPECT_EQ(o["file_backed"]["idle"], 3);
	EXPECT_EQ(o["unmeasured_groups"], 0);
	EXPECT_EQ(j["wss"]["mechanism"], "damon");
	EXPECT_EQ(j["wss"]["cgroups"]["measured"], 2);
	EXPECT_EQ(j["wss"]["cgroups"]["unmeasured"], 1);
	std::string table = mstest::capture([&](FILE *f) { ms_groups_print(f, x.g); });
	std::istringstream lines(table);
	std::string row_b;
	for (std::string l; std::getline(lines, l);)
		if (l.find(std::to_string(b)) != std::string::npos)
			row_b = l;
	EXPECT_NE(row_b.find("-        -        -"), std::string::npos) << table;
	EXPECT_NE(table.find("DAMON measured 2 cgroups; 1 others"), std::string::npos) << table;
	ms_wss_free(&w);
}

// --wss on DAMON, --by node: each node's row has its kdamond's counts; the machine's JSON says
// how many nodes were measured, and the table that each had a kdamond.
TEST(Groups, DamonCountsGoToTheirNodesRows)
{
	static const ms_zone zones[] = { { 0, "Normal", 1, 4096 }, { 1, "Normal", 4096, 10000 } };
	Groups x(MS_BY_NODE, 0);
	x.g->zones = static_cast<ms_zone *>(malloc(sizeof(zones)));
	memcpy(x.g->zones, zones, sizeof(zones));
	x.g->nzones = 2;
	ms_wss w = {};
	w.mech = MS_WSS_DAMON;
	w.damon_by = MS_WSS_DAMON_BY_NODE;
	w.ndamon_g = 2;
	w.damon_g = static_cast<ms_wss_damon_group *>(calloc(2, sizeof(ms_wss_damon_group)));
	w.damon_g[0] = { 0, nullptr, 0, { { 4, 5 }, { 6, 7 } } };
	w.damon_g[1] = { 1, nullptr, 0, { { 1, 0 }, { 2, 3 } } };
	for (int k = 0; k < 2; k++)
		for (int v = 0; v < 2; v++)
			w.damon[k][v] = w.damon_g[0].n[k][v] + w.damon_g[1].n[k][v];
	ms_groups_set_wss(x.g, &w);
	for (uint64_t pfn : { 1, 2, 3, 5000, 5001 }) {
		ms_page_rec r = anon_rec();
		ASSERT_EQ(ms_groups_page(x.g, pfn, &r), 0);
		ms_groups_wss(x.g, MS_WSS_NONE, MS_C_ANON);
	}
	ms_result res = result_of(5);
	ASSERT_EQ(ms_groups_finish(x.g, &res), MS_EXIT_OK);
	json j = json::parse(json_of(x.g, &res));
	ASSERT_EQ(j["groups"].size(), 2u) << j.dump();
	for (const json &g : j["groups"]) {
		const json &gw = g["wss"];
		bool zero = g["name"] == "0";
		EXPECT_EQ(gw["accessed"]["anon"], zero ? 4 : 1) << g.dump();
		EXPECT_EQ(gw["idle"]["anon"], zero ? 5 : 0);
		EXPECT_EQ(gw["file_backed"]["accessed"], zero ? 6 : 2);
		EXPECT_EQ(gw["file_backed"]["idle"], zero ? 7 : 3);
		EXPECT_TRUE(gw["unseen"]["anon"].is_null());
	}
	EXPECT_EQ(j["wss"]["nodes"]["measured"], 2) << j["wss"].dump();
	EXPECT_EQ(j["wss"]["nodes"]["unmeasured"], 0);
	EXPECT_FALSE(j["wss"].contains("cgroups"));
	std::string table = mstest::capture([&](FILE *f) { ms_groups_print(f, x.g); });
	EXPECT_NE(table.find("DAMON: a kdamond per node"), std::string::npos) << table;
	EXPECT_EQ(table.find("not measured"), std::string::npos) << table;
	ms_wss_free(&w);
}

} // namespace

// --by slab: a slab's pages go to the cache in its head's record (word 1 here, as from 6.2),
// tails with it; a tail whose head the walk did not hand over, or a head that held no cache,
// to (cache unknown); large kmalloc to its own group; other pages to (none).
TEST(Groups, SlabPagesGoToTheirHeadsCache)
{
	Groups x(MS_BY_SLAB, 0);
	ms_groups_set_slab_word(x.g, 1);
	ASSERT_EQ(ms_groups_reset(x.g), 0);
	const uint64_t cache_a = 0xffff888100001000ULL, cache_b = 0xffff888100002000ULL;
	auto slab = [](uint64_t pfn, uint64_t head, uint64_t cache) {
		ms_page_rec r = {};
		r.valid = 1;
		r.sub = MS_KERNEL_SLAB;
		r.head_pfn = head;
		if (pfn == head)
			r.w[1] = cache;
		else
			r.w[1] = head | 1;	// a tail's compound_head, not a cache
		return r;
	};
	std::vector<ms_page_rec> recs = {
		slab(100, 98, 0),		// a tail whose head came before the walk's start
		slab(101, 101, cache_a), slab(102, 101, 0), slab(103, 101, 0), slab(104, 101, 0),
		slab(105, 105, cache_b), slab(106, 105, 0),
		slab(107, 107, cache_a),	// order 0
		slab(108, 108, 0),		// a head that held no cache
		anon_rec(),
	};
	ms_page_rec large = {};
	large.valid = 1;
	large.sub = MS_KERNEL_LARGE_KMALLOC;
	large.head_pfn = 110;
	recs.push_back(large);
	for (size_t i = 0; i < recs.size(); i++)
		ASSERT_EQ(ms_groups_page(x.g, 100 + i, &recs[i]), 0);
	std::map<uint64_t, uint64_t> got;
	for (size_t i = 0; i < ms_groups_count(x.g); i++)
		got[ms_groups_at(x.g, i)->k1] = ms_groups_at(x.g, i)->total;
	EXPECT_EQ(got[cache_a], 5u);
	EXPECT_EQ(got[cache_b], 2u);
	EXPECT_EQ(got[MS_SLAB_KEY_UNKNOWN], 2u);
	EXPECT_EQ(got[MS_SLAB_KEY_LARGE], 1u);
	EXPECT_EQ(got[NONE_KEY], 1u);
	EXPECT_EQ(got.size(), 5u);
}
