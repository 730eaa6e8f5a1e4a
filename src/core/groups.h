/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* memstat --by KEY: the group engine (groups.c) and its output (groups_out.c). */
#ifndef MEMSTAT_GROUPS_H
#define MEMSTAT_GROUPS_H

#include <stdbool.h>
#include <stdio.h>

#include "memstat_int.h"
#include "mountinfo.h"

/*
 * memstat --by KEY (groups.c; its header comment says how a key plugs in): each page of the
 * record walk (ms_backend_pages()) goes to one group of KEY.
 */
enum ms_by { MS_BY_CGROUP, MS_BY_NODE, MS_BY_ZONE, MS_BY_FS, MS_BY_FILE, MS_BY_EXEC, MS_NR_BY };
struct ms_group {
	__u64 k1, k2;		/* the key: node: node; zone: index into zones; fs: s_dev;
				 * cgroup: id; file, exec: s_dev, inode; ~0, ~0: "(none)" */
	__u64 sub[MS_NR_SUBS];	/* pages per sub-class */
	__u64 total;
	__u64 pinned;		/* -a: pages DMA-pinned (ms_groups_pinned()) */
	__u64 mapping;		/* file, exec: a head page's mapping pointer: NEVER printed */
	char *name;		/* the rows shown, after ms_groups_finish() (malloc'd) */
	void *extra;		/* a key's own facts (malloc'd, freed by the engine) */
};
struct ms_groups;
struct ms_by_key {
	const char *key_name;	/* the KEY of --by */
	size_t default_top;	/* --top's default; 0: all groups */
	bool (*key)(struct ms_groups *g, __u64 pfn, const struct ms_page_rec *r, __u64 *k1,
		    __u64 *k2);	/* false: the page has no key ("(none)") */
	int (*name)(struct ms_groups *g, struct ms_group *grp);	/* sets grp->name */
	void (*json)(FILE *out, const struct ms_groups *g, const struct ms_group *grp);
	void (*cols_head)(FILE *out);	/* extra table columns, or NULL */
	void (*cols)(FILE *out, const struct ms_groups *g, const struct ms_group *grp);
};
extern const struct ms_by_key ms_by_keys[MS_NR_BY];
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
	struct ms_mountinfo mounts;	/* fs: /proc/self/mountinfo (mountinfo.h) */
	const char *mountinfo_path;	/* NULL: /proc/self/mountinfo (the unit tests give another) */
	bool tree;			/* cgroup --tree: each row shows its subtree's pages */
	bool pinned;			/* -a: a Pinned column (ms_groups_pinned() fills it) */
	struct ms_cgroups *cgroups;	/* cgroup: the memory hierarchy (cgroup.c), read at finish */
};
int ms_by_parse(const char *s, enum ms_by *out);
struct ms_groups *ms_groups_new(enum ms_by by, size_t top);
int ms_groups_reset(struct ms_groups *g);
int ms_groups_page(void *arg, __u64 pfn, const struct ms_page_rec *r);	/* an ms_page_fn */
/*
 * -a: the attributes' verdict on a folio whose pages the groups were last given (an on_folio of
 * struct ms_attrs: the attributes must see each page before the groups do, so that a folio's
 * verdict comes while the groups' last group is still the folio's)
 */
void ms_groups_pinned(void *arg, __u64 first_pfn, __u64 npages, __u32 mask, __u8 sub);
int ms_groups_finish(struct ms_groups *g, const struct ms_result *res);	/* MS_EXIT_* */
void ms_groups_print(FILE *out, const struct ms_groups *g);
void ms_groups_json(FILE *out, const struct ms_groups *g, const struct ms_result *r);
/* "by":...,"groups":[...],"other":{...} without braces, for a JSON-lines row */
void ms_groups_json_fields(FILE *out, const struct ms_groups *g);
void ms_groups_prom(FILE *out, const struct ms_groups *g);
void ms_groups_free(struct ms_groups *g);

/*
 * --by cgroup and allpages --cgroup need to know what a user folio's memcg_data points to;
 * when the probe could not tell (memcg disabled, or a layout memstat does not know), every page
 * would land in "(none)": refuse instead. MS_EXIT_OK, or MS_EXIT_UNSUPPORTED with why.
 */
int ms_cgroups_knowable(const struct ms_features *f, char *why, size_t whylen);


/* ---- what groups.c and groups_out.c share ---- */

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
