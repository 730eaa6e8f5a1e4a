// SPDX-License-Identifier: GPL-2.0
/*
 * memstat.ko: the memstat page walk done natively, for kernels where BPF cannot be used.
 *
 * /dev/memstat (root only, read-only) answers one ioctl, MS_KMOD_IOC_WALK (include/memstat.h): it
 * classifies at most one memory section per call with the same per-page decision as the BPF
 * walker (ms_page_verdict() in include/classify.h) and returns counters and, for allpages, one record
 * per page. The module only reads: struct pages are copied with copy_from_kernel_nofault() after
 * pfn_to_online_page(), so an offlined or hot-removed section reads as a hole, and mapping facts
 * are read the same way. Work per call is bounded (one section, cond_resched() every 1024
 * pages). Each open file has its own walker state, so concurrent memstats do not disturb each
 * other; concurrent calls on one file get EBUSY.
 */
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/magic.h>
#include <linux/memcontrol.h>
#include <linux/memory_hotplug.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/threads.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include "memstat.h"
#define MS_WALK_HOOKS
#define MS_WALK_LOOP
#include "walk.h"
#include "kfeatures.h"

#define MS_FACTS_BITS	12
/* room for this many processes first, doubled while full; the VM tests start it at 1 */
static unsigned int first_mms = 4096;
module_param(first_mms, uint, 0400);
MODULE_PARM_DESC(first_mms, "processes collect_exec() makes room for first (doubled while full)");

struct ms_facts_slot {
	u64 mapping;
	u64 ino;
	u32 flags;
	u32 dev;
};

/* One walker per open file: the state a walk carries between calls (the BPF walker's globals). */
struct ms_kwalk {
	struct mutex lock;
	struct ms_features f;
	struct ms_walker w;	/* the walk (include/walk.h): cursor, carry, counts, owner */
	u32 generation;
	bool have_generation;
	u64 lookups;
	u64 exec_mappings;
	struct xarray exec_set;	/* address_space >> 3 -> exec-mapped */
	struct ms_facts_slot facts[1 << MS_FACTS_BITS];
	u64 last_mapping;
	struct ms_facts_slot *last;
	u64 last_memcg_data, last_cgroup;	/* the previous folio's memcg_data and its id */
	u64 last_cache;		/* the previous slab's cache and whether it is reclaimable */
	int last_cache_reclaim;
	struct ms_page_rec *recs;	/* one section's records, copied out at the end of a call */
	bool raw_pointers;	/* this call's records keep the pointer words (MS_KMOD_RAW_POINTERS) */
	bool folio_counters;	/* and page[1]'s counter words (MS_KMOD_FOLIO_COUNTERS) */
	u64 batch[MS_BATCH_PAGES * MS_PAGE_WORDS];	/* 64 struct pages, copied at once */
	u64 scratch[2 * MS_PAGE_WORDS];	/* a head read from elsewhere */
};

static struct ms_features ms_feat;	/* from the headers, at load */
static u32 ms_slab_flags_off;	/* struct kmem_cache's flags, found at load; 0 unknown */

static int ms_hook_read(void *ctx, __u64 pfn, __u64 *w, __u32 nwords)
{
	u32 i;

	for (i = 0; i < nwords; i += MS_PAGE_WORDS) {
		struct page *pg = pfn_to_online_page(pfn + i / MS_PAGE_WORDS);

		if (!pg || copy_from_kernel_nofault(w + i, pg, MS_PAGE_WORDS * 8))
			return -EFAULT;
	}
	return 0;
}

