/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * memstat -a/--attributes (attrs.c): the state of the pages of each class, counted in user space
 * from the per-page records of one walk (ms_backend_pages(), the walk of memstat allpages).
 */
#ifndef MEMSTAT_ATTRS_H
#define MEMSTAT_ATTRS_H

#include <stdbool.h>
#include <stdio.h>
#include "memstat.h"

struct ms_result;
struct ms_meminfo;
struct ms_recon;

enum ms_attr {
	MS_A_DIRTY = 0,		/* PG_dirty */
	MS_A_WRITEBACK,		/* PG_writeback */
	MS_A_MLOCKED,		/* PG_mlocked */
	MS_A_UNEVICTABLE,	/* PG_lru and PG_unevictable: on the unevictable LRU list */
	MS_A_ACTIVE_ANON,	/* PG_lru, PG_swapbacked, PG_active, not unevictable */
	MS_A_INACTIVE_ANON,	/* PG_lru, PG_swapbacked, not PG_active, not unevictable */
	MS_A_ACTIVE_FILE,	/* PG_lru, not PG_swapbacked, PG_active, not unevictable */
	MS_A_INACTIVE_FILE,	/* PG_lru, not PG_swapbacked, not PG_active, not unevictable */
	MS_A_REFERENCED,	/* PG_referenced */
	MS_A_DMA_PINNED,	/* folio_maybe_dma_pinned() */
	MS_A_ANON_THP,		/* anon folios of PMD order mapped by a PMD (AnonHugePages) */
	MS_A_SHMEM_THP,		/* shmem folios of PMD order (ShmemHugePages) */
	MS_A_FILE_THP,		/* page cache folios of PMD order (FileHugePages) */
	MS_A_KSM,		/* KSM-merged (sub-class anon_ksm) */
	MS_NR_ATTRS,
};

struct ms_attr_info {
	const char *key;	/* JSON key, csv column, Prometheus label */
	const char *label;	/* table column */
};
extern const struct ms_attr_info ms_attr_names[MS_NR_ATTRS];

#define MS_ATTR_ORDERS 32	/* folio orders counted (hugetlb 1 GiB is order 18) */

/*
 * What the attributes need to know about the running kernel, found once in its BTF
 * (attrs.c ms_attr_facts_load(): each rule there cites the kernel change it relies on).
 */
struct ms_attr_facts {
	__u8 pg_dirty, pg_writeback, pg_mlocked, pg_unevictable, pg_active, pg_lru,
	     pg_referenced, pg_swapbacked;	/* enum pageflags bits, MS_NO_BIT when absent */
	int refcount_word, refcount_shift;	/* struct page _refcount: w[word] >> shift */
	int pincount_page;	/* large folios: the page of the folio that holds _pincount, */
	int pincount_word, pincount_shift;	/* and where in it; pincount_page 0: unknown */
	int entire_page;	/* large folios: the page that holds the PMD mapcount (-1 based), */
	int entire_word, entire_shift;	/* and where in it; entire_page 0: unknown */
	unsigned int pmd_order;	/* HPAGE_PMD_ORDER: what meminfo counts as *HugePages */
	unsigned int nr_pageflags;	/* __NR_PAGEFLAGS: the first bit above them; 0: unknown */
	bool mglru;		/* /sys/kernel/mm/lru_gen/enabled: active/inactive are generations */
	bool btf_ok;		/* the flag bits came from BTF */
};

/* the counts of one walk, opaque to callers (attrs_int.h is attrs.c's own) */
struct ms_attrs;
struct ms_attrs *ms_attrs_new(void);
void ms_attrs_free(struct ms_attrs *a);
/* the facts of this kernel's page flags (ms_attr_facts_load() into the counts' own) */
int ms_attrs_load_facts(struct ms_attrs *a);
/* or facts given (ms_attr_facts_of(): a dump's) */
void ms_attrs_set_facts(struct ms_attrs *a, const struct ms_attr_facts *f);
/* told each folio's verdict: --by -a's Pinned column (ms_groups_folio_attrs()) */
void ms_attrs_on_folio(struct ms_attrs *a,
		       void (*fn)(void *arg, __u64 first_pfn, __u64 npages, __u32 mask, __u8 sub),
		       void *arg);
