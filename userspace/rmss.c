// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat rmss: AIX's Reduced-Memory System Simulator on Linux. How much memory does a command
 * need? Run it over a range of memory sizes and report, per size, its page-ins, response time and
 * page-in rate (AIX's report), and where the memory went (memstat's walk).
 *
 * Machine mode (the default, -c/-p/-r and the driver): free frames are stolen into a pool that
 * nothing else can use: a small daemon, a fresh memstat (exec'd: it maps nothing of the
 * driver's) detached (setsid), that maps the stolen amount and mlocks it. mlock populates every
 * page, so the kernel reclaims page cache and swaps exactly as a machine with that much less
 * memory would. The daemon is the pool: when it
 * ends, for whatever reason (-r, the driver's end, SIGINT, SIGTERM, a crash, the OOM killer,
 * whose first choice it is: oom_score_adj 1000), the memory is back. A state file
 * (RUNDIR/memstat-rmss.state) names its pid and start time, so that -r ends it, and only it (a
 * reused pid has another start time), after memstat itself crashed.
 *
 * Cgroup mode (--cgroup): only the command runs, in a fresh memory cgroup limited to each size.
 *
 * Whatever happens to the driver, nothing is left behind: everything it changes is recorded in
 * the state file before it exists, and a guardian process undoes it if the driver ends without
 * doing so itself (rmss_guard.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "memstat_int.h"
#include "escape.h"
#include "outfile.h"
#include "rmss.h"

#define rerr ms_rmss_err
#include "testhooks.h"
#include "svg.h"

/* exit codes of memstat rmss beyond memstat's (docs/rmss.md) */
#define RMSS_EXIT_BUSY 6	/* another memstat rmss holds the lock */
#define RMSS_EXIT_INTR 130	/* interrupted (SIGINT, SIGTERM, SIGHUP): the report kept */

#define RMSS_MAX_SIZES 100000
#define RMSS_DEFAULT_DELTA 8.0
#define RMSS_AUTO_SECONDS 10.0	/* -n default: runs enough to accumulate this */
#define RMSS_MAX_AUTO_N 100
/* the safe floor's margin: RMSS_MARGIN_MB + RMSS_MARGIN_PCT % of MemTotal */
#define RMSS_MARGIN_MB 256.0
#define RMSS_MARGIN_PCT 2.0
#define RMSS_CGROUP_FLOOR_MB 16.0	/* cgroup mode: the least limit */
/*
 * the knee: page-in rate within max(KNEE_REL * base, KNEE_ABS, KNEE_NOISE * the highest rate
 * measured) of the largest size's. The last is the noise floor: a run that needs no page-in
 * takes milliseconds, so one stray page-in (a shared library page that some other cgroup's
 * reclaim evicted) is a rate of hundreds a second
 */
#define RMSS_KNEE_REL 0.10
#define RMSS_KNEE_ABS 10.0
#define RMSS_KNEE_NOISE 0.01

static const char rmss_usage[] =
	"Usage: memstat rmss -c MB | -p | -r\n"
	"       memstat rmss [-s START] [-f FINAL] [-d DELTA] [-n ITER] [-o FILE] [--cgroup]\n"
	"                    [--zram MB] [--json] [--plot FILE.svg] command [args...]\n"
	"AIX's rmss: simulate a machine with less memory (-c, -p, -r), or run a command over a\n"
	"range of memory sizes and report its page-ins and response time at each (the driver).\n"
	"Sizes are megabytes (MB = 2^20 bytes), decimal fractions allowed.\n"
	"\n"
	"  -c, --change MB        set the simulated memory size of the machine and exit\n"
	"  -p, --print            print the current simulated memory size\n"
	"  -r, --reset            reset to the real memory size\n"
	"  -s, --start MB         the first size (default: the real size)\n"
	"  -f, --final MB         the last size (default: the safe floor); below -s goes down\n"
	"  -d, --delta MB         the step between sizes (default 8)\n"
	"  -n, --iterations N     measured runs per size, after one warm-up run (default: enough\n"
	"                         runs to accumulate 10 seconds, timed once at the start)\n"
	"  -o, --output FILE      write the report to FILE as well as stdout (default rmss.out),\n"
	"                         replaced at the end; - (or /dev/stdout): stdout only\n"
	"      --cgroup           limit only the command: a fresh memory cgroup per run of rmss,\n"
	"                         limited to each size (the machine keeps its memory)\n"
	"      --zram MB          swap on a zram device of MB for the run, removed afterwards\n"
	"  -j, --json             print one JSON object at the end instead of the report on\n"
	"                         stdout (the report still goes to FILE)\n"
	"      --plot FILE.svg    draw response time and page-in rate against memory size\n"
	"  -h, --help             print this help\n"
	"\n"
	"Exit codes: 0 ok, 1 run-time failure, 2 bad input (usage, a size below the safe floor\n"
	"or above the real size), 4 missing privilege, 6 another memstat rmss is running,\n"
	"130 interrupted (SIGINT, SIGTERM or SIGHUP; the report so far is kept, the memory\n"
	"restored).\n"
	"See memstat-rmss(8).\n";

struct rmss_opts {
	bool change, print, reset, cgroup, json;
	double change_mb, start, final, delta, zram_mb;
	bool start_set, final_set, delta_set;
	long iterations;	/* 0: auto */
	const char *output, *plot;
	char **cmd;
	int ncmd;
};

/* ---- small helpers ---- */

static int rmss_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int rmss_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("memstat rmss: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'memstat rmss --help' for more information.\n", stderr);
	return MS_EXIT_USAGE;
}

static int parse_mb(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) || v <= 0)
		return -1;
	*out = v;
	return 0;
}