/* mapping -> host inode -> super block, each read with copy_from_kernel_nofault() */
static void read_facts(struct ms_kwalk *k, u64 mapping, struct ms_facts_slot *s)
{
	struct address_space *as = (struct address_space *)mapping;
	struct inode *host = NULL;
	struct super_block *sb = NULL;
	unsigned long magic = 0, ino = 0;
	dev_t dev = 0;

	s->mapping = mapping;
	s->flags = 0;
	s->ino = 0;
	s->dev = 0;
	k->lookups++;
	if (copy_from_kernel_nofault(&host, &as->host, sizeof(host)) || !host ||
	    copy_from_kernel_nofault(&ino, &host->i_ino, sizeof(ino)) ||
	    copy_from_kernel_nofault(&sb, &host->i_sb, sizeof(sb)) || !sb ||
	    copy_from_kernel_nofault(&magic, &sb->s_magic, sizeof(magic)) ||
	    copy_from_kernel_nofault(&dev, &sb->s_dev, sizeof(dev)))
		return;
	if (magic == BDEVFS_MAGIC)
		s->flags |= MS_MAP_BDEV;
	else if (magic == TMPFS_MAGIC)
		s->flags |= MS_MAP_SHMEM;
	if (xa_load(&k->exec_set, (unsigned long)(mapping >> 3)))
		s->flags |= MS_MAP_EXEC;
	s->ino = ino;
	s->dev = dev;	/* kernel dev_t: major << 20 | minor, as the BPF walker reads it */
}

static struct ms_facts_slot *facts_slot(struct ms_kwalk *k, u64 mapping)
{
	struct ms_facts_slot *s;

	if (mapping == k->last_mapping && k->last)
		return k->last;
	s = &k->facts[hash_64(mapping, MS_FACTS_BITS)];
	if (s->mapping != mapping)
		read_facts(k, mapping, s);
	k->last_mapping = mapping;
	k->last = s;
	return s;
}

static __u32 ms_hook_facts(void *ctx, __u64 mapping)
{
	return facts_slot(ctx, mapping)->flags;
}

/* Does the slab cache at cache have SLAB_RECLAIM_ACCOUNT? (0 as well when unreadable) */
static int ms_hook_slab_reclaim(void *ctx, __u64 cache)
{
	struct ms_kwalk *k = ctx;
	u32 fl;

	if (!ms_slab_flags_off)
		return 0;
	if (cache == k->last_cache)
		return k->last_cache_reclaim;
	if (copy_from_kernel_nofault(&fl, (void *)(unsigned long)(cache + ms_slab_flags_off),
				     sizeof(fl)))
		return 0;
	k->last_cache = cache;
	k->last_cache_reclaim = (fl & SLAB_RECLAIM_ACCOUNT) != 0;
	return k->last_cache_reclaim;
}

/* Record the VM_EXEC file mappings of one mm, giving way to writers of its mmap_lock. */
static int collect_exec_mm(struct ms_kwalk *k, struct mm_struct *mm)
{
	unsigned long addr = 0;
	int err = 0;

	for (;;) {
		struct vm_area_struct *vma;
		bool contended = false;

		if (mmap_read_lock_killable(mm))
			return -EINTR;
		{
			VMA_ITERATOR(vmi, mm, addr);

			for_each_vma(vmi, vma) {
				addr = vma->vm_end;
				if ((vma->vm_flags & VM_EXEC) && vma->vm_file) {
					if (xa_err(xa_store(&k->exec_set,
							    (unsigned long)vma->vm_file->f_mapping >> 3,
							    xa_mk_value(1), GFP_KERNEL)))
						err = -ENOMEM;
					k->exec_mappings++;
				}
				/*
				 * As the kernel's task_vma iterator (kernel/bpf/task_iter.c) does: let
				 * a waiting writer in, then go on from the end of this vma.
				 */
				if (mmap_lock_is_contended(mm)) {
					contended = true;
					break;
				}
			}
		}
		mmap_read_unlock(mm);
		if (!contended || err)
			return err;
		cond_resched();
		if (fatal_signal_pending(current))
			return -EINTR;
	}
}

/*
 * Every address_space some process maps VM_EXEC (an incomplete set would misclassify). The
 * mm_structs are held only by mmgrab() (mm_count) while the list is built under RCU, so no
 * address space is kept alive by memstat; each is pinned with mmget_not_zero() just for its
 * own vma walk, and one that exited in between is skipped (its mappings are gone). When there
 * are more processes than room, all are let go and the room doubled, so none is left out.
 */
