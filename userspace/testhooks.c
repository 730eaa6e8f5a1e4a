// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one place test hooks are read (see testhooks.h). The Makefile compiles this file twice:
 * without MEMSTAT_TEST_HOOKS for memstat itself, with it for the test build.
 */
#include <stdlib.h>

#include "testhooks.h"

const char *ms_test_env(const char *name)
{
#ifdef MEMSTAT_TEST_HOOKS
	const char *v = getenv(name);

	return v && *v ? v : NULL;
#else
	(void)name;
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
