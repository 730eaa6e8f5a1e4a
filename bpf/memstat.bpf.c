// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The memstat walker. Programs, all run on demand from user space (no attachment to kernel
 * events, nothing written to kernel memory):
 *   detect        SEC("syscall"): fill `feat` from BTF (core_fixes.bpf.h).
 *   find_folio    SEC("syscall"): the folio cached at index 0 of the memfd `memfd_fd` of the
 *                 calling process, for locating vmemmap (docs/page-classes.md 6.2).
 *   collect_exec  SEC("iter/task_vma"): every address_space mapped VM_EXEC by some process.
 *   get_deferred  SEC("syscall"): each node's first_deferred_pfn (uninitialised struct pages).
 *   walk          SEC("syscall"): classify pfns [walk_start, walk_end), 64 struct pages per
 *                 bpf_probe_read_kernel, and add them to the per-sub-class counters.
 *   file_paths, slab_name  SEC("syscall"): names of --by's groups after the walk (names.bpf.h).
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
/* core_fixes.bpf.h includes classify.h: the walker's hooks are declared from the first include */
#define MS_WALK_HOOKS
#include "core_fixes.bpf.h"
#include "classify.h"
#include "bpf_walker.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";


#define TMPFS_MAGIC	0x01021994
#define BDEVFS_MAGIC	0x62646576

/* set by user space before a run (through the memory-mapped .bss); shared by every worker */
struct ms_features feat;
__u32 generation;		/* walk number: invalidates the caches of the previous walk */
int memfd_fd;

/* results */
__u32 missing;			/* MS_MISSING_* from detect */
__u64 folio;			/* from find_folio */
__s32 folio_err;
__u64 exec_vmas;		/* VM_EXEC file mappings seen by collect_exec */

/*
 * Each worker's state (include/bpf_walker.h), element ctx->worker of this map: user space sets
 * its size to the workers before loading and maps it. With dump_pages set (allpages, one
 * worker), every page gets a record in pagerecs (indexed by pfn - walk_start) and is counted as
 * it is recorded; the folio or free block the walk is inside ("owner") gives tails and
 * free-block interiors their verdict without classifying them again.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct ms_bpf_walker);
} walkers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MS_SECTION_PAGES);	/* user space shrinks it to 1 unless dumping */
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct ms_page_rec);
} pagerecs SEC(".maps");

/* address_space -> generation of the walk in which a VM_EXEC mapping of it was seen */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u32);
} exec_set SEC(".maps");

struct ms_kernel_facts facts;

/* SLAB_RECLAIM_ACCOUNT in struct kmem_cache's flags (0: unknown); set by detect */
__u32 slab_reclaim_mask;

SEC("syscall")
int detect(void *ctx)
{
	long long mask;

	missing = ms_kernel_facts(&facts);
	ms_features_from_facts(&facts, &feat);
	mask = feat.slab_cache_word ? ms_slab_reclaim_mask() : -1;
	/* 0: no cache can have the flag (SLUB_TINY), every slab page stays MS_KERNEL_SLAB */
	slab_reclaim_mask = mask > 0 ? (__u32)mask : 0;
	if (mask < 0)
		feat.slab_cache_word = 0;	/* user space: the slab split is unknown */
	return 0;
}

/* The memcg of the calling task: task->cgroups->subsys[memory_cgrp_id] (NULL: no memcg). */
static struct mem_cgroup *current_memcg(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct css_set *cs = BPF_CORE_READ(task, cgroups);
	struct cgroup_subsys_state *css = NULL;
	__u32 id;

	if (!bpf_core_enum_value_exists(enum cgroup_subsys_id___c, memory_cgrp_id___c) || !cs)
		return NULL;
	id = bpf_core_enum_value(enum cgroup_subsys_id___c, memory_cgrp_id___c);
	if (bpf_probe_read_kernel(&css, sizeof(css), &cs->subsys[id & 63]))
		return NULL;
	return (struct mem_cgroup *)css;	/* css is mem_cgroup's first member */
}