static long long kv_file(const char *path, const char *key)
{
	static char buf[65536];

	if (ms_read_text(path, buf, sizeof(buf)))
		return -1;
	return ms_kv_get(buf, key);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the machine ---- */

struct machine {
	double real_mb;		/* MemTotal */
	double swap_mb;		/* SwapTotal */
	long page_kb;
};

static int read_machine(struct machine *m)
{
	struct ms_meminfo mi;
	char buf[8192];
	long long swap;

	if (ms_meminfo_read("/proc/meminfo", &mi) || mi.mem_total <= 0)
		return -1;
	m->real_mb = mi.mem_total / 1024.0;
	m->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	swap = 0;
	if (!ms_read_text("/proc/meminfo", buf, sizeof(buf))) {
		char *p = strstr(buf, "SwapTotal:");

		if (p)
			swap = strtoll(p + 10, NULL, 10);
	}
	m->swap_mb = swap / 1024.0;
	return 0;
}

static long long meminfo_kb(const char *field)
{
	char buf[8192], key[64], *p;

	if (ms_read_text("/proc/meminfo", buf, sizeof(buf)))
		return -1;
	snprintf(key, sizeof(key), "\n%s:", field);
	p = strstr(buf, key);
	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* ---- the walk (the floor, the class split) ---- */

struct walker {
	struct ms_backend be;
	struct ms_ranges ranges;
	bool open;
};

static int walker_open(struct walker *w, unsigned int bpf_flags)
{
	char why[512] = "", fallback[600] = "";
	int err;

	memset(w, 0, sizeof(*w));
	err = ms_ranges_from_iomem("/proc/iomem", &w->ranges);
	if (err) {
		rerr("failed to read present memory from /proc/iomem: %s", strerror(-err));
		return MS_EXIT_FAIL;
	}
	err = ms_backend_open(MS_BE_AUTO, bpf_flags, true, &w->be, why, sizeof(why), fallback,
			      sizeof(fallback));
	if (err) {
		rerr("%s", why);
		ms_ranges_free(&w->ranges);
		return err;
	}
	w->open = true;
	return 0;
}

static int walker_walk(struct walker *w, struct ms_result *res)
{
	memset(res, 0, sizeof(*res));
	return ms_backend_walk(&w->be, &w->ranges, res, NULL, NULL);
}

static void walker_close(struct walker *w)
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
static int safe_floor(struct walker *w, const struct machine *m, double pool_mb, double *floor_mb,
		      struct ms_result *res)
{
	double pg_mb = m->page_kb / 1024.0, mb, mlocked;
	long long ml = meminfo_kb("Mlocked");
	int ret = walker_walk(w, res);

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

static int take_lock(int *fdp)
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
static int zram_setup(double mb, struct ms_rmss_state *s, char *dev, size_t devlen)
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
	err = ms_rmss_write_str(path, buf);
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

/* ---- the cgroup ---- */

struct cg {
	int v;			/* 1 or 2; 0: none */
	char dir[MS_RMSS_PATH_MAX];
	char freezer[MS_RMSS_PATH_MAX];	/* v1: the twin in the freezer hierarchy, or "" */
	int peak_fd;		/* v2 memory.peak opened per size (reset per fd, 6.12+), or -1 */
};

/*
 * This process's cgroup in a hierarchy, from /proc/self/cgroup: v1's that has controller ctrl,
 * or v2's (ctrl NULL). "" for the hierarchy's root; 0 or -1.
 */
static int self_cgroup(const char *ctrl, char *buf, size_t len)
{
	static char text[8192];
	char *line, *next;

	if (ms_read_text("/proc/self/cgroup", text, sizeof(text)))
		return -1;
	for (line = text; line && *line; line = next) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		bool match = false;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!c2)
			continue;
		*c2 = '\0';
		if (!ctrl) {
			match = !strncmp(line, "0:", 2) && c2 == c1 + 1;
		} else {
			for (char *t = strtok(c1 + 1, ","); t; t = strtok(NULL, ","))
				match |= !strcmp(t, ctrl);
		}
		if (!match)
			continue;
		if (!strcmp(c2 + 1, "/"))
			c2[1] = '\0';
		if ((size_t)snprintf(buf, len, "%s", c2 + 1) >= len)
			return -1;
		return 0;
	}
	return -1;
}

/* the memory cgroup v2 has enabled in dir's subtree_control */
static bool v2_memory_enabled(const char *dir)
{
	char path[MS_RMSS_PATH_MAX + 32], ctl[256] = "";

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	return !ms_read_text(path, ctl, sizeof(ctl)) && strstr(ctl, "memory");
}

/* +memory in dir's subtree_control, recorded before, disabled again at the end; 0 or -1 */
static int v2_enable_memory(const char *dir, struct ms_rmss_state *st)
{
	char path[MS_RMSS_PATH_MAX + 32];
	int err;

	snprintf(st->subtree, sizeof(st->subtree), "%s", dir);
	if (ms_rmss_state_write(st)) {
		st->subtree[0] = '\0';
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	err = ms_rmss_write_str(path, "+memory");
	if (err) {
		rerr("--cgroup: cannot enable the memory controller in %s: %s", path,
			    strerror(-err));
		st->subtree[0] = '\0';
		ms_rmss_state_sync(st);
		return -1;
	}
	return 0;
}

/*
 * The command's cgroup, memstat-rmss-PID, made where the caller may make one (docs/rmss.md,
 * "Where the cgroup is made"): on v1, under the caller's own memory cgroup
 * (v1 has no rule against processes beside child cgroups), with a twin under the caller's
 * freezer cgroup when the freezer is mounted (to end its processes frozen); on v2, beside the
 * caller's cgroup (a cgroup with processes in it cannot enable controllers for its children),
 * at the root only for a caller in the root. The memory controller is enabled in the parent's
 * subtree_control only where it is not, recorded and disabled again at the end. Each is
 * recorded in st and the state file before it is made.
 */
static int cg_create(struct cg *cg, struct ms_rmss_state *st)
{
	char self[MS_RMSS_PATH_MAX], parent[MS_RMSS_PATH_MAX];

	cg->peak_fd = -1;
	cg->freezer[0] = '\0';
	if (access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK) == 0) {
		cg->v = 1;
		if (self_cgroup("memory", self, sizeof(self)) ||
		    (size_t)snprintf(cg->dir, sizeof(cg->dir),
				     "/sys/fs/cgroup/memory%s/memstat-rmss-%d", self,
				     getpid()) >= sizeof(cg->dir)) {
			rerr("--cgroup: cannot tell this process's memory cgroup");
			cg->v = 0;
			return MS_EXIT_FAIL;
		}
		if (access("/sys/fs/cgroup/freezer/cgroup.procs", F_OK) == 0 &&
		    !self_cgroup("freezer", self, sizeof(self)) &&
		    (size_t)snprintf(cg->freezer, sizeof(cg->freezer),
				     "/sys/fs/cgroup/freezer%s/memstat-rmss-%d", self,
				     getpid()) >= sizeof(cg->freezer))
			cg->freezer[0] = '\0';
	} else {
		char ctl[256] = "", *slash;

		if (ms_read_text("/sys/fs/cgroup/cgroup.controllers", ctl, sizeof(ctl)) ||
		    !strstr(ctl, "memory")) {
			rerr("--cgroup: no memory cgroup controller (neither v1 "
				    "/sys/fs/cgroup/memory nor v2 /sys/fs/cgroup with memory)");
			return MS_EXIT_FAIL;
		}
		cg->v = 2;
		if (self_cgroup(NULL, self, sizeof(self))) {
			rerr("--cgroup: cannot tell this process's cgroup");
			cg->v = 0;
			return MS_EXIT_FAIL;
		}
		slash = strrchr(self, '/');
		if (slash)
			*slash = '\0';	/* its parent; "" (the root) for the root and its child */
		if ((size_t)snprintf(parent, sizeof(parent), "/sys/fs/cgroup%s", self) >=
		    sizeof(parent) ||
		    (size_t)snprintf(cg->dir, sizeof(cg->dir), "%s/memstat-rmss-%d", parent,
				     getpid()) >= sizeof(cg->dir)) {
			rerr("--cgroup: the cgroup path is too long");
			cg->v = 0;
			return MS_EXIT_FAIL;
		}
		if (!v2_memory_enabled(parent) && v2_enable_memory(parent, st)) {
			cg->v = 0;
			return MS_EXIT_FAIL;
		}
	}
	st->cg_v = cg->v;
	snprintf(st->cgroup, sizeof(st->cgroup), "%s", cg->dir);
	snprintf(st->freezer, sizeof(st->freezer), "%s", cg->freezer);
	if (ms_rmss_state_write(st))
		goto undo;
	if (mkdir(cg->dir, 0755)) {
		rerr("--cgroup: mkdir %s: %s", cg->dir, strerror(errno));
		goto undo;
	}
	if (cg->freezer[0] && mkdir(cg->freezer, 0755)) {
		rerr("--cgroup: mkdir %s: %s", cg->freezer, strerror(errno));
		goto undo;
	}
	return 0;
undo:
	/* what was made is removed at the end (restore) */
	return MS_EXIT_FAIL;
}

static int cg_file(const struct cg *cg, const char *name, char *path, size_t len)
{
	return snprintf(path, len, "%s/%s", cg->dir, name);
}

/*
 * Limit the cgroup to mb, with swap as on a machine of that size: v1 memsw = the limit plus the
 * machine's swap, v2 swap.max = the machine's swap. 0 or the errno of the failed write.
 */
static int cg_limit(struct cg *cg, double mb, double swap_mb)
{
	char path[MS_RMSS_PATH_MAX + 32], val[64], swp[64];
	unsigned long long b = (unsigned long long)(mb * 1048576.0);
	unsigned long long s = (unsigned long long)(swap_mb * 1048576.0);
	int err;

	if (cg->v == 1) {
		char memsw[MS_RMSS_PATH_MAX + 32];

		cg_file(cg, "memory.limit_in_bytes", path, sizeof(path));
		cg_file(cg, "memory.memsw.limit_in_bytes", memsw, sizeof(memsw));
		snprintf(val, sizeof(val), "%llu", b);
		snprintf(swp, sizeof(swp), "%llu", b + s);
		if (access(memsw, F_OK)) {
			err = ms_rmss_write_str(path, val);
		} else {
			/* memsw >= memory at every moment: raise memsw first, lower it last */
			err = ms_rmss_write_str(memsw, swp);
			if (!err)
				err = ms_rmss_write_str(path, val);
			if (!err)
				err = ms_rmss_write_str(memsw, swp);
			else
				(void)ms_rmss_write_str(path, val);
			if (err == -EINVAL) {
				err = ms_rmss_write_str(path, val);
				if (!err)
					err = ms_rmss_write_str(memsw, swp);
			}
		}
		if (!err) {
			cg_file(cg, "memory.max_usage_in_bytes", path, sizeof(path));
			ms_rmss_write_str(path, "0");
		}
		return err;
	}
	cg_file(cg, "memory.max", path, sizeof(path));
	snprintf(val, sizeof(val), "%llu", b);
	err = ms_rmss_write_str(path, val);
	if (err)
		return err;
	cg_file(cg, "memory.swap.max", path, sizeof(path));
	snprintf(swp, sizeof(swp), "%llu", s);
	if (access(path, F_OK) == 0)
		ms_rmss_write_str(path, swp);
	if (cg->peak_fd >= 0)
		close(cg->peak_fd);
	cg_file(cg, "memory.peak", path, sizeof(path));
	cg->peak_fd = open(path, O_RDWR | O_CLOEXEC);
	if (cg->peak_fd >= 0 && write(cg->peak_fd, "reset\n", 6) != 6) {
		close(cg->peak_fd);	/* before 6.12: the peak since creation, read by name */
		cg->peak_fd = -1;
	}
	return 0;
}

/* the cgroup's page-ins: its refaults (docs/rmss.md), and its OOM kills */
struct cg_count {
	long long refaults, majfaults, oom_kills;
};

static void cg_counts(const struct cg *cg, struct cg_count *c)
{
	char path[MS_RMSS_PATH_MAX + 32];
	long long a, f;

	cg_file(cg, "memory.stat", path, sizeof(path));
	a = kv_file(path, "workingset_refault_anon");
	f = kv_file(path, "workingset_refault_file");
	if (a < 0 && f < 0)	/* v2 before 5.9 */
		f = kv_file(path, "workingset_refault");
	c->refaults = (a > 0 ? a : 0) + (f > 0 ? f : 0);
	c->majfaults = kv_file(path, "pgmajfault");
	cg_file(cg, cg->v == 1 ? "memory.oom_control" : "memory.events", path, sizeof(path));
	c->oom_kills = kv_file(path, "oom_kill");
	if (c->oom_kills < 0)
		c->oom_kills = 0;
}

static double cg_peak_mb(const struct cg *cg)
{
	char path[MS_RMSS_PATH_MAX + 32], buf[64];

	if (cg->v == 1) {
		cg_file(cg, "memory.max_usage_in_bytes", path, sizeof(path));
	} else if (cg->peak_fd >= 0) {
		ssize_t n = pread(cg->peak_fd, buf, sizeof(buf) - 1, 0);

		if (n <= 0)
			return -1;
		buf[n] = '\0';
		return strtoull(buf, NULL, 10) / 1048576.0;
	} else {
		cg_file(cg, "memory.peak", path, sizeof(path));
	}
	if (ms_read_text(path, buf, sizeof(buf)) || !isdigit((unsigned char)buf[0]))
		return -1;
	return strtoull(buf, NULL, 10) / 1048576.0;
}

/* the cgroup's own pages from memory.stat, MB per class (kernel, anon, shmem, page cache) */
static void cg_pages(const struct cg *cg, double *mb)
{
	char path[MS_RMSS_PATH_MAX + 32];
	static char buf[65536];
	long long v;

	for (int i = 0; i < MS_NR_CLASSES; i++)
		mb[i] = -1;
	cg_file(cg, "memory.stat", path, sizeof(path));
	if (ms_read_text(path, buf, sizeof(buf)))
		return;
	if (cg->v == 1) {
		long long cache = ms_kv_get(buf, "cache"), shmem = ms_kv_get(buf, "shmem");

		v = ms_kv_get(buf, "rss");
		mb[MS_C_ANON] = v >= 0 ? v / 1048576.0 : -1;
		mb[MS_C_SHMEM] = shmem >= 0 ? shmem / 1048576.0 : -1;
		if (cache >= 0)
			mb[MS_C_PAGE_CACHE] = (cache - (shmem > 0 ? shmem : 0)) / 1048576.0;
		cg_file(cg, "memory.kmem.usage_in_bytes", path, sizeof(path));
		{
			char k[64];

			if (!ms_read_text(path, k, sizeof(k)) && isdigit((unsigned char)k[0]))
				mb[MS_C_KERNEL] = strtoull(k, NULL, 10) / 1048576.0;
		}
		return;
	}
	v = ms_kv_get(buf, "anon");
	mb[MS_C_ANON] = v >= 0 ? v / 1048576.0 : -1;
	v = ms_kv_get(buf, "shmem");
	mb[MS_C_SHMEM] = v >= 0 ? v / 1048576.0 : -1;
	v = ms_kv_get(buf, "file");
	if (v >= 0)
		mb[MS_C_PAGE_CACHE] = (v - (mb[MS_C_SHMEM] > 0 ? mb[MS_C_SHMEM] * 1048576.0 : 0)) /
				      1048576.0;
	v = ms_kv_get(buf, "kernel");
	mb[MS_C_KERNEL] = v >= 0 ? v / 1048576.0 : -1;
}

/*
 * The cgroup's own pages from a record walk, MB per class, as `memstat --by cgroup` counts them
 * (the group whose id is the cgroup directory's inode): 0 when the walk cannot be made.
 */
static int cg_walk_pages(struct walker *w, const struct cg *cg, double page_mb, double *mb)
{
	struct ms_groups *g;
	struct ms_result res;
	struct stat st;
	int ret;

	if (!w->open || stat(cg->dir, &st))
		return -1;
	g = ms_groups_new(MS_BY_CGROUP, 0);
	if (!g)
		return -1;
	memset(&res, 0, sizeof(res));
	ret = ms_groups_reset(g) ? -1 : ms_backend_pages(&w->be, &w->ranges, &res, ms_groups_page, g);
	if (!ret) {
		for (int c = 0; c < MS_NR_CLASSES; c++)
			mb[c] = c == MS_C_UNKNOWN ? -1 : 0;
		for (size_t i = 0; i < g->n; i++) {
			if (g->g[i].k1 != (__u64)st.st_ino)
				continue;
			for (int k = 0; k < MS_NR_SUBS; k++)
				mb[ms_subs[k].cls] += g->g[i].sub[k] * page_mb;
		}
	}
	ms_groups_free(g);
	return ret ? -1 : 0;
}

/* ---- the driver ---- */

static volatile sig_atomic_t stop_sig, alarm_fired;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void on_alarm(int sig)
{
	alarm_fired = 1;
}

struct vm_count {
	long long pgpgin_kb, zswpin, pswpin, pgmajfault, oom_kill;
};

static void vm_counts(struct vm_count *v)
{
	static char buf[16384];

	memset(v, 0, sizeof(*v));
	if (ms_read_text("/proc/vmstat", buf, sizeof(buf)))
		return;
	v->pgpgin_kb = ms_kv_get(buf, "pgpgin");
	v->zswpin = ms_kv_get(buf, "zswpin");
	v->pswpin = ms_kv_get(buf, "pswpin");
	v->pgmajfault = ms_kv_get(buf, "pgmajfault");
	v->oom_kill = ms_kv_get(buf, "oom_kill");
	if (v->zswpin < 0)
		v->zswpin = 0;
	if (v->oom_kill < 0)
		v->oom_kill = 0;
}

/* one run's outcome */
struct run {
	double secs;
	double pageins;
	long long majfaults;
	bool oom_killed;
	int status;		/* wait status */
	double maxrss_mb;
};

struct size_row {
	double mb;
	int measured, ok_runs, oom_kills;
	double sum_pageins, sum_secs, sum_rate;
	long long majfaults;
	double peak_mb;
	double pages_mb[MS_NR_CLASSES];	/* -1: not known */
	double stolen_mb;
	bool done;
};

struct driver {
	struct rmss_opts *o;
	struct machine m;
	struct walker w;
	struct cg cg;
	struct ms_rmss_state st;	/* what is changed now: pool, zram device, cgroup */
	bool have_pool;
	struct ms_rmss_guard guard;
	int pidfd;		/* this process's: its pools end with it */
	struct ms_out report;	/* -o FILE (outfile.c): replaced at the end */
	struct ms_out plot;	/* --plot FILE.svg */
	FILE *out;		/* the report's stream: -o FILE's temporary file, or NULL for -o - */
	bool reporting;		/* the report has begun: it is finished whatever happens */
	bool to_stdout;
	struct size_row *rows;
	int nrows;
	double floor_mb;
	long iterations;
};

static void emit(struct driver *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct driver *d, const char *fmt, ...)
{
	va_list ap;

	if (d->out) {
		va_start(ap, fmt);
		vfprintf(d->out, fmt, ap);
		va_end(ap);
		fflush(d->out);
	}
	if (d->to_stdout) {
		va_start(ap, fmt);
		vfprintf(stdout, fmt, ap);
		va_end(ap);
		fflush(stdout);
	}
}

/* run the command once, in the cgroup in cgroup mode; -1 when it could not be started */
static int run_once(struct driver *d, struct run *r)
{
	struct vm_count v0, v1;
	struct cg_count c0 = {}, c1 = {};
	struct rusage ru;
	double t0, t1;
	int err_pipe[2], status = 0, cerr = 0;
	pid_t pid, w, driver = getpid();
	bool termed = false;

	memset(r, 0, sizeof(*r));
	if (pipe2(err_pipe, O_CLOEXEC))
		return -1;
	if (d->cg.v)
		cg_counts(&d->cg, &c0);
	vm_counts(&v0);
	fflush(NULL);
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		close(err_pipe[0]);
		close(err_pipe[1]);
		return -1;
	}
	if (pid == 0) {
		int e;

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		/* the command ends with the driver, whatever ends it (its cgroup is killed too) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != driver)
			_exit(127);
		if (d->cg.v) {
			char path[MS_RMSS_PATH_MAX + 32];

			e = 0;
			if (d->cg.freezer[0]) {
				snprintf(path, sizeof(path), "%s/cgroup.procs", d->cg.freezer);
				e = ms_rmss_write_str(path, "0");
			}
			cg_file(&d->cg, "cgroup.procs", path, sizeof(path));
			if (!e)
				e = ms_rmss_write_str(path, "0");
			if (e) {
				e = -e;
				if (write(err_pipe[1], &e, sizeof(e)) < 0) {}
				_exit(127);
			}
		}
		execvp(d->o->cmd[0], d->o->cmd);
		e = errno;
		if (write(err_pipe[1], &e, sizeof(e)) < 0) {}
		_exit(127);
	}
	close(err_pipe[1]);
	for (;;) {
		w = wait4(pid, &status, 0, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			break;
		if (stop_sig && !termed) {	/* end the command, then SIGKILL after 3 s */
			kill(pid, SIGTERM);
			termed = true;
			alarm_fired = 0;
			alarm(3);
		} else if (alarm_fired) {
			kill(pid, SIGKILL);
			alarm_fired = 0;
		}
	}
	t1 = now_s();
	alarm(0);
	vm_counts(&v1);
	if (d->cg.v)
		cg_counts(&d->cg, &c1);
	if (read(err_pipe[0], &cerr, sizeof(cerr)) == sizeof(cerr)) {
		close(err_pipe[0]);
		if (d->cg.v && cerr < 0)
			rerr("cannot move the command into %s: %s", d->cg.dir, strerror(-cerr));
		else
			rerr("cannot run '%s': %s", d->o->cmd[0], strerror(cerr));
		return -2;
	}
	close(err_pipe[0]);
	r->secs = t1 - t0;
	r->status = status;
	r->maxrss_mb = ru.ru_maxrss / 1024.0;
	if (d->cg.v) {
		r->pageins = (double)(c1.refaults - c0.refaults);
		r->majfaults = c1.majfaults - c0.majfaults;
		r->oom_killed = c1.oom_kills > c0.oom_kills;
	} else {
		/* docs/rmss.md: pgpgin (kB read from block devices, swap included) in
		 * pages, plus zswap's swap-ins (no block I/O) */
		r->pageins = (double)(v1.pgpgin_kb - v0.pgpgin_kb) / d->m.page_kb +
			     (double)(v1.zswpin - v0.zswpin);
		r->majfaults = v1.pgmajfault - v0.pgmajfault;
		r->oom_killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
				v1.oom_kill > v0.oom_kill;
	}
	return 0;
}

