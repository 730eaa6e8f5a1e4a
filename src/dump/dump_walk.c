// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The walk of a dump (dump_walk.h): include/walk.h's range walk and classify.h's verdicts, the
 * code the BPF walker and the kernel module run, over struct pages read from the dump file
 * through its page tables. The hooks:
 *   - batches come from a window of vmemmap read in bulk (WINDOW_PAGES struct pages, one
 *     pread per physically contiguous run of it), never a read per page;
 *   - a mapping's facts (tmpfs? a block device? mapped executable?) are read once per mapping
 *     and kept in a direct-mapped table, as the BPF walker keeps them: host inode, its
 *     super_block's s_magic, and whether any VMA of its i_mmap tree has VM_EXEC (the VMAs
 *     that map the file, shared or private: the BPF walker's exec set is the same VMAs,
 *     found from the tasks' side);
 *   - a slab's cache flags (SLAB_RECLAIM_ACCOUNT) likewise, per cache.
 * A read that fails is a hole, never a crash: a dump may lack any page, or be corrupt.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "dump_types.h"
#include "backend.h"
#include "dump_walk.h"

#define MS_WALK_HOOKS
#define MS_WALK_LOOP
#include "walk.h"

#define TMPFS_MAGIC	0x01021994	/* include/uapi/linux/magic.h */
#define BDEVFS_MAGIC	0x62646576
#define VM_EXEC		0x4ULL		/* include/linux/mm.h */
#define WINDOW_PAGES	4096		/* struct pages read at once: 256 KiB of vmemmap */
#define WINDOW_BATCHES	(WINDOW_PAGES / MS_BATCH_PAGES)
#define FACT_BITS	14
#define FACT_SLOTS	(1U << FACT_BITS)
#define MAX_VMAS	65536		/* a mapping's i_mmap nodes looked at, at most */
#define WALK_VMAS	(4U << 20)	/* and a worker's, all mappings together: a crafted dump's
					 * cycles cost seconds, not hours */
#define KN_BITS		16		/* --by cgroup: the cgroups named (3/4 of 65536) */
#define KN_SLOTS	(1U << KN_BITS)

struct dump_ctx {
	struct ms_dump d;		/* this worker's copy: its own translation cache */
	const struct ms_dump_types *t;
	__u64 win_pfn;			/* first pfn of the window; ~0: none */
	__u64 *win;			/* WINDOW_PAGES struct pages */
	unsigned char ok[WINDOW_BATCHES];
	__u64 scratch[2 * MS_PAGE_WORDS];
	__u64 fact_key[FACT_SLOTS];	/* a mapping or a slab cache, tagged in bit 0 */
	__u32 fact_val[FACT_SLOTS];
	__u64 lookups;
	__u64 exec_unknown;		/* mappings whose VMAs are not all in the dump */
	__u32 vmas_left;		/* i_mmap nodes this worker may still read (WALK_VMAS) */
	struct ms_page_rec *recs;	/* allpages: a section's records; NULL: counting only */
	__u64 last_md, last_cgroup;	/* allpages: the last memcg_data and its cgroup id */
	__u64 (*kn)[2];			/* --by cgroup: each cgroup id met and its kernfs_node,
					 * open addressing by id (KN_SLOTS); NULL: not kept */
	size_t nkn;
};

/* Read a pointer-sized word: 0, or -1 where the dump does not hold it. */
static int word(struct dump_ctx *c, __u64 va, __u64 *v)
{
	return ms_dump_read_virt(&c->d, va, v, sizeof(*v)) ? -1 : 0;
}

/*
 * Whether any VMA in the file's i_mmap tree (at mapping + as_i_mmap) maps it executable: 1, 0,
 * or -1 when a node or a VMA is not in the dump (a filtered dump may have left their slab pages
 * out) and no VMA read says exec.
 */
