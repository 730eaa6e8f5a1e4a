/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A dump's kernel types from BTF (dump_btf.c): the walk's features and the offsets it follows. */
#ifndef MEMSTAT_DUMP_TYPES_H
#define MEMSTAT_DUMP_TYPES_H

#include <stddef.h>

#include "memstat.h"

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
