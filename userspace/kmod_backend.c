// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel module backend: /dev/memstat (kmod/), for kernels where BPF cannot be used. The
 * module walks one section per ioctl with the same classifier as the BPF walker.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "memstat_int.h"

struct ms_kmod {
	int fd;
	struct ms_features feat;
	__u32 generation;
	struct ms_page_rec *recs;	/* one section's records (allpages, --runs) */
	bool raw_pointers;		/* allpages --raw-pointers: ask for the pointer words */
};

void ms_kmod_set_raw_pointers(struct ms_kmod *k, bool raw)
{
	k->raw_pointers = raw;
}

int ms_kmod_open(struct ms_kmod **out, char *why, size_t whylen)
{
	struct ms_kmod *k;
	int fd, err;

	*out = NULL;
	fd = open(MS_KMOD_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == ENOENT)
			snprintf(why, whylen, "kernel module memstat is not loaded (%s is missing): "
				 "build it with 'make kmod KDIR=/lib/modules/$(uname -r)/build' and "
				 "load it with 'insmod kmod/memstat.ko'", MS_KMOD_DEVICE);
		else
			snprintf(why, whylen, "failed to open %s: %s", MS_KMOD_DEVICE, strerror(err));
		return err == EACCES || err == EPERM ? MS_EXIT_PERM : MS_EXIT_FAIL;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		close(fd);
		snprintf(why, whylen, "out of memory");
		return MS_EXIT_FAIL;
	}
	k->fd = fd;
	if (ioctl(fd, MS_KMOD_IOC_FEATURES, &k->feat)) {
		snprintf(why, whylen, "%s does not answer as memstat's module: %s", MS_KMOD_DEVICE,
			 strerror(errno));
		ms_kmod_free(k);
		return MS_EXIT_FAIL;
	}
	*out = k;
	return MS_EXIT_OK;
}

int ms_kmod_walk(struct ms_kmod *k, const struct ms_ranges *ranges, struct ms_result *res,
		 ms_run_fn run_fn, ms_page_fn page_fn, void *arg)
{
	struct ms_run_merger merger = { run_fn, arg, 0, 0, MS_NR_SUBS };
	bool recs = run_fn || page_fn;
	__u64 prev_end = ~0ULL;
	double t0 = ms_now_ms();
	size_t i;
	int j;

	memset(res, 0, sizeof(*res));
	res->backend = "kmod";
	res->exec_known = true;
	res->exec_all_processes = true;	/* the module walks every process of the machine */
	res->uninit_known = true;
	if (recs && !k->recs) {
		k->recs = calloc(MS_SECTION_PAGES, sizeof(*k->recs));
		if (!k->recs) {
			ms_err("out of memory");
			return MS_EXIT_FAIL;
		}
	}
	k->generation++;
	for (i = 0; i < ranges->n; i++) {
		__u64 start = ranges->r[i].start, end = ranges->r[i].end;

		while (start < end) {
			struct ms_kmod_walk w = {};
			__u64 stop = (start + MS_SECTION_PAGES) & ~(__u64)(MS_SECTION_PAGES - 1), pfn;

			if (stop > end || stop <= start)
				stop = end;
			w.start_pfn = start;
			w.end_pfn = stop;
			w.recs = recs ? (__u64)(unsigned long)k->recs : 0;
			w.generation = k->generation;
			w.flags = start != prev_end ? MS_KMOD_NEW_RANGE : 0;
			if (recs && k->raw_pointers)
				w.flags |= MS_KMOD_RAW_POINTERS;
			if (ioctl(k->fd, MS_KMOD_IOC_WALK, &w)) {
				if (errno == EPERM && (w.flags & MS_KMOD_RAW_POINTERS)) {
					ms_err("the kernel is locked down (confidentiality): %s refuses "
					       "--raw-pointers; run without it", MS_KMOD_DEVICE);
					return MS_EXIT_PERM;
				}
				ms_err("failed to walk pfn %#llx with %s: %s%s", (unsigned long long)start,
				       MS_KMOD_DEVICE, strerror(errno),
				       errno == EBUSY ? " (another memstat is walking)" : "");
				return MS_EXIT_FAIL;
			}
			for (j = 0; j < MS_NR_SUBS; j++)
				res->sub[j] += w.counts[j];
			res->holes += w.holes;
			res->reads++;
			res->exec_mappings = w.exec_mappings;
			res->mapping_lookups += w.mapping_lookups;
			for (pfn = start; recs && pfn < stop; pfn++) {
				const struct ms_page_rec *r = &k->recs[pfn - start];

				if (page_fn && page_fn(arg, pfn, r))
					return MS_EXIT_FAIL;
				if (run_fn && r->valid && ms_merge_run(&merger, pfn, 1, r->sub))
					return MS_EXIT_FAIL;
			}
			prev_end = stop;
			start = stop;
		}
	}
	if (run_fn && ms_merge_flush(&merger))
		return MS_EXIT_FAIL;
	for (j = 0; j < MS_NR_SUBS; j++)
		res->total += res->sub[j];
	res->walk_ms = ms_now_ms() - t0;
	return MS_EXIT_OK;
}

const struct ms_features *ms_kmod_features(const struct ms_kmod *k)
{
	return &k->feat;
}

void ms_kmod_free(struct ms_kmod *k)
{
	if (!k)
		return;
	close(k->fd);
	free(k->recs);
	free(k);
}
