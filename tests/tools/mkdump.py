#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A small synthetic crash dump for memstat --core's tests and fuzz corpus: an x86_64 ELF core
with a VMCOREINFO note, 4-level page tables, mem_section, 64 pages whose struct pages hold one
known kind of page each (and 16 more whose vmemmap is not mapped: holes), kallsyms' tables and
the counters meminfo is computed from (each what the walk counts), the files' dentries and the
mount tree (--by fs|file|exec: put_files()), and the raw BTF of the few types the dump walk
reads. EXPECTED is what memstat --core --json must count.

Usage: mkdump.py DIR   writes DIR/dump.core, DIR/types.btf, DIR/System.map (and prints
                       EXPECTED as JSON)
       mkdump.py --fuzz-seeds DIR   smaller dumps (the first 20 pages) for tests/fuzz/dump.c:
                                    ELF, kdump-compressed and flattened"""
import json
import os
import struct
import sys
import zlib

PAGE = 4096
START_KERNEL_MAP = 0xffffffff80000000
DIRECT = 0xffff888000000000          # page_offset_base without KASLR
VMEMMAP = 0xffffea0000000000         # vmemmap_base without KASLR
PRESENT = 0x63                       # present, rw, accessed, dirty
PSE = 0x80

# page flags and types of the synthetic kernel (BTF below says the same)
PG = {"PG_writeback": 1, "PG_dirty": 4, "PG_lru": 5, "PG_head": 6, "PG_active": 8,
      "PG_owner_priv_1": 10, "PG_reserved": 13, "PG_swapbacked": 19, "PG_unevictable": 20,
      "PG_mlocked": 21}
PGTY = {"PGTY_buddy": 0xf0, "PGTY_offline": 0xf1, "PGTY_table": 0xf2, "PGTY_guard": 0xf3,
        "PGTY_hugetlb": 0xf4, "PGTY_slab": 0xf5, "PGTY_zsmalloc": 0xf6, "PGTY_unaccepted": 0xf7,
        "PGTY_large_kmalloc": 0xf8}
SLAB_RECLAIM_BIT = 15
TMPFS_MAGIC, BDEVFS_MAGIC, EXT4_MAGIC = 0x01021994, 0x62646576, 0xEF53
VM_READ, VM_EXEC = 0x1, 0x4

# offsets (bytes) of the members the walk follows; BTF below says the same
OFF = {"as_host": 0, "as_i_mmap": 8, "inode_sb": 40, "inode_ino": 64, "sb_dev": 16,
       "sb_magic": 96, "vma_flags": 32, "vma_shared": 64, "rb_right": 8, "rb_left": 16,
       "kc_flags": 8,
       # --by fs|file|exec: a file's dentry up to its superblock's root, the mounts (fs/mount.h)
       "inode_mapping": 48, "inode_nlink": 72, "inode_rdev": 76, "inode_dentry": 80,
       "sb_root": 24, "sb_type": 32, "sb_mounts": 40, "fst_name": 0,
       "d_hash": 8, "d_parent": 24, "d_name": 32, "d_inode": 48, "d_iname": 56, "d_alias": 112,
       "mnt_parent": 16, "mnt_mountpoint": 24, "mnt": 32, "mnt_root": 0, "mnt_sb": 8,
       "mnt_mounts": 64, "mnt_child": 80, "mnt_next_for_sb": 96, "mnt_pprev_for_sb": 104,
       "mnt_devname": 112, "mnt_ns": 120, "mntns_root": 16, "nsproxy_mntns": 24}

# --reconcile: the kernel's counters (vm_zone_stat, vm_node_stat), each what the walk counts
ZONE_STAT = {"NR_FREE_PAGES": 0, "NR_UNACCEPTED": 1, "NR_MLOCK": 2}
NODE_STAT = {"NR_ANON_MAPPED": 0, "NR_FILE_PAGES": 1, "NR_SHMEM": 2, "NR_SWAPCACHE": 3,
             "NR_SLAB_RECLAIMABLE_B": 4, "NR_SLAB_UNRECLAIMABLE_B": 5, "NR_PAGETABLE": 6,
             "NR_INACTIVE_ANON": 7, "NR_ACTIVE_ANON": 8, "NR_INACTIVE_FILE": 9,
             "NR_ACTIVE_FILE": 10, "NR_UNEVICTABLE": 11, "NR_FILE_DIRTY": 12, "NR_WRITEBACK": 13,
             "NR_ANON_THPS": 14, "NR_SHMEM_THPS": 15, "NR_FILE_THPS": 16}
COUNTERS = {"NR_FREE_PAGES": 24, "NR_UNACCEPTED": 0, "NR_ANON_MAPPED": 8, "NR_FILE_PAGES": 12,
            "NR_SHMEM": 2, "NR_SWAPCACHE": 0, "NR_SLAB_RECLAIMABLE_B": 2,
            "NR_SLAB_UNRECLAIMABLE_B": 2, "NR_PAGETABLE": 2, "_totalram_pages": 56,
            # -a --reconcile's (EXPECTED_ATTRS)
            "NR_MLOCK": 1, "NR_INACTIVE_ANON": 7, "NR_ACTIVE_ANON": 2, "NR_INACTIVE_FILE": 10,
            "NR_ACTIVE_FILE": 0, "NR_UNEVICTABLE": 1, "NR_FILE_DIRTY": 2, "NR_WRITEBACK": 1,
            "NR_ANON_THPS": 0, "NR_SHMEM_THPS": 0, "NR_FILE_THPS": 0}
HSTATE_SIZE = 64
# where the kernel's data is (physical; direct-map addresses): kallsyms' tables and counters
KSYMS = {"names": 0x10000, "token_table": 0x12000, "token_index": 0x12800,
         "offsets": 0x12a00, "num_syms": 0x12f00, "relative_base": 0x12f08}
DATA = {"vm_zone_stat": 0x13000, "vm_node_stat": 0x13100, "_totalram_pages": 0x13200,
        "hstates": 0x13300, "hugetlb_max_hstate": 0x13400, "node_data": 0x13600,
        "nr_node_ids": 0x13608, "nr_vmalloc_pages": 0x13610, "pcpu_nr_populated": 0x13618,
        "pcpu_nr_units": 0x13620, "lru_gen_caps": 0x13628,
        "init_nsproxy": 0x13640, "shm_mnt": 0x13680, "iomem_resource": 0x13a00}
VMALLOC_PAGES, PCPU_POPULATED, PCPU_UNITS = 5, 3, 2     # VmallocUsed 20 kB, Percpu 24 kB
# --by node|zone: node 0's pglist_data at PGDAT, its zones (name, start pfn, pages spanned)
PGDAT, ZONE_SIZE = 0x13500, 64
ZONES = [("DMA", 0, 16), ("DMA32", 0, 0), ("Normal", 16, 64)]

# allpages: a memory cgroup (its id CGROUP_ID) at MEMCG: anon pages point at it (6.1-6.18), a
# file's pages at its obj_cgroup OBJCG (7.x), page tables at the obj_cgroup with bit 1 (KMEM)
CGROUP_ID, MEMCG, OBJCG = 0x1234, 0xe800, 0xeb00
# --by cgroup: its kernfs_node's name and parents: /system.slice/memstat-test.service
CGROUP_PATH, CGROUP_PARENT_ID = "/system.slice/memstat-test.service", 0x10

# --by fs|file|exec: the superblocks (s_dev as the kernel encodes it: major << 20 | minor), what
# each file's pages are named, and the mounts. The internal tmpfs' minor is not 1: a memfd of
# the machine that reads the dump is often 0:1, and the dump's own shm_mnt must name it
DEV_EXT4, DEV_TMPFS, DEV_ROOTFS, DEV_BDEV, RDEV_DISK = 8 << 20 | 1, 25, 2, 5, 8 << 20
ROOTFS_SB, ROOTFS_MAGIC = 0xa600, 0x858458f6
INIT_NS, OTHER_NS, MNT_NS_INTERNAL = 0xe400, 0xe440, 0xffffffffffffffea   # ERR_PTR(-EINVAL)
INTERNAL_TMPFS = "(internal tmpfs: memfd, SysV shm, shared anonymous)"
# the groups (pages) each key gives; the other pages are "(none)"
EXPECTED_FS = {"/srv/data": 8, INTERNAL_TMPFS: 2, "(block devices)": 2}
EXPECTED_FILES = {"/srv/data/var/data.bin": 4, "/srv/data/bin/tool": 4, "SYSV00001234": 2,
                  "(block device 8:0)": 2}
EXPECTED_EXEC = {"/srv/data/bin/tool": 4}
# ... and without struct mount in the BTF (btf_raw(mounts=False)): the paths from the roots
EXPECTED_FILES_UNMOUNTED = {"(not mounted) /var/data.bin": 4, "(not mounted) /bin/tool": 4,
                            "SYSV00001234": 2, "(block device 8:0)": 2}

EXPECTED = {"total": 64, "holes": 16, "detail": {
    "kernel_reserved": 8, "free_buddy": 8, "kernel_slab_reclaimable": 2,
    "kernel_slab_unreclaimable": 2, "anon_private": 8, "page_cache_file": 4, "exec": 4,
    "shmem": 2, "page_cache_buffers": 2, "kernel_pagetables": 2, "free_pcp": 1,
    "kernel_other": 5, "free_uninit": 16}}
# memstat --core -a --json's attributes: the flags memory() gives pages 20-31 (anon and shmem
# are swap-backed: the anon LRU lists)
EXPECTED_ATTRS = {"dirty": 2, "dirty_file": 2, "writeback": 1, "mlocked": 1, "unevictable": 1,
                  "active_anon": 2, "inactive_anon": 7, "active_file": 0, "inactive_file": 10,
                  "dma_pinned": 1}


def va(pa):
    return DIRECT + pa


def btf_raw(self_nested=0, mounts=True):
    """Raw BTF (include/uapi/linux/btf.h) of the types memstat --core reads; self_nested: struct
    page also holds that many anonymous members of its own type (a crafted BTF that nests
    forever, and whose searches would branch self_nested ways at every level); mounts False:
    no struct mount (the files' paths are still there, their mounts are not)."""
    strs = bytearray(b"\0")
    names = {}

    def s(name):
        if name not in names:
            names[name] = len(strs)
            strs.extend(name.encode() + b"\0")
        return names[name]

    types = []       # encoded types; ids from 1

    def add(blob):
        types.append(blob)
        return len(types)

    def info(kind, vlen=0):
        return (kind << 24) | vlen

    def integer(name, size):
        return add(struct.pack("<III", s(name), info(1), size) + struct.pack("<I", size * 8))

    def ptr():
        return add(struct.pack("<III", 0, info(2), 0))

    def struct_(name, size, members, kind=4):
        blob = struct.pack("<III", s(name) if name else 0, info(kind, len(members)), size)
        for mname, mtype, off in members:
            blob += struct.pack("<III", s(mname), mtype, off * 8)
        return add(blob)

    def array(elem, n):
        return add(struct.pack("<III", 0, info(3), 0) + struct.pack("<III", elem, ui_id[0], n))

    def enum(name, values):
        blob = struct.pack("<III", s(name), info(6, len(values)), 4)
        for k, v in values.items():
            blob += struct.pack("<Ii", s(k), v if v < 0x80000000 else v - 0x100000000)
        return add(blob)

    ul = integer("unsigned long", 8)
    ui = integer("unsigned int", 4)
    ui_id = [ui]
    vp = ptr()
    page_members = [("flags", ul, 0), ("compound_head", ul, 8), ("mapping", vp, 24),
                    ("index", ul, 32), ("private", ul, 40), ("page_type", ui, 48),
                    ("_refcount", ui, 52), ("memcg_data", ul, 56)]
    # struct page is the next type: its id is len(types) + 1
    page_members += [("", len(types) + 1, 0)] * self_nested
    struct_("page", 64, page_members)
    # a large folio's counters in its first tail page (allpages' pinned column, -a)
    struct_("folio", 128, [("flags", ul, 0), ("_entire_mapcount", ui, 84), ("_pincount", ui, 92)])
    enum("pageflags", PG)
    enum("pagetype", PGTY)
    struct_("slab", 64, [("slab_cache", vp, 8)])
    struct_("kmem_cache", 128, [("flags", ui, OFF["kc_flags"])])
    enum("_slab_flag_bits", {"_SLAB_RECLAIM_ACCOUNT": SLAB_RECLAIM_BIT})
    struct_("address_space", 64, [("host", vp, OFF["as_host"]), ("i_mmap", vp, OFF["as_i_mmap"])])
    o = OFF
    hlist_node = struct_("hlist_node", 16, [("next", vp, 0), ("pprev", vp, 8)])
    hlist_head = struct_("hlist_head", 8, [("first", vp, 0)])
    nlink = struct_(None, 4, [("i_nlink", ui, 0), ("__i_nlink", ui, 0)], kind=5)
    struct_("inode", 128, [("i_sb", vp, o["inode_sb"]), ("i_mapping", vp, o["inode_mapping"]),
                           ("i_ino", ul, o["inode_ino"]), ("", nlink, o["inode_nlink"]),
                           ("i_rdev", ui, o["inode_rdev"]),
                           ("i_dentry", hlist_head, o["inode_dentry"])])
    struct_("super_block", 128, [("s_dev", ui, o["sb_dev"]), ("s_root", vp, o["sb_root"]),
                                 ("s_type", vp, o["sb_type"]), ("s_mounts", vp, o["sb_mounts"]),
                                 ("s_magic", ul, o["sb_magic"])])
    struct_("file_system_type", 64, [("name", vp, o["fst_name"])])
    bl_node = struct_("hlist_bl_node", 16, [("next", vp, 0), ("pprev", vp, 8)])
    qstr = struct_("qstr", 16, [("hash_len", ul, 0), ("name", vp, 8)])
    d_name = struct_(None, 16, [("__d_name", qstr, 0), ("d_name", qstr, 0)], kind=5)  # 6.15+
    d_u = struct_(None, 16, [("d_alias", hlist_node, 0)], kind=5)
    struct_("dentry", 128, [("d_hash", bl_node, o["d_hash"]), ("d_parent", vp, o["d_parent"]),
                            ("", d_name, o["d_name"]), ("d_inode", vp, o["d_inode"]),
                            ("d_u", d_u, o["d_alias"])])
    if mounts:
        lh = struct_("list_head", 16, [("next", vp, 0), ("prev", vp, 8)])
        vfsmount = struct_("vfsmount", 32, [("mnt_root", vp, o["mnt_root"]),
                                            ("mnt_sb", vp, o["mnt_sb"])])
        struct_("mount", 128, [("mnt_parent", vp, o["mnt_parent"]),
                               ("mnt_mountpoint", vp, o["mnt_mountpoint"]),
                               ("mnt", vfsmount, o["mnt"]), ("mnt_mounts", lh, o["mnt_mounts"]),
                               ("mnt_child", lh, o["mnt_child"]),
                               ("mnt_next_for_sb", vp, o["mnt_next_for_sb"]),
                               ("mnt_pprev_for_sb", vp, o["mnt_pprev_for_sb"]),
                               ("mnt_devname", vp, o["mnt_devname"]),
                               ("mnt_ns", vp, o["mnt_ns"])])
        struct_("mnt_namespace", 64, [("root", vp, o["mntns_root"])])
    struct_("nsproxy", 64, [("mnt_ns", vp, o["nsproxy_mntns"])])
    rb = struct_("rb_node", 24, [("__rb_parent_color", ul, 0), ("rb_right", vp, OFF["rb_right"]),
                                 ("rb_left", vp, OFF["rb_left"])])
    shared = struct_(None, 32, [("rb", rb, 0), ("rb_subtree_last", ul, 24)])
    struct_("vm_area_struct", 128, [("vm_flags", ul, OFF["vma_flags"]),
                                    ("shared", shared, OFF["vma_shared"])])
    struct_("mem_cgroup", 64, [("css", vp, 0)])          # css.cgroup: offset 0, as in kernels
    struct_("cgroup_subsys_state", 64, [("cgroup", vp, 0)])
    struct_("cgroup", 64, [("kn", vp, 8), ("subsys", vp, 16)])
    struct_("kernfs_node", 64, [("id", ul, 0), ("__parent", vp, 8), ("name", vp, 16)])
    struct_("obj_cgroup", 64, [("memcg", vp, 8)])
    enum("cgroup_subsys_id", {"cpuset_cgrp_id": 0, "memory_cgrp_id": 1})
    zone = struct_("zone", ZONE_SIZE, [("zone_start_pfn", ul, 0), ("spanned_pages", ul, 8),
                                       ("name", vp, 16)])
    struct_("pglist_data", 256, [("node_zones", array(zone, len(ZONES)), 0)])
    enum("zone_stat_item", ZONE_STAT)
    enum("node_stat_item", NODE_STAT)
    struct_("hstate", HSTATE_SIZE, [("order", ui, 0), ("nr_huge_pages", ul, 8)])
    struct_("resource", 64, [("start", ul, 0), ("end", ul, 8), ("name", vp, 16),
                             ("flags", ul, 24), ("desc", ul, 32), ("parent", vp, 40),
                             ("sibling", vp, 48), ("child", vp, 56)])
    s("memstat synthetic kernel " + "." * 1024)     # a real vmlinux BTF is megabytes
    tblob = b"".join(types)
    hdr = struct.pack("<HBBIIIII", 0xeB9F, 1, 0, 24, 0, len(tblob), len(tblob), len(strs))
    return hdr + tblob + bytes(strs)


BTF_PA = 0x20000        # with_btf: where the kernel image's .BTF is, _stext 4 KiB before it
VMCOREINFO_PA = 0x30000  # with_vmcoreinfo: the kernel's vmcoreinfo_data page
UTS_PA = 0xf000          # init_uts_ns
RELEASE = "6.18.0-memstat-synthetic"


def symbols():
    """The kernel's symbols: (name, type, address), in kallsyms' order; one name longer than
    127 tokens (a "big" symbol: its length takes two bytes) and one per-cpu symbol at 0."""
    syms = [("fixed_percpu_data", "D", 0), ("init_uts_ns", "D", va(UTS_PA)),
            ("memstat_" + "x" * 200, "T", va(0x13f00))]
    syms += [(name, "D" if name != "hstates" else "B", va(pa)) for name, pa in DATA.items()]
    return syms + [("sym_%d" % i, "t", va(0x13800 + i)) for i in range(40)]


def system_map(slide=0):
    return "".join("%016x %s %s\n" % (a + slide, t, n) for n, t, a in symbols()
                   if a).encode()


def vmlinux(slide=0):
    """A vmlinux as --symbols reads one: an ELF file whose .symtab holds the kernel's symbols
    (at their link-time addresses, here the running ones less slide)."""
    strtab, syms = b"\0", [b"\0" * 24]
    for n, _, a in symbols():
        if a:
            syms.append(struct.pack("<IBBHQQ", len(strtab), 0x11, 0, 0xfff1, a - slide, 8))
            strtab += n.encode() + b"\0"
    shstr = b"\0.strtab\0.symtab\0.shstrtab\0"
    symtab = b"".join(syms)
    off1 = 64
    off2 = off1 + len(strtab)
    off3 = off2 + len(symtab)
    shoff = (off3 + len(shstr) + 7) // 8 * 8
    sh = [b"\0" * 64,
          struct.pack("<IIQQQQIIQQ", 1, 3, 0, 0, off1, len(strtab), 0, 0, 1, 0),
          struct.pack("<IIQQQQIIQQ", 9, 2, 0, 0, off2, len(symtab), 1, 1, 8, 24),
          struct.pack("<IIQQQQIIQQ", 17, 3, 0, 0, off3, len(shstr), 0, 0, 1, 0)]
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    eh = ident + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 4, 3)
    body = eh + strtab + symtab + shstr
    return body + b"\0" * (shoff - len(body)) + b"".join(sh)