static int mapped_exec(struct dump_ctx *c, __u64 mapping)
{
	const struct ms_dump_types *t = c->t;
	__u64 stack[64], root;
	unsigned int sp = 0, seen = 0;
	int unknown = 0;

	if (t->as_i_mmap < 0 || t->vma_rb < 0 || t->vma_flags < 0 || t->rb_left < 0 ||
	    t->rb_right < 0)
		return 0;
	if (word(c, mapping + (__u64)t->as_i_mmap, &root))
		return -1;
	if (root)
		stack[sp++] = root;
	while (sp) {
		__u64 n = stack[--sp], l = 0, r = 0, flags = 0;

		/* a corrupt tree (a cycle) or a walk's share of VMAs spent: not known */
		if (seen++ >= MAX_VMAS || c->vmas_left == 0)
			return -1;
		c->vmas_left--;

		if (word(c, n - (__u64)t->vma_rb + (__u64)t->vma_flags, &flags) ||
		    word(c, n + (__u64)t->rb_left, &l) || word(c, n + (__u64)t->rb_right, &r)) {
			unknown = 1;
			continue;
		}
		if (flags & VM_EXEC)
			return 1;
		/* a tree deeper than the stack is corrupt: what is left is not looked at */
		if (l && sp < 64)
			stack[sp++] = l;
		if (r && sp < 64)
			stack[sp++] = r;
	}
	return unknown ? -1 : 0;
}

static __u32 *fact_slot(struct dump_ctx *c, __u64 key, bool *hit)
{
	__u32 s = (__u32)((key * 0x9e3779b97f4a7c15ULL) >> (64 - FACT_BITS));

	*hit = c->fact_key[s] == key;
	c->fact_key[s] = key;
	return &c->fact_val[s];
}

static __u32 ms_hook_facts(void *ctx, __u64 mapping)
{
	struct dump_ctx *c = ctx;
	const struct ms_dump_types *t = c->t;
	__u32 *v, facts = 0;
	__u64 host, sb, magic;
	bool hit;

	v = fact_slot(c, mapping, &hit);
	if (hit)
		return *v;
	c->lookups++;
	host = ms_dump_u64(&c->d, mapping + (__u64)t->as_host);
	sb = host ? ms_dump_u64(&c->d, host + (__u64)t->inode_sb) : 0;
	magic = sb ? ms_dump_u64(&c->d, sb + (__u64)t->sb_magic) : 0;
	if (magic == BDEVFS_MAGIC)
		facts |= MS_MAP_BDEV;
	else if (magic == TMPFS_MAGIC)
		facts |= MS_MAP_SHMEM;
	switch (mapped_exec(c, mapping)) {
	case 1:
		facts |= MS_MAP_EXEC;
		break;
	case -1:
		c->exec_unknown++;	/* counted as page cache */
		break;
	}
	*v = facts;
	return facts;
}

static int ms_hook_slab_reclaim(void *ctx, __u64 cache)
{
	struct dump_ctx *c = ctx;
	__u32 *v, flags = 0;
	bool hit;

	if (c->t->slab_reclaim_mask <= 0)
		return 0;
	v = fact_slot(c, cache | 1, &hit);	/* caches and mappings share the table */
	if (hit)
		return (int)*v;
	if (ms_dump_read_virt(&c->d, cache + (__u64)c->t->kc_flags, &flags, sizeof(flags))) {
		*v = 0;		/* not in the dump: unreclaimable, as a failed read is live */
		return -1;
	}
	*v = (flags & (__u64)c->t->slab_reclaim_mask) != 0;
	return (int)*v;
}

/* Fill the window that starts at pfn: one read per physically contiguous run. */
static void fill_window(struct dump_ctx *c, __u64 pfn)
{
	__u64 va0 = c->d.vmemmap + pfn * 64;

	c->win_pfn = pfn;
	for (unsigned int i = 0; i < WINDOW_BATCHES;) {
		__u64 pa, pa_next;
		unsigned int n = 1;

		c->ok[i] = 0;
		if (ms_dump_vtop(&c->d, va0 + (__u64)i * 4096, &pa)) {
			i++;
			continue;
		}
		while (i + n < WINDOW_BATCHES &&
		       !ms_dump_vtop(&c->d, va0 + (__u64)(i + n) * 4096, &pa_next) &&
		       pa_next == pa + (__u64)n * 4096)
			n++;
		if (!ms_dump_read(&c->d, pa, c->win + (size_t)i * MS_BATCH_PAGES * MS_PAGE_WORDS,
				  (size_t)n * 4096)) {
			memset(c->ok + i, 1, n);
		} else {	/* part of the run is missing: each piece on its own */
			for (unsigned int k = 0; k < n; k++)
				c->ok[i + k] = !ms_dump_read(&c->d, pa + (__u64)k * 4096,
					c->win + (size_t)(i + k) * MS_BATCH_PAGES * MS_PAGE_WORDS, 4096);
		}
		i += n;
	}
}

