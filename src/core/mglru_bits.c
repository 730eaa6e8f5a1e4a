// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Where a folio's MGLRU generation sits in its flags (mglru_bits.h). The field is gen + 1 (0: on
 * no MGLRU list) at LRU_GEN_PGOFF = KASAN_TAG_PGOFF - LRU_GEN_WIDTH (include/linux/mm.h, since
 * ec1c86b25f4b "mm: multi-gen LRU: groundwork", v6.1), LRU_GEN_WIDTH 3 for MAX_NR_GENS 4. The
 * fields above it (node, zone, last_cpupid, KASAN tag) have widths of the configuration's, so the
 * position differs between kernels of one version: it is found from the pages, and checked
 * against the kernel's own counts of each generation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memstat_int.h"
#include "attrs.h"
#include "backend.h"
#include "mglru_bits.h"
#include "meminfo.h"

void ms_gen_hist_add(struct ms_gen_hist *h, __u64 head_flags, bool lru, bool other)
{
	unsigned int o;

	if (lru) {
		h->lru_pages++;
		for (o = 0; o < 62; o++)
			h->lru[o][(head_flags >> o) & 7]++;
	} else if (other) {
		h->other_pages++;
		for (o = 0; o < 62; o++)
			h->other_set[o] += ((head_flags >> o) & 7) != 0;
	}
}

/* How far n lies outside [a, b] (or [b, a]). */
static __u64 outside(__u64 n, __u64 a, __u64 b)
{
	__u64 lo = a < b ? a : b, hi = a < b ? b : a;

	return n < lo ? lo - n : n > hi ? n - hi : 0;
}

int ms_gen_locate(const struct ms_gen_hist *h, unsigned int lo,
		  const __u64 by_gen[MS_MGLRU_GENS], char *why, size_t whylen)
{
	return ms_gen_locate_between(h, lo, by_gen, by_gen, why, whylen);
}

int ms_gen_locate_between(const struct ms_gen_hist *h, unsigned int lo,
			  const __u64 before[MS_MGLRU_GENS], const __u64 after[MS_MGLRU_GENS],
			  char *why, size_t whylen)
{
	__u64 slack_lru = h->lru_pages / 1000 + 16, slack_other = h->other_pages / 1000 + 16;
	__u64 kernel = 0, tol, best_dist = ~0ULL;
	unsigned int o, v;
	int found = -1, fits = 0, best = -1, n;

	for (v = 0; v < MS_MGLRU_GENS; v++)
		kernel += after[v];
	if (!h->lru_pages || !kernel) {
		snprintf(why, whylen, "no folio is on an MGLRU list (%llu pages on LRU lists, %llu "
			 "in the kernel's generations)", (unsigned long long)h->lru_pages,
			 (unsigned long long)kernel);
		return -1;
	}
	tol = h->lru_pages / 50 + 256;
	for (o = lo; o < 62; o++) {
		__u64 off = h->lru[o][0] + h->lru[o][5] + h->lru[o][6] + h->lru[o][7], dist = 0;

		if (off > slack_lru || h->other_set[o] > slack_other)
			continue;
		for (v = 1; v <= MS_MGLRU_GENS; v++)
			dist += outside(h->lru[o][v], before[v - 1], after[v - 1]);
		if (dist < best_dist) {	/* for the refusal: the nearest window's figures */
			best_dist = dist;
			best = (int)o;
		}
		if (dist > tol)
			continue;
		fits++;
		found = (int)o;
	}
	if (fits == 1)
		return found;
	n = snprintf(why, whylen, "%s of the flags' 3-bit windows from bit %u matches the kernel's "
		     "generations (%llu pages on MGLRU lists, %llu in lru_gen_full)",
		     fits ? "more than one" : "none", lo, (unsigned long long)h->lru_pages,
		     (unsigned long long)kernel);
	if (!fits && best >= 0 && n > 0 && (size_t)n < whylen) {
		/* the nearest window: the walk's pages of each generation, the kernel's before-after */
		n += snprintf(why + n, whylen - (size_t)n, "; nearest, bit %d, %llu pages off "
			      "(%llu allowed): by generation slot, walk vs lru_gen_full", best,
			      (unsigned long long)best_dist, (unsigned long long)tol);
		for (v = 1; v <= MS_MGLRU_GENS && n > 0 && (size_t)n < whylen; v++)
			n += snprintf(why + n, whylen - (size_t)n, "%s %llu vs %llu-%llu",
				      v > 1 ? "," : "", (unsigned long long)h->lru[best][v],
				      (unsigned long long)before[v - 1],
				      (unsigned long long)after[v - 1]);
	}
	return -1;
}

