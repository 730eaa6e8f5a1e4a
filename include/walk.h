/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The range walk, shared like the verdict (classify.h): the BPF walker (bpf/memstat.bpf.c), the
 * kernel module (kmod/memstat_main.c) and the unit tests (tests/unit/layouts.h) all run it. It
 * walks pfns [walk_start, walk_end) 64 struct pages (one 4 KiB piece of vmemmap) at a time:
 *   - a folio or free block is classified once (ms_page_verdict()) and the walk jumps past it;
 *   - what such a block covers past walk_end is "carried": the cursor stays beyond walk_end and
 *     the next call over the following range counts those pages first (ms_walk_begin()), as
 *     carry_sub; a call over a range that does not continue the previous one starts afresh
 *     (ms_walk_new_range()), so a block is counted once from every range it lies in, from that
 *     range's first page, which is what lets separate walkers take adjacent ranges;
 *   - three modes: counting (counts[] only), runs (dump: also runs[] of equal sub-class) and
 *     allpages (dump_pages: every page recorded, with its folio or free block as its "owner").
 *
 * The state of one walk is struct ms_walker, or a type of the includer's own with the same
 * fields (MS_WALKER_T): the BPF walker's, one per worker in a map, holds its runs and its caches
 * too (include/bpf_walker.h).
 *
 * An includer defines MS_WALK_HOOKS (classify.h's two hooks) and MS_WALK_LOOP, and provides:
 *   static const __u64 *ms_hook_batch(void *ctx, MS_WALKER_T *w, __u64 base);
 *	the 64 struct pages from base on (base is 64-aligned), or NULL when they cannot be read
 *   static void ms_hook_visit(void *ctx, MS_WALKER_T *w, __u64 pfn, __u32 j,
 *			       const __u64 *p, const __u64 *p1);
 *	classify page j of the batch: normally ms_walk_page(); a hook so that the BPF walker can
 *	make it a function the verifier checks once
 *   static void ms_hook_file(void *ctx, __u64 mapping, __u64 *ino, __u32 *dev);
 *	allpages: the inode number and device of a file mapping
 *   static __u64 ms_hook_cgroup(void *ctx, __u64 memcg_data);
 *	allpages: the cgroup id of a memcg_data word (0: none)
 *   static struct ms_page_rec *ms_hook_rec(void *ctx, MS_WALKER_T *w, __u32 idx);
 *	allpages: the record of page walk_start + idx, or NULL
 */
#ifndef MEMSTAT_WALK_H
#define MEMSTAT_WALK_H

#include "classify.h"

struct ms_walker {
	__u64 walk_start, walk_end;	/* this call's pfn range */
	__u64 cursor;		/* next pfn to classify; pages below it are counted */
	__u32 carry_sub;	/* sub-class of a block counted past the previous range's end */
	__u32 dump;		/* runs mode: record runs of equal sub-class in runs[] */
	__u32 dump_pages;	/* allpages mode: record every page */
	__u32 nruns;
	struct ms_run *runs;	/* MS_MAX_RUNS of them, in runs mode; reset by the caller */
	__u64 counts[MS_COUNTS];
	__u64 holes;		/* pages whose struct page could not be read */
	__u64 reads;		/* batches read */
	struct ms_walk_state wstate;	/* carried by ms_page_verdict() */
	/* allpages: the folio or free block the walk is in */
	__u64 own_start, own_end, own_index, own_ino, own_cgroup, own_flags;
	__u32 own_dev, own_sub, own_order, own_role_head;
};

#ifndef MS_WALKER_T
#define MS_WALKER_T struct ms_walker
#endif

#ifdef MS_WALK_LOOP
static const __u64 *ms_hook_batch(void *ctx, MS_WALKER_T *w, __u64 base);
static void ms_hook_visit(void *ctx, MS_WALKER_T *w, __u64 pfn, __u32 j, const __u64 *p,
			  const __u64 *p1);
static void ms_hook_file(void *ctx, __u64 mapping, __u64 *ino, __u32 *dev);
static __u64 ms_hook_cgroup(void *ctx, __u64 memcg_data);
static struct ms_page_rec *ms_hook_rec(void *ctx, MS_WALKER_T *w, __u32 idx);

/* A range that does not continue the previous one: nothing carries over into it. */
MS_INLINE void ms_walk_new_range(MS_WALKER_T *w, __u64 start)
{
	w->cursor = start;
	w->own_start = 0;
	w->own_end = 0;
	/* it may start inside a free block: let its first per-cpu-looking page check */
	w->wstate.free_end = start;
}

/* Append n pages from pfn as sub to runs[], merged with the last run when they continue it. */
MS_INLINE void ms_walk_run(MS_WALKER_T *w, __u64 pfn, __u64 n, __u32 sub)
{
	__u32 i = w->nruns, l = (i - 1) & (MS_MAX_RUNS - 1);

	if (i > 0 && i <= MS_MAX_RUNS && w->runs[l].sub == sub &&
	    w->runs[l].pfn + w->runs[l].npages == pfn) {
		w->runs[l].npages += n;
		return;
	}
	if (i >= MS_MAX_RUNS)
		return;		/* cannot happen: a call covers at most MS_MAX_RUNS pages */
	w->runs[i & (MS_MAX_RUNS - 1)].pfn = pfn;
	w->runs[i & (MS_MAX_RUNS - 1)].npages = n;
	w->runs[i & (MS_MAX_RUNS - 1)].sub = sub;
	w->nruns = i + 1;
}

/*
 * Is this walk allpages' (every page recorded)? The BPF walker also asks whether it was loaded
 * for records at all (memstat.bpf.c), so that the verifier skips the recording code of a walker
 * loaded without them.
 */
#ifndef MS_WALK_RECORDS
#define MS_WALK_RECORDS(w) ((w)->dump_pages)
#endif

/*
 * A call's start: the pages of a block counted at its head in the previous call that reach
 * into this range are counted here, as the block's sub-class. Allpages never carries this way
 * (it records page by page, and its owner covers such pages).
 */
MS_INLINE void ms_walk_begin(MS_WALKER_T *w)
{
	__u64 start = w->walk_start, end = w->walk_end, cur = w->cursor;
	__u32 sub = w->carry_sub;

	if (cur > start && !MS_WALK_RECORDS(w)) {
		__u64 stop = cur < end ? cur : end;

		w->counts[sub & (MS_COUNTS - 1)] += stop - start;
		if (w->dump)
			ms_walk_run(w, start, stop - start, sub);
	} else {
		w->cursor = start;
	}
}

/* Count n pages from pfn as sub, clamped to this call's range, and move the cursor past them. */
MS_INLINE void ms_walk_count(MS_WALKER_T *w, __u64 pfn, __u32 sub, __u64 n)
{
	__u64 c = n;

	if (pfn + c > w->walk_end) {
		c = w->walk_end - pfn;
		w->carry_sub = sub;
	}
	w->counts[sub & (MS_COUNTS - 1)] += c;
	w->cursor = n > ~0ULL - pfn ? ~0ULL : pfn + n;	/* never wraps to a low pfn */
	if (w->dump)
		ms_walk_run(w, pfn, c, sub);
}

/* allpages: pages [start, start + n) share the verdict sub of the head h: the new owner. */
MS_INLINE void ms_walk_own(void *ctx, MS_WALKER_T *w, const struct ms_features *f,
			   __u64 start, __u32 n, __u32 sub, const __u64 *h)
{
	__u64 m = h[MS_W_MAPPING];
	__u32 order = 0, role;

	while (order < MS_MAX_FOLIO_ORDER && (1U << order) < n)
		order++;
	w->own_start = start;
	w->own_end = start + n;
	w->own_sub = sub;
	w->own_order = order;
	w->own_flags = h[MS_W_FLAGS];
	if (sub == MS_FREE_BUDDY || sub == MS_FREE_UNACCEPTED)
		role = MS_ROLE_FREE_HEAD;
	else if (n > 1 || ms_flag(h[MS_W_FLAGS], f->pg_head))
		role = MS_ROLE_HEAD;
	else
		role = MS_ROLE_NONE;
	w->own_role_head = role;
	w->own_ino = 0;
	w->own_dev = 0;
	w->own_index = 0;
	w->own_cgroup = 0;
	if (sub == MS_UNKNOWN || sub == MS_FREE_UNINIT || role == MS_ROLE_FREE_HEAD)
		return;
	if (m && !(m & 3) && (sub == MS_FILE || sub == MS_EXEC || sub == MS_FILE_BUFFERS ||
			      sub == MS_SHMEM)) {
		__u64 ino = 0;
		__u32 dev = 0;

		ms_hook_file(ctx, m, &ino, &dev);
		w->own_ino = ino;
		w->own_dev = dev;
		w->own_index = h[4];	/* index / __folio_index */
	}
	w->own_cgroup = ms_hook_cgroup(ctx, h[MS_W_MEMCG]);
}

/* allpages: the page at pfn (words p) belongs to the current owner; record and count it. */
MS_INLINE void ms_walk_record(void *ctx, MS_WALKER_T *w, __u64 pfn, const __u64 *p)
{
	__u32 idx = (__u32)(pfn - w->walk_start) & (MS_SECTION_PAGES - 1);
	struct ms_page_rec *r = ms_hook_rec(ctx, w, idx);
	__u32 role = w->own_role_head;
	int i;

	w->counts[w->own_sub & (MS_COUNTS - 1)]++;
	w->cursor = pfn + 1;
	if (!r)
		return;
	for (i = 0; i < MS_PAGE_WORDS; i++)
		r->w[i] = p[i];
	r->sub = w->own_sub;
	r->order = w->own_order;
	r->head_pfn = w->own_start;
	r->head_flags = w->own_flags;
	r->role = role == MS_ROLE_NONE ? (__u32)MS_ROLE_NONE :
		  pfn == w->own_start ? role : role + 1;
	r->ino = w->own_ino;
	r->dev = w->own_dev;
	r->offset = w->own_ino ? w->own_index + (pfn - w->own_start) : 0;
	r->cgroup = w->own_cgroup;
	r->valid = 1;
}

/* allpages: page pfn opens a new owner (the verdict v, whose head's words are h). */
MS_INLINE void ms_walk_take(void *ctx, MS_WALKER_T *w, const struct ms_features *f,
			    __u64 pfn, const __u64 *p, const __u64 *h, __u64 start, __u32 n,
			    __u32 sub)
{
	ms_walk_own(ctx, w, f, start, n, sub, h);
	ms_walk_record(ctx, w, pfn, p);
}

/*
 * The BPF walker takes allpages' two steps through functions of its own (global functions,
 * verified once); everyone else calls them directly.
 */
#ifndef MS_WALK_TAKE
#define MS_WALK_TAKE(ctx, w, f, pfn, j, p, h, v) \
	ms_walk_take(ctx, w, f, pfn, p, h, (v)->start, (v)->n, (v)->sub)
#define MS_WALK_RECORD(ctx, w, pfn, j, p) ms_walk_record(ctx, w, pfn, p)
#endif

/*
 * The page at pfn, the j-th of its batch (words p, and the next page's p1 or NULL). scratch
 * (16 words) receives a head read from elsewhere.
 */
MS_INLINE void ms_walk_page(void *ctx, MS_WALKER_T *w, const struct ms_features *f,
			    __u64 pfn, __u32 j, const __u64 *p, const __u64 *p1, __u64 *scratch)
{
	struct ms_verdict v;

	if (MS_WALK_RECORDS(w) && pfn >= w->own_start && pfn < w->own_end) {
		MS_WALK_RECORD(ctx, w, pfn, j, p);	/* a tail or interior of the owner */
		return;
	}
	ms_page_verdict(ctx, f, &w->wstate, pfn, p, p1, scratch, &v);
	if (!MS_WALK_RECORDS(w))
		ms_walk_count(w, pfn, v.sub, v.start + v.n - pfn);
	else
		MS_WALK_TAKE(ctx, w, f, pfn, j, p, v.start == pfn ? p : scratch, &v);
}

/* allpages: the records of pages [from, stop) (at most one batch) say "not read" */
MS_INLINE void ms_walk_hole_recs(void *ctx, MS_WALKER_T *w, __u64 from, __u64 stop)
{
	/* one exit test on a bounded count: the BPF verifier's states stay linear */
	__u64 n = (stop - from) & (2 * MS_BATCH_PAGES - 1), j;

	for (j = 0; j < MS_BATCH_PAGES; j++) {
		__u32 idx = (__u32)(from + j - w->walk_start) & (MS_SECTION_PAGES - 1);
		struct ms_page_rec *r;

		if (j >= n)
			break;
		r = ms_hook_rec(ctx, w, idx);
		if (r)
			r->valid = 0;
	}
}

/*
 * The visits of a batch's pages from the cursor on: the loop of ms_walk_step(). Pages below the
 * cursor are covered by a block already counted. The call is the last thing of the loop's body:
 * 6.1's verifier refuses a loop whose back edge is the fall-through of a call ("back-edge from
 * insn").
 */
MS_INLINE void ms_walk_visits(void *ctx, MS_WALKER_T *w, __u64 base, __u64 end,
			      const __u64 *b)
{
	__u64 j;

	for (j = 0; j < MS_BATCH_PAGES; j++) {
		__u64 pfn = base + j;

		if (pfn < w->cursor)
			continue;	/* covered by the block just counted */
		if (pfn >= end || w->cursor - base >= MS_BATCH_PAGES)
			break;
		ms_hook_visit(ctx, w, pfn, (__u32)j, b + j * MS_PAGE_WORDS,
			      j < MS_BATCH_PAGES - 1 ? b + (j + 1) * MS_PAGE_WORDS : 0);
	}
}

/*
 * The BPF walker runs both loops above through global functions of its own: the verifier then
 * checks each loop once, not once more for every path and every iteration of the batch
 * callback around it (the 7.3 verifier walked the page loop some 50 times there).
 */
#ifndef MS_WALK_VISITS
#define MS_WALK_VISITS(ctx, w, base, end, b) ms_walk_visits(ctx, w, base, end, b)
#define MS_WALK_HOLE_RECS(ctx, w, from, stop) ms_walk_hole_recs(ctx, w, from, stop)
#endif

/* Pages [from, stop) could not be read: holes, not counted in any class. */
MS_INLINE void ms_walk_hole(void *ctx, MS_WALKER_T *w, __u64 from, __u64 stop)
{
	w->holes += stop - from;
	if (MS_WALK_RECORDS(w))
		MS_WALK_HOLE_RECS(ctx, w, from, stop);
	w->cursor = stop;
}

/*
 * One step of the walk: the batch of 64 struct pages the cursor is in. Returns 1 when the
 * range is done. uninit_test: test a whole batch for never-initialised struct pages first
 * (millions of them on a kernel with lazy deferred init: one verdict, no call per page). The
 * test is branch-free, so the BPF verifier sees one path. Nothing here computes base + 64,
 * which wraps to 0 in the last batch of the pfn space (the module takes any pfns it is given).
 */
MS_INLINE int ms_walk_step(void *ctx, MS_WALKER_T *w, int uninit_test)
{
	__u64 cur = w->cursor, end = w->walk_end, base, j;
	const __u64 *b;

	if (cur >= end)
		return 1;
	base = cur & ~(__u64)(MS_BATCH_PAGES - 1);
	w->reads++;
	b = ms_hook_batch(ctx, w, base);
	if (!b) {
		/* an unmapped piece of vmemmap (or offline memory): a hole, never a crash */
		ms_walk_hole(ctx, w, cur, end - base > MS_BATCH_PAGES ? base + MS_BATCH_PAGES : end);
		return 0;
	}
	if (uninit_test && !w->dump && !MS_WALK_RECORDS(w) && cur == base &&
	    end - base >= MS_BATCH_PAGES) {
		__u64 acc = 0;

		for (j = 0; j < MS_BATCH_PAGES * MS_PAGE_WORDS; j += MS_PAGE_WORDS)
			acc |= ms_words_set(b[j + MS_W_FLAGS], b[j + MS_W_HEAD], b[j + MS_W_TYPE]);
		if (!acc) {
			w->counts[MS_FREE_UNINIT] += MS_BATCH_PAGES;
			w->cursor = base + MS_BATCH_PAGES;
			return 0;
		}
	}
	MS_WALK_VISITS(ctx, w, base, end, b);
	return 0;
}

/* The whole call over [walk_start, walk_end), for walkers with an ordinary loop. */
MS_INLINE void ms_walk_range(void *ctx, MS_WALKER_T *w)
{
	ms_walk_begin(w);
	while (!ms_walk_step(ctx, w, 1))
		;
}
#endif /* MS_WALK_LOOP */

#endif /* MEMSTAT_WALK_H */
