// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: /proc/meminfo (ms_meminfo_read), then the reconciliation of a fixed walk with
 * what was read (ms_reconcile), as `memstat --reconcile` does.
 *
 * Invariants: success exactly when MemTotal is above 0; a field the input does not name stays
 * -1; the reconciliation has 1 to MS_RECON_MAX rows, each with meminfo pages >= -1 and
 * diff = walk - meminfo when the counter is there, and all_ok is the AND of the rows.
 * UBSan (fuzz builds abort on it) checks the arithmetic on the values read.
 */
#include "fuzz.h"	/* first: it defines _GNU_SOURCE */
#include <errno.h>

#include "memstat_int.h"
#include "meminfo.h"

/* Is there a line "NAME:..." in the input (as fgets() with 256 bytes cuts lines)? */
static int names(const uint8_t *data, size_t size, const char *name)
{
	size_t len = strlen(name);
	char line[256];
	FILE *f;
	int found = 0;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, name, len) && line[len] == ':';
	fclose(f);
	return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
#define F(n, m) { n, offsetof(struct ms_meminfo, m) }
		F("MemTotal", mem_total), F("MemFree", mem_free), F("Buffers", buffers),
		F("Cached", cached), F("SwapCached", swap_cached), F("AnonPages", anon_pages),
		F("Shmem", shmem), F("Slab", slab), F("PageTables", page_tables),
		F("HugePages_Total", hugepages_total), F("Hugepagesize", hugepagesize),
		F("Unaccepted", unaccepted), F("VmallocUsed", vmalloc_used), F("Percpu", percpu),
		F("KernelStack", kernel_stack), F("Zswap", zswap), F("SwapTotal", swap_total),
#undef F
	};
	struct ms_meminfo mi;
	struct ms_result r = { .backend = "bpf" };
	struct ms_recon rc;
	size_t i;
	int err, k;
	bool all_ok = true;

	err = ms_meminfo_read(fuzz_file(data, size), &mi);
	FUZZ_CHECK(err == (mi.mem_total > 0 ? 0 : -EINVAL), "returned %d with MemTotal %lld", err,
		   mi.mem_total);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		long long v = *(long long *)((char *)&mi + fields[i].off);

		FUZZ_CHECK(v == -1 || names(data, size, fields[i].name),
			   "%s is %lld, but the input has no such line", fields[i].name, v);
	}
	if (err)
		return 0;

	/* a walk of this machine's size (24 GiB), classes as on a quiet system */
	r.sub[MS_KERNEL_RESERVED] = 120444;
	r.sub[MS_KERNEL_SLAB] = 20826;
	r.sub[MS_KERNEL_PAGETABLE] = 240;
	r.sub[MS_ANON] = 1397;
	r.sub[MS_SHMEM] = 2224;
	r.sub[MS_FILE] = 120623;
	r.sub[MS_FREE_BUDDY] = 1486622;
	r.sub[MS_FREE_UNINIT] = 4509530;
	r.sub[MS_KERNEL_OFFLINE] = size && data[0] & 1 ? 4096 : 0;	/* a balloon, sometimes */
	for (i = 0; i < MS_NR_SUBS; i++)
		r.total += r.sub[i];
	ms_reconcile(&r, &mi, 4, &rc);
	FUZZ_CHECK(rc.n >= 1 && rc.n <= MS_RECON_MAX, "%d rows", rc.n);
	for (k = 0; k < rc.n; k++) {
		const struct ms_recon_row *w = &rc.row[k];

		FUZZ_CHECK(w->name && w->field, "row %d has no name", k);
		FUZZ_CHECK(w->meminfo >= -1, "row %s: meminfo pages %lld", w->name, w->meminfo);
		FUZZ_CHECK(w->meminfo < 0 || w->diff == (long long)w->walk - w->meminfo,
			   "row %s: diff %lld, walk %llu, meminfo %lld", w->name, w->diff,
			   (unsigned long long)w->walk, w->meminfo);
		all_ok = all_ok && w->ok;
	}
	FUZZ_CHECK(rc.all_ok == all_ok, "all_ok %d, the rows say %d", rc.all_ok, all_ok);
	return 0;
}
