// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// allpages records (src/cmd/pagefmt.c): byte for byte the output of the formatting that
// allpages.c had before it was rewritten for speed (snprintf and a 64 KiB stdio-less buffer,
// ported below as the reference), for every format, with and without --raw-pointers, on fixed
// records (zero and largest values, every sub-class and role) and on many random ones; and
// the threaded pipeline: the same bytes in the same order for any number of jobs, and a failed
// write reported, not lost.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "layouts.h"

extern "C" {
#include "pagefmt.h"
}

namespace {

using mstest::u64;

// ---- the reference: allpages.c's formatting before the rewrite, with stdio ----

struct Ref {
	ms_pagefmt_format fmt;
	bool raw;
	const ms_features *feat;
	const char *const *flag_name;
	int nr_flags;
	const ms_zone *zones;
	size_t nzones, zi = 0;
	u64 last_flags = 0;
	char flags_str[1024] = "";
};

enum col {
	C_PFN, C_CLASS, C_SUB, C_ROLE, C_ORDER, C_HEAD, C_REF, C_MAP, C_OWNER, C_DEV, C_INODE,
	C_OFFSET, C_CGROUP, C_NODE, C_ZONE, C_PIN, C_FLAGS, C_MAPPING, C_MEMCG, C_RAW, NCOLS,
};
#define NCOLS_PLAIN C_MAPPING

const struct column {
	const char *name;
	int width;
	bool str;
	bool file_only;
} cols[NCOLS] = {
	{ "pfn", 12, false, false },
	{ "class", 10, true, false },
	{ "subclass", 26, true, false },
	{ "role", 10, true, false },
	{ "order", 5, false, false },
	{ "head_pfn", 12, false, false },
	{ "refcount", 8, false, false },
	{ "mapcount", 8, false, false },
	{ "owner", 5, true, false },
	{ "dev", 7, true, true },
	{ "inode", 10, false, true },
	{ "offset", 10, false, true },
	{ "cgroup", 6, false, false },
	{ "node", 4, false, false },
	{ "zone", 7, true, false },
	{ "pinned", 6, false, false },
	{ "flags", 0, true, false },
	{ "mapping", 0, true, false },
	{ "memcg_data", 0, true, false },
	{ "raw", 0, true, false },
};

struct field {
	char s[512];
	size_t n;
};

void fstr(field *f, const char *s)
{
	size_t n = strlen(s);

	if (n >= sizeof(f->s))
		n = sizeof(f->s) - 1;
	memcpy(f->s, s, n);
	f->n = n;
}

void fu64(field *f, u64 v, bool hex)
{
	char b[32];

	f->n = (size_t)snprintf(b, sizeof(b), hex ? "0x%llx" : "%llu", (unsigned long long)v);
	memcpy(f->s, b, f->n);
}

void fs64(field *f, long long v)
{
	f->n = (size_t)snprintf(f->s, sizeof(f->s), "%lld", v);
}

const char *flags_string(Ref *d, u64 flags)
{
	size_t n = 0;

	if (d->nr_flags < 64)
		flags &= (1ULL << d->nr_flags) - 1;
	if (flags == d->last_flags && d->flags_str[0])
		return d->flags_str;
	d->last_flags = flags;
	d->flags_str[0] = '\0';
	for (int b = 0; b < 64; b++) {
		if (!(flags & (1ULL << b)))
			continue;
		n += (size_t)snprintf(d->flags_str + n, sizeof(d->flags_str) - n, "%s%s",
				      n ? "|" : "", d->flag_name[b] ? d->flag_name[b] : "?");
		if (n >= sizeof(d->flags_str))
			break;
	}
	if (!n)
		snprintf(d->flags_str, sizeof(d->flags_str), "-");
	return d->flags_str;
}

const ms_zone *zone_of(Ref *d, u64 pfn)
{
	if (d->zi < d->nzones && pfn >= d->zones[d->zi].start && pfn < d->zones[d->zi].end)
		return &d->zones[d->zi];
	for (size_t k = 0; k < d->nzones; k++) {
		if (pfn >= d->zones[k].start && pfn < d->zones[k].end) {
			d->zi = k;
			return &d->zones[k];
		}
	}
	return nullptr;
}

const char *role_name(__u8 role)
{
	switch (role) {
	case MS_ROLE_HEAD:
		return "head";
	case MS_ROLE_TAIL:
		return "tail";
	case MS_ROLE_FREE_HEAD:
		return "free-head";
	case MS_ROLE_FREE_TAIL:
		return "free-tail";
	default:
		return "-";
	}
}

void pad_to(std::string &out, size_t start, size_t width)
{
	while (out.size() - start < width)
		out += ' ';
	out += ' ';
}

std::string ref_header(const Ref &d)
{
	std::string out;
	int n = d.raw ? NCOLS : NCOLS_PLAIN;

	if (d.fmt == MS_PF_JSONL)
		return out;
	for (int c = 0; c < n; c++) {
		size_t start = out.size();

		if (d.fmt == MS_PF_CSV) {
			if (c)
				out += ',';
			out += cols[c].name;
			continue;
		}
		for (const char *s = cols[c].name; *s; s++)
			out += (char)toupper((unsigned char)*s);
		if (c < n - 1)
			pad_to(out, start, (size_t)cols[c].width);
	}
	out += '\n';
	return out;
}

// the pinned column a test gives a record: 1, 0 or -1 (not known), from its words
int pin_of(const ms_page_rec &r)
{
	return (int)((r.offset ^ r.cgroup ^ r.w[MS_PAGE_WORDS - 1]) % 3) - 1;
}

std::string ref_record(Ref *d, u64 pfn, const ms_page_rec *r, int pinned)
{
	field f[NCOLS];
	const ms_zone *z;
	int n = d->raw ? NCOLS : NCOLS_PLAIN;
	bool file, typed;
	long long mapcount;
	char dev[24];
	std::string out;

	z = zone_of(d, pfn);
	file = r->ino != 0;
	typed = ms_ptype(d->feat, ms_page_type_word(r->w)) != MS_T_NONE;
	mapcount = typed ? 0 : (long long)(__s32)ms_page_type_word(r->w) + 1;
	if (file)
		snprintf(dev, sizeof(dev), "%u:%u", r->dev >> 20, r->dev & 0xfffff);

	fu64(&f[C_PFN], pfn, d->fmt != MS_PF_JSONL);
	fstr(&f[C_CLASS], ms_classes[ms_subs[r->sub].cls].key);
	fstr(&f[C_SUB], ms_sub_key(r->sub, d->feat && d->feat->slab_cache_word));
	fstr(&f[C_ROLE], role_name(r->role));
	fu64(&f[C_ORDER], r->order, false);
	fu64(&f[C_HEAD], r->head_pfn, d->fmt != MS_PF_JSONL);
	fs64(&f[C_REF], ms_refcount(r->w));
	fs64(&f[C_MAP], mapcount < 0 ? 0 : mapcount);
	fstr(&f[C_OWNER], r->ino ? "file" : ms_subs[r->sub].cls == MS_C_ANON ? "anon" : "none");
	fstr(&f[C_DEV], file ? dev : d->fmt == MS_PF_TEXT ? "-" : "");
	if (file) {
		fu64(&f[C_INODE], r->ino, false);
		fu64(&f[C_OFFSET], r->offset, false);
	} else {
		fstr(&f[C_INODE], d->fmt == MS_PF_TEXT ? "-" : "");
		fstr(&f[C_OFFSET], d->fmt == MS_PF_TEXT ? "-" : "");
	}
	fu64(&f[C_CGROUP], r->cgroup, false);
	fs64(&f[C_NODE], z ? z->node : -1);
	fstr(&f[C_ZONE], z ? z->name : d->fmt == MS_PF_TEXT ? "-" : "");
	if (pinned >= 0)
		fu64(&f[C_PIN], (u64)pinned, false);
	else
		fstr(&f[C_PIN], d->fmt == MS_PF_TEXT ? "-" : "");
	fstr(&f[C_FLAGS], flags_string(d, r->role == MS_ROLE_TAIL ? r->head_flags : r->w[MS_W_FLAGS]));
	if (d->raw) {
		fu64(&f[C_MAPPING], r->w[MS_W_MAPPING], true);
		fu64(&f[C_MEMCG], r->w[MS_W_MEMCG], true);
		f[C_RAW].n = 0;
		for (int c = 0; c < MS_PAGE_WORDS; c++) {
			field w;

			fu64(&w, r->w[c], true);
			if (c)
				f[C_RAW].s[f[C_RAW].n++] = ' ';
			memcpy(f[C_RAW].s + f[C_RAW].n, w.s, w.n);
			f[C_RAW].n += w.n;
		}
	}

	if (d->fmt == MS_PF_JSONL)
		out += '{';
	for (int c = 0; c < n; c++) {
		size_t start = out.size();

		if (d->fmt == MS_PF_JSONL) {
			if ((cols[c].file_only && !file) || (c == C_PIN && pinned < 0))
				continue;
			out += c ? ",\"" : "\"";
			out += cols[c].name;
			out += cols[c].str ? "\":\"" : "\":";
			out.append(f[c].s, f[c].n);
			if (cols[c].str)
				out += '"';
			continue;
		}
		if (c && d->fmt == MS_PF_CSV)
			out += ',';
		out.append(f[c].s, f[c].n);
		if (d->fmt == MS_PF_TEXT && c < n - 1)
			pad_to(out, start, (size_t)cols[c].width);
	}
	out += d->fmt == MS_PF_JSONL ? "}\n" : "\n";
	return out;
}

// ---- fixtures ----

// enum pageflags of 6.18 (x86_64, the names allpages prints)
const char *const kNames618[64] = {
	"locked", "writeback", "referenced", "uptodate", "dirty", "lru", "head", "waiters",
	"active", "workingset", "owner_priv_1", "owner_2", "arch_1", "reserved", "private",
	"private_2", "reclaim", "swapbacked", "unevictable", "dropbehind", "mlocked",
	"arch_2", "arch_3",
};

// long names, some missing ("?") and one empty: a flags string longer than 511 bytes is cut
const char *const *long_names()
{
	static std::vector<std::string> store;
	static const char *names[64];

	if (store.empty()) {
		for (int b = 0; b < 64; b++)
			store.push_back("flag_with_a_long_name_number_" + std::to_string(b));
		for (int b = 0; b < 64; b++)
			names[b] = b % 7 == 3 ? nullptr : b == 5 ? "" : store[b].c_str();
	}
	return names;
}

// overlapping zones (a NUMA machine's spanned ranges), a gap, and a name of 15 characters. A
// zone is kept while it holds the pfn: from 0x400000 the pages of node 0's Normal stay there,
// though node 1's Movable, listed first, holds them too.
const ms_zone kZones[] = {
	{ 0, "DMA", 0x1, 0x1000 },
	{ 0, "DMA32", 0x1000, 0x100000 },
	{ 1, "Movable", 0x400000, 0x480000 },
	{ 0, "Normal", 0x100000, 0x500000 },
	{ 1, "Normal", 0x300000, 0x700000 },
	{ 12345, "Fifteen_chars_z", 0x800000, 0x900000 },
};
const size_t kNZones = sizeof(kZones) / sizeof(kZones[0]);

struct Layout {
	const char *name;
	ms_features feat;
	const char *const *names;
	int nr_flags;
	const ms_zone *zones;
	size_t nzones;
};

std::vector<Layout> setups()
{
	return {
		{ "6.18 names", mstest::family_6_18().f, kNames618, 23, kZones, kNZones },
		{ "6.6 inverted page types", mstest::family_6_6_30().f, kNames618, 23, kZones, kNZones },
		{ "64 long names", mstest::family_6_18().f, long_names(), 64, kZones, kNZones },
		{ "no BTF names", mstest::family_6_1().f, kNames618, 0, nullptr, 0 },
	};
}

struct Both {
	ms_pagefmt f = {};
	ms_pagefmt_state st;
	Ref ref;
	std::vector<char> buf = std::vector<char>(MS_PAGEFMT_REC_MAX);

