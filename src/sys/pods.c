// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kubernetes pods from memory cgroup paths, for memstat --by pod.
 *
 * The kubelet makes one cgroup per pod under a QoS cgroup (Guaranteed pods directly under the
 * kubepods cgroup), and the runtime one per container under the pod's:
 *   cgroupfs driver: kubepods/burstable/pod<uid>/<container id>, kubepods/pod<uid>/<id>
 *   systemd driver:  kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice/
 *                    cri-containerd-<id>.scope (crio-<id>, crio-conmon-<id>, docker-<id>), the
 *                    UID's dashes written '_'
 * on cgroup v1 (each controller's hierarchy) and v2 alike. The kubepods cgroup may sit deeper
 * (kind's kubelet.slice/kubelet-kubepods.slice, a runtime nested in a container).
 *
 * The names (namespace, pod, container) are not in the cgroup tree: the runtime keeps them in
 * each container's OCI bundle, its config.json annotations. They are read as files (nothing is
 * executed, no socket is asked); a bundle whose pod UID is another pod's is ignored.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <jansson.h>

#include "memstat_int.h"
#include "groups.h"
#include "groups_int.h"
#include "pods.h"

const char *const ms_pod_qos_names[3] = { "guaranteed", "burstable", "besteffort" };

const char *const ms_pod_bundle_dirs[] = {
	"/run/containerd/io.containerd.runtime.v2.task/k8s.io",
	"/run/k3s/containerd/io.containerd.runtime.v2.task/k8s.io",
	"/run/containers/storage/overlay-containers",
	"/var/lib/docker/containers",
};
const size_t ms_pod_nbundle_dirs = sizeof(ms_pod_bundle_dirs) / sizeof(ms_pod_bundle_dirs[0]);

/* a path component [s, s + n) */
struct comp {
	const char *s;
	size_t n;
};

static bool is(const struct comp *c, const char *w)
{
	return c->n == strlen(w) && !memcmp(c->s, w, c->n);
}

static bool ends(const struct comp *c, const char *w)
{
	size_t k = strlen(w);

	return c->n >= k && !memcmp(c->s + c->n - k, w, k);
}

/* letters, digits, '-' and '_' (what UIDs and container ids are made of), 1 to max - 1 */
static bool id_ok(const char *s, size_t n, size_t max)
{
	if (!n || n >= max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '-' || s[i] == '_'))
			return false;
	return true;
}

/* "kubepods", "kubepods.slice", "kubelet-kubepods.slice" */
static bool is_kubepods(const struct comp *c)
{
	return is(c, "kubepods") || is(c, "kubepods.slice") || ends(c, "-kubepods.slice");
}

static bool is_qos(const struct comp *c, const char *q)
{
	char slice[32];

	snprintf(slice, sizeof(slice), "-%s.slice", q);	/* kubepods-burstable.slice */
	return is(c, q) || (ends(c, slice) && c->n > strlen(slice));
}

/* the pod's component: "pod<uid>" or "...-pod<uid_>.slice": its UID, with dashes */
static bool pod_uid(const struct comp *c, char *uid)
{
	const char *s;
	size_t n;

	if (c->n > 3 && !memcmp(c->s, "pod", 3) && !ends(c, ".slice")) {
		s = c->s + 3;
		n = c->n - 3;
	} else if (ends(c, ".slice")) {
		const char *p = NULL;

		for (const char *q = c->s; q + 4 <= c->s + c->n - 6; q++)
			if (!memcmp(q, "-pod", 4))
				p = q;	/* the last one */
		if (!p)
			return false;
		s = p + 4;
		n = (size_t)(c->s + c->n - 6 - s);
	} else {
		return false;
	}
	if (!id_ok(s, n, MS_POD_ID_MAX))
		return false;
	for (size_t i = 0; i < n; i++)
		uid[i] = s[i] == '_' ? '-' : s[i];
	uid[n] = '\0';
	return true;
}

/* the container's component: "<id>" (cgroupfs) or "<runtime>-<id>.scope" (systemd) */
static bool container_id(const struct comp *c, struct ms_pod_path *p)
{
	const char *s = c->s, *dash = NULL;
	size_t n = c->n;

	p->runtime[0] = '\0';
	if (ends(c, ".scope")) {
		n -= 6;
		for (const char *q = s; q < s + n; q++)
			if (*q == '-')
				dash = q;
		if (!dash || (size_t)(dash - s) >= sizeof(p->runtime))
			return false;
		memcpy(p->runtime, s, (size_t)(dash - s));
		p->runtime[dash - s] = '\0';
		n -= (size_t)(dash + 1 - s);
		s = dash + 1;
	}
	if (!id_ok(s, n, MS_POD_ID_MAX))
		return false;
	memcpy(p->container, s, n);
	p->container[n] = '\0';
	return true;
}

