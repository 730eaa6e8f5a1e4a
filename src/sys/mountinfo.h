/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * /proc/self/mountinfo (mountinfo.c): the one reader of it, for --by fs (groups.c), the file
 * names of --by file/exec (files.c) and the memory cgroup hierarchy's mount (cgroup.c).
 */
#ifndef MEMSTAT_MOUNTINFO_H
#define MEMSTAT_MOUNTINFO_H

#include <stddef.h>
#include <linux/types.h>

/* s_dev as the kernel keeps it (and the walk records it): major << 20 | minor */
#define MS_MKDEV(maj, min)	((__u32)(maj) << 20 | ((__u32)(min) & 0xfffff))
#define MS_DEV_MAJOR(d)		((unsigned int)((d) >> 20))
#define MS_DEV_MINOR(d)		((unsigned int)((d) & 0xfffff))

/*
 * One line: "id parent maj:min root point opts [optional...] - fstype source superopts".
 * root, point, fstype and source have the kernel's \ooo escapes (space, tab, newline,
 * backslash) decoded; superopts is kept as the file has it, so that an option's own comma
 * (escaped as \054 by seq_show_option()) never splits it.
 */
struct ms_mountinfo_entry {
	unsigned int major, minor;
	__u32 dev;		/* major << 20 | minor, as s_dev */
	char *root;		/* the directory of the file system mounted ("/": its root) */
	char *point;		/* the mount point */
	char *fstype;
	char *source;		/* "" when the file has none */
	char *superopts;	/* the super block's options, still escaped; "" when none */
};
struct ms_mountinfo {
	struct ms_mountinfo_entry *m;	/* in the file's order */
	size_t n;
};

/*
 * Read a mountinfo file into *out (what it held is freed first). A line not of the format is
 * skipped. 0, or -errno (the file cannot be opened or read; -ENOMEM): *out is then empty.
 */
int ms_mountinfo_load(const char *path, struct ms_mountinfo *out);
void ms_mountinfo_free(struct ms_mountinfo *mi);

#endif /* MEMSTAT_MOUNTINFO_H */