/*
 * What memcg_data of a user folio points to (enum ms_memcg_kind): the probe page was charged
 * to this task's memcg, so its memcg_data is that mem_cgroup, or an obj_cgroup whose memcg it
 * is. Anything else (memcg disabled, a flag bit set) leaves it unknown.
 */
static __u8 probe_memcg_kind(__u64 page)
{
	struct mem_cgroup *mine = current_memcg();
	__u64 md;

	if (!bpf_core_field_exists(struct page, memcg_data))	/* CONFIG_MEMCG=n */
		return MS_MEMCG_UNKNOWN;
	md = BPF_CORE_READ((struct page *)page, memcg_data);
	if (!mine || !md || (md & 3))
		return MS_MEMCG_UNKNOWN;
	if (md == (__u64)mine)
		return MS_MEMCG_DIRECT;
	if (BPF_CORE_READ((struct obj_cgroup *)md, memcg) == mine)
		return MS_MEMCG_OBJCG;
	return MS_MEMCG_UNKNOWN;
}

SEC("syscall")
int find_folio(void *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *file = NULL;
	struct address_space *as;
	__u64 e = 0;
	int i;

	folio = 0;
	folio_err = -2;		/* ENOENT */
	if (!fdt || memfd_fd < 0 || (unsigned int)memfd_fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[memfd_fd & 0xffff]) || !file)
		return 0;
	as = BPF_CORE_READ(file, f_mapping);
	if (!as)
		return 0;
	e = (__u64)BPF_CORE_READ(as, i_pages.xa_head);
	/* an internal node is (node | 2); descend slot 0 (include/linux/xarray.h) */
	for (i = 0; i < 8; i++) {
		struct xa_node *node;

		if ((e & 3) != 2 || e <= 4096)
			break;
		node = (struct xa_node *)(e - 2);
		e = (__u64)BPF_CORE_READ(node, slots[0]);
	}
	if (!e || (e & 3)) {
		folio_err = -11;	/* EAGAIN: swapped out, shadow or still a node */
		return 0;
	}
	folio = e;
	folio_err = 0;
	feat.memcg_kind = probe_memcg_kind(e);
	return 0;
}

/* per node: [start, end) and first_deferred_pfn, for the section cache of periodic walks */
#define MS_MAX_NODES 64
__u32 nr_node_ids;		/* set by user space from /sys/devices/system/node/possible */
__u32 nr_nodes_read;
__u64 node_start[MS_MAX_NODES], node_end[MS_MAX_NODES], node_deferred[MS_MAX_NODES];

SEC("syscall")
int get_deferred(void *ctx)
{
	struct mem_cgroup *memcg;
	__u32 nid;

	nr_nodes_read = 0;
	if (!bpf_core_field_exists(struct pglist_data, first_deferred_pfn))
		return 0;
	memcg = current_memcg();
	if (!memcg)
		return 0;
	for (nid = 0; nid < MS_MAX_NODES && nid < nr_node_ids; nid++) {
		struct mem_cgroup_per_node *pn = NULL;
		struct pglist_data *pgdat;

		if (bpf_probe_read_kernel(&pn, sizeof(pn), &memcg->nodeinfo[nid]) || !pn)
			break;
		pgdat = BPF_CORE_READ(pn, lruvec.pgdat);
		if (!pgdat || BPF_CORE_READ(pgdat, node_id) != (int)nid)
			break;
		node_start[nid] = BPF_CORE_READ(pgdat, node_start_pfn);
		node_end[nid] = node_start[nid] + BPF_CORE_READ(pgdat, node_spanned_pages);
		node_deferred[nid] = BPF_CORE_READ(pgdat, first_deferred_pfn);
		nr_nodes_read = nid + 1;
	}
	return 0;
}

