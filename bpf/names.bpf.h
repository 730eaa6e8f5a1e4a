/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The naming programs of memstat.bpf.c (included once, at its end): memstat --by runs them after
 * the walk, for the groups it shows, and loads them only then.
 *   file_paths  SEC("syscall"): --by file and exec, the files' paths from their dentries.
 *   slab_name   SEC("syscall"): --by slab, a slab cache's name and object sizes.
 */
#ifndef MEMSTAT_NAMES_BPF_H
#define MEMSTAT_NAMES_BPF_H

/*
 * file_paths SEC("syscall"): memstat --by file/exec names the top N files after the walk, from
 * the kernel's own dentries (user space loads it only then). For each of the first path_n slots
 * of `paths`: check that the mapping pointer a page record held is still the address_space of
 * the inode the walk saw (host->i_mapping, i_ino and s_dev), then follow one dentry of the inode
 * (the first of inode->i_dentry) up its d_parent chain to the superblock's root, a name per
 * dentry, leaf first. bpf_d_path() is not allowed in syscall programs, and it would need a
 * struct path, which the page cache does not have: the mount point comes from user space
 * (/proc/self/mountinfo). Every read is a bpf_core_read(): a freed or reused mapping reads as a
 * failure or a mismatch, and gives MS_PATH_UNKNOWN.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MS_PATH_BATCH);	/* user space shrinks it to 1 unless naming files */
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct ms_path_slot);
} paths SEC(".maps");

__u32 path_n;			/* slots to resolve, set by user space */

#define MS_ENUM_OR(t, e, v)						\
	(bpf_core_enum_value_exists(t, e) ? (__u64)bpf_core_enum_value(t, e) : (__u64)(v))

/*
 * Is the inode being evicted or freed (core_fixes.bpf.h, inode___st_*)? 1: yes, 0: no, -1: its
 * state could not be read.
 */
static __always_inline int ms_inode_dying(struct inode *host)
{
	__u64 st = 0, dying;

	if (bpf_core_field_exists(struct inode___st_v7, i_state)) {
		struct inode___st_v7 *i = (void *)host;

		if (bpf_core_read(&st, 4, &i->i_state.__state))
			return -1;
		dying = MS_ENUM_OR(enum inode_state_flags_enum___ms, I_WILL_FREE___v7, 1 << 7) |
			MS_ENUM_OR(enum inode_state_flags_enum___ms, I_FREEING___v7, 1 << 8) |
			MS_ENUM_OR(enum inode_state_flags_enum___ms, I_CLEAR___v7, 1 << 9);
	} else if (bpf_core_field_exists(struct inode___st_enum, i_state)) {
		struct inode___st_enum *i = (void *)host;

		if (bpf_core_read(&st, 4, &i->i_state))
			return -1;
		dying = MS_ENUM_OR(enum inode_state_flags_t___ms, I_WILL_FREE___ms, 1 << 7) |
			MS_ENUM_OR(enum inode_state_flags_t___ms, I_FREEING___ms, 1 << 8) |
			MS_ENUM_OR(enum inode_state_flags_t___ms, I_CLEAR___ms, 1 << 9);
	} else if (bpf_core_field_exists(struct inode___st_int, i_state)) {
		struct inode___st_int *i = (void *)host;

		if (bpf_core_field_size(struct inode___st_int, i_state) == 8) {
			if (bpf_core_read(&st, 8, &i->i_state))
				return -1;
			dying = (1 << 4) | (1 << 5) | (1 << 6);		/* 6.1-6.11 */
		} else {
			if (bpf_core_read(&st, 4, &i->i_state))
				return -1;
			dying = (1 << 6) | (1 << 7) | (1 << 8);		/* 6.12-6.17 */
		}
	} else {
		return -1;
	}
	return (st & dying) ? 1 : 0;
}

