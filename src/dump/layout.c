// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The dumped kernel's layout (dump.h): VMCOREINFO's facts, where the struct pages are, the
 * dump's present memory, and the kernel's own BTF in its image.
 *
 * x86_64 facts, each from the kernel's source (unchanged from 6.1 to 7.x):
 * - arch_crash_save_vmcoreinfo() (arch/x86/kernel/crash_core_64.c, split out of
 *   machine_kexec_64.c by 692f66f26a4c, v4.19; "NUMBER(pgtable_l5_enabled)" since
 *   c100a583601d, v4.17) gives NUMBER(phys_base), SYMBOL(init_top_pgt), KERNELOFFSET and
 *   NUMBER(sme_mask); a kernel-image address x is at physical x - __START_KERNEL_map +
 *   phys_base (__phys_addr_symbol(), arch/x86/include/asm/page_64.h), __START_KERNEL_map
 *   being 0xffffffff80000000 (page_64_types.h).
 * - mem_section (kernel/vmcore_info.c VMCOREINFO_SYMBOL_ARRAY(mem_section): the pointer's
 *   value, the roots array under SPARSEMEM_EXTREME, which x86_64 builds have): each root
 *   points at PAGE_SIZE / sizeof(struct mem_section) sections; a section's section_mem_map is
 *   the encoded mem_map, the struct page of pfn 0 (sparse_encode_mem_map(): mem_map less the
 *   section's first pfn), in bits above SECTION_MAP_LAST_BIT, with SECTION_MARKED_PRESENT
 *   (bit 0) and SECTION_HAS_MEM_MAP (bit 1) below (include/linux/mmzone.h), and
 *   SECTION_IS_ONLINE (bit 2, v4.13 2d070eab2e82: set at boot by memory_present(), cleared
 *   when a memory block is offlined; a live walk leaves offline blocks out). vmemmap_base is
 *   at least 2 MiB aligned, so its low 12 bits are only flags. Where VMCOREINFO has
 *   SYMBOL(vmemmap) (VMCOREINFO_SYMBOL_ARRAY(vmemmap) in kernel/vmcore_info.c), it is taken.
 * - vmcoreinfo_data, the text of the note, is a zeroed page of its own
 *   (crash_save_vmcoreinfo_init(): __get_free_pages()), beginning "OSRELEASE=": where a dump
 *   has no note (QEMU's dump of a guest without -device vmcoreinfo), it is looked for at the
 *   start of each page, and taken when the release it names is the one at init_uts_ns
 *   (SYMBOL(init_uts_ns) + OFFSET(uts_namespace.name) + 130, struct new_utsname's release)
 *   read through the page tables it gives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

#define START_KERNEL_MAP	0xffffffff80000000ULL
#define SECTION_PRESENT		0x1ULL
#define SECTION_HAS_MEM_MAP	0x2ULL
#define SECTION_IS_ONLINE	0x4ULL

int ms_vmcoreinfo_u64(const char *text, const char *key, int base, __u64 *val)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char *end;

		if (strncmp(l, key, kl) || l[kl] != '=')
			continue;
		errno = 0;
		*val = strtoull(l + kl + 1, &end, base);
		if (errno || end == l + kl + 1 || (*end && *end != '\n'))
			return -EINVAL;
		return 0;
	}
	return -ENOENT;
}

/* A string value (OSRELEASE, BUILD-ID) into out, cut at outlen - 1. */
static void vmcoreinfo_str(const char *text, const char *key, char *out, size_t outlen)
{
	size_t kl = strlen(key), n = 0;

	out[0] = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, kl) || l[kl] != '=')
			continue;
		for (l += kl + 1; l[n] && l[n] != '\n' && n + 1 < outlen; n++)
			out[n] = l[n] >= 0x20 && l[n] < 0x7f ? l[n] : '?';
		out[n] = 0;
		return;
	}
}

static int facts_of(struct ms_dump *d, char *why, size_t whylen);
static int struct_pages_of(struct ms_dump *d, char *why, size_t whylen);

/*
 * Is the VMCOREINFO text found in memory the running kernel's (not a copy in some file's
 * page cache)? The release it names is the one at init_uts_ns, read through its page tables.
 */
static bool names_its_kernel(struct ms_dump *d)
{
	__u64 uts, name;
	char rel[65];

	if (ms_vmcoreinfo_u64(d->vmcoreinfo, "SYMBOL(init_uts_ns)", 16, &uts) ||
	    ms_vmcoreinfo_u64(d->vmcoreinfo, "OFFSET(uts_namespace.name)", 10, &name) ||
	    ms_dump_read_virt(d, uts + name + 130, rel, sizeof(rel)))
		return false;
	rel[sizeof(rel) - 1] = 0;
	return d->release[0] && !strcmp(rel, d->release);
}

