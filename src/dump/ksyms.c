// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The dumped kernel's symbols, for the counters --reconcile reads (dump_meminfo.c): from the
 * file --symbols names (a System.map, or a vmlinux's symbol table), else from the kernel's own
 * kallsyms tables, which VMCOREINFO locates since v6.0 (5fd8fea935a1, "vmcoreinfo: include
 * kallsyms symbols").
 *
 * kallsyms_names holds each symbol as a length and that many indexes into the token table:
 * kallsyms_token_index gives 256 offsets into kallsyms_token_table, whose tokens end in NUL.
 * The expanded name's first character is the symbol's type. A length with bit 7 set takes a
 * second byte (v6.1, 73bbb94466fd, "kallsyms: support "big" kernel symbols"). The address of
 * symbol i is one of three encodings, told apart by what VMCOREINFO lists:
 *  - kallsyms_addresses[i] (kernels built without KALLSYMS_BASE_RELATIVE);
 *  - kallsyms_relative_base + (u32)kallsyms_offsets[i]; with KALLSYMS_ABSOLUTE_PERCPU (x86_64
 *    SMP kernels until the per-cpu rework removed it) a non-negative offset is the address
 *    itself and a negative one is relative_base - 1 - offset: such a kernel has negative
 *    offsets, the other none (its image is far smaller than 2 GiB);
 *  - no relative base listed (later kernels): place-relative, &kallsyms_offsets[i] + offset.
 * Whichever it is, the result is checked: init_uts_ns must come out where VMCOREINFO's
 * SYMBOL(init_uts_ns) says (its SYMBOL(mem_section) is the pointer's value, not the symbol's
 * address, with SPARSEMEM_EXTREME), or the symbols are refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"

#define MAX_SYMS	(4U << 20)	/* a distribution kernel has about 200,000 */
#define MAX_NAMES	(64U << 20)	/* the compressed names: about 2 MiB */
#define NAMES_CHUNK	(1U << 20)
#define TOKENS_MAX	(256U * 256U)

struct want {
	const char *const *names;
	size_t n;
	__u64 *addrs;
	__u64 uts;			/* where the symbols put init_uts_ns: the check */
};

static void match(struct want *w, const char *name, __u64 addr)
{
	if (!strcmp(name, "init_uts_ns"))
		w->uts = addr;
	for (size_t i = 0; i < w->n; i++)
		if (!w->addrs[i] && !strcmp(name, w->names[i]))
			w->addrs[i] = addr;
}

/* The names' bytes [pos, pos + need): read on in chunks as the decoder reaches them. */
struct names {
	struct ms_dump *d;
	__u64 va;
	unsigned char *buf;
	size_t len;
};

static const unsigned char *names_at(struct names *nm, size_t pos, size_t need)
{
	while (pos + need > nm->len) {
		unsigned char *nb;

		if (nm->len + NAMES_CHUNK > MAX_NAMES)
			return NULL;
		nb = realloc(nm->buf, nm->len + NAMES_CHUNK);
		if (!nb)
			return NULL;
		nm->buf = nb;
		/* the table's last chunk may end in an unmapped page: read what is there */
		for (size_t p = 0; p < NAMES_CHUNK; p += 4096)
			if (ms_dump_read_virt(nm->d, nm->va + nm->len + p, nb + nm->len + p, 4096))
				memset(nb + nm->len + p, 0, 4096);
		nm->len += NAMES_CHUNK;
	}
	return nm->buf + pos;
}

enum enc { ENC_ADDRESSES, ENC_RELATIVE, ENC_PERCPU, ENC_PLACE };

static int from_kallsyms(struct ms_dump *d, struct want *w, char *why, size_t whylen)
{
	const char *v = d->vmcoreinfo;
	__u64 names_va, num_va, tt_va, ti_va, off_va = 0, addr_va = 0, base_va = 0, base = 0;
	__u32 num = 0;
	__u16 ti[256];
	char *tokens = NULL;
	void *vals = NULL;
	struct names nm = { .d = d };
	size_t tlen = 0, pos = 0;
	enum enc enc;
	int ret = MS_EXIT_OK;

	if (!v || ms_vmcoreinfo_u64(v, "SYMBOL(kallsyms_names)", 16, &names_va) ||
	    ms_vmcoreinfo_u64(v, "SYMBOL(kallsyms_num_syms)", 16, &num_va) ||
	    ms_vmcoreinfo_u64(v, "SYMBOL(kallsyms_token_table)", 16, &tt_va) ||
	    ms_vmcoreinfo_u64(v, "SYMBOL(kallsyms_token_index)", 16, &ti_va) ||
	    (ms_vmcoreinfo_u64(v, "SYMBOL(kallsyms_offsets)", 16, &off_va) &&
	     ms_vmcoreinfo_u64(v, "SYMBOL(kallsyms_addresses)", 16, &addr_va)))
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "its VMCOREINFO does "
				   "not locate the kernel's kallsyms (a kernel before 6.0, or built "
				   "without CONFIG_KALLSYMS): give its System.map with --symbols FILE");
	nm.va = names_va;
	enc = addr_va ? ENC_ADDRESSES : ms_vmcoreinfo_u64(v, "SYMBOL(kallsyms_relative_base)", 16,
							   &base_va) ? ENC_PLACE : ENC_RELATIVE;
	if (ms_dump_read_virt(d, num_va, &num, sizeof(num)) || !num || num > MAX_SYMS ||
	    ms_dump_read_virt(d, ti_va, ti, sizeof(ti)) ||
	    (base_va && ms_dump_read_virt(d, base_va, &base, sizeof(base))))
		goto unreadable;
	for (int i = 0; i < 256; i++)
		tlen = ti[i] + 256U > tlen ? ti[i] + 256U : tlen;
	tokens = calloc(1, tlen + 1);	/* NUL-terminated whatever the dump holds */
	vals = malloc((size_t)num * (enc == ENC_ADDRESSES ? 8 : 4));
	if (!tokens || !vals) {
		ret = ms_dump_bad(why, whylen, MS_EXIT_FAIL, "%s", "out of memory");
		goto out;
	}
	/* the token table's end may share a page with something unmapped: page by page */
	for (size_t p = 0; p < tlen; p += 256)
		if (ms_dump_read_virt(d, tt_va + p, tokens + p, tlen - p < 256 ? tlen - p : 256))
			break;
	if (ms_dump_read_virt(d, enc == ENC_ADDRESSES ? addr_va : off_va, vals,
			      (size_t)num * (enc == ENC_ADDRESSES ? 8 : 4)))
		goto unreadable;
	if (enc == ENC_RELATIVE)
		for (__u32 i = 0; i < num && enc == ENC_RELATIVE; i++)
			if (((__s32 *)vals)[i] < 0)
				enc = ENC_PERCPU;
	for (__u32 i = 0; i < num; i++) {
		const unsigned char *p = names_at(&nm, pos, 2), *data;
		char name[512];
		size_t len, hdr = 1, n = 0;
		__s32 off = enc == ENC_ADDRESSES ? 0 : ((__s32 *)vals)[i];
		__u64 addr;

		if (!p)
			goto unreadable;
		len = p[0];
		if (len & 0x80) {
			len = (len & 0x7f) | ((size_t)p[1] << 7);
			hdr = 2;
		}
		data = names_at(&nm, pos + hdr, len);
		if (!data)
			goto unreadable;
		for (size_t k = 0; k < len; k++)
			for (const char *t = tokens + ti[data[k]]; *t && n < sizeof(name) - 1; t++)
				name[n++] = *t;
		name[n] = 0;
		pos += hdr + len;
		addr = enc == ENC_ADDRESSES ? ((__u64 *)vals)[i] :
		       enc == ENC_RELATIVE ? base + (__u32)off :
		       enc == ENC_PERCPU ? (off >= 0 ? (__u64)off : base - 1 - (__s64)off) :
		       off_va + 4ULL * i + (__u64)(__s64)off;
		if (n)
			match(w, name + 1, addr);	/* name[0] is the type */
	}
	goto out;
unreadable:
	ret = ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "the kernel's kallsyms tables "
			  "are not readable in it: give its System.map with --symbols FILE");
out:
	free(nm.buf);
	free(tokens);
	free(vals);
	return ret;
}

