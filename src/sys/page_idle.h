/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The idle page bitmap (CONFIG_IDLE_PAGE_TRACKING, page_idle.c): a bit per page frame, 64 to a
 * word at offset pfn / 64 * 8. Writing a set bit marks that page's folio idle (PG_idle) when it
 * is on an LRU list, after clearing the accessed bits of its mappings; reading gives a set bit
 * for a folio still idle: neither mapped and accessed (the read looks at the mappings' accessed
 * bits through the rmap) nor marked accessed by the kernel (folio_mark_accessed(), which a
 * read() does, clears PG_idle when MGLRU is off) since.
 */
#ifndef MEMSTAT_PAGE_IDLE_H
#define MEMSTAT_PAGE_IDLE_H

#include <stddef.h>
#include <linux/types.h>

#include "memstat_int.h"

#define MS_PAGE_IDLE_BITMAP "/sys/kernel/mm/page_idle/bitmap"

/* The words that cover ranges: base[i] the index of range i's first, the total returned. */
size_t ms_page_idle_words(const struct ms_ranges *r, size_t *base);
/* Mark every page of the ranges idle (bulk writes of whole words). 0, or -errno. */
int ms_page_idle_mark(const char *path, const struct ms_ranges *r);
/*
 * The bitmap's words over the ranges into words (laid out as ms_page_idle_words()); *limit: the
 * first pfn the kernel gave no word for (the partial word under max_pfn), or ~0. 0, -errno.
 */
int ms_page_idle_read(const char *path, const struct ms_ranges *r, const size_t *base,
		      __u64 *words, __u64 *limit);

#endif /* MEMSTAT_PAGE_IDLE_H */
