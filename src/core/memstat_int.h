/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Internal interfaces of the memstat command. */
#ifndef MEMSTAT_INT_H
#define MEMSTAT_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "memstat.h"
#include "mountinfo.h"

/* Exit codes (docs/output-formats.md "Exit codes"). */
enum {
	MS_EXIT_OK = 0,
	MS_EXIT_FAIL = 1,	/* a run-time failure: reading the kernel's data failed */
	MS_EXIT_USAGE = 2,	/* bad command line */
	MS_EXIT_MISMATCH = 3,	/* --reconcile: a reconcilable row is off by more than 0.5% */
	MS_EXIT_PERM = 4,	/* a required privilege is missing */
	MS_EXIT_UNSUPPORTED = 5,/* the kernel's layout is not one memstat knows */
};

/* "format_version" of the JSON output and JSON-lines logs (docs/output-formats.md): bumped when a key
 * changes meaning or disappears. */
#define MS_FORMAT_VERSION 1

/* One row of the summary: a sub-class, its class and its names. */
struct ms_sub_info {
	enum ms_class cls;
	const char *key;	/* JSON key under "detail" */
	const char *label;	/* -v sub-row label */
};
extern const struct ms_sub_info ms_subs[MS_NR_SUBS];

struct ms_class_info {
	const char *key;	/* JSON key under "pages" */
	const char *label;	/* summary row */
};
extern const struct ms_class_info ms_classes[MS_NR_CLASSES];

/* Present physical memory as pfn ranges [start, end). */
struct ms_range {
	__u64 start, end;
};
struct ms_ranges {
	struct ms_range *r;
	size_t n;
	__u64 pages;
};
int ms_ranges_from_iomem(const char *path, struct ms_ranges *out);
/* The System RAM ranges of an iomem file alone, offline blocks not removed. */
int ms_ranges_parse_iomem(const char *path, struct ms_ranges *out);
int ms_ranges_drop_offline(struct ms_ranges *r, const char *sysdir);
void ms_ranges_free(struct ms_ranges *r);

/* A zone of /proc/zoneinfo: pfns [start, end) of node's zone name. */
struct ms_zone {
	int node;
	char name[16];
	__u64 start, end;
};
int ms_zones_read(const char *path, struct ms_zone **out, size_t *n);

/* --approx (approx.c): what a sampled walk estimated, and how well; on is false for an exact walk. */
struct ms_approx_info {
	bool on;
	double fraction;		/* the fraction of clusters asked for */
	__u64 seed;			/* the seed of this sample's choice of clusters */
	__u32 cluster_pages;		/* pages per cluster (MS_APPROX_CLUSTER_PAGES) */
	__u64 strata, clusters, clusters_sampled, pages_sampled;
	/*
	 * the error at MS_APPROX_CONFIDENCE, in pages, rounded up (ms_approx_error():
	 * MS_APPROX_BOUND_SE standard errors and the detection limit in quadrature)
	 */
	__u64 err_sub[MS_NR_SUBS];
	__u64 err_class[MS_NR_CLASSES];
	__u64 err_holes, err_total;
	__u64 err_freelist;		/* the summary's Free (freelist): buddy, per-cpu, unaccepted */
	__u64 floor_pages;		/* the detection limit, the least error (ms_approx_floor()) */
};

