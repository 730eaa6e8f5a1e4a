// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: /proc/iomem (ms_ranges_parse_iomem), then the removal of offline memory
 * blocks (ms_ranges_drop_offline) with a fake sysfs directory made once.
 *
 * Invariants: the ranges are sorted, non-empty, disjoint and not adjacent; pages is their sum;
 * and they are exactly what a second, simpler computation gives: the union of the whole pages
 * inside every "System RAM" line (in 128-bit arithmetic), less the offline blocks.
 */
#include "fuzz.h"	/* first: it defines _GNU_SOURCE */
#include <errno.h>
#include <sys/stat.h>

#include "memstat_int.h"

#define BLOCK_PAGES 0x8000ULL	/* 128 MiB memory blocks of 4 KiB pages */
static const unsigned offline_blocks[] = { 2, 7, 40 };
static const unsigned online_blocks[] = { 0, 1, 3 };
static char sysdir[64];
static unsigned long psz;

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f || fputs(text, f) == EOF || fclose(f)) {
		perror(path);
		abort();
	}
}

static void remove_sysdir(void)
{
	char path[160];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/memory%u/online", sysdir, offline_blocks[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/memory%u", sysdir, offline_blocks[i]);
		rmdir(path);
		snprintf(path, sizeof(path), "%s/memory%u/online", sysdir, online_blocks[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/memory%u", sysdir, online_blocks[i]);
		rmdir(path);
	}
	snprintf(path, sizeof(path), "%s/block_size_bytes", sysdir);
	unlink(path);
	rmdir(sysdir);
}

static void add_block(unsigned id, const char *online)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/memory%u", sysdir, id);
	if (mkdir(path, 0755)) {
		perror(path);
		abort();
	}
	snprintf(path, sizeof(path), "%s/memory%u/online", sysdir, id);
	write_file(path, online);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[160];
	size_t i;

	psz = (unsigned long)sysconf(_SC_PAGESIZE);
	if (psz != 4096) {
		fprintf(stderr, "memstat-fuzz: iomem expects 4 KiB pages, not %lu\n", psz);
		abort();
	}
	snprintf(sysdir, sizeof(sysdir), "%s/memstat-fuzz-sysfs-XXXXXX", fuzz_tmpdir());
	if (!mkdtemp(sysdir)) {
		perror("memstat-fuzz: mkdtemp");
		abort();
	}
	atexit(remove_sysdir);
	snprintf(path, sizeof(path), "%s/block_size_bytes", sysdir);
	write_file(path, "8000000\n");
	for (i = 0; i < 3; i++) {
		add_block(offline_blocks[i], "0\n");
		add_block(online_blocks[i], "1\n");
	}
	return 0;
}

typedef unsigned __int128 u128;
struct iv {
	u128 start, end;
};

static int cmp_iv(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The expected ranges: every System RAM line's whole pages, merged, less offline blocks. */
static int expected(const uint8_t *data, size_t size, struct iv **out, size_t *nout)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct iv *v = NULL, *w;
	size_t n = 0, m, i, k;
	char line[256];
	int zero = 0;

	if (!size) {
		*out = NULL;
		*nout = 0;
		return -ENOENT;
	}
	if (!f)
		abort();
	/* lines as fgets() with a 256-byte buffer cuts them, like the parser */
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		char name[128];
		u128 s, e;

		if (sscanf(line, " %llx-%llx : %127[^\n]", &a, &b, name) != 3 ||
		    strncmp(name, "System RAM", 10))
			continue;
		if (a == 0 && b == 0) {
			zero = 1;
			continue;
		}
		s = ((u128)a + psz - 1) / psz;
		e = ((u128)b + 1) / psz;
		if (e <= s)
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		if (!v)
			abort();
		v[n].start = s;
		v[n].end = e;
		n++;
	}
	fclose(f);
	*out = NULL;
	*nout = 0;
	if (!n)
		return zero ? -EPERM : -ENOENT;
	qsort(v, n, sizeof(*v), cmp_iv);
	for (i = 1, m = 1; i < n; i++) {
		if (v[i].start <= v[m - 1].end) {
			if (v[i].end > v[m - 1].end)
				v[m - 1].end = v[i].end;
		} else {
			v[m++] = v[i];
		}
	}
	n = m;
	/* each offline block cuts every range into the parts outside it */
	for (k = 0; k < sizeof(offline_blocks) / sizeof(offline_blocks[0]); k++) {
		u128 bs = offline_blocks[k] * BLOCK_PAGES, be = bs + BLOCK_PAGES;

		w = calloc(2 * n + 1, sizeof(*w));
		if (!w)
			abort();
		for (i = 0, m = 0; i < n; i++) {
			if (v[i].start < bs)
				w[m++] = (struct iv){ v[i].start, v[i].end < bs ? v[i].end : bs };
			if (v[i].end > be)
				w[m++] = (struct iv){ v[i].start > be ? v[i].start : be, v[i].end };
		}
		free(v);
		v = w;
		n = m;
	}
	*out = v;
	*nout = n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_ranges r;
	struct iv *want;
	size_t nwant, i;
	__u64 pages = 0;
	int err, werr;

	werr = expected(data, size, &want, &nwant);
	err = ms_ranges_parse_iomem(fuzz_file(data, size), &r);
	FUZZ_CHECK(err == werr, "parse returned %d, expected %d", err, werr);
	if (err) {
		FUZZ_CHECK(r.n == 0 && r.r == NULL, "a failed parse left %zu ranges", r.n);
		free(want);
		return 0;
	}
	err = ms_ranges_drop_offline(&r, sysdir);
	FUZZ_CHECK(err == 0, "drop_offline returned %d", err);
	for (i = 0; i < r.n; i++) {
		FUZZ_CHECK(r.r[i].start < r.r[i].end, "range %zu is empty or reversed: %#llx-%#llx",
			   i, (unsigned long long)r.r[i].start, (unsigned long long)r.r[i].end);
		FUZZ_CHECK(i == 0 || r.r[i - 1].end < r.r[i].start,
			   "ranges %zu and %zu overlap, touch or are out of order", i - 1, i);
		pages += r.r[i].end - r.r[i].start;
	}
	FUZZ_CHECK(pages == r.pages, "pages %llu, the ranges hold %llu",
		   (unsigned long long)r.pages, (unsigned long long)pages);
	FUZZ_CHECK(r.n == nwant, "%zu ranges, expected %zu", r.n, nwant);
	for (i = 0; i < r.n; i++)
		FUZZ_CHECK(r.r[i].start == want[i].start && r.r[i].end == want[i].end,
			   "range %zu is %#llx-%#llx, expected %#llx-%#llx (pfns)", i,
			   (unsigned long long)r.r[i].start, (unsigned long long)r.r[i].end,
			   (unsigned long long)want[i].start, (unsigned long long)want[i].end);
	free(want);
	ms_ranges_free(&r);
	return 0;
}
