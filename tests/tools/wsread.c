// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A workload with a known working set, for memstat rmss's tests: map FILE and read it through
 * PASSES times (default 3), one byte of every page, in order. Its working set is the file
 * (plus a few pages of its own). With --drop, only ask the kernel to drop FILE's page cache
 * (fsync, then POSIX_FADV_DONTNEED), so that the first run reads it from the disk.
 * Usage: wsread FILE [PASSES] | wsread --drop FILE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	volatile unsigned long sum = 0;
	struct stat st;
	long pg = sysconf(_SC_PAGESIZE), passes = 3;
	const unsigned char *p;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "--drop")) {
		fd = open(argv[2], O_RDONLY);
		if (fd < 0 || fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) {
			perror(argv[2]);
			return 1;
		}
		return 0;
	}
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: wsread FILE [PASSES] | wsread --drop FILE\n");
		return 2;
	}
	if (argc == 3)
		passes = atol(argv[2]);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long i = 0; i < passes; i++)
		for (off_t off = 0; off < st.st_size; off += pg)
			sum += p[off];
	return 0;
}
