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
 *
 * This file is the driver: a run of the command, the sizes one by one, the outputs. The command
 * line, -c, -p and -r are rmss_main.c's; the machine (its size, the walk, the lock, zram)
 * rmss_machine.c's; the command's cgroup rmss_cgroup.c's; the report rmss_report.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "memstat_int.h"
#include "backend.h"
#include "meminfo.h"
#include "escape.h"
#include "outfile.h"
#include "rmss.h"
#include "testhooks.h"
#include "svg.h"

#define rerr ms_rmss_err


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
	if (pipe2(err_pipe, O_CLOEXEC)) {
		rerr("cannot run '%s': %s", d->o->cmd[0], strerror(errno));
		return -1;
	}
	if (d->cg.v)
		ms_rmss_cg_counts(&d->cg, &c0);
	vm_counts(&v0);
	fflush(NULL);
	t0 = (ms_now_ms() / 1e3);
	pid = fork();
	if (pid < 0) {
		rerr("cannot run '%s': %s", d->o->cmd[0], strerror(errno));
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
				e = ms_write_str(path, "0");
			}
			ms_rmss_cg_file(&d->cg, "cgroup.procs", path, sizeof(path));
			if (!e)
				e = ms_write_str(path, "0");
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
	t1 = (ms_now_ms() / 1e3);
	alarm(0);
	vm_counts(&v1);
	if (d->cg.v)
		ms_rmss_cg_counts(&d->cg, &c1);
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

/* the run failed: it exited with a status not accepted (--ok-status), or a signal other than
 * the OOM killer's ended it; *code: the status as a shell gives it ($?: 128 + signal) */
static bool run_failed(const struct driver *d, const struct run *r, int *code)
{
	if (WIFEXITED(r->status)) {
		*code = WEXITSTATUS(r->status);
		return !d->o->ok_status[*code];
	}
	*code = WIFSIGNALED(r->status) ? 128 + WTERMSIG(r->status) : 255;
	return !r->oom_killed;
}

