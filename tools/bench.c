// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * make bench: how fast memstat is, on this machine, on the same pfn ranges.
 *   - the BPF walk alone, ns per page (median of several walks);
 *   - /proc/kpageflags read over the same ranges in 512 KiB preads (tools/mm/page-types
 *     style), ns per page, and the ratio;
 *   - memstat end to end, process start to exit (fork + exec + wait), median and worst.
 * Targets (issue "memstat core"): walk >= 10x faster per page than kpageflags; one-shot
 * memstat under 150 ms.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static double run_ms(const char *memstat)
{
	double t0 = ms_now_ms();
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execl(memstat, memstat, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bench: %s failed\n", memstat);
		exit(1);
	}
	return ms_now_ms() - t0;
}

int main(int argc, char **argv)
{
	double walk[WALKS], kpf[KPF_READS], kpfc[KPF_READS], run[RUNS];
	const char *memstat = argc > 1 ? argv[1] : "build/memstat";
	struct ms_ranges r;
	struct ms_result res;
	struct ms_bpf *b;
	char why[512];
	double wn, kn, kcn, rmed, rmax = 0;
	int i;

	if (ms_ranges_from_iomem("/proc/iomem", &r)) {
		fprintf(stderr, "bench: cannot read /proc/iomem (run as root)\n");
		return 1;
	}
	if (ms_bpf_open(&b, 0, why, sizeof(why))) {
		fprintf(stderr, "bench: %s\n", why);
		return 1;
	}
	for (i = 0; i < WALKS; i++) {
		if (ms_bpf_walk(b, &r, &res, NULL, NULL))
			return 1;
		walk[i] = res.walk_ms;
	}
	ms_bpf_free(b);
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
	wn = median(walk, WALKS) * 1e6 / (double)r.pages;
	kn = median(kpf, KPF_READS) * 1e6 / (double)r.pages;
	kcn = median(kpfc, KPF_READS) * 1e6 / (double)r.pages;
	rmed = median(run, RUNS);

	printf("memstat bench: %llu present pages (%.1f GiB) in %zu ranges\n",
	       (unsigned long long)r.pages, (double)r.pages * 4096 / (1 << 30), r.n);
	printf("%-44s %10.2f ns/page  (%.1f ms, median of %d; fastest %.1f, slowest %.1f)\n",
	       "bpf walk", wn, median(walk, WALKS), WALKS, walk[0], walk[WALKS - 1]);
	printf("%-44s %10.2f ns/page  (%.1f ms, median of %d)\n", "/proc/kpageflags read, same ranges",
	       kn, median(kpf, KPF_READS), KPF_READS);
	printf("%-44s %10.2f ns/page  (%.1f ms, median of %d)\n",
	       "/proc/kpageflags read + classify (fallback)", kcn, median(kpfc, KPF_READS), KPF_READS);
	printf("%-44s %10.1f x         target >= 10x: %s\n", "walk speed-up over kpageflags read",
	       kn / wn, kn / wn >= 10 ? "met" : "MISSED");
	printf("%-44s %10.1f ms median, %.1f ms worst of %d; target < 150 ms: %s\n",
	       "memstat one-shot, process start to exit", rmed, rmax, RUNS,
	       rmed < 150 ? "met" : "MISSED");
	ms_ranges_free(&r);
	return 0;
}
