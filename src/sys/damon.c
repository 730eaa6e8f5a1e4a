// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --wss through DAMON's sysfs interface (damon.h). The kdamond monitors the present memory's
 * ranges with the operations of the physical address space ("paddr"), sampling every 100 ms in
 * at most 10 regions (DAMON's own sampling clears the accessed bit of one page per region and
 * sample: at most 100 pages a second, which then count idle unless accessed again); its four
 * schemes run every window (apply_interval_us), each over every LRU folio of the ranges
 * (damon_pa_stat(), 6.14: 7a5a62c44ee9 "mm/damon/paddr: support DAMOS_STAT with ops filters"
 * and the stat sz_ops_filter_passed). A scheme application is complete when the scheme has
 * tried the ranges' whole size (stats/sz_tried, which grows by each region's size as it is
 * tried): the first opens the window, the second closes it.
 *
 * --by cgroup: four more schemes per memory cgroup measured, each with a first filter that
 * rejects the folios of every other memcg (the memcg filter matches a folio's own memcg, not its
 * ancestors': filter->memcg_id == mem_cgroup_id(folio_memcg_check(folio)), 6.3: 18250e78f9c7
 * "mm/damon/paddr: support DAMOS filters"; memcg_path is resolved to that id when the kdamond
 * starts), so each cgroup's counts are its own pages', as memstat's --by cgroup rows.
 * The machine's four then reject the measured cgroups' folios, and the machine's counts are
 * theirs plus every cgroup's: the young filter clears what it finds young, so each folio must
 * meet one young filter per application, not two.
 * Every scheme walks the ranges' folios at each application: the cgroups are the root and the
 * largest others by their own anon and file pages (memory.stat), MS_WSS_DAMON_CGROUPS in all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "damon.h"
#include "meminfo.h"
#include "mglru.h"
#include "wss.h"

#define SAMPLE_US 100000
#define MAX_REGIONS 10

/* the schemes: their filters in order (type, matching, allow); a folio none matches is
 * rejected, the last filter allowing (damos_filters_default_reject()) */
enum { S_YOUNG_ANON, S_YOUNG_FILE, S_ANON, S_FILE, NSCHEMES };
static const struct {
	int n;
	const char *type[2];
	int matching[2], allow[2];
} schemes[NSCHEMES] = {
	[S_YOUNG_ANON] = { 2, { "anon", "young" }, { 0, 1 }, { 0, 1 } },	/* not anon: out */
	[S_YOUNG_FILE] = { 2, { "anon", "young" }, { 1, 1 }, { 0, 1 } },	/* anon: out */
	[S_ANON] = { 1, { "anon" }, { 1 }, { 1 } },
	[S_FILE] = { 1, { "anon" }, { 0 }, { 1 } },
};

static const char *const modules[] = { "damon_reclaim", "damon_lru_sort", "damon_stat" };

int ms_damon_usable(const char *release, char *why, size_t whylen)
{
	long kdamonds = ms_read_long(MS_DAMON_ADMIN "/nr_kdamonds");
	unsigned int major = 0, minor = 0;
	char path[128], on[8];

	if (kdamonds < 0) {
		snprintf(why, whylen, "no DAMON sysfs interface (%s/nr_kdamonds)", MS_DAMON_ADMIN);
		return -1;
	}
	if (kdamonds > 0) {
		snprintf(why, whylen, "DAMON is in use (%s/nr_kdamonds reads %ld): its kdamonds are "
			 "not memstat's to change", MS_DAMON_ADMIN, kdamonds);
		return -1;
	}
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/module/%s/parameters/enabled", modules[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(on, sizeof(on), f) && on[0] == 'Y') {
			fclose(f);
			snprintf(why, whylen, "DAMON is in use (%s reads Y): not memstat's to use",
				 path);
			return -1;
		}
		fclose(f);
	}
	if (sscanf(release, "%u.%u", &major, &minor) != 2 || major < 6 ||
	    (major == 6 && minor < 14)) {
		snprintf(why, whylen, "DAMON (%s) counts the folios its filters pass from 6.14 on, "
			 "this kernel is %s", MS_DAMON_ADMIN, release);
		return -1;
	}
	return 0;
}

