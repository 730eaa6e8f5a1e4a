// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory cgroups for memstat --by cgroup and allpages --cgroup: the walk records each page's
 * memcg as kernfs_node.id of the memcg's cgroup (bpf/memstat.bpf.c cgroup_of(), the module's
 * memcg_cgroup_id()), which on 64-bit is the inode number of the cgroup's directory in the
 * memory controller's hierarchy. The hierarchy's mount comes from /proc/self/mountinfo (v1: a
 * "cgroup" mount with the memory option; v2: the "cgroup2" mount, when its cgroup.controllers
 * lists memory; a hybrid system has its memory controller on v1), and its directories are
 * walked once and stat()ed: the cgroup file system holds only the cgroups. An id found in no
 * directory is a cgroup outside the mount's view (a container's), or a removed cgroup (a memcg
 * gone offline that still holds pages): ms_cgroup_where() asks the kernel which.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "escape.h"
#include "meminfo.h"
#include "mountinfo.h"

/* Is word one of the comma-separated words of list? */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* Does the v2 hierarchy mounted at point have controller ctrl? */
static bool v2_has(const char *point, const char *ctrl)
{
	char path[PATH_MAX], line[4096];
	bool yes = false;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/cgroup.controllers", point) >= (int)sizeof(path))
		return false;
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		for (char *save = NULL, *t = strtok_r(line, " ", &save); t;
		     t = strtok_r(NULL, " ", &save))
			yes |= !strcmp(t, ctrl);
	}
	fclose(f);
	return yes;
}

int ms_cgroup_find_controller(const char *mountinfo, const char *ctrl, char **mount, char **root,
			      int *version)
{
	struct ms_mountinfo mi = {};
	const struct ms_mountinfo_entry *best = NULL;
	int best_rank = 0, best_version = 0;
	int err;

	*mount = *root = NULL;
	*version = 0;
	err = ms_mountinfo_load(mountinfo, &mi);
	if (err)
		return err;
	for (size_t k = 0; k < mi.n; k++) {
		const struct ms_mountinfo_entry *e = &mi.m[k];
		int v = 0, rank;

		if (!strcmp(e->fstype, "cgroup") && has_word(e->superopts, ctrl))
			v = 1;
		else if (!strcmp(e->fstype, "cgroup2") && v2_has(e->point, ctrl))
			v = 2;
		if (!v)
			continue;
		/* v1 before v2 (a hybrid system's memory controller is on v1); the root first */
		rank = (v == 1 ? 4 : 2) + !strcmp(e->root, "/");
		if (rank <= best_rank)
			continue;
		best = e;
		best_rank = rank;
		best_version = v;
	}
	if (!best) {
		ms_mountinfo_free(&mi);
		return -ENOENT;
	}
	*mount = strdup(best->point);
	*root = strdup(best->root);
	ms_mountinfo_free(&mi);
	if (!*mount || !*root) {
		free(*mount);
		free(*root);
		*mount = *root = NULL;
		return -ENOMEM;
	}
	*version = best_version;
	return 0;
}

int ms_cgroup_find_mount(const char *mountinfo, char **mount, char **root, int *version)
{
	return ms_cgroup_find_controller(mountinfo, "memory", mount, root, version);
}

int ms_cgroup_proc_path(char *text, int version, const char *ctrl, char *buf, size_t len)
{
	char *line, *next;

	for (line = text; line && *line; line = next) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *save = NULL;
		bool match = false;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!c2)
			continue;
		*c2 = '\0';
		if (version == 2)
			match = !strncmp(line, "0:", 2) && c2 == c1 + 1;
		else
			for (char *t = strtok_r(c1 + 1, ",", &save); t; t = strtok_r(NULL, ",", &save))
				match |= !strcmp(t, ctrl);
		if (!match)
			continue;
		if ((size_t)snprintf(buf, len, "%s", c2 + 1) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	return -ENOENT;
}