static int collect_exec(struct ms_kwalk *k)
{
	struct mm_struct **mms;
	struct task_struct *p;
	size_t room = clamp_t(size_t, first_mms, 1, PID_MAX_LIMIT), n, i;
	bool full;
	int err = 0;

	xa_destroy(&k->exec_set);
	k->exec_mappings = 0;
	for (;;) {
		mms = kvcalloc(room, sizeof(*mms), GFP_KERNEL);
		if (!mms)
			return -ENOMEM;
		n = 0;
		full = false;
		rcu_read_lock();
		for_each_process(p) {
			struct task_struct *t;
			struct mm_struct *mm = NULL;

			if (p->flags & PF_KTHREAD)
				continue;
			if (n == room) {
				full = true;
				break;
			}
			/*
			 * The group's mm from any live thread: a leader that exited while its
			 * threads run (a zombie) has none of its own, as find_lock_task_mm() knows
			 */
			for_each_thread(p, t) {
				task_lock(t);
				mm = t->mm;
				if (mm)
					mmgrab(mm);
				task_unlock(t);
				if (mm)
					break;
			}
			if (mm)
				mms[n++] = mm;
		}
		rcu_read_unlock();
		if (!full)
			break;
		for (i = 0; i < n; i++)
			mmdrop(mms[i]);
		kvfree(mms);
		if (room >= PID_MAX_LIMIT)
			return -E2BIG;
		room *= 2;
		cond_resched();
	}
	for (i = 0; i < n; i++) {
		if (!err && mmget_not_zero(mms[i])) {
			err = collect_exec_mm(k, mms[i]);
			mmput(mms[i]);
		}
		mmdrop(mms[i]);
		cond_resched();
	}
	kvfree(mms);
	return err;	/* an incomplete exec set would misclassify: say so */
}

/*
 * The cgroup id of a memcg_data word (0: none, a slab's object vector, or unreadable), the
 * id /proc/kpagecgroup gives (kernfs_node.id). Bit 1 (MEMCG_DATA_KMEM) marks an obj_cgroup;
 * without it the pointer is a mem_cgroup up to 6.18 and an obj_cgroup on 7.x (docs/page-classes.md
 * 3.8). The two are told apart by what the pointer holds: a mem_cgroup begins with its css,
 * whose ss is &memory_cgrp_subsys. Every pointer is read with copy_from_kernel_nofault():
 * the folio may be freed and its memcg with it while we look.
 */
static u64 memcg_cgroup_id(struct ms_kwalk *k, u64 md)
{
#ifdef CONFIG_MEMCG
	struct mem_cgroup *mc = (struct mem_cgroup *)(unsigned long)(md & ~3ULL);
	struct cgroup_subsys *ss = NULL;
	struct cgroup *cg = NULL;
	struct kernfs_node *kn = NULL;
	u64 id = 0;

	if (!md || (md & 1))
		return 0;
	if (md == k->last_memcg_data)
		return k->last_cgroup;
	if (!(md & 2) && copy_from_kernel_nofault(&ss, &mc->css.ss, sizeof(ss)))
		goto out;
	if ((md & 2) || ss != &memory_cgrp_subsys) {
		struct obj_cgroup *objcg = (struct obj_cgroup *)mc;

		if (copy_from_kernel_nofault(&mc, &objcg->memcg, sizeof(mc)) || !mc ||
		    copy_from_kernel_nofault(&ss, &mc->css.ss, sizeof(ss)) ||
		    ss != &memory_cgrp_subsys)
			goto out;
	}
	if (copy_from_kernel_nofault(&cg, &mc->css.cgroup, sizeof(cg)) || !cg ||
	    copy_from_kernel_nofault(&kn, &cg->kn, sizeof(kn)) || !kn ||
	    copy_from_kernel_nofault(&id, &kn->id, sizeof(id)))
		id = 0;
out:
	k->last_memcg_data = md;
	k->last_cgroup = id;
	return id;
#else
	return 0;
#endif
}

/* walk.h's hooks */
static const __u64 *ms_hook_batch(void *ctx, struct ms_walker *w, __u64 base)
{
	struct ms_kwalk *k = ctx;
	/* 64 struct pages in one copy: contiguous within a section (sparse vmemmap) */
	struct page *pg = pfn_to_online_page(base);

	/* offline, hot-removed or unmapped: a hole */
	if (!pg || copy_from_kernel_nofault(k->batch, pg, sizeof(k->batch)))
		return NULL;
	return k->batch;
}