/* set the memory size: the cgroup's limit, or the pool (replaced); MS_EXIT_* */
static int set_size(struct driver *d, double mb)
{
	int ret, err;

	if (d->cg.v) {
		err = cg_limit(&d->cg, mb, d->m.swap_mb);
		if (err) {
			rerr("--cgroup: cannot limit %s to %.2f MB: %s", d->cg.dir, mb,
				    strerror(-err));
			return MS_EXIT_FAIL;
		}
		return 0;
	}
	if (d->have_pool) {
		err = ms_rmss_pool_stop(&d->st);
		if (err) {
			rerr("cannot end the pool process %d: %s", d->st.pid, strerror(-err));
			return MS_EXIT_FAIL;
		}
		d->have_pool = false;
		d->st.pid = 0;
		d->st.starttime = 0;
		d->st.stolen_mb = 0;
		ms_rmss_state_sync(&d->st);	/* what else it records stays for -r */
	}
	if (mb >= d->m.real_mb)
		return 0;
	d->st.real_mb = d->m.real_mb;
	d->st.simulated_mb = mb;
	ret = ms_rmss_pool_start(d->m.real_mb - mb, &d->st, d->pidfd);
	if (ret)
		return ret;
	d->have_pool = true;	/* recorded in the state file before it took the memory */
	return 0;
}

