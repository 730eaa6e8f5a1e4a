// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat: where every page of physical memory went, in the layout of Solaris ::memstat.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>

#include "memstat_int.h"
#include "report.h"
#include "sample.h"
#include "approx.h"
#include "groups.h"
#include "mglru_bits.h"
#include "backend.h"
#include "mountinfo.h"
#include "vmcore.h"
#include "meminfo.h"
#include "testhooks.h"
#include "attrs.h"
#include "wss.h"
#include "picture.h"
#include "files.h"
#include "options.h"
#include "procs.h"
#include "slabs.h"
#include "procs_out.h"

static int run_write_errno;	/* why print_run() stopped the walk */
static bool runs_slab_split;	/* print_run(): the walk tells reclaimable slab apart */

static int print_run(void *arg, __u64 pfn, __u64 npages, enum ms_sub sub)
{
	(void)arg;
	if (printf("%#llx %llu %s %s\n", (unsigned long long)pfn, (unsigned long long)npages,
		   ms_classes[ms_subs[sub].cls].key, ms_sub_key(sub, runs_slab_split)) < 0) {
		run_write_errno = errno;
		return -1;
	}
	return 0;
}

static void print_features(const struct ms_features *f, const char *uninit_test)
{
	static const char *schemes[] = { "?", "inverted bits (<= 6.10)", "inverted enum (6.11)",
					 "upper byte (>= 6.12)" };
	static const char *types[MS_NR_PTYPES] = { "none", "buddy", "offline", "table", "guard",
						   "hugetlb", "slab", "zsmalloc", "unaccepted",
						   "large_kmalloc", "unknown" };
	int i;

	printf("struct page size:    %u\n", f->page_size);
	printf("page type encoding:  %s\n", schemes[f->type_scheme < 4 ? f->type_scheme : 0]);
	printf("page types:         ");
	for (i = MS_T_BUDDY; i < MS_T_UNKNOWN; i++)
		if (f->ptype[i])
			printf(" %s=%#x", types[i], f->ptype[i]);
	printf("\n");
#define PGB(name, v) printf("%-21s%s\n", name ":", (v) == MS_NO_BIT ? "absent" : \
			    (snprintf(bit, sizeof(bit), "bit %u", (v)), bit))
	{
		char bit[16];

		PGB("PG_head", f->pg_head);
		PGB("PG_reserved", f->pg_reserved);
		PGB("PG_swapbacked", f->pg_swapbacked);
		PGB("PG_owner_priv_1", f->pg_swapcache);
		PGB("PG_lru", f->pg_lru);
		PGB("PG_slab", f->pg_slab);
		PGB("PG_hugetlb", f->pg_hugetlb);
		PGB("PG_movable_ops", f->pg_movable_ops);
	}
#undef PGB
	printf("folio order in:      %s\n", f->has_dtor ? "page[1].compound_order (<= 6.5)" :
	       "page[1].flags & 0xff (>= 6.6)");
	printf("hugetlb marker:      %s\n", f->has_dtor ? "compound_dtor" :
	       f->pg_hugetlb != MS_NO_BIT ? "PG_hugetlb in page[1]" : "page type");
	printf("movable_ops marker:  %s\n", f->movable_flag ? "page flag (>= 6.17)" :
	       "mapping & 3 == 2 (<= 6.16)");
	printf("user folio memcg:    %s\n", f->memcg_kind == MS_MEMCG_DIRECT ? "mem_cgroup pointer (<= 6.18)" :
	       f->memcg_kind == MS_MEMCG_OBJCG ? "obj_cgroup pointer (7.x)" :
	       f->memcg_kind == MS_MEMCG_PER_POINTER ? "told per pointer (kernel module)" :
	       "unknown (allpages prints cgroup 0)");
	printf("uninitialised test:  %s\n", uninit_test);
	/* the address itself would reveal the KASLR offset: say only that it was found */
	printf("vmemmap base:        %s\n", f->vmemmap_base ? "located (1 GiB aligned)" : "unknown");
}

