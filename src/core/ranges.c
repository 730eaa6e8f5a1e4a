// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Present memory: the top-level "System RAM" ranges of /proc/iomem, as pfn ranges. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"

static int cmp_range(const void *a, const void *b)
{
	const struct ms_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Every "System RAM" resource of /proc/iomem: the top-level ones, and the ones drivers add
 * nested under their own resource, "System RAM (virtio_mem)" or "System RAM (kmem)" (dax,
 * CXL). Sorted, overlaps merged. Offline memory blocks are still in it: see below.
 */
int ms_ranges_parse_iomem(const char *path, struct ms_ranges *out)
{
	__u64 psz = (__u64)sysconf(_SC_PAGESIZE);
	char line[256];
	FILE *f;
	int zero = 0;

	memset(out, 0, sizeof(*out));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		char name[128];

		if (sscanf(line, " %llx-%llx : %127[^\n]", &a, &b, name) != 3)
			continue;
		if (strncmp(name, "System RAM", 10))
			continue;
		if (a == 0 && b == 0) {
			zero = 1;	/* addresses hidden from unprivileged readers */
			continue;
		}
		if (ms_ranges_add_bytes(out, a, b, psz)) {
			fclose(f);
			ms_ranges_free(out);
			return -ENOMEM;
		}
	}
	fclose(f);
	if (!out->n)
		return zero ? -EPERM : -ENOENT;
	ms_ranges_merge(out);
	return 0;
}

int ms_ranges_add_bytes(struct ms_ranges *r, __u64 a, __u64 b, __u64 psz)
{
	struct ms_range *nr;

	/* the whole pages in [a, b], without a + psz - 1 or b + 1 wrapping near 2^64 */
	a = a / psz + (a % psz != 0);
	b = b / psz + (b % psz == psz - 1);
	if (b <= a)
		return 0;
	nr = realloc(r->r, (r->n + 1) * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	r->r = nr;
	r->r[r->n].start = a;
	r->r[r->n].end = b;
	r->n++;
	return 0;
}

void ms_ranges_merge(struct ms_ranges *r)
{
	size_t i, n;

	if (!r->n)
		return;
	qsort(r->r, r->n, sizeof(*r->r), cmp_range);
	for (i = 1, n = 1; i < r->n; i++) {
		if (r->r[i].start <= r->r[n - 1].end) {
			if (r->r[i].end > r->r[n - 1].end)
				r->r[n - 1].end = r->r[i].end;
		} else {
			r->r[n++] = r->r[i];
		}
	}
	r->n = n;
	r->pages = 0;
	for (i = 0; i < n; i++)
		r->pages += r->r[i].end - r->r[i].start;
}

/* Present memory: the System RAM of /proc/iomem without the offline memory blocks. */
int ms_ranges_from_iomem(const char *path, struct ms_ranges *out)
{
	int err = ms_ranges_parse_iomem(path, out);

	return err ? err : ms_ranges_drop_offline(out, "/sys/devices/system/memory");
}

/* Remove [a, b) from the ranges (they are sorted and disjoint). */
static int subtract(struct ms_ranges *r, __u64 a, __u64 b)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		struct ms_range *x = &r->r[i];

		if (b <= x->start || a >= x->end)
			continue;
		if (a > x->start && b < x->end) {	/* a hole in the middle: split */
			struct ms_range *nr = realloc(r->r, (r->n + 1) * sizeof(*nr));

			if (!nr)
				return -ENOMEM;
			r->r = nr;
			x = &r->r[i];
			memmove(&r->r[i + 2], &r->r[i + 1], (r->n - i - 1) * sizeof(*nr));
			r->r[i + 1].start = b;
			r->r[i + 1].end = x->end;
			x->end = a;
			r->n++;
			r->pages -= b - a;
			return 0;
		}
		if (a <= x->start && b >= x->end) {	/* all of it */
			r->pages -= x->end - x->start;
			memmove(x, x + 1, (r->n - i - 1) * sizeof(*x));
			r->n--;
			i--;
			continue;
		}
		if (a <= x->start) {
			r->pages -= b - x->start;
			x->start = b;
		} else {
			r->pages -= x->end - a;
			x->end = a;
		}
	}
	return 0;
}

/*
 * An offlined memory block stays "System RAM" in /proc/iomem, but its struct pages are stale
 * (mm/memory_hotplug.c offline_pages()): leave out every block whose sysfs "online" is 0.
 */
int ms_ranges_drop_offline(struct ms_ranges *r, const char *sysdir)
{
	__u64 psz = (__u64)sysconf(_SC_PAGESIZE), block_bytes = 0;
	char path[512], buf[64];
	struct dirent *de;
	FILE *f;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s/block_size_bytes", sysdir);
	f = fopen(path, "re");
	if (!f)
		return 0;	/* no memory hotplug: every block is online */
	if (fgets(buf, sizeof(buf), f))
		block_bytes = strtoull(buf, NULL, 16);
	fclose(f);
	d = opendir(sysdir);
	if (!d || !block_bytes) {
		if (d)
			closedir(d);
		return 0;
	}
	while (!err && (de = readdir(d))) {
		unsigned long long id;
		char *end;

		if (strncmp(de->d_name, "memory", 6))
			continue;
		id = strtoull(de->d_name + 6, &end, 10);
		if (end == de->d_name + 6 || *end)
			continue;
		snprintf(path, sizeof(path), "%s/%s/online", sysdir, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && buf[0] == '0')
			err = subtract(r, id * block_bytes / psz, (id + 1) * block_bytes / psz);
		fclose(f);
	}
	closedir(d);
	return err;
}

void ms_ranges_free(struct ms_ranges *r)
{
	free(r->r);
	memset(r, 0, sizeof(*r));
}

/*
 * Zones and nodes from /proc/zoneinfo ("Node N, zone NAME", then "spanned" before
 * "start_pfn" in each zone), in the order listed. Empty zones are left out, and so is what
 * no kernel writes: a zone under no whole "Node N, zone NAME" line, a node below 0, a span
 * past 2^64.
 */
int ms_zones_read(const char *path, struct ms_zone **out, size_t *n)
{
	FILE *f = fopen(path, "re");
	char line[256], name[16] = "";
	unsigned long long spanned = 0, v;
	int node = -1;

	*out = NULL;
	*n = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char zname[16];
		int znode;

		if (!strncmp(line, "Node ", 5)) {
			/* a new zone: the one it names, if the whole line parses */
			if (sscanf(line, "Node %d, zone %15s", &znode, zname) == 2 && znode >= 0) {
				node = znode;
				memcpy(name, zname, sizeof(name));
			} else {
				node = -1;
			}
			spanned = 0;
		} else if (sscanf(line, " spanned %llu", &v) == 1) {
			spanned = v;
		} else if (sscanf(line, " start_pfn: %llu", &v) == 1 && spanned && node >= 0 &&
			   v + spanned > v) {
			struct ms_zone *z = realloc(*out, (*n + 1) * sizeof(*z));

			if (!z) {
				fclose(f);
				free(*out);
				*out = NULL;
				*n = 0;
				return -ENOMEM;
			}
			*out = z;
			z[*n].node = node;
			snprintf(z[*n].name, sizeof(z[0].name), "%s", name);
			z[*n].start = v;
			z[*n].end = v + spanned;
			(*n)++;
			spanned = 0;
		}
	}
	fclose(f);
	return 0;
}
