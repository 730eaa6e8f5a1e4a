// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * How a picture reaches its file, through outfile.c: the SVG goes to a temporary file in the
 * directory of -o FILE and is renamed over it, so that FILE is either the old file, whole, or
 * the new picture. A PNG is rendered from the SVG (in a memfd) by rsvg-convert, run by its
 * absolute path as nobody, reading the SVG on stdin and writing the PNG on stdout, which is the
 * temporary file itself: no file is opened by name. The PNG is checked through that descriptor
 * and renamed the same way. "-", /dev/stdout or /dev/fd/N take the SVG as it is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "picture.h"

#define RENDER_TIMEOUT_S 120
#define NOBODY 65534		/* the renderer's user and group */

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcasecmp(s + n - m, suf);
}

int ms_picture_open(struct ms_picture_out *po, const char *path, char *why, size_t whylen)
{
	struct stat st;

	po->png = false;
	po->out = (struct ms_out)MS_OUT_INIT;
	if (!path || !*path) {
		snprintf(why, whylen, "-o FILE is needed: the picture's file (.svg or .png)");
		return MS_EXIT_USAGE;
	}
	if (ms_out_fd_name(path) >= 0)	/* an SVG to a descriptor (a pipe, say) */
		return ms_out_open(&po->out, path, MS_OUT_SVG, 0666, why, whylen);
	if (has_suffix(path, ".png")) {
		po->png = true;
	} else if (!has_suffix(path, ".svg")) {
		if (!stat(path, &st) && S_ISDIR(st.st_mode))
			snprintf(why, whylen, "%s is a directory: -o needs a file name ending in "
				 ".svg or .png", path);
		else
			snprintf(why, whylen, "%s: the output file's name must end in .svg or .png",
				 path);
		return MS_EXIT_USAGE;
	}
	if (po->png && access(MS_RSVG_CONVERT, X_OK)) {
		snprintf(why, whylen, "a PNG is rendered by %s, which is missing: install "
			 "librsvg2-bin, or write an .svg", MS_RSVG_CONVERT);
		return MS_EXIT_USAGE;
	}
	return ms_out_open(&po->out, path, po->png ? MS_OUT_PNG : MS_OUT_SVG, 0666, why, whylen);
}

void ms_picture_close(struct ms_picture_out *po)
{
	ms_out_abort(&po->out);
}