	Both(const Layout &s, ms_pagefmt_format fmt, bool raw)
	{
		f.fmt = fmt;
		f.raw = raw;
		f.feat = &s.feat;
		for (int b = 0; b < 64; b++)
			f.flag_name[b] = s.names[b];
		f.nr_flags = s.nr_flags;
		f.zones = s.zones;
		f.nzones = s.nzones;
		ms_pagefmt_init(&f);
		ms_pagefmt_state_init(&st);
		ref = { fmt, raw, &s.feat, s.names, s.nr_flags, s.zones, s.nzones };
	}
	std::string fast(u64 pfn, const ms_page_rec &r)
	{
		size_t n = ms_pagefmt_record(&f, &st, buf.data(), pfn, &r, pin_of(r), -1);

		EXPECT_LE(n, (size_t)MS_PAGEFMT_REC_MAX);
		return std::string(buf.data(), n);
	}
};

const ms_pagefmt_format kFormats[] = { MS_PF_TEXT, MS_PF_CSV, MS_PF_JSONL };

const char *fmt_name(ms_pagefmt_format f)
{
	return f == MS_PF_TEXT ? "text" : f == MS_PF_CSV ? "csv" : "jsonl";
}

// a record with every field at its largest
ms_page_rec max_rec(__u8 sub, __u8 role)
{
	ms_page_rec r;

	memset(&r, 0xff, sizeof(r));
	r.sub = sub;
	r.role = role;
	r.valid = 1;
	return r;
}

// Random records that often repeat the last one, or change one field of it: the formatter
// reuses the text of a record's columns when what they are made of is the same.
struct Gen {
	std::mt19937_64 rng;
	ms_page_rec last = {};
	u64 pfn = 0;

