// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fallback backend: /proc/kpageflags, the kernel's own per-page flag summary
 * (fs/proc/page.c; bit meanings in include/uapi/linux/kernel-page-flags.h). Slower (one
 * 8-byte word per page through a read), and blind to what no flag shows: exec mappings,
 * uninitialised struct pages, per-cpu free pages, vmalloc and other kernel memory all read as
 * "no flags". Those pages are reported as unidentified rather than guessed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"
#include "backend.h"

#define KPF(n)	(1ULL << (n))
#define KPF_SLAB		7
#define KPF_BUDDY		10
#define KPF_MMAP		11
#define KPF_ANON		12
#define KPF_SWAPCACHE		13
#define KPF_SWAPBACKED		14
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_HUGE		17
#define KPF_LRU			5
#define KPF_NOPAGE		20
#define KPF_KSM			21
#define KPF_OFFLINE		23
#define KPF_ZERO_PAGE		24
#define KPF_PGTABLE		26
#define KPF_RESERVED		32

#define KPF_CHUNK	65536	/* entries per read: 512 KiB, like tools/mm/page-types */

enum ms_sub ms_kpf_classify(__u64 k, enum ms_sub prev_head)
{
	/* 6.1/6.6 tails carry only some of the head's bits (docs/page-classes.md section 5.2) */
	if ((k & KPF(KPF_COMPOUND_TAIL)) && !(k & (KPF(KPF_BUDDY) | KPF(KPF_SLAB) | KPF(KPF_HUGE))) &&
	    prev_head != MS_NR_SUBS)
		return prev_head;
	if (k & KPF(KPF_BUDDY))
		return MS_FREE_BUDDY;
	if (k & KPF(KPF_HUGE))
		return MS_HUGETLB;
	/* slab and reserved: an object page of KFENCE's boot-time pool (classify.h) */
	if (k & KPF(KPF_SLAB))
		return (k & KPF(KPF_RESERVED)) ? MS_KERNEL_RESERVED : MS_KERNEL_SLAB;
	if (k & KPF(KPF_PGTABLE))
		return MS_KERNEL_PAGETABLE;
	if (k & KPF(KPF_OFFLINE))
		return MS_KERNEL_OFFLINE;
	if (k & (KPF(KPF_RESERVED) | KPF(KPF_ZERO_PAGE)))
		return MS_KERNEL_RESERVED;
	if (k & KPF(KPF_ANON)) {
		if (k & KPF(KPF_KSM))
			return MS_ANON_KSM;
		return (k & KPF(KPF_SWAPCACHE)) ? MS_ANON_SWAPCACHE : MS_ANON;
	}
	if (k & KPF(KPF_SWAPCACHE))
		return MS_FILE_SWAPCACHE;
	if (k & (KPF(KPF_LRU) | KPF(KPF_MMAP)))
		return (k & KPF(KPF_SWAPBACKED)) ? MS_SHMEM : MS_FILE;
	if (k & KPF(KPF_COMPOUND_HEAD))
		return MS_KERNEL_OTHER;	/* an unowned compound page: kmalloc_large and friends */
	return MS_UNKNOWN;
}

/* One worker's walk of its chunk: its own file descriptor and buffer. */
static int kpf_walk_chunk(const char *path, const struct ms_ranges *ranges, struct ms_result *res,
			  ms_run_fn fn, void *arg, char *why, size_t whylen)
{
	__u64 *buf;
	size_t i;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		snprintf(why, whylen, "failed to open %s: %s%s", path, strerror(err),
			 err == EACCES || err == EPERM ? " (missing CAP_SYS_ADMIN; run as root)" : "");
		return err == EACCES || err == EPERM ? MS_EXIT_PERM : MS_EXIT_FAIL;
	}
	buf = malloc(KPF_CHUNK * sizeof(*buf));
	if (!buf) {
		close(fd);
		snprintf(why, whylen, "out of memory");
		return MS_EXIT_FAIL;
	}
	for (i = 0; i < ranges->n; i++) {
		enum ms_sub head = MS_NR_SUBS, run_sub = MS_NR_SUBS;
		__u64 pfn = ranges->r[i].start, run_start = pfn;

		while (pfn < ranges->r[i].end) {
			__u64 want = ranges->r[i].end - pfn, j;
			ssize_t n;

			if (want > KPF_CHUNK)
				want = KPF_CHUNK;
			n = pread(fd, buf, want * 8, (off_t)(pfn * 8));
			res->reads++;
			if (n < 0) {
				int err = errno;

				snprintf(why, whylen, "failed to read %s at pfn %#llx: %s", path,
					 (unsigned long long)pfn, strerror(err));
				free(buf);
				close(fd);
				return err == EPERM ? MS_EXIT_PERM : MS_EXIT_FAIL;
			}
			if (n < 8) {	/* past get_max_dump_pfn(): no struct pages there */
				res->holes += ranges->r[i].end - pfn;
				break;
			}
			for (j = 0; j < (__u64)n / 8; j++, pfn++) {
				enum ms_sub s;

				if (buf[j] & KPF(KPF_NOPAGE)) {
					res->holes++;
					if (fn && run_sub != MS_NR_SUBS &&
					    fn(arg, run_start, pfn - run_start, run_sub))
						goto stop;
					run_sub = MS_NR_SUBS;
					continue;
				}
				s = ms_kpf_classify(buf[j], head);
				if (buf[j] & KPF(KPF_COMPOUND_HEAD))
					head = s;
				else if (!(buf[j] & KPF(KPF_COMPOUND_TAIL)))
					head = MS_NR_SUBS;
				res->sub[s]++;
				if (fn && s != run_sub) {
					if (run_sub != MS_NR_SUBS && fn(arg, run_start, pfn - run_start, run_sub))
						goto stop;
					run_sub = s;
					run_start = pfn;
				}
			}
		}
		if (fn && run_sub != MS_NR_SUBS && fn(arg, run_start, pfn - run_start, run_sub))
			goto stop;
	}
	free(buf);
	close(fd);
	return MS_EXIT_OK;