/* memstat allpages ...: privileges and present memory first, like the summary. */
static int allpages(int argc, char **argv)
{
	struct ms_ranges ranges = {};
	int ret;

	signal(SIGPIPE, SIG_IGN);	/* allpages | head: EPIPE is a normal end */
	for (int i = 1; i < argc; i++)	/* help, or a dump: no present memory of this machine */
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ||
		    !strcmp(argv[i], "--core") || !strncmp(argv[i], "--core=", 7))
			return ms_allpages_main(argc, argv, &ranges);
	ret = ms_present_memory(&ranges);
	if (ret)
		return ret;
	ret = ms_allpages_main(argc, argv, &ranges);
	ms_ranges_free(&ranges);
	return ret;
}

/*
 * MEMSTAT_MEMINFO (test builds only, ms_meminfo_path()) is read instead of /proc/meminfo by
 * --reconcile and by the unaccepted-memory correction of kernels before 6.12 (walk_once()). Not
 * for users: the walk still reads the running kernel.
 */
/* --reconcile's reading of /proc/meminfo; a failure is said on stderr and in the JSON */
static int read_meminfo(struct ms_meminfo *mi)
{
	double t0 = ms_now_ms();
	int err = ms_meminfo_read(ms_meminfo_path(), mi);
	char why[512];

	ms_timings.meminfo += ms_now_ms() - t0;

	if (!err)
		return 0;
	snprintf(why, sizeof(why), "failed to read %s: %s", ms_meminfo_path(), strerror(-err));
	ms_err("%s", why);
	ms_fail_json(why);
	return -1;
}

/* --approx without --seed: a seed below 2^32 (short to print, exact in any JSON reader) */
static __u64 random_seed(void)
{
	unsigned int v;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (unsigned int)(ms_now_ms() * 1000) ^ (unsigned int)getpid();
	return v;
}

/* One walk with whichever backend this run uses: the sampler calls it once per sample. */
struct walker {
	struct ms_backend be;
	const struct ms_ranges *ranges;
	ms_run_fn fn;
	void *fn_arg;
	struct ms_groups *groups[MS_NR_BY];	/* --by (each key): the record walk fills them */
	size_t ngroups;
	struct ms_attrs *attrs;		/* -a, -v: the record walk counts them */
	struct ms_procs *procs;		/* --by process or command: read after each walk */
	struct ms_wss *wss;		/* --wss: the record walk after the window's end */
	double wss_s;			/* --wss in sampling: each walk's window first */
	const char *release;		/* uname -r, for the window's rules */
	bool wss_open;			/* a window was opened: the next opens where it closes */
	bool approx;		/* --approx: a sample of clusters, the next seed each walk */
	double fraction;
	__u64 seed;
};

/* The backend asked for (backend.c); a failure is said on stderr and in the JSON. */
static int open_backend(enum ms_backend_choice c, unsigned int bpf_flags, bool kpf_ok,
			struct walker *w, char *fallback, size_t flen)
{
	char why[512] = "";
	int ret = ms_backend_open(c, bpf_flags, kpf_ok, &w->be, why, sizeof(why), fallback, flen);

	if (ret) {
		if (!kpf_ok)	/* --by, -a: no fallback to /proc/kpageflags, say why */
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 " (--by and -a need the bpf or kmod backend)");
		ms_err("%s", why);
		ms_fail_json(why);
	}
	return ret;
}

/*
 * The ms_page_fn of the record walk: each page to the attributes and the groups asked for, in
 * this order: the attributes judge a folio when its next page comes (ms_groups_folio_attrs() puts
 * the verdict in the group the groups were last given, the folio's)
 */
static int record_page(void *arg, __u64 pfn, const struct ms_page_rec *r)
{
	struct walker *w = arg;
	int ret = w->attrs ? ms_attrs_page(w->attrs, pfn, r) : 0;

	if (!ret && w->wss)
		ret = ms_wss_page(w->wss, pfn, r);
	if (!ret && w->procs && r->valid)	/* --by process --wss: the runs from the records */
		ret = ms_procs_run(w->procs, pfn, 1, (enum ms_sub)r->sub);
	for (size_t k = 0; !ret && k < w->ngroups; k++) {
		ret = ms_groups_page(w->groups[k], pfn, r);
		if (w->wss)	/* --by --wss: the page's verdict to its group */
			ms_groups_wss(w->groups[k], w->wss->verdict, w->wss->verdict_cls);
	}
	return ret;
}

