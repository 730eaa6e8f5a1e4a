/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What every part of the memstat command shares: exit codes, the classes' names, present memory,
 * the result of a walk, the walk's callbacks, errors and time. Each part has its own header
 * beside it (backend.h, approx.h, groups.h, meminfo.h, report.h, output.h, sample.h, ...).
 */
#ifndef MEMSTAT_INT_H
#define MEMSTAT_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "memstat.h"

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
 * changes meaning or disappears. 2: kernel_slab is all slab or null, never a part of it. */
#define MS_FORMAT_VERSION 2

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

/* --wss (wss.h): what a page was in the window; a page of a class the window cannot see has
 * none (MS_WSS_NONE), one of a class it sees but on no list it can tell is MS_WSS_UNTRACKED */
enum ms_wss_verdict { MS_WSS_ACCESSED, MS_WSS_IDLE, MS_WSS_UNSEEN, MS_WSS_VERDICTS,
		      MS_WSS_NONE = MS_WSS_VERDICTS, MS_WSS_UNTRACKED };

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
/* Add the whole pages of bytes [a, b] (b inclusive, as iomem gives them): 0 or -ENOMEM. */
int ms_ranges_add_bytes(struct ms_ranges *r, __u64 a, __u64 b, __u64 psz);
/* Sort the ranges, merge overlapping and adjacent ones, and count their pages. */
void ms_ranges_merge(struct ms_ranges *r);
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
	__u64 exec_unknown_mappings;	/* dump: file mappings whose VMAs the dump does not hold
					 * (their pages count as page cache) */
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
 * The keys of "detail" (JSON, CSV, Prometheus), k from 0 to MS_NR_DETAIL - 1: every sub-class,
 * with slab as three keys whose meaning never changes: kernel_slab (all slab, where the walk
 * cannot tell reclaimable slab apart), kernel_slab_unreclaimable and kernel_slab_reclaimable
 * (where it can). ms_detail_value() gives entry k of sub[]; false: null, the other case.
 */
#define MS_NR_DETAIL (MS_NR_SUBS + 1)
const char *ms_detail_key(int k);
enum ms_class ms_detail_class(int k);
bool ms_detail_value(const __u64 *sub, bool slab_split, int k, __u64 *v);
/* The key of sub-class i for one page or run (allpages, --runs): slab as the walk split it. */
const char *ms_sub_key(int i, bool slab_split);

/* Where a run spent its time, in ms (JSON "timings"; docs/output-formats.md names each). */
struct ms_timings {
	double ranges;		/* /proc/iomem and the offline blocks of /sys/devices/system/memory */
	double bpf_open;	/* parse the embedded BPF object */
	double bpf_load;	/* CO-RE relocation, maps, verification of the programs */
	double bpf_verify;	/* in bpf_load: the kernel's verification of the programs */
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

/* memstat allpages (allpages.c): argv[0] is "allpages". */
int ms_allpages_main(int argc, char **argv, const struct ms_ranges *present);
/* memstat rmss (rmss.c): argv[0] is "rmss". */
int ms_rmss_main(int argc, char **argv);
/*
 * Split a CSV line in place (RFC 4180 quotes; the line's end of line cut): the number of fields,
 * at most max. The readers of memstat's CSV logs (plot, diff) and the width of their rows.
 */
size_t ms_csv_split(char *line, char **f, size_t max);
#define MS_CSV_MAX_FIELDS 512
/* memstat diff A [B]: src/cmd/diff.c */
int ms_diff_main(int argc, char **argv);
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
/*
 * The kernel's types for user space (struct page, struct folio, enum pageflags, by name): the
 * CO-RE types cache's reduced BTF, which keeps them whole (src/backend/btf_cache.c), else the
 * kernel's whole BTF (5 MiB to parse); NULL and errno when there is none. btf__free() it.
 */
struct btf;
struct btf *ms_kernel_btf(void);
/*
 * A child that must not keep root's power (the PNG renderer, serve's HTTP process): become
 * nobody (MS_NOBODY, user and group, no supplementary group), check that root cannot come back,
 * and set no_new_privs. 0 (also when not root), or -errno.
 */
#define MS_NOBODY 65534
int ms_drop_root(void);
/* pages of this machine's page size in MiB (the tables' MB) */
double ms_mb(double pages);
/* the number a sysfs-like file starts with (decimal, 0x hex), or -1 when unreadable */
long ms_read_long(const char *path);
/* write s to the file at path (a sysfs, procfs or cgroup control file): 0, or -errno */
int ms_write_str(const char *path, const char *s);
/* MEMSTAT_DEBUG's level (0: unset) */
int ms_debug_level(void);
/* sprintf into a malloc'd string; NULL when out of memory */
char *ms_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1: in the initial PID namespace, 0: in a child one (a container), -1: cannot tell */
int ms_pid_ns_initial(void);
/*
 * The kernel's lockdown (security/lockdown/lockdown.c), from path (NULL: the securityfs file
 * /sys/kernel/security/lockdown): 0 none, 1 integrity, 2 confidentiality (BPF programs may
 * not read kernel memory: bpf_probe_read_kernel is refused), -1 unknown (no such file).
 */
int ms_lockdown(const char *path);

#endif /* MEMSTAT_INT_H */
