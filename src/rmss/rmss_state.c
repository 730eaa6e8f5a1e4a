// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat rmss's state file (RUNDIR/memstat-rmss.state): what rmss has changed on the machine,
 * written before each change exists and replaced whole through outfile.c, so that -r and the
 * guardian (rmss_guard.c) undo what a crash could leave, and only that.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "memstat_int.h"
#include "meminfo.h"
#include "outfile.h"
#include "rmss.h"

/* ---- the state file ---- */

/*
 * A path from the state file that rmss may remove or change: absolute, no "..", and a directory
 * of a cgroup file system (v1 or v2) wherever it is mounted. One that no longer exists is
 * nothing to undo.
 */
static bool on_cgroupfs(const char *p)
{
	struct statfs sf;
	size_t n = strlen(p);

	if (p[0] != '/' || strstr(p, "/../") || (n >= 3 && !strcmp(p + n - 3, "/..")))
		return false;
	return !statfs(p, &sf) && (sf.f_type == CGROUP_SUPER_MAGIC ||
				   sf.f_type == CGROUP2_SUPER_MAGIC);
}

void ms_rmss_state_init(struct ms_rmss_state *s)
{
	memset(s, 0, sizeof(*s));
	s->zram = -1;
}

bool ms_rmss_state_empty(const struct ms_rmss_state *s)
{
	return s->pid <= 0 && s->zram < 0 && !s->cgroup[0] && !s->freezer[0] && !s->subtree[0];
}

static void read_path(const char *p, char *dst, size_t len)
{
	size_t n = strcspn(p, "\n");

	if (n >= len)
		n = 0;	/* not one of ours: nothing */
	memcpy(dst, p, n);
	dst[n] = '\0';
}

int ms_rmss_state_read(struct ms_rmss_state *s)
{
	char path[512], buf[4096];
	const char *p;

	ms_rmss_state_init(s);
	ms_rmss_run_path(path, sizeof(path), "state");
	if (ms_read_text(path, buf, sizeof(buf)))
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, "pid ", 4))
			s->pid = (pid_t)strtol(p + 4, NULL, 10);
		else if (!strncmp(p, "starttime ", 10))
			s->starttime = strtoull(p + 10, NULL, 10);
		else if (!strncmp(p, "real_mb ", 8))
			s->real_mb = strtod(p + 8, NULL);
		else if (!strncmp(p, "simulated_mb ", 13))
			s->simulated_mb = strtod(p + 13, NULL);
		else if (!strncmp(p, "stolen_mb ", 10))
			s->stolen_mb = strtod(p + 10, NULL);
		else if (!strncmp(p, "zram ", 5))
			s->zram = (int)strtol(p + 5, NULL, 10);
		else if (!strncmp(p, "cgroup_v ", 9))
			s->cg_v = (int)strtol(p + 9, NULL, 10);
		else if (!strncmp(p, "cgroup ", 7))
			read_path(p + 7, s->cgroup, sizeof(s->cgroup));
		else if (!strncmp(p, "freezer ", 8))
			read_path(p + 8, s->freezer, sizeof(s->freezer));
		else if (!strncmp(p, "subtree ", 8))
			read_path(p + 8, s->subtree, sizeof(s->subtree));
	}
	/* only cgroups are ever removed or changed: directories of a cgroup file system */
	if (!on_cgroupfs(s->cgroup))
		s->cgroup[0] = '\0';
	if (!on_cgroupfs(s->freezer))
		s->freezer[0] = '\0';
	if (!on_cgroupfs(s->subtree))
		s->subtree[0] = '\0';
	if (!s->cgroup[0])
		s->cg_v = 0;
	return 0;
}

/* the state file, replaced whole through outfile.c; 0 or -errno (the reason said on stderr) */
int ms_rmss_state_write(const struct ms_rmss_state *s)
{
	char path[512], why[600], buf[4096];
	struct ms_out o;
	int n, ret;

	ms_rmss_run_path(path, sizeof(path), "state");
	/* "pid " first: outfile.c knows the file by it */
	n = snprintf(buf, sizeof(buf), "pid %d\nstarttime %llu\nreal_mb %.4f\nsimulated_mb %.4f\n"
		     "stolen_mb %.4f\nzram %d\n", s->pid, s->starttime, s->real_mb,
		     s->simulated_mb, s->stolen_mb, s->zram);
	if (s->cgroup[0])
		n += snprintf(buf + n, sizeof(buf) - n, "cgroup_v %d\ncgroup %s\n", s->cg_v,
			      s->cgroup);
	if (s->freezer[0])
		n += snprintf(buf + n, sizeof(buf) - n, "freezer %s\n", s->freezer);
	if (s->subtree[0])
		n += snprintf(buf + n, sizeof(buf) - n, "subtree %s\n", s->subtree);
	ret = ms_out_open(&o, path, MS_OUT_RMSS_STATE, 0644, why, sizeof(why));
	if (!ret) {
		if (write(o.fd, buf, (size_t)n) != n) {
			snprintf(why, sizeof(why), "failed to write %s: %s", path,
				 strerror(errno ? errno : EIO));
			ms_out_abort(&o);
			ret = MS_EXIT_FAIL;
		} else {
			ret = ms_out_commit(&o, why, sizeof(why));
		}
	}
	if (ret) {
		ms_rmss_err("%s", why);
		return ret == MS_EXIT_USAGE ? -EPERM : -EIO;
	}
	return 0;
}

void ms_rmss_state_remove(void)
{
	char path[512];

	ms_rmss_run_path(path, sizeof(path), "state");
	unlink(path);
}

int ms_rmss_state_sync(const struct ms_rmss_state *s)
{
	if (ms_rmss_state_empty(s)) {
		ms_rmss_state_remove();
		return 0;
	}
	return ms_rmss_state_write(s);
}