static const __u64 *ms_hook_batch(void *ctx, struct ms_walker *w, __u64 base)
{
	struct dump_ctx *c = ctx;
	__u64 i;

	if (c->win_pfn == ~0ULL || base < c->win_pfn || base - c->win_pfn >= WINDOW_PAGES)
		fill_window(c, base & ~(__u64)(WINDOW_PAGES - 1));
	i = (base - c->win_pfn) / MS_BATCH_PAGES;
	return c->ok[i] ? c->win + i * MS_BATCH_PAGES * MS_PAGE_WORDS : NULL;
}

static int ms_hook_read(void *ctx, __u64 pfn, __u64 *w, __u32 nwords)
{
	struct dump_ctx *c = ctx;

	return ms_dump_read_virt(&c->d, c->d.vmemmap + pfn * 64, w, (size_t)nwords * 8) ? -1 : 0;
}

static void ms_hook_visit(void *ctx, struct ms_walker *w, __u64 pfn, __u32 j, const __u64 *p,
			  const __u64 *p1)
{
	struct dump_ctx *c = ctx;

	ms_walk_page(ctx, w, &c->t->f, pfn, j, p, p1, c->scratch);
}

/* allpages: a file page's inode number and its file system's device */
static void ms_hook_file(void *ctx, __u64 mapping, __u64 *ino, __u32 *dev)
{
	struct dump_ctx *c = ctx;
	const struct ms_dump_types *t = c->t;
	__u64 host = ms_dump_u64(&c->d, mapping + (__u64)t->as_host);
	__u64 sb = host ? ms_dump_u64(&c->d, host + (__u64)t->inode_sb) : 0;
	__u32 sdev = 0;

	*ino = host ? ms_dump_u64(&c->d, host + (__u64)t->inode_ino) : 0;
	if (!sb || ms_dump_read_virt(&c->d, sb + (__u64)t->sb_dev, &sdev, sizeof(sdev)))
		sdev = 0;
	*dev = sdev;
}

/* --by cgroup: keep cgroup id's kernfs_node kn (the first one met; at most 3/4 of the slots) */
static void kn_keep(struct dump_ctx *c, __u64 id, __u64 kn)
{
	size_t i = (size_t)((id * 0x9e3779b97f4a7c15ULL) >> (64 - KN_BITS));

	for (;; i = (i + 1) & (KN_SLOTS - 1)) {
		if (c->kn[i][0] == id)
			return;
		if (!c->kn[i][0])
			break;
	}
	if (c->nkn >= KN_SLOTS / 4 * 3)
		return;		/* its pages are named by id: "(removed) id N" */
	c->kn[i][0] = id;
	c->kn[i][1] = kn;
	c->nkn++;
}

/*
 * The cgroup id of mem_cgroup mc (its css.cgroup's kn->id), or ~0 when mc is not one: a
 * memory cgroup's cgroup holds its css in subsys[memory_cgrp_id], which is checked where BTF
 * gives the offsets.
 */
static __u64 memcg_cgroup_id(struct dump_ctx *c, __u64 mc)
{
	const struct ms_dump_types *t = c->t;
	__u64 css = mc + (__u64)t->memcg_css, cg, kn, back, id;

	if (!mc || t->memcg_css < 0 || t->css_cgroup < 0 || t->cgroup_kn < 0 || t->kn_id < 0)
		return ~0ULL;
	cg = ms_dump_u64(&c->d, css + (__u64)t->css_cgroup);
	if (!cg)
		return ~0ULL;
	if (t->cgroup_subsys >= 0 && t->memory_cgrp_id >= 0) {
		back = ms_dump_u64(&c->d, cg + (__u64)t->cgroup_subsys +
				   8ULL * (__u64)t->memory_cgrp_id);
		if (back != css)
			return ~0ULL;
	}
	kn = ms_dump_u64(&c->d, cg + (__u64)t->cgroup_kn);
	id = kn ? ms_dump_u64(&c->d, kn + (__u64)t->kn_id) : 0;
	if (id >> 48)
		return 0;	/* an id is small: never print what looks like an address */
	if (c->kn && id)
		kn_keep(c, id, kn);
	return id;
}