def put_kallsyms(mem, kallsyms):
    """kallsyms' tables in mem (kernel/kallsyms.c), addresses encoded as kallsyms says:
    "percpu" (relative_base, negative offsets: x86_64 with KALLSYMS_ABSOLUTE_PERCPU),
    "relative" (relative_base + u32 offsets) or "place" (place-relative, no relative_base)."""
    tokens = [b""] * 256
    for i in range(0x21, 0x7f):
        tokens[i] = bytes([i])
    tokens[1], tokens[2] = b"vm_", b"_stat"
    table, index = b"", []
    for t in tokens:
        index.append(len(table))
        table += t + b"\0"
    names = b""
    for name, typ, _ in symbols():
        text, code = (typ + name).encode(), []
        while text:
            for i in (1, 2):
                if text.startswith(tokens[i]):
                    code.append(i)
                    text = text[len(tokens[i]):]
                    break
            else:
                code.append(text[0])
                text = text[1:]
        n = len(code)
        names += (bytes([n]) if n < 0x80 else bytes([0x80 | (n & 0x7f), n >> 7])) + bytes(code)
    base = DIRECT
    offs = []
    for i, (_, _, a) in enumerate(symbols()):
        if kallsyms == "percpu":
            offs.append(a if a < 0x80000000 else base - 1 - a)
        elif kallsyms == "relative":
            offs.append(a - base if a else 0)
        else:
            offs.append(a - va(KSYMS["offsets"] + 4 * i) if a else 0)
    k = KSYMS
    mem[k["names"]:k["names"] + len(names)] = names
    mem[k["token_table"]:k["token_table"] + len(table)] = table
    struct.pack_into("<256H", mem, k["token_index"], *index)
    struct.pack_into("<%di" % len(offs), mem, k["offsets"], *offs)
    struct.pack_into("<IIQ", mem, k["num_syms"], len(offs), 0, base)


