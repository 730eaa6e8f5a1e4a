/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Types shared by the BPF walker, user space, the tests and the kernel module.
 * Plain fixed-width types and constants only: this header is included by BPF C, by C and
 * C++ user space and by kernel C, so it may not depend on any of their headers.
 */
#ifndef MEMSTAT_H
#define MEMSTAT_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* Top-level classes: the rows of the summary. They partition every walked page. */
enum ms_class {
	MS_C_KERNEL = 0,
	MS_C_ANON,
	MS_C_SHMEM,
	MS_C_EXEC,
	MS_C_PAGE_CACHE,
	MS_C_HUGETLB,
	MS_C_FREE,
	MS_C_UNKNOWN,		/* kpageflags backend only: pages with no flags to go by */
	MS_NR_CLASSES,
};

/*
 * Sub-classes: what the classifier returns. Each belongs to exactly one class
 * (ms_subs[] in src/core/util.c); counters are kept per sub-class and summed per class.
 */
enum ms_sub {
	MS_KERNEL_SLAB = 0,	/* slab pages (heads and tails) */
	MS_KERNEL_LARGE_KMALLOC,/* kmalloc_large pages that carry PGTY_large_kmalloc (6.15+) */
	MS_KERNEL_PAGETABLE,	/* page-table-typed pages */
	MS_KERNEL_RESERVED,	/* PG_reserved: kernel image, memblock, zero page; not in MemTotal */
	MS_KERNEL_ZSMALLOC,	/* zsmalloc / z3fold (non-LRU movable, zram and zswap) */
	MS_KERNEL_OFFLINE,	/* PageOffline: balloon, virtio-mem unplugged */
	MS_KERNEL_GUARD,	/* debug_pagealloc guard pages */
	MS_KERNEL_PAGE_POOL,	/* network page_pool pages: pp_magic == PP_SIGNATURE */
	MS_KERNEL_USER_MAPPED,	/* untyped, no mapping, mapped in user space: vm_insert_page() */
	MS_KERNEL_COMPOUND,	/* untyped compound pages: large kmalloc < 6.15, __GFP_COMP */
	MS_KERNEL_OTHER,	/* untyped, unowned, referenced: vmalloc, stacks, percpu, drivers */
	MS_KERNEL_UNSTABLE,	/* a tail whose head changed while it was read */
	MS_ANON,		/* anonymous */
	MS_ANON_SWAPCACHE,	/* anonymous and in the swap cache */
	MS_ANON_KSM,		/* KSM-merged */
	MS_SHMEM,		/* shmem, tmpfs, memfd, SysV shm, MAP_SHARED|MAP_ANONYMOUS */
	MS_EXEC,		/* file pages of a mapping that some process maps VM_EXEC */
	MS_FILE,		/* other page cache */
	MS_FILE_BUFFERS,	/* page cache of block devices (meminfo Buffers) */
	MS_FILE_SWAPCACHE,	/* swap cache pages no longer owned by anon or shmem */
	MS_HUGETLB,		/* hugetlb folios in use */
	MS_HUGETLB_FREE,	/* hugetlb folios in the free pool (refcount 0) */
	MS_FREE_BUDDY,		/* free blocks in the buddy allocator (MemFree) */
	MS_FREE_PCP,		/* free pages on per-cpu lists or in transit (not in MemFree) */
	MS_FREE_UNINIT,		/* struct page never initialised (deferred init) */
	MS_FREE_UNACCEPTED,	/* unaccepted memory of confidential guests (in MemFree) */
	MS_UNKNOWN,		/* kpageflags backend only: no flags (other kernel, pcp or uninit) */
	/*
	 * Slab pages of caches created with SLAB_RECLAIM_ACCOUNT (meminfo SReclaimable); the
	 * other slab pages stay MS_KERNEL_SLAB. Last, so that the numbers of the others (the
	 * module's counts[], csv columns) stay as they were.
	 */
	MS_KERNEL_SLAB_RECLAIM,
	MS_NR_SUBS,
};