/*
 * allpages: the cgroup id of a memcg_data word (0: none, a slab's object vector, or not in the
 * dump). A user folio's word is a struct mem_cgroup * on 6.1-6.18 and a struct obj_cgroup * on
 * 7.x; MEMCG_DATA_KMEM (bit 1) marks an obj_cgroup on all. The direct reading is tried first
 * and kept only when the memcg's cgroup points back at it; else the obj_cgroup's memcg.
 */
static __u64 ms_hook_cgroup(void *ctx, __u64 memcg_data)
{
	struct dump_ctx *c = ctx;
	__u64 ptr = memcg_data & ~3ULL, id = ~0ULL;

	if (!memcg_data || (memcg_data & 1))
		return 0;
	if (memcg_data == c->last_md)
		return c->last_cgroup;
	if (!(memcg_data & 2))
		id = memcg_cgroup_id(c, ptr);
	if (id == ~0ULL && c->t->objcg_memcg >= 0)
		id = memcg_cgroup_id(c, ms_dump_u64(&c->d, ptr + (__u64)c->t->objcg_memcg));
	c->last_md = memcg_data;
	c->last_cgroup = id == ~0ULL ? 0 : id;
	return c->last_cgroup;
}

static struct ms_page_rec *ms_hook_rec(void *ctx, struct ms_walker *w, __u32 idx)
{
	struct dump_ctx *c = ctx;

	return c->recs ? &c->recs[idx & (MS_SECTION_PAGES - 1)] : NULL;
}

/*
 * One worker's walk over r: counts into res, runs to the merger (NULL: none), or with page_fn
 * every page's record to it, in pfn order.
 */
static int walk_ranges(struct dump_ctx *c, const struct ms_ranges *r, struct ms_result *res,
		       struct ms_run_merger *merger, ms_page_fn page_fn, void *arg)
{
	struct ms_walker *w = calloc(1, sizeof(*w));
	struct ms_run *runs = merger ? calloc(MS_MAX_RUNS, sizeof(*runs)) : NULL;
	__u64 prev_end = ~0ULL;
	int ret = 0;

	if (page_fn)
		c->recs = calloc(MS_SECTION_PAGES, sizeof(*c->recs));
	if (!w || (merger && !runs) || (page_fn && !c->recs)) {
		free(w);
		free(runs);
		return -ENOMEM;
	}
	w->dump = merger != NULL;
	w->dump_pages = page_fn != NULL;
	w->runs = runs;
	for (size_t i = 0; i < r->n && !ret; i++) {
		__u64 start = r->r[i].start, end = r->r[i].end;

		while (start < end && !ret) {
			__u64 stop = (start + MS_SECTION_PAGES) & ~(__u64)(MS_SECTION_PAGES - 1);

			if (stop > end || stop <= start)
				stop = end;
			if (start != prev_end)
				ms_walk_new_range(w, start);
			w->walk_start = start;
			w->walk_end = stop;
			w->nruns = 0;
			for (__u64 p = start; page_fn && p < stop; p++)
				c->recs[p - start].valid = 0;
			ms_walk_range(c, w);
			for (__u32 k = 0; merger && k < w->nruns && !ret; k++)
				ret = ms_merge_run(merger, runs[k].pfn, runs[k].npages,
						   (enum ms_sub)runs[k].sub) ? -EIO : 0;
			for (__u64 p = start; page_fn && p < stop && !ret; p++)
				ret = page_fn(arg, p, &c->recs[p - start]) ? -EIO : 0;
			prev_end = stop;
			start = stop;
		}
	}
	for (int j = 0; j < MS_NR_SUBS; j++)
		res->sub[j] += w->counts[j];
	res->holes += w->holes;
	res->reads += c->d.reads;
	res->mapping_lookups += c->lookups;
	res->exec_unknown_mappings += c->exec_unknown;
	free(w);
	free(runs);
	free(c->recs);
	c->recs = NULL;
	return ret;
}

static struct dump_ctx *ctx_new(const struct ms_dump *d, const struct ms_dump_types *t)
{
	struct dump_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->win = malloc((size_t)WINDOW_PAGES * 64);
	if (!c->win) {
		free(c);
		return NULL;
	}
	ms_dump_clone(d, &c->d);	/* shares the file and the segments, not the caches */
	c->t = t;
	c->win_pfn = ~0ULL;
	c->vmas_left = WALK_VMAS;
	memset(c->fact_key, 0xff, sizeof(c->fact_key));	/* no key is all ones */
	return c;
}

