// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat: where every page of physical memory went, in the layout of Solaris ::memstat.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
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
#include "testhooks.h"
#include "attrs.h"
#include "picture.h"
#include "files.h"
#include "outfile.h"

#ifndef MEMSTAT_VERSION
#define MEMSTAT_VERSION "0.1"
#endif

static const char usage_text[] =
	"Usage: memstat [OPTIONS] [INTERVAL [COUNT]]\n"
	"       memstat allpages [OPTIONS]   (one record per page; see memstat allpages --help)\n"
	"       memstat map -o FILE          (a picture of physical memory; memstat map --help)\n"
	"       memstat plot LOG... -o FILE  (a sampling log over time; memstat plot --help)\n"
	"       memstat rmss [OPTIONS] command   (AIX rmss: memory a command needs; see\n"
	"                                     memstat rmss --help)\n"
	"Classify every page of physical memory and print where it went.\n"
	"With INTERVAL (seconds, fractions allowed), take a sample every INTERVAL seconds,\n"
	"COUNT times or until interrupted.\n"
	"\n"
	"  -v, --verbose          add sub-rows (slab, page tables, buddy, per-cpu, ...) and,\n"
	"                         with the bpf or kmod backend, each class's DMA-pinned pages\n"
	"  -a, --attributes       a second table: dirty, writeback, mlocked, LRU, referenced,\n"
	"                         DMA-pinned, THP and KSM pages per class (bpf or kmod)\n"
	"  -j, --json             print one JSON object instead of the table\n"
	"  -r, --reconcile        compare the walk with /proc/meminfo (exit 3 on mismatch)\n"
	"  -b, --backend NAME     auto (default: bpf, else kmod if loaded, else kpageflags),\n"
	"                         bpf, kmod or kpageflags\n"
	"      --runs             print runs of pages with one class: pfn, pages, class, sub-class\n"
	"      --features         print what was detected about the running kernel\n"
	"      --jobs N           walk with N workers in parallel (1 to 256; default: the\n"
	"                         CPUs, at most one per 16 memory sections; a one-shot bpf\n"
	"                         run, one per 128; bpf: at most 19, whose state fits in\n"
	"                         48 MiB)\n"
	"  -o, --output FILE      append samples to FILE (prom: replace FILE atomically)\n"
	"  -f, --format FMT       csv (default with -o), jsonl or prom\n"
	"      --fsync            make each sample durable before the next\n"
	"      --rotate-incompatible  when FILE is a csv or jsonl log of another memstat\n"
	"                         version, rename it to FILE.<UTC time> and start a new log\n"
	"      --approx[=FRACTION]  estimate from a random sample of FRACTION of the pages\n"
	"                         (default 0.015625, from 0.001 to 1) and give each class's\n"
	"                         error at a 99% confidence level; bpf backend only, not\n"
	"                         with --reconcile\n"
	"      --seed N           with --approx: the seed of the first sample's choice\n"
	"      --by KEY           pages per group: node, zone, fs, cgroup, file or exec\n"
	"                         (one walk of every page's record; bpf or kmod backend)\n"
	"      --top N            with --by: the N largest groups, the rest summed as\n"
	"                         (other) (default: 20 for file and exec, else all)\n"
	"      --tree             with --by cgroup: each row is a cgroup and its\n"
	"                         descendants, indented by depth\n"
	"  -V, --version          print the version\n"
	"  -h, --help             print this help\n"
	"\n"
	"Exit codes: 0 ok, 1 run-time failure (reading the kernel, writing the output),\n"
	"2 bad input (usage, an output file that cannot be used), 3 reconcile mismatch,\n"
	"4 missing privilege, 5 unsupported kernel layout.\n"
	"See memstat(8); the verbs: memstat-allpages(8), memstat-map(8), memstat-plot(8),\n"
	"memstat-rmss(8).\n";

