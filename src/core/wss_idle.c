// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --wss with the idle page bitmap (wss.h, page_idle.h), where MGLRU is off: at the window's
 * start every page of present memory is marked idle (the kernel clears the accessed bits of
 * its mappings and sets PG_idle on each folio on an LRU list); at its end the bitmap is read
 * (the kernel clears PG_idle of a folio whose mappings were accessed meanwhile; an access
 * through read() or a fault clears it too). A page of a folio on an LRU list (the unevictable
 * one included) is then accessed when its folio is no longer idle, idle when it still is; one on
 * no LRU list is untracked.
 * The bitmap gives no age: the idle pages have been idle for the whole window at least.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memstat_int.h"
#include "page_idle.h"
#include "wss.h"

/* mark every page idle, and the window starts */
static int mark(struct ms_wss *w, char *why, size_t whylen)
{
	double t0 = ms_now_ms();
	int err = ms_page_idle_mark(MS_PAGE_IDLE_BITMAP, w->ranges);

	if (err) {
		snprintf(why, whylen, "%s: marking the pages idle: %s", MS_PAGE_IDLE_BITMAP,
			 strerror(-err));
		return -1;
	}
	w->started_ms = ms_now_ms();
	w->aging_ms[0] = w->started_ms - t0;
	ms_wss_paging_begin(w);
	return 0;
}

int ms_wss_idle_start(struct ms_wss *w, double window_s, const struct ms_ranges *ranges,
		      unsigned int pg_lru, char *why, size_t whylen)
{
	size_t n;

	ms_wss_clear(w, MS_WSS_IDLE_BITMAP, window_s);
	w->ranges = ranges;
	if (pg_lru == MS_NO_BIT) {
		snprintf(why, whylen, "where PG_lru sits in the flags is unknown");
		return -1;
	}
	w->pg_lru = pg_lru;
	if (w->keep_verdicts && ms_wss_alloc_before(w, ranges)) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	w->idle_base = calloc(ranges->n ? ranges->n : 1, sizeof(*w->idle_base));
	n = w->idle_base ? ms_page_idle_words(ranges, w->idle_base) : 0;
	w->idle_words = w->idle_base ? calloc(n ? n : 1, sizeof(*w->idle_words)) : NULL;
	if (!w->idle_words) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	return mark(w, why, whylen);
}

int ms_wss_idle_end(struct ms_wss *w, char *why, size_t whylen)
{
	double t0 = ms_now_ms();
	int err;

	w->measured_s = (t0 - w->started_ms) / 1000.0;
	ms_wss_paging_end(w);
	err = ms_page_idle_read(MS_PAGE_IDLE_BITMAP, w->ranges, w->idle_base, w->idle_words,
				&w->idle_limit);
	if (err) {
		snprintf(why, whylen, "%s: %s", MS_PAGE_IDLE_BITMAP, strerror(-err));
		return -1;
	}
	w->ended_ms = ms_now_ms();
	w->aging_ms[1] = w->ended_ms - t0;
	return 0;
}

int ms_wss_idle_next(struct ms_wss *w, char *why, size_t whylen)
{
	ms_wss_reset_counts(w);
	return mark(w, why, whylen);	/* a window of its own: the marking takes time */
}

/* whether pfn's folio was still idle at the window's end */
static bool still_idle(struct ms_wss *w, __u64 pfn)
{
	long i = ms_wss_range_of(w, pfn);
	__u64 word;

	if (i < 0)
		return false;
	word = w->idle_words[w->idle_base[i] + (pfn / 64 - w->ranges->r[i].start / 64)];
	return (word >> (pfn % 64)) & 1;
}

void ms_wss_idle_page(struct ms_wss *w, __u64 pfn, const struct ms_page_rec *r)
{
	unsigned int sub = r->sub;

	if (!((r->head_flags >> w->pg_lru) & 1) || pfn >= w->idle_limit) {
		/* on no LRU list: never marked (the unevictable one is); or no word was read */
		w->untracked[sub]++;
		return;
	}
	if (still_idle(w, pfn)) {
		w->idle[sub]++;
		w->verdict = MS_WSS_IDLE;
	} else {
		w->accessed[sub]++;
		w->verdict = MS_WSS_ACCESSED;
	}
}
