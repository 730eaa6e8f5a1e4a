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

#define POOL_COMM "memstat-rmss"	/* the pool's name (comm) */
#define GUARD_COMM "memstat-rmss-gd"	/* the guardian's */
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
int ms_rmss_write_str(const char *path, const char *s);
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
};
int ms_rmss_guard_start(struct ms_rmss_guard *g, int lock_fd, int pidfd);
/* the driver restored everything: the guardian ends without touching anything */
void ms_rmss_guard_stop(struct ms_rmss_guard *g);
/* a pidfd of this process (-1 before Linux 5.3) */
int ms_rmss_self_pidfd(void);

/* the hidden verbs: memstat rmss --internal-pool / --internal-guard (rmss_guard.c) */
int ms_rmss_internal_main(int argc, char **argv);

#endif /* MEMSTAT_RMSS_H */