/* ---- a stop signal during the window: the kdamond is stopped first ---- */

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP (sizeof(stop_sigs) / sizeof(stop_sigs[0]))

/* ---- --by cgroup: which memory cgroups ---- */

/* a cgroup's anon and file bytes from its memory.stat (v2: its subtree's; v1: its own), or -1 */
static long long cg_bytes(const struct ms_cgroups *cg, const struct ms_cgroup *c)
{
	char text[16384];
	long long a, f;

	if (ms_cgroup_read(cg, c, "memory.stat", text, sizeof(text)))
		return -1;
	a = ms_kv_get(text, cg->version == 1 ? "rss" : "anon");
	f = ms_kv_get(text, cg->version == 1 ? "cache" : "file");
	return a < 0 || f < 0 ? -1 : a + f;
}

static int cmp_own_desc(const void *a, const void *b)
{
	__u64 x = ((const struct ms_wss_damon_group *)a)->own, y = ((const struct ms_wss_damon_group *)b)->own;

	return x > y ? -1 : x < y;
}

/*
 * w->damon_g: the root, then the largest others by own pages (v2: the subtree's less its
 * children's subtrees'), MS_WSS_DAMON_CGROUPS in all, sorted by id; the rest with pages
 * counted in damon_g_unmeasured. 0, or -1 with why.
 */
static int pick_cgroups(struct ms_wss *w, long page, char *why, size_t whylen)
{
	struct ms_cgroups cg = {};
	struct ms_wss_damon_group *all;
	long long *sub, *own;
	size_t n = 0, keep;
	int err = ms_cgroups_load(&cg);

	if (err) {
		snprintf(why, whylen, "--by cgroup: no memory cgroup hierarchy is mounted");
		return -1;
	}
	all = calloc(cg.n ? cg.n : 1, sizeof(*all));
	sub = calloc(cg.n ? cg.n : 1, sizeof(*sub));
	own = calloc(cg.n ? cg.n : 1, sizeof(*own));
	if (!all || !sub || !own) {
		free(all);
		free(sub);
		free(own);
		ms_cgroups_free(&cg);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < cg.n; i++)
		sub[i] = cg_bytes(&cg, &cg.c[i]);
	for (size_t i = 0; i < cg.n; i++)
		own[i] = sub[i] < 0 ? 0 : sub[i];
	for (size_t i = 0; cg.version == 2 && i < cg.n; i++) {	/* less the children's subtrees */
		const struct ms_cgroup *p = cg.c[i].depth ? ms_cgroups_find(&cg, cg.c[i].parent) : NULL;

		if (p && sub[i] > 0)
			own[p - cg.c] -= sub[i];
	}
	for (size_t i = 0; i < cg.n; i++) {
		all[i].id = cg.c[i].id;
		all[i].own = own[i] > 0 ? (__u64)own[i] / (__u64)page : 0;
		/* the root first, whatever its size: the pages of no other cgroup */
		if (!cg.c[i].depth)
			all[i].own = ~0ULL;
	}
	qsort(all, cg.n, sizeof(*all), cmp_own_desc);
	for (n = 0; n < cg.n && all[n].own; n++)
		;
	keep = n < MS_WSS_DAMON_CGROUPS ? n : MS_WSS_DAMON_CGROUPS;
	w->damon_g_unmeasured = n - keep;
	for (size_t i = 0; i < keep; i++) {
		const struct ms_cgroup *c = ms_cgroups_find(&cg, all[i].id);

		if (all[i].own == ~0ULL)
			all[i].own = 0;
		all[i].path = c ? strdup(c->path) : NULL;
		if (!all[i].path)
			keep = i;	/* out of memory: fewer */
	}
	qsort(all, keep, sizeof(*all), ms_wss_damon_group_cmp);
	w->damon_g = all;
	w->ndamon_g = keep;
	free(sub);
	free(own);
	ms_cgroups_free(&cg);
	return 0;
}