/* How the kernel encodes page types in the u32 at struct page offset 48 (see core_fixes.bpf.h). */
enum ms_type_scheme {
	MS_PT_INVERTED_BITS = 1,	/* <= 6.10: base 0xf0000000, a type clears its bit */
	MS_PT_INVERTED_ENUM = 2,	/* 6.11: base 0x80000000, enum pagetype */
	MS_PT_UPPER_BYTE = 3,		/* >= 6.12: type = value >> 24, 0xf0..0xfe */
};

/* Page types, independent of the encoding. */
enum ms_ptype {
	MS_T_NONE = 0,
	MS_T_BUDDY,
	MS_T_OFFLINE,
	MS_T_TABLE,
	MS_T_GUARD,
	MS_T_HUGETLB,
	MS_T_SLAB,
	MS_T_ZSMALLOC,
	MS_T_UNACCEPTED,
	MS_T_LARGE_KMALLOC,
	MS_T_UNKNOWN,		/* typed, but with a type this build does not know */
	MS_NR_PTYPES,
};

#define MS_NO_BIT 0xff		/* a page flag the running kernel does not have */

/*
 * What the classifier needs to know about the running kernel. Filled once per load by the
 * detect program from BTF (CO-RE, bpf/core_fixes.bpf.h), by the kernel module from its
 * headers, or by the unit tests for a synthetic layout family.
 */
/*
 * What page->memcg_data of a charged user folio points to, found by a probe of a page this
 * process charged (docs/page-classes.md 3.8): a struct mem_cgroup up to 6.18, a struct obj_cgroup
 * in 7.x (folio_memcg() goes through folio_objcg()). Unknown: no cgroup ids are given.
 */
enum ms_memcg_kind {
	MS_MEMCG_UNKNOWN = 0,
	MS_MEMCG_DIRECT = 1,	/* struct mem_cgroup * */
	MS_MEMCG_OBJCG = 2,	/* struct obj_cgroup * */
	MS_MEMCG_PER_POINTER = 3,	/* the kernel module tells each pointer by its css.ss */
};

struct ms_features {
	__u32 page_size;	/* sizeof(struct page): the vmemmap stride; only 64 is supported */
	__u8 type_scheme;	/* enum ms_type_scheme */
	__u8 has_dtor;		/* <= 6.5: compound_dtor / compound_order bytes in page[1] */
	__u8 hugetlb_dtor;	/* value of HUGETLB_PAGE_DTOR when has_dtor */
	__u8 movable_flag;	/* >= 6.17: movable_ops is a page flag, not mapping & 3 == 2 */
	/* page-flag bit numbers (enum pageflags), MS_NO_BIT when absent */
	__u8 pg_head;
	__u8 pg_reserved;
	__u8 pg_swapbacked;
	__u8 pg_swapcache;	/* PG_owner_priv_1 */
	__u8 pg_slab;		/* <= 6.9 */
	__u8 pg_hugetlb;	/* in page[1].flags: 6.6.0-6.6.29, 6.7, 6.8.0-6.8.8 */
	__u8 pg_movable_ops;	/* >= 6.17 */
	__u8 pg_lru;
	__u8 max_buddy_order;	/* MAX_PAGE_ORDER (inclusive) */
	__u8 memcg_kind;	/* enum ms_memcg_kind: what a user folio's memcg_data points to */
	__u8 pp_dma_index;	/* pp_magic bits 7..38 hold a DMA index (ee62ce7a1d90) */
	__u8 slab_cache_word;	/* struct slab's slab_cache: word 3 (6.1), 1 (6.2+); 0 unknown */
	/*
	 * Page-type values: for MS_PT_INVERTED_* the bit that is cleared, for MS_PT_UPPER_BYTE
	 * the type byte. 0 = this kernel has no such type.
	 */
	__u32 ptype[MS_NR_PTYPES];
	__u32 pt_base;		/* 0xf0000000 (bits) or PAGE_TYPE_BASE (6.11 enum) */
	__u32 _pad2;		/* explicit: the module copies this struct to user space */
	__u64 vmemmap_base;	/* virtual address of the struct page of pfn 0 */
	/* MS_PT_UPPER_BYTE: the enum ms_ptype of type byte 0xf0 + i (MS_T_UNKNOWN if none) */
	__u8 s3_type[16];
};

