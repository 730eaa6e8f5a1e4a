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

/*
 * The path of the cgroup of kernfs_node kn into c, and its parent's kernfs_node into *up (0:
 * none); 0 or -ENOMEM. A parent the dump does not hold (or past MAX_DEPTH) makes the path
 * start with "(unreadable)": not a whole path.
 */
static int path_of(struct ms_dump *d, const struct ms_dump_types *t, __u64 kn, struct ms_cgroup *c,
		   __u64 *up)
{
	char names[MAX_DEPTH][MAX_NAME], path[MAX_DEPTH * MAX_NAME + 16] = "";
	__u64 node = kn, parent = 0;
	size_t depth = 0, at = 0;
	bool whole = false;

	c->parent = 0;
	*up = 0;
	while (depth < MAX_DEPTH) {
		if (ms_dump_read_virt(d, node + (__u64)t->kn_parent, &parent, sizeof(parent)))
			break;
		if (!parent) {
			whole = true;	/* the hierarchy's root: no name of its own in the path */
			break;
		}
		ms_dump_read_str(d, ms_dump_u64(d, node + (__u64)t->kn_name), names[depth], MAX_NAME);
		if (!depth) {
			__u64 pid = ms_dump_u64(d, parent + (__u64)t->kn_id);

			c->parent = pid >> 48 ? 0 : pid;
			*up = c->parent ? parent : 0;
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

/*
 * --tree: the ancestors of the cgroups met, each named as they are, up to the hierarchy's root
 * (none charged a page: a hierarchy's inner cgroups hold no pages of their own under cgroup v2).
 * c[0..n) is sorted by id; ups[i] is c[i]'s parent's kernfs_node. 0 or -ENOMEM.
 */
#define MAX_ADDED	4096	/* ancestors added, at most */

static bool known(const struct ms_cgroups *cg, size_t sorted, __u64 id)
{
	struct ms_cgroup key = { .id = id };

	if (bsearch(&key, cg->c, sorted, sizeof(*cg->c), by_id))
		return true;
	for (size_t i = sorted; i < cg->n; i++)
		if (cg->c[i].id == id)
			return true;
	return false;
}

static int add_ancestors(struct ms_dump *d, const struct ms_dump_types *t, struct ms_cgroups *cg,
			 __u64 **ups)
{
	size_t sorted = cg->n, cap = cg->n;

	for (size_t i = 0; i < cg->n && cg->n < sorted + MAX_ADDED; i++) {
		struct ms_cgroup *c;
		__u64 up = (*ups)[i];

		if (!up || !cg->c[i].parent || known(cg, sorted, cg->c[i].parent))
			continue;
		if (cg->n == cap) {
			struct ms_cgroup *nc = realloc(cg->c, (cap + 64) * sizeof(*nc));
			__u64 *nu = nc ? realloc(*ups, (cap + 64) * sizeof(*nu)) : NULL;

			if (nc)
				cg->c = nc;
			if (!nu)
				return -ENOMEM;
			*ups = nu;
			cap += 64;
		}
		c = &cg->c[cg->n];
		memset(c, 0, sizeof(*c));
		c->id = cg->c[i].parent;
		if (path_of(d, t, up, c, &(*ups)[cg->n]))
			return -ENOMEM;
		cg->n++;
	}
	return 0;
}

int ms_dump_cgroups_of(struct ms_dump *d, const struct ms_dump_types *t, const __u64 (*kn)[2],
		       size_t n, struct ms_cgroups *cg)
{
	struct pair {
		struct ms_cgroup c;
		__u64 up;
	} *pairs;
	__u64 *ups;
	size_t used = 0;
	int err = -ENOMEM;

	memset(cg, 0, sizeof(*cg));
	cg->version = 2;	/* memcg_data names the memory controller's cgroup either way */
	if (t->kn_parent < 0 || t->kn_name < 0 || t->kn_id < 0)
		return 0;	/* no names: the groups are named by id */
	for (size_t i = 0; i < n; i++)
		used += kn[i][0] != 0;
	cg->c = calloc(used ? used : 1, sizeof(*cg->c));
	ups = calloc(used ? used : 1, sizeof(*ups));
	if (!cg->c || !ups)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct ms_cgroup *c = &cg->c[cg->n];

		if (!kn[i][0])
			continue;
		c->id = kn[i][0];
		if (path_of(d, t, kn[i][1], c, &ups[cg->n]))
			goto out;
		cg->n++;
	}
	/* sorted by id, each with its parent's kernfs_node */
	pairs = malloc((cg->n ? cg->n : 1) * sizeof(*pairs));
	if (!pairs)
		goto out;
	for (size_t i = 0; i < cg->n; i++) {
		pairs[i].c = cg->c[i];
		pairs[i].up = ups[i];
	}
	qsort(pairs, cg->n, sizeof(*pairs), by_id);	/* c is the first member */
	for (size_t i = 0; i < cg->n; i++) {
		cg->c[i] = pairs[i].c;
		ups[i] = pairs[i].up;
	}
	free(pairs);
	err = add_ancestors(d, t, cg, &ups);
	if (!err)
		qsort(cg->c, cg->n, sizeof(*cg->c), by_id);
out:
	free(ups);
	if (err)
		ms_cgroups_free(cg);
	return err;
}