static void ms_hook_visit(void *ctx, struct ms_walker *w, __u64 pfn, __u32 j, const __u64 *p,
			  const __u64 *p1)
{
	struct ms_kwalk *k = ctx;

	ms_walk_page(k, w, &k->f, pfn, j, p, p1, k->scratch);
}

static void ms_hook_file(void *ctx, __u64 mapping, __u64 *ino, __u32 *dev)
{
	struct ms_facts_slot *s = facts_slot(ctx, mapping);

	*ino = s->ino;
	*dev = s->dev;
}

static __u64 ms_hook_cgroup(void *ctx, __u64 memcg_data)
{
	return memcg_cgroup_id(ctx, memcg_data);
}

static struct ms_page_rec *ms_hook_rec(void *ctx, struct ms_walker *w, __u32 idx)
{
	struct ms_kwalk *k = ctx;

	return k->recs ? &k->recs[idx] : NULL;
}

/* Classify [start, end) (at most one section) with the shared walk, giving way every 1024 pages. */
static void walk(struct ms_kwalk *k, u64 start, u64 end, bool dump)
{
	struct ms_walker *w = &k->w;
	unsigned int steps = 0;

	w->walk_start = start;
	w->walk_end = end;
	w->dump = 0;
	w->dump_pages = dump;
	ms_walk_begin(w);
	while (!ms_walk_step(k, w, 1))
		if ((++steps & 15) == 0)
			cond_resched();
	if (dump && !k->raw_pointers) {
		u64 i;
		int j;

		/*
		 * Kernel addresses (KASLR): lru / compound_head, mapping, private, memcg_data, and
		 * whatever else holds one in some page type: word 4 is a slab's freelist, a page
		 * table's pt_mm, a tail page's list pointers (6.1's deferred_list), page[3] of a
		 * hugetlb folio its _hugetlb_cgroup_rsvd, a zsmalloc page's next zpdesc (a vmemmap
		 * address). So every other word that looks like a kernel address is blanked too.
		 */
		for (i = 0; i < end - start; i++) {
			struct ms_page_rec *r = &k->recs[i];
			u64 *rw = r->w, keep[ARRAY_SIZE(ms_p1_counter_words)];
			/* a large folio's first tail page: its counters, with FOLIO_COUNTERS */
			bool p1 = k->folio_counters && r->role == MS_ROLE_TAIL &&
				  start + i == r->head_pfn + 1;

			for (j = 0; p1 && j < (int)ARRAY_SIZE(keep); j++)
				keep[j] = rw[ms_p1_counter_words[j]];
			rw[1] = rw[2] = rw[MS_W_MAPPING] = rw[MS_W_PRIVATE] = rw[MS_W_MEMCG] = 0;
			for (j = 0; j < MS_PAGE_WORDS; j++)
				if (ms_looks_like_kernel_address(rw[j]))
					rw[j] = 0;
			/* counters, whole: a mapcount of -1 in a word's upper half (6.1, 6.12)
			 * gives it the top byte of a kernel address */
			for (j = 0; p1 && j < (int)ARRAY_SIZE(keep); j++)
				rw[ms_p1_counter_words[j]] = keep[j];
		}
	}
}

