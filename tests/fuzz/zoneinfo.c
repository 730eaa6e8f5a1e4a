// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: /proc/zoneinfo (ms_zones_read), which gives allpages each page's node and zone.
 *
 * Invariants: every zone is a non-empty pfn span [start, end) that does not wrap; its node and
 * name are those of one "Node N, zone NAME" header of the input, with N >= 0; there are no
 * more zones than "start_pfn" lines.
 */
#include "fuzz.h"
#include "memstat_int.h"

struct header {
	int node;
	char name[16];
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct header *h = NULL;
	struct ms_zone *z;
	size_t nh = 0, nz, starts = 0, i, k;
	char line[256];
	FILE *f;
	int err;

	/* the headers and start_pfn lines, with lines cut as fgets() with 256 bytes cuts them */
	f = size ? fmemopen((void *)data, size, "r") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		struct header x;

		if (sscanf(line, "Node %d, zone %15s", &x.node, x.name) == 2) {
			h = realloc(h, (nh + 1) * sizeof(*h));
			if (!h)
				abort();
			h[nh++] = x;
		}
		if (strstr(line, "start_pfn"))
			starts++;
	}
	if (f)
		fclose(f);

	err = ms_zones_read(fuzz_file(data, size), &z, &nz);
	FUZZ_CHECK(err == 0, "ms_zones_read returned %d", err);
	FUZZ_CHECK(nz <= starts, "%zu zones from %zu start_pfn lines", nz, starts);
	for (i = 0; i < nz; i++) {
		FUZZ_CHECK(z[i].start < z[i].end, "zone %zu spans %#llx-%#llx: empty or wrapped", i,
			   (unsigned long long)z[i].start, (unsigned long long)z[i].end);
		FUZZ_CHECK(z[i].node >= 0, "zone %zu has node %d", i, z[i].node);
		FUZZ_CHECK(memchr(z[i].name, '\0', sizeof(z[i].name)) && z[i].name[0],
			   "zone %zu has an empty or unterminated name", i);
		for (k = 0; k < nh; k++)
			if (h[k].node == z[i].node && !strcmp(h[k].name, z[i].name))
				break;
		FUZZ_CHECK(k < nh, "zone %zu (node %d, zone %s) is in no header of the input", i,
			   z[i].node, z[i].name);
	}
	free(z);
	free(h);
	return 0;
}