bool ms_pod_parse(const char *path, struct ms_pod_path *p)
{
	enum { KUBEPODS, QOS_OR_POD, POD, CONTAINER } st = KUBEPODS;
	const char *s = path;

	memset(p, 0, sizeof(*p));
	while (*s) {
		struct comp x;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		x.s = s;
		while (*s && *s != '/')
			s++;
		x.n = (size_t)(s - x.s);
		switch (st) {
		case KUBEPODS:
			if (is_kubepods(&x))
				st = QOS_OR_POD;
			break;
		case QOS_OR_POD:
			if (is_qos(&x, "burstable") || is_qos(&x, "besteffort")) {
				p->qos = is_qos(&x, "burstable") ? MS_QOS_BURSTABLE :
								    MS_QOS_BESTEFFORT;
				st = POD;
				break;
			}
			/* a Guaranteed pod */
			__attribute__((fallthrough));
		case POD:
			if (!pod_uid(&x, p->uid))
				return false;	/* kubepods/something-else: no pod */
			p->pod_end = (size_t)(s - path);
			st = CONTAINER;
			break;
		case CONTAINER:
			/* a cgroup under the pod that names no container: the pod's */
			if (container_id(&x, p))
				p->container_end = (size_t)(s - path);
			else
				p->container[0] = p->runtime[0] = '\0';
			return true;	/* the cgroups below: the container's */
		}
	}
	return p->pod_end != 0;
}

/* c's ancestor (or c) whose path is len long, or NULL */
static const struct ms_cgroup *ancestor(const struct ms_cgroups *cg, const struct ms_cgroup *c,
					size_t len)
{
	while (c && strlen(c->path) > len && c->depth)
		c = ms_cgroups_find(cg, c->parent);
	return c && strlen(c->path) == len ? c : NULL;
}

bool ms_pod_cgroup(const struct ms_cgroups *cg, const struct ms_cgroup *c, struct ms_pod_path *p)
{
	const struct ms_cgroup *pod;

	if (!ms_pod_parse(c->path, p))
		return false;
	pod = ancestor(cg, c, p->pod_end);
	return pod && pod->uid == 0;
}

__u64 ms_pod_group_of(const struct ms_cgroups *cg, __u64 id)
{
	const struct ms_cgroup *c = ms_cgroups_find(cg, id);
	struct ms_pod_path p;

	if (!c)
		return id;
	if (!ms_pod_cgroup(cg, c, &p))
		return 0;
	c = ancestor(cg, c, p.container_end ? p.container_end : p.pod_end);
	return c ? c->id : 0;
}

/* ---- the names, from the OCI bundles ---- */

#define BUNDLE_MAX (4 << 20)

/* a regular file, not through a symbolic link, of BUNDLE_MAX bytes at most, as JSON */
static json_t *load(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	json_t *j = NULL;
	char *buf;
	size_t got = 0;
	ssize_t r;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > BUNDLE_MAX ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size && (r = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)r;
	close(fd);
	if (got == (size_t)st.st_size)
		j = json_loadb(buf, got, JSON_REJECT_DUPLICATES, NULL);
	free(buf);
	return j;
}

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s && *s ? s : NULL;
}

static void put(char *dst, const char *s)
{
	snprintf(dst, MS_POD_NAME_MAX, "%s", s ? s : "");
}

/* the annotations (labels) of a bundle's JSON into names; false: another pod's, or none */
static bool names_from(json_t *a, const char *uid, struct ms_pod_names *n)
{
	/* containerd's CRI plugin, then CRI-O's and Docker's (dockershim, cri-dockerd) */
	const char *ns = str(a, "io.kubernetes.cri.sandbox-namespace");
	const char *pod = str(a, "io.kubernetes.cri.sandbox-name");
	const char *ctr = str(a, "io.kubernetes.cri.container-name");
	const char *type = str(a, "io.kubernetes.cri.container-type");
	const char *puid = str(a, "io.kubernetes.cri.sandbox-uid");

	if (!ns && !pod) {
		ns = str(a, "io.kubernetes.pod.namespace");
		pod = str(a, "io.kubernetes.pod.name");
		ctr = str(a, "io.kubernetes.container.name");
		type = str(a, "io.kubernetes.cri-o.ContainerType");
		puid = str(a, "io.kubernetes.pod.uid");
	}
	if (!ns || !pod || (puid && uid && strcmp(puid, uid)))
		return false;
	n->sandbox = (type && !strcmp(type, "sandbox")) || (ctr && !strcmp(ctr, "POD"));
	put(n->namespace_, ns);
	put(n->pod, pod);
	put(n->container, n->sandbox ? "POD" : ctr);
	return n->found = true;
}

