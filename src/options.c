// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat's own command line: the help text, the options and the rules on how they combine.
 * The verbs (allpages, map, plot, rmss) parse their own.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memstat_int.h"
#include "groups.h"
#include "approx.h"
#include "sample.h"
#include "backend.h"
#include "json.h"
#include "report.h"
#include "wss.h"
#include "options.h"
#include "outfile.h"
#include "serve.h"

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
	"       memstat serve [OPTIONS]      (a Prometheus endpoint; memstat serve --help)\n"
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
	"      --compare TOOL     lay the walk out in the terms of free(1), smem(8) -w or\n"
	"                         slabtop(1), each difference named\n"
	"  -b, --backend NAME     auto (default: bpf, else kmod if loaded, else kpageflags),\n"
	"                         bpf, kmod or kpageflags\n"
	"      --runs             print runs of pages with one class: pfn, pages, class, sub-class\n"
	"      --features         print what was detected about the running kernel\n"
	"      --jobs N           walk with N workers in parallel (1 to 256; default: the\n"
	"                         CPUs, at most one per 16 memory sections; bpf: at most 19,\n"
	"                         whose state fits in 48 MiB)\n"
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
	"      --by KEY           pages per group: node, zone, fs, cgroup, pod (Kubernetes\n"
	"                         pods and containers), file, exec or slab (the slab\n"
	"                         caches, and large kmalloc)\n"
	"                         (one walk of every page's record; bpf or kmod backend);\n"
	"                         process: each process's mapped pages (PSS) by class;\n"
	"                         command: the same summed by process name; with\n"
	"                         --format prom, several --by from the one walk\n"
	"      --top N            with --by: the N largest groups, the rest summed as\n"
	"                         (other) (default: 20 for file, exec, slab and process,\n"
	"                         else all)\n"
	"      --min SIZE         with --by: groups under SIZE (MB; or with K, M, G) summed as\n"
	"                         (other) (default: only removed cgroups under 1 MB)\n"
	"      --tree             with --by cgroup: each row is a cgroup and its\n"
	"                         descendants, indented by depth\n"
	"      --oci-bundles DIR  with --by pod: where the containers' OCI bundles are\n"
	"                         (DIR/ID/config.json ...), for their names; repeatable\n"
	"                         (default: containerd's, k3s's, CRI-O's and Docker's)\n"
	"  -w, --wss SECONDS      which pages are accessed during a window of SECONDS, per\n"
	"                         class (MGLRU aging, the idle page bitmap or DAMON; bpf or\n"
	"                         kmod backend); with -o or -f,\n"
	"                         one sample per window, windows back to back\n"
	"      --core FILE        a crash dump's memory instead of the running kernel's: an\n"
	"                         ELF core (a saved /proc/vmcore, makedumpfile -E, QEMU's\n"
	"                         dump-guest-memory); with -v, --json, -a, --reconcile,\n"
	"                         --by node|zone|cgroup|fs|file|exec (cgroup: --tree),\n"
	"                         --runs, --jobs\n"
	"      --btf FILE         with --core: the dumped kernel's BTF (its\n"
	"                         /sys/kernel/btf/vmlinux, or a vmlinux; default: the running\n"
	"                         kernel's, when it is the dumped one)\n"
	"      --symbols FILE     with --core (--reconcile, --by, -a): the dumped kernel's System.map\n"
	"                         or vmlinux (default: its kallsyms, found through VMCOREINFO)\n"
	"  -V, --version          print the version\n"
	"  -h, --help             print this help\n"
	"\n"
	"Exit codes: 0 ok, 1 run-time failure (reading the kernel, writing the output),\n"
	"2 bad input (usage, an output file that cannot be used), 3 reconcile mismatch,\n"
	"4 missing privilege, 5 unsupported kernel layout.\n"
	"See memstat(8); the verbs: memstat-allpages(8), memstat-map(8), memstat-plot(8),\n"
	"memstat-rmss(8).\n";


bool ms_json_errors;

void ms_fail_json(const char *msg)
{
	if (!ms_json_errors)
		return;
	ms_jw_error_document(stdout, msg);
}