SEC("iter/task_vma")
int collect_exec(struct bpf_iter__task_vma *ctx)
{
	struct vm_area_struct *vma = ctx->vma;
	struct file *file;
	__u64 mapping;

	if (!vma || !(BPF_CORE_READ(vma, vm_flags) & MS_VM_EXEC))
		return 0;
	file = BPF_CORE_READ(vma, vm_file);
	if (!file)
		return 0;
	mapping = (__u64)BPF_CORE_READ(file, f_mapping);
	if (!mapping)
		return 0;
	bpf_map_update_elem(&exec_set, &mapping, &generation, BPF_ANY);
	exec_vmas++;
	return 0;
}

/*
 * The facts of the mappings this walker saw, in a direct-mapped array of its own (in its state,
 * so each parallel worker has one): a slot is two plain loads, where a hash lookup is a helper
 * call and a chain walk, and an LRU hash's insert of every new mapping cost more again (the page
 * cache of one file is scattered across memory, so consecutive pages rarely share a mapping,
 * and a machine with a large page cache has tens of thousands of mappings). A mapping whose
 * slot another took is read from the kernel again: 65536 slots keep that rare (2 MiB a worker).
 */
/* The facts of a file mapping: the previous page's, a slot's, or read anew. */
static __u32 facts_of(struct ms_bpf_walker *w, __u64 mapping)
{
	struct ms_mapping_facts nv = {};
	struct address_space *as = (struct address_space *)mapping;
	__u32 slot;
	__u32 *gen;
	__u64 magic;

	if (mapping == w->last_mapping)
		return w->last_facts;
	slot = ((mapping * 0x9e3779b97f4a7c15ULL) >> (64 - MS_FACT_BITS)) & (MS_FACT_SLOTS - 1);
	if (w->fact_mapping[slot] == mapping && w->fact_slot[slot].generation == generation) {
		nv = w->fact_slot[slot];
		goto out;
	}
	w->cache_misses++;
	magic = BPF_CORE_READ(as, host, i_sb, s_magic);
	nv.ino = BPF_CORE_READ(as, host, i_ino);
	nv.dev = BPF_CORE_READ(as, host, i_sb, s_dev);
	if (magic == BDEVFS_MAGIC)
		nv.flags |= MS_MAP_BDEV;
	else if (magic == TMPFS_MAGIC)
		nv.flags |= MS_MAP_SHMEM;
	gen = bpf_map_lookup_elem(&exec_set, &mapping);
	if (gen && *gen == generation)
		nv.flags |= MS_MAP_EXEC;
	nv.generation = generation;
	w->fact_mapping[slot] = mapping;
	w->fact_slot[slot] = nv;
out:
	w->last_mapping = mapping;
	w->last_facts = nv.flags;
	w->last_ino = nv.ino;
	w->last_dev = nv.dev;
	return nv.flags;
}

/* The cgroup id of a memcg_data word (0: none, or a slab's object vector). */
static __u64 cgroup_of(struct ms_bpf_walker *w, __u64 md)
{
	struct mem_cgroup *mc;
	__u64 ptr = md & ~3ULL;

	if (!md || (md & 1))
		return 0;
	if (md == w->last_memcg_data)
		return w->last_cgroup;
	/* MEMCG_DATA_KMEM, or a 7.x user folio: an obj_cgroup (find_folio's probe tells) */
	if ((md & 2) || feat.memcg_kind == MS_MEMCG_OBJCG)
		mc = BPF_CORE_READ((struct obj_cgroup *)ptr, memcg);
	else if (feat.memcg_kind == MS_MEMCG_DIRECT)
		mc = (struct mem_cgroup *)ptr;
	else
		mc = NULL;
	w->last_cgroup = mc ? BPF_CORE_READ(mc, css.cgroup, kn, id) : 0;
	/*
	 * A kernfs id is a small number (generation << 32 | inode). Anything that looks like a
	 * kernel address means the pointer was not what the probe said: print no id rather than
	 * an address.
	 */
	if (w->last_cgroup >> 48)
		w->last_cgroup = 0;
	w->last_memcg_data = md;
	return w->last_cgroup;
}

