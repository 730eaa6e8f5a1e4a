// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * make bench: how fast memstat is, on this machine, on the same pfn ranges.
 *   - the BPF walk alone, ns per page (median of several walks);
 *   - /proc/kpageflags read over the same ranges in 512 KiB preads (tools/mm/page-types
 *     style), ns per page, and the ratio;
 *   - memstat end to end, process start to exit (fork + exec + wait), median and worst.
 *   - periodic mode: CPU time (user + system, BPF included) of one sample, as a share of one
 *     CPU at a 1 s interval;
 *   - allpages as CSV to /dev/null, beside a page-types -L style dump of /proc/kpageflags,
 *     kpagecount and kpagecgroup over the same pages.
 * Targets: walk >= 10x faster per page than kpageflags; one-shot memstat under 150 ms; a
 * sample under 2% of one CPU at 1 s; allpages of the whole machine under 3 s.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memstat_int.h"

#define WALKS 7
#define KPF_READS 3
#define RUNS 15

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double kpf_read_ms(const struct ms_ranges *r)
{
	static __u64 buf[65536];
	double t0 = ms_now_ms();
	int fd = open("/proc/kpageflags", O_RDONLY);
	size_t i;

	if (fd < 0) {
		perror("bench: /proc/kpageflags");
		exit(1);
	}
	for (i = 0; i < r->n; i++) {
		__u64 pfn = r->r[i].start;

		while (pfn < r->r[i].end) {
			__u64 n = r->r[i].end - pfn;

			if (n > 65536)
				n = 65536;
			if (pread(fd, buf, n * 8, pfn * 8) <= 0)
				break;
			pfn += n;
		}
	}
	close(fd);
	return ms_now_ms() - t0;
}

/* Run memstat with args, stdout to /dev/null; wall ms, and CPU ms in *cpu when asked. */
static double run_args_ms(const char *memstat, char *const args[], double *cpu)
{
	double t0 = ms_now_ms();
	struct rusage ru;
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execv(memstat, args);
		_exit(127);
	}
	wait4(pid, &st, 0, &ru);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bench: %s %s failed\n", memstat, args[1] ? args[1] : "");
		exit(1);
	}
	if (cpu)
		*cpu = ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 +
		       ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
	return ms_now_ms() - t0;
}

static double run_ms(const char *memstat)
{
	char *const args[] = { (char *)memstat, NULL };

	return run_args_ms(memstat, args, NULL);
}

/* CPU ms of one periodic sample: a 21-sample run minus a 1-sample run, over 20. */
static double sample_cpu_ms(const char *memstat)
{
	char path[] = "/tmp/memstat-bench-XXXXXX";
	int fd = mkstemp(path);
	double one, many;
	char *const a1[] = { (char *)memstat, "-o", path, "0.1", "1", NULL };
	char *const a21[] = { (char *)memstat, "-o", path, "0.1", "21", NULL };

	if (fd < 0) {
		perror("bench: mkstemp");
		exit(1);
	}
	close(fd);
	run_args_ms(memstat, a1, &one);
	run_args_ms(memstat, a21, &many);
	unlink(path);
	return (many - one) / 20;
}

/*
 * What page-types -L does for every page: read /proc/kpageflags, kpagecount and kpagecgroup in
 * 64 Ki-entry chunks and print one line per page (pfn, count, cgroup, flags), here to /dev/null.
 */
static double kpf_dump_ms(const struct ms_ranges *r)
{
	static __u64 fl[65536], cnt[65536], cg[65536];
	static char out[1 << 16];
	int ffd = open("/proc/kpageflags", O_RDONLY), cfd = open("/proc/kpagecount", O_RDONLY);
	int gfd = open("/proc/kpagecgroup", O_RDONLY), null = open("/dev/null", O_WRONLY);
	double t0 = ms_now_ms();
	size_t i, n = 0;

	for (i = 0; i < r->n; i++) {
		__u64 pfn = r->r[i].start;

		while (pfn < r->r[i].end) {
			__u64 k = r->r[i].end - pfn, j;

			if (k > 65536)
				k = 65536;
			if (pread(ffd, fl, k * 8, pfn * 8) <= 0 || pread(cfd, cnt, k * 8, pfn * 8) <= 0)
				break;
			if (gfd >= 0 && pread(gfd, cg, k * 8, pfn * 8) <= 0)
				memset(cg, 0, sizeof(cg));
			for (j = 0; j < k; j++) {
				if (n + 64 > sizeof(out)) {
					if (write(null, out, n) < 0)
						break;
					n = 0;
				}
				n += (size_t)snprintf(out + n, 64, "%llx\t%llu\t%llu\t%llx\n",
						      (unsigned long long)(pfn + j),
						      (unsigned long long)cnt[j],
						      (unsigned long long)cg[j],
						      (unsigned long long)fl[j]);
			}
			pfn += k;
		}
	}
	if (n && write(null, out, n) < 0)
		n = 0;
	close(ffd);
	close(cfd);
	if (gfd >= 0)
		close(gfd);
	close(null);
	return ms_now_ms() - t0;
}

