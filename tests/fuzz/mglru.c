// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: /sys/kernel/debug/lru_gen_full (ms_mglru_read), the multi-gen LRU's generations
 * that memstat checks a folio's generation bits against.
 *
 * Invariants: the read either fails with -EINVAL and holds nothing, or succeeds with at least one
 * lruvec, no more lruvecs than " node" lines, at most MS_MGLRU_GENS generations each, each with
 * its memcg's path (a string of one line); the pages by generation add up to every
 * generation's anon and file pages; reading again gives the same; each lruvec's memcg id and
 * node find (ms_mglru_find) the first lruvec of that id and node in the file's order.
 */
#include "fuzz.h"
#include <errno.h>

#include "mglru.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_mglru a, b;
	const char *path = fuzz_file(data, size);
	int ra = ms_mglru_read(path, &a), rb = ms_mglru_read(path, &b);
	__u64 by[MS_MGLRU_GENS], sum = 0, all = 0;
	size_t nodes = 0, i;

	for (i = 0; i + 5 <= size; i++)
		nodes += !memcmp(data + i, "node", 4);
	FUZZ_CHECK(ra == rb, "two reads of one input gave %d and %d", ra, rb);
	if (ra) {
		FUZZ_CHECK(ra == -EINVAL && !a.v && !a.n, "failed with %d, holding %zu", ra, a.n);
		return 0;
	}
	FUZZ_CHECK(a.n && a.n <= nodes, "%zu lruvecs from %zu \"node\"s", a.n, nodes);
	FUZZ_CHECK(a.n == b.n, "a second read has %zu lruvecs, not %zu", b.n, a.n);
	for (i = 0; i < a.n; i++) {
		FUZZ_CHECK(a.v[i].path && b.v[i].path && !strchr(a.v[i].path, '\n'),
			   "lruvec %zu's path", i);
		FUZZ_CHECK(a.v[i].memcg_id == b.v[i].memcg_id && a.v[i].node == b.v[i].node &&
			   a.v[i].ngens == b.v[i].ngens && !strcmp(a.v[i].path, b.v[i].path) &&
			   !memcmp(a.v[i].gen, b.v[i].gen, sizeof(a.v[i].gen)),
			   "a second read differs at lruvec %zu", i);
		FUZZ_CHECK(a.v[i].ngens >= 0 && a.v[i].ngens <= MS_MGLRU_GENS, "%d generations",
			   a.v[i].ngens);
		for (int g = 0; g < a.v[i].ngens; g++)
			all += a.v[i].gen[g].anon + a.v[i].gen[g].file;
		size_t first = 0;
		while (a.v[first].memcg_id != a.v[i].memcg_id || a.v[first].node != a.v[i].node)
			first++;
		FUZZ_CHECK(ms_mglru_find(&a, a.v[i].memcg_id, a.v[i].node) == &a.v[first],
			   "lruvec %zu: the find gives not the first of its memcg and node", i);
	}
	ms_mglru_by_gen(&a, by);
	for (i = 0; i < MS_MGLRU_GENS; i++)
		sum += by[i];
	FUZZ_CHECK(sum == all, "by generation %llu, in all %llu", (unsigned long long)sum,
		   (unsigned long long)all);
	ms_mglru_free(&a);
	ms_mglru_free(&b);
	return 0;
}