static const char serve_usage_text[] =
	"Usage: memstat serve [--listen ADDR:PORT] [--interval S] [--by KEY [--top N] [--min SIZE]\n"
	"                     [--oci-bundles DIR]]\n"
	"                     [-a] [--wss S] [--approx[=F] [--seed N]] [-b BACKEND] [--jobs N]\n"
	"Serve /metrics to Prometheus: walk every S seconds and answer each scrape with the\n"
	"last walk (a scrape costs no walk), in the series of memstat -f prom. The HTTP side\n"
	"runs as nobody; the walks stay root's.\n"
	"\n"
	"      --listen ADDR:PORT the address (default " MS_SERVE_DEFAULT_LISTEN ": loopback\n"
	"                         only; [::1]:PORT, or :PORT for every address)\n"
	"      --interval S       seconds between walks (default 15, from 1 to 86400)\n"
	"      --by KEY           the groups of KEY too (node, zone, fs, cgroup, pod, file,\n"
	"                         exec, slab), the top 50 (20 for file, exec, slab) and\n"
	"                         (other); repeatable: every key from the same walk\n"
	"      --top N, --min SIZE, --oci-bundles DIR  as memstat --by\n"
	"  -a, --attributes       the attributes' series\n"
	"  -w, --wss S            each walk after a window of S seconds (the interval): the\n"
	"                         working set's series (memstat --wss)\n"
	"      --approx[=F]       estimate from a sample of a fraction F of the pages, with\n"
	"                         each class's error (memstat --approx)\n"
	"      --seed N           with --approx: the seed of the first sample's choice\n"
	"  -b, --backend NAME     auto (default), bpf, kmod or kpageflags\n"
	"      --jobs N           walk with N workers\n"
	"  -h, --help             print this help\n"
	"\n"
	"See memstat-serve(8).\n";

static int parse_interval(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) || v <= 0)
		return ms_usage_error(NULL, "invalid interval '%s': expected a number of seconds above 0, "
				   "e.g. 1 or 0.5", arg);
	if (v < 0.01)
		return ms_usage_error(NULL, "interval '%s' is too short: the least is 0.01 s", arg);
	*out = v;
	return 0;
}

/* "10" (MB), "10M", "512K", "1.5G", "0": bytes; -1 for anything else */
static int parse_size(const char *arg, __u64 *out)
{
	double v, unit = 1 << 20;
	char *end;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || !isfinite(v) || v < 0 || !isdigit((unsigned char)*arg))
		return -1;
	if (*end && !end[1]) {
		const char *u = strchr("KMGT", toupper((unsigned char)*end));

		if (!u)
			return -1;
		unit = (double)(1ULL << (10 * (u - "KMGT" + 1)));
	} else if (*end) {
		return -1;
	}
	if (v * unit > 1e18)
		return -1;
	*out = (__u64)(v * unit);
	return 0;
}

static int parse_count(const char *arg, long *out)
{
	unsigned long long v;

	if (ms_parse_count(arg, 1, LONG_MAX, &v))
		return ms_usage_error(NULL, "invalid count '%s': expected a whole number above 0", arg);
	*out = (long)v;
	return 0;
}

_Static_assert(MS_NR_BY <= MS_NR_BY_KEYS, "struct ms_opts holds every key of --by");

bool ms_opts_by(const struct ms_opts *o, enum ms_by k)
{
	for (size_t i = 0; i < o->nby; i++)
		if (o->bys[i] == (int)k)
			return true;
	return false;
}