/* --by KEY... -a: a folio's attributes to each key's group of it */
static void folio_attrs(void *arg, __u64 first_pfn, __u64 npages, __u32 mask, __u8 sub)
{
	struct walker *w = arg;

	for (size_t k = 0; k < w->ngroups; k++)
		ms_groups_folio_attrs(w->groups[k], first_pfn, npages, mask, sub);
}

static int walk_backend(struct walker *w, struct ms_result *res)
{
	const struct ms_features *f;
	int ret;

	if (w->ngroups || w->attrs || w->wss) {
		/*
		 * --by, -a, --wss: the per-page record walk (serial: one worker, --jobs does not apply).
		 * No unaccepted-memory correction from meminfo (< 6.12): the groups are made of
		 * records, and must add up to the walk's total.
		 */
		for (size_t k = 0; k < w->ngroups; k++)
			if (ms_groups_reset(w->groups[k]))
				ms_err("failed to read /proc/zoneinfo: pages go to (none)");
		if (w->attrs)
			ms_attrs_reset(w->attrs);
		ret = ms_backend_pages(&w->be, w->ranges, res, record_page, w);
		if (w->attrs)
			ms_attrs_finish(w->attrs);
		for (size_t k = 0; !ret && k < w->ngroups; k++)
			ret = ms_groups_finish(w->groups[k], res);
		return ret;
	}
	if (w->approx) {
		struct ms_approx_plan plan;
		int err = ms_approx_choose(w->ranges, w->fraction, w->seed++, &plan);

		if (err) {
			ms_err("failed to choose the sample: %s", strerror(-err));
			return MS_EXIT_FAIL;
		}
		ret = ms_bpf_approx_walk(w->be.bpf, &plan, res, NULL, w->fn, NULL);
		ms_approx_plan_free(&plan);
		return ret;
	}
	f = ms_backend_features(&w->be);
	ret = ms_backend_walk(&w->be, w->ranges, res, w->fn, w->fn_arg);
	/* < 6.12: unaccepted blocks carry no type (meminfo.c ms_unaccepted_from_meminfo()) */
	if (!ret && f && !f->ptype[MS_T_UNACCEPTED]) {
		struct ms_meminfo mi;
		double t0 = ms_now_ms();
		int err = ms_meminfo_read(ms_meminfo_path(), &mi);

		ms_timings.meminfo += ms_now_ms() - t0;
		if (!err)
			ms_unaccepted_from_meminfo(res, f, &mi, sysconf(_SC_PAGESIZE) / 1024);
	}
	return ret;
}

/*
 * --wss in sampling: the window before each walk. The first opens with an aging of its own;
 * each later one opens where the last closed, so the windows tile the time. A stop signal during
 * the wait ends it with MS_SAMPLE_STOPPED: nothing is left to undo, and no sample is written of a
 * window cut short.
 */
static int wss_sample_window(struct walker *w)
{
	char why[1024];
	const char *prefix = "";	/* ms_wss_open() says "--wss: ", next and end do not */
	int ret = MS_EXIT_OK;

	if (!w->wss_open) {
		ret = ms_wss_open(w->wss, w->wss_s, w->release, &w->be, w->ranges, why, sizeof(why));
		w->wss_open = !ret;
	} else if (ms_wss_next(w->wss, &w->be, w->ranges, why, sizeof(why))) {
		prefix = "--wss: ";
		ret = MS_EXIT_FAIL;
	}
	if (!ret && !ms_sample_sleep_until(w->wss->started_ms + w->wss_s * 1000.0))
		return MS_SAMPLE_STOPPED;
	if (!ret && ms_wss_end(w->wss, why, sizeof(why))) {
		prefix = "--wss: ";
		ret = MS_EXIT_FAIL;
	}
	if (ret && w->wss->damon_stopped)	/* DAMON's wait ended by a stop: not an error */
		return MS_SAMPLE_STOPPED;
	if (ret)
		ms_err("%s%s", prefix, why);
	return ret;
}

