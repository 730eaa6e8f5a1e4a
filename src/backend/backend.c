// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The backends behind one interface (struct ms_backend_ops): bpf, the kernel module and
 * /proc/kpageflags, and choosing one: one rule for the summary, sampling, allpages and the
 * pictures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"
#include "backend.h"

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

/* ---- the three backends' ops ---- */

static int bpf_walk(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		    ms_run_fn fn, void *arg)
{
	return ms_bpf_walk(be->bpf, r, res, fn, arg);
}

static int bpf_pages(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		     ms_page_fn fn, void *arg)
{
	return ms_bpf_dump(be->bpf, r, res, fn, arg);
}

static const struct ms_features *bpf_features(const struct ms_backend *be)
{
	return ms_bpf_features(be->bpf);
}

static void bpf_set_jobs(struct ms_backend *be, unsigned int jobs)
{
	ms_bpf_set_jobs(be->bpf, jobs);
}

static void bpf_close(struct ms_backend *be)
{
	ms_bpf_free(be->bpf);
	be->bpf = NULL;
}

static const struct ms_backend_ops bpf_ops = {
	"bpf", bpf_walk, bpf_pages, bpf_features, bpf_set_jobs, bpf_close,
};

static int kmod_walk(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		     ms_run_fn fn, void *arg)
{
	return ms_kmod_walk(be->kmod, r, res, fn, NULL, arg);
}

static int kmod_pages(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		      ms_page_fn fn, void *arg)
{
	return ms_kmod_walk(be->kmod, r, res, NULL, fn, arg);
}

static const struct ms_features *kmod_features(const struct ms_backend *be)
{
	return ms_kmod_features(be->kmod);
}

static void kmod_set_jobs(struct ms_backend *be, unsigned int jobs)
{
	ms_kmod_set_jobs(be->kmod, jobs);
}

static void kmod_close(struct ms_backend *be)
{
	ms_kmod_free(be->kmod);
	be->kmod = NULL;
}

static const struct ms_backend_ops kmod_ops = {
	"kmod", kmod_walk, kmod_pages, kmod_features, kmod_set_jobs, kmod_close,
};

static int kpf_walk(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		    ms_run_fn fn, void *arg)
{
	char why[512] = "";
	int ret = ms_kpf_walk_jobs("/proc/kpageflags", r, res, fn, arg, be->jobs, why,
				   sizeof(why));

	if (ret)
		ms_err("%s", why);
	return ret;
}

static void kpf_set_jobs(struct ms_backend *be, unsigned int jobs)
{
	be->jobs = jobs;
}

static void kpf_close(struct ms_backend *be)
{
}

static const struct ms_backend_ops kpf_ops = {
	"kpageflags", kpf_walk, NULL, NULL, kpf_set_jobs, kpf_close,
};

/* ---- choosing one ---- */

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

	memset(be, 0, sizeof(*be));
	if (fallback && flen)
		fallback[0] = '\0';
	if (c == MS_BE_KPF) {
		be->ops = &kpf_ops;
		return MS_EXIT_OK;
	}
	if (c == MS_BE_KMOD) {
		ret = ms_kmod_open(&be->kmod, why, whylen);
		be->ops = ret ? NULL : &kmod_ops;
		return ret;
	}
	ret = ms_bpf_open(&be->bpf, bpf_flags, bpf_why, sizeof(bpf_why));
	if (!ret) {
		be->ops = &bpf_ops;
		return MS_EXIT_OK;
	}
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
			be->ops = &kmod_ops;
			return MS_EXIT_OK;
		}
		if (!kpf_ok)
			return ret;
		ms_err("%s", why);
	}
	if (!kpf_ok)
		return ret;
	ms_err("bpf backend unavailable: %s; falling back to /proc/kpageflags", bpf_why);
	be->ops = &kpf_ops;
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
	if (!be->ops || !be->ops->pages)
		return -EOPNOTSUPP;
	return be->ops->pages(be, r, res, fn, arg);
}

int ms_backend_walk(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		    ms_run_fn fn, void *arg)
{
	return be->ops->walk(be, r, res, fn, arg);
}

const struct ms_features *ms_backend_features(const struct ms_backend *be)
{
	return be->ops && be->ops->features ? be->ops->features(be) : NULL;
}

void ms_backend_set_jobs(struct ms_backend *be, unsigned int jobs)
{
	be->ops->set_jobs(be, jobs);
}

void ms_backend_close(struct ms_backend *be)
{
	if (be->ops)
		be->ops->close(be);
	be->ops = NULL;
}
