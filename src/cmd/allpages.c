// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat allpages: one record per physical page, like Solaris `::walk allpages | ::page` or
 * `page-types -L`, from the same walk and classifier as the summary. Kernel addresses are printed
 * only with --raw-pointers (they reveal the KASLR offset).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <bpf/btf.h>

#include "memstat_int.h"
#include "report.h"
#include "groups.h"
#include "backend.h"
#include "attrs.h"
#include "cgroup.h"
#include "procs.h"
#include "files.h"
#include "pagefmt.h"
#include "wss.h"
#include "dump_meminfo.h"
#include "dump_walk.h"
#include "vmcore.h"

#define MS_ALLPAGES_MAX_JOBS 256
#define MS_STR_(x) #x
#define MS_STR(x) MS_STR_(x)

struct dumper {
	struct ms_pagefmt pf;		/* the format, flag names and zones */
	__u32 want;			/* bitmask of enum ms_sub to print */
	__u64 first, last;		/* --pfn, inclusive */
	bool by_file;			/* --file / --inode: only the pages of file (fdev, fino) */
	__u32 fdev;			/* s_dev: major << 20 | minor */
	__u64 fino;
	bool by_cgroup;			/* --cgroup: only the pages charged to memcg cgroup */
	__u64 cgroup;
	bool by_pid;			/* --pid: only the pages process pid maps */
	int pid;
	__u64 *pid_pfns;		/* ... sorted, each once (procs.c) */
	size_t npid_pfns, pid_at;	/* pid_at: the cursor (records come in pfn order) */
	__u64 printed;
	__u64 sub[MS_NR_SUBS];		/* classes of the printed records */
	struct ms_pagefmt_pipe *pipe;	/* formats and writes the records */
	struct ms_zone *zones;
	/*
	 * The pinned column: folio_maybe_dma_pinned() as memstat -a tells it (attrs.c). A large
	 * folio's pin count is in its first tail page, so its head's record waits for the next.
	 */
	struct ms_attr_facts facts;
	bool pin_known;			/* BTF gave the positions */
	__u64 fol_head;			/* the large folio being walked (~0: none) */
	int fol_pin;			/* its pinned value: 1, 0, -1 not known */
	bool held;			/* a head record waits for its first tail page */
	__u64 held_pfn;
	struct ms_page_rec held_rec;
	int held_wss;
	struct ms_wss *wss;		/* --wss: the window, whose verdicts fill the wss column */
};

static const char usage_text[] =
	"Usage: memstat allpages [OPTIONS]\n"
	"Print one record per physical page.\n"
	"\n"
	"      --pfn START-END    only pages START to END, inclusive (hex 0x... or decimal)\n"
	"      --class LIST       only these classes or sub-classes, comma separated\n"
	"                         (kernel,anon,shmem,exec,page_cache,hugetlb,free or a detail key)\n"
	"      --file PATH        only the pages of the file PATH (its device and inode)\n"
	"      --inode DEV:INO    only the pages of inode INO of device DEV (MAJOR:MINOR:INO)\n"
	"      --cgroup PATH|ID   only the pages charged to this memory cgroup: its path\n"
	"                         (e.g. /system.slice), its directory, or its id\n"
	"      --pid PID          only the pages process PID maps (its page tables, read\n"
	"                         before the walk)\n"
	"  -f, --format FMT       text (default), csv or jsonl\n"
	"  -b, --backend NAME     auto (default: bpf, else kmod if loaded), bpf or kmod\n"
	"      --core FILE        the pages of a crash dump instead (see memstat --core)\n"
	"      --btf FILE         with --core: the dumped kernel's BTF\n"
	"      --symbols FILE     with --core: its System.map or vmlinux (default: its\n"
	"                         kallsyms)\n"
	"      --summary          print the class totals of the same walk at the end\n"
	"                         (on stdout for text, on stderr for csv and jsonl)\n"
	"  -w, --wss SECONDS      add a wss column: accessed, idle, unseen or untracked in a\n"
	"                         window of SECONDS (1 to 86400) before the walk (MGLRU)\n"
	"      --jobs N           format the records in N threads (default: one for each\n"
	"                         online CPU but the one that walks, at least 1)\n"
	"      --raw-pointers     add the raw struct page words, mapping and memcg pointers:\n"
	"                         SENSITIVE, kernel addresses reveal the KASLR offset\n"
	"  -h, --help             print this help\n"
	"\n"
	"See memstat-allpages(8).\n";

