// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * churn: allocate, touch and free anonymous memory in a loop, with transparent huge pages
 * asked for, for SECONDS seconds, so that the page walk runs while folios are created, split
 * and freed and free blocks merge. Used by the VM tests (tools/vm/).
 * Usage: churn SECONDS [MIB]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long mib = argc > 2 ? atol(argv[2]) : 256, rounds = 0;
	time_t stop = time(NULL) + (argc > 1 ? atol(argv[1]) : 10);
	size_t len = (size_t)mib << 20;

	if (argc < 2 || mib <= 0) {
		fprintf(stderr, "usage: churn SECONDS [MIB]\n");
		return 2;
	}
	while (time(NULL) < stop) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("churn: mmap");
			return 1;
		}
		madvise(p, len, MADV_HUGEPAGE);
		memset(p, (int)rounds, len);
		/* free half by punching holes (splits huge pages), then all */
		for (size_t off = 0; off < len; off += 4 << 20)
			madvise(p + off, 1 << 20, MADV_DONTNEED);
		munmap(p, len);
		rounds++;
	}
	printf("churn: %ld rounds of %ld MiB\n", rounds, mib);
	return 0;
}
