/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A crash dump as memstat reads it (memstat --core): the file's physical memory, the kernel's
 * layout from its VMCOREINFO, virtual addresses through the dump's own page tables, and the
 * types from BTF. No root is needed and nothing of the running kernel is read, unless the
 * dump's build id is the running kernel's and no --btf is given (its BTF is then the dump's).
 *
 * Formats: ELF cores (a copy of /proc/vmcore, makedumpfile -E, QEMU's dump-guest-memory and
 * virsh dump --memory-only, and /proc/kcore, the running kernel as an ELF core), and
 * kdump-compressed dumps, flattened or not (makedumpfile's default, makedumpfile -F, QEMU's
 * kdump-zlib, -lzo and -snappy). x86_64 only.
 */
#ifndef MEMSTAT_DUMP_H
#define MEMSTAT_DUMP_H

#include <stdbool.h>
#include <stddef.h>

#include "memstat_int.h"

/*
 * A PT_LOAD segment: physical [pa, pa + filesz) is in the file at off; reach, the furthest end
 * of it and of every segment before it (segments may overlap: /proc/kcore's text its RAM).
 */
struct ms_dump_seg {
	__u64 pa, filesz, off, reach;
};

struct ms_kdump;
struct ms_dump {
	int fd;
	const char *format;		/* "ELF", "kdump-compressed", "kdump-compressed (flattened)" */
	struct ms_kdump *kdump;		/* a kdump-compressed dump's index (kdump.c), or NULL */
	bool clone;			/* ms_dump_clone()'s: shares the file, the index, the segments */
	unsigned char *page_buf, *zbuf;	/* kdump: the last page decompressed, and its input */
	__u64 page_pfn;
	struct ms_dump_seg *seg;	/* sorted by pa */
	size_t nseg;
	char *vmcoreinfo;		/* the note's text, NUL-terminated; NULL: none */
	/* the kernel's layout (ms_dump_layout()) */
	char release[65];		/* OSRELEASE */
	char build_id[41];		/* BUILD-ID (v5.14+), hex; "" when absent */
	__u64 page_size;
	__u64 kaslr_offset, phys_base;
	__u64 top_pgt;			/* physical address of init_top_pgt */
	__u64 sme_mask;			/* NUMBER(sme_mask): the encryption bit of page-table entries */
	bool l5;			/* 5-level paging */
	__u64 mem_section;		/* SYMBOL(mem_section) */
	__u64 nr_roots;			/* LENGTH(mem_section) */
	__u64 section_struct_size;	/* SIZE(mem_section) */
	__u64 section_bits;		/* NUMBER(SECTION_SIZE_BITS) */
	__u64 vmemmap;			/* the struct page of pfn 0 (from the first present section) */
	/* the last translation (ms_dump_vtop()): [tlb_va, tlb_va + tlb_size) -> tlb_pa */
	__u64 tlb_va, tlb_size, tlb_pa;
	__u64 reads;			/* preads of the file */
};

/*
 * Open a dump: its segments and its VMCOREINFO. MS_EXIT_OK, or MS_EXIT_USAGE for a file that is
 * not one (truncated, foreign, corrupt) with why set to one line.
 */
int ms_dump_open(const char *path, struct ms_dump *d, char *why, size_t whylen);
/* the same over an open descriptor (the fuzz target's memory file); the dump owns fd */
int ms_dump_open_fd(int fd, struct ms_dump *d, char *why, size_t whylen);
void ms_dump_close(struct ms_dump *d);
/* A copy for another thread: the same file and layout, its own caches; free with ms_dump_close(). */
void ms_dump_clone(const struct ms_dump *src, struct ms_dump *dst);

/* pread len bytes at off, through EINTR and short reads: 0, -errno, or -EIO (the file ends) */
int ms_dump_pread_all(int fd, void *buf, size_t len, __u64 off);
/* why = fmt with arg (one %s at most), one line; returns ret */
int ms_dump_bad(char *why, size_t whylen, int ret, const char *fmt, const char *arg);

/* kdump.c: a kdump-compressed dump (flattened or not) of size bytes, already open at d->fd. */
int ms_kdump_open(struct ms_dump *d, bool flattened, __u64 size, char *why, size_t whylen);
int ms_kdump_read(struct ms_dump *d, __u64 pa, void *buf, size_t len);
void ms_kdump_free(struct ms_kdump *k);

/*
 * A value of the VMCOREINFO text: the line "key=value", value read in base (16 for SYMBOL()
 * and KERNELOFFSET, 10 for NUMBER(), SIZE(), LENGTH() and OFFSET()). 0, or -ENOENT.
 */
int ms_vmcoreinfo_u64(const char *text, const char *key, int base, __u64 *val);

/*
 * The kernel's layout from VMCOREINFO (the note, or where the dump has none, the kernel's own
 * copy found in its memory), and where its struct pages are (from mem_section). MS_EXIT_OK;
 * MS_EXIT_UNSUPPORTED with why naming the missing fact (no VMCOREINFO, another architecture
 * or page size, no mem_section).
 */
int ms_dump_layout(struct ms_dump *d, char *why, size_t whylen);

/* Physical memory: 0, or -ENOENT where the dump has no such page (a hole), -EIO. */
int ms_dump_read(struct ms_dump *d, __u64 pa, void *buf, size_t len);
/* A kernel virtual address through the dump's page tables: 0, or -EFAULT (not mapped). */
int ms_dump_vtop(struct ms_dump *d, __u64 va, __u64 *pa);
/* Read kernel virtual memory (may cross pages): 0, or -EFAULT / -ENOENT / -EIO. */
int ms_dump_read_virt(struct ms_dump *d, __u64 va, void *buf, size_t len);
/* a u64 of kernel virtual memory; 0 when it cannot be read */
__u64 ms_dump_u64(struct ms_dump *d, __u64 va);
/* the NUL-terminated string at va into out: at most len - 1 bytes, up to a page it lacks */
void ms_dump_read_str(struct ms_dump *d, __u64 va, char *out, size_t len);

/*
 * The dumped kernel's BTF, as found in its image in the dump: the first raw BTF header at or
 * after image offset *from (0 at first), 0 with *out (malloc'd) and *outlen, *from moved past
 * it (a caller that finds it is not the kernel's looks on); -ENOENT (not found: filtered out,
 * or a kernel without BTF), -ENOMEM.
 */
int ms_dump_find_btf(struct ms_dump *d, __u64 *from, void **out, size_t *outlen);

/*
 * The kernel's symbols names[0..n) (ksyms.c): addrs[i] each one's address in the dumped
 * kernel, 0 where it has none. From path (a System.map or a vmlinux, moved by the dump's KASLR
 * offset), or where path is NULL from the kernel's kallsyms tables that VMCOREINFO locates;
 * either is checked against the dump's SYMBOL(init_uts_ns). MS_EXIT_OK; MS_EXIT_USAGE (path
 * is not the dumped kernel's symbols), MS_EXIT_UNSUPPORTED (no kallsyms to read) with why.
 */
int ms_dump_symbols(struct ms_dump *d, const char *path, const char *const *names, size_t n,
		    __u64 *addrs, char *why, size_t whylen);

/*
 * Present memory of the dump: the pages of ram (sorted; its kernel's System RAM, from
 * ms_dump_iomem()), or where ram is NULL or empty the pages its segments hold, in the online
 * memory sections that have struct pages. 0 or -ENOMEM.
 */
int ms_dump_ranges(struct ms_dump *d, const struct ms_ranges *ram, struct ms_ranges *out);

#endif /* MEMSTAT_DUMP_H */
