// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: a crash dump file (src/dump/): the ELF header, program headers and notes
 * (ms_dump_open_fd), the VMCOREINFO text and the layout read through the dump's own page tables
 * and mem_section (ms_dump_layout), present memory (ms_dump_iomem's resource tree,
 * ms_dump_ranges), the walk over whatever struct pages, mappings and page tables the bytes make
 * (ms_dump_walk), and --reconcile's kallsyms decoder, counters and zones (ms_dump_meminfo,
 * ms_dump_zones), allpages' records (ms_dump_pages) and --by fs|file's mounts and dentries
 * (ms_dump_mounts, ms_dump_path_of), with the types of tests/tools/mkdump.py's synthetic
 * kernel. Seeds: that script's dumps (--fuzz-seeds): ELF, kdump-compressed and flattened.
 *
 * Invariants: a refused file gets one line (no newline) and exit 2, 5 or 1; an accepted one's
 * present memory lies within its segments; the walk succeeds and counts every present page once,
 * as a class or a hole; the counters are read, or refused with one line.
 */
#include "fuzz.h"

#include <fcntl.h>

#include "classify.h"
#include "dump.h"
#include "dump_meminfo.h"
#include "dump_types.h"
#include "cgroup.h"
#include "dump_walk.h"
#include "mountinfo.h"

/*
 * the records: counted, and the first FILES mapping words kept (--by file's names; a seed's
 * pages are not file pages, so any page's word 3: random bytes make the pointers)
 */
#define FILES 16
struct recs {
	__u64 n, mapping[FILES], ino[FILES];
	__u32 dev[FILES];
	size_t nfiles;
};

static int count_rec(void *arg, __u64 pfn, const struct ms_page_rec *rec)
{
	struct recs *r = arg;

	r->n++;
	if (rec->w[3] && r->nfiles < FILES) {
		r->mapping[r->nfiles] = rec->w[3];
		r->ino[r->nfiles] = rec->ino;
		r->dev[r->nfiles++] = rec->dev;
	}
	return 0;
}

/*
 * --by fs|file: the mounts of the init namespace the bytes hold (from their kallsyms'
 * init_nsproxy), each named by absolute paths; and the files' names, each within its bounds
 */
static void mounts_and_paths(struct ms_dump *d, const struct ms_dump_types *t,
			     const struct recs *recs)
{
	static const char *const names[] = { "init_nsproxy" };
	struct ms_mountinfo mi;
	struct ms_path_slot s;
	__u64 addr = 0;
	char why[512];

	ms_dump_symbols(d, NULL, names, 1, &addr, why, sizeof(why));
	FUZZ_CHECK(ms_dump_mounts(d, t, addr, &mi) == 0, "ms_dump_mounts failed");
	for (size_t i = 0; i < mi.n; i++)
		FUZZ_CHECK(mi.m[i].point[0] == '/' && mi.m[i].root[0] == '/' && mi.m[i].fstype &&
			   mi.m[i].source && mi.m[i].dev == MS_MKDEV(mi.m[i].major, mi.m[i].minor),
			   "mount %zu: '%s' root '%s'", i, mi.m[i].point, mi.m[i].root);
	ms_mountinfo_free(&mi);
	for (size_t i = 0; i < recs->nfiles; i++) {
		memset(&s, 0, sizeof(s));
		s.mapping = recs->mapping[i];
		s.ino = recs->ino[i];
		s.dev = recs->dev[i];
		ms_dump_path_of(d, t, &s);
		FUZZ_CHECK(s.status <= MS_PATH_NO_DENTRY && s.ncomp <= MS_PATH_DEPTH,
			   "path %zu: status %u, %u names", i, s.status, s.ncomp);
		for (__u32 k = 0; k < s.ncomp; k++)
			FUZZ_CHECK(memchr(s.comp[k], 0, MS_PATH_NAME), "path %zu: name %u unended",
				   i, k);
	}
}

