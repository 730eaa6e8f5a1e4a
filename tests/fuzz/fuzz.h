/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the libFuzzer targets of tests/fuzz: the input as a file that the parsers can
 * fopen(), and invariant checks that crash the way libFuzzer records (tests/fuzz/run.sh).
 */
#ifndef MEMSTAT_FUZZ_H
#define MEMSTAT_FUZZ_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sanitizer/common_interface_defs.h>

/* The input as a file: a memfd, by the name /proc/self/fd/N that fopen() follows. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("memstat-fuzz", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memstat-fuzz: memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
		perror("memstat-fuzz: writing the input");
		abort();
	}
	return path;
}

/*
 * A directory for scratch files: $TMPDIR, else /dev/shm (memory: on a disk file system each
 * rewrite of a file can cost a flush), else /tmp.
 */
static inline const char *fuzz_tmpdir(void)
{
	const char *t = getenv("TMPDIR");

	if (t && *t)
		return t;
	return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

/* The input as a NUL-terminated string (for parsers that read one). Free it. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Split the input into words at '\n' (one command-line argument a line; a last '\n' ends
 * the last word), after argv0. At most max - 2 words; argv[argc] is NULL. The words point
 * into buf, which the caller frees.
 */
static inline int fuzz_argv(const uint8_t *data, size_t size, const char *argv0, char **argv,
			    int max, char **buf)
{
	char *s = fuzz_string(data, size), *p = s;
	int argc = 0;

	*buf = s;
	argv[argc++] = (char *)argv0;
	if (size && s[size - 1] == '\n')
		s[--size] = '\0';
	while (size && argc < max - 1) {
		char *nl = memchr(p, '\n', size - (size_t)(p - s));

		argv[argc++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	argv[argc] = NULL;
	return argc;
}

/*
 * An invariant that does not hold: one line in the sanitizer's report (it goes where
 * libFuzzer sends reports, even with -close_fd_mask), then abort(), which libFuzzer records
 * as a crash and saves the input of.
 */
__attribute__((noreturn, format(printf, 4, 5)))
static inline void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	char msg[1024];
	int n = snprintf(msg, sizeof(msg), "memstat-fuzz: invariant failed at %s:%d: %s: ", file,
			 line, cond);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	__sanitizer_report_error_summary(msg);
	abort();
}
#define FUZZ_CHECK(cond, ...)                                                                \
	do {                                                                                 \
		if (!(cond))                                                                 \
			fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                   \
	} while (0)

#endif /* MEMSTAT_FUZZ_H */