/* The result of one walk. */
struct ms_result {
	const char *backend;		/* "bpf" or "kpageflags" */
	__u64 sub[MS_NR_SUBS];
	__u64 total;			/* pages classified (= sum of sub[]) */
	__u64 holes;			/* present pages whose struct page could not be read */
	bool exec_known;		/* false: the backend cannot tell exec from page cache */
	bool uninit_known;		/* false: the backend cannot see uninitialised pages */
	bool exec_all_processes;	/* the exec set saw every process (false: a PID namespace's) */
	bool unaccepted_from_meminfo;	/* free_unaccepted is meminfo's Unaccepted (< 6.12) */
	bool slab_split;		/* the walker read every slab's cache flags: reclaimable
					 * slab is kernel_slab_reclaimable, the rest kernel_slab */
	__u64 exec_mappings;		/* VM_EXEC file mappings seen (bpf) */
	__u64 mapping_lookups;		/* mapping facts read from the kernel (bpf) */
	__u64 reads;			/* bulk reads of struct pages (bpf) or preads (kpageflags) */
	double walk_ms;			/* the page walk alone */
	__u64 cached_pages;		/* counted from the previous walk: still uninitialised */
	unsigned int jobs;		/* workers that walked (1: a serial walk) */
	long long moved_pages;		/* pages the kernel moved while the walk ran (-1 unknown):
					 * any count may be off by up to that many */
	__u64 own_maps_pages;		/* memstat's own BPF maps mapped into it (ms_bpf_own_maps()) */
	__u64 own_maps_mapped;		/* of which in its page tables: kernel_user_mapped; the rest
					 * kernel_other */
	bool own_maps_known;		/* own_maps_mapped could be read */
	struct ms_approx_info approx;	/* --approx: the estimate's error (approx.on) */
};

__u64 ms_class_pages(const struct ms_result *r, enum ms_class c);
/* the sub-class shown at position pos (0 .. MS_NR_SUBS - 1) of the summary's rows */
int ms_sub_display(int pos);

/*
 * Parallel walks (-j/--jobs). Present memory is cut into at most `jobs` chunks of whole
 * memory sections, balanced by pages, each walked by its own worker with its own state.
 * 0 asks for ms_jobs_auto().
 */
#define MS_JOBS_MAX 256
/*
 * memstat's own memory stays under 64 MiB whatever the CPU count or --jobs: each BPF worker has its
 * own copy of the walk program's state (about 2.5 MiB, bpf/memstat.bpf.c), and the workers' copies
 * together get at most MS_WORKERS_MEM; the rest of memstat holds about 14 MiB.
 */
#define MS_WORKERS_MEM (48ULL << 20)
/*
 * The CPUs, but no more than one worker per MS_SECTIONS_PER_JOB present sections; for a single
 * walk (once: a one-shot run) one per MS_SECTIONS_PER_JOB_ONCE, since each extra worker's
 * program costs a verification (about 20 ms) that its share of one walk must repay.
 */
#define MS_SECTIONS_PER_JOB 16
#define MS_SECTIONS_PER_JOB_ONCE 128
unsigned int ms_jobs_auto(const struct ms_ranges *r, bool once);
/*
 * Cut r into at most jobs chunks (chunks[] has room for jobs), in pfn order: returns how many
 * (0: out of memory). Each chunk owns its array: free each with ms_ranges_free().
 */
size_t ms_split_chunks(const struct ms_ranges *r, unsigned int jobs, struct ms_ranges *chunks);
/*
 * A worker of a parallel walk: ms_worker_start() runs fn(w) in a thread of its own, or here and
 * now when no thread can be had (*tid is then 0); ms_worker_join() waits for it.
 */
void ms_worker_start(pthread_t *tid, void *(*fn)(void *), void *w);
void ms_worker_join(pthread_t *tid);
/* Add a worker's counts (sub-classes, holes, reads, mapping lookups) to the walk's. */
void ms_result_add(struct ms_result *sum, const struct ms_result *part);

/* Where a run spent its time, in ms (JSON "timings"; docs/output-formats.md names each). */
struct ms_timings {
	double ranges;		/* /proc/iomem and the offline blocks of /sys/devices/system/memory */
	double bpf_open;	/* parse the embedded BPF object */
	double bpf_load;	/* vmlinux BTF, CO-RE relocation, verification of the programs */
	double detect;		/* layout detection and locating vmemmap */
	double kmod_open;	/* open /dev/memstat and read its features */
	double exec_set;	/* collect the exec mappings (bpf) */
	double workers_load;	/* load the extra workers' walk programs (first walk only) */
	double walk;		/* the page walk (= walk_ms) */
	double meminfo;		/* read /proc/meminfo (--reconcile, unaccepted memory) */
};
extern struct ms_timings ms_timings;

