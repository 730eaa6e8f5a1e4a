// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat --core FILE: the summary of a crash dump, as Solaris admins run ::memstat in mdb on
 * one. The dump's layout comes from its VMCOREINFO (src/dump/dump.c), its types from BTF
 * (--btf, or the running kernel's when its build id is the dump's), and its pages go through
 * the same walk and classifier as a live run's (src/dump/dump_walk.c). No root is needed.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "sample.h"
#include "vmcore.h"
#include "dump.h"
#include "dump_types.h"
#include "dump_meminfo.h"
#include "dump_walk.h"
#include "attrs.h"
#include "cgroup.h"
#include "files.h"
#include "groups.h"
#include "report.h"

#define RUNNING_BTF "/sys/kernel/btf/vmlinux"

/* The running kernel's build id (its GNU note in /sys/kernel/notes), in hex; "" unknown. */
static void running_build_id(char *out, size_t outlen)
{
	unsigned char buf[4096];
	size_t len, p = 0;
	FILE *f = fopen("/sys/kernel/notes", "re");

	out[0] = 0;
	if (!f)
		return;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (len - p >= sizeof(Elf64_Nhdr) && len >= p) {
		Elf32_Nhdr nh;	/* the kernel's notes: 4-byte words on every architecture */
		size_t name, desc;

		memcpy(&nh, buf + p, sizeof(nh));
		name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (name + desc > len - p - sizeof(nh))
			return;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + p + sizeof(nh), "GNU", 4) && nh.n_descsz * 2 < outlen) {
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(out + 2 * i, 3, "%02x", buf[p + sizeof(nh) + name + i]);
			return;
		}
		p += sizeof(nh) + name + desc;
	}
}

static int fail(const char *path, const char *why, int ret)
{
	char msg[700];

	snprintf(msg, sizeof(msg), "--core %s: %s", path, why);
	ms_err("%s", msg);
	ms_fail_json(msg);
	return ret;
}

int ms_core_open(const char *path, const char *btf, const char *symbols, struct ms_core *c)
{
	struct ms_ranges ram = { NULL, 0, 0 };
	char why[512], running[41];
	void *btf_buf = NULL;
	__u64 from = 0;
	size_t btf_len = 0;
	int ret, err;

	memset(c, 0, sizeof(*c));
	ret = ms_dump_open(path, &c->d, why, sizeof(why));
	if (ret)
		return fail(path, why, ret);
	ms_timings.detect = ms_now_ms();
	ret = ms_dump_layout(&c->d, why, sizeof(why));
	if (ret)
		goto fail;
	/* the types: --btf, else the dumped kernel's own BTF, else the running kernel's when it
	 * is the dumped one */
	ret = -1;
	/* the kernel's .BTF is the first in its image; a module's (split BTF) is not whole */
	for (int n = 0; !btf && ret && n < 16 &&
	     !ms_dump_find_btf(&c->d, &from, &btf_buf, &btf_len); n++) {
		ret = ms_dump_types_from(btf_buf, btf_len, "the BTF in the dump", &c->t, why,
					 sizeof(why));
		free(btf_buf);
	}
	if (!ret) {
		/* the dump's own types */
	} else if (!btf) {
		running_build_id(running, sizeof(running));
		if (!c->d.build_id[0] || strcmp(running, c->d.build_id)) {
			snprintf(why, sizeof(why), "no BTF of its kernel (%s) in it, and it is not the "
				 "running one: give its types with --btf FILE (its "
				 "/sys/kernel/btf/vmlinux, or its vmlinux)",
				 c->d.release[0] ? c->d.release : "release unknown");
			ret = MS_EXIT_UNSUPPORTED;
			goto fail;
		}
		ret = ms_dump_types_load(RUNNING_BTF, &c->t, why, sizeof(why));
	} else {
		ret = ms_dump_types_load(btf, &c->t, why, sizeof(why));
	}
	if (ret)
		goto fail;
	c->t.f.vmemmap_base = c->d.vmemmap;
	ms_timings.detect = ms_now_ms() - ms_timings.detect;	/* the layout and the types */
	/* its RAM as its /proc/iomem said; else the pages the dump holds, and a note after */
	ret = ms_dump_iomem(&c->d, &c->t, symbols, &ram, why, sizeof(why));
	if (ret == MS_EXIT_USAGE || ret == MS_EXIT_PERM)	/* --symbols FILE is not its */
		goto fail;
	if (ret)
		snprintf(c->ram_note, sizeof(c->ram_note), "--core %s: %s: its memory is what the "
			 "dump holds (RAM it leaves out, as a kdump leaves out the crash kernel's "
			 "area, is not counted)", path, why);
	err = ms_dump_ranges(&c->d, &ram, &c->r);
	ms_ranges_free(&ram);
	if (!err && !c->r.n)
		err = -ENOENT;
	if (err) {
		snprintf(why, sizeof(why), "%s", err == -ENOENT ? "no memory of the dump lies in an "
			 "online memory section with struct pages" : "out of memory");
		ret = MS_EXIT_FAIL;
		goto fail;
	}
	return MS_EXIT_OK;
fail:
	fail(path, why, ret);
	ms_core_close(c, ret);
	return ret;
}

