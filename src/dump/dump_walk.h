/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The page walk of a dump (dump_walk.c). */
#ifndef MEMSTAT_DUMP_WALK_H
#define MEMSTAT_DUMP_WALK_H

#include "dump.h"
#include "dump_types.h"

/*
 * Walk present memory r of dump d with types t: res (backend "dump"), and fn(arg, ...) for
 * every run of one sub-class in pfn order (NULL: none). jobs workers (0 or 1: one; runs are
 * one's). 0, or -ENOMEM / -EIO (fn failed).
 */
int ms_dump_walk(const struct ms_dump *d, const struct ms_dump_types *t,
		 const struct ms_ranges *r, unsigned int jobs, struct ms_result *res,
		 ms_run_fn fn, void *arg);

/*
 * allpages: the same walk, every page's record (include/memstat.h struct ms_page_rec) to
 * fn(arg, pfn, rec) in pfn order, one worker. 0, or -ENOMEM / -EIO (fn failed).
 */
int ms_dump_pages(const struct ms_dump *d, const struct ms_dump_types *t,
		  const struct ms_ranges *r, struct ms_result *res, ms_page_fn fn, void *arg);

/*
 * --by cgroup: the same, and the dumped kernel's cgroups that charged a page, in cg (paths
 * from their kernfs_nodes, ms_dump_cgroups_of()). 0, or -ENOMEM / -EIO.
 */
struct ms_cgroups;
int ms_dump_pages_cgroups(const struct ms_dump *d, const struct ms_dump_types *t,
			  const struct ms_ranges *r, struct ms_result *res, ms_page_fn fn,
			  void *arg, struct ms_cgroups *cg);
/*
 * The cgroups of slots kn[0..n) (an id and its kernfs_node each; id 0: empty slot) named from
 * the dump: each one's path up its kernfs_nodes' parents, its parent's id and its depth; into
 * cg, sorted by id (dump_cgroups.c). 0 or -ENOMEM.
 */
int ms_dump_cgroups_of(struct ms_dump *d, const struct ms_dump_types *t, const __u64 (*kn)[2],
		       size_t n, struct ms_cgroups *cg);

/*
 * --by fs|file|exec (dump_mounts.c): the mounts of the dumped system's initial namespace,
 * init_nsproxy's (its address), as /proc/1/mountinfo would list them, into out (empty where
 * its BTF lacks the types or init_nsproxy is 0); 0 or -ENOMEM.
 */
struct ms_mountinfo;
int ms_dump_mounts(struct ms_dump *d, const struct ms_dump_types *t, __u64 init_nsproxy,
		   struct ms_mountinfo *out);
/* The names of s->mapping's file up to its superblock's root, as bpf/names.bpf.h's path_one() */
void ms_dump_path_of(struct ms_dump *d, const struct ms_dump_types *t, struct ms_path_slot *s);

#endif /* MEMSTAT_DUMP_WALK_H */
