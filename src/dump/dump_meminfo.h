/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The meminfo a dumped kernel would have printed, and its zones, from its data (dump_meminfo.c). */
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

/*
 * --by node|zone: every node's zones with pages (node, name, [start, end) pfns, as
 * /proc/zoneinfo gives them), malloc'd in *out, from node_data[] (or contig_page_data) found
 * as ms_dump_meminfo() finds its counters. MS_EXIT_OK; else an MS_EXIT_* code with why.
 */
int ms_dump_zones(struct ms_dump *d, const struct ms_dump_types *t, const char *symbols,
		  struct ms_zone **out, size_t *n, char *why, size_t whylen);

/*
 * The dumped kernel's RAM: its "System RAM" resources (its /proc/iomem), as sorted page ranges
 * in *out (ms_dump_ranges() merges them), from its iomem_resource (symbols as above).
 * MS_EXIT_OK; else an MS_EXIT_* code with why, and out empty (dump_iomem.c).
 */
int ms_dump_iomem(struct ms_dump *d, const struct ms_dump_types *t, const char *symbols,
		  struct ms_ranges *out, char *why, size_t whylen);

#endif /* MEMSTAT_DUMP_MEMINFO_H */