/*
 * The range walk (walk.h) over a worker's state w (include/bpf_walker.h, MS_WALKER_T). In the
 * steps of the batch loop ctx says which program runs them (NULL: walk, MS_CTX_CAST:
 * walk_cast); from a visit on, ctx is w itself, for classify.h's hooks and the caches. The
 * visits and allpages' steps go through global functions, verified once; each takes w, a
 * pointer the verifier sees as possibly NULL.
 */
__noinline int dump_take(struct ms_bpf_walker *w, __u64 pfn, __u32 jsub, __u64 start, __u32 n);
__noinline int dump_record(struct ms_bpf_walker *w, __u64 pfn, __u32 j);
__noinline int visit_batch(struct ms_bpf_walker *w, __u64 base, __u64 end);
__noinline int visit_batch_cast(struct ms_bpf_walker *w, __u64 base, __u64 end);
__noinline int hole_recs(struct ms_bpf_walker *w, __u64 from, __u64 stop);
#define MS_CTX_CAST ((void *)1)	/* the ctx of walk_cast's steps (visit_how below) */
/*
 * Set by user space before loading: 0 when this walker makes no per-page records (no
 * MS_BPF_ALLPAGES: no pagerecs to fill). A constant of the frozen .rodata, so the verifier
 * prunes the recording paths, and kernels from 6.8 (2afae08c9dcb "bpf: Validate global subprogs
 * lazily") skip verifying dump_take, dump_record and hole_recs, which nothing then calls.
 */
const volatile __u32 records_loaded = 1;
#define MS_WALK_RECORDS(w) (records_loaded && (w)->dump_pages)
#define MS_WALKER_T struct ms_bpf_walker
#define MS_WALK_LOOP
/* dump_take's j and sub in one argument: a BPF function takes at most five */
#define MS_WALK_TAKE(ctx, w, f, pfn, j, p, h, v) \
	dump_take(w, pfn, (j) | ((v)->sub << 8), (v)->start, (v)->n)
#define MS_WALK_RECORD(ctx, w, pfn, j, p) dump_record(w, pfn, j)
#define MS_WALK_VISITS(ctx, w, base, end, b) \
	((ctx) == MS_CTX_CAST ? visit_batch_cast(w, base, end) : visit_batch(w, base, end))
#define MS_WALK_HOLE_RECS(ctx, w, from, stop) hole_recs(w, from, stop)
#include "walk.h"

/* classify.h's and walk.h's hooks: struct pages straight from vmemmap, facts from the caches */
static int ms_hook_read(void *ctx, __u64 pfn, __u64 *w, __u32 nwords)
{
	void *src = (void *)(feat.vmemmap_base + pfn * 64);

	if (nwords > MS_PAGE_WORDS)
		return bpf_probe_read_kernel(w, 2 * MS_PAGE_WORDS * 8, src);
	return bpf_probe_read_kernel(w, MS_PAGE_WORDS * 8, src);
}

static __u32 ms_hook_facts(void *ctx, __u64 mapping)
{
	return facts_of(ctx, mapping);
}

/*
 * Does the slab cache at cache account its pages as reclaimable? Its flags are read once per
 * walk (a slot another cache took is read again); a read that faults (a torn read left a stale
 * pointer) answers no and is not kept.
 */
static int ms_hook_slab_reclaim(void *ctx, __u64 cache)
{
	struct ms_bpf_walker *w = ctx;
	struct kmem_cache___c *c = (struct kmem_cache___c *)cache;
	__u32 slot = ((cache * 0x9e3779b97f4a7c15ULL) >> (64 - MS_CACHE_BITS)) & (MS_CACHE_SLOTS - 1);
	__u32 fl;

	if (!slab_reclaim_mask)
		return 0;
	if (w->cache_addr[slot] == cache && w->cache_gen[slot] == generation)
		return w->cache_reclaim[slot];
	if (bpf_probe_read_kernel(&fl, sizeof(fl), &c->flags))
		return 0;
	w->cache_addr[slot] = cache;
	w->cache_gen[slot] = generation;
	w->cache_reclaim[slot] = (fl & slab_reclaim_mask) != 0;
	return w->cache_reclaim[slot];
}

