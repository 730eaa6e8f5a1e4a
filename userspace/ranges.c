// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Present memory: the top-level "System RAM" ranges of /proc/iomem, as pfn ranges. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"

int ms_ranges_from_iomem(const char *path, struct ms_ranges *out)
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
		struct ms_range *nr;
		char name[128];

		/* nested resources are indented; System RAM is always top level */
		if (line[0] == ' ')
			continue;
		if (sscanf(line, "%llx-%llx : %127[^\n]", &a, &b, name) != 3)
			continue;
		if (strcmp(name, "System RAM"))
			continue;
		if (a == 0 && b == 0) {
			zero = 1;	/* addresses hidden from unprivileged readers */
			continue;
		}
		a = (a + psz - 1) / psz;
		b = (b + 1) / psz;
		if (b <= a)
			continue;
		nr = realloc(out->r, (out->n + 1) * sizeof(*nr));
		if (!nr) {
			fclose(f);
			ms_ranges_free(out);
			return -ENOMEM;
		}
		out->r = nr;
		out->r[out->n].start = a;
		out->r[out->n].end = b;
		out->n++;
		out->pages += b - a;
	}
	fclose(f);
	if (!out->n)
		return zero ? -EPERM : -ENOENT;
	return 0;
}

void ms_ranges_free(struct ms_ranges *r)
{
	free(r->r);
	memset(r, 0, sizeof(*r));
}
