// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The BPF backend's walks: collect the exec mappings, then walk present memory one memory
 * section per bpf_prog_test_run, in parallel workers (each its own copy of the walk program),
 * with the cache of sections above the deferred-init boundary; and --approx's sampled walk.
 * Loading and detection are bpf_open.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "memstat_int.h"
#include "approx.h"
#include "backend.h"
#include "mountinfo.h"
#include "meminfo.h"
#include "testhooks.h"
#include "files.h"
#include "bpf_backend.h"

/* Run the task_vma iterator once: every VM_EXEC file mapping enters exec_set. */
static int collect_exec(struct ms_bpf *b)
{
	struct bpf_link *link;
	char buf[256];
	int fd;
	ssize_t n;

	link = bpf_program__attach_iter(b->skel->progs.collect_exec, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		int err = -errno;

		bpf_link__destroy(link);
		return err;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	bpf_link__destroy(link);
	return n < 0 ? -errno : 0;
}

static int emit_runs(const struct ms_bpf_walker *st, struct ms_run_merger *m)
{
	__u32 i, n = st->nruns;
	int err;

	for (i = 0; i < n && i < MS_MAX_RUNS; i++) {
		err = ms_merge_run(m, st->runs[i].pfn, st->runs[i].npages,
				(enum ms_sub)st->runs[i].sub);
		if (err)
			return err;
	}
	return 0;
}

/* Is [start, stop) a whole section entirely above its node's first_deferred_pfn? */
static bool section_deferred(const struct memstat_bpf *s, __u64 start, __u64 stop)
{
	__u32 n;

	if (start % MS_SECTION_PAGES || stop - start != MS_SECTION_PAGES)
		return false;
	for (n = 0; n < s->bss->nr_nodes_read && n < 64; n++)
		if (start >= s->bss->node_start[n] && start < s->bss->node_end[n])
			return start >= s->bss->node_deferred[n] && stop <= s->bss->node_end[n];
	return false;
}

/* Prepare the section cache for a counting walk; false when it cannot be used. */
static bool cache_begin(struct ms_bpf *b, const struct ms_ranges *ranges)
{
	struct ms_meminfo mi;
	size_t n;

	if (bpf_program__fd(b->skel->progs.get_deferred) < 0 ||
	    ms_bpf_run_prog(b->skel->progs.get_deferred) < 0 || !b->skel->bss->nr_nodes_read)
		return false;
	if (ms_meminfo_read("/proc/meminfo", &mi))
		return false;
	n = ranges->n ? (size_t)(ranges->r[ranges->n - 1].end / MS_SECTION_PAGES) + 1 : 0;
	if (!b->cache || b->ncache != n || mi.mem_total != b->cache_memtotal) {
		free(b->cache);
		b->cache = calloc(n, sizeof(*b->cache));
		b->ncache = b->cache ? n : 0;
		b->cache_memtotal = mi.mem_total;
	}
	return b->cache != NULL;
}

void ms_bpf_set_jobs(struct ms_bpf *b, unsigned int jobs)
{
	b->jobs = jobs;
}

/* Have workers 0 .. n-1 (n at most b->nwalkers), each on its element of the walkers map. */
static bool workers_ready(struct ms_bpf *b, size_t n)
{
	size_t i;

	if (n > b->nw) {
		struct ms_worker *nw = realloc(b->w, n * sizeof(*nw));

		if (!nw)
			return false;
		memset(nw + b->nw, 0, (n - b->nw) * sizeof(*nw));
		for (i = b->nw; i < n; i++) {
			nw[i].index = (__u32)i;
			nw[i].bss = (struct ms_bpf_walker *)((char *)b->walkers +
							     i * b->walkers_stride);
			nw[i].b = b;
			nw[i].ret = -1;
		}
		b->w = nw;
		b->nw = n;
	}
	return true;
}

/* A run of w's walk, kept for the caller's run_fn (merged in pfn order after the walk). */
static int worker_keep_runs(struct ms_worker *w)
{
	__u32 i, n = w->bss->nruns;

	for (i = 0; i < n && i < MS_MAX_RUNS; i++) {
		const struct ms_run *r = &w->bss->runs[i];

		if (w->nruns && w->runs[w->nruns - 1].sub == r->sub &&
		    w->runs[w->nruns - 1].pfn + w->runs[w->nruns - 1].npages == r->pfn) {
			w->runs[w->nruns - 1].npages += r->npages;
			continue;
		}
		if (w->nruns == w->runs_cap) {
			size_t cap = w->runs_cap ? 2 * w->runs_cap : 4096;
			struct ms_run *nr = realloc(w->runs, cap * sizeof(*nr));

			if (!nr) {
				snprintf(w->err, sizeof(w->err), "out of memory");
				return -1;
			}
			w->runs = nr;
			w->runs_cap = cap;
		}
		w->runs[w->nruns++] = *r;
	}
	return 0;
}

/* The walker's state at the start of a walk. */
/* A walker's state before a walk: no counts, nothing kept from the previous walk's batches. */
static void walker_reset(struct ms_bpf_walker *st, bool dump, bool dump_pages)
{
	memset(st->counts, 0, sizeof(st->counts));
	st->holes = 0;
	st->reads = 0;
	st->cache_misses = 0;
	st->last_mapping = 0;
	st->last_memcg_data = 0;
	st->cursor = 0;
	st->own_end = 0;
	st->dump = dump;
	st->dump_pages = dump_pages;
}

static void worker_begin(struct ms_worker *w, bool dump, bool dump_pages)
{
	walker_reset(w->bss, dump, dump_pages);
	memset(w->extra, 0, sizeof(w->extra));
	w->extra_holes = w->cached = 0;
	w->nruns = 0;
	w->ret = MS_EXIT_OK;
	w->err[0] = '\0';
}

/*
 * Walk w's chunk one section per program run. With page_fn (allpages; worker 0 alone), have
 * the walker record every page and hand over each.
 */
static int walk_chunk(struct ms_worker *w, ms_page_fn page_fn, void *arg)
{
	struct ms_bpf *b = w->b;
	struct ms_bpf_walker *bss = w->bss;
	const struct ms_ranges *ranges = w->chunk;
	int prog_fd = bpf_program__fd(b->cast ? b->skel->progs.walk_cast : b->skel->progs.walk);
	struct ms_walk_ctx ctx = { .worker = w->index };
	__u64 prev_end = 0;
	size_t i;
	int err, j;

	for (i = 0; i < ranges->n; i++) {
		__u64 start = ranges->r[i].start, end = ranges->r[i].end, step = w->section_pages;

		if (!i || start != prev_end) {	/* not contiguous: nothing carries over */
			bss->cursor = start;
			bss->own_start = bss->own_end = 0;
			/*
			 * The range may start inside a free block: let the first
			 * per-cpu-looking page check for one (ms_merged_into()).
			 */
			bss->wstate.free_end = start;
		}
		while (start < end) {
			__u64 stop = (start + step) & ~(step - 1), pfn;

			if (stop > end || stop <= start)
				stop = end;
			struct sec_cache *c = NULL;
			__u64 before[MS_NR_SUBS], holes_before = bss->holes;

			if (w->use_cache && start / MS_SECTION_PAGES < b->ncache) {
				c = &b->cache[start / MS_SECTION_PAGES];
				if (!section_deferred(b->skel, start, stop)) {
					c->valid = false;
					c = NULL;
				} else if (c->valid) {	/* unchanged since the last walk */
					for (j = 0; j < MS_NR_SUBS; j++)
						w->extra[j] += c->sub[j];
					w->extra_holes += c->holes;
					w->cached += stop - start;
					start = stop;
					continue;
				}
			}
			if (c)
				memcpy(before, bss->counts, sizeof(before));
			bss->walk_start = start;
			bss->walk_end = stop;
			bss->nruns = 0;
			{
				LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &ctx,
					    .ctx_size_in = sizeof(ctx));

				err = bpf_prog_test_run_opts(prog_fd, &opts);
				err = err ? -errno : (int)opts.retval;
			}
			if (err < 0) {
				snprintf(w->err, sizeof(w->err), "failed to run the page walk at pfn "
					 "%#llx: %s", (unsigned long long)start, strerror(-err));
				return MS_EXIT_FAIL;
			}
			if (err > 0) {	/* memstat.bpf.c walk_end_check(): never a partial count */
				snprintf(w->err, sizeof(w->err), "the page walk of pfns %#llx-%#llx "
					 "stopped short at pfn %#llx (%s)", (unsigned long long)start,
					 (unsigned long long)stop - 1, (unsigned long long)bss->cursor,
					 err == 1 ? "bpf_loop failed" : err == 2 ?
					 "out of loop iterations" : "no state for this worker");
				return MS_EXIT_FAIL;
			}
			if (c) {
				/* cache only what the boundary promises: uninitialised or reserved */
				c->valid = true;
				for (j = 0; j < MS_NR_SUBS; j++) {
					c->sub[j] = bss->counts[j] - before[j];
					if (c->sub[j] && j != MS_FREE_UNINIT && j != MS_KERNEL_RESERVED)
						c->valid = false;
				}
				c->holes = bss->holes - holes_before;
			}
			if (w->want_runs && worker_keep_runs(w))
				return MS_EXIT_FAIL;
			for (pfn = start; page_fn && pfn < stop; pfn++)
				if (page_fn(arg, pfn, &b->recs[pfn - start]))
					return MS_EXIT_FAIL;
			start = stop;
		}
		prev_end = end;
	}
	return MS_EXIT_OK;
}