/* ---- page facts ---- */

/* the flags' names for the page records (ms_btf_flag_names()) */
static void set_flag_names(struct dumper *d, const char names[64][MS_FLAG_NAME_LEN],
			   unsigned int nr)
{
	d->pf.nr_flags = nr;
	for (int i = 0; i < 64; i++)
		if (names[i][0])
			d->pf.flag_name[i] = strdup(names[i]);
}

static int load_flag_names(struct dumper *d)
{
	struct btf *btf = ms_kernel_btf();
	char names[64][MS_FLAG_NAME_LEN];
	unsigned int nr;
	int err;

	if (!btf)
		return -errno;
	err = ms_btf_flag_names(btf, names, &nr);
	btf__free(btf);
	if (!err)
		set_flag_names(d, names, nr);
	return err;
}

/* Zones and nodes from /proc/zoneinfo (ranges.c). */
static int load_zones(struct dumper *d)
{
	int err = ms_zones_read("/proc/zoneinfo", &d->zones, &d->pf.nzones);

	d->pf.zones = d->zones;
	return err;
}

/* ---- records ---- */

/* --pid: is pfn one the process maps? (asked in pfn order: a cursor, no search) */
static bool pid_maps(struct dumper *d, __u64 pfn)
{
	while (d->pid_at < d->npid_pfns && d->pid_pfns[d->pid_at] < pfn)
		d->pid_at++;
	return d->pid_at < d->npid_pfns && d->pid_pfns[d->pid_at] == pfn;
}

/* Is the page printed (and counted for --summary)? */
static bool wanted(struct dumper *d, __u64 pfn, const struct ms_page_rec *r)
{
	return pfn >= d->first && pfn <= d->last && r->valid && r->sub < MS_NR_SUBS &&
	       (d->want & (1U << r->sub)) &&
	       (!d->by_file || (r->dev == d->fdev && r->ino == d->fino && (r->ino || r->dev))) &&
	       (!d->by_cgroup || r->cgroup == d->cgroup) && (!d->by_pid || pid_maps(d, pfn));
}

static int emit(struct dumper *d, __u64 pfn, const struct ms_page_rec *r, int pinned, int wss)
{
	if (!wanted(d, pfn, r))
		return 0;
	d->printed++;
	d->sub[r->sub]++;
	return ms_pagefmt_pipe_page(d->pipe, pfn, r, pinned, wss);
}

/* The held head record, with what its first tail page told (or -1: it did not come). */
static int flush_held(struct dumper *d)
{
	if (!d->held)
		return 0;
	d->held = false;
	return emit(d, d->held_pfn, &d->held_rec, d->fol_pin, d->held_wss);
}

/* --wss: the window's verdict of the page (its counts kept too, as memstat --wss does) */
static int wss_of(struct dumper *d, __u64 pfn, const struct ms_page_rec *r)
{
	if (!d->wss)
		return MS_PF_WSS_NA;
	ms_wss_page(d->wss, pfn, r);
	switch (d->wss->verdict) {
	case MS_WSS_ACCESSED:
		return MS_PF_WSS_ACCESSED;
	case MS_WSS_IDLE:
		return MS_PF_WSS_IDLE;
	case MS_WSS_UNSEEN:
		return MS_PF_WSS_UNSEEN;
	case MS_WSS_UNTRACKED:	/* a class it sees, on no list it can tell */
		return MS_PF_WSS_UNTRACKED;
	default:		/* MS_WSS_NONE: a class it cannot see */
		return MS_PF_WSS_NA;
	}
}

