// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel module backend: /dev/memstat (kmod/), for kernels where BPF cannot be used. The
 * module walks one section per ioctl with the same classifier as the BPF walker.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "memstat_int.h"
#include "backend.h"

struct ms_kmod {
	int fd;
	struct ms_features feat;
	__u32 generation;
	struct ms_page_rec *recs;	/* one section's records (allpages, --runs) */
	bool raw_pointers;		/* allpages --raw-pointers: ask for the pointer words */
	bool folio_counters;		/* -a: ask for page[1]'s counter words (MS_KMOD_FOLIO_COUNTERS) */
	bool old_module;		/* the module refused them: raw pointers give them instead */
	unsigned int jobs;		/* workers asked for (0: ms_jobs_auto()) */
	int *wfd;			/* the files of workers 1, 2, ... (worker 0: fd) */
	size_t nwfd;
};

void ms_kmod_set_raw_pointers(struct ms_kmod *k, bool raw)
{
	k->raw_pointers = raw;
}

void ms_kmod_set_folio_counters(struct ms_kmod *k, bool on)
{
	k->folio_counters = on;
}

void ms_kmod_set_jobs(struct ms_kmod *k, unsigned int jobs)
{
	k->jobs = jobs;
}

int ms_kmod_open(struct ms_kmod **out, char *why, size_t whylen)
{
	struct ms_kmod *k;
	double t0;
	int fd, err;

	*out = NULL;
	t0 = ms_now_ms();
	fd = open(MS_KMOD_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == ENOENT)
			snprintf(why, whylen, "kernel module memstat is not loaded (%s is missing): "
				 "build it with 'make kmod KDIR=/lib/modules/$(uname -r)/build' and "
				 "load it with 'insmod kmod/memstat.ko'", MS_KMOD_DEVICE);
		else
			snprintf(why, whylen, "failed to open %s: %s", MS_KMOD_DEVICE, strerror(err));
		return err == EACCES || err == EPERM ? MS_EXIT_PERM : MS_EXIT_FAIL;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		close(fd);
		snprintf(why, whylen, "out of memory");
		return MS_EXIT_FAIL;
	}
	k->fd = fd;
	if (ioctl(fd, MS_KMOD_IOC_FEATURES, &k->feat)) {
		snprintf(why, whylen, "%s does not answer as memstat's module: %s", MS_KMOD_DEVICE,
			 strerror(errno));
		ms_kmod_free(k);
		return MS_EXIT_FAIL;
	}
	ms_timings.kmod_open += ms_now_ms() - t0;
	*out = k;
	return MS_EXIT_OK;
}

/*
 * One worker's chunk: one section per ioctl on fd (a file of its own: the module keeps the
 * walker's state per open file). Counts add into res; with recs, every page's record goes to
 * page_fn and run_fn. Errors go to err, said by the caller (workers run in threads).
 */
static int kmod_walk_chunk(struct ms_kmod *k, int fd, const struct ms_ranges *ranges,
			   struct ms_result *res, struct ms_page_rec *recs,
			   struct ms_run_merger *merger, ms_page_fn page_fn, void *arg,
			   char *err, size_t errlen)
{
	__u64 prev_end = ~0ULL;
	size_t i;
	int j;

	for (i = 0; i < ranges->n; i++) {
		__u64 start = ranges->r[i].start, end = ranges->r[i].end;

		while (start < end) {
			struct ms_kmod_walk w = {};
			__u64 stop = (start + MS_SECTION_PAGES) & ~(__u64)(MS_SECTION_PAGES - 1), pfn;

			if (stop > end || stop <= start)
				stop = end;
			w.start_pfn = start;
			w.end_pfn = stop;
			w.recs = recs ? (__u64)(unsigned long)recs : 0;
			w.generation = k->generation;
			w.flags = start != prev_end ? MS_KMOD_NEW_RANGE : 0;
			if (recs && (k->raw_pointers || (k->old_module && k->folio_counters)))
				w.flags |= MS_KMOD_RAW_POINTERS;
			else if (recs && k->folio_counters)
				w.flags |= MS_KMOD_FOLIO_COUNTERS;
			if (ioctl(fd, MS_KMOD_IOC_WALK, &w)) {
				/* a module older than this memstat: the counters come with the pointers */
				if (errno == EINVAL && (w.flags & MS_KMOD_FOLIO_COUNTERS)) {
					k->old_module = true;
					continue;
				}
				if (errno == EPERM && (w.flags & MS_KMOD_RAW_POINTERS)) {
					snprintf(err, errlen, "the kernel is locked down "
						 "(confidentiality): %s refuses %s", MS_KMOD_DEVICE,
						 k->raw_pointers ? "--raw-pointers; run without it" :
						 "the pointer words that -a needs from this module, "
						 "which is older than memstat: load memstat's own");
					return MS_EXIT_PERM;
				}
				snprintf(err, errlen, "failed to walk pfn %#llx with %s: %s%s",
					 (unsigned long long)start, MS_KMOD_DEVICE, strerror(errno),
					 errno == EBUSY ? " (another memstat is walking)" : "");
				return MS_EXIT_FAIL;
			}
			for (j = 0; j < MS_NR_SUBS; j++)
				res->sub[j] += w.counts[j];
			res->holes += w.holes;
			res->reads++;
			res->exec_mappings = w.exec_mappings;
			res->mapping_lookups += w.mapping_lookups;
			for (pfn = start; recs && pfn < stop; pfn++) {
				const struct ms_page_rec *r = &recs[pfn - start];

				if (page_fn && page_fn(arg, pfn, r)) {
					err[0] = '\0';
					return MS_EXIT_FAIL;
				}
				if (merger && r->valid && ms_merge_run(merger, pfn, 1, r->sub)) {
					err[0] = '\0';
					return MS_EXIT_FAIL;
				}
			}
			prev_end = stop;
			start = stop;
		}
	}
	return MS_EXIT_OK;
}