def put_counters(mem, counters):
    for name, idx in ZONE_STAT.items():
        struct.pack_into("<q", mem, DATA["vm_zone_stat"] + 8 * idx, counters[name])
    for name, idx in NODE_STAT.items():
        struct.pack_into("<q", mem, DATA["vm_node_stat"] + 8 * idx, counters[name])
    struct.pack_into("<q", mem, DATA["_totalram_pages"], counters["_totalram_pages"])
    struct.pack_into("<IIQ", mem, DATA["hstates"], 9, 0, 0)     # 2 MiB pages, none
    struct.pack_into("<i", mem, DATA["hugetlb_max_hstate"], 1)
    struct.pack_into("<QI", mem, DATA["node_data"], va(PGDAT), 1)      # and nr_node_ids
    struct.pack_into("<QQi", mem, DATA["nr_vmalloc_pages"], VMALLOC_PAGES, PCPU_POPULATED,
                     PCPU_UNITS)
    for i, (name, start, spanned) in enumerate(ZONES):
        struct.pack_into("<QQQ", mem, PGDAT + i * ZONE_SIZE, start, spanned, va(0x13700 + 16 * i))
        mem[0x13700 + 16 * i:0x13700 + 16 * i + len(name)] = name.encode()


# the RAM as the kernel's /proc/iomem lists it (iomem_resource's tree: name, start, end, children);
# System RAM, nested or not, is pfns 0-79; a dump may leave out the crash kernel's area (56-63)
IOMEM = [("System RAM", 0, 0x3ffff, [("Kernel code", 0x1000, 0x1fff, []),
                                     ("Crash kernel", 0x38000, 0x3ffff, [])]),
         ("dax0.0", 0x40000, 0x4ffff, [("System RAM (kmem)", 0x40000, 0x4ffff, [])]),
         ("PCI Bus 0000:00", 0x50000, 0x7ffff, [])]
