/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Where a folio's MGLRU generation sits in its flags (mglru_bits.c). The kernel keeps gen + 1 in
 * a 3-bit field at LRU_GEN_PGOFF (include/linux/mm.h: below the node, zone, last_cpupid and KASAN
 * tag fields, whose widths depend on the kernel's configuration), which no BTF names. memstat
 * finds it from the pages themselves: the one 3-bit window above the page flags that reads 1 to
 * 4 in every folio on an MGLRU list and 0 in every other page, and whose counts of each value
 * are the kernel's own counts of each generation (lru_gen_full).
 */
#ifndef MEMSTAT_MGLRU_BITS_H
#define MEMSTAT_MGLRU_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "mglru.h"

/* the pages of a record walk, by the value of every 3-bit window of their folio's flags */
struct ms_gen_hist {
	__u64 lru[64][8];	/* folios on an MGLRU list (PG_lru, not PG_unevictable): pages */
	__u64 other_set[64];	/* pages of every other folio or block: those not 0 there */
	__u64 lru_pages, other_pages;
};

/*
 * Count one page into h: head_flags, the flags of its folio's first page (a tail counts as its
 * folio); lru, whether the folio is on an MGLRU list; other, whether it is surely on none
 * (neither PG_lru nor PG_unevictable). A page that is neither lru nor other is left out.
 */
void ms_gen_hist_add(struct ms_gen_hist *h, __u64 head_flags, bool lru, bool other);

/*
 * The window's lowest bit: the one window from bit `lo` (the first bit above the page flags,
 * __NR_PAGEFLAGS) to 61 that reads 1..4 in the lru pages and 0 in the other pages, at most 16
 * pages and one in 1,000 off either way (pages move between lists during a walk), and whose
 * pages of each value v are within 2% of the lru pages (and 256) of by_gen[v - 1] (the kernel's
 * counts, ms_mglru_by_gen()). -1 with why when no window, or more than one, fits.
 */
int ms_gen_locate(const struct ms_gen_hist *h, unsigned int lo,
		  const __u64 by_gen[MS_MGLRU_GENS], char *why, size_t whylen);
/*
 * The same against the kernel's counts read before and after the walk: each generation's pages
 * are compared with the range between its two counts (pages were added, freed or aged while the
 * walk ran), not with one of them.
 */
int ms_gen_locate_between(const struct ms_gen_hist *h, unsigned int lo,
			  const __u64 before[MS_MGLRU_GENS], const __u64 after[MS_MGLRU_GENS],
			  char *why, size_t whylen);

struct ms_backend;
struct ms_ranges;
/*
 * Can the window be found here: MGLRU on and lru_gen_full readable? 0 with its pages by
 * generation in by_gen (NULL: not kept), or -1 with why (without a walk: callers ask before
 * they open a backend for records).
 */
int ms_mglru_ready(__u64 by_gen[MS_MGLRU_GENS], char *why, size_t whylen);
/*
 * The window's lowest bit on the running kernel, from a record walk of be over ranges (opened
 * with MS_BPF_ALLPAGES) and lru_gen_full read before and after it (a window that agrees with
 * either); -1 with why (MGLRU absent or off, no debugfs, no window that fits).
 */
int ms_mglru_locate(struct ms_backend *be, const struct ms_ranges *ranges, char *why,
		    size_t whylen);

#endif /* MEMSTAT_MGLRU_BITS_H */
