// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A dump's types from BTF (dump_types.h): what the BPF walker learns by CO-RE
 * (bpf/core_fixes.bpf.h ms_kernel_facts(), whose rules and kernel commits hold here too: the
 * same names are looked up, and classify.h's ms_features_from_facts() turns them into the
 * walk's features), and the offsets the dump walk follows pointers by.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "classify.h"
#include "dump_types.h"
#include "memstat_int.h"

/* The byte offset of member path ("a.b": b within a) of struct sname; -1: none. */
static long member_off(const struct btf *b, const char *sname, const char *path)
{
	long bits = ms_btf_member_bits(b, sname, path);

	return bits < 0 ? -1 : bits / 8;
}

/* The size of member path of struct sname; 0: none. */
static __u32 member_size(const struct btf *b, const char *sname, const char *name)
{
	__s32 id = btf__find_by_name_kind(b, sname, BTF_KIND_STRUCT);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(b, (__u32)id);

	for (__u16 i = 0; t && i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;
		const char *n = btf__name_by_offset(b, m->name_off);

		if (n && !strcmp(n, name)) {
			__s64 sz = btf__resolve_size(b, m->type);

			return sz > 0 ? (__u32)sz : 0;
		}
	}
	return 0;
}

/* An enumerator of enum ename (any enum of that name): 0 and *val, or -1. */
static int enum_value(const struct btf *b, const char *ename, const char *name, __s64 *val)
{
	__u32 n = btf__type_cnt(b);

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		const char *tn;

		if (!btf_is_enum(t) && !btf_is_enum64(t))
			continue;
		tn = btf__name_by_offset(b, t->name_off);
		if (!tn || strcmp(tn, ename))
			continue;
		for (__u16 i = 0; i < btf_vlen(t); i++) {
			const char *en;

			if (btf_is_enum(t)) {
				en = btf__name_by_offset(b, btf_enum(t)[i].name_off);
				if (en && !strcmp(en, name)) {
					*val = btf_enum(t)[i].val;
					return 0;
				}
			} else {
				en = btf__name_by_offset(b, btf_enum64(t)[i].name_off);
				if (en && !strcmp(en, name)) {
					*val = (__s64)btf_enum64_value(btf_enum64(t) + i);
					return 0;
				}
			}
		}
		return -1;
	}
	return -1;
}

static bool enum_exists(const struct btf *b, const char *ename)
{
	return btf__find_by_name_kind(b, ename, BTF_KIND_ENUM) > 0 ||
	       btf__find_by_name_kind(b, ename, BTF_KIND_ENUM64) > 0;
}

static __u8 pgflag(const struct btf *b, const char *name)
{
	__s64 v;

	return enum_value(b, "pageflags", name, &v) || v < 0 || v > 63 ? (__u8)MS_NO_BIT : (__u8)v;
}

static __u32 ptype(const struct btf *b, const char *ename, const char *name)
{
	__s64 v;

	return enum_value(b, ename, name, &v) ? 0 : (__u32)v;
}

