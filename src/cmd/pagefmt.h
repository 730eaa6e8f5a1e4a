/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The records of `memstat allpages` (pagefmt.c): one page formatted as text, csv or jsonl into
 * a buffer, with no stdio, and a pipeline that formats pages in worker threads and writes them
 * to a file descriptor in pfn order, one write(2) per chunk of pages.
 */
#ifndef MEMSTAT_PAGEFMT_H
#define MEMSTAT_PAGEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include "memstat_int.h"

enum ms_pagefmt_format { MS_PF_TEXT, MS_PF_CSV, MS_PF_JSONL };

struct ms_pagefmt {
	enum ms_pagefmt_format fmt;
	bool raw;				/* --raw-pointers: mapping, memcg_data, raw */
	const struct ms_features *feat;		/* for the page type (mapcount) */
	const char *flag_name[64];		/* page-flag names by bit (NULL: "?") */
	int nr_flags;				/* bits from nr_flags up are not flags */
	const struct ms_zone *zones;		/* /proc/zoneinfo */
	size_t nzones;
	bool wss;				/* --wss: the wss column (enum ms_pagefmt_wss) */
	/* set by ms_pagefmt_init() */
	__u64 flag_mask;
	size_t flag_len[64];
};

/* --wss: what the window saw of a page (the wss column) */
enum ms_pagefmt_wss {
	MS_PF_WSS_NA = -1,	/* a class the window cannot see (kernel, hugetlb, free): '-' */
	MS_PF_WSS_ACCESSED, MS_PF_WSS_IDLE, MS_PF_WSS_UNSEEN, MS_PF_WSS_UNTRACKED,
};

/* The longest record (and header) ms_pagefmt_record() writes, in bytes. */
#define MS_PAGEFMT_REC_MAX 2048

/* What one formatting thread carries from a record to the next. */
struct ms_pagefmt_state {
	size_t zi;		/* the zone of the last record (a zone is kept while it holds the pfn) */
	__u64 last_flags;
	size_t flags_len;	/* 0: no cached flags string */
	char flags[512];
	/*
	 * The text of the last record's columns class to order, and refcount to flags, with
	 * what they were made from: a record that repeats them (most neighbouring pages do)
	 * copies the text.
	 */
	bool mid_valid, tail_valid;
	__u8 mid_sub, mid_role, mid_order;
	size_t mid_len, tail_len;
	struct {
		__u64 type;	/* the word of the page type, _mapcount and _refcount */
		__u64 ino, offset, cgroup, flags;
		const struct ms_zone *zone;
		__u32 dev;
		__u8 sub;
		int pinned, wss;
	} tail_key;
	char mid[128];
	char tail[MS_PAGEFMT_REC_MAX];
};

/* Call after filling fmt, raw, feat, flag_name, nr_flags and zones. */
void ms_pagefmt_init(struct ms_pagefmt *f);
void ms_pagefmt_state_init(struct ms_pagefmt_state *st);
/* The header line (none for jsonl): returns its length. */
size_t ms_pagefmt_header(const struct ms_pagefmt *f, char *out);
/*
 * One record, '\n' included: returns its length (at most MS_PAGEFMT_REC_MAX). pinned: the
 * pinned column, 1 or 0, or -1 where it is not known ('-' in text, empty in csv, no key in jsonl).
 * wss: the wss column's (enum ms_pagefmt_wss), when f->wss.
 */
size_t ms_pagefmt_record(const struct ms_pagefmt *f, struct ms_pagefmt_state *st, char *out,
			 __u64 pfn, const struct ms_page_rec *r, int pinned, int wss);
/* The zone of pfn as a formatting thread sees it after state zi (the zone index moves). */
const struct ms_zone *ms_pagefmt_zone(const struct ms_pagefmt *f, size_t *zi, __u64 pfn);

/* Write all of buf to fd, through EINTR and short writes: 0, or the errno of the failure. */
int ms_write_all(int fd, const char *buf, size_t len);

/*
 * The pipeline: ms_pagefmt_pipe_page() copies a record (the caller's buffer may be reused at
 * once); jobs threads format chunks of records; one thread writes them to fd in the order they
 * were given. ms_pagefmt_pipe_page() returns -1 once a write has failed (stop giving pages);
 * ms_pagefmt_pipe_finish() writes what is left, ends the threads and frees the pipeline, and
 * returns 0 or the errno of the first failed write (EPIPE: the reader went away).
 * ms_pagefmt_pipe_start() returns NULL, errno set, when memory or a thread cannot be had.
 */
struct ms_pagefmt_pipe;
struct ms_pagefmt_pipe *ms_pagefmt_pipe_start(const struct ms_pagefmt *f, int fd, int jobs);
int ms_pagefmt_pipe_page(struct ms_pagefmt_pipe *p, __u64 pfn, const struct ms_page_rec *r,
			 int pinned, int wss);
int ms_pagefmt_pipe_finish(struct ms_pagefmt_pipe *p);

#endif /* MEMSTAT_PAGEFMT_H */
