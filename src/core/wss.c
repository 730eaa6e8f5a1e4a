// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --wss SECONDS with the multi-gen LRU (wss.h): two agings of every lruvec around the window,
 * then each folio's generation from the record walk.
 *
 * What aging does (mm/vmscan.c try_to_inc_max_seq(), 6.1 to 7.x): it scans the page tables of
 * the memcg's processes, clears each accessed bit it finds set and moves that folio into the
 * youngest generation, then opens a new youngest one; with 4 generations already, the two
 * oldest merge first. It evicts nothing. It is what the kernel does on its own under memory
 * pressure, so the order of reclaim is the kernel's, told 2 generations more often.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memstat_int.h"
#include "attrs.h"
#include "backend.h"
#include "cgroup.h"
#include "damon.h"
#include "wss.h"
#include "mglru_bits.h"


bool ms_wss_class_tracked(int cls)
{
	return cls == MS_C_ANON || cls == MS_C_SHMEM || cls == MS_C_EXEC ||
	       cls == MS_C_PAGE_CACHE;
}

static __u64 max_seq(const struct ms_mglru_lruvec *v)
{
	return v->ngens ? v->gen[v->ngens - 1].seq : 0;
}

static int cmp_key(const struct ms_wss *w, size_t a, __u64 cgroup, int node)
{
	const struct ms_wss_lruvec *l = &w->lv[a];

	if (l->cgroup != cgroup)
		return l->cgroup < cgroup ? -1 : 1;
	return l->node < node ? -1 : l->node > node;
}

static const struct ms_wss *sort_w;
static int cmp_index(const void *a, const void *b)
{
	size_t j = *(const size_t *)b;

	return cmp_key(sort_w, *(const size_t *)a, sort_w->lv[j].cgroup, sort_w->lv[j].node);
}

/*
 * Each lruvec's memcg to the records' cgroup id, by its path among the cgroups. The root's
 * needs none: its pages carry its cgroup id (kernfs gives the root 1) or no memcg (0), and both
 * are counted as 0.
 */
static int map_cgroups(struct ms_wss *w, const struct ms_mglru *m)
{
	struct ms_cgroups cg = {};
	bool have = !ms_cgroups_load(&cg), below_root = false;
	__u64 first = m->n ? m->v[0].memcg_id : 0;

	w->one_memcg = true;
	w->root_cgroup = 1;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].memcg_id != first)
			w->one_memcg = false;
	for (size_t i = 0; i < w->nlv; i++) {
		const struct ms_mglru_lruvec *v = ms_mglru_find(m, w->lv[i].memcg_id, w->lv[i].node);

		if (w->one_memcg || (v && (!strcmp(v->path, "/") || !v->path[0]))) {
			w->lv[i].known = true;	/* the root (or memcg off: the only one) */
			continue;
		}
		below_root = true;
		for (size_t c = 0; have && v && c < cg.n; c++) {
			if (strcmp(cg.c[c].path, v->path))
				continue;
			w->lv[i].cgroup = cg.c[c].id;
			w->lv[i].known = true;
			break;
		}
	}
	for (size_t c = 0; have && c < cg.n; c++)
		if (!cg.c[c].depth)
			w->root_cgroup = cg.c[c].id;
	if (have)
		ms_cgroups_free(&cg);
	else if (below_root && !w->said_no_hierarchy++)	/* once, not each window */
		ms_err("--wss: no memory cgroup hierarchy is mounted, so the lruvecs of cgroups below "
		       "the root cannot be matched to pages: their pages are untracked "
		       "(\"unattributed\")");
	return ms_wss_index(w);
}

int ms_wss_index(struct ms_wss *w)
{
	free(w->by_key);
	w->nkey = 0;
	w->last_lv = -1;
	w->by_key = calloc(w->nlv ? w->nlv : 1, sizeof(*w->by_key));
	if (!w->by_key)
		return -ENOMEM;
	for (size_t i = 0; i < w->nlv; i++)
		if (w->lv[i].known)
			w->by_key[w->nkey++] = i;
	sort_w = w;
	qsort(w->by_key, w->nkey, sizeof(*w->by_key), cmp_index);
	return 0;
}

/* Age every lruvec of w once, at its youngest generation in m. 0, or -errno of the first refusal
 * that is not the lruvec's going away or the kernel's aging it at the same time. */
