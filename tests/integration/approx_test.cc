// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// --approx on the running kernel: the estimate is the textbook estimator applied to the exact
// per-page classes of exactly the sampled clusters, read in the same walk (so that nothing that
// moves on a busy machine can make it fail); the command's JSON with every cluster sampled is
// exact; the counting walk counts exactly each cluster's pages.
#include <cmath>
#include <map>
#include <vector>

#include "integration/helpers.h"

extern "C" {
#include "memstat_int.h"
#include "approx.h"
#include "backend.h"
}

using namespace mstest;

namespace {

struct SampledRun {
	uint64_t pfn, npages;
	int sub;
};

int collect(void *arg, __u64 pfn, __u64 npages, enum ms_sub sub)
{
	static_cast<std::vector<SampledRun> *>(arg)->push_back({ pfn, npages, (int)sub });
	return 0;
}

struct Present {
	struct ms_ranges r = {};
	Present() { EXPECT_EQ(ms_ranges_from_iomem("/proc/iomem", &r), 0); }
	~Present() { ms_ranges_free(&r); }
};

struct Bpf {
	struct ms_bpf *b = nullptr;
	Bpf()
	{
		char why[512] = "";
		EXPECT_EQ(ms_bpf_open(&b, 0, why, sizeof(why)), 0) << why;
	}
	~Bpf() { ms_bpf_free(b); }
};

// The stratified ratio estimator and its variance, written out again from the textbook
// (Cochran 6.9, 11.8) over per-cluster counts y[k][cat]: the test's own, not approx.c's.
struct Estimate {
	double est, var;
};
Estimate estimate(const ms_approx_plan &p, const std::vector<std::vector<uint64_t>> &y,
		  const std::vector<bool> &in)
{
	Estimate e = { 0, 0 };
	for (size_t h = 0; h < p.nstrata; h++) {
		const ms_approx_stratum &s = p.strata[h];
		std::vector<double> yy, mm;
		for (size_t k = s.first; k < s.first + s.nsampled; k++) {
			double v = 0;
			for (size_t c = 0; c < in.size(); c++)
				if (in[c])
					v += (double)y[k][c];
			yy.push_back(v);
			mm.push_back((double)(p.c[k].end - p.c[k].start));
		}
		double sy = 0, sm = 0;
		for (size_t i = 0; i < yy.size(); i++) {
			sy += yy[i];
			sm += mm[i];
		}
		if (s.nsampled == s.nclusters) {
			e.est += sy;
			continue;
		}
		double R = sy / sm, ss = 0, n = s.nsampled, N = s.nclusters;
		e.est += (double)s.pages * R;
		for (size_t i = 0; i < yy.size(); i++)
			ss += (yy[i] - R * mm[i]) * (yy[i] - R * mm[i]);
		e.var += N * N * (1 - n / N) * ss / (n - 1) / n;
	}
	return e;
}

// ceil(5.81 P / n) over the strata not walked whole (docs/approx.md)
uint64_t detection_limit(const ms_approx_plan &p)
{
	double pages = 0, n = 0;
	for (size_t h = 0; h < p.nstrata; h++)
		if (p.strata[h].nsampled < p.strata[h].nclusters) {
			pages += (double)p.strata[h].pages;
			n += p.strata[h].nsampled;
		}
	return n ? (uint64_t)std::ceil(std::log(1 / 0.003) * pages / n - 1e-6) : 0;
}

// the stated error: 3 standard errors and the detection limit in quadrature (approx.c)
uint64_t bound(double var, uint64_t lim)
{
	double se = 3 * std::sqrt(var), d = (double)lim;
	return (uint64_t)std::ceil(std::sqrt(se * se + d * d) - 1e-6);
}

} // namespace