	explicit Gen(u64 seed) : rng(seed) {}
	u64 any()
	{
		switch (rng() % 8) {
		case 0:
			return 0;
		case 1:
			return ~0ULL;
		case 2:
			return rng() % 16;
		case 3:
			return rng() >> (rng() % 64);
		default:
			return rng();
		}
	}
	// the page-type/refcount word: untyped, typed (either encoding), odd mapcounts
	u64 type_word()
	{
		static const __u32 lows[] = { 0, 0xffffffffu, 0xfffffffeu, 0x7fffffffu, 0x80000000u,
					      0xf0000000u, 0xf5000000u, 0xf8000001u, 0xff000000u,
					      0xf0000080u, 0xf0000400u, 0xefffffffu, 1, 2 };
		static const __u32 highs[] = { 0, 1, 2, 0xffffffffu, 0x80000000u, 0x7fffffffu };
		__u32 lo = rng() % 3 ? lows[rng() % (sizeof(lows) / sizeof(lows[0]))] : (__u32)rng();
		__u32 hi = rng() % 3 ? highs[rng() % (sizeof(highs) / sizeof(highs[0]))] :
				       (__u32)rng();

		return (u64)hi << 32 | lo;
	}
	void change(ms_page_rec &r, int what)
	{
		switch (what) {
		case 0: r.sub = (__u8)(rng() % MS_NR_SUBS); break;
		case 1: r.role = (__u8)(rng() % 7); break;
		case 2: r.order = (__u8)(rng() % 3 ? rng() % 11 : rng()); break;
		case 3: r.w[MS_W_TYPE] = type_word(); break;
		case 4: r.w[MS_W_FLAGS] = any(); break;
		case 5: r.head_flags = any(); break;
		case 6: r.ino = rng() % 2 ? 0 : any(); break;
		case 7: r.offset = any(); break;
		case 8: r.cgroup = any(); break;
		case 9: r.dev = (__u32)any(); break;
		case 10: r.head_pfn = any(); break;
		default: r.w[rng() % MS_PAGE_WORDS] = any(); break;
		}
	}
	// the next pfn: mostly the next page, sometimes a jump (into or out of a zone, or back)
	u64 next_pfn()
	{
		switch (rng() % 10) {
		case 0:
			return pfn = rng() % 0xa00000;
		case 1:
			return pfn = any();
		default:
			return ++pfn;
		}
	}
	ms_page_rec next()
	{
		ms_page_rec r = last;

		switch (rng() % 4) {
		case 0:		// the same page facts
			break;
		case 1:		// one fact changed
			change(r, (int)(rng() % 12));
			break;
		case 2:		// a few
			for (int k = (int)(rng() % 4); k >= 0; k--)
				change(r, (int)(rng() % 12));
			break;
		default:	// all new
			for (int k = 0; k < 12; k++)
				change(r, k);
			for (int w = 0; w < MS_PAGE_WORDS; w++)
				if (w != MS_W_TYPE)
					r.w[w] = any();
			r.w[MS_W_TYPE] = type_word();
			break;
		}
		r.valid = 1;
		return last = r;
	}
};

// ---- tests ----

TEST(Pagefmt, HeaderEqualsTheOldFormatting)
{
	for (const Layout &s : setups())
		for (ms_pagefmt_format fmt : kFormats)
			for (bool raw : { false, true }) {
				Both b(s, fmt, raw);
				size_t n = ms_pagefmt_header(&b.f, b.buf.data());

				EXPECT_EQ(std::string(b.buf.data(), n), ref_header(b.ref))
					<< fmt_name(fmt) << " raw " << raw;
			}
}

// A csv format of 6.18's features (flag names when names, the wss column when wss) and a state.
void csv_618(ms_pagefmt &pf, ms_pagefmt_state &st, const ms_features &f, bool names, bool wss)
{
	pf = {};
	pf.fmt = MS_PF_CSV;
	pf.feat = &f;
	for (int b = 0; names && b < 64; b++)
		pf.flag_name[b] = kNames618[b];
	pf.nr_flags = names ? 23 : 0;
	pf.zones = kZones;
	pf.nzones = kNZones;
	pf.wss = wss;
	ms_pagefmt_init(&pf);
	ms_pagefmt_state_init(&st);
}

TEST(Pagefmt, KnownRecordsAreExact)
{
	const ms_features f = mstest::family_6_18().f;
	ms_pagefmt pf;
	ms_pagefmt_state st;
	char buf[MS_PAGEFMT_REC_MAX];
	ms_page_rec r = {};

	csv_618(pf, st, f, true, false);
	// an exec page of docs/allpages.md's example
	r.sub = MS_EXEC;
	r.w[MS_W_FLAGS] = 1 << 2 | 1 << 3 | 1 << 5 | 1 << 8 | 1 << 11;
	r.w[MS_W_TYPE] = 3ULL << 32 | 1;	/* refcount 3, _mapcount 1 */
	r.ino = 246999, r.offset = 6, r.cgroup = 200, r.dev = 254 << 20, r.head_pfn = 0x102386;
	r.valid = 1;
	EXPECT_EQ(std::string(buf, ms_pagefmt_record(&pf, &st, buf, 0x102386, &r, 0, -1)),
		  "0x102386,exec,exec,-,0,0x102386,3,2,file,254:0,246999,6,200,0,Normal,0,"
		  "referenced|uptodate|lru|active|owner_2\n");
	// pinned, then not known: an empty field
	EXPECT_EQ(std::string(buf, ms_pagefmt_record(&pf, &st, buf, 0x102387, &r, 1, -1)),
		  "0x102387,exec,exec,-,0,0x102386,3,2,file,254:0,246999,6,200,0,Normal,1,"
		  "referenced|uptodate|lru|active|owner_2\n");
	EXPECT_EQ(std::string(buf, ms_pagefmt_record(&pf, &st, buf, 0x102388, &r, -1, -1)),
		  "0x102388,exec,exec,-,0,0x102386,3,2,file,254:0,246999,6,200,0,Normal,,"
		  "referenced|uptodate|lru|active|owner_2\n");
	// every field zero, outside every zone (sub 0: slab, unreclaimable where the walk can tell)
	r = {};
	pf.fmt = MS_PF_JSONL;
	EXPECT_EQ(std::string(buf, ms_pagefmt_record(&pf, &st, buf, 0, &r, -1, -1)),
		  "{\"pfn\":0,\"class\":\"kernel\",\"subclass\":\"kernel_slab_unreclaimable\",\"role\":\"-\","
		  "\"order\":0,\"head_pfn\":0,\"refcount\":0,\"mapcount\":1,\"owner\":\"none\","
		  "\"cgroup\":0,\"node\":-1,\"zone\":\"\",\"flags\":\"-\"}\n");
	EXPECT_EQ(std::string(buf, ms_pagefmt_record(&pf, &st, buf, 0, &r, 1, -1)),
		  "{\"pfn\":0,\"class\":\"kernel\",\"subclass\":\"kernel_slab_unreclaimable\",\"role\":\"-\","
		  "\"order\":0,\"head_pfn\":0,\"refcount\":0,\"mapcount\":1,\"owner\":\"none\","
		  "\"cgroup\":0,\"node\":-1,\"zone\":\"\",\"pinned\":1,\"flags\":\"-\"}\n");
	// every field at its largest (a free buddy page: typed, mapcount 0)
	r = max_rec(MS_FREE_BUDDY, MS_ROLE_FREE_TAIL);
	r.w[MS_W_TYPE] = 0xfffffffff0000000ULL;
	pf.fmt = MS_PF_TEXT;
	pf.raw = true;
	ms_pagefmt_init(&pf);
	EXPECT_EQ(std::string(buf, ms_pagefmt_record(&pf, &st, buf, ~0ULL, &r, -1, -1)),
		  "0xffffffffffffffff free       free_buddy                 free-tail  255   "
		  "0xffffffffffffffff -1       0        file  4095:1048575 18446744073709551615 "
		  "18446744073709551615 18446744073709551615 -1   -       -      "
		  "locked|writeback|referenced|uptodate|dirty|lru|head|waiters|active|workingset|"
		  "owner_priv_1|owner_2|arch_1|reserved|private|private_2|reclaim|swapbacked|"
		  "unevictable|dropbehind|mlocked|arch_2|arch_3 0xffffffffffffffff "
		  "0xffffffffffffffff 0xffffffffffffffff 0xffffffffffffffff 0xffffffffffffffff "
		  "0xffffffffffffffff 0xffffffffffffffff 0xffffffffffffffff 0xfffffffff0000000 "
		  "0xffffffffffffffff\n");
}

// Every sub-class with every role, at zero and at the largest values, in every format.
// --wss: a wss column after pinned, in each format: the verdict, '-' (text), empty (csv) or no
// key (jsonl) for a class the window cannot see; a record that repeats the last one's columns but
// its verdict gets its own verdict.
TEST(Pagefmt, WssColumnInEachFormat)
{
	const ms_features f = mstest::family_6_18().f;
	ms_pagefmt pf;
	ms_pagefmt_state st;
	char buf[MS_PAGEFMT_REC_MAX];
	ms_page_rec r = {};

	csv_618(pf, st, f, false, true);
	EXPECT_EQ(std::string(buf, ms_pagefmt_header(&pf, buf)),
		  "pfn,class,subclass,role,order,head_pfn,refcount,mapcount,owner,dev,inode,offset,"
		  "cgroup,node,zone,pinned,wss,flags\n");
	r.sub = MS_ANON;
	r.valid = 1;
	r.head_pfn = 0x1000;
	EXPECT_EQ(std::string(buf, ms_pagefmt_record(&pf, &st, buf, 0x1000, &r, 0,
						      MS_PF_WSS_ACCESSED)),
		  "0x1000,anon,anon_private,-,0,0x1000,0,1,anon,,,,0,0,DMA32,0,accessed,-\n");
	EXPECT_EQ(std::string(buf, ms_pagefmt_record(&pf, &st, buf, 0x1001, &r, 0, MS_PF_WSS_IDLE)),
		  "0x1001,anon,anon_private,-,0,0x1000,0,1,anon,,,,0,0,DMA32,0,idle,-\n");
	EXPECT_EQ(std::string(buf, ms_pagefmt_record(&pf, &st, buf, 0x1002, &r, 0, MS_PF_WSS_NA)),
		  "0x1002,anon,anon_private,-,0,0x1000,0,1,anon,,,,0,0,DMA32,0,,-\n");
	pf.fmt = MS_PF_JSONL;
	ms_pagefmt_state_init(&st);
	EXPECT_EQ(std::string(buf, ms_pagefmt_record(&pf, &st, buf, 0x1000, &r, -1,
						      MS_PF_WSS_UNSEEN)),
		  "{\"pfn\":4096,\"class\":\"anon\",\"subclass\":\"anon_private\",\"role\":\"-\","
		  "\"order\":0,\"head_pfn\":4096,\"refcount\":0,\"mapcount\":1,\"owner\":\"anon\","
		  "\"cgroup\":0,\"node\":0,\"zone\":\"DMA32\",\"wss\":\"unseen\",\"flags\":\"-\"}\n");
	EXPECT_EQ(std::string(buf, ms_pagefmt_record(&pf, &st, buf, 0x1000, &r, -1, MS_PF_WSS_NA)),
		  "{\"pfn\":4096,\"class\":\"anon\",\"subclass\":\"anon_private\",\"role\":\"-\","
		  "\"order\":0,\"head_pfn\":4096,\"refcount\":0,\"mapcount\":1,\"owner\":\"anon\","
		  "\"cgroup\":0,\"node\":0,\"zone\":\"DMA32\",\"flags\":\"-\"}\n");
	pf.fmt = MS_PF_TEXT;
	ms_pagefmt_state_init(&st);
	std::string hdr(buf, ms_pagefmt_header(&pf, buf));
	EXPECT_NE(hdr.find(" PINNED WSS        FLAGS"), std::string::npos) << hdr;
	std::string rec(buf, ms_pagefmt_record(&pf, &st, buf, 0x1000, &r, 0, MS_PF_WSS_UNTRACKED));
	EXPECT_NE(rec.find(" 0      untracked  -"), std::string::npos) << rec;
	rec = std::string(buf, ms_pagefmt_record(&pf, &st, buf, 0x1000, &r, 0, MS_PF_WSS_NA));
	EXPECT_NE(rec.find(" 0      -          -"), std::string::npos) << rec;
}

TEST(Pagefmt, EverySubclassAndRoleEqualsTheOldFormatting)
{
	for (const Layout &s : setups())
		for (ms_pagefmt_format fmt : kFormats)
			for (bool raw : { false, true }) {
				Both b(s, fmt, raw);

				for (int sub = 0; sub < MS_NR_SUBS; sub++)
					for (int role = 0; role < 7; role++)
						for (int big = 0; big < 2; big++) {
							ms_page_rec r = {};
							u64 pfn = big ? ~0ULL - role : (u64)sub * 7 + role;

							if (big)
								r = max_rec((__u8)sub, (__u8)role);
							r.sub = (__u8)sub, r.role = (__u8)role, r.valid = 1;
							ASSERT_EQ(b.fast(pfn, r), ref_record(&b.ref, pfn, &r, pin_of(r)))
								<< s.name << " " << fmt_name(fmt) << " raw " << raw
								<< " sub " << sub << " role " << role;
						}
			}
}

TEST(Pagefmt, RandomRecordsEqualTheOldFormatting)
{
	u64 seed = 1;

	for (const Layout &s : setups())
		for (ms_pagefmt_format fmt : kFormats)
			for (bool raw : { false, true }) {
				Both b(s, fmt, raw);
				Gen g(seed++);

				for (int i = 0; i < 15000; i++) {
					u64 pfn = g.next_pfn();
					ms_page_rec r = g.next();

					ASSERT_EQ(b.fast(pfn, r), ref_record(&b.ref, pfn, &r, pin_of(r)))
						<< s.name << " " << fmt_name(fmt) << " raw " << raw
						<< " record " << i;
				}
			}
}

// ---- the pipeline ----

std::string read_file(int fd)
{
	std::string s;
	char b[65536];
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, b, sizeof(b))) > 0)
		s.append(b, (size_t)n);
	return s;
}

