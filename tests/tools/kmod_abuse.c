// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kmod_abuse: the kernel module's ioctl interface (include/memstat.h) fed bad input, run as root
 * inside the test VMs (tools/vm/debug-kernel.sh) against a loaded module. One line per check,
 * "PASS name: ..." or "FAIL name: ...", then "kmod_abuse: N passed, N failed".
 * Exit status: 0 all passed, 1 a check failed, 2 the device could not be used at all.
 * Usage: kmod_abuse [ITERATIONS]   (the concurrent checks; default 40)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memstat.h"

#ifndef MS_KMOD_RAW_POINTERS
#define MS_KMOD_RAW_POINTERS 0x2	/* allpages --raw-pointers */
#endif

static int passed, failed;
static long pagesz;

static void check(int ok, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s: ", ok ? "PASS" : "FAIL", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
}

/* the ioctl's result as 0 or an errno */
static int walk_arg(int fd, void *arg)
{
	return ioctl(fd, MS_KMOD_IOC_WALK, arg) ? errno : 0;
}

static int walk(int fd, struct ms_kmod_walk *w, uint64_t start, uint64_t end, void *recs,
		uint32_t flags, uint32_t gen)
{
	memset(w, 0, sizeof(*w));
	w->start_pfn = start;
	w->end_pfn = end;
	w->recs = (uint64_t)(uintptr_t)recs;
	w->flags = flags;
	w->generation = gen;
	return walk_arg(fd, w);
}

static uint64_t counted(const struct ms_kmod_walk *w)
{
	uint64_t s = w->holes;

	for (int i = 0; i < MS_COUNTS; i++)
		s += w->counts[i];
	return s;
}

/* a dump's records agree with its counters: each page is a hole or counted under its sub */
static const char *recs_disagree(const struct ms_kmod_walk *w, const struct ms_page_rec *r, uint64_t n)
{
	static char why[160];
	uint64_t per[MS_COUNTS] = { 0 }, holes = 0;

	for (uint64_t i = 0; i < n; i++) {
		if (!r[i].valid)
			holes++;
		else if (r[i].sub >= MS_NR_SUBS) {
			snprintf(why, sizeof(why), "record %llu has sub-class %u", (unsigned long long)i, r[i].sub);
			return why;
		} else
			per[r[i].sub]++;
	}
	if (holes != w->holes) {
		snprintf(why, sizeof(why), "%llu records invalid, %llu holes counted", (unsigned long long)holes,
			 (unsigned long long)w->holes);
		return why;
	}
	for (int s = 0; s < MS_COUNTS; s++)
		if (per[s] != w->counts[s]) {
			snprintf(why, sizeof(why), "sub-class %d: %llu records, %llu counted", s,
				 (unsigned long long)per[s], (unsigned long long)w->counts[s]);
			return why;
		}
	return NULL;
}

/* the words of a record that hold kernel pointers (classify.h MS_W_*): head/lru, mapping,
 * private, memcg_data; how many of them are set */
static int raw_pointer_words(const struct ms_page_rec *r)
{
	static const int idx[] = { 1, 2, 3, 5, 7 };
	int c = 0;

	for (unsigned i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		c += r->valid && r->w[idx[i]] != 0;
	return c;
}

/* the fields of a record that look like kernel addresses (top byte 0xff): none without raw
 * pointers, whatever the page type (a slab's freelist, a page table's pt_mm, tail pointers) */
static int kaddr_fields(const struct ms_page_rec *r)
{
	const uint64_t f[] = { r->w[0], r->w[1], r->w[2], r->w[3], r->w[4], r->w[5], r->w[6],
			       r->w[7], r->ino, r->offset, r->cgroup, r->head_pfn, r->head_flags };
	int c = 0;

	for (unsigned i = 0; r->valid && i < sizeof(f) / sizeof(f[0]); i++)
		c += (f[i] >> 56) == 0xff;
	return c;
}

/* the largest top-level "System RAM" range of /proc/iomem, in pfns */
static int ram_range(uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/iomem", "r");
	char line[256];
	uint64_t best = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (line[0] == ' ' || !strstr(line, ": System RAM"))
			continue;
		if (sscanf(line, "%llx-%llx", &a, &b) != 2 || b <= a)
			continue;
		a = (a + 4095) >> 12;
		b = (b + 1) >> 12;
		if (b > a && b - a > best) {
			best = b - a;
			*start = a;
			*end = b;
		}
	}
	fclose(f);
	return best ? 0 : -1;
}