void ms_core_close(struct ms_core *c, int ret)
{
	if (c->ram_note[0] && (ret == MS_EXIT_OK || ret == MS_EXIT_MISMATCH))
		ms_err("%s", c->ram_note);
	ms_ranges_free(&c->r);
	ms_dump_close(&c->d);
}

/* --by file|exec of a dump: a file's names from its dentries (files.c calls it) */
struct core_files {
	struct ms_dump *d;
	const struct ms_dump_types *t;
};

static void core_path(void *ctx, struct ms_path_slot *s)
{
	struct core_files *f = ctx;

	ms_dump_path_of(f->d, f->t, s);
}

/*
 * --by fs|file|exec of a dump: its mounts, from its init_nsproxy, and its internal tmpfs's
 * device, from its shm_mnt (kallsyms, or --symbols). No symbols: no mounts, said once; the
 * files are then named within their file systems.
 */
static int core_mounts(const struct ms_opts *o, struct ms_core *c, struct ms_mountinfo *mi,
		       __u64 *shm_dev)
{
	static const char *const names[] = { "init_nsproxy", "shm_mnt" };
	__u64 addr[2] = { 0, 0 }, sb;
	__u32 dev;
	char why[512];
	int ret = ms_dump_symbols(&c->d, o->symbols, names, 2, addr, why, sizeof(why));

	if (ret && o->symbols) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why), " (--by)");
		return fail(o->core, why, ret);
	}
	if (ret)
		ms_err("%s: %s: its mount points are unknown, files are named within their file "
		       "systems", o->core, why);
	*shm_dev = 0;
	sb = addr[1] && c->t.vfsmnt_sb >= 0 ?
	     ms_dump_u64(&c->d, ms_dump_u64(&c->d, addr[1]) + (__u64)c->t.vfsmnt_sb) : 0;
	if (sb && !ms_dump_read_virt(&c->d, sb + (__u64)c->t.sb_dev, &dev, sizeof(dev)))
		*shm_dev = dev;
	if (ms_dump_mounts(&c->d, &c->t, addr[0], mi))
		return fail(o->core, "out of memory", MS_EXIT_FAIL);
	return MS_EXIT_OK;
}

/*
 * --by of a dump: its zones, from its node_data; its cgroups, named from their kernfs_nodes;
 * or its file systems and files, named from its mounts and dentries; and the records walk
 */
