/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every kernel-layout assumption of the BPF walker, in one place.
 *
 * The kernel types below are minimal local definitions with preserve_access_index: libbpf
 * relocates each field access against the running kernel's BTF (CO-RE), so the build does not
 * depend on the build machine's kernel and one object runs on 6.1 ... 7.x. Where a name changed
 * between versions, a ___flavor type carries the other name; bpf_core_*_exists() picks the one
 * the running kernel has. Each difference cites the kernel commit that made it (details and
 * measurements in docs/page-classes.md, sections 3 and 7).
 *
 * ms_kernel_facts() gathers what the running kernel has; classify.h's ms_features_from_facts()
 * turns that into struct ms_features, the only thing the shared
 * classifier (classify.h) knows about the kernel.
 */
#ifndef MEMSTAT_CORE_FIXES_BPF_H
#define MEMSTAT_CORE_FIXES_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "memstat.h"
#include "classify.h"	/* ms_slab_reclaim_mask_of() */

#define __ctx_ptr(type, name) union { type name; __u64 :64; } __attribute__((aligned(8)))

struct address_space;
struct xa_node;

struct xarray {
	void *xa_head;
} __attribute__((preserve_access_index));

struct xa_node {
	void *slots[64];
} __attribute__((preserve_access_index));

struct dentry;
struct address_space;

struct super_block {
	unsigned long s_magic;
	unsigned int s_dev;	/* dev_t */
	struct dentry *s_root;	/* file_paths: where a path ends */
} __attribute__((preserve_access_index));

/*
 * file_paths (memstat --by file/exec) names a file from its inode's dentries, as d_path() would
 * up to the superblock's root (fs/dcache.c, fs/d_path.c). Every version from 6.1 to 7.x has:
 * - inode->i_dentry, an hlist of the inode's dentries, linked through dentry->d_u.d_alias
 *   (d_alias in the d_u union since 946e51f2bf37 "move d_rcu from overlapping d_child to
 *   overlapping d_alias", v3.19; in 7.x the union is anonymous: dentry___v7 below);
 * - inode->i_nlink, a const union member of __i_nlink (0: unlinked; shmem_file_setup() clears
 *   it for memfds and SysV shm: "It is unlinked", mm/shmem.c);
 * - dentry->d_name, a struct qstr, a plain member up to 6.14 and a const member of a union with
 *   __d_name since 6.15 (the dcache series that made d_name read-only): CO-RE finds it by name;
 * - dentry->d_hash.pprev == NULL when unhashed (d_unhashed(), include/linux/dcache.h);
 * - a root dentry is its own parent (IS_ROOT()); a pseudo file's dentry (d_alloc_pseudo():
 *   memfd_create() names it "memfd:NAME", ipc/shm.c "SYSV%08x") is one too, without being
 *   its superblock's s_root.
 * Each read goes through bpf_core_read(), so an address that is no longer what it was reads
 * as a failure, never a fault; the program checks host->i_mapping, i_ino and s_dev against
 * what the walk saw before it trusts a mapping pointer.
 */
struct inode {
	struct super_block *i_sb;
	unsigned long i_ino;
	struct address_space *i_mapping;
	unsigned int i_nlink;
	unsigned int i_rdev;	/* dev_t */
	struct hlist_head___ms { struct hlist_node___ms *first; } i_dentry;
} __attribute__((preserve_access_index));

struct hlist_node___ms {
	struct hlist_node___ms *next, **pprev;
} __attribute__((preserve_access_index));

/*
 * inode->i_state: an inode being evicted or freed (I_WILL_FREE, I_FREEING, I_CLEAR) is not one
 * to name: a freed inode's memory still reads as it was left, i_mapping and i_ino included.
 * Its type and the bits moved:
 * - 6.1-6.11: unsigned long, I_WILL_FREE 1 << 4, I_FREEING 1 << 5, I_CLEAR 1 << 6 (macros);
 * - 6.12: u32, the bits renumbered to 1 << 6, 7, 8 (macros) by the "inode: port __I_NEW to var
 *   event" series (Christian Brauner, v6.12), which made room for the wait bits;
 * - 6.18: enum inode_state_flags_t, with the values in BTF (1 << 7, 8, 9);
 * - 7.x: struct inode_state_flags { enum inode_state_flags_enum __state; } behind
 *   inode_state_read() ("fs: hide ->i_state handling behind accessors").
 * One flavor per type (CO-RE does not match an int with an enum or a struct); ms_inode_dying()
 * in memstat.bpf.c picks the one the kernel has.
 */