/* undo everything: the pool, the cgroup, the zram device, the state */
static int restore(struct driver *d)
{
	int err;

	if (d->cg.peak_fd >= 0) {
		close(d->cg.peak_fd);
		d->cg.peak_fd = -1;
	}
	err = ms_rmss_undo(&d->st, false);
	d->have_pool = d->st.pid > 0;
	if (!d->st.cgroup[0])
		d->cg.v = 0;
	return err;
}

static const char *fmt_mb(double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", v);
	return buf;
}

static void print_header(struct driver *d, double start_mb)
{
	char host[256] = "", tbuf[64];
	time_t t = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	localtime_r(&t, &tm);
	strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", &tm);
	emit(d, "Hostname:  %s\n", host);
	emit(d, "Real memory size:  %8.2f Mb\n", d->m.real_mb);
	emit(d, "Time of day:  %s\n", tbuf);
	emit(d, "Command: ");
	for (int i = 0; i < d->o->ncmd; i++) {
		char *arg = ms_esc_str(d->o->cmd[i], MS_ESC_TERM);	/* a name, like a file's */

		emit(d, " %s", arg ? arg : "?");
		free(arg);
	}
	emit(d, "\n");
	if (d->m.swap_mb <= 0)
		emit(d, "Swap: none\n");
	else if (d->st.zram >= 0)
		emit(d, "Swap:  %.2f Mb (zram%d for this run, %.2f Mb)\n", d->m.swap_mb, d->st.zram,
		     d->o->zram_mb);
	else
		emit(d, "Swap:  %.2f Mb\n", d->m.swap_mb);
	if (d->cg.v)
		emit(d, "Mode: cgroup (the command alone, in %s, v%d); page-ins: the cgroup's "
		     "refaults\n", d->cg.dir, d->cg.v);
	else
		emit(d, "Mode: machine (free frames stolen by a pool process); page-ins: pgpgin "
		     "pages + zswpin of /proc/vmstat\n");
	emit(d, "\nSimulated memory size initialized to %6.2f Mb.\n\n", start_mb);
	emit(d, "Number of iterations per memory size = 1 warm-up + %ld measured = %ld.\n\n",
	     d->iterations, d->iterations + 1);
	emit(d, "Memory size   Avg. Pageins     Avg. Response Time   Avg. Pagein Rate\n");
	emit(d, "(megabytes)                         (sec.)          (pageins / sec.)\n");
	emit(d, "--------------------------------------------------------------------\n");
}

