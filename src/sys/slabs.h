/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * memstat --by slab: the slab caches' names, from the caches themselves (the bpf backend's
 * slab_name program), and their pages by /proc/slabinfo, to set beside the walk's (slabs.c).
 */
#ifndef MEMSTAT_SLABS_H
#define MEMSTAT_SLABS_H

#include "memstat_int.h"
#include "groups.h"
#include "backend.h"

/* ms_bpf_open(): also load slab_name (memstat --by slab) */
#define MS_BPF_SLABS 0x8
/*
 * Run slab_name for one cache (bpf_open.c): slot->cache in, the rest out. -EOPNOTSUPP when the
 * backend was opened without MS_BPF_SLABS; else 0 or -errno.
 */
int ms_bpf_slab_name(struct ms_bpf *b, struct ms_slab_slot *slot);

/* What slabs.c knows of a slab group (struct ms_group.extra). */
struct ms_slab_info {
	bool cache;			/* a cache (not a pseudo group): the rest is known */
	bool named;			/* the program read it (false: destroyed since the walk) */
	__u32 object_size, size;	/* the object as asked for; with metadata and alignment */
	long long slabinfo_pages;	/* /proc/slabinfo's num_slabs * pagesperslab; -1: absent */
};

/* /proc/slabinfo summed as slabtop(1) sums it (--compare slabtop) */
struct ms_slab_totals {
	unsigned long long caches, active_caches;	/* caches, and those with objects in use */
	unsigned long long objs, active_objs;		/* object slots, and those in use */
	unsigned long long size, active_size;		/* bytes: slots, in use, times slot size */
	unsigned long long pages;			/* num_slabs * pagesperslab */
};
/* 0, or -errno when path cannot be read or holds no cache line */
int ms_slabinfo_totals(const char *path, struct ms_slab_totals *t);

/* the backend whose slab_name names the caches (NULL, or no bpf: names unavailable) */
void ms_slabs_backend(struct ms_backend *be);
/* the group engine's name() of --by slab (groups.c) */
int ms_slab_name(struct ms_groups *g, struct ms_group *grp);
/*
 * The pages /proc/slabinfo (path) gives cache name: num_slabs * pagesperslab, or -1 when it is
 * not there or cannot be read.
 */
long long ms_slabinfo_pages(const char *path, const char *name);

#endif /* MEMSTAT_SLABS_H */