/*
 * A region of 3 pages whose middle one is unmapped; returns the first. Checked before each use
 * (is_unmapped()): a later mmap of one page could land in the hole.
 */
static char *hole_region(void)
{
	char *p = mmap(NULL, 3 * pagesz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p + pagesz, pagesz);
	return p;
}

static int is_unmapped(const void *p)
{
	return msync((void *)((uintptr_t)p & ~(uintptr_t)(pagesz - 1)), pagesz, MS_ASYNC) && errno == ENOMEM;
}

static int dev_fd(void)
{
	int fd = open(MS_KMOD_DEVICE, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "kmod_abuse: %s: %s (is the module loaded?)\n", MS_KMOD_DEVICE, strerror(errno));
		exit(2);
	}
	return fd;
}

/* ---- two threads, one walk each per round, started together ---- */
struct racer {
	int fd;			/* shared, or -1: open and close one per round (the dump race) */
	int *shared_fd;
	uint64_t start, n;
	int dump;
	int rounds;
	int new_gen_every;	/* a new generation (exec mappings collected again) every N rounds */
	pthread_barrier_t *bar;
	struct ms_page_rec *recs;
	/* results */
	int ok, busy, bad;
	char why[200];
};

static void *race(void *arg)
{
	struct racer *r = arg;
	struct ms_kmod_walk w;

	for (int i = 0; i < r->rounds; i++) {
		uint32_t gen = r->new_gen_every ? 1000 + i / r->new_gen_every : 7;
		int fd, e;

		pthread_barrier_wait(r->bar);
		fd = r->shared_fd ? *r->shared_fd : r->fd;
		e = walk(fd, &w, r->start, r->start + r->n, r->dump ? r->recs : NULL, MS_KMOD_NEW_RANGE, gen);
		if (e == EBUSY) {
			r->busy++;
		} else if (e) {
			r->bad++;
			snprintf(r->why, sizeof(r->why), "round %d: %s", i, strerror(e));
		} else if (counted(&w) != r->n) {
			r->bad++;
			snprintf(r->why, sizeof(r->why), "round %d: counts and holes sum to %llu, not %llu", i,
				 (unsigned long long)counted(&w), (unsigned long long)r->n);
		} else {
			const char *d = r->dump ? recs_disagree(&w, r->recs, r->n) : NULL;

			if (d) {
				r->bad++;
				snprintf(r->why, sizeof(r->why), "round %d: records: %s", i, d);
			} else {
				r->ok++;
			}
		}
		pthread_barrier_wait(r->bar);
	}
	return NULL;
}

/* Two threads: on one fd (shared >= 0), or on a fresh fd each round that both share (shared
 * == -1: the module allocates a file's record buffer at its first dump), or each on its own
 * fd (shared == -2: never EBUSY). */
