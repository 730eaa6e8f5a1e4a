// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat -a/--attributes: dirty, writeback, mlocked, LRU lists, referenced, DMA-pinned, THP and
 * KSM pages per class, counted from the per-page records of one walk (ms_backend_pages()).
 *
 * A folio is judged once, at its head: its tails share the head's verdict (the flags of a large
 * folio live in its head; a tail record carries them in head_flags). Only the DMA pin of a large
 * folio is read later, from the page of the folio that holds _pincount.
 *
 * The kernel facts used, all found at run time (ms_attr_facts_load()):
 *  - page-flag bits: enum pageflags in BTF, as allpages.c names them;
 *  - struct page _refcount: its offset in BTF (bytes 52-55 on every kernel since 4.x);
 *  - _pincount of large folios: struct folio's _pincount, looked up by name in BTF (a member
 *    of the first tail page since v6.1, where struct folio gained its first tail page's
 *    fields), else struct page's compound_pincount of the first tail page (v5.7 to v6.2,
 *    added with exact pin counts for compound pages, "mm/gup: page->hpage_pinned_refcount");
 *    only its position comes from BTF, no offset is assumed (the commits are cited by
 *    version and title: this checkout has no kernel history to take hashes from);
 *  - folio_maybe_dma_pinned() (include/linux/mm.h): a large folio is pinned when _pincount > 0,
 *    a small one when its refcount is at least GUP_PIN_COUNTING_BIAS (1 << 10);
 *  - HPAGE_PMD_ORDER from /sys/kernel/mm/transparent_hugepage/hpage_pmd_size; meminfo's
 *    ShmemHugePages and FileHugePages count page cache folios that are
 *    folio_test_pmd_mappable() (order >= HPAGE_PMD_ORDER), from when they enter the cache;
 *  - AnonHugePages (NR_ANON_THPS) counts an anon folio while a PMD maps it: mm/rmap.c adds its
 *    pages when the folio's PMD mapcount goes from -1 to 0 and takes them away when it goes
 *    back to -1. A THP whose PMD mapping was split (mprotect or munmap of part of it, a COW
 *    after fork) stays one large folio mapped by PTEs and leaves AnonHugePages. That mapcount
 *    is struct folio's _entire_mapcount (6.6 to 7.3 BTF), _compound_mapcount where the folio
 *    still calls it so, else the first tail page's compound_mapcount (6.1): looked up by name
 *    in BTF like _pincount; where none is found, every anon folio of PMD order counts;
 *  - MGLRU: /sys/kernel/mm/lru_gen/enabled bit 0 (lru_gen_enabled()). Its folios keep the
 *    generation in page flags and not PG_active (lru_gen_add_folio() clears it), and
 *    Active/Inactive in meminfo are the youngest two generations and the rest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "memstat_int.h"
#include "meminfo.h"
#include "attrs.h"
#include "attrs_int.h"
#include "testhooks.h"

const struct ms_attr_info ms_attr_names[MS_NR_ATTRS] = {
	[MS_A_DIRTY] = { "dirty", "Dirty" },
	[MS_A_WRITEBACK] = { "writeback", "Writeback" },
	[MS_A_MLOCKED] = { "mlocked", "Mlocked" },
	[MS_A_UNEVICTABLE] = { "unevictable", "Unevict" },
	[MS_A_ACTIVE_ANON] = { "active_anon", "ActAnon" },
	[MS_A_INACTIVE_ANON] = { "inactive_anon", "InactAnon" },
	[MS_A_ACTIVE_FILE] = { "active_file", "ActFile" },
	[MS_A_INACTIVE_FILE] = { "inactive_file", "InactFile" },
	[MS_A_REFERENCED] = { "referenced", "Referenced" },
	[MS_A_DMA_PINNED] = { "dma_pinned", "DMApinned" },
	[MS_A_ANON_THP] = { "anon_thp", "AnonTHP" },
	[MS_A_SHMEM_THP] = { "shmem_thp", "ShmemTHP" },
	[MS_A_FILE_THP] = { "file_thp", "FileTHP" },
	[MS_A_KSM] = { "ksm", "KSM" },
};

#define GUP_PIN_COUNTING_BIAS (1U << 10)	/* include/linux/mm.h */

/* ---- kernel facts ---- */

/*
 * Bit offset of member path ("a.b": b within a) in struct or union id, descending into
 * anonymous members; -1 when absent. depth bounds the descent and *left the members looked at
 * in all: a dump's BTF may nest a type in itself, several times over (k members of its own type
 * at each of 8 levels would be k^8 visits).
 */