stop:
	free(buf);
	close(fd);
	snprintf(why, whylen, "stopped by the page consumer");
	return MS_EXIT_FAIL;
}

/* A parallel walk's worker: its counts, and its runs kept for the caller in pfn order. */
struct kpf_worker {
	const char *path;
	const struct ms_ranges *chunk;
	struct ms_result res;
	bool want_runs;
	struct { __u64 pfn, n; enum ms_sub sub; } *runs;
	size_t nruns, cap;
	int ret;
	char why[512];
	pthread_t tid;
};

static int kpf_keep_run(void *arg, __u64 pfn, __u64 npages, enum ms_sub sub)
{
	struct kpf_worker *w = arg;

	if (w->nruns == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 4096;
		void *nr = realloc(w->runs, cap * sizeof(*w->runs));

		if (!nr)
			return -1;
		w->runs = nr;
		w->cap = cap;
	}
	w->runs[w->nruns].pfn = pfn;
	w->runs[w->nruns].n = npages;
	w->runs[w->nruns].sub = sub;
	w->nruns++;
	return 0;
}

static void *kpf_worker_thread(void *arg)
{
	struct kpf_worker *w = arg;

	w->ret = kpf_walk_chunk(w->path, w->chunk, &w->res, w->want_runs ? kpf_keep_run : NULL, w,
				w->why, sizeof(w->why));
	return NULL;
}

/*
 * /proc/kpageflags read by up to jobs workers, each its own chunk of whole sections with its own
 * file descriptor (0: ms_jobs_auto()). A worker starts with no head in hand: only a folio larger
 * than a section crosses a chunk boundary, a gigantic hugetlb page, whose tails carry KPF_HUGE
 * themselves. Runs reach fn in pfn order, as from one reader.
 */
int ms_kpf_walk_jobs(const char *path, const struct ms_ranges *ranges, struct ms_result *res,
		     ms_run_fn fn, void *arg, unsigned int jobs, char *why, size_t whylen)
{
	struct ms_run_merger merger = { fn, arg, 0, 0, MS_NR_SUBS };
	struct ms_ranges *chunks = NULL;
	struct kpf_worker *w = NULL;
	double t0 = ms_now_ms();
	size_t i, k, n = 0;
	int j, ret = MS_EXIT_FAIL;

	memset(res, 0, sizeof(*res));
	res->backend = "kpageflags";
	if (!jobs)
		jobs = ms_jobs_auto(ranges);
	if (jobs > MS_JOBS_MAX)
		jobs = MS_JOBS_MAX;
	if (jobs <= 1) {
		ret = kpf_walk_chunk(path, ranges, res, fn, arg, why, whylen);
		n = 1;
		goto done;
	}
	chunks = calloc(jobs, sizeof(*chunks));
	w = calloc(jobs, sizeof(*w));
	if (chunks && w)
		n = ms_split_chunks(ranges, jobs, chunks);
	if (!n) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		w[i].path = path;
		w[i].chunk = &chunks[i];
		w[i].want_runs = fn != NULL;
	}
	for (i = 1; i < n; i++)
		ms_worker_start(&w[i].tid, kpf_worker_thread, &w[i]);
	kpf_worker_thread(&w[0]);
	for (i = 1; i < n; i++)
		ms_worker_join(&w[i].tid);
	for (i = 0; i < n; i++) {
		if (w[i].ret) {
			snprintf(why, whylen, "%s", w[i].why[0] ? w[i].why : "out of memory");
			ret = w[i].ret;
			goto out;
		}
		ms_result_add(res, &w[i].res);
	}
	/* a run that a chunk boundary cut in two is one run again, as from one reader */
	for (i = 0; fn && i < n; i++)
		for (k = 0; k < w[i].nruns; k++)
			if (ms_merge_run(&merger, w[i].runs[k].pfn, w[i].runs[k].n,
					 w[i].runs[k].sub)) {
				snprintf(why, whylen, "stopped by the page consumer");
				goto out;
			}
	if (fn && ms_merge_flush(&merger)) {
		snprintf(why, whylen, "stopped by the page consumer");
		goto out;
	}
	ret = MS_EXIT_OK;
done:
	if (!ret) {
		for (j = 0; j < MS_NR_SUBS; j++)
			res->total += res->sub[j];
		res->walk_ms = ms_now_ms() - t0;
		ms_timings.walk = res->walk_ms;
		res->jobs = (unsigned int)n;
	}
out:
	for (i = 0; chunks && i < jobs; i++)
		ms_ranges_free(&chunks[i]);
	for (i = 0; w && i < jobs; i++)
		free(w[i].runs);
	free(chunks);
	free(w);
	return ret;
}

int ms_kpf_walk(const char *path, const struct ms_ranges *ranges, struct ms_result *res,
		ms_run_fn fn, void *arg, char *why, size_t whylen)
{
	return ms_kpf_walk_jobs(path, ranges, res, fn, arg, 1, why, whylen);
}