static void race_check(const char *name, int shared, uint64_t start, uint64_t n1, uint64_t n2,
		       int dump, int rounds, int new_gen_every)
{
	pthread_barrier_t bar;
	struct racer r[2];
	pthread_t t[2];
	int fd = -1, own[2] = { -1, -1 };
	int fresh = shared == -1;

	pthread_barrier_init(&bar, NULL, fresh ? 3 : 2);
	memset(r, 0, sizeof(r));
	if (shared >= 0)
		fd = shared;
	for (int i = 0; i < 2; i++) {
		r[i].start = start;
		r[i].n = i ? n2 : n1;
		r[i].dump = dump;
		r[i].rounds = rounds;
		r[i].new_gen_every = new_gen_every;
		r[i].bar = &bar;
		r[i].recs = dump ? calloc(r[i].n, sizeof(struct ms_page_rec)) : NULL;
		if (shared == -2)
			own[i] = r[i].fd = dev_fd();
		else if (fresh)
			r[i].shared_fd = &fd;
		else
			r[i].fd = fd;
		pthread_create(&t[i], NULL, race, &r[i]);
	}
	if (fresh) {	/* the main thread opens the fd of each round and closes it after */
		for (int i = 0; i < rounds; i++) {
			fd = dev_fd();
			pthread_barrier_wait(&bar);
			pthread_barrier_wait(&bar);
			close(fd);
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i < 2; i++) {
		free(r[i].recs);
		if (own[i] >= 0)
			close(own[i]);
	}
	/* EBUSY only while the other holds the file: in each round at least one is served */
	int ok = !r[0].bad && !r[1].bad && r[0].ok + r[0].busy == rounds && r[1].ok + r[1].busy == rounds &&
		 r[0].ok + r[1].ok >= rounds;
	if (shared == -2)	/* separate files never wait for each other */
		ok = ok && !r[0].busy && !r[1].busy;
	check(ok, name, "%d rounds: thread 1 %d sane, %d EBUSY, %d bad; thread 2 %d sane, %d EBUSY, %d bad%s%s",
	      rounds, r[0].ok, r[0].busy, r[0].bad, r[1].ok, r[1].busy, r[1].bad,
	      r[0].bad || r[1].bad ? "; " : "", r[0].bad ? r[0].why : r[1].why);
}

/* a normal walk still works, and its counts sum to the range */
static void still_works(int fd, const char *after, uint64_t start, uint64_t n)
{
	struct ms_kmod_walk w;
	char name[96];
	int e = walk(fd, &w, start, start + n, NULL, MS_KMOD_NEW_RANGE, 7);

	snprintf(name, sizeof(name), "works-after-%s", after);
	check(!e && counted(&w) == n, name, "walk of %llu pages: %s, %llu counted", (unsigned long long)n,
	      e ? strerror(e) : "ok", (unsigned long long)counted(&w));
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	uint64_t rs = 0, re = 0, start, n;
	struct ms_kmod_walk w;
	int fd, e;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pagesz = sysconf(_SC_PAGESIZE);
	if (rounds <= 0) {
		fprintf(stderr, "usage: kmod_abuse [ITERATIONS]\n");
		return 2;
	}
	if (ram_range(&rs, &re)) {
		fprintf(stderr, "kmod_abuse: no System RAM in /proc/iomem\n");
		return 2;
	}
	start = rs;
	n = re - rs < MS_SECTION_PAGES ? re - rs : MS_SECTION_PAGES;
	printf("kmod_abuse: walking pfn 0x%llx + %llu (largest RAM range 0x%llx-0x%llx)\n",
	       (unsigned long long)start, (unsigned long long)n, (unsigned long long)rs,
	       (unsigned long long)re);

	/* ---- opening ---- */
	fd = dev_fd();
	e = open(MS_KMOD_DEVICE, O_RDWR) < 0 ? errno : 0;
	check(e == EACCES, "open-rdwr", "O_RDWR: %s (want EACCES)", e ? strerror(e) : "opened");
	e = open(MS_KMOD_DEVICE, O_WRONLY) < 0 ? errno : 0;
	check(e == EACCES, "open-wronly", "O_WRONLY: %s (want EACCES)", e ? strerror(e) : "opened");

	/* ---- a good walk first: the baseline ---- */
	e = walk(fd, &w, start, start + n, NULL, MS_KMOD_NEW_RANGE, 1);
	check(!e && counted(&w) == n, "walk-good", "%s, %llu of %llu pages counted (%llu holes)",
	      e ? strerror(e) : "ok", (unsigned long long)counted(&w), (unsigned long long)n,
	      (unsigned long long)w.holes);

	/* ---- ranges ---- */
	e = walk(fd, &w, start + 10, start + 10, NULL, MS_KMOD_NEW_RANGE, 1);
	check(e == EINVAL, "range-empty", "end == start: %s (want EINVAL)", e ? strerror(e) : "ok");
	e = walk(fd, &w, start + 10, start + 5, NULL, MS_KMOD_NEW_RANGE, 1);
	check(e == EINVAL, "range-reversed", "end < start: %s (want EINVAL)", e ? strerror(e) : "ok");
	e = walk(fd, &w, start, start + MS_SECTION_PAGES + 1, NULL, MS_KMOD_NEW_RANGE, 1);
	check(e == EINVAL, "range-too-long", "MS_SECTION_PAGES + 1 pages: %s (want EINVAL)", e ? strerror(e) : "ok");
	e = walk(fd, &w, 0, UINT64_MAX, NULL, MS_KMOD_NEW_RANGE, 1);
	check(e == EINVAL, "range-everything", "0 .. 2^64-1: %s (want EINVAL)", e ? strerror(e) : "ok");
	e = walk(fd, &w, UINT64_MAX - 5, 10, NULL, MS_KMOD_NEW_RANGE, 1);
	check(e == EINVAL, "range-wraps", "2^64-6 .. 10: %s (want EINVAL)", e ? strerror(e) : "ok");
	e = walk(fd, &w, start, start + MS_SECTION_PAGES, NULL, MS_KMOD_NEW_RANGE, 1);
	check(!e && counted(&w) == MS_SECTION_PAGES, "range-one-section",
	      "exactly MS_SECTION_PAGES: %s, %llu counted", e ? strerror(e) : "ok", (unsigned long long)counted(&w));

	/* far past the end of memory: no crash, every page a hole */
	static const uint64_t far[] = { 1ULL << 40, 1ULL << 52, UINT64_MAX - MS_SECTION_PAGES };
	for (unsigned i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "range-far-0x%llx", (unsigned long long)far[i]);
		e = walk(fd, &w, far[i], far[i] + MS_SECTION_PAGES, NULL, MS_KMOD_NEW_RANGE, 1);
		check(!e && w.holes == MS_SECTION_PAGES && counted(&w) == MS_SECTION_PAGES, name,
		      "%s, %llu holes, %llu counted (want all %u holes)", e ? strerror(e) : "ok",
		      (unsigned long long)w.holes, (unsigned long long)(counted(&w) - w.holes), MS_SECTION_PAGES);
	}
	{
		struct ms_page_rec *r = calloc(MS_SECTION_PAGES, sizeof(*r));
		uint64_t valid = 0;

		memset(r, 0xa5, MS_SECTION_PAGES * sizeof(*r));
		e = walk(fd, &w, 1ULL << 40, (1ULL << 40) + MS_SECTION_PAGES, r, MS_KMOD_NEW_RANGE, 1);
		for (uint64_t i = 0; i < MS_SECTION_PAGES; i++)
			valid += r[i].valid != 0;
		check(!e && w.holes == MS_SECTION_PAGES && valid == 0, "range-far-dump",
		      "allpages at 2^40: %s, %llu holes, %llu records marked valid (want none)",
		      e ? strerror(e) : "ok", (unsigned long long)w.holes, (unsigned long long)valid);
		free(r);
	}

	/* ---- the ioctl argument: bad user pointers ---- */
	char *ro = mmap(NULL, pagesz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *hole = hole_region();
	if (!hole || ro == MAP_FAILED || !is_unmapped(hole + pagesz)) {
		fprintf(stderr, "kmod_abuse: mmap: %s\n", strerror(errno));
		return 2;
	}
	e = walk_arg(fd, NULL);
	check(e == EFAULT, "arg-null", "NULL: %s (want EFAULT)", e ? strerror(e) : "ok");
	e = walk_arg(fd, (void *)1);
	check(e == EFAULT, "arg-one", "(void *)1: %s (want EFAULT)", e ? strerror(e) : "ok");
	e = walk_arg(fd, hole + pagesz);
	check(e == EFAULT && is_unmapped(hole + pagesz), "arg-unmapped", "an unmapped page: %s (want EFAULT)",
	      e ? strerror(e) : "ok");
	e = walk_arg(fd, (void *)0xffffffff81000000UL);
	check(e == EFAULT, "arg-kernel", "a kernel address: %s (want EFAULT)", e ? strerror(e) : "ok");
	/* the request ends in the unmapped page */
	{
		struct ms_kmod_walk *x = (struct ms_kmod_walk *)(hole + pagesz - 16);

		memset(x, 0, 16);
		x->start_pfn = start;
		x->end_pfn = start + 64;
		e = walk_arg(fd, x);
		check(e == EFAULT && is_unmapped(hole + pagesz), "arg-straddles", "a request that runs into an unmapped page: %s (want EFAULT)",
		      e ? strerror(e) : "ok");
	}
	/* a well-formed request in read-only memory: read, walked, the answer cannot be written */
	{
		struct ms_kmod_walk *x = (struct ms_kmod_walk *)ro;

		memset(x, 0, sizeof(*x));
		x->start_pfn = start;
		x->end_pfn = start + 1024;
		x->flags = MS_KMOD_NEW_RANGE;
		x->generation = 1;
		mprotect(ro, pagesz, PROT_READ);
		e = walk_arg(fd, x);
		check(e == EFAULT, "arg-readonly", "a request in read-only memory: %s (want EFAULT)", e ? strerror(e) : "ok");
	}
	still_works(fd, "bad-args", start, n);

	/* ---- recs: bad user pointers for the records ---- */
	{
		struct ms_page_rec *good = calloc(n, sizeof(*good));
		size_t half = (n * sizeof(*good) / 2 + pagesz - 1) & ~(size_t)(pagesz - 1);
		char *part = mmap(NULL, 2 * half, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *rorecs = mmap(NULL, n * sizeof(*good), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		const struct { const char *name; void *p; } bad[] = {
			{ "recs-one", (void *)1 },
			{ "recs-unmapped", hole + pagesz },
			{ "recs-readonly", rorecs },
			{ "recs-half-mapped", part },
			{ "recs-kernel", (void *)0xffff888000000000UL },
			{ "recs-wraps", (void *)(UINTPTR_MAX - 4095) },
		};

		munmap(part + half, half);
		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			e = walk(fd, &w, start, start + n, bad[i].p, MS_KMOD_NEW_RANGE, 1);
			check(e == EFAULT && (bad[i].p != hole + pagesz || is_unmapped(hole + pagesz)), bad[i].name,
			      "%s (want EFAULT)", e ? strerror(e) : "ok");
		}
		still_works(fd, "bad-recs", start, n);
		e = walk(fd, &w, start, start + n, good, MS_KMOD_NEW_RANGE, 1);
		const char *d = e ? strerror(e) : recs_disagree(&w, good, n);
		check(!d && counted(&w) == n, "dump-after-bad-recs", "allpages of %llu pages: %s",
		      (unsigned long long)n, d ? d : "records agree with the counts");
		munmap(part, half);
		munmap(rorecs, n * sizeof(*good));
		free(good);
	}

	/* ---- unknown ioctls ---- */
	{
		const struct { const char *name; unsigned long cmd; } cmds[] = {
			{ "ioctl-unknown-nr", _IOWR('M', 0x33, struct ms_kmod_walk) },
			{ "ioctl-wrong-size", _IOWR('M', 0x31, uint64_t) },
			{ "ioctl-wrong-type", _IOWR('m', 0x31, struct ms_kmod_walk) },
			{ "ioctl-features-as-write", _IOW('M', 0x32, struct ms_features) },
			{ "ioctl-zero", 0 },
		};
		for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			char buf[4096] = { 0 };

			e = ioctl(fd, cmds[i].cmd, buf) ? errno : 0;
			check(e == ENOTTY, cmds[i].name, "cmd 0x%lx: %s (want ENOTTY)", cmds[i].cmd, e ? strerror(e) : "ok");
		}
	}

	/* ---- flags: only MS_KMOD_NEW_RANGE (0x1), RAW_POINTERS (0x2), FOLIO_COUNTERS (0x4) ---- */
	{
		static const uint32_t bad[] = { 0x8, 0x10, 0x80000000u, 0xfffffff8u, 0xffffffffu };
		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			char name[64];

			snprintf(name, sizeof(name), "flags-0x%x", bad[i]);
			e = walk(fd, &w, start, start + 64, NULL, bad[i], 1);
			check(e == EINVAL, name, "unknown flag bits: %s (want EINVAL)", e ? strerror(e) : "accepted");
		}
		/* raw pointers are for allpages (records) only */
		e = walk(fd, &w, start, start + 64, NULL, MS_KMOD_NEW_RANGE | MS_KMOD_RAW_POINTERS, 1);
		check(e == EINVAL, "flags-raw-without-recs", "RAW_POINTERS without recs: %s (want EINVAL)",
		      e ? strerror(e) : "accepted");
		e = walk(fd, &w, start, start + 64, NULL, MS_KMOD_NEW_RANGE | MS_KMOD_FOLIO_COUNTERS, 1);
		check(e == EINVAL, "flags-counters-without-recs",
		      "FOLIO_COUNTERS without recs: %s (want EINVAL)", e ? strerror(e) : "accepted");
	}

	/* ---- records carry kernel addresses only with MS_KMOD_RAW_POINTERS ---- */
	{
		struct ms_page_rec *r = calloc(n, sizeof(*r));
		uint64_t ptrs = 0, kaddr = 0;

		e = walk(fd, &w, start, start + n, r, MS_KMOD_NEW_RANGE, 1);
		for (uint64_t i = 0; i < n; i++) {
			ptrs += raw_pointer_words(&r[i]);
			kaddr += kaddr_fields(&r[i]);
		}
		check(!e && ptrs == 0, "recs-no-pointers", "allpages without RAW_POINTERS: %s, %llu pointer words set",
		      e ? strerror(e) : "ok", (unsigned long long)ptrs);
		check(!e && kaddr == 0, "recs-no-kernel-address", "allpages without RAW_POINTERS: %s, "
		      "%llu fields look like kernel addresses", e ? strerror(e) : "ok",
		      (unsigned long long)kaddr);
		/* -a's records: page[1]'s counters kept, still no kernel address */
		e = walk(fd, &w, start, start + n, r, MS_KMOD_NEW_RANGE | MS_KMOD_FOLIO_COUNTERS, 1);
		kaddr = 0;
		for (uint64_t i = 0; !e && i < n; i++) {
			/* a first tail page's counter words (2, 3) may hold a mapcount of -1 */
			if (r[i].role == MS_ROLE_TAIL && start + i == r[i].head_pfn + 1)
				r[i].w[2] = r[i].w[3] = 0;
			kaddr += kaddr_fields(&r[i]);
		}
		check(!e && kaddr == 0, "recs-counters-no-kernel-address", "allpages with "
		      "FOLIO_COUNTERS: %s, %llu fields look like kernel addresses",
		      e ? strerror(e) : "ok", (unsigned long long)kaddr);
		e = walk(fd, &w, start, start + n, r, MS_KMOD_NEW_RANGE | MS_KMOD_RAW_POINTERS, 1);
		ptrs = 0;
		for (uint64_t i = 0; !e && i < n; i++)
			ptrs += raw_pointer_words(&r[i]);
		check(!e && ptrs > 0 && counted(&w) == n, "recs-raw-pointers",
		      "allpages with RAW_POINTERS: %s, %llu pointer words set (want some)", e ? strerror(e) : "ok",
		      (unsigned long long)ptrs);
		free(r);
	}

	/* ---- MS_KMOD_IOC_FEATURES: no kernel address, no stale bytes ---- */
	{
		unsigned char buf[sizeof(struct ms_features) + 64];
		struct ms_features f;
		/* every byte that belongs to a named field other than _pad */
		static const struct { size_t off, len; } fields[] = {
#define F(m) { offsetof(struct ms_features, m), sizeof(((struct ms_features *)0)->m) }
			F(page_size), F(type_scheme), F(has_dtor), F(hugetlb_dtor), F(movable_flag), F(pg_head),
			F(pg_reserved), F(pg_swapbacked), F(pg_swapcache), F(pg_slab), F(pg_hugetlb),
			F(pg_movable_ops), F(pg_lru), F(max_buddy_order), F(memcg_kind), F(pp_dma_index),
			F(slab_cache_word),
			F(ptype), F(pt_base),
			F(vmemmap_base), F(s3_type),
#undef F
		};
		unsigned char named[sizeof(struct ms_features)] = { 0 };
		size_t nz = 0, over = 0, gap = 0;

		memset(buf, 0xa5, sizeof(buf));
		e = ioctl(fd, MS_KMOD_IOC_FEATURES, buf) ? errno : 0;
		memcpy(&f, buf, sizeof(f));
		for (unsigned i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			memset(named + fields[i].off, 1, fields[i].len);
		for (size_t i = 0; i < sizeof(f); i++)
			if (!named[i]) {
				gap++;
				nz += buf[i] != 0;
			}
		for (size_t i = sizeof(f); i < sizeof(buf); i++)
			over += buf[i] != 0xa5;
		check(!e, "features", "%s, struct page size %u", e ? strerror(e) : "ok", f.page_size);
		check(!e && f.vmemmap_base == 0, "features-no-vmemmap-base", "vmemmap_base %s",
		      f.vmemmap_base ? "is set (a kernel address)" : "is 0");
		check(!e && gap > 0 && nz == 0, "features-padding-zero", "%zu of %zu padding bytes (_pad and holes) not zero",
		      nz, gap);
		check(!e && over == 0, "features-size", "%zu bytes written past the struct", over);
		e = ioctl(fd, MS_KMOD_IOC_FEATURES, (void *)1) ? errno : 0;
		check(e == EFAULT, "features-arg-one", "(void *)1: %s (want EFAULT)", e ? strerror(e) : "ok");
		e = ioctl(fd, MS_KMOD_IOC_FEATURES, ro) ? errno : 0;
		check(e == EFAULT, "features-arg-readonly", "read-only memory: %s (want EFAULT)", e ? strerror(e) : "ok");
		e = ioctl(fd, MS_KMOD_IOC_FEATURES, (void *)0xffff888000000000UL) ? errno : 0;
		check(e == EFAULT, "features-arg-kernel", "a kernel address: %s (want EFAULT)", e ? strerror(e) : "ok");
	}
	munmap(hole, pagesz);
	munmap(hole + 2 * pagesz, pagesz);
	munmap(ro, pagesz);

	/* ---- two threads at once ---- */
	uint64_t n2 = n > 4096 ? n / 2 + 7 : n;	/* another size: a mixed-up result shows */
	race_check("race-one-fd-walk", fd, start, n, n2, 0, rounds, 0);
	race_check("race-one-fd-walk-new-generation", fd, start, n, n2, 0, rounds, 1);
	race_check("race-one-fd-dump", fd, start, n, n2, 1, rounds, 0);
	race_check("race-fresh-fd-first-dump", -1, start, n, n2, 1, rounds, 0);
	race_check("race-two-fds", -2, start, n, n2, 1, rounds / 2 ? rounds / 2 : 1, 3);
	still_works(fd, "races", start, n);
	close(fd);

	printf("kmod_abuse: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
