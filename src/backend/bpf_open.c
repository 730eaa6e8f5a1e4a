// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The BPF backend's foundation: load the walker (build/memstat.skel.h, embedded in the binary),
 * detect the kernel's layout, locate vmemmap, report memstat's own BPF maps, name files from
 * their mappings, and free it all. The walks are bpf_backend.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
#include "backend.h"
#include "testhooks.h"
#include "files.h"
#include "slabs.h"
#include "bpf_backend.h"

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int d = ms_debug_level();

	/* 3: only the programs' load logs, which then hold the verifier's statistics alone */
	if (d == 3 && level == LIBBPF_DEBUG && !strstr(fmt, "LOAD LOG"))
		return 0;
	if ((level == LIBBPF_WARN && d) || d > 1)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/*
 * What the loader gives libbpf instead of the kernel's whole BTF (core_fixes.bpf.h): the ids
 * of the walker being loaded (libbpf's program handlers take no pointer of the load's own; one
 * load at a time, as libbpf's handlers themselves are not thread-safe).
 */
static struct ms_kernel_ids load_ids;

/*
 * timings.bpf_verify: the kernel's load of each program (its verification, mostly), from the
 * moment libbpf hands it over (the end of its handler below) to the next one's, or to the end
 * of the load; libbpf's work in between is a bpf_prog_bind_map() call.
 */
static double prog_t0;

static void prog_loaded(void)
{
	double now = ms_now_ms();

	if (prog_t0)
		ms_timings.bpf_verify += now - prog_t0;
	prog_t0 = now;
}

/* SEC("syscall"), as libbpf loads it (sleepable), with the calls of bpf_rdonly_cast made */
static int prepare_syscall(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long c)
{
	const struct bpf_insn *in = bpf_program__insns(prog);
	size_t i, n = bpf_program__insn_cnt(prog);
	struct bpf_insn *out = NULL;

	opts->prog_flags |= BPF_F_SLEEPABLE;
	for (i = 0; i < n && load_ids.rdonly_cast; i++) {
		if (in[i].code != (BPF_JMP | BPF_CALL) || in[i].src_reg ||
		    in[i].imm != MS_CALL_RDONLY_CAST)
			continue;
		if (!out) {
			out = malloc(n * sizeof(*out));
			if (!out)
				return -ENOMEM;
			memcpy(out, in, n * sizeof(*out));
		}
		out[i].src_reg = BPF_PSEUDO_KFUNC_CALL;	/* off 0: a kfunc of vmlinux */
		out[i].off = 0;
		out[i].imm = (__s32)load_ids.rdonly_cast;
	}
	if (out) {
		int err = bpf_program__set_insns(prog, out, n);

		free(out);	/* libbpf keeps a copy */
		if (err)
			return err;
	}
	prog_loaded();
	return 0;
}

/* SEC("iter/task_vma"): a tracing program, attached to bpf_iter_task_vma by its id */
static int prepare_iter(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long c)
{
	if (!load_ids.iter_task_vma)
		return -ENOENT;
	opts->expected_attach_type = BPF_TRACE_ITER;
	opts->attach_btf_obj_fd = 0;
	opts->attach_btf_id = load_ids.iter_task_vma;
	prog_loaded();
	return bpf_program__set_type(prog, BPF_PROG_TYPE_TRACING);
}

/*
 * libbpf looks up kfuncs and tracing programs' attach targets in the kernel's whole BTF, which
 * it parses for them (6 to 9 ms here, docs/performance.md "Start-up"): the walker's programs
 * go through these handlers instead, registered before libbpf's own for their sections, which
 * give the ids. collect_exec is opened as a syscall program, and made a tracing one only as it
 * is loaded, since libbpf parses the kernel's BTF for any tracing program it will load.
 */
static int register_handlers(void)
{
	static int done;
	int sys_id, iter_id;
	LIBBPF_OPTS(libbpf_prog_handler_opts, sys, .prog_prepare_load_fn = prepare_syscall);
	LIBBPF_OPTS(libbpf_prog_handler_opts, iter, .prog_prepare_load_fn = prepare_iter);

	if (done)
		return 0;
	sys_id = libbpf_register_prog_handler("syscall", BPF_PROG_TYPE_SYSCALL, 0, &sys);
	iter_id = sys_id < 0 ? sys_id :
		  libbpf_register_prog_handler("iter/task_vma", BPF_PROG_TYPE_SYSCALL, 0, &iter);
	if (iter_id < 0) {
		/* neither or both: libbpf's own handler for syscall programs again */
		if (sys_id >= 0)
			libbpf_unregister_prog_handler(sys_id);
		return iter_id;
	}
	done = 1;
	return 0;
}

