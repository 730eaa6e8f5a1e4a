/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --wss SECONDS (wss.c): which pages are accessed during a window, by class and sub-class.
 *
 * The mechanism here is the multi-gen LRU's (MGLRU, 6.1+): at the window's start memstat asks the
 * kernel to age every lruvec once (lru_gen's "+" command, with a scan of every page table), which
 * clears the accessed bits and opens a new youngest generation A; at its end once more, which
 * moves every folio whose accessed bit was set meanwhile into the generation that was youngest
 * during the window. Folios faulted in during the window land there too. After the second aging
 * a record walk reads each folio's generation from its flags (where it sits: mglru_bits.h):
 * accessed when its generation's sequence number is A or later, idle when older, and idle since
 * the birth of the generation after its own.
 *
 * Since 6.14 (4d5d14a01e2c "mm/mglru: rework workingset protection") an aging promotes a folio
 * only when it already has PG_referenced or PG_workingset; on first sight it sets PG_referenced
 * only. So a record walk after the first aging keeps each page's PG_referenced (2 bits a page),
 * and a folio whose PG_referenced was set during the window is accessed too (a first sight, or
 * a read() through folio_mark_accessed()). In the same aging, when a type has 4 generations,
 * inc_min_seq() merges the oldest into the next and clears PG_referenced of its folios: on
 * 6.14+ an access to a folio of the oldest generation, first seen by the second aging, is
 * erased. Such pages are "unseen", never idle.
 *
 * What it cannot see: kernel, hugetlb and free pages (on no LRU list); folios on no MGLRU list
 * (unevictable, mlocked, isolated: "untracked"); page cache read through read() and not
 * mapped (folio_mark_accessed() moves its reference bits, not its generation: idle here).
 */
#ifndef MEMSTAT_WSS_H
#define MEMSTAT_WSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "memstat.h"
#include "mglru.h"

#define MS_MGLRU_CTL "/sys/kernel/debug/lru_gen"

/*
 * The idle pages' ages: of the 4 generations after the window, the window's own (A) and the
 * empty one the second aging opened leave 2 older ones: A - 1 (idle since the window's start
 * at least, since its own birth at most) and A - 2 (the oldest: idle at least since A - 1 was
 * born, at most unbounded, the kernel merging older generations into it).
 */
#define MS_WSS_AGES (MS_MGLRU_GENS - 2)

/* the paging the kernel counts (/proc/vmstat), read at the window's start and end
 * (src/sys/wss_paging.c); and the pages it migrated (NUMA balancing, compaction): a page
 * migrated in the window may read as unseen or idle (docs/wss.md) */
enum { MS_WSS_PGMAJFAULT, MS_WSS_REFAULT_ANON, MS_WSS_REFAULT_FILE, MS_WSS_PSWPIN,
       MS_WSS_PSWPOUT, MS_WSS_PGMIGRATE, MS_WSS_NPAGING };
extern const char *const ms_wss_paging_keys[MS_WSS_NPAGING];
/* of those, the ones a cgroup's memory.stat counts (v2; v1 pgmajfault only) */
#define MS_WSS_CG_NPAGING (MS_WSS_REFAULT_FILE + 1)

/* one cgroup's memory.stat counters of the window's paging (--by cgroup --wss) */
struct ms_wss_cgstat {
	__u64 id;
	long long v[MS_WSS_CG_NPAGING];	/* -1: none */
};

/* one lruvec of the window: its sequence numbers at the start (after the aging) and the end */
struct ms_wss_lruvec {
	__u64 memcg_id;
	int node;
	__u64 cgroup;		/* the records' cgroup id of its memcg; 0: the root or unknown */
	bool known;		/* its memcg's path was found among the cgroups */
	__u64 start_seq;	/* A: the youngest generation after the first aging */
	__u64 end_seq;		/* the youngest after the second */
	__u64 min_seq;		/* the oldest at the end */
	__u64 age_ms[MS_MGLRU_GENS];	/* at the end: each generation's age, by seq % 4 */
	__u64 min_start[2];	/* per type (anon, file): the oldest generation after the first aging */
	bool full_start[2];	/* that type had 4 generations then: the second aging merges */
	__u64 min_end[2];	/* the oldest after the second aging */
	bool aged_by_kernel;	/* the kernel aged it twice in the window: the oldest generation
				 * is the window's, its pages cannot be told apart */
	bool used[MS_WSS_AGES];	/* it has idle pages of that age */
	__u64 pre_seq;		/* its youngest generation before the last aging asked for */
	int age_err;		/* what the last aging's write returned (0 or -errno) */
	bool not_aged;		/* an aging left it as it was: its pages cannot be told */
};

/* the mechanisms (ms_wss_mechanism()) */
enum ms_wss_mech { MS_WSS_MGLRU = 1, MS_WSS_IDLE_BITMAP = 2, MS_WSS_DAMON = 3 };

struct ms_wss {
	int mech;		/* enum ms_wss_mech */
	double window_s;	/* asked for */
	double measured_s;	/* from the end of the first aging to the start of the second */
	double aging_ms[2];	/* what each aging took (idle bitmap: the marking, the reading) */
	/* the idle page bitmap's words over the ranges after the window (wss_idle.c) */
	__u64 *idle_words;
	size_t *idle_base;	/* each range's first word among them */
	__u64 idle_limit;	/* the first pfn the bitmap gave no word for */
	int gen_lo;		/* the generation's lowest bit in the flags */
	unsigned int pg_lru, pg_unevictable, pg_referenced, pg_swapbacked;
	bool first_sight;	/* 6.14+: an aging only marks a folio it sees for the first time */
	/* each present page's state after the first aging (MS_WSS_B_*, 2 bits, 4 pages a byte) */
	const struct ms_ranges *ranges;
	__u8 *before;
	size_t nbefore;		/* its bytes */
	__u64 *range_base;	/* the index of each range's first page */
	size_t cur_range;
	struct ms_wss_lruvec *lv;
	size_t nlv;
	size_t *by_key;		/* lv's indexes sorted by (cgroup, node): the records' lookup */
	size_t nkey;
	__u64 root_cgroup;	/* the root memcg's cgroup id: its pages count as id 0's */
	bool one_memcg;		/* the kernel's lruvecs are of one memcg (memcg off): every page
				 * is its node's */
	/* pfn -> node: the zones of /proc/zoneinfo */
	struct ms_zone *zones;
	size_t nzones;
	/* per sub-class, pages of folios on an MGLRU list: accessed, idle; and the others */
	__u64 accessed[MS_NR_SUBS], idle[MS_NR_SUBS], untracked[MS_NR_SUBS];
	__u64 idle_age[MS_WSS_AGES][MS_NR_SUBS];	/* idle, by generations before the window's */
	__u64 referenced[MS_NR_SUBS];	/* of the accessed: told by PG_referenced set in it */
	__u64 unseen[MS_NR_SUBS];	/* 6.14+: in the oldest generation, accesses erased */
	__u64 unattributed;	/* pages of a folio whose lruvec was not found */
	__u64 kernel_aged;	/* pages of lruvecs the kernel aged in the window too */
	__u64 not_aged;		/* pages of lruvecs an aging of memstat's did not age */
	/* the last record's lookup, kept: pages of one folio or one memcg come in runs */
	__u64 last_cgroup;
	int last_node;
	long last_lv;
	size_t last_zone;
	double started_ms;	/* the end of the first aging */
	double ended_ms;	/* the end of the second */
	/* each counter of ms_wss_paging_keys at the window's start and end; -1: the kernel has
	 * none */
	long long paging_start[MS_WSS_NPAGING], paging_end[MS_WSS_NPAGING];
	/* --by cgroup: each cgroup's at the window's start and end, sorted by id */
	bool cgroup_paging;	/* asked for (set before ms_wss_start(), which keeps it) */
	struct ms_wss_cgstat *cg_start, *cg_end;
	size_t ncg_start, ncg_end;
	int said_no_hierarchy;	/* the cgroup hierarchy's absence was said */
	int verdict, verdict_cls;	/* the last page's (enum ms_wss_verdict), for --by's groups */
	/* --by process: each page's verdict kept for ms_wss_verdict_at(), in the 2 bits a page of
	 * the before map once ms_wss_page() has read them (set before the window, kept) */
	bool keep_verdicts;
	/* DAMON (damon.c): pages of LRU folios, [anonymous, file-backed][accessed, idle]: totals
	 * only, no class, group or page */
	__u64 damon[2][2];
	bool damon_mglru;	/* MGLRU was on (without what --wss needs of it): read() is unseen */
	/* --by cgroup or node on DAMON (enum ms_wss_damon_by, asked for before the window, kept by
	 * ms_wss_clear()): the groups measured, four schemes each (sorted by id), and how many
	 * with pages were not (cgroups: the largest only; nodes: every one) */
	int damon_by;
	struct ms_wss_damon_group *damon_g;
	size_t ndamon_g, damon_g_unmeasured;
	__u64 damon_rest[2][2];	/* the pages of no group measured (in damon[][] too) */
	bool damon_stopped;	/* a stop signal ended DAMON's wait */
	/* sampling: DAMON's waits poll through it (false: stop; kept by ms_wss_clear()) */
	bool (*sleep_until)(double deadline_ms);
};

/* the groups DAMON measures: none (the machine's totals), memory cgroups (their schemes' memcg
 * filters), NUMA nodes (a kdamond each over the node's address ranges) */
enum ms_wss_damon_by { MS_WSS_DAMON_BY_NONE, MS_WSS_DAMON_BY_CGROUP, MS_WSS_DAMON_BY_NODE };

/* --by cgroup or node on DAMON: a memory cgroup's own LRU pages, or a node's,
 * [anonymous, file-backed][accessed, idle] */
struct ms_wss_damon_group {
	__u64 id;		/* a cgroup's as struct ms_page_rec's and struct ms_cgroup's; a node */
	char *path;		/* a cgroup's path in the hierarchy, as DAMON's memcg filter takes it */
	__u64 own;		/* a cgroup's own anon and file pages at the start (memory.stat) */
	__u64 n[2][2];
};
/* The cgroups DAMON measures with --by cgroup: the root and the largest others (own pages) */
#define MS_WSS_DAMON_CGROUPS 8
/* The measured cgroup's or node's counts by id, or NULL (not measured; not DAMON). */
const struct ms_wss_damon_group *ms_wss_damon_group_of(const struct ms_wss *w, __u64 id);
/* their order, by id (a qsort() and bsearch() comparator) */
int ms_wss_damon_group_cmp(const void *a, const void *b);

/*
 * Which mechanism this machine has for a window: MS_WSS_MGLRU (MGLRU on, its control file
 * writable), else MS_WSS_IDLE_BITMAP (the idle page bitmap readable and writable), or -1 with
 * why the whole message ("--wss: no way to see page accesses here: ...") naming each mechanism
 * that is missing and what it needs.
 */
int ms_wss_mechanism(char *why, size_t whylen);
/* The same, with only the reasons in why ("no MGLRU (...); no idle page bitmap (...); ..."). */
int ms_wss_mechanism_reasons(char *why, size_t whylen);
/* What DAMON cannot give (the message of each refusal: other groups, processes, pages) */
#define MS_WSS_DAMON_TOTALS "DAMON, this machine's only way to see page accesses, gives the " \
	"window's totals of anonymous and file-backed memory, of the machine, of its largest " \
	"memory cgroups (--by cgroup, without --tree) and of its nodes (--by node): no other " \
	"group's, process's or page's"


/* a page's state after the first aging (the before-walk's) */
enum { MS_WSS_B_NONE, MS_WSS_B_UNREF, MS_WSS_B_REF, MS_WSS_B_OLDEST };

struct ms_backend;
/*
 * The window's start: the lruvecs of lru_gen_full, each mapped to its cgroup by path, each
 * aged once, then a record walk of be over ranges keeps each page's state. gen_lo: where the
 * generation sits (ms_mglru_locate()); release: the kernel's (uname -r). 0, or -1 with why.
 */
int ms_wss_start(struct ms_wss *w, double window_s, int gen_lo, const char *release,
		 struct ms_backend *be, const struct ms_ranges *ranges, char *why, size_t whylen);
/* Room for each page's state (ms_wss_start() makes it; tests too). 0 or -ENOMEM. */
int ms_wss_alloc_before(struct ms_wss *w, const struct ms_ranges *ranges);
/* One record of the walk after the first aging (an ms_page_fn): its state kept. */
int ms_wss_before_page(void *w, __u64 pfn, const struct ms_page_rec *r);
/*
 * The next window of sampling, right after the last one's record walk: the last window's closing
 * aging is this one's opening (lruvecs of memcgs made since are aged now), then the record walk
 * of ms_wss_start(). 0, or -1 with why.
 */
int ms_wss_next(struct ms_wss *w, struct ms_backend *be, const struct ms_ranges *ranges,
		char *why, size_t whylen);
/* Sleep until the window's length has passed since its start. */
void ms_wss_wait(const struct ms_wss *w);
/* The window's end: the second aging and the generations' ages. 0, or -1 with why. */
int ms_wss_end(struct ms_wss *w, char *why, size_t whylen);
/* The records' lookup of the lruvecs whose cgroup is known (ms_wss_start() makes it). */
int ms_wss_index(struct ms_wss *w);
/* 6.14 or later (release as uname -r prints it)? */
bool ms_wss_first_sight_kernel(const char *release);
/* One record of the walk after ms_wss_end() (an ms_page_fn). */
int ms_wss_page(void *w, __u64 pfn, const struct ms_page_rec *r);
void ms_wss_free(struct ms_wss *w);
/* keep_verdicts: the last page's verdict (w->verdict) kept for pfn (ms_wss_page() calls it) */
void ms_wss_keep_verdict(struct ms_wss *w, __u64 pfn);
/*
 * keep_verdicts: the verdict of pfn in the last walk after a window (MS_WSS_ACCESSED, _IDLE,
 * _UNSEEN), or MS_WSS_NONE (untracked, a class the window cannot see, not present, not kept).
 * arg: the struct ms_wss (the lookup keeps its last range).
 */
int ms_wss_verdict_at(void *arg, __u64 pfn);
/*
 * The whole window on be over ranges: where the generation sits, the first aging, the wait,
 * the second aging. MS_EXIT_OK, or MS_EXIT_UNSUPPORTED (the generation's place unknown) or
 * MS_EXIT_FAIL with why (a whole message, "--wss: ..."). The walk that follows calls
 * ms_wss_page() for each record.
 */
int ms_wss_window(struct ms_wss *w, double window_s, const char *release, struct ms_backend *be,
		  const struct ms_ranges *ranges, char *why, size_t whylen);
/*
 * ms_wss_window() up to the wait: where the generation sits, then ms_wss_start(). Its exit
 * codes; sampling then waits its own way, and calls ms_wss_end().
 */
int ms_wss_open(struct ms_wss *w, double window_s, const char *release, struct ms_backend *be,
		const struct ms_ranges *ranges, char *why, size_t whylen);
/* --wss's argument: seconds from 1 to 86400. 0, or -1 for anything else. */
#define MS_WSS_BAD_SECONDS "invalid --wss '%s': expected seconds from 1 to 86400"
int ms_wss_parse_seconds(const char *arg, double *secs);

/*
 * The paging counted in the window: the growth of counter k (MS_WSS_PGMAJFAULT...), or -1
 * where the kernel has none.
 */
long long ms_wss_paging(const struct ms_wss *w, int k);
/*
 * The paging a cgroup's memory.stat counted in the window: counter k (< MS_WSS_CG_NPAGING) of
 * cgroup id, or -1 (no such counter, or the cgroup was not there at both ends).
 */
long long ms_wss_cgroup_paging(const struct ms_wss *w, __u64 id, int k);
/*
 * The paging counters at the window's start and at its end (/proc/vmstat's, and with
 * cgroup_paging each cgroup's memory.stat); roll: the next window opens where the last closed,
 * its start the last one's end.
 */
void ms_wss_paging_begin(struct ms_wss *w);
void ms_wss_paging_end(struct ms_wss *w);
void ms_wss_paging_roll(struct ms_wss *w);

/*
 * The idle page bitmap's window (wss_idle.c): every page of ranges marked idle at the start,
 * the bitmap read at the end; a page is accessed when its folio is no longer idle. pg_lru:
 * PG_lru's bit (BTF's, or the backend's). 0, or -1 with why.
 */
int ms_wss_idle_start(struct ms_wss *w, double window_s, const struct ms_ranges *ranges,
		      unsigned int pg_lru, char *why, size_t whylen);
int ms_wss_idle_end(struct ms_wss *w, char *why, size_t whylen);
int ms_wss_idle_next(struct ms_wss *w, char *why, size_t whylen);
/* w emptied for a window of mechanism mech (what was asked before it, cgroup_paging, kept) */
void ms_wss_clear(struct ms_wss *w, int mech, double window_s);
/* the DAMON cgroups' list freed (ms_wss_clear() and ms_wss_free() call it) */
void ms_wss_damon_free(struct ms_wss *w);
/* the counts of a window zeroed, for the next */
void ms_wss_reset_counts(struct ms_wss *w);
/* the index of pfn's range among w->ranges (the last one found is tried first), or -1 */
long ms_wss_range_of(struct ms_wss *w, __u64 pfn);
/* pfn's 2 bits in the map (before): the state after the first aging, or once ms_wss_page()
 * has read it, the kept verdict; 0 for a pfn outside present memory or with no map */
unsigned int ms_wss_map_get(struct ms_wss *w, __u64 pfn);
void ms_wss_map_set(struct ms_wss *w, __u64 pfn, unsigned int code);
/* a tracked page's verdict from the bitmap (an ms_page_fn's part of ms_wss_page()) */
void ms_wss_idle_page(struct ms_wss *w, __u64 pfn, const struct ms_page_rec *r);

/* whether the mechanism sees class c's pages at all (kernel, hugetlb, free: no) */
bool ms_wss_class_tracked(int cls);
/*
 * How long the idle pages of age k (0: the younger) have been idle, in seconds, over the
 * lruvecs that have such pages: false when none has; *max_s < 0: unbounded.
 */
bool ms_wss_age_range(const struct ms_wss *w, int k, double *min_s, double *max_s);

/* Output (wss_out.c): the table after the summary, and the "wss" object of --json. */
struct ms_jw;
void ms_wss_print(FILE *out, const struct ms_wss *w, bool verbose);
void ms_wss_json(struct ms_jw *jw, const struct ms_wss *w);
/* the verdicts' names in JSON and Prometheus, by enum ms_wss_verdict (wss_out.c) */
extern const char *const ms_wss_verdict_names[MS_WSS_VERDICTS];
/*
 * A group's or a process's "accessed", "idle" and "unseen" objects: pages per class of cls
 * (NULL: every class in order), null for a class the window cannot see.
 */
void ms_wss_verdicts_json(struct ms_jw *jw, const __u64 v[MS_WSS_VERDICTS][MS_NR_CLASSES],
			  const enum ms_class *cls, size_t ncls);
/* DAMON, --by cgroup: a group's "accessed", "idle" (anon's: DAMON's other classes are null),
 * "unseen" (null) and "file_backed" ({accessed, idle}); measured false: all null */
void ms_wss_damon_verdicts_json(struct ms_jw *jw, const __u64 n[2][2], bool measured,
				const enum ms_class *cls, size_t ncls);
/* the pages of one verdict over the classes the window tracks */
__u64 ms_wss_tracked_pages(const __u64 per_class[MS_NR_CLASSES]);
/* Sampling: the CSV columns and values, the terminal rows' (line 0: the header's first line,
 * 1: its second), the Prometheus gauges. */
void ms_wss_csv_header(FILE *out);
void ms_wss_csv_row(FILE *out, const struct ms_wss *w);
void ms_wss_row_header(FILE *out, int line);
void ms_wss_row(FILE *out, const struct ms_wss *w);
void ms_wss_prom(FILE *out, const struct ms_wss *w);

#endif /* MEMSTAT_WSS_H */
