// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --by fs|file|exec of a dump: the dumped system's mounts and files named from the dump itself,
 * never from this machine's /proc/self/mountinfo or /sys.
 *   - The mounts: those of the initial mount namespace (init_nsproxy.mnt_ns), from its root
 *     mount down each mount's mnt_mounts list, parents before children and siblings in mount
 *     order; each as its /proc/1/mountinfo line gives it: device, the directory of its file
 *     system it mounts, its mount point, type and source.
 *   - A file: one dentry of its inode (the first of i_dentry) up to its superblock's root, as
 *     the BPF program file_paths reads it on a live kernel (bpf/names.bpf.h), into the same
 *     struct ms_path_slot; files.c joins it with a mount.
 * Every read is bounded: a loop or a corrupt pointer gives a short or unnamed result, never a
 * hang or a crash.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_walk.h"
#include "mountinfo.h"

#define MAX_MOUNTS	65536	/* mounts of the namespace read, at most */
#define MAX_DEPTH	64	/* dentries up to a root; mounts up to the namespace's root */
#define NAME_LEN	256	/* NAME_MAX + 1 */

/* NULL or an error pointer (an internal mount's mnt_ns is ERR_PTR(-EINVAL)) */
static bool no_ptr(__u64 p)
{
	return !p || p >= (__u64)-4095;
}

/*
 * The names of dentry de up to stop (not included) or up to a dentry that is its own parent,
 * as "/a/b" into buf ("" when de is stop). 0, or -1 when a dentry cannot be read or the chain
 * is deeper than MAX_DEPTH.
 */
static int dentry_path(struct ms_dump *d, const struct ms_dump_types *t, __u64 de, __u64 stop,
		       char *buf, size_t len)
{
	static __thread char names[MAX_DEPTH][NAME_LEN];
	size_t n = 0, at = 0;

	while (de != stop) {
		__u64 parent;

		if (n == MAX_DEPTH || no_ptr(de) ||
		    ms_dump_read_virt(d, de + (__u64)t->dentry_parent, &parent, sizeof(parent)) ||
		    no_ptr(parent))
			return -1;
		if (parent == de)
			break;		/* a root, not stop's */
		ms_dump_read_str(d, ms_dump_u64(d, de + (__u64)t->dentry_name), names[n++], NAME_LEN);
		de = parent;
	}
	buf[0] = '\0';
	for (size_t i = n; i-- > 0 && at < len;)
		at += (size_t)snprintf(buf + at, len - at, "/%s", names[i]);
	return at < len ? 0 : -1;
}

/* Mount m's mount point in its namespace ("/" for the root mount) into buf: 0 or -1. */
static int mount_point(struct ms_dump *d, const struct ms_dump_types *t, __u64 m, char *buf,
		       size_t len)
{
	char part[PATH_MAX], tail[PATH_MAX] = "", joined[2 * PATH_MAX];

	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		__u64 parent = ms_dump_u64(d, m + (__u64)t->mnt_parent);

		if (no_ptr(parent))
			return -1;
		if (parent == m) {
			snprintf(buf, len, "%s", tail[0] ? tail : "/");
			return strlen(tail) < len ? 0 : -1;
		}
		if (dentry_path(d, t, ms_dump_u64(d, m + (__u64)t->mnt_mountpoint),
				ms_dump_u64(d, parent + (__u64)t->mnt_root), part, sizeof(part)))
			return -1;
		snprintf(joined, sizeof(joined), "%s%s", part, tail);
		if (strlen(joined) >= sizeof(tail))
			return -1;
		strcpy(tail, joined);
		m = parent;
	}
	return -1;
}

/* Mount m as a mountinfo entry into e: 0, 1 (not nameable: left out) or -ENOMEM. */
static int mount_entry(struct ms_dump *d, const struct ms_dump_types *t, __u64 m,
		       struct ms_mountinfo_entry *e)
{
	char root[PATH_MAX], point[PATH_MAX], fstype[64], source[PATH_MAX];
	__u64 sb = ms_dump_u64(d, m + (__u64)t->mnt_sb);
	__u32 dev;

	if (no_ptr(sb) || ms_dump_read_virt(d, sb + (__u64)t->sb_dev, &dev, sizeof(dev)) ||
	    dentry_path(d, t, ms_dump_u64(d, m + (__u64)t->mnt_root),
			ms_dump_u64(d, sb + (__u64)t->sb_root), root, sizeof(root)) ||
	    mount_point(d, t, m, point, sizeof(point)))
		return 1;
	fstype[0] = source[0] = '\0';
	if (t->sb_type >= 0 && t->fst_name >= 0)
		ms_dump_read_str(d, ms_dump_u64(d, ms_dump_u64(d, sb + (__u64)t->sb_type) +
					      (__u64)t->fst_name), fstype, sizeof(fstype));
	if (t->mnt_devname >= 0)
		ms_dump_read_str(d, ms_dump_u64(d, m + (__u64)t->mnt_devname), source, sizeof(source));
	e->dev = dev;
	e->major = MS_DEV_MAJOR(dev);
	e->minor = MS_DEV_MINOR(dev);
	e->root = strdup(root[0] ? root : "/");
	e->point = strdup(point);
	e->fstype = strdup(fstype);
	e->source = strdup(source);
	e->superopts = strdup("");
	return e->root && e->point && e->fstype && e->source && e->superopts ? 0 : -ENOMEM;
}