struct memstat_bpf *ms_bpf_open_skel(const char *btf_path, __u32 kernel_log_level)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .kernel_log_level = kernel_log_level,
		    .btf_custom_path = btf_path);
	int err = register_handlers();

	if (err) {
		errno = -err;
		return NULL;
	}
	return memstat_bpf__open_opts(&o);
}

int ms_bpf_load_skel(struct memstat_bpf *skel, const struct ms_kernel_ids *ids)
{
	int err;

	skel->rodata->pt_regs_btf_id = ids->pt_regs;
	load_ids = *ids;
	prog_t0 = 0;
	err = memstat_bpf__load(skel);
	prog_loaded();
	return err;
}

int ms_bpf_run_prog(struct bpf_program *prog)
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
		if (ms_bpf_run_prog(s->progs.find_folio) < 0 || s->bss->folio_err)
			continue;
		pfn2 = pagemap_pfn(pm, p);
		base = s->bss->folio - pfn * 64;
		if (pfn2 != pfn || (base & ((1ULL << 30) - 1)) || base < 0xff00000000000000ULL)
			continue;
		s->bss->feat.vmemmap_base = base;
		/* test builds: a kernel whose page-to-memcg link memstat cannot tell (cli test) */
		if (ms_test_hook(MS_TEST_MEMCG_UNKNOWN))
			s->bss->feat.memcg_kind = MS_MEMCG_UNKNOWN;
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

/*
 * The walkers' states to make: those asked for (at least one), but no more than fit in
 * MS_WORKERS_MEM (memstat's own memory stays under 64 MiB: backend.h).
 */
static unsigned int workers_for(const struct ms_bpf *b, unsigned int asked)
{
	long psz = sysconf(_SC_PAGESIZE);
	__u64 len = bpf_map__value_size(b->skel->maps.walkers), cap;

	len = (len + (__u64)psz - 1) / (__u64)psz * (__u64)psz;
	cap = len && MS_WORKERS_MEM / len > 1 ? MS_WORKERS_MEM / len : 1;
	if (asked > MS_JOBS_MAX)
		asked = MS_JOBS_MAX;
	return !asked ? 1 : asked > cap ? (unsigned int)cap : asked;
}

