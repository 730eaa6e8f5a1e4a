/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The page walk of a dump (dump_walk.c). */
#ifndef MEMSTAT_DUMP_WALK_H
#define MEMSTAT_DUMP_WALK_H

#include "dump.h"
#include "dump_types.h"

/*
 * Walk present memory r of dump d with types t: res (backend "dump"), and fn(arg, ...) for
 * every run of one sub-class in pfn order (NULL: none). jobs workers (0 or 1: one; runs are
 * one's). 0, or -ENOMEM / -EIO (fn failed).
 */
int ms_dump_walk(const struct ms_dump *d, const struct ms_dump_types *t,
		 const struct ms_ranges *r, unsigned int jobs, struct ms_result *res,
		 ms_run_fn fn, void *arg);

/*
 * allpages: the same walk, every page's record (include/memstat.h struct ms_page_rec) to
 * fn(arg, pfn, rec) in pfn order, one worker. 0, or -ENOMEM / -EIO (fn failed).
 */
int ms_dump_pages(const struct ms_dump *d, const struct ms_dump_types *t,
		  const struct ms_ranges *r, struct ms_result *res, ms_page_fn fn, void *arg);

#endif /* MEMSTAT_DUMP_WALK_H */