void ms_pod_names_read(const char *const *dirs, size_t n, const char *id, const char *uid,
		       struct ms_pod_names *names)
{
	static const char *const files[] = { "config.json", "userdata/config.json",
					     "config.v2.json" };

	memset(names, 0, sizeof(*names));
	if (!id_ok(id, strlen(id), MS_POD_ID_MAX))
		return;
	for (size_t d = 0; d < n; d++)
		for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
			char path[4096];
			json_t *j, *a;
			bool ok;

			if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dirs[d], id, files[f]) >=
			    sizeof(path))
				continue;
			j = load(path);
			if (!j)
				continue;
			a = json_object_get(j, "annotations");
			if (!json_is_object(a))	/* Docker's config.v2.json */
				a = json_object_get(json_object_get(j, "Config"), "Labels");
			ok = json_is_object(a) && names_from(a, uid, names);
			json_decref(j);
			if (ok)
				return;
		}
}

/* ---- the group engine's name() of --by pod (groups.c) ---- */

/*
 * pod: the groups are the cgroups' until the walk ends, then pod_rekey() puts each in its
 * container's (pods.c ms_pod_group_of()). A row's name: "namespace/pod/container" from the
 * container's OCI bundle ("namespace/pod" for pages charged to the pod's own cgroup, its names
 * from any of its containers' bundles), else "pod UID/container id" (12 digits, as crictl shows
 * it); "(not in a pod)"; a removed cgroup or one outside the view as --by cgroup names it.
 */
static void pod_names_of_pod(struct ms_groups *g, __u64 pod_id, const char *uid,
			     struct ms_pod_names *n)
{
	struct ms_pod_path p;

	for (size_t i = 0; i < g->cgroups->n && !n->found; i++)
		if (g->cgroups->c[i].parent == pod_id && ms_pod_cgroup(g->cgroups, &g->cgroups->c[i], &p) &&
		    p.container[0])
			ms_pod_names_read(g->bundle_dirs, g->nbundle_dirs, p.container, uid, n);
}

int ms_pod_name(struct ms_groups *g, struct ms_group *grp)
{
	const struct ms_cgroup *c = grp->k1 == MS_POD_NONE_KEY || !g->cgroups ? NULL :
				    ms_cgroups_find(g->cgroups, grp->k1);
	struct pod_extra *e;

	if (grp->k1 == MS_POD_NONE_KEY) {
		grp->name = strdup("(not in a pod)");
		return grp->name ? 0 : -ENOMEM;
	}
	e = calloc(1, sizeof(*e) + (c ? strlen(c->path) : 0) + 1);
	if (!e)
		return -ENOMEM;
	free(grp->extra);
	grp->extra = e;
	if (!c || !ms_pod_cgroup(g->cgroups, c, &e->path)) {	/* removed, or outside the view */
		enum ms_cgroup_where w;

		grp->name = ms_cgroup_name(g->cgroups, grp->k1, &w);
		e->elsewhere = w == MS_CG_ELSEWHERE;
		e->removed = w == MS_CG_REMOVED;
		return grp->name ? 0 : -ENOMEM;
	}
	strcpy(e->cgroup, c->path);
	e->in_pod = true;
	if (e->path.container[0])
		ms_pod_names_read(g->bundle_dirs, g->nbundle_dirs, e->path.container, e->path.uid,
				  &e->names);
	else
		pod_names_of_pod(g, c->id, e->path.uid, &e->names);
	if (e->names.found && e->path.container[0])
		grp->name = ms_strdupf("%s/%s/%s", e->names.namespace_, e->names.pod,
				       e->names.container);
	else if (e->names.found)
		grp->name = ms_strdupf("%s/%s", e->names.namespace_, e->names.pod);
	else if (e->path.container[0])
		grp->name = ms_strdupf("pod %s/%.12s", e->path.uid, e->path.container);
	else
		grp->name = ms_strdupf("pod %s", e->path.uid);
	return grp->name ? 0 : -ENOMEM;
}
