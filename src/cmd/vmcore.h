/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* memstat --core FILE (vmcore.c). */
#ifndef MEMSTAT_VMCORE_H
#define MEMSTAT_VMCORE_H

#include <stdbool.h>

#include "options.h"

/*
 * The summary (or JSON, or runs to run_fn) of the dump o->core; t0 is when memstat started.
 * *slab_split is set before the first run: whether the walk tells reclaimable slab apart.
 * Returns an MS_EXIT_* code; a failure is said in one line (and in the JSON with --json).
 */
int ms_core_main(const struct ms_opts *o, double t0, ms_run_fn run_fn, bool *slab_split);

#endif /* MEMSTAT_VMCORE_H */
