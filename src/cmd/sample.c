// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Periodic sampling: `memstat [interval [count]]`, to the terminal or a log file.
 *
 * Files are never truncated or written through a symlink. A sample reaches a file in one
 * write(2) of whole lines, so a crash loses at most the last line, never tears one. The
 * Prometheus file is written to a temporary file in the same directory and renamed over the
 * target (outfile.c), so a scraper never sees half a file. "-o -", /dev/stdout and /dev/fd/N
 * write to that descriptor, so a log can be piped. Samples keep a fixed cadence (deadlines are
 * start + k * interval on CLOCK_MONOTONIC); a walk longer than the interval is reported and the
 * missed ticks are skipped, not stacked. SIGINT/SIGTERM finish the sample in progress and exit
 * 0; SIGHUP reopens the log (logrotate).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "memstat_int.h"
#include "backend.h"
#include "approx.h"
#include "groups.h"
#include "procs_out.h"
#include "report.h"
#include "meminfo.h"
#include "sample.h"
#include "output.h"
#include "attrs.h"
#include "outfile.h"
#include "serve.h"
#include "wss.h"

static volatile sig_atomic_t stop_requested, reopen_requested;
static sigset_t loop_unblocked;	/* the mask outside ms_sample_loop()'s blocking */

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void on_hup(int sig)
{
	(void)sig;
	reopen_requested = 1;
}

bool ms_stop_requested(void)
{
	return stop_requested;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The first line of an existing CSV log, to compare with our header. */
static int first_line(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);
	char *nl;

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		nl[1] = '\0';
	return 0;
}

static char *csv_header_string(bool approx, bool attrs, bool wss)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);

	if (!m)
		return NULL;
	ms_csv_header_mode(m, approx, attrs, wss);
	fclose(m);
	return s;
}

/*
 * A log memstat appends to or replaces must be a regular file with one name, owned by this
 * user: a hard link or another user's file (e.g. -o /etc/passwd) is someone else's data.
 */
static int check_owned_file(const struct stat *st, const char *path, const char *verb,
			    char *why, size_t whylen)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "refusing to %s %s: not a regular file", verb, path);
		return MS_EXIT_USAGE;
	}
	if (st->st_nlink > 1) {
		snprintf(why, whylen, "refusing to %s %s: it has %lu hard links (write to a file "
			 "of its own)", verb, path, (unsigned long)st->st_nlink);
		return MS_EXIT_USAGE;
	}
	if (st->st_uid != geteuid()) {
		snprintf(why, whylen, "refusing to %s %s: it belongs to uid %u, not to this user "
			 "(uid %u)", verb, path, (unsigned)st->st_uid, (unsigned)geteuid());
		return MS_EXIT_USAGE;
	}
	return MS_EXIT_OK;
}

/*
 * The format_version of a memstat JSON-lines sample ({"format_version":N,"timestamp":...),
 * or -1 when the line is not one.
 */
static long jsonl_version(const char *line)
{
	static const char pre[] = "{\"format_version\":";
	const char *p = line + sizeof(pre) - 1;
	char *end;
	long v;

	if (strncmp(line, pre, sizeof(pre) - 1) || *p < '0' || *p > '9')
		return -1;
	v = strtol(p, &end, 10);
	if (strncmp(end, ",\"timestamp\":\"", 14))
		return -1;
	return v;
}

/*
 * --rotate-incompatible: rename the log at s->path, open as fd, to FILE.<UTC time> (FILE.<UTC
 * time>.N when that exists), never over an existing file (RENAME_NOREPLACE), and make sure the
 * file renamed is the one that was checked. Says so on stderr in one line.
 */
