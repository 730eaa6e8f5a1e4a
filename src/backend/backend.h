/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The backends (bpf, the kernel module, /proc/kpageflags), their interface and the parallel walk. */
#ifndef MEMSTAT_BACKEND_H
#define MEMSTAT_BACKEND_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "memstat_int.h"

/*
 * Parallel walks (-j/--jobs). Present memory is cut into at most `jobs` chunks of whole
 * memory sections, balanced by pages, each walked by its own worker with its own state.
 * 0 asks for ms_jobs_auto().
 */
#define MS_JOBS_MAX 256
/*
 * memstat's own memory stays under 64 MiB whatever the CPU count or --jobs: each BPF worker has its
 * own copy of the walk program's state (about 2.5 MiB, bpf/memstat.bpf.c), and the workers' copies
 * together get at most MS_WORKERS_MEM; the rest of memstat holds about 14 MiB.
 */
#define MS_WORKERS_MEM (48ULL << 20)
/*
 * The CPUs, but no more than one worker per MS_SECTIONS_PER_JOB present sections (2 GiB), a
 * one-shot run as periodic sampling: an extra worker costs its state and its thread, not a
 * verification (docs/backends.md, "Parallel walk").
 */
#define MS_SECTIONS_PER_JOB 16
unsigned int ms_jobs_auto(const struct ms_ranges *r);
/*
 * Cut r into at most jobs chunks (chunks[] has room for jobs), in pfn order: returns how many
 * (0: out of memory). Each chunk owns its array: free each with ms_ranges_free().
 */
size_t ms_split_chunks(const struct ms_ranges *r, unsigned int jobs, struct ms_ranges *chunks);
/*
 * A worker of a parallel walk: ms_worker_start() runs fn(w) in a thread of its own, or here and
 * now when no thread can be had (*tid is then 0); ms_worker_join() waits for it.
 */
void ms_worker_start(pthread_t *tid, void *(*fn)(void *), void *w);
void ms_worker_join(pthread_t *tid);
/* Add a worker's counts (sub-classes, holes, reads, mapping lookups) to the walk's. */
void ms_result_add(struct ms_result *sum, const struct ms_result *part);

/* BPF backend. */
struct ms_bpf;
#define MS_BPF_ALLPAGES 0x1	/* set up the per-page records of ms_bpf_dump() */
#define MS_BPF_ONE_WALK 0x2	/* one walk: no periodic section cache (get_deferred unloaded) */
/* the most workers a walk may use (their states are made at open): 0 or 1, one */
#define MS_BPF_WORKERS(n) ((unsigned int)(n) << 16)
#define MS_BPF_WORKERS_OF(flags) ((flags) >> 16)
/* Returns an MS_EXIT_* code; on failure *why says what failed, in one line. */
int ms_bpf_open(struct ms_bpf **out, unsigned int flags, char *why, size_t whylen);
int ms_bpf_dump(struct ms_bpf *b, const struct ms_ranges *ranges, struct ms_result *res,
		ms_page_fn fn, void *arg);
int ms_bpf_walk(struct ms_bpf *b, const struct ms_ranges *ranges, struct ms_result *res,
		ms_run_fn fn, void *arg);
const struct ms_features *ms_bpf_features(const struct ms_bpf *b);
/* memstat's own mapped BPF maps: res->own_maps_* */
void ms_bpf_own_maps(struct ms_result *res);
/* Workers of the following walks: 0 (the default) ms_jobs_auto(), 1 a serial walk. */
void ms_bpf_set_jobs(struct ms_bpf *b, unsigned int jobs);
/* Reuse the counts of still-uninitialised sections between walks (default on). */
void ms_bpf_set_cache(struct ms_bpf *b, bool on);
/* true when the walker tests uninitialised batches with bpf_rdonly_cast (v6.2+) */
bool ms_bpf_has_cast(const struct ms_bpf *b);
void ms_bpf_free(struct ms_bpf *b);