/* ms_kernel_facts() of core_fixes.bpf.h, from a BTF object: a MS_MISSING_* mask */
static __u32 kernel_facts(const struct btf *b, struct ms_kernel_facts *k)
{
	__s32 page = btf__find_by_name_kind(b, "page", BTF_KIND_STRUCT);
	__u32 missing = 0;
	__s64 v;
	long off;

	memset(k, 0, sizeof(*k));
	k->page_size = page > 0 ? (__u32)btf__resolve_size(b, (__u32)page) : 0;
	if (k->page_size != 64)
		missing |= MS_MISSING_PAGE_SIZE;
	if (member_off(b, "page", "mapping") != 24 || member_off(b, "page", "private") != 40 ||
	    member_off(b, "page", "_refcount") != 52)
		missing |= MS_MISSING_OFFSETS;
	off = member_off(b, "page", "page_type");
	if (off >= 0 && off != 48)
		missing |= MS_MISSING_OFFSETS;
	off = member_off(b, "page", "compound_info");
	if (off < 0)
		off = member_off(b, "page", "compound_head");
	if (off < 0)
		missing |= MS_MISSING_HEAD;
	else if (off != 8)
		missing |= MS_MISSING_OFFSETS;
	off = member_off(b, "page", "pp_magic");
	if (off >= 0 && off != 8)
		missing |= MS_MISSING_OFFSETS;
	k->pp_dma_index = member_off(b, "page_pool", "dma_mapped") >= 0;
	off = member_off(b, "slab", "slab_cache");
	if (off >= 0 && off % 8 == 0 && off < 64)
		k->slab_cache_word = (__u8)(off / 8);

	k->pg_head = pgflag(b, "PG_head");
	k->pg_reserved = pgflag(b, "PG_reserved");
	k->pg_swapbacked = pgflag(b, "PG_swapbacked");
	k->pg_owner_priv_1 = pgflag(b, "PG_owner_priv_1");
	k->pg_lru = pgflag(b, "PG_lru");
	k->pg_slab = pgflag(b, "PG_slab");
	k->pg_hugetlb = pgflag(b, "PG_hugetlb");
	k->pg_movable_ops = pgflag(b, "PG_movable_ops");
	if (k->pg_head == MS_NO_BIT || k->pg_reserved == MS_NO_BIT ||
	    k->pg_swapbacked == MS_NO_BIT || k->pg_owner_priv_1 == MS_NO_BIT)
		missing |= MS_MISSING_PAGEFLAGS;

	k->has_compound_dtor = member_off(b, "page", "compound_dtor") >= 0 ||
			       member_off(b, "folio", "_folio_dtor") >= 0;
	k->has_dtor_enum = enum_exists(b, "compound_dtor_id");
	k->hugetlb_page_dtor = enum_value(b, "compound_dtor_id", "HUGETLB_PAGE_DTOR", &v) ? -1 :
			       (__s16)v;
	if (!enum_value(b, "pagetype", "PGTY_buddy", &v)) {
		static const char *const s3[] = {
			[MS_T_BUDDY] = "PGTY_buddy", [MS_T_OFFLINE] = "PGTY_offline",
			[MS_T_TABLE] = "PGTY_table", [MS_T_GUARD] = "PGTY_guard",
			[MS_T_HUGETLB] = "PGTY_hugetlb", [MS_T_SLAB] = "PGTY_slab",
			[MS_T_ZSMALLOC] = "PGTY_zsmalloc", [MS_T_UNACCEPTED] = "PGTY_unaccepted",
			[MS_T_LARGE_KMALLOC] = "PGTY_large_kmalloc",
		};

		k->type_scheme = MS_PT_UPPER_BYTE;
		for (int i = MS_T_BUDDY; i <= MS_T_LARGE_KMALLOC; i++)
			k->ptype[i] = ptype(b, "pagetype", s3[i]);
	} else if (!enum_value(b, "pagetype", "PG_buddy", &v)) {
		static const char *const s2[] = {
			[MS_T_BUDDY] = "PG_buddy", [MS_T_OFFLINE] = "PG_offline",
			[MS_T_TABLE] = "PG_table", [MS_T_GUARD] = "PG_guard",
			[MS_T_HUGETLB] = "PG_hugetlb", [MS_T_SLAB] = "PG_slab",
			[MS_T_ZSMALLOC] = "PG_zsmalloc", [MS_T_UNACCEPTED] = "PG_unaccepted",
		};

		k->type_scheme = MS_PT_INVERTED_ENUM;
		k->pt_base = ptype(b, "pagetype", "PAGE_TYPE_BASE");
		for (int i = MS_T_BUDDY; i <= MS_T_UNACCEPTED; i++)
			k->ptype[i] = ptype(b, "pagetype", s2[i]);
	} else {
		k->type_scheme = MS_PT_INVERTED_BITS;
	}
	return missing;
}

/* enum ms_dump_stat's enumerators */
static const char *const stat_names[MS_DS_NR] = {
	"NR_FREE_PAGES", "NR_ANON_MAPPED", "NR_FILE_PAGES", "NR_SWAPCACHE", "NR_SHMEM",
	"NR_SLAB_RECLAIMABLE_B", "NR_SLAB_UNRECLAIMABLE_B", "NR_PAGETABLE", "NR_UNACCEPTED",
	"NR_VMALLOC", "NR_FILE_DIRTY", "NR_WRITEBACK", "NR_MLOCK", "NR_INACTIVE_ANON",
	"NR_ACTIVE_ANON", "NR_INACTIVE_FILE", "NR_ACTIVE_FILE", "NR_UNEVICTABLE", "NR_ANON_THPS",
	"NR_SHMEM_THPS", "NR_FILE_THPS",
};

/* --by node|zone: where a node's zones are, and what of a zone is read */
static void zones_of(const struct btf *b, struct ms_dump_types *t)
{
	__s32 pg = btf__find_by_name_kind(b, "pglist_data", BTF_KIND_STRUCT);
	__s32 zn = btf__find_by_name_kind(b, "zone", BTF_KIND_STRUCT);
	const struct btf_type *pt = pg > 0 ? btf__type_by_id(b, (__u32)pg) : NULL;

	t->nr_zones = -1;
	t->zone_size = zn > 0 ? btf__resolve_size(b, (__u32)zn) : -1;
	t->pgdat_zones = member_off(b, "pglist_data", "node_zones");
	t->zone_start = member_off(b, "zone", "zone_start_pfn");
	t->zone_spanned = member_off(b, "zone", "spanned_pages");
	t->zone_name = member_off(b, "zone", "name");
	for (__u16 i = 0; pt && i < btf_vlen(pt); i++) {	/* MAX_NR_ZONES: the array's length */
		const struct btf_member *m = btf_members(pt) + i;
		const char *n = btf__name_by_offset(b, m->name_off);
		const struct btf_type *at = btf__type_by_id(b, m->type);

		if (n && !strcmp(n, "node_zones") && at && btf_is_array(at))
			t->nr_zones = btf_array(at)->nelems;
	}
}