// Pages in pfn order as a walk gives them, from pfn, now and then a gap of up to max_gap.
std::vector<std::pair<u64, ms_page_rec>> walk_like(size_t n, u64 seed, u64 pfn = 0x2ff000,
						   u64 max_gap = 0x4000)
{
	std::vector<std::pair<u64, ms_page_rec>> v;
	Gen g(seed);

	for (size_t i = 0; i < n; i++) {
		v.emplace_back(pfn, g.next());
		pfn += g.rng() % 50 || !max_gap ? 1 : 1 + g.rng() % max_gap;
	}
	return v;
}

TEST(PagefmtPipe, AnyNumberOfJobsWritesTheRecordsInOrder)
{
	const Layout s = setups()[0];
	// through the zones; and 4096-page chunks from 0x3fe000, one of them beginning at 0x400000
	// where the zone kept from the previous chunk is not the first that holds the pfn
	auto pages = walk_like(5 * 4096 + 1234, 42), from = walk_like(3 * 4096 + 7, 43, 0x3fe000, 0);

	pages.insert(pages.end(), from.begin(), from.end());
	for (ms_pagefmt_format fmt : kFormats)
		for (bool raw : { false, true }) {
			Both b(s, fmt, raw);
			std::string want;

			for (auto &p : pages)
				want += ref_record(&b.ref, p.first, &p.second, pin_of(p.second));
			for (int jobs : { 1, 2, 3, 8 }) {
				FILE *tmp = tmpfile();
				ASSERT_NE(tmp, nullptr);
				ms_pagefmt_pipe *p = ms_pagefmt_pipe_start(&b.f, fileno(tmp), jobs);
				ASSERT_NE(p, nullptr);
				for (auto &pg : pages)
					ASSERT_EQ(ms_pagefmt_pipe_page(p, pg.first, &pg.second,
									       pin_of(pg.second), -1), 0);
				EXPECT_EQ(ms_pagefmt_pipe_finish(p), 0);
				std::string got = read_file(fileno(tmp));
				fclose(tmp);
				ASSERT_EQ(got.size(), want.size()) << fmt_name(fmt) << " jobs " << jobs;
				EXPECT_TRUE(got == want) << fmt_name(fmt) << " raw " << raw << " jobs "
							 << jobs << ": the bytes differ";
			}
		}
}

