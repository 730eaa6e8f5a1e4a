// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: memstat's command line (ms_parse_args of src/options.c, included here as
 * it is, its exit() for --help and --version turned into a jump back).
 * The input is the arguments, one a line.
 *
 * Invariants: ms_parse_args returns 0 or the usage exit code, and --help/--version exit 0; what
 * it accepts is consistent: a known format and backend, the documented conflicts refused
 * (--runs, --features, --reconcile with sampling or --approx, --fsync without -o, --seed
 * without --approx), an --approx fraction from 0.001 to 1 and the bpf backend, sampling exactly when
 * an interval or an output is given, an interval of at least 0.01 s.
 */
#include "fuzz.h"	/* first: it defines _GNU_SOURCE */
#include <math.h>
#include <setjmp.h>

static jmp_buf exit_jmp;
static int exit_code;

__attribute__((noreturn)) static void fuzz_exit(int code)
{
	exit_code = code;
	longjmp(exit_jmp, 1);
}

#define exit(code) fuzz_exit(code)
#include "../../src/options.c"
#undef exit

#define MAX_ARGS 32

static void check(const struct ms_opts *o)
{
	FUZZ_CHECK(o->format >= MS_FMT_ROWS && o->format <= MS_FMT_PROM, "format %d", o->format);
	FUZZ_CHECK(o->backend >= MS_BE_AUTO && o->backend <= MS_BE_KPF, "backend %d", o->backend);
	FUZZ_CHECK(!o->output || *o->output, "an empty output name was accepted");
	FUZZ_CHECK(!o->fsync || o->output, "--fsync without --output was accepted");
	FUZZ_CHECK(!o->runs || !(o->json || o->reconcile || o->features || o->sampling),
		   "--runs was combined with json %d reconcile %d features %d sampling %d",
		   o->json, o->reconcile, o->features, o->sampling);
	FUZZ_CHECK(!o->features || !(o->json || o->reconcile || o->sampling ||
				     o->backend == MS_BE_KPF),
		   "--features was combined with json %d reconcile %d sampling %d backend %d",
		   o->json, o->reconcile, o->sampling, o->backend);
	FUZZ_CHECK(!(o->sampling && o->reconcile), "--reconcile was combined with sampling");
	FUZZ_CHECK(!o->seed_given || o->approx, "--seed was accepted without --approx");
	FUZZ_CHECK(!o->approx || (!o->reconcile && o->backend == MS_BE_BPF &&
				  o->approx_fraction >= MS_APPROX_MIN_FRACTION &&
				  o->approx_fraction <= 1),
		   "--approx with reconcile %d backend %d fraction %g", o->reconcile, o->backend,
		   o->approx_fraction);
	FUZZ_CHECK(!o->sampling || !o->json || o->format == MS_FMT_JSONL,
		   "--json sampling in format %d", o->format);
	if (!o->sampling) {
		FUZZ_CHECK(o->format == MS_FMT_ROWS && !o->output && o->so.interval == 0 &&
			   o->so.count == 0, "not sampling, yet format %d output %s interval %g "
			   "count %ld", o->format, o->output ? o->output : "-", o->so.interval,
			   o->so.count);
		return;
	}
	FUZZ_CHECK(o->so.count >= 0, "count %ld", o->so.count);
	if (o->so.interval == 0)
		FUZZ_CHECK(o->so.count == 1, "no interval, count %ld", o->so.count);
	else
		FUZZ_CHECK(isfinite(o->so.interval) && o->so.interval >= 0.01, "interval %g",
			   o->so.interval);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS], *buf;
	int argc = fuzz_argv(data, size, "memstat", argv, MAX_ARGS, &buf);
	struct ms_opts o;
	volatile int ret;

	optind = 0;	/* glibc: start getopt afresh */
	exit_code = -1;
	if (setjmp(exit_jmp) == 0) {
		ret = ms_parse_args(argc, argv, &o);
		FUZZ_CHECK(ret == MS_EXIT_OK || ret == MS_EXIT_USAGE, "ms_parse_args returned %d", ret);
		if (ret == MS_EXIT_OK)
			check(&o);
	} else {
		FUZZ_CHECK(exit_code == MS_EXIT_OK, "--help or --version exited %d", exit_code);
	}
	fflush(stdout);
	free(buf);
	return 0;
}
