/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the group engine (groups.c) and its output (groups_out.c) share beyond memstat_int.h. */
#ifndef MEMSTAT_GROUPS_H
#define MEMSTAT_GROUPS_H

#include <stdbool.h>
#include <stdio.h>

#include "memstat_int.h"

#define NONE_KEY (~0ULL)	/* k1 of the "(none)" group */

/* struct ms_group.extra of --by cgroup */
struct cgroup_extra {
	bool known, removed;	/* in the mount's view; removed (not in the view, nor elsewhere) */
	bool elsewhere;		/* a live cgroup outside the mount's view */
	unsigned int depth;	/* known: 0 for the root */
	__u64 parent;		/* known and not the root: the parent's id */
	bool tree;		/* --tree: sub[], total and pinned are the cgroup's and its descendants' */
	__u64 sub[MS_NR_SUBS];
	__u64 total, pinned;
};

/* "pages" (the classes and total) and "detail" (the sub-classes but unknown) of a group */
void ms_groups_json_pages(FILE *out, const struct ms_group *x);

#endif /* MEMSTAT_GROUPS_H */