CRASHKERNEL = (0x38000, 0x40000)


def put_iomem(mem):
    """iomem_resource and its tree (kernel/resource.c's struct resource: start, end, name,
    flags, desc, parent, sibling, child), the resources at 0x13a40 on, their names at 0x13d00 on."""
    at = [0x13a40, 0x13d00]

    def put_list(parent, items):
        first, prev = 0, None
        for name, start, end, children in items:
            r, at[0], n, at[1] = at[0], at[0] + 64, at[1], at[1] + 32
            mem[n:n + len(name) + 1] = name.encode() + b"\0"
            struct.pack_into("<QQQQQQQQ", mem, r, start, end, va(n), 0x200, 0, va(parent), 0,
                             put_list(r, children))
            if prev is None:
                first = va(r)
            else:
                struct.pack_into("<Q", mem, prev + 48, va(r))
            prev = r
        return first

    root = DATA["iomem_resource"]
    mem[0x13cf0:0x13cf8] = b"PCI mem\0"
    struct.pack_into("<QQQQQQQQ", mem, root, 0, (1 << 64) - 1, va(0x13cf0), 0x200, 0, 0, 0,
                     put_list(root, IOMEM))


def put_files(mem):
    """--by fs|file|exec: the files' dentries, up to their superblocks' roots, and the mounts.
    The initial namespace (init_nsproxy.mnt_ns): rootfs at / (dentries /srv/data), ext4 at
    /srv/data; the same ext4 also the root of another namespace, first in its s_mounts (to be
    left out); the internal tmpfs (shm_mnt) with a SysV segment, its own root; no bdev mount."""
    o = OFF
    put = lambda pa, fmt, *v: struct.pack_into(fmt, mem, pa, *v)

    def string(pa, text):
        mem[pa:pa + len(text) + 1] = text.encode() + b"\0"
        return va(pa)

    def list_(head, nodes):         # a list_head at head, the list_heads at nodes linked in it
        ring = [head] + nodes
        for i, x in enumerate(ring):
            put(x, "<QQ", va(ring[(i + 1) % len(ring)]), va(ring[i - 1]))

    # the file system types (0x9200-0x92ff, their names at 0x9300); the superblocks' s_dev,
    # s_type and (rootfs') s_magic
    for i, (sb, dev, name) in enumerate(((0xa000, DEV_EXT4, "ext4"), (0xa200, DEV_TMPFS, "tmpfs"),
                                         (0xa400, DEV_BDEV, "bdev"),
                                         (ROOTFS_SB, DEV_ROOTFS, "rootfs"))):
        fst = 0x9200 + 0x40 * i
        put(fst + o["fst_name"], "<Q", string(0x9300 + 0x10 * i, name))
        put(sb + o["sb_dev"], "<I", dev)
        put(sb + o["sb_type"], "<Q", va(fst))
    put(ROOTFS_SB + o["sb_magic"], "<Q", ROOTFS_MAGIC)
    # the inodes: each a page cache's host, linked (__i_nlink) but the SysV segment's; the
    # block device's rdev, and no dentry
    for ino, nlink in ((0xb000, 1), (0xb100, 1), (0xb200, 0), (0xb300, 1)):
        put(ino + o["inode_mapping"], "<Q", va(0xc000 + (ino & 0xf00)))
        put(ino + o["inode_nlink"], "<I", nlink)
    put(0xb300 + o["inode_rdev"], "<I", RDEV_DISK)
    # the dentries (0x9400-0x99ff, each its name inline, d_iname's place): (name, parent (None:
    # itself), inode, hashed: in dentry_hashtable, a bucket each at 0x9a00; roots and the
    # pseudo file are not, as in the kernel)
    dentries = {0x9400: ("/", None, None, False), 0x9480: ("srv", 0x9400, None, True),
                0x9500: ("data", 0x9480, None, True),                       # rootfs
                0x9580: ("/", None, None, False), 0x9600: ("var", 0x9580, None, True),
                0x9680: ("data.bin", 0x9600, 0xb000, True),
                0x9700: ("bin", 0x9580, None, True), 0x9780: ("tool", 0x9700, 0xb100, True),
                0x9800: ("/", None, None, False),                          # tmpfs' root
                0x9880: ("SYSV00001234", None, 0xb200, False),   # shm's: d_alloc_pseudo()
                0x9900: ("/", None, None, False)}                          # bdev's root
    for i, (d, (name, parent, ino, hashed)) in enumerate(dentries.items()):
        put(d + o["d_parent"], "<Q", va(parent if parent is not None else d))
        put(d + o["d_name"], "<QQ", len(name) << 32 | zlib.crc32(name.encode()),
            string(d + o["d_iname"], name))
        if hashed:
            put(0x9a00 + 8 * i, "<Q", va(d + o["d_hash"]))
            put(d + o["d_hash"] + 8, "<Q", va(0x9a00 + 8 * i))
        if ino:                     # inode->i_dentry.first: the d_alias of its one dentry
            put(d + o["d_inode"], "<Q", va(ino))
            put(ino + o["inode_dentry"], "<Q", va(d + o["d_alias"]))
            put(d + o["d_alias"] + 8, "<Q", va(ino + o["inode_dentry"]))
    for sb, root in ((ROOTFS_SB, 0x9400), (0xa000, 0x9580), (0xa200, 0x9800), (0xa400, 0x9900)):
        put(sb + o["sb_root"], "<Q", va(root))
    # the mounts (0xe200-0xe3ff): (superblock, root, parent (None: itself), mount point (None:
    # its root), namespace (an address; MNT_NS_INTERNAL the kernel's own mounts), devname (at
    # 0x9b00))
    mounts = {0xe200: (ROOTFS_SB, 0x9400, None, None, va(INIT_NS), "rootfs"),
              0xe280: (0xa000, 0x9580, 0xe200, 0x9500, va(INIT_NS), "/dev/vda1"),
              0xe300: (0xa000, 0x9580, None, None, va(OTHER_NS), "/dev/vda1"),
              0xe380: (0xa200, 0x9800, None, None, MNT_NS_INTERNAL, "none")}
    for i, (m, (sb, root, parent, point, ns, devname)) in enumerate(mounts.items()):
        put(m + o["mnt_parent"], "<Q", va(parent or m))
        put(m + o["mnt_mountpoint"], "<Q", va(point or root))
        put(m + o["mnt"] + o["mnt_root"], "<Q", va(root))
        put(m + o["mnt"] + o["mnt_sb"], "<Q", va(sb))
        put(m + o["mnt_devname"], "<Q", string(0x9b00 + 0x20 * i, devname))
        put(m + o["mnt_ns"], "<Q", ns)
        list_(m + o["mnt_mounts"], [c + o["mnt_child"] for c, x in mounts.items() if x[2] == m])
        if not parent:
            list_(m + o["mnt_child"], [])
    # each superblock's mounts (s_mounts, mnt_next_for_sb): ext4's other namespace's first
    for sb, chain in ((ROOTFS_SB, [0xe200]), (0xa000, [0xe300, 0xe280]), (0xa200, [0xe380])):
        prev = sb + o["sb_mounts"]
        for m in chain:
            put(prev, "<Q", va(m))
            put(m + o["mnt_pprev_for_sb"], "<Q", va(prev))
            prev = m + o["mnt_next_for_sb"]
    # the namespaces' roots; init_nsproxy's mnt_ns; shm_mnt: the internal tmpfs' vfsmount
    put(INIT_NS + o["mntns_root"], "<Q", va(0xe200))
    put(OTHER_NS + o["mntns_root"], "<Q", va(0xe300))
    put(DATA["init_nsproxy"] + o["nsproxy_mntns"], "<Q", va(INIT_NS))
    put(DATA["shm_mnt"], "<Q", va(0xe380 + o["mnt"]))