/* What the walker carries from one page to the next (classify.h ms_page_verdict()). */
struct ms_walk_state {
	__u64 free_end;		/* end of the last free block counted at its head */
};

/* The verdict on one page: sub, shared by the n pages of the folio or block at start. */
struct ms_verdict {
	__u64 start;
	__u32 n;
	__u32 sub;
};

/*
 * What the running kernel has, as found in BTF (bpf/core_fixes.bpf.h), in the module's headers
 * (kmod/kfeatures.h) or made up by the unit tests. classify.h's ms_features_from_facts() turns
 * it into struct ms_features: the rules live there once.
 */
struct ms_kernel_facts {
	__u32 page_size;	/* sizeof(struct page) */
	/* enum pageflags bit numbers, MS_NO_BIT when absent */
	__u8 pg_head, pg_reserved, pg_swapbacked, pg_owner_priv_1, pg_lru;
	__u8 pg_slab, pg_hugetlb, pg_movable_ops;
	__u8 has_compound_dtor;	/* struct page has compound_dtor (<= 6.5) */
	__u8 has_dtor_enum;	/* enum compound_dtor_id is known */
	__s16 hugetlb_page_dtor;	/* its HUGETLB_PAGE_DTOR, -1 when absent */
	__u8 type_scheme;	/* enum ms_type_scheme found */
	__u8 pp_dma_index;	/* struct page_pool has dma_mapped (ee62ce7a1d90, 6.16, 6.12.y) */
	__u8 slab_cache_word;	/* offsetof(struct slab, slab_cache) / 8; 0 when unknown */
	__u8 _pad[1];
	__u32 pt_base;		/* MS_PT_INVERTED_ENUM: PAGE_TYPE_BASE */
	__u32 ptype[MS_NR_PTYPES];	/* enum pagetype values (S2, S3), 0 when absent */
};

/* A run of pfns with one sub-class, for the per-page dump (tests, allpages). */
struct ms_run {
	__u64 pfn;
	__u32 npages;
	__u8 sub;		/* enum ms_sub */
	__u8 _pad[3];
};

/* One page of the allpages dump: the struct page as read, and what the walk derived. */
enum ms_role {
	MS_ROLE_NONE = 0,	/* an order-0 page */
	MS_ROLE_HEAD,		/* head of a compound page (folio) */
	MS_ROLE_TAIL,		/* tail of a compound page */
	MS_ROLE_FREE_HEAD,	/* first page of a free buddy block */
	MS_ROLE_FREE_TAIL,	/* interior page of a free buddy block */
};
struct ms_page_rec {
	__u64 w[8];		/* the 64 bytes of struct page, as read */
	__u64 ino;		/* file pages: inode number */
	__u64 offset;		/* file pages: page offset in the file */
	__u64 cgroup;		/* cgroup id of the page's memcg, 0 when none */
	__u64 head_pfn;		/* first page of the folio or free block */
	__u64 head_flags;	/* flags of that first page (a tail's own are mostly internal) */
	__u32 dev;		/* file pages: s_dev of the file system (major << 20 | minor) */
	__u8 sub;		/* enum ms_sub */
	__u8 order;		/* of the folio or free block */
	__u8 role;		/* enum ms_role */
	__u8 valid;		/* 0: the struct page could not be read (a hole) */
};

/*
 * The helper number the walker's calls of the kfunc bpf_rdonly_cast() are compiled as (no helper
 * has it): user space makes each such call the kfunc's before loading (core_fixes.bpf.h).
 */
#define MS_CALL_RDONLY_CAST	0x6d730001