/*
 * How walk_cast reads the batch in hand (w->visit_how): copied like walk's (allpages, which
 * records every page's words), or not at all, each page it visits being read through
 * bpf_rdonly_cast (visit_cast()); then the batch is only checked to be mapped (a 4 KiB page of
 * vmemmap is mapped or not as a whole), unless a load already read something other than zero
 * from it. In memory, not a constant per call, so that the verifier checks the walk loop once,
 * not once per way. walk passes a NULL ctx and always copies: 6.1 has no bpf_rdonly_cast.
 */
enum { MS_HOW_COPY, MS_HOW_CAST, MS_HOW_CAST_MAPPED };

static const __u64 *ms_hook_batch(void *ctx, struct ms_bpf_walker *w, __u64 base)
{
	void *src = (void *)(feat.vmemmap_base + base * 64);
	__u64 word;

	if (ctx == MS_CTX_CAST && w->visit_how == MS_HOW_CAST_MAPPED)
		return w->buf;
	if (ctx == MS_CTX_CAST && w->visit_how == MS_HOW_CAST)
		return bpf_probe_read_kernel(&word, sizeof(word), src) ? 0 : w->buf;
	if (bpf_probe_read_kernel(w->buf, sizeof(w->buf), src))
		return 0;
	return w->buf;
}

static void ms_hook_file(void *ctx, __u64 mapping, __u64 *ino, __u32 *dev)
{
	struct ms_bpf_walker *w = ctx;

	facts_of(w, mapping);
	*ino = w->last_ino;
	*dev = w->last_dev;
}

static __u64 ms_hook_cgroup(void *ctx, __u64 memcg_data)
{
	return cgroup_of(ctx, memcg_data);
}

static struct ms_page_rec *ms_hook_rec(void *ctx, struct ms_bpf_walker *w, __u32 idx)
{
	return bpf_map_lookup_elem(&pagerecs, &idx);
}

__noinline int dump_take(struct ms_bpf_walker *w, __u64 pfn, __u32 jsub, __u64 start, __u32 n)
{
	const __u64 *p;

	if (!w)
		return 0;
	p = &w->buf[(jsub & (MS_BATCH_PAGES - 1)) * MS_PAGE_WORDS];
	ms_walk_take(w, w, &feat, pfn, p, start == pfn ? p : w->hbuf, start, n, jsub >> 8);
	return 0;
}

__noinline int dump_record(struct ms_bpf_walker *w, __u64 pfn, __u32 j)
{
	if (w)
		ms_walk_record(w, w, pfn, &w->buf[(j & (MS_BATCH_PAGES - 1)) * MS_PAGE_WORDS]);
	return 0;
}

/*
 * The page being visited, and the next one when it is a head: its order, or an HVO fake head
 * (classify.h needs the next page only then). visit() and visit_cast() fill w->pw, each its
 * way, and call visit_page(), so that the verifier checks the verdict's code once.
 */
__noinline int visit_page(struct ms_bpf_walker *w, __u64 pfn, __u32 j, __u32 has_next)
{
	const __u64 *p1;

	if (!w)
		return 0;
	p1 = has_next ? w->pw + MS_PAGE_WORDS : 0;
	/* opaque to clang, which would otherwise fold the NULL case into loads at small offsets */
	asm volatile("" : "+r"(p1));
	ms_walk_page(w, w, &feat, pfn, j, w->pw, p1, w->hbuf);
	return 0;
}

/* Classify the page at pfn, the j-th of the batch in w->buf. A global function: verified once. */
__noinline int visit(struct ms_bpf_walker *w, __u64 pfn, __u32 j)
{
	const __u64 *p;
	__u32 has_next;
	int i;

	if (!w)
		return 0;
	p = &w->buf[(j & (MS_BATCH_PAGES - 1)) * MS_PAGE_WORDS];
	has_next = (j & (MS_BATCH_PAGES - 1)) < MS_BATCH_PAGES - 1 &&
		   ms_flag(p[MS_W_FLAGS], feat.pg_head);
	for (i = 0; i < MS_PAGE_WORDS; i++)
		w->pw[i] = p[i];
	if (has_next)
		for (i = MS_PAGE_WORDS; i < 2 * MS_PAGE_WORDS; i++)
			w->pw[i] = p[i];
	return visit_page(w, pfn, j, has_next);
}

