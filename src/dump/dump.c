// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The dump file (dump.h): an ELF core's segments and VMCOREINFO note, reads of physical memory
 * and of kernel virtual memory through the dump's own page tables. The kernel's layout is
 * layout.c's.
 *
 * x86_64 page tables (arch/x86/include/asm/pgtable_types.h, unchanged from 6.1 to 7.x): an
 * entry's present bit 0, PSE bit 7 in a PUD (1 GiB) or PMD (2 MiB) entry, the next table's
 * frame in bits 12-51 (PTE_PFN_MASK with __PHYSICAL_MASK_SHIFT 52), less the SME encryption bit
 * (sme_me_mask, VMCOREINFO's NUMBER(sme_mask)) where memory encryption is on; 5-level paging
 * where NUMBER(pgtable_l5_enabled) says so.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"

#define PTE_PRESENT		0x1ULL
#define PTE_PSE			0x80ULL
#define PTE_FRAME		0x000ffffffffff000ULL
#define MAX_NOTE		(64U << 20)	/* /proc/vmcore merges every CPU's notes into one */

static int cmp_seg(const void *a, const void *b)
{
	const struct ms_dump_seg *x = a, *y = b;

	return x->pa < y->pa ? -1 : x->pa > y->pa;
}

/* The VMCOREINFO note among the notes of one PT_NOTE segment (buf, len). */
static void find_vmcoreinfo(struct ms_dump *d, const unsigned char *buf, size_t len)
{
	size_t p = 0;

	while (!d->vmcoreinfo && len - p >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t name, desc;

		memcpy(&nh, buf + p, sizeof(nh));
		name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (name > len - p - sizeof(nh) || desc > len - p - sizeof(nh) - name)
			return;		/* a note that runs past its segment: not read */
		if (nh.n_namesz == 11 && !memcmp(buf + p + sizeof(nh), "VMCOREINFO", 11)) {
			d->vmcoreinfo = malloc((size_t)nh.n_descsz + 1);
			if (!d->vmcoreinfo)
				return;
			memcpy(d->vmcoreinfo, buf + p + sizeof(nh) + name, nh.n_descsz);
			d->vmcoreinfo[nh.n_descsz] = 0;
		}
		p += sizeof(nh) + name + desc;
	}
}

int ms_dump_open_fd(int fd, struct ms_dump *d, char *why, size_t whylen)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	struct stat st;
	__u64 size;		/* the file's, or a block device's; 0: unknown */
	size_t phnum;
	off_t end;
	int ret = MS_EXIT_USAGE;

	memset(d, 0, sizeof(*d));
	d->fd = fd;
	d->page_pfn = ~0ULL;
	d->format = "ELF";
	if (fstat(fd, &st))
		return ms_dump_bad(why, whylen, MS_EXIT_USAGE, "cannot read it: %s",
				   strerror(errno));
	if (S_ISDIR(st.st_mode))
		return ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s",
				   "a directory, not a crash dump");
	end = S_ISREG(st.st_mode) ? st.st_size : lseek(fd, 0, SEEK_END);
	size = end > 0 ? (__u64)end : 0;
	memset(&eh, 0, sizeof(eh));
	if (pread(fd, &eh, sizeof(eh), 0) < 16)
		return ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "not a crash dump: shorter "
				   "than any dump's header");
	if (!size)	/* a pipe, a character device: no bound on what its headers may claim */
		return ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "its size is unknown: give a "
				   "file or a block device");
	if (!memcmp(eh.e_ident, "KDUMP   ", 8) || !memcmp(eh.e_ident, "makedumpfile", 13)) {
		ret = ms_kdump_open(d, eh.e_ident[0] == 'm', size, why, whylen);
		if (ret) {
			ms_kdump_free(d->kdump);
			free(d->seg);
			free(d->vmcoreinfo);
			memset(d, 0, sizeof(*d));
		}
		return ret;
	}
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "not a crash dump: neither an "
				   "ELF core nor a kdump-compressed dump");
	if (ms_dump_pread_all(fd, &eh, sizeof(eh), 0))
		return ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "not a crash dump: shorter "
				   "than an ELF header");
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_type != ET_CORE)
		return ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "not a crash dump: an ELF "
				   "file, but not a 64-bit little-endian core");
	if (eh.e_machine != EM_X86_64)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "a core of another "
				   "architecture: memstat reads x86_64 dumps");
	phnum = eh.e_phnum;
	if (phnum == PN_XNUM) {	/* extended numbering: the count is section 0's sh_info */
		Elf64_Shdr sh;

		if (eh.e_shentsize != sizeof(sh) ||
		    ms_dump_pread_all(fd, &sh, sizeof(sh), eh.e_shoff))
			return ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "corrupt dump: "
					   "extended program header numbering without its section "
					   "header");
		phnum = sh.sh_info;
	}
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || !phnum ||
	    (size && (eh.e_phoff > size || phnum > (size - eh.e_phoff) / sizeof(*ph))))
		return ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s",
				   phnum && eh.e_phentsize == sizeof(*ph) ? "truncated dump: its "
				   "program headers are past its end" : "corrupt dump: bad program "
				   "header table");
	ph = calloc(phnum, sizeof(*ph));
	d->seg = calloc(phnum, sizeof(*d->seg));
	if (!ph || !d->seg) {
		ret = ms_dump_bad(why, whylen, MS_EXIT_FAIL, "%s", "out of memory");
		goto out;
	}
	if (ms_dump_pread_all(fd, ph, phnum * sizeof(*ph), eh.e_phoff)) {
		ret = ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "truncated dump: its program "
				  "headers are past its end");
		goto out;
	}
	for (size_t i = 0; i < phnum; i++) {
		const Elf64_Phdr *p = &ph[i];
		int trunc = size && (p->p_offset > size || p->p_filesz > size - p->p_offset);

		if (p->p_type == PT_NOTE && !d->vmcoreinfo) {
			unsigned char *buf;

			if (trunc || p->p_filesz > MAX_NOTE) {
				ret = ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", trunc ?
						  "truncated dump: its notes are past its end" :
						  "corrupt dump: a note segment over 64 MiB");
				goto out;
			}
			buf = malloc(p->p_filesz ? p->p_filesz : 1);
			if (!buf || ms_dump_pread_all(fd, buf, p->p_filesz, p->p_offset)) {
				free(buf);
				ret = ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "cannot read "
						  "the dump's notes");
				goto out;
			}
			find_vmcoreinfo(d, buf, p->p_filesz);
			free(buf);
			continue;
		}
		/* /proc/kcore's vmalloc and module areas have no physical address */
		if (p->p_type != PT_LOAD || p->p_paddr == ~0ULL || !p->p_filesz)
			continue;
		if (trunc) {
			char at[32];

			snprintf(at, sizeof(at), "%#llx", (unsigned long long)p->p_paddr);
			ret = ms_dump_bad(why, whylen, MS_EXIT_USAGE, "truncated dump: the memory "
					  "at physical %s is past the file's end", at);
			goto out;
		}
		if (p->p_paddr + p->p_filesz < p->p_paddr) {
			ret = ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "corrupt dump: a "
					  "segment wraps the address space");
			goto out;
		}
		d->seg[d->nseg].pa = p->p_paddr;
		d->seg[d->nseg].filesz = p->p_filesz;
		d->seg[d->nseg].off = p->p_offset;
		d->nseg++;
	}
	if (!d->nseg) {
		ret = ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "not a crash dump: an ELF core "
				  "with no physical memory");
		goto out;
	}
	qsort(d->seg, d->nseg, sizeof(*d->seg), cmp_seg);
	for (size_t i = 0; i < d->nseg; i++) {
		__u64 end = d->seg[i].pa + d->seg[i].filesz;

		d->seg[i].reach = i && d->seg[i - 1].reach > end ? d->seg[i - 1].reach : end;
	}
	ret = MS_EXIT_OK;