/* Called with runs of equal sub-class, in pfn order, when a caller asks for them. */
typedef int (*ms_run_fn)(void *arg, __u64 pfn, __u64 npages, enum ms_sub sub);

/* Runs of one sub-class, merged across walker calls before they reach the caller. */
struct ms_run_merger {
	ms_run_fn fn;
	void *arg;
	__u64 pfn, npages;
	enum ms_sub sub;
};
int ms_merge_run(struct ms_run_merger *m, __u64 pfn, __u64 npages, enum ms_sub sub);
int ms_merge_flush(struct ms_run_merger *m);

/* Called for every page of an allpages walk, in pfn order. */
typedef int (*ms_page_fn)(void *arg, __u64 pfn, const struct ms_page_rec *rec);

/* BPF backend. */
struct ms_bpf;
#define MS_BPF_ALLPAGES 0x1	/* set up the per-page records of ms_bpf_dump() */
#define MS_BPF_ONE_WALK 0x2	/* one walk: no periodic section cache (get_deferred unloaded) */
/* Returns an MS_EXIT_* code; on failure *why says what failed, in one line. */
int ms_bpf_open(struct ms_bpf **out, unsigned int flags, char *why, size_t whylen);
int ms_bpf_dump(struct ms_bpf *b, const struct ms_ranges *ranges, struct ms_result *res,
		ms_page_fn fn, void *arg);
int ms_bpf_walk(struct ms_bpf *b, const struct ms_ranges *ranges, struct ms_result *res,
		ms_run_fn fn, void *arg);
const struct ms_features *ms_bpf_features(const struct ms_bpf *b);
/* memstat's own mapped BPF maps: res->own_maps_* */
void ms_bpf_own_maps(struct ms_result *res);
/* Workers of the following walks: 0 (the default) ms_jobs_auto(), 1 a serial walk. */
void ms_bpf_set_jobs(struct ms_bpf *b, unsigned int jobs);
/* Reuse the counts of still-uninitialised sections between walks (default on). */
void ms_bpf_set_cache(struct ms_bpf *b, bool on);
/* true when the walker tests uninitialised batches with bpf_rdonly_cast (v6.2+) */
bool ms_bpf_has_cast(const struct ms_bpf *b);
void ms_bpf_free(struct ms_bpf *b);

/*
 * --approx (approx.c): a stratified random sample of clusters of struct pages, and the
 * estimate of every class with its error. The comment at the top of approx.c says how.
 */
#define MS_APPROX_CLUSTER_PAGES		256	/* pages per cluster, aligned */
#define MS_APPROX_MIN_PER_STRATUM	4	/* sampled clusters a whole stratum gets at least */
#define MS_APPROX_BOUND_SE		3	/* the stated error: this many standard errors, */
#define MS_APPROX_CONFIDENCE		0.99	/* and the detection limit, hold this often */
#define MS_APPROX_DEFAULT_FRACTION	0.015625	/* --approx without =FRACTION: 1/64 */
#define MS_APPROX_MIN_FRACTION		0.001
#define MS_APPROX_NCAT			(MS_NR_SUBS + 1)	/* per cluster: the subs, then holes */
#define MS_APPROX_MISS_P		0.003	/* the detection limit: the chance a class is missed */
struct ms_approx_cluster {
	__u64 start, end;	/* pfns [start, end), within one present range */
	__u32 stratum;		/* index into strata */
};
struct ms_approx_stratum {
	__u64 pages;		/* M_h: present pages */
	__u32 nclusters;	/* N_h */
	__u32 nsampled;		/* n_h */
	size_t first;		/* its first sampled cluster in ms_approx_plan.c */
};
struct ms_approx_plan {
	double fraction;
	__u64 seed;
	__u64 sections_per_stratum;
	struct ms_approx_stratum *strata;
	size_t nstrata;
	struct ms_approx_cluster *c;	/* the sampled clusters, in pfn order */
	size_t nclusters;
	__u64 clusters_total, pages, pages_sampled;
};
int ms_approx_choose(const struct ms_ranges *ranges, double fraction, __u64 seed,
		   struct ms_approx_plan *p);
