// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The records of `memstat allpages`: formatting without stdio (the decimal and hex digits by
 * hand, into a buffer), and the pipeline that formats chunks of records in worker threads
 * while the walk goes on, and writes them in pfn order, one write(2) per chunk.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pagefmt.h"
#include "classify.h"

/*
 * The columns, in order: one table for the header and for the three formats. csv joins the
 * values, jsonl quotes those marked str (and leaves the file_only ones out of a page that is
 * not a file page), text pads them to width (flags last, as the widest).
 */
enum col {
	C_PFN, C_CLASS, C_SUB, C_ROLE, C_ORDER, C_HEAD, C_REF, C_MAP, C_OWNER, C_DEV, C_INODE,
	C_OFFSET, C_CGROUP, C_NODE, C_ZONE, C_PIN, C_WSS, C_FLAGS, C_MAPPING, C_MEMCG, C_RAW, NCOLS,
};
#define NCOLS_PLAIN C_MAPPING	/* the columns printed without --raw-pointers */

static const struct column {
	const char *name;
	int width;		/* text format */
	bool str;		/* a JSON string */
	bool file_only;		/* jsonl: only for file pages */
} cols[NCOLS] = {
	[C_PFN] = { "pfn", 12, false, false },
	[C_CLASS] = { "class", 10, true, false },
	[C_SUB] = { "subclass", 26, true, false },
	[C_ROLE] = { "role", 10, true, false },
	[C_ORDER] = { "order", 5, false, false },
	[C_HEAD] = { "head_pfn", 12, false, false },
	[C_REF] = { "refcount", 8, false, false },
	[C_MAP] = { "mapcount", 8, false, false },
	[C_OWNER] = { "owner", 5, true, false },
	[C_DEV] = { "dev", 7, true, true },
	[C_INODE] = { "inode", 10, false, true },
	[C_OFFSET] = { "offset", 10, false, true },
	[C_CGROUP] = { "cgroup", 6, false, false },
	[C_NODE] = { "node", 4, false, false },
	[C_ZONE] = { "zone", 7, true, false },
	[C_PIN] = { "pinned", 6, false, false },
	[C_WSS] = { "wss", 10, true, false },	/* only with --wss */
	[C_FLAGS] = { "flags", 0, true, false },
	[C_MAPPING] = { "mapping", 0, true, false },
	[C_MEMCG] = { "memcg_data", 0, true, false },
	[C_RAW] = { "raw", 0, true, false },
};

/* A flags string longer than this is cut here (as the formatting before 2026-11 did). */
#define FLAGS_MAX (sizeof(((struct ms_pagefmt_state *)0)->flags) - 1)

/* ---- digits ---- */

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static char *put_dec(char *p, __u64 v)
{
	char b[20];

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	int i = sizeof(b);

	while (v >= 100) {
		unsigned int k = (unsigned int)(v % 100) * 2;

		v /= 100;
		b[--i] = digits2[k + 1];
		b[--i] = digits2[k];
	}
	if (v >= 10) {
		b[--i] = digits2[v * 2 + 1];
		b[--i] = digits2[v * 2];
	} else {
		b[--i] = (char)('0' + v);
	}
	memcpy(p, b + i, sizeof(b) - i);
	return p + (sizeof(b) - i);
}

static char *put_sdec(char *p, long long v)
{
	if (v >= 0)
		return put_dec(p, (__u64)v);
	*p++ = '-';
	return put_dec(p, (__u64)-(v + 1) + 1);
}

