// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Every whole file memstat writes (rmss's report, --plot and state file, the map and plot
 * pictures, the Prometheus textfile) goes through here, because memstat runs as root in
 * directories that others may own. The destination's directory is opened once and everything
 * after is relative to that descriptor: the content goes to a temporary file made in it (O_TMPFILE, else a
 * random name with O_CREAT | O_EXCL | O_NOFOLLOW), is fsynced, linked under a random name and
 * renamed over the destination. No symbolic link is followed and no existing file is written
 * in place, so a link planted at the destination or at a temporary name can neither redirect
 * nor truncate anything. An existing destination is replaced only when it is a regular file
 * with one name, owned by this user, and empty or memstat's own output of that kind (checked
 * when opening and again just before the rename); otherwise the answer is exit 2 and the file
 * is left alone. "-", /dev/stdout and /dev/fd/N name a descriptor, written as it is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "memstat_int.h"
#include "outfile.h"

#define KIND(what, begin) { what, begin, sizeof(begin) - 1 }
static const struct {
	const char *what;	/* "refusing to replace FILE: it is not WHAT" */
	const char *begin;	/* how memstat's file of that kind begins */
	size_t len;
} kinds[] = {
	[MS_OUT_RMSS] = KIND("a memstat rmss report", "Hostname:  "),
	/* as ms_svg_begin() writes it */
	[MS_OUT_SVG] = KIND("an SVG written by memstat", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "),
	[MS_OUT_PNG] = KIND("a PNG", "\x89PNG\r\n\x1a\n"),
	[MS_OUT_PROM] = KIND("a memstat Prometheus file", "# HELP memstat_pages "),
	[MS_OUT_RMSS_STATE] = KIND("a memstat rmss state file", "pid "),
};

int ms_out_errno_exit(int err)
{
	switch (err) {
	case ENOSPC:
	case EDQUOT:
	case EIO:
	case ENOMEM:
	case EMFILE:
	case ENFILE:
	case EINTR:
	case EAGAIN:
		return MS_EXIT_FAIL;
	default:
		return MS_EXIT_USAGE;
	}
}

int ms_out_fd_name(const char *path)
{
	const char *n = NULL;
	char *end;
	long v;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strncmp(path, "/dev/fd/", 8))
		n = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		n = path + 14;
	if (!n || *n < '0' || *n > '9')
		return -1;
	errno = 0;
	v = strtol(n, &end, 10);
	return *end || errno || v > 1 << 20 ? -1 : (int)v;
}

/* a fresh random name for the temporary file */
static void tmp_name(struct ms_out *o)
{
	unsigned long long r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (unsigned long long)ts.tv_nsec * 2654435761u ^ (unsigned long long)getpid() << 32 ^
		    (unsigned long long)ts.tv_sec;
	}
	snprintf(o->tmp, sizeof(o->tmp), ".memstat-%016llx.tmp", r);
}

/*
 * The destination as it is now: absent, or a file memstat may replace (see the top). Opened
 * (never followed) only after lstat says it is a regular file, so no device or FIFO is opened.
 */
static int target_ok(struct ms_out *o, char *why, size_t whylen)
{
	char buf[128];
	struct stat st, fst;
	ssize_t n;
	int fd, err;

	if (fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW)) {
		err = errno;
		if (err == ENOENT)
			return MS_EXIT_OK;
		snprintf(why, whylen, "cannot use %s: %s", o->path, strerror(err));
		return ms_out_errno_exit(err);
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, whylen, "refusing to write %s: it is a symbolic link", o->path);
		return MS_EXIT_USAGE;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "%s is a directory: -o needs a file's name", o->path);
		return MS_EXIT_USAGE;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "refusing to replace %s: not a regular file", o->path);
		return MS_EXIT_USAGE;
	}
	if (st.st_nlink > 1) {
		snprintf(why, whylen, "refusing to replace %s: it has %lu hard links (write to a "
			 "file of its own)", o->path, (unsigned long)st.st_nlink);
		return MS_EXIT_USAGE;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, whylen, "refusing to replace %s: it belongs to uid %u, not to this "
			 "user (uid %u)", o->path, (unsigned)st.st_uid, (unsigned)geteuid());
		return MS_EXIT_USAGE;
	}
	if (!st.st_size)
		return MS_EXIT_OK;
	fd = openat(o->dirfd, o->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		snprintf(why, whylen, "cannot read %s: %s", o->path, strerror(err));
		return ms_out_errno_exit(err);
	}
	if (fstat(fd, &fst) || fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
		close(fd);
		snprintf(why, whylen, "refusing to replace %s: it changed while memstat checked it",
			 o->path);
		return MS_EXIT_USAGE;
	}
	n = pread(fd, buf, kinds[o->kind].len, 0);
	err = errno;
	close(fd);
	if (n < 0) {
		snprintf(why, whylen, "cannot read %s: %s", o->path, strerror(err));
		return MS_EXIT_FAIL;
	}
	if ((size_t)n != kinds[o->kind].len || memcmp(buf, kinds[o->kind].begin, (size_t)n)) {
		snprintf(why, whylen, "refusing to replace %s: it is not %s (write to a new file, "
			 "or remove it first)", o->path, kinds[o->kind].what);
		return MS_EXIT_USAGE;
	}
	return MS_EXIT_OK;
}