/*
 * A dump without the note: vmcoreinfo_data, a page that begins "OSRELEASE=", found at the
 * start of a page of memory (read a MiB at a time, page by page where the MiB has a hole) and
 * taken when names_its_kernel() says so; at most MAX_CANDIDATES looked at.
 */
#define MAX_CANDIDATES 64
static bool vmcoreinfo_at(struct ms_dump *d, const unsigned char *page, char *why,
			  size_t whylen)
{
	if (memcmp(page, "OSRELEASE=", 10) || !memchr(page, 0, 4096))
		return false;
	d->vmcoreinfo = strdup((const char *)page);
	if (d->vmcoreinfo && !facts_of(d, why, whylen) && names_its_kernel(d))
		return true;
	free(d->vmcoreinfo);
	d->vmcoreinfo = NULL;
	d->tlb_size = 0;
	return false;
}

static int scan_vmcoreinfo(struct ms_dump *d, char *why, size_t whylen)
{
	const size_t chunk = 1 << 20;
	unsigned char *buf = malloc(chunk);
	unsigned int candidates = 0;
	bool found = false;

	if (!buf)
		return ms_dump_bad(why, whylen, MS_EXIT_FAIL, "%s", "out of memory");
	for (size_t i = 0; i < d->nseg && !found && candidates < MAX_CANDIDATES; i++) {
		/* from the segment's first whole page */
		__u64 pa = (d->seg[i].pa + 4095) & ~4095ULL, end = d->seg[i].pa + d->seg[i].filesz;

		for (; pa + 4096 <= end && !found && candidates < MAX_CANDIDATES; pa += chunk) {
			__u64 n = (end - pa) / 4096 * 4096 < chunk ? (end - pa) / 4096 * 4096 : chunk;
			bool whole = !ms_dump_read(d, pa, buf, n);

			for (__u64 p = 0; p < n && !found && candidates < MAX_CANDIDATES; p += 4096) {
				if (!whole && ms_dump_read(d, pa + p, buf + p, 4096))
					continue;	/* a hole in the MiB: the other pages still */
				if (!memcmp(buf + p, "OSRELEASE=", 10))
					candidates++;
				found = vmcoreinfo_at(d, buf + p, why, whylen);
			}
		}
	}
	free(buf);
	if (!found) {
		snprintf(why, whylen, "the dump has no VMCOREINFO note, and no kernel's VMCOREINFO "
			 "was found in its memory (a dump of another architecture, or of part of "
			 "memory?)");
		return MS_EXIT_UNSUPPORTED;
	}
	return struct_pages_of(d, why, whylen);
}

int ms_dump_layout(struct ms_dump *d, char *why, size_t whylen)
{
	int ret;

	if (!d->vmcoreinfo)
		return scan_vmcoreinfo(d, why, whylen);
	ret = facts_of(d, why, whylen);
	return ret ? ret : struct_pages_of(d, why, whylen);
}

/* The section_mem_map word of section nr (0 when it cannot be read). */
static __u64 section_map(struct ms_dump *d, __u64 nr)
{
	__u64 per_root = d->page_size / d->section_struct_size, root;

	if (nr / per_root >= d->nr_roots)
		return 0;
	root = ms_dump_u64(d, d->mem_section + nr / per_root * 8);
	return root ? ms_dump_u64(d, root + nr % per_root * d->section_struct_size) : 0;
}