int ms_cgroup_dir_of(const char *mountinfo, pid_t pid, const char *ctrl, char *dir, size_t len,
		     int *version)
{
	char path[48], text[8192], rel[PATH_MAX], *mount = NULL, *root = NULL;
	const char *tail = rel;
	size_t rl;
	int err;

	*version = 0;
	err = ms_cgroup_find_controller(mountinfo, ctrl, &mount, &root, version);
	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	err = ms_read_text(path, text, sizeof(text));
	if (!err)
		err = ms_cgroup_proc_path(text, *version, ctrl, rel, sizeof(rel));
	/* the path is the cgroup's in the hierarchy; the mount shows it from root on */
	rl = strlen(root);
	if (!err && strcmp(root, "/")) {
		if (strncmp(rel, root, rl) || (rel[rl] && rel[rl] != '/'))
			err = -ENOENT;	/* outside what the mount shows */
		tail = rel + rl;
	}
	if (!err && !strcmp(tail, "/"))
		tail = "";
	if (!err && (size_t)snprintf(dir, len, "%s%s", mount, tail) >= len)
		err = -ENAMETOOLONG;
	free(mount);
	free(root);
	if (err)
		*version = 0;
	return err;
}

static int add(struct ms_cgroups *cg, size_t *cap, const struct stat *st, __u64 parent,
	       unsigned int depth, const char *path)
{
	struct ms_cgroup *c;

	if (cg->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;

		c = realloc(cg->c, ncap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		cg->c = c;
		*cap = ncap;
	}
	c = &cg->c[cg->n];
	c->path = strdup(path);
	if (!c->path)
		return -ENOMEM;
	c->id = st->st_ino;
	c->uid = st->st_uid;
	c->parent = parent;
	c->depth = depth;
	cg->n++;
	return 0;
}

/*
 * The subdirectories of dir (the cgroup whose path is rel and id is id), and theirs. Each
 * directory is read whole and closed before its children are: open directories never pile up.
 * Paths longer than PATH_MAX are left out (their pages show as removed cgroups).
 */
static int scan_dir(struct ms_cgroups *cg, size_t *cap, const char *dir, const char *rel,
		    __u64 id, unsigned int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, ncap = 0, i;
	int err = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;	/* removed while we look: not an error */
	while ((e = readdir(d))) {
		char **nn;

		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == ncap) {
			ncap = ncap ? ncap * 2 : 16;
			nn = realloc(names, ncap * sizeof(*nn));
			if (!nn) {
				err = -ENOMEM;
				break;
			}
			names = nn;
		}
		names[n] = strdup(e->d_name);
		if (!names[n]) {
			err = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	for (i = 0; i < n; i++) {
		char path[PATH_MAX], sub[PATH_MAX];
		struct stat st;

		if (!err && snprintf(path, sizeof(path), "%s/%s", dir, names[i]) < (int)sizeof(path) &&
		    snprintf(sub, sizeof(sub), "%s%s%s", rel, strcmp(rel, "/") ? "/" : "", names[i]) <
			    (int)sizeof(sub) &&
		    !lstat(path, &st) && S_ISDIR(st.st_mode) && (__u64)st.st_dev == cg->dev) {
			err = add(cg, cap, &st, id, depth + 1, sub);
			if (!err)
				err = scan_dir(cg, cap, path, sub, st.st_ino, depth + 1);
		}
		free(names[i]);
	}
	free(names);
	return err;
}

static int by_id(const void *a, const void *b)
{
	const struct ms_cgroup *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int ms_cgroups_scan(struct ms_cgroups *cg, const char *mount, const char *root)
{
	struct stat st;
	size_t cap = 0;
	int err;

	if (stat(mount, &st))
		return -errno;
	cg->dev = st.st_dev;
	err = add(cg, &cap, &st, 0, 0, root && *root ? root : "/");
	if (!err)
		err = scan_dir(cg, &cap, mount, cg->c[0].path, st.st_ino, 0);
	if (err)
		return err;
	qsort(cg->c, cg->n, sizeof(*cg->c), by_id);
	return 0;
}

int ms_cgroups_load(struct ms_cgroups *cg)
{
	int err;

	memset(cg, 0, sizeof(*cg));
	err = ms_cgroup_find_mount("/proc/self/mountinfo", &cg->mount, &cg->root, &cg->version);
	if (err)
		return err;
	return ms_cgroups_scan(cg, cg->mount, cg->root);
}

int ms_cgroup_read(const struct ms_cgroups *cg, const struct ms_cgroup *c, const char *file,
		   char *buf, size_t len)
{
	const char *rel = c->path;
	size_t rl = strcmp(cg->root, "/") ? strlen(cg->root) : 0;
	char path[4096];

	if (rl && !strncmp(rel, cg->root, rl))
		rel += rl;	/* the path from the mount's root */
	if (!strcmp(rel, "/"))
		rel = "";
	if (snprintf(path, sizeof(path), "%s%s/%s", cg->mount, rel, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return ms_read_text(path, buf, len);
}

const struct ms_cgroup *ms_cgroups_find(const struct ms_cgroups *cg, __u64 id)
{
	struct ms_cgroup key = { .id = id };

	return cg->n ? bsearch(&key, cg->c, cg->n, sizeof(*cg->c), by_id) : NULL;
}

void ms_cgroups_free(struct ms_cgroups *cg)
{
	for (size_t i = 0; i < cg->n; i++)
		free(cg->c[i].path);
	free(cg->c);
	free(cg->mount);
	free(cg->root);
	memset(cg, 0, sizeof(*cg));
}

/* the id of the cgroup at path (as --by cgroup names it) */
static bool path_id(const struct ms_cgroups *cg, const char *path, __u64 *id)
{
	for (size_t i = 0; i < cg->n; i++)
		if (!strcmp(cg->c[i].path, path)) {
			*id = cg->c[i].id;
			return true;
		}
	return false;
}

int ms_cgroup_resolve(const struct ms_cgroups *cg, const char *arg, __u64 *id)
{
	char want[PATH_MAX];
	size_t len;
	struct stat st;

	if (!*arg)
		return -ENOENT;
	if (strspn(arg, "0123456789") == strlen(arg)) {
		char *end;

		errno = 0;
		*id = strtoull(arg, &end, 10);
		return errno || !*id ? -ENOENT : 0;
	}
	/* the path as memstat prints it: "/a/b" (a leading '/' may be left out, trailing ones are) */
	len = strlen(arg);
	while (len > 1 && arg[len - 1] == '/')
		len--;
	if (snprintf(want, sizeof(want), "%s%.*s", *arg == '/' ? "" : "/", (int)len, arg) <
	    (int)sizeof(want)) {
		if (path_id(cg, want, id))
			return 0;
		/* as printed with a name's escapes (escape.h): "\\x2d" for a directory "\x2d" */
		if (strchr(want, '\\')) {
			size_t n = ms_unesc(want);

			if (n == strlen(want) && path_id(cg, want, id))
				return 0;
		}
	}
	/* the cgroup's directory, on the memory hierarchy's mount */
	if (cg->n && !stat(arg, &st) && S_ISDIR(st.st_mode) && (__u64)st.st_dev == cg->dev) {
		*id = st.st_ino;
		return 0;
	}
	return -ENOENT;
}

/*
 * An id in none of the mount's directories: the mount may show part of the hierarchy (a
 * container's cgroup namespace, a bind-mounted subtree), or the cgroup was removed. The kernel
 * opens a cgroup's directory by its id (a kernfs file handle, whose type name_to_handle_at() of
 * the mount gives: 8 bytes, the id) while the cgroup exists and answers ESTALE once it is
 * removed. Where it cannot be asked (no CAP_DAC_READ_SEARCH, no handles): removed, as before.
 */
enum ms_cgroup_where ms_cgroup_where(const struct ms_cgroups *cg, __u64 id)
{
	struct file_handle *h;
	int mfd, fd = -1, mnt_id;

	if (ms_cgroups_find(cg, id))
		return MS_CG_HERE;
	if (!cg->mount)
		return MS_CG_REMOVED;
	h = malloc(sizeof(*h) + MAX_HANDLE_SZ);
	mfd = h ? open(cg->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (mfd >= 0) {
		h->handle_bytes = MAX_HANDLE_SZ;
		if (!name_to_handle_at(mfd, "", h, &mnt_id, AT_EMPTY_PATH) &&
		    h->handle_bytes == sizeof(id)) {
			memcpy(h->f_handle, &id, sizeof(id));
			fd = open_by_handle_at(mfd, h, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
		close(mfd);
	}
	free(h);
	if (fd < 0)
		return MS_CG_REMOVED;
	close(fd);
	return MS_CG_ELSEWHERE;
}

char *ms_cgroup_name(const struct ms_cgroups *cg, __u64 id, enum ms_cgroup_where *where)
{
	const struct ms_cgroup *c = cg ? ms_cgroups_find(cg, id) : NULL;
	enum ms_cgroup_where w = MS_CG_HERE;
	char *s = NULL;

	if (c) {
		s = strdup(c->path);
	} else if (!cg) {
		if (asprintf(&s, "id %llu", (unsigned long long)id) < 0)
			s = NULL;
	} else {
		w = ms_cgroup_where(cg, id);
		if (asprintf(&s, "%s id %llu", w == MS_CG_ELSEWHERE ? "(outside this view)" :
			     "(removed)", (unsigned long long)id) < 0)
			s = NULL;
	}
	if (where)
		*where = w;
	return s;
}

/* ---- --tree ---- */

struct tree_ctx {
	const struct ms_cgroups *cg;
	__u64 *tree;		/* cg->n * nsub */
	__u64 *total;		/* cg->n */
	size_t *group;		/* cg->n: index into the input, or -1 */
	size_t *parent;		/* cg->n: index of the parent, or -1 */
	size_t *kids;		/* indices with pages, sorted by parent then total */
	size_t *first;		/* cg->n: where the children of each start in kids, or nkids */
	size_t nkids;
	size_t nsub;
	struct ms_cgroup_row *rows;
	size_t nrows;
};

static const struct tree_ctx *sort_tree;

static int by_parent_total(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct tree_ctx *t = sort_tree;

	if (t->parent[i] != t->parent[j])
		return t->parent[i] < t->parent[j] ? -1 : 1;
	if (t->total[i] != t->total[j])
		return t->total[i] > t->total[j] ? -1 : 1;
	return t->cg->c[i].id < t->cg->c[j].id ? -1 : t->cg->c[i].id > t->cg->c[j].id;
}

static int by_depth_desc(const void *a, const void *b)
{
	const struct ms_cgroup *x = &sort_tree->cg->c[*(const size_t *)a];
	const struct ms_cgroup *y = &sort_tree->cg->c[*(const size_t *)b];

	return x->depth > y->depth ? -1 : x->depth < y->depth;
}

static int by_tree_total(const void *a, const void *b)
{
	const struct ms_cgroup_row *x = a, *y = b;

	if (x->tree_total != y->tree_total)
		return x->tree_total > y->tree_total ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int emit(struct tree_ctx *t, size_t i)
{
	struct ms_cgroup_row *r = &t->rows[t->nrows++];
	size_t k;

	r->id = t->cg->c[i].id;
	r->parent = t->cg->c[i].parent;
	r->depth = t->cg->c[i].depth;
	r->group = t->group[i];
	r->tree = malloc(t->nsub * sizeof(*r->tree));
	if (!r->tree)
		return -ENOMEM;
	memcpy(r->tree, &t->tree[i * t->nsub], t->nsub * sizeof(*r->tree));
	r->tree_total = t->total[i];
	/* the children: a contiguous run of kids[] (sorted by parent) */
	for (k = t->first[i]; k < t->nkids && t->parent[t->kids[k]] == i; k++) {
		int err = emit(t, t->kids[k]);

		if (err)
			return err;
	}
	return 0;
}

int ms_cgroup_tree(const struct ms_cgroups *cg, const __u64 *ids, const __u64 *own, size_t n,
		   size_t nsub, size_t ncount, struct ms_cgroup_row **rows, size_t *nrows)
{
	struct tree_ctx t = { .cg = cg, .nsub = nsub };
	size_t *bydepth = NULL, i, j, nremoved = 0, first_removed;
	int err = -ENOMEM;

	*rows = NULL;
	*nrows = 0;
	t.tree = calloc(cg->n * nsub + 1, sizeof(*t.tree));
	t.total = calloc(cg->n + 1, sizeof(*t.total));
	t.group = malloc((cg->n + 1) * sizeof(*t.group));
	t.parent = malloc((cg->n + 1) * sizeof(*t.parent));
	t.kids = malloc((cg->n + 1) * sizeof(*t.kids));
	t.first = malloc((cg->n + 1) * sizeof(*t.first));
	bydepth = malloc((cg->n + 1) * sizeof(*bydepth));
	t.rows = calloc(cg->n + n + 1, sizeof(*t.rows));
	if (!t.tree || !t.total || !t.group || !t.parent || !t.kids || !t.first || !bydepth || !t.rows)
		goto out;
	for (i = 0; i < cg->n; i++) {
		const struct ms_cgroup *p = cg->c[i].depth ? ms_cgroups_find(cg, cg->c[i].parent) : NULL;

		t.group[i] = (size_t)-1;
		t.parent[i] = p ? (size_t)(p - cg->c) : (size_t)-1;
		bydepth[i] = i;
	}
	/* each group's own pages at its cgroup */
	for (j = 0; j < n; j++) {
		const struct ms_cgroup *c = ms_cgroups_find(cg, ids[j]);

		if (!c) {
			nremoved++;
			continue;
		}
		i = (size_t)(c - cg->c);
		t.group[i] = j;
		for (size_t s = 0; s < nsub; s++) {
			t.tree[i * nsub + s] += own[j * nsub + s];
			if (s < ncount)
				t.total[i] += own[j * nsub + s];
		}
	}
	/* then up the hierarchy, the deepest first */
	sort_tree = &t;
	qsort(bydepth, cg->n, sizeof(*bydepth), by_depth_desc);
	for (i = 0; i < cg->n; i++) {
		size_t c = bydepth[i], p = t.parent[c];

		if (p == (size_t)-1)
			continue;
		for (size_t s = 0; s < nsub; s++)
			t.tree[p * nsub + s] += t.tree[c * nsub + s];
		t.total[p] += t.total[c];
	}
	for (i = 0; i < cg->n; i++)
		if (t.total[i] && t.parent[i] != (size_t)-1)
			t.kids[t.nkids++] = i;
	qsort(t.kids, t.nkids, sizeof(*t.kids), by_parent_total);
	for (i = 0; i < cg->n; i++)
		t.first[i] = t.nkids;
	for (i = t.nkids; i-- > 0;)
		t.first[t.parent[t.kids[i]]] = i;
	/* depth first from the roots (the hierarchy's root; a cgroup whose parent is unknown) */
	for (i = 0; i < cg->n; i++)
		if (t.parent[i] == (size_t)-1 && t.total[i] && (err = emit(&t, i)))
			goto out;
	/* removed cgroups: roots of their own, the largest first */
	first_removed = t.nrows;
	for (j = 0; j < n && nremoved; j++) {
		struct ms_cgroup_row *r;
		__u64 sum = 0;

		if (ms_cgroups_find(cg, ids[j]))
			continue;
		for (size_t s = 0; s < ncount; s++)
			sum += own[j * nsub + s];
		if (!sum)
			continue;
		r = &t.rows[t.nrows++];
		r->id = ids[j];
		r->removed = true;
		r->group = j;
		r->tree = malloc(nsub * sizeof(*r->tree));
		if (!r->tree) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(r->tree, &own[j * nsub], nsub * sizeof(*r->tree));
		r->tree_total = sum;
	}
	qsort(&t.rows[first_removed], t.nrows - first_removed, sizeof(*t.rows), by_tree_total);
	err = 0;
out:
	if (err) {
		ms_cgroup_rows_free(t.rows, t.nrows);
	} else {
		*rows = t.rows;
		*nrows = t.nrows;
	}
	free(t.tree);
	free(t.total);
	free(t.group);
	free(t.parent);
	free(t.kids);
	free(t.first);
	free(bydepth);
	return err;
}

void ms_cgroup_rows_free(struct ms_cgroup_row *rows, size_t nrows)
{
	for (size_t i = 0; i < nrows; i++)
		free(rows[i].tree);
	free(rows);
}