/*
 * Where --reconcile's counters are: an item is in enum zone_stat_item or enum node_stat_item,
 * and items have moved between the two (NR_PAGETABLE to the nodes in v5.11, f0c0c115fb81), so
 * both are looked in. The hugetlb pools' sizes are in struct hstate.
 */
static void counters_of(const struct btf *b, struct ms_dump_types *t)
{
	__s32 hs = btf__find_by_name_kind(b, "hstate", BTF_KIND_STRUCT);

	for (int i = 0; i < MS_DS_NR; i++) {
		__s64 v;

		t->stat_zone[i] = !enum_value(b, "zone_stat_item", stat_names[i], &v) ? v : -1;
		t->stat_node[i] = t->stat_zone[i] < 0 &&
				  !enum_value(b, "node_stat_item", stat_names[i], &v) ? v : -1;
	}
	t->hstate_size = hs > 0 ? btf__resolve_size(b, (__u32)hs) : -1;
	zones_of(b, t);
	t->hstate_order = member_off(b, "hstate", "order");
	t->hstate_nr = member_off(b, "hstate", "nr_huge_pages");
}

/* allpages: the cgroup chain's offsets, and the page flags' names */
static void allpages_of(const struct btf *b, struct ms_dump_types *t)
{
	unsigned int nr;
	__s64 v;

	t->memcg_css = member_off(b, "mem_cgroup", "css");
	t->css_cgroup = member_off(b, "cgroup_subsys_state", "cgroup");
	t->cgroup_kn = member_off(b, "cgroup", "kn");
	t->cgroup_subsys = member_off(b, "cgroup", "subsys");
	t->kn_id = member_off(b, "kernfs_node", "id");
	/* kernfs_node.parent, named __parent since v6.15 ("kernfs: Use RCU to access
	 * kernfs_node::parent") */
	t->kn_parent = member_off(b, "kernfs_node", "__parent");
	if (t->kn_parent < 0)
		t->kn_parent = member_off(b, "kernfs_node", "parent");
	t->kn_name = member_off(b, "kernfs_node", "name");
	t->objcg_memcg = member_off(b, "obj_cgroup", "memcg");
	t->memory_cgrp_id = !enum_value(b, "cgroup_subsys_id", "memory_cgrp_id", &v) ? v : -1;
	ms_btf_flag_names(b, t->flag_name, &nr);
	t->nr_flags = nr;
}

/*
 * --by fs|file|exec: a file's dentry up to its superblock's root, and the mount tree of the
 * initial namespace, as /proc/1/mountinfo shows it (fs/mount.h, fs/proc_namespace.c). Every
 * kernel from 6.1 to 7.x has struct mount's mnt_parent, mnt_mountpoint, mnt (a struct
 * vfsmount: mnt_root, mnt_sb), mnt_mounts and mnt_child (a mount's children and its link among
 * its parent's), and mnt_namespace.root. inode.i_nlink is a union member beside __i_nlink;
 * dentry.d_name is a union member beside __d_name since v6.15 (the search looks inside
 * anonymous unions); d_alias is in the d_u union (v3.19, 946e51f2bf37) and a direct member in
 * 7.x, as the BPF program reads it (bpf/core_fixes.bpf.h dentry___v7).
 */
static void files_of(const struct btf *b, struct ms_dump_types *t)
{
	long mnt = member_off(b, "mount", "mnt");

	t->inode_nlink = member_off(b, "inode", "__i_nlink");
	t->inode_rdev = member_off(b, "inode", "i_rdev");
	t->inode_dentry = member_off(b, "inode", "i_dentry");
	t->dentry_parent = member_off(b, "dentry", "d_parent");
	t->dentry_name = member_off(b, "dentry", "d_name.name");
	t->dentry_alias = member_off(b, "dentry", "d_u.d_alias");
	if (t->dentry_alias < 0)
		t->dentry_alias = member_off(b, "dentry", "d_alias");
	t->dentry_hash_pprev = member_off(b, "dentry", "d_hash.pprev");
	t->sb_root = member_off(b, "super_block", "s_root");
	t->sb_type = member_off(b, "super_block", "s_type");
	t->fst_name = member_off(b, "file_system_type", "name");
	t->mnt_parent = member_off(b, "mount", "mnt_parent");
	t->mnt_mountpoint = member_off(b, "mount", "mnt_mountpoint");
	t->mnt_root = mnt < 0 ? -1 : member_off(b, "mount", "mnt.mnt_root");
	t->mnt_sb = mnt < 0 ? -1 : member_off(b, "mount", "mnt.mnt_sb");
	t->mnt_mounts = member_off(b, "mount", "mnt_mounts");
	t->mnt_child = member_off(b, "mount", "mnt_child");
	t->mnt_devname = member_off(b, "mount", "mnt_devname");
	t->mntns_root = member_off(b, "mnt_namespace", "root");
	t->nsproxy_mntns = member_off(b, "nsproxy", "mnt_ns");
	t->vfsmnt_sb = member_off(b, "vfsmount", "mnt_sb");
	/* the RAM, as /proc/iomem lists it (kernel/resource.c): every kernel has these */
	t->res_start = member_off(b, "resource", "start");
	t->res_end = member_off(b, "resource", "end");
	t->res_name = member_off(b, "resource", "name");
	t->res_sibling = member_off(b, "resource", "sibling");
	t->res_child = member_off(b, "resource", "child");
}