/* VMCOREINFO's facts and the page tables from d->vmcoreinfo. */
static int facts_of(struct ms_dump *d, char *why, size_t whylen)
{
	const char *v = d->vmcoreinfo;
	__u64 l5 = 0, pgt = 0;
	const char *missing = NULL;

	vmcoreinfo_str(v, "OSRELEASE", d->release, sizeof(d->release));
	vmcoreinfo_str(v, "BUILD-ID", d->build_id, sizeof(d->build_id));
	if (ms_vmcoreinfo_u64(v, "PAGESIZE", 10, &d->page_size))
		missing = "PAGESIZE";
	else if (ms_vmcoreinfo_u64(v, "SYMBOL(init_top_pgt)", 16, &pgt))
		missing = "SYMBOL(init_top_pgt) (not an x86_64 kernel?)";
	else if (ms_vmcoreinfo_u64(v, "NUMBER(phys_base)", 10, &d->phys_base))
		missing = "NUMBER(phys_base)";
	else if (ms_vmcoreinfo_u64(v, "SYMBOL(mem_section)", 16, &d->mem_section) ||
		 ms_vmcoreinfo_u64(v, "LENGTH(mem_section)", 10, &d->nr_roots) ||
		 ms_vmcoreinfo_u64(v, "SIZE(mem_section)", 10, &d->section_struct_size) ||
		 ms_vmcoreinfo_u64(v, "NUMBER(SECTION_SIZE_BITS)", 10, &d->section_bits))
		missing = "mem_section (a SPARSEMEM kernel's SYMBOL, LENGTH, SIZE and "
			  "SECTION_SIZE_BITS)";
	if (missing)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "the dump's VMCOREINFO has no "
				   "%s", missing);
	ms_vmcoreinfo_u64(v, "KERNELOFFSET", 16, &d->kaslr_offset);
	ms_vmcoreinfo_u64(v, "NUMBER(pgtable_l5_enabled)", 10, &l5);
	ms_vmcoreinfo_u64(v, "NUMBER(sme_mask)", 10, &d->sme_mask);
	d->l5 = l5 != 0;
	if (d->page_size != 4096)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s",
				   "the dump's page size is not 4 KiB: memstat reads x86_64 dumps");
	if (d->section_bits != 27 || d->section_struct_size < 8 || d->section_struct_size > 4096)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "the dump's memory "
				   "sections are not x86_64's (SECTION_SIZE_BITS 27)");
	if (pgt < START_KERNEL_MAP)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s",
				   "the dump's init_top_pgt is not a kernel-image address");
	d->top_pgt = pgt - START_KERNEL_MAP + d->phys_base;
	return MS_EXIT_OK;
}

/* Where the struct pages are (d->vmemmap): after facts_of(). */
static int struct_pages_of(struct ms_dump *d, char *why, size_t whylen)
{
	const char *v = d->vmcoreinfo;
	__u64 map = 0;

	/* the struct page of pfn 0: SYMBOL(vmemmap) where VMCOREINFO has it, else the encoded
	 * mem_map of any present section */
	if (ms_vmcoreinfo_u64(v, "SYMBOL(vmemmap)", 16, &map) || map < START_KERNEL_MAP >> 1)
		map = 0;
	for (__u64 i = 0; i < d->nseg && !map; i++) {
		__u64 nr = (d->seg[i].pa >> 12) >> (d->section_bits - 12);
		__u64 last = ((d->seg[i].pa + d->seg[i].filesz - 1) >> 12) >> (d->section_bits - 12);

		for (; nr <= last && !map; nr++) {
			__u64 w = section_map(d, nr);

			if ((w & (SECTION_PRESENT | SECTION_HAS_MEM_MAP)) ==
			    (SECTION_PRESENT | SECTION_HAS_MEM_MAP))
				map = w & ~0xfffULL;
		}
	}
	if (!map)
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "no present memory "
				   "section with struct pages found through the dump's mem_section "
				   "(a dump of another kernel's memory, or its page tables are not "
				   "in it)");
	d->vmemmap = map;
	return MS_EXIT_OK;
}

/*
 * The kernel's own BTF in the dump: the .BTF section of vmlinux, loaded with the kernel image
 * (CONFIG_DEBUG_INFO_BTF; /sys/kernel/btf/vmlinux shows the same bytes, __start_BTF to
 * __stop_BTF). The image is physically contiguous from _stext on (SYMBOL(_stext), in VMCOREINFO
 * since v5.x); the first raw BTF header after it (magic 0xeb9f, version 1, a 24-byte header,
 * types first and strings right after them) is read whole.
 */
