/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Whole files that memstat writes, as root (outfile.c): rmss's report, --plot and state file,
 * the map and plot pictures, the Prometheus textfile. See outfile.c for the rules.
 */
#ifndef MEMSTAT_OUTFILE_H
#define MEMSTAT_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* what an existing file must look like to be replaced (besides empty) */
enum ms_out_kind {
	MS_OUT_RMSS,	/* rmss's report: its first line, "Hostname:  " */
	MS_OUT_SVG,	/* an SVG as svg.c begins one */
	MS_OUT_PNG,	/* a PNG: its signature */
	MS_OUT_PROM,	/* the Prometheus textfile: "# HELP memstat_pages " */
	MS_OUT_RMSS_STATE,	/* rmss's state file: "pid " */
};

struct ms_out {
	const char *path;	/* as given, for messages */
	enum ms_out_kind kind;
	int fd;			/* the temporary file (read-write), or the descriptor itself */
	int dirfd;		/* the destination's directory; -1 for a descriptor */
	bool direct;		/* -, /dev/stdout, /dev/fd/N: fd is that descriptor */
	bool named;		/* tmp is a name in the directory (removed by ms_out_abort) */
	char name[256];		/* the destination's last component */
	char tmp[64];		/* the temporary file's name */
};
#define MS_OUT_INIT { .fd = -1, .dirfd = -1 }

/*
 * The exit code of a failed open(2) or the like: 1 for a failure of the system (full, I/O
 * error, out of memory or descriptors), else 2 (no such directory, no permission, ...)
 */
int ms_out_errno_exit(int err);
/* N for "-" (1), "/dev/stdout" (1), "/dev/fd/N" and "/proc/self/fd/N"; else -1 */
int ms_out_fd_name(const char *path);
/*
 * A descriptor path names must be open for writing: MS_EXIT_USAGE with why, else 0. Checked
 * before memstat opens anything of its own, which could take that number.
 */
int ms_out_check_fd(const char *path, char *why, size_t whylen);
/*
 * Check path's destination and create the temporary file its content goes to (o->fd, mode
 * subject to the umask), or take the descriptor path names. Returns 0, or MS_EXIT_USAGE (a
 * place or a file memstat may not use: nothing was created) or MS_EXIT_FAIL, with why.
 */
int ms_out_open(struct ms_out *o, const char *path, enum ms_out_kind kind, mode_t mode,
		char *why, size_t whylen);
/* fsync the content and rename it over the destination (checked again); closes o. MS_EXIT_* */
int ms_out_commit(struct ms_out *o, char *why, size_t whylen);
/* Drop the temporary file, leave the destination as it was; closes o. Idempotent. */
void ms_out_abort(struct ms_out *o);

#endif /* MEMSTAT_OUTFILE_H */
