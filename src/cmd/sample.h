/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Periodic sampling: memstat INTERVAL [COUNT], to the terminal or a log (sample.c). */
#ifndef MEMSTAT_SAMPLE_H
#define MEMSTAT_SAMPLE_H

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

#include "memstat_int.h"
#include "report.h"

/* Periodic sampling (sample.c). */
enum ms_format { MS_FMT_ROWS, MS_FMT_CSV, MS_FMT_JSONL, MS_FMT_PROM };
struct ms_sink {
	enum ms_format fmt;
	const char *path;	/* NULL: stdout; "-", /dev/stdout, /dev/fd/N: that descriptor */
	bool fsync;
	bool rotate_incompatible;	/* rename a log of another memstat version aside */
	bool approx;		/* --approx: the CSV header has the error columns */
	bool attrs;		/* -a: the CSV header has the attribute columns */
	bool wss;		/* --wss: the CSV header has the window's columns */
	const char *serve_listen;	/* memstat serve: the exposition to its HTTP process */
	/* state */
	pid_t serve_child;	/* serve: the HTTP process (fd: the pipe to it) */
	int fd;
	bool direct;		/* fd is the descriptor path names (not ours to close) */
	bool tty;
	int term_rows;
	long rows;
};
int ms_sink_open(struct ms_sink *s, char *why, size_t whylen);
int ms_sink_write(struct ms_sink *s, const struct timespec *ts, const struct ms_result *r,
		  const struct ms_report_opts *o);
void ms_sink_close(struct ms_sink *s);

struct ms_sample_opts {
	double interval;	/* seconds */
	long count;		/* samples to take; 0: until interrupted */
	bool paced_by_walk;	/* --wss: each walk waits its window (ms_sample_sleep_until()) */
};
/* what a walk returns when a stop signal ended it before its sample was whole: none is written */
#define MS_SAMPLE_STOPPED (-EINTR)
typedef int (*ms_walk_fn)(void *arg, struct ms_result *res);
int ms_sample_loop(const struct ms_sample_opts *so, struct ms_sink *sink, ms_walk_fn walk,
		   void *walk_arg, const struct ms_report_opts *ro);
bool ms_stop_requested(void);
/*
 * Inside a walk of ms_sample_loop(): sleep until ms_now_ms() reads deadline_ms, or a stop
 * signal. false: stopped.
 */
bool ms_sample_sleep_until(double deadline_ms);
void ms_sample_signals(void);

#endif /* MEMSTAT_SAMPLE_H */
