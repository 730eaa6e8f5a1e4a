// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: the check of an existing CSV log before memstat appends to it (ms_sink_open
 * with -o FILE --format csv). The input is the file's content.
 *
 * Invariants: the file is accepted exactly when it is empty or its first line is this
 * memstat's header (ms_csv_header); an empty file gets the header, any other file is left
 * byte for byte as it was, accepted or not; a refusal says why in one line.
 */
#include "fuzz.h"	/* first: it defines _GNU_SOURCE */
#include <fcntl.h>
#include <sys/stat.h>

#include "memstat_int.h"
#include "sample.h"
#include "output.h"

static char dir[64], path[96];
static char *hdr;
static size_t hlen;

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *m = open_memstream(&hdr, &hlen);

	if (!m)
		abort();
	ms_csv_header(m);
	fclose(m);
	snprintf(dir, sizeof(dir), "%s/memstat-fuzz-csv-XXXXXX", fuzz_tmpdir());
	if (!mkdtemp(dir)) {
		perror("memstat-fuzz: mkdtemp");
		abort();
	}
	snprintf(path, sizeof(path), "%s/memstat.csv", dir);
	atexit(cleanup);
	return 0;
}

static void write_input(const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd)) {
		perror(path);
		abort();
	}
}

/* The file now; *len its size. Free it. */
static uint8_t *read_back(size_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		abort();
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || read(fd, buf, (size_t)st.st_size) != st.st_size)
		abort();
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_sink s = { .fmt = MS_FMT_CSV, .path = path };
	bool want_ok = size == 0 || (size >= hlen && !memcmp(data, hdr, hlen));
	char why[512] = "";
	uint8_t *after;
	size_t len;
	int ret;

	write_input(data, size);
	ret = ms_sink_open(&s, why, sizeof(why));
	if (ret == 0)
		ms_sink_close(&s);
	FUZZ_CHECK((ret == 0) == want_ok, "ms_sink_open returned %d (%s) for a file of %zu bytes",
		   ret, why, size);
	if (ret)
		FUZZ_CHECK(why[0] && !strchr(why, '\n'), "the refusal is not one line: '%s'", why);
	after = read_back(&len);
	if (size == 0)
		FUZZ_CHECK(len == hlen && !memcmp(after, hdr, hlen),
			   "an empty log did not get exactly the header (%zu bytes)", len);
	else
		FUZZ_CHECK(len == size && !memcmp(after, data, size),
			   "the log changed: %zu bytes before, %zu after", size, len);
	free(after);
	return 0;
}