void ms_approx_plan_free(struct ms_approx_plan *p);
/* n_h: the clusters sampled of a stratum of nclusters */
__u32 ms_approx_sample_size(__u32 nclusters, double fraction);
/* y: MS_APPROX_NCAT counts per sampled cluster (the sub-classes, then the holes) */
void ms_approx_estimate(const struct ms_approx_plan *p, const __u64 *y, struct ms_result *res);
/* one category's estimate and variance from y[k * stride], k over the sampled clusters */
void ms_approx_category(const struct ms_approx_plan *p, const __u64 *y, size_t stride,
			double *est, double *var);
/* the least error of any class: the detection limit of the sample (approx.c) */
__u64 ms_approx_floor(const struct ms_approx_plan *p);
/* the stated error of a category of variance var, at MS_APPROX_CONFIDENCE (approx.c) */
__u64 ms_approx_error(double var, __u64 floor_pages);
/* the FRACTION of --approx[=FRACTION] (NULL: the default); -EINVAL when it is not one */
int ms_approx_parse_fraction(const char *arg, double *out);
/*
 * Walk the plan's clusters (bpf_backend.c) and estimate from them: res as ms_bpf_walk() fills
 * it, with res->approx. With fn, the runs of the sampled clusters, in pfn order. y, when not
 * NULL, receives the per-cluster counts (MS_APPROX_NCAT each; plan->nclusters rows).
 */
int ms_bpf_approx_walk(struct ms_bpf *b, const struct ms_approx_plan *plan, struct ms_result *res,
		       __u64 *y, ms_run_fn fn, void *arg);

/* Kernel module backend (kmod/memstat.ko, /dev/memstat). */
struct ms_kmod;
int ms_kmod_open(struct ms_kmod **out, char *why, size_t whylen);
int ms_kmod_walk(struct ms_kmod *k, const struct ms_ranges *ranges, struct ms_result *res,
		 ms_run_fn run_fn, ms_page_fn page_fn, void *arg);
const struct ms_features *ms_kmod_features(const struct ms_kmod *k);
void ms_kmod_set_raw_pointers(struct ms_kmod *k, bool raw);
/* -a: the records keep a large folio's counters (its first tail page's), not its pointers */
void ms_kmod_set_folio_counters(struct ms_kmod *k, bool on);
/* Workers (a file descriptor each) of the following counting walks: as ms_bpf_set_jobs() */
void ms_kmod_set_jobs(struct ms_kmod *k, unsigned int jobs);
void ms_kmod_free(struct ms_kmod *k);

/* The backend asked for with --backend. */
enum ms_backend_choice { MS_BE_AUTO, MS_BE_BPF, MS_BE_KMOD, MS_BE_KPF };
/*
 * The backend opened: what every caller asks of it goes through its ops (backend.c), whichever
 * it is. bpf and kmod are that backend's own state, for what only it can do (the bpf backend's
 * --approx walk and file names, the module's pointer words); neither is set for kpageflags.
 */
struct ms_backend;
struct ms_backend_ops {
	const char *name;	/* as --backend names it */
	/* the counting walk: res, and fn(arg, ...) for every run of one sub-class (fn NULL: none) */
	int (*walk)(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		    ms_run_fn fn, void *arg);
	/* the record walk (ms_backend_pages()); NULL: the backend has no records */
	int (*pages)(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		     ms_page_fn fn, void *arg);
	/* the kernel layout it found; NULL: it reads none (kpageflags) */
	const struct ms_features *(*features)(const struct ms_backend *be);
	/* workers of the following counting walks (0: ms_jobs_auto()) */
	void (*set_jobs)(struct ms_backend *be, unsigned int jobs);
	void (*close)(struct ms_backend *be);
};
struct ms_backend {
	const struct ms_backend_ops *ops;	/* NULL until opened */
	struct ms_bpf *bpf;
	struct ms_kmod *kmod;
	unsigned int jobs;			/* kpageflags: its readers */
};
int ms_backend_parse(const char *name, enum ms_backend_choice *out);
int ms_backend_open(enum ms_backend_choice c, unsigned int bpf_flags, bool kpf_ok,
		    struct ms_backend *be, char *why, size_t whylen, char *fallback, size_t flen);