static void print_row(struct driver *d, const struct size_row *r)
{
	if (!r->ok_runs) {
		emit(d, "%-12.2f  %12s     %12s       %12s   (%d of %d runs killed by the OOM "
		     "killer)\n", r->mb, "-", "-", "-", r->oom_kills, r->measured);
		return;
	}
	emit(d, "%-12.2f  %12.1f     %12.3f       %12.1f", r->mb, r->sum_pageins / r->ok_runs,
	     r->sum_secs / r->ok_runs, r->sum_rate / r->ok_runs);
	if (r->oom_kills)
		emit(d, "   (%d of %d runs killed by the OOM killer)", r->oom_kills, r->measured);
	emit(d, "\n");
}

/*
 * the knee (docs/rmss.md): -1 when there is none. *base_out: the rate at the largest
 * size; *abs_out: the absolute part of the tolerance (10/s, or 1% of the highest rate measured)
 */
static double knee(const struct driver *d, double *base_out, double *abs_out)
{
	int big = -1;
	double base, lim, k = -1, top = 0;

	for (int i = 0; i < d->nrows; i++) {
		if (d->rows[i].done && (big < 0 || d->rows[i].mb > d->rows[big].mb))
			big = i;
		if (d->rows[i].done && d->rows[i].ok_runs)
			top = fmax(top, d->rows[i].sum_rate / d->rows[i].ok_runs);
	}
	if (big < 0 || !d->rows[big].ok_runs)
		return -1;
	base = d->rows[big].sum_rate / d->rows[big].ok_runs;
	*abs_out = fmax(RMSS_KNEE_ABS, RMSS_KNEE_NOISE * top);
	lim = base + fmax(base * RMSS_KNEE_REL, *abs_out);
	*base_out = base;
	k = d->rows[big].mb;
	/* down from the largest: the smallest size above which every size stays within */
	for (;;) {
		int next = -1;

		for (int i = 0; i < d->nrows; i++)
			if (d->rows[i].done && d->rows[i].mb < k &&
			    (next < 0 || d->rows[i].mb > d->rows[next].mb))
				next = i;
		if (next < 0)
			break;
		if (!d->rows[next].ok_runs || d->rows[next].oom_kills ||
		    d->rows[next].sum_rate / d->rows[next].ok_runs > lim)
			break;
		k = d->rows[next].mb;
	}
	return k;
}

static void print_pages_table(struct driver *d)
{
	static const enum ms_class cls[] = { MS_C_KERNEL, MS_C_ANON, MS_C_SHMEM, MS_C_EXEC,
					     MS_C_PAGE_CACHE, MS_C_HUGETLB, MS_C_FREE };
	char b[32];
	int any = 0;

	for (int i = 0; i < d->nrows; i++)
		any |= d->rows[i].done;
	if (!any)
		return;
	emit(d, "\nWhere the memory went after each size's measured runs (MB; %s):\n",
	     !d->o->cgroup ? "a memstat walk of the machine, the pool counted as anon" :
	     d->w.open ? "a memstat walk, the cgroup's own pages" : "the cgroup's memory.stat");
	emit(d, "Memory size    Kernel      Anon     Shmem      Exec  Pagecache   Hugetlb      Free"
	     "   Peak (MB)  OOM kills\n");
	for (int i = 0; i < d->nrows; i++) {
		const struct size_row *r = &d->rows[i];

		if (!r->done)
			continue;
		emit(d, "%-12.2f", r->mb);
		for (size_t j = 0; j < sizeof(cls) / sizeof(cls[0]); j++)
			emit(d, " %*s", j == 4 ? 10 : 9, fmt_mb(r->pages_mb[cls[j]], b, sizeof(b)));
		emit(d, "  %10s  %9d\n", fmt_mb(r->peak_mb, b, sizeof(b)), r->oom_kills);
	}
}

static void json_num(FILE *f, double v)
{
	if (v < 0 || !isfinite(v))
		fputs("null", f);
	else
		fprintf(f, "%.3f", v);
}

static void print_json(struct driver *d, double knee_mb, bool interrupted)
{
	FILE *f = stdout;

	fprintf(f, "{\"mode\":\"%s\",\"command\":[", d->o->cgroup ? "cgroup" : "machine");
	for (int i = 0; i < d->o->ncmd; i++) {
		if (i)
			fputc(',', f);
		ms_json_string(f, d->o->cmd[i]);
	}
	fprintf(f, "],\"iterations\":%ld,\"real_mb\":", d->iterations);
	json_num(f, d->m.real_mb);
	fputs(",\"floor_mb\":", f);
	json_num(f, d->floor_mb);
	fputs(",\"swap\":{\"total_mb\":", f);
	fprintf(f, "%.3f", d->m.swap_mb);
	fputs(",\"zram_mb\":", f);
	fprintf(f, "%.3f", d->st.zram >= 0 || d->o->zram_mb > 0 ? d->o->zram_mb : 0.0);
	fprintf(f, "},\"pageins_from\":\"%s\",\"pages_from\":\"%s\",\"sizes\":[",
		d->o->cgroup ? "cgroup_refaults" : "vmstat_pgpgin_zswpin",
		d->o->cgroup && !d->w.open ? "memory.stat" : d->o->cgroup ? "walk_cgroup" : "walk");
	for (int i = 0, n = 0; i < d->nrows; i++) {
		const struct size_row *r = &d->rows[i];
		bool ok = r->ok_runs > 0;

		if (!r->done)
			continue;
		fprintf(f, "%s{\"mb\":%.3f,\"avg_pageins\":", n++ ? "," : "", r->mb);
		json_num(f, ok ? r->sum_pageins / r->ok_runs : -1);
		fputs(",\"avg_response_s\":", f);
		json_num(f, ok ? r->sum_secs / r->ok_runs : -1);
		fputs(",\"avg_pagein_rate\":", f);
		json_num(f, ok ? r->sum_rate / r->ok_runs : -1);
		fprintf(f, ",\"runs\":%d,\"oom_kills\":%d,\"majfaults\":%lld,\"peak_mb\":", r->measured,
			r->oom_kills, r->majfaults);
		json_num(f, r->peak_mb);
		fputs(",\"stolen_mb\":", f);
		json_num(f, d->o->cgroup ? -1 : r->stolen_mb);
		fputs(",\"pages\":{", f);
		for (int c = 0, k = 0; c < MS_NR_CLASSES; c++) {
			if (r->pages_mb[c] < 0)
				continue;
			fprintf(f, "%s\"%s_mb\":%.3f", k++ ? "," : "", ms_classes[c].key,
				r->pages_mb[c]);
		}
		fputs("}}", f);
	}
	fputs("],\"knee_mb\":", f);
	json_num(f, knee_mb);
	fprintf(f, ",\"interrupted\":%s}\n", interrupted ? "true" : "false");
	fflush(f);
}

/*
 * --plot FILE.svg: response time (left axis) and page-in rate (right axis) against memory
 * size (bottom axis), one point per size measured without OOM kills, like the VMS study's plots.
 * Written to the temporary file d->plot (outfile.c) and renamed, so that an existing FILE is
 * replaced only by a whole plot.
 */