out:
	free(ph);
	if (ret) {
		free(d->seg);
		free(d->vmcoreinfo);
		d->seg = NULL;
		d->vmcoreinfo = NULL;
		d->nseg = 0;
	}
	return ret;
}

int ms_dump_open(const char *path, struct ms_dump *d, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		memset(d, 0, sizeof(*d));
		d->fd = -1;
		return ms_dump_bad(why, whylen,
				   errno == EACCES || errno == EPERM ? MS_EXIT_PERM : MS_EXIT_USAGE,
				   "cannot open it: %s", strerror(errno));
	}
	ret = ms_dump_open_fd(fd, d, why, whylen);
	if (ret) {
		close(fd);
		d->fd = -1;
	}
	return ret;
}

void ms_dump_close(struct ms_dump *d)
{
	if (!d->clone) {
		if (d->fd >= 0)
			close(d->fd);
		free(d->seg);
		free(d->vmcoreinfo);
		ms_kdump_free(d->kdump);
	}
	free(d->page_buf);
	free(d->zbuf);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}

void ms_dump_clone(const struct ms_dump *src, struct ms_dump *dst)
{
	*dst = *src;
	dst->clone = true;
	dst->page_buf = dst->zbuf = NULL;
	dst->page_pfn = ~0ULL;
	dst->tlb_size = 0;
	dst->reads = 0;
}

