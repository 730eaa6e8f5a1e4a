// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: memstat diff of one log (src/cmd/diff.c: JSON lines or a CSV log with headers
 * that may repeat, the first and last samples compared, groups matched), with --json, and
 * with --from and --to around the log's start. The input is the log.
 *
 * Invariants: it returns 0, or 2 (usage: not a memstat log, one sample, walks that are not
 * comparable) with one line on stderr (and, for usage, the --help hint); never 1 (the file is readable). With 0, stdout is one
 * JSON object whose "pages" and "detail" hold whole numbers and whose "a" and "b" name lines
 * of the input, a no later than b.
 */
#include "fuzz.h"	/* first: it defines _GNU_SOURCE */
#include <fcntl.h>
#include <jansson.h>

#include "memstat_int.h"

static int run(const char *path, const char *from, char *out, size_t outlen, char *err,
	       size_t errlen)
{
	char *argv[8] = { (char *)"diff", (char *)"--json" };
	int argc = 2, ret, o = dup(1), e = dup(2);
	FILE *fo = tmpfile(), *fe = tmpfile();
	size_t n;

	if (from) {
		argv[argc++] = (char *)"--from";
		argv[argc++] = (char *)from;
	}
	argv[argc++] = (char *)path;
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	ret = ms_diff_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(o, 1);
	dup2(e, 2);
	close(o);
	close(e);
	rewind(fo);
	rewind(fe);
	n = fread(out, 1, outlen - 1, fo);
	out[n] = 0;
	n = fread(err, 1, errlen - 1, fe);
	err[n] = 0;
	fclose(fo);
	fclose(fe);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[1 << 20], err[4096];
	const char *path = fuzz_file(data, size);
	const char *froms[] = { NULL, "0", "00:00" };
	long lines = 1;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	for (size_t k = 0; k < sizeof(froms) / sizeof(froms[0]); k++) {
		int ret = run(path, froms[k], out, sizeof(out), err, sizeof(err));
		json_error_t je;
		json_t *d, *v;
		const char *key;

		FUZZ_CHECK(ret == 0 || ret == MS_EXIT_USAGE, "memstat diff returned %d: %s", ret, err);
		if (ret) {
			const char *nl = strchr(err, '\n');

			FUZZ_CHECK(err[0] && nl && (!nl[1] || !strcmp(nl + 1, "Try 'memstat diff "
				   "--help' for more information.\n")),
				   "the refusal is not one line (and the hint): '%s'", err);
			continue;
		}
		d = json_loads(out, 0, &je);
		FUZZ_CHECK(d && json_is_object(d), "stdout is not one JSON object: %s (%s)", out,
			   je.text);
		json_object_foreach(json_object_get(d, "pages"), key, v)
			FUZZ_CHECK(json_is_integer(v), "pages.%s is not a whole number", key);
		json_object_foreach(json_object_get(d, "detail"), key, v)
			FUZZ_CHECK(json_is_integer(v), "detail.%s is not a whole number", key);
		{
			json_int_t la = json_integer_value(json_object_get(json_object_get(d, "a"), "line"));
			json_int_t lb = json_integer_value(json_object_get(json_object_get(d, "b"), "line"));

			FUZZ_CHECK(la >= 1 && la < lb && lb <= lines, "lines %lld and %lld of %ld",
				   (long long)la, (long long)lb, lines);
		}
		json_decref(d);
	}
	return 0;
}
