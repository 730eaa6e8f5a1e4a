// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * How a picture reaches its file: the SVG goes to a temporary file beside -o FILE and is
 * renamed over it, so that FILE is either the old file, whole, or the new picture. A PNG is
 * rendered from that SVG by headless Chromium (a screenshot of the page at the picture's size)
 * into another temporary file, checked, and renamed the same way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "picture.h"

#define CHROMIUM_TIMEOUT_S 120

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcasecmp(s + n - m, suf);
}

/* the directory part of path ("." when it has none) */
static void dir_of(const char *path, char *dir, size_t len)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(dir, len, "%s", dirname(tmp));
}

int ms_picture_check_output(const char *path, bool *png, char *why, size_t whylen)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!path || !*path) {
		snprintf(why, whylen, "-o FILE is needed: the picture's file (.svg or .png)");
		return MS_EXIT_USAGE;
	}
	if (strlen(path) >= PATH_MAX - 32) {
		snprintf(why, whylen, "output file name too long");
		return MS_EXIT_USAGE;
	}
	if (!lstat(path, &st)) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(why, whylen, "%s is a directory: -o needs a file name ending in "
				 ".svg or .png", path);
			return MS_EXIT_USAGE;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(why, whylen, "%s is not a regular file (a link, a device, ...): "
				 "refusing to replace it", path);
			return MS_EXIT_USAGE;
		}
	}
	if (has_suffix(path, ".svg")) {
		*png = false;
	} else if (has_suffix(path, ".png")) {
		*png = true;
	} else {
		snprintf(why, whylen, "%s: the output file's name must end in .svg or .png", path);
		return MS_EXIT_USAGE;
	}
	dir_of(path, dir, sizeof(dir));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "%s: no directory %s", path, dir);
		return MS_EXIT_USAGE;
	}
	if (access(dir, W_OK)) {
		snprintf(why, whylen, "%s: cannot write in %s: %s", path, dir, strerror(errno));
		return MS_EXIT_USAGE;
	}
	return 0;
}

const char *ms_chromium_path(void)
{
	static const char *names[] = { "chromium", "chromium-browser", "google-chrome",
				       "chrome" };
	static char found[PATH_MAX];
	const char *env = getenv("MEMSTAT_CHROMIUM"), *path = getenv("PATH");

	if (env && *env)
		return access(env, X_OK) ? NULL : env;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *p = path;

		while (*p) {
			size_t n = strcspn(p, ":");

			if (n && snprintf(found, sizeof(found), "%.*s/%s", (int)n, p, names[i]) <
				 (int)sizeof(found) && !access(found, X_OK))
				return found;
			p += n + (p[n] == ':');
		}
	}
	return NULL;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