/* ---- --by node: a kdamond per node, over the node's address ranges ---- */

/* a node's ranges: out's, of pfns, those of ranges within the node's zones' spans (unsorted,
 * overlapping where its zones' spans do: ms_ranges_merge() after) */
static int node_ranges(const struct ms_ranges *ranges, const struct ms_zone *z, size_t nz,
		       int node, struct ms_ranges *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < ranges->n; i++)
		for (size_t k = 0; k < nz; k++) {
			__u64 a = ranges->r[i].start > z[k].start ? ranges->r[i].start : z[k].start;
			__u64 b = ranges->r[i].end < z[k].end ? ranges->r[i].end : z[k].end;
			struct ms_range *r;

			if (z[k].node != node || a >= b)
				continue;
			r = realloc(out->r, (out->n + 1) * sizeof(*r));
			if (!r) {
				ms_ranges_free(out);
				return -ENOMEM;
			}
			out->r = r;
			out->r[out->n].start = a;
			out->r[out->n].end = b;
			out->n++;
		}
	return 0;
}

int ms_damon_nodes(struct ms_wss *w, const struct ms_ranges *ranges, const struct ms_zone *z,
		   size_t nz, struct ms_ranges **kd, size_t *nkd, char *why, size_t whylen)
{
	size_t n = 0;
	int maxnode = -1;
	bool oom = false;

	*kd = NULL;
	*nkd = 0;
	for (size_t i = 0; i < nz; i++)
		if (z[i].node > maxnode)
			maxnode = z[i].node;
	if (maxnode < 0) {
		snprintf(why, whylen, "--by node: /proc/zoneinfo names no node's zone");
		return MS_EXIT_FAIL;
	}
	w->damon_g = calloc((size_t)maxnode + 1, sizeof(*w->damon_g));
	*kd = calloc((size_t)maxnode + 1, sizeof(**kd));
	for (int node = 0; w->damon_g && *kd && !oom && node <= maxnode; node++) {
		oom = node_ranges(ranges, z, nz, node, &(*kd)[n]) != 0;
		if (oom || !(*kd)[n].n)
			continue;
		ms_ranges_merge(&(*kd)[n]);	/* a zone within another's span (Movable) once */
		w->damon_g[n].id = (__u64)node;
		n++;
	}
	w->ndamon_g = n;
	*nkd = n;	/* ms_wss_damon_stop() frees them */
	if (!w->damon_g || !*kd || oom) {
		snprintf(why, whylen, "out of memory");
		return MS_EXIT_FAIL;
	}
	if (!n) {
		snprintf(why, whylen, "--by node: no node's zones (/proc/zoneinfo) hold present "
			 "memory");
		return MS_EXIT_FAIL;
	}
	for (size_t a = 0; a < n; a++)	/* no address of two nodes */
		for (size_t b = a + 1; b < n; b++)
			for (size_t i = 0; i < (*kd)[a].n; i++)
				for (size_t k = 0; k < (*kd)[b].n; k++)
					if ((*kd)[a].r[i].start < (*kd)[b].r[k].end &&
					    (*kd)[b].r[k].start < (*kd)[a].r[i].end) {
						snprintf(why, whylen, "--by node: nodes %llu and %llu "
							 "interleave in physical memory (/proc/"
							 "zoneinfo), which DAMON's address ranges "
							 "cannot tell apart",
							 (unsigned long long)w->damon_g[a].id,
							 (unsigned long long)w->damon_g[b].id);
						return MS_EXIT_UNSUPPORTED;
					}
	return MS_EXIT_OK;
}