struct opts {
	bool attributes;	/* -a */
	bool verbose, json, reconcile, runs, features, fsync, sampling, rotate_incompatible;
	bool approx, seed_given;	/* --approx[=FRACTION], --seed N */
	double approx_fraction;
	__u64 seed;
	enum ms_backend_choice backend;
	unsigned int jobs;	/* --jobs N; 0: ms_jobs_auto() */
	int by;			/* --by KEY: enum ms_by; -1: not given */
	size_t top;		/* --top N; 0: the key's default */
	bool tree;		/* --tree: with --by cgroup, hierarchical totals */
	const char *output;
	int format;		/* -1: not given, else enum ms_format */
	struct ms_sample_opts so;
};

static bool json_errors;

static void fail_json(const char *msg)
{
	if (!json_errors)
		return;
	fputs("{\"error\":", stdout);
	ms_json_string(stdout, msg);
	fputs("}\n", stdout);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("memstat: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'memstat --help' for more information.\n", stderr);
	return MS_EXIT_USAGE;
}

static int parse_interval(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) || v <= 0)
		return usage_error("invalid interval '%s': expected a number of seconds above 0, "
				   "e.g. 1 or 0.5", arg);
	if (v < 0.01)
		return usage_error("interval '%s' is too short: the least is 0.01 s", arg);
	*out = v;
	return 0;
}