static int age_one(struct ms_wss_lruvec *l, const struct ms_mglru *m)
{
	const struct ms_mglru_lruvec *v = ms_mglru_find(m, l->memcg_id, l->node);
	int err;

	if (!v)
		return 0;	/* its memcg is gone */
	l->pre_seq = max_seq(v);
	err = ms_mglru_age(MS_MGLRU_CTL, v->memcg_id, v->node, max_seq(v));
	l->age_err = err;
	return err == -EEXIST || err == -ENOENT || err == -EINVAL ? 0 : err;
}

static int age_all(struct ms_wss *w, const struct ms_mglru *m, double *ms)
{
	double t0 = ms_now_ms();

	for (size_t i = 0; i < w->nlv; i++) {
		int err = age_one(&w->lv[i], m);

		if (err)
			return err;
	}
	*ms = ms_now_ms() - t0;
	return 0;
}

static int node_of(struct ms_wss *w, __u64 pfn);
static struct ms_wss_lruvec *lruvec_of(struct ms_wss *w, __u64 cgroup, int node);

static int read_gens(struct ms_mglru *m, char *why, size_t whylen)
{
	int err = ms_mglru_read(MS_MGLRU_FULL, m);

	if (err)
		snprintf(why, whylen, "%s: %s", MS_MGLRU_FULL, err == -EINVAL ?
			 "not in the format of lru_gen_full" : strerror(-err));
	return err;
}

bool ms_wss_first_sight_kernel(const char *release)
{
	unsigned int major = 0, minor = 0;

	if (!release || sscanf(release, "%u.%u", &major, &minor) != 2)
		return true;	/* unknown: the later kernels' rule, which tells less */
	return major > 6 || (major == 6 && minor >= 14);
}

/* each type's oldest generation (the first not marked gone) and whether it has 4 */
static void oldest(const struct ms_mglru_lruvec *v, __u64 min[2], bool full[2])
{
	for (int t = 0; t < 2; t++) {
		min[t] = max_seq(v);
		for (int g = v->ngens - 1; g >= 0; g--)
			if (!(t ? v->gen[g].file_gone : v->gen[g].anon_gone))
				min[t] = v->gen[g].seq;
		full[t] = max_seq(v) - min[t] + 1 >= MS_MGLRU_GENS;
	}
}

/* the folio's list type: anon (0) or file (1), as folio_is_file_lru() */
static int lru_type(const struct ms_wss *w, const struct ms_page_rec *r)
{
	if (w->pg_swapbacked != MS_NO_BIT)
		return !((r->head_flags >> w->pg_swapbacked) & 1);
	return ms_subs[r->sub].cls != MS_C_ANON && ms_subs[r->sub].cls != MS_C_SHMEM;
}

/* a tracked folio's generation value (1..4), or 0 when it is on no MGLRU list */
static unsigned int gen_of(const struct ms_wss *w, const struct ms_page_rec *r)
{
	unsigned int v = (unsigned int)(r->head_flags >> w->gen_lo) & 7;

	if (v > MS_MGLRU_GENS || !((r->head_flags >> w->pg_lru) & 1) ||
	    ((r->head_flags >> w->pg_unevictable) & 1))
		return 0;
	return v;
}

/* the sequence number of generation value v (1..4) among the last 4 up to end */
static __u64 seq_of(__u64 end, unsigned int v)
{
	return end - ((end - (v - 1)) % MS_MGLRU_GENS);
}

int ms_wss_before_page(void *arg, __u64 pfn, const struct ms_page_rec *r)
{
	struct ms_wss *w = arg;
	struct ms_wss_lruvec *l;
	unsigned int v, state, sub = r->sub;
	bool referenced;
	int t;

	if (!r->valid || sub >= MS_NR_SUBS || !ms_wss_class_tracked(ms_subs[sub].cls))
		return 0;
	referenced = (r->head_flags >> w->pg_referenced) & 1;
	v = gen_of(w, r);
	l = v ? lruvec_of(w, r->cgroup, node_of(w, pfn)) : NULL;
	if (!l || !l->known) {
		/*
		 * On no MGLRU list yet (a per-CPU batch of folios to add, isolated) or of no
		 * known lruvec: its flag all the same, or one set before the window would count
		 * as an access once the folio is on a list (6.1, a file read just before).
		 */
		if (!referenced)
			return 0;	/* MS_WSS_B_NONE, as calloc() left it */
		state = MS_WSS_B_REF;
	} else {
		t = lru_type(w, r);
		if (l->full_start[t] && seq_of(l->start_seq, v) == l->min_start[t])
			state = MS_WSS_B_OLDEST;
		else
			state = referenced ? MS_WSS_B_REF : MS_WSS_B_UNREF;
	}
	ms_wss_map_set(w, pfn, state);
	return 0;
}