void ms_backend_close(struct ms_backend *be);
/* be->ops->walk(); on failure the reason was printed (MS_EXIT_*) */
int ms_backend_walk(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		    ms_run_fn fn, void *arg);
/* the layout the backend found, NULL for kpageflags */
const struct ms_features *ms_backend_features(const struct ms_backend *be);
void ms_backend_set_jobs(struct ms_backend *be, unsigned int jobs);
/*
 * Every present page's record (struct ms_page_rec), in pfn order, from the open bpf (opened
 * with MS_BPF_ALLPAGES) or kmod backend; -EOPNOTSUPP with neither (kpageflags). backend.c.
 */
int ms_backend_pages(struct ms_backend *be, const struct ms_ranges *r, struct ms_result *res,
		     ms_page_fn fn, void *arg);

/*
 * memstat --by KEY (groups.c; its header comment says how a key plugs in): each page of the
 * record walk (ms_backend_pages()) goes to one group of KEY.
 */
enum ms_by { MS_BY_CGROUP, MS_BY_NODE, MS_BY_ZONE, MS_BY_FS, MS_BY_FILE, MS_BY_EXEC, MS_NR_BY };
struct ms_group {
	__u64 k1, k2;		/* the key: node: node; zone: index into zones; fs: s_dev;
				 * cgroup: id; file, exec: s_dev, inode; ~0, ~0: "(none)" */
	__u64 sub[MS_NR_SUBS];	/* pages per sub-class */
	__u64 total;
	__u64 pinned;		/* -a: pages DMA-pinned (ms_groups_pinned()) */
	__u64 mapping;		/* file, exec: a head page's mapping pointer: NEVER printed */
	char *name;		/* the rows shown, after ms_groups_finish() (malloc'd) */
	void *extra;		/* a key's own facts (malloc'd, freed by the engine) */
};
struct ms_groups;
struct ms_by_key {
	const char *key_name;	/* the KEY of --by */
	size_t default_top;	/* --top's default; 0: all groups */
	bool (*key)(struct ms_groups *g, __u64 pfn, const struct ms_page_rec *r, __u64 *k1,
		    __u64 *k2);	/* false: the page has no key ("(none)") */
	int (*name)(struct ms_groups *g, struct ms_group *grp);	/* sets grp->name */
	void (*json)(FILE *out, const struct ms_groups *g, const struct ms_group *grp);
	void (*cols_head)(FILE *out);	/* extra table columns, or NULL */
	void (*cols)(FILE *out, const struct ms_groups *g, const struct ms_group *grp);
};
extern const struct ms_by_key ms_by_keys[MS_NR_BY];
struct ms_groups {
	enum ms_by by;
	const struct ms_by_key *key;
	size_t top;			/* rows shown besides "(none)"; 0: all */
	struct ms_group *g;		/* the groups, in order of first page */
	size_t n, cap;
	__u32 *slots;			/* open addressing: index + 1 into g, 0 empty */
	size_t nslots;
	size_t last;			/* index + 1 of the previous page's group */
	__u64 last_k1, last_k2;
	__u64 total;			/* pages put in groups */
	size_t *order, nshown;		/* after finish: the rows shown, sorted by total */
	struct ms_group other;		/* after finish: the rest, summed */
	size_t nother;
	const struct ms_result *res;
	struct ms_zone *zones;		/* node, zone: /proc/zoneinfo */
	size_t nzones, zi;
	struct ms_mountinfo mounts;	/* fs: /proc/self/mountinfo (mountinfo.h) */
	const char *mountinfo_path;	/* NULL: /proc/self/mountinfo (the unit tests give another) */
	bool tree;			/* cgroup --tree: each row shows its subtree's pages */
	bool pinned;			/* -a: a Pinned column (ms_groups_pinned() fills it) */
	struct ms_cgroups *cgroups;	/* cgroup: the memory hierarchy (cgroup.c), read at finish */
};
int ms_by_parse(const char *s, enum ms_by *out);
struct ms_groups *ms_groups_new(enum ms_by by, size_t top);
int ms_groups_reset(struct ms_groups *g);
int ms_groups_page(void *arg, __u64 pfn, const struct ms_page_rec *r);	/* an ms_page_fn */
/*
 * -a: the attributes' verdict on a folio whose pages the groups were last given (an on_folio of
 * struct ms_attrs: the attributes must see each page before the groups do, so that a folio's
 * verdict comes while the groups' last group is still the folio's)
 */
