/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Test hooks: the environment variables through which the tests steer memstat. They act only in
 * a test build, compiled with -DMEMSTAT_TEST_HOOKS (build/memstat-test, the unit and integration
 * tests, the sanitizer build). In the memstat that is installed ms_test_hook() is always NULL,
 * so nothing in root's environment can redirect what it reads, writes or kills. Every hook is
 * one of this list, named and read in testhooks.c.
 */
#ifndef MEMSTAT_TESTHOOKS_H
#define MEMSTAT_TESTHOOKS_H

#include <stdbool.h>

enum ms_test_hook {
	MS_TEST_MEMINFO,	/* MEMSTAT_MEMINFO: a file read instead of /proc/meminfo */
	MS_TEST_RMSS_RUNDIR,	/* MEMSTAT_RMSS_RUNDIR: rmss's lock and state files there */
	MS_TEST_SPLIT_PFN,	/* MEMSTAT_TEST_SPLIT_PFN: the one chunk boundary of a parallel walk */
	MS_TEST_WALK_PAGES,	/* MEMSTAT_TEST_WALK_PAGES: pages per bpf walk program run */
	MS_TEST_NO_CAST,	/* MEMSTAT_TEST_NO_CAST: the copying walk, not bpf_rdonly_cast's */
	MS_TEST_MEMCG_UNKNOWN,	/* MEMSTAT_TEST_MEMCG_UNKNOWN: as if the memcg link were unknown */
	MS_TEST_NO_PAGEFLAGS,	/* MEMSTAT_TEST_NO_PAGEFLAGS: as if BTF named no page flag */
	MS_TEST_CACHE_DIR,	/* MEMSTAT_CACHE_DIR: the CO-RE types cache there (btf_cache.c) */
	MS_TEST_NO_PAGEMAP_SCAN,	/* MEMSTAT_TEST_NO_PAGEMAP_SCAN: --by process reads every
					 * pagemap entry, as before 6.7 (procs.c) */
	MS_TEST_KPAGECOUNT,	/* MEMSTAT_TEST_KPAGECOUNT: --by process reads it for
				 * /proc/kpagecount (procs.c) */
	MS_NR_TEST_HOOKS,
};

/* the hook's value (non-empty), or NULL; always NULL outside test builds */
const char *ms_test_hook(enum ms_test_hook h);
/* whether this binary is a test build */
bool ms_test_build(void);

#endif