/* the lruvecs of m as w's, each mapped to its cgroup (their agings' state: none yet) */
static int load_lruvecs(struct ms_wss *w, const struct ms_mglru *m)
{
	free(w->lv);
	w->nlv = 0;
	w->lv = calloc(m->n ? m->n : 1, sizeof(*w->lv));
	if (!w->lv)
		return -ENOMEM;
	w->nlv = m->n;
	for (size_t i = 0; i < m->n; i++) {
		w->lv[i].memcg_id = m->v[i].memcg_id;
		w->lv[i].node = m->v[i].node;
	}
	return map_cgroups(w, m);
}

/*
 * After the window's opening aging: each lruvec's generations now, then a record walk keeps
 * each page's PG_referenced and whether it is in a generation the next aging merges.
 */
static int record_start(struct ms_wss *w, struct ms_backend *be, const struct ms_ranges *ranges,
			char *why, size_t whylen)
{
	struct ms_mglru m1;
	struct ms_result *res;
	int err;

	if (read_gens(&m1, why, whylen))
		return -1;
	for (size_t i = 0; i < w->nlv; i++) {
		struct ms_wss_lruvec *l = &w->lv[i];
		const struct ms_mglru_lruvec *v = ms_mglru_find(&m1, l->memcg_id, l->node);

		if (v && v->ngens) {
			l->start_seq = max_seq(v);
			oldest(v, l->min_start, l->full_start);
			l->not_aged = l->start_seq <= l->pre_seq;
		} else {
			l->known = false;	/* gone in the meantime */
		}
	}
	ms_mglru_free(&m1);
	err = ms_wss_index(w);	/* the lruvecs gone are looked up no more */
	res = err ? NULL : calloc(1, sizeof(*res));
	if (!res) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	memset(w->before, 0, w->nbefore);
	err = ms_backend_pages(be, ranges, res, ms_wss_before_page, w);
	free(res);
	if (err) {
		snprintf(why, whylen, "the record walk after the first aging failed (exit %d)", err);
		return -1;
	}
	return 0;
}

int ms_wss_start(struct ms_wss *w, double window_s, int gen_lo, const char *release,
		 struct ms_backend *be, const struct ms_ranges *ranges, char *why, size_t whylen)
{
	struct ms_mglru m0;
	struct ms_attr_facts f;
	int err;

	ms_wss_clear(w, MS_WSS_MGLRU, window_s);
	w->gen_lo = gen_lo;
	w->first_sight = ms_wss_first_sight_kernel(release);
	if (ms_attr_facts_load(&f) || f.pg_lru == MS_NO_BIT || f.pg_unevictable == MS_NO_BIT ||
	    f.pg_referenced == MS_NO_BIT) {
		snprintf(why, whylen, "the kernel's BTF names no PG_lru, PG_unevictable or "
			 "PG_referenced");
		return -1;
	}
	w->pg_lru = f.pg_lru;
	w->pg_unevictable = f.pg_unevictable;
	w->pg_referenced = f.pg_referenced;
	w->pg_swapbacked = f.pg_swapbacked;
	err = ms_zones_read("/proc/zoneinfo", &w->zones, &w->nzones);
	if (!err)
		err = ms_wss_alloc_before(w, ranges);
	if (err) {
		snprintf(why, whylen, "%s", err == -ENOMEM ? "out of memory" :
			 "/proc/zoneinfo cannot be read");
		return -1;
	}
	if (read_gens(&m0, why, whylen))
		return -1;
	err = load_lruvecs(w, &m0);
	if (!err)
		err = age_all(w, &m0, &w->aging_ms[0]);
	ms_mglru_free(&m0);
	if (err) {
		snprintf(why, whylen, "%s: %s", err == -ENOMEM ? "out of memory" : MS_MGLRU_CTL,
			 strerror(-err));
		return -1;
	}
	w->started_ms = ms_now_ms();
	ms_wss_paging_begin(w);
	return record_start(w, be, ranges, why, whylen);
}

/* the lruvec of memcg_id on node among n of lv, or NULL */
static const struct ms_wss_lruvec *old_lruvec(const struct ms_wss_lruvec *lv, size_t n,
					      __u64 memcg_id, int node)
{
	for (size_t i = 0; i < n; i++)
		if (lv[i].memcg_id == memcg_id && lv[i].node == node)
			return &lv[i];
	return NULL;
}

