// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A dump's RAM as its kernel saw it: every "System RAM" resource under its iomem_resource, the
 * tree /proc/iomem prints (kernel/resource.c), as a live walk takes its ranges from /proc/iomem
 * (src/core/ranges.c). A dump's segments are not that: a kdump's /proc/vmcore leaves out the
 * crash kernel's reserved area (its pages' struct pages are in it), QEMU's ELF dumps hold
 * every RAM block, firmware's reserved ranges too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "dump_meminfo.h"

#define MAX_RESOURCES	(1 << 16)	/* a corrupt tree's loops end here */
#define MAX_DEPTH	16

/* a struct resource's start, end (inclusive), name, sibling and child */
struct res {
	__u64 start, end, name, sibling, child;
};

static int read_res(struct ms_dump *d, const struct ms_dump_types *t, __u64 va, struct res *r)
{
	const long off[] = { t->res_start, t->res_end, t->res_name, t->res_sibling, t->res_child };
	__u64 *v[] = { &r->start, &r->end, &r->name, &r->sibling, &r->child };

	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		if (ms_dump_read_virt(d, va + (__u64)off[i], v[i], sizeof(*v[i])))
			return -EFAULT;
	return 0;
}

int ms_dump_iomem(struct ms_dump *d, const struct ms_dump_types *t, const char *symbols,
		  struct ms_ranges *out, char *why, size_t whylen)
{
	static const char *const names[] = { "iomem_resource" };
	__u64 root = 0, stack[MAX_DEPTH], psz = d->page_size ? d->page_size : 4096, node;
	size_t depth = 0, seen = 0;
	struct res r;
	int ret;

	memset(out, 0, sizeof(*out));
	if (t->res_start < 0 || t->res_end < 0 || t->res_name < 0 || t->res_sibling < 0 ||
	    t->res_child < 0)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "its BTF has no struct "
				   "resource");
	ret = ms_dump_symbols(d, symbols, names, 1, &root, why, whylen);
	if (ret)
		return ret;
	if (!root)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "its symbols have no "
				   "iomem_resource");
	if (read_res(d, t, root, &r))
		goto bad;
	/* depth first, as /proc/iomem lists it: a resource, its children, then its siblings */
	for (node = r.child; node || depth;) {
		char name[16];

		if (!node) {
			node = stack[--depth];
			continue;
		}
		if (++seen > MAX_RESOURCES)
			goto loops;
		if (read_res(d, t, node, &r))
			goto bad;
		ms_dump_read_str(d, r.name, name, sizeof(name));
		/* "System RAM", and drivers' "System RAM (kmem)", "System RAM (virtio_mem)" */
		if (!strncmp(name, "System RAM", 10) && r.end >= r.start &&
		    ms_ranges_add_bytes(out, r.start, r.end, psz)) {
			ms_ranges_free(out);
			return ms_dump_bad(why, whylen, MS_EXIT_FAIL, "%s", "out of memory");
		}
		if (r.child) {
			if (depth == MAX_DEPTH)
				goto loops;
			stack[depth++] = r.sibling;
			node = r.child;
		} else {
			node = r.sibling;
		}
	}
	if (!out->n)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "its iomem_resource "
				   "holds no System RAM");
	ms_ranges_merge(out);
	return MS_EXIT_OK;
bad:	/* a filtered dump may leave out the slab pages that hold it */
	ms_ranges_free(out);
	return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "its iomem_resource tree "
			   "is not whole in the dump");
loops:
	ms_ranges_free(out);
	return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "its iomem_resource tree "
			   "does not end (a corrupt dump)");
}