static int on_page(void *arg, __u64 pfn, const struct ms_page_rec *r)
{
	struct dumper *d = arg;
	bool mine = r->valid && r->role == MS_ROLE_TAIL && r->head_pfn == d->fol_head;
	bool free_page = !r->valid || r->role == MS_ROLE_FREE_HEAD ||
			 r->role == MS_ROLE_FREE_TAIL || (r->sub < MS_NR_SUBS &&
							  ms_subs[r->sub].cls == MS_C_FREE);
	int ret, wss = wss_of(d, pfn, r);

	if (!d->pin_known)
		return emit(d, pfn, r, -1, wss);
	/* the first tail page of a large folio: its pin count (a walk may begin past it) */
	if (r->valid && r->role == MS_ROLE_TAIL && pfn == r->head_pfn + (__u64)d->facts.pincount_page) {
		d->fol_head = r->head_pfn;
		d->fol_pin = ms_attrs_large_pinned(&d->facts, r);
		mine = true;
	}
	ret = flush_held(d);
	if (ret)
		return ret;
	if (free_page) {	/* a hole: not known; a free page: no pin */
		d->fol_head = ~0ULL;
		return emit(d, pfn, r, r->valid ? 0 : -1, wss);
	}
	if (mine)
		return emit(d, pfn, r, d->fol_pin, wss);
	if (r->role == MS_ROLE_HEAD) {
		d->fol_head = pfn;
		d->fol_pin = -1;
		d->held = true;
		d->held_pfn = pfn;
		d->held_rec = *r;
		d->held_wss = wss;
		return 0;
	}
	if (r->role == MS_ROLE_TAIL) {	/* of a folio whose first tail page was not walked */
		d->fol_head = r->head_pfn;
		d->fol_pin = -1;
		return emit(d, pfn, r, -1, wss);
	}
	d->fol_head = ~0ULL;
	return emit(d, pfn, r, ms_attrs_small_pinned(&d->facts, r), wss);
}

/* --pid: the pages the process maps, from its page tables (0, or the exit code, said) */
static int read_pid_pfns(struct dumper *d)
{
	int err;

	free(d->pid_pfns);
	d->pid_pfns = NULL;
	d->npid_pfns = d->pid_at = 0;
	err = ms_proc_pfns(d->pid, &d->pid_pfns, &d->npid_pfns);
	if (err == -ESRCH)
		return ms_usage_error("allpages", "no process %d", d->pid);
	if (err) {
		ms_err("--pid %d: failed to read its page tables: %s", d->pid, strerror(-err));
		return err == -EACCES || err == -EPERM ? MS_EXIT_PERM : MS_EXIT_FAIL;
	}
	return 0;
}

/* ---- options ---- */

/* A pfn: digits, hex with 0x; strtoull() alone would also take " -1" (as 2^64 - 1) or "+1". */
static int parse_pfn(const char *s, __u64 *v, char **end)
{
	errno = 0;
	*v = strtoull(s, end, 0);
	return *end == s || errno || !isdigit((unsigned char)*s) ? -1 : 0;
}

static int parse_class_list(const char *arg, __u32 *want)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int c, i, found;

	*want = 0;
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		found = 0;
		for (c = 0; c < MS_NR_CLASSES; c++) {
			if (strcmp(tok, ms_classes[c].key))
				continue;
			for (i = 0; i < MS_NR_SUBS; i++)
				if (ms_subs[i].cls == (enum ms_class)c)
					*want |= 1U << i;
			found = 1;
		}
		for (i = 0; i < MS_NR_SUBS; i++) {
			if (!strcmp(tok, ms_subs[i].key)) {
				*want |= 1U << i;
				found = 1;
			}
		}
		/* kernel_slab: all slab, as in --json's detail; the unreclaimable part by its name */
		if (!strcmp(tok, "kernel_slab"))
			*want |= 1U << MS_KERNEL_SLAB_RECLAIM;
		if (!strcmp(tok, "kernel_slab_unreclaimable")) {
			*want |= 1U << MS_KERNEL_SLAB;
			found = 1;
		}
		if (!found) {
			int ret = ms_usage_error("allpages", "unknown class '%s' (expected kernel, anon, shmem, exec, "
					      "page_cache, hugetlb, free or a detail key such as "
					      "kernel_slab)", tok);

			free(copy);
			return ret;
		}
	}
	free(copy);
	return *want ? 0 : ms_usage_error("allpages", "%s", "--class needs at least one class");
}

