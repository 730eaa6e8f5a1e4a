/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One worker of the BPF walk: its whole state, an element of the `walkers` map (an array
 * indexed by worker, memory-mapped by user space). Every worker runs the same verified walk
 * program, which finds its element from the context of the run (struct ms_walk_ctx): a second
 * worker costs no verification. The fields walk.h uses have its struct ms_walker's names (this
 * type is the BPF walker's MS_WALKER_T); the rest are the BPF walker's own buffers and caches.
 * What all workers share (the layout, the walk's generation, the exec set) stays in .bss.
 */
#ifndef MEMSTAT_BPF_WALKER_H
#define MEMSTAT_BPF_WALKER_H

#include "memstat.h"
#include "classify.h"

/* the slab caches met in this walk generation, direct-mapped by address (memstat.bpf.c) */
#define MS_CACHE_BITS 10
#define MS_CACHE_SLOTS (1 << MS_CACHE_BITS)
/* the facts of the file mappings this worker saw, direct-mapped (memstat.bpf.c facts_of()) */
#define MS_FACT_BITS 16
#define MS_FACT_SLOTS (1 << MS_FACT_BITS)

/* the context of a run of the walk programs: which worker's state */
struct ms_walk_ctx {
	__u32 worker;
	__u32 pad;
};

struct ms_bpf_walker {
	/* set by user space before a call */
	__u64 walk_start, walk_end;	/* pfn range of this call */
	__u32 dump;			/* record runs of equal sub-class in runs[] */
	__u32 dump_pages;		/* allpages: every page into pagerecs */
	/* results */
	__u64 counts[MS_COUNTS];
	__u64 holes;			/* pages whose struct page could not be read */
	__u64 reads;			/* batches read */
	__u64 cache_misses;		/* mapping facts read from the kernel */
	__u32 nruns;
	__u32 visit_how;		/* how walk_cast reads the batch in hand */
	struct ms_run runs[MS_MAX_RUNS];
	/* carried between calls and batches (walk.h) */
	__u64 cursor;
	__u32 carry_sub;
	__u32 last_facts;
	__u64 last_mapping, last_ino;
	__u32 last_dev;
	__u32 own_dev, own_sub, own_order, own_role_head;
	__u32 pad;
	__u64 own_start, own_end, own_index, own_ino, own_cgroup, own_flags;
	__u64 last_memcg_data, last_cgroup;
	struct ms_walk_state wstate;
	/* the batch in hand, a head and its page[1], the page being visited and the next */
	__u64 buf[MS_BATCH_PAGES * MS_PAGE_WORDS];
	__u64 hbuf[2 * MS_PAGE_WORDS];
	__u64 pw[2 * MS_PAGE_WORDS];
	/* caches: slab caches' reclaimability, file mappings' facts */
	__u64 cache_addr[MS_CACHE_SLOTS];
	__u32 cache_gen[MS_CACHE_SLOTS];
	__u8 cache_reclaim[MS_CACHE_SLOTS];
	__u64 fact_mapping[MS_FACT_SLOTS];
	struct ms_mapping_facts fact_slot[MS_FACT_SLOTS];
};

#endif /* MEMSTAT_BPF_WALKER_H */
