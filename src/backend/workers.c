// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What every backend's parallel walk shares, below the backends and the file that chooses one
 * (backend.c): the default number of workers, the chunks of present memory they walk, their
 * threads, the sum of their results, and where a run's time went.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"
#include "backend.h"
#include "testhooks.h"

struct ms_timings ms_timings;

/*
 * --jobs by default: the CPUs this process may run on, but no more workers than one per
 * MS_SECTIONS_PER_JOB present sections (docs/backends.md "Parallel walk").
 */
unsigned int ms_jobs_auto(const struct ms_ranges *r)
{
	cpu_set_t set;
	__u64 pages = 0, sections;
	long cpus = -1;
	size_t i;

	if (!sched_getaffinity(0, sizeof(set), &set))
		cpus = CPU_COUNT(&set);
	if (cpus < 1)
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1)
		cpus = 1;
	for (i = 0; i < r->n; i++)
		pages += r->r[i].end - r->r[i].start;
	sections = (pages + MS_SECTION_PAGES - 1) / MS_SECTION_PAGES;
	sections /= MS_SECTIONS_PER_JOB;
	if ((__u64)cpus > sections)
		cpus = sections ? (long)sections : 1;
	return cpus > MS_JOBS_MAX ? MS_JOBS_MAX : (unsigned int)cpus;
}

/* The pfn at offset t (pages) into the present ranges; 0 when past their end. */
static __u64 pfn_at(const struct ms_ranges *r, __u64 t)
{
	__u64 cum = 0;
	size_t i;

	for (i = 0; i < r->n; i++) {
		__u64 len = r->r[i].end - r->r[i].start;

		if (t < cum + len)
			return r->r[i].start + (t - cum);
		cum += len;
	}
	return 0;
}

/*
 * The chunks of a parallel walk: boundaries at the section boundary at or above each
 * k * pages / jobs offset, so every worker walks whole sections. A folio or free block that
 * crosses a boundary is counted once: from its head to the boundary by the worker below, and
 * from the boundary on by the worker above, which starts as at any range's start. Test hook
 * (test builds only): MEMSTAT_TEST_SPLIT_PFN=pfn makes pfn the one boundary (two chunks) when
 * jobs > 1, so that a test can put a boundary inside a folio of its own.
 */
size_t ms_split_chunks(const struct ms_ranges *r, unsigned int jobs, struct ms_ranges *chunks)
{
	const char *test = ms_test_hook(MS_TEST_SPLIT_PFN);
	__u64 *bound, pages = 0;
	size_t nb = 0, i, c, n;

	if (!jobs)
		jobs = 1;
	memset(chunks, 0, jobs * sizeof(*chunks));
	bound = calloc(jobs, sizeof(*bound));
	if (!bound)
		return 0;
	for (i = 0; i < r->n; i++)
		pages += r->r[i].end - r->r[i].start;
	if (test && jobs > 1 && r->n) {
		char *end;
		unsigned long long v = strtoull(test, &end, 0);

		if (!*end && v > r->r[0].start && v < r->r[r->n - 1].end)
			bound[nb++] = v;
	}
	if (!nb) {
		for (i = 1; i < jobs && r->n; i++) {
			__u64 pfn = pfn_at(r, pages * i / jobs);

			pfn = (pfn + MS_SECTION_PAGES - 1) & ~(__u64)(MS_SECTION_PAGES - 1);
			if (pfn <= r->r[0].start || pfn >= r->r[r->n - 1].end ||
			    (nb && pfn <= bound[nb - 1]))
				continue;
			bound[nb++] = pfn;
		}
	}
	for (c = 0; c <= nb; c++) {
		chunks[c].r = calloc(r->n + nb + 1, sizeof(*chunks[c].r));
		if (!chunks[c].r)
			goto fail;
	}
	for (i = 0, c = 0; i < r->n; i++) {
		__u64 s = r->r[i].start, e = r->r[i].end;

		while (s < e) {
			__u64 stop;

			while (c < nb && s >= bound[c])
				c++;
			stop = c < nb && bound[c] < e ? bound[c] : e;
			chunks[c].r[chunks[c].n].start = s;
			chunks[c].r[chunks[c].n].end = stop;
			chunks[c].n++;
			chunks[c].pages += stop - s;
			s = stop;
		}
	}
	/* a boundary in a hole leaves a chunk empty: drop it */
	for (c = 0, n = 0; c <= nb; c++) {
		if (!chunks[c].n) {
			ms_ranges_free(&chunks[c]);
			continue;
		}
		chunks[n++] = chunks[c];
	}
	for (c = n; c <= nb; c++)
		memset(&chunks[c], 0, sizeof(chunks[c]));
	free(bound);
	return n;
fail:
	for (c = 0; c <= nb; c++)
		ms_ranges_free(&chunks[c]);
	free(bound);
	return 0;
}

void ms_worker_start(pthread_t *tid, void *(*fn)(void *), void *w)
{
	if (pthread_create(tid, NULL, fn, w)) {
		*tid = 0;
		fn(w);
	}
}

void ms_worker_join(pthread_t *tid)
{
	if (*tid) {
		pthread_join(*tid, NULL);
		*tid = 0;
	}
}

void ms_result_add(struct ms_result *sum, const struct ms_result *part)
{
	int j;

	for (j = 0; j < MS_NR_SUBS; j++)
		sum->sub[j] += part->sub[j];
	sum->holes += part->holes;
	sum->reads += part->reads;
	sum->mapping_lookups += part->mapping_lookups;
	sum->exec_unknown_mappings += part->exec_unknown_mappings;
}