/*
 * visit(), with the page's words loaded through an untrusted pointer (v6.2+): 8 loads, and 8
 * more for the next page only when it is needed, instead of a copy of the whole batch for
 * each batch with a page to visit (a 4 KiB bpf_probe_read_kernel costs as much as reading
 * about 40 pages this way). The pointer is typed struct pt_regs (168 bytes, unsigned longs:
 * core_fixes.bpf.h), so the loads are scalars; the caller checked that this piece of vmemmap
 * is mapped.
 */
__noinline int visit_cast(struct ms_bpf_walker *w, __u64 pfn, __u32 j)
{
	const __u64 *s = bpf_rdonly_cast((void *)(feat.vmemmap_base + pfn * 64), ms_pt_regs_id());
	__u32 has_next;
	int i;

	if (!w)
		return 0;
	for (i = 0; i < MS_PAGE_WORDS; i++)
		w->pw[i] = s[i];
	has_next = (j & (MS_BATCH_PAGES - 1)) < MS_BATCH_PAGES - 1 &&
		   ms_flag(w->pw[MS_W_FLAGS], feat.pg_head);
	if (has_next)
		for (i = MS_PAGE_WORDS; i < 2 * MS_PAGE_WORDS; i++)
			w->pw[i] = s[i];
	return visit_page(w, pfn, j, has_next);
}

static void ms_hook_visit(void *ctx, struct ms_bpf_walker *w, __u64 pfn, __u32 j,
			  const __u64 *p, const __u64 *p1)
{
	if (ctx == MS_CTX_CAST && w->visit_how != MS_HOW_COPY)
		visit_cast(w, pfn, j);
	else
		visit(w, pfn, j);
}

/*
 * walk.h's two loops, each in a global function that the verifier checks once: the visits of
 * the batch at base from the cursor on, one function per program (walk's must not name
 * visit_cast: 6.1 has no bpf_rdonly_cast), visit_how read from memory in the loop so that both
 * ways of a visit reach the next page in one state; and allpages' records of a hole.
 */
__noinline int visit_batch(struct ms_bpf_walker *w, __u64 base, __u64 end)
{
	if (w)
		ms_walk_visits(NULL, w, base, end, w->buf);
	return 0;
}

__noinline int visit_batch_cast(struct ms_bpf_walker *w, __u64 base, __u64 end)
{
	if (w)
		ms_walk_visits(MS_CTX_CAST, w, base, end, w->buf);
	return 0;
}

__noinline int hole_recs(struct ms_bpf_walker *w, __u64 from, __u64 stop)
{
	if (w)
		ms_walk_hole_recs(w, w, from, stop);
	return 0;
}

/* bpf_loop's context: the worker's state (a pointer on the caller's stack) */
struct walk_loop {
	struct ms_bpf_walker *w;
};

/* One batch: read 64 struct pages (4 KiB) at once, classify from the copy. */
static long walk_batch(__u64 idx, struct walk_loop *c)
{
	return ms_walk_step(NULL, c->w, 1);
}

/*
 * Is every struct page of the batch at base never initialised? Loads only the three words
 * ms_page_uninit() tests, straight from vmemmap through an untrusted pointer (the JIT makes
 * them plain loads with an exception fixup), instead of copying all 64 bytes of 64 pages: on a
 * kernel with lazy deferred init most of memory is such pages. The pointer is typed struct
 * pt_regs, whose first words are unsigned longs (core_fixes.bpf.h), so the loads are scalars.
 * The first page is tested alone first: a batch in use fails there, at the cost of three loads
 * rather than 192. Returns 1 for a batch of such pages, 0 for a batch in use (a load that read
 * something other than zero did not fault: this piece of vmemmap is mapped), -1 otherwise.
 */
