// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The idle page bitmap (page_idle.h): --wss's mechanism where MGLRU is off. Whole words, in
 * writes and reads of up to 64 KiB (the kernel takes a page of it a call: 32768 pages): no
 * per-page system call. The last word below max_pfn, when partial, is neither marked nor read
 * (the kernel handles whole words only): at most 63 pages, untracked then.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "page_idle.h"

#define CHUNK_WORDS 8192	/* 64 KiB a call */

static __u64 first_word(const struct ms_range *x)
{
	return x->start / 64;
}

static __u64 end_word(const struct ms_range *x)
{
	return (x->end + 63) / 64;
}

size_t ms_page_idle_words(const struct ms_ranges *r, size_t *base)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++) {
		base[i] = n;
		n += (size_t)(end_word(&r->r[i]) - first_word(&r->r[i]));
	}
	return n;
}

/* write (mark) or read the words of every range: buf NULL marks */
static int each_range(const char *path, const struct ms_ranges *r, const size_t *base,
		      __u64 *words, __u64 *limit)
{
	static __u64 ones[CHUNK_WORDS];
	int fd = open(path, (words ? O_RDONLY : O_WRONLY) | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (!words)
		memset(ones, 0xff, sizeof(ones));
	if (limit)
		*limit = ~0ull;
	for (size_t i = 0; !err && i < r->n; i++) {
		__u64 w = first_word(&r->r[i]), end = end_word(&r->r[i]);

		while (w < end) {
			size_t k = end - w > CHUNK_WORDS ? CHUNK_WORDS : (size_t)(end - w);
			__u64 *at = words ? words + base[i] + (w - first_word(&r->r[i])) : ones;
			ssize_t n = words ? pread(fd, at, k * 8, (off_t)(w * 8)) :
					    pwrite(fd, at, k * 8, (off_t)(w * 8));

			if (n < 0 && errno == EINTR)
				continue;
			/* 0 or ENXIO: past max_pfn (the kernel takes whole words below it only) */
			if (n == 0 || (n < 0 && errno == ENXIO)) {
				if (limit && w * 64 < *limit)
					*limit = w * 64;
				break;
			}
			if (n < 0 || n % 8) {
				err = n < 0 ? -errno : -EIO;
				break;
			}
			w += (__u64)n / 8;
		}
	}
	close(fd);
	return err;
}

int ms_page_idle_mark(const char *path, const struct ms_ranges *r)
{
	return each_range(path, r, NULL, NULL, NULL);
}

int ms_page_idle_read(const char *path, const struct ms_ranges *r, const size_t *base,
		      __u64 *words, __u64 *limit)
{
	return words ? each_range(path, r, base, words, limit) : -EINVAL;
}
