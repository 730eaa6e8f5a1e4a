// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * make bench [BUSY=1]: how fast memstat is on this machine, over the same pfn ranges.
 *
 *   bench [--busy] [--busy-dir DIR] [--approx-only] [--no-sweep] [MEMSTAT]
 *
 * It drives the memstat binary (`--json` gives walk_ms, jobs, timings, approx) rather than the
 * internal C API, so that it measures what users run:
 *   - the walk, ns per page: the median walk_ms of several `memstat --json` runs, at --jobs 1
 *     and at the default jobs (when this memstat has --jobs), and through the module when it is
 *     loaded;
 *   - /proc/kpageflags read over the same ranges in 512 KiB preads (tools/mm/page-types style),
 *     ns per page, and the walk's speed-up over it; the kpageflags fallback backend;
 *   - memstat end to end, process start to exit (fork + exec + wait), median and worst; the
 *     same without the CO-RE types cache (MEMSTAT_NO_CACHE=1); all but the walk (the process
 *     less the walk); by --jobs 1, 2 and one per CPU against the default; and the split of a
 *     one-shot run from its JSON `timings`;
 *   - periodic mode: CPU time (user + system, BPF included) of one sample (memstat's CPU-time
 *     clock between its log's first and last-but-one rows), as a share of one CPU at a 1 s
 *     interval, exact and with --approx, and --approx's coverage: APPROX_RUNS runs, each with
 *     its own seed between two exact walks, and per class how often it was within its stated
 *     error (--approx-only: this alone);
 *   - allpages as CSV to /dev/null, beside a page-types -L style dump of /proc/kpageflags,
 *     kpagecount and kpagecgroup over the same pages;
 *   - the walk time of 1 TB and 4 TB extrapolated from the per-page cost.
 * The targets are per machine: the set that applies is chosen by online CPUs and
 * MemTotal, and each target is printed as met or MISSED.
 *
 * --busy first sets up a load sized from MemTotal (order-0 anon, THP anon, page cache of a file
 * on a real file system), held by a child process while measuring and undone at exit, on
 * SIGINT/SIGTERM and on failure.
 *
 * Exit: 0 measured (whatever the targets say), 1 a measurement or the busy set-up failed,
 * 2 bad usage (or a --busy-dir on tmpfs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memstat_int.h"

#define WALKS 7		/* memstat --json runs per walk measurement */
#define KPF_READS 3
#define RUNS 15		/* one-shot runs */
#define SAMPLES 21	/* periodic samples (minus a 1-sample run) */
#define APPROX_RUNS 100	/* --approx runs compared with exact walks, for its coverage */
#define MAX_TIMINGS 24

#define MiB (1024.0 * 1024.0)
#define GiB (1024.0 * 1024.0 * 1024.0)

/* ---- clean-up: the holder of the busy load, the page-cache file, temporary logs ---- */

static volatile pid_t holder_pid;	/* the child that holds the busy anon memory */
static volatile pid_t child_pid;	/* the memstat run in progress */
static char cleanup_path[4][PATH_MAX];	/* files to delete at exit */

static void cleanup(void)
{
	int i;

	if (holder_pid > 0) {
		kill(holder_pid, SIGKILL);
		waitpid(holder_pid, NULL, 0);
		holder_pid = 0;
	}
	for (i = 0; i < 4; i++)
		if (cleanup_path[i][0]) {
			unlink(cleanup_path[i]);
			cleanup_path[i][0] = 0;
		}
}

/* async-signal-safe: kill, waitpid, unlink, signal, raise */
static void on_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, SIGTERM);
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void add_cleanup(const char *path)
{
	int i;

	for (i = 0; i < 4; i++)
		if (!cleanup_path[i][0]) {
			snprintf(cleanup_path[i], sizeof(cleanup_path[i]), "%s", path);
			return;
		}
}

static void drop_cleanup(const char *path)
{
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(cleanup_path[i], path)) {
			unlink(path);
			cleanup_path[i][0] = 0;
		}
}

static void __attribute__((noreturn, format(printf, 2, 3))) die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);	/* atexit: cleanup() */
}

/* ---- small helpers ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* a /proc/meminfo field in kB, -1 when absent */
static long long meminfo_kb(const char *field)
{
	char line[256];
	size_t n = strlen(field);
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			v = strtoll(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* the bracketed word of a sysfs choice file ("always [madvise] never"), "" when unreadable */
static void sysfs_choice(const char *path, char *out, size_t len)
{
	char buf[256], *a, *b;
	FILE *f = fopen(path, "r");

	out[0] = 0;
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f) && (a = strchr(buf, '[')) && (b = strchr(a, ']'))) {
		*b = 0;
		snprintf(out, len, "%s", a + 1);
	}
	fclose(f);
}

/* ---- the JSON of memstat --json: flat lookups, enough for its own output ---- */

/* the value after "key": in [s, end), or NULL */
static const char *jfind(const char *s, const char *end, const char *key)
{
	char pat[80];
	size_t n = (size_t)snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *p = s;

	while ((p = memmem(p, (size_t)(end - p), pat, n))) {
		p += n;
		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
		return p;
	}
	return NULL;
}

static int jnum(const char *s, const char *end, const char *key, double *v)
{
	const char *p = jfind(s, end, key);
	char *e;

	if (!p)
		return -1;
	*v = strtod(p, &e);
	return e == p ? -1 : 0;
}

/* the object "key": { ... } in [s, end): *os, *oe around its braces; -1 when absent */
static int jobj(const char *s, const char *end, const char *key, const char **os, const char **oe)
{
	const char *p = jfind(s, end, key);
	int depth = 0;

	if (!p || *p != '{')
		return -1;
	*os = p;
	for (; p < end; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && --depth == 0) {
			*oe = p + 1;
			return 0;
		}
	}
	return -1;
}

/* ---- running memstat ---- */

/*
 * Run args with stdout captured (keep) or on /dev/null; wall ms in *wall, CPU ms (user +
 * system) in *cpu. A failed run ends the bench, unless may_fail: then it returns NULL.
 */