int main(int argc, char **argv)
{
	double walk[WALKS], cwalk[WALKS], kwalk[WALKS], kpf[KPF_READS], kpfc[KPF_READS], run[RUNS];
	const char *memstat = argc > 1 ? argv[1] : "build/memstat";
	struct ms_ranges r;
	struct ms_result res;
	struct ms_bpf *b;
	__u64 cached = 0;
	int have_kmod = 0;
	char why[512];
	double wn, kn, kcn, rmed, rmax = 0, allp, kdump, scpu;
	int i;

	if (ms_ranges_from_iomem("/proc/iomem", &r)) {
		fprintf(stderr, "bench: cannot read /proc/iomem (run as root)\n");
		return 1;
	}
	if (ms_bpf_open(&b, 0, why, sizeof(why))) {
		fprintf(stderr, "bench: %s\n", why);
		return 1;
	}
	ms_bpf_set_cache(b, false);	/* every page read, every time */
	for (i = 0; i < WALKS; i++) {
		if (ms_bpf_walk(b, &r, &res, NULL, NULL))
			return 1;
		walk[i] = res.walk_ms;
	}
	ms_bpf_set_cache(b, true);	/* as the periodic mode walks */
	for (i = 0; i < WALKS; i++) {
		if (ms_bpf_walk(b, &r, &res, NULL, NULL))
			return 1;
		cwalk[i] = res.walk_ms;
		cached = res.cached_pages;
	}
	ms_bpf_free(b);
	if (access(MS_KMOD_DEVICE, F_OK) == 0) {	/* the module too, when it is loaded */
		struct ms_kmod *k;

		if (ms_kmod_open(&k, why, sizeof(why)) == 0) {
			for (i = 0; i < WALKS; i++) {
				if (ms_kmod_walk(k, &r, &res, NULL, NULL, NULL))
					return 1;
				kwalk[i] = res.walk_ms;
			}
			have_kmod = 1;
			ms_kmod_free(k);
		}
	}
	for (i = 0; i < KPF_READS; i++)
		kpf[i] = kpf_read_ms(&r);
	for (i = 0; i < KPF_READS; i++) {
		if (ms_kpf_walk("/proc/kpageflags", &r, &res, NULL, NULL, why, sizeof(why)))
			return 1;
		kpfc[i] = res.walk_ms;
	}
	for (i = 0; i < RUNS; i++) {
		run[i] = run_ms(memstat);
		if (run[i] > rmax)
			rmax = run[i];
	}
	{
		char *const ap[] = { (char *)memstat, "allpages", "--format", "csv", NULL };

		allp = run_args_ms(memstat, ap, NULL);
	}
	kdump = kpf_dump_ms(&r);
	scpu = sample_cpu_ms(memstat);
	wn = median(walk, WALKS) * 1e6 / (double)r.pages;
	kn = median(kpf, KPF_READS) * 1e6 / (double)r.pages;
	kcn = median(kpfc, KPF_READS) * 1e6 / (double)r.pages;
	rmed = median(run, RUNS);

	printf("memstat bench: %llu present pages (%.1f GiB) in %zu ranges\n",
	       (unsigned long long)r.pages, (double)r.pages * 4096 / (1 << 30), r.n);
	printf("%-44s %10.2f ns/page  (%.1f ms, median of %d; fastest %.1f, slowest %.1f)\n",
	       "bpf walk, every page read", wn, median(walk, WALKS), WALKS, walk[0], walk[WALKS - 1]);
	if (have_kmod)
		printf("%-44s %10.2f ns/page  (%.1f ms, median of %d)\n",
		       "kernel module walk (/dev/memstat)",
		       median(kwalk, WALKS) * 1e6 / (double)r.pages, median(kwalk, WALKS), WALKS);
	printf("%-44s %10.2f ns/page  (%.1f ms, median of %d; %llu pages still uninitialised "
	       "taken from the previous walk)\n", "bpf walk, repeated (periodic mode)",
	       median(cwalk, WALKS) * 1e6 / (double)r.pages, median(cwalk, WALKS), WALKS,
	       (unsigned long long)cached);
	printf("%-44s %10.2f ns/page  (%.1f ms, median of %d)\n", "/proc/kpageflags read, same ranges",
	       kn, median(kpf, KPF_READS), KPF_READS);
	printf("%-44s %10.2f ns/page  (%.1f ms, median of %d)\n",
	       "/proc/kpageflags read + classify (fallback)", kcn, median(kpfc, KPF_READS), KPF_READS);
	printf("%-44s %10.1f x         target >= 10x: %s\n", "walk speed-up over kpageflags read",
	       kn / wn, kn / wn >= 10 ? "met" : "MISSED");
	printf("%-44s %10.1f ms median, %.1f ms worst of %d; target < 150 ms: %s\n",
	       "memstat one-shot, process start to exit", rmed, rmax, RUNS,
	       rmed < 150 ? "met" : "MISSED");
	printf("%-44s %10.2f ms CPU per sample = %.2f%% of one CPU at a 1 s interval; "
	       "target < 2%%: %s\n", "periodic sampling", scpu, scpu / 10, scpu < 20 ? "met" : "MISSED");
	printf("%-44s %10.0f ms for %llu pages (%.0f ns/page); target < 3 s: %s\n",
	       "allpages --format csv > /dev/null", allp, (unsigned long long)r.pages,
	       allp * 1e6 / (double)r.pages, allp < 3000 ? "met" : "MISSED");
	printf("%-44s %10.0f ms (%.0f ns/page), %.1fx the time of allpages\n",
	       "page-types -L style kpageflags dump", kdump, kdump * 1e6 / (double)r.pages,
	       kdump / allp);
	ms_ranges_free(&r);
	return 0;
}