/* a record walk filled them */
bool ms_attrs_valid(const struct ms_attrs *a);
/* pages of class c with attribute k */
__u64 ms_attrs_class_pages(const struct ms_attrs *a, enum ms_class c, enum ms_attr k);

/*
 * enum pageflags of BTF btf (a live kernel's or a dump's): each bit's name without "PG_", the
 * first of the names that share a value ("" for a bit with none), and __NR_PAGEFLAGS in
 * *nr_flags (64 when BTF has no such name). -ENOENT when btf has no enum pageflags.
 */
#define MS_FLAG_NAME_LEN 24
struct btf;
/*
 * The bit offset of member path of struct sname in BTF btf ("a.b": b within member a; members
 * of anonymous structs and unions are found as the kernel's C code names them); -1: none. The
 * search is bounded: a crafted BTF (a dump's) may nest a type in itself.
 */
long ms_btf_member_bits(const struct btf *btf, const char *sname, const char *path);
int ms_btf_flag_names(const struct btf *btf, char names[64][MS_FLAG_NAME_LEN],
		      unsigned int *nr_flags);
/* Reads BTF and sysfs; 0, or -errno when the kernel has no BTF (flags then cannot be named). */
int ms_attr_facts_load(struct ms_attr_facts *f);
/*
 * The same facts of another kernel (a dump's): from its BTF, x86_64's PMD order, and whether
 * MGLRU ran in it. 0, or -ENOENT when btf names no page flags.
 */
int ms_attr_facts_of(const struct btf *btf, bool mglru, struct ms_attr_facts *f);
/* Before each walk: zeroes the counts, keeps the facts and on_folio. */
void ms_attrs_reset(struct ms_attrs *a);
/* The ms_page_fn of the record walk (arg: struct ms_attrs *). */
int ms_attrs_page(void *arg, __u64 pfn, const struct ms_page_rec *r);
/* After the walk: counts the last folio. */
void ms_attrs_finish(struct ms_attrs *a);
/* The decision for one folio, for the unit tests: a mask of 1 << enum ms_attr. */
__u32 ms_attrs_of(const struct ms_attr_facts *f, __u64 flags, __u8 sub, __u8 order,
		  bool large, __u64 refcount_word_value);

/*
 * folio_maybe_dma_pinned() from page records: of a small folio, from its own record (the pin
 * bias in its refcount); of a large folio, from the record of its page f->pincount_page
 * (_pincount > 0), which the caller finds. false where BTF gave no position (pincount_page 0).
 */
bool ms_attrs_small_pinned(const struct ms_attr_facts *f, const struct ms_page_rec *r);
bool ms_attrs_large_pinned(const struct ms_attr_facts *f, const struct ms_page_rec *r);

__u64 ms_attrs_total(const struct ms_attrs *a, enum ms_attr k);
/*
 * Why attribute k cannot be told on this kernel (a page flag its BTF does not name), or NULL
 * when it can. An unknown attribute is shown as unknown (the table), null (JSON), an empty field
 * (csv), no series (Prometheus), and its reconcile row is left out with the reason: never 0.
 */
const char *ms_attr_unknown(const struct ms_attr_facts *f, enum ms_attr k);
/* the same of a walk's attributes */
const char *ms_attrs_unknown(const struct ms_attrs *a, enum ms_attr k);
void ms_attrs_print(FILE *out, const struct ms_attrs *a);
/* ,"attributes":{...} */
struct ms_jw;
void ms_attrs_json(struct ms_jw *w, const struct ms_attrs *a);
/* The reconcile rows of the attributes (meminfo.c row()), after the existing rows. */
void ms_attrs_reconcile(const struct ms_attrs *a, const struct ms_meminfo *b,
			const struct ms_meminfo *m, long page_kb, struct ms_recon *rc);
void ms_attrs_print_unreconciled(FILE *out, const struct ms_attrs *a);
/* Sampling with -a: the csv columns (output.c ms_csv_header_mode()), a row's values, and the
 * Prometheus metric memstat_attribute_pages{class,attribute}. */
void ms_attrs_csv_header(FILE *out);
void ms_attrs_csv_row(FILE *out, const struct ms_attrs *a);
void ms_attrs_prom(FILE *out, const struct ms_attrs *a);

#endif