static int parse_count(const char *arg, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || errno || v <= 0)
		return usage_error("invalid count '%s': expected a whole number above 0", arg);
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	enum { OPT_RUNS = 0x100, OPT_FEATURES, OPT_FSYNC, OPT_ROTATE_INCOMPATIBLE, OPT_APPROX, OPT_JOBS,
	       OPT_SEED, OPT_BY, OPT_TOP, OPT_TREE };
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "attributes", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "reconcile", no_argument, NULL, 'r' },
		{ "backend", required_argument, NULL, 'b' },
		{ "runs", no_argument, NULL, OPT_RUNS },
		{ "features", no_argument, NULL, OPT_FEATURES },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "fsync", no_argument, NULL, OPT_FSYNC },
		{ "rotate-incompatible", no_argument, NULL, OPT_ROTATE_INCOMPATIBLE },
		{ "approx", optional_argument, NULL, OPT_APPROX },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "by", required_argument, NULL, OPT_BY },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "tree", no_argument, NULL, OPT_TREE },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err;

	memset(o, 0, sizeof(*o));
	o->format = -1;
	o->by = -1;
	opterr = 0;
	/* "memstat -1" or "-0.5" is a negative interval, not a cluster of options */
	for (c = 1; c < argc && strcmp(argv[c], "--"); c++) {
		const char *a = argv[c];

		if (!strcmp(a, "-o") || !strcmp(a, "-f") || !strcmp(a, "-b") ||
		    !strcmp(a, "--output") || !strcmp(a, "--format") || !strcmp(a, "--backend") ||
		    !strcmp(a, "--seed") || !strcmp(a, "--jobs") || !strcmp(a, "--by") ||
		    !strcmp(a, "--top")) {
			c++;	/* the next word is this option's argument */
			continue;
		}
		if (a[0] == '-' && (isdigit((unsigned char)a[1]) || a[1] == '.'))
			return usage_error("invalid interval or count '%s': expected a number "
					   "above 0", a);
	}
	while ((c = getopt_long(argc, argv, ":vajrb:o:f:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			o->verbose = true;
			break;
		case 'a':
			o->attributes = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'r':
			o->reconcile = true;
			break;
		case 'b':
			if (ms_backend_parse(optarg, &o->backend))
				return usage_error("unknown backend '%s' (expected auto, bpf, kmod or "
						   "kpageflags)", optarg);
			break;
		case 'o':
			if (!*optarg)
				return usage_error("%s", "--output needs a file name");
			o->output = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "csv"))
				o->format = MS_FMT_CSV;
			else if (!strcmp(optarg, "jsonl"))
				o->format = MS_FMT_JSONL;
			else if (!strcmp(optarg, "prom"))
				o->format = MS_FMT_PROM;
			else
				return usage_error("unknown format '%s' (expected csv, jsonl or prom)",
						   optarg);
			break;
		case OPT_RUNS:
			o->runs = true;
			break;
		case OPT_FEATURES:
			o->features = true;
			break;
		case OPT_JOBS: {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (!isdigit((unsigned char)*optarg) || *end || errno || v < 1 ||
			    v > MS_JOBS_MAX)
				return usage_error("invalid --jobs '%s': expected a whole number of "
						   "workers from 1 to 256", optarg);
			o->jobs = (unsigned int)v;
			break;
		}
		case OPT_FSYNC:
			o->fsync = true;
			break;
		case OPT_ROTATE_INCOMPATIBLE:
			o->rotate_incompatible = true;
			break;
		case OPT_APPROX:
			if (ms_approx_parse_fraction(optarg, &o->approx_fraction))
				return usage_error("invalid --approx fraction '%s': expected a number "
						   "from 0.001 to 1, e.g. --approx=0.05", optarg);
			o->approx = true;
			break;
		case OPT_SEED: {
			char *end;

			errno = 0;
			o->seed = strtoull(optarg, &end, 10);
			if (!isdigit((unsigned char)*optarg) || *end || errno)
				return usage_error("invalid seed '%s': expected a whole number from 0 "
						   "to 18446744073709551615", optarg);
			o->seed_given = true;
			break;
		}
		case OPT_BY: {
			enum ms_by by;

			if (ms_by_parse(optarg, &by))
				return usage_error("unknown --by key '%s' (expected node, zone, fs, "
						   "cgroup, file or exec)", optarg);
			o->by = (int)by;
			break;
		}
		case OPT_TOP: {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (!isdigit((unsigned char)*optarg) || *end || errno || v < 1 ||
			    v > 1000000)
				return usage_error("invalid --top '%s': expected a whole number of "
						   "groups from 1 to 1000000", optarg);
			o->top = (size_t)v;
			break;
		}
		case OPT_TREE:
			o->tree = true;
			break;
		case 'V':
			printf("memstat %s\n", MEMSTAT_VERSION);
			exit(MS_EXIT_OK);
		case 'h':
			fputs(usage_text, stdout);
			exit(MS_EXIT_OK);
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		err = parse_interval(argv[optind++], &o->so.interval);
		if (err)
			return err;
		o->sampling = true;
	}
	if (optind < argc) {
		err = parse_count(argv[optind++], &o->so.count);
		if (err)
			return err;
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->output || o->format >= 0)
		o->sampling = true;
	if (o->sampling && !o->so.interval && !o->so.count)
		o->so.count = 1;	/* -o/--format without an interval: one sample */
	if (o->runs && (o->json || o->reconcile || o->features || o->sampling))
		return usage_error("%s", "--runs cannot be combined with --json, --reconcile, "
				   "--features, an interval or an output format");
	if (o->features && (o->json || o->reconcile || o->sampling || o->backend == MS_BE_KPF))
		return usage_error("%s", "--features cannot be combined with --json, --reconcile, "
				   "an interval, an output format or --backend kpageflags");
	if (o->sampling && o->reconcile)
		return usage_error("%s", "--reconcile is for one summary; it cannot be combined "
				   "with an interval or an output format");
	if (o->sampling && o->json) {
		if (o->format >= 0 && o->format != MS_FMT_JSONL)
			return usage_error("%s", "--json conflicts with --format csv/prom");
		o->format = MS_FMT_JSONL;
	}
	if (o->fsync && !o->output)
		return usage_error("%s", "--fsync needs --output FILE");
	if (o->output) {
		char why[300];

		/* before memstat opens a descriptor of its own that could take N */
		if (ms_out_check_fd(o->output, why, sizeof(why)))
			return usage_error("%s", why);
	}
	if (o->seed_given && !o->approx)
		return usage_error("%s", "--seed needs --approx");
	if (o->approx && o->reconcile)
		return usage_error("%s", "--approx cannot be combined with --reconcile: an estimate's "
				   "error can exceed the reconciliation's tolerance (reconcile an "
				   "exact walk)");
	if (o->approx && (o->backend == MS_BE_KMOD || o->backend == MS_BE_KPF))
		return usage_error("%s", "--approx needs the bpf backend");
	if (o->approx)
		o->backend = MS_BE_BPF;	/* no fallback: the others walk every page */
	if (o->rotate_incompatible && (!o->output || o->format == MS_FMT_PROM))
		return usage_error("%s", "--rotate-incompatible needs --output FILE with --format csv "
				   "or jsonl");
	if (o->format < 0)
		o->format = o->output ? MS_FMT_CSV : MS_FMT_ROWS;
	if (o->tree && o->by != MS_BY_CGROUP)
		return usage_error("%s", "--tree needs --by cgroup");
	if (o->tree && o->top)
		return usage_error("%s", "--tree shows every cgroup with pages: it cannot be "
				   "combined with --top");
	if (o->top && o->by < 0)
		return usage_error("%s", "--top needs --by KEY");
	if (o->attributes) {
		if (o->backend == MS_BE_KPF)
			return usage_error("%s", "-a needs the bpf or kmod backend: /proc/kpageflags "
					   "has no per-page records");
		if (o->runs || o->features || o->approx)
			return usage_error("%s", "-a cannot be combined with --runs, --features or "
					   "--approx");
	}
	if (o->by >= 0) {
		if (o->backend == MS_BE_KPF)
			return usage_error("%s", "--by needs the bpf or kmod backend: "
					   "/proc/kpageflags has no per-page owner records");
		if (o->runs || o->features || o->reconcile || o->approx)
			return usage_error("%s", "--by cannot be combined with --runs, --features, "
					   "--reconcile or --approx");
		if (o->sampling && o->format != MS_FMT_JSONL && o->format != MS_FMT_PROM)
			return usage_error("%s", "--by with an interval or -o needs --format jsonl "
					   "or prom (csv and the terminal rows have no group columns)");
	}
	return 0;
}