/* 0x and lower-case hex digits, no leading zeros */
static char *put_hex(char *p, __u64 v)
{
	static const char hx[] = "0123456789abcdef";
	static const char pairs[513] =
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
		"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
		"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
		"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
		"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
		"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
		"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
		"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
	int n = v ? (67 - __builtin_clzll(v)) / 4 : 1;	/* digits */
	char *e, *q;

	*p++ = '0';
	*p++ = 'x';
	e = q = p + n;
	for (; q - p >= 2; v >>= 8) {
		q -= 2;
		memcpy(q, pairs + 2 * (v & 0xff), 2);
	}
	if (q > p)
		*p = hx[v & 15];
	return e;
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* text: pad a column of the header or a record to its width, then one space */
static char *pad(char *p, const char *start, int width)
{
	if (p - start < width) {
		memset(p, ' ', (size_t)(width - (p - start)));
		p = (char *)start + width;
	}
	*p++ = ' ';
	return p;
}

/* ---- page facts ---- */

void ms_pagefmt_init(struct ms_pagefmt *f)
{
	int b;

	f->flag_mask = f->nr_flags >= 64 ? ~0ULL : f->nr_flags <= 0 ? 0 :
		       (1ULL << f->nr_flags) - 1;
	for (b = 0; b < 64; b++)
		f->flag_len[b] = f->flag_name[b] ? strlen(f->flag_name[b]) : 1;
}

void ms_pagefmt_state_init(struct ms_pagefmt_state *st)
{
	st->zi = 0;
	st->last_flags = 0;
	st->flags_len = 0;
	st->mid_valid = false;
	st->tail_valid = false;
}

/* The flag names joined by '|' ('-' for none), cut at FLAGS_MAX; the last one is kept. */
static void flags_string(const struct ms_pagefmt *f, struct ms_pagefmt_state *st, __u64 flags)
{
	size_t n = 0;

	flags &= f->flag_mask;
	if (flags == st->last_flags && st->flags_len)
		return;
	st->last_flags = flags;
	for (__u64 rest = flags; rest && n < FLAGS_MAX; rest &= rest - 1) {
		int b = __builtin_ctzll(rest);
		const char *name = f->flag_name[b] ? f->flag_name[b] : "?";
		size_t len = f->flag_len[b];

		if (n)
			st->flags[n++] = '|';
		if (len > FLAGS_MAX - n)
			len = FLAGS_MAX - n;
		memcpy(st->flags + n, name, len);
		n += len;
	}
	if (!n)
		st->flags[n++] = '-';
	st->flags_len = n;
}

const struct ms_zone *ms_pagefmt_zone(const struct ms_pagefmt *f, size_t *zi, __u64 pfn)
{
	size_t k;

	if (*zi < f->nzones && pfn >= f->zones[*zi].start && pfn < f->zones[*zi].end)
		return &f->zones[*zi];
	for (k = 0; k < f->nzones; k++) {
		if (pfn >= f->zones[k].start && pfn < f->zones[k].end) {
			*zi = k;
			return &f->zones[k];
		}
	}
	return NULL;
}

static const char *role_name(__u8 role)
{
	switch (role) {
	case MS_ROLE_HEAD:
		return "head";
	case MS_ROLE_TAIL:
		return "tail";
	case MS_ROLE_FREE_HEAD:
		return "free-head";
	case MS_ROLE_FREE_TAIL:
		return "free-tail";
	default:
		return "-";
	}
}

/* ---- records ---- */

size_t ms_pagefmt_header(const struct ms_pagefmt *f, char *out)
{
	int c, n = f->raw ? NCOLS : NCOLS_PLAIN;
	char *p = out;

	if (f->fmt == MS_PF_JSONL)
		return 0;
	for (c = 0; c < n; c++) {
		const char *start = p;

		if (c == C_WSS && !f->wss)
			continue;
		if (f->fmt == MS_PF_CSV) {
			if (c)
				*p++ = ',';
			p = put_str(p, cols[c].name);
			continue;
		}
		for (const char *s = cols[c].name; *s; s++)
			*p++ = (char)toupper((unsigned char)*s);
		if (c < n - 1)
			p = pad(p, start, cols[c].width);
	}
	*p++ = '\n';
	return (size_t)(p - out);
}

/* What a record's columns are made of, besides the record itself. */
struct rec_ctx {
	__u64 pfn;
	const struct ms_page_rec *r;
	const struct ms_zone *z;
	long long mapcount;
	bool file;
	int pinned;	/* 1, 0, or -1: not known (jsonl leaves it out) */
	int wss;	/* enum ms_pagefmt_wss */
};

static const char *const wss_names[] = { "accessed", "idle", "unseen", "untracked" };

/* Columns c0 to c1 - 1 of a record, each with the separator or key before it. */
static char *emit_cols(const struct ms_pagefmt *f, const struct ms_pagefmt_state *st, char *p,
		       int c0, int c1, const struct rec_ctx *x)
{
	const struct ms_page_rec *r = x->r;
	bool text = f->fmt == MS_PF_TEXT, json = f->fmt == MS_PF_JSONL, file = x->file;
	int c, n = f->raw ? NCOLS : NCOLS_PLAIN;

	for (c = c0; c < c1; c++) {
		const char *start;

		if (c == C_WSS && !f->wss)
			continue;
		if (json) {
			if ((cols[c].file_only && !file) || (c == C_PIN && x->pinned < 0) ||
			    (c == C_WSS && x->wss < 0))
				continue;
			if (c)
				*p++ = ',';
			*p++ = '"';
			p = put_str(p, cols[c].name);
			*p++ = '"';
			*p++ = ':';
			if (cols[c].str)
				*p++ = '"';
		} else if (c && !text) {
			*p++ = ',';
		}
		start = p;
		switch (c) {
		case C_PFN:
			p = json ? put_dec(p, x->pfn) : put_hex(p, x->pfn);
			break;
		case C_CLASS:
			p = put_str(p, ms_classes[ms_subs[r->sub].cls].key);
			break;
		case C_SUB:
			p = put_str(p, ms_sub_key(r->sub, f->feat && f->feat->slab_cache_word));
			break;
		case C_ROLE:
			p = put_str(p, role_name(r->role));
			break;
		case C_ORDER:
			p = put_dec(p, r->order);
			break;
		case C_HEAD:
			p = json ? put_dec(p, r->head_pfn) : put_hex(p, r->head_pfn);
			break;
		case C_REF:
			p = put_sdec(p, ms_refcount(r->w));
			break;
		case C_MAP:
			p = put_sdec(p, x->mapcount < 0 ? 0 : x->mapcount);
			break;
		case C_OWNER:
			p = put_str(p, file ? "file" :
				    ms_subs[r->sub].cls == MS_C_ANON ? "anon" : "none");
			break;
		case C_DEV:
			if (file) {
				p = put_dec(p, r->dev >> 20);
				*p++ = ':';
				p = put_dec(p, r->dev & 0xfffff);
			} else if (text) {
				*p++ = '-';
			}
			break;
		case C_INODE:
		case C_OFFSET:
			if (file)
				p = put_dec(p, c == C_INODE ? r->ino : r->offset);
			else if (text)
				*p++ = '-';
			break;
		case C_CGROUP:
			p = put_dec(p, r->cgroup);
			break;
		case C_NODE:
			p = put_sdec(p, x->z ? x->z->node : -1);
			break;
		case C_ZONE:
			if (x->z)
				p = put_str(p, x->z->name);
			else if (text)
				*p++ = '-';
			break;
		case C_PIN:
			if (x->pinned >= 0)
				*p++ = (char)('0' + x->pinned);
			else if (text)
				*p++ = '-';
			break;
		case C_WSS:
			if (x->wss >= 0 && x->wss <= MS_PF_WSS_UNTRACKED)
				p = put_str(p, wss_names[x->wss]);
			else if (text)
				*p++ = '-';
			break;
		case C_FLAGS:
			memcpy(p, st->flags, st->flags_len);
			p += st->flags_len;
			break;
		case C_MAPPING:
			p = put_hex(p, r->w[MS_W_MAPPING]);
			break;
		case C_MEMCG:
			p = put_hex(p, r->w[MS_W_MEMCG]);
			break;
		case C_RAW:
			for (int w = 0; w < MS_PAGE_WORDS; w++) {
				if (w)
					*p++ = ' ';
				p = put_hex(p, r->w[w]);
			}
			break;
		}
		if (json) {
			if (cols[c].str)
				*p++ = '"';
		} else if (text && c < n - 1) {
			p = pad(p, start, cols[c].width);
		}
	}
	return p;
}

size_t ms_pagefmt_record(const struct ms_pagefmt *f, struct ms_pagefmt_state *st, char *out,
			 __u64 pfn, const struct ms_page_rec *r, int pinned, int wss)
{
	struct rec_ctx x = { pfn, r, ms_pagefmt_zone(f, &st->zi, pfn), 0, r->ino != 0,
			     pinned < 0 ? -1 : !!pinned, wss < 0 ? -1 : wss };
	/* a tail shows its folio's flags, as /proc/kpageflags does since 6.12 */
	__u64 flags = (r->role == MS_ROLE_TAIL ? r->head_flags : r->w[MS_W_FLAGS]) & f->flag_mask;
	int n = f->raw ? NCOLS : NCOLS_PLAIN;
	char *p = out, *q;

	/* pfn (emit_cols() the same, written out: it changes every record) */
	if (f->fmt == MS_PF_JSONL) {
		memcpy(p, "{\"pfn\":", 7);
		p = put_dec(p + 7, pfn);
	} else {
		q = p;
		p = put_hex(p, pfn);
		if (f->fmt == MS_PF_TEXT)
			p = pad(p, q, cols[C_PFN].width);
	}
	/* class, subclass, role, order: as the last record's when these are the same */
	if (!st->mid_valid || st->mid_sub != r->sub || st->mid_role != r->role ||
	    st->mid_order != r->order) {
		q = emit_cols(f, st, st->mid, C_CLASS, C_HEAD, &x);
		st->mid_len = (size_t)(q - st->mid);
		st->mid_sub = r->sub;
		st->mid_role = r->role;
		st->mid_order = r->order;
		st->mid_valid = true;
	}
	memcpy(p, st->mid, st->mid_len);
	p += st->mid_len;
	/* head_pfn, written out as pfn */
	if (f->fmt == MS_PF_JSONL) {
		memcpy(p, ",\"head_pfn\":", 12);
		p = put_dec(p + 12, r->head_pfn);
	} else if (f->fmt == MS_PF_CSV) {
		*p++ = ',';
		p = put_hex(p, r->head_pfn);
	} else {
		q = p;
		p = put_hex(p, r->head_pfn);
		p = pad(p, q, cols[C_HEAD].width);
	}
	/* refcount to flags: the same when all they are made of is */
	if (!st->tail_valid || st->tail_key.type != r->w[MS_W_TYPE] ||
	    st->tail_key.sub != r->sub || st->tail_key.flags != flags ||
	    st->tail_key.cgroup != r->cgroup || st->tail_key.zone != x.z ||
	    st->tail_key.ino != r->ino || st->tail_key.offset != r->offset ||
	    st->tail_key.dev != r->dev || st->tail_key.pinned != x.pinned ||
	    st->tail_key.wss != x.wss) {
		if (ms_ptype(f->feat, ms_page_type_word(r->w)) == MS_T_NONE)
			x.mapcount = (long long)(__s32)ms_page_type_word(r->w) + 1;
		flags_string(f, st, flags);
		q = emit_cols(f, st, st->tail, C_REF, NCOLS_PLAIN, &x);
		st->tail_len = (size_t)(q - st->tail);
		st->tail_key.type = r->w[MS_W_TYPE];
		st->tail_key.sub = r->sub;
		st->tail_key.flags = flags;
		st->tail_key.cgroup = r->cgroup;
		st->tail_key.zone = x.z;
		st->tail_key.ino = r->ino;
		st->tail_key.offset = r->offset;
		st->tail_key.dev = r->dev;
		st->tail_key.pinned = x.pinned;
		st->tail_key.wss = x.wss;
		st->tail_valid = true;
	}
	memcpy(p, st->tail, st->tail_len);
	p += st->tail_len;
	if (n > NCOLS_PLAIN)	/* mapping, memcg_data, raw */
		p = emit_cols(f, st, p, NCOLS_PLAIN, n, &x);
	if (f->fmt == MS_PF_JSONL)
		*p++ = '}';
	*p++ = '\n';
	return (size_t)(p - out);
}

int ms_write_all(int fd, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		if (w == 0)
			return EIO;	/* no progress: do not spin */
		off += (size_t)w;
	}
	return 0;
}