#define LOCATE_WALKS 5	/* ms_mglru_locate()'s tries */

struct locate {
	struct ms_gen_hist h;
	unsigned int pg_lru, pg_unevictable;
	__u64 unreadable, unevictable;	/* for a refusal: the pages left out */
};

static int locate_page(void *arg, __u64 pfn, const struct ms_page_rec *r)
{
	struct locate *l = arg;
	bool lru = (r->head_flags >> l->pg_lru) & 1;
	bool unevictable = (r->head_flags >> l->pg_unevictable) & 1;

	if (r->valid)
		ms_gen_hist_add(&l->h, r->head_flags, lru && !unevictable, !lru && !unevictable);
	l->unreadable += !r->valid;
	l->unevictable += r->valid && unevictable;
	return 0;
}

/*
 * lru_gen_full's pages by generation, and in *seqs a hash of its lruvecs' generation numbers
 * and evicted marks: it changes when the kernel ages or evicts a generation of any of them
 * (reclaim). -1 with why when it cannot be read.
 */
static int kernel_gens(__u64 by_gen[MS_MGLRU_GENS], __u64 *seqs, char *why, size_t whylen)
{
	struct ms_mglru m;
	int err = ms_mglru_read(MS_MGLRU_FULL, &m);

	if (err) {
		snprintf(why, whylen, "%s: %s", MS_MGLRU_FULL, err == -EINVAL ?
			 "not in the format of lru_gen_full" : strerror(-err));
		return -1;
	}
	ms_mglru_by_gen(&m, by_gen);
	*seqs = 0;	/* in the file's order: two lruvecs' changes do not cancel out */
	for (size_t i = 0; i < m.n; i++)
		for (int g = 0; g < m.v[i].ngens; g++)
			*seqs = *seqs * 0x100000001b3ULL + (m.v[i].gen[g].seq + 1) * 4 +
				m.v[i].gen[g].anon_gone * 2 + m.v[i].gen[g].file_gone;
	ms_mglru_free(&m);
	return 0;
}

/* the evictable LRU lists' pages in /proc/vmstat (__update_lru_size()'s); -1 unknown */
static long long vmstat_lru(void)
{
	static const char *const keys[] = { "nr_inactive_anon", "nr_active_anon",
					    "nr_inactive_file", "nr_active_file" };
	char buf[16384];
	long long sum = 0, v;

	if (ms_read_text("/proc/vmstat", buf, sizeof(buf)))
		return -1;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = ms_kv_get(buf, keys[i]);
		if (v < 0)
			return -1;
		sum += v;
	}
	return sum;
}

/* 0 when MGLRU runs, or -1 with why */
static int mglru_on(char *why, size_t whylen)
{
	int on = ms_mglru_enabled(MS_MGLRU_ENABLED);

	if (on <= 0) {
		snprintf(why, whylen, "%s", on ? "the kernel has no MGLRU (" MS_MGLRU_ENABLED
			 " is absent)" : "MGLRU is off (" MS_MGLRU_ENABLED " reads 0)");
		return -1;
	}
	return 0;
}

int ms_mglru_ready(__u64 by_gen[MS_MGLRU_GENS], char *why, size_t whylen)
{
	__u64 unused[MS_MGLRU_GENS], seqs;

	if (mglru_on(why, whylen))
		return -1;
	return kernel_gens(by_gen ? by_gen : unused, &seqs, why, whylen);
}

/*
 * One record walk and the kernel's counts before and after it: the window, or -1 with why; *aged
 * when the kernel aged or evicted a generation meanwhile.
 */
