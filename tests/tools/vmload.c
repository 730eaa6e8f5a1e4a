// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmload: hold the kinds of memory that the module-versus-BPF comparison must not see as empty
 * classes, in the test VMs (tools/vm/init.sh): hugetlb pages in use (the pool is sized by the
 * caller, so some of it stays free), KSM-merged pages, and anonymous pages swapped out to zram
 * (zsmalloc pages). It prints one "vmload: ..." line per kind, touches READY_FILE when all are
 * in place (or says which is missing and exits 1), then holds them until SIGTERM.
 * Usage: vmload READY_FILE [HUGE_PAGES]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static long read_long(const char *path, int field)
{
	char buf[256], *p = buf, *end;
	long v = -1;
	int fd = open(path, O_RDONLY), i;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (i = 0; i <= field; i++) {
		v = strtol(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
	}
	return v;
}

/* Wait up to SECONDS for path's first number to become positive. */
static long wait_positive(const char *path, int field, int seconds)
{
	long v = -1;

	for (int i = 0; i < seconds * 10; i++) {
		v = read_long(path, field);
		if (v > 0)
			break;
		usleep(100000);
	}
	return v;
}

int main(int argc, char **argv)
{
	const size_t mib = 1 << 20, region = 16 * mib;
	long huge = argc > 2 ? atol(argv[2]) : 4, v;
	sigset_t set;
	int sig, fd;
	char *h, *k, *s;

	if (argc < 2 || huge < 1) {
		fprintf(stderr, "usage: vmload READY_FILE [HUGE_PAGES]\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);

	/* hugetlb pages in use: 2 MiB each, touched */
	h = mmap(NULL, huge * 2 * mib, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (h == MAP_FAILED) {
		printf("vmload: hugetlb: mmap of %ld huge pages failed: %s\n", huge, strerror(errno));
		return 1;
	}
	memset(h, 0x5a, huge * 2 * mib);
	printf("vmload: hugetlb: %ld huge pages in use\n", huge);

	/* KSM: two identical regions, mergeable; ksmd (run=1 by the caller) merges them */
	k = mmap(NULL, 2 * region, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (k == MAP_FAILED) {
		perror("vmload: ksm: mmap");
		return 1;
	}
	for (size_t off = 0; off < 2 * region; off += 4096)
		memset(k + off, (int)((off % region) / 4096 % 251) + 1, 4096);
	if (madvise(k, 2 * region, MADV_MERGEABLE)) {
		perror("vmload: ksm: madvise(MADV_MERGEABLE)");
		return 1;
	}
	v = wait_positive("/sys/kernel/mm/ksm/pages_sharing", 0, 120);
	if (v <= 0) {
		printf("vmload: ksm: ksmd merged nothing in 120 s\n");
		return 1;
	}
	printf("vmload: ksm: %ld pages sharing\n", v);

	/* swap: pages that do not compress to one value (zram keeps same-filled pages in no
	 * zsmalloc page), pushed out to swap with MADV_PAGEOUT */
	s = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED) {
		perror("vmload: swap: mmap");
		return 1;
	}
	for (size_t off = 0; off < region; off += sizeof(unsigned long))
		*(unsigned long *)(s + off) = off * 2654435761UL;
	if (madvise(s, region, MADV_PAGEOUT)) {
		printf("vmload: swap: madvise(MADV_PAGEOUT) failed: %s\n", strerror(errno));
		return 1;
	}
	v = wait_positive("/sys/block/zram0/mm_stat", 1, 30);	/* compr_data_size */
	if (v <= 0) {
		printf("vmload: swap: nothing reached zram0\n");
		return 1;
	}
	printf("vmload: swap: %ld bytes compressed in zram0\n", v);

	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror("vmload: ready file");
		return 1;
	}
	close(fd);
	fflush(stdout);
	sigwait(&set, &sig);
	return 0;
}