TEST(PagefmtPipe, NoPagesWritesNothing)
{
	const Layout s = setups()[0];
	Both b(s, MS_PF_CSV, false);
	FILE *tmp = tmpfile();

	ASSERT_NE(tmp, nullptr);
	ms_pagefmt_pipe *p = ms_pagefmt_pipe_start(&b.f, fileno(tmp), 4);
	ASSERT_NE(p, nullptr);
	EXPECT_EQ(ms_pagefmt_pipe_finish(p), 0);
	EXPECT_EQ(read_file(fileno(tmp)), "");
	fclose(tmp);
}

// Feed pages until the pipeline says a write failed (or all are given); its errno.
int feed_until_failure(int fd, size_t npages, bool *stopped)
{
	const Layout s = setups()[0];
	Both b(s, MS_PF_TEXT, false);
	auto pages = walk_like(npages, 7);
	ms_pagefmt_pipe *p = ms_pagefmt_pipe_start(&b.f, fd, 2);

	*stopped = false;
	if (!p)
		return -1;
	for (auto &pg : pages) {
		if (ms_pagefmt_pipe_page(p, pg.first, &pg.second, pin_of(pg.second), -1)) {
			*stopped = true;
			break;
		}
	}
	return ms_pagefmt_pipe_finish(p);
}