static void *walk_chunk_thread(void *arg)
{
	struct ms_worker *w = arg;

	w->ret = walk_chunk(w, NULL, NULL);
	return NULL;
}

/*
 * Walk the ranges: split into chunks of whole sections, one per worker (ms_split_chunks()),
 * worker 0 in this thread. With run_fn, hand over runs of equal sub-class in pfn order, merged
 * across the workers' boundaries; with page_fn (allpages), one worker hands over every page.
 */
static int walk_ranges(struct ms_bpf *b, const struct ms_ranges *ranges, struct ms_result *res,
		       ms_run_fn run_fn, ms_page_fn page_fn, void *arg)
{
	struct memstat_bpf *s = b->skel;
	struct ms_run_merger merger = { run_fn, arg, 0, 0, MS_NR_SUBS };
	struct ms_ranges *chunks = NULL;
	size_t nalloc;
	__u64 section_pages = MS_SECTION_PAGES;
	unsigned int jobs = b->jobs ? b->jobs : ms_jobs_auto(ranges);
	const char *test_step;
	bool use_cache;
	double t0;
	size_t i, n = 0;
	int err, j, ret = MS_EXIT_FAIL;

	memset(res, 0, sizeof(*res));
	res->backend = "bpf";
	res->exec_known = true;
	res->exec_all_processes = ms_pid_ns_initial() != 0;	/* iter/task_vma: this PID namespace */
	res->uninit_known = true;
	res->slab_split = b->skel->bss->feat.slab_cache_word != 0;
	if (page_fn && !b->recs) {
		ms_err("internal: allpages needs ms_bpf_open(MS_BPF_ALLPAGES)");
		return MS_EXIT_FAIL;
	}
	if (page_fn || jobs < 1)
		jobs = 1;	/* allpages hands over pages in pfn order from this thread */
	if (jobs > MS_JOBS_MAX)
		jobs = MS_JOBS_MAX;
	if (jobs > b->nwalkers)
		jobs = b->nwalkers;	/* the states made at open (MS_BPF_WORKERS()) */
	nalloc = jobs;
	chunks = calloc(nalloc, sizeof(*chunks));
	if (chunks)
		n = ms_split_chunks(ranges, jobs, chunks);
	if (!n) {
		ms_err("out of memory");
		goto out;
	}
	if (!workers_ready(b, n))
		goto nomem;

	s->bss->generation = ++b->generation;
	s->bss->exec_vmas = 0;
	t0 = ms_now_ms();
	err = collect_exec(b);
	ms_timings.exec_set = ms_now_ms() - t0;
	if (err) {
		ms_err("failed to collect exec mappings with iter/task_vma: %s", strerror(-err));
		goto out;
	}

	/*
	 * One section per program run. MEMSTAT_TEST_WALK_PAGES (a power of 2; test builds only, and
	 * only for counting walks) asks for longer runs, so that a test can check that a run longer
	 * than the walker's loop is reported, not counted in part.
	 */
	test_step = ms_test_hook(MS_TEST_WALK_PAGES);
	if (test_step && !run_fn && !page_fn) {
		unsigned long long v = strtoull(test_step, NULL, 0);

		if (v && !(v & (v - 1)))
			section_pages = v;
	}
	use_cache = !run_fn && !page_fn && !b->no_cache && section_pages == MS_SECTION_PAGES &&
		    cache_begin(b, ranges);
	for (i = 0; i < n; i++) {
		struct ms_worker *w = &b->w[i];

		worker_begin(w, run_fn != NULL, page_fn != NULL);
		w->chunk = &chunks[i];
		w->section_pages = section_pages;
		w->use_cache = use_cache;
		w->want_runs = run_fn != NULL;
	}
	t0 = ms_now_ms();
	for (i = 1; i < n; i++)
		ms_worker_start(&b->w[i].tid, walk_chunk_thread, &b->w[i]);
	b->w[0].ret = walk_chunk(&b->w[0], page_fn, arg);
	for (i = 1; i < n; i++)
		ms_worker_join(&b->w[i].tid);
	res->walk_ms = ms_now_ms() - t0;
	ms_timings.walk = res->walk_ms;
	for (i = 0; i < n; i++) {
		struct ms_worker *w = &b->w[i];

		if (w->ret) {
			if (w->err[0])
				ms_err("%s", w->err);
			goto out;
		}
	}
	for (i = 0; run_fn && i < n; i++) {
		const struct ms_run *r = b->w[i].runs;
		size_t k, nr = b->w[i].nruns;

		for (k = 0; k < nr; k++)
			if (ms_merge_run(&merger, r[k].pfn, r[k].npages, (enum ms_sub)r[k].sub))
				goto out;
	}
	if (run_fn && ms_merge_flush(&merger))
		goto out;
	for (i = 0; i < n; i++) {
		struct ms_worker *w = &b->w[i];

		for (j = 0; j < MS_NR_SUBS; j++)
			res->sub[j] += w->bss->counts[j] + w->extra[j];
		res->holes += w->bss->holes + w->extra_holes;
		res->cached_pages += w->cached;
		res->reads += w->bss->reads;
		res->mapping_lookups += w->bss->cache_misses;
	}
	for (j = 0; j < MS_NR_SUBS; j++)
		res->total += res->sub[j];
	res->exec_mappings = s->bss->exec_vmas;
	res->jobs = (unsigned int)n;
	ret = MS_EXIT_OK;
	goto out;
nomem:
	ms_err("out of memory");
out:
	for (i = 0; chunks && i < nalloc; i++)
		ms_ranges_free(&chunks[i]);
	free(chunks);
	return ret;
}

