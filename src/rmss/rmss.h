/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * memstat rmss's internals shared by rmss.c (the driver, -c, -p, -r) and rmss_guard.c (what
 * rmss changes on the machine, recorded, and undone whatever happens to the driver).
 */
#ifndef MEMSTAT_RMSS_H
#define MEMSTAT_RMSS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <stdio.h>

#include "memstat_int.h"
#include "outfile.h"
#include "picture.h"
#include "backend.h"

#define POOL_COMM "memstat-rmss"	/* the pool's name (comm) */
#define GUARD_COMM "memstat-rmss-gd"	/* the guardian's */
/* "format_version" of rmss --json (docs/rmss.md): bumped when a key changes meaning or goes */
#define MS_RMSS_FORMAT_VERSION 1
#define MS_RMSS_PATH_MAX 512

/*
 * The state file (RUNDIR/memstat-rmss.state): everything rmss has changed on the machine, each
 * recorded before it exists, so that the guardian (after the driver's death) and -r (after
 * anything) undo exactly that.
 */
struct ms_rmss_state {
	pid_t pid;			/* the pool, with its start time; 0: none */
	unsigned long long starttime;
	double real_mb, simulated_mb, stolen_mb;
	int zram;			/* the zram device's number; -1: none */
	int cg_v;			/* the command's cgroup: 1 or 2; 0: none */
	char cgroup[MS_RMSS_PATH_MAX];	/* its directory */
	char freezer[MS_RMSS_PATH_MAX];	/* v1: its twin in the freezer hierarchy, or "" */
	char subtree[MS_RMSS_PATH_MAX];	/* a cgroup whose subtree_control rmss enabled memory in */
};

/* small helpers (rmss_util.c) */
void ms_rmss_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ms_rmss_sleep_ms(long ms);
unsigned long long ms_rmss_proc_starttime(pid_t pid, char *comm, size_t commlen);
void ms_rmss_run_path(char *buf, size_t len, const char *name);

/* the state file (rmss_guard.c) */
void ms_rmss_state_init(struct ms_rmss_state *s);
int ms_rmss_state_read(struct ms_rmss_state *s);
int ms_rmss_state_write(const struct ms_rmss_state *s);
void ms_rmss_state_remove(void);
bool ms_rmss_state_empty(const struct ms_rmss_state *s);
/* written when it records anything, removed when not; 0 or -errno */
int ms_rmss_state_sync(const struct ms_rmss_state *s);

/* the pool */
bool ms_rmss_pool_alive(const struct ms_rmss_state *s);
int ms_rmss_pool_stop(const struct ms_rmss_state *s);
/*
 * Start a pool holding stolen_mb mlocked, a fresh memstat (it maps nothing of this one's): it
 * is recorded in s and the state file before it takes any memory. watch_fd: a pidfd of the
 * driver, whose end ends the pool; -1 for -c's pool, kept until -r. MS_EXIT_*.
 */
int ms_rmss_pool_start(double stolen_mb, struct ms_rmss_state *s, int watch_fd);

/* the zram device, the cgroup: undone, quiet when there is nothing to undo; 0 or -1 */
int ms_rmss_zram_remove(int id);
int ms_rmss_cg_remove(const char *dir, int v, const char *freezer);
int ms_rmss_subtree_revert(const char *dir);

/*
 * Undo everything s records (but a live pool with keep_pool), updating s and the state file
 * as it goes; 0 or -1
 */
int ms_rmss_undo(struct ms_rmss_state *s, bool keep_pool);

/*
 * The guardian: a fresh memstat, in a session of its own, that holds the lock with the driver
 * and, when the driver ends without saying it restored everything (SIGKILL, a crash, the OOM
 * killer), undoes what the state file records. Started before anything is changed.
 */
struct ms_rmss_guard {
	pid_t pid;
	int ctl;		/* the driver's end of the control pipe */
	char scope[64];		/* the systemd scope it runs in (--cgroup under systemd), or "" */
};
/*
 * scope: --cgroup on cgroup v2 under systemd, where the guardian is started in a transient
 * scope with Delegate=yes (memstat-rmss-PID.scope, by systemd-run) for the command's cgroup
 * to be made in; where that fails, one line says so and the guardian starts as elsewhere.
 */