static int walk_once(void *arg, struct ms_result *res)
{
	struct walker *w = arg;
	long long moved, after;
	int ret, err;

	if (w->wss_s && (ret = wss_sample_window(w)))
		return ret;
	if (w->procs)
		ms_procs_reset(w->procs);	/* the runs of this walk, then its processes */
	moved = ms_pages_moved();
	ret = walk_backend(w, res);
	after = ms_pages_moved();
	res->moved_pages = moved >= 0 && after >= moved ? after - moved : -1;
	if (!ret && w->procs) {
		double t0 = ms_now_ms();

		err = ms_procs_read(w->procs, w->ranges, NULL, NULL,
				    ms_test_hook(MS_TEST_KPAGECOUNT));
		w->procs->read_ms = ms_now_ms() - t0;
		if (err) {
			ms_err("failed to read the processes' page tables: %s", strerror(-err));
			ret = MS_EXIT_FAIL;
		}
	}
	if (!ret && w->be.bpf)	/* while its maps are mapped, as the walk saw them */
		ms_bpf_own_maps(res);
	return ret;
}

/*
 * --wss: the window (ms_wss_window()); the walk that follows counts each page (ms_wss_page()).
 * Nothing is left to undo: each aging is done when its write returns, and a signal that ends
 * memstat between them leaves the kernel's generations as its own aging would.
 */
static int wss_window(const struct ms_opts *o, const char *release, struct walker *walker,
		      struct ms_wss *w)
{
	char why[1024];
	int ret = ms_wss_window(w, o->wss, release, &walker->be, walker->ranges, why, sizeof(why));

	walker->wss = w;
	if (ret) {
		ms_err("%s", why);
		ms_fail_json(why);
	}
	return ret;
}

/* The verbs: `memstat VERB ARGS...` runs VERB's main with VERB as its argv[0]. */
static const struct verb {
	const char *name;
	int (*main)(int argc, char **argv);
} verbs[] = {
	{ "allpages", allpages },	/* above: present memory first, then allpages.c */
	{ "diff", ms_diff_main },	/* diff.c */
	{ "map", ms_map_main },		/* map.c */
	{ "plot", ms_plot_main },	/* plot.c */
	{ "rmss", ms_rmss_main },	/* rmss.c */
};