def memory(with_btf=False, with_vmcoreinfo=False, kallsyms="percpu", counters=None,
           mglru=False):
    # kallsyms: how its tables encode addresses (put_kallsyms()); counters: COUNTERS changed;
    # mglru: lru_gen_caps[0]'s enabled count 1 (MGLRU ran), else 0
    """Physical memory [0, 0x50000): pfns 0-63 with struct pages, 64-79 without (holes); with
    with_btf, the kernel's BTF in it as in a kernel image (vmcoreinfo(with_btf=True)); with
    with_vmcoreinfo, the kernel's VMCOREINFO text in a page of its own, as the kernel keeps it,
    and a page before it that looks the same but names another release (a copy in some file)."""
    mem = bytearray(0x50000)
    put_kallsyms(mem, kallsyms or "percpu")
    put_counters(mem, counters or COUNTERS)
    struct.pack_into("<i", mem, DATA["lru_gen_caps"], 1 if mglru else 0)
    put_files(mem)
    put_iomem(mem)
    if with_btf:
        blob = btf_raw()
        mem[BTF_PA:BTF_PA + len(blob)] = blob
    if with_vmcoreinfo:
        text = vmcoreinfo(with_btf)
        decoy = text.replace(RELEASE.encode(), b"5.10.0-another-kernel")
        mem[VMCOREINFO_PA - 0x1000:VMCOREINFO_PA - 0x1000 + len(decoy)] = decoy
        mem[VMCOREINFO_PA:VMCOREINFO_PA + len(text)] = text
    rel = RELEASE.encode()
    mem[UTS_PA + 4 + 130:UTS_PA + 4 + 130 + len(rel)] = rel    # init_uts_ns.name.release

    def put(pa, fmt, *v):
        struct.pack_into(fmt, mem, pa, *v)

    # page tables: init_top_pgt at 0x1000; vmemmap -> 0x2000 -> 0x3000 -> 0x4000 -> 0x5000;
    # the direct map: one 1 GiB page at 0 through the PUD table at 0x6000
    put(0x1000 + ((VMEMMAP >> 39) & 511) * 8, "<Q", 0x2000 | PRESENT)
    put(0x2000 + ((VMEMMAP >> 30) & 511) * 8, "<Q", 0x3000 | PRESENT)
    put(0x3000 + ((VMEMMAP >> 21) & 511) * 8, "<Q", 0x4000 | PRESENT)
    put(0x4000, "<Q", 0x5000 | PRESENT)      # pfns 0-63; the next piece (64-127) unmapped
    put(0x1000 + ((DIRECT >> 39) & 511) * 8, "<Q", 0x6000 | PRESENT)
    put(0x6000 + ((DIRECT >> 30) & 511) * 8, "<Q", 0 | PRESENT | PSE)
    # mem_section: the roots at 0x7000, root 0's sections at 0x8000; section 0 has struct pages
    put(0x7000, "<Q", va(0x8000))
    put(0x8000, "<Q", VMEMMAP | 0x7)         # present, has a mem_map, online
    # kernel objects (direct-map addresses)
    put(0x9000 + OFF["kc_flags"], "<I", 1 << SLAB_RECLAIM_BIT)    # a reclaimable cache
    put(0x9100 + OFF["kc_flags"], "<I", 0x2000)                   # another flag only
    for sb, magic in ((0xa000, EXT4_MAGIC), (0xa200, TMPFS_MAGIC), (0xa400, BDEVFS_MAGIC)):
        put(sb + OFF["sb_magic"], "<Q", magic)
    for ino, sb in ((0xb000, 0xa000), (0xb100, 0xa000), (0xb200, 0xa200), (0xb300, 0xa400)):
        put(ino + OFF["inode_sb"], "<Q", va(sb))
        put(ino + OFF["inode_ino"], "<Q", ino >> 4)
    for m, ino in ((0xc000, 0xb000), (0xc100, 0xb100), (0xc200, 0xb200), (0xc300, 0xb300)):
        put(m + OFF["as_host"], "<Q", va(ino))
    # the memory cgroup: mem_cgroup -> css.cgroup -> kn->id, and cgroup.subsys[1] back at it
    put(MEMCG, "<Q", va(0xe900))
    put(0xe900 + 8, "<Q", va(0xea00))
    put(0xe900 + 16 + 8, "<Q", va(MEMCG))
    put(0xea00, "<Q", CGROUP_ID)
    # its kernfs_node (0xea00) up to the hierarchy's root (0xed00: no parent, no name)
    for kn, kid, parent, name_at, name in ((0xea00, CGROUP_ID, 0xec00, 0xef00, "memstat-test.service"),
                                           (0xec00, CGROUP_PARENT_ID, 0xed00, 0xee00, "system.slice"),
                                           (0xed00, 1, None, 0xee80, "")):
        put(kn, "<QQQ", kid, va(parent) if parent else 0, va(name_at))
        mem[name_at:name_at + len(name) + 1] = name.encode() + b"\0"
    put(OBJCG + 8, "<Q", va(MEMCG))
    # the executable's i_mmap: a read-only VMA at the root, an executable one its left child
    node = lambda vma: va(vma + OFF["vma_shared"])
    put(0xc100 + OFF["as_i_mmap"], "<Q", node(0xd000))
    put(0xd000 + OFF["vma_flags"], "<Q", VM_READ)
    put(0xd000 + OFF["vma_shared"] + OFF["rb_left"], "<Q", node(0xd100))
    put(0xd100 + OFF["vma_flags"], "<Q", VM_READ | VM_EXEC)
    # the page cache file's i_mmap: one read-only VMA
    put(0xc000 + OFF["as_i_mmap"], "<Q", node(0xd200))
    put(0xd200 + OFF["vma_flags"], "<Q", VM_READ)

    def page(pfn, flags=0, head=0, mapping=0, index=0, private=0, ptype=0xffffffff, ref=1,
             memcg=0):
        put(0x5000 + pfn * 64, "<QQQQQQIIQ", flags, head, 0, mapping, index, private, ptype,
            ref, memcg)

    bit = lambda *names: sum(1 << PG[n] for n in names)
    for pfn in range(0, 8):
        page(pfn, flags=bit("PG_reserved"))
    page(8, ptype=PGTY["PGTY_buddy"] << 24, private=3, ref=0)      # 8-15 free, order 3
    for pfn in (16, 17):
        page(pfn, head=va(0x9000), ptype=PGTY["PGTY_slab"] << 24)
    for pfn in (18, 19):
        page(pfn, head=va(0x9100), ptype=PGTY["PGTY_slab"] << 24)
    # -a: anon (swap-backed) 20-21 active, 22 mlocked and unevictable; file 28-29 dirty, 30
    # under writeback
    more = {20: ("PG_active",), 21: ("PG_active",), 22: ("PG_mlocked", "PG_unevictable"),
            28: ("PG_dirty",), 29: ("PG_dirty",), 30: ("PG_writeback",)}
    for pfn in range(20, 28):     # 23: pinned for DMA (refcount past GUP_PIN_COUNTING_BIAS)
        page(pfn, flags=bit("PG_lru", "PG_swapbacked", *more.get(pfn, ())),
             mapping=va(0xe000) | 1, ptype=0, memcg=va(MEMCG), ref=1025 if pfn == 23 else 1)
    for pfn in range(28, 32):
        page(pfn, flags=bit("PG_lru", *more.get(pfn, ())), mapping=va(0xc000), index=pfn,
             ptype=0, memcg=va(OBJCG))
    for pfn in range(32, 36):
        page(pfn, flags=bit("PG_lru"), mapping=va(0xc100), index=pfn, ptype=0)
    for pfn in (36, 37):
        page(pfn, flags=bit("PG_lru", "PG_swapbacked"), mapping=va(0xc200), ptype=0)
    for pfn in (38, 39):
        page(pfn, flags=bit("PG_lru"), mapping=va(0xc300), ptype=0)
    for pfn in (40, 41):
        page(pfn, ptype=PGTY["PGTY_table"] << 24, memcg=va(OBJCG) | 2)
    page(42, ref=0)                                                # a per-cpu free page
    for pfn in range(43, 48):
        page(pfn)                                                  # kernel, untyped
    return mem                                                     # 48-63: never initialised