static __always_inline int batch_uninit(__u64 base)
{
	__u64 addr = feat.vmemmap_base + base * 64, acc, w;
	__u32 id = ms_pt_regs_id();
	const __u64 *p = bpf_rdonly_cast((void *)addr, id);
	int i;

	acc = ms_words_set(p[MS_W_FLAGS], p[MS_W_HEAD], p[MS_W_TYPE]);
	if (acc)
		return 0;
	for (i = 1; i < MS_BATCH_PAGES; i++) {
		p = bpf_rdonly_cast((void *)(addr + i * 64), id);
		acc |= ms_words_set(p[MS_W_FLAGS], p[MS_W_HEAD], p[MS_W_TYPE]);
	}
	if (acc)
		return 0;
	/* a faulting load reads as zero: check that this piece of vmemmap is mapped */
	return bpf_probe_read_kernel(&w, sizeof(w), (void *)addr) ? -1 : 1;
}

/* walk_batch, with the uninitialised test through bpf_rdonly_cast instead of the copy */
static long walk_batch_cast(__u64 idx, struct walk_loop *c)
{
	struct ms_bpf_walker *w = c->w;
	__u64 cur = w->cursor, base = cur & ~(__u64)(MS_BATCH_PAGES - 1);

	if (cur < w->walk_end && !w->dump && !MS_WALK_RECORDS(w) && cur == base &&
	    w->walk_end - base >= MS_BATCH_PAGES) {
		int u = batch_uninit(base);

		if (u > 0) {
			w->counts[MS_FREE_UNINIT] += MS_BATCH_PAGES;
			w->cursor = base + MS_BATCH_PAGES;
			return 0;
		}
		w->visit_how = u == 0 ? MS_HOW_CAST_MAPPED : MS_HOW_CAST;
	} else {
		/* allpages records the words of every page: from the copy */
		w->visit_how = MS_WALK_RECORDS(w) ? MS_HOW_COPY : MS_HOW_CAST;
	}
	return ms_walk_step(MS_CTX_CAST, w, 0);
}

/* at most 2^23 batches per call; user space passes one memory section at a time */
#define MS_LOOPS (MS_SECTION_PAGES / MS_BATCH_PAGES + 2)

/*
 * A walk that did not reach walk_end (bpf_loop failed, or ran out of iterations for a range
 * longer than one section) must not pass for a whole one: the return value tells user space.
 */
#define MS_WALK_LOOP_FAILED	1
#define MS_WALK_SHORT		2
#define MS_WALK_NO_WORKER	3

static __always_inline int walk_end_check(struct ms_bpf_walker *w, long loops)
{
	if (loops < 0)
		return MS_WALK_LOOP_FAILED;
	return w->cursor < w->walk_end ? MS_WALK_SHORT : 0;
}

/* The walk of worker ctx->worker, batch by batch with batch_fn (walk_batch or _cast). */
static __always_inline int walk_worker(struct ms_walk_ctx *ctx,
				       long (*batch_fn)(__u64, struct walk_loop *))
{
	__u32 k = ctx->worker;
	struct walk_loop c = { bpf_map_lookup_elem(&walkers, &k) };

	if (!c.w)
		return MS_WALK_NO_WORKER;
	ms_walk_begin(c.w);
	return walk_end_check(c.w, bpf_loop(MS_LOOPS, batch_fn, &c, 0));
}

/* The walk: every worker runs this one program, verified once. */
SEC("syscall")
int walk(struct ms_walk_ctx *ctx)
{
	return walk_worker(ctx, walk_batch);
}

/* walk, with the cheaper test for batches of uninitialised struct pages (v6.2+) */
SEC("syscall")
int walk_cast(struct ms_walk_ctx *ctx)
{
	return walk_worker(ctx, walk_batch_cast);
}

#include "names.bpf.h"