/* Kernel module backend (kmod/memstat.ko, /dev/memstat). */
struct ms_kmod;
int ms_kmod_open(struct ms_kmod **out, char *why, size_t whylen);
int ms_kmod_walk(struct ms_kmod *k, const struct ms_ranges *ranges, struct ms_result *res,
		 ms_run_fn run_fn, ms_page_fn page_fn, void *arg);
const struct ms_features *ms_kmod_features(const struct ms_kmod *k);
void ms_kmod_set_raw_pointers(struct ms_kmod *k, bool raw);
/* -a: the records keep a large folio's counters (its first tail page's), not its pointers */
void ms_kmod_set_folio_counters(struct ms_kmod *k, bool on);
/* Workers (a file descriptor each) of the following counting walks: as ms_bpf_set_jobs() */
void ms_kmod_set_jobs(struct ms_kmod *k, unsigned int jobs);
void ms_kmod_free(struct ms_kmod *k);

/* The backend asked for with --backend. */
enum ms_backend_choice { MS_BE_AUTO, MS_BE_BPF, MS_BE_KMOD, MS_BE_KPF };
/*
 * The backend opened: what every caller asks of it goes through its ops (backend.c), whichever
 * it is. bpf and kmod are that backend's own state, for what only it can do (the bpf backend's
 * --approx walk and file names, the module's pointer words); neither is set for kpageflags.
 */
struct ms_backend;
struct ms_backend_ops {
	const char *name;	/* as --backend names it */
	/* the counting walk: res, and fn(arg, ...) for every run of one sub-class (fn NULL: none) */
	int (*walk)(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		    ms_run_fn fn, void *arg);
	/* the record walk (ms_backend_pages()); NULL: the backend has no records */
	int (*pages)(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		     ms_page_fn fn, void *arg);
	/* the kernel layout it found; NULL: it reads none (kpageflags) */
	const struct ms_features *(*features)(const struct ms_backend *be);
	/* workers of the following counting walks (0: ms_jobs_auto()) */
	void (*set_jobs)(struct ms_backend *be, unsigned int jobs);
	void (*close)(struct ms_backend *be);
};
struct ms_backend {
	const struct ms_backend_ops *ops;	/* NULL until opened */
	struct ms_bpf *bpf;
	struct ms_kmod *kmod;
	unsigned int jobs;			/* kpageflags: its readers */
};
int ms_backend_parse(const char *name, enum ms_backend_choice *out);
int ms_backend_open(enum ms_backend_choice c, unsigned int bpf_flags, bool kpf_ok,
		    struct ms_backend *be, char *why, size_t whylen, char *fallback, size_t flen);
void ms_backend_close(struct ms_backend *be);
/* be->ops->walk(); on failure the reason was printed (MS_EXIT_*) */
int ms_backend_walk(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		    ms_run_fn fn, void *arg);
/* the layout the backend found, NULL for kpageflags */
const struct ms_features *ms_backend_features(const struct ms_backend *be);
void ms_backend_set_jobs(struct ms_backend *be, unsigned int jobs);
/*
 * Every present page's record (struct ms_page_rec), in pfn order, from the open bpf (opened
 * with MS_BPF_ALLPAGES) or kmod backend; -EOPNOTSUPP with neither (kpageflags). backend.c.
 */
int ms_backend_pages(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		     ms_page_fn fn, void *arg);

/* /proc/kpageflags backend. */
int ms_kpf_walk(const char *path, const struct ms_ranges *ranges, struct ms_result *res,
		ms_run_fn fn, void *arg, char *why, size_t whylen);
/* The same with up to jobs readers in parallel (0: ms_jobs_auto()); ms_kpf_walk() is one. */
int ms_kpf_walk_jobs(const char *path, const struct ms_ranges *ranges, struct ms_result *res,
		     ms_run_fn fn, void *arg, unsigned int jobs, char *why, size_t whylen);
/* Classify one /proc/kpageflags word; prev is the sub-class of the last head (for tails). */
enum ms_sub ms_kpf_classify(__u64 kpf, enum ms_sub prev_head);

#endif /* MEMSTAT_BACKEND_H */
