/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The meminfo a dumped kernel would have printed, from its counters (dump_meminfo.c). */
#ifndef MEMSTAT_DUMP_MEMINFO_H
#define MEMSTAT_DUMP_MEMINFO_H

#include "dump.h"
#include "dump_types.h"
#include "meminfo.h"

/*
 * mi, in kB as /proc/meminfo's, from the counters of dump d (types t), their addresses from
 * symbols (a System.map or vmlinux; NULL: the kernel's kallsyms in the dump). A field whose
 * counter the kernel lacks is -1. MS_EXIT_OK; MS_EXIT_UNSUPPORTED or MS_EXIT_USAGE with why.
 */
int ms_dump_meminfo(struct ms_dump *d, const struct ms_dump_types *t, const char *symbols,
		    struct ms_meminfo *mi, char *why, size_t whylen);

#endif /* MEMSTAT_DUMP_MEMINFO_H */