TEST(PagefmtPipe, AFailedWriteIsReportedAndStopsThePages)
{
	int fd = open("/dev/full", O_WRONLY);
	bool stopped;

	ASSERT_GE(fd, 0) << "no /dev/full";
	// far more pages than the pipeline holds (jobs + 10 chunks of 4096): it must refuse more
	// once a write failed
	EXPECT_EQ(feed_until_failure(fd, 64 * 4096, &stopped), ENOSPC);
	EXPECT_TRUE(stopped);
	close(fd);
	// a failure in the last, partial chunk is reported too
	fd = open("/dev/full", O_WRONLY);
	EXPECT_EQ(feed_until_failure(fd, 10, &stopped), ENOSPC);
	close(fd);
}

TEST(PagefmtPipe, AClosedPipeIsEpipe)
{
	int fds[2];
	bool stopped;

	signal(SIGPIPE, SIG_IGN);	/* as memstat does */
	ASSERT_EQ(pipe(fds), 0);
	close(fds[0]);
	EXPECT_EQ(feed_until_failure(fds[1], 64 * 4096, &stopped), EPIPE);
	EXPECT_TRUE(stopped);
	close(fds[1]);
}

TEST(PagefmtWrite, ShortWritesAndErrors)
{
	int fds[2];
	std::string big(1 << 20, 'x');

	ASSERT_EQ(pipe(fds), 0);
	// more than a pipe holds, read on the other side: partial writes are continued
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		close(fds[1]);
		size_t total = 0;
		char b[4096];
		ssize_t n;

		while ((n = read(fds[0], b, sizeof(b))) > 0) {
			total += (size_t)n;
			usleep(n == sizeof(b) && total % (256 * 1024) == 0 ? 1000 : 0);
		}
		_exit(total == (1 << 20) ? 0 : 1);
	}
	close(fds[0]);
	EXPECT_EQ(ms_write_all(fds[1], big.data(), big.size()), 0);
	close(fds[1]);
	int status;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the reader got other than 1 MiB";
	EXPECT_EQ(ms_write_all(-1, "x", 1), EBADF);
}

}  // namespace