def vmcoreinfo(with_btf=False, kallsyms="percpu", kaslr=0):
    stext = "SYMBOL(_stext)=%x\n" % (START_KERNEL_MAP + BTF_PA - 0x1000) if with_btf else ""
    stext += "".join("SYMBOL(kallsyms_%s)=%x\n" % (n, va(pa)) for n, pa in KSYMS.items()
                     if kallsyms and (n != "relative_base" or kallsyms != "place"))
    return ("OSRELEASE=%s\nBUILD-ID=%s\nPAGESIZE=4096\n" % (RELEASE, "00" * 20)).encode() + \
        stext.encode() + ("SYMBOL(init_uts_ns)=%x\nOFFSET(uts_namespace.name)=4\n" % va(UTS_PA) +
            "SYMBOL(init_top_pgt)=%x\nNUMBER(phys_base)=0\nKERNELOFFSET=%x\n"
            "NUMBER(pgtable_l5_enabled)=0\nNUMBER(sme_mask)=0\nSYMBOL(mem_section)=%x\n"
            "LENGTH(mem_section)=2048\nSIZE(mem_section)=16\nOFFSET(mem_section.section_mem_map)=0\n"
            "NUMBER(SECTION_SIZE_BITS)=27\nNUMBER(MAX_PHYSMEM_BITS)=46\n"
            % (START_KERNEL_MAP + 0x1000, kaslr, va(0x7000))).encode()