int ms_bpf_open(struct ms_bpf **out, unsigned int flags, char *why, size_t whylen)
{
	struct ms_bpf *b;
	double t_detect;
	bool cached = true;
	char core_path[64];
	struct ms_kernel_ids ids;
	int core_fd, err, ret = MS_EXIT_FAIL;

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
again:
	/* the CO-RE types cache, once for both programs' tries (its time counts in bpf_open) */
	{
		double t0 = ms_now_ms();

		core_fd = cached ? ms_btf_cache_open(core_path, sizeof(core_path), &ids) : -1;
		/* no cache: the ids from the kernel's whole BTF, which libbpf then parses again */
		err = core_fd < 0 ? ms_btf_kernel_ids(&ids) : 0;
		ms_timings.bpf_open += ms_now_ms() - t0;
		if (err == -ENOENT) {
			snprintf(why, whylen, "unsupported kernel: its BTF lacks struct pt_regs or "
				 "bpf_iter_task_vma (iter/task_vma, v5.12+)");
			ret = MS_EXIT_UNSUPPORTED;
			goto fail;
		} else if (err) {
			snprintf(why, whylen, "failed to read the kernel's BTF "
				 "(/sys/kernel/btf/vmlinux): %s", strerror(-err));
			goto fail;
		}
	}
	/*
	 * walk_cast where the kernel has bpf_rdonly_cast; one that still rejects it: walk.
	 * MEMSTAT_TEST_NO_CAST=1 (test builds only) loads walk at once, so that the integration test can
	 * compare the two programs on one kernel.
	 */
	for (b->cast = ids.rdonly_cast && !ms_test_hook(MS_TEST_NO_CAST);; b->cast = false) {
		double t0 = ms_now_ms(), t1;

		/* MEMSTAT_DEBUG=3: the verifier's statistics; 4: its whole log (verifier-hist.sh) */
		b->skel = ms_bpf_open_skel(core_fd >= 0 ? core_path : NULL,
					   ms_debug_level() == 3 ? 4 : ms_debug_level() == 4 ? 2 : 0);
		t1 = ms_now_ms();
		ms_timings.bpf_open += t1 - t0;
		if (!b->skel) {
			if (core_fd >= 0)
				close(core_fd);
			snprintf(why, whylen, "failed to open the BPF object: %s", strerror(errno));
			goto fail;
		}
		/* one of the two walk programs: each carries its own copy of visit() to verify */
		bpf_program__set_autoload(b->skel->progs.walk_cast, b->cast);
		bpf_program__set_autoload(b->skel->progs.walk, !b->cast);
		/* the section cache serves a second walk: none, none of its program's relocations */
		bpf_program__set_autoload(b->skel->progs.get_deferred, !(flags & MS_BPF_ONE_WALK));
		/* the per-page records cost 3.4 MiB of kernel memory: only for allpages */
		if (!(flags & MS_BPF_ALLPAGES)) {
			bpf_map__set_max_entries(b->skel->maps.pagerecs, 1);
			b->skel->rodata->records_loaded = 0;	/* none verified: 6.8+ */
		}
		/* file_paths and its 256 KiB of slots: only for --by file and exec (files.c) */
		bpf_program__set_autoload(b->skel->progs.file_paths, flags & MS_BPF_PATHS);
		if (!(flags & MS_BPF_PATHS))
			bpf_map__set_max_entries(b->skel->maps.paths, 1);
		/* slab_name: only for --by slab (slabs.c) */
		bpf_program__set_autoload(b->skel->progs.slab_name, flags & MS_BPF_SLABS);
		/* a state per worker the walks may use, within memstat's memory bound */
		b->nwalkers = workers_for(b, MS_BPF_WORKERS_OF(flags));
		bpf_map__set_max_entries(b->skel->maps.walkers, b->nwalkers);
		err = ms_bpf_load_skel(b->skel, &ids);
		ms_timings.bpf_load += ms_now_ms() - t1;
		if (!err || !b->cast)
			break;
		memstat_bpf__destroy(b->skel);
		b->skel = NULL;
	}
	if (core_fd >= 0)
		close(core_fd);
	if (err && core_fd >= 0) {
		/* the cache is tested to relocate as the whole BTF does: still, never fail by it */
		if (b->skel)
			memstat_bpf__destroy(b->skel);
		b->skel = NULL;
		ms_btf_cache_drop();
		cached = false;
		goto again;
	}
	if (err) {
		err = -err;
		if (err == EPERM || err == EACCES) {
			snprintf(why, whylen, "failed to load BPF programs: %s (missing CAP_BPF "
				 "and CAP_PERFMON, or the kernel is locked down)", strerror(err));
			ret = MS_EXIT_PERM;
		} else if (ms_lockdown(NULL) == 2) {
			/* bpf_probe_read_kernel is then no helper at all: the verifier refuses it */
			snprintf(why, whylen, "failed to load BPF programs: the kernel is locked down "
				 "for confidentiality (/sys/kernel/security/lockdown), and BPF programs "
				 "may not read kernel memory");
			ret = MS_EXIT_PERM;
		} else {
			snprintf(why, whylen, "failed to load BPF programs: %s (set MEMSTAT_DEBUG=2 "
				 "for the verifier log)", strerror(err));
		}
		goto fail;
	}
	t_detect = ms_now_ms();
	b->no_cache = flags & MS_BPF_ONE_WALK;
	b->skel->bss->nr_node_ids = possible_nodes();
	err = ms_bpf_run_prog(b->skel->progs.detect);
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
	ms_timings.detect += ms_now_ms() - t_detect;
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
	{
		long psz = sysconf(_SC_PAGESIZE);
		void *m;

		b->walkers_stride = (bpf_map__value_size(b->skel->maps.walkers) + 7) & ~(size_t)7;
		b->walkers_len = (b->walkers_stride * b->nwalkers + (size_t)psz - 1) /
				 (size_t)psz * (size_t)psz;
		m = mmap(NULL, b->walkers_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 bpf_map__fd(b->skel->maps.walkers), 0);
		if (m == MAP_FAILED) {
			b->walkers_len = 0;
			snprintf(why, whylen, "failed to map the walkers' state: %s", strerror(errno));
			ret = MS_EXIT_FAIL;
			goto fail;
		}
		b->walkers = m;
	}
	if (flags & MS_BPF_PATHS) {
		void *m = mmap(NULL, MS_PATH_BATCH * sizeof(struct ms_path_slot),
			       PROT_READ | PROT_WRITE, MAP_SHARED,
			       bpf_map__fd(b->skel->maps.paths), 0);

		if (m == MAP_FAILED) {
			snprintf(why, whylen, "failed to map the path slots: %s", strerror(errno));
			ret = MS_EXIT_FAIL;
			goto fail;
		}
		b->paths = m;
	}
	*out = b;
	return MS_EXIT_OK;
fail:
	ms_bpf_free(b);
	return ret;
}

