/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --wss through DAMON (damon.c), where neither MGLRU nor the idle page bitmap is there: a kdamond
 * of memstat's own on physical memory with four "stat" schemes whose per-folio filters (6.14+:
 * the stat action runs them and counts the bytes they pass, sz_ops_filter_passed) count the LRU
 * folios that are anonymous and young, file-backed and young, anonymous, file-backed. The young
 * filter clears the accessed bits of what it finds young, so a scheme application opens a window
 * and the next closes it: the window is DAMON's apply interval, and the counts are totals, with
 * no class, owner or page (shmem, exec and page cache are all "file-backed").
 *
 * memstat uses DAMON only where nothing else uses it: nr_kdamonds reads 0 and no DAMON module
 * (reclaim, LRU sort, stat) is enabled; it writes nothing under /sys/kernel/mm/damon otherwise,
 * and after its window (sampling: its last) it stops its kdamond and puts nr_kdamonds back to
 * 0, on every exit path (a stop signal in a one-shot window included: memstat cleans up, then
 * dies of the signal; in sampling the loop ends and ms_wss_free() takes the kdamond down).
 */
#ifndef MEMSTAT_DAMON_H
#define MEMSTAT_DAMON_H

#include <stdbool.h>
#include <stddef.h>

#include "memstat_int.h"

#define MS_DAMON_ADMIN "/sys/kernel/mm/damon/admin/kdamonds"

/*
 * Whether DAMON can be memstat's here (release as uname -r prints it): 0, or -1 with why
 * (no sysfs interface, a kdamond or a DAMON module in use, a kernel before 6.14). Reads only.
 */
int ms_damon_usable(const char *release, char *why, size_t whylen);

struct ms_wss;
/*
 * --by node: w->damon_g (ids) and kd[] (ranges of pfns, merged) of each node whose zones' spans
 * (z) hold some of ranges, *nkd of them (the caller frees kd[] and each one's ranges, also on
 * failure). MS_EXIT_OK, or with why MS_EXIT_UNSUPPORTED (two nodes whose spans interleave: a
 * folio would meet two kdamonds' young filters) or MS_EXIT_FAIL.
 */
int ms_damon_nodes(struct ms_wss *w, const struct ms_ranges *ranges, const struct ms_zone *z,
		   size_t nz, struct ms_ranges **kd, size_t *nkd, char *why, size_t whylen);
/*
 * The whole window on DAMON: its kdamond made and started, the first scheme application
 * (the window's start), the second (its end), the kdamond stopped and removed. Fills w's
 * damon counts, measured_s and paging. MS_EXIT_OK, or MS_EXIT_FAIL with why (a whole message);
 * a stop signal during it: cleaned up, then the signal's default action.
 */
int ms_wss_damon_window(struct ms_wss *w, double window_s, const char *release,
			const struct ms_ranges *ranges, char *why, size_t whylen);
/*
 * Sampling: the kdamond made and started, and its first application seen (the first window's
 * start), polling through sleep_until (NULL: memstat's own, with a stop flag of its signal
 * handlers; false from it: stop, w->damon_stopped set). MS_EXIT_OK, _UNSUPPORTED or _FAIL with
 * why (a whole message); on failure nothing is left running.
 */
int ms_wss_damon_open(struct ms_wss *w, double window_s, const char *release,
		      const struct ms_ranges *ranges, bool (*sleep_until)(double deadline_ms),
		      char *why, size_t whylen);
/* The window's end: the next application seen, its counts into w. 0, or -1 with why. */
int ms_wss_damon_close(struct ms_wss *w, char *why, size_t whylen);
/* The next window starts where the last ended (the kdamond keeps running). */
void ms_wss_damon_roll(struct ms_wss *w);
/* The kdamond stopped and removed, nr_kdamonds back to 0 (nothing if none was made). */
void ms_wss_damon_stop(void);

#endif /* MEMSTAT_DAMON_H */