int ms_dump_mounts(struct ms_dump *d, const struct ms_dump_types *t, __u64 init_nsproxy,
		   struct ms_mountinfo *out)
{
	__u64 *m = NULL, ns, root;
	size_t n = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (t->nsproxy_mntns < 0 || t->mntns_root < 0 || t->mnt_parent < 0 ||
	    t->mnt_mountpoint < 0 || t->mnt_root < 0 || t->mnt_sb < 0 || t->mnt_mounts < 0 ||
	    t->mnt_child < 0 || t->sb_root < 0 || t->dentry_parent < 0 || t->dentry_name < 0 ||
	    no_ptr(init_nsproxy))
		return 0;	/* no mounts: files are named "(not mounted) PATH" */
	ns = ms_dump_u64(d, init_nsproxy + (__u64)t->nsproxy_mntns);
	root = no_ptr(ns) ? 0 : ms_dump_u64(d, ns + (__u64)t->mntns_root);
	if (no_ptr(root))
		return 0;
	m = malloc(MAX_MOUNTS * sizeof(*m));
	if (!m)
		return -ENOMEM;
	m[n++] = root;
	/* breadth first: m[] is the queue and the mounts met; a list is followed MAX_MOUNTS links */
	for (size_t i = 0; i < n; i++) {
		__u64 head = m[i] + (__u64)t->mnt_mounts, link = ms_dump_u64(d, head);

		for (size_t k = 0; !no_ptr(link) && link != head && k < MAX_MOUNTS && n < MAX_MOUNTS;
		     k++) {
			m[n++] = link - (__u64)t->mnt_child;
			link = ms_dump_u64(d, link);
		}
	}
	out->m = calloc(n, sizeof(*out->m));
	if (!out->m)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < n; i++) {
		int r = mount_entry(d, t, m[i], &out->m[out->n]);

		if (r < 0) {
			out->n++;	/* freed with the others */
			err = r;
		} else if (!r) {
			out->n++;
		}
	}
	free(m);
	if (err)
		ms_mountinfo_free(out);
	return err;
}

/* the inode's first dentry (i_dentry.first is its d_alias), or 0 */
static __u64 first_dentry(struct ms_dump *d, const struct ms_dump_types *t, __u64 host)
{
	__u64 first = ms_dump_u64(d, host + (__u64)t->inode_dentry);

	return no_ptr(first) || t->dentry_alias < 0 ? 0 : first - (__u64)t->dentry_alias;
}

void ms_dump_path_of(struct ms_dump *d, const struct ms_dump_types *t, struct ms_path_slot *s)
{
	__u64 host, sb, de, root, first;
	__u32 k;

	s->status = MS_PATH_UNKNOWN;
	s->flags = s->nlink = s->ncomp = s->rdev = 0;
	s->magic = 0;
	host = s->mapping ? ms_dump_u64(d, s->mapping + (__u64)t->as_host) : 0;
	sb = no_ptr(host) ? 0 : ms_dump_u64(d, host + (__u64)t->inode_sb);
	if (no_ptr(sb) || ms_dump_u64(d, host + (__u64)t->inode_ino) != s->ino ||
	    ms_dump_read_virt(d, sb + (__u64)t->sb_magic, &s->magic, sizeof(s->magic)))
		return;
	if (t->inode_nlink >= 0)
		ms_dump_read_virt(d, host + (__u64)t->inode_nlink, &s->nlink, sizeof(s->nlink));
	if (t->inode_rdev >= 0)
		ms_dump_read_virt(d, host + (__u64)t->inode_rdev, &s->rdev, sizeof(s->rdev));
	if (t->inode_dentry < 0 || t->dentry_parent < 0 || t->dentry_name < 0 || t->sb_root < 0)
		return;		/* no names in its BTF: "(unknown)" */
	first = first_dentry(d, t, host);
	if (!first) {
		s->status = MS_PATH_NO_DENTRY;
		return;
	}
	if (t->dentry_hash_pprev >= 0 && !ms_dump_u64(d, first + (__u64)t->dentry_hash_pprev))
		s->flags |= MS_PATHF_UNHASHED;
	root = ms_dump_u64(d, sb + (__u64)t->sb_root);
	de = first;
	for (k = 0; k < MS_PATH_DEPTH; k++) {
		__u64 parent, name;

		if (de == root)
			break;
		name = ms_dump_u64(d, de + (__u64)t->dentry_name);
		s->comp[k][0] = '\0';
		if (name)
			ms_dump_read_str(d, name, s->comp[k], MS_PATH_NAME);
		else
			s->flags |= MS_PATHF_NAME_FAULT;
		s->ncomp = k + 1;
		parent = ms_dump_u64(d, de + (__u64)t->dentry_parent);
		if (no_ptr(parent)) {
			s->flags |= MS_PATHF_NAME_FAULT;
			break;
		}
		if (parent == de) {	/* a root, not the superblock's: a pseudo file */
			s->flags |= MS_PATHF_DETACHED;
			break;
		}
		de = parent;
	}
	if (k == MS_PATH_DEPTH)
		s->flags |= MS_PATHF_TRUNCATED;
	s->status = MS_PATH_OK;
}
