#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Dumps of a test VM's memory for memstat --core (tools/vm/matrix.sh, tools/vm/init.sh).

  qemu_dump.py watch RESULTS QMP_SOCKET ACK_SOCKET OUTDIR
      While the VM runs: for each "@@ dump-request NAME FORMAT" its /init writes to RESULTS,
      dump the guest's memory through QEMU's monitor (dump-guest-memory, FORMAT elf or
      kdump-zlib; the VM is stopped while it is written) to OUTDIR/dump-NAME.core, then write
      "dumped NAME ok" (or "dumped NAME error ...") to the VM's third serial port (ACK_SOCKET),
      which /init waits on. Ends when QEMU does.
  qemu_dump.py for-makedumpfile DUMP
      Make QEMU's ELF dump readable by makedumpfile 1.7.2, which reads the program headers
      right after the ELF header: QEMU 7.2 puts two section headers there (and an e_ehsize
      of 8). The program headers are moved there, the section headers dropped, in place.
  qemu_dump.py without-note DUMP
      Make an ELF dump one of a guest without -device vmcoreinfo: its PT_NOTE segments become
      PT_NULL, in place (memstat --core then finds VMCOREINFO in the guest's memory).
  qemu_dump.py check MEMSTAT DUMP BEFORE_JSON AFTER_JSON [allpages [BEFORE_RUNS AFTER_RUNS]]
      memstat --core DUMP --json --reconcile on the host, against the VM's own walks just
      before and just after the dump: the same present memory and holes (where memstat says
      the guest's iomem tree is not whole in the dump, it may have the firmware areas QEMU
      dumps as RAM more: reserved pages), every class within 0.5% of the total of the
      range the two live walks span, and every row reconciled with the dump's own counters;
      with allpages, also memstat allpages --core DUMP: its records sum to the summary's
      sub-classes, and anon pages are charged to cgroups; --by zone: the kernel's zones; with
      the VM's --runs just before and after (gzip, base64), the dump's allpages agrees with
      them on the pages they agree on.
      Prints "ok: ..." or "fail: ..." (exit 0 or 1).
"""
import json
import os
import select
import socket
import struct
import subprocess
import sys
import time


def connect(path, seconds=120):
    end = time.time() + seconds
    while time.time() < end:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            time.sleep(0.1)
    return None


class Qmp:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def line(self, timeout):
        while b"\n" not in self.buf:
            r, _, _ = select.select([self.sock], [], [], timeout)
            if not r:
                return None
            data = self.sock.recv(65536)
            if not data:
                raise EOFError
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def command(self, name, args=None):
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:     # events may come before the answer
            r = self.line(None)
            if "return" in r:
                return None
            if "error" in r:
                return r["error"].get("desc", "error")


def watch(results, qmp_path, ack_path, outdir):
    s = connect(qmp_path)
    if not s:
        return 0
    qmp = Qmp(s)
    try:
        qmp.line(None)                      # the greeting
        qmp.command("qmp_capabilities")
    except EOFError:
        return 0
    ack = connect(ack_path)
    done = 0
    while True:
        try:
            with open(results, errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        reqs = [l.split()[2:4] for l in lines if l.startswith("@@ dump-request ")]
        for name, fmt in reqs[done:]:
            path = os.path.join(outdir, "dump-%s.core" % name)
            t0 = time.time()
            try:
                err = qmp.command("dump-guest-memory", {"paging": False, "protocol": "file:" + path,
                                                        "format": fmt})
            except EOFError:
                return 0
            msg = "ok %.1f s" % (time.time() - t0) if err is None else "error " + err
            print("qemu_dump: %s (%s): %s" % (path, fmt, msg), file=sys.stderr)
            if ack:
                ack.sendall(("dumped %s %s\n" % (name, msg)).encode())
            done += 1
        if any(l.startswith("@@ end") for l in lines):
            return 0
        try:
            if qmp.line(0.2) is None:
                continue
        except EOFError:
            return 0


def allpages_records(memstat, dump):
    """allpages --core DUMP -f csv, once for the checks below: (header, rows) or (None, why)"""
    r = subprocess.run([memstat, "allpages", "--core", dump, "-f", "csv"], capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        return None, "allpages --core exited %d: %s" % (r.returncode, r.stderr.strip()[:200])
    lines = r.stdout.splitlines()
    return lines[0].split(","), [l.split(",") for l in lines[1:]]


def allpages_check(head, rows, core):
    """allpages --core of the same dump: every page's record, whose sub-classes sum to the
    summary's, and anon pages charged to cgroups (the memcg chain read, on 7.x through the
    obj_cgroup). A list of what is wrong."""
    sub, cg = head.index("subclass"), head.index("cgroup")
    counts, charged = {}, 0
    for f in rows:
        counts[f[sub]] = counts.get(f[sub], 0) + 1
        charged += f[sub] == "anon_private" and f[cg] not in ("0", "")
    want = {k: v for k, v in core["detail"].items() if v}
    bad = ["allpages %s %d, summary %d" % (k, counts.get(k, 0), v) for k, v in want.items()
           if counts.get(k, 0) != v]
    if not charged:
        bad.append("allpages: no anon page charged to a cgroup")
    return bad


def runs_of(text):
    """--runs lines ("0xPFN N CLASS SUB") as a dict pfn -> sub-class, free_pcp as free_buddy
    (the per-cpu lists move free pages between the two, checks below)"""
    pages = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 4 and f[0].startswith("0x"):
            sub = "free_buddy" if f[3] == "free_pcp" else f[3]
            start = int(f[0], 16)
            for p in range(start, start + int(f[1])):
                pages[p] = sub
    return pages


def pages_check(head, rows, core, before_b64, after_b64):
    """allpages --core of the dump against the VM's own --runs just before and just after it:
    every page of the same sub-class in both live walks must be of it in the dump. The pages
    that differ are pages that changed and changed back between the walks (memstat's own maps
    among them: the live walks have them, the dump is taken between); they must be under
    0.5% of the total, as any class's difference. A list of what is wrong, and a summary."""
    import base64
    import gzip
    try:
        runs = [runs_of(gzip.decompress(base64.b64decode(open(p).read().strip())).decode())
                for p in (before_b64, after_b64)]
    except (OSError, ValueError, EOFError) as e:
        return ["the VM's --runs were not readable: %s" % e], ""
    pi, si = head.index("pfn"), head.index("subclass")
    same = differ = 0
    pairs = {}
    for f in rows:
        pfn = int(f[pi], 16) if f[pi].startswith("0x") else int(f[pi])
        a, b = runs[0].get(pfn), runs[1].get(pfn)
        if a is None or a != b:
            continue                        # changed between the walks, or not in them
        sub = "free_buddy" if f[si] == "free_pcp" else f[si]
        same += sub == a
        differ += sub != a
        if sub != a:
            pairs[(a, sub)] = pairs.get((a, sub), 0) + 1
    top = sorted(pairs.items(), key=lambda kv: -kv[1])[:3]
    summary = "allpages: %d unchanged pages, %d of another sub-class in the dump%s" % (
        same + differ, differ, " (" + ", ".join("%d %s live, %s dumped" % (n, a, b)
                                               for (a, b), n in top) + ")" if top else "")
    if not same or differ > core["pages"]["total"] // 200:
        return [summary], summary
    return [], summary