static void ctx_free(struct dump_ctx *c)
{
	if (c) {
		free(c->win);
		free(c->recs);
		free(c->kn);
		ms_dump_close(&c->d);
	}
	free(c);
}

struct worker {
	pthread_t tid;
	struct dump_ctx *c;
	const struct ms_ranges *r;
	struct ms_result res;
	int ret;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->ret = walk_ranges(w->c, w->r, &w->res, NULL, NULL, NULL);
	return NULL;
}

static int dump_walk(const struct ms_dump *d, const struct ms_dump_types *t,
		     const struct ms_ranges *r, unsigned int jobs, struct ms_result *res,
		     ms_run_fn fn, ms_page_fn page_fn, void *arg, struct ms_cgroups *cg)
{
	struct ms_run_merger merger = { fn, arg, 0, 0, MS_NR_SUBS };
	struct ms_ranges *chunks = NULL;
	struct worker *w = NULL;
	double t0 = ms_now_ms();
	size_t n = 0;
	int ret = -ENOMEM;

	memset(res, 0, sizeof(*res));
	res->backend = "dump";
	res->exec_known = t->vma_flags >= 0 && t->as_i_mmap >= 0 && t->vma_rb >= 0;
	res->exec_all_processes = true;	/* every VMA of each file, whichever process */
	res->uninit_known = true;
	res->slab_split = t->f.slab_cache_word != 0;
	if (fn || page_fn || !jobs)
		jobs = 1;	/* runs and records come in pfn order from one worker */
	if (jobs > MS_JOBS_MAX)
		jobs = MS_JOBS_MAX;
	chunks = calloc(jobs, sizeof(*chunks));
	w = calloc(jobs, sizeof(*w));
	if (!chunks || !w)
		goto out;
	if (jobs == 1) {
		w[0].c = ctx_new(d, t);
		if (!w[0].c || (cg && !(w[0].c->kn = calloc(KN_SLOTS, sizeof(*w[0].c->kn)))))
			goto out;
		ret = walk_ranges(w[0].c, r, res, fn ? &merger : NULL, page_fn, arg);
		if (!ret && fn && ms_merge_flush(&merger))
			ret = -EIO;
		if (!ret && cg)
			ret = ms_dump_cgroups_of(&w[0].c->d, t, (const __u64(*)[2])w[0].c->kn,
						 KN_SLOTS, cg);
		n = 1;
	} else {
		n = ms_split_chunks(r, jobs, chunks);
		for (size_t i = 0; i < n; i++) {
			w[i].c = ctx_new(d, t);
			if (!w[i].c) {
				n = i;
				goto out;
			}
			w[i].r = &chunks[i];
		}
		for (size_t i = 0; i < n; i++)
			ms_worker_start(&w[i].tid, worker_main, &w[i]);
		ret = 0;
		for (size_t i = 0; i < n; i++) {
			ms_worker_join(&w[i].tid);
			if (w[i].ret)
				ret = w[i].ret;
			ms_result_add(res, &w[i].res);
		}
	}
	for (int j = 0; j < MS_NR_SUBS; j++)
		res->total += res->sub[j];
	res->walk_ms = ms_now_ms() - t0;
	res->jobs = (unsigned int)n;
	res->moved_pages = 0;	/* a dump does not change */
out:
	for (size_t i = 0; w && i < jobs; i++)
		ctx_free(w[i].c);
	for (size_t i = 0; chunks && i < jobs; i++)
		ms_ranges_free(&chunks[i]);
	free(chunks);
	free(w);
	return ret;
}

int ms_dump_walk(const struct ms_dump *d, const struct ms_dump_types *t,
		 const struct ms_ranges *r, unsigned int jobs, struct ms_result *res,
		 ms_run_fn fn, void *arg)
{
	return dump_walk(d, t, r, jobs, res, fn, NULL, arg, NULL);
}

int ms_dump_pages(const struct ms_dump *d, const struct ms_dump_types *t,
		  const struct ms_ranges *r, struct ms_result *res, ms_page_fn fn, void *arg)
{
	return dump_walk(d, t, r, 1, res, NULL, fn, arg, NULL);
}

int ms_dump_pages_cgroups(const struct ms_dump *d, const struct ms_dump_types *t,
			  const struct ms_ranges *r, struct ms_result *res, ms_page_fn fn,
			  void *arg, struct ms_cgroups *cg)
{
	return dump_walk(d, t, r, 1, res, NULL, fn, arg, cg);
}
