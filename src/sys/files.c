// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat --by file and --by exec: the names of the top N files, from the kernel's own dentries,
 * after the walk; and allpages --file PATH / --inode DEV:INO.
 *
 * The walk's page records keep each group's mapping pointer (struct ms_group.mapping, a head
 * page's page->mapping: in memory only, never printed). For each group shown, and only those,
 * the bpf backend's file_paths program (memstat.bpf.c) checks that the pointer is still the
 * address_space of the inode the walk saw, and returns the names of one dentry of that inode up
 * to its superblock's root, whether it is deleted, and the superblock's magic. The file system
 * is never scanned. Here the superblock-relative path is joined with a mount of that superblock
 * from /proc/self/mountinfo (its root field for a bind mount).
 *
 * The kmod backend gives no pointers (the module zeroes them unless asked for --raw-pointers,
 * for they reveal the KASLR layout): its file groups are named by dev and inode, with the path
 * "path unavailable with the kmod backend". An ioctl that took a mapping pointer back from
 * user space would have the module follow a pointer user space chose; the BPF program does that
 * safely (every read may fail), the module could only trust it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "files.h"
#include "groups.h"
#include "backend.h"

#define BDEVFS_MAGIC	0x62646576
#define NONE_KEY	(~0ULL)

/* ---- the mounts ---- */

/* Does directory root contain rel (both superblock-relative, starting with '/')? */
static size_t under(const char *root, const char *rel)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return 1;
	if (strncmp(root, rel, n) || (rel[n] != '/' && rel[n] != '\0'))
		return 0;
	return n + 1;
}

/*
 * The mount to show rel under: the first that mounts the whole superblock, else the one whose
 * root is the longest directory above rel (a bind mount); rel NULL: any mount of dev.
 */
static const struct ms_mountinfo_entry *mount_for(const struct ms_mountinfo *ms, __u32 dev,
						  const char *rel)
{
	const struct ms_mountinfo_entry *best = NULL;
	size_t best_len = 0;

	for (size_t k = 0; k < ms->n; k++) {
		const struct ms_mountinfo_entry *m = &ms->m[k];
		size_t len;

		if (m->dev != dev)
			continue;
		if (!rel)
			return m;
		if (!strcmp(m->root, "/"))
			return m;
		len = under(m->root, rel);
		if (len > best_len) {
			best = m;
			best_len = len;
		}
	}
	return best;
}

/* ---- names ---- */

/* ms_files_source(): a dump's files and mounts, not this machine's */
static void (*src_path)(void *ctx, struct ms_path_slot *s);
static void *src_ctx;
static const struct ms_mountinfo *src_mounts;

/* a block device's name, from /sys/dev/block/MAJ:MIN/uevent (DEVNAME=); a dump's: its number */
static void bdev_name(__u32 rdev, char *buf, size_t len)
{
	char path[64], line[256];
	FILE *f;

	snprintf(buf, len, "%u:%u", MS_DEV_MAJOR(rdev), MS_DEV_MINOR(rdev));
	if (src_path)
		return;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", MS_DEV_MAJOR(rdev),
		 MS_DEV_MINOR(rdev));
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "/dev/%s", line + 8);
			break;
		}
	}
	fclose(f);
}

/* "/" and the names of s->comp[], root first: the superblock-relative path (malloc'd) */
static char *rel_path(const struct ms_path_slot *s)
{
	size_t len = 8, k;
	char *p;

	for (k = 0; k < s->ncomp && k < MS_PATH_DEPTH; k++)
		len += strnlen(s->comp[k], MS_PATH_NAME) + 1;
	p = malloc(len);
	if (!p)
		return NULL;
	strcpy(p, (s->flags & MS_PATHF_TRUNCATED) ? "/..." : "");
	for (k = s->ncomp < MS_PATH_DEPTH ? s->ncomp : MS_PATH_DEPTH; k > 0; k--) {
		strcat(p, "/");
		strncat(p, s->comp[k - 1], MS_PATH_NAME - 1);
	}
	if (!*p)
		strcpy(p, "/");
	return p;
}

char *ms_file_compose(const struct ms_path_slot *s, const struct ms_mountinfo *ms,
		      struct ms_file_info *fi)
{
	const struct ms_mountinfo_entry *m;
	const char *suffix;
	char *rel, *out;
	size_t skip;