int ms_bpf_walk(struct ms_bpf *b, const struct ms_ranges *ranges, struct ms_result *res,
		ms_run_fn fn, void *arg)
{
	return walk_ranges(b, ranges, res, fn, NULL, arg);
}

int ms_bpf_dump(struct ms_bpf *b, const struct ms_ranges *ranges, struct ms_result *res,
		ms_page_fn fn, void *arg)
{
	return walk_ranges(b, ranges, res, NULL, fn, arg);
}

/*
 * --approx: walk only the sampled clusters of the plan (approx.c), each with its own program
 * run, exactly as walk_ranges() walks a range that does not continue the previous one: the
 * walker counts exactly the pages of [walk_start, walk_end), a tail through its head and a
 * free block's interior through ms_merged_into(), and nothing carries from one cluster to the
 * next. Then estimate every class from the per-cluster counts.
 */
int ms_bpf_approx_walk(struct ms_bpf *b, const struct ms_approx_plan *plan, struct ms_result *res,
		       __u64 *y_out, ms_run_fn fn, void *arg)
{
	struct memstat_bpf *s = b->skel;
	struct ms_bpf_walker *st = b->walkers;	/* one worker: the first state */
	struct ms_walk_ctx ctx = { .worker = 0 };
	struct ms_run_merger merger = { fn, arg, 0, 0, MS_NR_SUBS };
	__u64 *y = y_out, reads = 0;
	double t0;
	size_t k;
	int err, j, ret = MS_EXIT_FAIL;

	memset(res, 0, sizeof(*res));
	res->backend = "bpf";
	res->exec_known = true;
	res->exec_all_processes = ms_pid_ns_initial() != 0;
	res->uninit_known = true;
	res->slab_split = s->bss->feat.slab_cache_word != 0;
	if (!y)
		y = calloc(plan->nclusters ? plan->nclusters : 1, MS_APPROX_NCAT * sizeof(*y));
	if (!y) {
		ms_err("out of memory");
		return MS_EXIT_FAIL;
	}
	s->bss->generation = ++b->generation;
	s->bss->exec_vmas = 0;
	t0 = ms_now_ms();
	err = collect_exec(b);
	if (err) {
		ms_err("failed to collect exec mappings with iter/task_vma: %s", strerror(-err));
		goto out;
	}
	ms_timings.exec_set = ms_now_ms() - t0;	/* --json "timings", as walk_ranges() */
	t0 = ms_now_ms();
	walker_reset(st, fn != NULL, false);
	for (k = 0; k < plan->nclusters; k++) {
		__u64 start = plan->c[k].start, stop = plan->c[k].end, sum = 0;
		__u64 before[MS_NR_SUBS], holes_before = st->holes, *row = y + k * MS_APPROX_NCAT;

		memcpy(before, st->counts, sizeof(before));
		/* a range of its own: nothing carries over; it may start inside a free block */
		st->cursor = start;
		st->own_start = st->own_end = 0;
		st->wstate.free_end = start;
		st->walk_start = start;
		st->walk_end = stop;
		st->nruns = 0;
		{
			LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &ctx,
				    .ctx_size_in = sizeof(ctx));

			err = bpf_prog_test_run_opts(bpf_program__fd(b->cast ? s->progs.walk_cast :
								      s->progs.walk), &opts);
			err = err ? -errno : (int)opts.retval;
		}
		if (err < 0) {
			ms_err("failed to run the page walk at pfn %#llx: %s",
			       (unsigned long long)start, strerror(-err));
			goto out;
		}
		if (err > 0) {
			ms_err("the page walk of pfns %#llx-%#llx stopped short at pfn %#llx",
			       (unsigned long long)start, (unsigned long long)stop - 1,
			       (unsigned long long)st->cursor);
			goto out;
		}
		for (j = 0; j < MS_NR_SUBS; j++) {
			row[j] = st->counts[j] - before[j];
			sum += row[j];
		}
		row[MS_NR_SUBS] = st->holes - holes_before;
		sum += row[MS_NR_SUBS];
		if (sum != stop - start) {	/* the estimator needs exactly the cluster's pages */
			ms_err("the page walk of pfns %#llx-%#llx counted %llu pages, not %llu",
			       (unsigned long long)start, (unsigned long long)stop - 1,
			       (unsigned long long)sum, (unsigned long long)(stop - start));
			goto out;
		}
		if (fn && emit_runs(st, &merger))
			goto out;
	}
	if (fn && ms_merge_flush(&merger))
		goto out;
	reads = st->reads;
	ms_approx_estimate(plan, y, res);
	res->walk_ms = ms_now_ms() - t0;
	ms_timings.walk = res->walk_ms;
	res->reads = reads;
	res->exec_mappings = s->bss->exec_vmas;
	res->mapping_lookups = st->cache_misses;
	ret = MS_EXIT_OK;
out:
	if (y != y_out)
		free(y);
	return ret;
}