int ms_dump_read(struct ms_dump *d, __u64 pa, void *buf, size_t len)
{
	if (d->kdump)
		return ms_kdump_read(d, pa, buf, len);
	while (len) {
		size_t lo = 0, hi = d->nseg, n;
		const struct ms_dump_seg *s;
		int err;

		/* the last segment starting at or below pa */
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;

			if (d->seg[mid].pa <= pa)
				lo = mid;
			else
				hi = mid;
		}
		s = &d->seg[lo];
		if (pa < s->pa || s->reach <= pa)
			return -ENOENT;	/* no segment up to this one reaches pa: a hole */
		/* overlapping segments (kcore's text over its RAM): an earlier one holds it */
		while (!(pa - s->pa < s->filesz))
			s--;
		n = s->filesz - (pa - s->pa) < len ? (size_t)(s->filesz - (pa - s->pa)) : len;
		d->reads++;
		err = ms_dump_pread_all(d->fd, buf, n, s->off + (pa - s->pa));
		if (err)
			return -EIO;
		buf = (char *)buf + n;
		pa += n;
		len -= n;
	}
	return 0;
}

int ms_dump_vtop(struct ms_dump *d, __u64 va, __u64 *pa)
{
	__u64 table = d->top_pgt, e;
	int shift = d->l5 ? 48 : 39;

	if (d->tlb_size && va - d->tlb_va < d->tlb_size) {
		*pa = d->tlb_pa + (va - d->tlb_va);
		return 0;
	}
	for (;; shift -= 9) {
		if (ms_dump_read(d, table + ((va >> shift) & 511) * 8, &e, 8))
			return -EFAULT;
		if (!(e & PTE_PRESENT))
			return -EFAULT;
		e &= ~d->sme_mask;
		if (shift == 12 || ((shift == 30 || shift == 21) && (e & PTE_PSE))) {
			__u64 size = 1ULL << shift;

			d->tlb_va = va & ~(size - 1);
			d->tlb_size = size;
			d->tlb_pa = e & PTE_FRAME & ~(size - 1);
			*pa = d->tlb_pa + (va - d->tlb_va);
			return 0;
		}
		table = e & PTE_FRAME;
	}
}

int ms_dump_read_virt(struct ms_dump *d, __u64 va, void *buf, size_t len)
{
	while (len) {
		size_t n = 4096 - (va & 4095);
		__u64 pa;
		int err;

		if (n > len)
			n = len;
		if (ms_dump_vtop(d, va, &pa))
			return -EFAULT;
		err = ms_dump_read(d, pa, buf, n);
		if (err)
			return err;
		buf = (char *)buf + n;
		va += n;
		len -= n;
	}
	return 0;
}

__u64 ms_dump_u64(struct ms_dump *d, __u64 va)
{
	__u64 v = 0;

	return ms_dump_read_virt(d, va, &v, sizeof(v)) ? 0 : v;
}


void ms_dump_read_str(struct ms_dump *d, __u64 va, char *out, size_t len)
{
	size_t n = 0;

	while (va && n < len - 1) {
		size_t chunk = 4096 - (size_t)((va + n) & 4095);

		if (chunk > len - 1 - n)
			chunk = len - 1 - n;
		if (ms_dump_read_virt(d, va + n, out + n, chunk))
			break;
		if (memchr(out + n, 0, chunk))
			return;
		n += chunk;
	}
	out[n] = 0;
}
