// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What every reader of a dump file shares (dump.h): whole reads, and the one-line reason. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "dump.h"

int ms_dump_bad(char *why, size_t whylen, int ret, const char *fmt, const char *arg)
{
	snprintf(why, whylen, fmt, arg);
	return ret;
}

int ms_dump_pread_all(int fd, void *buf, size_t len, __u64 off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;	/* the file ends early */
		done += (size_t)n;
	}
	return 0;
}
