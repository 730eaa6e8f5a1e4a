// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: the command line of `memstat allpages` (src/cmd/allpages.c, included here as
 * it is; the backend is a stub that refuses, so no walk runs, and so is the read of --pid's
 * page tables: the machine's processes, PID 1 refusing its maps on one, no process on another,
 * are not the input), and so is --wss's mechanism (none: this machine's answer). The input is
 * the arguments, one a line, after "allpages".
 *
 * Invariants: ms_allpages_main returns 0 (--help), the usage exit code, the missing privilege
 * code exactly when the --pid stub refused, exit 5 exactly when --wss asked for a mechanism,
 * or the stub's code exactly when it reached the backend; and for every argument, as a --pfn range and as a
 * --class list: an accepted range has START <= END, no minus sign, and clips the present
 * ranges to exactly their pfns inside it; an accepted class list selects sub-classes only.
 */
#include "fuzz.h"

/* the backend: a stub, defined below (the prototype of memstat_int.h declares it) */
#define ms_backend_open fuzz_backend_open
#define ms_proc_pfns fuzz_proc_pfns
#define ms_wss_mechanism fuzz_wss_mechanism
#include "../../src/cmd/allpages.c"

#define MAX_ARGS 32
#define STUB_EXIT 77	/* no MS_EXIT_* code */

static int backend_opened, pid_refused, wss_asked;

/* --wss: no mechanism, as on a machine without MGLRU */
int fuzz_wss_mechanism(char *why, size_t whylen)
{
	wss_asked++;
	snprintf(why, whylen, "--wss: no way to see page accesses here: fuzzing");
	return -1;
}

/* --pid's page tables, by the pid: 3k maps nothing, 3k + 1 is no process, 3k + 2 refuses */
int fuzz_proc_pfns(int pid, __u64 **pfns, size_t *n)
{
	FUZZ_CHECK(pid > 0, "--pid %d reached the page tables", pid);
	*pfns = NULL;
	*n = 0;
	if (pid % 3 == 1)
		return -ESRCH;
	if (pid % 3 == 2) {
		pid_refused++;
		return -EACCES;
	}
	return 0;
}

int fuzz_backend_open(enum ms_backend_choice c, unsigned int bpf_flags, bool kpf_ok,
		      struct ms_backend *be, char *why, size_t whylen, char *fallback, size_t flen)
{
	backend_opened++;
	FUZZ_CHECK(c == MS_BE_AUTO || c == MS_BE_BPF || c == MS_BE_KMOD, "backend %d", c);
	FUZZ_CHECK(!kpf_ok && (bpf_flags & MS_BPF_ALLPAGES), "flags %#x, kpageflags %d",
		   bpf_flags, kpf_ok);
	memset(be, 0, sizeof(*be));
	snprintf(why, whylen, "fuzzing: no backend");
	return STUB_EXIT;
}

/* present memory as on the 24 GiB test machine */
static struct ms_range present_r[] = { { 0x1, 0x9f }, { 0x100, 0xbffdf }, { 0x100000, 0x640000 } };
static const struct ms_ranges present = { present_r, 3,
	(0x9f - 0x1) + (0xbffdf - 0x100) + (0x640000 - 0x100000) };

/* An argument as --pfn START-END, as ms_allpages_main takes it apart. */
static void check_pfn(const char *arg)
{
	__u64 first, last, pages = 0, want = 0;
	struct ms_ranges out;
	char *end;
	size_t i, k;
	int err;

	if (parse_pfn(arg, &first, &end) || *end != '-' || parse_pfn(end + 1, &last, &end) ||
	    *end || first > last)
		return;	/* refused */
	/* the one '-' is the separator: a negative number is no pfn */
	FUZZ_CHECK(!strchr(strchr(arg, '-') + 1, '-'), "range '%s' with a minus sign accepted",
		   arg);
	err = clip_ranges(&present, first, last, &out);
	for (i = 0; i < present.n; i++) {
		__u64 s = present.r[i].start > first ? present.r[i].start : first;
		__u64 e = present.r[i].end - 1 < last ? present.r[i].end - 1 : last;

		if (s <= e)
			want += e - s + 1;
	}
	FUZZ_CHECK((err == 0) == (want > 0), "clip of %#llx-%#llx returned %d, %llu pages present",
		   (unsigned long long)first, (unsigned long long)last, err,
		   (unsigned long long)want);
	for (i = 0; i < out.n; i++) {
		FUZZ_CHECK(out.r[i].start >= first && out.r[i].end - 1 <= last &&
			   out.r[i].start < out.r[i].end, "clipped range %#llx-%#llx outside "
			   "%#llx-%#llx", (unsigned long long)out.r[i].start,
			   (unsigned long long)out.r[i].end, (unsigned long long)first,
			   (unsigned long long)last);
		for (k = 0; k < present.n; k++)
			if (out.r[i].start >= present.r[k].start && out.r[i].end <= present.r[k].end)
				break;
		FUZZ_CHECK(k < present.n, "clipped range %#llx-%#llx is not present memory",
			   (unsigned long long)out.r[i].start, (unsigned long long)out.r[i].end);
		FUZZ_CHECK(i == 0 || out.r[i - 1].end <= out.r[i].start, "clipped ranges overlap");
		pages += out.r[i].end - out.r[i].start;
	}
	FUZZ_CHECK(pages == out.pages && pages == want, "clip holds %llu pages, says %llu, "
		   "expected %llu", (unsigned long long)pages, (unsigned long long)out.pages,
		   (unsigned long long)want);
	ms_ranges_free(&out);
}

static void check_class(const char *arg)
{
	__u32 want = 0;

	if (parse_class_list(arg, &want))
		return;
	FUZZ_CHECK(want && !(want >> MS_NR_SUBS), "class list '%s' selects %#x", arg, want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS], *copy[MAX_ARGS], *buf;
	int argc = fuzz_argv(data, size, "allpages", argv, MAX_ARGS, &buf);
	int i, ret;

	memcpy(copy, argv, sizeof(copy));	/* getopt permutes argv */
	/*
	 * glibc's getopt keeps a pointer into the last argv until optind is set to 0, and
	 * ms_allpages_main (once per process in memstat) sets optind to 1: start afresh here, or
	 * the previous input's freed words would be read.
	 */
	optind = 0;
	getopt(1, (char *[]){ "allpages", NULL }, "");
	backend_opened = 0;
	pid_refused = 0;
	wss_asked = 0;
	ret = ms_allpages_main(argc, argv, &present);
	fflush(stdout);
	FUZZ_CHECK(ret == MS_EXIT_OK || ret == MS_EXIT_USAGE || ret == STUB_EXIT ||
		   (ret == MS_EXIT_PERM && pid_refused) || (ret == MS_EXIT_UNSUPPORTED && wss_asked),
		   "ms_allpages_main returned %d", ret);
	FUZZ_CHECK(wss_asked <= 1 && (ret != MS_EXIT_UNSUPPORTED) == !wss_asked,
		   "returned %d, --wss asked %d times", ret, wss_asked);
	FUZZ_CHECK((ret == STUB_EXIT) == (backend_opened == 1), "returned %d, backend opened %d "
		   "times", ret, backend_opened);
	for (i = 1; i < argc; i++) {
		check_pfn(copy[i]);
		check_class(copy[i]);
	}
	free(buf);
	return 0;
}