#define MEMBER_DEPTH 8
#define MEMBER_BUDGET 4096	/* struct page and struct folio hold a few hundred at most */
static long member_bits_in(const struct btf *btf, __u32 id, const char *path, int depth,
			   int *left)
{
	const struct btf_type *t;
	const struct btf_member *m;
	const char *dot = strchr(path, '.');
	size_t len = dot ? (size_t)(dot - path) : strlen(path);
	int i, id2 = btf__resolve_type(btf, id);

	if (id2 < 0 || depth > MEMBER_DEPTH)
		return -1;
	t = btf__type_by_id(btf, id2);
	if (!t || !btf_is_composite(t))
		return -1;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		long sub;

		if (--*left < 0)
			return -1;
		if (n && *n) {
			if (strlen(n) != len || strncmp(n, path, len))
				continue;
			if (!dot)
				return btf_member_bit_offset(t, i);
			sub = member_bits_in(btf, m->type, dot + 1, depth + 1, left);
			return sub < 0 ? -1 : btf_member_bit_offset(t, i) + sub;
		}
		sub = member_bits_in(btf, m->type, path, depth + 1, left);	/* anonymous */
		if (sub >= 0)
			return btf_member_bit_offset(t, i) + sub;
	}
	return -1;
}

long ms_btf_member_bits(const struct btf *btf, const char *sname, const char *path)
{
	__s32 id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	int left = MEMBER_BUDGET;

	return id < 0 ? -1 : member_bits_in(btf, (__u32)id, path, 0, &left);
}

static void flag_bits(const struct btf *btf, struct ms_attr_facts *f)
{
	static const struct {
		const char *name;
		size_t off;
	} want[] = {
#define B(n, m) { n, offsetof(struct ms_attr_facts, m) }
		B("PG_dirty", pg_dirty), B("PG_writeback", pg_writeback),
		B("PG_mlocked", pg_mlocked), B("PG_unevictable", pg_unevictable),
		B("PG_active", pg_active), B("PG_lru", pg_lru),
		B("PG_referenced", pg_referenced), B("PG_swapbacked", pg_swapbacked),
#undef B
	};
	__s32 id = btf__find_by_name_kind(btf, "pageflags", BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	size_t k;
	int i;

	if (id < 0)
		return;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, e[i].name_off);

		for (k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			if (name && !strcmp(name, want[k].name) && e[i].val >= 0 && e[i].val < 64)
				*((__u8 *)f + want[k].off) = (__u8)e[i].val;
		if (name && !strcmp(name, "__NR_PAGEFLAGS") && e[i].val > 0 && e[i].val < 62)
			f->nr_pageflags = (unsigned int)e[i].val;
	}
	f->btf_ok = f->pg_dirty != MS_NO_BIT && f->pg_lru != MS_NO_BIT;
}

int ms_btf_flag_names(const struct btf *btf, char names[64][MS_FLAG_NAME_LEN],
		      unsigned int *nr_flags)
{
	__s32 id = btf__find_by_name_kind(btf, "pageflags", BTF_KIND_ENUM);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	const struct btf_enum *e = t ? btf_enum(t) : NULL;

	memset(names, 0, 64 * sizeof(names[0]));
	*nr_flags = 64;
	if (!t)
		return -ENOENT;
	for (__u16 i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, e[i].name_off);
		__s32 v = e[i].val;

		if (!name)
			continue;
		if (!strcmp(name, "__NR_PAGEFLAGS"))
			*nr_flags = v >= 0 && v < 64 ? (unsigned int)v : 64;
		else if (v >= 0 && v < 64 && !names[v][0] && !strncmp(name, "PG_", 3))
			snprintf(names[v], MS_FLAG_NAME_LEN, "%s", name + 3);	/* later: aliases */
	}
	return 0;
}

/*
 * A 32-bit member of a large folio's tail pages: struct folio's member folio1 (else folio2, a
 * name it had before), else struct page's member page1 of the first tail page. Sets the page of
 * the folio that holds it, the word of that page's record and the shift; leaves them (page 0:
 * unknown) when BTF names none of them.
 */
