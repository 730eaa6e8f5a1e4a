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

#define KD MS_DAMON_ADMIN "/0"
#define CTX KD "/contexts/0"
#define SCH CTX "/schemes"
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
	__u64 x = ((const struct ms_wss_damon_cg *)a)->own, y = ((const struct ms_wss_damon_cg *)b)->own;

	return x > y ? -1 : x < y;
}

/*
 * w->damon_cg: the root, then the largest others by own pages (v2: the subtree's less its
 * children's subtrees'), MS_WSS_DAMON_CGROUPS in all, sorted by id; the rest with pages
 * counted in damon_cg_unmeasured. 0, or -1 with why.
 */
static int pick_cgroups(struct ms_wss *w, long page, char *why, size_t whylen)
{
	struct ms_cgroups cg = {};
	struct ms_wss_damon_cg *all;
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
	w->damon_cg_unmeasured = n - keep;
	for (size_t i = 0; i < keep; i++) {
		const struct ms_cgroup *c = ms_cgroups_find(&cg, all[i].id);

		if (all[i].own == ~0ULL)
			all[i].own = 0;
		all[i].path = c ? strdup(c->path) : NULL;
		if (!all[i].path)
			keep = i;	/* out of memory: fewer */
	}
	qsort(all, keep, sizeof(*all), ms_wss_damon_cg_cmp);
	w->damon_cg = all;
	w->ndamon_cg = keep;
	free(sub);
	free(own);
	ms_cgroups_free(&cg);
	return 0;
}

/* ---- the kdamond ---- */

/* memstat's kdamond directory was made (nr_kdamonds written 1): only then is anything undone */
static bool made;

/* Stop and remove memstat's kdamond: nr_kdamonds back to 0 (it was 0 before) */
static void teardown(void)
{
	if (!made)
		return;
	ms_write_str(KD "/state", "off");
	ms_write_str(MS_DAMON_ADMIN "/nr_kdamonds", "0");
	made = false;
}

/* a scheme's filter f (type, matching, allow; memcg: the cgroup's path too) */
static int put_filter(int s, int f, const char *type, int matching, int allow,
		      const char *memcg, char *why, size_t whylen)
{
	static const char *const what[4] = { "type", "memcg_path", "matching", "allow" };
	char path[256];
	int err;

	for (int k = 0; k < 4; k++) {
		const char *val = k == 0 ? type : k == 1 ? memcg : (k == 2 ? matching : allow) ?
				  "Y" : "N";

		if (!val)
			continue;
		snprintf(path, sizeof(path), SCH "/%d/filters/%d/%s", s, f, what[k]);
		if ((err = ms_write_str(path, val))) {
			snprintf(why, whylen, "writing %s: %s", path, strerror(-err));
			return -1;
		}
	}
	return 0;
}