static int core_groups(const struct ms_opts *o, struct ms_core *c)
{
	long page = (long)c->d.page_size;
	bool zones = o->by == MS_BY_NODE || o->by == MS_BY_ZONE, files = !zones &&
		     o->by != MS_BY_CGROUP;
	struct core_files cf = { &c->d, &c->t };
	struct ms_mountinfo mi = { NULL, 0 };
	struct ms_cgroups *cg = NULL;
	struct ms_groups *g;
	struct ms_result res;
	struct ms_zone *z = NULL;
	__u64 shm_dev = 0;
	char why[512];
	size_t nz = 0;
	int ret = MS_EXIT_OK, err;

	if (zones)
		ret = ms_dump_zones(&c->d, &c->t, o->symbols, &z, &nz, why, sizeof(why));
	if (ret) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why), " (--by)");
		return fail(o->core, why, ret);
	}
	if (files && (ret = core_mounts(o, c, &mi, &shm_dev)))
		return ret;
	g = ms_groups_new((enum ms_by)o->by, o->top);
	cg = o->by == MS_BY_CGROUP ? calloc(1, sizeof(*cg)) : NULL;
	if (!g || (o->by == MS_BY_CGROUP && !cg)) {
		free(z);
		free(cg);
		ms_groups_free(g);
		ms_mountinfo_free(&mi);
		return fail(o->core, "out of memory", MS_EXIT_FAIL);
	}
	if (zones)
		ms_groups_set_zones(g, z, nz);
	ms_groups_set_tree(g, o->tree);
	if (files) {
		ms_groups_set_mounts(g, &mi, shm_dev);
		ms_files_source(core_path, &cf, &mi);
	}
	ms_groups_set_min(g, o->min_set, (o->min_bytes + (__u64)page - 1) / (__u64)page);
	err = ms_groups_reset(g);
	if (!err)
		err = ms_dump_pages_cgroups(&c->d, &c->t, &c->r, &res, ms_groups_page, g, cg);
	if (cg && !err)	/* g's from now; none where its BTF names no kernfs_node: "id N" */
		ms_groups_set_cgroups(g, cg->c ? cg : NULL);
	if (cg && (err || !cg->c))
		free(cg);
	ret = err ? fail(o->core, err == -ENOMEM ? "out of memory" : "the walk failed",
			 MS_EXIT_FAIL) : ms_groups_finish(g, &res);
	if (!ret && o->json)
		ms_groups_json(stdout, g, &res);
	else if (!ret)
		ms_groups_print(stdout, g);
	ms_groups_free(g);
	ms_files_source(NULL, NULL, NULL);
	ms_mountinfo_free(&mi);
	return ret;
}

/*
 * Whether MGLRU ran in the dumped kernel: lru_gen_caps[LRU_GEN_CORE] (mm/vmscan.c, a static key
 * array since 354ed5974429 "mm: multi-gen LRU: runtime switch", v6.1), whose first member, the
 * key's enabled count, is above 0 when it runs. No such symbol: a kernel without MGLRU; its
 * symbols unreadable: not known, taken as off (active_* then count PG_active, as they are).
 */
static int core_mglru(const char *path, struct ms_core *c, const char *symbols, bool *on)
{
	static const char *const names[] = { "lru_gen_caps" };
	__u64 addr = 0;
	__s32 enabled;
	char why[512];
	int ret = ms_dump_symbols(&c->d, symbols, names, 1, &addr, why, sizeof(why));

	if (ret && symbols) {	/* the file given is not usable: said, as --reconcile says it */
		snprintf(why + strlen(why), sizeof(why) - strlen(why), " (-a)");
		return fail(path, why, ret);
	}
	*on = !ret && addr && !ms_dump_read_virt(&c->d, addr, &enabled, sizeof(enabled)) &&
	      enabled > 0;
	return MS_EXIT_OK;
}

/* -a of a dump: the record walk into a's counts, with the facts of the dump's kernel */
static int core_attrs(const struct ms_opts *o, struct ms_core *c, struct ms_attrs *a,
		      struct ms_result *res)
{
	struct ms_attr_facts f = c->t.attr_facts;
	int err;

