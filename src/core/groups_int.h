/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The group engine's own: what groups.c and groups_out.c (and the unit tests) see of it. */
#ifndef MEMSTAT_GROUPS_INT_H
#define MEMSTAT_GROUPS_INT_H

#include <stdio.h>

#include "groups.h"
#include "mountinfo.h"
#include "pods.h"

struct ms_groups {
	enum ms_by by;
	const struct ms_by_key *key;
	size_t top;			/* rows shown besides "(none)"; 0: all */
	struct ms_group *g;		/* the groups, in order of first page */
	size_t n, cap;
	__u32 *slots;			/* open addressing: index + 1 into g, 0 empty */
	size_t nslots;
	size_t last;			/* index + 1 of the previous page's group */
	__u64 last_k1, last_k2;
	__u64 total;			/* pages put in groups */
	size_t *order, nshown;		/* after finish: the rows shown, sorted by total */
	struct ms_group other;		/* after finish: the rest, summed */
	size_t nother;
	const struct ms_result *res;
	struct ms_zone *zones;		/* node, zone: /proc/zoneinfo */
	size_t nzones, zi;
	bool zones_given;		/* ms_groups_set_zones(): a dump's, not /proc/zoneinfo */
	bool cgroups_given;		/* ms_groups_set_cgroups(): a dump's, not /sys/fs/cgroup */
	struct ms_mountinfo mounts;	/* fs: /proc/self/mountinfo (mountinfo.h) */
	const struct ms_mountinfo *mounts_given;	/* ms_groups_set_mounts(): a dump's */
	__u64 shm_dev;			/* with them: its internal tmpfs's device, 0 unknown */
	const char *mountinfo_path;	/* NULL: /proc/self/mountinfo (the unit tests give another) */
	bool tree;			/* cgroup --tree: each row shows its subtree's pages */
	const struct ms_attrs *attrs;	/* -a: attribute columns (ms_groups_folio_attrs() fills them) */
	const struct ms_wss *wss;	/* --wss: each group's verdicts (ms_groups_wss() counts them) */
	bool min_set;			/* --min: groups under min_pages go to (other) */
	__u64 min_pages;
	size_t nremoved;		/* of nother: removed cgroups hidden by default */
	struct ms_cgroups *cgroups;	/* cgroup: the memory hierarchy (cgroup.c), read at finish */
	const char *const *bundle_dirs;	/* pod: where the OCI bundles are (pods.h) */
	size_t nbundle_dirs;
	unsigned int slab_word;		/* slab: the record word of a slab's cache (0: unknown) */
	__u64 slab_head, slab_cache;	/* slab: the last slab head seen, and its cache */
};

#define NONE_KEY (~0ULL)	/* k1 of the "(none)" group */

/* struct ms_group.extra of --by cgroup */
struct cgroup_extra {
	bool known, removed;	/* in the mount's view; removed (not in the view, nor elsewhere) */
	bool elsewhere;		/* a live cgroup outside the mount's view */
	unsigned int depth;	/* known: 0 for the root */
	__u64 parent;		/* known and not the root: the parent's id */
	bool tree;		/* --tree: sub[], total, attr[] and wss[] are the cgroup's and its
				 * descendants' */
	__u64 sub[MS_NR_SUBS];
	__u64 total, attr[MS_NR_ATTRS];
	__u64 wss[MS_WSS_VERDICTS][MS_NR_CLASSES];
};

/* struct ms_group.extra of --by pod */
struct pod_extra {
	bool in_pod;		/* else removed, or outside the mount's view (as cgroup_extra) */
	bool removed, elsewhere;
	struct ms_pod_path path;	/* in_pod: the cgroup's pod and container */
	struct ms_pod_names names;	/* their names, when a bundle had them */
	char cgroup[];		/* the cgroup's path ("" when not in the view) */
};

/* to += from: pages per sub-class, total and attributes (the fold into (other), the table's
 * Total, --by pod's cgroups into their container) */
static inline void ms_group_add(struct ms_group *to, const struct ms_group *from)
{
	for (int j = 0; j < MS_NR_SUBS; j++)
		to->sub[j] += from->sub[j];
	to->total += from->total;
	for (int k = 0; k < MS_NR_ATTRS; k++)
		to->attr[k] += from->attr[k];
	for (int v = 0; v < MS_WSS_VERDICTS; v++)
		for (int c = 0; c < MS_NR_CLASSES; c++)
			to->wss[v][c] += from->wss[v][c];
	for (int t = 0; t < 2; t++)
		for (int v = 0; v < 2; v++)
			to->damon[t][v] += from->damon[t][v];
	to->damon_unmeasured += from->damon_unmeasured;
}

/* node: the node's pfn span, from its zones; fs: the mount that shows device dev, or NULL */
void ms_groups_node_span(const struct ms_groups *g, int node, __u64 *s, __u64 *e);
const struct ms_mountinfo_entry *ms_groups_mount_of(const struct ms_groups *g, __u64 dev);

#endif /* MEMSTAT_GROUPS_INT_H */