/* schemes: NSCHEMES for the machine, then NSCHEMES for each of w's DAMON cgroups */
static int setup(const struct ms_wss *w, double window_s, const struct ms_ranges *r, long page,
		 int nschemes, char *why, size_t whylen)
{
	char path[256], val[32];
	int err;

#define W(p, ...) do {								\
		snprintf(val, sizeof(val), __VA_ARGS__);				\
		if ((err = ms_write_str(p, val))) {					\
			snprintf(why, whylen, "writing %s: %s", p, strerror(-err));	\
			return -1;							\
		}								\
	} while (0)
	W(MS_DAMON_ADMIN "/nr_kdamonds", "1");
	made = true;
	W(KD "/contexts/nr_contexts", "1");
	W(CTX "/operations", "paddr");
	W(CTX "/monitoring_attrs/intervals/sample_us", "%d", SAMPLE_US);
	W(CTX "/monitoring_attrs/intervals/aggr_us", "%d", SAMPLE_US);
	W(CTX "/monitoring_attrs/nr_regions/min", "%d", MAX_REGIONS);
	W(CTX "/monitoring_attrs/nr_regions/max", "%zu", r->n > MAX_REGIONS ? r->n : MAX_REGIONS);
	W(CTX "/targets/nr_targets", "1");
	W(CTX "/targets/0/regions/nr_regions", "%zu", r->n);
	for (size_t i = 0; i < r->n; i++) {
		snprintf(path, sizeof(path), CTX "/targets/0/regions/%zu/start", i);
		W(path, "%llu", (unsigned long long)(r->r[i].start * (__u64)page));
		snprintf(path, sizeof(path), CTX "/targets/0/regions/%zu/end", i);
		W(path, "%llu", (unsigned long long)(r->r[i].end * (__u64)page));
	}
	W(SCH "/nr_schemes", "%d", nschemes);
	for (int s = 0; s < nschemes; s++) {
		int kind = s % NSCHEMES, block = s / NSCHEMES, f = 0;
		/* a cgroup's: every other memcg's folios out first */
		const char *memcg = block ? w->damon_cg[block - 1].path : NULL;

		snprintf(path, sizeof(path), SCH "/%d/action", s);
		W(path, "stat");
		snprintf(path, sizeof(path), SCH "/%d/apply_interval_us", s);
		W(path, "%llu", (unsigned long long)(window_s * 1e6));
		/* every region: the access pattern's ranges are 0-0 until written */
		for (int k = 0; k < 3; k++) {
			static const char *const what[3] = { "sz", "nr_accesses", "age" };

			snprintf(path, sizeof(path), SCH "/%d/access_pattern/%s/min", s, what[k]);
			W(path, "0");
			snprintf(path, sizeof(path), SCH "/%d/access_pattern/%s/max", s, what[k]);
			W(path, "%s", k ? "4294967295" : "18446744073709551615");
		}
		snprintf(path, sizeof(path), SCH "/%d/filters/nr_filters", s);
		W(path, "%d", schemes[kind].n + (block ? 1 : (int)w->ndamon_cg));
		if (memcg && put_filter(s, f++, "memcg", 0, 0, memcg, why, whylen))
			return -1;
		/* the machine's: the measured cgroups' folios out (their schemes count them) */
		for (size_t c = 0; !block && c < w->ndamon_cg; c++)
			if (put_filter(s, f++, "memcg", 1, 0, w->damon_cg[c].path, why, whylen))
				return -1;
		for (int k = 0; k < schemes[kind].n; k++)
			if (put_filter(s, f++, schemes[kind].type[k], schemes[kind].matching[k],
				       schemes[kind].allow[k], NULL, why, whylen))
				return -1;
	}
	if ((err = ms_write_str(KD "/state", "on"))) {
		snprintf(why, whylen, "starting memstat's kdamond (%s/state): %s%s", KD,
			 strerror(-err), w->ndamon_cg && err == -EINVAL ?
			 " (a cgroup measured may have been removed meanwhile)" : "");
		return -1;
	}
#undef W
	return 0;
}