def elf_core(mem, note_desc, segments=((0, 0x40000), (0x40000, 0x10000))):
    """An ELF64 x86_64 core: a PT_NOTE with VMCOREINFO (note_desc None: no note), PT_LOADs."""
    notes = b""
    if note_desc is not None:
        name = b"VMCOREINFO\0"
        notes = struct.pack("<III", len(name), len(note_desc), 0)
        notes += name + b"\0" * (-len(name) % 4) + note_desc + b"\0" * (-len(note_desc) % 4)
    phdrs = []
    nph = len(segments) + (1 if notes else 0)
    off = 64 + 56 * nph
    if notes:
        phdrs.append(struct.pack("<IIQQQQQQ", 4, 0, off, 0, 0, len(notes), 0, 4))
        off += len(notes)
    off = (off + PAGE - 1) // PAGE * PAGE
    data = b""
    for pa, size in segments:
        phdrs.append(struct.pack("<IIQQQQQQ", 1, 7, off + len(data), 0, pa, size, size, PAGE))
        data += bytes(mem[pa:pa + size])
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    eh = ident + struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, nph, 0, 0, 0)
    head = eh + b"".join(phdrs) + notes
    return head + b"\0" * (off - len(head)) + data


def compressor(method):
    """A page compressor of kdump's (its page_desc flag, and the function)."""
    if method == "zlib":
        return 0x1, zlib.compress
    if method == "lzo":         # python3-lzo: LZO1X-1, without python-lzo's own header
        import lzo
        return 0x2, lambda b: lzo.compress(b, 1, False)
    if method == "snappy":      # python3-snappy
        import snappy
        return 0x4, snappy.compress
    import zstandard            # python3-zstandard
    return 0x20, zstandard.ZstdCompressor().compress