int ms_rmss_guard_start(struct ms_rmss_guard *g, int lock_fd, int pidfd, bool scope);
/* cgroup v2 with the memory controller, systemd its manager (/run/systemd/system): rmss_cgroup.c */
bool ms_rmss_systemd_v2(void);
/* the driver restored everything: the guardian ends without touching anything */
void ms_rmss_guard_stop(struct ms_rmss_guard *g);
/* a pidfd of this process (-1 before Linux 5.3) */
int ms_rmss_self_pidfd(void);

/* the hidden verbs: memstat rmss --internal-pool / --internal-guard (rmss_guard.c) */
int ms_rmss_internal_main(int argc, char **argv);

/* ---- what the rmss files share ---- */

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

struct rmss_opts {
	bool change, print, reset, cgroup, json;
	double change_mb, start, final, delta, zram_mb;
	bool start_set, final_set, delta_set;
	long iterations;	/* 0: auto */
	bool ok_status[256];	/* exit statuses that are answers, not failures (0 always) */
	const char *output, *plot;
	char **cmd;
	int ncmd;
};

/* ---- the machine ---- */

struct machine {
	double real_mb;		/* MemTotal */
	double swap_mb;		/* SwapTotal */
	long page_kb;
};

/* ---- the walk (the floor, the class split) ---- */

struct walker {
	struct ms_backend be;
	struct ms_ranges ranges;
	bool open;
};

/* ---- the cgroup ---- */

struct cg {
	int v;			/* 1 or 2; 0: none */
	char dir[MS_RMSS_PATH_MAX];
	char freezer[MS_RMSS_PATH_MAX];	/* v1: the twin in the freezer hierarchy, or "" */
	int peak_fd;		/* v2 memory.peak opened per size (reset per fd, 6.12+), or -1 */
};

/* the cgroup's page-ins: its refaults (docs/rmss.md), and its OOM kills */
struct cg_count {
	long long refaults, majfaults, oom_kills;
};

struct size_row {
	double mb;
	int measured, ok_runs, oom_kills;
	int failed;		/* measured runs that failed (a status not accepted, a signal) */
	int exit_status;	/* the last failed run's, as a shell gives it ($?): 128 + signal */
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
	struct ms_picture_out plot;	/* --plot FILE.svg or FILE.png (picture.c) */
	FILE *out;		/* the report's stream: -o FILE's temporary file, or NULL for -o - */
	bool reporting;		/* the report has begun: it is finished whatever happens */
	bool to_stdout;
	struct size_row *rows;
	int nrows;
	double floor_mb;
	long iterations;
};

/* rmss_machine.c */
int ms_rmss_read_machine(struct machine *m);
int ms_rmss_walker_open(struct walker *w, unsigned int bpf_flags);
int ms_rmss_walker_walk(struct walker *w, struct ms_result *res);
void ms_rmss_walker_close(struct walker *w);
int ms_rmss_safe_floor(struct walker *w, const struct machine *m, double pool_mb, double *floor_mb,
		      struct ms_result *res);
int ms_rmss_take_lock(int *fdp);
int ms_rmss_zram_setup(double mb, struct ms_rmss_state *s, char *dev, size_t devlen);
/* rmss_cgroup.c */
int ms_rmss_cg_create(struct cg *cg, struct ms_rmss_state *st, const struct ms_rmss_guard *g);
int ms_rmss_cg_file(const struct cg *cg, const char *name, char *path, size_t len);
int ms_rmss_cg_limit(struct cg *cg, double mb, double swap_mb);
void ms_rmss_cg_counts(const struct cg *cg, struct cg_count *c);
double ms_rmss_cg_peak_mb(const struct cg *cg);
void ms_rmss_cg_pages(const struct cg *cg, double *mb);
int ms_rmss_cg_walk_pages(struct walker *w, const struct cg *cg, double page_mb, double *mb);
/* rmss.c */
int ms_rmss_driver_main(struct rmss_opts *o);
/* rmss_report.c */
/* the report, to -o FILE and (unless --json) stdout */
void ms_rmss_emit(struct driver *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ms_rmss_print_header(struct driver *d, double start_mb);
void ms_rmss_print_row(struct driver *d, const struct size_row *r);
double ms_rmss_knee(const struct driver *d, double *base_out, double *abs_out);
void ms_rmss_print_pages_table(struct driver *d);
void ms_rmss_print_json(struct driver *d, double knee_mb, bool interrupted);
int ms_rmss_write_plot(struct driver *d);

#endif /* MEMSTAT_RMSS_H */
