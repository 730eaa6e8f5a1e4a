/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The multi-gen LRU (MGLRU, v6.1+): whether it runs, and each lruvec's generations as the kernel
 * prints them in /sys/kernel/debug/lru_gen_full (mglru.c). The first step of memstat's working
 * set (--wss): where each folio's generation sits in its flags is found from these counts
 * (src/core/mglru_bits.c).
 */
#ifndef MEMSTAT_MGLRU_H
#define MEMSTAT_MGLRU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/* MAX_NR_GENS (include/linux/mmzone.h, 6.1 to 7.x): a folio's flags hold gen + 1, in 3 bits */
#define MS_MGLRU_GENS 4

#define MS_MGLRU_ENABLED	"/sys/kernel/mm/lru_gen/enabled"
#define MS_MGLRU_FULL		"/sys/kernel/debug/lru_gen_full"

/* one generation of one lruvec: seq (its number), its age, its pages of each type */
struct ms_mglru_gen {
	__u64 seq, age_ms, anon, file;
	bool anon_gone, file_gone;	/* marked x: older than that type's min_seq (evicted) */
};

/* one lruvec: a memory cgroup's (its id, as lru_gen names it) on one node */
struct ms_mglru_lruvec {
	__u64 memcg_id;
	char *path;		/* the memcg's cgroup path as printed ("/", "/a/b"; "" for none) */
	int node;
	int ngens;
	struct ms_mglru_gen gen[MS_MGLRU_GENS];
};

struct ms_mglru {
	struct ms_mglru_lruvec *v;	/* in the file's order */
	size_t n;
	size_t *by_key;		/* v's indexes by memcg id, node, then the file's order */
};

/*
 * /sys/kernel/mm/lru_gen/enabled: 1 when MGLRU runs (bit 0, LRU_GEN_CORE), 0 when it is built
 * but off, -ENOENT when the kernel has none, -errno when it cannot be read.
 */
int ms_mglru_enabled(const char *path);
/*
 * Parse lru_gen_full's text ("memcg ID PATH", " node N", then one line per generation: seq,
 * age in ms, anon and file pages, each count perhaps marked; the lines of tiers and statistics
 * after each are skipped). 0, -EINVAL for text that is not that, -ENOMEM.
 */
int ms_mglru_parse(FILE *f, struct ms_mglru *m);
/* ms_mglru_parse() of the file at path (MS_MGLRU_FULL); -errno when it cannot be read */
int ms_mglru_read(const char *path, struct ms_mglru *m);
/*
 * Age one lruvec (lru_gen's "+ MEMCG NODE SEQ SWAPPINESS FORCE_SCAN" in ctl, the debugfs file
 * MS_MGLRU_CTL): a new youngest generation after SEQ, anon and file, every page table scanned
 * (force_scan: not only those the kernel's Bloom filters name). 0 or -errno (-EEXIST on 6.10+:
 * the kernel aged it meanwhile; -ENOENT: the memcg is gone).
 */
int ms_mglru_age(const char *ctl, __u64 memcg_id, int node, __u64 seq);
/*
 * The first lruvec in the file's order of memcg_id on node, or NULL: a binary search (a machine
 * may have thousands of memcgs, each looked up several times a window). Removed memcgs may share
 * an id (6.x prints 0 for them): the first is the one found.
 */
const struct ms_mglru_lruvec *ms_mglru_find(const struct ms_mglru *m, __u64 memcg_id, int node);
/* pages of every lruvec's generations, by gen = seq % MS_MGLRU_GENS */
void ms_mglru_by_gen(const struct ms_mglru *m, __u64 pages[MS_MGLRU_GENS]);
void ms_mglru_free(struct ms_mglru *m);

#endif /* MEMSTAT_MGLRU_H */