int ms_out_check_fd(const char *path, char *why, size_t whylen)
{
	int fd = ms_out_fd_name(path), fl = fd >= 0 ? fcntl(fd, F_GETFL) : 0;

	if (fd >= 0 && (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)) {
		snprintf(why, whylen, "%s: descriptor %d is not open for writing", path, fd);
		return MS_EXIT_USAGE;
	}
	return MS_EXIT_OK;
}

int ms_out_open(struct ms_out *o, const char *path, enum ms_out_kind kind, mode_t mode,
		char *why, size_t whylen)
{
	char dir[4096];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	int fd = ms_out_fd_name(path), ret, err;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->kind = kind;
	o->fd = o->dirfd = -1;
	if (fd >= 0) {
		if (ms_out_check_fd(path, why, whylen))
			return MS_EXIT_USAGE;
		o->fd = fd;
		o->direct = true;
		return MS_EXIT_OK;
	}
	if (!*path) {
		snprintf(why, whylen, "an output file's name is needed");
		return MS_EXIT_USAGE;
	}
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		snprintf(why, whylen, "%s is a directory: -o needs a file's name", path);
		return MS_EXIT_USAGE;
	}
	if (strlen(base) >= sizeof(o->name) || (size_t)(base - path) >= sizeof(dir)) {
		snprintf(why, whylen, "%s: name too long", path);
		return MS_EXIT_USAGE;
	}
	strcpy(o->name, base);
	if (slash == path)
		strcpy(dir, "/");
	else if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		strcpy(dir, ".");
	/* read-only, so that the directory can be fsynced after the rename; O_PATH where the
	 * directory cannot be read */
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0 && errno == EACCES)
		o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0) {
		err = errno;
		if (err == ENOENT || err == ENOTDIR)
			snprintf(why, whylen, "%s: no directory %s", path, dir);
		else
			snprintf(why, whylen, "%s: cannot open the directory %s: %s", path, dir,
				 strerror(err));
		return ms_out_errno_exit(err);
	}
	ret = target_ok(o, why, whylen);
	if (ret)
		goto fail;
	o->fd = openat(o->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	if (o->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* a file system without O_TMPFILE: a fresh name of our own */
		for (int i = 0; i < 100 && o->fd < 0; i++) {
			tmp_name(o);
			o->fd = openat(o->dirfd, o->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
				       O_CLOEXEC, mode);
			if (o->fd < 0 && errno != EEXIST)
				break;
		}
		o->named = o->fd >= 0;
	}
	if (o->fd < 0) {
		err = errno;
		snprintf(why, whylen, "%s: cannot create a file in %s: %s", path, dir, strerror(err));
		ret = ms_out_errno_exit(err);
		goto fail;
	}
	return MS_EXIT_OK;
fail:
	ms_out_abort(o);
	return ret;
}

int ms_out_commit(struct ms_out *o, char *why, size_t whylen)
{
	char proc[64];
	int ret, err;

	if (o->direct) {
		o->fd = -1;	/* not ours to close */
		return MS_EXIT_OK;
	}
	if (fsync(o->fd)) {
		err = errno;
		snprintf(why, whylen, "failed to write %s: %s", o->path, strerror(err));
		ret = MS_EXIT_FAIL;
		goto fail;
	}
	/* an O_TMPFILE file gets a name first (rename cannot replace with a nameless file) */
	for (int i = 0; i < 100 && !o->named; i++) {
		tmp_name(o);
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
		if (!linkat(AT_FDCWD, proc, o->dirfd, o->tmp, AT_SYMLINK_FOLLOW) ||
		    (errno == ENOENT && !linkat(o->fd, "", o->dirfd, o->tmp, AT_EMPTY_PATH)))
			o->named = true;
		else if (errno != EEXIST)
			break;
	}
	if (!o->named) {
		err = errno;
		snprintf(why, whylen, "failed to write %s: %s", o->path, strerror(err));
		ret = MS_EXIT_FAIL;
		goto fail;
	}
	/* what is there now (the directory's owner may have changed it meanwhile) */
	ret = target_ok(o, why, whylen);
	if (ret)
		goto fail;
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->name)) {
		err = errno;
		snprintf(why, whylen, "failed to write %s: %s", o->path, strerror(err));
		ret = ms_out_errno_exit(err);
		goto fail;
	}
	o->named = false;
	fsync(o->dirfd);	/* the rename, durable (EBADF for an O_PATH descriptor) */
	ms_out_abort(o);
	return MS_EXIT_OK;
fail:
	ms_out_abort(o);
	return ret;
}

void ms_out_abort(struct ms_out *o)
{
	if (o->named && o->dirfd >= 0)
		unlinkat(o->dirfd, o->tmp, 0);
	o->named = false;
	if (o->fd >= 0 && !o->direct)
		close(o->fd);
	o->fd = -1;
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
}
