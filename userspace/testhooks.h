/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Test hooks: the environment variables through which the tests steer memstat (another
 * /proc/meminfo, another rmss run directory, a forced chunk boundary, ...). They act only in a
 * test build, compiled with -DMEMSTAT_TEST_HOOKS (build/memstat-test, the unit and integration
 * tests, the sanitizer build). In the memstat that is installed ms_test_env() is always NULL, so
 * nothing in root's environment can redirect what it reads, writes or kills.
 */
#ifndef MEMSTAT_TESTHOOKS_H
#define MEMSTAT_TESTHOOKS_H

#include <stdbool.h>

/* the value of the test variable NAME (non-empty), or NULL; always NULL outside test builds */
const char *ms_test_env(const char *name);
/* whether this binary is a test build */
bool ms_test_build(void);

#endif
