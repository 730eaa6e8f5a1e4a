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
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "damon.h"
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

static int setup(double window_s, const struct ms_ranges *r, long page, char *why, size_t whylen)
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
	W(SCH "/nr_schemes", "%d", NSCHEMES);
	for (int s = 0; s < NSCHEMES; s++) {
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
		W(path, "%d", schemes[s].n);
		for (int f = 0; f < schemes[s].n; f++) {
			snprintf(path, sizeof(path), SCH "/%d/filters/%d/type", s, f);
			W(path, "%s", schemes[s].type[f]);
			snprintf(path, sizeof(path), SCH "/%d/filters/%d/matching", s, f);
			W(path, "%s", schemes[s].matching[f] ? "Y" : "N");
			snprintf(path, sizeof(path), SCH "/%d/filters/%d/allow", s, f);
			W(path, "%s", schemes[s].allow[f] ? "Y" : "N");
		}
	}
	W(KD "/state", "on");
#undef W
	return 0;
}

/*
 * Wait until the schemes have been applied k times (the last scheme's sz_tried reaching k times
 * the ranges' size), polling every 100 ms up to deadline_ms; then each scheme's
 * sz_ops_filter_passed into passed. 0, 1 on a stop signal, or -1 with why.
 */
static int wait_applied(int k, __u64 size, double deadline_ms, __u64 passed[NSCHEMES],
			char *why, size_t whylen)
{
	char path[128];
	long tried = 0;
	int err;

	for (;;) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		if (stop_sig)
			return 1;
		err = ms_write_str(KD "/state", "update_schemes_stats");
		if (err) {
			snprintf(why, whylen, "asking DAMON for its scheme stats: %s", strerror(-err));
			return -1;
		}
		tried = ms_read_long(SCH "/3/stats/sz_tried");
		if (tried < 0) {
			snprintf(why, whylen, "%s cannot be read", SCH "/3/stats/sz_tried");
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
		nanosleep(&ts, NULL);
	}
	for (int s = 0; s < NSCHEMES; s++) {
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

int ms_wss_damon_window(struct ms_wss *w, double window_s, const char *release,
			const struct ms_ranges *ranges, char *why, size_t whylen)
{
	struct sigaction sa = { .sa_handler = on_stop }, old[NSTOP];
	__u64 size = 0, at_open[NSCHEMES], at_close[NSCHEMES];
	long page = sysconf(_SC_PAGESIZE);
	double t0 = ms_now_ms(), slack_ms;
	long mglru = ms_read_long(MS_MGLRU_ENABLED);
	char err[512];
	int ret;

	ms_wss_clear(w, MS_WSS_DAMON, window_s);
	w->damon_mglru = mglru > 0 && (mglru & 1);
	if (ms_damon_usable(release, err, sizeof(err))) {
		snprintf(why, whylen, "--wss: %s", err);
		return MS_EXIT_UNSUPPORTED;
	}
	for (size_t i = 0; i < ranges->n; i++)
		size += (ranges->r[i].end - ranges->r[i].start) * (__u64)page;
	/* an application walks every folio: allow it a second per GiB besides the window */
	slack_ms = 10000.0 + (double)size / (1 << 30) * 1000.0;
	stop_sig = 0;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_sigs[i], &sa, &old[i]);
	ret = setup(window_s, ranges, page, err, sizeof(err));
	if (!ret)	/* the first application: a window after the start */
		ret = wait_applied(1, size, ms_now_ms() + window_s * 1000.0 + slack_ms, at_open,
				   err, sizeof(err));
	w->started_ms = ms_now_ms();
	w->aging_ms[0] = w->started_ms - t0;
	ms_wss_paging_begin(w);
	if (!ret)
		ret = wait_applied(2, size, w->started_ms + window_s * 1000.0 + slack_ms, at_close,
				   err, sizeof(err));
	w->ended_ms = ms_now_ms();
	teardown();
	ms_wss_paging_end(w);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_sigs[i], &old[i], NULL);
	if (ret > 0) {	/* stopped: the kdamond is gone, now die of the signal */
		signal(stop_sig, SIG_DFL);
		raise(stop_sig);
	}
	if (ret) {
		snprintf(why, whylen, "--wss: %s", ret > 0 ? "stopped by a signal" : err);
		return MS_EXIT_FAIL;
	}
	w->measured_s = (w->ended_ms - w->started_ms) / 1000.0;
	w->aging_ms[1] = w->ended_ms - w->started_ms - window_s * 1000.0;
	w->damon[0][0] = (at_close[S_YOUNG_ANON] - at_open[S_YOUNG_ANON]) / (__u64)page;
	w->damon[1][0] = (at_close[S_YOUNG_FILE] - at_open[S_YOUNG_FILE]) / (__u64)page;
	for (int t = 0; t < 2; t++) {
		__u64 all = (at_close[t ? S_FILE : S_ANON] - at_open[t ? S_FILE : S_ANON]) /
			    (__u64)page;

		w->damon[t][1] = all > w->damon[t][0] ? all - w->damon[t][0] : 0;
	}
	return MS_EXIT_OK;
}