static int write_plot(struct driver *d)
{
	const double W = 760, H = 460, L = 80, R = 90, T = 50, B = 70;
	double pw = W - L - R, ph = H - T - B, xlo = INFINITY, xhi = -INFINITY, tmax = 0, rmax = 0;
	double *tx, *rx, kmb, base, noise;
	size_t n = 0;
	char title[300], why[600];
	struct ms_svg s;
	FILE *f;
	int err, fd;

	for (int i = 0; i < d->nrows; i++) {
		const struct size_row *r = &d->rows[i];

		if (!r->done || !r->ok_runs)
			continue;
		xlo = fmin(xlo, r->mb);
		xhi = fmax(xhi, r->mb);
		tmax = fmax(tmax, r->sum_secs / r->ok_runs);
		rmax = fmax(rmax, r->sum_rate / r->ok_runs);
		n++;
	}
	if (!n) {
		rerr("--plot: no size was measured: no plot");
		return -1;
	}
	if (xhi - xlo < 1e-9) {
		xlo -= 1;
		xhi += 1;
	}
	tmax = tmax > 0 ? tmax * 1.1 : 1;
	rmax = rmax > 0 ? rmax * 1.1 : 1;
	tx = calloc(2 * n, sizeof(double));
	rx = calloc(2 * n, sizeof(double));
	fd = dup(d->plot.fd);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!tx || !rx || !f) {
		rerr("--plot: cannot write %s: %s", d->o->plot, strerror(errno));
		if (fd >= 0 && !f)
			close(fd);
		free(tx);
		free(rx);
		if (f)
			fclose(f);
		return -1;
	}
	snprintf(title, sizeof(title), "memstat rmss: %s%s", d->o->cmd[0],
		 d->o->ncmd > 1 ? " ..." : "");
	ms_svg_begin(&s, f, W, H, title);
	ms_svg_text(&s, W / 2, 28, 16, MS_SVG_MIDDLE, NULL, title);
	{
		struct ms_svg_axis x = { .side = MS_SVG_BOTTOM, .lo = xlo, .hi = xhi, .x = L,
					 .y = T + ph, .len = pw, .grid = ph,
					 .label = d->o->cgroup ? "Memory size: the cgroup's limit (MB)" :
					 "Memory size: the simulated machine (MB)" };
		struct ms_svg_axis yl = { .side = MS_SVG_LEFT, .lo = 0, .hi = tmax, .x = L,
					  .y = T + ph, .len = ph, .label = "Avg. response time (s)",
					  .colour = "#1f77b4" };
		struct ms_svg_axis yr = { .side = MS_SVG_RIGHT, .lo = 0, .hi = rmax, .x = L + pw,
					  .y = T + ph, .len = ph,
					  .label = "Avg. page-in rate (page-ins / s)",
					  .colour = "#d62728" };
		struct ms_svg_legend_item leg[2] = { { "#1f77b4", "response time" },
						     { "#d62728", "page-in rate" } };
		size_t k = 0;

		ms_svg_axis(&s, &x);
		ms_svg_axis(&s, &yl);
		ms_svg_axis(&s, &yr);
		/* in memory-size order, whichever way the range went */
		for (int pass = 0; pass < d->nrows; pass++) {
			int best = -1;

			for (int i = 0; i < d->nrows; i++) {
				const struct size_row *r = &d->rows[i];
				double px = k ? tx[2 * k - 2] : -INFINITY;

				if (!r->done || !r->ok_runs)
					continue;
				if (ms_svg_axis_pos(&x, r->mb) <= px + 1e-9)
					continue;
				if (best < 0 || r->mb < d->rows[best].mb)
					best = i;
			}
			if (best < 0)
				break;
			tx[2 * k] = rx[2 * k] = ms_svg_axis_pos(&x, d->rows[best].mb);
			tx[2 * k + 1] = ms_svg_axis_pos(&yl, d->rows[best].sum_secs /
							d->rows[best].ok_runs);
			rx[2 * k + 1] = ms_svg_axis_pos(&yr, d->rows[best].sum_rate /
							d->rows[best].ok_runs);
			k++;
		}
		ms_svg_polyline(&s, tx, k, "#1f77b4", 2);
		ms_svg_polyline(&s, rx, k, "#d62728", 2);
		for (size_t i = 0; i < k; i++) {
			ms_svg_rect(&s, tx[2 * i] - 3, tx[2 * i + 1] - 3, 6, 6, "#1f77b4", NULL, 0);
			ms_svg_rect(&s, rx[2 * i] - 3, rx[2 * i + 1] - 3, 6, 6, "#d62728", NULL, 0);
		}
		kmb = knee(d, &base, &noise);
		if (kmb >= xlo && kmb <= xhi) {
			double kx = ms_svg_axis_pos(&x, kmb);

			ms_svg_line(&s, kx, T, kx, T + ph, "#444444", 1, true);
			ms_svg_textf(&s, kx + 4, T + 14, 12, MS_SVG_START, "#444444", "knee %.2f MB",
				     kmb);
		}
		ms_svg_legend(&s, L + pw - 150, T + ph / 2, leg, 2);	/* clear of the left, where
								 * small sizes run high */
	}
	err = ms_svg_end(&s);
	if (fclose(f) || err) {
		rerr("--plot: cannot write %s: %s", d->o->plot, strerror(errno ? errno : EIO));
		free(tx);
		free(rx);
		return -1;
	}
	if (ms_out_commit(&d->plot, why, sizeof(why))) {
		rerr("--plot: %s", why);
		free(tx);
		free(rx);
		return -1;
	}
	free(tx);
	free(rx);
	return 0;
}

static int measure_size(struct driver *d, struct size_row *row)
{
	struct run r;
	struct ms_result res;
	int ret;

	ret = run_once(d, &r);		/* the warm-up, not measured */
	if (ret)
		return ret == -2 ? MS_EXIT_FAIL : MS_EXIT_FAIL;
	row->peak_mb = d->cg.v ? -1 : 0;
	for (long i = 0; i < d->iterations && !stop_sig; i++) {
		ret = run_once(d, &r);
		if (ret)
			return MS_EXIT_FAIL;
		if (stop_sig)
			return 0;	/* a run cut short is not measured */
		row->measured++;
		row->majfaults += r.majfaults;
		if (r.oom_killed) {
			row->oom_kills++;
			continue;
		}
		row->ok_runs++;
		row->sum_pageins += r.pageins;
		row->sum_secs += r.secs;
		row->sum_rate += r.secs > 0 ? r.pageins / r.secs : 0;
		if (!d->cg.v && r.maxrss_mb > row->peak_mb)
			row->peak_mb = r.maxrss_mb;
	}
	if (stop_sig)
		return 0;
	for (int c = 0; c < MS_NR_CLASSES; c++)
		row->pages_mb[c] = -1;
	if (d->cg.v) {
		row->peak_mb = cg_peak_mb(&d->cg);
		if (cg_walk_pages(&d->w, &d->cg, d->m.page_kb / 1024.0, row->pages_mb))
			cg_pages(&d->cg, row->pages_mb);
	} else if (!walker_walk(&d->w, &res)) {
		double pg = d->m.page_kb / 1024.0;

		for (int c = 0; c < MS_NR_CLASSES; c++)
			row->pages_mb[c] = ms_class_pages(&res, c) * pg;
		if (!res.exec_known)
			row->pages_mb[MS_C_EXEC] = -1;
		if (!ms_class_pages(&res, MS_C_UNKNOWN))
			row->pages_mb[MS_C_UNKNOWN] = -1;
	}
	row->stolen_mb = d->have_pool ? d->st.stolen_mb : 0;
	row->done = true;
	return 0;
}

/*
 * -o FILE and --plot FILE.svg, checked and their temporary files made (outfile.c) before
 * anything is measured or changed: a destination memstat may not replace is refused at once.
 * "-o -" (or /dev/stdout) is the report on stdout, once.
 */
static int open_outputs(struct driver *d)
{
	char why[600];
	int ret, fd;

	ret = ms_out_open(&d->report, d->o->output, MS_OUT_RMSS, 0666, why, sizeof(why));
	if (!ret && d->o->plot)
		ret = ms_out_open(&d->plot, d->o->plot, MS_OUT_SVG, 0666, why, sizeof(why));
	if (ret) {
		rerr("%s", why);
		return ret;
	}
	if (d->report.direct && d->report.fd == STDOUT_FILENO) {
		if (d->o->json) {
			rerr("-o %s with --json: the report and the JSON would both go to stdout",
			     d->o->output);
			return MS_EXIT_USAGE;
		}
		return 0;
	}
	fd = dup(d->report.fd);
	d->out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!d->out) {
		rerr("cannot write the report to %s: %s", d->o->output, strerror(errno));
		if (fd >= 0)
			close(fd);
		return MS_EXIT_FAIL;
	}
	return 0;
}

/* Finish the report: flushed, and renamed over -o FILE unless nothing was written. MS_EXIT_* */
static int close_outputs(struct driver *d, bool commit)
{
	char why[600];
	struct stat st;
	int ret = MS_EXIT_OK;

	if (d->out && fclose(d->out) && commit) {
		rerr("cannot write the report to %s: %s", d->o->output, strerror(errno));
		ret = MS_EXIT_FAIL;
		commit = false;
	}
	d->out = NULL;
	if (commit && !d->report.direct && !fstat(d->report.fd, &st) && st.st_size > 0 &&
	    ms_out_commit(&d->report, why, sizeof(why))) {
		rerr("cannot write the report: %s", why);
		ret = MS_EXIT_FAIL;
	}
	ms_out_abort(&d->report);
	ms_out_abort(&d->plot);
	return ret;
}

