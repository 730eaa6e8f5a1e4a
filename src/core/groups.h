/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* memstat --by KEY: the group engine (groups.c) and its output (groups_out.c). */
#ifndef MEMSTAT_GROUPS_H
#define MEMSTAT_GROUPS_H

#include <stdbool.h>
#include <stdio.h>

#include "memstat_int.h"
#include "mountinfo.h"
#include "attrs.h"

/*
 * memstat --by KEY (groups.c; its header comment says how a key plugs in): each page of the
 * record walk (ms_backend_pages()) goes to one group of KEY.
 */
enum ms_by { MS_BY_CGROUP, MS_BY_NODE, MS_BY_ZONE, MS_BY_FS, MS_BY_FILE, MS_BY_EXEC, MS_BY_SLAB,
	     MS_BY_POD, MS_NR_BY };
struct ms_group {
	__u64 k1, k2;		/* the key: node: node; zone: index into zones; fs: s_dev;
				 * cgroup: id; pod: the container's (or pod's) cgroup id, or
				 * MS_POD_NONE_KEY (in no pod); file, exec: s_dev, inode; slab: the kmem_cache
				 * pointer (NEVER printed) or MS_SLAB_KEY_*; ~0, ~0: "(none)" */
	__u64 sub[MS_NR_SUBS];	/* pages per sub-class */
	__u64 total;
	__u64 attr[MS_NR_ATTRS];	/* -a: pages with each attribute (ms_groups_folio_attrs()) */
	__u64 wss[MS_WSS_VERDICTS][MS_NR_CLASSES];	/* --wss: pages per verdict and class */
	/* --wss on DAMON, --by cgroup: [anon, file-backed][accessed, idle] of the cgroups
	 * measured, and how many of the row's cgroups were not */
	__u64 damon[2][2];
	__u64 damon_unmeasured;
	__u64 mapping;		/* file, exec: a head page's mapping pointer: NEVER printed */
	char *name;		/* the rows shown, after ms_groups_finish() (malloc'd) */
	void *extra;		/* a key's own facts (malloc'd, freed by the engine) */
};
struct ms_groups;
struct ms_jw;
struct ms_by_key {
	const char *key_name;	/* the KEY of --by */
	size_t default_top;	/* --top's default; 0: all groups */
	bool (*key)(struct ms_groups *g, __u64 pfn, const struct ms_page_rec *r, __u64 *k1,
		    __u64 *k2);	/* false: the page has no key ("(none)") */
	int (*name)(struct ms_groups *g, struct ms_group *grp);	/* sets grp->name */
};
extern const struct ms_by_key ms_by_keys[MS_NR_BY];
int ms_by_parse(const char *s, enum ms_by *out);
/* the groups of one key, opaque to callers (groups_int.h is the engine's own) */
struct ms_groups *ms_groups_new(enum ms_by by, size_t top);
/* --by slab: the pseudo caches, and where a slab's record holds its cache (0: unknown) */
#define MS_SLAB_KEY_UNKNOWN 1ULL	/* a slab whose cache the walk could not read */
#define MS_SLAB_KEY_LARGE 2ULL		/* large kmalloc: no cache (6.15+ tell it apart) */
void ms_groups_set_slab_word(struct ms_groups *g, unsigned int word);
/* --by pod: the directories of the containers' OCI bundles (pods.h; NULL: the default ones) */
void ms_groups_set_bundle_dirs(struct ms_groups *g, const char *const *dirs, size_t n);
#define MS_POD_NONE_KEY (~0ULL - 1)	/* k1 of --by pod's "(not in a pod)": cgroups of no pod */
/* --by node|zone of a dump: its zones (owned by g from now), not /proc/zoneinfo's */
void ms_groups_set_zones(struct ms_groups *g, struct ms_zone *zones, size_t n);
/* --by cgroup of a dump: its cgroups (malloc'd, owned by g from now), not this machine's */
struct ms_cgroups;
void ms_groups_set_cgroups(struct ms_groups *g, struct ms_cgroups *cg);
/*
 * --by fs of a dump: its mounts (the caller's, kept until g is freed), not this machine's
 * mountinfo, and its internal tmpfs's device (0: unknown)
 */
void ms_groups_set_mounts(struct ms_groups *g, const struct ms_mountinfo *mi, __u64 shm_dev);
/* --by cgroup --tree: each row shows its subtree's pages */
void ms_groups_set_tree(struct ms_groups *g, bool on);
/*
 * --min: groups under min_pages go to "(other)" (never "(none)"). Without it (set false),
 * removed cgroups under MS_GROUPS_REMOVED_MIN do, counted apart (the table says how many).
 */
void ms_groups_set_min(struct ms_groups *g, bool set, __u64 min_pages);
#define MS_GROUPS_REMOVED_MIN (1ULL << 20)	/* bytes */
/* -a: each group's attributes (filled by ms_groups_folio_attrs()), as attrs tells them */
void ms_groups_set_attrs(struct ms_groups *g, const struct ms_attrs *attrs);
/* --wss: each group's pages accessed, idle and unseen (ms_groups_wss() counts them) */
struct ms_wss;
void ms_groups_set_wss(struct ms_groups *g, const struct ms_wss *w);
/* --wss: the verdict of the page ms_groups_page() was last given (enum ms_wss_verdict) */
void ms_groups_wss(struct ms_groups *g, int verdict, int cls);
/* the groups made so far (before ms_groups_finish() folds any), in order of first page */
size_t ms_groups_count(const struct ms_groups *g);
const struct ms_group *ms_groups_at(const struct ms_groups *g, size_t i);
int ms_groups_reset(struct ms_groups *g);
int ms_groups_page(void *arg, __u64 pfn, const struct ms_page_rec *r);	/* an ms_page_fn */
/*
 * -a: the attributes' verdict on a folio whose pages the groups were last given (an on_folio of
 * struct ms_attrs: the attributes must see each page before the groups do, so that a folio's
 * verdict comes while the groups' last group is still the folio's)
 */
void ms_groups_folio_attrs(void *arg, __u64 first_pfn, __u64 npages, __u32 mask, __u8 sub);
int ms_groups_finish(struct ms_groups *g, const struct ms_result *res);	/* MS_EXIT_* */
void ms_groups_print(FILE *out, const struct ms_groups *g);
void ms_groups_json(FILE *out, const struct ms_groups *g, const struct ms_result *r);
/* "by":...,"groups":[...],"other":{...} without braces, for a JSON-lines row */
void ms_groups_json_fields(struct ms_jw *w, const struct ms_groups *g);
/* the Prometheus series of n keys' groups (each metric's HELP and TYPE once) */
void ms_groups_prom(FILE *out, struct ms_groups *const *g, size_t n);
void ms_groups_free(struct ms_groups *g);

/*
 * --by cgroup and allpages --cgroup need to know what a user folio's memcg_data points to;
 * when the probe could not tell (memcg disabled, or a layout memstat does not know), every page
 * would land in "(none)": refuse instead. MS_EXIT_OK, or MS_EXIT_UNSUPPORTED with why.
 */
int ms_cgroups_knowable(const struct ms_features *f, char *why, size_t whylen);

#endif /* MEMSTAT_GROUPS_H */
