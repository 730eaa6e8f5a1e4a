/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* --approx: the sample, the estimator and its error (approx.c). */
#ifndef MEMSTAT_APPROX_H
#define MEMSTAT_APPROX_H

#include <stdbool.h>
#include <stddef.h>

#include "memstat_int.h"
#include "backend.h"

/*
 * --approx (approx.c): a stratified random sample of clusters of struct pages, and the
 * estimate of every class with its error. The comment at the top of approx.c says how.
 */
#define MS_APPROX_CLUSTER_PAGES		256	/* pages per cluster, aligned */
#define MS_APPROX_MIN_PER_STRATUM	4	/* sampled clusters a whole stratum gets at least */
#define MS_APPROX_BOUND_SE		3	/* the stated error: this many standard errors, */
#define MS_APPROX_CONFIDENCE		0.99	/* and the detection limit, hold this often */
#define MS_APPROX_DEFAULT_FRACTION	0.015625	/* --approx without =FRACTION: 1/64 */
#define MS_APPROX_MIN_FRACTION		0.001
#define MS_APPROX_NCAT			(MS_NR_SUBS + 1)	/* per cluster: the subs, then holes */
#define MS_APPROX_MISS_P		0.003	/* the detection limit: the chance a class is missed */
struct ms_approx_cluster {
	__u64 start, end;	/* pfns [start, end), within one present range */
	__u32 stratum;		/* index into strata */
};
struct ms_approx_stratum {
	__u64 pages;		/* M_h: present pages */
	__u32 nclusters;	/* N_h */
	__u32 nsampled;		/* n_h */
	size_t first;		/* its first sampled cluster in ms_approx_plan.c */
};
struct ms_approx_plan {
	double fraction;
	__u64 seed;
	__u64 sections_per_stratum;
	struct ms_approx_stratum *strata;
	size_t nstrata;
	struct ms_approx_cluster *c;	/* the sampled clusters, in pfn order */
	size_t nclusters;
	__u64 clusters_total, pages, pages_sampled;
};
int ms_approx_choose(const struct ms_ranges *ranges, double fraction, __u64 seed,
		   struct ms_approx_plan *p);
void ms_approx_plan_free(struct ms_approx_plan *p);
/* n_h: the clusters sampled of a stratum of nclusters */
__u32 ms_approx_sample_size(__u32 nclusters, double fraction);
/* y: MS_APPROX_NCAT counts per sampled cluster (the sub-classes, then the holes) */
void ms_approx_estimate(const struct ms_approx_plan *p, const __u64 *y, struct ms_result *res);
/* one category's estimate and variance from y[k * stride], k over the sampled clusters */
void ms_approx_category(const struct ms_approx_plan *p, const __u64 *y, size_t stride,
			double *est, double *var);
/* the least error of any class: the detection limit of the sample (approx.c) */
__u64 ms_approx_floor(const struct ms_approx_plan *p);
/* the stated error of a category of variance var, at MS_APPROX_CONFIDENCE (approx.c) */
__u64 ms_approx_error(double var, __u64 floor_pages);
/* the FRACTION of --approx[=FRACTION] (NULL: the default); -EINVAL when it is not one */
int ms_approx_parse_fraction(const char *arg, double *out);
/*
 * Walk the plan's clusters (bpf_backend.c) and estimate from them: res as ms_bpf_walk() fills
 * it, with res->approx. With fn, the runs of the sampled clusters, in pfn order. y, when not
 * NULL, receives the per-cluster counts (MS_APPROX_NCAT each; plan->nclusters rows).
 */
int ms_bpf_approx_walk(struct ms_bpf *b, const struct ms_approx_plan *plan, struct ms_result *res,
		       __u64 *y, ms_run_fn fn, void *arg);

#endif /* MEMSTAT_APPROX_H */