static long ms_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ms_kmod_walk req;
	struct ms_kwalk *k = file->private_data;
	bool dump;
	long ret = 0;
	u64 n;

	if (cmd == MS_KMOD_IOC_FEATURES) {
		struct ms_features f;

		/*
		 * memstat.h asserts that struct ms_features has no implicit padding, so every byte
		 * copied out is a field; the reserved ones are zeroed here, not trusted.
		 */
		memcpy(&f, &k->f, sizeof(f));
		f._pad2 = 0;
		f.vmemmap_base = 0;	/* user space has no use for it, and it reveals KASLR */
		return copy_to_user((void __user *)arg, &f, sizeof(f)) ? -EFAULT : 0;
	}
	if (cmd != MS_KMOD_IOC_WALK)
		return -ENOTTY;
	if (copy_from_user(&req, (void __user *)arg, sizeof(req)))
		return -EFAULT;
	if (req.end_pfn <= req.start_pfn || req.end_pfn - req.start_pfn > MS_SECTION_PAGES)
		return -EINVAL;
	if (req.flags & ~MS_KMOD_FLAGS)
		return -EINVAL;		/* a flag this module does not know: refuse, never ignore */
	if ((req.flags & (MS_KMOD_RAW_POINTERS | MS_KMOD_FOLIO_COUNTERS)) && !req.recs)
		return -EINVAL;		/* both are about records */
	/* raw pointer words reveal the kernel's layout: refused under lockdown (confidentiality) */
	if ((req.flags & MS_KMOD_RAW_POINTERS) && security_locked_down(LOCKDOWN_BPF_READ_KERNEL))
		return -EPERM;
	n = req.end_pfn - req.start_pfn;
	dump = req.recs != 0;
	if (!mutex_trylock(&k->lock))
		return -EBUSY;	/* another thread is walking with this file */
	/* under the lock: two threads on one file must not both allocate or free it */
	if (dump && !k->recs) {
		k->recs = vzalloc(MS_SECTION_PAGES * sizeof(struct ms_page_rec));
		if (!k->recs) {
			ret = -ENOMEM;
			goto out;
		}
	}
	k->raw_pointers = req.flags & MS_KMOD_RAW_POINTERS;
	k->folio_counters = req.flags & MS_KMOD_FOLIO_COUNTERS;
	if (!k->have_generation || req.generation != k->generation) {
		ret = collect_exec(k);
		if (ret)
			goto out;
		memset(k->facts, 0, sizeof(k->facts));
		k->last = NULL;
		k->last_memcg_data = 0;
		k->last_cache = 0;
		k->generation = req.generation;
		k->have_generation = true;
	}
	if (req.flags & MS_KMOD_NEW_RANGE)
		ms_walk_new_range(&k->w, req.start_pfn);	/* nothing carries over */
	memset(k->w.counts, 0, sizeof(k->w.counts));
	k->w.holes = 0;
	k->lookups = 0;
	walk(k, req.start_pfn, req.end_pfn, dump);
	memcpy(req.counts, k->w.counts, sizeof(req.counts));
	req.holes = k->w.holes;
	req.exec_mappings = k->exec_mappings;
	req.mapping_lookups = k->lookups;
	if (dump && copy_to_user((void __user *)(unsigned long)req.recs, k->recs,
				 n * sizeof(struct ms_page_rec)))
		ret = -EFAULT;
	else if (copy_to_user((void __user *)arg, &req, sizeof(req)))
		ret = -EFAULT;
out:
	mutex_unlock(&k->lock);
	return ret;
}

static int ms_open(struct inode *inode, struct file *file)
{
	struct ms_kwalk *k;

	/* the device node is 0400; the check is for a node someone made wider */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (file->f_mode & FMODE_WRITE)
		return -EACCES;
	k = vzalloc(sizeof(*k));
	if (!k)
		return -ENOMEM;
	mutex_init(&k->lock);
	xa_init(&k->exec_set);
	k->f = ms_feat;
	file->private_data = k;
	return 0;
}

static int ms_release(struct inode *inode, struct file *file)
{
	struct ms_kwalk *k = file->private_data;

	xa_destroy(&k->exec_set);
	vfree(k->recs);
	vfree(k);
	return 0;
}

static const struct file_operations ms_fops = {
	.owner = THIS_MODULE,
	.open = ms_open,
	.release = ms_release,
	.unlocked_ioctl = ms_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice ms_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "memstat",
	.fops = &ms_fops,
	.mode = 0400,
};

static int __init ms_init(void)
{
	int err = ms_kmod_features(&ms_feat, &ms_slab_flags_off);

	if (err) {
		pr_err("memstat: this kernel's page layout is not one memstat knows\n");
		return err;
	}
	return misc_register(&ms_dev);
}

/* open files hold a module reference (fops.owner): unload happens only when none is open */
static void __exit ms_exit(void)
{
	misc_deregister(&ms_dev);
}

module_init(ms_init);
module_exit(ms_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memstat: classify every physical page (read-only)");
