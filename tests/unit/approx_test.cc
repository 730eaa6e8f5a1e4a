// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// --approx: the choice of clusters (strata, sample sizes, the seed) and the estimator with its
// error on synthetic strata, against values worked out by hand from the textbook formulas; how
// often each class lies within its stated error, over 1000 seeds of synthetic layouts.
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

extern "C" {
#include "memstat_int.h"
#include "approx.h"
}

namespace {

const __u64 L = MS_APPROX_CLUSTER_PAGES;

// A plan made by hand: strata of the given sampled-cluster sizes; N_h and M_h as given.
struct HandPlan {
	ms_approx_plan p = {};
	std::vector<ms_approx_stratum> strata;
	std::vector<ms_approx_cluster> c;

	void stratum(__u32 nclusters, __u64 pages, const std::vector<__u64> &sampled_sizes)
	{
		ms_approx_stratum s = {};
		__u64 pfn = c.empty() ? 0 : c.back().end;

		s.pages = pages;
		s.nclusters = nclusters;
		s.nsampled = (__u32)sampled_sizes.size();
		s.first = c.size();
		for (__u64 m : sampled_sizes) {
			c.push_back({ pfn, pfn + m, (__u32)strata.size() });
			pfn += m;
		}
		strata.push_back(s);
	}
	ms_approx_plan *get(double fraction = 0.1)
	{
		p.fraction = fraction;
		p.strata = strata.data();
		p.nstrata = strata.size();
		p.c = c.data();
		p.nclusters = c.size();
		p.pages = 0;
		for (auto &s : strata)
			p.pages += s.pages;
		return &p;
	}
};

// MS_APPROX_NCAT counts per cluster; cat[k] pages of sub-class sub in cluster k, rest free_buddy
std::vector<__u64> counts(const std::vector<__u64> &cat, enum ms_sub sub,
			  const std::vector<__u64> &sizes)
{
	std::vector<__u64> y(cat.size() * MS_APPROX_NCAT, 0);

	for (size_t k = 0; k < cat.size(); k++) {
		y[k * MS_APPROX_NCAT + sub] = cat[k];
		y[k * MS_APPROX_NCAT + MS_FREE_BUDDY] = sizes[k] - cat[k];
	}
	return y;
}

// the stated error: 3 standard errors and the detection limit in quadrature (approx.c)
__u64 expected_error(double var, __u64 floor_pages)
{
	double se = MS_APPROX_BOUND_SE * std::sqrt(var), d = (double)floor_pages;
	return (__u64)std::ceil(std::sqrt(se * se + d * d) - 1e-6);
}

TEST(ApproxEstimate, UniformLayoutHasNoSamplingError)
{
	// three strata in which every cluster holds the same share of anon: no variance at all
	HandPlan h;
	std::vector<__u64> sizes, cat;

	for (int s = 0; s < 3; s++) {
		h.stratum(128, 128 * L, { L, L, L, L });
		for (int k = 0; k < 4; k++) {
			sizes.push_back(L);
			cat.push_back(64 * (s + 1));
		}
	}
	auto y = counts(cat, MS_ANON, sizes);
	ms_approx_plan *p = h.get();
	double est, var;

	ms_approx_category(p, y.data() + MS_ANON, MS_APPROX_NCAT, &est, &var);
	EXPECT_DOUBLE_EQ(est, 128.0 * 64 * (1 + 2 + 3));
	EXPECT_DOUBLE_EQ(var, 0.0);

	ms_result r = {};
	ms_approx_estimate(p, y.data(), &r);
	EXPECT_EQ(r.sub[MS_ANON], 128ULL * 64 * 6);
	EXPECT_EQ(r.sub[MS_FREE_BUDDY], 3 * 128 * L - 128ULL * 64 * 6);
	// only the detection limit is left: 5.81 * 3 * 128 * 256 pages / 12 clusters
	__u64 lim = (__u64)std::ceil(-std::log(MS_APPROX_MISS_P) * 3 * 128 * L / 12 - 1e-6);
	EXPECT_EQ(ms_approx_floor(p), lim);
	EXPECT_EQ(r.approx.err_sub[MS_ANON], lim);
	EXPECT_EQ(r.approx.err_class[MS_C_ANON], lim);
	EXPECT_EQ(r.approx.err_sub[MS_KERNEL_SLAB], lim);
	EXPECT_EQ(r.approx.err_holes, 0u);
	EXPECT_EQ(r.approx.err_sub[MS_UNKNOWN], 0u);	// never given by the bpf walker
	EXPECT_EQ(r.approx.err_class[MS_C_UNKNOWN], 0u);
	EXPECT_TRUE(r.approx.on);
}

TEST(ApproxEstimate, KnownLayoutGivesTheTextbookValue)
{
	// one stratum of N = 1000 clusters of 256 pages; n = 100 sampled, half all anon, half none:
	// mean 128, s^2 = 100 * 128^2 / 99, v = N^2 (1 - n/N) s^2 / n
	HandPlan h;
	std::vector<__u64> sizes(100, L), cat;

	for (int k = 0; k < 100; k++)
		cat.push_back(k % 2 ? L : 0);
	h.stratum(1000, 1000 * L, sizes);
	auto y = counts(cat, MS_ANON, sizes);
	ms_approx_plan *p = h.get();
	double est, var, s2 = 100.0 * 128 * 128 / 99, v = 1000.0 * 1000 * (1 - 0.1) * s2 / 100;

	ms_approx_category(p, y.data() + MS_ANON, MS_APPROX_NCAT, &est, &var);
	EXPECT_DOUBLE_EQ(est, 128000.0);
	EXPECT_NEAR(var, v, v * 1e-12);
	EXPECT_NEAR(std::sqrt(var), 12204.3, 0.1);	// by hand: sqrt(148945454.5)

	ms_result r = {};
	ms_approx_estimate(p, y.data(), &r);
	__u64 lim = ms_approx_floor(p);
	EXPECT_EQ(lim, (__u64)std::ceil(-std::log(MS_APPROX_MISS_P) * 256000 / 100 - 1e-6));
	EXPECT_EQ(r.sub[MS_ANON], 128000u);
	EXPECT_EQ(r.approx.err_sub[MS_ANON], expected_error(v, lim));
	// ceil(sqrt((3 * 12204.3)^2 + 14872^2)): 3 SE (36613) and the limit in quadrature
	EXPECT_EQ(r.approx.err_sub[MS_ANON], 39519u);
	EXPECT_EQ(r.approx.err_class[MS_C_ANON], 39519u);
	EXPECT_EQ(r.approx.err_sub[MS_FREE_BUDDY], 39519u);	// the complement varies alike
	EXPECT_EQ(r.approx.err_freelist, 39519u);
	EXPECT_EQ(r.approx.err_sub[MS_SHMEM], lim);	// never seen: the detection limit
}

TEST(ApproxEstimate, ClassBoundComesFromTheClassNotTheSumOfSubs)
{
	// slab and page tables share a fixed total per cluster: each varies, kernel does not
	HandPlan h;
	std::vector<__u64> sizes(100, L);
	std::vector<__u64> y(100 * MS_APPROX_NCAT, 0);

	for (int k = 0; k < 100; k++) {
		y[k * MS_APPROX_NCAT + MS_KERNEL_SLAB] = k % 2 ? 200 : 0;
		y[k * MS_APPROX_NCAT + MS_KERNEL_PAGETABLE] = k % 2 ? 0 : 200;
		y[k * MS_APPROX_NCAT + MS_FREE_BUDDY] = 56;
	}
	h.stratum(100000, 100000 * L, sizes);
	ms_result r = {};
	ms_approx_estimate(h.get(0.001), y.data(), &r);
	__u64 lim = ms_approx_floor(&h.p);

	EXPECT_GT(r.approx.err_sub[MS_KERNEL_SLAB], lim);
	EXPECT_EQ(r.approx.err_sub[MS_KERNEL_SLAB], r.approx.err_sub[MS_KERNEL_PAGETABLE]);
	EXPECT_EQ(r.approx.err_class[MS_C_KERNEL], lim);	// 200 of every 256: no variance
	EXPECT_EQ(r.sub[MS_KERNEL_SLAB] + r.sub[MS_KERNEL_PAGETABLE], 200ULL * 100000);
}

TEST(ApproxEstimate, UnequalClustersUseTheRatioEstimator)
{
	// a stratum of M = 1000 pages in N = 5 clusters, sampled: sizes 256 and 100 with 64 and
	// 50 anon pages. R = 114 / 356; Y = 1000 R; e_i = y_i - R m_i; v = N^2 (1 - n/N) s^2 / n
	HandPlan h;
	std::vector<__u64> sizes = { 256, 100 };

	h.stratum(5, 1000, sizes);
	auto y = counts({ 64, 50 }, MS_ANON, sizes);
	double est, var, R = 114.0 / 356, e1 = 64 - R * 256, e2 = 50 - R * 100;
	double v = 25 * (1 - 2.0 / 5) * (e1 * e1 + e2 * e2) / 1 / 2;

	ms_approx_category(h.get(), y.data() + MS_ANON, MS_APPROX_NCAT, &est, &var);
	EXPECT_NEAR(est, 1000 * R, 1e-9);
	EXPECT_NEAR(var, v, v * 1e-12);

	// the categories still add up to the stratum's pages after rounding
	ms_result r = {};
	ms_approx_estimate(&h.p, y.data(), &r);
	EXPECT_EQ(r.total + r.holes, 1000u);
	EXPECT_EQ(r.sub[MS_ANON], 320u);	// 320.22 rounds down, buddy's 679.78 up
	EXPECT_EQ(r.sub[MS_FREE_BUDDY], 680u);
}

TEST(ApproxEstimate, StrataWalkedWholeAreExact)
{
	HandPlan h;
	std::vector<__u64> sizes = { L, L, 17 };

	h.stratum(3, 2 * L + 17, sizes);	// every cluster sampled
	auto y = counts({ 3, 250, 17 }, MS_SHMEM, sizes);
	ms_result r = {};

	ms_approx_estimate(h.get(), y.data(), &r);
	EXPECT_EQ(ms_approx_floor(&h.p), 0u);
	EXPECT_EQ(r.sub[MS_SHMEM], 270u);
	EXPECT_EQ(r.sub[MS_FREE_BUDDY], 2 * L + 17 - 270);
	for (int i = 0; i < MS_NR_SUBS; i++)
		EXPECT_EQ(r.approx.err_sub[i], 0u) << ms_subs[i].key;
	for (int c = 0; c < MS_NR_CLASSES; c++)
		EXPECT_EQ(r.approx.err_class[c], 0u) << ms_classes[c].key;
}

TEST(ApproxEstimate, RoundingKeepsTheSum)
{
	// three categories of a third each: 1000 pages do not divide; the sum must still hold
	HandPlan h;
	std::vector<__u64> sizes = { 3, 3 };
	std::vector<__u64> y(2 * MS_APPROX_NCAT, 0);

	for (int k = 0; k < 2; k++) {
		y[k * MS_APPROX_NCAT + MS_ANON] = 1;
		y[k * MS_APPROX_NCAT + MS_SHMEM] = 1;
		y[k * MS_APPROX_NCAT + MS_FILE] = 1;
	}
	h.stratum(400, 1000, sizes);
	ms_result r = {};
	ms_approx_estimate(h.get(), y.data(), &r);
	EXPECT_EQ(r.total, 1000u);
	EXPECT_EQ(r.sub[MS_ANON] + r.sub[MS_SHMEM] + r.sub[MS_FILE], 1000u);
	EXPECT_EQ(r.sub[MS_ANON], 334u);	// ties go to the first
	EXPECT_EQ(r.sub[MS_SHMEM], 333u);
}

ms_ranges make_ranges(std::vector<ms_range> v)
{
	ms_ranges r = {};
	r.r = (ms_range *)calloc(v.size(), sizeof(ms_range));
	for (auto &x : v) {
		r.r[r.n++] = x;
		r.pages += x.end - x.start;
	}
	return r;
}

TEST(ApproxPlan, StrataClustersAndSampleSizes)
{
	// this machine's shape: a first section with a hole, then whole sections, an odd end
	ms_ranges rg = make_ranges({ { 0x1, 0x9f }, { 0x100, 0xbffda },
				     { 0x100000, 0x640000 } });
	ms_approx_plan p;

	ASSERT_EQ(ms_approx_choose(&rg, 0.03125, 42, &p), 0);
	EXPECT_EQ(p.sections_per_stratum, 1u);	// 4 clusters of 128 at 1/32
	EXPECT_EQ(p.pages, rg.pages);
	__u64 spages = 0, total_clusters = 0;
	for (size_t h = 0; h < p.nstrata; h++) {
		const ms_approx_stratum &s = p.strata[h];
		EXPECT_EQ(s.nsampled, ms_approx_sample_size(s.nclusters, p.fraction));
		EXPECT_EQ(s.first, h ? p.strata[h - 1].first + p.strata[h - 1].nsampled : 0);
		spages += s.pages;
		total_clusters += s.nclusters;
	}
	EXPECT_EQ(spages, rg.pages);
	EXPECT_EQ(total_clusters, p.clusters_total);
	// the first section: [1, 0x9f) is one cluster, [0x100, 0x8000) 127: 128 in all, 4 taken
	EXPECT_EQ(p.strata[0].nclusters, 128u);
	EXPECT_EQ(p.strata[0].nsampled, 4u);
	__u64 sampled = 0;
	for (size_t k = 0; k < p.nclusters; k++) {
		const ms_approx_cluster &c = p.c[k];
		bool inside = false;

		for (size_t i = 0; i < rg.n; i++)
			inside |= c.start >= rg.r[i].start && c.end <= rg.r[i].end;
		EXPECT_TRUE(inside) << std::hex << c.start;
		EXPECT_LT(c.start, c.end);
		EXPECT_EQ(c.start / L, (c.end - 1) / L) << "a cluster within one aligned run";
		EXPECT_TRUE(c.start % L == 0 || c.start == 0x1 || c.start == 0x100000);
		if (k) {
			EXPECT_LE(p.c[k - 1].end, c.start) << "pfn order, distinct";
		}
		EXPECT_EQ(c.start / MS_SECTION_PAGES, p.c[p.strata[c.stratum].first].start /
			  MS_SECTION_PAGES) << "in its stratum's section";
		sampled += c.end - c.start;
	}
	EXPECT_EQ(sampled, p.pages_sampled);
	ms_approx_plan_free(&p);
	ms_ranges_free(&rg);
}

TEST(ApproxPlan, TheSeedDecidesTheChoice)
{
	ms_ranges rg = make_ranges({ { 0x100000, 0x640000 } });
	ms_approx_plan a, b, c;
	auto starts = [](const ms_approx_plan &p) {
		std::vector<__u64> v;
		for (size_t k = 0; k < p.nclusters; k++)
			v.push_back(p.c[k].start);
		return v;
	};

	ASSERT_EQ(ms_approx_choose(&rg, 0.05, 7, &a), 0);
	ASSERT_EQ(ms_approx_choose(&rg, 0.05, 7, &b), 0);
	ASSERT_EQ(ms_approx_choose(&rg, 0.05, 8, &c), 0);
	EXPECT_EQ(starts(a), starts(b));
	EXPECT_NE(starts(a), starts(c));
	EXPECT_EQ(a.nclusters, c.nclusters);
	ms_approx_plan_free(&a);
	ms_approx_plan_free(&b);
	ms_approx_plan_free(&c);
	ms_ranges_free(&rg);
}

TEST(ApproxPlan, EveryClusterIsEquallyLikely)
{
	// over 2000 seeds each of a section's 128 clusters is taken about 2000 * 4 / 128 = 62.5
	// times; a deterministic check (fixed seeds) that no cluster is favoured or never taken
	ms_ranges rg = make_ranges({ { 0, MS_SECTION_PAGES } });
	std::vector<int> hits(128, 0);

	for (__u64 seed = 0; seed < 2000; seed++) {
		ms_approx_plan p;
		ASSERT_EQ(ms_approx_choose(&rg, 0.03125, seed, &p), 0);
		ASSERT_EQ(p.nclusters, 4u);
		std::set<__u64> distinct;
		for (size_t k = 0; k < p.nclusters; k++) {
			hits[p.c[k].start / L]++;
			distinct.insert(p.c[k].start);
		}
		EXPECT_EQ(distinct.size(), 4u);
		ms_approx_plan_free(&p);
	}
	for (int i = 0; i < 128; i++) {
		EXPECT_GT(hits[i], 30) << i;	// these seeds' counts lie in 45..88
		EXPECT_LT(hits[i], 100) << i;
	}
	ms_ranges_free(&rg);
}

TEST(ApproxPlan, SmallFractionsGroupSections)
{
	ms_ranges rg = make_ranges({ { 0, 64 * MS_SECTION_PAGES } });
	ms_approx_plan p;

	ASSERT_EQ(ms_approx_choose(&rg, 0.001, 1, &p), 0);
	// 4 / (0.001 * 128) = 31.25: 32 sections a stratum, 2 strata of 4096 clusters, 5 taken
	EXPECT_EQ(p.sections_per_stratum, 32u);
	ASSERT_EQ(p.nstrata, 2u);
	EXPECT_EQ(p.strata[0].nclusters, 4096u);
	EXPECT_EQ(p.strata[0].nsampled, 5u);
	ms_approx_plan_free(&p);
	// the default, 1/64: 2 clusters a section, so 2 sections a stratum and 4 of its 256 taken
	ASSERT_EQ(ms_approx_choose(&rg, MS_APPROX_DEFAULT_FRACTION, 1, &p), 0);
	EXPECT_EQ(p.sections_per_stratum, 2u);
	ASSERT_EQ(p.nstrata, 32u);
	EXPECT_EQ(p.strata[0].nsampled, 4u);
	ms_approx_plan_free(&p);
	ASSERT_EQ(ms_approx_choose(&rg, 1, 1, &p), 0);
	EXPECT_EQ(p.pages_sampled, p.pages);	// everything: an exact walk by clusters
	EXPECT_EQ(ms_approx_floor(&p), 0u);
	ms_approx_plan_free(&p);
	EXPECT_EQ(ms_approx_choose(&rg, 0, 1, &p), -EINVAL);
	ms_ranges_free(&rg);
}

TEST(ApproxPlan, SampleSizes)
{
	EXPECT_EQ(ms_approx_sample_size(1, 0.03125), 1u);
	EXPECT_EQ(ms_approx_sample_size(2, 0.03125), 2u);
	EXPECT_EQ(ms_approx_sample_size(3, 0.03125), 2u);
	EXPECT_EQ(ms_approx_sample_size(128, 0.03125), 4u);
	EXPECT_EQ(ms_approx_sample_size(129, 0.03125), 5u);
	EXPECT_EQ(ms_approx_sample_size(128, 1), 128u);
	EXPECT_EQ(ms_approx_sample_size(100, 0.1), 10u);	// 0.1 * 100 in doubles is 10
}

TEST(ApproxParse, Fractions)
{
	double f = 0;

	EXPECT_EQ(ms_approx_parse_fraction(nullptr, &f), 0);
	EXPECT_EQ(f, MS_APPROX_DEFAULT_FRACTION);
	EXPECT_EQ(ms_approx_parse_fraction("0.5", &f), 0);
	EXPECT_EQ(f, 0.5);
	EXPECT_EQ(ms_approx_parse_fraction("1", &f), 0);
	EXPECT_EQ(ms_approx_parse_fraction("0.001", &f), 0);
	for (const char *bad : { "", "0", "-0.1", "1.5", "0.0009", "nan", "inf", "0.1x", "x",
				 "1e400" })
		EXPECT_EQ(ms_approx_parse_fraction(bad, &f), -EINVAL) << bad;
}

// ---- coverage: how often each class lies within its stated error, over 1000 seeds ----

// A run-structured synthetic layout of one present range [0, pages): runs of one sub-class,
// each sub-class drawn with probability share / mean length, its run's length exponential of
// that mean (or exactly -mean pages when mean < 0: whole clusters, THP, free blocks of an order).
struct Part {
	enum ms_sub sub;
	double share, mean;
};
struct Layout {
	const char *name;
	std::vector<std::array<__u32, MS_APPROX_NCAT>> per;	// per cluster (all are whole)
	std::array<__u64, MS_APPROX_NCAT> truth = {};
	__u64 pages;
};

const __u64 COVER_PAGES = 64 * MS_SECTION_PAGES;	// 8 GiB: 32 strata at the default

Layout make_layout(const char *name, const std::vector<Part> &parts, __u64 layout_seed)
{
	Layout l;
	std::mt19937_64 g(layout_seed);	// its raw output is the same on every library
	auto uniform = [&g]() { return (double)(g() >> 11) * 0x1.0p-53; };
	double tw = 0;

	l.name = name;
	l.pages = COVER_PAGES;
	l.per.assign(COVER_PAGES / L, {});
	for (auto &x : parts)
		tw += x.share / std::fabs(x.mean);
	for (__u64 pfn = 0; pfn < COVER_PAGES;) {
		double u = uniform() * tw;
		size_t k = 0;

		while (k + 1 < parts.size() && u > parts[k].share / std::fabs(parts[k].mean)) {
			u -= parts[k].share / std::fabs(parts[k].mean);
			k++;
		}
		const Part &x = parts[k];
		__u64 n = x.mean < 0 ? (__u64)-x.mean :
			  (__u64)std::ceil(-std::log(1 - uniform()) * x.mean);
		n = std::max<__u64>(1, std::min(n, COVER_PAGES - pfn));
		for (__u64 q = pfn; q < pfn + n;) {	// cluster by cluster
			__u64 stop = std::min(pfn + n, (q / L + 1) * L);

			l.per[q / L][x.sub] += (__u32)(stop - q);
			q = stop;
		}
		l.truth[x.sub] += n;
		pfn += n;
	}
	return l;
}

// Every cluster alike: each holds the same pages of each part (shares of 256 pages).
Layout uniform_layout(const std::vector<Part> &parts)
{
	Layout l;
	l.name = "uniform";
	l.pages = COVER_PAGES;
	l.per.assign(COVER_PAGES / L, {});
	for (auto &c : l.per)
		for (auto &x : parts)
			c[x.sub] = (__u32)std::lround(x.share * L);
	for (auto &c : l.per)
		for (int i = 0; i < MS_APPROX_NCAT; i++)
			l.truth[i] += c[i];
	return l;
}

struct Coverage {
	int runs = 0;
	int within_class[MS_NR_CLASSES] = {}, within_sub[MS_NR_SUBS] = {}, within_freelist = 0;
};

// 1000 samples of the layout at fraction, seeds 1..1000, each class's estimate against the truth
Coverage coverage(const Layout &l, double fraction, int seeds = 1000)
{
	ms_ranges rg = make_ranges({ { 0, l.pages } });
	std::vector<__u64> y;
	__u64 truth_class[MS_NR_CLASSES] = {}, truth_freelist = 0;
	Coverage cv;

	for (int i = 0; i < MS_NR_SUBS; i++) {
		truth_class[ms_subs[i].cls] += l.truth[i];
		if (ms_subs[i].cls == MS_C_FREE && i != MS_FREE_UNINIT)
			truth_freelist += l.truth[i];
	}
	for (int seed = 1; seed <= seeds; seed++) {
		ms_approx_plan p;
		ms_result r = {};

		if (ms_approx_choose(&rg, fraction, (__u64)seed, &p))
			break;
		y.assign(p.nclusters * MS_APPROX_NCAT, 0);
		for (size_t k = 0; k < p.nclusters; k++)
			for (int i = 0; i < MS_APPROX_NCAT; i++)
				y[k * MS_APPROX_NCAT + i] = l.per[p.c[k].start / L][i];
		ms_approx_estimate(&p, y.data(), &r);
		auto within = [](__u64 est, __u64 truth, __u64 err) {
			return (est > truth ? est - truth : truth - est) <= err;
		};
		for (int c = 0; c < MS_NR_CLASSES; c++)
			cv.within_class[c] += within(ms_class_pages(&r, (enum ms_class)c),
						     truth_class[c], r.approx.err_class[c]);
		for (int i = 0; i < MS_NR_SUBS; i++)
			cv.within_sub[i] += within(r.sub[i], l.truth[i], r.approx.err_sub[i]);
		cv.within_freelist += within(ms_class_pages(&r, MS_C_FREE) - r.sub[MS_FREE_UNINIT],
					     truth_freelist, r.approx.err_freelist);
		cv.runs++;
		ms_approx_plan_free(&p);
	}
	ms_ranges_free(&rg);
	return cv;
}

/*
 * The stated error is at a confidence level of 99% (MS_APPROX_CONFIDENCE): every class and
 * sub-class, of every layout, at every fraction, must be within it in at least 99% of samples.
 * 1000 samples of a class whose coverage is exactly 99% fall below 985 with probability about 6%
 * (binomial: 990 expected, standard deviation 3.1), of one covered 99.3% (what the layouts give
 * at worst, approx.c) 0.2%; the seeds are fixed, so the verdict is too. The layouts: run-
 * structured page cache and free blocks (long runs: the strata whose sampled clusters agree),
 * classes of whole clusters (THP, a slab cache: about Poisson counts), sparse classes and a
 * uniform one. Each line of output is a layout, a fraction, its worst class and its coverage.
 */
TEST(ApproxCoverage, EachClassIsWithinItsStatedErrorIn99PercentOfSamples)
{
	const int need = 985;
	std::vector<Layout> layouts;

	layouts.push_back(make_layout("page cache in long runs",
		{ { MS_FILE, 0.35, 65536 }, { MS_ANON, 0.2, 65536 }, { MS_FREE_BUDDY, 0.4, 65536 },
		  { MS_KERNEL_SLAB, 0.05, 64 } }, 1));
	layouts.push_back(make_layout("page cache in runs of 16 MiB, mixed",
		{ { MS_FILE, 0.4, 4096 }, { MS_ANON, 0.2, 64 }, { MS_FREE_BUDDY, 0.35, 2048 },
		  { MS_KERNEL_SLAB, 0.05, 16 } }, 2));
	layouts.push_back(make_layout("free blocks in big runs",
		{ { MS_FREE_BUDDY, 0.5, 131072 }, { MS_FILE, 0.2, 131072 }, { MS_ANON, 0.3, 131072 } },
		3));
	layouts.push_back(make_layout("a class in few clusters only (whole clusters)",
		{ { MS_KERNEL_SLAB, 0.025, -256 }, { MS_FREE_BUDDY, 0.6, -1024 },
		  { MS_FILE, 0.3, -512 } }, 4));
	layouts.push_back(make_layout("THP anon in 2 MiB folios",
		{ { MS_ANON, 0.04, -512 }, { MS_FREE_BUDDY, 0.6, -1024 }, { MS_FILE, 0.3, 64 } }, 5));
	// each seen in about 12 sampled clusters at one of the fractions: the counts most skewed
	layouts.push_back(make_layout("whole-cluster classes of three sizes",
		{ { MS_KERNEL_SLAB, 0.014, -256 }, { MS_ANON, 0.045, -512 }, { MS_FILE, 0.09, -256 },
		  { MS_FREE_BUDDY, 0.851, -1024 } }, 7));
	layouts.push_back(make_layout("sparse classes",
		{ { MS_KERNEL_SLAB, 0.01, 256 }, { MS_SHMEM, 0.001, 1 }, { MS_KERNEL_PAGETABLE, 0.003, 4 },
		  { MS_FREE_BUDDY, 0.6, 1024 }, { MS_ANON, 0.386, 16 } }, 6));
	layouts.push_back(uniform_layout(
		{ { MS_ANON, 100.0 / 256, 0 }, { MS_FILE, 100.0 / 256, 0 }, { MS_FREE_BUDDY, 56.0 / 256, 0 } }));

	for (const Layout &l : layouts) {
		for (double f : { MS_APPROX_DEFAULT_FRACTION, 0.03125, 0.1 }) {
			Coverage cv = coverage(l, f);
			int worst = cv.runs + 1;
			std::string who;

			ASSERT_EQ(cv.runs, 1000);
			for (int c = 0; c < MS_NR_CLASSES; c++) {
				EXPECT_GE(cv.within_class[c], need) << l.name << " at " << f << ": class "
					<< ms_classes[c].key;
				if (cv.within_class[c] < worst)
					worst = cv.within_class[c], who = ms_classes[c].key;
			}
			for (int i = 0; i < MS_NR_SUBS; i++) {
				EXPECT_GE(cv.within_sub[i], need) << l.name << " at " << f << ": sub-class "
					<< ms_subs[i].key;
				if (cv.within_sub[i] < worst)
					worst = cv.within_sub[i], who = ms_subs[i].key;
			}
			EXPECT_GE(cv.within_freelist, need) << l.name << " at " << f << ": freelist";
			if (cv.within_freelist < worst)
				worst = cv.within_freelist, who = "freelist";
			printf("  %-46s at %-8g worst %-16s within in %4d of %d\n", l.name, f,
			       who.c_str(), worst, cv.runs);
		}
	}
}

}  // namespace
