// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one place test hooks are named and read (see testhooks.h). The Makefile compiles this file
 * twice: without MEMSTAT_TEST_HOOKS for memstat itself, with it for the test build.
 */
#include <stdlib.h>

#include "testhooks.h"

#ifdef MEMSTAT_TEST_HOOKS
static const char *const hook_names[MS_NR_TEST_HOOKS] = {
	[MS_TEST_MEMINFO] = "MEMSTAT_MEMINFO",
	[MS_TEST_RMSS_RUNDIR] = "MEMSTAT_RMSS_RUNDIR",
	[MS_TEST_SPLIT_PFN] = "MEMSTAT_TEST_SPLIT_PFN",
	[MS_TEST_WALK_PAGES] = "MEMSTAT_TEST_WALK_PAGES",
	[MS_TEST_NO_CAST] = "MEMSTAT_TEST_NO_CAST",
	[MS_TEST_MEMCG_UNKNOWN] = "MEMSTAT_TEST_MEMCG_UNKNOWN",
	[MS_TEST_NO_PAGEFLAGS] = "MEMSTAT_TEST_NO_PAGEFLAGS",
	[MS_TEST_NO_PAGEMAP_SCAN] = "MEMSTAT_TEST_NO_PAGEMAP_SCAN",
	[MS_TEST_KPAGECOUNT] = "MEMSTAT_TEST_KPAGECOUNT",
	[MS_TEST_CACHE_DIR] = "MEMSTAT_CACHE_DIR",
};
#endif

const char *ms_test_hook(enum ms_test_hook h)
{
#ifdef MEMSTAT_TEST_HOOKS
	const char *v = (unsigned int)h < MS_NR_TEST_HOOKS ? getenv(hook_names[h]) : NULL;

	return v && *v ? v : NULL;
#else
	(void)h;
	return NULL;
#endif
}

bool ms_test_build(void)
{
#ifdef MEMSTAT_TEST_HOOKS
	return true;
#else
	return false;
#endif
}
