/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * memstat --by file and --by exec: the files' names, from the kernel's own dentries (files.c),
 * and allpages --file PATH / --inode DEV:INO.
 */
#ifndef MEMSTAT_FILES_H
#define MEMSTAT_FILES_H

#include <stdbool.h>
#include <stdio.h>
#include "memstat_int.h"
#include "groups.h"
#include "backend.h"
#include "mountinfo.h"

/* ms_bpf_open(): also load file_paths and its slots (memstat --by file or exec) */
#define MS_BPF_PATHS 0x4
/*
 * Run file_paths over n slots (bpf_backend.c): mapping, ino and dev in, the rest out.
 * -EOPNOTSUPP when the backend was opened without MS_BPF_PATHS; else 0 or -errno.
 */
int ms_bpf_paths(struct ms_bpf *b, struct ms_path_slot *slots, size_t n);

/*
 * The mounts: /proc/self/mountinfo read with ms_mountinfo_load() (mountinfo.h); an entry's dev,
 * root (the superblock-relative directory mounted, "/": the whole), point and fstype are used.
 */

/* Where a file group's name came from (JSON "path_source"). */
enum ms_path_source {
	MS_PSRC_DENTRY,		/* a dentry of the inode: "path" is a path or a pseudo name */
	MS_PSRC_NO_DENTRY,	/* the inode has no dentry left */
	MS_PSRC_BDEV,		/* a block device's own page cache (buffers) */
	MS_PSRC_UNKNOWN,	/* the mapping was freed or reused since the walk */
	MS_PSRC_KMOD,		/* the kmod backend gives no mapping pointers */
};

/* What files.c knows of a file group (struct ms_group.extra). */
struct ms_file_info {
	enum ms_path_source source;
	bool deleted;		/* i_nlink == 0 or the dentry unhashed (not for pseudo files) */
	bool pseudo;		/* memfd, SysV shm: a dentry that is its own root */
	bool truncated;		/* deeper than MS_PATH_DEPTH: the path starts with /... */
	__u64 magic;		/* s_magic; 0 unknown */
	const struct ms_mountinfo_entry *mount;	/* the mount the path is under, or NULL */
};

/*
 * The name of a file from a filled slot and the mounts (pure: the unit tests call it): the path
 * under its mount, "memfd:NAME" and the like for pseudo files, "(deleted)" appended to a deleted
 * file's; fi receives the facts. Returns a malloc'd string, NULL when out of memory.
 */
char *ms_file_compose(const struct ms_path_slot *s, const struct ms_mountinfo *m,
		      struct ms_file_info *fi);

/*
 * The group engine's key functions for file and exec (groups.c's ms_by_keys[]): names from
 * the backend set with ms_files_backend() (the bpf backend's file_paths; the kmod backend has
 * no pointers: "path unavailable with the kmod backend").
 */
void ms_files_backend(struct ms_backend *be);
/*
 * A dump's files instead (memstat --core): path(ctx, s) fills slot s from s->mapping, and the
 * mounts are the dumped system's; a block device is named by its number, for this machine's
 * /sys describes other devices. path NULL: the live kernel's again.
 */
void ms_files_source(void (*path)(void *ctx, struct ms_path_slot *s), void *ctx,
		     const struct ms_mountinfo *mounts);
int ms_file_name(struct ms_groups *g, struct ms_group *grp);

/*
 * allpages --inode DEV:INO: "MAJOR:MINOR:INODE", decimal; --file PATH: stat(PATH). dev as s_dev
 * (major << 20 | minor). 0, or -EINVAL / -errno.
 */
int ms_file_parse_inode(const char *s, __u32 *dev, __u64 *ino);
int ms_file_stat(const char *path, __u32 *dev, __u64 *ino);

#endif /* MEMSTAT_FILES_H */