/* ms_damon_nodes() of this machine's zones (/proc/zoneinfo) */
static int pick_nodes(struct ms_wss *w, const struct ms_ranges *ranges, struct ms_ranges **kd,
		      size_t *nkd, char *why, size_t whylen)
{
	struct ms_zone *z = NULL;
	size_t nz = 0;
	int ret;

	*kd = NULL;
	*nkd = 0;
	if (ms_zones_read("/proc/zoneinfo", &z, &nz)) {
		snprintf(why, whylen, "--by node: the nodes' zones cannot be read from /proc/zoneinfo");
		return MS_EXIT_FAIL;
	}
	ret = ms_damon_nodes(w, ranges, z, nz, kd, nkd, why, whylen);
	free(z);
	return ret;
}

/* ---- the kdamonds ---- */

/* the kdamonds' windows (one run a process): their ranges, schemes, what the last application
 * passed (every kdamond's schemes in one array, kdamond k's from first[k]) */
static struct {
	size_t nkd;			/* kdamonds: 1, or one per node */
	struct ms_ranges *kd;		/* each one's ranges (pfns) */
	__u64 *size;			/* each one's ranges' bytes */
	int *first, *nsch;		/* each one's schemes: where in prev, cur; how many */
	int nschemes, applied;
	__u64 *prev, *cur;
	long page;
	double window_s, slack_ms;
	bool (*sleep_until)(double deadline_ms);	/* false: stop */
	size_t made;			/* kdamonds made (nr_kdamonds written): only those undone */
} run;

/* a path under kdamond k (MS_DAMON_ADMIN/k/...) */
#define KPATH(buf, k, fmt, ...) \
	snprintf(buf, sizeof(buf), MS_DAMON_ADMIN "/%zu/" fmt, (size_t)(k), ##__VA_ARGS__)
#define CTX "contexts/0"
#define SCH CTX "/schemes"

/* Stop and remove memstat's kdamonds: nr_kdamonds back to 0 (it was 0 before) */
static void teardown(void)
{
	char path[160];

	if (!run.made)
		return;
	for (size_t k = 0; k < run.made; k++) {
		KPATH(path, k, "state");
		ms_write_str(path, "off");
	}
	ms_write_str(MS_DAMON_ADMIN "/nr_kdamonds", "0");
	run.made = 0;
}

/* kdamond k's scheme s's filter f (type, matching, allow; memcg: the cgroup's path too) */
static int put_filter(size_t k, int s, int f, const char *type, int matching, int allow,
		      const char *memcg, char *why, size_t whylen)
{
	static const char *const what[4] = { "type", "memcg_path", "matching", "allow" };
	char path[256];
	int err;

	for (int i = 0; i < 4; i++) {
		const char *val = i == 0 ? type : i == 1 ? memcg : (i == 2 ? matching : allow) ?
				  "Y" : "N";

		if (!val)
			continue;
		KPATH(path, k, SCH "/%d/filters/%d/%s", s, f, what[i]);
		if ((err = ms_write_str(path, val))) {
			snprintf(why, whylen, "writing %s: %s", path, strerror(-err));
			return -1;
		}
	}
	return 0;
}

#define W(p, ...) do {								\
		snprintf(val, sizeof(val), __VA_ARGS__);				\
		if ((err = ms_write_str(p, val))) {					\
			snprintf(why, whylen, "writing %s: %s", p, strerror(-err));	\
			return -1;							\
		}								\
	} while (0)

/*
 * kdamond k over ranges r with nschemes schemes: NSCHEMES for its memory (less the measured
 * cgroups' with --by cgroup), then NSCHEMES for each of w's DAMON cgroups
 */
