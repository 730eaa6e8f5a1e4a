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
#include "dump_walk.h"
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

int ms_core_main(const struct ms_opts *o, double t0, ms_run_fn run_fn, bool *slab_split)
{
	struct ms_report_opts ro = {};
	struct ms_dump d;
	struct ms_dump_types t;
	struct ms_ranges r = {};
	struct ms_result res;
	const char *btf = o->btf;
	char why[512], running[41];
	void *btf_buf = NULL;
	__u64 from = 0;
	size_t btf_len = 0;
	int ret, err;

	ret = ms_dump_open(o->core, &d, why, sizeof(why));
	if (ret)
		return fail(o->core, why, ret);
	ms_timings.detect = ms_now_ms();
	ret = ms_dump_layout(&d, why, sizeof(why));
	if (ret) {
		fail(o->core, why, ret);
		goto out;
	}
	/* the types: --btf, else the dumped kernel's own BTF, else the running kernel's when it
	 * is the dumped one */
	ret = -1;
	/* the kernel's .BTF is the first in its image; a module's (split BTF) is not whole */
	for (int n = 0; !btf && ret && n < 16 && !ms_dump_find_btf(&d, &from, &btf_buf, &btf_len);
	     n++) {
		ret = ms_dump_types_from(btf_buf, btf_len, "the BTF in the dump", &t, why,
					 sizeof(why));
		free(btf_buf);
	}
	if (!ret) {
		/* the dump's own types */
	} else if (!btf) {
		running_build_id(running, sizeof(running));
		if (!d.build_id[0] || strcmp(running, d.build_id)) {
			snprintf(why, sizeof(why), "no BTF of its kernel (%s) in it, and it is not the "
				 "running one: give its types with --btf FILE (its "
				 "/sys/kernel/btf/vmlinux, or its vmlinux)",
				 d.release[0] ? d.release : "release unknown");
			ret = fail(o->core, why, MS_EXIT_UNSUPPORTED);
			goto out;
		}
		ret = ms_dump_types_load(RUNNING_BTF, &t, why, sizeof(why));
	} else {
		ret = ms_dump_types_load(btf, &t, why, sizeof(why));
	}
	if (ret) {
		fail(o->core, why, ret);
		goto out;
	}
	t.f.vmemmap_base = d.vmemmap;
	ms_timings.detect = ms_now_ms() - ms_timings.detect;	/* the layout and the types */
	err = ms_dump_ranges(&d, &r);
	if (!err && !r.n)
		err = -ENOENT;
	if (err) {
		ret = fail(o->core, err == -ENOENT ? "no memory of the dump lies in a memory section "
			   "with struct pages" : "out of memory", MS_EXIT_FAIL);
		goto out;
	}
	*slab_split = t.f.slab_cache_word != 0;
	err = ms_dump_walk(&d, &t, &r, o->runs ? 1 : o->jobs ? o->jobs : ms_jobs_auto(&r), &res,
			   o->runs ? run_fn : NULL, NULL);
	if (err) {
		ret = err == -EIO ? MS_EXIT_FAIL : fail(o->core, "out of memory", MS_EXIT_FAIL);
		goto out;
	}
	ret = MS_EXIT_OK;
	if (o->runs)
		goto out;
	ms_timings.walk = res.walk_ms;
	ro.timings = &ms_timings;
	ro.kernel = d.release;
	ro.verbose = o->verbose;
	ro.elapsed_ms = ms_now_ms() - t0;
	if (o->json)
		ms_print_json(stdout, &res, &ro, NULL);
	else
		ms_print_summary(stdout, &res, &ro);
out:
	ms_ranges_free(&r);
	ms_dump_close(&d);
	return ret;
}