/* A vmlinux: its .symtab, at link-time addresses. 0, or -1 (not an ELF file with one). */
static int from_vmlinux(const char *path, struct want *w, __u64 slide)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;
	Elf *e;
	Elf_Scn *scn = NULL;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, (int)i, &s))
				break;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (name && *name && s.st_shndx != SHN_UNDEF)
				match(w, name, s.st_value + slide);
		}
		ret = 0;
		break;
	}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

/* A System.map ("ffffffff81000000 T _stext" a line). 0, or -1 (no such line in it). */
static int from_system_map(FILE *f, struct want *w, __u64 slide)
{
	char line[600], name[512], type;
	unsigned long long addr;
	int lines = 0;

	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) == 3) {
			match(w, name, addr + slide);
			lines++;
		}
	return lines ? 0 : -1;
}

int ms_dump_symbols(struct ms_dump *d, const char *path, const char *const *names, size_t n,
		    __u64 *addrs, char *why, size_t whylen)
{
	struct want w = { .names = names, .n = n, .addrs = addrs };
	unsigned char magic[4] = { 0 };
	__u64 uts = 0;
	FILE *f;
	int ret;

	memset(addrs, 0, n * sizeof(*addrs));
	if (!d->vmcoreinfo || ms_vmcoreinfo_u64(d->vmcoreinfo, "SYMBOL(init_uts_ns)", 16, &uts))
		return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "its VMCOREINFO has no "
				   "SYMBOL(init_uts_ns) to check the kernel's symbols against");
	if (!path) {
		ret = from_kallsyms(d, &w, why, whylen);
		if (ret)
			return ret;
		if (!w.uts)
			return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "the kernel's "
					   "kallsyms hold no data symbols (CONFIG_KALLSYMS_ALL off): "
					   "give its System.map with --symbols FILE");
		if (w.uts != uts)
			return ms_dump_bad(why, whylen, MS_EXIT_UNSUPPORTED, "%s", "the kernel's "
					   "kallsyms, as read, do not agree with its VMCOREINFO: give "
					   "its System.map with --symbols FILE");
		return MS_EXIT_OK;
	}
	f = fopen(path, "re");
	if (!f)
		return ms_dump_bad(why, whylen, errno == EACCES ? MS_EXIT_PERM : MS_EXIT_USAGE,
				   "--symbols: cannot open it: %s", strerror(errno));
	ret = fread(magic, 1, sizeof(magic), f) == sizeof(magic) && !memcmp(magic, ELFMAG, 4) ?
	      from_vmlinux(path, &w, d->kaslr_offset) :
	      (rewind(f), from_system_map(f, &w, d->kaslr_offset));
	fclose(f);
	if (ret)
		return ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "--symbols: neither a "
				   "System.map nor a vmlinux with a symbol table");
	if (w.uts != uts)
		return ms_dump_bad(why, whylen, MS_EXIT_USAGE, "%s", "--symbols: not the dumped "
				   "kernel's symbols (its init_uts_ns is not where the dump's "
				   "VMCOREINFO puts it)");
	return MS_EXIT_OK;
}
