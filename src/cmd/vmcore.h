/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* memstat --core FILE (vmcore.c). */
#ifndef MEMSTAT_VMCORE_H
#define MEMSTAT_VMCORE_H

#include <stdbool.h>

#include "dump.h"
#include "dump_types.h"
#include "options.h"

/* An open dump: its file and layout, its kernel's types, its present memory. */
struct ms_core {
	struct ms_dump d;
	struct ms_dump_types t;
	struct ms_ranges r;
};

/*
 * Open dump path, its types from btf (NULL: the BTF in the dump, else the running kernel's when
 * it is the dumped one): MS_EXIT_OK, or an MS_EXIT_* code with the failure said in one line
 * ("--core PATH: why", and in the JSON of --json) and nothing left open.
 */
int ms_core_open(const char *path, const char *btf, struct ms_core *c);
void ms_core_close(struct ms_core *c);

/*
 * The summary (or JSON, or runs to run_fn) of the dump o->core; t0 is when memstat started.
 * *slab_split is set before the first run: whether the walk tells reclaimable slab apart.
 * Returns an MS_EXIT_* code; a failure is said in one line (and in the JSON with --json).
 */
int ms_core_main(const struct ms_opts *o, double t0, ms_run_fn run_fn, bool *slab_split);

#endif /* MEMSTAT_VMCORE_H */