int main(int argc, char **argv)
{
	double t0 = ms_now_ms();
	struct ms_report_opts ro = {};
	struct ms_ranges ranges = {};
	struct ms_result res = {};
	struct ms_meminfo mi = {}, mi_before = {};
	struct ms_recon rc = {};
	struct ms_attrs *attrs = NULL;
	struct ms_procs procs = {};
	struct ms_compare_in cmp = {};
	struct ms_slab_totals slabs;
	struct ms_wss wss = {};
	/* -v of a one-shot table: each class's DMA-pinned pages, where a backend has records */
	bool want_attrs;
	struct ms_bpf *bpf = NULL;
	struct walker walker;
	struct utsname uts;
	char why[512] = "", fallback[600] = "", mglru_why[768] = "";
	bool mglru_features;
	const char *cap;
	struct ms_opts o;
	int ret, err;

	for (size_t v = 0; argc > 1 && v < sizeof(verbs) / sizeof(verbs[0]); v++)
		if (!strcmp(argv[1], verbs[v].name))
			return verbs[v].main(argc - 1, argv + 1);
	ret = ms_parse_args(argc, argv, &o);
	if (ret)
		return ret;
	/* a reader that goes away (memstat ... | head) is a normal end: see EPIPE below */
	signal(SIGPIPE, SIG_IGN);
	ms_json_errors = o.json;
	uname(&uts);
	ro.kernel = uts.release;
	ro.verbose = o.verbose;
	ro.timings = &ms_timings;	/* JSON and JSON lines: where the time went */
	if (o.core)	/* a dump: nothing of the running kernel is walked (vmcore.c) */
		return ms_core_main(&o, t0, print_run, &runs_slab_split);

	cap = ms_missing_capability();
	if (cap) {
		snprintf(why, sizeof(why), "missing capability %s (needed to read page frame "
			 "numbers and /proc/kpageflags); run as root", cap);
		ms_err("%s", why);
		ms_fail_json(why);
		return MS_EXIT_PERM;
	}
	ms_timings.ranges = ms_now_ms();
	err = ms_ranges_from_iomem("/proc/iomem", &ranges);
	ms_timings.ranges = ms_now_ms() - ms_timings.ranges;
	if (err) {
		snprintf(why, sizeof(why), "failed to read present memory from /proc/iomem: %s",
			 strerror(-err));
		ms_err("%s", why);
		ms_fail_json(why);
		return err == -EPERM ? MS_EXIT_PERM : MS_EXIT_FAIL;
	}

	/* --wss: a mechanism, or exit 5 naming what each lacks, before anything is opened; DAMON
	 * gives totals of a window, the machine's, its largest memory cgroups' (--by cgroup) or
	 * its nodes' (--by node): not of other groups or processes */
	if (o.wss) {
		int mech = ms_wss_mechanism(why, sizeof(why));
		bool by_damon = o.nby == 1 && ((o.bys[0] == MS_BY_CGROUP && !o.tree) ||
						o.bys[0] == MS_BY_NODE);
		bool totals_only = mech == MS_WSS_DAMON && ((o.nby && !by_damon) || o.by_process);

		if (totals_only)
			snprintf(why, sizeof(why), "--wss: %s", MS_WSS_DAMON_TOTALS);
		if (mech < 0 || totals_only) {
			ms_err("%s", why);
			ms_fail_json(why);
			ms_ranges_free(&ranges);
			return MS_EXIT_UNSUPPORTED;
		}
	}
	if (o.sampling)
		ms_sample_signals();	/* before the slow part: a SIGHUP then does not kill us */
	memset(&walker, 0, sizeof(walker));
	want_attrs = o.attributes || (o.verbose && !o.sampling && !o.json && !o.runs &&
				      !o.features && !o.approx && !o.by_process &&
				      o.backend != MS_BE_KPF);
	/* --features: a record walk only where it can find the MGLRU generation's bits */
	mglru_features = o.features && !ms_mglru_ready(NULL, mglru_why, sizeof(mglru_why));
	/* the workers' states are made at open: as many as this run's walks may use (one for a
	 * record walk, --by and -a, and for --approx) */
	ret = open_backend(o.backend, (o.sampling ? 0 : MS_BPF_ONE_WALK) |
			   MS_BPF_WORKERS(o.by >= 0 || want_attrs || o.approx || o.wss ? 1 :
					  o.jobs ? o.jobs : ms_jobs_auto(&ranges)) |
			   (o.by >= 0 || want_attrs || mglru_features || o.wss ?
			    MS_BPF_ALLPAGES : 0) |
			   (ms_opts_by(&o, MS_BY_FILE) || ms_opts_by(&o, MS_BY_EXEC) ? MS_BPF_PATHS : 0) |
			   (ms_opts_by(&o, MS_BY_SLAB) ? MS_BPF_SLABS : 0),
			   o.by < 0 && !o.attributes && !o.wss, &walker, fallback,
			   sizeof(fallback));
	if (ret)
		goto out;
	if (fallback[0])
		ro.fallback_reason = fallback;
	bpf = walker.be.bpf;
	if (!o.jobs)
		o.jobs = ms_jobs_auto(&ranges);
	ms_backend_set_jobs(&walker.be, o.jobs);
	if (o.features) {
		if (!ms_backend_features(&walker.be)) {
			ms_err("--features needs the bpf or kmod backend");
			ret = MS_EXIT_FAIL;
			goto out;
		}
		print_features(ms_backend_features(&walker.be),
			       bpf ? (ms_bpf_has_cast(bpf) ? "3 words per page via bpf_rdonly_cast "
				      "(>= 6.2)" : "64-byte copies") : "kernel module");
		/* the BPF task iterator sees only this PID namespace's tasks (docs/backends.md) */
		printf("exec mappings from:  %s\n", !bpf ? "every process (kernel module)" :
		       ms_pid_ns_initial() ? "every process (initial PID namespace)" :
		       "this PID namespace's processes only: libraries mapped only outside it "
		       "count as page cache (--backend kmod sees every process)");
		{
			int gen = mglru_features ? ms_mglru_locate(&walker.be, &ranges, mglru_why,
								    sizeof(mglru_why)) : -1;

			if (gen >= 0)
				printf("MGLRU generation:    flags bits %d-%d (the kernel's count of "
				       "each generation's pages agrees)\n", gen, gen + 2);
			else
				printf("MGLRU generation:    unknown: %s\n", mglru_why);
		}
		{	/* --wss's mechanism, or why there is none */
			char wwhy[1100];
			int m = ms_wss_mechanism_reasons(wwhy, sizeof(wwhy));

			printf("--wss mechanism:     %s\n", m == MS_WSS_MGLRU ? "MGLRU aging" :
			       m == MS_WSS_IDLE_BITMAP ? "the idle page bitmap (MGLRU is off)" :
			       m == MS_WSS_DAMON ? "DAMON, totals of anonymous and file-backed "
			       "memory (no MGLRU aging, no idle page bitmap)" : wwhy);
		}
		ret = MS_EXIT_OK;
		goto out;
	}
	walker.ranges = &ranges;
	walker.fn = o.runs ? print_run : NULL;
	if (o.by_process) {	/* the walk's runs class each page the processes map */
		walker.fn = ms_procs_run;
		walker.fn_arg = &procs;
		walker.procs = &procs;
		ro.procs = &procs;
		procs.top = o.top ? o.top : 20;
		procs.by_command = o.by_command;
		procs.min_pages = o.min_set ? (double)o.min_bytes / (double)sysconf(_SC_PAGESIZE) :
			0;
		if (o.wss) {	/* each mapped page's verdict, kept by the walk after the window */
			wss.keep_verdicts = true;
			procs.verdict = ms_wss_verdict_at;
			procs.verdict_arg = &wss;
		}
	}
	runs_slab_split = ms_backend_features(&walker.be) &&
			  ms_backend_features(&walker.be)->slab_cache_word;
	for (size_t k = 0; k < o.nby; k++) {
		enum ms_by by = (enum ms_by)o.bys[k];
		struct ms_groups *g;

		/* serve: no --top is each key's default, or 50: a bounded number of series */
		g = ms_groups_new(by, o.top ? o.top : o.serve && !ms_by_keys[by].default_top ? 50 : 0);
		if (!g) {
			ms_err("out of memory");
			ret = MS_EXIT_FAIL;
			goto out;
		}
		walker.groups[walker.ngroups++] = g;
		ms_groups_set_tree(g, o.tree && by == MS_BY_CGROUP);
		ms_groups_set_min(g, o.min_set,
				  (o.min_bytes + (__u64)sysconf(_SC_PAGESIZE) - 1) /
				  (__u64)sysconf(_SC_PAGESIZE));
		if (o.nbundle_dirs)
			ms_groups_set_bundle_dirs(g, o.bundle_dirs, o.nbundle_dirs);
		if ((by == MS_BY_CGROUP || by == MS_BY_POD) &&
		    (ret = ms_cgroups_knowable(ms_backend_features(&walker.be), why, sizeof(why)))) {
			ms_err("--by %s: %s", ms_by_keys[by].key_name, why);
			goto out;
		}
		if (by == MS_BY_SLAB && !bpf) {
			ms_err("--by slab needs the bpf backend: the kernel module's records hold no "
			       "pointer to a slab's cache");
			ret = MS_EXIT_UNSUPPORTED;
			goto out;
		}
		ms_groups_set_slab_word(g, ms_backend_features(&walker.be) ?
					ms_backend_features(&walker.be)->slab_cache_word : 0);
	}
	if (walker.ngroups) {
		ro.groups = walker.groups;
		ro.ngroups = walker.ngroups;
		ms_files_backend(&walker.be);	/* file, exec: the path program's backend */
		ms_slabs_backend(&walker.be);	/* slab: the cache-name program's */
	}
	if (want_attrs && walker.be.ops->pages) {
		attrs = ms_attrs_new();
		if (!attrs) {
			ms_err("out of memory");
			ret = MS_EXIT_FAIL;
			goto out;
		}
		if (ms_attrs_load_facts(attrs))
			ms_err("kernel BTF has no enum pageflags: the attributes of page flags are "
			       "unknown");
		walker.attrs = attrs;
		ro.attrs = attrs;
		if (walker.ngroups && o.attributes) {	/* --by -a: each group's attributes */
			for (size_t k = 0; k < walker.ngroups; k++)
				ms_groups_set_attrs(walker.groups[k], attrs);
			ms_attrs_on_folio(attrs, folio_attrs, &walker);
		}
		/* the module blanks the pointer words of its records, and the first tail page's
		 * _pincount shares such a word: it keeps the folio's counters when asked */
		if (walker.be.kmod)
			ms_kmod_set_folio_counters(walker.be.kmod, true);
	}
	if (o.approx) {
		if (!bpf) {	/* cannot be: ms_parse_args() asks for bpf */
			ms_err("--approx needs the bpf backend");
			ms_fail_json("--approx needs the bpf backend");
			ret = MS_EXIT_FAIL;
			goto out;
		}
		walker.approx = true;
		walker.fraction = o.approx_fraction;
		walker.seed = o.seed_given ? o.seed : random_seed();
	}
	/* --by cgroup or pod --wss: each cgroup's paging in the window too (its memory.stat; a
	 * pod's row is its container's cgroup, or the pod's own) */
	wss.cgroup_paging = o.wss && (ms_opts_by(&o, MS_BY_CGROUP) || ms_opts_by(&o, MS_BY_POD));
	/* DAMON's schemes of each cgroup, or kdamonds of each node */
	wss.damon_by = !o.wss ? MS_WSS_DAMON_BY_NONE : ms_opts_by(&o, MS_BY_CGROUP) ?
		       MS_WSS_DAMON_BY_CGROUP : ms_opts_by(&o, MS_BY_NODE) ? MS_WSS_DAMON_BY_NODE :
		       MS_WSS_DAMON_BY_NONE;
	if (o.wss && o.sampling) {	/* each sample's walk runs its window first */
		wss.sleep_until = ms_sample_sleep_until;	/* DAMON's waits end at a stop */
		walker.wss = &wss;
		walker.wss_s = o.wss;
		walker.release = uts.release;
		o.so.paced_by_walk = true;
		ro.wss = &wss;
		for (size_t k = 0; k < walker.ngroups; k++)
			ms_groups_set_wss(walker.groups[k], &wss);
	} else if (o.wss) {
		ret = wss_window(&o, uts.release, &walker, &wss);
		if (ret)
			goto out;
		ro.wss = &wss;
		for (size_t k = 0; k < walker.ngroups; k++)
			ms_groups_set_wss(walker.groups[k], &wss);
	}
	if (o.sampling) {
		struct ms_sink sink = { .fmt = (enum ms_format)o.format, .path = o.output,
					.fsync = o.fsync,
					.rotate_incompatible = o.rotate_incompatible,
					.approx = o.approx, .attrs = o.attributes,
					.wss = o.wss > 0,
					.serve_listen = o.serve ? o.listen : NULL };

		ret = ms_sink_open(&sink, why, sizeof(why));
		if (ret) {
			ms_err("%s", why);
			ms_fail_json(why);
			goto out;
		}
		ms_clear_last_error();
		ret = ms_sample_loop(&o.so, &sink, walk_once, &walker, &ro);
		ms_sink_close(&sink);
		if (ret)
			ms_fail_json(ms_last_error()[0] ? ms_last_error() : "sampling failed");
		goto out;
	}
	/* --reconcile: /proc/meminfo just before and just after the walk (pages move meanwhile) */
	if (o.reconcile && read_meminfo(&mi_before)) {
		ret = MS_EXIT_FAIL;
		goto out;
	}
	ms_clear_last_error();
	ret = walk_once(&walker, &res);
	if ((o.reconcile || o.compare) && !ret && read_meminfo(&mi)) {
		ret = MS_EXIT_FAIL;
		goto out;
	}
	/* --compare slabtop: /proc/slabinfo just after the walk (unreadable: the rows say so) */
	cmp.tool = (enum ms_compare_tool)o.compare;
	cmp.mi = &mi;
	if (o.compare == MS_CMP_SLABTOP && !ret && !ms_slabinfo_totals("/proc/slabinfo", &slabs))
		cmp.slabs = &slabs;
	if (o.runs && (run_write_errno || (!ret && fflush(stdout)))) {
		int err = run_write_errno ? run_write_errno : errno;

		/* memstat --runs | head: the reader going away is a normal end */
		ret = err == EPIPE ? MS_EXIT_OK : MS_EXIT_FAIL;
		if (ret)
			ms_err("failed to write output: %s", strerror(err));
		goto out;
	}
	if (ret) {
		/* the reason the backend gave on stderr */
		ms_fail_json(ms_last_error()[0] ? ms_last_error() : "the page walk failed");
		goto out;
	}
	if (o.runs)
		goto out;
	ro.elapsed_ms = ms_now_ms() - t0;
	if (o.reconcile) {
		ms_reconcile_between(&res, &mi_before, &mi, sysconf(_SC_PAGESIZE) / 1024, &rc);
		if (o.attributes && ms_attrs_valid(attrs)) {
			ms_attrs_reconcile(attrs, &mi_before, &mi, sysconf(_SC_PAGESIZE) / 1024, &rc);
			rc.attrs = attrs;
		}
	}
	if (o.by_process) {
		if (o.json)
			ms_procs_json(stdout, &procs, &res, o.wss ? &wss : NULL);
		else {
			ms_procs_print(stdout, &procs);
			ms_print_moved(stdout, &res);
			if (o.wss) {
				fputc('\n', stdout);
				ms_wss_print(stdout, &wss, o.verbose);
			}
		}
	} else if (walker.ngroups) {	/* one key: several only with -f prom (options.c) */
		if (o.json)
			ms_groups_json(stdout, walker.groups[0], &res);
		else {
			ms_groups_print(stdout, walker.groups[0]);
			ms_print_moved(stdout, &res);
			if (o.wss) {
				fputc('\n', stdout);
				ms_wss_print(stdout, &wss, o.verbose);
			}
		}
	} else if (o.json) {
		ro.compare = o.compare ? &cmp : NULL;
		ms_print_json(stdout, &res, &ro, o.reconcile ? &rc : NULL);
	} else {
		ms_print_summary(stdout, &res, &ro);
		if (o.wss) {
			fputc('\n', stdout);
			ms_wss_print(stdout, &wss, o.verbose);
		}
		if (o.attributes && attrs) {
			fputc('\n', stdout);
			ms_attrs_print(stdout, attrs);
		}
		if (o.reconcile) {
			fputc('\n', stdout);
			ms_print_reconcile(stdout, &rc, &mi, &res);
		}
		if (o.compare) {
			fputc('\n', stdout);
			ms_compare_print(stdout, &res, &cmp);
		}
	}
	if (fflush(stdout)) {
		ret = errno == EPIPE ? MS_EXIT_OK : MS_EXIT_FAIL;
		if (ret)
			ms_err("failed to write output: %s", strerror(errno));
		goto out;
	}
	ret = o.reconcile && !rc.all_ok ? MS_EXIT_MISMATCH : MS_EXIT_OK;
out:
	ms_wss_free(&wss);
	ms_attrs_free(attrs);
	for (size_t k = 0; k < walker.ngroups; k++)
		ms_groups_free(walker.groups[k]);
	ms_procs_free(&procs);
	ms_backend_close(&walker.be);
	ms_ranges_free(&ranges);
	return ret;
}