/* Per-mapping facts kept in the LRU cache (value), keyed by the address_space pointer. */
#define MS_MAP_EXEC	0x1	/* some process maps it VM_EXEC */
#define MS_MAP_BDEV	0x2	/* a block device's page cache */
#define MS_MAP_SHMEM	0x4	/* on tmpfs (s_magic TMPFS_MAGIC) */
struct ms_mapping_facts {
	__u32 flags;
	__u32 generation;	/* the walk generation the facts were read in */
	__u64 ino;		/* host inode number */
	__u32 dev;		/* host superblock s_dev */
	__u32 _pad;
};

/*
 * memstat --by file/exec: the file_paths program (memstat.bpf.c) names the files of the top N
 * groups after the walk, from the kernel's own dentries. User space writes a request per slot
 * of the paths map (the mapping pointer a page record held, and the inode and device the walk
 * saw, which the program checks before trusting the pointer); the program fills the rest.
 */
#define MS_PATH_BATCH	32	/* slots of the paths map: files named per program run */
#define MS_PATH_DEPTH	32	/* dentries followed up to the superblock's root */
#define MS_PATH_NAME	256	/* NAME_MAX + 1 */
enum ms_path_status {
	MS_PATH_OK = 0,		/* comp[] holds the path */
	MS_PATH_UNKNOWN,	/* the mapping is gone (freed, reused) or unreadable */
	MS_PATH_NO_DENTRY,	/* the inode has no dentry (reclaimed; the inode kept for its pages) */
};
#define MS_PATHF_UNHASHED	0x1	/* the dentry is unhashed (unlinked) */
#define MS_PATHF_DETACHED	0x2	/* the top dentry is its own parent but not the sb root:
					 * a pseudo file (memfd, SysV shm) or a disconnected one */
#define MS_PATHF_TRUNCATED	0x4	/* deeper than MS_PATH_DEPTH: comp[] holds the leaf end */
#define MS_PATHF_NAME_FAULT	0x8	/* a name could not be read (renamed meanwhile) */
struct ms_path_slot {
	/* in */
	__u64 mapping;		/* struct address_space * (raw pointer: never printed) */
	__u64 ino;		/* the inode number the walk saw */
	__u32 dev;		/* and its superblock's s_dev */
	/* out */
	__u32 status;		/* enum ms_path_status */
	__u32 flags;		/* MS_PATHF_* */
	__u32 nlink;		/* inode i_nlink (0: deleted) */
	__u32 ncomp;		/* names in comp[], leaf first */
	__u32 rdev;		/* inode i_rdev (a block device's page cache) */
	__u64 magic;		/* superblock s_magic */
	char comp[MS_PATH_DEPTH][MS_PATH_NAME];
};

/*
 * memstat --by slab: the slab_name program names the slab caches of the groups shown after the
 * walk. User space writes the kmem_cache pointer a slab's record held (never printed); the
 * program checks that it is still a cache (on a list whose neighbours point back at it) and
 * reads its name and sizes.
 */
#define MS_SLAB_NAME	64
enum ms_slab_status {
	MS_SLAB_OK = 0,		/* name, object_size and size are the cache's */
	MS_SLAB_UNKNOWN,	/* not readable as a cache (destroyed since the walk) */
};
struct ms_slab_slot {
	__u64 cache;		/* in: struct kmem_cache * (raw pointer: never printed) */
	__u32 status;		/* out: enum ms_slab_status */
	__u32 object_size;	/* out: the object's size as asked for */
	__u32 size;		/* out: the object's size with metadata and alignment */
	__u32 _pad;
	char name[MS_SLAB_NAME];
};

/* Reasons the detect program refuses a kernel (a bit each; user space names them). */
#define MS_MISSING_PAGE_SIZE	0x01	/* sizeof(struct page) != 64 */
#define MS_MISSING_OFFSETS	0x02	/* struct page field offsets differ from classify.h's */
#define MS_MISSING_PAGEFLAGS	0x04	/* enum pageflags lacks PG_head/PG_reserved/... */
#define MS_MISSING_HEAD		0x08	/* neither compound_head nor compound_info */

