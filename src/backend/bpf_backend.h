/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the BPF backend's two files share: bpf_open.c loads the programs, detects the kernel's
 * layout and frees it all; bpf_backend.c walks, with one worker per chunk of memory.
 */
#ifndef MEMSTAT_BPF_BACKEND_H
#define MEMSTAT_BPF_BACKEND_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <bpf/libbpf.h>

#include "memstat_int.h"
#include "bpf_walker.h"
#include "memstat.skel.h"

struct ms_bpf {
	struct memstat_bpf *skel;
	__u32 generation;
	const struct ms_page_rec *recs;	/* allpages: the pagerecs map, memory-mapped */
	struct ms_path_slot *paths;	/* MS_BPF_PATHS: the paths map, memory-mapped */
	/*
	 * Periodic walks: the counts of each whole section that lay above its node's
	 * first_deferred_pfn. Struct pages there are all-zero or boot-reserved until the kernel
	 * initialises them, which moves the boundary up (mm/mm_init.c deferred_grow_zone()), so
	 * such a section's counts hold while it stays above the boundary. Freeing boot-reserved
	 * pages (HVO, a balloon) changes MemTotal: then every entry is dropped.
	 */
	struct sec_cache {
		bool valid;
		__u64 sub[MS_NR_SUBS];
		__u64 holes;
	} *cache;
	size_t ncache;
	long long cache_memtotal;
	bool no_cache;
	size_t recs_len;
	bool cast;		/* walk_cast loaded (the kernel has bpf_rdonly_cast) */
	unsigned int jobs;	/* workers asked for (0: ms_jobs_auto()) */
	/* the workers' states: the walkers map, memory-mapped (nwalkers elements of stride) */
	struct ms_bpf_walker *walkers;
	size_t walkers_len, walkers_stride;
	unsigned int nwalkers;
	struct ms_worker *w;	/* one per walker in use */
	size_t nw;
};

/*
 * One worker of a walk: it runs the one walk program with its index as the run's context, and
 * the program takes element i of the walkers map as its whole state (include/bpf_walker.h),
 * its cache of mapping facts included: nothing is shared between workers but the layout in
 * .bss and the exec_set map (an LRU hash, safe for concurrent use).
 */
struct ms_worker {
	__u32 index;
	struct ms_bpf_walker *bss;	/* its element of the walkers map */
	/* one walk */
	struct ms_bpf *b;
	const struct ms_ranges *chunk;
	__u64 section_pages;
	bool use_cache, want_runs;
	struct ms_run *runs;
	size_t nruns, runs_cap;
	__u64 extra[MS_NR_SUBS], extra_holes, cached;
	int ret;
	char err[256];
	pthread_t tid;
};

/* one run of a syscall program: its return value, or -errno */
int ms_bpf_run_prog(struct bpf_program *prog);
/* The ids in the kernel's BTF that the walker is loaded with (btf_cache.c, bpf_open.c) */
struct ms_kernel_ids {
	__u32 pt_regs;		/* struct pt_regs: the walker's pt_regs_btf_id */
	__u32 rdonly_cast;	/* the kfunc bpf_rdonly_cast; 0 before 6.2 (no walk_cast then) */
	__u32 iter_task_vma;	/* the function bpf_iter_task_vma: collect_exec's attach target */
};
/*
 * The CO-RE types cache (btf_cache.c): a descriptor of the running kernel's reduced BTF, its
 * name for libbpf's btf_custom_path in path and the kernel's ids, written first if root and
 * missing; -1: none, the whole BTF then, and ms_btf_kernel_ids() finds the ids in it (0, or
 * -ENOENT when a needed one is missing). ms_btf_cache_drop() removes the cache's files (one
 * that libbpf refused).
 */
int ms_btf_cache_open(char *path, size_t pathlen, struct ms_kernel_ids *ids);
int ms_btf_kernel_ids(struct ms_kernel_ids *ids);
/* ms_kernel_btf(): memstat_int.h */
void ms_btf_cache_drop(void);
/*
 * Open the walker (relocated against btf_path, NULL: the kernel's whole BTF) for
 * ms_bpf_load_skel(), the loader's program handlers registered first; NULL and errno on failure.
 * Load the opened walker with the kernel's ids: pt_regs_btf_id, walk_cast's calls of
 * bpf_rdonly_cast (core_fixes.bpf.h) and collect_exec's attach target, so that libbpf never
 * parses the kernel's whole BTF for them. memstat_bpf__load()'s return.
 */
struct memstat_bpf *ms_bpf_open_skel(const char *btf_path, __u32 kernel_log_level);
int ms_bpf_load_skel(struct memstat_bpf *skel, const struct ms_kernel_ids *ids);
/* what a worker holds of its own (its program, its .bss, its runs) */
void ms_bpf_worker_free(struct ms_worker *w);

#endif /* MEMSTAT_BPF_BACKEND_H */
