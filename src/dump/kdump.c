// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kdump-compressed dumps (dump.h), makedumpfile's default format, and its flattened form, which
 * makedumpfile -F and QEMU's dump-guest-memory (formats kdump-zlib, kdump-lzo, kdump-snappy)
 * write. Both as makedumpfile 1.7 defines them (diskdump_mod.h, makedumpfile.h, its
 * IMPLEMENTATION file):
 *   - block 0: struct disk_dump_header: "KDUMP   ", header_version, utsname, timestamp,
 *     status, block_size (the page size), sub_hdr_size, bitmap_blocks, max_mapnr (32 bits),
 *     ... (offsets below);
 *   - block 1: struct kdump_sub_header: phys_base, dump_level, split, start_pfn, end_pfn,
 *     offset_vmcoreinfo and size_vmcoreinfo (version 3+), offset_note, size_note,
 *     offset_eraseinfo, size_eraseinfo, start_pfn_64, end_pfn_64, max_mapnr_64 (version 6+);
 *   - from block 1 + sub_hdr_size: bitmap_blocks blocks, two bitmaps of equal size: the first
 *     says which pfns exist (the dumped machine's memory), the second which were written (a
 *     filtered dump leaves out free, cache, user or zero pages); bit pfn % 8 of byte pfn / 8;
 *   - then one struct page_desc { off_t offset; u32 size; u32 flags; u64 page_flags } (24
 *     bytes) per written page, in pfn order: the page's data at offset, size bytes, compressed
 *     by zlib (flag 0x1), LZO (0x2), snappy (0x4) or zstd (0x20), or raw when none is set (and
 *     size is the block size);
 *   - flattened: a 4096-byte header beginning "makedumpfile" (type 1, version 1), then pieces
 *     { int64 offset; int64 size; data }, big-endian, each to be written at offset of the
 *     kdump-compressed file, ended by offset -1. memstat indexes the pieces and reads through
 *     the index, without writing the file out (makedumpfile -R would).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzo/lzo1x.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "dump.h"

#define KDUMP_SIG	"KDUMP   "
#define FLAT_SIG	"makedumpfile"
#define FLAT_HEADER	4096
#define DESC_SIZE	24
#define C_ZLIB		0x1
#define C_LZO		0x2
#define C_SNAPPY	0x4
#define C_ZSTD		0x20
#define MAX_BITMAP	(1ULL << 31)	/* 2 GiB of bitmaps: a 64 TiB machine's */
#define MAX_PIECES	(1ULL << 26)

struct flat_piece {
	__u64 off, size, pos;	/* kdump file [off, off + size) is flattened file [pos, ...) */
	__u64 order;		/* written in this order: a later piece wins */
};

struct ms_kdump {
	struct flat_piece *piece;	/* flattened: sorted by off; NULL: a plain file */
	size_t npiece;
	__u64 block_size, max_mapnr;
	unsigned char *bitmap2;		/* the pages written */
	__u64 *rank;			/* set bits of bitmap2 before each 4096-bit block */
	__u64 desc_off;
};

/* Read len bytes at offset off of the kdump-compressed file, flattened or not. */
static int kread(struct ms_dump *d, void *buf, size_t len, __u64 off)
{
	const struct ms_kdump *k = d->kdump;

	d->reads++;
	if (!k->piece)
		return ms_dump_pread_all(d->fd, buf, len, off);
	while (len) {
		size_t lo = 0, hi = k->npiece, n;
		const struct flat_piece *p = NULL;

		/* the last piece starting at or below off, and of those covering it the latest */
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;

			if (k->piece[mid].off <= off)
				lo = mid;
			else
				hi = mid;
		}
		for (size_t i = lo + 1; i-- > 0 && lo - i < 16;)
			if (k->piece[i].off <= off && off - k->piece[i].off < k->piece[i].size &&
			    (!p || k->piece[i].order > p->order))
				p = &k->piece[i];
		if (!p) {
			/* a gap no piece wrote (QEMU leaves the rest of the header's block out):
			 * zeros, as in the file makedumpfile -R would write, up to the next piece */
			n = k->piece[lo].off > off ? k->piece[lo].off - off :
			    lo + 1 < k->npiece ? k->piece[lo + 1].off - off : 0;
			if (!n)
				return -ENOENT;	/* past the last piece: past the file's end */
			n = n < len ? n : len;
			memset(buf, 0, n);
			buf = (char *)buf + n;
			off += n;
			len -= n;
			continue;
		}
		n = p->size - (off - p->off) < len ? (size_t)(p->size - (off - p->off)) : len;
		if (ms_dump_pread_all(d->fd, buf, n, p->pos + (off - p->off)))
			return -EIO;
		buf = (char *)buf + n;
		off += n;
		len -= n;
	}
	return 0;
}