/* set the memory size: the cgroup's limit, or the pool (replaced); MS_EXIT_* */
static int set_size(struct driver *d, double mb)
{
	int ret, err;

	if (d->cg.v) {
		err = ms_rmss_cg_limit(&d->cg, mb, d->m.swap_mb);
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

/* warm: the warm-up of this size was the driver's first run */
static int measure_size(struct driver *d, struct size_row *row, bool warm)
{
	struct run r;
	struct ms_result res;
	int ret, code;

	if (!warm && run_once(d, &r))	/* the warm-up, not measured */
		return MS_EXIT_FAIL;
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
		if (run_failed(d, &r, &code)) {	/* not measured: left out of the knee */
			row->failed++;
			row->exit_status = code;
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
		row->peak_mb = ms_rmss_cg_peak_mb(&d->cg);
		if (ms_rmss_cg_walk_pages(&d->w, &d->cg, d->m.page_kb / 1024.0, row->pages_mb))
			ms_rmss_cg_pages(&d->cg, row->pages_mb);
	} else if (!ms_rmss_walker_walk(&d->w, &res)) {
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
 * -o FILE and --plot FILE.svg (or .png), checked and their temporary files made (outfile.c) before
 * anything is measured or changed: a destination memstat may not replace is refused at once.
 * "-o -" (or /dev/stdout) is the report on stdout, once.
 */
static int open_outputs(struct driver *d)
{
	char why[600];
	int ret, fd;

	ret = ms_out_open(&d->report, d->o->output, MS_OUT_RMSS, 0666, why, sizeof(why));
	if (!ret && d->o->plot)
		ret = ms_picture_open(&d->plot, d->o->plot, why, sizeof(why));
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
	ms_picture_close(&d->plot);
	return ret;
}

int ms_rmss_driver_main(struct rmss_opts *o)
{
	struct driver d = { .o = o, .cg = { .peak_fd = -1 }, .guard = { .pid = -1, .ctl = -1 },
			    .pidfd = -1, .report = MS_OUT_INIT,
			    .plot = { .out = MS_OUT_INIT } };
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
	if (ms_rmss_read_machine(&d.m)) {
		rerr("cannot read /proc/meminfo");
		close_outputs(&d, false);
		return MS_EXIT_FAIL;
	}
	ret = ms_rmss_take_lock(&lock_fd);
	if (ret) {
		close_outputs(&d, false);
		return ret;
	}
	/* before anything is changed: what outlives this process and undoes it after a crash */
	d.pidfd = ms_rmss_self_pidfd();
	ret = ms_rmss_guard_start(&d.guard, lock_fd, d.pidfd, o->cgroup && ms_rmss_systemd_v2());
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
		ret = ms_rmss_walker_open(&d.w, 0);
		if (ret)
			goto out;
		ret = ms_rmss_safe_floor(&d.w, &d.m, d.have_pool ? d.st.stolen_mb : 0, &d.floor_mb, &res);
		if (ret)
			goto out;
	} else {
		d.floor_mb = RMSS_CGROUP_FLOOR_MB;
		/*
		 * The cgroup's class split comes from the record walk (--by cgroup's), where the
		 * bpf or kmod backend can give it; without one, from the cgroup's memory.stat.
		 */
		if (ms_rmss_walker_open(&d.w, MS_BPF_ALLPAGES) == 0 && !d.w.be.ops->pages)
			ms_rmss_walker_close(&d.w);
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
		ret = ms_rmss_zram_setup(o->zram_mb, &d.st, zdev, sizeof(zdev));
		if (ret)
			goto out;
		ms_rmss_read_machine(&d.m);
	}
	if (o->cgroup) {
		ret = ms_rmss_cg_create(&d.cg, &d.st, &d.guard);
		if (ret)
			goto out;
	}
	ret = set_size(&d, start);
	if (ret)
		goto out;
	/*
	 * The first run, at START, is its warm-up: a command that cannot be run or fails in it
	 * ends rmss here, with one line and no report (an earlier report stays). Without -n it
	 * also times the command: enough runs for 10 s at each size, as AIX's rmss does.
	 */
	d.iterations = o->iterations;
	{
		struct run r;
		int code;

		if (run_once(&d, &r)) {	/* it said why */
			d.reporting = false;
			ret = MS_EXIT_FAIL;
			goto out;
		}
		if (!stop_sig && run_failed(&d, &r, &code)) {
			char *name = ms_esc_str(o->cmd[0], MS_ESC_TERM);

			if (WIFEXITED(r.status))
				rerr("'%s' exited with status %d in its first run, at %.2f MB: no "
				     "report (--ok-status %d if that status is an answer)",
				     name ? name : "?", code, start, code);
			else
				rerr("'%s' was killed by signal %d (%s) in its first run, at %.2f MB: "
				     "no report", name ? name : "?", WTERMSIG(r.status),
				     strsignal(WTERMSIG(r.status)), start);
			free(name);
			d.reporting = false;
			ret = MS_EXIT_FAIL;
			goto out;
		}
		if (!d.iterations) {
			d.iterations = r.secs > 0 ? (long)ceil(RMSS_AUTO_SECONDS / r.secs) :
				       RMSS_MAX_AUTO_N;
			if (d.iterations < 1)
				d.iterations = 1;
			if (d.iterations > RMSS_MAX_AUTO_N)
				d.iterations = RMSS_MAX_AUTO_N;
		}
	}
	if (stop_sig) {		/* no size measured: no report */
		d.reporting = false;
		goto out;
	}
	ms_rmss_print_header(&d, start);
	for (int i = 0; i < nsizes && !stop_sig; i++) {
		if (i) {
			ret = set_size(&d, d.rows[i].mb);
			if (ret)
				break;
		}
		ret = measure_size(&d, &d.rows[i], i == 0);
		if (ret)
			break;
		if (d.rows[i].done)
			ms_rmss_print_row(&d, &d.rows[i]);
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
			ms_rmss_print_pages_table(&d);
		k = d.nrows ? ms_rmss_knee(&d, &base, &noise) : -1;
		if (d.iterations) {
			if (k >= 0)
				ms_rmss_emit(&d, "\nKnee: %.2f Mb: the smallest size whose page-in rate stays "
				     "within max(%.0f%%, %.0f pageins / sec.) of the rate at the "
				     "largest size (%.1f pageins / sec.); %.0f: the larger of %.0f "
				     "and %.0f%% of the highest rate measured\n", k,
				     RMSS_KNEE_REL * 100, noise, base, noise, RMSS_KNEE_ABS,
				     RMSS_KNEE_NOISE * 100);
			else
				ms_rmss_emit(&d, "\nKnee: none (no size was measured without OOM kills "
					     "or failed runs)\n");
		}
		if (stop_sig)
			ms_rmss_emit(&d, "\nInterrupted by %s: the report is complete up to the last "
			     "finished size; the memory size is restored.\n",
			     stop_sig == SIGINT ? "SIGINT" : stop_sig == SIGHUP ? "SIGHUP" :
			     "SIGTERM");
		else if (ret && d.iterations)
			ms_rmss_emit(&d, "\nStopped by an error (on stderr): the report is complete up to the "
			     "last finished size; the memory size is restored.\n");
		else if (d.iterations)
			ms_rmss_emit(&d, "\nSimulated final memory size.\n");
		if (o->plot && d.iterations && ms_rmss_write_plot(&d))
			ret = ret ? ret : MS_EXIT_FAIL;
		if (o->json)
			ms_rmss_print_json(&d, k, stop_sig != 0);
	}
	{
		int err = close_outputs(&d, d.reporting);

		ret = ret ? ret : err;
	}
	ms_rmss_walker_close(&d.w);
	free(d.rows);
	if (lock_fd >= 0)
		close(lock_fd);
	if (stop_sig)
		return RMSS_EXIT_INTR;
	return ret;
}
