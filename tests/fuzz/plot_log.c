// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: the log reader of memstat plot (ms_plot_read: CSV with headers that may repeat,
 * or JSON lines), then the breaks and the SVG drawn from what it read. The input is the log.
 *
 * Invariants: it returns 0 (with at least one sample) or MS_EXIT_USAGE with a reason of one
 * line; every sample it keeps has a finite, non-negative time no later than the year 9999, and
 * counts, and a page size of at least 512 bytes; it keeps no more samples than the input has lines; the first sample never
 * breaks, and a later one whose time does not increase always does; the SVG drawn from them is
 * one document.
 */
#include "fuzz.h"	/* first: it defines _GNU_SOURCE */
#include <math.h>

#include "picture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct ms_plot p = {};
	char why[1024] = "";
	size_t lines = 1;
	int ret;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	ret = ms_plot_read(&p, path, why, sizeof(why));
	FUZZ_CHECK(ret == 0 || ret == MS_EXIT_USAGE, "ms_plot_read returned %d (%s)", ret, why);
	if (ret) {
		FUZZ_CHECK(why[0] && !strchr(why, '\n'), "the refusal is not one line: '%s'", why);
		ms_plot_free(&p);
		return 0;
	}
	FUZZ_CHECK(p.n > 0 && p.n <= lines, "%zu samples from %zu lines", p.n, lines);
	for (size_t i = 0; i < p.n; i++) {
		const struct ms_plot_sample *s = &p.s[i];

		FUZZ_CHECK(isfinite(s->t) && s->t >= 0 && s->t <= 253402300799.0 &&
			   s->page_size >= 512,
			   "sample %zu: time %g, page size %g", i, s->t, s->page_size);
		for (int c = 0; c < MS_NR_CLASSES; c++)
			FUZZ_CHECK(isfinite(s->pages[c]) && s->pages[c] >= 0, "sample %zu: class %d %g",
				   i, c, s->pages[c]);
	}
	ms_plot_breaks(&p);
	FUZZ_CHECK(!p.s[0].brk, "the first sample breaks");
	for (size_t i = 1; i < p.n; i++)
		if (p.s[i].t <= p.s[i - 1].t)
			FUZZ_CHECK(p.s[i].brk, "sample %zu: time went back without a break", i);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		if (!f)
			abort();
		FUZZ_CHECK(ms_plot_draw(f, &p) == 0, "drawing failed");
		fclose(f);
		FUZZ_CHECK(len > 6 && !strcmp(buf + len - 7, "</svg>\n") &&
			   strstr(buf, "</svg>") == buf + len - 7, "the SVG is not one document");
		free(buf);
	}
	ms_plot_free(&p);
	return 0;
}