/* The kdump-compressed file's size: the file's, or a flattened one's last piece's end. */
static __u64 kdump_size(const struct ms_dump *d, __u64 file_size)
{
	const struct ms_kdump *k = d->kdump;
	__u64 end = 0;

	if (!k->piece)
		return file_size;
	for (size_t i = 0; i < k->npiece; i++)
		if (k->piece[i].off + k->piece[i].size > end)
			end = k->piece[i].off + k->piece[i].size;
	return end;
}

static int cmp_piece(const void *a, const void *b)
{
	const struct flat_piece *x = a, *y = b;

	return x->off != y->off ? (x->off < y->off ? -1 : 1) : (x->order < y->order ? -1 : 1);
}

/* Index the pieces of a flattened file. */
static int flat_index(struct ms_dump *d, struct ms_kdump *k, __u64 size, char *why, size_t whylen)
{
	size_t cap = 0;

	for (__u64 pos = FLAT_HEADER;;) {
		__u64 h[2], off, len;

		if (pos + sizeof(h) > size || ms_dump_pread_all(d->fd, h, sizeof(h), pos)) {
			snprintf(why, whylen, "truncated dump: its flattened data ends without the "
				 "end mark");
			return MS_EXIT_USAGE;
		}
		off = be64toh(h[0]);
		len = be64toh(h[1]);
		if (off == ~0ULL)
			break;
		pos += sizeof(h);
		if (len > size - pos || off + len < off || k->npiece >= MAX_PIECES) {
			snprintf(why, whylen, "truncated dump: a flattened piece at %llu runs past the "
				 "file's end", (unsigned long long)pos);
			return MS_EXIT_USAGE;
		}
		if (k->npiece == cap) {
			struct flat_piece *np = realloc(k->piece, (cap ? cap * 2 : 1024) * sizeof(*np));

			if (!np) {
				snprintf(why, whylen, "out of memory");
				return MS_EXIT_FAIL;
			}
			k->piece = np;
			cap = cap ? cap * 2 : 1024;
		}
		k->piece[k->npiece] = (struct flat_piece){ off, len, pos, k->npiece };
		k->npiece++;
		pos += len;
	}
	if (!k->npiece) {
		snprintf(why, whylen, "corrupt dump: a flattened file with no data");
		return MS_EXIT_USAGE;
	}
	qsort(k->piece, k->npiece, sizeof(*k->piece), cmp_piece);
	return MS_EXIT_OK;
}