void ms_groups_pinned(void *arg, __u64 first_pfn, __u64 npages, __u32 mask, __u8 sub);
int ms_groups_finish(struct ms_groups *g, const struct ms_result *res);	/* MS_EXIT_* */
void ms_groups_print(FILE *out, const struct ms_groups *g);
void ms_groups_json(FILE *out, const struct ms_groups *g, const struct ms_result *r);
/* "by":...,"groups":[...],"other":{...} without braces, for a JSON-lines row */
void ms_groups_json_fields(FILE *out, const struct ms_groups *g);
void ms_groups_prom(FILE *out, const struct ms_groups *g);
void ms_groups_free(struct ms_groups *g);

/* /proc/kpageflags backend. */
int ms_kpf_walk(const char *path, const struct ms_ranges *ranges, struct ms_result *res,
		ms_run_fn fn, void *arg, char *why, size_t whylen);
/* The same with up to jobs readers in parallel (0: ms_jobs_auto()); ms_kpf_walk() is one. */
int ms_kpf_walk_jobs(const char *path, const struct ms_ranges *ranges, struct ms_result *res,
		     ms_run_fn fn, void *arg, unsigned int jobs, char *why, size_t whylen);
/* Classify one /proc/kpageflags word; prev is the sub-class of the last head (for tails). */
enum ms_sub ms_kpf_classify(__u64 kpf, enum ms_sub prev_head);

/* /proc/meminfo, in kB; -1 when a field is absent. */
struct ms_meminfo {
	long long mem_total, mem_free, buffers, cached, swap_cached, anon_pages, shmem, slab,
		page_tables, hugetlb, hugepages_total, hugepagesize, unaccepted, vmalloc_used,
		percpu, kernel_stack, zswap, s_reclaimable, s_unreclaim, swap_total;
	/* the rows of memstat -a --reconcile (attrs.c) */
	long long dirty, writeback, mlocked, unevictable, active_anon, inactive_anon,
		active_file, inactive_file, anon_huge, shmem_huge, file_huge;
};
int ms_meminfo_read(const char *path, struct ms_meminfo *mi);
/* The whole of a small /proc or sysfs file, NUL-terminated (at most len - 1 bytes): 0, -errno. */
int ms_read_text(const char *path, char *buf, size_t len);
/* In "key value" lines (/proc/vmstat, memory.stat, memory.events): key's value, or -1. */
long long ms_kv_get(const char *text, const char *key);
/* The same of a whole file (at most 64 KiB: memory.stat, memory.events): its value, or -1. */
long long ms_kv_file(const char *path, const char *key);
/* Pages the kernel has moved so far (migrated, or copied into a collapsed THP), -1 unknown. */
long long ms_pages_moved(void);
/* Unaccepted memory on a kernel without the page type (< 6.12), from meminfo (meminfo.c). */
void ms_unaccepted_from_meminfo(struct ms_result *r, const struct ms_features *f,
				const struct ms_meminfo *mi, long page_kb);