struct inode___st_int {
	unsigned long i_state;
} __attribute__((preserve_access_index));

enum inode_state_flags_t___ms { I_WILL_FREE___ms = 128, I_FREEING___ms = 256, I_CLEAR___ms = 512 };

struct inode___st_enum {
	enum inode_state_flags_t___ms i_state;
} __attribute__((preserve_access_index));

enum inode_state_flags_enum___ms { I_WILL_FREE___v7 = 128, I_FREEING___v7 = 256,
				   I_CLEAR___v7 = 512 };

struct inode_state_flags___ms {
	enum inode_state_flags_enum___ms __state;
} __attribute__((preserve_access_index));

struct inode___st_v7 {
	struct inode_state_flags___ms i_state;
} __attribute__((preserve_access_index));

struct hlist_bl_node___ms {
	struct hlist_bl_node___ms *next, **pprev;
} __attribute__((preserve_access_index));

struct qstr___ms {
	const unsigned char *name;
} __attribute__((preserve_access_index));

struct dentry {
	struct hlist_bl_node___ms d_hash;
	struct dentry *d_parent;
	struct qstr___ms d_name;
	struct inode *d_inode;
	union {
		struct hlist_node___ms d_alias;
	} d_u;
} __attribute__((preserve_access_index));

/*
 * 7.x: the union that holds d_alias is anonymous (no d_u: d_alias, d_in_lookup_hash, d_rcu and
 * the new waiters are direct members, include/linux/dcache.h of 7.3); memstat.bpf.c picks the
 * flavor the kernel has with bpf_core_field_exists().
 */
struct dentry___v7 {
	struct hlist_node___ms d_alias;
} __attribute__((preserve_access_index));

/*
 * The cgroup of a page's memcg (allpages): page->memcg_data is a struct mem_cgroup * for user
 * folios (6.1-6.18), or with bit 1 (MEMCG_DATA_KMEM) a struct obj_cgroup *; bit 0 marks a
 * slab's object-extension vector (docs/page-classes.md 3.8). kernfs_node.id is the cgroup id
 * (u64 since 5.5). 7.x stores an obj_cgroup for user folios too; see memstat.bpf.c cgroup_of().
 */
