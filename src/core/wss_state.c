// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --wss: the window's state that every mechanism shares (wss.h): emptied for a window, its
 * counts zeroed for the next, a page's range among present memory.
 */
#include <string.h>

#include "memstat_int.h"
#include "wss.h"

void ms_wss_clear(struct ms_wss *w, int mech, double window_s)
{
	bool cgroup_paging = w->cgroup_paging;	/* asked for before the window */

	memset(w, 0, sizeof(*w));
	w->cgroup_paging = cgroup_paging;
	w->mech = mech;
	w->window_s = window_s;
	w->last_lv = -1;
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