static void tail_member(const struct btf *btf, const char *folio1, const char *folio2,
			const char *page1, int *page, int *word, int *shift)
{
	long bits = ms_btf_member_bits(btf, "folio", folio1);

	if (bits < 0 && folio2)
		bits = ms_btf_member_bits(btf, "folio", folio2);
	if (bits < 0) {
		bits = ms_btf_member_bits(btf, "page", page1);
		if (bits >= 0)
			bits += 512;	/* of page[1] */
	}
	if (bits >= 512 && bits % 32 == 0) {
		*page = (int)(bits / 512);
		*word = (int)(bits % 512 / 64);
		*shift = (int)(bits % 64);
	}
}

/* what is assumed where BTF is silent: _refcount at bytes 52-55, x86_64's 2 MiB PMD */
static void facts_defaults(struct ms_attr_facts *f)
{
	memset(f, 0, sizeof(*f));
	memset(f, MS_NO_BIT, offsetof(struct ms_attr_facts, refcount_word));
	/* _refcount: bytes 52-55 of struct page (the second half of word 6) where BTF is silent */
	f->refcount_word = 6;
	f->refcount_shift = 32;
	f->pmd_order = 9;	/* x86_64: 2 MiB of 4 KiB pages */
}

/* the facts BTF gives: the flags' bits, _refcount, the folio's pin and PMD map counts */
static void facts_of_btf(const struct btf *btf, struct ms_attr_facts *f, bool flags)
{
	long bits;

	if (flags)
		flag_bits(btf, f);
	bits = ms_btf_member_bits(btf, "page", "_refcount");
	if (bits >= 0 && bits % 32 == 0 && bits < 512) {
		f->refcount_word = (int)(bits / 64);
		f->refcount_shift = (int)(bits % 64);
	}
	/* struct folio's _pincount (v6.1 on), else the first tail page's compound_pincount */
	tail_member(btf, "_pincount", NULL, "compound_pincount", &f->pincount_page,
		    &f->pincount_word, &f->pincount_shift);
	/* the PMD mapcount (-1 based) of a large folio: see the head of this file */
	tail_member(btf, "_entire_mapcount", "_compound_mapcount", "compound_mapcount",
		    &f->entire_page, &f->entire_word, &f->entire_shift);
}

