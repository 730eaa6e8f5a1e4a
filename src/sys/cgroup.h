/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Memory cgroups by id (cgroup.c): the id the walk records for a page (struct ms_page_rec's
 * cgroup: kernfs_node.id of its memcg's cgroup, which on 64-bit is the inode number of the
 * cgroup's directory) named as the cgroup's path under the memory controller's hierarchy.
 */
#ifndef MEMSTAT_CGROUP_H
#define MEMSTAT_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

struct ms_cgroup {
	__u64 id;		/* inode number of the cgroup's directory */
	__u64 parent;		/* the parent's id; 0 for the hierarchy's root */
	unsigned int depth;	/* 0 for the root */
	uid_t uid;		/* the directory's owner (a delegated subtree's is its user) */
	char *path;		/* "/" for the root, "/a/b" below it */
};

struct ms_cgroups {
	int version;		/* 1: a cgroup v1 hierarchy with the memory controller,
				 * 2: the unified hierarchy, 0: none mounted */
	char *mount;		/* its mount point */
	char *root;		/* the cgroup the mount shows ("/" normally): prefixes the paths */
	__u64 dev;		/* st_dev of the mount */
	struct ms_cgroup *c;	/* sorted by id */
	size_t n;
};

/*
 * The mount of the memory controller's hierarchy in a mountinfo file: a v1 "cgroup" mount with
 * the "memory" option, else a "cgroup2" mount whose cgroup.controllers lists memory; a mount
 * showing the hierarchy's root first. 0 and *version 1 or 2, or -ENOENT (none mounted).
 */
int ms_cgroup_find_mount(const char *mountinfo, char **mount, char **root, int *version);
/* The same for controller ctrl ("freezer": v1 only, v2 has no such controller to list). */
int ms_cgroup_find_controller(const char *mountinfo, const char *ctrl, char **mount, char **root,
			      int *version);
/*
 * A process's cgroup path in a hierarchy, from the text of /proc/PID/cgroup (changed in
 * place): version 1, the line of the hierarchy with controller ctrl; version 2, the "0::" line.
 * "/" for the hierarchy's root. 0, -ENOENT (no such line) or -ENAMETOOLONG.
 */
int ms_cgroup_proc_path(char *text, int version, const char *ctrl, char *buf, size_t len);
/*
 * The directory of process pid's cgroup in the hierarchy with controller ctrl, as mounted
 * (find_controller on mountinfo): the mount point and the cgroup's path below the mount's root
 * ("/sys/fs/cgroup/memory/user.slice", "/sys/fs/cgroup" for the root), and the hierarchy's
 * version. 0; -ENOENT: no such hierarchy mounted, or the cgroup is outside what its mount
 * shows; -ENAMETOOLONG; -errno.
 */
int ms_cgroup_dir_of(const char *mountinfo, pid_t pid, const char *ctrl, char *dir, size_t len,
		     int *version);
/* Every cgroup directory under mount (one walk, stat() of each directory, no file). */
int ms_cgroups_scan(struct ms_cgroups *cg, const char *mount, const char *root);
/* find_mount("/proc/self/mountinfo") and scan; -ENOENT: no memory hierarchy mounted. */
int ms_cgroups_load(struct ms_cgroups *cg);
const struct ms_cgroup *ms_cgroups_find(const struct ms_cgroups *cg, __u64 id);
/* cgroup c's file (a memory.stat) of a loaded hierarchy into buf (ms_read_text()): 0 or -errno */
int ms_cgroup_read(const struct ms_cgroups *cg, const struct ms_cgroup *c, const char *file,
		   char *buf, size_t len);
void ms_cgroups_free(struct ms_cgroups *cg);
/*
 * --cgroup PATH|ID: a number is an id (a removed cgroup's too); a path is the cgroup's path as
 * memstat prints it ("/a/b", or "a/b"), or its directory ("/sys/fs/cgroup/memory/a/b").
 * 0, or -ENOENT (no such cgroup).
 */
int ms_cgroup_resolve(const struct ms_cgroups *cg, const char *arg, __u64 *id);
/* Where a cgroup id is: in the mount's directories, in a part of the hierarchy the mount does
 * not show (a container's cgroup namespace, a bind-mounted subtree), or removed. */
enum ms_cgroup_where { MS_CG_HERE, MS_CG_ELSEWHERE, MS_CG_REMOVED };
enum ms_cgroup_where ms_cgroup_where(const struct ms_cgroups *cg, __u64 id);
/*
 * The name of a group: the path, "(outside this view) id N" or "(removed) id N", or "id N"
 * when cg is NULL (no hierarchy mounted); malloc'd. where (if not NULL): which of the three
 * (MS_CG_HERE for cg NULL).
 */
char *ms_cgroup_name(const struct ms_cgroups *cg, __u64 id, enum ms_cgroup_where *where);

/*
 * --tree: hierarchical totals. Given the groups' own page counts (ids[i], own[i][MS_NR_SUBS]),
 * the rows in depth-first order (children by tree total, largest first): every cgroup with
 * pages in its subtree, each with its own and its subtree's pages. Ids not in the hierarchy
 * (removed cgroups) are roots of their own, after the hierarchy. Each row has nsub columns, of
 * which the first ncount are pages (the tree total, by which rows sort); the rest (attributes)
 * are only summed.
 */
struct ms_cgroup_row {
	__u64 id;
	__u64 parent;		/* 0: none known */
	unsigned int depth;
	bool removed;
	size_t group;		/* index of its group in the input, or (size_t)-1: no pages of its own */
	__u64 *tree;		/* nsub counts: itself and every descendant */
	__u64 tree_total;
};
int ms_cgroup_tree(const struct ms_cgroups *cg, const __u64 *ids, const __u64 *own, size_t n,
		   size_t nsub, size_t ncount, struct ms_cgroup_row **rows, size_t *nrows);
void ms_cgroup_rows_free(struct ms_cgroup_row *rows, size_t nrows);

#endif