#define BTF_SCAN_BYTES	(256ULL << 20)	/* image text and rodata: ~30 MiB on Debian's kernels */
#define BTF_MAX_BYTES	(64U << 20)
int ms_dump_find_btf(struct ms_dump *d, __u64 *from, void **out, size_t *outlen)
{
	static const unsigned char magic[8] = { 0x9f, 0xeb, 1, 0, 24, 0, 0, 0 };
	const size_t chunk = 1 << 20;
	unsigned char *buf;
	__u64 stext = 0, pa0;
	int ret = -ENOENT;

	*out = NULL;
	*outlen = 0;
	if (!d->vmcoreinfo || ms_vmcoreinfo_u64(d->vmcoreinfo, "SYMBOL(_stext)", 16, &stext) ||
	    stext < START_KERNEL_MAP)
		return -ENOENT;
	pa0 = stext - START_KERNEL_MAP + d->phys_base;
	buf = malloc(chunk + sizeof(magic));
	if (!buf)
		return -ENOMEM;
	for (__u64 off = *from / chunk * chunk; off < BTF_SCAN_BYTES && ret == -ENOENT;
	     off += chunk) {
		if (ms_dump_read(d, pa0 + off, buf, chunk + sizeof(magic))) {
			/* a hole in the chunk (filtered pages, the end of memory): page by page,
			 * a missing page read as zeros */
			for (size_t p = 0; p < chunk + sizeof(magic); p += 4096) {
				size_t n = chunk + sizeof(magic) - p < 4096 ?
					   chunk + sizeof(magic) - p : 4096;

				if (ms_dump_read(d, pa0 + off + p, buf + p, n))
					memset(buf + p, 0, n);
			}
		}
		/* the section is 4-byte aligned */
		for (size_t i = off < *from ? (size_t)(*from - off) : 0; i < chunk; i += 4) {
			__u32 h[6];
			__u64 len;
			void *b;

			if (memcmp(buf + i, magic, sizeof(magic)))
				continue;
			if (ms_dump_read(d, pa0 + off + i, h, sizeof(h)))
				continue;
			/* h[2] type_off, h[3] type_len, h[4] str_off, h[5] str_len */
			len = 24ULL + h[4] + h[5];
			if (h[2] != 0 || h[4] != h[3] || len < 1024 || len > BTF_MAX_BYTES)
				continue;
			b = malloc(len);
			if (!b) {
				ret = -ENOMEM;
				break;
			}
			if (ms_dump_read(d, pa0 + off + i, b, len)) {
				free(b);
				continue;
			}
			*out = b;
			*outlen = len;
			*from = off + i + 4;
			ret = 0;
			break;
		}
	}
	free(buf);
	return ret;
}

int ms_dump_ranges(struct ms_dump *d, const struct ms_ranges *ram, struct ms_ranges *out)
{
	size_t n = ram && ram->n ? ram->n : d->nseg;

	memset(out, 0, sizeof(*out));
	out->r = calloc(n ? n : 1, sizeof(*out->r));
	if (!out->r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		__u64 a, b;

		if (ram && ram->n) {
			a = ram->r[i].start;
			b = ram->r[i].end;
		} else {
			a = (d->seg[i].pa + 4095) >> 12;
			b = (d->seg[i].pa + d->seg[i].filesz) >> 12;
		}
		if (b <= a)
			continue;
		if (out->n && a <= out->r[out->n - 1].end) {	/* overlaps or continues the last */
			if (b > out->r[out->n - 1].end)
				out->r[out->n - 1].end = b;
			continue;
		}
		out->r[out->n].start = a;
		out->r[out->n].end = b;
		out->n++;
	}
	/* keep the pages of online sections with struct pages: cut each range at the others */
	{
		struct ms_range *keep = NULL;
		size_t nk = 0, cap = 0;
		__u64 spp = 1ULL << (d->section_bits - 12);

		for (size_t i = 0; i < out->n; i++) {
			for (__u64 s = out->r[i].start; s < out->r[i].end;) {
				__u64 e = (s / spp + 1) * spp, w = section_map(d, s / spp);

				if (e > out->r[i].end)
					e = out->r[i].end;
				if ((w & (SECTION_PRESENT | SECTION_HAS_MEM_MAP | SECTION_IS_ONLINE)) !=
				    (SECTION_PRESENT | SECTION_HAS_MEM_MAP | SECTION_IS_ONLINE)) {
					s = e;
					continue;
				}
				if (nk && keep[nk - 1].end == s) {
					keep[nk - 1].end = e;
				} else {
					if (nk == cap) {
						struct ms_range *nr = realloc(keep, (cap ? cap * 2 : 16) *
									      sizeof(*nr));

						if (!nr) {
							free(keep);
							ms_ranges_free(out);
							return -ENOMEM;
						}
						keep = nr;
						cap = cap ? cap * 2 : 16;
					}
					keep[nk].start = s;
					keep[nk].end = e;
					nk++;
				}
				s = e;
			}
		}
		free(out->r);
		out->r = keep;
		out->n = nk;
		out->pages = 0;
		for (size_t i = 0; i < nk; i++)
			out->pages += keep[i].end - keep[i].start;
	}
	return 0;
}