	memset(fi, 0, sizeof(*fi));
	fi->magic = s->magic;
	if (s->status == MS_PATH_UNKNOWN) {
		fi->source = MS_PSRC_UNKNOWN;
		fi->magic = 0;
		fi->mount = mount_for(ms, s->dev, NULL);
		return strdup("(unknown: freed since the walk)");
	}
	if (s->magic == BDEVFS_MAGIC) {
		char name[300];

		fi->source = MS_PSRC_BDEV;
		bdev_name(s->rdev, name, sizeof(name));
		return ms_strdupf("(block device %s)", name);
	}
	fi->mount = mount_for(ms, s->dev, NULL);
	if (s->status == MS_PATH_NO_DENTRY) {
		fi->source = MS_PSRC_NO_DENTRY;
		fi->deleted = s->nlink == 0;
		return strdup(fi->deleted ? "(no dentry) (deleted)" : "(no dentry)");
	}
	fi->source = MS_PSRC_DENTRY;
	fi->truncated = s->flags & MS_PATHF_TRUNCATED;
	if ((s->flags & MS_PATHF_DETACHED) && s->ncomp == 1) {
		/* memfd:NAME, SYSV%08x, ...: the name the kernel gave a file that has no path */
		fi->pseudo = true;
		return strndup(s->comp[0], MS_PATH_NAME);
	}
	fi->deleted = s->nlink == 0 || (s->flags & MS_PATHF_UNHASHED);
	rel = rel_path(s);
	if (!rel)
		return NULL;
	if (s->flags & MS_PATHF_DETACHED) {
		/* a dentry tree cut off from the root (an NFS export's disconnected dentries) */
		out = ms_strdupf("(disconnected) %s%s", rel, fi->deleted ? " (deleted)" : "");
		free(rel);
		return out;
	}
	m = fi->mount = mount_for(ms, s->dev, rel);
	if (!m) {
		fi->mount = NULL;
		out = ms_strdupf("(not mounted) %s%s", rel, fi->deleted ? " (deleted)" : "");
		free(rel);
		return out;
	}
	/* the mount point, then what of rel lies below the mount's root */
	skip = strcmp(m->root, "/") ? under(m->root, rel) - 1 : 0;
	suffix = !strcmp(rel + skip, "/") ? "" : rel + skip;
	if (!strcmp(m->point, "/"))
		out = strdup(*suffix ? suffix : "/");
	else
		out = ms_strdupf("%s%s", m->point, suffix);
	if (out && fi->deleted) {
		char *d = ms_strdupf("%s (deleted)", out);

		free(out);
		out = d;
	}
	free(rel);
	return out;
}

/* ---- the group engine's file and exec keys ---- */

static struct ms_backend *files_be;
static struct ms_mountinfo mounts;
static double mounts_at = -1.0;

void ms_files_backend(struct ms_backend *be)
{
	files_be = be;
}

/* /proc/self/mountinfo, read again when older than 0.5 s (periodic sampling) */
static const struct ms_mountinfo *current_mounts(void)
{
	double now = ms_now_ms();

	if (mounts_at < 0 || now - mounts_at > 500.0) {
		int err = ms_mountinfo_load("/proc/self/mountinfo", &mounts);

		if (err)
			ms_err("failed to read /proc/self/mountinfo: %s (files are shown as not "
			       "mounted)", strerror(-err));
		mounts_at = now;
	}
	return &mounts;
}

void ms_files_source(void (*path)(void *ctx, struct ms_path_slot *s), void *ctx,
		     const struct ms_mountinfo *m)
{
	src_path = path;
	src_ctx = ctx;
	src_mounts = m;
}

int ms_file_name(struct ms_groups *g, struct ms_group *grp)
{
	struct ms_file_info *fi = calloc(1, sizeof(*fi));
	struct ms_path_slot *s;

	if (!fi)
		return -ENOMEM;
	free(grp->extra);
	grp->extra = fi;
	if (!src_path && (!files_be || !files_be->bpf)) {
		/* no path program: the kmod backend, or a caller that set no backend */
		fi->source = MS_PSRC_KMOD;
		fi->mount = mount_for(current_mounts(), (__u32)grp->k1, NULL);
		grp->name = strdup(files_be && files_be->kmod ?
				   "path unavailable with the kmod backend" : "path unavailable");
		return grp->name ? 0 : -ENOMEM;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->mapping = grp->mapping;
	s->ino = grp->k2;
	s->dev = (__u32)grp->k1;
	if (src_path)
		src_path(src_ctx, s);
	else if (!s->mapping || ms_bpf_paths(files_be->bpf, s, 1))
		s->status = MS_PATH_UNKNOWN;
	grp->name = ms_file_compose(s, src_path ? src_mounts : current_mounts(), fi);
	if (grp->name && src_path && s->status == MS_PATH_UNKNOWN) {
		free(grp->name);	/* a dump does not change: its inode was not readable */
		grp->name = strdup("(unknown: its inode is not in the dump)");
	}
	free(s);
	return grp->name ? 0 : -ENOMEM;
}

/* ---- allpages --file / --inode ---- */

static int parse_u64(const char *s, char **end, __u64 *v)
{
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno ? -EINVAL : 0;
}

int ms_file_parse_inode(const char *s, __u32 *dev, __u64 *ino)
{
	__u64 maj, min;
	char *end;

	if (parse_u64(s, &end, &maj) || *end != ':' || parse_u64(end + 1, &end, &min) ||
	    *end != ':' || parse_u64(end + 1, &end, ino) || *end || maj > 0xfff ||
	    min > 0xfffff)
		return -EINVAL;
	*dev = MS_MKDEV(maj, min);
	return 0;
}

int ms_file_stat(const char *path, __u32 *dev, __u64 *ino)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (major(st.st_dev) > 0xfff || minor(st.st_dev) > 0xfffff)
		return -EOVERFLOW;
	*dev = MS_MKDEV(major(st.st_dev), minor(st.st_dev));
	*ino = st.st_ino;
	return 0;
}
