// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The BPF backend: load the walker (build/memstat.skel.h, embedded in the binary), detect the
 * kernel's layout, locate vmemmap, collect the exec mappings and walk present memory one
 * memory section per bpf_prog_test_run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "memstat_int.h"
#include "memstat.skel.h"

struct ms_bpf {
	struct memstat_bpf *skel;
	__u32 generation;
	const struct ms_page_rec *recs;	/* allpages: the pagerecs map, memory-mapped */
	/*
	 * Periodic walks: the counts of each whole section that lay above its node's
	 * first_deferred_pfn. Struct pages there are all-zero or boot-reserved until the kernel
	 * initialises them, which moves the boundary up (mm/mm_init.c deferred_grow_zone()), so
	 * such a section's counts hold while it stays above the boundary. Freeing boot-reserved
	 * pages (HVO, a balloon) changes MemTotal: then every entry is dropped.
	 */
	struct sec_cache {
		bool valid;
		__u64 sub[MS_NR_SUBS];
		__u64 holes;
	} *cache;
	size_t ncache;
	long long cache_memtotal;
	bool no_cache;
	size_t recs_len;
	bool cast;		/* walk_cast loaded (the kernel has bpf_rdonly_cast) */
};

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && getenv("MEMSTAT_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	if (getenv("MEMSTAT_DEBUG") && atoi(getenv("MEMSTAT_DEBUG")) > 1)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int run_prog(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);

	return err ? -errno : (int)opts.retval;
}

/* pfn of the page mapped at addr, from /proc/self/pagemap (0 when unknown). */
static __u64 pagemap_pfn(int pm, const void *addr)
{
	__u64 e = 0;
	off_t off = (off_t)((uintptr_t)addr / (uintptr_t)sysconf(_SC_PAGESIZE)) * 8;

	if (pread(pm, &e, sizeof(e), off) != sizeof(e))
		return 0;
	if (!(e & (1ULL << 63)))	/* not present */
		return 0;
	return e & ((1ULL << 55) - 1);
}

/*
 * vmemmap_base without symbols (docs/page-classes.md 6.2): the struct page of a memfd's only
 * page, found through the fd table and the page cache xarray, minus its pfn times 64. Every
 * KASLR region base is 1 GiB aligned (arch/x86/mm/kaslr.c), which rejects a race with migration.
 */
static int find_vmemmap(struct ms_bpf *b, char *why, size_t whylen)
{
	struct memstat_bpf *s = b->skel;
	long psz = sysconf(_SC_PAGESIZE);
	int fd = -1, pm = -1, tries, ret = MS_EXIT_FAIL;
	char *p = MAP_FAILED;

	fd = memfd_create("memstat-vmemmap-probe", MFD_CLOEXEC);
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pm < 0 || ftruncate(fd, psz)) {
		snprintf(why, whylen, "failed to set up the vmemmap probe: %s", strerror(errno));
		goto out;
	}
	p = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		snprintf(why, whylen, "failed to map the vmemmap probe: %s", strerror(errno));
		goto out;
	}
	for (tries = 0; tries < 8; tries++) {
		__u64 pfn, pfn2, base;

		p[0] = (char)tries;
		mlock(p, psz);
		pfn = pagemap_pfn(pm, p);
		if (!pfn) {
			snprintf(why, whylen, "failed to read page frame numbers from "
				 "/proc/self/pagemap: missing CAP_SYS_ADMIN");
			ret = MS_EXIT_PERM;
			goto out;
		}
		s->bss->memfd_fd = fd;
		if (run_prog(s->progs.find_folio) < 0 || s->bss->folio_err)
			continue;
		pfn2 = pagemap_pfn(pm, p);
		base = s->bss->folio - pfn * 64;
		if (pfn2 != pfn || (base & ((1ULL << 30) - 1)) || base < 0xff00000000000000ULL)
			continue;
		s->bss->feat.vmemmap_base = base;
		ret = MS_EXIT_OK;
		goto out;
	}
	snprintf(why, whylen, "failed to locate vmemmap: the probe page's struct page was not "
		 "found at a 1 GiB aligned base");
out:
	if (p != MAP_FAILED)
		munmap(p, psz);
	if (fd >= 0)
		close(fd);
	if (pm >= 0)
		close(pm);
	return ret;
}

/* nr_node_ids from /sys/devices/system/node/possible ("0", "0-3", "0,2-3"): highest + 1. */
static __u32 possible_nodes(void)
{
	char buf[256], *p;
	unsigned long max = 0;
	FILE *f = fopen("/sys/devices/system/node/possible", "re");

	if (!f)
		return 1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	for (p = buf; *p;) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			break;
		if (v > max)
			max = v;
		p = *end ? end + 1 : end;
	}
	return (__u32)(max + 1);
}

