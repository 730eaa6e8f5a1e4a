// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: /proc/self/mountinfo (ms_mountinfo_load), the one reader behind --by fs, the file
 * names of --by file/exec and the memory cgroup hierarchy's mount.
 *
 * Invariants: the read succeeds; there are no more entries than lines holding a " - "; every
 * field is a string no longer than the input, the super options hold no space or newline (the
 * file escapes them), dev is major << 20 | minor as s_dev; reading again into the same struct
 * (which frees what it held) gives the same entries.
 */
#include "fuzz.h"
#include "mountinfo.h"

/* Lines with a lone "-" field: " -" then a space or the end (a NUL ends a line's text too) */
static size_t lines_with_separator(const uint8_t *d, size_t size)
{
	size_t n = 0, s = 0;

	while (s < size) {
		size_t e = s, end = s;

		while (e < size && d[e] != '\n')
			e++;
		while (end < e && d[end])
			end++;
		for (size_t k = s; k + 1 < end; k++)
			if (d[k] == ' ' && d[k + 1] == '-' && (k + 2 == end || d[k + 2] == ' ')) {
				n++;
				break;
			}
		s = e + 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_mountinfo a = {}, b = {};
	size_t seps = lines_with_separator(data, size), i;
	const char *path = fuzz_file(data, size);
	int err;

	err = ms_mountinfo_load(path, &a);
	FUZZ_CHECK(err == 0, "ms_mountinfo_load returned %d", err);
	FUZZ_CHECK(a.n <= seps, "%zu entries from %zu lines with a separator", a.n, seps);
	for (i = 0; i < a.n; i++) {
		const struct ms_mountinfo_entry *m = &a.m[i];

		FUZZ_CHECK(m->root && m->point && m->fstype && m->source && m->superopts,
			   "entry %zu has a NULL field", i);
		FUZZ_CHECK(strlen(m->root) <= size && strlen(m->point) <= size &&
			   strlen(m->fstype) <= size && strlen(m->source) <= size &&
			   strlen(m->superopts) <= size, "entry %zu has a field longer than the input",
			   i);
		FUZZ_CHECK(!strpbrk(m->superopts, " \n"), "entry %zu: super options '%s'", i,
			   m->superopts);
		FUZZ_CHECK(m->dev == ((m->major << 20) | (m->minor & 0xfffff)),
			   "entry %zu: dev %#x for %u:%u", i, m->dev, m->major, m->minor);
	}
	err = ms_mountinfo_load(path, &b);
	FUZZ_CHECK(err == 0, "the second read returned %d", err);
	err = ms_mountinfo_load(path, &a);	/* into a struct that holds entries */
	FUZZ_CHECK(err == 0 && a.n == b.n, "a third read into the first struct: %d, %zu entries, not "
		   "%zu", err, a.n, b.n);
	for (i = 0; i < a.n; i++)
		FUZZ_CHECK(!strcmp(a.m[i].root, b.m[i].root) && !strcmp(a.m[i].point, b.m[i].point) &&
			   !strcmp(a.m[i].fstype, b.m[i].fstype) &&
			   !strcmp(a.m[i].superopts, b.m[i].superopts),
			   "entry %zu differs between two reads", i);
	ms_mountinfo_free(&a);
	ms_mountinfo_free(&b);
	return 0;
}