/* ---- the pipeline ---- */

#define CHUNK_PAGES 4096
#define MAX_JOBS 256

enum chunk_state { CH_FREE, CH_QUEUED, CH_DONE };

struct chunk {
	enum chunk_state state;
	size_t n;			/* records */
	size_t zi;			/* the zone state before the first record */
	__u64 *pfn;
	struct ms_page_rec *rec;
	signed char *pin;		/* the pinned column of each record */
	signed char *wss;		/* the wss column of each record */
	char *out;			/* the formatted records */
	size_t len, cap;
};

struct ms_pagefmt_pipe {
	const struct ms_pagefmt *f;
	int fd;
	int jobs;
	pthread_t workers[MAX_JOBS];
	int nworkers;
	pthread_t writer;
	bool writer_started;
	pthread_mutex_t mu;
	pthread_cond_t work_cv, done_cv, free_cv;
	struct chunk *ch;
	size_t nch;
	/* sequence numbers of chunks; chunk s lives in ch[s % nch] */
	__u64 fill;		/* the one the caller fills */
	__u64 queued;		/* chunks below it are handed to the workers */
	__u64 next_fmt;		/* the next a worker takes */
	__u64 next_write;	/* the next the writer writes */
	bool finishing;
	int err;		/* the first failed write's errno (or ENOMEM) */
	struct chunk *cur;	/* ch[fill % nch] once it is free, or NULL */
	size_t zi;		/* the zone state after the last page given */
};

