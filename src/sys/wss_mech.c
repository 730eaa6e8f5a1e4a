// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --wss: which mechanism this machine offers (wss.h ms_wss_mechanism()): MGLRU on, with its
 * debugfs files; else the idle page bitmap; else DAMON where nothing else uses it (damon.h);
 * else one message naming what each lacks. Reads only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "memstat_int.h"
#include "damon.h"
#include "mglru.h"
#include "page_idle.h"
#include "wss.h"

/* /sys/kernel/mm/lru_gen/enabled: LRU_GEN_MM_WALK, aging scans page tables (6.1+) */
#define MGLRU_MM_WALK 0x2

static void __attribute__((format(printf, 3, 4)))
add_reason(char *why, size_t whylen, const char *fmt, ...)
{
	size_t len = strlen(why);
	va_list ap;

	if (len + 3 >= whylen)
		return;
	if (len)
		len += (size_t)snprintf(why + len, whylen - len, "; ");
	va_start(ap, fmt);
	vsnprintf(why + len, whylen - len, fmt, ap);
	va_end(ap);
}

int ms_wss_mechanism_reasons(char *why, size_t whylen)
{
	long caps = ms_read_long(MS_MGLRU_ENABLED);
	struct utsname u;
	char damon[512];

	why[0] = '\0';
	if (caps < 0)
		add_reason(why, whylen, "no MGLRU (%s is absent: CONFIG_LRU_GEN)",
			   MS_MGLRU_ENABLED);
	else if (!(caps & 1))
		add_reason(why, whylen, "MGLRU is off (%s reads %#lx)", MS_MGLRU_ENABLED, caps);
	else if (!(caps & MGLRU_MM_WALK))
		add_reason(why, whylen, "MGLRU's aging does not scan page tables (%s reads %#lx, "
			   "without 0x2)", MS_MGLRU_ENABLED, caps);
	else if (access(MS_MGLRU_CTL, W_OK) || access(MS_MGLRU_FULL, R_OK))
		add_reason(why, whylen, "MGLRU's debugfs files cannot be used (%s: is debugfs "
			   "mounted?)", MS_MGLRU_CTL);
	else
		return MS_WSS_MGLRU;
	if (access(MS_PAGE_IDLE_BITMAP, F_OK))
		add_reason(why, whylen, "no idle page bitmap (%s is absent: "
			   "CONFIG_IDLE_PAGE_TRACKING)", MS_PAGE_IDLE_BITMAP);
	else if (access(MS_PAGE_IDLE_BITMAP, R_OK | W_OK))
		add_reason(why, whylen, "the idle page bitmap (%s) cannot be read and written: %s",
			   MS_PAGE_IDLE_BITMAP, strerror(errno));
	else
		return MS_WSS_IDLE_BITMAP;
	if (uname(&u))
		snprintf(damon, sizeof(damon), "DAMON: uname() failed");
	else if (!ms_damon_usable(u.release, damon, sizeof(damon)))
		return MS_WSS_DAMON;
	add_reason(why, whylen, "%s", damon);
	return -1;
}

int ms_wss_mechanism(char *why, size_t whylen)
{
	char each[1024];
	int m = ms_wss_mechanism_reasons(each, sizeof(each));

	if (m > 0)
		return m;
	snprintf(why, whylen, "--wss: no way to see page accesses here: %s", each);
	return -1;
}