def kdump(mem, note_desc, flattened=False, leave_out=(), raw=(), method="zlib"):
    """The same memory as a kdump-compressed dump (makedumpfile's format, diskdump_mod.h):
    every page compressed by method (zlib, lzo, snappy or zstd), except the pfns in leave_out
    (filtered out: absent from the second bitmap) and those in raw (written uncompressed);
    flattened: as makedumpfile -F and QEMU's kdump-zlib write it."""
    flag, compress = compressor(method)
    bs, npages = PAGE, len(mem) // PAGE
    bb = max(1, (npages + 8 * bs - 1) // (8 * bs))      # blocks of each bitmap
    written = [pfn for pfn in range(npages) if pfn not in leave_out]
    head = bytearray(bs * (2 + 2 * bb))
    struct.pack_into("<8si", head, 0, b"KDUMP   ", 6)
    struct.pack_into("<IiiIIIIIIi", head, 424, 0, bs, 1, 2 * bb, npages, npages, 0,
                     len(written), 0, 1)
    vmci_off = bs + 104
    struct.pack_into("<QiiQQqQqQqQQQQ", head, bs, 0, 31, 0, 0, npages, vmci_off,
                     len(note_desc or b""), 0, 0, 0, 0, 0, npages, npages)
    head[vmci_off:vmci_off + len(note_desc or b"")] = note_desc or b""
    for pfn in range(npages):
        head[2 * bs + pfn // 8] |= 1 << (pfn % 8)           # the first bitmap: memory
    for pfn in written:
        head[(2 + bb) * bs + pfn // 8] |= 1 << (pfn % 8)    # the second: pages written
    descs, data = b"", b""
    data_off = len(head) + 24 * len(written)
    for pfn in written:
        page = bytes(mem[pfn * bs:(pfn + 1) * bs])
        blob, flags = (page, 0) if pfn in raw else (compress(page), flag)
        descs += struct.pack("<qIIQ", data_off + len(data), len(blob), flags, 0)
        data += blob
    plain = bytes(head) + descs + data
    if not flattened:
        return plain
    # pieces of at most 8 KiB, the header's last (written in another order than the offsets)
    out = b"makedumpfile".ljust(16, b"\0") + struct.pack(">qq", 1, 1)
    out = out.ljust(4096, b"\0")
    # and, as QEMU does, only the disk_dump_header's 464 bytes of block 0: the rest is a gap
    pieces = [(o, plain[o:o + 8192]) for o in range(4096, len(plain), 8192)] + [(0, plain[:464])]
    for off, chunk in pieces:
        out += struct.pack(">qq", off, len(chunk)) + chunk
    return out + struct.pack(">qq", -1, 0)


LARGE_VMEMMAP = 0x200000      # large(): where the struct pages are, in 2 MiB pages


def large(path, npages, fmt="elf", method="zlib"):
    """A dump of npages (a multiple of 32768, a memory section) for make bench: every 64 pages
    are memory()'s 64 kinds (EXPECTED["detail"] times npages / 64, no holes), their struct
    pages mapped through 2 MiB vmemmap pages at LARGE_VMEMMAP; the rest of memory is zeros,
    sparse in the file. fmt "elf", or "kdump" (every page compressed by method, flattened: as
    QEMU writes one)."""
    assert npages % 32768 == 0 and npages * 64 <= (1 << 30)
    mem = memory()
    pattern = bytes(mem[0x5000:0x6000])            # pfns 0-63's struct pages
    vm_bytes = npages * 64
    put = lambda fmt_, off, *v: struct.pack_into(fmt_, mem, off, *v)
    for i in range((vm_bytes + (1 << 21) - 1) >> 21):   # the PMD table: 2 MiB vmemmap pages
        put("<Q", 0x3000 + (((VMEMMAP >> 21) + i) & 511) * 8,
            (LARGE_VMEMMAP + (i << 21)) | PRESENT | PSE)
    for sec in range(npages // 32768):                   # every section present, with pages
        put("<Q", 0x8000 + 16 * sec, VMEMMAP | 0x3)
    size = npages * PAGE
    if fmt == "kdump":
        whole = bytearray(size)
        whole[:len(mem)] = mem
        whole[LARGE_VMEMMAP:LARGE_VMEMMAP + vm_bytes] = pattern * (vm_bytes // PAGE)
        with open(path, "wb") as f:
            f.write(kdump(whole, vmcoreinfo(), flattened=True, method=method))
        return
    head = elf_core(mem, vmcoreinfo(), segments=((0, len(mem)),))
    # the one segment: all of memory, at the offset elf_core put the first's data
    off = len(head) - len(mem)
    eh = bytearray(head[:off])
    phoff = 64 + 56                                   # after the PT_NOTE
    struct.pack_into("<QQQQ", eh, phoff + 16, 0, 0, size, size)   # p_vaddr, p_paddr, sizes
    with open(path, "wb") as f:
        f.write(eh)
        f.write(mem)
        f.seek(off + LARGE_VMEMMAP)
        f.write(pattern * (vm_bytes // PAGE))
        f.truncate(off + size)


def main():
    if sys.argv[1] == "--large":         # mkdump.py --large NPAGES FILE [kdump]
        large(sys.argv[3], int(sys.argv[2]), *(sys.argv[4:5]))
        with open(sys.argv[3] + ".btf", "wb") as f:
            f.write(btf_raw())
        return
    if sys.argv[1] == "--fuzz-seeds":
        small = memory()[:0x14000]      # with kallsyms' tables and the counters
        seeds = {"synthetic-x86_64.core": elf_core(small, vmcoreinfo(), segments=((0, 0x14000),)),
                 "synthetic-x86_64.kdump": kdump(small, vmcoreinfo(), raw=(1,)),
                 "synthetic-x86_64.flat": kdump(small, vmcoreinfo(), flattened=True)}
        for name, data in seeds.items():
            with open(os.path.join(sys.argv[2], name), "wb") as f:
                f.write(data)
        return
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "dump.core"), "wb") as f:
        f.write(elf_core(memory(), vmcoreinfo()))
    with open(os.path.join(d, "types.btf"), "wb") as f:
        f.write(btf_raw())
    with open(os.path.join(d, "System.map"), "wb") as f:
        f.write(system_map())
    print(json.dumps(EXPECTED))


if __name__ == "__main__":
    main()