int ms_wss_next(struct ms_wss *w, struct ms_backend *be, const struct ms_ranges *ranges,
		char *why, size_t whylen)
{
	struct ms_wss_lruvec *prev = w->lv;
	size_t nprev = w->nlv;
	struct ms_mglru m0;
	double t0;
	int err;

	if (w->mech == MS_WSS_IDLE_BITMAP)
		return ms_wss_idle_next(w, why, whylen);
	if (w->mech == MS_WSS_DAMON) {	/* its kdamond runs on: this window starts at the last's end */
		ms_wss_damon_roll(w);
		return 0;
	}
	ms_wss_reset_counts(w);
	w->aging_ms[0] = w->aging_ms[1];
	w->started_ms = w->ended_ms;
	ms_wss_paging_roll(w);
	if (read_gens(&m0, why, whylen))
		return -1;
	w->lv = NULL;	/* load_lruvecs() makes it anew: prev is the last window's */
	err = load_lruvecs(w, &m0);
	t0 = ms_now_ms();
	for (size_t i = 0; !err && i < w->nlv; i++) {
		struct ms_wss_lruvec *l = &w->lv[i];
		const struct ms_wss_lruvec *p = old_lruvec(prev, nprev, l->memcg_id, l->node);

		if (p && p->known && !p->not_aged) {
			/* the last window's closing aging opened this one */
			l->pre_seq = p->pre_seq;
			l->age_err = p->age_err;
			continue;
		}
		/* a memcg made during the last window (or not aged then): its own opening */
		err = age_one(l, &m0);
	}
	w->aging_ms[0] += ms_now_ms() - t0;
	ms_mglru_free(&m0);
	free(prev);
	if (err) {
		snprintf(why, whylen, "%s: %s", err == -ENOMEM ? "out of memory" : MS_MGLRU_CTL,
			 strerror(-err));
		return -1;
	}
	return record_start(w, be, ranges, why, whylen);
}

void ms_wss_wait(const struct ms_wss *w)
{
	double left = w->started_ms + w->window_s * 1000.0 - ms_now_ms();
	struct timespec ts;

	while (left > 0) {
		ts.tv_sec = (time_t)(left / 1000.0);
		ts.tv_nsec = (long)((left - (double)ts.tv_sec * 1000.0) * 1e6);
		nanosleep(&ts, NULL);	/* a handled signal: sleep what is left */
		left = w->started_ms + w->window_s * 1000.0 - ms_now_ms();
	}
}

int ms_wss_end(struct ms_wss *w, char *why, size_t whylen)
{
	struct ms_mglru m2, m3;
	int err;

	if (w->mech == MS_WSS_IDLE_BITMAP)
		return ms_wss_idle_end(w, why, whylen);
	if (w->mech == MS_WSS_DAMON)
		return ms_wss_damon_close(w, why, whylen);
	w->measured_s = (ms_now_ms() - w->started_ms) / 1000.0;
	ms_wss_paging_end(w);
	if (read_gens(&m2, why, whylen))
		return -1;
	err = age_all(w, &m2, &w->aging_ms[1]);
	w->ended_ms = ms_now_ms();
	ms_mglru_free(&m2);
	if (err) {
		snprintf(why, whylen, "%s: %s", MS_MGLRU_CTL, strerror(-err));
		return -1;
	}
	if (read_gens(&m3, why, whylen))
		return -1;
	for (size_t i = 0; i < w->nlv; i++) {
		struct ms_wss_lruvec *l = &w->lv[i];
		const struct ms_mglru_lruvec *v = ms_mglru_find(&m3, l->memcg_id, l->node);

		if (!v || !v->ngens) {
			l->known = false;
			continue;
		}
		bool full[2];

		l->end_seq = max_seq(v);
		l->not_aged |= l->end_seq <= l->pre_seq;
		for (int g = 0; g < v->ngens; g++)
			l->age_ms[v->gen[g].seq % MS_MGLRU_GENS] = v->gen[g].age_ms;
		oldest(v, l->min_end, full);
		l->min_seq = l->min_end[0] < l->min_end[1] ? l->min_end[0] : l->min_end[1];
		/* the window's generation is the oldest of a type: older pages merged into it */
		l->aged_by_kernel = l->min_end[0] >= l->start_seq || l->min_end[1] >= l->start_seq ||
				    l->end_seq < l->start_seq;
	}
	ms_mglru_free(&m3);
	for (size_t i = 0; i < w->nlv; i++)
		if (w->lv[i].known && w->lv[i].not_aged)
			ms_err("--wss: memcg %llu on node %d was not aged (%s): its pages are untracked",
			       (unsigned long long)w->lv[i].memcg_id, w->lv[i].node,
			       w->lv[i].age_err ? strerror(-w->lv[i].age_err) :
			       "its youngest generation stayed the same");
	return 0;
}