// One walk of a fixed seed's clusters that also hands over the runs it classified: the runs lie
// exactly on the sampled clusters, the per-cluster counts the estimate used are those of the
// runs, and the estimate and every bound are the textbook estimator's over those counts. The
// bounds are compared to 1 page: this test's sums of doubles run in another order than approx.c's,
// which can move a value across an integer before it is rounded up.
TEST(Approx, EstimateIsTheEstimatorOfTheSampledPages)
{
	Present pr;
	Bpf b;
	ASSERT_TRUE(b.b);
	struct ms_approx_plan plan;
	ASSERT_EQ(ms_approx_choose(&pr.r, MS_APPROX_DEFAULT_FRACTION, 20261123, &plan), 0);
	ASSERT_GT(plan.nclusters, 0u);
	std::vector<__u64> y(plan.nclusters * MS_APPROX_NCAT);
	std::vector<SampledRun> runs;
	struct ms_result res;

	ASSERT_EQ(ms_bpf_approx_walk(b.b, &plan, &res, y.data(), collect, &runs), 0);

	// the runs, cut at cluster bounds, give each cluster's counts; nothing lies outside them
	std::vector<std::vector<uint64_t>> from_runs(plan.nclusters,
						     std::vector<uint64_t>(MS_APPROX_NCAT, 0));
	size_t k = 0;
	uint64_t outside = 0;
	for (const SampledRun &r : runs) {
		for (uint64_t pfn = r.pfn, end = r.pfn + r.npages; pfn < end;) {
			while (k < plan.nclusters && plan.c[k].end <= pfn)
				k++;
			if (k == plan.nclusters || plan.c[k].start > pfn) {
				uint64_t next = k < plan.nclusters ? std::min<uint64_t>(end, plan.c[k].start) : end;
				outside += next - pfn;
				pfn = next;
				continue;
			}
			uint64_t stop = std::min<uint64_t>(end, plan.c[k].end);
			from_runs[k][r.sub] += stop - pfn;
			pfn = stop;
		}
	}
	EXPECT_EQ(outside, 0u) << "pages classified outside the sampled clusters";
	for (k = 0; k < plan.nclusters; k++) {
		uint64_t sum = 0;
		for (int i = 0; i < MS_NR_SUBS; i++)
			sum += from_runs[k][i];
		from_runs[k][MS_NR_SUBS] = plan.c[k].end - plan.c[k].start - sum;	// holes
		for (int i = 0; i < MS_APPROX_NCAT; i++)
			ASSERT_EQ(y[k * MS_APPROX_NCAT + i], from_runs[k][i])
				<< "cluster " << std::hex << plan.c[k].start << " category " << std::dec
				<< i;
	}

	uint64_t lim = detection_limit(plan);
	EXPECT_EQ(res.approx.floor_pages, lim);
	EXPECT_GT(lim, 0u);
	for (int i = 0; i < MS_NR_SUBS; i++) {
		std::vector<bool> in(MS_APPROX_NCAT, false);
		in[i] = true;
		Estimate e = estimate(plan, from_runs, in);
		// largest-remainder rounding moves an estimate by less than one page
		EXPECT_LT(std::fabs((double)res.sub[i] - e.est), 1.0) << ms_subs[i].key;
		EXPECT_NEAR((double)res.approx.err_sub[i],
			    (double)bound(e.var, i == MS_UNKNOWN ? 0 : lim), 1.0) << ms_subs[i].key;
	}
	for (int c = 0; c < MS_NR_CLASSES; c++) {
		std::vector<bool> in(MS_APPROX_NCAT, false);
		for (int i = 0; i < MS_NR_SUBS; i++)
			in[i] = ms_subs[i].cls == (enum ms_class)c;
		Estimate e = estimate(plan, from_runs, in);
		EXPECT_NEAR((double)res.approx.err_class[c],
			    (double)bound(e.var, c == MS_C_UNKNOWN ? 0 : lim), 1.0) << ms_classes[c].key;
	}
	EXPECT_EQ(res.total + res.holes, pr.r.pages);
	EXPECT_EQ(res.approx.pages_sampled, plan.pages_sampled);
	EXPECT_EQ(res.approx.clusters_sampled, plan.nclusters);
	EXPECT_TRUE(res.approx.on);
	ms_approx_plan_free(&plan);
}

// The counting walk (what memstat runs; it takes whole batches of uninitialised struct pages at
// once) counts exactly each cluster's pages, and uninitialised pages only fall in time order: a
// later page-by-page walk of the same clusters finds no more of them in any cluster.
TEST(Approx, CountingWalkCountsEachClusterExactly)
{
	Present pr;
	Bpf b;
	ASSERT_TRUE(b.b);
	struct ms_approx_plan plan;
	ASSERT_EQ(ms_approx_choose(&pr.r, 0.1, 42, &plan), 0);
	std::vector<__u64> yc(plan.nclusters * MS_APPROX_NCAT), yd(yc.size());
	std::vector<SampledRun> runs;
	struct ms_result rc, rd;

	ASSERT_EQ(ms_bpf_approx_walk(b.b, &plan, &rc, yc.data(), nullptr, nullptr), 0);
	ASSERT_EQ(ms_bpf_approx_walk(b.b, &plan, &rd, yd.data(), collect, &runs), 0);
	for (size_t k = 0; k < plan.nclusters; k++) {
		uint64_t sum = 0;
		for (int i = 0; i < MS_APPROX_NCAT; i++)
			sum += yc[k * MS_APPROX_NCAT + i];
		EXPECT_EQ(sum, plan.c[k].end - plan.c[k].start) << std::hex << plan.c[k].start;
		EXPECT_LE(yd[k * MS_APPROX_NCAT + MS_FREE_UNINIT], yc[k * MS_APPROX_NCAT + MS_FREE_UNINIT])
			<< std::hex << plan.c[k].start;
	}
	EXPECT_EQ(rc.total + rc.holes, pr.r.pages);
	ms_approx_plan_free(&plan);
}