__noinline int path_one(__u32 i)
{
	struct ms_path_slot *s = bpf_map_lookup_elem(&paths, &i);
	struct address_space *as, *im = NULL;
	struct inode *host = NULL, *dino = NULL;
	struct super_block *sb = NULL;
	struct hlist_node___ms *first = NULL;
	struct hlist_bl_node___ms **pprev = NULL;
	struct dentry *d, *root = NULL;
	unsigned long ino = 0;
	unsigned int dev = 0;
	__u32 k, done = 0;

	if (!s)
		return 0;
	s->status = MS_PATH_UNKNOWN;
	s->flags = 0;
	s->nlink = 0;
	s->ncomp = 0;
	s->rdev = 0;
	s->magic = 0;
	as = (struct address_space *)s->mapping;
	if (!as || bpf_core_read(&host, sizeof(host), &as->host) || !host)
		return 0;
	if (bpf_core_read(&im, sizeof(im), &host->i_mapping) || im != as)
		return 0;
	if (bpf_core_read(&ino, sizeof(ino), &host->i_ino) || ino != s->ino)
		return 0;
	if (ms_inode_dying(host))
		return 0;	/* evicted or freed since the walk */
	if (bpf_core_read(&sb, sizeof(sb), &host->i_sb) || !sb)
		return 0;
	if (bpf_core_read(&dev, sizeof(dev), &sb->s_dev) || dev != s->dev)
		return 0;
	if (bpf_core_read(&s->magic, sizeof(s->magic), &sb->s_magic) ||
	    bpf_core_read(&s->nlink, sizeof(s->nlink), &host->i_nlink) ||
	    bpf_core_read(&s->rdev, sizeof(s->rdev), &host->i_rdev) ||
	    bpf_core_read(&root, sizeof(root), &sb->s_root) ||
	    bpf_core_read(&first, sizeof(first), &host->i_dentry.first))
		return 0;
	if (!first) {
		s->status = MS_PATH_NO_DENTRY;
		return 0;
	}
	if (bpf_core_field_exists(struct dentry___v7, d_alias))
		d = (struct dentry *)((char *)first -
				      bpf_core_field_offset(struct dentry___v7, d_alias));
	else
		d = (struct dentry *)((char *)first -
				      bpf_core_field_offset(struct dentry, d_u.d_alias));
	if (bpf_core_read(&dino, sizeof(dino), &d->d_inode) || dino != host)
		return 0;	/* the alias list changed under us */
	if (!bpf_core_read(&pprev, sizeof(pprev), &d->d_hash.pprev) && !pprev)
		s->flags |= MS_PATHF_UNHASHED;
	for (k = 0; k < MS_PATH_DEPTH; k++) {
		const unsigned char *name = NULL;
		struct dentry *parent = NULL;

		if (d == root) {
			done = 1;
			break;
		}
		if (bpf_core_read(&name, sizeof(name), &d->d_name.name) || !name ||
		    bpf_probe_read_kernel_str(s->comp[k & (MS_PATH_DEPTH - 1)], MS_PATH_NAME,
					      name) < 0) {
			s->flags |= MS_PATHF_NAME_FAULT;
			s->comp[k & (MS_PATH_DEPTH - 1)][0] = '\0';
		}
		s->ncomp = k + 1;
		if (bpf_core_read(&parent, sizeof(parent), &d->d_parent) || !parent) {
			s->flags |= MS_PATHF_NAME_FAULT;
			done = 1;
			break;
		}
		if (parent == d) {	/* a root, not the superblock's: a pseudo file */
			s->flags |= MS_PATHF_DETACHED;
			done = 1;
			break;
		}
		d = parent;
	}
	if (!done)
		s->flags |= MS_PATHF_TRUNCATED;
	s->status = MS_PATH_OK;
	return 0;
}

SEC("syscall")
int file_paths(void *ctx)
{
	__u32 i;

	for (i = 0; i < MS_PATH_BATCH && i < path_n; i++)
		path_one(i);
	return 0;
}

/*
 * slab_name SEC("syscall"): memstat --by slab names a cache from the kmem_cache pointer a slab's
 * record held (slab_slot.cache, set by user space). The pointer is trusted only when the cache
 * is on a list whose neighbours point back at it (slab_caches; a destroyed cache is unlinked
 * first), and every read is a bpf_core_read(): a freed cache gives MS_SLAB_UNKNOWN. The fields
 * read: core_fixes.bpf.h, struct kmem_cache___n.
 */
struct ms_slab_slot slab_slot;	/* in and out, through the memory-mapped .bss */

SEC("syscall")
int slab_name(void *ctx)
{
	struct kmem_cache___n *c = (struct kmem_cache___n *)slab_slot.cache;
	struct list_head___ms *next = NULL, *prev = NULL, *back = NULL;
	const char *name = NULL;

	slab_slot.status = MS_SLAB_UNKNOWN;
	slab_slot.name[0] = '\0';
	if (!c || bpf_core_read(&next, sizeof(next), &c->list.next) ||
	    bpf_core_read(&prev, sizeof(prev), &c->list.prev) || !next || !prev ||
	    bpf_core_read(&back, sizeof(back), &next->prev) || back != &c->list ||
	    bpf_core_read(&back, sizeof(back), &prev->next) || back != &c->list)
		return 0;
	if (bpf_core_read(&name, sizeof(name), &c->name) || !name ||
	    bpf_core_read(&slab_slot.object_size, sizeof(slab_slot.object_size),
			  &c->object_size) ||
	    bpf_core_read(&slab_slot.size, sizeof(slab_slot.size), &c->size) ||
	    bpf_probe_read_kernel_str(slab_slot.name, sizeof(slab_slot.name), name) < 0)
		return 0;
	slab_slot.status = MS_SLAB_OK;
	return 0;
}

#endif /* MEMSTAT_NAMES_BPF_H */