static int node_of(struct ms_wss *w, __u64 pfn)
{
	const struct ms_zone *z;

	if (w->last_zone < w->nzones) {
		z = &w->zones[w->last_zone];
		if (pfn >= z->start && pfn < z->end)
			return z->node;
	}
	for (size_t i = 0; i < w->nzones; i++) {
		z = &w->zones[i];
		if (pfn >= z->start && pfn < z->end) {
			w->last_zone = i;
			return z->node;
		}
	}
	return -1;
}

/* the lruvec of a folio of memcg cgroup on node, or NULL */
static struct ms_wss_lruvec *lruvec_of(struct ms_wss *w, __u64 cgroup, int node)
{
	size_t lo = 0, hi = w->nkey;

	if (w->one_memcg || cgroup == w->root_cgroup)
		cgroup = 0;
	if (w->last_lv >= 0 && w->last_cgroup == cgroup && w->last_node == node)
		return &w->lv[w->last_lv];
	while (lo < hi) {	/* a new memcg or node: the run of its pages starts */
		size_t mid = (lo + hi) / 2;
		int c = cmp_key(w, w->by_key[mid], cgroup, node);

		if (!c) {
			w->last_cgroup = cgroup;
			w->last_node = node;
			w->last_lv = (long)w->by_key[mid];
			return &w->lv[w->last_lv];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* the page's verdict (w->verdict, w->verdict_cls) and its counts */
static int judge(struct ms_wss *w, __u64 pfn, const struct ms_page_rec *r)
{
	struct ms_wss_lruvec *l;
	unsigned int v, sub = r->sub, before;
	bool referenced;
	__u64 seq;
	int t;

	w->verdict = MS_WSS_NONE;
	if (w->mech == MS_WSS_DAMON)	/* totals only: no page's verdict */
		return 0;
	if (!r->valid || sub >= MS_NR_SUBS || !ms_wss_class_tracked(ms_subs[sub].cls))
		return 0;
	w->verdict_cls = (int)ms_subs[sub].cls;
	w->verdict = MS_WSS_UNTRACKED;	/* until told otherwise below */
	if (w->mech == MS_WSS_IDLE_BITMAP) {
		ms_wss_idle_page(w, pfn, r);
		return 0;
	}
	v = gen_of(w, r);
	if (!v) {
		w->untracked[sub]++;	/* on no MGLRU list: unevictable, isolated */
		return 0;
	}
	l = lruvec_of(w, r->cgroup, node_of(w, pfn));
	if (!l || !l->known || l->aged_by_kernel || l->not_aged) {
		if (!l || !l->known)
			w->unattributed++;
		else if (l->not_aged)
			w->not_aged++;
		else
			w->kernel_aged++;
		w->untracked[sub]++;
		return 0;
	}
	seq = seq_of(l->end_seq, v);
	before = ms_wss_map_get(w, pfn);	/* MS_WSS_B_NONE where none */
	referenced = (r->head_flags >> w->pg_referenced) & 1;
	t = lru_type(w, r);
	if (seq >= l->start_seq) {
		w->accessed[sub]++;	/* promoted by the second aging, or faulted in */
		w->verdict = MS_WSS_ACCESSED;
	} else if (referenced && before != MS_WSS_B_REF) {
		w->accessed[sub]++;	/* first seen by the second aging, or read() */
		w->referenced[sub]++;
		w->verdict = MS_WSS_ACCESSED;
	} else if (w->first_sight && l->full_start[t] &&
		   (before == MS_WSS_B_OLDEST ||
		    (before == MS_WSS_B_NONE && seq == l->min_end[t]))) {
		w->unseen[sub]++;	/* merged by the second aging: an access was erased */
		w->verdict = MS_WSS_UNSEEN;
	} else {
		__u64 k = l->start_seq - 1 - seq;

		w->idle[sub]++;
		w->verdict = MS_WSS_IDLE;
		if (k < MS_WSS_AGES) {
			w->idle_age[k][sub]++;
			l->used[k] = true;
		}
	}
	return 0;
}

int ms_wss_page(void *arg, __u64 pfn, const struct ms_page_rec *r)
{
	struct ms_wss *w = arg;
	int ret = judge(w, pfn, r);

	if (w->keep_verdicts)
		ms_wss_keep_verdict(w, pfn);
	return ret;
}

bool ms_wss_age_range(const struct ms_wss *w, int k, double *min_s, double *max_s)
{
	bool any = false;

	*min_s = 0;
	*max_s = 0;
	for (size_t i = 0; i < w->nlv; i++) {
		const struct ms_wss_lruvec *l = &w->lv[i];
		__u64 seq = l->start_seq - 1 - (__u64)k;
		double lo, hi;

		if (!l->known || l->aged_by_kernel || !l->used[k])
			continue;
		/* idle since the birth of the generation after its own, at most since its own */
		lo = (double)l->age_ms[(seq + 1) % MS_MGLRU_GENS] / 1000.0;
		hi = seq <= l->min_seq ? -1 : (double)l->age_ms[seq % MS_MGLRU_GENS] / 1000.0;
		if (!any || lo < *min_s)
			*min_s = lo;
		if (!any || (*max_s >= 0 && (hi < 0 || hi > *max_s)))
			*max_s = hi;
		any = true;
	}
	return any;
}

void ms_wss_free(struct ms_wss *w)
{
	free(w->before);
	free(w->range_base);
	w->before = NULL;
	w->range_base = NULL;
	free(w->lv);
	free(w->by_key);
	free(w->zones);
	free(w->cg_start);
	free(w->cg_end);
	free(w->idle_words);
	free(w->idle_base);
	w->idle_words = NULL;
	w->idle_base = NULL;
	w->cg_start = w->cg_end = NULL;
	w->lv = NULL;
	w->by_key = NULL;
	w->zones = NULL;
	if (w->mech == MS_WSS_DAMON)
		ms_wss_damon_stop();	/* sampling's kdamond, on every way out */
	ms_wss_damon_free(w);
}

int ms_wss_open(struct ms_wss *w, double window_s, const char *release, struct ms_backend *be,
		const struct ms_ranges *ranges, char *why, size_t whylen)
{
	char err[768], none[1100];
	int gen, mech = ms_wss_mechanism(none, sizeof(none));

	if (mech == MS_WSS_DAMON)	/* sampling: its kdamond runs until ms_wss_free() */
		return ms_wss_damon_open(w, window_s, release, ranges, w->sleep_until, why, whylen);
	if (mech == MS_WSS_IDLE_BITMAP) {
		const struct ms_features *feat = ms_backend_features(be);
		struct ms_attr_facts f;
		/* PG_lru from BTF, else from the backend (the module knows it without BTF) */
		unsigned int lru = !ms_attr_facts_load(&f) && f.pg_lru != MS_NO_BIT ? f.pg_lru :
				   feat ? feat->pg_lru : MS_NO_BIT;

		if (!ms_wss_idle_start(w, window_s, ranges, lru, err, sizeof(err)))
			return MS_EXIT_OK;
		snprintf(why, whylen, "--wss: %s", err);
		return MS_EXIT_FAIL;
	}
	gen = ms_mglru_locate(be, ranges, err, sizeof(err));
	if (gen < 0) {
		snprintf(why, whylen, "--wss: where each folio's MGLRU generation sits is unknown: %s",
			 err);
		return MS_EXIT_UNSUPPORTED;
	}
	if (!ms_wss_start(w, window_s, gen, release, be, ranges, err, sizeof(err)))
		return MS_EXIT_OK;
	snprintf(why, whylen, "--wss: %s", err);
	return MS_EXIT_FAIL;
}

int ms_wss_window(struct ms_wss *w, double window_s, const char *release, struct ms_backend *be,
		  const struct ms_ranges *ranges, char *why, size_t whylen)
{
	char err[512];
	int ret;

	if (ms_wss_mechanism(err, sizeof(err)) == MS_WSS_DAMON)
		return ms_wss_damon_window(w, window_s, release, ranges, why, whylen);
	ret = ms_wss_open(w, window_s, release, be, ranges, why, whylen);
	if (ret)
		return ret;
	ms_wss_wait(w);
	if (!ms_wss_end(w, err, sizeof(err)))
		return MS_EXIT_OK;
	snprintf(why, whylen, "--wss: %s", err);
	return MS_EXIT_FAIL;
}

int ms_wss_parse_seconds(const char *arg, double *secs)
{
	char *end;

	errno = 0;
	*secs = strtod(arg, &end);
	return errno || end == arg || *end || !(*secs >= 1) || *secs > 86400 ? -1 : 0;
}