static int run_write_errno;	/* why print_run() stopped the walk */

static int print_run(void *arg, __u64 pfn, __u64 npages, enum ms_sub sub)
{
	(void)arg;
	if (printf("%#llx %llu %s %s\n", (unsigned long long)pfn, (unsigned long long)npages,
		   ms_classes[ms_subs[sub].cls].key, ms_subs[sub].key) < 0) {
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
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return ms_allpages_main(argc, argv, &ranges);
	ret = ms_present_memory(&ranges);
	if (ret)
		return ret;
	ret = ms_allpages_main(argc, argv, &ranges);
	ms_ranges_free(&ranges);
	return ret;
}

/*
 * Test hook (test builds only, testhooks.h): MEMSTAT_MEMINFO names a file read instead of /proc/meminfo by --reconcile
 * and by the unaccepted-memory correction of kernels before 6.12 (walk_once()), so that a test
 * can show a kernel without some counter. Not for users: the walk still reads
 * the running kernel, so any other file makes the reconciliation meaningless.
 */
static const char *meminfo_path(void)
{
	const char *p = ms_test_env("MEMSTAT_MEMINFO");

	return p ? p : "/proc/meminfo";
}

/* --reconcile's reading of /proc/meminfo; a failure is said on stderr and in the JSON */
static int read_meminfo(struct ms_meminfo *mi)
{
	double t0 = ms_now_ms();
	int err = ms_meminfo_read(meminfo_path(), mi);
	char why[512];

	ms_timings.meminfo += ms_now_ms() - t0;

	if (!err)
		return 0;
	snprintf(why, sizeof(why), "failed to read %s: %s", meminfo_path(), strerror(-err));
	ms_err("%s", why);
	fail_json(why);
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
	struct ms_backend be;	/* neither: /proc/kpageflags */
	const struct ms_ranges *ranges;
	ms_run_fn fn;
	struct ms_groups *groups;	/* --by: the record walk fills them */
	struct ms_attrs *attrs;		/* -a, -v: the record walk counts them */
	unsigned int jobs;	/* kpageflags readers (the others' backends are told) */
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
		fail_json(why);
	}
	return ret;
}

