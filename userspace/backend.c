// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Choosing the backend: one rule for the summary, sampling and allpages. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"

int ms_backend_parse(const char *name, enum ms_backend_choice *out)
{
	static const char *names[] = { [MS_BE_AUTO] = "auto", [MS_BE_BPF] = "bpf",
				       [MS_BE_KMOD] = "kmod", [MS_BE_KPF] = "kpageflags" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*out = (enum ms_backend_choice)i;
			return 0;
		}
	return -1;
}

/*
 * auto: BPF; else the kernel module when /dev/memstat exists; else, when kpf_ok,
 * /proc/kpageflags (be is left empty). Each step down is said on stderr, and fallback gets
 * "bpf backend unavailable: why" for the JSON. On failure, why holds the last reason, not yet
 * printed, and the return value is an MS_EXIT_* code.
 */
int ms_backend_open(enum ms_backend_choice c, unsigned int bpf_flags, bool kpf_ok,
		    struct ms_backend *be, char *why, size_t whylen, char *fallback, size_t flen)
{
	char bpf_why[512] = "";
	int ret;

	be->bpf = NULL;
	be->kmod = NULL;
	if (fallback && flen)
		fallback[0] = '\0';
	if (c == MS_BE_KPF)
		return MS_EXIT_OK;
	if (c == MS_BE_KMOD)
		return ms_kmod_open(&be->kmod, why, whylen);
	ret = ms_bpf_open(&be->bpf, bpf_flags, bpf_why, sizeof(bpf_why));
	if (!ret)
		return MS_EXIT_OK;
	snprintf(why, whylen, "%s", bpf_why);
	if (c == MS_BE_BPF)
		return ret;
	if (fallback && flen)
		snprintf(fallback, flen, "bpf backend unavailable: %s", bpf_why);
	if (access(MS_KMOD_DEVICE, F_OK) == 0) {
		ret = ms_kmod_open(&be->kmod, why, whylen);
		if (!ret) {
			ms_err("bpf backend unavailable: %s; using the kernel module (%s)", bpf_why,
			       MS_KMOD_DEVICE);
			return MS_EXIT_OK;
		}
		if (!kpf_ok)
			return ret;
		ms_err("%s", why);
	}
	if (!kpf_ok)
		return ret;
	ms_err("bpf backend unavailable: %s; falling back to /proc/kpageflags", bpf_why);
	return MS_EXIT_OK;
}

/*
 * The per-page record walk of whichever backend is open: fn(arg, pfn, rec) for every present
 * page, in pfn order, from one worker (the record walk is serial: ms_bpf_dump() and
 * ms_kmod_walk() with records walk with one worker), and res filled as by a counting walk.
 * The bpf backend must have been opened with MS_BPF_ALLPAGES. rec->w[] holds the raw struct
 * page words (kernel pointers with bpf): keep them in memory, never print them. The kpageflags
 * backend has no records: -EOPNOTSUPP (callers refuse before they get here). Else an MS_EXIT_*.
 */
int ms_backend_pages(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		     ms_page_fn fn, void *arg)
{
	if (be->bpf)
		return ms_bpf_dump(be->bpf, r, res, fn, arg);
	if (be->kmod)
		return ms_kmod_walk(be->kmod, r, res, NULL, fn, arg);
	return -EOPNOTSUPP;
}

void ms_backend_close(struct ms_backend *be)
{
	ms_bpf_free(be->bpf);
	ms_kmod_free(be->kmod);
	be->bpf = NULL;
	be->kmod = NULL;
}
