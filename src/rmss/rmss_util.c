// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat rmss's small helpers, below the driver (rmss.c) and what undoes its changes
 * (rmss_guard.c), which both use them: its error line, the paths of its lock and state files,
 * writing a value to a control file, a sleep, and a process's start time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memstat_int.h"
#include "meminfo.h"
#include "rmss.h"
#include "testhooks.h"

void ms_rmss_err(const char *fmt, ...)
{
	va_list ap;

	fputs("memstat rmss: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *run_dir(void)
{
	/* test builds only: another directory for the lock and state files (tests/rmss_test.py) */
	const char *d = ms_test_hook(MS_TEST_RMSS_RUNDIR);

	return d ? d : "/run";
}

void ms_rmss_run_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/memstat-rmss.%s", run_dir(), name);
}

void ms_rmss_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* field 22 of /proc/PID/stat (start time in clock ticks), 0 when no such process */
unsigned long long ms_rmss_proc_starttime(pid_t pid, char *comm, size_t commlen)
{
	char path[64], buf[1024], *p, *q;
	unsigned long long st = 0;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (ms_read_text(path, buf, sizeof(buf)))
		return 0;
	p = strchr(buf, '(');
	q = strrchr(buf, ')');
	if (!p || !q)
		return 0;
	if (comm) {
		snprintf(comm, commlen, "%.*s", (int)(q - p - 1), p + 1);
	}
	p = q + 2;	/* field 3: state */
	if (*p == 'Z' || *p == 'X')
		return 0;	/* a zombie has freed its memory */
	for (i = 3; i < 22 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		st = strtoull(p, NULL, 10);
	return st;
}