/*
 * The ms_page_fn of the record walk: each page to the attributes and the groups asked for, in
 * this order: the attributes judge a folio when its next page comes (ms_groups_pinned() puts
 * the verdict in the group the groups were last given, the folio's)
 */
static int record_page(void *arg, __u64 pfn, const struct ms_page_rec *r)
{
	struct walker *w = arg;
	int ret = w->attrs ? ms_attrs_page(w->attrs, pfn, r) : 0;

	return ret || !w->groups ? ret : ms_groups_page(w->groups, pfn, r);
}

static int walk_backend(struct walker *w, struct ms_result *res)
{
	char why[512] = "";
	int ret;

	if (w->groups || w->attrs) {
		/*
		 * --by, -a: the per-page record walk (serial: one worker, --jobs does not apply).
		 * No unaccepted-memory correction from meminfo (< 6.12): the groups are made of
		 * records, and must add up to the walk's total.
		 */
		if (w->groups && ms_groups_reset(w->groups))
			ms_err("failed to read /proc/zoneinfo: pages go to (none)");
		if (w->attrs)
			ms_attrs_reset(w->attrs);
		ret = ms_backend_pages(&w->be, w->ranges, res, record_page, w);
		if (w->attrs)
			ms_attrs_finish(w->attrs);
		return ret || !w->groups ? ret : ms_groups_finish(w->groups, res);
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
	if (w->be.bpf || w->be.kmod) {
		const struct ms_features *f = w->be.bpf ? ms_bpf_features(w->be.bpf) :
						 ms_kmod_features(w->be.kmod);
		struct ms_meminfo mi;

		ret = w->be.bpf ? ms_bpf_walk(w->be.bpf, w->ranges, res, w->fn, NULL) :
				  ms_kmod_walk(w->be.kmod, w->ranges, res, w->fn, NULL, NULL);
		/* < 6.12: unaccepted blocks carry no type (meminfo.c ms_unaccepted_from_meminfo()) */
		if (!ret && !f->ptype[MS_T_UNACCEPTED]) {
			double t0 = ms_now_ms();
			int err = ms_meminfo_read(meminfo_path(), &mi);

			ms_timings.meminfo += ms_now_ms() - t0;
			if (!err)
				ms_unaccepted_from_meminfo(res, f, &mi, sysconf(_SC_PAGESIZE) / 1024);
		}
		return ret;
	}
	ret = ms_kpf_walk_jobs("/proc/kpageflags", w->ranges, res, w->fn, NULL, w->jobs, why,
			       sizeof(why));
	if (ret)
		ms_err("%s", why);
	return ret;
}

static int walk_once(void *arg, struct ms_result *res)
{
	struct walker *w = arg;
	long long moved = ms_pages_moved(), after;
	int ret = walk_backend(w, res);

	after = ms_pages_moved();
	res->moved_pages = moved >= 0 && after >= moved ? after - moved : -1;
	if (!ret && w->be.bpf)	/* while its maps are mapped, as the walk saw them */
		ms_bpf_own_maps(res);
	return ret;
}

int main(int argc, char **argv)
{
	double t0 = ms_now_ms();
	struct ms_report_opts ro = {};
	struct ms_ranges ranges = {};
	struct ms_result res = {};
	struct ms_meminfo mi = {}, mi_before = {};
	struct ms_recon rc = {};
	struct ms_attrs *attrs = NULL;
	/* -v of a one-shot table: each class's DMA-pinned pages, where a backend has records */
	bool want_attrs;
	struct ms_bpf *bpf = NULL;
	struct walker walker;
	struct utsname uts;
	char why[512] = "", fallback[600] = "";
	const char *cap;
	struct opts o;
	int ret, err;

	if (argc > 1 && !strcmp(argv[1], "map"))
		return ms_map_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "plot"))
		return ms_plot_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "allpages"))
		return allpages(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "rmss"))
		return ms_rmss_main(argc - 1, argv + 1);
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret;
	/* a reader that goes away (memstat ... | head) is a normal end: see EPIPE below */
	signal(SIGPIPE, SIG_IGN);
	json_errors = o.json;
	uname(&uts);
	ro.kernel = uts.release;
	ro.verbose = o.verbose;
	ro.timings = &ms_timings;	/* JSON and JSON lines: where the time went */

	cap = ms_missing_capability();
	if (cap) {
		snprintf(why, sizeof(why), "missing capability %s (needed to read page frame "
			 "numbers and /proc/kpageflags); run as root", cap);
		ms_err("%s", why);
		fail_json(why);
		return MS_EXIT_PERM;
	}
	ms_timings.ranges = ms_now_ms();
	err = ms_ranges_from_iomem("/proc/iomem", &ranges);
	ms_timings.ranges = ms_now_ms() - ms_timings.ranges;
	if (err) {
		snprintf(why, sizeof(why), "failed to read present memory from /proc/iomem: %s",
			 strerror(-err));
		ms_err("%s", why);
		fail_json(why);
		return err == -EPERM ? MS_EXIT_PERM : MS_EXIT_FAIL;
	}

	if (o.sampling)
		ms_sample_signals();	/* before the slow part: a SIGHUP then does not kill us */
	memset(&walker, 0, sizeof(walker));
	want_attrs = o.attributes || (o.verbose && !o.sampling && !o.json && !o.runs &&
				      !o.features && !o.approx && o.backend != MS_BE_KPF);
	ret = open_backend(o.backend, (o.sampling ? 0 : MS_BPF_ONE_WALK) |
			   (o.by >= 0 || want_attrs ? MS_BPF_ALLPAGES : 0) |
			   (o.by == MS_BY_FILE || o.by == MS_BY_EXEC ? MS_BPF_PATHS : 0),
			   o.by < 0 && !o.attributes, &walker, fallback,
			   sizeof(fallback));
	if (ret)
		goto out;
	if (fallback[0])
		ro.fallback_reason = fallback;
	bpf = walker.be.bpf;
	if (!o.jobs)	/* a one-shot bpf run has one walk to repay the extra workers' start */
		o.jobs = ms_jobs_auto(&ranges, !o.sampling && bpf);
	walker.jobs = o.jobs;
	if (bpf)
		ms_bpf_set_jobs(bpf, o.jobs);
	if (walker.be.kmod)
		ms_kmod_set_jobs(walker.be.kmod, o.jobs);
	if (o.features) {
		if (!bpf && !walker.be.kmod) {
			ms_err("--features needs the bpf or kmod backend");
			ret = MS_EXIT_FAIL;
			goto out;
		}
		print_features(bpf ? ms_bpf_features(bpf) : ms_kmod_features(walker.be.kmod),
			       bpf ? (ms_bpf_has_cast(bpf) ? "3 words per page via bpf_rdonly_cast "
				      "(>= 6.2)" : "64-byte copies") : "kernel module");
		/* the BPF task iterator sees only this PID namespace's tasks (docs/backends.md) */
		printf("exec mappings from:  %s\n", !bpf ? "every process (kernel module)" :
		       ms_pid_ns_initial() ? "every process (initial PID namespace)" :
		       "this PID namespace's processes only: libraries mapped only outside it "
		       "count as page cache (--backend kmod sees every process)");
		ret = MS_EXIT_OK;
		goto out;
	}
	walker.ranges = &ranges;
	walker.fn = o.runs ? print_run : NULL;
	if (o.by >= 0) {
		walker.groups = ms_groups_new((enum ms_by)o.by, o.top);
		if (!walker.groups) {
			ms_err("out of memory");
			ret = MS_EXIT_FAIL;
			goto out;
		}
		walker.groups->tree = o.tree;
		if (o.by == MS_BY_CGROUP && (ret = ms_cgroups_knowable(bpf ? ms_bpf_features(bpf) :
				walker.be.kmod ? ms_kmod_features(walker.be.kmod) : NULL, why,
				sizeof(why)))) {
			ms_err("--by cgroup: %s", why);
			goto out;
		}
		ro.groups = walker.groups;
		ms_files_backend(&walker.be);	/* file, exec: the path program's backend */
	}
	if (want_attrs && (bpf || walker.be.kmod)) {
		attrs = calloc(1, sizeof(*attrs));
		if (!attrs) {
			ms_err("out of memory");
			ret = MS_EXIT_FAIL;
			goto out;
		}
		if (ms_attr_facts_load(&attrs->f))
			ms_err("kernel BTF has no enum pageflags: the attributes of page flags are "
			       "unknown");
		walker.attrs = attrs;
		ro.attrs = attrs;
		if (walker.groups && o.attributes) {	/* --by -a: a Pinned column */
			walker.groups->pinned = true;
			attrs->on_folio = ms_groups_pinned;
			attrs->on_folio_arg = walker.groups;
		}
		/* the module blanks the pointer words of its records, and the first tail page's
		 * _pincount shares such a word: it keeps the folio's counters when asked */
		if (walker.be.kmod)
			ms_kmod_set_folio_counters(walker.be.kmod, true);
	}
	if (o.approx) {
		if (!bpf) {	/* cannot be: parse_args() asks for bpf */
			ms_err("--approx needs the bpf backend");
			fail_json("--approx needs the bpf backend");
			ret = MS_EXIT_FAIL;
			goto out;
		}
		walker.approx = true;
		walker.fraction = o.approx_fraction;
		walker.seed = o.seed_given ? o.seed : random_seed();
	}
	if (o.sampling) {
		struct ms_sink sink = { .fmt = (enum ms_format)o.format, .path = o.output,
					.fsync = o.fsync,
					.rotate_incompatible = o.rotate_incompatible,
					.approx = o.approx, .attrs = o.attributes };

		ret = ms_sink_open(&sink, why, sizeof(why));
		if (ret) {
			ms_err("%s", why);
			fail_json(why);
			goto out;
		}
		ms_clear_last_error();
		ret = ms_sample_loop(&o.so, &sink, walk_once, &walker, &ro);
		ms_sink_close(&sink);
		if (ret)
			fail_json(ms_last_error()[0] ? ms_last_error() : "sampling failed");
		goto out;
	}
	/* --reconcile: /proc/meminfo just before and just after the walk (pages move meanwhile) */
	if (o.reconcile && read_meminfo(&mi_before)) {
		ret = MS_EXIT_FAIL;
		goto out;
	}
	ms_clear_last_error();
	ret = walk_once(&walker, &res);
	if (o.reconcile && !ret && read_meminfo(&mi)) {
		ret = MS_EXIT_FAIL;
		goto out;
	}
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
		fail_json(ms_last_error()[0] ? ms_last_error() : "the page walk failed");
		goto out;
	}
	if (o.runs)
		goto out;
	ro.elapsed_ms = ms_now_ms() - t0;
	if (o.reconcile) {
		ms_reconcile_between(&res, &mi_before, &mi, sysconf(_SC_PAGESIZE) / 1024, &rc);
		if (o.attributes && attrs && attrs->valid) {
			ms_attrs_reconcile(attrs, &mi_before, &mi, sysconf(_SC_PAGESIZE) / 1024, &rc);
			rc.attrs = attrs;
		}
	}
	if (walker.groups) {
		if (o.json)
			ms_groups_json(stdout, walker.groups, &res);
		else {
			ms_groups_print(stdout, walker.groups);
			ms_print_moved(stdout, &res);
		}
	} else if (o.json) {
		ms_print_json(stdout, &res, &ro, o.reconcile ? &rc : NULL);
	} else {
		ms_print_summary(stdout, &res, &ro);
		if (o.attributes && attrs) {
			fputc('\n', stdout);
			ms_attrs_print(stdout, attrs);
		}
		if (o.reconcile) {
			fputc('\n', stdout);
			ms_print_reconcile(stdout, &rc, &mi, &res);
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
	free(attrs);
	ms_groups_free(walker.groups);
	ms_backend_close(&walker.be);
	ms_ranges_free(&ranges);
	return ret;
}