/* draw(f, arg) to the descriptor fd (left open): 0 or -errno */
static int draw_to(int fd, int (*draw)(FILE *f, void *arg), void *arg)
{
	int dup_fd = dup(fd), err;
	FILE *f = dup_fd >= 0 ? fdopen(dup_fd, "w") : NULL;

	if (!f) {
		err = -errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return err;
	}
	err = draw(f, arg);
	if ((fflush(f) || ferror(f)) && !err)
		err = -(errno ? errno : EIO);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* the renderer's first line on stderr (its reason), without the newline */
static void first_line(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/* in the child: stdin svg, stdout png, stderr err; root's privileges dropped; never returns */
static void exec_renderer(int svg, int png, int err, const char *w, const char *h)
{
	char *const argv[] = { "rsvg-convert", "--format", "png", "--width", (char *)w,
			       "--height", (char *)h, "--background-color", "white", NULL };
	char *const envp[] = { "PATH=/usr/bin:/bin", "HOME=/nonexistent", "LC_ALL=C.UTF-8", NULL };
	int drop;

	setpgid(0, 0);	/* one group, ended together on a timeout */
	if (dup2(svg, 0) < 0 || dup2(png, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
#ifdef SYS_close_range
	syscall(SYS_close_range, 3, ~0U, 0);	/* nothing else of memstat's reaches it */
#endif
	if ((drop = ms_drop_root())) {
		dprintf(2, "cannot drop root's privileges to run %s: %s\n", MS_RSVG_CONVERT,
			strerror(-drop));
		_exit(126);
	}
	if (chdir("/")) {
		/* nothing it needs is relative */
	}
	execve(MS_RSVG_CONVERT, argv, envp);
	dprintf(2, "cannot run %s: %s\n", MS_RSVG_CONVERT, strerror(errno));
	_exit(127);
}

/* rsvg-convert of the SVG in svg (a descriptor) into png (a descriptor): MS_EXIT_* with why */
static int render_png(int svg, int png, double w, double h, char *why, size_t whylen)
{
	char ws[32], hs[32], msg[300];
	struct timespec t0, now;
	int status = 0, errfd, ret = MS_EXIT_OK;
	pid_t pid, r;

	errfd = memfd_create("memstat-rsvg-stderr", MFD_CLOEXEC);
	if (errfd < 0 || lseek(svg, 0, SEEK_SET) || ftruncate(png, 0) || lseek(png, 0, SEEK_SET)) {
		snprintf(why, whylen, "cannot prepare the PNG: %s", strerror(errno));
		if (errfd >= 0)
			close(errfd);
		return MS_EXIT_FAIL;
	}
	snprintf(ws, sizeof(ws), "%.0f", w);
	snprintf(hs, sizeof(hs), "%.0f", h);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "cannot start %s: %s", MS_RSVG_CONVERT, strerror(errno));
		close(errfd);
		return MS_EXIT_FAIL;
	}
	if (!pid)
		exec_renderer(svg, png, errfd, ws, hs);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > RENDER_TIMEOUT_S) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			snprintf(why, whylen, "%s did not render the PNG within %d s",
				 MS_RSVG_CONVERT, RENDER_TIMEOUT_S);
			close(errfd);
			return MS_EXIT_FAIL;
		}
		usleep(20 * 1000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		first_line(errfd, msg, sizeof(msg));
		snprintf(why, whylen, "%s failed to render the PNG (%s %d)%s%s", MS_RSVG_CONVERT,
			 WIFEXITED(status) ? "exit status" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			 msg[0] ? ": " : "", msg);
		ret = MS_EXIT_FAIL;
	}
	close(errfd);
	return ret;
}

/* the PNG in fd begins with the signature and an IHDR of w x h pixels */
static bool png_ok(int fd, double w, double h)
{
	unsigned char b[24];
	unsigned long pw, ph;

	if (pread(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b) ||
	    memcmp(b, "\x89PNG\r\n\x1a\n", 8) || memcmp(b + 12, "IHDR", 4))
		return false;
	pw = (unsigned long)b[16] << 24 | b[17] << 16 | b[18] << 8 | b[19];
	ph = (unsigned long)b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23];
	return pw == (unsigned long)lround(w) && ph == (unsigned long)lround(h);
}

int ms_picture_write(struct ms_picture_out *po, int (*draw)(FILE *f, void *arg), void *arg,
		     double w, double h, char *why, size_t whylen)
{
	const char *path = po->out.path;
	int svg = -1, err, ret = MS_EXIT_FAIL;

	if (!po->png) {
		err = draw_to(po->out.fd, draw, arg);
		if (err) {
			snprintf(why, whylen, "failed to write %s: %s", path, strerror(-err));
			goto out;
		}
		return ms_out_commit(&po->out, why, whylen);
	}
	svg = memfd_create("memstat-svg", MFD_CLOEXEC);
	err = svg < 0 ? -errno : draw_to(svg, draw, arg);
	if (err) {
		snprintf(why, whylen, "failed to write the SVG for %s: %s", path, strerror(-err));
		goto out;
	}
	ret = render_png(svg, po->out.fd, w, h, why, whylen);
	if (ret)
		goto out;
	if (!png_ok(po->out.fd, w, h)) {
		snprintf(why, whylen, "%s wrote no PNG of %.0fx%.0f pixels for %s", MS_RSVG_CONVERT,
			 w, h, path);
		ret = MS_EXIT_FAIL;
		goto out;
	}
	ret = ms_out_commit(&po->out, why, whylen);
out:
	if (svg >= 0)
		close(svg);
	ms_out_abort(&po->out);
	return ret;
}