/*
 * --cgroup PATH|ID: a path (as --by cgroup prints it, or the cgroup's directory) must name a
 * cgroup of the memory hierarchy now; an id need not (a removed cgroup's pages keep its id).
 */
static int parse_cgroup(const char *arg, struct dumper *d)
{
	struct ms_cgroups cg;
	int err = ms_cgroups_load(&cg);
	bool mounted;

	if (err && err != -ENOENT) {
		ms_err("failed to read the memory cgroup hierarchy: %s", strerror(-err));
		ms_cgroups_free(&cg);
		return MS_EXIT_FAIL;
	}
	err = ms_cgroup_resolve(&cg, arg, &d->cgroup);
	mounted = cg.n > 0;
	ms_cgroups_free(&cg);
	if (err)
		return ms_usage_error("allpages", mounted || isdigit((unsigned char)*arg) ?
				   "no memory cgroup '%s' (expected its path as --by cgroup prints "
				   "it, e.g. /system.slice, its directory, or its id)" :
				   "no memory cgroup '%s' (no memory cgroup hierarchy is mounted: "
				   "give the cgroup's id)", arg);
	d->by_cgroup = true;
	return 0;
}

/*
 * --core: what the live run takes from the kernel, from the dump: its types' features and flag
 * names, its own zones (the node and zone columns; none where its symbols cannot be read), and
 * where its BTF places a folio's _pincount (the pinned column)
 */
static void dump_setup(struct dumper *d, struct ms_core *c, const char *symbols)
{
	const struct ms_dump_types *t = &c->t;
	char why[512];

	if (ms_dump_zones(&c->d, t, symbols, &d->zones, &d->pf.nzones, why, sizeof(why)) == MS_EXIT_OK)
		d->pf.zones = d->zones;
	d->pf.feat = &t->f;
	d->facts = t->attr_facts;	/* the pinned column: the dumped kernel's _pincount */
	d->pin_known = t->attr_facts_ok && d->facts.pincount_page == 1;
	d->fol_head = ~0ULL;
	set_flag_names(d, t->flag_name, (unsigned int)t->nr_flags);
}

/* Restrict the present ranges to [first, last]; none left is an error. */
static int clip_ranges(const struct ms_ranges *all, __u64 first, __u64 last, struct ms_ranges *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->r = calloc(all->n ? all->n : 1, sizeof(*out->r));
	if (!out->r)
		return -ENOMEM;
	for (i = 0; i < all->n; i++) {
		__u64 s = all->r[i].start > first ? all->r[i].start : first;
		__u64 e = last == ~0ULL || all->r[i].end <= last ? all->r[i].end : last + 1;

		if (s >= e)
			continue;
		out->r[out->n].start = s;
		out->r[out->n].end = e;
		out->pages += e - s;
		out->n++;
	}
	return out->n ? 0 : -ERANGE;
}

