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
	char ram_note[768];	/* why its memory is the dump's ranges, not its iomem's; "" */
};

/*
 * Open dump path, its types from btf (NULL: the BTF in the dump, else the running kernel's when
 * it is the dumped one), its RAM from its iomem_resource found with symbols (NULL: its
 * kallsyms; where it cannot be read, the pages the dump holds): MS_EXIT_OK, or an MS_EXIT_*
 * code with the failure said in one line ("--core PATH: why", and in the JSON of --json) and
 * nothing left open. A --symbols FILE that is not the dump's kernel's fails here.
 */
int ms_core_open(const char *path, const char *btf, const char *symbols, struct ms_core *c);
/*
 * Close it; ret is the run's MS_EXIT_* code: where its output was printed (MS_EXIT_OK or
 * MS_EXIT_MISMATCH), a line on stderr says when its memory was not its kernel's iomem's.
 */
void ms_core_close(struct ms_core *c, int ret);

/*
 * The summary (or JSON, or runs to run_fn) of the dump o->core; t0 is when memstat started.
 * *slab_split is set before the first run: whether the walk tells reclaimable slab apart.
 * Returns an MS_EXIT_* code; a failure is said in one line (and in the JSON with --json).
 */
int ms_core_main(const struct ms_opts *o, double t0, ms_run_fn run_fn, bool *slab_split);

#endif /* MEMSTAT_VMCORE_H */