/* Reconciliation of the walk with /proc/meminfo. */
struct ms_recon_row {
	const char *name;	/* what the walk counted */
	const char *field;	/* the meminfo counter(s) it should match */
	__u64 walk;		/* pages */
	long long before, after;	/* the counter read just before and after the walk, pages;
					 * -1 when absent */
	long long meminfo;	/* the value between before and after nearest to walk; -1: absent */
	const char *missing;	/* the absent meminfo field (the row is n/a), or NULL */
	long long diff;		/* walk - meminfo, pages: 0 when walk lies between the readings */
	double diff_pct;	/* of MemTotal */
	bool ok;		/* not a mismatch: |diff| <= tol_pages, or n/a */
	double tol_pct;		/* MS_RECON_TOLERANCE_PCT, or the attribute rows' */
	long long tol_pages;	/* the row's bound: tol_pct of MemTotal, and (every row but
				 * Anon) MS_RECON_REL_PCT of its counter, at least
				 * MS_RECON_FLOOR_PAGES */
};
#define MS_RECON_MAX 32
#define MS_RECON_TOLERANCE_PCT 0.5
#define MS_RECON_ATTR_TOLERANCE_PCT 0.1	/* memstat -a --reconcile's rows, slab split, unaccepted */
/*
 * Each row is also held to its own size: within MS_RECON_REL_PCT of the counter, but never less
 * than MS_RECON_FLOOR_PAGES (pages that move while the walk passes them). A tolerance of MemTotal
 * alone passes a small counter whatever the walk found: PageTables, 536 pages on a 24 GiB
 * machine, against 0.5% of MemTotal, 30855.
 */
#define MS_RECON_REL_PCT 25.0
#define MS_RECON_FLOOR_PAGES 256
/* Adds a row (meminfo.c): the walk against kb0 (before) and kb1 (after), within tol_pct. */
struct ms_recon;
void ms_recon_add(struct ms_recon *rc, const char *name, const char *field, __u64 walk,
		  long long kb0, long long kb1, const char *missing, long page_kb,
		  long long total_pages, double tol_pct);
struct ms_recon {
	struct ms_recon_row row[MS_RECON_MAX];
	const struct ms_attrs *attrs;	/* -a: its rows were added (attrs.c), or NULL */
	int n;
	bool all_ok;
};
void ms_reconcile(const struct ms_result *r, const struct ms_meminfo *mi, long page_kb,
		  struct ms_recon *out);
/* The same with /proc/meminfo read just before (b) and just after (a) the walk: a row agrees
 * when the walk is within the tolerance of some value between the two readings. */
void ms_reconcile_between(const struct ms_result *r, const struct ms_meminfo *b,
			  const struct ms_meminfo *a, long page_kb, struct ms_recon *out);

/*
 * --by cgroup and allpages --cgroup need to know what a user folio's memcg_data points to;
 * when the probe could not tell (memcg disabled, or a layout memstat does not know), every page
 * would land in "(none)": refuse instead. MS_EXIT_OK, or MS_EXIT_UNSUPPORTED with why.
 */
int ms_cgroups_knowable(const struct ms_features *f, char *why, size_t whylen);

/* Output. */
struct ms_attrs;
struct ms_report_opts {
	bool verbose;
	bool reconcile;
	double elapsed_ms;	/* process start to end of walk */
	const char *kernel;	/* uname -r */
	const char *fallback_reason;	/* why the bpf backend was not used, or NULL */
	const struct ms_timings *timings;	/* --json "timings" (one-shot), or NULL */
	const struct ms_groups *groups;	/* --by: JSON lines and prom carry the groups */
	const struct ms_attrs *attrs;	/* -a (attrs.h): the attributes of the walk, or NULL */
};
/* the member "moved_pages": N (null when unknown), for every JSON document of a walk */
void ms_json_moved_pages(FILE *out, const struct ms_result *r);
/* "(the kernel moved N pages while the walk ran ...)" when it did (res->moved_pages > 0) */
void ms_print_moved(FILE *out, const struct ms_result *r);
void ms_print_summary(FILE *out, const struct ms_result *r, const struct ms_report_opts *o);
void ms_print_reconcile(FILE *out, const struct ms_recon *rc, const struct ms_meminfo *mi,
			const struct ms_result *r);
void ms_print_json(FILE *out, const struct ms_result *r, const struct ms_report_opts *o,
		   const struct ms_recon *rc);
/* The --json object; with a timestamp (iso, ts) for JSON lines. */
struct timespec;
void ms_json_object(FILE *out, const struct ms_result *r, const struct ms_report_opts *o,
		    const struct ms_recon *rc, const char *iso, const struct timespec *ts);