static int rotate_aside(struct ms_sink *s, int fd, const char *what, char *why, size_t whylen)
{
	char name[4096], stamp[32];
	struct stat mine, moved;
	struct tm tm;
	time_t now = time(NULL);
	int n, err = 0;

	if (fstat(fd, &mine)) {
		snprintf(why, whylen, "failed to stat %s: %s", s->path, strerror(errno));
		return MS_EXIT_FAIL;
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (n = 0; n < 1000; n++) {
		int len = n ? snprintf(name, sizeof(name), "%s.%s.%d", s->path, stamp, n) :
			      snprintf(name, sizeof(name), "%s.%s", s->path, stamp);

		if (len >= (int)sizeof(name)) {
			snprintf(why, whylen, "output path too long");
			return MS_EXIT_USAGE;
		}
		if (renameat2(AT_FDCWD, s->path, AT_FDCWD, name, RENAME_NOREPLACE) == 0)
			break;
		err = errno;
		if (err != EEXIST)
			break;
	}
	if (n == 1000 || (err && err != EEXIST)) {
		snprintf(why, whylen, "failed to rename %s aside: %s", s->path,
			 n == 1000 ? "too many files of that name" : strerror(err));
		return ms_out_errno_exit(err);
	}
	/* the path could have been replaced since it was opened: put back what is not ours */
	if (lstat(name, &moved) || moved.st_dev != mine.st_dev || moved.st_ino != mine.st_ino) {
		renameat2(AT_FDCWD, name, AT_FDCWD, s->path, RENAME_NOREPLACE);
		snprintf(why, whylen, "refusing to rotate %s: it changed while memstat opened it",
			 s->path);
		return MS_EXIT_USAGE;
	}
	ms_err("%s %s (another memstat version): renamed it to %s; starting a new log", s->path,
	       what, name);
	return MS_EXIT_OK;
}

/*
 * Open (or create) the log for appending; CSV: write the header unless the file has it.
 * Returns an MS_EXIT_* code: 2 for a file that cannot be used, 1 when reading or writing it
 * failed. A file this call created is removed again when its header cannot be written.
 */
static int open_append(struct ms_sink *s, char *why, size_t whylen)
{
	/* read and write: the header is checked through the descriptor samples go to (a second
	 * open of the path could meet another file); O_NONBLOCK: a FIFO does not hang us */
	const int flags = O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	bool created = false, rotated = false;
	struct stat st;
	char *hdr = NULL;
	int fd, err, ret;

again:
	created = false;
	fd = open(s->path, flags);
	if (fd < 0 && errno == ENOENT) {
		fd = open(s->path, flags | O_CREAT | O_EXCL, 0644);
		created = fd >= 0;
		if (fd < 0 && errno == EEXIST)	/* created by someone else meanwhile */
			fd = open(s->path, flags);
	}
	if (fd < 0) {
		err = errno;
		if (err == ELOOP)
			snprintf(why, whylen, "refusing to write %s: it is a symbolic link", s->path);
		else
			snprintf(why, whylen, "failed to open %s: %s", s->path, strerror(err));
		return ms_out_errno_exit(err);
	}
	if (fstat(fd, &st)) {
		snprintf(why, whylen, "failed to stat %s: %s", s->path, strerror(errno));
		close(fd);
		return MS_EXIT_FAIL;
	}
	ret = check_owned_file(&st, s->path, "write", why, whylen);
	if (ret)
		goto fail;
	if (s->fmt == MS_FMT_CSV) {
		hdr = csv_header_string(s->approx, s->attrs, s->wss);
		if (!hdr) {
			snprintf(why, whylen, "out of memory");
			ret = MS_EXIT_FAIL;
			goto fail;
		}
	}
	if (st.st_size > 0 && (s->fmt == MS_FMT_CSV || s->fmt == MS_FMT_JSONL)) {
		char line[8192];

		err = first_line(fd, line, sizeof(line));
		if (err) {
			snprintf(why, whylen, "failed to read %s: %s", s->path, strerror(-err));
			ret = MS_EXIT_FAIL;
			goto fail;
		}
		/* this memstat's log of another kind (exact, --approx, -a, --wss): never mixed,
		 * never rotated aside, for it is not another version's */
		if (s->fmt == MS_FMT_CSV && strcmp(line, hdr)) {
			static const char *kind[5] = { "exact", "--approx", "-a", "--wss",
						       "-a --wss" };
			int own = s->approx ? 1 : s->attrs ? (s->wss ? 4 : 2) : s->wss ? 3 : 0, k;

			for (k = 0; k < 5 && !ret; k++) {
				char *other = k == own ? NULL :
					csv_header_string(k == 1, k == 2 || k == 4, k >= 3);

				if (k != own && !other) {
					snprintf(why, whylen, "out of memory");
					ret = MS_EXIT_FAIL;
					goto fail;
				}
				if (other && !strcmp(line, other)) {
					snprintf(why, whylen, "refusing to append to %s: it is a log "
						 "of %s samples, and these are %s (write to a new "
						 "file)", s->path, kind[k], kind[own]);
					ret = MS_EXIT_USAGE;
				}
				free(other);
			}
			if (ret)
				goto fail;
		}
		/* another memstat's log (its first columns are memstat's, or a memstat sample of
		 * another format_version): with --rotate-incompatible, renamed aside */
		if (s->rotate_incompatible && !rotated &&
		    ((s->fmt == MS_FMT_CSV && strcmp(line, hdr) &&
		      !strncmp(line, "timestamp,epoch,", 16)) ||
		     (s->fmt == MS_FMT_JSONL && jsonl_version(line) >= 0 &&
		      jsonl_version(line) != MS_FORMAT_VERSION))) {
			ret = rotate_aside(s, fd, s->fmt == MS_FMT_CSV ? "has other columns" :
					   "has samples of another format_version", why, whylen);
			if (ret)
				goto fail;
			free(hdr);
			hdr = NULL;
			close(fd);
			rotated = true;
			goto again;
		}
		/* a log of the other format: say so, not that it is no log */
		if ((s->fmt == MS_FMT_CSV && jsonl_version(line) >= 0) ||
		    (s->fmt == MS_FMT_JSONL && !strncmp(line, "timestamp,epoch,", 16))) {
			snprintf(why, whylen, "refusing to append to %s: it is a %s log of memstat "
				 "samples, and these are %s (-f %s, or write to a new file)", s->path,
				 s->fmt == MS_FMT_CSV ? "JSON-lines" : "CSV",
				 s->fmt == MS_FMT_CSV ? "CSV" : "JSON lines",
				 s->fmt == MS_FMT_CSV ? "jsonl" : "csv");
			ret = MS_EXIT_USAGE;
			goto fail;
		}
		if (s->fmt == MS_FMT_CSV && strcmp(line, hdr)) {
			snprintf(why, whylen, "refusing to append to %s: its columns differ "
				 "from this memstat's (write to a new file%s)", s->path,
				 s->rotate_incompatible || strncmp(line, "timestamp,epoch,", 16) ? "" :
				 ", or --rotate-incompatible");
			ret = MS_EXIT_USAGE;
			goto fail;
		}
		if (s->fmt == MS_FMT_JSONL && jsonl_version(line) != MS_FORMAT_VERSION) {
			if (jsonl_version(line) < 0)
				snprintf(why, whylen, "refusing to append to %s: its first line is "
					 "not a memstat sample (write to a new file)", s->path);
			else
				snprintf(why, whylen, "refusing to append to %s: its samples have "
					 "format_version %ld, this memstat writes %d (write to a new "
					 "file%s)", s->path, jsonl_version(line), MS_FORMAT_VERSION,
					 s->rotate_incompatible ? "" : ", or --rotate-incompatible");
			ret = MS_EXIT_USAGE;
			goto fail;
		}
	} else if (hdr && (err = write_all(fd, hdr, strlen(hdr)))) {
		snprintf(why, whylen, "failed to write %s: %s", s->path, strerror(-err));
		ret = MS_EXIT_FAIL;
		goto fail;
	}
	free(hdr);
	s->fd = fd;
	return MS_EXIT_OK;
fail:
	free(hdr);
	if (created)
		unlink(s->path);
	close(fd);
	return ret;
}

/*
 * The Prometheus textfile is replaced whole at each sample (outfile.c): absent, or a regular
 * file with one name, owned by this user, empty or written by memstat before; checked at the
 * start (here, by making the temporary file and dropping it) and before every sample.
 */
static int check_prom_target(struct ms_sink *s, char *why, size_t whylen)
{
	struct ms_out o;
	int ret = ms_out_open(&o, s->path, MS_OUT_PROM, 0644, why, whylen);

	ms_out_abort(&o);
	return ret;
}

/* Returns an MS_EXIT_* code (2: the output cannot be used; 1: writing it failed). */
int ms_sink_open(struct ms_sink *s, char *why, size_t whylen)
{
	struct winsize ws;

	int ret;

	s->fd = -1;
	s->rows = 0;
	s->direct = false;
	s->serve_child = 0;
	if (s->serve_listen) {	/* memstat serve: listen, then the HTTP process */
		int lfd, ret = ms_serve_listen(s->serve_listen, &lfd, why, whylen);

		if (ret)
			return ret;
		s->serve_child = ms_serve_start(lfd, &s->fd, why, whylen);
		close(lfd);	/* the HTTP process's own now */
		return s->serve_child > 0 ? MS_EXIT_OK : MS_EXIT_FAIL;
	}
	s->tty = !s->path && isatty(STDOUT_FILENO);
	s->term_rows = 24;
	if (s->tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 4)
		s->term_rows = ws.ws_row;
	if (s->path && ms_out_fd_name(s->path) >= 0) {
		/* the descriptor itself, never closed (checked when the options were read) */
		ret = ms_out_check_fd(s->path, why, whylen);
		if (ret)
			return ret;
		s->fd = ms_out_fd_name(s->path);
		s->direct = true;
	}
	if (!s->path || s->direct) {
		if (!s->direct)
			s->fd = STDOUT_FILENO;
		if (s->fmt == MS_FMT_CSV) {
			char *hdr = csv_header_string(s->approx, s->attrs, s->wss);
			int err = hdr ? write_all(s->fd, hdr, strlen(hdr)) : -ENOMEM;

			free(hdr);
			if (err) {
				snprintf(why, whylen, "failed to write output: %s", strerror(-err));
				return MS_EXIT_FAIL;
			}
		}
		return MS_EXIT_OK;
	}
	if (s->fmt == MS_FMT_PROM)
		return check_prom_target(s, why, whylen);
	return open_append(s, why, whylen);
}

/* a failure write_prom() has said on stderr: the loop ends with exit 1 */
#define PROM_FAILED (-ENOTRECOVERABLE)

static int write_prom(struct ms_sink *s, const char *buf, size_t len)
{
	struct ms_out o;
	char why[600];
	int ret, err;

	ret = ms_out_open(&o, s->path, MS_OUT_PROM, 0644, why, sizeof(why));
	if (!ret) {
		/* readable by the scraper, whatever the umask */
		err = fchmod(o.fd, 0644) ? -errno : write_all(o.fd, buf, len);
		if (err) {
			snprintf(why, sizeof(why), "failed to write %s: %s", s->path, strerror(-err));
			ms_out_abort(&o);
			ret = MS_EXIT_FAIL;
		} else {
			ret = ms_out_commit(&o, why, sizeof(why));
		}
	}
	if (ret) {
		ms_err("%s", why);
		/* ECANCELED: refused (the file became one memstat may not replace) */
		return ret == MS_EXIT_USAGE ? -ECANCELED : PROM_FAILED;
	}
	return 0;
}

/*
 * The Prometheus file's reconciliation: meminfo read now, just after the walk, reconciled with
 * it; false for an estimate (--reconcile refuses --approx) or when meminfo cannot be read.
 * The same meminfo as --reconcile's (ms_meminfo_path()).
 */
static bool prom_recon(const struct ms_result *r, struct ms_recon *rc)
{
	struct ms_meminfo mi;

	if (r->approx.on)
		return false;
	if (ms_meminfo_read(ms_meminfo_path(), &mi) || mi.mem_total <= 0)
		return false;
	ms_reconcile(r, &mi, sysconf(_SC_PAGESIZE) / 1024, rc);
	return true;
}

int ms_sink_write(struct ms_sink *s, const struct timespec *ts, const struct ms_result *r,
		  const struct ms_report_opts *o)
{
	struct ms_recon rc;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int err;

	if (!m)
		return -ENOMEM;
	switch (s->fmt) {
	case MS_FMT_CSV:
		ms_csv_row(m, ts, r, o->attrs, o->wss);
		break;
	case MS_FMT_JSONL:
		ms_jsonl_row(m, ts, r, o);
		break;
	case MS_FMT_PROM:
		ms_prom(m, ts, r, prom_recon(r, &rc) ? &rc : NULL);
		if (ms_attrs_valid(o->attrs))	/* -a */
			ms_attrs_prom(m, o->attrs);
		if (o->wss)	/* --wss: the window's pages by state */
			ms_wss_prom(m, o->wss);
		if (o->ngroups)	/* --by: the top N groups and (other) of each key */
			ms_groups_prom(m, o->groups, o->ngroups);
		if (o->procs)	/* --by process or command: the top N and (other) */
			ms_procs_prom(m, o->procs);
		break;
	case MS_FMT_ROWS:
		if (s->rows == 0 && r->approx.on)
			fprintf(m, "(approximate: each sample estimates from %.2f%% of the pages; "
				"--json or -o FILE give each class's error at a %.0f%% confidence level)\n",
				r->total + r->holes ? 100.0 * (double)r->approx.pages_sampled /
						      (double)(r->total + r->holes) : 0.0,
				100 * MS_APPROX_CONFIDENCE);
		if (s->rows == 0 || (s->tty && s->rows % (s->term_rows - 2) == 0))
			ms_row_header(m, o->wss);
		ms_row(m, ts, r, o->wss);
		break;
	}
	s->rows++;
	if (fclose(m)) {
		free(buf);
		return -ENOMEM;
	}
	if (s->serve_child > 0) {
		err = ms_serve_publish(s->fd, (unsigned long long)s->rows,
				       (double)ts->tv_sec + (double)ts->tv_nsec / 1e9, buf, len);
		if (err) {
			ms_err("the HTTP process of memstat serve has ended: %s", strerror(-err));
			err = PROM_FAILED;
		}
	} else if (s->fmt == MS_FMT_PROM && s->path && !s->direct) {
		err = write_prom(s, buf, len);	/* fsynced before its rename */
	} else {
		/* a log file never keeps a part of a line (a full disk takes what fits): cut back */
		off_t end = s->path && !s->direct ? lseek(s->fd, 0, SEEK_END) : -1;

		err = write_all(s->fd, buf, len);
		if (err && end >= 0 && ftruncate(s->fd, end))
			ms_err("%s: could not remove the part of a sample written: %s", s->path,
			       strerror(errno));
	}
	if (!err && s->fsync && s->path && !s->direct && s->fmt != MS_FMT_PROM && fsync(s->fd))
		err = -errno;
	free(buf);
	return err;
}

void ms_sink_close(struct ms_sink *s)
{
	if (s->serve_child > 0) {
		ms_serve_stop(s->serve_child, s->fd);
		s->serve_child = 0;
		s->fd = -1;
		return;
	}
	if (s->path && !s->direct && s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* SIGINT/SIGTERM end the loop, SIGHUP reopens the log: installed before the backend loads. */
void ms_sample_signals(void)
{
	struct sigaction sa = {};

	sa.sa_handler = on_stop;	/* no SA_RESTART: a signal ends the wait at once */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * Sleep until the monotonic deadline, or until a stop signal. The signals are blocked except
 * inside ppoll(), so one that arrives between the test of stop_requested and the wait still
 * ends the wait at once.
 */
static void wait_until(double deadline, const sigset_t *unblocked)
{
	while (!stop_requested) {
		double left = deadline - mono();
		struct timespec d;

		if (left <= 0)
			return;
		d.tv_sec = (time_t)left;
		d.tv_nsec = (long)((left - (double)d.tv_sec) * 1e9);
		if (ppoll(NULL, 0, &d, unblocked) == 0)
			return;
	}
}

bool ms_sample_sleep_until(double deadline_ms)
{
	wait_until(deadline_ms / 1000.0, &loop_unblocked);
	return !stop_requested;
}

int ms_sample_loop(const struct ms_sample_opts *so, struct ms_sink *sink, ms_walk_fn walk,
		   void *walk_arg, const struct ms_report_opts *ro)
{
	struct ms_report_opts o = *ro;
	sigset_t block, unblocked;
	char why[512];
	double start, next;
	long taken = 0, tick = 0;
	int ret = MS_EXIT_OK;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	loop_unblocked = unblocked;

	start = mono();
	while (!stop_requested) {
		struct ms_result res;
		struct timespec now;
		double t0 = mono(), took;

		ret = walk(walk_arg, &res);
		if (ret == MS_SAMPLE_STOPPED) {	/* a window cut short: no sample of it */
			ret = MS_EXIT_OK;
			break;
		}
		if (ret)
			break;
		clock_gettime(CLOCK_REALTIME, &now);
		o.elapsed_ms = (mono() - t0) * 1000;	/* this sample, exec scan and walk */
		if (reopen_requested && sink->path && !sink->direct && sink->fmt != MS_FMT_PROM) {
			reopen_requested = 0;
			ms_sink_close(sink);
			ret = ms_sink_open(sink, why, sizeof(why));
			if (ret) {
				ms_err("%s", why);
				break;
			}
		}
		ret = ms_sink_write(sink, &now, &res, &o);
		if (ret) {
			/* EPIPE: the reader went away; ECANCELED, PROM_FAILED: said already */
			if (ret != -EPIPE && ret != -ECANCELED && ret != PROM_FAILED)
				ms_err("failed to write %s: %s", sink->path ? sink->path : "output",
				       strerror(-ret));
			/* ECANCELED: the Prometheus file became one memstat may not replace */
			ret = ret == -EPIPE ? MS_EXIT_OK : ret == -ECANCELED ? MS_EXIT_USAGE :
			      MS_EXIT_FAIL;
			break;
		}
		taken++;
		if (so->count && taken >= so->count)
			break;
		if (so->paced_by_walk)
			continue;	/* the next window opened where this one closed */
		took = mono() - t0;
		tick++;
		next = start + (double)tick * so->interval;
		if (mono() > next) {
			long skip = (long)ceil((mono() - next) / so->interval);

			ms_err("a sample took %.3f s, longer than the %g s interval: %ld sample%s "
			       "skipped", took, so->interval, skip, skip == 1 ? "" : "s");
			tick += skip;
			next = start + (double)tick * so->interval;
		}
		wait_until(next, &unblocked);
	}
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	return ret;
}