static int setup_kdamond(const struct ms_wss *w, size_t k, double window_s,
			 const struct ms_ranges *r, long page, int nschemes, char *why,
			 size_t whylen)
{
	bool cgroups = w->damon_by == MS_WSS_DAMON_BY_CGROUP;
	char path[256], val[32];
	int err;

	KPATH(path, k, "contexts/nr_contexts");
	W(path, "1");
	KPATH(path, k, CTX "/operations");
	W(path, "paddr");
	KPATH(path, k, CTX "/monitoring_attrs/intervals/sample_us");
	W(path, "%d", SAMPLE_US);
	KPATH(path, k, CTX "/monitoring_attrs/intervals/aggr_us");
	W(path, "%d", SAMPLE_US);
	KPATH(path, k, CTX "/monitoring_attrs/nr_regions/min");
	W(path, "%d", MAX_REGIONS);
	KPATH(path, k, CTX "/monitoring_attrs/nr_regions/max");
	W(path, "%zu", r->n > MAX_REGIONS ? r->n : MAX_REGIONS);
	KPATH(path, k, CTX "/targets/nr_targets");
	W(path, "1");
	KPATH(path, k, CTX "/targets/0/regions/nr_regions");
	W(path, "%zu", r->n);
	for (size_t i = 0; i < r->n; i++) {
		KPATH(path, k, CTX "/targets/0/regions/%zu/start", i);
		W(path, "%llu", (unsigned long long)(r->r[i].start * (__u64)page));
		KPATH(path, k, CTX "/targets/0/regions/%zu/end", i);
		W(path, "%llu", (unsigned long long)(r->r[i].end * (__u64)page));
	}
	KPATH(path, k, SCH "/nr_schemes");
	W(path, "%d", nschemes);
	for (int s = 0; s < nschemes; s++) {
		int kind = s % NSCHEMES, block = s / NSCHEMES, f = 0;
		/* a cgroup's: every other memcg's folios out first */
		const char *memcg = block ? w->damon_g[block - 1].path : NULL;
		size_t ncg = cgroups && !block ? w->ndamon_g : 0;

		KPATH(path, k, SCH "/%d/action", s);
		W(path, "stat");
		KPATH(path, k, SCH "/%d/apply_interval_us", s);
		W(path, "%llu", (unsigned long long)(window_s * 1e6));
		/* every region: the access pattern's ranges are 0-0 until written */
		for (int i = 0; i < 3; i++) {
			static const char *const what[3] = { "sz", "nr_accesses", "age" };

			KPATH(path, k, SCH "/%d/access_pattern/%s/min", s, what[i]);
			W(path, "0");
			KPATH(path, k, SCH "/%d/access_pattern/%s/max", s, what[i]);
			W(path, "%s", i ? "4294967295" : "18446744073709551615");
		}
		KPATH(path, k, SCH "/%d/filters/nr_filters", s);
		W(path, "%d", schemes[kind].n + (block ? 1 : (int)ncg));
		if (memcg && put_filter(k, s, f++, "memcg", 0, 0, memcg, why, whylen))
			return -1;
		/* the machine's: the measured cgroups' folios out (their schemes count them) */
		for (size_t c = 0; c < ncg; c++)
			if (put_filter(k, s, f++, "memcg", 1, 0, w->damon_g[c].path, why, whylen))
				return -1;
		for (int i = 0; i < schemes[kind].n; i++)
			if (put_filter(k, s, f++, schemes[kind].type[i], schemes[kind].matching[i],
				       schemes[kind].allow[i], NULL, why, whylen))
				return -1;
	}
	return 0;
}

/* every kdamond made, set up and started */
static int setup(const struct ms_wss *w, double window_s, char *why, size_t whylen)
{
	char path[160], val[32];
	int err;

	W(MS_DAMON_ADMIN "/nr_kdamonds", "%zu", run.nkd);
	run.made = run.nkd;
	for (size_t k = 0; k < run.nkd; k++)
		if (setup_kdamond(w, k, window_s, &run.kd[k], run.page, run.nsch[k], why, whylen))
			return -1;
	for (size_t k = 0; k < run.nkd; k++) {
		KPATH(path, k, "state");
		if ((err = ms_write_str(path, "on"))) {
			snprintf(why, whylen, "starting memstat's kdamond (%s): %s%s", path,
				 strerror(-err), w->damon_by == MS_WSS_DAMON_BY_CGROUP &&
				 err == -EINVAL ? " (a cgroup measured may have been removed "
				 "meanwhile)" : "");
			return -1;
		}
	}
	return 0;
}
#undef W