#define MS_BATCH_PAGES	64	/* struct pages read per bpf_probe_read_kernel: 4 KiB */
#define MS_MAX_RUNS	32768	/* runs recorded per walker call when dumping */
#define MS_SECTION_PAGES 32768	/* x86_64 SECTION_SIZE_BITS 27: 128 MiB */
#define MS_COUNTS	32	/* counters array size: MS_NR_SUBS rounded up to a power of 2 */

/*
 * The kernel module's interface (kmod/): a read-only misc device, root only. One ioctl walks
 * at most one section: it classifies [start_pfn, end_pfn) and returns the counters and, when
 * recs is set, one struct ms_page_rec per page (allpages). A new generation makes the module
 * collect the exec mappings again and forget its mapping cache; MS_KMOD_NEW_RANGE says the
 * range does not continue the previous call's (no folio carries over).
 */
#define MS_KMOD_DEVICE		"/dev/memstat"
#define MS_KMOD_NEW_RANGE	0x1
/*
 * allpages --raw-pointers: records keep the struct page words that hold kernel pointers
 * (compound_head/lru, mapping, private, memcg_data). Without it they read 0, for they reveal
 * the KASLR layout; the module refuses it (EPERM) when the kernel is locked down for
 * confidentiality.
 */
#define MS_KMOD_RAW_POINTERS	0x2
/*
 * -a without raw pointers: the record of a large folio's first tail page keeps the words that
 * hold the folio's counters (_pincount and the PMD mapcount: src/core/attrs.c), which are not
 * pointers; lockdown does not refuse it. A module without this flag refuses it (EINVAL), and
 * memstat then asks that module for raw pointers, as it did before.
 */
#define MS_KMOD_FOLIO_COUNTERS	0x4
#define MS_KMOD_FLAGS		(MS_KMOD_NEW_RANGE | MS_KMOD_RAW_POINTERS | MS_KMOD_FOLIO_COUNTERS)
struct ms_kmod_walk {
	__u64 start_pfn;	/* in */
	__u64 end_pfn;		/* in: at most MS_SECTION_PAGES after start_pfn */
	__u64 recs;		/* in: user address of end - start struct ms_page_rec, or 0 */
	__u32 generation;	/* in */
	__u32 flags;		/* in: MS_KMOD_* */
	__u64 counts[MS_COUNTS];	/* out: pages per enum ms_sub */
	__u64 holes;		/* out */
	__u64 exec_mappings;	/* out: VM_EXEC file mappings seen for this generation */
	__u64 mapping_lookups;	/* out */
};
#define MS_KMOD_IOC_WALK	_IOWR('M', 0x31, struct ms_kmod_walk)
/* the module's struct ms_features (from the headers it was built against) */
#define MS_KMOD_IOC_FEATURES	_IOR('M', 0x32, struct ms_features)

/*
 * The structs the module copies to user space have no implicit padding, so no byte of kernel
 * memory can ride along (C11 static assertions; the BPF and C++ builds check them too).
 */
#ifdef __cplusplus
#define MS_STATIC_ASSERT static_assert
#else
#define MS_STATIC_ASSERT _Static_assert
#endif
MS_STATIC_ASSERT(sizeof(struct ms_features) == 4 + 16 + 4 * MS_NR_PTYPES + 4 + 4 + 8 + 16,
		 "struct ms_features has implicit padding");
MS_STATIC_ASSERT(sizeof(struct ms_kmod_walk) == 3 * 8 + 2 * 4 + 8 * MS_COUNTS + 3 * 8,
		 "struct ms_kmod_walk has implicit padding");
MS_STATIC_ASSERT(sizeof(struct ms_page_rec) == 8 * 8 + 5 * 8 + 4 + 4,
		 "struct ms_page_rec has implicit padding");
MS_STATIC_ASSERT(sizeof(struct ms_path_slot) == 8 + 8 + 6 * 4 + 8 + MS_PATH_DEPTH * MS_PATH_NAME,
		 "struct ms_path_slot has implicit padding");
MS_STATIC_ASSERT(sizeof(struct ms_slab_slot) == 8 + 4 * 4 + MS_SLAB_NAME,
		 "struct ms_slab_slot has implicit padding");

#endif /* MEMSTAT_H */
