// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --approx: a stratified random sample of struct pages, and the estimate of every class with
 * its error (docs/approx.md).
 *
 * The design. Present memory is cut into clusters: runs of MS_APPROX_CLUSTER_PAGES pages
 * aligned to that many pfns, cut further where a present range begins or ends, so that each
 * cluster is contiguous. Clusters are grouped into strata by memory section: a stratum is G
 * consecutive sections (section number / G), G the least that gives each whole stratum at least
 * MS_APPROX_MIN_PER_STRATUM sampled clusters at the asked fraction (G = 2 at the default).
 * Within each stratum h of N_h clusters (M_h present pages) a simple random sample without
 * replacement of n_h = min(N_h, max(2, ceil(f * N_h))) clusters is walked, exactly as the
 * exact walk walks them (bpf_backend.c ms_bpf_approx_walk()).
 *
 * The estimate of a category c (a sub-class, a class, or the holes) is the stratified ratio
 * estimator of cluster sampling: in stratum h, R_h = sum(y_i) / sum(m_i) over its sampled
 * clusters (y_i pages of c in cluster i, m_i its pages), Y_h = M_h * R_h, and Y = sum_h Y_h. With
 * clusters of equal size this is the textbook N_h * mean(y_i); the ratio form makes the
 * categories add up to M_h exactly where a cluster is cut short. Its variance (the linearised
 * ratio variance, Cochran, Sampling Techniques, 3rd ed., 6.9 and 11.8; with equal sizes exactly
 * the variance of N_h * mean(y)):
 *
 *     v_h = N_h^2 * (1 - n_h / N_h) * s_h^2 / n_h,   s_h^2 = sum (y_i - R_h m_i)^2 / (n_h - 1)
 *
 * and V = sum_h v_h; a stratum sampled whole (n_h = N_h) is exact and adds 0.
 *
 * The stated error, at a confidence level of MS_APPROX_CONFIDENCE (99%): each class lies within
 * it in at least 99% of samples. It is
 *
 *     e = ceil(sqrt((3 sqrt(V))^2 + D^2))
 *
 * MS_APPROX_BOUND_SE (3) standard errors and the sample's detection limit D (ms_approx_floor())
 * added in quadrature: D / 3 is a floor under every class's standard error, the variance of what
 * no sampled cluster showed. Why not 2.58 standard errors (99% under the normal approximation),
 * as the estimator's textbook says, or 3 of them, and at least D, as this file did before:
 *  - V is estimated from as few as 4 clusters a stratum. A stratum whose sampled clusters
 *    happen to agree (all without the class, or all full of it) adds nothing to V, though the
 *    class may fill part of it: run-structured classes (page cache, free blocks, THP, a slab
 *    cache's pages), whose clusters are all or nothing, do that all the time. Their estimate is
 *    then a count of the sampled clusters that hold them, about Poisson, skewed, and its V
 *    shrinks with the count: a sample that saw the class in few clusters states a small error
 *    exactly when its estimate is low. Neither the normal nor a t-quantile (with the
 *    Satterthwaite degrees of freedom, which are few for such classes) corrects that; a floor
 *    does, as the score interval of a Poisson count does (its half-width is about
 *    sqrt(z^2 k + z^4 / 2) clusters of k seen, the form of e with D as the second term).
 *  - Measured, not assumed (tests/unit/approx_test.cc, ApproxCoverage: 1000 seeds each, 8
 *    synthetic layouts of 8 GiB at 1/64, 1/32 and 0.1): the old error (3 SE, at least D) held
 *    THP anon in 2 MiB folios (4% of memory) in 981 samples of 1000 at 1/32, whole-cluster
 *    classes in 977, large run-structured classes in 987 to 995; with e, 993 at worst. In a
 *    simulation of the same design (13 layouts at 1/64, 1/32 and 0.1, this machine's own
 *    from --runs among them, and 160 random layouts of runs): 2.58 SE in quadrature with D
 *    held 98.5% at worst, a t-quantile with the Satterthwaite degrees of freedom (and at
 *    least D) 97.3%, e 99.1%; e is about 6% wider than the old error, summed over them.
 *  - More clusters a stratum (fewer, larger strata) would steady V, at the cost of the
 *    stratification that makes run-structured classes cheap to estimate: their error grows as
 *    the square root of the stratum's size. The sample, hence its cost, is as before.
 * With every cluster sampled (--approx=1) V = 0 and D = 0: the error is 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memstat_int.h"
#include "approx.h"

/* splitmix64 (Steele, Lea, Flood 2014): small, fast, and the same on every machine */
static __u64 rng_next(__u64 *state)
{
	__u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n), Lemire's multiply-shift with rejection: no modulo bias */
static __u64 rng_below(__u64 *state, __u64 n)
{
	__u64 x = rng_next(state);
	unsigned __int128 m = (unsigned __int128)x * n;
	__u64 l = (__u64)m;

	if (l < n) {
		__u64 t = -n % n;

		while (l < t) {
			x = rng_next(state);
			m = (unsigned __int128)x * n;
			l = (__u64)m;
		}
	}
	return (__u64)(m >> 64);
}

/* sections per stratum: at least MS_APPROX_MIN_PER_STRATUM sampled clusters in a whole one */
static __u64 sections_per_stratum(double fraction)
{
	double per_section = fraction * (double)(MS_SECTION_PAGES / MS_APPROX_CLUSTER_PAGES);
	double g = ceil((double)MS_APPROX_MIN_PER_STRATUM / per_section - 1e-9);

	if (g < 1)
		g = 1;
	if (g > 1 << 20)
		g = 1 << 20;
	return (__u64)g;
}

__u32 ms_approx_sample_size(__u32 nclusters, double fraction)
{
	double want = ceil(fraction * (double)nclusters - 1e-9);
	__u32 n = want < 2 ? 2 : want > nclusters ? nclusters : (__u32)want;

	return n > nclusters ? nclusters : n;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

void ms_approx_plan_free(struct ms_approx_plan *p)
{
	free(p->strata);
	free(p->c);
	memset(p, 0, sizeof(*p));
}

/*
 * The plan of one sample: the strata of the ranges, and in each the sampled clusters, in pfn
 * order. The same ranges, fraction and seed give the same plan on every machine.
 */
int ms_approx_choose(const struct ms_ranges *ranges, double fraction, __u64 seed,
		   struct ms_approx_plan *p)
{
	struct ms_approx_cluster *all = NULL;	/* every cluster of the current stratum */
	size_t nall = 0, capall = 0, caps = 0, capc = 0, i;
	__u32 *idx = NULL;
	size_t capidx = 0;
	__u64 g, rng = seed, cur_stratum = ~0ULL;
	int err = 0;

	memset(p, 0, sizeof(*p));
	if (!(fraction > 0 && fraction <= 1))
		return -EINVAL;
	p->fraction = fraction;
	p->seed = seed;
	g = sections_per_stratum(fraction);
	p->sections_per_stratum = g;

	/* one pass over the clusters in pfn order; a stratum is closed when the next begins */
	for (i = 0; i <= ranges->n; i++) {
		__u64 start = i < ranges->n ? ranges->r[i].start : 0;
		__u64 end = i < ranges->n ? ranges->r[i].end : 0;
		__u64 pfn = start;

		do {
			__u64 stop = 0, stratum = ~0ULL;
			bool last = i == ranges->n;

			if (!last && pfn < end) {
				stop = (pfn / MS_APPROX_CLUSTER_PAGES + 1) * MS_APPROX_CLUSTER_PAGES;
				if (stop > end)
					stop = end;
				stratum = pfn / MS_SECTION_PAGES / g;
			}
			if (nall && (last || (pfn < end && stratum != cur_stratum))) {
				/* close the stratum: sample n of its nall clusters (partial
				 * Fisher-Yates over their indices), keep them in pfn order */
				struct ms_approx_stratum *s;
				__u32 n = ms_approx_sample_size((__u32)nall, fraction), k;
				__u64 pages = 0;

				if ((err = grow((void **)&p->strata, &caps, p->nstrata + 1,
						sizeof(*p->strata))) ||
				    (err = grow((void **)&idx, &capidx, nall, sizeof(*idx))) ||
				    (err = grow((void **)&p->c, &capc, p->nclusters + n,
						sizeof(*p->c))))
					goto fail;
				for (k = 0; k < nall; k++) {
					idx[k] = k;
					pages += all[k].end - all[k].start;
				}
				for (k = 0; k < n; k++) {
					__u32 j = k + (__u32)rng_below(&rng, nall - k), t = idx[k];

					idx[k] = idx[j];
					idx[j] = t;
				}
				/* the chosen indices in pfn order: a counting sort over nall */
				{
					unsigned char *mark = calloc(nall, 1);

					if (!mark) {
						err = -ENOMEM;
						goto fail;
					}
					for (k = 0; k < n; k++)
						mark[idx[k]] = 1;
					s = &p->strata[p->nstrata];
					s->first = p->nclusters;
					s->nclusters = (__u32)nall;
					s->nsampled = n;
					s->pages = pages;
					for (k = 0; k < nall; k++) {
						if (!mark[k])
							continue;
						p->c[p->nclusters] = all[k];
						p->c[p->nclusters].stratum = (__u32)p->nstrata;
						p->pages_sampled += all[k].end - all[k].start;
						p->nclusters++;
					}
					free(mark);
				}
				p->pages += pages;
				p->clusters_total += nall;
				p->nstrata++;
				nall = 0;
			}
			if (last || pfn >= end)
				break;
			cur_stratum = stratum;
			if ((err = grow((void **)&all, &capall, nall + 1, sizeof(*all))))
				goto fail;
			all[nall].start = pfn;
			all[nall].end = stop;
			all[nall].stratum = 0;
			nall++;
			pfn = stop;
		} while (1);
	}
	free(all);
	free(idx);
	return 0;
fail:
	free(all);
	free(idx);
	ms_approx_plan_free(p);
	return err;
}

/* Estimate and variance of one category over every stratum, from y(k) per sampled cluster. */
void ms_approx_category(const struct ms_approx_plan *p, const __u64 *y, size_t stride,
			 double *est, double *var)
{
	size_t h, k;

	*est = 0;
	*var = 0;
	for (h = 0; h < p->nstrata; h++) {
		const struct ms_approx_stratum *s = &p->strata[h];
		double sy = 0, sm = 0, r, ss = 0, n = s->nsampled, N = s->nclusters;

		for (k = s->first; k < s->first + s->nsampled; k++) {
			sy += (double)y[k * stride];
			sm += (double)(p->c[k].end - p->c[k].start);
		}
		if (s->nsampled == s->nclusters) {	/* the whole stratum: exact */
			*est += sy;
			continue;
		}
		r = sm > 0 ? sy / sm : 0;
		*est += (double)s->pages * r;
		for (k = s->first; k < s->first + s->nsampled; k++) {
			double e = (double)y[k * stride] - r * (double)(p->c[k].end - p->c[k].start);

			ss += e * e;
		}
		*var += N * N * (1 - n / N) * (ss / (n - 1)) / n;
	}
}

/* the stated error: MS_APPROX_BOUND_SE standard errors and floor_pages in quadrature */
__u64 ms_approx_error(double var, __u64 floor_pages)
{
	double se = MS_APPROX_BOUND_SE * sqrt(var > 0 ? var : 0), d = (double)floor_pages;

	/* a hair below an integer is that integer: sums of doubles are not exact */
	return (__u64)ceil(sqrt(se * se + d * d) - 1e-6);
}

/*
 * The detection limit: a class that fills a share q of the clusters of the sampled strata
 * escapes a random sample of n of them with probability about (1 - q)^n < exp(-q n), which
 * is MS_APPROX_MISS_P (0.3%, the tail of 3 standard errors) at q = ln(1 / 0.003) / n. A class
 * below that share can be missed, or seen in too few clusters for its variance to be known,
 * so that share of the sampled strata's pages, ceil(5.81 P / n), is part of every stated error
 * (ms_approx_error(): in quadrature with the standard errors), the least error of any class.
 * Strata walked whole add nothing; with every stratum walked whole the limit is 0.
 */
__u64 ms_approx_floor(const struct ms_approx_plan *p)
{
	double pages = 0, n = 0;
	size_t h;

	for (h = 0; h < p->nstrata; h++) {
		if (p->strata[h].nsampled == p->strata[h].nclusters)
			continue;
		pages += (double)p->strata[h].pages;
		n += p->strata[h].nsampled;
	}
	return n ? (__u64)ceil(-log(MS_APPROX_MISS_P) * pages / n - 1e-6) : 0;
}

/*
 * The estimate: res->sub[], total and holes from the per-cluster counts y (one row of
 * MS_APPROX_NCAT per sampled cluster: the sub-classes, then the holes), and the error of each
 * sub-class and class in res->approx. The sub-classes and the holes are rounded to whole pages
 * by largest remainder, so that they add up to the present pages exactly, like an exact walk.
 */
void ms_approx_estimate(const struct ms_approx_plan *p, const __u64 *y, struct ms_result *res)
{
	double est[MS_APPROX_NCAT], var, frac[MS_APPROX_NCAT];
	__u64 floor_sum = 0, *cls, lim = ms_approx_floor(p);
	bool in[MS_NR_SUBS];
	size_t k;
	int i, c;

	for (i = 0; i < MS_APPROX_NCAT; i++) {
		ms_approx_category(p, y + i, MS_APPROX_NCAT, &est[i], &var);
		/* the holes (unreadable struct pages, met or not) and unknown (the bpf walker
		 * identifies every page) have no detection limit */
		if (i < MS_NR_SUBS)
			res->approx.err_sub[i] = ms_approx_error(var, i == MS_UNKNOWN ? 0 : lim);
		else
			res->approx.err_holes = ms_approx_error(var, 0);
		if (est[i] < 0)
			est[i] = 0;
		frac[i] = est[i] - floor(est[i]);
		floor_sum += (__u64)floor(est[i]);
	}
	/* largest remainder: the pages floor() left out go to the largest fractions */
	for (i = 0; i < MS_APPROX_NCAT; i++) {
		__u64 v = (__u64)floor(est[i]);

		if (i < MS_NR_SUBS)
			res->sub[i] = v;
		else
			res->holes = v;
	}
	while (floor_sum < p->pages) {
		int best = -1;

		for (i = 0; i < MS_APPROX_NCAT; i++)
			if (frac[i] >= 0 && (best < 0 || frac[i] > frac[best]))
				best = i;
		if (best < 0)
			break;
		frac[best] = -1;
		if (best < MS_NR_SUBS)
			res->sub[best]++;
		else
			res->holes++;
		floor_sum++;
	}
	res->total = 0;
	for (i = 0; i < MS_NR_SUBS; i++)
		res->total += res->sub[i];

	/*
	 * A class's error comes from its own per-cluster counts (its sub-classes covary); so does
	 * the summary's Free (freelist), the free class without the uninitialised pages.
	 */
	cls = calloc(p->nclusters ? p->nclusters : 1, sizeof(*cls));
	for (c = 0; c <= MS_NR_CLASSES; c++) {
		__u64 *out = c < MS_NR_CLASSES ? &res->approx.err_class[c] :
				 &res->approx.err_freelist;
		double e;

		*out = 0;
		for (i = 0; i < MS_NR_SUBS; i++)
			in[i] = c < MS_NR_CLASSES ? ms_subs[i].cls == (enum ms_class)c :
				(ms_subs[i].cls == MS_C_FREE && i != MS_FREE_UNINIT);
		if (!cls) {	/* out of memory: the sum of the sub-class errors, never less */
			for (i = 0; i < MS_NR_SUBS; i++)
				if (in[i])
					*out += res->approx.err_sub[i];
			continue;
		}
		for (k = 0; k < p->nclusters; k++) {
			cls[k] = 0;
			for (i = 0; i < MS_NR_SUBS; i++)
				if (in[i])
					cls[k] += y[k * MS_APPROX_NCAT + i];
		}
		ms_approx_category(p, cls, 1, &e, &var);
		*out = ms_approx_error(var, c == MS_C_UNKNOWN ? 0 : lim);
	}
	free(cls);
	/* total = present pages - holes: its error is the holes' */
	res->approx.err_total = res->approx.err_holes;
	res->approx.floor_pages = lim;
	res->approx.on = true;
	res->approx.fraction = p->fraction;
	res->approx.seed = p->seed;
	res->approx.cluster_pages = MS_APPROX_CLUSTER_PAGES;
	res->approx.strata = p->nstrata;
	res->approx.clusters = p->clusters_total;
	res->approx.clusters_sampled = p->nclusters;
	res->approx.pages_sampled = p->pages_sampled;
}

/* --approx[=FRACTION]: 0 and a message when arg is not a fraction memstat takes. */
int ms_approx_parse_fraction(const char *arg, double *out)
{
	char *end;
	double v;

	if (!arg) {
		*out = MS_APPROX_DEFAULT_FRACTION;
		return 0;
	}
	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) || v < MS_APPROX_MIN_FRACTION || v > 1)
		return -EINVAL;
	*out = v;
	return 0;
}
