/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The attributes' counts as attrs.c (and its unit tests) see them. */
#ifndef MEMSTAT_ATTRS_INT_H
#define MEMSTAT_ATTRS_INT_H

#include <stdbool.h>

#include "attrs.h"

struct ms_attrs {
	struct ms_attr_facts f;
	__u64 cls[MS_NR_CLASSES][MS_NR_ATTRS];	/* pages per class and attribute */
	__u64 sub_pinned[MS_NR_SUBS];	/* DMA-pinned pages per sub-class (memstat -v) */
	__u64 orders[MS_ATTR_ORDERS];	/* pages of allocated folios per order (not free) */
	__u64 acct_dirty;	/* dirty page cache of a writeback-accounting mapping (Dirty) */
	bool valid;		/* a record walk filled them */
	/* optional: told each folio's verdict (the tests check their own pages with it) */
	void (*on_folio)(void *arg, __u64 first_pfn, __u64 npages, __u32 mask, __u8 sub);
	void *on_folio_arg;
	/* the folio being counted (a tail shares its head's verdict) */
	bool open;
	__u64 cur_head, cur_first, cur_pages;	/* cur_first: the first pfn seen of it */
	__u32 cur_mask;		/* 1 << enum ms_attr */
	__u8 cur_sub, cur_order;
	bool cur_thp_unseen;	/* anon of PMD order: anon THP once its PMD mapcount is read */
	bool cur_acct_dirty;
};

#endif /* MEMSTAT_ATTRS_INT_H */