/* chromium --headless ... --screenshot=png file://svg; 0 or an errno-style failure with why */
static int render_png(const char *svg, const char *png, double w, double h, char *why,
		      size_t whylen)
{
	const char *chromium = ms_chromium_path();
	char profile[] = "/tmp/memstat-chromium-XXXXXX", url[PATH_MAX + 16], abs[PATH_MAX];
	char shot[PATH_MAX + 16], size[64], udd[64];
	struct timespec t0, now;
	int status = 0, ret = 0;
	pid_t pid, r;

	if (!chromium) {
		snprintf(why, whylen, "a PNG needs headless Chromium (the chromium package, or "
			 "MEMSTAT_CHROMIUM=PATH), and none was found: write an .svg instead");
		return -ENOENT;
	}
	if (!realpath(svg, abs)) {
		snprintf(why, whylen, "%s: %s", svg, strerror(errno));
		return -errno;
	}
	if (!mkdtemp(profile)) {
		snprintf(why, whylen, "cannot make a temporary directory for Chromium: %s",
			 strerror(errno));
		return -errno;
	}
	snprintf(url, sizeof(url), "file://%s", abs);
	snprintf(shot, sizeof(shot), "--screenshot=%s", png);
	snprintf(size, sizeof(size), "--window-size=%.0f,%.0f", w, h);
	snprintf(udd, sizeof(udd), "--user-data-dir=%s", profile);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "cannot start Chromium: %s", strerror(errno));
		ret = -errno;
		goto out;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		setpgid(0, 0);	/* its helpers in one group, to be ended together on a timeout */
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		/* --no-sandbox: Chromium's sandbox refuses root, and the page is our own SVG */
		execl(chromium, chromium, "--headless", "--no-sandbox", "--disable-gpu",
		      "--hide-scrollbars", "--no-first-run", "--disable-extensions",
		      "--default-background-color=ffffffff", udd, size, shot, url, (char *)NULL);
		_exit(127);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > CHROMIUM_TIMEOUT_S) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			snprintf(why, whylen, "Chromium did not render the PNG within %d s",
				 CHROMIUM_TIMEOUT_S);
			ret = -ETIMEDOUT;
			goto out;
		}
		usleep(50 * 1000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(why, whylen, "%s failed to render the PNG (%s %d)", chromium,
			 WIFEXITED(status) ? "exit status" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		ret = -EIO;
	}
out:
	nftw(profile, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return ret;
}

/* a PNG file that begins with the signature and an IHDR of the size asked for */
static bool png_ok(const char *path, double w, double h)
{
	unsigned char b[24];
	FILE *f = fopen(path, "rb");
	bool ok;

	if (!f)
		return false;
	ok = fread(b, 1, sizeof(b), f) == sizeof(b) && !memcmp(b, "\x89PNG\r\n\x1a\n", 8) &&
	     !memcmp(b + 12, "IHDR", 4);
	fclose(f);
	if (ok) {
		unsigned long pw = (unsigned long)b[16] << 24 | b[17] << 16 | b[18] << 8 | b[19];
		unsigned long ph = (unsigned long)b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23];

		/* a screenshot at the window size (a high-DPI screen could double it) */
		ok = pw >= (unsigned long)w && ph >= (unsigned long)h;
	}
	return ok;
}

int ms_picture_write(const char *path, bool png, int (*draw)(FILE *f, void *arg), void *arg,
		     double w, double h, char *why, size_t whylen)
{
	char dir[PATH_MAX], svg_tmp[PATH_MAX + 64], png_tmp[PATH_MAX + 64];
	mode_t mask = umask(0);
	int fd, ret = MS_EXIT_FAIL, err;
	FILE *f;

	umask(mask);
	dir_of(path, dir, sizeof(dir));
	snprintf(svg_tmp, sizeof(svg_tmp), "%s/.memstat-picture-XXXXXX.svg", dir);
	png_tmp[0] = 0;
	fd = mkostemps(svg_tmp, 4, O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: cannot create a temporary file in %s: %s", path, dir,
			 strerror(errno));
		return MS_EXIT_USAGE;
	}
	fchmod(fd, 0666 & ~mask);
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		goto out;
	}
	err = draw(f, arg);
	if (fflush(f) || ferror(f) || fsync(fileno(f)))
		err = err ? err : -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (err) {
		snprintf(why, whylen, "failed to write %s: %s", path, strerror(err < 0 ? -err : EIO));
		goto out;
	}
	if (!png) {
		if (rename(svg_tmp, path)) {
			snprintf(why, whylen, "failed to write %s: %s", path, strerror(errno));
			goto out;
		}
		svg_tmp[0] = 0;
		ret = MS_EXIT_OK;
		goto out;
	}
	snprintf(png_tmp, sizeof(png_tmp), "%s/.memstat-picture-XXXXXX.png", dir);
	fd = mkostemps(png_tmp, 4, O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: cannot create a temporary file in %s: %s", path, dir,
			 strerror(errno));
		png_tmp[0] = 0;
		goto out;
	}
	fchmod(fd, 0666 & ~mask);
	close(fd);
	err = render_png(svg_tmp, png_tmp, w, h, why, whylen);
	if (err) {
		ret = err == -ENOENT ? MS_EXIT_USAGE : MS_EXIT_FAIL;
		goto out;
	}
	if (!png_ok(png_tmp, w, h)) {
		snprintf(why, whylen, "Chromium wrote no PNG of %.0fx%.0f pixels for %s", w, h, path);
		goto out;
	}
	if (rename(png_tmp, path)) {
		snprintf(why, whylen, "failed to write %s: %s", path, strerror(errno));
		goto out;
	}
	png_tmp[0] = 0;
	ret = MS_EXIT_OK;
out:
	if (svg_tmp[0])
		unlink(svg_tmp);
	if (png_tmp[0])
		unlink(png_tmp);
	return ret;
}