static void describe_missing(__u32 m, char *why, size_t whylen)
{
	snprintf(why, whylen, "unsupported kernel layout: %s%s%s%s",
		 m & MS_MISSING_PAGE_SIZE ? "sizeof(struct page) is not 64; " : "",
		 m & MS_MISSING_OFFSETS ? "struct page offsets of mapping/private/_refcount/"
					  "page_type/compound_head differ; " : "",
		 m & MS_MISSING_PAGEFLAGS ? "enum pageflags lacks PG_head, PG_reserved, "
					    "PG_swapbacked or PG_owner_priv_1; " : "",
		 m & MS_MISSING_HEAD ? "struct page has neither compound_head nor "
				       "compound_info; " : "");
	/* drop the trailing "; " */
	size_t n = strlen(why);
	if (n >= 2 && why[n - 2] == ';')
		why[n - 2] = '\0';
}

int ms_bpf_open(struct ms_bpf **out, unsigned int flags, char *why, size_t whylen)
{
	struct ms_bpf *b;
	int err, ret = MS_EXIT_FAIL;

	*out = NULL;
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, whylen, "kernel lacks BTF (/sys/kernel/btf/vmlinux: %s)",
			 strerror(errno));
		return MS_EXIT_UNSUPPORTED;
	}
	libbpf_set_print(quiet_print);
	b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(why, whylen, "out of memory");
		return MS_EXIT_FAIL;
	}
	/*
	 * first walk_cast; a kernel without bpf_rdonly_cast (6.1) rejects it: then walk.
	 * MEMSTAT_TEST_NO_CAST=1 (tests only) loads walk at once, so that the integration test can
	 * compare the two programs on one kernel.
	 */
	for (b->cast = !getenv("MEMSTAT_TEST_NO_CAST");; b->cast = false) {
		b->skel = memstat_bpf__open();
		if (!b->skel) {
			snprintf(why, whylen, "failed to open the BPF object: %s", strerror(errno));
			goto fail;
		}
		/* one of the two walk programs: each carries its own copy of visit() to verify */
		bpf_program__set_autoload(b->skel->progs.walk_cast, b->cast);
		bpf_program__set_autoload(b->skel->progs.walk, !b->cast);
		/* the per-page records cost 3.4 MiB of kernel memory: only for allpages */
		if (!(flags & MS_BPF_ALLPAGES))
			bpf_map__set_max_entries(b->skel->maps.pagerecs, 1);
		err = memstat_bpf__load(b->skel);
		if (!err || !b->cast)
			break;
		memstat_bpf__destroy(b->skel);
		b->skel = NULL;
	}
	if (err) {
		err = -err;
		if (err == EPERM || err == EACCES) {
			snprintf(why, whylen, "failed to load BPF programs: %s (missing CAP_BPF "
				 "and CAP_PERFMON, or the kernel is locked down)", strerror(err));
			ret = MS_EXIT_PERM;
		} else {
			snprintf(why, whylen, "failed to load BPF programs: %s (set MEMSTAT_DEBUG=2 "
				 "for the verifier log)", strerror(err));
		}
		goto fail;
	}
	b->skel->bss->nr_node_ids = possible_nodes();
	err = run_prog(b->skel->progs.detect);
	if (err < 0) {
		snprintf(why, whylen, "failed to run the BPF layout detection: %s", strerror(-err));
		ret = -err == EPERM ? MS_EXIT_PERM : MS_EXIT_FAIL;
		goto fail;
	}
	if (b->skel->bss->missing) {
		describe_missing(b->skel->bss->missing, why, whylen);
		ret = MS_EXIT_UNSUPPORTED;
		goto fail;
	}
	ret = find_vmemmap(b, why, whylen);
	if (ret)
		goto fail;
	if (flags & MS_BPF_ALLPAGES) {
		void *m;

		b->recs_len = (size_t)MS_SECTION_PAGES * sizeof(struct ms_page_rec);
		m = mmap(NULL, b->recs_len, PROT_READ, MAP_SHARED,
			 bpf_map__fd(b->skel->maps.pagerecs), 0);
		if (m == MAP_FAILED) {
			snprintf(why, whylen, "failed to map the page records: %s", strerror(errno));
			ret = MS_EXIT_FAIL;
			goto fail;
		}
		b->recs = m;
	}
	*out = b;
	return MS_EXIT_OK;
fail:
	ms_bpf_free(b);
	return ret;
}

const struct ms_features *ms_bpf_features(const struct ms_bpf *b)
{
	return &b->skel->bss->feat;
}

void ms_bpf_set_cache(struct ms_bpf *b, bool on)
{
	b->no_cache = !on;
}

