// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat --by KEY: the group engine. Each page of the per-page record walk
 * (ms_backend_pages(): the same single walk as memstat allpages) goes to exactly one group,
 * so the groups always add up to the walk's total.
 *
 * How it works:
 *   ms_groups_new(by, top)    once: the key, --top N (0: the key's default)
 *   ms_groups_reset(g)        before each walk (re-reads /proc/zoneinfo)
 *   ms_groups_page()          the ms_page_fn of the walk: computes the page's key with the
 *                             key's key() function; a page whose key equals the previous
 *                             page's goes to the cached group, else one lookup in an
 *                             open-addressing hash keyed by a u64 pair (k1, k2)
 *   ms_groups_finish(g, res)  after the walk: checks the groups add up to res->total, sorts by
 *                             total, keeps the top N (the pages-less "(none)" group, pages with
 *                             no key, is always shown and never folded), sums the rest into
 *                             "(other)", then names the rows shown (the key's name()), and
 *                             only those: a key whose names cost (dentries, cgroup paths) pays
 *                             for N rows, not for every group
 *   ms_groups_print/json/json_fields/prom   (groups_out.c) the table, --json, a JSON-lines
 *                             row's fields, the Prometheus series
 *
 * PLUGGING IN A KEY (cgroup, file, exec): each key is one row of by_keys[] below. Its
 *   key(g, pfn, rec, &k1, &k2)  returns false for a page with no key ("(none)"); rec->w[3] is
 *                               the raw mapping pointer: keep it in memory, never print it
 *                               (struct ms_group.mapping keeps the first head page's one)
 *   name(g, grp)                sets grp->name (malloc'd; freed by the engine); may set
 *                               grp->extra (malloc'd, freed by the engine) for its own fields
 * The engine calls nothing else of a key. What a key shows of its groups besides their pages (its
 * JSON members, its table columns) is its row of by_outs[] (src/out/groups_out.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "memstat_int.h"
#include "attrs.h"
#include "cgroup.h"
#include "files.h"
#include "slabs.h"
#include "pods.h"
#include "groups.h"
#include "groups_int.h"
#include "wss.h"

/* ---- keys ---- */

/* The zone holding pfn (a moving index: pages come in pfn order), or -1. */
static long zone_of(struct ms_groups *g, __u64 pfn)
{
	size_t k;

	if (g->zi < g->nzones && pfn >= g->zones[g->zi].start && pfn < g->zones[g->zi].end)
		return (long)g->zi;
	for (k = 0; k < g->nzones; k++)
		if (pfn >= g->zones[k].start && pfn < g->zones[k].end) {
			g->zi = k;
			return (long)k;
		}
	return -1;
}

static bool key_node(struct ms_groups *g, __u64 pfn, const struct ms_page_rec *r, __u64 *k1,
		     __u64 *k2)
{
	long z = zone_of(g, pfn);

	if (z < 0)
		return false;
	*k1 = (__u64)g->zones[z].node;
	*k2 = 0;
	return true;
}

static bool key_zone(struct ms_groups *g, __u64 pfn, const struct ms_page_rec *r, __u64 *k1,
		     __u64 *k2)
{
	long z = zone_of(g, pfn);

	if (z < 0)
		return false;
	*k1 = (__u64)z;
	*k2 = 0;
	return true;
}

/* a page of a file (page cache, exec, shmem, buffers): its superblock's s_dev and inode */
static bool has_file(const struct ms_page_rec *r)
{
	return r->ino || r->dev;
}

static bool key_fs(struct ms_groups *g, __u64 pfn, const struct ms_page_rec *r, __u64 *k1,
		   __u64 *k2)
{
	if (!has_file(r))
		return false;
	*k1 = r->dev;
	*k2 = 0;
	return true;
}

static bool key_cgroup(struct ms_groups *g, __u64 pfn, const struct ms_page_rec *r, __u64 *k1,
		       __u64 *k2)
{
	if (!r->cgroup)
		return false;
	*k1 = r->cgroup;
	*k2 = 0;
	return true;
}

static bool key_file(struct ms_groups *g, __u64 pfn, const struct ms_page_rec *r, __u64 *k1,
		     __u64 *k2)
{
	if (!has_file(r))
		return false;
	*k1 = r->dev;
	*k2 = r->ino;
	return true;
}

static bool key_exec(struct ms_groups *g, __u64 pfn, const struct ms_page_rec *r, __u64 *k1,
		     __u64 *k2)
{
	return r->sub == MS_EXEC && key_file(g, pfn, r, k1, k2);
}

/*
 * slab: a slab page's cache, the pointer in its head's record (pages come in pfn order: a tail
 * follows its head; one whose head the walk did not hand over, or whose head held no cache,
 * is MS_SLAB_KEY_UNKNOWN); large kmalloc pages are MS_SLAB_KEY_LARGE.
 */
static bool key_slab(struct ms_groups *g, __u64 pfn, const struct ms_page_rec *r, __u64 *k1,
		     __u64 *k2)
{
	*k2 = 0;
	if (r->sub == MS_KERNEL_LARGE_KMALLOC) {
		*k1 = MS_SLAB_KEY_LARGE;
		return true;
	}
	if (r->sub != MS_KERNEL_SLAB && r->sub != MS_KERNEL_SLAB_RECLAIM)
		return false;
	if (r->head_pfn == pfn) {
		g->slab_head = pfn;
		g->slab_cache = g->slab_word ? r->w[g->slab_word & 7] : 0;
	} else if (r->head_pfn != g->slab_head) {
		g->slab_head = ~0ULL;
		g->slab_cache = 0;
	}
	*k1 = g->slab_cache > MS_SLAB_KEY_LARGE ? g->slab_cache : MS_SLAB_KEY_UNKNOWN;
	return true;
}


/* node: the node's pfn span, from its zones */
void ms_groups_node_span(const struct ms_groups *g, int node, __u64 *s, __u64 *e)
{
	size_t k;

	*s = ~0ULL;
	*e = 0;
	for (k = 0; k < g->nzones; k++) {
		if (g->zones[k].node != node)
			continue;
		if (g->zones[k].start < *s)
			*s = g->zones[k].start;
		if (g->zones[k].end > *e)
			*e = g->zones[k].end;
	}
	if (*s > *e)
		*s = *e = 0;
}

static int name_node(struct ms_groups *g, struct ms_group *grp)
{
	grp->name = ms_strdupf("%llu", (unsigned long long)grp->k1);
	return grp->name ? 0 : -ENOMEM;
}

static int name_zone(struct ms_groups *g, struct ms_group *grp)
{
	const struct ms_zone *z = &g->zones[grp->k1];

	grp->name = ms_strdupf("%d/%s", z->node, z->name);
	return grp->name ? 0 : -ENOMEM;
}

/* fs: a mount of the superblock, from /proc/self/mountinfo (read at ms_groups_finish()) */
const struct ms_mountinfo_entry *ms_groups_mount_of(const struct ms_groups *g, __u64 dev)
{
	const struct ms_mountinfo *mi = g->mounts_given ? g->mounts_given : &g->mounts;
	const struct ms_mountinfo_entry *best = NULL;

	for (size_t k = 0; k < mi->n; k++) {
		const struct ms_mountinfo_entry *m = &mi->m[k];

		if (m->dev != dev)
			continue;
		if (!best || (!strcmp(m->root, "/") && strcmp(best->root, "/")))
			best = m;
	}
	return best;
}

/*
 * The device of the kernel's internal tmpfs (shm_mnt: memfds, SysV shared memory and
 * MAP_SHARED|MAP_ANONYMOUS mappings all live there), from a memfd of our own; 0 when unknown.
 */
static __u64 internal_tmpfs_dev(void)
{
	static __u64 dev = ~0ULL;
	struct stat st;
	int fd;

	if (dev != ~0ULL)
		return dev;
	dev = 0;
	fd = (int)syscall(SYS_memfd_create, "memstat-shm-dev", MFD_CLOEXEC);
	if (fd >= 0) {
		if (!fstat(fd, &st))
			dev = MS_MKDEV(major(st.st_dev), minor(st.st_dev));
		close(fd);
	}
	return dev;
}

/*
 * fs: a mount point; a superblock no mount shows gets what the walk can tell of it: the kernel's
 * internal tmpfs, the block devices' page cache (every page a buffer page), else "(not mounted)".
 */
static int name_fs(struct ms_groups *g, struct ms_group *grp)
{
	const struct ms_mountinfo_entry *m = ms_groups_mount_of(g, grp->k1);
	const char *name = "(not mounted)";

	if (m)
		name = m->point;
	else if (grp->k1 && grp->k1 == (g->mounts_given ? g->shm_dev : internal_tmpfs_dev()))
		name = "(internal tmpfs: memfd, SysV shm, shared anonymous)";
	else if (grp->total && grp->sub[MS_FILE_BUFFERS] == grp->total)
		name = "(block devices)";
	grp->name = strdup(name);
	return grp->name ? 0 : -ENOMEM;
}

/*
 * cgroup: the path under the memory controller's hierarchy (cgroup.c, read at
 * ms_groups_finish()); for an id in none of its directories "(outside this view) id N" (a
 * cgroup the mount does not show: a container's view) or "(removed) id N" (an offline memcg
 * still charged with pages: its own group); "id N" when no memory hierarchy is mounted.
 */

static int name_cgroup(struct ms_groups *g, struct ms_group *grp)
{
	const struct ms_cgroup *c = g->cgroups ? ms_cgroups_find(g->cgroups, grp->k1) : NULL;
	struct cgroup_extra *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	free(grp->extra);
	grp->extra = e;
	e->known = c != NULL;
	if (c) {
		e->depth = c->depth;
		e->parent = c->parent;
		grp->name = strdup(c->path);
	} else {
		enum ms_cgroup_where w;

		grp->name = ms_cgroup_name(g->cgroups, grp->k1, &w);
		e->elsewhere = w == MS_CG_ELSEWHERE;
		e->removed = w == MS_CG_REMOVED;
	}
	return grp->name ? 0 : -ENOMEM;
}

/* pod: each cgroup's group into its container's (or pod's), "(not in a pod)" or itself */
static size_t lookup(struct ms_groups *g, __u64 k1, __u64 k2);

static int pod_rekey(struct ms_groups *g)
{
	struct ms_group *old = g->g;
	size_t n = g->n;

	g->g = NULL;
	g->n = g->cap = 0;
	g->last = 0;
	if (g->slots)
		memset(g->slots, 0, g->nslots * sizeof(*g->slots));
	for (size_t i = 0; i < n; i++) {
		const struct ms_group *o = &old[i];
		__u64 k1 = o->k1, k2 = o->k2;
		size_t at;
		struct ms_group *x;

		if (!(k1 == NONE_KEY && k2 == NONE_KEY) && g->cgroups) {
			k1 = ms_pod_group_of(g->cgroups, k1);
			if (!k1)
				k1 = MS_POD_NONE_KEY;
		}
		at = lookup(g, k1, k2);
		if (!at) {
			free(old);
			return -ENOMEM;
		}
		x = &g->g[at - 1];
		ms_group_add(x, o);	/* mapping: only file and exec name by it */
	}
	free(old);
	return 0;
}

/*
 * --tree: the rows in depth-first order, each with its subtree's pages in its extra; cgroups
 * with no pages of their own but some below them become groups of no pages; removed cgroups
 * (their parent is unknown) follow the hierarchy, "(none)" comes last.
 */
/* summed up the tree: sub-classes, attributes, --wss's verdicts */
#define NWSS (MS_WSS_VERDICTS * MS_NR_CLASSES)
#define NCOLS (MS_NR_SUBS + MS_NR_ATTRS + NWSS)

static int cgroup_tree(struct ms_groups *g)
{
	size_t nk = 0, i, nrows = 0, n = 0, none = (size_t)-1, *idx, *order = NULL;
	__u64 *ids, *own;
	struct ms_cgroup_row *rows = NULL;
	int err = -ENOMEM;

	ids = malloc((g->n + 1) * sizeof(*ids));
	own = malloc((g->n + 1) * NCOLS * sizeof(*own));
	idx = malloc((g->n + 1) * sizeof(*idx));
	if (!ids || !own || !idx)
		goto out;
	for (i = 0; i < g->n; i++) {
		if (g->g[i].k1 == NONE_KEY && g->g[i].k2 == NONE_KEY) {
			none = i;
			continue;
		}
		ids[nk] = g->g[i].k1;
		memcpy(&own[nk * NCOLS], g->g[i].sub, sizeof(g->g[i].sub));
		memcpy(&own[nk * NCOLS + MS_NR_SUBS], g->g[i].attr, sizeof(g->g[i].attr));
		memcpy(&own[nk * NCOLS + MS_NR_SUBS + MS_NR_ATTRS], g->g[i].wss, sizeof(g->g[i].wss));
		idx[nk++] = i;
	}
	err = ms_cgroup_tree(g->cgroups, ids, own, nk, NCOLS, MS_NR_SUBS, &rows, &nrows);
	if (err)
		goto out;
	err = -ENOMEM;
	order = calloc(nrows + 1, sizeof(*order));
	if (!order)
		goto out;
	for (i = 0; i < nrows; i++) {
		size_t gi = rows[i].group != (size_t)-1 ? idx[rows[i].group] : lookup(g, rows[i].id, 0) - 1;
		struct ms_group *x;
		struct cgroup_extra *e;

		if (gi == (size_t)-1)
			goto out;
		x = &g->g[gi];
		if (!x->name && name_cgroup(g, x))
			goto out;
		e = x->extra;
		e->tree = true;
		memcpy(e->sub, rows[i].tree, sizeof(e->sub));
		memcpy(e->attr, &rows[i].tree[MS_NR_SUBS], sizeof(e->attr));
		memcpy(e->wss, &rows[i].tree[MS_NR_SUBS + MS_NR_ATTRS], sizeof(e->wss));
		e->total = 0;
		for (int j = 0; j < MS_NR_SUBS; j++)
			e->total += e->sub[j];
		order[n++] = gi;
	}
	if (none != (size_t)-1)
		order[n++] = none;
	free(g->order);
	g->order = order;
	g->nshown = n;
	order = NULL;
	err = 0;
out:
	ms_cgroup_rows_free(rows, nrows);
	free(order);
	free(ids);
	free(own);
	free(idx);
	return err;
}

const struct ms_by_key ms_by_keys[MS_NR_BY] = {
	[MS_BY_CGROUP] = { "cgroup", 0, key_cgroup, name_cgroup },
	[MS_BY_NODE] = { "node", 0, key_node, name_node },
	[MS_BY_ZONE] = { "zone", 0, key_zone, name_zone },
	[MS_BY_FS] = { "fs", 0, key_fs, name_fs },
	/* names from the kernel's dentries: files.c */
	[MS_BY_FILE] = { "file", 20, key_file, ms_file_name },
	[MS_BY_EXEC] = { "exec", 20, key_exec, ms_file_name },
	/* names from the caches themselves: slabs.c */
	[MS_BY_SLAB] = { "slab", 20, key_slab, ms_slab_name },
	/* the cgroup's id while walking; pod_rekey() at the end */
	[MS_BY_POD] = { "pod", 0, key_cgroup, ms_pod_name },
};

void ms_groups_set_zones(struct ms_groups *g, struct ms_zone *zones, size_t n)
{
	free(g->zones);
	g->zones = zones;
	g->nzones = n;
	g->zi = 0;
	g->zones_given = true;
}

void ms_groups_set_mounts(struct ms_groups *g, const struct ms_mountinfo *mi, __u64 shm_dev)
{
	g->mounts_given = mi;
	g->shm_dev = shm_dev;
}

void ms_groups_set_cgroups(struct ms_groups *g, struct ms_cgroups *cg)
{
	if (g->cgroups)
		ms_cgroups_free(g->cgroups);
	free(g->cgroups);
	g->cgroups = cg;
	g->cgroups_given = true;
}

void ms_groups_set_bundle_dirs(struct ms_groups *g, const char *const *dirs, size_t n)
{
	g->bundle_dirs = dirs ? dirs : ms_pod_bundle_dirs;
	g->nbundle_dirs = dirs ? n : ms_pod_nbundle_dirs;
}

void ms_groups_set_slab_word(struct ms_groups *g, unsigned int word)
{
	g->slab_word = word;
}

void ms_groups_set_tree(struct ms_groups *g, bool on)
{
	g->tree = on;
}

void ms_groups_set_wss(struct ms_groups *g, const struct ms_wss *w)
{
	g->wss = w;
}

void ms_groups_wss(struct ms_groups *g, int verdict, int cls)
{
	if (g->last && verdict >= 0 && verdict < MS_WSS_VERDICTS && cls >= 0 &&
	    cls < MS_NR_CLASSES)
		g->g[g->last - 1].wss[verdict][cls]++;
}

void ms_groups_set_attrs(struct ms_groups *g, const struct ms_attrs *attrs)
{
	g->attrs = attrs;
}

size_t ms_groups_count(const struct ms_groups *g)
{
	return g->n;
}

const struct ms_group *ms_groups_at(const struct ms_groups *g, size_t i)
{
	return i < g->n ? &g->g[i] : NULL;
}

int ms_by_parse(const char *s, enum ms_by *out)
{
	int i;

	for (i = 0; i < MS_NR_BY; i++)
		if (!strcmp(s, ms_by_keys[i].key_name)) {
			*out = (enum ms_by)i;
			return 0;
		}
	return -1;
}

/* ---- the groups ---- */

struct ms_groups *ms_groups_new(enum ms_by by, size_t top)
{
	struct ms_groups *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->by = by;
	g->key = &ms_by_keys[by];
	g->top = top ? top : g->key->default_top;
	ms_groups_set_bundle_dirs(g, NULL, 0);
	return g;
}

void ms_groups_set_min(struct ms_groups *g, bool set, __u64 min_pages)
{
	g->min_set = set;
	g->min_pages = min_pages;
}

static void groups_clear(struct ms_groups *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->g[i].name);
		free(g->g[i].extra);
	}
	free(g->other.name);
	memset(&g->other, 0, sizeof(g->other));
	g->n = 0;
	g->nother = 0;
	g->nremoved = 0;
	if (g->slots)
		memset(g->slots, 0, g->nslots * sizeof(*g->slots));
	free(g->order);
	g->order = NULL;
	g->nshown = 0;
	g->last = 0;
	g->total = 0;
	g->res = NULL;
}

int ms_groups_reset(struct ms_groups *g)
{
	int err = 0;

	groups_clear(g);
	g->slab_head = ~0ULL;
	g->slab_cache = 0;
	if ((g->by == MS_BY_NODE || g->by == MS_BY_ZONE) && !g->zones_given) {
		free(g->zones);
		g->zones = NULL;
		err = ms_zones_read("/proc/zoneinfo", &g->zones, &g->nzones);
		g->zi = 0;
	}
	return err;
}

static __u64 mix(__u64 a, __u64 b)
{
	__u64 x = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return x;
}

static int grow(struct ms_groups *g)
{
	size_t ns = g->nslots ? g->nslots * 2 : 1024, i;
	__u32 *slots = calloc(ns, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < g->n; i++) {
		size_t h = mix(g->g[i].k1, g->g[i].k2) & (ns - 1);

		while (slots[h])
			h = (h + 1) & (ns - 1);
		slots[h] = (__u32)(i + 1);
	}
	free(g->slots);
	g->slots = slots;
	g->nslots = ns;
	return 0;
}

/* The index + 1 of group (k1, k2), made when new; 0: out of memory. */
static size_t lookup(struct ms_groups *g, __u64 k1, __u64 k2)
{
	size_t h;
	struct ms_group *ng;

	if ((g->n + 1) * 2 > g->nslots && grow(g))
		return 0;
	for (h = mix(k1, k2) & (g->nslots - 1); g->slots[h]; h = (h + 1) & (g->nslots - 1)) {
		struct ms_group *x = &g->g[g->slots[h] - 1];

		if (x->k1 == k1 && x->k2 == k2)
			return g->slots[h];
	}
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;

		ng = realloc(g->g, cap * sizeof(*ng));
		if (!ng)
			return 0;
		g->g = ng;
		g->cap = cap;
	}
	ng = &g->g[g->n];
	memset(ng, 0, sizeof(*ng));
	ng->k1 = k1;
	ng->k2 = k2;
	g->slots[h] = (__u32)(++g->n);
	return g->n;
}

int ms_groups_page(void *arg, __u64 pfn, const struct ms_page_rec *r)
{
	struct ms_groups *g = arg;
	struct ms_group *grp;
	__u64 k1, k2;

	if (!r->valid || r->sub >= MS_NR_SUBS)
		return 0;	/* a hole: not in the walk's total */
	if (!g->key->key(g, pfn, r, &k1, &k2)) {
		k1 = NONE_KEY;
		k2 = NONE_KEY;
	}
	if (!g->last || g->last_k1 != k1 || g->last_k2 != k2) {
		g->last = lookup(g, k1, k2);
		if (!g->last) {
			ms_err("out of memory");
			return -1;
		}
		g->last_k1 = k1;
		g->last_k2 = k2;
	}
	grp = &g->g[g->last - 1];
	grp->sub[r->sub]++;
	grp->total++;
	if (!grp->mapping && r->role != MS_ROLE_TAIL && k1 != NONE_KEY)
		grp->mapping = r->w[3];
	g->total++;
	return 0;
}

void ms_groups_folio_attrs(void *arg, __u64 first_pfn, __u64 npages, __u32 mask, __u8 sub)
{
	struct ms_groups *g = arg;

	(void)first_pfn;
	(void)sub;
	if (!g->last)
		return;
	for (int k = 0; mask && k < MS_NR_ATTRS; k++)
		if (mask & (1U << k))
			g->g[g->last - 1].attr[k] += npages;
}

static const struct ms_groups *sort_ctx;

/* a removed cgroup (an offline memcg still charged) under MS_GROUPS_REMOVED_MIN; not in --tree */
static bool small_removed(const struct ms_groups *g, const struct ms_group *x)
{
	return (g->by == MS_BY_CGROUP || g->by == MS_BY_POD) && !g->tree && g->cgroups &&
	       x->k1 != MS_POD_NONE_KEY &&
	       x->total * (__u64)sysconf(_SC_PAGESIZE) < MS_GROUPS_REMOVED_MIN &&
	       !ms_cgroups_find(g->cgroups, x->k1) &&
	       ms_cgroup_where(g->cgroups, x->k1) != MS_CG_ELSEWHERE;
}

static int by_total(const void *a, const void *b)
{
	const struct ms_group *x = &sort_ctx->g[*(const size_t *)a];
	const struct ms_group *y = &sort_ctx->g[*(const size_t *)b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

int ms_groups_finish(struct ms_groups *g, const struct ms_result *res)
{
	size_t i, keyed = 0;
	int err;

	g->res = res;
	if (g->total != res->total) {
		ms_err("internal: the groups hold %llu pages, the walk counted %llu",
		       (unsigned long long)g->total, (unsigned long long)res->total);
		return MS_EXIT_FAIL;
	}
	if (g->by == MS_BY_FS && !g->mounts_given && (err = ms_mountinfo_load(g->mountinfo_path ? g->mountinfo_path :
							  "/proc/self/mountinfo", &g->mounts)))
		ms_err("failed to read /proc/self/mountinfo: %s (file systems are shown as not "
		       "mounted)", strerror(-err));
	if ((g->by == MS_BY_CGROUP || g->by == MS_BY_POD) && !g->cgroups_given) {
		if (g->cgroups)
			ms_cgroups_free(g->cgroups);
		else
			g->cgroups = malloc(sizeof(*g->cgroups));
		if (!g->cgroups || (err = ms_cgroups_load(g->cgroups))) {
			static bool said;	/* once, not at every sample */

			if (!said)
				ms_err("%s (cgroups are shown by id%s)", !g->cgroups ? "out of memory" :
				       err == -ENOENT ? "no memory cgroup hierarchy is mounted" :
				       "failed to read the memory cgroup hierarchy",
				       g->tree ? ", without --tree" : "");
			said = true;
			if (g->cgroups)
				ms_cgroups_free(g->cgroups);
			free(g->cgroups);
			g->cgroups = NULL;
		}
	}
	if (g->by == MS_BY_POD && pod_rekey(g)) {
		ms_err("out of memory");
		return MS_EXIT_FAIL;
	}
	/* --wss on DAMON, --by cgroup or node: each cgroup or node measured gets its counts
	 * (none: unmeasured) */
	if (g->wss && g->wss->mech == MS_WSS_DAMON &&
	    ((g->by == MS_BY_CGROUP && g->wss->damon_by == MS_WSS_DAMON_BY_CGROUP) ||
	     (g->by == MS_BY_NODE && g->wss->damon_by == MS_WSS_DAMON_BY_NODE)))
		for (i = 0; i < g->n; i++) {
			const struct ms_wss_damon_group *d;

			if (g->g[i].k1 == NONE_KEY)	/* (none): no memcg, no LRU folio */
				continue;
			d = ms_wss_damon_group_of(g->wss, g->g[i].k1);
			if (d)
				memcpy(g->g[i].damon, d->n, sizeof(d->n));
			else
				g->g[i].damon_unmeasured = 1;
		}
	g->order = calloc(g->n ? g->n : 1, sizeof(*g->order));
	if (!g->order) {
		ms_err("out of memory");
		return MS_EXIT_FAIL;
	}
	for (i = 0; i < g->n; i++)
		g->order[i] = i;
	sort_ctx = g;
	qsort(g->order, g->n, sizeof(*g->order), by_total);
	/* the top N keyed groups (of --min pages or more) and "(none)" are shown; the rest go to
	 * "(other)" */
	for (i = 0; i < g->n; i++) {
		struct ms_group *x = &g->g[g->order[i]];
		bool none = x->k1 == NONE_KEY && x->k2 == NONE_KEY;
		bool removed = !none && !g->min_set && small_removed(g, x);

		g->nremoved += removed;
		if (!none && ((g->top && keyed >= g->top) || removed ||
			      (g->min_set && x->total < g->min_pages))) {
			ms_group_add(&g->other, x);
			g->nother++;
			continue;
		}
		if (!none)
			keyed++;
		g->order[g->nshown++] = g->order[i];
		if (none)
			x->name = strdup("(none)");
		else if (g->key->name(g, x))
			x->name = NULL;
		if (!x->name) {
			ms_err("out of memory");
			return MS_EXIT_FAIL;
		}
	}
	if (g->by == MS_BY_CGROUP && g->tree && g->cgroups && cgroup_tree(g)) {
		ms_err("out of memory");
		return MS_EXIT_FAIL;
	}
	return MS_EXIT_OK;
}

void ms_groups_free(struct ms_groups *g)
{
	if (!g)
		return;
	groups_clear(g);
	free(g->g);
	free(g->slots);
	free(g->zones);
	ms_mountinfo_free(&g->mounts);
	if (g->cgroups)
		ms_cgroups_free(g->cgroups);
	free(g->cgroups);
	free(g);
}

int ms_cgroups_knowable(const struct ms_features *f, char *why, size_t whylen)
{
	if (!f || f->memcg_kind != MS_MEMCG_UNKNOWN)
		return MS_EXIT_OK;
	snprintf(why, whylen, "cannot tell which memory cgroup a page is charged to on this "
		 "kernel (memory cgroups disabled, or a page-to-memcg link memstat does not know): "
		 "see memstat --features");
	return MS_EXIT_UNSUPPORTED;
}