/* The walk's types from BTF object b, named name in messages; b is freed. */
static int types_of(struct btf *b, const char *name, struct ms_dump_types *t, char *why,
		    size_t whylen)
{
	struct ms_kernel_facts k;
	__u32 missing;
	__s64 bit = 0;
	int has_bit;

	missing = kernel_facts(b, &k);
	if (missing) {
		snprintf(why, whylen, "%s: struct page is not laid out as memstat knows it "
			 "(missing %#x)", name, missing);
		btf__free(b);
		return MS_EXIT_UNSUPPORTED;
	}
	ms_features_from_facts(&k, &t->f);
	t->as_host = member_off(b, "address_space", "host");
	t->as_i_mmap = member_off(b, "address_space", "i_mmap");
	t->inode_sb = member_off(b, "inode", "i_sb");
	t->inode_ino = member_off(b, "inode", "i_ino");
	t->sb_magic = member_off(b, "super_block", "s_magic");
	t->sb_dev = member_off(b, "super_block", "s_dev");
	t->vma_rb = member_off(b, "vm_area_struct", "shared.rb");
	t->vma_flags = member_off(b, "vm_area_struct", "vm_flags");
	t->rb_right = member_off(b, "rb_node", "rb_right");
	t->rb_left = member_off(b, "rb_node", "rb_left");
	t->kc_flags = member_off(b, "kmem_cache", "flags");
	has_bit = !enum_value(b, "_slab_flag_bits", "_SLAB_RECLAIM_ACCOUNT", &bit);
	t->slab_reclaim_mask = ms_slab_reclaim_mask_of(member_size(b, "kmem_cache", "flags"),
						       enum_exists(b, "_slab_flag_bits"), has_bit,
						       (__u32)bit);
	if (t->kc_flags < 0)
		t->slab_reclaim_mask = -1;
	if (t->slab_reclaim_mask < 0)
		t->f.slab_cache_word = 0;	/* reclaimable slab cannot be told apart */
	counters_of(b, t);
	allpages_of(b, t);
	files_of(b, t);
	t->attr_facts_ok = !ms_attr_facts_of(b, false, &t->attr_facts);
	btf__free(b);
	if (t->as_host < 0 || t->inode_sb < 0 || t->sb_magic < 0 || t->inode_ino < 0 ||
	    t->sb_dev < 0) {
		snprintf(why, whylen, "%s: no address_space.host, inode.i_sb or super_block.s_magic",
			 name);
		return MS_EXIT_UNSUPPORTED;
	}
	return MS_EXIT_OK;
}

/*
 * A file's BTF (data NULL: btf__parse() of name, raw or ELF) or len bytes of raw BTF at data:
 * types_of() it, or MS_EXIT_USAGE with why. libbpf's own lines are kept off memstat's stderr.
 */
static int load(const char *name, const void *data, size_t len, struct ms_dump_types *t,
		char *why, size_t whylen)
{
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	struct btf *b = data ? btf__new(data, (__u32)len) : btf__parse(name, NULL);
	int err = errno;

	libbpf_set_print(old);
	memset(t, 0, sizeof(*t));
	if (!b) {
		snprintf(why, whylen, "cannot read BTF from %s: %s", name, err < 4000 ?
			 strerror(err) : data ? "malformed types or strings" :
			 "neither BTF nor an ELF file with a .BTF section");
		return MS_EXIT_USAGE;
	}
	return types_of(b, name, t, why, whylen);
}

int ms_dump_types_load(const char *path, struct ms_dump_types *t, char *why, size_t whylen)
{
	return load(path, NULL, 0, t, why, whylen);
}

int ms_dump_types_from(const void *data, size_t len, const char *name, struct ms_dump_types *t,
		       char *why, size_t whylen)
{
	return load(name, data, len, t, why, whylen);
}