static void format_chunk(const struct ms_pagefmt *f, struct chunk *c, int *err)
{
	struct ms_pagefmt_state st;
	size_t i;

	ms_pagefmt_state_init(&st);
	st.zi = c->zi;
	c->len = 0;
	for (i = 0; i < c->n; i++) {
		if (c->cap - c->len < MS_PAGEFMT_REC_MAX) {
			size_t cap = c->cap * 2 + MS_PAGEFMT_REC_MAX;
			char *o = realloc(c->out, cap);

			if (!o) {
				*err = ENOMEM;
				return;
			}
			c->out = o;
			c->cap = cap;
		}
		c->len += ms_pagefmt_record(f, &st, c->out + c->len, c->pfn[i], &c->rec[i],
					    c->pin[i], c->wss[i]);
	}
}

static void *worker(void *arg)
{
	struct ms_pagefmt_pipe *p = arg;

	pthread_setname_np(pthread_self(), "memstat-fmt");
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct chunk *c;
		int err = 0;

		while (p->next_fmt >= p->queued && !p->finishing)
			pthread_cond_wait(&p->work_cv, &p->mu);
		if (p->next_fmt >= p->queued)
			break;	/* finishing, and nothing left */
		c = &p->ch[p->next_fmt++ % p->nch];
		if (!p->err) {
			pthread_mutex_unlock(&p->mu);
			format_chunk(p->f, c, &err);
			pthread_mutex_lock(&p->mu);
			if (err && !p->err)
				__atomic_store_n(&p->err, err, __ATOMIC_RELAXED);
		}
		c->state = CH_DONE;
		pthread_cond_broadcast(&p->done_cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void *writer(void *arg)
{
	struct ms_pagefmt_pipe *p = arg;

	pthread_setname_np(pthread_self(), "memstat-write");
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct chunk *c = &p->ch[p->next_write % p->nch];

		while (!(p->next_write < p->queued && c->state == CH_DONE) &&
		       !(p->finishing && p->next_write >= p->queued))
			pthread_cond_wait(&p->done_cv, &p->mu);
		if (p->next_write >= p->queued)
			break;	/* finishing, and everything written */
		if (!p->err) {
			int err;

			pthread_mutex_unlock(&p->mu);
			err = ms_write_all(p->fd, c->out, c->len);
			pthread_mutex_lock(&p->mu);
			if (err && !p->err)
				__atomic_store_n(&p->err, err, __ATOMIC_RELAXED);
		}
		c->state = CH_FREE;
		c->n = 0;
		c->len = 0;
		p->next_write++;
		pthread_cond_broadcast(&p->free_cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void pipe_free(struct ms_pagefmt_pipe *p)
{
	size_t i;

	for (i = 0; p->ch && i < p->nch; i++) {
		free(p->ch[i].pfn);
		free(p->ch[i].rec);
		free(p->ch[i].pin);
		free(p->ch[i].wss);
		free(p->ch[i].out);
	}
	free(p->ch);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work_cv);
	pthread_cond_destroy(&p->done_cv);
	pthread_cond_destroy(&p->free_cv);
	free(p);
}

struct ms_pagefmt_pipe *ms_pagefmt_pipe_start(const struct ms_pagefmt *f, int fd, int jobs)
{
	struct ms_pagefmt_pipe *p = calloc(1, sizeof(*p));
	int err = ENOMEM;
	size_t i;

	if (!p)
		return NULL;
	p->f = f;
	p->fd = fd;
	p->jobs = jobs < 1 ? 1 : jobs > MAX_JOBS ? MAX_JOBS : jobs;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work_cv, NULL);
	pthread_cond_init(&p->done_cv, NULL);
	pthread_cond_init(&p->free_cv, NULL);
	/*
	 * A chunk for every worker, and some to spare: the walk hands over a section (8 chunks)
	 * at once. Some 1.3 MiB each: at most 64.
	 */
	p->nch = (size_t)p->jobs + 10 < 64 ? (size_t)p->jobs + 10 : 64;
	p->ch = calloc(p->nch, sizeof(*p->ch));
	if (!p->ch)
		goto fail;
	for (i = 0; i < p->nch; i++) {
		struct chunk *c = &p->ch[i];

		c->pfn = malloc(CHUNK_PAGES * sizeof(*c->pfn));
		c->rec = malloc(CHUNK_PAGES * sizeof(*c->rec));
		c->pin = malloc(CHUNK_PAGES * sizeof(*c->pin));
		c->wss = malloc(CHUNK_PAGES * sizeof(*c->wss));
		c->cap = CHUNK_PAGES * 192;	/* a text record is about 170 bytes */
		c->out = malloc(c->cap);
		if (!c->pfn || !c->rec || !c->pin || !c->wss || !c->out)
			goto fail;
	}
	err = pthread_create(&p->writer, NULL, writer, p);
	if (err)
		goto fail;
	p->writer_started = true;
	for (i = 0; i < (size_t)p->jobs; i++) {
		err = pthread_create(&p->workers[i], NULL, worker, p);
		if (err)
			break;
		p->nworkers++;
	}
	if (!p->nworkers) {
		ms_pagefmt_pipe_finish(p);
		errno = err;
		return NULL;
	}
	return p;
fail:
	pipe_free(p);
	errno = err;
	return NULL;
}

static void submit(struct ms_pagefmt_pipe *p)
{
	pthread_mutex_lock(&p->mu);
	p->cur->state = CH_QUEUED;
	p->queued = ++p->fill;
	p->cur = NULL;
	pthread_cond_signal(&p->work_cv);
	pthread_mutex_unlock(&p->mu);
}

/* The chunk to fill: the one being filled, or the next once the writer has freed it. */
static struct chunk *cur_chunk(struct ms_pagefmt_pipe *p)
{
	struct chunk *c = p->cur;

	if (!c) {
		c = &p->ch[p->fill % p->nch];
		pthread_mutex_lock(&p->mu);
		while (c->state != CH_FREE)
			pthread_cond_wait(&p->free_cv, &p->mu);
		pthread_mutex_unlock(&p->mu);
		c->zi = p->zi;
		p->cur = c;
	}
	return c;
}

int ms_pagefmt_pipe_page(struct ms_pagefmt_pipe *p, __u64 pfn, const struct ms_page_rec *r,
			 int pinned, int wss)
{
	struct chunk *c;

	if (__atomic_load_n(&p->err, __ATOMIC_RELAXED))
		return -1;
	c = cur_chunk(p);
	/* the zone state the next chunk begins with (the zone is kept while it holds the pfn) */
	if (p->zi >= p->f->nzones || pfn < p->f->zones[p->zi].start ||
	    pfn >= p->f->zones[p->zi].end)
		ms_pagefmt_zone(p->f, &p->zi, pfn);
	c->pfn[c->n] = pfn;
	memcpy(&c->rec[c->n], r, sizeof(*r));
	c->pin[c->n] = (signed char)(pinned < 0 ? -1 : !!pinned);
	c->wss[c->n] = (signed char)(wss < 0 || wss > MS_PF_WSS_UNTRACKED ? -1 : wss);
	if (++c->n == CHUNK_PAGES)
		submit(p);
	return 0;
}

int ms_pagefmt_pipe_finish(struct ms_pagefmt_pipe *p)
{
	int i, err;

	if (p->cur && p->cur->n)
		submit(p);
	pthread_mutex_lock(&p->mu);
	p->finishing = true;
	pthread_cond_broadcast(&p->work_cv);
	pthread_cond_broadcast(&p->done_cv);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->nworkers; i++)
		pthread_join(p->workers[i], NULL);
	if (p->writer_started)
		pthread_join(p->writer, NULL);
	err = p->err;
	pipe_free(p);
	return err;
}