static int driver_main(struct rmss_opts *o)
{
	struct driver d = { .o = o, .cg = { .peak_fd = -1 }, .guard = { .pid = -1, .ctl = -1 },
			    .pidfd = -1, .report = MS_OUT_INIT, .plot = MS_OUT_INIT };
	struct ms_result res;
	struct sigaction sa = {};
	double start, final, delta, base = 0, noise = 0, k;
	int lock_fd = -1, ret = 0, nsizes;
	bool down;
	char zdev[64];

	ms_rmss_state_init(&d.st);

	ret = open_outputs(&d);
	if (ret) {
		close_outputs(&d, false);
		return ret;
	}
	if (read_machine(&d.m)) {
		rerr("cannot read /proc/meminfo");
		close_outputs(&d, false);
		return MS_EXIT_FAIL;
	}
	ret = take_lock(&lock_fd);
	if (ret) {
		close_outputs(&d, false);
		return ret;
	}
	/* before anything is changed: what outlives this process and undoes it after a crash */
	d.pidfd = ms_rmss_self_pidfd();
	ret = ms_rmss_guard_start(&d.guard, lock_fd, d.pidfd);
	if (ret) {
		if (d.pidfd >= 0)
			close(d.pidfd);
		close(lock_fd);
		close_outputs(&d, false);
		return ret;
	}
	/*
	 * A pool left by -c is replaced by the driver's, and ended at its end; whatever else the
	 * state records was left by a crash whose guardian was killed too: undone first.
	 */
	if (!ms_rmss_state_read(&d.st)) {
		if (!ms_rmss_pool_alive(&d.st))
			d.st.pid = 0;
		if (ms_rmss_undo(&d.st, true)) {
			ret = MS_EXIT_FAIL;
			goto out;
		}
		d.have_pool = d.st.pid > 0;
	}
	if (!o->cgroup) {
		ret = walker_open(&d.w, 0);
		if (ret)
			goto out;
		ret = safe_floor(&d.w, &d.m, d.have_pool ? d.st.stolen_mb : 0, &d.floor_mb, &res);
		if (ret)
			goto out;
	} else {
		d.floor_mb = RMSS_CGROUP_FLOOR_MB;
		/*
		 * The cgroup's class split comes from the record walk (--by cgroup's), where the
		 * bpf or kmod backend can give it; without one, from the cgroup's memory.stat.
		 */
		if (walker_open(&d.w, MS_BPF_ALLPAGES) == 0 && !d.w.be.ops->pages)
			walker_close(&d.w);
	}
	start = o->start_set ? o->start : d.m.real_mb;
	final = o->final_set ? o->final : d.floor_mb;
	delta = o->delta_set ? o->delta : RMSS_DEFAULT_DELTA;
	if (start > d.m.real_mb + 1e-9 || final > d.m.real_mb + 1e-9) {
		rerr("%.2f MB is above the real memory size, %.2f MB", fmax(start, final), d.m.real_mb);
		ret = MS_EXIT_USAGE;
		goto out;
	}
	if (start < d.floor_mb - 1e-9 || final < d.floor_mb - 1e-9) {
		rerr("%.2f MB is below the safe floor, %.2f MB (%s)", fmin(start, final), d.floor_mb,
		     o->cgroup ? "the least cgroup limit rmss sets" :
		     "kernel + hugetlb + anon + shmem + mlocked + margin");
		ret = MS_EXIT_USAGE;
		goto out;
	}
	down = final < start;
	nsizes = (int)floor(fabs(start - final) / delta + 1e-9) + 1;
	if (nsizes > RMSS_MAX_SIZES) {
		rerr("%d sizes from %.2f to %.2f MB by %.2f: more than %d; choose a larger -d",
		     nsizes, start, final, delta, RMSS_MAX_SIZES);
		ret = MS_EXIT_USAGE;
		goto out;
	}
	d.rows = calloc(nsizes, sizeof(*d.rows));
	if (!d.rows) {
		ret = MS_EXIT_FAIL;
		goto out;
	}
	for (int i = 0; i < nsizes; i++)
		d.rows[i].mb = down ? start - i * delta : start + i * delta;
	d.nrows = nsizes;

	/* from here on, every exit restores */
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a hang-up (ssh without nohup) restores as SIGINT does; nohup's SIG_IGN stays */
	{
		struct sigaction old;

		if (!sigaction(SIGHUP, NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(SIGHUP, &sa, NULL);
	}
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed stdout: the report still goes to FILE */

	d.reporting = true;
	d.to_stdout = !o->json;
	if (o->zram_mb > 0) {
		ret = zram_setup(o->zram_mb, &d.st, zdev, sizeof(zdev));
		if (ret)
			goto out;
		read_machine(&d.m);
	}
	if (o->cgroup) {
		ret = cg_create(&d.cg, &d.st);
		if (ret)
			goto out;
	}
	ret = set_size(&d, start);
	if (ret)
		goto out;
	d.iterations = o->iterations;
	if (!d.iterations) {	/* AIX: enough runs for 10 s, from one timed run at START */
		struct run r;

		if (run_once(&d, &r)) {
			ret = MS_EXIT_FAIL;
			goto out;
		}
		d.iterations = r.secs > 0 ? (long)ceil(RMSS_AUTO_SECONDS / r.secs) : RMSS_MAX_AUTO_N;
		if (d.iterations < 1)
			d.iterations = 1;
		if (d.iterations > RMSS_MAX_AUTO_N)
			d.iterations = RMSS_MAX_AUTO_N;
	}
	if (stop_sig)
		goto out;
	print_header(&d, start);
	for (int i = 0; i < nsizes && !stop_sig; i++) {
		if (i) {
			ret = set_size(&d, d.rows[i].mb);
			if (ret)
				break;
		}
		ret = measure_size(&d, &d.rows[i]);
		if (ret)
			break;
		if (d.rows[i].done)
			print_row(&d, &d.rows[i]);
		if (!o->cgroup && d.have_pool && !ms_rmss_pool_alive(&d.st)) {
			rerr("the pool process %d is gone (killed by the OOM killer?): the "
			     "sizes from %.2f MB on are not simulated; stopping", d.st.pid,
			     d.rows[i].mb);
			d.have_pool = false;
			ret = MS_EXIT_FAIL;
			break;
		}
	}
out:
	if (restore(&d))
		ret = ret ? ret : MS_EXIT_FAIL;
	/* restored, or what could not be is left in the state file for -r */
	ms_rmss_guard_stop(&d.guard);
	if (d.pidfd >= 0)
		close(d.pidfd);
	if (d.reporting) {
		if (d.iterations)
			print_pages_table(&d);
		k = d.nrows ? knee(&d, &base, &noise) : -1;
		if (d.iterations) {
			if (k >= 0)
				emit(&d, "\nKnee: %.2f Mb: the smallest size whose page-in rate stays "
				     "within max(%.0f%%, %.0f pageins / sec.) of the rate at the "
				     "largest size (%.1f pageins / sec.); %.0f: the larger of %.0f "
				     "and %.0f%% of the highest rate measured\n", k,
				     RMSS_KNEE_REL * 100, noise, base, noise, RMSS_KNEE_ABS,
				     RMSS_KNEE_NOISE * 100);
			else
				emit(&d, "\nKnee: none (no size was measured without OOM kills)\n");
		}
		if (stop_sig)
			emit(&d, "\nInterrupted by %s: the report is complete up to the last "
			     "finished size; the memory size is restored.\n",
			     stop_sig == SIGINT ? "SIGINT" : stop_sig == SIGHUP ? "SIGHUP" :
			     "SIGTERM");
		else if (ret && d.iterations)
			emit(&d, "\nStopped by an error (on stderr): the report is complete up to the "
			     "last finished size; the memory size is restored.\n");
		else if (d.iterations)
			emit(&d, "\nSimulated final memory size.\n");
		if (o->plot && d.iterations && write_plot(&d))
			ret = ret ? ret : MS_EXIT_FAIL;
		if (o->json)
			print_json(&d, k, stop_sig != 0);
	}
	{
		int err = close_outputs(&d, d.reporting);

		ret = ret ? ret : err;
	}
	walker_close(&d.w);
	free(d.rows);
	if (lock_fd >= 0)
		close(lock_fd);
	if (stop_sig)
		return RMSS_EXIT_INTR;
	return ret;
}

/* ---- -c, -p, -r ---- */

static int change_main(struct rmss_opts *o)
{
	struct machine m;
	struct walker w;
	struct ms_result res;
	struct ms_rmss_state s;
	double floor_mb, pool_mb = 0;
	int lock_fd = -1, ret, err;

	if (read_machine(&m)) {
		rerr("cannot read /proc/meminfo");
		return MS_EXIT_FAIL;
	}
	ret = take_lock(&lock_fd);
	if (ret)
		return ret;
	if (!ms_rmss_state_read(&s) && ms_rmss_pool_alive(&s))
		pool_mb = s.stolen_mb;
	if (o->reset) {
		/* whatever the state records, as far as it still exists: idempotent */
		if (!ms_rmss_state_read(&s) && ms_rmss_undo(&s, false)) {
			ret = MS_EXIT_FAIL;
			goto out;
		}
		printf("Simulated memory size changed to %6.2f Mb.\n", m.real_mb);
		goto out;
	}
	if (o->change_mb > m.real_mb + 1e-9) {
		rerr("%.2f MB is above the real memory size, %.2f MB", o->change_mb, m.real_mb);
		ret = MS_EXIT_USAGE;
		goto out;
	}
	ret = walker_open(&w, 0);
	if (ret)
		goto out;
	ret = safe_floor(&w, &m, pool_mb, &floor_mb, &res);
	walker_close(&w);
	if (ret)
		goto out;
	if (o->change_mb < floor_mb - 1e-9) {
		rerr("%.2f MB is below the safe floor, %.2f MB (kernel + hugetlb + anon + shmem + "
		     "mlocked + margin)", o->change_mb, floor_mb);
		ret = MS_EXIT_USAGE;
		goto out;
	}
	if (!ms_rmss_state_read(&s)) {	/* resizing: replace the pool */
		err = ms_rmss_pool_stop(&s);
		if (err) {
			rerr("cannot end the pool process %d: %s", s.pid, strerror(-err));
			ret = MS_EXIT_FAIL;
			goto out;
		}
	} else {
		ms_rmss_state_init(&s);
	}
	s.pid = 0;
	s.starttime = 0;
	s.stolen_mb = 0;
	if (o->change_mb < m.real_mb) {
		s.real_mb = m.real_mb;
		s.simulated_mb = o->change_mb;
		/* recorded in the state before it takes memory; kept until -r */
		ret = ms_rmss_pool_start(m.real_mb - o->change_mb, &s, -1);
		if (ret)
			goto out;
	} else {
		ms_rmss_state_sync(&s);
	}
	printf("Simulated memory size changed to %6.2f Mb.\n", o->change_mb);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	return ret;
}

static int print_main(void)
{
	struct machine m;
	struct ms_rmss_state s;

	if (read_machine(&m)) {
		rerr("cannot read /proc/meminfo");
		return MS_EXIT_FAIL;
	}
	if (!ms_rmss_state_read(&s) && s.pid > 0 && !ms_rmss_pool_alive(&s))
		fprintf(stderr, "memstat rmss: the pool process %d is gone: the memory is back "
			"(memstat rmss -r removes the state)\n", s.pid);
	printf("Simulated memory size is %6.2f Mb.\n",
	       s.pid > 0 && ms_rmss_pool_alive(&s) ? s.simulated_mb : m.real_mb);
	return 0;
}

/* ---- options ---- */

static int parse(int argc, char **argv, struct rmss_opts *o)
{
	enum { OPT_CGROUP = 0x100, OPT_ZRAM, OPT_PLOT };
	static const struct option longopts[] = {
		{ "change", required_argument, NULL, 'c' },
		{ "print", no_argument, NULL, 'p' },
		{ "reset", no_argument, NULL, 'r' },
		{ "start", required_argument, NULL, 's' },
		{ "final", required_argument, NULL, 'f' },
		{ "delta", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "cgroup", no_argument, NULL, OPT_CGROUP },
		{ "zram", required_argument, NULL, OPT_ZRAM },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, modes;

	memset(o, 0, sizeof(*o));
	o->output = "rmss.out";
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:c:prs:f:d:n:o:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (parse_mb(optarg, &o->change_mb))
				return rmss_usage_error("invalid size '%s': expected megabytes above 0, "
							"e.g. 12 or 12.25", optarg);
			o->change = true;
			break;
		case 'p':
			o->print = true;
			break;
		case 'r':
			o->reset = true;
			break;
		case 's':
		case 'f':
		case 'd': {
			double v;

			if (parse_mb(optarg, &v))
				return rmss_usage_error("invalid %s '%s': expected megabytes above 0",
							c == 's' ? "START (-s)" : c == 'f' ?
							"FINAL (-f)" : "DELTA (-d)", optarg);
			if (c == 's') {
				o->start = v;
				o->start_set = true;
			} else if (c == 'f') {
				o->final = v;
				o->final_set = true;
			} else {
				o->delta = v;
				o->delta_set = true;
			}
			break;
		}
		case 'n': {
			char *end;

			errno = 0;
			o->iterations = strtol(optarg, &end, 10);
			if (!isdigit((unsigned char)*optarg) || *end || errno || o->iterations < 1 ||
			    o->iterations > 1000000)
				return rmss_usage_error("invalid ITER (-n) '%s': expected a whole "
							"number of runs above 0", optarg);
			break;
		}
		case 'o':
			if (!*optarg)
				return rmss_usage_error("-o needs a file name");
			o->output = optarg;
			break;
		case OPT_CGROUP:
			o->cgroup = true;
			break;
		case OPT_ZRAM:
			if (parse_mb(optarg, &o->zram_mb))
				return rmss_usage_error("invalid --zram size '%s': expected megabytes "
							"above 0", optarg);
			break;
		case 'j':
			o->json = true;
			break;
		case OPT_PLOT:
			if (!*optarg)
				return rmss_usage_error("--plot needs a file name");
			o->plot = optarg;
			break;
		case 'h':
			fputs(rmss_usage, stdout);
			exit(MS_EXIT_OK);
		case ':':
			return rmss_usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			return rmss_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	o->cmd = argv + optind;
	o->ncmd = argc - optind;
	modes = o->change + o->print + o->reset;
	if (modes > 1)
		return rmss_usage_error("-c, -p and -r are one at a time");
	if (modes) {
		if (o->ncmd || o->start_set || o->final_set || o->delta_set || o->iterations ||
		    o->cgroup || o->zram_mb > 0 || o->json || o->plot || strcmp(o->output, "rmss.out"))
			return rmss_usage_error("-c, -p and -r take no command and no driver options");
		return 0;
	}
	if (!o->ncmd)
		return rmss_usage_error("no command to measure (memstat rmss [options] command "
					"[args...]), or -c MB, -p or -r");
	if (o->plot && ms_out_fd_name(o->plot) < 0 && !strstr(o->plot, ".svg"))
		return rmss_usage_error("--plot '%s': the plot is an SVG file (FILE.svg)", o->plot);
	return 0;
}

int ms_rmss_main(int argc, char **argv)
{
	struct rmss_opts o;
	const char *cap;
	int ret;

	if (argc > 1 && !strncmp(argv[1], "--internal-", 11))
		return ms_rmss_internal_main(argc - 1, argv + 1);	/* rmss_guard.c */
	ret = parse(argc, argv, &o);
	if (ret)
		return ret;
	if (o.print)
		return print_main();
	cap = ms_missing_capability();
	if (cap || geteuid() != 0) {
		rerr("missing privilege (%s): rmss steals memory, sets cgroup limits and walks "
		     "page frames; run as root", cap ? cap : "not root");
		return MS_EXIT_PERM;
	}
	if (o.change || o.reset)
		return change_main(&o);
	return driver_main(&o);
}
