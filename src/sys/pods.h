/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kubernetes pods from memory cgroup paths (pods.c), for memstat --by pod: which pod and
 * container a cgroup belongs to, as the kubelet names its cgroups under both cgroup drivers, and
 * the names the node's container runtime keeps in each container's OCI bundle.
 */
#ifndef MEMSTAT_PODS_H
#define MEMSTAT_PODS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "cgroup.h"

enum ms_pod_qos { MS_QOS_GUARANTEED, MS_QOS_BURSTABLE, MS_QOS_BESTEFFORT };
extern const char *const ms_pod_qos_names[3];	/* "guaranteed", "burstable", "besteffort" */

#define MS_POD_ID_MAX 128	/* a pod UID's or a container id's length, at most */

struct ms_pod_path {
	enum ms_pod_qos qos;
	char uid[MS_POD_ID_MAX];	/* the pod's UID as the API shows it (dashes, not '_') */
	char container[MS_POD_ID_MAX];	/* the container's id; "" for the pod's own cgroup */
	char runtime[32];		/* systemd driver: the scope's prefix ("cri-containerd",
					 * "crio", "crio-conmon", "docker"); cgroupfs: "" */
	size_t pod_end;			/* the length of the pod cgroup's path in the path */
	size_t container_end;		/* ... and of the container's (0: the pod's own cgroup) */
};

/*
 * Whether a cgroup path ("/kubepods/burstable/pod<uid>/<id>",
 * "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_>.slice/
 * cri-containerd-<id>.scope", at any depth: a kind node's kubelet.slice/kubelet-kubepods.slice,
 * a nested runtime's prefix) is in a pod: true, with *p filled; the cgroups below a container's
 * are that container's.
 */
bool ms_pod_parse(const char *path, struct ms_pod_path *p);

/*
 * Whether cgroup c of cg is in a pod (ms_pod_parse() of its path, *p filled) whose cgroup is
 * root's: a user given a delegated subtree makes cgroups of any name, owned by the user, and
 * could otherwise pass its own pages for a pod's.
 */
bool ms_pod_cgroup(const struct ms_cgroups *cg, const struct ms_cgroup *c, struct ms_pod_path *p);

/*
 * The cgroup whose group a cgroup's pages join in --by pod: the container's cgroup (or the pod's
 * own, for pages charged to it) of a cgroup in a pod; 0 for a cgroup in the hierarchy but in no
 * pod; id itself for an id not in the hierarchy (removed, or outside the mount's view).
 */
__u64 ms_pod_group_of(const struct ms_cgroups *cg, __u64 id);

/* The names the runtime gave a container, from its OCI bundle's annotations. */
#define MS_POD_NAME_MAX 256
struct ms_pod_names {
	bool found;			/* a bundle of this container, of this pod */
	bool sandbox;			/* the pod's sandbox ("pause") container */
	char namespace_[MS_POD_NAME_MAX], pod[MS_POD_NAME_MAX], container[MS_POD_NAME_MAX];
};

/*
 * Where bundles are looked for when no --oci-bundles is given: containerd's (and k3s's) task
 * directories of the k8s.io namespace, CRI-O's container storage, Docker's containers.
 */
extern const char *const ms_pod_bundle_dirs[];
extern const size_t ms_pod_nbundle_dirs;

/*
 * Container id's names: the first of DIR/ID/config.json (containerd), DIR/ID/userdata/config.json
 * (CRI-O) and DIR/ID/config.v2.json (Docker) found in dirs[0..n), read as a file (a regular
 * file, no symbolic link, 4 MiB at most) and parsed as JSON: its "annotations" (Docker's
 * "Config"."Labels"), containerd's io.kubernetes.cri.* or the io.kubernetes.pod.* and
 * io.kubernetes.container.name of CRI-O and Docker. A bundle whose pod UID annotation names
 * another pod than uid is not this container's. names->found false: none found.
 */
void ms_pod_names_read(const char *const *dirs, size_t n, const char *id, const char *uid,
		       struct ms_pod_names *names);

/* the group engine's name() of --by pod (groups.c; the struct is groups.h's) */
struct ms_groups;
struct ms_group;
int ms_pod_name(struct ms_groups *g, struct ms_group *grp);

#endif /* MEMSTAT_PODS_H */
