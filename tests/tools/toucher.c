// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * toucher: a workload with a known working set, for memstat --wss in the debug-kernel VM
 * (tools/vm/debug-init.sh): hold MIB MiB of anonymous memory in base pages, touch all of it
 * once, touch READY_FILE, then write to the first HOT MiB of it every 100 ms until SIGTERM.
 * Each round also flushes the CPU's TLB (an unmapping of 64 pages of a region of its own): a
 * CPU sets a page's accessed bit only when it fills a TLB entry, and QEMU's emulated TLB can
 * hold the whole hot set, as the VM tests' workload explains (tests/integration/mglru_test.cc).
 * With FILE, the memory is FILE's page cache instead, mapped shared and read only: its first MIB
 * MiB read once, then its first HOT MiB read every 100 ms (make wss-picture's workload).
 * Usage: toucher READY_FILE MIB HOT [FILE]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t len, hot, flush_len = 64 * (size_t)ps;
	volatile char *p, *flush;
	volatile long sum = 0;
	int fd;

	if ((argc != 4 && argc != 5) || atol(argv[2]) <= 0 || atol(argv[3]) < 0 || atol(argv[3]) > atol(argv[2])) {
		fprintf(stderr, "usage: toucher READY_FILE MIB HOT [FILE]\n");
		return 2;
	}
	len = (size_t)atol(argv[2]) << 20;
	hot = (size_t)atol(argv[3]) << 20;
	if (argc == 5) {
		fd = open(argv[4], O_RDONLY);
		if (fd < 0) {
			perror(argv[4]);
			return 1;
		}
		p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
	} else {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	flush = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || flush == MAP_FAILED) {
		perror("toucher: mmap");
		return 1;
	}
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	madvise((void *)flush, 4 << 20, MADV_NOHUGEPAGE);
	for (size_t o = 0; o < len; o += (size_t)ps)
		if (argc == 5)
			sum += p[o];
		else
			p[o] = 1;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	for (;;) {
		for (size_t o = 0; o < hot; o += (size_t)ps)
			if (argc == 5)
				sum += p[o];
			else
				p[o] = (char)(p[o] + 1);
		madvise((void *)flush, flush_len, MADV_DONTNEED);
		for (size_t o = 0; o < flush_len; o += (size_t)ps)
			flush[o] = 1;
		usleep(100 * 1000);
	}
}
