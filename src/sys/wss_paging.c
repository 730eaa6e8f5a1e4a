// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --wss: the paging the kernel counts beside the working set (wss.h): /proc/vmstat's counters
 * of the machine and each cgroup's memory.stat, read at the window's start and end.
 */
#include <stdlib.h>
#include <string.h>

#include "memstat_int.h"
#include "cgroup.h"
#include "meminfo.h"
#include "wss.h"

const char *const ms_wss_paging_keys[MS_WSS_NPAGING] = {
	"pgmajfault", "workingset_refault_anon", "workingset_refault_file", "pswpin", "pswpout",
	"pgmigrate_success"
};

/* /proc/vmstat's counters of ms_wss_paging_keys into v (-1 each: unreadable or absent) */
static void read_paging(const char *path, long long v[MS_WSS_NPAGING])
{
	static char buf[16384];
	bool ok = !ms_read_text(path, buf, sizeof(buf));

	for (int k = 0; k < MS_WSS_NPAGING; k++)
		v[k] = ok ? ms_kv_get(buf, ms_wss_paging_keys[k]) : -1;
}

long long ms_wss_paging(const struct ms_wss *w, int k)
{
	if (w->paging_start[k] < 0 || w->paging_end[k] < w->paging_start[k])
		return -1;
	return w->paging_end[k] - w->paging_start[k];
}

static int cmp_cgstat(const void *a, const void *b)
{
	__u64 x = ((const struct ms_wss_cgstat *)a)->id, y = ((const struct ms_wss_cgstat *)b)->id;

	return x < y ? -1 : x > y;
}

/*
 * every cgroup's memory.stat counters of the paging, sorted by id as ms_cgroups_load() gives
 * them (none: no hierarchy)
 */
static void read_cg_paging(struct ms_wss_cgstat **out, size_t *n)
{
	struct ms_cgroups cg = {};

	*out = NULL;
	*n = 0;
	if (ms_cgroups_load(&cg))
		return;
	*out = calloc(cg.n ? cg.n : 1, sizeof(**out));
	for (size_t i = 0; *out && i < cg.n; i++) {
		char text[16384];
		struct ms_wss_cgstat *x = &(*out)[(*n)++];
		bool ok = !ms_cgroup_read(&cg, &cg.c[i], "memory.stat", text, sizeof(text));

		x->id = cg.c[i].id;
		for (int k = 0; k < MS_WSS_CG_NPAGING; k++)
			x->v[k] = ok ? ms_kv_get(text, ms_wss_paging_keys[k]) : -1;
	}
	ms_cgroups_free(&cg);
}

void ms_wss_paging_begin(struct ms_wss *w)
{
	read_paging("/proc/vmstat", w->paging_start);
	if (w->cgroup_paging) {
		free(w->cg_start);
		read_cg_paging(&w->cg_start, &w->ncg_start);
	}
}

void ms_wss_paging_end(struct ms_wss *w)
{
	read_paging("/proc/vmstat", w->paging_end);
	if (w->cgroup_paging) {
		free(w->cg_end);
		read_cg_paging(&w->cg_end, &w->ncg_end);
	}
}

void ms_wss_paging_roll(struct ms_wss *w)
{
	memcpy(w->paging_start, w->paging_end, sizeof(w->paging_start));
	free(w->cg_start);
	w->cg_start = w->cg_end;
	w->ncg_start = w->ncg_end;
	w->cg_end = NULL;
	w->ncg_end = 0;
}

static const struct ms_wss_cgstat *find_cgstat(const struct ms_wss_cgstat *v, size_t n, __u64 id)
{
	struct ms_wss_cgstat key = { .id = id };

	return v ? bsearch(&key, v, n, sizeof(*v), cmp_cgstat) : NULL;
}

long long ms_wss_cgroup_paging(const struct ms_wss *w, __u64 id, int k)
{
	const struct ms_wss_cgstat *a = find_cgstat(w->cg_start, w->ncg_start, id);
	const struct ms_wss_cgstat *b = find_cgstat(w->cg_end, w->ncg_end, id);

	if (k < 0 || k >= MS_WSS_CG_NPAGING || !a || !b || a->v[k] < 0 || b->v[k] < a->v[k])
		return -1;
	return b->v[k] - a->v[k];
}