/* the one-shot window's sleep: its own signal handlers set stop_sig */
static bool own_sleep(double deadline_ms)
{
	for (;;) {
		double left = deadline_ms - ms_now_ms();
		struct timespec ts;

		if (stop_sig)
			return false;
		if (left <= 0)
			return true;
		ts.tv_sec = (time_t)(left / 1000.0);
		ts.tv_nsec = (long)((left - (double)ts.tv_sec * 1000.0) * 1e6);
		nanosleep(&ts, NULL);
	}
}

/*
 * Wait until every kdamond's schemes have been applied n times (its last scheme's sz_tried
 * reaching n times its ranges' size), polling every 100 ms up to deadline_ms; then each
 * scheme's sz_ops_filter_passed into passed. 0, 1 on a stop signal, or -1 with why.
 */
static int wait_applied(int n, double deadline_ms, __u64 *passed, char *why, size_t whylen)
{
	char path[160];
	size_t done = 0;	/* the kdamonds seen through */
	long tried = 0;
	int err;

	for (;;) {
		if (!run.sleep_until(0))	/* a stop asked for */
			return 1;
		for (; done < run.nkd; done++) {
			KPATH(path, done, "state");
			err = ms_write_str(path, "update_schemes_stats");
			if (err) {
				snprintf(why, whylen, "asking DAMON for its scheme stats: %s",
					 strerror(-err));
				return -1;
			}
			KPATH(path, done, SCH "/%d/stats/sz_tried", run.nsch[done] - 1);
			tried = ms_read_long(path);
			if (tried < 0) {
				snprintf(why, whylen, "%s cannot be read", path);
				return -1;
			}
			if ((__u64)tried < (__u64)n * run.size[done])
				break;
		}
		if (done == run.nkd)
			break;
		if (ms_now_ms() > deadline_ms) {
			snprintf(why, whylen, "DAMON applied its schemes over %llu of %llu bytes by "
				 "the deadline (application %d%s)", (unsigned long long)tried,
				 (unsigned long long)((__u64)n * run.size[done]), n,
				 run.nkd > 1 ? ", a node's kdamond" : "");
			return -1;
		}
		if (!run.sleep_until(ms_now_ms() + 100.0))
			return 1;
	}
	/* each kdamond's stats as its last update left them: after its application n, a window
	 * before the next (sysfs copies them only when asked) */
	for (size_t k = 0; k < run.nkd; k++) {
		for (int s = 0; s < run.nsch[k]; s++) {
			long v;

			KPATH(path, k, SCH "/%d/stats/sz_ops_filter_passed", s);
			if ((v = ms_read_long(path)) < 0) {
				snprintf(why, whylen, "%s cannot be read", path);
				return -1;
			}
			passed[run.first[k] + s] = (__u64)v;
		}
	}
	return 0;
}

/* pages passed between the two applications: scheme s's */
static __u64 passed(const __u64 *open, const __u64 *close, int s, long page)
{
	return close[s] > open[s] ? (close[s] - open[s]) / (__u64)page : 0;
}

/* one block of schemes' counts: [anon, file][accessed, idle] */
static void block_counts(const __u64 *open, const __u64 *close, int base, long page,
			 __u64 n[2][2])
{
	n[0][0] = passed(open, close, base + S_YOUNG_ANON, page);
	n[1][0] = passed(open, close, base + S_YOUNG_FILE, page);
	for (int t = 0; t < 2; t++) {
		__u64 all = passed(open, close, base + (t ? S_FILE : S_ANON), page);

		n[t][1] = all > n[t][0] ? all - n[t][0] : 0;
	}
}

