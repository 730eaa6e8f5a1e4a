// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fallback backend: /proc/kpageflags, the kernel's own per-page flag summary
 * (fs/proc/page.c; bit meanings in include/uapi/linux/kernel-page-flags.h). Slower (one
 * 8-byte word per page through a read), and blind to what no flag shows: exec mappings,
 * uninitialised struct pages, per-cpu free pages, vmalloc and other kernel memory all read as
 * "no flags". Those pages are reported as unidentified rather than guessed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"

#define KPF(n)	(1ULL << (n))
#define KPF_SLAB		7
#define KPF_BUDDY		10
#define KPF_MMAP		11
#define KPF_ANON		12
#define KPF_SWAPCACHE		13
#define KPF_SWAPBACKED		14
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_HUGE		17
#define KPF_LRU			5
#define KPF_NOPAGE		20
#define KPF_KSM			21
#define KPF_OFFLINE		23
#define KPF_ZERO_PAGE		24
#define KPF_PGTABLE		26
#define KPF_RESERVED		32

#define KPF_CHUNK	65536	/* entries per read: 512 KiB, like tools/mm/page-types */

enum ms_sub ms_kpf_classify(__u64 k, enum ms_sub prev_head)
{
	/* 6.1/6.6 tails carry only some of the head's bits (docs/page-classes.md section 5.2) */
	if ((k & KPF(KPF_COMPOUND_TAIL)) && !(k & (KPF(KPF_BUDDY) | KPF(KPF_SLAB) | KPF(KPF_HUGE))) &&
	    prev_head != MS_NR_SUBS)
		return prev_head;
	if (k & KPF(KPF_BUDDY))
		return MS_FREE_BUDDY;
	if (k & KPF(KPF_HUGE))
		return MS_HUGETLB;
	if (k & KPF(KPF_SLAB))
		return MS_KERNEL_SLAB;
	if (k & KPF(KPF_PGTABLE))
		return MS_KERNEL_PAGETABLE;
	if (k & KPF(KPF_OFFLINE))
		return MS_KERNEL_OFFLINE;
	if (k & (KPF(KPF_RESERVED) | KPF(KPF_ZERO_PAGE)))
		return MS_KERNEL_RESERVED;
	if (k & KPF(KPF_ANON)) {
		if (k & KPF(KPF_KSM))
			return MS_ANON_KSM;
		return (k & KPF(KPF_SWAPCACHE)) ? MS_ANON_SWAPCACHE : MS_ANON;
	}
	if (k & KPF(KPF_SWAPCACHE))
		return MS_FILE_SWAPCACHE;
	if (k & (KPF(KPF_LRU) | KPF(KPF_MMAP)))
		return (k & KPF(KPF_SWAPBACKED)) ? MS_SHMEM : MS_FILE;
	if (k & KPF(KPF_COMPOUND_HEAD))
		return MS_KERNEL_OTHER;	/* an unowned compound page: kmalloc_large and friends */
	return MS_UNKNOWN;
}

int ms_kpf_walk(const char *path, const struct ms_ranges *ranges, struct ms_result *res,
		ms_run_fn fn, void *arg, char *why, size_t whylen)
{
	__u64 *buf;
	double t0 = ms_now_ms();
	size_t i;
	int fd;

	memset(res, 0, sizeof(*res));
	res->backend = "kpageflags";
	res->jobs = 1;	/* --jobs is accepted and ignored: README "Parallel walk" */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		snprintf(why, whylen, "failed to open %s: %s%s", path, strerror(err),
			 err == EACCES || err == EPERM ? " (missing CAP_SYS_ADMIN; run as root)" : "");
		return err == EACCES || err == EPERM ? MS_EXIT_PERM : MS_EXIT_FAIL;
	}
	buf = malloc(KPF_CHUNK * sizeof(*buf));
	if (!buf) {
		close(fd);
		snprintf(why, whylen, "out of memory");
		return MS_EXIT_FAIL;
	}
	for (i = 0; i < ranges->n; i++) {
		enum ms_sub head = MS_NR_SUBS, run_sub = MS_NR_SUBS;
		__u64 pfn = ranges->r[i].start, run_start = pfn;

		while (pfn < ranges->r[i].end) {
			__u64 want = ranges->r[i].end - pfn, j;
			ssize_t n;

			if (want > KPF_CHUNK)
				want = KPF_CHUNK;
			n = pread(fd, buf, want * 8, (off_t)(pfn * 8));
			res->reads++;
			if (n < 0) {
				snprintf(why, whylen, "failed to read %s at pfn %#llx: %s", path,
					 (unsigned long long)pfn, strerror(errno));
				free(buf);
				close(fd);
				return errno == EPERM ? MS_EXIT_PERM : MS_EXIT_FAIL;
			}
			if (n < 8) {	/* past get_max_dump_pfn(): no struct pages there */
				res->holes += ranges->r[i].end - pfn;
				break;
			}
			for (j = 0; j < (__u64)n / 8; j++, pfn++) {
				enum ms_sub s;

				if (buf[j] & KPF(KPF_NOPAGE)) {
					res->holes++;
					if (fn && run_sub != MS_NR_SUBS &&
					    fn(arg, run_start, pfn - run_start, run_sub))
						goto stop;
					run_sub = MS_NR_SUBS;
					continue;
				}
				s = ms_kpf_classify(buf[j], head);
				if (buf[j] & KPF(KPF_COMPOUND_HEAD))
					head = s;
				else if (!(buf[j] & KPF(KPF_COMPOUND_TAIL)))
					head = MS_NR_SUBS;
				res->sub[s]++;
				if (fn && s != run_sub) {
					if (run_sub != MS_NR_SUBS && fn(arg, run_start, pfn - run_start, run_sub))
						goto stop;
					run_sub = s;
					run_start = pfn;
				}
			}
		}
		if (fn && run_sub != MS_NR_SUBS && fn(arg, run_start, pfn - run_start, run_sub))
			goto stop;
	}
	free(buf);
	close(fd);
	for (i = 0; i < MS_NR_SUBS; i++)
		res->total += res->sub[i];
	res->walk_ms = ms_now_ms() - t0;
	return MS_EXIT_OK;
stop:
	free(buf);
	close(fd);
	snprintf(why, whylen, "stopped by the page consumer");
	return MS_EXIT_FAIL;
}