static int locate_once(struct ms_backend *be, const struct ms_ranges *ranges,
		       const struct ms_attr_facts *f, struct locate *l, bool *aged, char *why,
		       size_t whylen)
{
	struct ms_result res;
	__u64 before[MS_MGLRU_GENS], after[MS_MGLRU_GENS], seqs_before, seqs_after;
	long long lru_before, lru_after;
	int err;

	*aged = false;
	if (mglru_on(why, whylen) || kernel_gens(before, &seqs_before, why, whylen))
		return -1;
	lru_before = vmstat_lru();
	memset(&l->h, 0, sizeof(l->h));
	l->unreadable = l->unevictable = 0;
	memset(&res, 0, sizeof(res));
	err = ms_backend_pages(be, ranges, &res, locate_page, l);
	if (err) {
		snprintf(why, whylen, "the record walk failed (exit %d)", err);
		return -1;
	}
	lru_after = vmstat_lru();
	if (kernel_gens(after, &seqs_after, why, whylen))
		return -1;
	/*
	 * Aging makes the oldest generation's slot the youngest's: the walk may count the slot's
	 * old pages at low pfns and its new ones at high pfns, more than it ever held at once, so
	 * no count bounds it. Another walk then.
	 */
	if (seqs_after != seqs_before) {
		*aged = true;
		snprintf(why, whylen, "the kernel aged or evicted a generation during each of %d "
			 "walks (reclaim is running): its counts could not be compared with the "
			 "walk's", LOCATE_WALKS);
		return -1;
	}
	/*
	 * The walk saw each page at some moment between the two reads of the kernel's counts:
	 * where a generation grew or shrank meanwhile (a workload faulting memory in, its pages
	 * freed), its count at the walk's moment lies between them.
	 */
	err = ms_gen_locate_between(&l->h, f->nr_pageflags, before, after, why, whylen);
	if (err < 0) {
		size_t n = strlen(why);
		char lru[64] = "unknown";

		if (lru_before >= 0 && lru_after >= 0)
			snprintf(lru, sizeof(lru), "%lld-%lld pages", lru_before, lru_after);
		snprintf(why + n, whylen - n, "; left out: %llu pages unreadable, %llu unevictable; "
			 "/proc/vmstat's LRU lists %s", (unsigned long long)l->unreadable,
			 (unsigned long long)l->unevictable, lru);
	}
	return err;
}

int ms_mglru_locate(struct ms_backend *be, const struct ms_ranges *ranges, char *why,
		    size_t whylen)
{
	struct ms_attr_facts f;
	struct locate *l;
	int ret = -1;

	if (mglru_on(why, whylen))	/* each walk reads lru_gen_full itself */
		return -1;
	if (ms_attr_facts_load(&f) || f.pg_lru == MS_NO_BIT || f.pg_unevictable == MS_NO_BIT ||
	    !f.nr_pageflags) {
		snprintf(why, whylen, "the kernel's BTF names no PG_lru, PG_unevictable or "
			 "__NR_PAGEFLAGS");
		return -1;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	l->pg_lru = f.pg_lru;
	l->pg_unevictable = f.pg_unevictable;
	/*
	 * Up to LOCATE_WALKS walks: while one runs, the kernel may add or free many folios (a
	 * process starting or exiting, a file's page cache dropped) or age an lruvec, and then
	 * neither its counts before nor after agree with the pages the walk saw. The reason
	 * given is the last walk's, or that the kernel aged its generations during every walk.
	 */
	char last[1024] = "";
	bool aged = false;
	int nr_aged = 0;

	for (int attempt = 0; attempt < LOCATE_WALKS && ret < 0; attempt++) {
		ret = locate_once(be, ranges, &f, l, &aged, why, whylen);
		nr_aged += aged;
		if (ret < 0 && !aged)
			snprintf(last, sizeof(last), "%s", why);
	}
	if (ret < 0 && last[0] && nr_aged)	/* a walk that did not match says why */
		snprintf(why, whylen, "%s (and the kernel aged its generations during %d of %d "
			 "walks)", last, nr_aged, LOCATE_WALKS);
	else if (ret < 0 && last[0])
		snprintf(why, whylen, "%s", last);
	free(l);
	return ret;
}