/* memstat serve: what it takes, and its defaults (a walk every 15 s, the prom series) */
static int serve_opts(struct ms_opts *o, int argc, char **argv)
{
	if (optind < argc)
		return ms_usage_error("serve", "unexpected argument '%s' (the interval is --interval "
				      "S)", argv[optind]);
	if (o->verbose || o->json || o->reconcile || o->runs || o->features || o->output ||
	    o->format >= 0 || o->fsync || o->rotate_incompatible || o->compare || o->tree ||
	    o->by_process)
		return ms_usage_error("serve", "%s", "serve takes --listen, --interval, --by, --top, "
				      "--min, --oci-bundles, -a, --wss, --approx, --seed, -b and --jobs");
	if (o->wss && (o->approx || o->backend == MS_BE_KPF))
		return ms_usage_error("serve", "%s", "--wss needs the bpf or kmod backend and no "
				      "--approx");
	if (o->wss && o->so.interval && o->so.interval != o->wss)
		return ms_usage_error("serve", "%s", "with --wss each walk follows its window: the "
				      "interval is --wss's (no --interval)");
	if (o->wss)
		o->so.interval = o->wss;
	if (o->approx && (o->by >= 0 || o->attributes || o->backend == MS_BE_KMOD ||
			  o->backend == MS_BE_KPF))
		return ms_usage_error("serve", "%s", "--approx needs the bpf backend and no --by or "
				      "-a");
	if (o->seed_given && !o->approx)
		return ms_usage_error("serve", "%s", "--seed needs --approx");
	if (o->approx)
		o->backend = MS_BE_BPF;	/* no fallback: the others walk every page */
	if (o->min_set && o->by < 0)
		return ms_usage_error("serve", "%s", "--min needs --by KEY");
	if (o->nbundle_dirs && !ms_opts_by(o, MS_BY_POD))
		return ms_usage_error("serve", "%s", "--oci-bundles needs --by pod");
	if (o->top && o->by < 0)
		return ms_usage_error("serve", "%s", "--top needs --by KEY");
	if ((o->by >= 0 || o->attributes) && o->backend == MS_BE_KPF)
		return ms_usage_error("serve", "%s", "--by and -a need the bpf or kmod backend");
	if (ms_opts_by(o, MS_BY_SLAB) && o->backend == MS_BE_KMOD)
		return ms_usage_error("serve", "%s", "--by slab needs the bpf backend");
	/* no --top: a bounded number of series all the same, (top + 2) x 9 per key, each key's
	 * default or 50 (ms_by_top()) */
	if (!o->listen)
		o->listen = MS_SERVE_DEFAULT_LISTEN;
	if (!o->so.interval)
		o->so.interval = 15;
	o->so.count = 0;
	o->sampling = true;
	o->format = MS_FMT_PROM;
	return 0;
}