int ms_allpages_main(int argc, char **argv, const struct ms_ranges *present)
{
	enum { OPT_PFN = 0x100, OPT_CLASS, OPT_SUMMARY, OPT_RAW, OPT_JOBS, OPT_FILE, OPT_INODE, OPT_CGROUP,
	       OPT_PID, OPT_CORE, OPT_BTF, OPT_SYMBOLS };
	struct ms_core core = {};
	const char *core_path = NULL, *btf_path = NULL, *symbols_path = NULL;
	bool live_only = false, backend_given = false;
	struct ms_wss wss = {};
	double wss_s = 0;
	static const struct option longopts[] = {
		{ "pfn", required_argument, NULL, OPT_PFN },
		{ "class", required_argument, NULL, OPT_CLASS },
		{ "file", required_argument, NULL, OPT_FILE },
		{ "inode", required_argument, NULL, OPT_INODE },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "format", required_argument, NULL, 'f' },
		{ "backend", required_argument, NULL, 'b' },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "raw-pointers", no_argument, NULL, OPT_RAW },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "wss", required_argument, NULL, 'w' },
		{ "core", required_argument, NULL, OPT_CORE },
		{ "btf", required_argument, NULL, OPT_BTF },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dumper *d = calloc(1, sizeof(*d));
	struct ms_report_opts ro = {};
	struct ms_ranges ranges = {};
	struct ms_result res;
	enum ms_backend_choice backend = MS_BE_AUTO;
	struct ms_backend be = {};
	bool summary = false;
	char why[512], hdr[MS_PAGEFMT_REC_MAX];
	struct stat st;
	/*
	 * The walk, in this thread, is the longest part: leave its CPU to it (on 2 CPUs, csv of
	 * 24 GiB takes 0.42 s with one formatting thread, 0.49 s with two).
	 */
	long jobs = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	int c, werr, ret = MS_EXIT_USAGE;

	if (!d) {
		ms_err("out of memory");
		return MS_EXIT_FAIL;
	}
	d->want = (1U << MS_NR_SUBS) - 1;
	d->first = 0;
	d->last = ~0ULL;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:b:hw:", longopts, NULL)) != -1) {
		unsigned long long njobs;
		char *end;

		switch (c) {
		case OPT_PFN:
			if (parse_pfn(optarg, &d->first, &end) || *end != '-' ||
			    parse_pfn(end + 1, &d->last, &end) || *end || d->first > d->last) {
				ret = ms_usage_error("allpages", "invalid pfn range '%s': expected START-END, e.g. "
						  "0x100000-0x1fffff", optarg);
				goto out;
			}
			break;
		case OPT_CLASS:
			ret = parse_class_list(optarg, &d->want);
			if (ret)
				goto out;
			break;
		case OPT_FILE: {
			int err = ms_file_stat(optarg, &d->fdev, &d->fino);

			if (err) {
				fprintf(stderr, "memstat: --file '%s': %s\n", optarg, strerror(-err));
				ret = MS_EXIT_USAGE;
				goto out;
			}
			d->by_file = true;
			live_only = true;	/* the running system's file */
			break;
		}
		case OPT_CORE:
		case OPT_BTF:
		case OPT_SYMBOLS:
			if (!*optarg) {
				ret = ms_usage_error("allpages", "%s needs a file name",
						     c == OPT_CORE ? "--core" : c == OPT_BTF ?
						     "--btf" : "--symbols");
				goto out;
			}
			*(c == OPT_CORE ? &core_path : c == OPT_BTF ? &btf_path : &symbols_path) =
				optarg;
			break;
		case OPT_CGROUP:
			ret = parse_cgroup(optarg, d);
			if (ret)
				goto out;
			live_only = true;
			break;
		case OPT_PID: {
			unsigned long long v;

			if (ms_parse_count(optarg, 1, 4194304, &v)) {	/* PID_MAX_LIMIT */
				ret = ms_usage_error("allpages", "invalid --pid '%s': expected a process "
						     "id from 1 to 4194304", optarg);
				goto out;
			}
			d->pid = (int)v;
			d->by_pid = true;
			live_only = true;
			break;
		}
		case OPT_INODE:
			if (ms_file_parse_inode(optarg, &d->fdev, &d->fino)) {
				ret = ms_usage_error("allpages", "invalid --inode '%s': expected MAJOR:MINOR:INODE, "
						  "e.g. 254:0:1234 (decimal)", optarg);
				goto out;
			}
			d->by_file = true;
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				d->pf.fmt = MS_PF_TEXT;
			else if (!strcmp(optarg, "csv"))
				d->pf.fmt = MS_PF_CSV;
			else if (!strcmp(optarg, "jsonl"))
				d->pf.fmt = MS_PF_JSONL;
			else {
				ret = ms_usage_error("allpages", "unknown format '%s' (expected text, csv or jsonl)",
						  optarg);
				goto out;
			}
			break;
		case 'b':
			if (ms_backend_parse(optarg, &backend) || backend == MS_BE_KPF) {
				ret = ms_usage_error("allpages", "unknown backend '%s' (allpages: auto, bpf or kmod)",
						  optarg);
				goto out;
			}
			backend_given = true;
			break;
		case OPT_SUMMARY:
			summary = true;
			break;
		case 'w':
			if (ms_wss_parse_seconds(optarg, &wss_s)) {
				ret = ms_usage_error("allpages", MS_WSS_BAD_SECONDS, optarg);
				goto out;
			}
			break;
		case OPT_RAW:
			d->pf.raw = true;
			break;
		case OPT_JOBS:
			if (ms_parse_count(optarg, 1, MS_ALLPAGES_MAX_JOBS, &njobs)) {
				ret = ms_usage_error("allpages", "invalid --jobs '%s': expected a number of threads "
						  "from 1 to " MS_STR(MS_ALLPAGES_MAX_JOBS), optarg);
				goto out;
			}
			jobs = (long)njobs;
			break;
		case 'h':
			fputs(usage_text, stdout);
			ret = MS_EXIT_OK;
			goto out;
		case ':':
			ret = ms_usage_error("allpages", "option '%s' needs an argument", argv[optind - 1]);
			goto out;
		default:
			ret = ms_usage_error("allpages", "unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (optind < argc) {
		ret = ms_usage_error("allpages", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if ((btf_path || symbols_path) && !core_path) {
		ret = ms_usage_error("allpages", "%s needs --core FILE", btf_path ? "--btf" :
				     "--symbols");
		goto out;
	}
	if (core_path && (live_only || wss_s || backend_given)) {
		ret = ms_usage_error("allpages", "%s", "--core reads a dump: not with --file, --cgroup, "
				     "--pid, --wss or --backend (--inode names a dump's file)");
		goto out;
	}
	if (core_path) {	/* a dump's memory, types and flag names (vmcore.c) */
		ret = ms_core_open(core_path, btf_path, symbols_path, &core);
		if (ret)
			goto out;
		present = &core.r;
	}
	if (clip_ranges(present, d->first, d->last, &ranges)) {
		char msg[160];

		snprintf(msg, sizeof(msg), "%#llx-%#llx",
			 (unsigned long long)d->first, (unsigned long long)d->last);
		fputs("memstat: ", stderr);
		fprintf(stderr, "pfn range %s holds no present memory (present pfns end at %#llx)\n",
			msg, (unsigned long long)(present->n ? present->r[present->n - 1].end - 1 : 0));
		ret = MS_EXIT_USAGE;
		goto out;
	}

	/* --wss: a mechanism, or exit 5 naming what each lacks, before anything is opened */
	if (wss_s) {	/* DAMON: totals only, no page's verdict */
		int mech = ms_wss_mechanism(why, sizeof(why));

		if (mech == MS_WSS_DAMON)
			snprintf(why, sizeof(why), "allpages --wss: %s", MS_WSS_DAMON_TOTALS);
		if (mech < 0 || mech == MS_WSS_DAMON) {
			ms_err("%s", why);
			ret = MS_EXIT_UNSUPPORTED;
			goto out;
		}
	}
	if (core_path) {
		dump_setup(d, &core, symbols_path);
		goto walk;
	}
	if (d->by_pid) {	/* its page tables now: the pages it maps as the walk starts */
		ret = read_pid_pfns(d);
		if (ret)
			goto out;
	}
	ret = ms_backend_open(backend, MS_BPF_ALLPAGES, false, &be, why, sizeof(why), NULL, 0);
	if (ret) {
		ms_err("%s (allpages needs the bpf or the kmod backend)", why);
		goto out;
	}
	d->pf.feat = ms_backend_features(&be);
	if (d->by_cgroup && (ret = ms_cgroups_knowable(d->pf.feat, why, sizeof(why)))) {
		ms_err("--cgroup: %s", why);
		goto out;
	}
	d->pin_known = !ms_attr_facts_load(&d->facts) && d->facts.pincount_page == 1;
	/*
	 * the module blanks the pointer words of its records unless --raw-pointers asks for them
	 * (which lockdown refuses), and the first tail page's _pincount shares such a word: the
	 * module keeps a large folio's counters when asked (an older module gives them with the
	 * pointers)
	 */
	d->fol_head = ~0ULL;
	if (be.kmod) {
		ms_kmod_set_raw_pointers(be.kmod, d->pf.raw);
		ms_kmod_set_folio_counters(be.kmod, true);
	}
	if (load_flag_names(d))
		ms_err("kernel BTF has no enum pageflags: flags are printed as '?'");
	load_zones(d);
	if (wss_s) {	/* the window, on every present page; then the walk that prints */
		struct utsname u;
		char wwhy[1024];

		uname(&u);
		ret = ms_wss_window(&wss, wss_s, u.release, &be, present, wwhy, sizeof(wwhy));
		if (ret) {
			ms_err("%s", wwhy);
			goto out;
		}
		d->wss = &wss;
		d->pf.wss = true;
		/*
		 * --pid: its pages as the walk starts, not as the window did (in the window NUMA
		 * balancing or compaction may have moved the very pages it used)
		 */
		if (d->by_pid && (ret = read_pid_pfns(d)))
			goto out;
	}
walk:
	ms_pagefmt_init(&d->pf);

	/*
	 * Into a pipe, 1 MiB at a time rather than the default 64 KiB: the records come in chunks
	 * of some 400 KiB, and the reader and the writer wake each other less often.
	 */
	if (!fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode))
		fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1 << 20);	/* a failure changes nothing */
	/* the header, then the records: formatted in jobs threads, written in pfn order */
	werr = ms_write_all(STDOUT_FILENO, hdr, ms_pagefmt_header(&d->pf, hdr));
	if (!werr) {
		d->pipe = ms_pagefmt_pipe_start(&d->pf, STDOUT_FILENO, jobs);
		if (!d->pipe) {
			ms_err("failed to start the formatting threads: %s", strerror(errno));
			ret = MS_EXIT_FAIL;
			goto out;
		}
		if (!core_path) {
			ret = ms_backend_pages(&be, &ranges, &res, on_page, d);
		} else {
			ret = ms_dump_pages(&core.d, &core.t, &ranges, &res, on_page, d);
			if (ret == -ENOMEM)
				ms_err("out of memory");
			ret = ret ? MS_EXIT_FAIL : MS_EXIT_OK;
		}
		if (!ret)
			flush_held(d);	/* a failed write shows in werr */
		werr = ms_pagefmt_pipe_finish(d->pipe);
	}
	if (werr == EPIPE) {	/* memstat allpages | head: a normal end */
		ret = MS_EXIT_OK;
		goto out;
	}
	if (werr) {
		ms_err("failed to write output: %s", strerror(werr));
		ret = MS_EXIT_FAIL;
		goto out;
	}
	if (ret)
		goto out;
	if (summary) {
		FILE *out = d->pf.fmt == MS_PF_TEXT ? stdout : stderr;

		if (d->pf.fmt == MS_PF_TEXT)
			fputc('\n', stdout);
		ms_print_summary(out, &res, &ro);
		if (d->wss) {
			fputc('\n', out);
			ms_wss_print(out, d->wss, false);
		}
		if (fflush(out) && errno != EPIPE) {
			ms_err("failed to write output: %s", strerror(errno));
			ret = MS_EXIT_FAIL;
		}
	}
out:
	ms_wss_free(&wss);
	ms_backend_close(&be);
	if (core_path)
		ms_core_close(&core, ret);
	ms_ranges_free(&ranges);
	for (c = 0; c < 64; c++)
		free((void *)d->pf.flag_name[c]);
	free(d->zones);
	free(d->pid_pfns);
	free(d);
	return ret;
}