def zones_check(memstat, dump, core):
    """--by zone of the dump: the dumped kernel's own zones (DMA and DMA32 at least in a 3 GiB
    guest), whose pages sum to the summary's total. A list of what is wrong."""
    r = subprocess.run([memstat, "--core", dump, "--by", "zone", "--json"], capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        return ["--by zone exited %d: %s" % (r.returncode, r.stderr.strip()[:200])]
    groups = json.loads(r.stdout)["groups"]
    names = sorted(g["name"] for g in groups)
    total = sum(g["pages"]["total"] for g in groups)
    bad = []
    if total != core["pages"]["total"] or not {"0/DMA", "0/DMA32"} <= set(names):
        bad.append("--by zone: zones %s of %d pages, summary %d" % (
            ",".join(names), total, core["pages"]["total"]))
    return bad


def cgroups_check(memstat, dump, head, rows):
    """--by cgroup of the dump: each cgroup's pages are the allpages records of its id, and
    each charged cgroup is named by a path read from the dump. A list of what is wrong."""
    r = subprocess.run([memstat, "--core", dump, "--by", "cgroup", "--min", "0", "--json"],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return ["--by cgroup exited %d: %s" % (r.returncode, r.stderr.strip()[:200])]
    cg = head.index("cgroup")
    per_id = {}
    for f in rows:
        k = int(f[cg]) if f[cg] not in ("", "0") else 0
        per_id[k] = per_id.get(k, 0) + 1
    bad = []
    groups = json.loads(r.stdout)["groups"]
    for g in groups:
        if "id" not in g:
            continue
        if per_id.get(g["id"], 0) != g["pages"]["total"] or not g["name"].startswith("/"):
            bad.append("--by cgroup %s (id %d): %d pages, allpages %d" % (
                g["name"], g["id"], g["pages"]["total"], per_id.get(g["id"], 0)))
    # the VM's toucher ran in /memstat-dump (tools/vm/init.sh): its 16 MiB of anon there
    mine = [g for g in groups if g["name"] == "/memstat-dump"]
    if not mine or mine[0]["pages"]["anon"] < 4096 or mine[0].get("depth") != 1:
        bad.append("--by cgroup: no /memstat-dump with the toucher's 16 MiB (%s)" % ", ".join(
            "%s %d" % (g["name"], g["pages"]["anon"]) for g in groups))
    # --tree: the root first, its subtree every charged page; /memstat-dump a row below it
    r = subprocess.run([memstat, "--core", dump, "--by", "cgroup", "--tree", "--json"],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return bad + ["--by cgroup --tree exited %d: %s" % (r.returncode, r.stderr.strip()[:200])]
    tree = [g for g in json.loads(r.stdout)["groups"] if "id" in g]
    charged = sum(g["pages"]["total"] for g in groups if "id" in g)
    if not tree or tree[0]["name"] != "/" or tree[0]["tree"]["pages"]["total"] != charged or \
            not any(g["name"] == "/memstat-dump" and g["depth"] == 1 for g in tree):
        bad.append("--by cgroup --tree: %s, %d pages charged" % (", ".join(
            "%s %d" % (g["name"], g["tree"]["pages"]["total"]) for g in tree[:6]), charged))
    return bad


def files_check(memstat, dump, head, rows):
    """--by exec and --by fs of the dump: names read from the dumped system's own mounts and
    dentries. Each file's pages are the allpages records of its device and inode; the toucher
    run from the ext4 disk mounted at /var/tmp (tools/vm/init.sh) is /var/tmp/toucher-exec on
    ext4, and --by fs has /var/tmp, its groups summing to the walk's total. A list of what is
    wrong."""
    dev, ino = head.index("dev"), head.index("inode")
    per = {}
    for f in rows:
        if f[ino] not in ("", "0"):
            per[(f[dev], int(f[ino]))] = per.get((f[dev], int(f[ino])), 0) + 1
    bad = []
    r = subprocess.run([memstat, "--core", dump, "--by", "exec", "--top", "1000", "--json"],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return ["--by exec exited %d: %s" % (r.returncode, r.stderr.strip()[:200])]
    groups = [g for g in json.loads(r.stdout)["groups"] if "inode" in g]
    for g in groups:
        if per.get((g["dev"], g["inode"]), 0) != g["pages"]["total"]:
            bad.append("--by exec %s (%s:%d): %d pages, allpages %d" % (
                g["path"], g["dev"], g["inode"], g["pages"]["total"],
                per.get((g["dev"], g["inode"]), 0)))
    mine = [g for g in groups if g["path"] == "/var/tmp/toucher-exec"]
    if not mine or mine[0]["mount"] != "/var/tmp" or mine[0]["fstype"] != "ext4":
        bad.append("--by exec: no /var/tmp/toucher-exec on ext4 at /var/tmp (%s)" % ", ".join(
            "%s %s" % (g["path"], g["mount"]) for g in groups[:8]))
    r = subprocess.run([memstat, "--core", dump, "--by", "fs", "--json"], capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        return bad + ["--by fs exited %d: %s" % (r.returncode, r.stderr.strip()[:200])]
    doc = json.loads(r.stdout)
    fs = {g["name"]: g for g in doc["groups"]}
    if "/var/tmp" not in fs or fs["/var/tmp"].get("fstype") != "ext4":
        bad.append("--by fs: no /var/tmp on ext4 (%s)" % ", ".join(sorted(fs)))
    return bad


def attrs_check(memstat, dump):
    """-a --reconcile of the dump: every attribute's row (Dirty, Writeback, Mlocked,
    Unevictable, the LRU lists, the THPs) within its tolerance of the dumped kernel's own
    counter. A list of what is wrong, and a summary."""
    r = subprocess.run([memstat, "--core", dump, "-a", "--reconcile", "--json"],
                       capture_output=True, text=True, timeout=600)
    if r.returncode not in (0, 3) or not r.stdout:
        return ["-a --reconcile exited %d: %s" % (r.returncode, r.stderr.strip()[:200])], ""
    j = json.loads(r.stdout)
    fields = ("Dirty", "Writeback", "Mlocked", "Unevictable", "AnonHugePages",
              "ShmemHugePages", "FileHugePages")
    rows = [x for x in j["reconcile"]["rows"] if x["meminfo_field"] in fields or
            x["meminfo_field"].startswith(("Active(", "Inactive("))]
    bad = ["-a %s: walk %s, counter %s pages" % (x["meminfo_field"], x["walk_pages"],
                                                 x["meminfo_pages"])
           for x in rows if not x["ok"]]
    if len(rows) < len(fields) + 2:
        bad.append("-a --reconcile has %d attribute rows" % len(rows))
    summary = "-a: %d rows reconcile (MGLRU %s; Dirty %s, Mlocked %s pages)" % (
        len(rows) - len(bad), "on" if j["attributes"]["mglru"] else "off",
        j["attributes"]["dirty_file"], j["attributes"]["mlocked"])
    return bad, summary


def meminfo_check(core, before_path):
    """VmallocUsed and Percpu of the dump (its nr_vmalloc_pages or NR_VMALLOC, its populated
    per-cpu chunks) against the guest's /proc/meminfo read just before and just after it
    (tools/vm/init.sh: meminfo-before-NAME.txt beside core-before-NAME.json), while no memstat
    ran. The dump is taken while the guest's /init waits in two processes (timeout and head)
    that were not there when it read /proc/meminfo, and each process has a 16 kB kernel stack
    in vmalloc space (CONFIG_VMAP_STACK; a per-cpu cache keeps two freed ones): VmallocUsed may
    differ by those, up to 4 stacks (64 kB); the per-cpu allocator populates a page in every
    unit at a time: Percpu may differ by one such step (4 kB a CPU). A list of what is wrong,
    and the numbers."""
    def read(path):
        try:
            with open(path) as f:
                return {l.split(":")[0]: int(l.split()[1]) for l in f if ":" in l}
        except (OSError, ValueError, IndexError):
            return {}
    b = read(before_path.replace("core-before-", "meminfo-before-").replace(".json", ".txt"))
    a = read(before_path.replace("core-before-", "meminfo-after-").replace(".json", ".txt"))
    rc = core["reconcile"]
    got = {"VmallocUsed": rc.get("vmalloc_used_kb"), "Percpu": rc.get("percpu_kb")}
    slack = {"VmallocUsed": 64, "Percpu": 4 * 2}     # matrix.sh runs its VMs with 2 CPUs
    bad, said = [], []
    for field, v in got.items():
        if field not in b or field not in a:
            bad.append("the VM sent no %s around the dump" % field)
            continue
        lo, hi = min(a[field], b[field]), max(a[field], b[field])
        said.append("%s %s kB (live %d-%d)" % (field, v, lo, hi))
        if v is None or not lo - slack[field] <= v <= hi + slack[field]:
            bad.append("%s of the dump %s kB, the guest's /proc/meminfo %d and %d kB" % (
                field, v, b[field], a[field]))
    return bad, ", ".join(said)


def check(memstat, dump, before_path, after_path, records="", before_runs="", after_runs=""):
    with open(before_path) as f:
        before = json.load(f)
    with open(after_path) as f:
        after = json.load(f)
    t0 = time.time()
    # --reconcile: the walk against the dump's own counters (exit 3 on a mismatch, with JSON)
    r = subprocess.run([memstat, "--core", dump, "--json", "--reconcile"], capture_output=True,
                       text=True, timeout=600)
    secs = time.time() - t0
    if r.returncode not in (0, 3) or not r.stdout:
        print("fail: memstat --core --reconcile exited %d: %s" % (r.returncode,
                                                                 r.stderr.strip()[:300]))
        return 1
    core = json.loads(r.stdout)
    total = core["pages"]["total"]
    bad = ["reconcile %s: walk %d, counters %d pages" % (x["meminfo_field"], x["walk_pages"],
                                                         x["meminfo_pages"])
           for x in core["reconcile"]["rows"] if not x["ok"]]
    # (NR_UNACCEPTED came with 6.5: 6.1's dump has no such counter, as its /proc/meminfo not)
    na = [x["meminfo_field"] for x in core["reconcile"]["rows"]
          if x["status"] == "n/a" and x["meminfo_field"] != "Unaccepted"]
    if na:
        bad.append("no counter for %s in the dump" % ", ".join(na))
    more, meminfo_summary = meminfo_check(core, before_path)
    bad += more
    # memstat takes the dump's RAM from the guest kernel's own iomem_resource, as the live
    # walk takes it from /proc/iomem: the same total. Where that tree is not whole in the dump
    # (makedumpfile 1.7.2 -d 31 on 6.12+ drops slab pages), it says so and takes the dump's
    # ranges: QEMU dumps the firmware areas of the first MiB (option ROMs, the BIOS) as RAM,
    # which the guest's /proc/iomem does not call System RAM, and whose struct pages are
    # reserved: the dump has those pages more, all of them kernel_reserved, nothing else
    ranges = "its memory is what the dump holds" in r.stderr
    extra = total - before["pages"]["total"]
    if not (0 <= extra <= 1024 if ranges else extra == 0) or core["holes"] != before["holes"]:
        bad.append("total %d and holes %d, live %d and %d%s" % (
            total, core["holes"], before["pages"]["total"], before["holes"],
            " (RAM from the dump's ranges)" if ranges else ""))
    if not before["pages"]["exec"]:
        bad.append("the VM mapped no file executable: Exec and libs were not put to the test")
    tol = total // 200
    # free_buddy and free_pcp as one: the kernel drains and refills its per-cpu lists whenever
    # it likes (7.x tunes their size on its own, and QEMU dumps a running guest), which moves
    # thousands of free pages between the two without a page being allocated or freed
    pcp = lambda d: dict(d, free_buddy=(d.get("free_buddy") or 0) + (d.get("free_pcp") or 0),
                         free_pcp=None)
    core_d, before_d, after_d = pcp(core["detail"]), pcp(before["detail"]), pcp(after["detail"])
    for sub, v in core_d.items():
        a, b = before_d.get(sub), after_d.get(sub)
        if v is None or a is None or b is None:
            continue
        if sub == "kernel_reserved":
            v -= extra
        if not min(a, b) - tol <= v <= max(a, b) + tol:
            bad.append("%s %d, live %d and %d" % (sub.replace("free_buddy", "free_buddy+pcp"),
                                                  v, a, b))
    pages_summary = ""
    if records == "allpages":
        head, rows = allpages_records(memstat, dump)
        if head is None:
            bad.append(rows)
        else:
            bad += allpages_check(head, rows, core)
            bad += cgroups_check(memstat, dump, head, rows)
            bad += files_check(memstat, dump, head, rows)
            if before_runs and after_runs:
                more, pages_summary = pages_check(head, rows, core, before_runs, after_runs)
                bad += more
            del rows
        bad += zones_check(memstat, dump, core)
        more, attrs_summary = attrs_check(memstat, dump)
        bad += more
        pages_summary = "; ".join(x for x in (pages_summary, attrs_summary) if x)
    walk = (core.get("timings") or {}).get("walk") or 0      # ms
    summary = "total %d pages (%s) in %.1f s, the walk %.1f ns a page; anon %d, page cache %d, exec %d, kernel %d, free %d" % (
        total, "RAM from its ranges: %d firmware" % extra if ranges else "RAM from its iomem", secs, walk * 1e6 / max(1, total + core["holes"]), core["pages"]["anon"], core["pages"]["page_cache"], core["pages"]["exec"],
        core["pages"]["kernel"], core["pages"]["free"])
    summary += "; %d rows reconcile with its counters (largest diff %d pages)" % (
        len(core["reconcile"]["rows"]),
        max(abs(x["diff_pages"] or 0) for x in core["reconcile"]["rows"]))
    if meminfo_summary:
        summary += "; " + meminfo_summary
    if pages_summary:
        summary += "; " + pages_summary
    if core.get("exec_unknown_mappings"):
        summary += ", %d files' VMAs not in the dump" % core["exec_unknown_mappings"]
    if bad:
        print("fail: %s (%s)" % ("; ".join(bad), summary))
        return 1
    print("ok: %s" % summary)
    return 0


def without_note(path):
    """The ELF dump as QEMU writes it for a guest without -device vmcoreinfo: its PT_NOTE
    segments made PT_NULL, in place, so that memstat must find the kernel's VMCOREINFO in its
    memory (the dump is not used after this)."""
    with open(path, "r+b") as f:
        eh = f.read(64)
        phoff, = struct.unpack_from("<Q", eh, 32)
        phentsize, phnum = struct.unpack_from("<HH", eh, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            if struct.unpack("<I", f.read(4))[0] == 4:      # PT_NOTE
                f.seek(phoff + i * phentsize)
                f.write(struct.pack("<I", 0))               # PT_NULL
    return 0


def for_makedumpfile(path):
    with open(path, "r+b") as f:
        eh = bytearray(f.read(64))
        phoff, = struct.unpack_from("<Q", eh, 32)
        phentsize, phnum = struct.unpack_from("<HH", eh, 54)
        f.seek(phoff)
        ph = f.read(phentsize * phnum)
        first = min(struct.unpack_from("<Q", ph, i * phentsize + 8)[0] for i in range(phnum))
        if phoff == 64 or 64 + len(ph) > first:
            return 0
        struct.pack_into("<QQ", eh, 32, 64, 0)                  # e_phoff, e_shoff
        struct.pack_into("<HHHHHH", eh, 52, 64, phentsize, phnum, 0, 0, 0)
        f.seek(64)
        f.write(ph)
        f.seek(0)
        f.write(eh)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "without-note":
        sys.exit(without_note(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "for-makedumpfile":
        sys.exit(for_makedumpfile(sys.argv[2]))
    if len(sys.argv) == 6 and sys.argv[1] == "watch":
        sys.exit(watch(*sys.argv[2:]))
    if len(sys.argv) in (6, 7, 9) and sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:]))
    sys.exit(__doc__)