bool ms_bpf_has_cast(const struct ms_bpf *b)
{
	return b->cast;
}

/* Run the task_vma iterator once: every VM_EXEC file mapping enters exec_set. */
static int collect_exec(struct ms_bpf *b)
{
	struct bpf_link *link;
	char buf[256];
	int fd;
	ssize_t n;

	link = bpf_program__attach_iter(b->skel->progs.collect_exec, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		int err = -errno;

		bpf_link__destroy(link);
		return err;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	bpf_link__destroy(link);
	return n < 0 ? -errno : 0;
}

static int emit_runs(struct memstat_bpf *s, struct ms_run_merger *m)
{
	__u32 i, n = s->bss->nruns;
	int err;

	for (i = 0; i < n && i < MS_MAX_RUNS; i++) {
		err = ms_merge_run(m, s->bss->runs[i].pfn, s->bss->runs[i].npages,
				(enum ms_sub)s->bss->runs[i].sub);
		if (err)
			return err;
	}
	return 0;
}

/* Is [start, stop) a whole section entirely above its node's first_deferred_pfn? */
static bool section_deferred(const struct memstat_bpf *s, __u64 start, __u64 stop)
{
	__u32 n;

	if (start % MS_SECTION_PAGES || stop - start != MS_SECTION_PAGES)
		return false;
	for (n = 0; n < s->bss->nr_nodes_read && n < 64; n++)
		if (start >= s->bss->node_start[n] && start < s->bss->node_end[n])
			return start >= s->bss->node_deferred[n] && stop <= s->bss->node_end[n];
	return false;
}

/* Prepare the section cache for a counting walk; false when it cannot be used. */
static bool cache_begin(struct ms_bpf *b, const struct ms_ranges *ranges)
{
	struct ms_meminfo mi;
	size_t n;

	if (run_prog(b->skel->progs.get_deferred) < 0 || !b->skel->bss->nr_nodes_read)
		return false;
	if (ms_meminfo_read("/proc/meminfo", &mi))
		return false;
	n = ranges->n ? (size_t)(ranges->r[ranges->n - 1].end / MS_SECTION_PAGES) + 1 : 0;
	if (!b->cache || b->ncache != n || mi.mem_total != b->cache_memtotal) {
		free(b->cache);
		b->cache = calloc(n, sizeof(*b->cache));
		b->ncache = b->cache ? n : 0;
		b->cache_memtotal = mi.mem_total;
	}
	return b->cache != NULL;
}

/*
 * Walk the ranges one section per program run. With run_fn, hand over runs of equal
 * sub-class; with page_fn (allpages), have the walker record every page and hand over each.
 */
static int walk_ranges(struct ms_bpf *b, const struct ms_ranges *ranges, struct ms_result *res,
		       ms_run_fn run_fn, ms_page_fn page_fn, void *arg)
{
	struct memstat_bpf *s = b->skel;
	struct ms_run_merger merger = { run_fn, arg, 0, 0, MS_NR_SUBS };
	__u64 prev_end = 0, extra[MS_NR_SUBS] = {}, extra_holes = 0, cached = 0;
	__u64 section_pages = MS_SECTION_PAGES;
	const char *test_step;
	bool use_cache;
	double t0;
	size_t i;
	int err, j;

	memset(res, 0, sizeof(*res));
	res->backend = "bpf";
	res->exec_known = true;
	res->exec_all_processes = ms_pid_ns_initial() != 0;	/* iter/task_vma: this PID namespace */
	res->uninit_known = true;
	if (page_fn && !b->recs) {
		ms_err("internal: allpages needs ms_bpf_open(MS_BPF_ALLPAGES)");
		return MS_EXIT_FAIL;
	}

	s->bss->generation = ++b->generation;
	s->bss->exec_vmas = 0;
	err = collect_exec(b);
	if (err) {
		ms_err("failed to collect exec mappings with iter/task_vma: %s", strerror(-err));
		return MS_EXIT_FAIL;
	}

	/*
	 * One section per program run. MEMSTAT_TEST_WALK_PAGES (a power of 2; for tests only, and
	 * only for counting walks) asks for longer runs, so that a test can check that a run longer
	 * than the walker's loop is reported, not counted in part.
	 */
	test_step = getenv("MEMSTAT_TEST_WALK_PAGES");
	if (test_step && !run_fn && !page_fn) {
		unsigned long long v = strtoull(test_step, NULL, 0);

		if (v && !(v & (v - 1)))
			section_pages = v;
	}
	t0 = ms_now_ms();
	use_cache = !run_fn && !page_fn && !b->no_cache && section_pages == MS_SECTION_PAGES &&
		    cache_begin(b, ranges);
	memset(s->bss->counts, 0, sizeof(s->bss->counts));
	s->bss->holes = 0;
	s->bss->reads = 0;
	s->bss->cache_misses = 0;
	s->bss->last_mapping = 0;
	s->bss->last_memcg_data = 0;
	s->bss->cursor = 0;
	s->bss->own_end = 0;
	s->bss->dump = run_fn != NULL;
	s->bss->dump_pages = page_fn != NULL;
	for (i = 0; i < ranges->n; i++) {
		__u64 start = ranges->r[i].start, end = ranges->r[i].end, step = section_pages;

		if (start != prev_end) {	/* not contiguous: nothing carries over */
			s->bss->cursor = start;
			s->bss->own_start = s->bss->own_end = 0;
			/*
			 * The range may start inside a free block: let the first
			 * per-cpu-looking page check for one (ms_merged_into()).
			 */
			s->bss->wstate.free_end = start;
		}
		while (start < end) {
			__u64 stop = (start + step) & ~(step - 1), pfn;

			if (stop > end || stop <= start)
				stop = end;
			struct sec_cache *c = NULL;
			__u64 before[MS_NR_SUBS], holes_before = s->bss->holes;

			if (use_cache && start / MS_SECTION_PAGES < b->ncache) {
				c = &b->cache[start / MS_SECTION_PAGES];
				if (!section_deferred(s, start, stop)) {
					c->valid = false;
					c = NULL;
				} else if (c->valid) {	/* unchanged since the last walk */
					for (j = 0; j < MS_NR_SUBS; j++)
						extra[j] += c->sub[j];
					extra_holes += c->holes;
					cached += stop - start;
					start = stop;
					continue;
				}
			}
			if (c)
				memcpy(before, s->bss->counts, sizeof(before));
			s->bss->walk_start = start;
			s->bss->walk_end = stop;
			s->bss->nruns = 0;
			err = run_prog(b->cast ? s->progs.walk_cast : s->progs.walk);
			if (err < 0) {
				ms_err("failed to run the page walk at pfn %#llx: %s",
				       (unsigned long long)start, strerror(-err));
				return MS_EXIT_FAIL;
			}
			if (err > 0) {	/* memstat.bpf.c walk_end_check(): never a partial count */
				ms_err("the page walk of pfns %#llx-%#llx stopped short at pfn %#llx (%s)",
				       (unsigned long long)start, (unsigned long long)stop - 1,
				       (unsigned long long)s->bss->cursor,
				       err == 1 ? "bpf_loop failed" : "out of loop iterations");
				return MS_EXIT_FAIL;
			}
			if (c) {
				/* cache only what the boundary promises: uninitialised or reserved */
				c->valid = true;
				for (j = 0; j < MS_NR_SUBS; j++) {
					c->sub[j] = s->bss->counts[j] - before[j];
					if (c->sub[j] && j != MS_FREE_UNINIT && j != MS_KERNEL_RESERVED)
						c->valid = false;
				}
				c->holes = s->bss->holes - holes_before;
			}
			if (run_fn && emit_runs(s, &merger))
				return MS_EXIT_FAIL;
			for (pfn = start; page_fn && pfn < stop; pfn++)
				if (page_fn(arg, pfn, &b->recs[pfn - start]))
					return MS_EXIT_FAIL;
			start = stop;
		}
		prev_end = end;
	}
	if (run_fn && ms_merge_flush(&merger))
		return MS_EXIT_FAIL;
	res->walk_ms = ms_now_ms() - t0;
	for (j = 0; j < MS_NR_SUBS; j++) {
		res->sub[j] = s->bss->counts[j] + extra[j];
		res->total += res->sub[j];
	}
	res->holes = s->bss->holes + extra_holes;
	res->cached_pages = cached;
	res->reads = s->bss->reads;
	res->exec_mappings = s->bss->exec_vmas;
	res->mapping_lookups = s->bss->cache_misses;
	return MS_EXIT_OK;
}

int ms_bpf_walk(struct ms_bpf *b, const struct ms_ranges *ranges, struct ms_result *res,
		ms_run_fn fn, void *arg)
{
	return walk_ranges(b, ranges, res, fn, NULL, arg);
}

int ms_bpf_dump(struct ms_bpf *b, const struct ms_ranges *ranges, struct ms_result *res,
		ms_page_fn fn, void *arg)
{
	return walk_ranges(b, ranges, res, NULL, fn, arg);
}

void ms_bpf_free(struct ms_bpf *b)
{
	if (!b)
		return;
	if (b->recs)
		munmap((void *)b->recs, b->recs_len);
	free(b->cache);
	memstat_bpf__destroy(b->skel);
	free(b);
}