void ms_wss_damon_stop(void)
{
	teardown();
	for (size_t k = 0; run.kd && k < run.nkd; k++)
		ms_ranges_free(&run.kd[k]);
	free(run.kd);
	free(run.size);
	free(run.first);
	free(run.nsch);
	free(run.prev);
	free(run.cur);
	memset(&run, 0, sizeof(run));
}

/* run's kdamonds: one per node (--by node), else one over the ranges; MS_EXIT_OK, or an exit
 * code with why */
static int plan(struct ms_wss *w, const struct ms_ranges *ranges, char *why, size_t whylen)
{
	bool nodes = w->damon_by == MS_WSS_DAMON_BY_NODE;
	int ret = nodes ? pick_nodes(w, ranges, &run.kd, &run.nkd, why, whylen) : MS_EXIT_OK;

	if (ret)
		return ret;
	if (!nodes) {
		run.nkd = 1;
		run.kd = calloc(1, sizeof(*run.kd));
		if (run.kd) {
			run.kd[0].r = malloc((ranges->n ? ranges->n : 1) * sizeof(*ranges->r));
			if (run.kd[0].r) {
				memcpy(run.kd[0].r, ranges->r, ranges->n * sizeof(*ranges->r));
				run.kd[0].n = ranges->n;
			}
		}
	}
	run.size = calloc(run.nkd, sizeof(*run.size));
	run.first = calloc(run.nkd, sizeof(*run.first));
	run.nsch = calloc(run.nkd, sizeof(*run.nsch));
	if (!run.kd || !run.kd[0].r || !run.size || !run.first || !run.nsch) {
		snprintf(why, whylen, "out of memory");
		return MS_EXIT_FAIL;
	}
	for (size_t k = 0; k < run.nkd; k++) {
		run.first[k] = run.nschemes;
		run.nsch[k] = NSCHEMES * (nodes ? 1 : (int)(1 + w->ndamon_g));
		run.nschemes += run.nsch[k];
		for (size_t i = 0; i < run.kd[k].n; i++)
			run.size[k] += (run.kd[k].r[i].end - run.kd[k].r[i].start) * (__u64)run.page;
	}
	run.prev = calloc((size_t)run.nschemes, sizeof(*run.prev));
	run.cur = calloc((size_t)run.nschemes, sizeof(*run.cur));
	if (!run.prev || !run.cur) {
		snprintf(why, whylen, "out of memory");
		return MS_EXIT_FAIL;
	}
	return MS_EXIT_OK;
}

int ms_wss_damon_open(struct ms_wss *w, double window_s, const char *release,
		      const struct ms_ranges *ranges, bool (*sleep_until)(double deadline_ms),
		      char *why, size_t whylen)
{
	long mglru = ms_read_long(MS_MGLRU_ENABLED);
	double t0 = ms_now_ms();
	__u64 largest = 0;
	char err[512];
	int ret;

	ms_wss_clear(w, MS_WSS_DAMON, window_s);
	w->damon_mglru = mglru > 0 && (mglru & 1);
	if (ms_damon_usable(release, err, sizeof(err))) {
		snprintf(why, whylen, "--wss: %s", err);
		return MS_EXIT_UNSUPPORTED;
	}
	if (w->damon_by == MS_WSS_DAMON_BY_CGROUP &&
	    pick_cgroups(w, sysconf(_SC_PAGESIZE), err, sizeof(err))) {
		snprintf(why, whylen, "--wss: %s", err);
		return MS_EXIT_FAIL;
	}
	ms_wss_damon_stop();
	run.sleep_until = sleep_until ? sleep_until : own_sleep;
	run.page = sysconf(_SC_PAGESIZE);
	run.window_s = window_s;
	if ((ret = plan(w, ranges, err, sizeof(err)))) {
		ms_wss_damon_stop();
		snprintf(why, whylen, "--wss: %s", err);
		return ret;
	}
	/* an application walks every folio once per scheme: allow it a second per GiB and
	 * scheme besides the window (the kdamonds of nodes walk side by side) */
	for (size_t k = 0; k < run.nkd; k++)
		if (run.size[k] * (__u64)run.nsch[k] > largest)
			largest = run.size[k] * (__u64)run.nsch[k];
	run.slack_ms = 10000.0 + (double)largest / (1 << 30) * 1000.0 / NSCHEMES;
	ret = setup(w, window_s, err, sizeof(err));
	if (!ret)	/* the first application: a window after the start */
		ret = wait_applied(1, ms_now_ms() + window_s * 1000.0 + run.slack_ms, run.prev, err,
				   sizeof(err));
	w->started_ms = ms_now_ms();
	w->aging_ms[0] = w->started_ms - t0;
	if (ret) {
		ms_wss_damon_stop();
		w->damon_stopped = ret > 0;
		snprintf(why, whylen, "--wss: %s", ret > 0 ? "stopped by a signal" : err);
		return MS_EXIT_FAIL;
	}
	run.applied = 1;
	ms_wss_paging_begin(w);
	return MS_EXIT_OK;
}