static __u32 u32_at(const unsigned char *b, size_t off)
{
	__u32 v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static __u64 u64_at(const unsigned char *b, size_t off)
{
	__u64 v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* The runs of set bits of bitmap1 (the dumped machine's memory) as segments. */
static int segments_of(struct ms_dump *d, const unsigned char *bm, __u64 nbits)
{
	size_t cap = 0;

	for (__u64 pfn = 0; pfn < nbits;) {
		__u64 end;

		if (!bm[pfn / 8] && pfn % 8 == 0) {
			pfn += 8;
			continue;
		}
		if (!(bm[pfn / 8] >> (pfn % 8) & 1)) {
			pfn++;
			continue;
		}
		for (end = pfn + 1; end < nbits && (bm[end / 8] >> (end % 8) & 1); end++)
			;
		if (d->nseg == cap) {
			struct ms_dump_seg *ns = realloc(d->seg, (cap ? cap * 2 : 64) * sizeof(*ns));

			if (!ns)
				return -ENOMEM;
			d->seg = ns;
			cap = cap ? cap * 2 : 64;
		}
		d->seg[d->nseg].pa = pfn * 4096;
		d->seg[d->nseg].filesz = (end - pfn) * 4096;
		d->seg[d->nseg].off = 0;
		d->nseg++;
		pfn = end;
	}
	return 0;
}

int ms_kdump_open(struct ms_dump *d, bool flattened, __u64 size, char *why, size_t whylen)
{
	struct ms_kdump *k = calloc(1, sizeof(*k));
	unsigned char h[512], sub[104], *bm = NULL;
	__u64 bitmap_blocks, sub_blocks, half, vmci_off, vmci_size, nbits, nbytes;
	__u32 version;
	int ret = MS_EXIT_USAGE;

	if (!k || lzo_init() != LZO_E_OK) {
		free(k);
		snprintf(why, whylen, "out of memory");
		return MS_EXIT_FAIL;
	}
	d->kdump = k;
	if (flattened && (ret = flat_index(d, k, size, why, whylen)))
		return ret;
	ret = MS_EXIT_USAGE;
	if (kread(d, h, sizeof(h), 0) || memcmp(h, KDUMP_SIG, 8)) {
		snprintf(why, whylen, "%s", flattened ? "not a crash dump: a flattened file that does "
			 "not hold a kdump-compressed dump" : "truncated dump: its header is cut");
		return ret;
	}
	version = u32_at(h, 8);
	k->block_size = u32_at(h, 428);
	sub_blocks = u32_at(h, 432);
	bitmap_blocks = u32_at(h, 436);
	k->max_mapnr = u32_at(h, 440);
	if (k->block_size != 4096) {
		snprintf(why, whylen, "a kdump-compressed dump with %llu-byte pages: memstat reads "
			 "x86_64 dumps (4 KiB)", (unsigned long long)k->block_size);
		return MS_EXIT_UNSUPPORTED;
	}
	if (!sub_blocks || kread(d, sub, sizeof(sub), k->block_size)) {
		snprintf(why, whylen, "truncated dump: its sub-header is cut");
		return ret;
	}
	if (version >= 6 && u64_at(sub, 96))
		k->max_mapnr = u64_at(sub, 96);
	half = bitmap_blocks * k->block_size / 2;
	nbits = k->max_mapnr;
	if (!bitmap_blocks || half > MAX_BITMAP || nbits > half * 8) {
		snprintf(why, whylen, "corrupt dump: its bitmaps (%llu blocks) do not cover its %llu "
			 "pages", (unsigned long long)bitmap_blocks, (unsigned long long)nbits);
		return ret;
	}
	/* the bitmaps must lie in the file: a header may not make memstat allocate what is not */
	if ((1 + sub_blocks + bitmap_blocks) * k->block_size > kdump_size(d, size)) {
		snprintf(why, whylen, "truncated dump: its bitmaps are cut");
		return ret;
	}
	nbytes = (nbits + 7) / 8;	/* what max_mapnr needs of each bitmap */
	bm = malloc(nbytes ? nbytes : 1);
	k->bitmap2 = malloc(nbytes ? nbytes : 1);
	k->rank = calloc(nbits / 4096 + 2, sizeof(*k->rank));
	if (!bm || !k->bitmap2 || !k->rank) {
		free(bm);
		snprintf(why, whylen, "out of memory");
		return MS_EXIT_FAIL;
	}
	if (kread(d, bm, nbytes, (1 + sub_blocks) * k->block_size) ||
	    kread(d, k->bitmap2, nbytes, (1 + sub_blocks) * k->block_size + half)) {
		free(bm);
		snprintf(why, whylen, "truncated dump: its bitmaps are cut");
		return ret;
	}
	for (__u64 i = 0, n = 0; i <= nbits / 4096; i++) {
		k->rank[i] = n;
		for (__u64 b = i * 512; b < (i + 1) * 512 && b < (nbits + 7) / 8; b++)
			n += (__u64)__builtin_popcount(k->bitmap2[b]);
		k->rank[i + 1] = n;
	}
	k->desc_off = (1 + sub_blocks + bitmap_blocks) * k->block_size;
	if (segments_of(d, bm, nbits)) {
		free(bm);
		snprintf(why, whylen, "out of memory");
		return MS_EXIT_FAIL;
	}
	free(bm);
	if (!d->nseg) {
		snprintf(why, whylen, "corrupt dump: its bitmap holds no page");
		return ret;
	}
	/* VMCOREINFO: its text, where the sub-header (version 3 and later) says */
	vmci_off = u64_at(sub, 32);
	vmci_size = u64_at(sub, 40) & 0xffffffff;	/* QEMU writes it as 32 bits */
	if (version >= 3 && vmci_off && vmci_size && vmci_size < (1U << 20)) {
		d->vmcoreinfo = malloc(vmci_size + 1);
		if (d->vmcoreinfo && !kread(d, d->vmcoreinfo, vmci_size, vmci_off)) {
			d->vmcoreinfo[vmci_size] = 0;
		} else {
			free(d->vmcoreinfo);
			d->vmcoreinfo = NULL;
		}
	}
	d->format = flattened ? "kdump-compressed (flattened)" : "kdump-compressed";
	return MS_EXIT_OK;
}

/* The page at pfn into d->page_buf: 0, -ENOENT (not written), -EIO (corrupt or unreadable). */
static int load_page(struct ms_dump *d, __u64 pfn)
{
	const struct ms_kdump *k = d->kdump;
	unsigned char desc[DESC_SIZE];
	__u64 idx, off, bsz = k->block_size;
	__u32 size, flags;
	int ok;

	if (pfn == d->page_pfn)
		return 0;
	if (pfn >= k->max_mapnr || !(k->bitmap2[pfn / 8] >> (pfn % 8) & 1))
		return -ENOENT;
	idx = k->rank[pfn / 4096];
	for (__u64 b = pfn / 4096 * 512; b < pfn / 8; b++)
		idx += (__u64)__builtin_popcount(k->bitmap2[b]);
	idx += (__u64)__builtin_popcount(k->bitmap2[pfn / 8] & ((1U << (pfn % 8)) - 1));
	if (!d->page_buf || !d->zbuf) {
		free(d->page_buf);
		free(d->zbuf);
		d->page_buf = malloc(bsz);
		d->zbuf = malloc(bsz);
		if (!d->page_buf || !d->zbuf)
			return -ENOMEM;
	}
	if (kread(d, desc, sizeof(desc), k->desc_off + idx * DESC_SIZE))
		return -EIO;
	off = u64_at(desc, 0);
	size = u32_at(desc, 8);
	flags = u32_at(desc, 12);
	if (!size || size > bsz || kread(d, d->zbuf, size, off))
		return -EIO;
	if (flags & C_ZLIB) {
		uLongf n = bsz;

		ok = uncompress(d->page_buf, &n, d->zbuf, size) == Z_OK && n == bsz;
	} else if (flags & C_LZO) {
		lzo_uint n = bsz;

		ok = lzo1x_decompress_safe(d->zbuf, size, d->page_buf, &n, NULL) == LZO_E_OK &&
		     n == bsz;
	} else if (flags & C_SNAPPY) {
		size_t n = bsz;

		ok = snappy_uncompress((const char *)d->zbuf, size, (char *)d->page_buf, &n) ==
		     SNAPPY_OK && n == bsz;
	} else if (flags & C_ZSTD) {
		ok = ZSTD_decompress(d->page_buf, bsz, d->zbuf, size) == bsz;
	} else {
		ok = size == bsz;
		if (ok)
			memcpy(d->page_buf, d->zbuf, bsz);
	}
	if (!ok) {
		d->page_pfn = ~0ULL;
		return -EIO;
	}
	d->page_pfn = pfn;
	return 0;
}

int ms_kdump_read(struct ms_dump *d, __u64 pa, void *buf, size_t len)
{
	while (len) {
		size_t n = 4096 - (pa & 4095);
		int err;

		if (n > len)
			n = len;
		err = load_page(d, pa >> 12);
		if (err)
			return err;
		memcpy(buf, d->page_buf + (pa & 4095), n);
		buf = (char *)buf + n;
		pa += n;
		len -= n;
	}
	return 0;
}

void ms_kdump_free(struct ms_kdump *k)
{
	if (!k)
		return;
	free(k->piece);
	free(k->bitmap2);
	free(k->rank);
	free(k);
}
