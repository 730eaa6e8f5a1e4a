// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat rmss and the machine: its real size, the walk that gives the safe floor and the
 * class split, the lock against a second rmss, and zram swap for a run.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>

#include "memstat_int.h"
#include "backend.h"
#include "meminfo.h"
#include "escape.h"
#include "outfile.h"
#include "rmss.h"
#include "testhooks.h"
#include "svg.h"

#define rerr ms_rmss_err


int ms_rmss_read_machine(struct machine *m)
{
	struct ms_meminfo mi;

	if (ms_meminfo_read("/proc/meminfo", &mi) || mi.mem_total <= 0)
		return -1;
	m->real_mb = mi.mem_total / 1024.0;
	m->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	m->swap_mb = mi.swap_total > 0 ? mi.swap_total / 1024.0 : 0;
	return 0;
}

int ms_rmss_walker_open(struct walker *w, unsigned int bpf_flags)
{
	char why[512] = "", fallback[600] = "";
	int err;

	memset(w, 0, sizeof(*w));
	err = ms_ranges_from_iomem("/proc/iomem", &w->ranges);
	if (err) {
		rerr("failed to read present memory from /proc/iomem: %s", strerror(-err));
		return MS_EXIT_FAIL;
	}
	/* rmss walks many times: the periodic rule for its workers */
	err = ms_backend_open(MS_BE_AUTO, bpf_flags | MS_BPF_WORKERS(ms_jobs_auto(&w->ranges)),
			      true, &w->be, why, sizeof(why), fallback, sizeof(fallback));
	if (err) {
		rerr("%s", why);
		ms_ranges_free(&w->ranges);
		return err;
	}
	w->open = true;
	return 0;
}

int ms_rmss_walker_walk(struct walker *w, struct ms_result *res)
{
	memset(res, 0, sizeof(*res));
	return ms_backend_walk(&w->be, &w->ranges, res, NULL, NULL);
}

void ms_rmss_walker_close(struct walker *w)
{
	if (!w->open)
		return;
	ms_backend_close(&w->be);
	ms_ranges_free(&w->ranges);
	w->open = false;
}

/*
 * The safe floor, MB: what the machine cannot give up without swapping or the OOM killer,
 * plus a margin. From a walk: kernel pages (without PG_reserved ones, which are not in MemTotal)
 * + hugetlb + anon + shmem (unreclaimable without swap, thrashing with it) + /proc/meminfo's
 * Mlocked (file pages too; overlaps anon, so the floor errs high) - the pool of a running
 * rmss (its own mlocked anon pages) + RMSS_MARGIN_MB + RMSS_MARGIN_PCT % of MemTotal.
 */
int ms_rmss_safe_floor(struct walker *w, const struct machine *m, double pool_mb, double *floor_mb,
		      struct ms_result *res)
{
	double pg_mb = m->page_kb / 1024.0, mb, mlocked;
	struct ms_meminfo mi;
	long long ml = ms_meminfo_read("/proc/meminfo", &mi) ? -1 : mi.mlocked;
	int ret = ms_rmss_walker_walk(w, res);

	if (ret)
		return ret;
	mb = (ms_class_pages(res, MS_C_KERNEL) - res->sub[MS_KERNEL_RESERVED] +
	      ms_class_pages(res, MS_C_HUGETLB) + ms_class_pages(res, MS_C_ANON) +
	      ms_class_pages(res, MS_C_SHMEM)) * pg_mb;
	mlocked = ml > 0 ? ml / 1024.0 - pool_mb : 0;
	mb -= pool_mb;
	if (mlocked > 0)
		mb += mlocked;
	mb += RMSS_MARGIN_MB + m->real_mb * RMSS_MARGIN_PCT / 100.0;
	*floor_mb = mb;
	return 0;
}

/* ---- the lock and the state ---- */