int ms_wss_damon_close(struct ms_wss *w, char *why, size_t whylen)
{
	bool nodes = w->damon_by == MS_WSS_DAMON_BY_NODE;
	int base = nodes ? 0 : NSCHEMES;	/* the first group's schemes */
	char err[512];
	__u64 *t;
	int ret = wait_applied(run.applied + 1, w->started_ms + run.window_s * 1000.0 +
			       run.slack_ms, run.cur, err, sizeof(err));

	w->ended_ms = ms_now_ms();
	ms_wss_paging_end(w);
	if (ret) {
		w->damon_stopped = ret > 0;
		snprintf(why, whylen, "%s", ret > 0 ? "stopped by a signal" : err);
		return -1;
	}
	run.applied++;
	w->measured_s = (w->ended_ms - w->started_ms) / 1000.0;
	w->aging_ms[1] = w->ended_ms - w->started_ms - run.window_s * 1000.0;
	/* the rest of the machine's (nodes: none), then each group's, added to the machine's */
	memset(w->damon, 0, sizeof(w->damon));
	if (!nodes)
		block_counts(run.prev, run.cur, 0, run.page, w->damon);
	memcpy(w->damon_rest, w->damon, sizeof(w->damon));
	for (size_t i = 0; i < w->ndamon_g; i++) {
		block_counts(run.prev, run.cur, base + NSCHEMES * (int)i, run.page, w->damon_g[i].n);
		for (int k = 0; k < 2; k++)
			for (int v = 0; v < 2; v++)
				w->damon[k][v] += w->damon_g[i].n[k][v];
	}
	t = run.prev;	/* this window's end is the next one's start */
	run.prev = run.cur;
	run.cur = t;
	return 0;
}

void ms_wss_damon_roll(struct ms_wss *w)
{
	w->started_ms = w->ended_ms;
	ms_wss_paging_roll(w);
}

int ms_wss_damon_window(struct ms_wss *w, double window_s, const char *release,
			const struct ms_ranges *ranges, char *why, size_t whylen)
{
	struct sigaction sa = { .sa_handler = on_stop }, old[NSTOP];
	char err[512];
	int ret;

	stop_sig = 0;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_sigs[i], &sa, &old[i]);
	ret = ms_wss_damon_open(w, window_s, release, ranges, NULL, why, whylen);
	if (!ret && ms_wss_damon_close(w, err, sizeof(err))) {
		snprintf(why, whylen, "--wss: %s", err);
		ret = MS_EXIT_FAIL;
	}
	ms_wss_damon_stop();
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_sigs[i], &old[i], NULL);
	if (w->damon_stopped) {	/* stopped: the kdamond is gone, now die of the signal */
		signal(stop_sig, SIG_DFL);
		raise(stop_sig);
	}
	return ret;
}
