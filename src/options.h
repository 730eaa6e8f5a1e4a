/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* memstat's own command line (options.c): what memstat.c runs, as the options asked for it. */
#ifndef MEMSTAT_OPTIONS_H
#define MEMSTAT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "memstat_int.h"
#include "groups.h"
#include "sample.h"

#define MS_NR_BY_KEYS 8	/* the group engine's keys (groups.h MS_NR_BY), at most */

struct ms_opts {
	bool attributes;	/* -a */
	bool verbose, json, reconcile, runs, features, fsync, sampling, rotate_incompatible;
	bool approx, seed_given;	/* --approx[=FRACTION], --seed N */
	double approx_fraction;
	__u64 seed;
	enum ms_backend_choice backend;
	unsigned int jobs;	/* --jobs N; 0: ms_jobs_auto() */
	int by;			/* --by KEY: enum ms_by; -1: not given (or process) */
	int bys[MS_NR_BY_KEYS];	/* every --by KEY of the group engine, by[0] == by (serve and
				 * -f prom take several) */
	size_t nby;
	bool by_process;	/* --by process or command (procs.c) */
	bool by_command;	/* --by command: processes summed by name */
	size_t top;		/* --top N; 0: the key's default */
	bool min_set;		/* --min SIZE given */
	__u64 min_bytes;
	bool tree;		/* --tree: with --by cgroup, hierarchical totals */
	double wss;		/* -w, --wss SECONDS: the working set's window; 0: none */
#define MS_MAX_BUNDLE_DIRS 8
	const char *bundle_dirs[MS_MAX_BUNDLE_DIRS];	/* --oci-bundles DIR (--by pod) */
	size_t nbundle_dirs;
	const char *core;	/* --core FILE: a crash dump (src/cmd/vmcore.c) */
	const char *btf;	/* --btf FILE: its kernel's BTF */
	const char *symbols;	/* --symbols FILE: its kernel's System.map or vmlinux */
	int compare;		/* --compare TOOL: enum ms_compare_tool (report.h); 0 none */
	bool serve;		/* memstat serve (serve.c): --listen, --interval */
	const char *listen;
	const char *output;
	int format;		/* -1: not given, else enum ms_format */
	struct ms_sample_opts so;
};

/*
 * Parse memstat's options into o: 0, or MS_EXIT_USAGE after one line on stderr (and the hint);
 * --help and --version print and exit 0.
 */
int ms_parse_args(int argc, char **argv, struct ms_opts *o);

/* whether --by KEY (enum ms_by) was given, as one of several or alone */
bool ms_opts_by(const struct ms_opts *o, enum ms_by k);

/* With --json, errors go to stdout as {"error": "..."} too (ms_fail_json()). */
extern bool ms_json_errors;
void ms_fail_json(const char *msg);

#endif /* MEMSTAT_OPTIONS_H */
