// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat rmss --cgroup: the command's memory cgroup, made where the caller may make one,
 * limited to each size, and what it tells of the command: page-ins, peak, classes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "memstat_int.h"
#include "backend.h"
#include "cgroup.h"
#include "groups.h"
#include "meminfo.h"
#include "escape.h"
#include "outfile.h"
#include "rmss.h"
#include "testhooks.h"
#include "svg.h"

#define rerr ms_rmss_err


/* where the cgroup hierarchies are mounted (cgroup.c reads it, as memstat --by cgroup does) */
#define MOUNTINFO "/proc/self/mountinfo"

/* the memory cgroup v2 has enabled in dir's subtree_control */
static bool v2_memory_enabled(const char *dir)
{
	char path[MS_RMSS_PATH_MAX + 32], ctl[256] = "";

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	return !ms_read_text(path, ctl, sizeof(ctl)) && strstr(ctl, "memory");
}

/* +memory in dir's subtree_control, recorded before, disabled again at the end; 0 or -1 */
static int v2_enable_memory(const char *dir, struct ms_rmss_state *st)
{
	char path[MS_RMSS_PATH_MAX + 32];
	int err;

	snprintf(st->subtree, sizeof(st->subtree), "%s", dir);
	if (ms_rmss_state_write(st)) {
		st->subtree[0] = '\0';
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	err = ms_write_str(path, "+memory");
	if (err) {
		rerr("--cgroup: cannot enable the memory controller in %s: %s", path,
			    strerror(-err));
		st->subtree[0] = '\0';
		ms_rmss_state_sync(st);
		return -1;
	}
	return 0;
}

/* the memory controller's hierarchy: 1 (v1), 2 (v2) or 0 (none mounted); where, if asked */
static int memory_hierarchy(char *point, size_t len)
{
	char *mount, *root;
	int v;

	if (ms_cgroup_find_mount(MOUNTINFO, &mount, &root, &v))
		return 0;
	if (point && (size_t)snprintf(point, len, "%s", mount) >= len)
		v = 0;
	free(mount);
	free(root);
	return v;
}

bool ms_rmss_systemd_v2(void)
{
	struct stat st;

	return memory_hierarchy(NULL, 0) == 2 && !lstat("/run/systemd/system", &st) &&
	       S_ISDIR(st.st_mode);
}

/*
 * Under systemd (cgroup v2): the guardian runs in memstat-rmss-PID.scope, which systemd made
 * with Delegate=yes, so that the subtree below it is rmss's to shape. The guardian moves to a
 * leaf of its own (guard), the memory controller is enabled in the scope's subtree_control (a
 * scope without processes of its own may), and the command's cgroup is the scope's "command".
 * Nothing outside the scope is changed; when the guardian ends and the scope is empty,
 * systemd removes it (--collect: even when it failed). 0, or MS_EXIT_FAIL said.
 */
static int in_scope(struct cg *cg, const struct ms_rmss_guard *g)
{
	char dir[MS_RMSS_PATH_MAX], path[MS_RMSS_PATH_MAX + 32];
	char pid[24], ctl[256] = "";
	const char *base;
	int err, v;

	err = ms_cgroup_dir_of(MOUNTINFO, g->pid, "memory", dir, sizeof(dir), &v);
	if (err == -ENAMETOOLONG) {
		rerr("--cgroup: the cgroup path is too long");
		return MS_EXIT_FAIL;
	}
	if (err || v != 2 || !(base = strrchr(dir, '/')) || strcmp(base + 1, g->scope)) {
		rerr("--cgroup: the guardian is not in %s", g->scope);
		return MS_EXIT_FAIL;
	}
	if ((size_t)snprintf(cg->dir, sizeof(cg->dir), "%s/command", dir) >= sizeof(cg->dir)) {
		rerr("--cgroup: the cgroup path is too long");
		return MS_EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	if (ms_read_text(path, ctl, sizeof(ctl)) || !strstr(ctl, "memory")) {
		rerr("--cgroup: systemd gave %s no memory controller", g->scope);
		return MS_EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/guard", dir);
	if (mkdir(path, 0755) && errno != EEXIST) {
		rerr("--cgroup: mkdir %s: %s", path, strerror(errno));
		return MS_EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/guard/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", (int)g->pid);
	err = ms_write_str(path, pid);
	if (!err) {
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
		err = ms_write_str(path, "+memory");
	}
	if (err) {
		rerr("--cgroup: cannot write %s: %s", path, strerror(-err));
		return MS_EXIT_FAIL;
	}
	return 0;
}

/*
 * The command's cgroup, memstat-rmss-PID, made where the caller may make one (docs/rmss.md,
 * "Where the cgroup is made"): on v1, under the caller's own memory cgroup
 * (v1 has no rule against processes beside child cgroups), with a twin under the caller's
 * freezer cgroup when the freezer is mounted (to end its processes frozen); on v2, beside the
 * caller's cgroup (a cgroup with processes in it cannot enable controllers for its children),
 * at the root only for a caller in the root. The memory controller is enabled in the parent's
 * subtree_control only where it is not, recorded and disabled again at the end. Each is
 * recorded in st and the state file before it is made.
 */
int ms_rmss_cg_create(struct cg *cg, struct ms_rmss_state *st, const struct ms_rmss_guard *g)
{
	char self[MS_RMSS_PATH_MAX], parent[MS_RMSS_PATH_MAX], mount[MS_RMSS_PATH_MAX];
	int v = memory_hierarchy(mount, sizeof(mount)), err;

	cg->peak_fd = -1;
	cg->freezer[0] = '\0';
	if (v == 1) {
		cg->v = 1;
		err = ms_cgroup_dir_of(MOUNTINFO, getpid(), "memory", self, sizeof(self), &v);
		if (err || (size_t)snprintf(cg->dir, sizeof(cg->dir), "%s/memstat-rmss-%d", self,
					    getpid()) >= sizeof(cg->dir)) {
			rerr("--cgroup: cannot tell this process's memory cgroup%s",
			     err == -ENAMETOOLONG ? ": its path is too long" : "");
			cg->v = 0;
			return MS_EXIT_FAIL;
		}
		/* its twin under the freezer, when v1's freezer is mounted */
		if (!ms_cgroup_dir_of(MOUNTINFO, getpid(), "freezer", self, sizeof(self), &v) &&
		    v == 1 &&
		    (size_t)snprintf(cg->freezer, sizeof(cg->freezer), "%s/memstat-rmss-%d", self,
				     getpid()) >= sizeof(cg->freezer))
			cg->freezer[0] = '\0';
	} else {
		char *slash;

		if (v != 2) {
			rerr("--cgroup: no memory cgroup controller mounted (neither a v1 "
			     "hierarchy with memory nor v2 with memory in cgroup.controllers)");
			return MS_EXIT_FAIL;
		}
		cg->v = 2;
		if (g->scope[0]) {
			if (in_scope(cg, g)) {
				cg->v = 0;
				return MS_EXIT_FAIL;
			}
			goto make;
		}
		err = ms_cgroup_dir_of(MOUNTINFO, getpid(), "memory", self, sizeof(self), &v);
		if (err) {
			rerr("--cgroup: %s", err == -ENAMETOOLONG ? "the cgroup path is too long" :
			     "cannot tell this process's cgroup");
			cg->v = 0;
			return MS_EXIT_FAIL;
		}
		/* its parent (the root for the root's children); a caller in the root: the root */
		snprintf(parent, sizeof(parent), "%s", self);
		if (strcmp(parent, mount) && (slash = strrchr(parent, '/')))
			*slash = '\0';
		if ((size_t)snprintf(cg->dir, sizeof(cg->dir), "%s/memstat-rmss-%d", parent,
				     getpid()) >= sizeof(cg->dir)) {
			rerr("--cgroup: the cgroup path is too long");
			cg->v = 0;
			return MS_EXIT_FAIL;
		}
		if (!v2_memory_enabled(parent) && v2_enable_memory(parent, st)) {
			cg->v = 0;
			return MS_EXIT_FAIL;
		}
	}
make:
	st->cg_v = cg->v;
	snprintf(st->cgroup, sizeof(st->cgroup), "%s", cg->dir);
	snprintf(st->freezer, sizeof(st->freezer), "%s", cg->freezer);
	if (ms_rmss_state_write(st))
		goto undo;
	if (mkdir(cg->dir, 0755)) {
		rerr("--cgroup: mkdir %s: %s", cg->dir, strerror(errno));
		goto undo;
	}
	if (cg->freezer[0] && mkdir(cg->freezer, 0755)) {
		rerr("--cgroup: mkdir %s: %s", cg->freezer, strerror(errno));
		goto undo;
	}
	return 0;
undo:
	/* what was made is removed at the end (restore) */
	return MS_EXIT_FAIL;
}

int ms_rmss_cg_file(const struct cg *cg, const char *name, char *path, size_t len)
{
	return snprintf(path, len, "%s/%s", cg->dir, name);
}

/*
 * Limit the cgroup to mb, with swap as on a machine of that size: v1 memsw = the limit plus the
 * machine's swap, v2 swap.max = the machine's swap. 0 or the errno of the failed write.
 */
int ms_rmss_cg_limit(struct cg *cg, double mb, double swap_mb)
{
	char path[MS_RMSS_PATH_MAX + 32], val[64], swp[64];
	unsigned long long b = (unsigned long long)(mb * 1048576.0);
	unsigned long long s = (unsigned long long)(swap_mb * 1048576.0);
	int err;

	if (cg->v == 1) {
		char memsw[MS_RMSS_PATH_MAX + 32];

		ms_rmss_cg_file(cg, "memory.limit_in_bytes", path, sizeof(path));
		ms_rmss_cg_file(cg, "memory.memsw.limit_in_bytes", memsw, sizeof(memsw));
		snprintf(val, sizeof(val), "%llu", b);
		snprintf(swp, sizeof(swp), "%llu", b + s);
		if (access(memsw, F_OK)) {
			err = ms_write_str(path, val);
		} else {
			/* memsw >= memory at every moment: raise memsw first, lower it last */
			err = ms_write_str(memsw, swp);
			if (!err)
				err = ms_write_str(path, val);
			if (!err)
				err = ms_write_str(memsw, swp);
			else
				(void)ms_write_str(path, val);
			if (err == -EINVAL) {
				err = ms_write_str(path, val);
				if (!err)
					err = ms_write_str(memsw, swp);
			}
		}
		if (!err) {
			ms_rmss_cg_file(cg, "memory.max_usage_in_bytes", path, sizeof(path));
			ms_write_str(path, "0");
		}
		return err;
	}
	ms_rmss_cg_file(cg, "memory.max", path, sizeof(path));
	snprintf(val, sizeof(val), "%llu", b);
	err = ms_write_str(path, val);
	if (err)
		return err;
	ms_rmss_cg_file(cg, "memory.swap.max", path, sizeof(path));
	snprintf(swp, sizeof(swp), "%llu", s);
	if (access(path, F_OK) == 0)
		ms_write_str(path, swp);
	if (cg->peak_fd >= 0)
		close(cg->peak_fd);
	ms_rmss_cg_file(cg, "memory.peak", path, sizeof(path));
	cg->peak_fd = open(path, O_RDWR | O_CLOEXEC);
	if (cg->peak_fd >= 0 && write(cg->peak_fd, "reset\n", 6) != 6) {
		close(cg->peak_fd);	/* before 6.12: the peak since creation, read by name */
		cg->peak_fd = -1;
	}
	return 0;
}

void ms_rmss_cg_counts(const struct cg *cg, struct cg_count *c)
{
	char path[MS_RMSS_PATH_MAX + 32];
	long long a, f;

	ms_rmss_cg_file(cg, "memory.stat", path, sizeof(path));
	a = ms_kv_file(path, "workingset_refault_anon");
	f = ms_kv_file(path, "workingset_refault_file");
	if (a < 0 && f < 0)	/* v2 before 5.9 */
		f = ms_kv_file(path, "workingset_refault");
	c->refaults = (a > 0 ? a : 0) + (f > 0 ? f : 0);
	c->majfaults = ms_kv_file(path, "pgmajfault");
	ms_rmss_cg_file(cg, cg->v == 1 ? "memory.oom_control" : "memory.events", path, sizeof(path));
	c->oom_kills = ms_kv_file(path, "oom_kill");
	if (c->oom_kills < 0)
		c->oom_kills = 0;
}

double ms_rmss_cg_peak_mb(const struct cg *cg)
{
	char path[MS_RMSS_PATH_MAX + 32], buf[64];

	if (cg->v == 1) {
		ms_rmss_cg_file(cg, "memory.max_usage_in_bytes", path, sizeof(path));
	} else if (cg->peak_fd >= 0) {
		ssize_t n = pread(cg->peak_fd, buf, sizeof(buf) - 1, 0);

		if (n <= 0)
			return -1;
		buf[n] = '\0';
		return strtoull(buf, NULL, 10) / 1048576.0;
	} else {
		ms_rmss_cg_file(cg, "memory.peak", path, sizeof(path));
	}
	if (ms_read_text(path, buf, sizeof(buf)) || !isdigit((unsigned char)buf[0]))
		return -1;
	return strtoull(buf, NULL, 10) / 1048576.0;
}

/* the cgroup's own pages from memory.stat, MB per class (kernel, anon, shmem, page cache) */
void ms_rmss_cg_pages(const struct cg *cg, double *mb)
{
	char path[MS_RMSS_PATH_MAX + 32];
	static char buf[65536];
	long long v;

	for (int i = 0; i < MS_NR_CLASSES; i++)
		mb[i] = -1;
	ms_rmss_cg_file(cg, "memory.stat", path, sizeof(path));
	if (ms_read_text(path, buf, sizeof(buf)))
		return;
	if (cg->v == 1) {
		long long cache = ms_kv_get(buf, "cache"), shmem = ms_kv_get(buf, "shmem");

		v = ms_kv_get(buf, "rss");
		mb[MS_C_ANON] = v >= 0 ? v / 1048576.0 : -1;
		mb[MS_C_SHMEM] = shmem >= 0 ? shmem / 1048576.0 : -1;
		if (cache >= 0)
			mb[MS_C_PAGE_CACHE] = (cache - (shmem > 0 ? shmem : 0)) / 1048576.0;
		ms_rmss_cg_file(cg, "memory.kmem.usage_in_bytes", path, sizeof(path));
		{
			char k[64];

			if (!ms_read_text(path, k, sizeof(k)) && isdigit((unsigned char)k[0]))
				mb[MS_C_KERNEL] = strtoull(k, NULL, 10) / 1048576.0;
		}
		return;
	}
	v = ms_kv_get(buf, "anon");
	mb[MS_C_ANON] = v >= 0 ? v / 1048576.0 : -1;
	v = ms_kv_get(buf, "shmem");
	mb[MS_C_SHMEM] = v >= 0 ? v / 1048576.0 : -1;
	v = ms_kv_get(buf, "file");
	if (v >= 0)
		mb[MS_C_PAGE_CACHE] = (v - (mb[MS_C_SHMEM] > 0 ? mb[MS_C_SHMEM] * 1048576.0 : 0)) /
				      1048576.0;
	v = ms_kv_get(buf, "kernel");
	mb[MS_C_KERNEL] = v >= 0 ? v / 1048576.0 : -1;
}

/*
 * The cgroup's own pages from a record walk, MB per class, as `memstat --by cgroup` counts them
 * (the group whose id is the cgroup directory's inode): 0 when the walk cannot be made.
 */
int ms_rmss_cg_walk_pages(struct walker *w, const struct cg *cg, double page_mb, double *mb)
{
	struct ms_groups *g;
	struct ms_result res;
	struct stat st;
	int ret;

	if (!w->open || stat(cg->dir, &st))
		return -1;
	g = ms_groups_new(MS_BY_CGROUP, 0);
	if (!g)
		return -1;
	memset(&res, 0, sizeof(res));
	ret = ms_groups_reset(g) ? -1 : ms_backend_pages(&w->be, &w->ranges, &res, ms_groups_page, g);
	if (!ret) {
		for (int c = 0; c < MS_NR_CLASSES; c++)
			mb[c] = c == MS_C_UNKNOWN ? -1 : 0;
		for (size_t i = 0; i < ms_groups_count(g); i++) {
			const struct ms_group *x = ms_groups_at(g, i);

			if (x->k1 != (__u64)st.st_ino)
				continue;
			for (int k = 0; k < MS_NR_SUBS; k++)
				mb[ms_subs[k].cls] += x->sub[k] * page_mb;
		}
	}
	ms_groups_free(g);
	return ret ? -1 : 0;
}
