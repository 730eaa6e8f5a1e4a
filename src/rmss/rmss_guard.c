// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat rmss leaves nothing behind, whatever happens to the driver (docs/rmss.md,
 * "What survives a crash").
 *
 * Everything rmss changes on the machine (the pool, the zram device, the command's cgroup and
 * its freezer twin, the memory controller enabled in a subtree_control) is recorded in the
 * state file (RUNDIR/memstat-rmss.state, replaced whole through outfile.c) before it exists,
 * and removed from it once undone. ms_rmss_undo() undoes what the file records and only that,
 * quietly where something is already gone: -r runs it, and so does the guardian.
 *
 * The guardian is a fresh memstat (exec'd, so it maps nothing of the driver's) started before
 * anything is changed, in a session of its own (an ssh hang-up or a Ctrl-C does not reach
 * it), never the OOM killer's choice. It holds the driver's lock with it, and watches the
 * driver through a pidfd (PR_SET_PDEATHSIG and the driver's start time as backups). When the
 * driver ends without saying that it restored everything (SIGKILL, a crash, the OOM killer,
 * SIGHUP before its handler), the guardian undoes the state and only then lets the lock go.
 *
 * The pool is a fresh memstat too, detached, holding the stolen memory mlocked. A driver's
 * pool watches the driver's pidfd as well and ends with it, guardian or not; -c's pool is kept
 * until -r, as AIX's rmss -c keeps its memory size. Processes in a cgroup are ended with
 * cgroup.kill (v2, 5.14+), else with the cgroup frozen (v2 cgroup.freeze, the v1 freezer twin)
 * and SIGKILL sent through a pidfd taken while the pid was listed in the cgroup: a pid reused
 * between the read and the signal is never hit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "memstat_int.h"
#include "meminfo.h"
#include "outfile.h"
#include "rmss.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* ---- processes ---- */

int ms_rmss_self_pidfd(void)
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/*
 * In a child about to exec: src[i] (or nothing, for -1) becomes descriptor 3 + i, inheritable,
 * and every other descriptor from 3 on is closed: nothing of the driver's reaches the child.
 */
static void child_fds(const int *src, int n)
{
	int tmp[8];

	for (int i = 0; i < n; i++)
		tmp[i] = src[i] >= 0 ? fcntl(src[i], F_DUPFD, 64) : -1;
	for (int i = 0; i < n; i++) {
		if (tmp[i] >= 0)
			dup2(tmp[i], 3 + i);
		else
			close(3 + i);
	}
	if (syscall(SYS_close_range, 3U + n, ~0U, 0U)) {
		for (int fd = 3 + n; fd < 1024; fd++)
			close(fd);
	}
}

static void null_stdio(bool keep_stderr)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	if (!keep_stderr)
		dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static void exec_self(const char *verb, char *a1, char *a2, char *a3)
{
	char *argv[] = { "memstat", "rmss", (char *)verb, a1, a2, a3, NULL };

	execv("/proc/self/exe", argv);
	_exit(127);
}

/* ---- the pool ---- */

bool ms_rmss_pool_alive(const struct ms_rmss_state *s)
{
	char comm[64] = "";

	if (s->pid <= 0)
		return false;
	return ms_rmss_proc_starttime(s->pid, comm, sizeof(comm)) == s->starttime &&
	       s->starttime && !strcmp(comm, POOL_COMM);
}

/* end the pool of s and wait until its memory is back; 0 or -errno */
int ms_rmss_pool_stop(const struct ms_rmss_state *s)
{
	int i;

	if (!ms_rmss_pool_alive(s))
		return 0;
	if (kill(s->pid, SIGKILL) && errno != ESRCH)
		return -errno;
	for (i = 0; i < 3000; i++) {	/* 30 s */
		if (!ms_rmss_pool_alive(s))
			return 0;
		ms_rmss_sleep_ms(10);
	}
	return -ETIMEDOUT;
}

struct pool_msg {
	pid_t pid;
	unsigned long long starttime;
	int err;
};

static ssize_t read_full(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

int ms_rmss_pool_start(double stolen_mb, struct ms_rmss_state *s, int watch_fd)
{
	struct pool_msg msg = { 0, 0, 0 };
	size_t len = (size_t)(stolen_mb * 1048576.0);
	long pg = sysconf(_SC_PAGESIZE);
	pid_t c, me = getpid();
	unsigned long long me_start = ms_rmss_proc_starttime(me, NULL, 0);
	int up[2], down[2], err;
	ssize_t n;

	len = (len + pg - 1) / pg * pg;
	if (pipe2(up, O_CLOEXEC)) {
		ms_rmss_err("pipe: %s", strerror(errno));
		return MS_EXIT_FAIL;
	}
	if (pipe2(down, O_CLOEXEC)) {
		ms_rmss_err("pipe: %s", strerror(errno));
		close(up[0]);
		close(up[1]);
		return MS_EXIT_FAIL;
	}
	fflush(NULL);
	c = fork();
	if (c < 0) {
		ms_rmss_err("fork: %s", strerror(errno));
		close(up[0]);
		close(up[1]);
		close(down[0]);
		close(down[1]);
		return MS_EXIT_FAIL;
	}
	if (c == 0) {
		int fds[3] = { up[1], down[0], watch_fd };
		char bytes[32], dpid[32], dstart[32];

		setsid();
		if (fork() != 0)
			_exit(0);	/* the pool is the grandchild: init reaps it */
		snprintf(bytes, sizeof(bytes), "%zu", len);
		snprintf(dpid, sizeof(dpid), "%d", watch_fd >= 0 ? (int)me : 0);
		snprintf(dstart, sizeof(dstart), "%llu", me_start);
		child_fds(fds, 3);
		null_stdio(false);
		exec_self("--internal-pool", bytes, dpid, dstart);
	}
	close(up[1]);
	close(down[0]);
	waitpid(c, NULL, 0);
	/* the pool says who it is, and waits for its record in the state file */
	n = read_full(up[0], &msg, sizeof(msg));
	if (n != sizeof(msg) || msg.pid <= 0 || !msg.starttime) {
		ms_rmss_err("the pool process could not start: nothing is stolen");
		close(up[0]);
		close(down[1]);
		return MS_EXIT_FAIL;
	}
	s->pid = msg.pid;
	s->starttime = msg.starttime;
	s->stolen_mb = len / 1048576.0;
	err = ms_rmss_state_write(s);
	if (err || write(down[1], "g", 1) != 1 ||
	    read_full(up[0], &msg, sizeof(msg)) != sizeof(msg) || msg.err) {
		if (!err && msg.err)
			ms_rmss_err("the pool could not lock %.2f MB: %s: nothing is stolen",
				    stolen_mb, strerror(msg.err));
		else if (!err)
			ms_rmss_err("the pool process ended while taking %.2f MB (killed by the "
				    "OOM killer?): nothing is stolen", stolen_mb);
		else
			ms_rmss_err("the pool could not be recorded in the state file: nothing "
				    "is stolen");
		close(up[0]);
		close(down[1]);
		ms_rmss_pool_stop(s);
		s->pid = 0;
		s->starttime = 0;
		s->stolen_mb = 0;
		ms_rmss_state_sync(s);
		return MS_EXIT_FAIL;
	}
	close(up[0]);
	close(down[1]);
	return 0;
}

/*
 * memstat rmss --internal-pool BYTES DRIVER DRIVER_START: 3 writes to the starter, 4 reads
 * from it, 5 is the driver's pidfd (DRIVER 0: -c's pool, kept until -r).
 */
static int pool_main(int argc, char **argv)
{
	struct pool_msg msg = { 0, 0, 0 };
	size_t len;
	pid_t driver;
	unsigned long long dstart;
	bool pidfd;
	void *mem;
	char go;

	if (argc != 4)
		return MS_EXIT_USAGE;
	len = strtoull(argv[1], NULL, 10);
	driver = (pid_t)strtol(argv[2], NULL, 10);
	dstart = strtoull(argv[3], NULL, 10);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	if (chdir("/")) {
		/* nothing to do: the pool opens no files */
	}
	prctl(PR_SET_NAME, POOL_COMM);
	/* the OOM killer's first choice: the pool, not a real process */
	ms_write_str("/proc/self/oom_score_adj", "1000");
	msg.pid = getpid();
	msg.starttime = ms_rmss_proc_starttime(msg.pid, NULL, 0);
	if (write(3, &msg, sizeof(msg)) != sizeof(msg) || read_full(4, &go, 1) != 1)
		return 1;	/* the starter is gone: nothing was recorded, nothing is taken */
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		msg.err = errno;
	/* the system call itself: ASan's mlock() is a no-op that locks nothing */
	else if (madvise(mem, len, MADV_NOHUGEPAGE), syscall(SYS_mlock, mem, len))
		msg.err = errno;
	if (write(3, &msg, sizeof(msg)) != sizeof(msg) || msg.err)
		return 1;
	close(3);
	close(4);
	if (driver <= 0) {
		for (;;)
			pause();
	}
	/* a driver's pool ends with the driver, whatever ends it */
	pidfd = fcntl(5, F_GETFD) >= 0;
	for (;;) {
		struct pollfd pfd = { .fd = 5, .events = POLLIN };

		if (ms_rmss_proc_starttime(driver, NULL, 0) != dstart)
			break;
		if (poll(&pfd, pidfd ? 1 : 0, 1000) > 0)
			break;
	}
	return 0;
}

/* ---- the zram device ---- */

int ms_rmss_zram_remove(int id)
{
	char dev[64], path[128], buf[32];
	int err = 0;

	if (id < 0)
		return 0;
	snprintf(dev, sizeof(dev), "/dev/zram%d", id);
	if (swapoff(dev) && errno != EINVAL && errno != ENOENT) {
		ms_rmss_err("--zram: swapoff %s: %s", dev, strerror(errno));
		err = -1;
	}
	snprintf(path, sizeof(path), "/sys/block/zram%d/reset", id);
	ms_write_str(path, "1");
	snprintf(buf, sizeof(buf), "%d", id);
	if (access(path, F_OK) == 0 &&
	    ms_write_str("/sys/class/zram-control/hot_remove", buf)) {
		ms_rmss_err("--zram: cannot remove zram%d", id);
		err = -1;
	}
	return err;
}

/* ---- the cgroup ---- */

#define MAX_KILL 4096

static bool listed(const char *procs, pid_t pid)
{
	const char *p = procs;

	while (*p) {
		char *e;
		long v = strtol(p, &e, 10);

		if (e == p) {
			p++;
			continue;
		}
		if (v == pid)
			return true;
		p = e;
	}
	return false;
}

/*
 * SIGKILL every process listed in procs (a cgroup.procs), each through a pidfd taken while its
 * pid was listed: a pid read here and reused by another process before the pidfd was taken is
 * no longer listed when checked again, and the signal goes to nobody else. The count signalled.
 */
static int kill_listed(const char *procs)
{
	static char buf[65536], again[65536];
	static pid_t pids[MAX_KILL];
	static int fds[MAX_KILL];
	int n = 0, hit = 0;

	if (ms_read_text(procs, buf, sizeof(buf)))
		return 0;
	for (char *p = buf; *p && n < MAX_KILL; ) {
		char *e;
		long v = strtol(p, &e, 10);
		int fd;

		if (e == p) {
			p++;
			continue;
		}
		p = e;
		if (v <= 0)
			continue;
		fd = (int)syscall(SYS_pidfd_open, (pid_t)v, 0);
		if (fd < 0 && errno == ENOSYS) {
			/* before 5.3: only a frozen cgroup keeps the pid from being reused */
			kill((pid_t)v, SIGKILL);
			hit++;
			continue;
		}
		if (fd < 0)
			continue;
		pids[n] = (pid_t)v;
		fds[n++] = fd;
	}
	if (n && !ms_read_text(procs, again, sizeof(again))) {
		for (int i = 0; i < n; i++) {
			if (listed(again, pids[i]) &&
			    !syscall(SYS_pidfd_send_signal, fds[i], SIGKILL, NULL, 0))
				hit++;
		}
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return hit;
}

static void path_in(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* end every process in the cgroup (and its freezer twin on v1) */
static void cg_kill(const char *dir, int v, const char *freezer)
{
	char path[MS_RMSS_PATH_MAX + 32], buf[64];

	if (v == 2) {
		char procs[MS_RMSS_PATH_MAX + 32];

		path_in(path, sizeof(path), dir, "cgroup.kill");
		if (!ms_write_str(path, "1"))
			return;
		/* before 5.14: frozen (5.2+), nothing forks meanwhile; SIGKILL still acts */
		path_in(path, sizeof(path), dir, "cgroup.freeze");
		ms_write_str(path, "1");
		path_in(procs, sizeof(procs), dir, "cgroup.procs");
		kill_listed(procs);
		ms_write_str(path, "0");
		return;
	}
	if (freezer && freezer[0]) {
		char state[MS_RMSS_PATH_MAX + 32], procs[MS_RMSS_PATH_MAX + 32];

		path_in(state, sizeof(state), freezer, "freezer.state");
		path_in(procs, sizeof(procs), freezer, "cgroup.procs");
		if (!ms_write_str(state, "FROZEN")) {
			for (int i = 0; i < 100; i++) {	/* 1 s */
				if (!ms_read_text(state, buf, sizeof(buf)) &&
				    !strncmp(buf, "FROZEN", 6))
					break;
				ms_rmss_sleep_ms(10);
			}
		}
		kill_listed(procs);
		if (dir && dir[0]) {
			path_in(path, sizeof(path), dir, "cgroup.procs");
			kill_listed(path);
		}
		ms_write_str(state, "THAWED");	/* the killed die as they thaw */
		return;
	}
	if (dir && dir[0]) {
		path_in(path, sizeof(path), dir, "cgroup.procs");
		kill_listed(path);
	}
}

static int rmdir_emptied(const char *dir, int v, const char *freezer)
{
	int i;

	for (i = 0; i < 1000; i++) {	/* 10 s */
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		cg_kill(v ? dir : NULL, v, freezer);
		ms_rmss_sleep_ms(10);
	}
	ms_rmss_err("--cgroup: cannot remove %s: %s", dir, strerror(errno));
	return -1;
}

int ms_rmss_cg_remove(const char *dir, int v, const char *freezer)
{
	int err = 0;

	if (dir && dir[0] && rmdir_emptied(dir, v, freezer))
		err = -1;
	if (freezer && freezer[0] && rmdir_emptied(freezer, 0, freezer))
		err = -1;
	return err;
}

/* the memory controller rmss enabled for dir's children, disabled again */
int ms_rmss_subtree_revert(const char *dir)
{
	char path[MS_RMSS_PATH_MAX + 32];
	int err;

	if (!dir || !dir[0])
		return 0;
	path_in(path, sizeof(path), dir, "cgroup.subtree_control");
	err = ms_write_str(path, "-memory");
	/* EBUSY: another child enabled it below since, and needs it; ENOENT: gone */
	if (err && err != -EBUSY && err != -ENOENT) {
		ms_rmss_err("--cgroup: cannot disable the memory controller in %s: %s", path,
			    strerror(-err));
		return -1;
	}
	return 0;
}

/* ---- undo ---- */

int ms_rmss_undo(struct ms_rmss_state *s, bool keep_pool)
{
	int err = 0, e;

	if (s->pid > 0 && !keep_pool) {
		e = ms_rmss_pool_stop(s);
		if (e) {
			ms_rmss_err("cannot end the pool process %d: %s", s->pid, strerror(-e));
			err = -1;
		} else {
			s->pid = 0;
			s->starttime = 0;
			s->stolen_mb = 0;
		}
	}
	if (s->cgroup[0] || s->freezer[0]) {
		if (ms_rmss_cg_remove(s->cgroup, s->cg_v, s->freezer)) {
			err = -1;
		} else {
			s->cg_v = 0;
			s->cgroup[0] = '\0';
			s->freezer[0] = '\0';
		}
	}
	if (s->subtree[0] && !s->cgroup[0]) {
		if (ms_rmss_subtree_revert(s->subtree))
			err = -1;
		else
			s->subtree[0] = '\0';
	}
	if (s->zram >= 0) {
		if (ms_rmss_zram_remove(s->zram))
			err = -1;
		else
			s->zram = -1;
	}
	if (ms_rmss_state_sync(s))
		err = -1;
	return err;
}

/* ---- the guardian ---- */

/* systemd's tool for transient units; Debian's path (/bin is /usr/bin on merged-/usr) */
#define SYSTEMD_RUN "/usr/bin/systemd-run"

/*
 * The guardian in a scope of its own: systemd-run (found by its absolute path, owned by root)
 * asks systemd for memstat-rmss-DRIVER.scope with Delegate=yes, holding systemd-run itself,
 * and then execs the guardian there (the descriptors 3-6 pass through). The driver's own
 * executable is reached through /proc/DRIVER/exe, valid while it waits for the guardian.
 */
static void exec_guard_in_scope(const char *scope, pid_t driver, char *dpid, char *dstart)
{
	char unit[96], exe[48];
	struct stat st;
	char *argv[] = { SYSTEMD_RUN, "--scope", "--quiet", "--collect", "--no-ask-password",
			 unit, "--property=Delegate=yes",
			 "--description=memstat rmss --cgroup: the command's cgroup and its guardian",
			 "--", exe, "rmss", "--internal-guard", dpid, dstart, NULL };

	if (stat(SYSTEMD_RUN, &st) || st.st_uid != 0 || (st.st_mode & 022))
		_exit(126);
	snprintf(unit, sizeof(unit), "--unit=%s", scope);
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)driver);
	execv(SYSTEMD_RUN, argv);
	_exit(127);
}

/* the guardian started, directly or in scope through systemd-run, and ready; 0 or -1 */
static int guard_spawn(struct ms_rmss_guard *g, int lock_fd, int pidfd, const char *scope)
{
	int ctl[2], ready[2];
	pid_t c, me = getpid();
	unsigned long long me_start = ms_rmss_proc_starttime(me, NULL, 0);
	char b;

	g->pid = -1;
	g->ctl = -1;
	if (pipe2(ctl, O_CLOEXEC))
		goto fail;
	if (pipe2(ready, O_CLOEXEC)) {
		close(ctl[0]);
		close(ctl[1]);
		goto fail;
	}
	fflush(NULL);
	c = fork();
	if (c == 0) {
		int fds[4] = { lock_fd, pidfd, ctl[0], ready[1] };
		char dpid[32], dstart[32];

		setsid();	/* no hang-up, no Ctrl-C of the driver's terminal reaches it */
		snprintf(dpid, sizeof(dpid), "%d", (int)me);
		snprintf(dstart, sizeof(dstart), "%llu", me_start);
		child_fds(fds, 4);
		null_stdio(true);	/* its errors go where the driver's go */
		if (scope)
			exec_guard_in_scope(scope, me, dpid, dstart);
		exec_self("--internal-guard", dpid, dstart, NULL);
	}
	close(ctl[0]);
	close(ready[1]);
	if (c < 0 || read_full(ready[0], &b, 1) != 1) {
		close(ready[0]);
		close(ctl[1]);
		if (c > 0)
			waitpid(c, NULL, 0);
		goto fail;
	}
	close(ready[0]);
	g->pid = c;
	g->ctl = ctl[1];
	return 0;
fail:
	return -1;
}

int ms_rmss_guard_start(struct ms_rmss_guard *g, int lock_fd, int pidfd, bool scope)
{
	char name[sizeof(g->scope)];

	g->scope[0] = '\0';
	if (scope) {
		snprintf(name, sizeof(name), "memstat-rmss-%d.scope", (int)getpid());
		if (!guard_spawn(g, lock_fd, pidfd, name)) {
			snprintf(g->scope, sizeof(g->scope), "%s", name);
			return 0;
		}
		ms_rmss_err("--cgroup: systemd-run could not start the guardian in %s (Delegate=yes): "
			    "the cgroup is made beside memstat's own instead", name);
	}
	if (guard_spawn(g, lock_fd, pidfd, NULL)) {
		ms_rmss_err("cannot start the guardian process: %s", strerror(errno ? errno : EIO));
		return MS_EXIT_FAIL;
	}
	return 0;
}

void ms_rmss_guard_stop(struct ms_rmss_guard *g)
{
	if (g->pid <= 0)
		return;
	if (write(g->ctl, "q", 1) != 1) {
		/* it sees the pipe closed and undoes what the state file still records */
	}
	close(g->ctl);
	while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
	g->pid = -1;
	g->ctl = -1;
}

static volatile sig_atomic_t driver_died;

static void on_driver_death(int sig)
{
	driver_died = 1;
}

/*
 * memstat rmss --internal-guard DRIVER DRIVER_START: 3 is the lock (held with the driver), 4
 * the driver's pidfd, 5 the control pipe ("q": everything is restored), 6 says it is ready.
 */
static int guard_main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_driver_death };	/* poll is interrupted */
	struct ms_rmss_state s;
	unsigned long long dstart;
	pid_t driver;
	bool pidfd;
	char c;

	if (argc != 3)
		return MS_EXIT_USAGE;
	driver = (pid_t)strtol(argv[1], NULL, 10);
	dstart = strtoull(argv[2], NULL, 10);
	prctl(PR_SET_NAME, GUARD_COMM);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);	/* it ends when the driver does, after undoing */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	ms_write_str("/proc/self/oom_score_adj", "-1000");
	pidfd = fcntl(4, F_GETFD) >= 0;
	if (write(6, "r", 1) != 1)
		return 1;
	close(6);
	if (getppid() != driver)
		driver_died = 1;
	while (!driver_died) {
		struct pollfd pfd[2] = { { .fd = 5, .events = POLLIN },
					 { .fd = 4, .events = POLLIN } };
		int r;

		if (ms_rmss_proc_starttime(driver, NULL, 0) != dstart)
			break;
		r = poll(pfd, pidfd ? 2 : 1, 1000);
		if (r <= 0)
			continue;
		if (pfd[0].revents) {
			ssize_t n = read(5, &c, 1);

			if (n == 1 && c == 'q')
				return 0;	/* the driver restored everything itself */
			if (n == 0)
				break;
		}
		if (pfd[1].revents)
			break;
	}
	/* the driver ended without restoring: undo what it recorded (the lock is still held) */
	if (ms_rmss_state_read(&s))
		return 0;
	return ms_rmss_undo(&s, false) ? MS_EXIT_FAIL : 0;
}

int ms_rmss_internal_main(int argc, char **argv)
{
	if (!strcmp(argv[0], "--internal-pool"))
		return pool_main(argc, argv);
	if (!strcmp(argv[0], "--internal-guard"))
		return guard_main(argc, argv);
	return MS_EXIT_USAGE;
}