/* the kdamond's windows (one kdamond a process): what the last application passed */
static struct {
	int nschemes, applied;
	__u64 size, *prev, *cur;
	long page;
	double window_s, slack_ms;
	bool (*sleep_until)(double deadline_ms);	/* false: stop */
} run;

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
 * Wait until the schemes have been applied k times (the last scheme's sz_tried reaching k times
 * the ranges' size), polling every 100 ms up to deadline_ms; then each scheme's
 * sz_ops_filter_passed into passed. 0, 1 on a stop signal, or -1 with why.
 */
static int wait_applied(int k, __u64 size, double deadline_ms, int nschemes, __u64 *passed,
			char *why, size_t whylen)
{
	char path[128], last[128];
	long tried = 0;
	int err;

	for (;;) {
		if (!run.sleep_until(0))	/* a stop asked for */
			return 1;
		err = ms_write_str(KD "/state", "update_schemes_stats");
		if (err) {
			snprintf(why, whylen, "asking DAMON for its scheme stats: %s", strerror(-err));
			return -1;
		}
		snprintf(last, sizeof(last), SCH "/%d/stats/sz_tried", nschemes - 1);
		tried = ms_read_long(last);
		if (tried < 0) {
			snprintf(why, whylen, "%s cannot be read", last);
			return -1;
		}
		if ((__u64)tried >= (__u64)k * size)
			break;
		if (ms_now_ms() > deadline_ms) {
			snprintf(why, whylen, "DAMON applied its schemes over %llu of %llu bytes by "
				 "the deadline (application %d)", (unsigned long long)tried,
				 (unsigned long long)((__u64)k * size), k);
			return -1;
		}
		if (!run.sleep_until(ms_now_ms() + 100.0))
			return 1;
	}
	for (int s = 0; s < nschemes; s++) {
		long v;

		snprintf(path, sizeof(path), SCH "/%d/stats/sz_ops_filter_passed", s);
		if ((v = ms_read_long(path)) < 0) {
			snprintf(why, whylen, "%s cannot be read", path);
			return -1;
		}
		passed[s] = (__u64)v;
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
	free(run.prev);
	free(run.cur);
	run.prev = run.cur = NULL;
}

int ms_wss_damon_open(struct ms_wss *w, double window_s, const char *release,
		      const struct ms_ranges *ranges, bool (*sleep_until)(double deadline_ms),
		      char *why, size_t whylen)
{
	long mglru = ms_read_long(MS_MGLRU_ENABLED);
	double t0 = ms_now_ms();
	char err[512];
	int ret;

	ms_wss_clear(w, MS_WSS_DAMON, window_s);
	w->damon_mglru = mglru > 0 && (mglru & 1);
	if (ms_damon_usable(release, err, sizeof(err))) {
		snprintf(why, whylen, "--wss: %s", err);
		return MS_EXIT_UNSUPPORTED;
	}
	if (w->damon_by_cgroup && pick_cgroups(w, sysconf(_SC_PAGESIZE), err, sizeof(err))) {
		snprintf(why, whylen, "--wss: %s", err);
		return MS_EXIT_FAIL;
	}
	memset(&run, 0, sizeof(run));
	run.sleep_until = sleep_until ? sleep_until : own_sleep;
	run.page = sysconf(_SC_PAGESIZE);
	run.window_s = window_s;
	run.nschemes = NSCHEMES * (int)(1 + w->ndamon_cg);
	run.prev = calloc((size_t)run.nschemes, sizeof(*run.prev));
	run.cur = calloc((size_t)run.nschemes, sizeof(*run.cur));
	if (!run.prev || !run.cur) {
		ms_wss_damon_stop();
		snprintf(why, whylen, "--wss: out of memory");
		return MS_EXIT_FAIL;
	}
	for (size_t i = 0; i < ranges->n; i++)
		run.size += (ranges->r[i].end - ranges->r[i].start) * (__u64)run.page;
	/* an application walks every folio once per scheme: allow it a second per GiB and
	 * scheme besides the window */
	run.slack_ms = 10000.0 + (double)run.size / (1 << 30) * 1000.0 * run.nschemes / NSCHEMES;
	ret = setup(w, window_s, ranges, run.page, run.nschemes, err, sizeof(err));
	if (!ret)	/* the first application: a window after the start */
		ret = wait_applied(1, run.size, ms_now_ms() + window_s * 1000.0 + run.slack_ms,
				   run.nschemes, run.prev, err, sizeof(err));
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
	char err[512];
	__u64 *t;
	int ret = wait_applied(run.applied + 1, run.size,
			       w->started_ms + run.window_s * 1000.0 + run.slack_ms, run.nschemes,
			       run.cur, err, sizeof(err));

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
	/* the rest of the machine's, then each cgroup's, added to the machine's */
	block_counts(run.prev, run.cur, 0, run.page, w->damon);
	memcpy(w->damon_rest, w->damon, sizeof(w->damon));
	for (size_t i = 0; i < w->ndamon_cg; i++) {
		block_counts(run.prev, run.cur, NSCHEMES * (int)(i + 1), run.page, w->damon_cg[i].n);
		for (int k = 0; k < 2; k++)
			for (int v = 0; v < 2; v++)
				w->damon[k][v] += w->damon_cg[i].n[k][v];
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