int ms_rmss_take_lock(int *fdp)
{
	char path[512], buf[64];
	int fd;

	ms_rmss_run_path(path, sizeof(path), "lock");
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd < 0) {
		rerr("cannot open the lock file %s: %s", path, strerror(errno));
		return MS_EXIT_FAIL;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		long other = 0;

		if (pread(fd, buf, sizeof(buf) - 1, 0) > 0)
			other = strtol(buf, NULL, 10);
		close(fd);
		if (other > 0)
			rerr("another memstat rmss is running (pid %ld): two at once are refused", other);
		else
			rerr("another memstat rmss is running: two at once are refused");
		return RMSS_EXIT_BUSY;
	}
	snprintf(buf, sizeof(buf), "%d\n", getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, strlen(buf), 0) < 0) {
		/* the pid is a courtesy for the message above */
	}
	*fdp = fd;
	return 0;
}

/* ---- zram swap for the run ---- */

/*
 * A zram device of mb, swapped on: recorded in s and the state file as soon as it has a number,
 * before it is sized or swapped on. MS_EXIT_*
 */
int ms_rmss_zram_setup(double mb, struct ms_rmss_state *s, char *dev, size_t devlen)
{
	char buf[64], path[128];
	struct stat st;
	int id, err, fd;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long long bytes = (unsigned long long)(mb * 1048576.0) / pg * pg;

	if (access("/sys/class/zram-control/hot_add", F_OK)) {
		rerr("--zram: no zram support here (/sys/class/zram-control is missing: the zram "
		     "module is not loaded; 'modprobe zram' loads it where it exists)");
		return MS_EXIT_FAIL;
	}
	if (bytes < 40 * (unsigned long long)pg) {
		rerr("--zram %g: too small for a swap device", mb);
		return MS_EXIT_USAGE;
	}
	if (ms_read_text("/sys/class/zram-control/hot_add", buf, sizeof(buf)) ||
	    !isdigit((unsigned char)buf[0])) {
		rerr("--zram: cannot add a zram device (/sys/class/zram-control/hot_add)");
		return MS_EXIT_FAIL;
	}
	id = atoi(buf);
	s->zram = id;
	if (ms_rmss_state_write(s))
		return MS_EXIT_FAIL;
	snprintf(path, sizeof(path), "/sys/block/zram%d/disksize", id);
	snprintf(buf, sizeof(buf), "%llu", bytes);
	err = ms_write_str(path, buf);
	if (err) {
		rerr("--zram: cannot size zram%d: %s", id, strerror(-err));
		return MS_EXIT_FAIL;
	}
	snprintf(dev, devlen, "/dev/zram%d", id);
	if (stat(dev, &st) || !S_ISBLK(st.st_mode)) {
		/* no devtmpfs node yet: make one from the device's numbers */
		unsigned int maj, min;

		snprintf(path, sizeof(path), "/sys/block/zram%d/dev", id);
		if (ms_read_text(path, buf, sizeof(buf)) ||
		    sscanf(buf, "%u:%u", &maj, &min) != 2 ||
		    (mknod(dev, S_IFBLK | 0600, makedev(maj, min)) && errno != EEXIST)) {
			rerr("--zram: no device node %s", dev);
			return MS_EXIT_FAIL;
		}
	}
	/* the swap header (mkswap's): version 1, last page, the signature at the page's end */
	fd = open(dev, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		rerr("--zram: cannot open %s: %s", dev, strerror(errno));
		return MS_EXIT_FAIL;
	}
	{
		unsigned char *hdr = calloc(1, pg);
		unsigned int v[3] = { 1, (unsigned int)(bytes / pg - 1), 0 };

		if (!hdr) {
			close(fd);
			return MS_EXIT_FAIL;
		}
		memcpy(hdr + 1024, v, sizeof(v));
		memcpy(hdr + pg - 10, "SWAPSPACE2", 10);
		if (pwrite(fd, hdr, pg, 0) != pg || fsync(fd)) {
			rerr("--zram: cannot write the swap header to %s: %s", dev, strerror(errno));
			free(hdr);
			close(fd);
			return MS_EXIT_FAIL;
		}
		free(hdr);
		close(fd);
	}
	if (swapon(dev, SWAP_FLAG_PREFER | (32767 & SWAP_FLAG_PRIO_MASK))) {
		rerr("--zram: swapon %s: %s", dev, strerror(errno));
		return MS_EXIT_FAIL;
	}
	return 0;
}