struct kernfs_node {
	__u64 id;
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state {
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

struct pglist_data {
	unsigned long node_start_pfn;
	unsigned long node_spanned_pages;
	int node_id;
	/*
	 * Only with CONFIG_DEFERRED_STRUCT_PAGE_INIT: struct pages from here to the node's end
	 * are not initialised yet, except boot-reserved ones (mm/mm_init.c, defer_init() and
	 * deferred_grow_zone(); docs/page-classes.md 3.9 and 6.4). Only ever grows.
	 */
	unsigned long first_deferred_pfn;
} __attribute__((preserve_access_index));

struct lruvec {
	struct pglist_data *pgdat;	/* CONFIG_MEMCG */
} __attribute__((preserve_access_index));

struct mem_cgroup_per_node {
	struct lruvec lruvec;
} __attribute__((preserve_access_index));

struct mem_cgroup {
	struct cgroup_subsys_state css;
	struct mem_cgroup_per_node *nodeinfo[];	/* nr_node_ids entries */
} __attribute__((preserve_access_index));

/* task->cgroups->subsys[memory_cgrp_id] is the task's memcg (css is its first member) */
struct css_set {
	struct cgroup_subsys_state *subsys[1];
} __attribute__((preserve_access_index));

enum cgroup_subsys_id___c { memory_cgrp_id___c };

struct obj_cgroup {
	struct mem_cgroup *memcg;
} __attribute__((preserve_access_index));

struct address_space {
	struct inode *host;
	struct xarray i_pages;
} __attribute__((preserve_access_index));

struct file {
	struct address_space *f_mapping;
} __attribute__((preserve_access_index));

struct fdtable {
	unsigned int max_fds;
	struct file **fd;
} __attribute__((preserve_access_index));

struct files_struct {
	struct fdtable *fdt;
} __attribute__((preserve_access_index));

struct task_struct {
	struct files_struct *files;
	struct css_set *cgroups;
} __attribute__((preserve_access_index));

/*
 * vm_flags: a plain field up to 6.2; since bc292ab00f6c "mm: introduce vma->vm_flags wrapper
 * functions" (v6.3) a const member of a union with __vm_flags. The name resolves on every
 * version; VM_EXEC is 0x4 everywhere (include/linux/mm.h).
 */
struct vm_area_struct {
	unsigned long vm_flags;
	struct file *vm_file;
} __attribute__((preserve_access_index));

#define MS_VM_EXEC 0x4UL

/*
 * A read window for bpf_rdonly_cast() (memstat.bpf.c batch_uninit()): x86_64 struct pt_regs
 * (arch/x86/include/asm/ptrace.h) starts with 21 unsigned longs (r15 ... ss) in every kernel,
 * so loads at offsets 0..56 through it are plain scalar loads of the memory it points to.
 */
struct pt_regs {
	unsigned long r15;
} __attribute__((preserve_access_index));

/*
 * Its id in the kernel's BTF, which bpf_rdonly_cast() takes, set by user space before loading
 * (src/backend/btf_cache.c, from the CO-RE types cache or the kernel's whole BTF): a CO-RE
 * relocation (bpf_core_type_id_kernel) would give the reduced BTF's id under the cache.
 */
const volatile __u32 pt_regs_btf_id;

static __always_inline __u32 ms_pt_regs_id(void)
{
	return pt_regs_btf_id;
}

/*
 * The kfunc bpf_rdonly_cast(), v6.2+ (a35b9af4ec2c "bpf: Add a kfunc for generic type cast").
 * Not declared as a __ksym: libbpf would then parse the kernel's whole BTF (5 MiB: 6 to 9 ms of
 * every run) to find its id. Its calls are compiled as calls of helper MS_CALL_RDONLY_CAST
 * (memstat.h), a number no helper has, which user space makes calls of the kfunc, by its id in
 * the kernel's BTF, just before the program is loaded (src/backend/bpf_open.c); left as they
 * are, the kernel refuses the program ("invalid func"), never runs it. Only walk_cast calls it,
 * and user space loads walk_cast only where the kernel has the kfunc (6.1 has not).
 */
static void *(* const bpf_rdonly_cast)(const void *obj, __u32 btf_id) =
	(void *)MS_CALL_RDONLY_CAST;

/*
 * The context of SEC("iter/task_vma") (kernel/bpf/task_iter.c, v5.12+). libbpf would look up
 * the program's attach target, the function bpf_iter_task_vma, in the kernel's whole BTF: user
 * space gives its id instead (src/backend/bpf_open.c), as it does bpf_rdonly_cast's.
 */
struct bpf_iter_meta;
struct bpf_iter__task_vma {
	__ctx_ptr(struct bpf_iter_meta *, meta);
	__ctx_ptr(struct task_struct *, task);
	__ctx_ptr(struct vm_area_struct *, vma);
};

/*
 * struct page. Only offsets are taken from it (the walker copies whole struct pages and
 * classify.h reads fixed words); ms_kernel_facts() refuses a kernel where these offsets are
 * not the ones classify.h uses. The fields sit in anonymous unions in the kernel; libbpf matches
 * them by name through those.
 */
struct page {
	unsigned long compound_head;
	struct address_space *mapping;
	unsigned long private;
	unsigned int page_type;
	struct { int counter; } _refcount;	/* atomic_t */
	unsigned long memcg_data;
} __attribute__((preserve_access_index));

/*
 * 7.x renamed compound_head to compound_info ("mm: rework compound_head() for power-of-2
 * sizeof(struct page)", the "eliminate fake head pages" series) and may store a mask there;
 * classify.h's ms_is_head_mask() decodes both forms.
 */
struct page___v7 {
	unsigned long compound_info;
} __attribute__((preserve_access_index));

/*
 * <= 6.5: page[1] holds compound_dtor and compound_order bytes (offsets 80 and 81 from the
 * head). Removed by ebc1baf5c9b4 "mm: free up a word in the first tail page" and 9c5ccf2db04b
 * "mm: remove HUGETLB_PAGE_DTOR" (v6.6), which moved the order to page[1].flags & 0xff.
 */
struct page___v61 {
	unsigned char compound_dtor;
	unsigned char compound_order;
} __attribute__((preserve_access_index));

/*
 * 6.3-6.5: the same two bytes exist only as struct folio's _folio_dtor and _folio_order (the
 * folio conversion dropped them from struct page), at the same offsets (+80, +81 from the head).
 */
struct folio___v63 {
	unsigned char _folio_dtor;
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

/*
 * page_pool pages (classify.h ms_page_pool()): pp_magic overlays lru.next (word 1) on every
 * supported kernel; ee62ce7a1d90 "page_pool: Track DMA-mapped pages and unmap them when
 * destroying the pool" (v6.16, backported to 6.12.y) put a DMA index in pp_magic bits 7..38
 * and, in the same commit, the xarray dma_mapped into struct page_pool: its presence says
 * which PP_MAGIC_MASK the kernel uses.
 */
struct page___pp {
	unsigned long pp_magic;
} __attribute__((preserve_access_index));

struct page_pool___dma {
	struct xarray dma_mapped;
} __attribute__((preserve_access_index));

/*
 * Slab pages: which meminfo counter (SReclaimable or SUnreclaim) the kernel charges a slab to
 * is its cache's SLAB_RECLAIM_ACCOUNT flag (mm/slab.h cache_vmstat_idx(), 6.1 to 7.x).
 * - struct slab's slab_cache: offset 24 on 6.1, 8 from 130d4df57390 "mm/sl[au]b: rearrange
 *   struct slab fields to allow larger rcu_head" (v6.2); taken from BTF.
 * - struct kmem_cache's flags: its offset differs with version and config (6.18 puts a
 *   lock_class_key and the sheaves pointer before it); taken from BTF.
 * - SLAB_RECLAIM_ACCOUNT: a macro, 0x00020000, in include/linux/slab.h of 6.1; since the flags
 *   became bits of enum _slab_flag_bits (6.12, 6.18 and 7.3 have it) the bit depends on the
 *   config (6.18: bit 15), and BTF has the enum. With CONFIG_SLUB_TINY the flag is
 *   __SLAB_FLAG_UNUSED: no cache has the bit, and the kernel counts every slab in SUnreclaim,
 *   as the walk then does.
 */
struct slab___c {
	void *slab_cache;
} __attribute__((preserve_access_index));

struct kmem_cache___c {
	unsigned int flags;
} __attribute__((preserve_access_index));

enum _slab_flag_bits___c { _SLAB_RECLAIM_ACCOUNT___c = 15 };

/*
 * --by slab (names.bpf.h slab_name): a cache's name, object_size, size and its link in
 * slab_caches (list), from SLUB's struct kmem_cache (include/linux/slub_def.h up to 6.7, then
 * mm/slab.h, moved by the series of 16a1d968358a "mm/slab: remove mm/slab.c and slab_def.h",
 * v6.8, which left SLUB the only allocator; Debian's 6.1 builds SLUB too); offsets from BTF.
 */
struct list_head___ms {
	struct list_head___ms *next, *prev;
};

struct kmem_cache___n {
	const char *name;
	unsigned int object_size;
	unsigned int size;
	struct list_head___ms list;
} __attribute__((preserve_access_index));

enum compound_dtor_id___c { HUGETLB_PAGE_DTOR___c = 2, NULL_COMPOUND_DTOR___c = 0 };

/*
 * Page-flag bit numbers differ between versions and configs (c704ae979784 "mm: rearrange page
 * flags", v6.6, moved head to bit 6 and writeback to 1), so every bit comes from enum pageflags.
 * PG_slab: removed by "mm: free up PG_slab" (v6.10), replaced by a page type.
 * PG_hugetlb: a page[1] flag from 9c5ccf2db04b (v6.6) until d99e3140a4d3 "mm: turn folio_test_hugetlb
 *   into a PageType" (v6.9; backported to 6.6.30 and 6.8.9).
 * PG_movable_ops: "mm/migration: rework movable_ops page migration (part 1)" (v6.17) turned the
 *   movable bit of page->mapping into this page flag.
 */
enum pageflags___c {
	PG_head___c, PG_reserved___c, PG_swapbacked___c, PG_owner_priv_1___c, PG_lru___c,
	PG_slab___c, PG_hugetlb___c, PG_movable_ops___c,
};

/*
 * Page types in the u32 at offset 48, three encodings (docs/page-classes.md 3.3):
 * - <= 6.10: macros (not in BTF): PAGE_TYPE_BASE 0xf0000000, a type clears its bit:
 *   PG_buddy 0x80, PG_offline 0x100, PG_table 0x200, PG_guard 0x400 (include/linux/page-flags.h
 *   6.1), PG_hugetlb 0x800 (d99e3140a4d3, v6.9 / 6.6.30), PG_slab 0x1000 (v6.10).
 * - 6.11: enum pagetype with inverted bits and PAGE_TYPE_BASE 0x80000000.
 * - >= 6.12: 4ffca5a96678 "mm: support only one page_type per page": enum pagetype of PGTY_*
 *   bytes in the top byte. PGTY_large_kmalloc from a6687c8ff613 "slab: Mark large folios for
 *   debugging purposes" (v6.15).
 */
enum pagetype___s3 {
	PGTY_buddy___s3, PGTY_offline___s3, PGTY_table___s3, PGTY_guard___s3, PGTY_hugetlb___s3,
	PGTY_slab___s3, PGTY_zsmalloc___s3, PGTY_unaccepted___s3, PGTY_large_kmalloc___s3,
};

enum pagetype___s2 {
	PG_buddy___s2, PG_offline___s2, PG_table___s2, PG_guard___s2, PG_hugetlb___s2,
	PG_slab___s2, PG_zsmalloc___s2, PG_unaccepted___s2, PAGE_TYPE_BASE___s2,
};

#define MS_PGFLAG(name)								\
	(bpf_core_enum_value_exists(enum pageflags___c, name##___c) ?		\
	 (__u8)bpf_core_enum_value(enum pageflags___c, name##___c) : (__u8)MS_NO_BIT)

#define MS_S3(name)								\
	(bpf_core_enum_value_exists(enum pagetype___s3, PGTY_##name##___s3) ?	\
	 (__u32)bpf_core_enum_value(enum pagetype___s3, PGTY_##name##___s3) : 0)

#define MS_S2(name)								\
	(bpf_core_enum_value_exists(enum pagetype___s2, PG_##name##___s2) ?	\
	 (__u32)bpf_core_enum_value(enum pagetype___s2, PG_##name##___s2) : 0)

/*
 * What the running kernel has, from BTF, into *k (classify.h's ms_features_from_facts() makes
 * struct ms_features of it); returns a MS_MISSING_* mask (0: supported).
 */
static __always_inline __u32 ms_kernel_facts(struct ms_kernel_facts *k)
{
	__u32 missing = 0;

	k->page_size = bpf_core_type_size(struct page);
	if (k->page_size != 64)
		missing |= MS_MISSING_PAGE_SIZE;

	if (bpf_core_field_offset(struct page, mapping) != 24 ||
	    bpf_core_field_offset(struct page, private) != 40 ||
	    bpf_core_field_offset(struct page, _refcount) != 52)
		missing |= MS_MISSING_OFFSETS;
	if (bpf_core_field_exists(struct page, page_type)) {
		if (bpf_core_field_offset(struct page, page_type) != 48)
			missing |= MS_MISSING_OFFSETS;
	}
	if (bpf_core_field_exists(struct page___v7, compound_info)) {
		if (bpf_core_field_offset(struct page___v7, compound_info) != 8)
			missing |= MS_MISSING_OFFSETS;
	} else if (bpf_core_field_exists(struct page, compound_head)) {
		if (bpf_core_field_offset(struct page, compound_head) != 8)
			missing |= MS_MISSING_OFFSETS;
	} else {
		missing |= MS_MISSING_HEAD;
	}

	if (bpf_core_field_exists(struct page___pp, pp_magic) &&
	    bpf_core_field_offset(struct page___pp, pp_magic) != 8)
		missing |= MS_MISSING_OFFSETS;
	k->pp_dma_index = bpf_core_field_exists(struct page_pool___dma, dma_mapped);
	if (bpf_core_field_exists(struct slab___c, slab_cache) &&
	    bpf_core_field_offset(struct slab___c, slab_cache) % 8 == 0 &&
	    bpf_core_field_offset(struct slab___c, slab_cache) < 64)
		k->slab_cache_word = bpf_core_field_offset(struct slab___c, slab_cache) / 8;

	k->pg_head = MS_PGFLAG(PG_head);
	k->pg_reserved = MS_PGFLAG(PG_reserved);
	k->pg_swapbacked = MS_PGFLAG(PG_swapbacked);
	k->pg_owner_priv_1 = MS_PGFLAG(PG_owner_priv_1);
	k->pg_lru = MS_PGFLAG(PG_lru);
	k->pg_slab = MS_PGFLAG(PG_slab);
	k->pg_hugetlb = MS_PGFLAG(PG_hugetlb);
	k->pg_movable_ops = MS_PGFLAG(PG_movable_ops);
	if (k->pg_head == MS_NO_BIT || k->pg_reserved == MS_NO_BIT ||
	    k->pg_swapbacked == MS_NO_BIT || k->pg_owner_priv_1 == MS_NO_BIT)
		missing |= MS_MISSING_PAGEFLAGS;

	k->has_compound_dtor = bpf_core_field_exists(struct page___v61, compound_dtor) ||
			       bpf_core_field_exists(struct folio___v63, _folio_dtor);
	k->has_dtor_enum = bpf_core_type_exists(enum compound_dtor_id___c);
	k->hugetlb_page_dtor =
		bpf_core_enum_value_exists(enum compound_dtor_id___c, HUGETLB_PAGE_DTOR___c) ?
		(__s16)bpf_core_enum_value(enum compound_dtor_id___c, HUGETLB_PAGE_DTOR___c) : -1;

	if (bpf_core_enum_value_exists(enum pagetype___s3, PGTY_buddy___s3)) {
		k->type_scheme = MS_PT_UPPER_BYTE;
		k->ptype[MS_T_BUDDY] = MS_S3(buddy);
		k->ptype[MS_T_OFFLINE] = MS_S3(offline);
		k->ptype[MS_T_TABLE] = MS_S3(table);
		k->ptype[MS_T_GUARD] = MS_S3(guard);
		k->ptype[MS_T_HUGETLB] = MS_S3(hugetlb);
		k->ptype[MS_T_SLAB] = MS_S3(slab);
		k->ptype[MS_T_ZSMALLOC] = MS_S3(zsmalloc);
		k->ptype[MS_T_UNACCEPTED] = MS_S3(unaccepted);
		k->ptype[MS_T_LARGE_KMALLOC] = MS_S3(large_kmalloc);
	} else if (bpf_core_enum_value_exists(enum pagetype___s2, PG_buddy___s2)) {
		k->type_scheme = MS_PT_INVERTED_ENUM;
		k->pt_base = bpf_core_enum_value_exists(enum pagetype___s2, PAGE_TYPE_BASE___s2) ?
			(__u32)bpf_core_enum_value(enum pagetype___s2, PAGE_TYPE_BASE___s2) : 0;
		k->ptype[MS_T_BUDDY] = MS_S2(buddy);
		k->ptype[MS_T_OFFLINE] = MS_S2(offline);
		k->ptype[MS_T_TABLE] = MS_S2(table);
		k->ptype[MS_T_GUARD] = MS_S2(guard);
		k->ptype[MS_T_HUGETLB] = MS_S2(hugetlb);
		k->ptype[MS_T_SLAB] = MS_S2(slab);
		k->ptype[MS_T_ZSMALLOC] = MS_S2(zsmalloc);
		k->ptype[MS_T_UNACCEPTED] = MS_S2(unaccepted);
	} else {
		k->type_scheme = MS_PT_INVERTED_BITS;	/* macros: classify.h knows them */
	}
	return missing;
}

/*
 * The SLAB_RECLAIM_ACCOUNT mask of struct kmem_cache's flags: classify.h
 * ms_slab_reclaim_mask_of() on what BTF shows (-1: unknown, 0: no such flag, CONFIG_SLUB_TINY).
 */
static __always_inline long long ms_slab_reclaim_mask(void)
{
	__u32 size = 0, bit = 0;
	int has_value = 0;

	if (bpf_core_field_exists(struct kmem_cache___c, flags))
		size = bpf_core_field_size(struct kmem_cache___c, flags);
	if (bpf_core_enum_value_exists(enum _slab_flag_bits___c, _SLAB_RECLAIM_ACCOUNT___c)) {
		has_value = 1;
		bit = bpf_core_enum_value(enum _slab_flag_bits___c, _SLAB_RECLAIM_ACCOUNT___c);
	}
	return ms_slab_reclaim_mask_of(size, bpf_core_type_exists(enum _slab_flag_bits___c),
				       has_value, bit);
}

#endif /* MEMSTAT_CORE_FIXES_BPF_H */