static char *run_capture_ex(char *const args[], double *wall, double *cpu, int keep, int may_fail)
{
	int pfd[2] = { -1, -1 }, st;
	size_t len = 0, cap = keep ? 1 << 16 : 0;
	char *buf = keep ? malloc(cap + 1) : NULL;
	struct rusage ru;
	double t0;
	pid_t pid;

	if (keep && (!buf || pipe2(pfd, O_CLOEXEC)))
		die(1, "pipe: %s", strerror(errno));
	t0 = ms_now_ms();
	pid = fork();
	if (pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* not kept: stdout on /dev/null itself, not a pipe bench would have to read */
		int out = keep ? pfd[1] : open("/dev/null", O_WRONLY);

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (out < 0 || dup2(out, 1) < 0)
			_exit(126);
		execv(args[0], args);
		_exit(127);
	}
	child_pid = pid;
	if (keep) {
		close(pfd[1]);
		for (;;) {
			ssize_t n;

			if (len == cap) {
				cap *= 2;
				buf = realloc(buf, cap + 1);
				if (!buf)
					die(1, "out of memory");
			}
			n = read(pfd[0], buf + len, cap - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			len += (size_t)n;
		}
		close(pfd[0]);
	}
	while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
		;
	child_pid = 0;
	if (wall)
		*wall = ms_now_ms() - t0;
	if ((!WIFEXITED(st) || WEXITSTATUS(st)) && may_fail) {
		free(buf);
		return NULL;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		char cmd[512];
		size_t n = 0;
		int i;

		for (i = 0; args[i] && n < sizeof(cmd) - 1; i++)
			n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s%s", i ? " " : "", args[i]);
		if (WIFEXITED(st))
			die(1, "%s failed (exit %d)", cmd, WEXITSTATUS(st));
		die(1, "%s failed (signal %d)", cmd, WTERMSIG(st));
	}
	if (cpu)
		*cpu = ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 +
		       ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
	if (keep)
		buf[len] = 0;
	return buf;
}

static char *run_capture(char *const args[], double *wall, double *cpu, int keep)
{
	return run_capture_ex(args, wall, cpu, keep, 0);
}

/* memstat's --help mentions opt */
static int has_option(const char *memstat, const char *opt)
{
	char *const args[] = { (char *)memstat, "--help", NULL };
	char *h = run_capture(args, NULL, NULL, 1);
	int r = strstr(h, opt) != NULL;

	free(h);
	return r;
}

/* the JSON walks of one configuration: median walk_ms, jobs, timings */
struct jwalk {
	double walk_ms;		/* median */
	double jobs;		/* -1: the JSON has no jobs */
	int ntim;		/* timings: names in the order of the JSON, median ms */
	char tname[MAX_TIMINGS][48];
	double tms[MAX_TIMINGS];
	double elapsed_ms;	/* median */
	double outside_ms;	/* median of each run's process start to exit less its elapsed_ms */
};

static void json_walks(const char *memstat, const char *extra1, const char *extra2, int n,
		       struct jwalk *w)
{
	char *args[8];
	double walk[WALKS], el[WALKS], out[WALKS], tv[MAX_TIMINGS][WALKS];
	int i, a = 0, k;

	args[a++] = (char *)memstat;
	args[a++] = "--json";
	if (extra1)
		args[a++] = (char *)extra1;
	if (extra2)
		args[a++] = (char *)extra2;
	args[a] = NULL;
	memset(w, 0, sizeof(*w));
	w->jobs = -1;
	for (i = 0; i < n; i++) {
		double wall = 0;
		char *js = run_capture(args, &wall, NULL, 1);
		const char *end = js + strlen(js), *ts, *te;

		if (jnum(js, end, "walk_ms", &walk[i]))
			die(1, "memstat --json %s: no walk_ms in its output", extra1 ? extra1 : "");
		if (jnum(js, end, "elapsed_ms", &el[i]))
			el[i] = 0;
		out[i] = wall - el[i];
		if (i == 0 && jnum(js, end, "jobs", &w->jobs))
			w->jobs = -1;
		if (jobj(js, end, "timings", &ts, &te) == 0) {
			const char *p = ts + 1;

			/* "name": number pairs; anything else is skipped */
			while ((p = memchr(p, '"', (size_t)(te - p)))) {
				const char *q = memchr(p + 1, '"', (size_t)(te - p - 1));
				char name[48], *e;
				double v;

				if (!q)
					break;
				snprintf(name, sizeof(name), "%.*s", (int)(q - p - 1), p + 1);
				p = q + 1;
				if (*p != ':')
					continue;
				p++;
				while (*p == ' ')
					p++;
				v = strtod(p, &e);
				if (e == p)
					continue;
				for (k = 0; k < w->ntim; k++)
					if (!strcmp(w->tname[k], name))
						break;
				if (k == w->ntim) {
					if (i || k == MAX_TIMINGS)
						continue;	/* only the first run's names */
					snprintf(w->tname[k], sizeof(w->tname[k]), "%s", name);
					w->ntim++;
				}
				tv[k][i] = v;
			}
		}
		free(js);
	}
	w->walk_ms = median(walk, n);
	w->elapsed_ms = median(el, n);
	w->outside_ms = median(out, n);
	for (k = 0; k < w->ntim; k++)
		w->tms[k] = median(tv[k], n);
}

/* ---- /proc/kpageflags, the way tools/mm/page-types reads it ---- */

static double kpf_read_ms(const struct ms_ranges *r)
{
	static __u64 buf[65536];
	double t0 = ms_now_ms();
	int fd = open("/proc/kpageflags", O_RDONLY);
	size_t i;

	if (fd < 0)
		die(1, "/proc/kpageflags: %s", strerror(errno));
	for (i = 0; i < r->n; i++) {
		__u64 pfn = r->r[i].start;

		while (pfn < r->r[i].end) {
			__u64 n = r->r[i].end - pfn;

			if (n > 65536)
				n = 65536;
			if (pread(fd, buf, n * 8, pfn * 8) <= 0)
				break;
			pfn += n;
		}
	}
	close(fd);
	return ms_now_ms() - t0;
}

/*
 * What page-types -L does for every page: read /proc/kpageflags, kpagecount and kpagecgroup in
 * 64 Ki-entry chunks and print one line per page (pfn, count, cgroup, flags), here to /dev/null.
 */
static double kpf_dump_ms(const struct ms_ranges *r)
{
	static __u64 fl[65536], cnt[65536], cg[65536];
	static char out[1 << 16];
	int ffd = open("/proc/kpageflags", O_RDONLY), cfd = open("/proc/kpagecount", O_RDONLY);
	int gfd = open("/proc/kpagecgroup", O_RDONLY), null = open("/dev/null", O_WRONLY);
	double t0 = ms_now_ms();
	size_t i, n = 0;

	if (ffd < 0 || cfd < 0 || null < 0)
		die(1, "/proc/kpageflags, /proc/kpagecount: %s", strerror(errno));
	for (i = 0; i < r->n; i++) {
		__u64 pfn = r->r[i].start;

		while (pfn < r->r[i].end) {
			__u64 k = r->r[i].end - pfn, j;

			if (k > 65536)
				k = 65536;
			if (pread(ffd, fl, k * 8, pfn * 8) <= 0 || pread(cfd, cnt, k * 8, pfn * 8) <= 0)
				break;
			if (gfd >= 0 && pread(gfd, cg, k * 8, pfn * 8) <= 0)
				memset(cg, 0, sizeof(cg));
			for (j = 0; j < k; j++) {
				if (n + 64 > sizeof(out)) {
					if (write(null, out, n) < 0)
						break;
					n = 0;
				}
				n += (size_t)snprintf(out + n, 64, "%llx\t%llu\t%llu\t%llx\n",
						      (unsigned long long)(pfn + j),
						      (unsigned long long)cnt[j],
						      (unsigned long long)cg[j],
						      (unsigned long long)fl[j]);
			}
			pfn += k;
		}
	}
	if (n && write(null, out, n) < 0)
		n = 0;
	close(ffd);
	close(cfd);
	if (gfd >= 0)
		close(gfd);
	close(null);
	return ms_now_ms() - t0;
}

/* ---- periodic sampling ---- */

struct sampling {
	double cpu_ms;		/* CPU per sample */
	double walk_ms;		/* median walk_ms of samples 2.. (jsonl only) */
	double cached;		/* cached_pages of the last sample */
	double interval;	/* s */
	int nwalks;		/* samples behind walk_ms */
};

/* a fresh empty log for memstat -o (it refuses a log of other columns) */
static void temp_log(char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/memstat-bench-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		die(1, "mkstemp: %s", strerror(errno));
	close(fd);
	add_cleanup(path);
}

/* the walk_ms of each row of a jsonl log (at most max), the last row's cached_pages; rows */
static int log_rows(const char *path, double *walks, int max, double *cached)
{
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		die(1, "%s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		const char *end = line + strlen(line);
		double w;

		if (jnum(line, end, "walk_ms", &w))
			continue;
		if (n < max)
			walks[n] = w;
		if (cached)
			jnum(line, end, "cached_pages", cached);
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

/* the CPU time of a running process, all its threads (ms); -1 when it cannot be read */
static double proc_cpu_ms(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		return -1;
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * CPU ms of one periodic sample: one SAMPLES-sample run, its CPU-time clock read when the log
 * has its first row and again when it has SAMPLES - 1 rows (memstat then waits for the next
 * tick), over the rows in between: neither start-up nor exit is counted, whose cost varies
 * more between runs than a cheap sample costs (a 21-sample run less a 1-sample run came out
 * negative for --approx under TCG). The interval is twice the walk (at least 0.1 s), so that
 * the clock is read while memstat waits; a skipped tick only means fewer rows.
 */
static void sample_cost(const char *memstat, const char *approx, double walk_ms,
			struct sampling *s)
{
	char pn[64], count[16], ival[16];
	char *an[10];
	double walks[SAMPLES], c1 = -1, c2 = -1;
	int a = 0, nn, r1 = 0, r2 = 0, st;
	clockid_t clk;
	off_t last = 0;
	pid_t pid;

	temp_log(pn, sizeof(pn));
	snprintf(count, sizeof(count), "%d", SAMPLES);
	snprintf(ival, sizeof(ival), "%.2f", walk_ms * 2 / 1000 > 0.1 ?
		 ceil(walk_ms * 2 / 50) * 0.05 : 0.1);
	an[a++] = (char *)memstat;
	if (approx)
		an[a++] = (char *)approx;
	an[a++] = "-f";
	an[a++] = "jsonl";
	an[a++] = "-o";
	an[a++] = pn;
	an[a++] = ival;
	an[a++] = count;
	an[a] = NULL;
	pid = fork();
	if (pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (pid == 0) {
		int out = open("/dev/null", O_WRONLY);

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (out < 0 || dup2(out, 1) < 0)
			_exit(126);
		execv(an[0], an);
		_exit(127);
	}
	child_pid = pid;
	if (clock_getcpuclockid(pid, &clk))
		die(1, "clock_getcpuclockid of memstat: %s", strerror(errno));
	while (c2 < 0) {
		struct timespec pause_ts = { 0, 2000000 };	/* 2 ms */
		struct stat sb;

		if (waitpid(pid, &st, WNOHANG) == pid) {
			child_pid = 0;
			die(1, "memstat %s-o LOG %s %d ended before its samples were timed (%s %d)",
			    approx ? "--approx " : "", ival, SAMPLES,
			    WIFEXITED(st) ? "exit" : "signal",
			    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		}
		if (stat(pn, &sb) == 0 && sb.st_size != last) {
			int rows = log_rows(pn, walks, SAMPLES, NULL);
			double c = proc_cpu_ms(clk);

			last = sb.st_size;
			if (c1 < 0 && rows >= 1) {
				c1 = c;
				r1 = rows;
			} else if (c1 >= 0 && rows >= SAMPLES - 1) {
				c2 = c;
				r2 = rows;
			}
		}
		nanosleep(&pause_ts, NULL);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	child_pid = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		die(1, "memstat %s-o LOG %s %d failed (%s %d)", approx ? "--approx " : "", ival,
		    SAMPLES, WIFEXITED(st) ? "exit" : "signal",
		    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	if (c1 < 0 || c2 < 0 || r2 <= r1)
		die(1, "memstat %s-o LOG: its CPU time could not be read", approx ? "--approx " : "");
	s->cpu_ms = (c2 - c1) / (r2 - r1);
	s->interval = atof(ival);
	s->walk_ms = s->cached = 0;
	nn = log_rows(pn, walks, SAMPLES, &s->cached);
	s->nwalks = (nn < SAMPLES ? nn : SAMPLES) - 1;
	if (s->nwalks > 0)	/* the first walk has no cache yet */
		s->walk_ms = median(walks + 1, s->nwalks);
	drop_cleanup(pn);
}

/* ---- --approx against exact walks ---- */

static const char *const class_keys[] = {
	"kernel", "anon", "shmem", "exec", "page_cache", "hugetlb", "free", "unknown",
};
#define NCLASS (sizeof(class_keys) / sizeof(class_keys[0]))

static void pages_of(const char *js, double v[NCLASS], double *total)
{
	const char *end = js + strlen(js), *ps, *pe;
	size_t c;

	if (jobj(js, end, "pages", &ps, &pe))
		die(1, "memstat --json: no pages object in its output");
	for (c = 0; c < NCLASS; c++)
		if (jnum(ps, pe, class_keys[c], &v[c]))
			v[c] = 0;
	if (total && jnum(ps, pe, "total", total))
		*total = 0;
}

struct approx_err {
	double maxd[NCLASS];	/* per class: the largest |estimate - exact| over the runs */
	double bound_at[NCLASS];	/* its stated error in that run (-1: none stated) */
	double worst_bound[NCLASS];	/* the largest d - error over the runs beyond it */
	double worst_over_bound[NCLASS];
	double worst_ratio[NCLASS];	/* the largest d / error over the runs */
	double sum_bound[NCLASS];	/* the stated errors, summed over the runs */
	int out[NCLASS];	/* runs in which the class was beyond its stated error */
	double total;
	int within;		/* runs with every class within its stated error */
	int runs;
	double fraction;
	double confidence;	/* approx.confidence (0: not stated) */
	unsigned long long seed0;	/* the seed of the first run; run i uses seed0 + i */
	int have_bound;
	char bound_kind[128];	/* approx.bound, e.g. "the error at a 99% confidence level: ..." */
};

/*
 * APPROX_RUNS runs of --approx, each with its own seed, each between two exact runs; a class's
 * error is its distance from the nearest value between the two exact counts (0 when the estimate
 * lies between them), as the reconciliation does with meminfo: pages that moved between the runs
 * are not counted as error.
 */
static void approx_error(const char *memstat, struct approx_err *e)
{
	char *const ex[] = { (char *)memstat, "--json", NULL };
	char seed[32];
	char *const ap[] = { (char *)memstat, "--json", "--approx", "--seed", seed, NULL };
	double before[NCLASS], after[NCLASS], est[NCLASS];
	struct timespec ts;
	size_t c;
	int i;

	memset(e, 0, sizeof(*e));
	clock_gettime(CLOCK_REALTIME, &ts);
	e->seed0 = (unsigned long long)(ts.tv_sec % 1000000) * 1000;
	for (c = 0; c < NCLASS; c++)
		e->bound_at[c] = -1;
	{
		char *js = run_capture(ex, NULL, NULL, 1);

		pages_of(js, before, &e->total);
		free(js);
	}
	for (i = 0; i < APPROX_RUNS; i++) {
		char *ajs, *js;
		const char *aend, *as, *ae, *bs = NULL, *be = NULL, *k;
		int have_bound = 0, ok = 1;

		snprintf(seed, sizeof(seed), "%llu", e->seed0 + (unsigned long long)i);
		ajs = run_capture_ex(ap, NULL, NULL, 1, 1);
		if (!ajs)
			return;	/* e.g. --approx only for periodic sampling: runs stays 0 */
		js = run_capture(ex, NULL, NULL, 1);
		aend = ajs + strlen(ajs);
		pages_of(ajs, est, NULL);
		pages_of(js, after, NULL);
		if (jobj(ajs, aend, "approx", &as, &ae) == 0) {
			jnum(as, ae, "fraction", &e->fraction);
			if (jnum(as, ae, "confidence", &e->confidence))
				e->confidence = 0;
			have_bound = jobj(as, ae, "error_pages", &bs, &be) == 0;
			k = jfind(as, ae, "bound");
			if (k && *k == '"') {
				const char *q = memchr(k + 1, '"', (size_t)(ae - k - 1));

				if (q)
					snprintf(e->bound_kind, sizeof(e->bound_kind), "%.*s",
						 (int)(q - k - 1), k + 1);
			}
		}
		e->have_bound = have_bound;
		for (c = 0; c < NCLASS; c++) {
			double lo = before[c] < after[c] ? before[c] : after[c];
			double hi = before[c] < after[c] ? after[c] : before[c];
			double d = est[c] < lo ? lo - est[c] : est[c] > hi ? est[c] - hi : 0, bound = -1;

			if (have_bound && jnum(bs, be, class_keys[c], &bound))
				bound = -1;
			if (bound >= 0 && d > bound) {
				ok = 0;
				if (!e->out[c]++ || d - bound > e->worst_over_bound[c] - e->worst_bound[c]) {
					e->worst_over_bound[c] = d;
					e->worst_bound[c] = bound;
				}
			}
			if (bound > 0 && d / bound > e->worst_ratio[c])
				e->worst_ratio[c] = d / bound;
			if (bound >= 0)
				e->sum_bound[c] += bound;
			if (d > e->maxd[c] || i == 0) {
				e->maxd[c] = d;
				e->bound_at[c] = bound;
			}
		}
		e->within += have_bound && ok;
		e->runs++;
		memcpy(before, after, sizeof(before));
		free(ajs);
		free(js);
	}
}

/* P(X >= k) for X ~ Binomial(n, p) */
static double binom_tail(int n, double p, int k)
{
	double term = pow(1 - p, n), sum = 0;
	int j;

	for (j = 0; j <= n; j++) {
		if (j >= k)
			sum += term;
		term *= (double)(n - j) / (double)(j + 1) * p / (1 - p);
	}
	return sum;
}

/*
 * Each class's misses are consistent with its confidence level when as many or more would
 * happen in at least 5% of benches at exactly that level (100 runs at 99%: up to 3 misses).
 */
static int approx_consistent(const struct approx_err *e)
{
	size_t c;

	if (!e->runs || !e->have_bound || e->confidence <= 0)
		return 0;
	for (c = 0; c < NCLASS; c++)
		if (e->out[c] && binom_tail(e->runs, 1 - e->confidence, e->out[c]) < 0.05)
			return 0;
	return 1;
}

static void print_approx_error(const struct approx_err *e)
{
	size_t c, w = 0;

	if (!e->runs) {
		printf("%-44s %10s memstat --json --approx failed: not measured\n",
		       "--approx error against exact walks", "-");
		return;
	}
	for (c = 1; c < NCLASS; c++)
		if (e->maxd[c] > e->maxd[w])
			w = c;
	printf("%-44s %10.0f pages (%.3f%% of the total) at worst, in %s",
	       "--approx error against exact walks", e->maxd[w],
	       e->total > 0 ? e->maxd[w] * 100 / e->total : 0, class_keys[w]);
	if (!e->have_bound) {
		printf("; this memstat states no error (no approx.error_pages)\n");
		return;
	}
	printf(" (stated error %.0f); every class within its stated error in %d of %d runs\n",
	       e->bound_at[w], e->within, e->runs);
	printf("  %d runs of memstat --json --approx --seed S (S = %llu + run, fraction %.4g), each "
	       "between two exact walks;\n  stated error: %s%s\n", e->runs, e->seed0, e->fraction,
	       e->bound_kind[0] ? e->bound_kind : "?",
	       e->confidence > 0 ? "" : " (no approx.confidence: no level stated)");
	printf("  %-12s %8s %14s %12s %16s\n", "class", "within", "stated (mean)", "largest off",
	       "worst off/stated");
	for (c = 0; c < NCLASS; c++) {
		if (!strcmp(class_keys[c], "unknown"))
			continue;	/* the bpf walker never gives it: exact 0 */
		printf("  %-12s %4d/%-3d %14.0f %12.0f %16.2f%s\n", class_keys[c], e->runs - e->out[c],
		       e->runs, e->sum_bound[c] / e->runs, e->maxd[c], e->worst_ratio[c],
		       e->out[c] ? "  beyond its stated error" : "");
	}
	if (e->confidence > 0)
		printf("  every class's misses consistent with %.0f%% confidence (at most as many as "
		       "a %.0f%% error gives in 95%% of benches of %d runs): %s\n",
		       100 * e->confidence, 100 * e->confidence, e->runs,
		       approx_consistent(e) ? "yes" : "NO");
}

/* ---- busy mode: a known load, sized from MemTotal ---- */

struct busy {
	double anon4k_mb, thp_mb, cache_mb;	/* set up */
	double scaled;				/* < 1: cut to fit MemAvailable */
	double thp_meminfo_mb;			/* AnonHugePages after - before */
	double thp_holder_mb;			/* the holder's own AnonHugePages (smaps_rollup) */
	double cache_resident_mb;		/* the file's pages in the page cache (mincore) */
	double setup_s, anon_s, file_s;
	char thp_mode[32];
	int thp_off;
	char fstype[32];
	char dir[PATH_MAX];
};

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#define RAMFS_MAGIC_ 0x858458f6

/* the holder: order-0 anon and THP anon, touched page by page, held until killed */
static void __attribute__((noreturn)) holder(size_t anon4k, size_t thp, int ready_fd, pid_t parent)
{
	const size_t huge = 2 << 20;
	size_t i;
	char *a, *t;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "bench-busy-load");
	if (getppid() != parent)
		_exit(1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	/* if memory runs short while it is held, the load goes first, not someone's tests */
	fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd >= 0) {
		ssize_t w = write(fd, "1000", 4);

		(void)w;
		close(fd);
	}
	a = mmap(NULL, anon4k ? anon4k : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	t = mmap(NULL, thp + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED || t == MAP_FAILED)
		_exit(2);
	t = (char *)(((unsigned long)t + huge - 1) & ~(huge - 1));
	madvise(a, anon4k, MADV_NOHUGEPAGE);
	madvise(t, thp, MADV_HUGEPAGE);
	/* every page written with its own value: nothing for KSM or the zero page to share */
	for (i = 0; i < anon4k; i += 4096)
		*(volatile size_t *)(a + i) = i + 1;
	for (i = 0; i < thp; i += 4096)
		*(volatile size_t *)(t + i) = i + 1;
	if (write(ready_fd, "r", 1) != 1)
		_exit(3);
	close(ready_fd);
	for (;;)
		pause();
}

static double holder_thp_mb(pid_t pid)
{
	char path[64], line[256];
	double kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "AnonHugePages:", 14))
			kb = strtod(line + 14, NULL);
	fclose(f);
	return kb < 0 ? -1 : kb / 1024;
}

/* the page-cache file: written, made durable, read back; its resident MB (mincore) */
static double make_cache_file(const char *dir, size_t bytes)
{
	static char buf[1 << 20];
	char path[PATH_MAX];
	size_t done, i;
	double resident = 0;
	unsigned char *vec;
	void *m;
	int fd;

	if (snprintf(path, sizeof(path), "%s/memstat-bench-cache-XXXXXX", dir) >= (int)sizeof(path))
		die(2, "--busy-dir %s: path too long", dir);
	fd = mkstemp(path);	/* O_EXCL: never an existing file */
	if (fd < 0)
		die(1, "cannot create the page-cache file in %s: %s", dir, strerror(errno));
	add_cleanup(path);
	memset(buf, 0xa5, sizeof(buf));
	for (done = 0; done < bytes; done += sizeof(buf)) {
		size_t n = bytes - done < sizeof(buf) ? bytes - done : sizeof(buf), off = 0;

		for (i = 0; i < n; i += 4096)
			*(size_t *)(buf + i) = done + i + 1;
		while (off < n) {
			ssize_t w = write(fd, buf + off, n - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				die(1, "writing the page-cache file %s: %s", path,
				    w < 0 ? strerror(errno) : "short write");
			off += (size_t)w;
		}
	}
	if (fsync(fd))
		die(1, "fsync of the page-cache file %s: %s", path, strerror(errno));
	/* read back: clean page cache, as a file that was read */
	for (done = 0; done < bytes;) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die(1, "reading back the page-cache file %s: %s", path,
			    n < 0 ? strerror(errno) : "short read");
		done += (size_t)n;
	}
	m = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(bytes / 4096 + 1);
	if (m != MAP_FAILED && vec && mincore(m, bytes, vec) == 0) {
		for (i = 0; i < (bytes + 4095) / 4096; i++)
			resident += vec[i] & 1;
		resident = resident * 4096 / MiB;
	} else {
		resident = -1;
	}
	free(vec);
	if (m != MAP_FAILED)
		munmap(m, bytes);
	close(fd);
	return resident;
}

/* the page-cache file's directory: on a real file system (bad usage otherwise) */
static void busy_dir_check(const char *dir, char *fstype, size_t len)
{
	struct statfs sfs;

	if (statfs(dir, &sfs))
		die(2, "--busy-dir %s: %s", dir, strerror(errno));
	if (sfs.f_type == TMPFS_MAGIC || (unsigned long)sfs.f_type == RAMFS_MAGIC_)
		die(2, "--busy-dir %s is on tmpfs/ramfs: the page-cache load needs a file on a real "
		    "file system (--busy-dir DIR, or make bench BUSY=1 BUSY_DIR=DIR)", dir);
	snprintf(fstype, len, "%s",
		 sfs.f_type == 0xEF53 ? "ext4" : sfs.f_type == 0x58465342 ? "xfs" :
		 sfs.f_type == 0x9123683E ? "btrfs" : sfs.f_type == 0x794c7630 ? "overlayfs" :
		 "another file system");
}

/* one busy bench at a time on a machine: a lock held until exit */
static void busy_lock(void)
{
	const char *path = access("/run/lock", W_OK) == 0 ? "/run/lock/memstat-bench-busy.lock" :
			   "/tmp/memstat-bench-busy.lock";
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0)
		die(1, "busy: %s: %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB))
		die(1, "busy: another busy bench holds %s: one at a time (each takes 60%% of memory)",
		    path);
	/* fd stays open, and the lock with it, until the bench exits */
}

static void busy_setup(const char *dir, struct busy *b)
{
	long long total_kb = meminfo_kb("MemTotal"), avail_kb = meminfo_kb("MemAvailable");
	long long thp0_kb = meminfo_kb("AnonHugePages");
	double total = (double)total_kb * 1024, avail = (double)avail_kb * 1024, margin, want, budget;
	double t0 = ms_now_ms();
	size_t anon4k, thp, cache;
	struct statvfs svfs;
	int pfd[2];
	char r, pmd[32];
	pid_t pid;

	memset(b, 0, sizeof(*b));
	snprintf(b->dir, sizeof(b->dir), "%s", dir);
	if (total_kb <= 0 || avail_kb <= 0)
		die(1, "no MemTotal or MemAvailable in /proc/meminfo");
	busy_dir_check(dir, b->fstype, sizeof(b->fstype));
	if (statvfs(dir, &svfs))
		die(2, "--busy-dir %s: %s", dir, strerror(errno));

	/* 25% order-0 anon + 25% THP anon + 10% page cache of MemTotal, within MemAvailable */
	margin = total / 8 > 2 * GiB ? total / 8 : 2 * GiB;
	want = total * 0.60;
	budget = avail - margin;
	if (budget < 256 * MiB)
		die(1, "busy: MemAvailable %.0f MB leaves no room for a load beside a margin of %.0f MB",
		    avail / MiB, margin / MiB);
	b->scaled = want > budget ? budget / want : 1;
	anon4k = (size_t)(total * 0.25 * b->scaled) & ~(size_t)((2 << 20) - 1);
	thp = anon4k;
	cache = (size_t)(total * 0.10 * b->scaled) & ~(size_t)((1 << 20) - 1);
	if ((double)svfs.f_bavail * svfs.f_frsize < (double)cache + GiB)
		die(1, "busy: %s has %.0f MB free; the page-cache file needs %.0f MB and 1 GiB spare "
		    "(--busy-dir DIR picks another file system)", dir,
		    (double)svfs.f_bavail * svfs.f_frsize / MiB, cache / MiB);

	sysfs_choice("/sys/kernel/mm/transparent_hugepage/enabled", b->thp_mode, sizeof(b->thp_mode));
	sysfs_choice("/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled", pmd, sizeof(pmd));
	b->thp_off = !b->thp_mode[0] || !strcmp(b->thp_mode, "never") || !strcmp(pmd, "never");
	if (!b->thp_mode[0])
		snprintf(b->thp_mode, sizeof(b->thp_mode), "absent");

	if (pipe2(pfd, O_CLOEXEC))
		die(1, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(pfd[0]);
		holder(anon4k, thp, pfd[1], getppid());
	}
	holder_pid = pid;
	close(pfd[1]);
	if (read(pfd[0], &r, 1) != 1) {
		int st = 0;

		waitpid(pid, &st, 0);
		holder_pid = 0;
		die(1, "busy: the process holding %.0f MB of anon memory ended (%s %d) before it was "
		    "set up", (anon4k + thp) / MiB, WIFSIGNALED(st) ? "signal" : "exit",
		    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
	close(pfd[0]);
	b->anon_s = (ms_now_ms() - t0) / 1000;
	b->cache_resident_mb = make_cache_file(dir, cache);
	b->file_s = (ms_now_ms() - t0) / 1000 - b->anon_s;
	b->anon4k_mb = anon4k / MiB;
	b->thp_mb = thp / MiB;
	b->cache_mb = cache / MiB;
	b->thp_meminfo_mb = (double)(meminfo_kb("AnonHugePages") - thp0_kb) / 1024;
	b->thp_holder_mb = holder_thp_mb(pid);
	b->setup_s = (ms_now_ms() - t0) / 1000;
}

/* still held? (the OOM killer may have taken the holder) */
static void busy_check(void)
{
	int st;

	if (holder_pid > 0 && waitpid(holder_pid, &st, WNOHANG) == holder_pid) {
		holder_pid = 0;
		die(1, "busy: the process holding the load ended during the measurement (%s %d): "
		    "these numbers are not of a busy machine", WIFSIGNALED(st) ? "signal" : "exit",
		    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
}

/* ---- targets by machine ---- */

struct targets {
	const char *name;
	double oneshot_ms;	/* one-shot whole process, median: <= */
	double walk_ns;		/* walk ns/page at the default jobs: <= */
	double speedup;		/* walk over a plain kpageflags read: >= (0: none) */
	double sample_pct;	/* periodic sample, % of one CPU at 1 Hz: <= (0: none) */
	double allpages_x;	/* page-types -L style dump time over allpages time: >= (0: none) */
	double outside_ms;	/* one-shot process minus its walk, median: <= (0: none) */
	int jobs_check;		/* the default jobs at least as fast as --jobs 1 and --jobs 2 */
};

static const struct targets small_set = { "2-core 24 GiB", 50, 2.5, 20, 0, 0, 25, 1 };
static const struct targets large_set = { "16-core 128 GiB", 120, 1.5, 0, 5, 4, 0, 0 };

/* median whole-process time of RUNS one-shot runs of memstat [extra...] (stdout discarded) */
static double oneshot_ms(const char *memstat, const char *e1, const char *e2)
{
	char *const a[] = { (char *)memstat, (char *)e1, (char *)e2, NULL };
	double t[RUNS];
	int i;

	for (i = 0; i < RUNS; i++)
		run_capture(a, &t[i], NULL, 0);
	return median(t, RUNS);
}

static int met_n, missed_n;

static const char *verdict(int ok)
{
	ok ? met_n++ : missed_n++;
	return ok ? "met" : "MISSED";
}

static void usage(FILE *f)
{
	fputs("Usage: bench [--busy] [--busy-dir DIR] [--approx-only] [--no-sweep] [MEMSTAT]\n"
	      "Measure memstat (default build/memstat) on this machine; run as root.\n"
	      "  --busy          first set up a load sized from MemTotal (25% order-0 anon, 25% THP\n"
	      "                  anon, 10% page cache), held while measuring, undone at exit\n"
	      "  --busy-dir DIR  where the page-cache file goes (default /var/tmp; not tmpfs)\n"
	      "  --approx-only   only --approx's error against exact walks (100 runs)\n"
	      "  --no-sweep      no one-shot runs without the CO-RE cache or by --jobs\n"
	      "Exit codes: 0 measured, 1 a measurement or the load failed, 2 bad usage.\n", f);
}

int main(int argc, char **argv)
{
	double run[RUNS], kpf[KPF_READS], rmed, rmax = 0, allp, kdump, kn, wn, w1n = 0, jobs_used = 1;
	double nocache_ms = 0, jobs_ms[3] = { 0, 0, 0 };
	const char *memstat = "build/memstat", *busy_dir = "/var/tmp";
	struct jwalk wdef, w1, wk, wkpf, wcpu = { .walk_ms = 0 };
	char ncpu_s[16];
	struct sampling sx, sa;
	struct approx_err ae;
	const struct targets *t;
	struct busy b;
	struct ms_ranges r;
	struct sigaction sa_sig;
	int i, busy = 0, approx_only = 0, sweep = 1, have_jobs, have_approx, have_kmod, ncpu;
	double memtotal;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--busy")) {
			busy = 1;
		} else if (!strcmp(argv[i], "--approx-only")) {
			approx_only = 1;
		} else if (!strcmp(argv[i], "--no-sweep")) {
			sweep = 0;
		} else if (!strcmp(argv[i], "--busy-dir") && i + 1 < argc && argv[i + 1][0]) {
			busy_dir = argv[++i];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-' || i != argc - 1) {
			fprintf(stderr, "bench: bad argument '%s' (bench --help)\n", argv[i]);
			return 2;
		} else {
			memstat = argv[i];
		}
	}
	if (access(memstat, X_OK))
		die(2, "%s: %s", memstat, strerror(errno));
	if (busy) {
		char fstype[32];

		busy_dir_check(busy_dir, fstype, sizeof(fstype));
		busy_lock();
	}
	atexit(cleanup);
	memset(&sa_sig, 0, sizeof(sa_sig));
	sa_sig.sa_handler = on_signal;
	sigaction(SIGINT, &sa_sig, NULL);
	sigaction(SIGTERM, &sa_sig, NULL);
	sigaction(SIGHUP, &sa_sig, NULL);

	if (ms_ranges_from_iomem("/proc/iomem", &r))
		die(1, "cannot read /proc/iomem (run as root)");
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	memtotal = (double)meminfo_kb("MemTotal") * 1024;
	t = ncpu >= 16 && memtotal >= 120 * GiB ? &large_set : &small_set;
	have_jobs = has_option(memstat, "--jobs");
	have_approx = has_option(memstat, "--approx");
	have_kmod = access(MS_KMOD_DEVICE, F_OK) == 0;

	printf("memstat bench: %llu present pages (%.1f GiB) in %zu ranges; %d online CPUs, "
	       "MemTotal %.1f GiB\n", (unsigned long long)r.pages,
	       (double)r.pages * 4096 / GiB, r.n, ncpu, memtotal / GiB);
	printf("targets: the %s set (chosen by online CPUs and MemTotal: the 16-core 128 GiB set "
	       "from 16 CPUs and 120 GiB)%s\n", t->name,
	       t == &small_set && (ncpu != 2 || memtotal < 20 * GiB || memtotal > 28 * GiB) ?
	       "; this machine is neither, the nearer set is shown" : "");
	fflush(stdout);
	if (busy) {
		busy_setup(busy_dir, &b);
		printf("busy load (set up in %.1f s: anon %.1f s, file %.1f s; held by pid %d until "
		       "the bench ends):%s\n", b.setup_s, b.anon_s, b.file_s, (int)holder_pid,
		       b.scaled < 1 ?
		       " cut to fit MemAvailable less a margin of max(2 GiB, MemTotal/8)" : "");
		printf("  %-42s %8.0f MB  (MADV_NOHUGEPAGE)\n", "order-0 anon", b.anon4k_mb);
		printf("  %-42s %8.0f MB  (MADV_HUGEPAGE; THP enabled: %s)\n", "THP anon asked",
		       b.thp_mb, b.thp_mode);
		if (b.thp_off)
			printf("  %-42s THP is disabled on this machine: that share is order-0 anon too\n",
			       "");
		printf("  %-42s %8.0f MB  (AnonHugePages in /proc/meminfo grew by that; the holder's "
		       "own: %.0f MB)\n", "of it THP", b.thp_meminfo_mb, b.thp_holder_mb);
		printf("  %-42s %8.0f MB  (a file in %s, %s: written, fsynced, read back; %.0f MB "
		       "resident)\n", "page cache", b.cache_mb, b.dir, b.fstype, b.cache_resident_mb);
		fflush(stdout);
	}

	if (approx_only) {	/* --approx's coverage against exact walks, and nothing else */
		if (!have_approx)
			die(1, "%s has no --approx", memstat);
		approx_error(memstat, &ae);
		print_approx_error(&ae);
		ms_ranges_free(&r);
		return ae.runs ? 0 : 1;
	}
	/* the walks, through the binary */
	if (have_jobs)
		json_walks(memstat, "--jobs", "1", WALKS, &w1);
	json_walks(memstat, NULL, NULL, WALKS, &wdef);
	if (wdef.jobs > 0)
		jobs_used = wdef.jobs;
	/* the default may use fewer workers than CPUs: the walk with one per CPU too */
	if (have_jobs && ncpu > 1 && (int)jobs_used != ncpu) {
		snprintf(ncpu_s, sizeof(ncpu_s), "%d", ncpu);
		json_walks(memstat, "--jobs", ncpu_s, WALKS, &wcpu);
	}
	if (have_kmod)
		json_walks(memstat, "-b", "kmod", WALKS, &wk);
	for (i = 0; i < KPF_READS; i++)
		kpf[i] = kpf_read_ms(&r);
	json_walks(memstat, "-b", "kpageflags", KPF_READS, &wkpf);
	for (i = 0; i < RUNS; i++) {
		char *const a[] = { (char *)memstat, NULL };

		run_capture(a, &run[i], NULL, 0);
		if (run[i] > rmax)
			rmax = run[i];
	}
	/* start-up: without the CO-RE types cache, and by jobs (the default's choice checked) */
	if (sweep) {
		setenv("MEMSTAT_NO_CACHE", "1", 1);
		nocache_ms = oneshot_ms(memstat, NULL, NULL);
		unsetenv("MEMSTAT_NO_CACHE");
	}
	if (sweep && have_jobs) {
		jobs_ms[0] = oneshot_ms(memstat, "--jobs", "1");
		jobs_ms[1] = oneshot_ms(memstat, "--jobs", "2");
		snprintf(ncpu_s, sizeof(ncpu_s), "%d", ncpu);
		jobs_ms[2] = ncpu > 2 ? oneshot_ms(memstat, "--jobs", ncpu_s) : 0;
	}
	sample_cost(memstat, NULL, wdef.walk_ms, &sx);
	if (have_approx) {
		sample_cost(memstat, "--approx", wdef.walk_ms, &sa);
		approx_error(memstat, &ae);
	}
	{
		char *const ap[] = { (char *)memstat, "allpages", "--format", "csv", NULL };

		run_capture(ap, &allp, NULL, 0);	/* stdout on /dev/null, as the dump */
	}
	kdump = kpf_dump_ms(&r);
	busy_check();

	wn = wdef.walk_ms * 1e6 / (double)r.pages;
	if (have_jobs)
		w1n = w1.walk_ms * 1e6 / (double)r.pages;
	kn = median(kpf, KPF_READS) * 1e6 / (double)r.pages;
	rmed = median(run, RUNS);

	/* the matrix (tools/vm/matrix.sh) reads the "bpf walk, every page read" line */
	if (have_jobs)
		printf("%-44s %10.2f ns/page  (%.1f ms, median of %d memstat --json --jobs 1)\n",
		       "bpf walk, one worker (--jobs 1)", w1n, w1.walk_ms, WALKS);
	printf("%-44s %10.2f ns/page  (%.1f ms, median of %d memstat --json; ",
	       "bpf walk, every page read", wn, wdef.walk_ms, WALKS);
	if (!have_jobs)
		printf("no --jobs in this memstat: one worker)");
	else if (wdef.jobs > 0)
		printf("default jobs: %.0f)", wdef.jobs);
	else
		printf("default jobs: no jobs in its JSON)");
	printf("; target <= %.1f: %s\n", t->walk_ns, verdict(wn <= t->walk_ns));
	if (have_jobs && wdef.jobs > 1)
		printf("%-44s %10.2f x         (%.0f workers)\n", "parallel speed-up over --jobs 1",
		       w1.walk_ms / wdef.walk_ms, jobs_used);
	if (wcpu.walk_ms > 0) {
		char label[64];

		snprintf(label, sizeof(label), "bpf walk, one worker per CPU (--jobs %d)", ncpu);
		printf("%-44s %10.2f ns/page  (%.1f ms, median of %d; %.2fx the speed of --jobs 1)\n",
		       label, wcpu.walk_ms * 1e6 / (double)r.pages, wcpu.walk_ms, WALKS,
		       w1.walk_ms / wcpu.walk_ms);
	}
	if (have_kmod)
		printf("%-44s %10.2f ns/page  (%.1f ms, median of %d memstat --json -b kmod)\n",
		       "kernel module walk (/dev/memstat)", wk.walk_ms * 1e6 / (double)r.pages,
		       wk.walk_ms, WALKS);
	if (sx.walk_ms > 0)
		printf("%-44s %10.2f ns/page  (%.1f ms, median of %d samples; %.0f pages still "
		       "uninitialised taken from the previous walk)\n",
		       "bpf walk, repeated (periodic mode)", sx.walk_ms * 1e6 / (double)r.pages,
		       sx.walk_ms, sx.nwalks, sx.cached);
	printf("%-44s %10.2f ns/page  (%.1f ms, median of %d)\n", "/proc/kpageflags read, same ranges",
	       kn, median(kpf, KPF_READS), KPF_READS);
	printf("%-44s %10.2f ns/page  (%.1f ms, median of %d memstat --json -b kpageflags)\n",
	       "/proc/kpageflags read + classify (fallback)", wkpf.walk_ms * 1e6 / (double)r.pages,
	       wkpf.walk_ms, KPF_READS);
	printf("%-44s %10.1f x", "walk speed-up over kpageflags read", kn / wn);
	if (t->speedup > 0)
		printf("         target >= %.0fx: %s", t->speedup, verdict(kn / wn >= t->speedup));
	printf("\n");
	printf("%-44s %10.1f ms median, %.1f ms worst of %d; target <= %.0f ms: %s\n",
	       "memstat one-shot, process start to exit", rmed, rmax, RUNS, t->oneshot_ms,
	       verdict(rmed <= t->oneshot_ms));
	if (sweep)
		printf("%-44s %10.1f ms median (MEMSTAT_NO_CACHE=1: libbpf searches the kernel's "
		       "whole BTF)\n", "memstat one-shot, without the CO-RE cache", nocache_ms);
	printf("%-44s %10.1f ms median (process %.1f less walk %.1f)",
	       "memstat one-shot, all but the walk", rmed - wdef.walk_ms, rmed, wdef.walk_ms);
	if (t->outside_ms > 0)
		printf("; target <= %.0f ms: %s", t->outside_ms,
		       verdict(rmed - wdef.walk_ms <= t->outside_ms));
	printf("\n");
	if (sweep && have_jobs) {
		printf("%-44s %10.1f ms --jobs 1, %.1f --jobs 2", "memstat one-shot by jobs",
		       jobs_ms[0], jobs_ms[1]);
		if (jobs_ms[2] > 0)
			printf(", %.1f --jobs %d", jobs_ms[2], ncpu);
		printf(", %.1f default (%.0f jobs; medians of %d)", rmed, jobs_used, RUNS);
		/* against the others only: the default's own jobs would be noise against itself */
		if (t->jobs_check)
			printf("; target: the default as fast as --jobs 1 and 2 (the one it is "
			       "not): %s", verdict((jobs_used == 1 || rmed <= jobs_ms[0]) &&
						   (jobs_used == 2 || rmed <= jobs_ms[1])));
		printf("\n");
	}
	printf("%-44s %10.1f ms elapsed in the process, walk %.1f ms (medians of %d)",
	       "memstat --json one-shot, split", wdef.elapsed_ms, wdef.walk_ms, WALKS);
	if (wdef.ntim) {
		printf(":");
		for (i = 0; i < wdef.ntim; i++)
			printf(" %s %.1f", wdef.tname[i], wdef.tms[i]);
		printf(" (timings, ms)");
	} else {
		printf("; no timings in this memstat's JSON");
	}
	printf("\n");
	printf("%-44s %10.1f ms (each of those runs' process start to exit less its elapsed_ms: "
	       "exec, the C library's start-up, exit)\n", "memstat one-shot, outside its own clock",
	       wdef.outside_ms);
	{
		double pct = sx.cpu_ms / 10, apct = have_approx ? sa.cpu_ms / 10 : 0;
		int approx_ok = have_approx && approx_consistent(&ae);

		printf("%-44s %10.2f ms CPU per sample = %.2f%% of one CPU at a 1 s interval "
		       "(sampled every %.2f s)", "periodic sampling, exact", sx.cpu_ms, pct,
		       sx.interval);
		if (t->sample_pct > 0)
			printf("; target <= %.0f%% (exact, or --approx with each class within its "
			       "stated error as often as its confidence level says): %s",
			       t->sample_pct, verdict(pct <= t->sample_pct ||
						     (approx_ok && apct <= t->sample_pct)));
		printf("\n");
		if (have_approx) {
			printf("%-44s %10.2f ms CPU per sample = %.2f%% of one CPU at a 1 s interval "
			       "(fraction %.4g)\n", "periodic sampling, --approx", sa.cpu_ms, apct,
			       ae.fraction);
			print_approx_error(&ae);
		} else {
			printf("%-44s %10s this memstat has no --approx\n", "periodic sampling, --approx",
			       "-");
		}
	}
	printf("%-44s %10.0f ms for %llu pages (%.0f ns/page)\n", "allpages --format csv > /dev/null",
	       allp, (unsigned long long)r.pages, allp * 1e6 / (double)r.pages);
	printf("%-44s %10.0f ms (%.0f ns/page), %.1fx the time of allpages",
	       "page-types -L style kpageflags dump", kdump, kdump * 1e6 / (double)r.pages,
	       kdump / allp);
	if (t->allpages_x > 0)
		printf("; target >= %.0fx: %s", t->allpages_x, verdict(kdump / allp >= t->allpages_x));
	printf("\n");

	/*
	 * 1 TB and 4 TB: at the jobs used here, from the walk measured here; at 16 and 64 workers,
	 * from one worker's per-page cost (--jobs 1), assumed to scale linearly with the workers
	 */
	{
		static const double tb_pages[2] = { 268435456.0, 1073741824.0 };	/* 4 KiB pages */
		static const char *const tb_name[2] = { "1 TB", "4 TB" };
		double one = have_jobs && jobs_used > 1 ? w1n : wn;	/* ns per page, one worker */
		int k;

		for (k = 0; k < 2; k++) {
			char label[64];

			snprintf(label, sizeof(label), "walk extrapolated to %s (%.0f pages)",
				 tb_name[k], tb_pages[k]);
			printf("%-44s %10.2f s at %.0f worker%s (as here), %.2f s at 16, %.2f s at 64",
			       label, tb_pages[k] * wn / 1e9, jobs_used, jobs_used == 1 ? "" : "s",
			       tb_pages[k] * one / 16 / 1e9, tb_pages[k] * one / 64 / 1e9);
			if (k == 1)
				printf("; Solaris ::memstat: 70.5 s published for 4 TB");
			printf("\n");
		}
		printf("  (assumed: the per-page cost measured here%s stays constant: %.2f ns at %.0f "
		       "worker%s, %.2f ns for one worker, and N workers take 1/N of one worker's time, "
		       "up to the cores)\n", busy ? " under the busy load" : " on this idle machine",
		       wn, jobs_used, jobs_used == 1 ? "" : "s", one);
	}
	/* --wss: what a window costs besides its wait: the agings, the record walks, start-up */
	if (has_option(memstat, "--wss")) {
		char *const args[] = { (char *)memstat, "--wss", "1", "--json", NULL };
		double wall = 0, cpu = 0, aging[2] = { 0, 0 };
		char *js = run_capture_ex(args, &wall, &cpu, 1, 1);
		const char *ws = NULL, *we = NULL, *a;

		if (js && !jobj(js, js + strlen(js), "wss", &ws, &we) &&
		    (a = jfind(ws, we, "aging_ms")) && *a == '[') {
			char *e;

			aging[0] = strtod(a + 1, &e);
			aging[1] = *e == ',' ? strtod(e + 1, NULL) : 0;
			printf("%-44s %10.0f ms wall beyond its 1 s wait, %.0f ms CPU; of which the two "
			       "agings %.1f and %.1f ms\n", "working-set window (--wss 1)",
			       wall - 1000.0, cpu, aging[0], aging[1]);
		} else {
			printf("%-44s %10s not measured: memstat --wss 1 failed here (exit 5 where "
			       "nothing can see page accesses: memstat --wss 1 names what is missing)\n",
			       "working-set window (--wss 1)", "-");
		}
		free(js);
	}
	printf("targets of the %s set: %d met, %d MISSED\n", t->name, met_n, missed_n);
	ms_ranges_free(&r);
	return 0;
}
