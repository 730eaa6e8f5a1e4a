// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --wss: the window's state that every mechanism shares (wss.h): emptied for a window, its
 * counts zeroed for the next, a page's range among present memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memstat_int.h"
#include "wss.h"

void ms_wss_clear(struct ms_wss *w, int mech, double window_s)
{
	bool cgroup_paging = w->cgroup_paging;	/* asked for before the window */
	bool keep_verdicts = w->keep_verdicts;
	int damon_by = w->damon_by;
	bool (*sleep_until)(double) = w->sleep_until;

	ms_wss_damon_free(w);
	memset(w, 0, sizeof(*w));
	w->damon_by = damon_by;
	w->sleep_until = sleep_until;
	w->cgroup_paging = cgroup_paging;
	w->keep_verdicts = keep_verdicts;
	w->mech = mech;
	w->window_s = window_s;
	w->last_lv = -1;
}

void ms_wss_damon_free(struct ms_wss *w)
{
	for (size_t i = 0; i < w->ndamon_g; i++)
		free(w->damon_g[i].path);
	free(w->damon_g);
	w->damon_g = NULL;
	w->ndamon_g = w->damon_g_unmeasured = 0;
}

int ms_wss_damon_group_cmp(const void *a, const void *b)
{
	__u64 x = ((const struct ms_wss_damon_group *)a)->id, y = ((const struct ms_wss_damon_group *)b)->id;

	return x < y ? -1 : x > y;
}

const struct ms_wss_damon_group *ms_wss_damon_group_of(const struct ms_wss *w, __u64 id)
{
	struct ms_wss_damon_group key = { .id = id };

	if (!w || w->mech != MS_WSS_DAMON || !w->ndamon_g)
		return NULL;
	return bsearch(&key, w->damon_g, w->ndamon_g, sizeof(key), ms_wss_damon_group_cmp);
}

void ms_wss_reset_counts(struct ms_wss *w)
{
	memset(w->accessed, 0, sizeof(w->accessed));
	memset(w->idle, 0, sizeof(w->idle));
	memset(w->untracked, 0, sizeof(w->untracked));
	memset(w->idle_age, 0, sizeof(w->idle_age));
	memset(w->referenced, 0, sizeof(w->referenced));
	memset(w->unseen, 0, sizeof(w->unseen));
	w->unattributed = w->kernel_aged = w->not_aged = 0;
}

long ms_wss_range_of(struct ms_wss *w, __u64 pfn)
{
	const struct ms_ranges *r = w->ranges;
	size_t lo = 0, hi;

	if (!r)
		return -1;
	if (w->cur_range < r->n && pfn >= r->r[w->cur_range].start &&
	    pfn < r->r[w->cur_range].end)
		return (long)w->cur_range;
	hi = r->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pfn < r->r[mid].start) {
			hi = mid;
		} else if (pfn >= r->r[mid].end) {
			lo = mid + 1;
		} else {
			w->cur_range = mid;
			return (long)mid;
		}
	}
	return -1;
}

/* the index of pfn among the present pages in the 2-bit map (before), or -1 */
static long long page_index(struct ms_wss *w, __u64 pfn)
{
	long i = w->before ? ms_wss_range_of(w, pfn) : -1;

	return i < 0 ? -1 : (long long)(w->range_base[i] + pfn - w->ranges->r[i].start);
}

unsigned int ms_wss_map_get(struct ms_wss *w, __u64 pfn)
{
	long long i = page_index(w, pfn);

	return i < 0 ? 0 : (w->before[i / 4] >> (2 * (i % 4))) & 3;
}

void ms_wss_map_set(struct ms_wss *w, __u64 pfn, unsigned int code)
{
	long long i = page_index(w, pfn);
	unsigned int shift;

	if (i < 0)
		return;
	shift = 2 * (unsigned int)(i % 4);
	w->before[i / 4] = (__u8)((w->before[i / 4] & ~(3U << shift)) | ((code & 3) << shift));
}

void ms_wss_keep_verdict(struct ms_wss *w, __u64 pfn)
{
	ms_wss_map_set(w, pfn, w->verdict >= 0 && w->verdict < MS_WSS_VERDICTS ?
			       (unsigned int)w->verdict + 1 : 0);
}

int ms_wss_verdict_at(void *arg, __u64 pfn)
{
	struct ms_wss *w = arg;
	unsigned int code = w->keep_verdicts ? ms_wss_map_get(w, pfn) : 0;

	return code ? (int)code - 1 : MS_WSS_NONE;
}

int ms_wss_alloc_before(struct ms_wss *w, const struct ms_ranges *ranges)
{
	__u64 n = 0;

	w->ranges = ranges;
	w->cur_range = 0;
	w->range_base = calloc(ranges->n ? ranges->n : 1, sizeof(*w->range_base));
	if (!w->range_base)
		return -ENOMEM;
	for (size_t i = 0; i < ranges->n; i++) {
		w->range_base[i] = n;
		n += ranges->r[i].end - ranges->r[i].start;
	}
	w->nbefore = n / 4 + 1;
	w->before = calloc(w->nbefore, 1);
	return w->before ? 0 : -ENOMEM;
}