int ms_attr_facts_load(struct ms_attr_facts *f)
{
	struct btf *btf;
	long pmd, page = sysconf(_SC_PAGESIZE);

	facts_defaults(f);
	pmd = ms_read_long("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
	if (pmd > page && page > 0)
		for (f->pmd_order = 0; (page << f->pmd_order) < pmd && f->pmd_order < 30;)
			f->pmd_order++;
	/* lru_gen_enabled(): bit 0 of the caps mask (LRU_GEN_CORE) */
	f->mglru = ms_read_long("/sys/kernel/mm/lru_gen/enabled") > 0 &&
		   (ms_read_long("/sys/kernel/mm/lru_gen/enabled") & 1);

	btf = ms_kernel_btf();
	if (!btf)
		return -errno;
	/* test builds: a kernel whose BTF names no page flag (the module without BTF) */
	facts_of_btf(btf, f, !ms_test_hook(MS_TEST_NO_PAGEFLAGS));
	btf__free(btf);
	return f->btf_ok ? 0 : -ENOENT;
}

int ms_attr_facts_of(const struct btf *btf, bool mglru, struct ms_attr_facts *f)
{
	facts_defaults(f);
	f->mglru = mglru;
	facts_of_btf(btf, f, true);
	return f->btf_ok ? 0 : -ENOENT;
}

const char *ms_attrs_unknown(const struct ms_attrs *a, enum ms_attr k)
{
	return ms_attr_unknown(&a->f, k);
}

const char *ms_attr_unknown(const struct ms_attr_facts *f, enum ms_attr k)
{
	const char *why = NULL;

#define NEED(bit, name) \
	do { if (!why && f->bit == MS_NO_BIT) why = name " is not in the kernel's BTF"; } while (0)
	switch (k) {
	case MS_A_DIRTY:
		NEED(pg_dirty, "PG_dirty");
		break;
	case MS_A_WRITEBACK:
		NEED(pg_writeback, "PG_writeback");
		break;
	case MS_A_MLOCKED:
		NEED(pg_mlocked, "PG_mlocked");
		break;
	case MS_A_REFERENCED:
		NEED(pg_referenced, "PG_referenced");
		break;
	case MS_A_ACTIVE_ANON:
	case MS_A_INACTIVE_ANON:
	case MS_A_ACTIVE_FILE:
	case MS_A_INACTIVE_FILE:
		NEED(pg_active, "PG_active");
		NEED(pg_swapbacked, "PG_swapbacked");
		/* an LRU list needs PG_lru and PG_unevictable too */
		__attribute__((fallthrough));
	case MS_A_UNEVICTABLE:
		NEED(pg_lru, "PG_lru");
		NEED(pg_unevictable, "PG_unevictable");
		break;
	default:	/* pinned, THP, KSM: from the refcount, orders and sub-classes */
		break;
	}
#undef NEED
	return why;
}

/* ---- counting ---- */

static bool small_pinned(const struct ms_attr_facts *f, __u64 refcount_word_value)
{
	return (__u32)(refcount_word_value >> f->refcount_shift) >= GUP_PIN_COUNTING_BIAS;
}

bool ms_attrs_small_pinned(const struct ms_attr_facts *f, const struct ms_page_rec *r)
{
	return small_pinned(f, r->w[f->refcount_word]);
}

bool ms_attrs_large_pinned(const struct ms_attr_facts *f, const struct ms_page_rec *r)
{
	return f->pincount_page && (__s32)(__u32)(r->w[f->pincount_word] >> f->pincount_shift) > 0;
}

static bool flag(__u64 flags, __u8 bit)
{
	return bit < 64 && (flags >> bit) & 1;
}

__u32 ms_attrs_of(const struct ms_attr_facts *f, __u64 flags, __u8 sub, __u8 order, bool large,
		  __u64 refcount_word_value)
{
	__u32 m = 0;
	enum ms_class c = sub < MS_NR_SUBS ? ms_subs[sub].cls : MS_C_UNKNOWN;

	if (flag(flags, f->pg_dirty))
		m |= 1U << MS_A_DIRTY;
	if (flag(flags, f->pg_writeback))
		m |= 1U << MS_A_WRITEBACK;
	if (flag(flags, f->pg_mlocked))
		m |= 1U << MS_A_MLOCKED;
	if (flag(flags, f->pg_referenced))
		m |= 1U << MS_A_REFERENCED;
	if (flag(flags, f->pg_lru)) {
		bool anon = flag(flags, f->pg_swapbacked), act = flag(flags, f->pg_active);

		if (flag(flags, f->pg_unevictable))
			m |= 1U << MS_A_UNEVICTABLE;
		else
			m |= 1U << (anon ? (act ? MS_A_ACTIVE_ANON : MS_A_INACTIVE_ANON) :
				    (act ? MS_A_ACTIVE_FILE : MS_A_INACTIVE_FILE));
	}
	/* small folios: the pin bias in the refcount (large ones: _pincount, read later) */
	if (!large && small_pinned(f, refcount_word_value))
		m |= 1U << MS_A_DMA_PINNED;
	if (large && order >= f->pmd_order) {
		if (c == MS_C_ANON)
			m |= 1U << MS_A_ANON_THP;
		else if (c == MS_C_SHMEM)
			m |= 1U << MS_A_SHMEM_THP;
		else if (sub == MS_FILE || sub == MS_EXEC || sub == MS_FILE_BUFFERS)
			m |= 1U << MS_A_FILE_THP;
	}
	if (sub == MS_ANON_KSM)
		m |= 1U << MS_A_KSM;
	return m;
}

void ms_attrs_reset(struct ms_attrs *a)
{
	struct ms_attr_facts f = a->f;
	void (*fn)(void *, __u64, __u64, __u32, __u8) = a->on_folio;
	void *arg = a->on_folio_arg;

	memset(a, 0, sizeof(*a));
	a->f = f;
	a->on_folio = fn;
	a->on_folio_arg = arg;
}

static void commit_folio(struct ms_attrs *a)
{
	enum ms_class c;
	int k;

	if (!a->open)
		return;
	a->open = false;
	c = ms_subs[a->cur_sub].cls;
	for (k = 0; k < MS_NR_ATTRS; k++)
		if (a->cur_mask & (1U << k))
			a->cls[c][k] += a->cur_pages;
	if (a->cur_mask & (1U << MS_A_DMA_PINNED))
		a->sub_pinned[a->cur_sub] += a->cur_pages;
	if (a->cur_acct_dirty)
		a->acct_dirty += a->cur_pages;
	a->orders[a->cur_order] += a->cur_pages;
	if (a->on_folio)
		a->on_folio(a->on_folio_arg, a->cur_first, a->cur_pages, a->cur_mask, a->cur_sub);
}

/*
 * What a large folio keeps in its tail pages: its pincount (page f->pincount_page) and its PMD
 * mapcount (page f->entire_page), read from their records as the walk passes them
 */
static void tail_facts(struct ms_attrs *a, __u64 pfn, const struct ms_page_rec *r)
{
	__s32 v;

	if (a->f.pincount_page && pfn == a->cur_head + (__u64)a->f.pincount_page &&
	    ms_attrs_large_pinned(&a->f, r))
		a->cur_mask |= 1U << MS_A_DMA_PINNED;
	if (a->cur_thp_unseen && pfn == a->cur_head + (__u64)a->f.entire_page) {
		a->cur_thp_unseen = false;
		v = (__s32)(__u32)(r->w[a->f.entire_word] >> a->f.entire_shift);
		if (v >= 0)
			a->cur_mask |= 1U << MS_A_ANON_THP;
	}
}

int ms_attrs_page(void *arg, __u64 pfn, const struct ms_page_rec *r)
{
	struct ms_attrs *a = arg;
	enum ms_class c;
	bool large;

	if (!r->valid || r->sub >= MS_NR_SUBS)
		return 0;
	a->valid = true;
	if (r->role == MS_ROLE_TAIL && a->open && r->head_pfn == a->cur_head) {
		a->cur_pages++;
		tail_facts(a, pfn, r);
		return 0;
	}
	commit_folio(a);
	c = ms_subs[r->sub].cls;
	if (c == MS_C_FREE || r->role == MS_ROLE_FREE_HEAD || r->role == MS_ROLE_FREE_TAIL)
		return 0;	/* free pages have no state */
	large = r->role == MS_ROLE_HEAD || r->role == MS_ROLE_TAIL;
	a->open = true;
	a->cur_head = r->role == MS_ROLE_TAIL ? r->head_pfn : pfn;
	a->cur_first = pfn;
	a->cur_pages = 1;
	a->cur_sub = r->sub;
	a->cur_order = r->order < MS_ATTR_ORDERS ? r->order : MS_ATTR_ORDERS - 1;
	a->cur_mask = ms_attrs_of(&a->f, r->role == MS_ROLE_TAIL ? r->head_flags : r->w[0], r->sub,
				  r->order, large, r->w[a->f.refcount_word]);
	/* anon of PMD order: anon THP if a PMD maps it, which its tail page tells (tail_facts()) */
	a->cur_thp_unseen = false;
	if ((a->cur_mask & (1U << MS_A_ANON_THP)) && a->f.entire_page &&
	    (r->role != MS_ROLE_TAIL || pfn <= a->cur_head + (__u64)a->f.entire_page)) {
		a->cur_mask &= ~(1U << MS_A_ANON_THP);
		a->cur_thp_unseen = true;
	}
	/*
	 * meminfo Dirty (NR_FILE_DIRTY) counts the dirty folios of mappings that account writeback
	 * (folio_account_dirtied()): page cache, not shmem, anon or the swap cache
	 */
	a->cur_acct_dirty = (a->cur_mask & (1U << MS_A_DIRTY)) &&
			    (r->sub == MS_FILE || r->sub == MS_EXEC || r->sub == MS_FILE_BUFFERS);
	if (r->role == MS_ROLE_TAIL)	/* its head was not seen: a walk that began inside */
		tail_facts(a, pfn, r);
	return 0;
}

void ms_attrs_finish(struct ms_attrs *a)
{
	commit_folio(a);
}

__u64 ms_attrs_total(const struct ms_attrs *a, enum ms_attr k)
{
	__u64 n = 0;
	int c;

	for (c = 0; c < MS_NR_CLASSES; c++)
		n += a->cls[c][k];
	return n;
}

/* ---- reconciliation ---- */

static long long kb_sum(long long x, long long y)
{
	return x < 0 || y < 0 ? -1 : x + y;
}

void ms_attrs_reconcile(const struct ms_attrs *a, const struct ms_meminfo *b,
			const struct ms_meminfo *m, long page_kb, struct ms_recon *rc)
{
	long long tot = m->mem_total / page_kb;
	const double tol = MS_RECON_ATTR_TOLERANCE_PCT;

#define T(k) ms_attrs_total(a, k)
/* a row whose attribute cannot be told is left out (ms_attrs_print_unreconciled() says why) */
#define KNOWN(k) (!ms_attr_unknown(&a->f, k))
	if (KNOWN(MS_A_DIRTY))
		ms_recon_add(rc, "Dirty page cache", "Dirty", a->acct_dirty, b->dirty, m->dirty, "Dirty",
		     page_kb, tot, tol);
	if (KNOWN(MS_A_WRITEBACK))
		ms_recon_add(rc, "Writeback", "Writeback", T(MS_A_WRITEBACK), b->writeback, m->writeback,
		     "Writeback", page_kb, tot, tol);
	if (KNOWN(MS_A_MLOCKED))
		ms_recon_add(rc, "Mlocked", "Mlocked", T(MS_A_MLOCKED), b->mlocked, m->mlocked, "Mlocked",
		     page_kb, tot, tol);
	if (KNOWN(MS_A_UNEVICTABLE))
		ms_recon_add(rc, "Unevictable LRU", "Unevictable", T(MS_A_UNEVICTABLE), b->unevictable,
		     m->unevictable, "Unevictable", page_kb, tot, tol);
	if (!KNOWN(MS_A_ACTIVE_ANON)) {
		/* no LRU rows: ms_attrs_print_unreconciled() says why */
	} else if (a->f.mglru) {
		/* the generations are not PG_active: only each list's sum can be compared */
		ms_recon_add(rc, "Anon LRU (active + inactive)", "Active(anon)+Inactive(anon)",
			     T(MS_A_ACTIVE_ANON) + T(MS_A_INACTIVE_ANON),
			     kb_sum(b->active_anon, b->inactive_anon),
			     kb_sum(m->active_anon, m->inactive_anon), "Active(anon)", page_kb, tot,
			     tol);
		ms_recon_add(rc, "File LRU (active + inactive)", "Active(file)+Inactive(file)",
			     T(MS_A_ACTIVE_FILE) + T(MS_A_INACTIVE_FILE),
			     kb_sum(b->active_file, b->inactive_file),
			     kb_sum(m->active_file, m->inactive_file), "Active(file)", page_kb, tot,
			     tol);
	} else {
		ms_recon_add(rc, "Active anon LRU", "Active(anon)", T(MS_A_ACTIVE_ANON),
			     b->active_anon, m->active_anon, "Active(anon)", page_kb, tot, tol);
		ms_recon_add(rc, "Inactive anon LRU", "Inactive(anon)", T(MS_A_INACTIVE_ANON),
			     b->inactive_anon, m->inactive_anon, "Inactive(anon)", page_kb, tot,
			     tol);
		ms_recon_add(rc, "Active file LRU", "Active(file)", T(MS_A_ACTIVE_FILE),
			     b->active_file, m->active_file, "Active(file)", page_kb, tot, tol);
		ms_recon_add(rc, "Inactive file LRU", "Inactive(file)", T(MS_A_INACTIVE_FILE),
			     b->inactive_file, m->inactive_file, "Inactive(file)", page_kb, tot,
			     tol);
	}
	ms_recon_add(rc, "Anon THP", "AnonHugePages", T(MS_A_ANON_THP), b->anon_huge,
		     m->anon_huge, "AnonHugePages", page_kb, tot, tol);
	ms_recon_add(rc, "Shmem THP", "ShmemHugePages", T(MS_A_SHMEM_THP), b->shmem_huge,
		     m->shmem_huge, "ShmemHugePages", page_kb, tot, tol);
	ms_recon_add(rc, "File THP", "FileHugePages", T(MS_A_FILE_THP), b->file_huge,
		     m->file_huge, "FileHugePages", page_kb, tot, tol);
#undef KNOWN
#undef T
}

struct ms_attrs *ms_attrs_new(void)
{
	return calloc(1, sizeof(struct ms_attrs));
}

void ms_attrs_free(struct ms_attrs *a)
{
	free(a);
}

int ms_attrs_load_facts(struct ms_attrs *a)
{
	return ms_attr_facts_load(&a->f);
}

void ms_attrs_set_facts(struct ms_attrs *a, const struct ms_attr_facts *f)
{
	a->f = *f;
}

void ms_attrs_on_folio(struct ms_attrs *a,
		       void (*fn)(void *arg, __u64 first_pfn, __u64 npages, __u32 mask, __u8 sub),
		       void *arg)
{
	a->on_folio = fn;
	a->on_folio_arg = arg;
}

bool ms_attrs_valid(const struct ms_attrs *a)
{
	return a && a->valid;
}

__u64 ms_attrs_class_pages(const struct ms_attrs *a, enum ms_class c, enum ms_attr k)
{
	return a->cls[c][k];
}
