// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --by cgroup of a dump: the dumped system's memory cgroups named from the dump itself, not from
 * this machine's /sys/fs/cgroup. A cgroup's path is its kernfs_node's name and those of its
 * parents up to the hierarchy's root (whose node has no parent and an empty name), as the
 * kernel builds it (kernfs_path_from_node()). Everything read is bounded: a corrupt dump gives
 * a short or empty name, never a loop.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "dump_walk.h"

#define MAX_DEPTH	64	/* a cgroup's ancestors followed, at most */
#define MAX_NAME	256	/* bytes of one name (NAME_MAX + 1) */

/* the NUL-terminated string at va, at most len - 1 bytes, up to a page the dump lacks */
static void read_name(struct ms_dump *d, __u64 va, char *out, size_t len)
{
	size_t n = 0;

	while (va && n < len - 1) {
		size_t chunk = 4096 - (size_t)((va + n) & 4095);

		if (chunk > len - 1 - n)
			chunk = len - 1 - n;
		if (ms_dump_read_virt(d, va + n, out + n, chunk))
			break;
		if (memchr(out + n, 0, chunk))
			return;
		n += chunk;
	}
	out[n] = 0;
}

/*
 * The path of the cgroup of kernfs_node kn into c; 0 or -ENOMEM. A parent the dump does not
 * hold (or past MAX_DEPTH) makes the path start with "(unreadable)": not a whole path.
 */
static int path_of(struct ms_dump *d, const struct ms_dump_types *t, __u64 kn, struct ms_cgroup *c)
{
	char names[MAX_DEPTH][MAX_NAME], path[MAX_DEPTH * MAX_NAME + 16] = "";
	__u64 node = kn, parent = 0;
	size_t depth = 0, at = 0;
	bool whole = false;

	c->parent = 0;
	while (depth < MAX_DEPTH) {
		if (ms_dump_read_virt(d, node + (__u64)t->kn_parent, &parent, sizeof(parent)))
			break;
		if (!parent) {
			whole = true;	/* the hierarchy's root: no name of its own in the path */
			break;
		}
		read_name(d, ms_dump_u64(d, node + (__u64)t->kn_name), names[depth], MAX_NAME);
		if (!depth) {
			__u64 pid = ms_dump_u64(d, parent + (__u64)t->kn_id);

			c->parent = pid >> 48 ? 0 : pid;
		}
		depth++;
		node = parent;
	}
	if (!whole)
		at = (size_t)snprintf(path, sizeof(path), "(unreadable)");
	for (size_t i = depth; i-- > 0 && at < sizeof(path);)
		at += (size_t)snprintf(path + at, sizeof(path) - at, "/%s", names[i]);
	c->depth = (unsigned int)depth;
	c->path = strdup(depth || !whole ? path : "/");
	return c->path ? 0 : -ENOMEM;
}

static int by_id(const void *a, const void *b)
{
	const struct ms_cgroup *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int ms_dump_cgroups_of(struct ms_dump *d, const struct ms_dump_types *t, const __u64 (*kn)[2],
		       size_t n, struct ms_cgroups *cg)
{
	size_t used = 0;

	memset(cg, 0, sizeof(*cg));
	cg->version = 2;	/* memcg_data names the memory controller's cgroup either way */
	if (t->kn_parent < 0 || t->kn_name < 0 || t->kn_id < 0)
		return 0;	/* no names: the groups are named by id */
	for (size_t i = 0; i < n; i++)
		used += kn[i][0] != 0;
	cg->c = calloc(used ? used : 1, sizeof(*cg->c));
	if (!cg->c)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct ms_cgroup *c = &cg->c[cg->n];

		if (!kn[i][0])
			continue;
		c->id = kn[i][0];
		if (path_of(d, t, kn[i][1], c)) {
			ms_cgroups_free(cg);
			return -ENOMEM;
		}
		cg->n++;
	}
	qsort(cg->c, cg->n, sizeof(*cg->c), by_id);
	return 0;
}