/*
 * memstat's own BPF maps mapped into it (the walk's state, each worker's copy, the page records,
 * the path slots): vmalloc pages that the kernel puts in memstat's page tables, which a walk
 * counts like any driver's buffer mapped into a process. Their pages, from /proc/self/maps
 * ("anon_inode:bpf-map"), and where the walk counts them: a page in memstat's page tables
 * (/proc/self/pagemap) has a mapcount and is user-mapped (classify.h), one that is not is other
 * (the 7.3 VM showed 4 user-mapped pages where 6.18 shows 645: docs/summary.md "Kernel other"). One kpageflags read checks that a mapped page has
 * its mapcount (KPF_MMAP); where that cannot be read (no PFNs without CAP_SYS_ADMIN) the split is
 * unknown. A read of maps, one pread of pagemap per map, one of kpageflags.
 */
void ms_bpf_own_maps(struct ms_result *res)
{
	unsigned long long lo, hi, ent[512], pfn = 0, kpf = 0, mapped = 0;
	long psz = sysconf(_SC_PAGESIZE);
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), kf;
	bool known = pm >= 0;

	res->own_maps_pages = 0;
	res->own_maps_mapped = 0;
	res->own_maps_known = false;
	if (!f) {
		if (pm >= 0)
			close(pm);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "anon_inode:bpf-map") || sscanf(line, "%llx-%llx", &lo, &hi) != 2)
			continue;
		for (lo /= psz, hi /= psz; lo < hi && known;) {
			size_t n = hi - lo < 512 ? hi - lo : 512, i;
			ssize_t got = pread(pm, ent, n * sizeof(ent[0]), lo * sizeof(ent[0]));

			if (got != (ssize_t)(n * sizeof(ent[0]))) {
				known = false;
				break;
			}
			for (i = 0; i < n; i++)
				if (ent[i] >> 63) {	/* present: the PFN in bits 0-54 */
					mapped++;
					if (!pfn)
						pfn = ent[i] & ((1ULL << 55) - 1);
				}
			res->own_maps_pages += n;
			lo += n;
		}
		res->own_maps_pages += hi > lo ? hi - lo : 0;
	}
	fclose(f);
	if (pm >= 0)
		close(pm);
	if (known && mapped) {	/* a mapped page's mapcount: KPF_MMAP (bit 11) */
		kf = pfn ? open("/proc/kpageflags", O_RDONLY | O_CLOEXEC) : -1;
		known = kf >= 0 && pread(kf, &kpf, sizeof(kpf), pfn * sizeof(kpf)) == sizeof(kpf) &&
			(kpf >> 11 & 1);
		if (kf >= 0)
			close(kf);
	}
	res->own_maps_known = known;
	res->own_maps_mapped = known ? mapped : 0;
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

void ms_bpf_worker_free(struct ms_worker *w)
{
	free(w->runs);
	w->runs = NULL;
	w->nruns = w->runs_cap = 0;
}

void ms_bpf_free(struct ms_bpf *b)
{
	if (!b)
		return;
	if (b->recs)
		munmap((void *)b->recs, b->recs_len);
	if (b->paths)
		munmap(b->paths, MS_PATH_BATCH * sizeof(struct ms_path_slot));
	if (b->walkers)
		munmap(b->walkers, b->walkers_len);
	free(b->cache);
	for (size_t i = 0; i < b->nw; i++)
		ms_bpf_worker_free(&b->w[i]);
	free(b->w);
	memstat_bpf__destroy(b->skel);
	free(b);
}

int ms_bpf_slab_name(struct ms_bpf *b, struct ms_slab_slot *slot)
{
	int err;

	if (!bpf_program__autoload(b->skel->progs.slab_name))
		return -EOPNOTSUPP;
	b->skel->bss->slab_slot = *slot;
	err = ms_bpf_run_prog(b->skel->progs.slab_name);
	if (err < 0)
		return err;
	*slot = b->skel->bss->slab_slot;
	return 0;
}

/*
 * Name files from their mapping pointers (files.c): slots[i].mapping, .ino and .dev in, the rest
 * out, MS_PATH_BATCH per run of file_paths. -EOPNOTSUPP unless opened with MS_BPF_PATHS.
 */
int ms_bpf_paths(struct ms_bpf *b, struct ms_path_slot *slots, size_t n)
{
	size_t i, k;
	int err;

	if (!b->paths)
		return -EOPNOTSUPP;
	for (i = 0; i < n; i += k) {
		k = n - i < MS_PATH_BATCH ? n - i : MS_PATH_BATCH;
		memcpy(b->paths, slots + i, k * sizeof(*slots));
		b->skel->bss->path_n = (__u32)k;
		err = ms_bpf_run_prog(b->skel->progs.file_paths);
		if (err < 0)
			return err;
		memcpy(slots + i, b->paths, k * sizeof(*slots));
	}
	return 0;
}