// The command: with every cluster sampled (--approx=1) the walk is exact and says so with
// zero errors; the default's JSON carries the sample, its confidence level and an error for
// every class and sub-class, never below the detection limit, and the seed it was given.
TEST(Approx, CommandJson)
{
	Present pr;
	json a = walk({ "--approx=1", "--seed", "1" });
	ASSERT_TRUE(a.contains("approx")) << a.dump();
	EXPECT_EQ(a["approx"]["clusters_sampled"], a["approx"]["clusters"]);
	EXPECT_EQ(a["approx"]["detection_limit_pages"], 0);
	EXPECT_EQ(a["approx"]["pages_sampled"].get<uint64_t>(), pr.r.pages);
	for (auto &[k, v] : a["approx"]["error_pages"].items())
		EXPECT_EQ(v, 0) << k;
	for (auto &[k, v] : a["approx"]["error_detail"].items())	/* null where the count is */
		EXPECT_TRUE(v.is_null() ? a["detail"][k].is_null() : v == 0) << k << ": " << v;
	EXPECT_EQ(pages(a, "total") + a["holes"].get<uint64_t>(), pr.r.pages);

	json d = walk({ "--approx", "--seed", "77" });
	ASSERT_TRUE(d.contains("approx")) << d.dump();
	const json &ap = d["approx"];
	EXPECT_EQ(ap["fraction"], MS_APPROX_DEFAULT_FRACTION);
	EXPECT_EQ(ap["seed"], 77);
	EXPECT_EQ(ap["cluster_pages"], MS_APPROX_CLUSTER_PAGES);
	EXPECT_EQ(ap["bound"], "the error at a 99% confidence level: 3 standard errors and the "
			       "detection limit in quadrature");
	EXPECT_EQ(ap["confidence"], MS_APPROX_CONFIDENCE);
	struct ms_approx_plan plan;
	ASSERT_EQ(ms_approx_choose(&pr.r, MS_APPROX_DEFAULT_FRACTION, 77, &plan), 0);
	EXPECT_EQ(ap["pages_sampled"].get<uint64_t>(), plan.pages_sampled);
	EXPECT_EQ(ap["clusters_sampled"].get<uint64_t>(), plan.nclusters);
	EXPECT_EQ(ap["strata"].get<uint64_t>(), plan.nstrata);
	EXPECT_EQ(ap["detection_limit_pages"].get<uint64_t>(), ms_approx_floor(&plan));
	ms_approx_plan_free(&plan);
	uint64_t lim = ap["detection_limit_pages"].get<uint64_t>(), sum = 0, dsum = 0;
	EXPECT_EQ(ap["error_pages"]["unknown"], 0);	// the bpf walker identifies every page
	EXPECT_EQ(ap["error_detail"]["unknown"], 0);
	for (int c = 0; c < MS_NR_CLASSES; c++) {
		if (c != MS_C_UNKNOWN) {
			EXPECT_GE(ap["error_pages"][ms_classes[c].key].get<uint64_t>(), lim);
		}
		sum += d["pages"][ms_classes[c].key].get<uint64_t>();
	}
	for (int k = 0; k < MS_NR_DETAIL; k++) {
		const char *key = ms_detail_key(k);
		ASSERT_EQ(d["detail"][key].is_null(), ap["error_detail"][key].is_null()) << key;
		if (d["detail"][key].is_null())
			continue;	/* slab: all of it, or its two parts (format_version 2) */
		if (strcmp(key, "unknown")) {
			EXPECT_GE(ap["error_detail"][key].get<uint64_t>(), lim);
		}
		dsum += d["detail"][key].get<uint64_t>();
	}
	EXPECT_EQ(sum, pages(d, "total"));
	EXPECT_EQ(dsum, pages(d, "total"));
	EXPECT_EQ(pages(d, "total") + d["holes"].get<uint64_t>(), pr.r.pages);
}