/* Sample records (output.c). */
void ms_iso8601(const struct timespec *ts, char *buf, size_t len);
void ms_csv_header(FILE *out);
/* the header of an --approx log (approx true): the error columns appended */
/* approx: the error columns (--approx); attrs: the attribute columns (-a, attrs.c) */
void ms_csv_header_mode(FILE *out, bool approx, bool attrs);
void ms_csv_row(FILE *out, const struct timespec *ts, const struct ms_result *r,
		const struct ms_attrs *a);
void ms_jsonl_row(FILE *out, const struct timespec *ts, const struct ms_result *r,
		  const struct ms_report_opts *o);
void ms_prom(FILE *out, const struct timespec *ts, const struct ms_result *r);
void ms_row_header(FILE *out);
void ms_row(FILE *out, const struct timespec *ts, const struct ms_result *r);

/* Periodic sampling (sample.c). */
enum ms_format { MS_FMT_ROWS, MS_FMT_CSV, MS_FMT_JSONL, MS_FMT_PROM };
struct ms_sink {
	enum ms_format fmt;
	const char *path;	/* NULL: stdout; "-", /dev/stdout, /dev/fd/N: that descriptor */
	bool fsync;
	bool rotate_incompatible;	/* rename a log of another memstat version aside */
	bool approx;		/* --approx: the CSV header has the error columns */
	bool attrs;		/* -a: the CSV header has the attribute columns */
	/* state */
	int fd;
	bool direct;		/* fd is the descriptor path names (not ours to close) */
	bool tty;
	int term_rows;
	long rows;
};
int ms_sink_open(struct ms_sink *s, char *why, size_t whylen);
int ms_sink_write(struct ms_sink *s, const struct timespec *ts, const struct ms_result *r,
		  const struct ms_report_opts *o);
void ms_sink_close(struct ms_sink *s);

struct ms_sample_opts {
	double interval;	/* seconds */
	long count;		/* samples to take; 0: until interrupted */
};
typedef int (*ms_walk_fn)(void *arg, struct ms_result *res);
int ms_sample_loop(const struct ms_sample_opts *so, struct ms_sink *sink, ms_walk_fn walk,
		   void *walk_arg, const struct ms_report_opts *ro);
bool ms_stop_requested(void);
void ms_sample_signals(void);
/* s (NULL: "") as a JSON string, quoted, escaped as escape.h says for names */
void ms_json_string(FILE *out, const char *s);

/* memstat allpages (allpages.c): argv[0] is "allpages". */
int ms_allpages_main(int argc, char **argv, const struct ms_ranges *present);
/* memstat rmss (rmss.c): argv[0] is "rmss". */
int ms_rmss_main(int argc, char **argv);
/* The capability memstat needs that this process lacks, or NULL. */
const char *ms_missing_capability(void);
/*
 * What a walk of memstat allpages or map needs first: that capability, then the present memory
 * of /proc/iomem into *ranges; a failure is said on stderr. MS_EXIT_OK, _PERM or _FAIL.
 */
int ms_present_memory(struct ms_ranges *ranges);

/* Errors: "memstat: " + message, one line, on stderr. */
void ms_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A usage error, the one way every verb says it: "memstat VERB: message" and the hint "Try
 * 'memstat VERB --help' for more information." on stderr (verb NULL: memstat's own options).
 * Returns MS_EXIT_USAGE.
 */
int ms_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A whole number from lo to hi, decimal digits only (no sign, no space): 0, or -1. */
int ms_parse_count(const char *arg, unsigned long long lo, unsigned long long hi,
		   unsigned long long *out);
/* The last message ms_err() printed ("" if none), for the reason of a --json error. */
const char *ms_last_error(void);
void ms_clear_last_error(void);
double ms_now_ms(void);
/* sprintf into a malloc'd string; NULL when out of memory */
char *ms_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1: in the initial PID namespace, 0: in a child one (a container), -1: cannot tell */
int ms_pid_ns_initial(void);

#endif /* MEMSTAT_INT_H */