static void synthetic_types(struct ms_dump_types *t)
{
	struct ms_kernel_facts k;

	memset(&k, 0, sizeof(k));
	memset(t, 0, sizeof(*t));
	k.page_size = 64;
	k.pg_lru = 5;
	k.pg_head = 6;
	k.pg_owner_priv_1 = 10;
	k.pg_reserved = 13;
	k.pg_swapbacked = 19;
	k.pg_slab = k.pg_hugetlb = k.pg_movable_ops = MS_NO_BIT;
	k.hugetlb_page_dtor = -1;
	k.type_scheme = MS_PT_UPPER_BYTE;
	k.slab_cache_word = 1;
	for (int i = MS_T_BUDDY; i <= MS_T_LARGE_KMALLOC; i++)
		k.ptype[i] = 0xf0 + (__u32)(i - MS_T_BUDDY);
	ms_features_from_facts(&k, &t->f);
	t->as_host = 0;
	t->as_i_mmap = 8;
	t->inode_sb = 40;
	t->inode_ino = 64;
	t->sb_dev = 16;
	t->sb_magic = 96;
	t->vma_flags = 32;
	t->vma_rb = 64;
	t->rb_right = 8;
	t->rb_left = 16;
	t->kc_flags = 8;
	t->slab_reclaim_mask = 1 << 15;
	/* mkdump.py's struct resource */
	t->res_start = 0;
	t->res_end = 8;
	t->res_name = 16;
	t->res_sibling = 48;
	t->res_child = 56;
	/* mkdump.py's ZONE_STAT, NODE_STAT and struct hstate */
	for (int i = 0; i < MS_DS_NR; i++)
		t->stat_zone[i] = t->stat_node[i] = -1;
	t->stat_zone[MS_DS_FREE] = 0;
	t->stat_zone[MS_DS_UNACCEPTED] = 1;
	t->stat_node[MS_DS_ANON] = 0;
	t->stat_node[MS_DS_FILE] = 1;
	t->stat_node[MS_DS_SHMEM] = 2;
	t->stat_node[MS_DS_SWAPCACHE] = 3;
	t->stat_node[MS_DS_SLAB_R] = 4;
	t->stat_node[MS_DS_SLAB_U] = 5;
	t->stat_node[MS_DS_PAGETABLE] = 6;
	t->hstate_size = 64;
	t->hstate_order = 0;
	t->hstate_nr = 8;
	/* and its ZONES, struct zone and pglist_data */
	t->pgdat_zones = 0;
	t->nr_zones = 3;
	t->zone_size = 64;
	t->zone_start = 0;
	t->zone_spanned = 8;
	t->zone_name = 16;
	/* and its memory cgroup chain (allpages, --by cgroup's names) */
	t->memcg_css = 0;
	t->css_cgroup = 0;
	t->cgroup_kn = 8;
	t->cgroup_subsys = 16;
	t->memory_cgrp_id = 1;
	t->objcg_memcg = 8;
	t->kn_id = 0;
	t->kn_parent = 8;
	t->kn_name = 16;
	/* and its files' dentries and mount tree (--by fs|file) */
	t->inode_nlink = 72;
	t->inode_rdev = 76;
	t->inode_dentry = 80;
	t->sb_root = 24;
	t->sb_type = 32;
	t->fst_name = 0;
	t->dentry_hash_pprev = 16;
	t->dentry_parent = 24;
	t->dentry_name = 40;
	t->dentry_alias = 112;
	t->mnt_parent = 16;
	t->mnt_mountpoint = 24;
	t->mnt_root = 32;
	t->mnt_sb = 40;
	t->mnt_mounts = 64;
	t->mnt_child = 80;
	t->mnt_devname = 112;
	t->mntns_root = 16;
	t->nsproxy_mntns = 24;
	t->vfsmnt_sb = 8;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ms_dump_types t;
	static int types_made;
	const char *path = fuzz_file(data, size);
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	struct ms_dump d;
	char why[512] = "";

	if (!types_made++)
		synthetic_types(&t);
	FUZZ_CHECK(fd >= 0, "cannot open the input");
	ret = ms_dump_open_fd(fd, &d, why, sizeof(why));
	if (ret) {
		FUZZ_CHECK(ret == MS_EXIT_USAGE || ret == MS_EXIT_UNSUPPORTED || ret == MS_EXIT_FAIL,
			   "ms_dump_open_fd returned %d", ret);
		FUZZ_CHECK(why[0] && !strchr(why, '\n'), "refused without one line: '%s'", why);
		close(fd);
		return 0;
	}
	why[0] = 0;
	ret = ms_dump_layout(&d, why, sizeof(why));
	if (ret) {
		FUZZ_CHECK(ret == MS_EXIT_UNSUPPORTED, "ms_dump_layout returned %d", ret);
		FUZZ_CHECK(why[0] && !strchr(why, '\n'), "refused without one line: '%s'", why);
	} else {
		struct ms_ranges r;
		struct ms_result res;
		struct ms_meminfo mi;
		__u64 seg_pages = 0;
		struct recs recs = { 0 };
		struct ms_zone *zones = NULL;
		struct ms_cgroups cg = { 0 };
		size_t nzones = 0;

		for (size_t i = 0; i < d.nseg; i++)
			seg_pages += d.seg[i].filesz / 4096 + 1;
		/* the RAM of a random iomem_resource tree: sorted ranges, or one line */
		ret = ms_dump_iomem(&d, &t, NULL, &r, why, sizeof(why));
		FUZZ_CHECK(ret ? why[0] && !strchr(why, '\n') && !r.n : r.n > 0,
			   "iomem: %d, '%s', %zu ranges", ret, why, r.n);
		for (size_t i = 1; i < r.n; i++)
			FUZZ_CHECK(r.r[i - 1].start <= r.r[i].start && r.r[i].end > r.r[i].start,
				   "iomem range %zu out of order or empty", i);
		ms_ranges_free(&r);
		why[0] = 0;
		FUZZ_CHECK(ms_dump_ranges(&d, NULL, &r) == 0, "ms_dump_ranges failed");
		FUZZ_CHECK(r.pages <= seg_pages, "%llu present pages from %llu pages of segments",
			   (unsigned long long)r.pages, (unsigned long long)seg_pages);
		t.f.vmemmap_base = d.vmemmap;
		FUZZ_CHECK(ms_dump_walk(&d, &t, &r, 1, &res, NULL, NULL) == 0, "the walk failed");
		FUZZ_CHECK(res.total + res.holes == r.pages,
			   "%llu pages counted and %llu holes of %llu present",
			   (unsigned long long)res.total, (unsigned long long)res.holes,
			   (unsigned long long)r.pages);
		FUZZ_CHECK(ms_dump_pages_cgroups(&d, &t, &r, &res, count_rec, &recs, &cg) == 0,
			   "the records walk failed");
		FUZZ_CHECK(recs.n == r.pages, "%llu records of %llu present pages",
			   (unsigned long long)recs.n, (unsigned long long)r.pages);
		mounts_and_paths(&d, &t, &recs);
		/* --by cgroup: names read from random kernfs_nodes, each a path, in id order */
		for (size_t i = 0; i < cg.n; i++)
			FUZZ_CHECK((cg.c[i].path[0] == '/' ||
				    !strncmp(cg.c[i].path, "(unreadable)", 12)) && cg.c[i].depth <= 64 &&
				   (!i || cg.c[i - 1].id < cg.c[i].id), "cgroup %zu: '%s'", i,
				   cg.c[i].path);
		ms_cgroups_free(&cg);
		ms_ranges_free(&r);
		why[0] = 0;
		ret = ms_dump_meminfo(&d, &t, NULL, &mi, why, sizeof(why));
		FUZZ_CHECK(ret == MS_EXIT_OK || ret == MS_EXIT_UNSUPPORTED || ret == MS_EXIT_FAIL,
			   "ms_dump_meminfo returned %d", ret);
		FUZZ_CHECK(ret ? why[0] && !strchr(why, '\n') : mi.mem_total >= 0,
			   "counters: %d, '%s'", ret, why);
		why[0] = 0;
		ret = ms_dump_zones(&d, &t, NULL, &zones, &nzones, why, sizeof(why));
		FUZZ_CHECK(ret ? why[0] && !strchr(why, '\n') && !zones : nzones > 0,
			   "zones: %d, '%s'", ret, why);
		for (size_t i = 0; i < nzones; i++)
			FUZZ_CHECK(zones[i].start < zones[i].end && memchr(zones[i].name, 0, 16),
				   "zone %zu: [%llu, %llu)", i, (unsigned long long)zones[i].start,
				   (unsigned long long)zones[i].end);
		free(zones);
	}
	ms_dump_close(&d);
	return 0;
}
