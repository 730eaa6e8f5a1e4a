// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat --by slab: the names of the caches shown (slabs.h). The group engine keys a slab page
 * by its cache's kmem_cache pointer (groups.c key_slab); after the walk, for each group shown,
 * the bpf backend's slab_name program checks that the pointer is still a cache and reads its
 * name and object sizes. The pointer is never printed. /proc/slabinfo, read once per naming
 * round, gives each cache's own count of its pages, to set beside the walk's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slabs.h"

static struct ms_backend *slabs_be;
static char *slabinfo;		/* /proc/slabinfo as last read */
static double slabinfo_at = -1.0;

void ms_slabs_backend(struct ms_backend *be)
{
	slabs_be = be;
}

long long ms_slabinfo_pages(const char *path, const char *name)
{
	double now = ms_now_ms();
	size_t len = strlen(name);
	const char *p;

	if (slabinfo_at < 0 || now - slabinfo_at > 500.0) {	/* again when sampling */
		FILE *f = fopen(path, "re");
		size_t cap = 0;
		ssize_t n;

		free(slabinfo);
		slabinfo = NULL;
		if (f) {
			n = getdelim(&slabinfo, &cap, '\0', f);
			if (n < 0) {
				free(slabinfo);
				slabinfo = NULL;
			}
			fclose(f);
		}
		slabinfo_at = now;
	}
	/* "name active_objs num_objs objsize objperslab pagesperslab : tunables ... :
	 * slabdata active_slabs num_slabs sharedavail" */
	for (p = slabinfo; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		unsigned long long objs, nobjs, size, per, pages, active, slabs;
		const char *d;

		if (strncmp(p, name, len) || p[len] != ' ')
			continue;
		if (sscanf(p + len, "%llu %llu %llu %llu %llu", &objs, &nobjs, &size, &per,
			   &pages) != 5 || !(d = strstr(p, "slabdata")) ||
		    sscanf(d + 8, "%llu %llu", &active, &slabs) != 2)
			return -1;
		return (long long)(slabs * pages);
	}
	return -1;
}

int ms_slabinfo_totals(const char *path, struct ms_slab_totals *t)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;

	memset(t, 0, sizeof(*t));
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long objs, nobjs, size, per, pages, active, slabs;
		char name[128];
		const char *d;

		if (line[0] == '#' || !strncmp(line, "slabinfo", 8) ||
		    sscanf(line, "%127s %llu %llu %llu %llu %llu", name, &objs, &nobjs, &size, &per,
			   &pages) != 6 || !(d = strstr(line, "slabdata")) ||
		    sscanf(d + 8, "%llu %llu", &active, &slabs) != 2)
			continue;
		t->caches++;
		t->active_caches += objs > 0;
		t->objs += nobjs;
		t->active_objs += objs;
		t->size += nobjs * size;
		t->active_size += objs * size;
		t->pages += slabs * pages;
		ret = 0;
	}
	free(line);
	fclose(f);
	return ret;
}

int ms_slab_name(struct ms_groups *g, struct ms_group *grp)
{
	struct ms_slab_info *si = calloc(1, sizeof(*si));
	struct ms_slab_slot slot = { .cache = grp->k1 };
	const char *pseudo = NULL;

	(void)g;
	if (!si)
		return -ENOMEM;
	free(grp->extra);
	grp->extra = si;
	si->slabinfo_pages = -1;
	if (grp->k1 == MS_SLAB_KEY_LARGE)
		pseudo = "(large kmalloc)";
	else if (grp->k1 == MS_SLAB_KEY_UNKNOWN)
		pseudo = "(cache unknown)";
	else if (!slabs_be || !slabs_be->bpf)
		pseudo = slabs_be && slabs_be->kmod ? "name unavailable with the kmod backend" :
			 "name unavailable";
	if (pseudo) {
		grp->name = strdup(pseudo);
		return grp->name ? 0 : -ENOMEM;
	}
	si->cache = true;
	if (ms_bpf_slab_name(slabs_be->bpf, &slot) || slot.status != MS_SLAB_OK) {
		grp->name = strdup("(cache destroyed since the walk)");
		return grp->name ? 0 : -ENOMEM;
	}
	si->named = true;
	si->object_size = slot.object_size;
	si->size = slot.size;
	slot.name[MS_SLAB_NAME - 1] = '\0';
	si->slabinfo_pages = ms_slabinfo_pages("/proc/slabinfo", slot.name);
	grp->name = strdup(slot.name);
	return grp->name ? 0 : -ENOMEM;
}
