/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A dump's kernel types from BTF (dump_btf.c): the walk's features and the offsets it follows. */
#ifndef MEMSTAT_DUMP_TYPES_H
#define MEMSTAT_DUMP_TYPES_H

#include <stddef.h>

#include "memstat.h"
#include "attrs.h"	/* MS_FLAG_NAME_LEN, struct ms_attr_facts */

/* the vmstat items the dumped kernel's meminfo is computed from (--reconcile, dump_meminfo.c) */
enum ms_dump_stat {
	MS_DS_FREE,		/* NR_FREE_PAGES: MemFree */
	MS_DS_ANON,		/* NR_ANON_MAPPED: AnonPages */
	MS_DS_FILE,		/* NR_FILE_PAGES: Cached + Buffers + SwapCached */
	MS_DS_SWAPCACHE,	/* NR_SWAPCACHE: SwapCached */
	MS_DS_SHMEM,		/* NR_SHMEM */
	MS_DS_SLAB_R,		/* NR_SLAB_RECLAIMABLE_B: SReclaimable */
	MS_DS_SLAB_U,		/* NR_SLAB_UNRECLAIMABLE_B: SUnreclaim */
	MS_DS_PAGETABLE,	/* NR_PAGETABLE: PageTables */
	MS_DS_UNACCEPTED,	/* NR_UNACCEPTED (v6.5): Unaccepted */
	MS_DS_VMALLOC,		/* NR_VMALLOC, where vmalloc pages are a node item: VmallocUsed */
	/* -a --reconcile's rows (src/core/attrs.c ms_attrs_reconcile()) */
	MS_DS_DIRTY,		/* NR_FILE_DIRTY: Dirty */
	MS_DS_WRITEBACK,	/* NR_WRITEBACK: Writeback */
	MS_DS_MLOCK,		/* NR_MLOCK: Mlocked */
	MS_DS_INACTIVE_ANON,	/* NR_INACTIVE_ANON (NR_LRU_BASE + LRU_INACTIVE_ANON) */
	MS_DS_ACTIVE_ANON,	/* NR_ACTIVE_ANON */
	MS_DS_INACTIVE_FILE,	/* NR_INACTIVE_FILE */
	MS_DS_ACTIVE_FILE,	/* NR_ACTIVE_FILE */
	MS_DS_UNEVICTABLE,	/* NR_UNEVICTABLE: Unevictable */
	MS_DS_ANON_THPS,	/* NR_ANON_THPS: AnonHugePages (pages since v5.16, 69473e5de873) */
	MS_DS_SHMEM_THPS,	/* NR_SHMEM_THPS: ShmemHugePages */
	MS_DS_FILE_THPS,	/* NR_FILE_THPS: FileHugePages */
	MS_DS_NR
};

struct ms_dump_types {
	struct ms_features f;		/* classify.h's, as the BPF walker's from CO-RE */
	/* member offsets, -1 where the kernel has no such member */
	long as_host, as_i_mmap;	/* struct address_space */
	long inode_sb, inode_ino;	/* struct inode */
	long sb_magic, sb_dev;		/* struct super_block */
	long vma_rb, vma_flags;		/* struct vm_area_struct: shared.rb, vm_flags */
	long rb_left, rb_right;		/* struct rb_node */
	long kc_flags;			/* struct kmem_cache */
	long long slab_reclaim_mask;	/* SLAB_RECLAIM_ACCOUNT: -1 unknown, 0 none */
	/* each ms_dump_stat's index in vm_zone_stat or in vm_node_stat (-1: not that array's) */
	long stat_zone[MS_DS_NR], stat_node[MS_DS_NR];
	long hstate_size, hstate_order, hstate_nr;	/* struct hstate: size, order, nr_huge_pages */
	/* --by node|zone: pglist_data.node_zones[nr_zones] of struct zone (zone_size bytes) */
	long pgdat_zones, nr_zones, zone_size, zone_start, zone_spanned, zone_name;
	/* allpages: a page's cgroup id (memcg_data -> mem_cgroup -> css.cgroup -> kn->id) */
	long memcg_css, css_cgroup, cgroup_kn, cgroup_subsys, kn_id, objcg_memcg;
	long kn_parent, kn_name;	/* --by cgroup: a cgroup's path, kernfs_node by kernfs_node */
	/* --by fs|file|exec: the names of files (dentries) and mounts (dump_mounts.c) */
	long inode_nlink, inode_rdev, inode_dentry;	/* __i_nlink, i_rdev, i_dentry.first */
	long dentry_parent, dentry_name, dentry_alias;	/* d_parent, d_name.name, d_u.d_alias */
	long dentry_hash_pprev;				/* d_hash.pprev: NULL when unhashed */
	long sb_root, sb_type, fst_name;		/* s_root, s_type; file_system_type.name */
	long mnt_parent, mnt_mountpoint, mnt_root, mnt_sb;	/* struct mount; mnt.mnt_* */
	long mnt_mounts, mnt_child, mnt_devname;	/* its children, its place among them */
	long mntns_root, nsproxy_mntns;			/* mnt_namespace.root, nsproxy.mnt_ns */
	long vfsmnt_sb;					/* vfsmount.mnt_sb (shm_mnt's) */
	/* the RAM: struct resource's start, end, name, sibling, child (dump_iomem.c) */
	long res_start, res_end, res_name, res_sibling, res_child;
	long memory_cgrp_id;		/* enum cgroup_subsys_id; -1 unknown */
	/* allpages: the names of the page flags (enum pageflags, less "PG_"); "" none */
	char flag_name[64][MS_FLAG_NAME_LEN];	/* ms_btf_flag_names() */
	int nr_flags;			/* __NR_PAGEFLAGS (at most 64) */
	/* -a: the page flags' facts (ms_attr_facts_of(); mglru set from the dump's memory) */
	struct ms_attr_facts attr_facts;
	bool attr_facts_ok;
};

/*
 * Load the types of BTF file path (raw BTF, or an ELF file with a .BTF section): MS_EXIT_OK,
 * MS_EXIT_USAGE (not BTF), MS_EXIT_UNSUPPORTED (a struct page memstat does not know).
 */
int ms_dump_types_load(const char *path, struct ms_dump_types *t, char *why, size_t whylen);
/* The same from raw BTF in memory (len bytes), called name in messages. */
int ms_dump_types_from(const void *data, size_t len, const char *name, struct ms_dump_types *t,
		       char *why, size_t whylen);

#endif /* MEMSTAT_DUMP_TYPES_H */