struct kmod_worker {
	struct ms_kmod *k;
	int fd;
	const struct ms_ranges *chunk;
	struct ms_result res;
	int ret;
	char err[256];
	pthread_t tid;
};

static void *kmod_worker_thread(void *arg)
{
	struct kmod_worker *w = arg;

	w->ret = kmod_walk_chunk(w->k, w->fd, w->chunk, &w->res, NULL, NULL, NULL, NULL, w->err,
				 sizeof(w->err));
	return NULL;
}

/* The file descriptors of workers 1 .. n-1 (worker 0 uses k->fd); false when one fails. */
static bool kmod_worker_fds(struct ms_kmod *k, size_t n)
{
	if (n - 1 > k->nwfd) {
		int *nf = realloc(k->wfd, (n - 1) * sizeof(*nf));

		if (!nf)
			return false;
		k->wfd = nf;
		while (k->nwfd < n - 1) {
			int fd = open(MS_KMOD_DEVICE, O_RDONLY | O_CLOEXEC);

			if (fd < 0)
				return false;
			k->wfd[k->nwfd++] = fd;
		}
	}
	return true;
}

int ms_kmod_walk(struct ms_kmod *k, const struct ms_ranges *ranges, struct ms_result *res,
		 ms_run_fn run_fn, ms_page_fn page_fn, void *arg)
{
	struct ms_run_merger merger = { run_fn, arg, 0, 0, MS_NR_SUBS };
	bool recs = run_fn || page_fn;
	unsigned int jobs = k->jobs ? k->jobs : ms_jobs_auto(ranges);
	struct kmod_worker *w = NULL;
	struct ms_ranges *chunks = NULL;
	double t0 = ms_now_ms();
	size_t i, n = 0;
	int j, ret = MS_EXIT_FAIL;

	memset(res, 0, sizeof(*res));
	res->backend = "kmod";
	res->exec_known = true;
	res->slab_split = k->feat.slab_cache_word != 0;
	res->exec_all_processes = true;	/* the module walks every process of the machine */
	res->uninit_known = true;
	if (recs && !k->recs) {
		k->recs = calloc(MS_SECTION_PAGES, sizeof(*k->recs));
		if (!k->recs) {
			ms_err("out of memory");
			return MS_EXIT_FAIL;
		}
	}
	k->generation++;
	/* records (--runs, allpages) are walked by one worker, in pfn order */
	if (recs || jobs < 1)
		jobs = 1;
	if (jobs > MS_JOBS_MAX)
		jobs = MS_JOBS_MAX;
	chunks = calloc(jobs, sizeof(*chunks));
	w = calloc(jobs, sizeof(*w));
	if (chunks && w)
		n = ms_split_chunks(ranges, jobs, chunks);
	if (!n) {
		ms_err("out of memory");
		goto out;
	}
	if (n > 1 && !kmod_worker_fds(k, n)) {
		ms_err("parallel walk unavailable (failed to open %s: %s); walking with one worker",
		       MS_KMOD_DEVICE, strerror(errno));
		k->jobs = 1;
		for (i = 0; i < jobs; i++)
			ms_ranges_free(&chunks[i]);
		n = ms_split_chunks(ranges, 1, chunks);
		if (!n) {
			ms_err("out of memory");
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		w[i].k = k;
		w[i].fd = i ? k->wfd[i - 1] : k->fd;
		w[i].chunk = &chunks[i];
	}
	for (i = 1; i < n; i++)
		ms_worker_start(&w[i].tid, kmod_worker_thread, &w[i]);
	w[0].ret = kmod_walk_chunk(k, k->fd, &chunks[0], &w[0].res, recs ? k->recs : NULL,
				   run_fn ? &merger : NULL, page_fn, arg, w[0].err, sizeof(w[0].err));
	for (i = 1; i < n; i++)
		ms_worker_join(&w[i].tid);
	for (i = 0; i < n; i++) {
		if (w[i].ret) {
			if (w[i].err[0])
				ms_err("%s", w[i].err);
			ret = w[i].ret;
			goto out;
		}
		ms_result_add(res, &w[i].res);
		res->exec_mappings = w[i].res.exec_mappings;
	}
	if (run_fn && ms_merge_flush(&merger))
		goto out;
	for (j = 0; j < MS_NR_SUBS; j++)
		res->total += res->sub[j];
	res->walk_ms = ms_now_ms() - t0;
	ms_timings.walk = res->walk_ms;
	res->jobs = (unsigned int)n;
	ret = MS_EXIT_OK;
out:
	for (i = 0; chunks && i < jobs; i++)
		ms_ranges_free(&chunks[i]);
	free(chunks);
	free(w);
	return ret;
}

const struct ms_features *ms_kmod_features(const struct ms_kmod *k)
{
	return &k->feat;
}

void ms_kmod_free(struct ms_kmod *k)
{
	if (!k)
		return;
	close(k->fd);
	for (size_t i = 0; i < k->nwfd; i++)
		close(k->wfd[i]);
	free(k->wfd);
	free(k->recs);
	free(k);
}