	if (!c->t.attr_facts_ok)
		return fail(o->core, "its BTF names no page flag (enum pageflags): -a cannot tell "
			    "the pages' attributes", MS_EXIT_UNSUPPORTED);
	err = core_mglru(o->core, c, o->symbols, &f.mglru);
	if (err)
		return err;
	ms_attrs_set_facts(a, &f);
	ms_attrs_reset(a);
	err = ms_dump_pages(&c->d, &c->t, &c->r, res, ms_attrs_page, a);
	if (err)
		return err == -EIO ? MS_EXIT_FAIL : fail(o->core, "out of memory", MS_EXIT_FAIL);
	ms_attrs_finish(a);
	return MS_EXIT_OK;
}

int ms_core_main(const struct ms_opts *o, double t0, ms_run_fn run_fn, bool *slab_split)
{
	struct ms_report_opts ro = {};
	struct ms_core c;
	struct ms_result res;
	struct ms_meminfo mi;
	struct ms_recon rc;
	struct ms_attrs *attrs = NULL;
	char why[512];
	int ret, err;

	ret = ms_core_open(o->core, o->btf, o->symbols, &c);
	if (ret)
		return ret;
	if (o->reconcile) {	/* the dump's counters, before the walk: a failure costs no walk */
		ms_timings.meminfo = ms_now_ms();
		ret = ms_dump_meminfo(&c.d, &c.t, o->symbols, &mi, why, sizeof(why));
		ms_timings.meminfo = ms_now_ms() - ms_timings.meminfo;
		if (ret) {
			snprintf(why + strlen(why), sizeof(why) - strlen(why), " (--reconcile)");
			fail(o->core, why, ret);
			goto out;
		}
	}
	*slab_split = c.t.f.slab_cache_word != 0;
	if (o->by >= 0) {
		ret = core_groups(o, &c);
		goto out;
	}
	if (o->attributes) {	/* the record walk gives the summary too */
		attrs = ms_attrs_new();
		ret = attrs ? core_attrs(o, &c, attrs, &res) :
			      fail(o->core, "out of memory", MS_EXIT_FAIL);
		if (ret)
			goto out;
		ro.attrs = attrs;
	} else {
		err = ms_dump_walk(&c.d, &c.t, &c.r, o->runs ? 1 : o->jobs ? o->jobs :
				   ms_jobs_auto(&c.r), &res, o->runs ? run_fn : NULL, NULL);
		if (err) {
			ret = err == -EIO ? MS_EXIT_FAIL :
					    fail(o->core, "out of memory", MS_EXIT_FAIL);
			goto out;
		}
	}
	ret = MS_EXIT_OK;
	if (o->runs)
		goto out;
	ms_timings.walk = res.walk_ms;
	ro.timings = &ms_timings;
	ro.kernel = c.d.release;
	ro.verbose = o->verbose;
	ro.elapsed_ms = ms_now_ms() - t0;
	if (o->reconcile) {
		ms_reconcile(&res, &mi, (long)(c.d.page_size / 1024), &rc);
		if (attrs) {	/* the counters of one moment: before and after are the same */
			ms_attrs_reconcile(attrs, &mi, &mi, (long)(c.d.page_size / 1024), &rc);
			rc.attrs = attrs;
		}
		rc.from_dump = true;
		ret = rc.all_ok ? MS_EXIT_OK : MS_EXIT_MISMATCH;
	}
	if (o->json) {
		ms_print_json(stdout, &res, &ro, o->reconcile ? &rc : NULL);
	} else {
		ms_print_summary(stdout, &res, &ro);
		if (attrs) {
			fputc('\n', stdout);
			ms_attrs_print(stdout, attrs);
		}
		if (o->reconcile) {
			fputc('\n', stdout);
			ms_print_reconcile(stdout, &rc, &mi, &res);
		}
	}
out:
	ms_attrs_free(attrs);
	ms_core_close(&c, ret);
	return ret;
}