int ms_parse_args(int argc, char **argv, struct ms_opts *o)
{
	enum { OPT_RUNS = 0x100, OPT_FEATURES, OPT_FSYNC, OPT_ROTATE_INCOMPATIBLE, OPT_APPROX, OPT_JOBS,
	       OPT_SEED, OPT_BY, OPT_TOP, OPT_TREE, OPT_MIN, OPT_COMPARE, OPT_LISTEN, OPT_INTERVAL,
	       OPT_OCI_BUNDLES, OPT_CORE, OPT_BTF, OPT_SYMBOLS };
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
		{ "min", required_argument, NULL, OPT_MIN },
		{ "compare", required_argument, NULL, OPT_COMPARE },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "oci-bundles", required_argument, NULL, OPT_OCI_BUNDLES },
		{ "wss", required_argument, NULL, 'w' },
		{ "core", required_argument, NULL, OPT_CORE },
		{ "btf", required_argument, NULL, OPT_BTF },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err;

	memset(o, 0, sizeof(*o));
	o->format = -1;
	o->by = -1;
	opterr = 0;
	if (argc > 1 && !strcmp(argv[1], "serve")) {	/* memstat serve: argv[0] is "serve" */
		o->serve = true;
		argc--;
		argv++;
	}
	/* "memstat -1" or "-0.5" is a negative interval, not a cluster of options */
	for (c = 1; c < argc && strcmp(argv[c], "--"); c++) {
		const char *a = argv[c];

		if (!strcmp(a, "-o") || !strcmp(a, "-f") || !strcmp(a, "-b") ||
		    !strcmp(a, "--output") || !strcmp(a, "--format") || !strcmp(a, "--backend") ||
		    !strcmp(a, "--seed") || !strcmp(a, "--jobs") || !strcmp(a, "--by") ||
		    !strcmp(a, "--top") || !strcmp(a, "--min") || !strcmp(a, "--compare") ||
		    !strcmp(a, "--oci-bundles") || !strcmp(a, "-w") || !strcmp(a, "--wss") ||
		    !strcmp(a, "--listen") || !strcmp(a, "--interval") || !strcmp(a, "--core") ||
		    !strcmp(a, "--btf")) {
			c++;	/* the next word is this option's argument */
			continue;
		}
		if (a[0] == '-' && (isdigit((unsigned char)a[1]) || a[1] == '.'))
			return ms_usage_error(NULL, "invalid interval or count '%s': expected a number "
					   "above 0", a);
	}
	while ((c = getopt_long(argc, argv, ":vajrb:o:f:w:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			o->verbose = true;
			break;
		case 'a':
			o->attributes = true;
			break;
		case 'w':
			if (ms_wss_parse_seconds(optarg, &o->wss))
				return ms_usage_error(NULL, MS_WSS_BAD_SECONDS, optarg);
			break;
		case 'j':
			o->json = true;
			break;
		case 'r':
			o->reconcile = true;
			break;
		case 'b':
			if (ms_backend_parse(optarg, &o->backend))
				return ms_usage_error(NULL, "unknown backend '%s' (expected auto, bpf, kmod or "
						   "kpageflags)", optarg);
			break;
		case 'o':
			if (!*optarg)
				return ms_usage_error(NULL, "%s", "--output needs a file name");
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
				return ms_usage_error(NULL, "unknown format '%s' (expected csv, jsonl or prom)",
						   optarg);
			break;
		case OPT_RUNS:
			o->runs = true;
			break;
		case OPT_FEATURES:
			o->features = true;
			break;
		case OPT_JOBS: {
			unsigned long long v;

			if (ms_parse_count(optarg, 1, MS_JOBS_MAX, &v))
				return ms_usage_error(NULL, "invalid --jobs '%s': expected a whole "
						      "number of workers from 1 to 256", optarg);
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
				return ms_usage_error(NULL, "invalid --approx fraction '%s': expected a number "
						   "from 0.001 to 1, e.g. --approx=0.05", optarg);
			o->approx = true;
			break;
		case OPT_SEED: {
			unsigned long long v;

			if (ms_parse_count(optarg, 0, ULLONG_MAX, &v))
				return ms_usage_error(NULL, "invalid seed '%s': expected a whole number "
						      "from 0 to 18446744073709551615", optarg);
			o->seed = v;
			o->seed_given = true;
			break;
		}
		case OPT_BY: {
			enum ms_by by;
			bool proc = !strcmp(optarg, "process") || !strcmp(optarg, "command");

			if (proc && o->by_process)
				return ms_usage_error(NULL, "%s", "--by process and command: one of them");
			if (proc) {	/* not a key of the group engine: procs.c */
				o->by_process = true;
				o->by_command = !strcmp(optarg, "command");
				break;
			}
			if (ms_by_parse(optarg, &by))
				return ms_usage_error(NULL, "unknown --by key '%s' (expected node, zone, fs, "
						   "cgroup, pod, file, exec, slab, process or "
						   "command)",
						   optarg);
			for (size_t i = 0; i < o->nby; i++)
				if (o->bys[i] == (int)by)
					return ms_usage_error(NULL, "--by %s given twice", optarg);
			o->bys[o->nby++] = (int)by;
			o->by = o->bys[0];
			break;
		}
		case OPT_TOP: {
			unsigned long long v;

			if (ms_parse_count(optarg, 1, 1000000, &v))
				return ms_usage_error(NULL, "invalid --top '%s': expected a whole number "
						      "of groups from 1 to 1000000", optarg);
			o->top = (size_t)v;
			break;
		}
		case OPT_TREE:
			o->tree = true;
			break;
		case OPT_COMPARE:
			o->compare = !strcmp(optarg, "free") ? MS_CMP_FREE :
				     !strcmp(optarg, "smem") ? MS_CMP_SMEM :
				     !strcmp(optarg, "slabtop") ? MS_CMP_SLABTOP : MS_CMP_NONE;
			if (!o->compare)
				return ms_usage_error(NULL, "unknown --compare tool '%s' (expected free, "
						      "smem or slabtop; /proc/meminfo itself: "
						      "--reconcile)", optarg);
			break;
		case OPT_MIN:
			if (parse_size(optarg, &o->min_bytes))
				return ms_usage_error(NULL, "invalid --min '%s': expected a size in MB, "
						      "or with a unit: 512K, 10M, 1G", optarg);
			o->min_set = true;
			break;
		case 'V':
			printf("memstat %s\n", MEMSTAT_VERSION);
			exit(MS_EXIT_OK);
		case OPT_LISTEN:
			o->listen = optarg;
			break;
		case OPT_OCI_BUNDLES:
			if (o->nbundle_dirs == MS_MAX_BUNDLE_DIRS)
				return ms_usage_error(NULL, "--oci-bundles given more than %d times",
						      MS_MAX_BUNDLE_DIRS);
			if (!*optarg)
				return ms_usage_error(NULL, "%s", "--oci-bundles needs a directory");
			o->bundle_dirs[o->nbundle_dirs++] = optarg;
			break;
		case OPT_CORE:
		case OPT_BTF:
		case OPT_SYMBOLS:
			if (!*optarg)
				return ms_usage_error(NULL, "%s needs a file name", c == OPT_CORE ?
						      "--core" : c == OPT_BTF ? "--btf" : "--symbols");
			*(c == OPT_CORE ? &o->core : c == OPT_BTF ? &o->btf : &o->symbols) = optarg;
			break;
		case OPT_INTERVAL:
			err = parse_interval(optarg, &o->so.interval);
			if (err)
				return err;
			if (o->so.interval < 1 || o->so.interval > 86400)
				return ms_usage_error("serve", "invalid --interval '%s': expected seconds "
						      "from 1 to 86400", optarg);
			break;
		case 'h':
			fputs(o->serve ? serve_usage_text : usage_text, stdout);
			exit(MS_EXIT_OK);
		case ':':
			return ms_usage_error(NULL, "option '%s' needs an argument", argv[optind - 1]);
		default:
			return ms_usage_error(NULL, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->serve)
		return serve_opts(o, argc, argv);
	if (o->listen || o->so.interval)
		return ms_usage_error(NULL, "%s", "--listen and --interval are memstat serve's");
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
		return ms_usage_error(NULL, "unexpected argument '%s'", argv[optind]);
	if (o->output || o->format >= 0)
		o->sampling = true;
	if (o->wss && o->sampling) {
		/* each sample is a window, the next opening where it closes: the interval */
		if (o->so.interval && o->so.interval != o->wss)
			return ms_usage_error(NULL, "with --wss each sample is a window of --wss's "
					      "seconds: give no interval or %g", o->wss);
		o->so.interval = o->wss;
	}
	if (o->sampling && !o->so.interval && !o->so.count)
		o->so.count = 1;	/* -o/--format without an interval: one sample */
	if (o->runs && (o->json || o->reconcile || o->features || o->sampling))
		return ms_usage_error(NULL, "%s", "--runs cannot be combined with --json, --reconcile, "
				   "--features, an interval or an output format");
	if (o->features && (o->json || o->reconcile || o->sampling || o->backend == MS_BE_KPF))
		return ms_usage_error(NULL, "%s", "--features cannot be combined with --json, --reconcile, "
				   "an interval, an output format or --backend kpageflags");
	if (o->sampling && o->reconcile)
		return ms_usage_error(NULL, "%s", "--reconcile is for one summary; it cannot be combined "
				   "with an interval or an output format");
	if (o->sampling && o->json) {
		if (o->format >= 0 && o->format != MS_FMT_JSONL)
			return ms_usage_error(NULL, "%s", "--json conflicts with --format csv/prom");
		o->format = MS_FMT_JSONL;
	}
	if (o->fsync && !o->output)
		return ms_usage_error(NULL, "%s", "--fsync needs --output FILE");
	if (o->output) {
		char why[300];

		/* before memstat opens a descriptor of its own that could take N */
		if (ms_out_check_fd(o->output, why, sizeof(why)))
			return ms_usage_error(NULL, "%s", why);
	}
	if (o->seed_given && !o->approx)
		return ms_usage_error(NULL, "%s", "--seed needs --approx");
	if (o->approx && o->reconcile)
		return ms_usage_error(NULL, "%s", "--approx cannot be combined with --reconcile: an estimate's "
				   "error can exceed the reconciliation's tolerance (reconcile an "
				   "exact walk)");
	if (o->approx && (o->backend == MS_BE_KMOD || o->backend == MS_BE_KPF))
		return ms_usage_error(NULL, "%s", "--approx needs the bpf backend");
	if (o->approx)
		o->backend = MS_BE_BPF;	/* no fallback: the others walk every page */
	if (o->rotate_incompatible && (!o->output || o->format == MS_FMT_PROM))
		return ms_usage_error(NULL, "%s", "--rotate-incompatible needs --output FILE with --format csv "
				   "or jsonl");
	if (o->format < 0)
		o->format = o->output ? MS_FMT_CSV : MS_FMT_ROWS;
	if (o->tree && !ms_opts_by(o, MS_BY_CGROUP))
		return ms_usage_error(NULL, "%s", "--tree needs --by cgroup");
	if (o->tree && o->top)
		return ms_usage_error(NULL, "%s", "--tree shows every cgroup with pages: it cannot be "
				   "combined with --top");
	if (o->top && o->by < 0 && !o->by_process)
		return ms_usage_error(NULL, "%s", "--top needs --by KEY");
	if (o->nbundle_dirs && !ms_opts_by(o, MS_BY_POD))
		return ms_usage_error(NULL, "%s", "--oci-bundles needs --by pod");
	if (o->compare && (o->sampling || o->runs || o->features || o->by >= 0 || o->by_process ||
			   o->approx))
		return ms_usage_error(NULL, "%s", "--compare is of one exact walk's summary: not with an "
				      "interval, --runs, --features, --by or --approx");
	if (o->min_set && o->by < 0 && !o->by_process)
		return ms_usage_error(NULL, "%s", "--min needs --by KEY");
	if (o->min_set && o->tree)
		return ms_usage_error(NULL, "%s", "--tree shows every cgroup with pages: it cannot be "
				   "combined with --min");
	if (o->attributes) {
		if (o->backend == MS_BE_KPF)
			return ms_usage_error(NULL, "%s", "-a needs the bpf or kmod backend: /proc/kpageflags "
					   "has no per-page records");
		if (o->runs || o->features || o->approx)
			return ms_usage_error(NULL, "%s", "-a cannot be combined with --runs, --features or "
					   "--approx");
	}
	if (o->wss && (o->runs || o->features || o->reconcile || o->approx || o->compare))
		return ms_usage_error(NULL, "%s", "--wss is of the classes, groups and processes: "
				      "not with --runs, --features, --reconcile, --compare or "
				      "--approx");
	if (o->wss && o->backend == MS_BE_KPF)
		return ms_usage_error(NULL, "%s", "--wss needs the bpf or kmod backend: "
				      "/proc/kpageflags has no per-page records");
	if (o->by_process && (o->runs || o->features || o->reconcile || o->approx || o->attributes))
		return ms_usage_error(NULL, "--by %s is a walk and a read of the processes: not "
				      "with --runs, --features, --reconcile, --approx or -a",
				      o->by_command ? "command" : "process");
	if (o->by_process && o->sampling && o->format != MS_FMT_JSONL && o->format != MS_FMT_PROM)
		return ms_usage_error(NULL, "--by %s with an interval or -o needs --format jsonl or "
				      "prom (csv and the terminal rows have no process columns)",
				      o->by_command ? "command" : "process");
	if (o->by >= 0) {
		if (o->backend == MS_BE_KPF)
			return ms_usage_error(NULL, "%s", "--by needs the bpf or kmod backend: "
					   "/proc/kpageflags has no per-page owner records");
		if (ms_opts_by(o, MS_BY_SLAB) && o->backend == MS_BE_KMOD)
			return ms_usage_error(NULL, "%s", "--by slab needs the bpf backend: the kernel "
					      "module's records hold no pointer to a slab's cache");
		if (o->runs || o->features || o->reconcile || o->approx)
			return ms_usage_error(NULL, "%s", "--by cannot be combined with --runs, --features, "
					   "--reconcile or --approx");
		if (o->sampling && o->format != MS_FMT_JSONL && o->format != MS_FMT_PROM)
			return ms_usage_error(NULL, "%s", "--by with an interval or -o needs --format jsonl "
					   "or prom (csv and the terminal rows have no group columns)");
	}
	if ((o->btf || o->symbols) && !o->core)
		return ms_usage_error(NULL, "%s needs --core FILE", o->btf ? "--btf" : "--symbols");
	if (o->core && (o->sampling || o->by_process || o->wss || o->compare ||
			o->approx || o->features || o->backend != MS_BE_AUTO ||
			(o->reconcile && o->runs) || (o->attributes && (o->runs || o->by >= 0)) ||
			(o->by >= 0 && (o->nby > 1 || o->by == MS_BY_SLAB || o->by == MS_BY_POD))))
		return ms_usage_error(NULL, "%s", "--core reads a dump: the summary, with -v, --json, "
				      "-a, --reconcile, --by node|zone|cgroup|fs|file|exec (cgroup with "
				      "--tree), --runs or --jobs (not "
				      "an interval, -o, -f, another --by, --wss, --compare, "
				      "--approx, --features or --backend, nor --reconcile or -a with "
				      "--runs, nor -a with --by)");
	if (o->nby + o->by_process > 1 && !(o->sampling && o->format == MS_FMT_PROM))
		return ms_usage_error(NULL, "%s", "--by given more than once: only with --format prom "
				      "or in memstat serve (a table or a JSON document has one key)");
	return 0;
}
