# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""memstat --core on a dump file (src/cmd/vmcore.c, src/dump/): a synthetic x86_64 ELF core
(tests/tools/mkdump.py) whose 64 pages are each of a known kind, walked by the same walk and
classifier as a live run, exactly; and bad input, one line and a documented exit code each.
The real kernels' dumps are the VM matrix's (tests/integration/core_test.cc).
    MEMSTAT=build/memstat-test python3 -m pytest -q tests/core_test.py
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
import mkdump  # noqa: E402

MEMSTAT = os.path.abspath(os.environ.get("MEMSTAT", "build/memstat-test"))


def run(*args, user=None):
    cmd = [MEMSTAT, *args]
    if user is not None:
        cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.fixture()
def dump(tmp_path):
    core, btf = tmp_path / "dump.core", tmp_path / "types.btf"
    core.write_bytes(mkdump.elf_core(mkdump.memory(), mkdump.vmcoreinfo()))
    btf.write_bytes(mkdump.btf_raw())
    return core, btf


def one_line(r, code, text):
    assert r.returncode == code, (r.returncode, r.stderr)
    assert text in r.stderr, r.stderr
    lines = [l for l in r.stderr.splitlines() if not l.startswith("Try 'memstat --help'")]
    assert len(lines) == 1 and r.stdout == "", (r.stderr, r.stdout)


def test_every_page_is_counted_as_what_its_struct_page_says(dump):
    core, btf = dump
    r = run("--core", str(core), "--btf", str(btf), "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["backend"] == "dump"
    assert j["kernel"] == mkdump.RELEASE
    assert j["pages"]["total"] == mkdump.EXPECTED["total"]
    assert j["holes"] == mkdump.EXPECTED["holes"]
    got = {k: v for k, v in j["detail"].items() if v}
    assert got == mkdump.EXPECTED["detail"]
    assert j["slab_split"] and j["exec_known"]


def test_the_types_are_found_in_the_dump(tmp_path):
    # a kernel image holds its own BTF (CONFIG_DEBUG_INFO_BTF): no --btf is needed
    core = tmp_path / "with-btf.core"
    core.write_bytes(mkdump.elf_core(mkdump.memory(with_btf=True), mkdump.vmcoreinfo(with_btf=True)))
    r = run("--core", str(core), "--json")
    assert r.returncode == 0, r.stderr
    got = {k: v for k, v in json.loads(r.stdout)["detail"].items() if v}
    assert got == mkdump.EXPECTED["detail"]


def test_without_the_note_the_kernels_vmcoreinfo_is_found_in_memory(tmp_path, dump):
    # a QEMU dump of a guest without -device vmcoreinfo: the kernel's own page of VMCOREINFO,
    # not the copy before it that names another release
    core = tmp_path / "no-note.core"
    core.write_bytes(mkdump.elf_core(mkdump.memory(with_vmcoreinfo=True), None))
    r = run("--core", str(core), "--btf", str(dump[1]), "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["kernel"] == mkdump.RELEASE
    assert {k: v for k, v in j["detail"].items() if v} == mkdump.EXPECTED["detail"]


@pytest.mark.parametrize("flattened,method", [(False, "zlib"), (True, "zlib"), (False, "lzo"),
                                              (True, "snappy"), (False, "zstd")])
def test_a_kdump_compressed_dump_gives_the_same_summary(tmp_path, dump, flattened, method):
    # makedumpfile's format (compressed pages, a few raw), and its flattened form
    # (makedumpfile -F, QEMU's kdump-zlib); pages filtered out that hold no struct page change
    # nothing
    mem = mkdump.memory()
    core = tmp_path / "dump.kdump"
    core.write_bytes(mkdump.kdump(mem, mkdump.vmcoreinfo(), flattened=flattened,
                                  leave_out=range(16, 48), raw=(1, 5), method=method))
    r = run("--core", str(core), "--btf", str(dump[1]), "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["pages"]["total"] == 64 and j["holes"] == 16
    assert {k: v for k, v in j["detail"].items() if v} == mkdump.EXPECTED["detail"]


def test_struct_pages_filtered_out_are_holes(tmp_path, dump):
    # the vmemmap page (pfn 5) left out: no struct page can be read, every page is a hole
    core = tmp_path / "dump.kdump"
    core.write_bytes(mkdump.kdump(mkdump.memory(), mkdump.vmcoreinfo(), leave_out=(5,)))
    r = run("--core", str(core), "--btf", str(dump[1]), "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["pages"]["total"] == 0 and j["holes"] == 80


def test_mappings_whose_vmas_were_filtered_out_are_said(tmp_path, dump):
    # makedumpfile 1.7.2 on 6.10+ leaves out slab pages (it takes them for page cache), the
    # VMAs among them: the page of both files' VMAs (pfn 13) left out, whether the executable
    # is mapped executable cannot be told; its pages count as page cache, and memstat says so
    core = tmp_path / "dump.kdump"
    core.write_bytes(mkdump.kdump(mkdump.memory(), mkdump.vmcoreinfo(), leave_out=(13,)))
    r = run("--core", str(core), "--btf", str(dump[1]), "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["detail"]["exec"] == 0 and j["detail"]["page_cache_file"] == 8
    assert j["exec_unknown_mappings"] == 2
    r = run("--core", str(core), "--btf", str(dump[1]))
    assert "2 files' mappings are not wholly in the dump" in r.stdout
    full = json.loads(run("--core", str(dump[0]), "--btf", str(dump[1]), "--json").stdout)
    assert full["exec_unknown_mappings"] == 0


def test_the_table_and_the_runs_say_the_same(dump):
    core, btf = dump
    r = run("--core", str(core), "--btf", str(btf))
    assert r.returncode == 0, r.stderr
    rows = {l[:24].strip(): int(l[24:42]) for l in r.stdout.splitlines()[2:] if l[24:42].strip().isdigit()}
    assert rows["Exec and libs"] == 4 and rows["Anon"] == 8 and rows["Total"] == 64
    assert "16 present pages could not be read" in r.stdout
    r = run("--core", str(core), "--btf", str(btf), "--runs")
    assert r.returncode == 0, r.stderr
    runs = [l.split() for l in r.stdout.splitlines()]
    assert runs[0] == ["0", "8", "kernel", "kernel_reserved"]
    assert ["0x20", "4", "exec", "exec"] in runs
    assert sum(int(x[1]) for x in runs) == 64


def test_workers_in_parallel_count_the_same(dump):
    core, btf = dump
    one = json.loads(run("--core", str(core), "--btf", str(btf), "--json", "--jobs", "1").stdout)
    four = json.loads(run("--core", str(core), "--btf", str(btf), "--json", "--jobs", "4").stdout)
    assert one["detail"] == four["detail"] and one["holes"] == four["holes"]


def test_no_root_is_needed(dump):
    # the files where user nobody (65534) can read them: a directory of /tmp, mode 0755
    d = tempfile.mkdtemp(prefix="memstat-core-")
    try:
        os.chmod(d, 0o755)
        for p in dump:
            shutil.copy(p, d)
            os.chmod(os.path.join(d, p.name), 0o644)
        r = run("--core", os.path.join(d, "dump.core"), "--btf", os.path.join(d, "types.btf"),
                "--json", user=65534)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["pages"]["total"] == 64
        # nor for allpages and map of a dump
        r = run("allpages", "--core", os.path.join(d, "dump.core"), "--btf",
                os.path.join(d, "types.btf"), "-f", "csv", user=65534)
        assert r.returncode == 0 and len(r.stdout.splitlines()) == 65, r.stderr
        r = run("map", "--core", os.path.join(d, "dump.core"), "--btf",
                os.path.join(d, "types.btf"), "-o", "-", user=65534)
        assert r.returncode == 0 and "<svg" in r.stdout, r.stderr
    finally:
        shutil.rmtree(d)


def test_bad_files_give_one_line_and_exit_2(dump, tmp_path):
    core, btf = dump
    data = core.read_bytes()
    cases = {
        "missing": (None, "cannot open it"),
        "empty": (b"", "shorter than any dump's header"),
        "text": (b"MemTotal: 1 kB\n" * 10, "neither an ELF core nor a kdump-compressed dump"),
        "elf32": (data[:4] + b"\x01" + data[5:], "not a 64-bit little-endian core"),
        "exec": (data[:16] + struct.pack("<H", 2) + data[18:], "not a 64-bit little-endian core"),
        "headers-cut": (data[:100], "program headers are past its end"),
        "memory-cut": (data[:len(data) // 2], "is past the file's end"),
        "kdump-cut": (mkdump.kdump(mkdump.memory(), mkdump.vmcoreinfo())[:5000],
                      "its bitmaps are cut"),
        "flat-cut": (mkdump.kdump(mkdump.memory(), mkdump.vmcoreinfo(), flattened=True)[:9000],
                     "truncated dump: a flattened piece"),
    }
    for name, (content, text) in cases.items():
        p = tmp_path / name
        if content is not None:
            p.write_bytes(content)
        r = run("--core", str(p), "--btf", str(btf))
        one_line(r, 2, text)
        assert str(p) in r.stderr
    r = run("--core", str(core), "--btf", str(tmp_path / "text"))
    one_line(r, 2, "cannot read BTF")
    assert core.read_bytes() == data, "memstat changed the dump"


def test_what_the_dump_lacks_is_named_with_exit_5(dump, tmp_path):
    core, btf = dump
    mem = mkdump.memory()
    cases = {
        "no-note": (mkdump.elf_core(mem, None), "no VMCOREINFO note"),
        "no-pgt": (mkdump.elf_core(mem, mkdump.vmcoreinfo().replace(b"SYMBOL(init_top_pgt)",
                                                                    b"SYMBOL(other)")),
                   "has no SYMBOL(init_top_pgt)"),
        "arm64": (mkdump.elf_core(mem, mkdump.vmcoreinfo())[:18] + struct.pack("<H", 183) +
                  mkdump.elf_core(mem, mkdump.vmcoreinfo())[20:], "another architecture"),
        "no-sections": (mkdump.elf_core(bytearray(len(mem)), mkdump.vmcoreinfo()),
                        "no present memory section"),
    }
    for name, (content, text) in cases.items():
        p = tmp_path / name
        p.write_bytes(content)
        one_line(run("--core", str(p), "--btf", str(btf)), 5, text)
    # its one section offline (a memory block offlined): nothing a live walk would walk
    offline = mkdump.memory()
    struct.pack_into("<Q", offline, 0x8000, mkdump.VMEMMAP | 0x3)
    p = tmp_path / "offline"
    p.write_bytes(mkdump.elf_core(offline, mkdump.vmcoreinfo()))
    one_line(run("--core", str(p), "--btf", str(btf)), 1,
             "no memory of the dump lies in an online memory section with struct pages")
    # no BTF in it, and its build id is not the running kernel's: the types must be given
    one_line(run("--core", str(core)), 5, "give its types with --btf FILE")
    r = run("--core", str(core), "--json")
    assert r.returncode == 5 and "give its types" in json.loads(r.stdout)["error"]


def test_a_btf_that_nests_a_type_in_itself_is_no_crash(tmp_path, dump):
    # a crafted BTF (libbpf checks the ids a type refers to, not cycles): struct page holds
    # anonymous members of type struct page; looking up a member it lacks must end, with one
    # such member and with 16 (16^8 paths: the search is bounded by the members it looks at,
    # not only by its depth; run() gives up after 120 s), -a's searches as the walk's
    for n in (1, 16):
        btf = tmp_path / ("self%d.btf" % n)
        btf.write_bytes(mkdump.btf_raw(self_nested=n))
        r = run("--core", str(dump[0]), "--btf", str(btf), "--json", "-a")
        assert r.returncode == 0, r.stderr
        assert {k: v for k, v in json.loads(r.stdout)["detail"].items() if v} == mkdump.EXPECTED["detail"]


def test_options_that_need_a_live_kernel_are_refused(dump):
    core, btf = dump
    for extra in (["--by", "pod"], ["--wss", "1"], ["--compare", "free"], ["--approx"], ["1"],
                  ["--backend", "bpf"], ["--features"], ["-a", "--by", "node"]):
        one_line(run("--core", str(core), "--btf", str(btf), *extra), 2, "--core reads a dump")
    r = run("--btf", str(btf))
    assert r.returncode == 2 and "--btf needs --core" in r.stderr


# --reconcile: the walk against the meminfo the dumped kernel would have printed, from its
# counters, found through its kallsyms (three encodings of their addresses) or --symbols

def reconcile(core, btf, *extra):
    r = run("--core", str(core), "--btf", str(btf), "--reconcile", "--json", *extra)
    return r, (json.loads(r.stdout) if r.stdout else None)


@pytest.mark.parametrize("kallsyms", ["percpu", "relative", "place"])
def test_reconcile_reads_the_dumps_own_counters(tmp_path, dump, kallsyms):
    core = tmp_path / "k.core"
    core.write_bytes(mkdump.elf_core(mkdump.memory(kallsyms=kallsyms),
                                     mkdump.vmcoreinfo(kallsyms=kallsyms)))
    r, j = reconcile(core, dump[1])
    assert r.returncode == 0, r.stderr
    rows = {x["meminfo_field"]: x for x in j["reconcile"]["rows"]}
    assert j["reconcile"]["ok"]
    # each counter is what the walk counts: read exactly, not just within the tolerance
    c = mkdump.COUNTERS
    want = {"MemTotal": c["_totalram_pages"], "MemFree": c["NR_FREE_PAGES"],
            "AnonPages": c["NR_ANON_MAPPED"], "Shmem": c["NR_SHMEM"],
            "Cached+Buffers+SwapCached": c["NR_FILE_PAGES"],
            "Slab": c["NR_SLAB_RECLAIMABLE_B"] + c["NR_SLAB_UNRECLAIMABLE_B"],
            "SReclaimable": c["NR_SLAB_RECLAIMABLE_B"],
            "SUnreclaim": c["NR_SLAB_UNRECLAIMABLE_B"], "PageTables": c["NR_PAGETABLE"],
            "Hugetlb": 0, "Unaccepted": 0}
    assert {f: rows[f]["meminfo_pages"] for f in want} == want
    assert all(rows[f]["walk_pages"] == want[f] for f in want)


def test_reconcile_of_a_compressed_dump_and_its_text(tmp_path, dump):
    core = tmp_path / "k.flat"
    core.write_bytes(mkdump.kdump(mkdump.memory(), mkdump.vmcoreinfo(), flattened=True))
    r, j = reconcile(core, dump[1])
    assert r.returncode == 0 and j["reconcile"]["ok"], r.stderr
    # in JSON too, beside the rows: nr_vmalloc_pages, and the populated per-cpu chunks
    assert (j["reconcile"]["vmalloc_used_kb"], j["reconcile"]["percpu_kb"]) == (
        mkdump.VMALLOC_PAGES * 4, mkdump.PCPU_POPULATED * mkdump.PCPU_UNITS * 4)
    r = run("--core", str(core), "--btf", str(dump[1]), "--reconcile")
    assert r.returncode == 0, r.stderr
    assert "would have printed" in r.stdout and "MISMATCH" not in r.stdout
    # what no row holds, named from the dump's vmalloc and per-cpu counters
    assert "VmallocUsed 20 kB + Percpu 24 kB" in r.stdout, r.stdout


def test_a_counter_the_walk_disagrees_with_is_a_mismatch(tmp_path, dump):
    core = tmp_path / "k.core"
    counters = dict(mkdump.COUNTERS, NR_SHMEM=1000)
    core.write_bytes(mkdump.elf_core(mkdump.memory(counters=counters), mkdump.vmcoreinfo()))
    r, j = reconcile(core, dump[1])
    assert r.returncode == 3, r.stderr
    bad = [x["meminfo_field"] for x in j["reconcile"]["rows"] if not x["ok"]]
    assert bad == ["Shmem"] and not j["reconcile"]["ok"]


def test_attributes_of_a_dump_reconcile_with_its_counters(tmp_path, dump):
    """-a of a dump: the flags of its pages counted as a live -a counts them, and with
    --reconcile each attribute's row against the dumped kernel's own counter, exactly."""
    core, btf = dump
    r = run("--core", str(core), "--btf", str(btf), "-a", "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert {k: j["attributes"][k] for k in mkdump.EXPECTED_ATTRS} == mkdump.EXPECTED_ATTRS
    assert j["attributes"]["mglru"] is False
    assert {k: v for k, v in j["detail"].items() if v} == mkdump.EXPECTED["detail"]
    r, j = reconcile(core, btf, "-a")
    assert r.returncode == 0 and j["reconcile"]["ok"], r.stderr
    rows = {x["meminfo_field"]: x for x in j["reconcile"]["rows"]}
    c = mkdump.COUNTERS
    want = {"Dirty": c["NR_FILE_DIRTY"], "Writeback": c["NR_WRITEBACK"],
            "Mlocked": c["NR_MLOCK"], "Unevictable": c["NR_UNEVICTABLE"],
            "Active(anon)": c["NR_ACTIVE_ANON"], "Inactive(anon)": c["NR_INACTIVE_ANON"],
            "Active(file)": c["NR_ACTIVE_FILE"], "Inactive(file)": c["NR_INACTIVE_FILE"],
            "AnonHugePages": 0, "ShmemHugePages": 0, "FileHugePages": 0}
    assert {f: rows[f]["meminfo_pages"] for f in want} == want
    assert all(rows[f]["walk_pages"] == want[f] and rows[f]["ok"] for f in want)
    # a counter that disagrees is a mismatch (exit 3), as in a live run
    bad = tmp_path / "dirty.core"
    bad.write_bytes(mkdump.elf_core(mkdump.memory(counters=dict(c, NR_FILE_DIRTY=500)),
                                    mkdump.vmcoreinfo()))
    r, j = reconcile(bad, btf, "-a")
    assert r.returncode == 3 and [x["meminfo_field"] for x in j["reconcile"]["rows"]
                                  if not x["ok"]] == ["Dirty"], r.stdout
    # the text: the attributes' table, and no line saying -a is missing
    r = run("--core", str(core), "--btf", str(btf), "-a", "--reconcile")
    assert r.returncode == 0, r.stderr
    assert "Page Attributes" in r.stdout and "need -a" not in r.stdout, r.stdout
    # another kernel's System.map given for -a (its lru_gen_caps): refused, as --reconcile does
    smap = tmp_path / "other.map"
    smap.write_bytes(mkdump.system_map(slide=0x200000))
    one_line(run("--core", str(core), "--btf", str(btf), "-a", "--symbols", str(smap)), 2,
             "not the dumped kernel's symbols")
    # a dump of a kernel where MGLRU ran (lru_gen_caps on): its lists' sums are the rows
    mg = tmp_path / "mglru.core"
    mg.write_bytes(mkdump.elf_core(mkdump.memory(mglru=True), mkdump.vmcoreinfo()))
    r, j = reconcile(mg, btf, "-a")
    assert r.returncode == 0 and j["attributes"]["mglru"] is True, r.stderr
    rows = {x["meminfo_field"]: x for x in j["reconcile"]["rows"]}
    assert rows["Active(anon)+Inactive(anon)"]["meminfo_pages"] == 9 and \
        "Active(anon)" not in rows


def test_symbols_from_a_system_map_where_vmcoreinfo_has_no_kallsyms(tmp_path, dump):
    core, smap = tmp_path / "old.core", tmp_path / "System.map"
    core.write_bytes(mkdump.elf_core(mkdump.memory(), mkdump.vmcoreinfo(kallsyms=None)))
    smap.write_bytes(mkdump.system_map())
    one_line(run("--core", str(core), "--btf", str(dump[1]), "--reconcile"), 5,
             "give its System.map with --symbols FILE")
    r, j = reconcile(core, dump[1], "--symbols", str(smap))
    assert r.returncode == 0 and j["reconcile"]["ok"], r.stderr
    # a vmlinux's symbol table, moved by the dump's KASLR offset as a System.map is
    vml = tmp_path / "vmlinux"
    vml.write_bytes(mkdump.vmlinux())
    r, j = reconcile(core, dump[1], "--symbols", str(vml))
    assert r.returncode == 0 and j["reconcile"]["ok"], r.stderr
    # another kernel's System.map (its symbols elsewhere) is refused, not believed
    smap.write_bytes(mkdump.system_map(slide=0x200000))
    one_line(run("--core", str(core), "--btf", str(dump[1]), "--reconcile", "--symbols",
                 str(smap)), 2, "not the dumped kernel's symbols")
    smap.write_text("not a symbol table\n")
    one_line(run("--core", str(core), "--btf", str(dump[1]), "--reconcile", "--symbols",
                 str(smap)), 2, "neither a System.map nor a vmlinux")
    # a kernel moved by KASLR: the System.map's and the vmlinux's link-time addresses plus the
    # dump's KERNELOFFSET (only the symbols' addresses read it)
    moved = tmp_path / "kaslr.core"
    moved.write_bytes(mkdump.elf_core(mkdump.memory(), mkdump.vmcoreinfo(kallsyms=None,
                                                                          kaslr=0x3e00000)))
    smap.write_bytes(mkdump.system_map(slide=-0x3e00000))
    r, j = reconcile(moved, dump[1], "--symbols", str(smap))
    assert r.returncode == 0 and j["reconcile"]["ok"], r.stderr
    vml.write_bytes(mkdump.vmlinux(slide=0x3e00000))
    r, j = reconcile(moved, dump[1], "--symbols", str(vml))
    assert r.returncode == 0 and j["reconcile"]["ok"], r.stderr
    smap.write_bytes(mkdump.system_map())
    one_line(run("--core", str(moved), "--btf", str(dump[1]), "--reconcile", "--symbols",
                 str(smap)), 2, "not the dumped kernel's symbols")
    # without --reconcile they still find its RAM (iomem_resource): no line about it
    r = run("--core", str(core), "--btf", str(dump[1]), "--symbols", str(smap), "--json")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert json.loads(r.stdout)["pages"]["total"] == mkdump.EXPECTED["total"]
    one_line(run("--symbols", str(smap), "--reconcile"), 2, "--symbols needs --core FILE")


def test_ram_a_kdump_leaves_out_is_counted_from_the_kernels_iomem(tmp_path, dump):
    # /proc/vmcore leaves out the crash kernel's area; its kernel's iomem_resource (what
    # /proc/iomem printed, nested System RAM too) gives the RAM a live walk would have walked
    lo, hi = mkdump.CRASHKERNEL
    segs = ((0, lo), (hi, 0x50000 - hi))
    core, smap = tmp_path / "vmcore", tmp_path / "System.map"
    core.write_bytes(mkdump.elf_core(mkdump.memory(), mkdump.vmcoreinfo(), segments=segs))
    r = run("--core", str(core), "--btf", str(dump[1]), "--json")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    j = json.loads(r.stdout)
    assert j["pages"]["total"] == mkdump.EXPECTED["total"]
    assert {k: v for k, v in j["detail"].items() if v} == mkdump.EXPECTED["detail"]
    # no kallsyms to find iomem_resource: the pages the dump holds, and a line that says so
    core.write_bytes(mkdump.elf_core(mkdump.memory(), mkdump.vmcoreinfo(kallsyms=None),
                                     segments=segs))
    r = run("--core", str(core), "--btf", str(dump[1]), "--json")
    assert r.returncode == 0, r.stderr
    assert "its memory is what the dump holds" in r.stderr and len(r.stderr.splitlines()) == 1
    j = json.loads(r.stdout)
    left_out = (hi - lo) // mkdump.PAGE
    assert j["pages"]["total"] == mkdump.EXPECTED["total"] - left_out
    assert j["detail"]["free_uninit"] == mkdump.EXPECTED["detail"]["free_uninit"] - left_out
    # ... unless its System.map is given
    smap.write_bytes(mkdump.system_map())
    r, j = reconcile(core, dump[1], "--symbols", str(smap))
    assert r.returncode == 0 and r.stderr == "" and j["reconcile"]["ok"], r.stderr
    assert j["pages"]["total"] == mkdump.EXPECTED["total"]


def test_an_iomem_tree_that_loops_or_is_filtered_out_is_said(tmp_path, dump):
    # a corrupt dump: the first resource its own sibling; the tree is given up, with a line
    mem = mkdump.memory()
    first = struct.unpack_from("<Q", mem, mkdump.DATA["iomem_resource"] + 56)[0] - mkdump.DIRECT
    struct.pack_into("<Q", mem, first + 48, mkdump.va(first))
    core = tmp_path / "loop.core"
    core.write_bytes(mkdump.elf_core(mem, mkdump.vmcoreinfo()))
    r = run("--core", str(core), "--btf", str(dump[1]), "--json")
    assert r.returncode == 0, r.stderr
    assert "iomem_resource tree does not end" in r.stderr
    assert json.loads(r.stdout)["pages"]["total"] == mkdump.EXPECTED["total"]
    # a filtered dump without the page that holds the tree: the same, said so
    core.write_bytes(mkdump.kdump(mkdump.memory(), mkdump.vmcoreinfo(),
                                  leave_out=(mkdump.DATA["iomem_resource"] // mkdump.PAGE,)))
    r = run("--core", str(core), "--btf", str(dump[1]), "--json")
    assert r.returncode == 0, r.stderr
    assert "iomem_resource tree is not whole in the dump" in r.stderr
    assert json.loads(r.stdout)["pages"]["total"] == mkdump.EXPECTED["total"]


def test_map_of_a_dump_draws_its_pages(tmp_path, dump):
    core, btf = dump
    svg = tmp_path / "map.svg"
    r = run("map", "--core", str(core), "--btf", str(btf), "-o", str(svg))
    assert r.returncode == 0, r.stderr
    text = svg.read_text()
    import xml.dom.minidom
    xml.dom.minidom.parseString(text)
    assert "crash dump dump.core, kernel " + mkdump.RELEASE in text
    # each class's share of the 64 pages walked, from the same walk as the summary's
    assert "Anon  12.5%  (32 KiB)" in text and "Exec and libs  6.2%  (16 KiB)" in text
    assert "Free  39.1%  (100 KiB)" in text
    assert ">node 0 DMA<" in text and ">node 0 Normal<" in text     # the dump's own zones
    r = run("map", "--btf", str(btf), "-o", str(svg))
    assert r.returncode == 2 and "--btf needs --core" in r.stderr
    # a file that is not a dump: one line, and the picture is not written
    bad = tmp_path / "bad.svg"
    one_line(run("map", "--core", str(btf), "--btf", str(btf), "-o", str(bad)), 2,
             "not a crash dump")
    assert not bad.exists()


def test_allpages_of_a_dump_gives_every_page_its_record(tmp_path, dump):
    core, btf = dump
    r = run("allpages", "--core", str(core), "--btf", str(btf), "-f", "jsonl")
    assert r.returncode == 0, r.stderr
    recs = [json.loads(l) for l in r.stdout.splitlines()]
    # the summary's walk, page by page: the same sub-classes, each page once, in pfn order
    assert [x["pfn"] for x in recs] == list(range(len(recs)))
    counts = {}
    for x in recs:
        counts[x["subclass"]] = counts.get(x["subclass"], 0) + 1
    assert counts == mkdump.EXPECTED["detail"]
    by_pfn = {x["pfn"]: x for x in recs}
    # a file page: its inode and offset; its cgroup through an obj_cgroup (as 7.x keeps it)
    assert by_pfn[29]["inode"] == 0xb000 >> 4 and by_pfn[29]["offset"] == 29
    assert by_pfn[29]["cgroup"] == mkdump.CGROUP_ID
    # an anon page's memcg directly (6.1-6.18), a page table's through KMEM's obj_cgroup
    assert by_pfn[20]["cgroup"] == mkdump.CGROUP_ID and by_pfn[40]["cgroup"] == mkdump.CGROUP_ID
    assert by_pfn[0]["flags"] == "reserved" and by_pfn[20]["flags"] == "lru|active|swapbacked"
    assert by_pfn[9]["role"] == "free-tail" and by_pfn[9]["head_pfn"] == 8
    # the pinned column from the dump's refcounts and _pincount (page 23 pinned for DMA)
    assert [p for p, x in by_pfn.items() if x.get("pinned")] == [23]
    assert all("pinned" in x for x in recs if x["subclass"] == "anon_private")
    # the node and zone columns from the dump's own zones
    assert (by_pfn[0]["node"], by_pfn[0]["zone"]) == (0, "DMA")
    assert (by_pfn[20]["node"], by_pfn[20]["zone"]) == (0, "Normal")
    # --class, --pfn and --summary work on a dump as on a live kernel
    r = run("allpages", "--core", str(core), "--btf", str(btf), "--class", "exec",
            "--pfn", "0-0x3f", "--summary")
    assert r.returncode == 0, r.stderr
    rows = [l.split() for l in r.stdout.splitlines() if l.startswith("0x")]
    assert [int(x[0], 16) for x in rows] == [32, 33, 34, 35]
    assert "Exec and libs" in r.stdout
    for extra in (["--pid", "1"], ["--wss", "1"], ["--backend", "bpf"], ["--file", str(btf)]):
        r = run("allpages", "--core", str(core), "--btf", str(btf), *extra)
        assert r.returncode == 2 and r.stdout == "", (extra, r.stderr)
        assert r.stderr.startswith("memstat allpages: --core reads a dump"), r.stderr


def test_allpages_and_map_of_a_dump_take_its_symbols(tmp_path, dump):
    # a kernel without kallsyms: its zones and RAM from --symbols, as memstat --core takes them
    core, smap, svg = tmp_path / "old.core", tmp_path / "System.map", tmp_path / "map.svg"
    lo, hi = mkdump.CRASHKERNEL
    core.write_bytes(mkdump.elf_core(mkdump.memory(), mkdump.vmcoreinfo(kallsyms=None),
                                     segments=((0, lo), (hi, 0x50000 - hi))))
    smap.write_bytes(mkdump.system_map())
    r = run("allpages", "--core", str(core), "--btf", str(dump[1]), "-f", "jsonl")
    assert r.returncode == 0 and "its memory is what the dump holds" in r.stderr, r.stderr
    recs = [json.loads(l) for l in r.stdout.splitlines()]
    assert len(recs) == mkdump.EXPECTED["total"] - (hi - lo) // mkdump.PAGE    # no holes
    assert not recs[0].get("zone"), recs[0]     # its zones unknown
    r = run("allpages", "--core", str(core), "--btf", str(dump[1]), "--symbols", str(smap),
            "-f", "jsonl")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    recs = [json.loads(l) for l in r.stdout.splitlines()]
    assert len(recs) == mkdump.EXPECTED["total"]
    assert (recs[0]["node"], recs[0]["zone"]) == (0, "DMA")
    r = run("map", "--core", str(core), "--btf", str(dump[1]), "--symbols", str(smap), "-o",
            str(svg))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "Normal" in svg.read_text()
    for cmd in (["allpages"], ["map", "-o", str(svg)]):
        r = run(cmd[0], "--symbols", str(smap), *cmd[1:])
        assert r.returncode == 2 and r.stdout == "", r.stderr
        assert r.stderr.startswith("memstat %s: --symbols needs --core FILE" % cmd[0]), r.stderr


def test_by_zone_and_node_of_a_dump_come_from_its_own_zones(dump):
    # the zones are the dumped kernel's (node_data -> pglist_data.node_zones), not this
    # machine's /proc/zoneinfo: DMA holds pfns 0-15, Normal 16-79 (64-79 are holes)
    core, btf = dump
    r = run("--core", str(core), "--btf", str(btf), "--by", "zone", "--json")
    assert r.returncode == 0, r.stderr
    groups = {g["name"]: g for g in json.loads(r.stdout)["groups"]}
    assert sorted(groups) == ["0/DMA", "0/Normal"]
    dma = {k: v for k, v in groups["0/DMA"]["detail"].items() if v}
    assert dma == {"kernel_reserved": 8, "free_buddy": 8}
    assert (groups["0/DMA"]["start_pfn"], groups["0/DMA"]["end_pfn"]) == (0, 16)
    assert groups["0/Normal"]["pages"]["total"] == 48
    r = run("--core", str(core), "--btf", str(btf), "--by", "node", "--json")
    assert r.returncode == 0, r.stderr
    nodes = json.loads(r.stdout)["groups"]
    assert [(g["name"], g["pages"]["total"]) for g in nodes] == [("0", 64)]


def test_by_cgroup_of_a_dump_names_its_own_cgroups(dump):
    """--by cgroup of a dump: the pages charged to a memory cgroup (an anon page's memcg, a
    file page's and a page table's obj_cgroup) under the cgroup's path, read from the dump's
    kernfs_nodes up to the hierarchy's root, not from this machine's /sys/fs/cgroup."""
    core, btf = dump
    r = run("--core", str(core), "--btf", str(btf), "--by", "cgroup", "--json")
    assert r.returncode == 0, r.stderr
    groups = {g["name"]: g for g in json.loads(r.stdout)["groups"]}
    g = groups[mkdump.CGROUP_PATH]
    assert (g["id"], g["parent_id"], g["depth"]) == (mkdump.CGROUP_ID, mkdump.CGROUP_PARENT_ID, 2)
    d = mkdump.EXPECTED["detail"]
    assert (g["pages"]["anon"], g["pages"]["page_cache"], g["pages"]["kernel"]) == \
        (d["anon_private"], 4, d["kernel_pagetables"])
    assert sum(x["pages"]["total"] for x in groups.values() if x["name"] != "Total") == \
        mkdump.EXPECTED["total"]
    r = run("--core", str(core), "--btf", str(btf), "--by", "cgroup")
    assert r.returncode == 0 and mkdump.CGROUP_PATH in r.stdout, r.stderr


def test_by_cgroup_tree_of_a_dump_shows_the_ancestors_it_read(dump):
    """--by cgroup --tree of a dump: the charged cgroup under its parents as the dump's
    kernfs_nodes give them (system.slice and the root charged no page: rows of the subtree's
    pages only), in depth-first order, each row its subtree's pages."""
    core, btf = dump
    r = run("--core", str(core), "--btf", str(btf), "--by", "cgroup", "--tree", "--json")
    assert r.returncode == 0, r.stderr
    groups = [g for g in json.loads(r.stdout)["groups"] if "id" in g]
    assert [(g["name"], g["depth"], g["id"]) for g in groups] == [
        ("/", 0, 1), ("/system.slice", 1, mkdump.CGROUP_PARENT_ID),
        (mkdump.CGROUP_PATH, 2, mkdump.CGROUP_ID)]
    charged = groups[2]["pages"]["total"]
    assert charged > 0 and [g["tree"]["pages"]["total"] for g in groups] == [charged] * 3
    assert [g["pages"]["total"] for g in groups[:2]] == [0, 0]
    r = run("--core", str(core), "--btf", str(btf), "--by", "cgroup", "--tree")
    assert r.returncode == 0 and "    /system.slice/memstat-test.service" in r.stdout, r.stderr


# --by fs|file|exec of a dump: named from the dumped kernel's own dentries and mount tree (its
# initial namespace: init_nsproxy), not from this machine's /proc/self/mountinfo or /sys

KERNEL_ADDRESS = re.compile(r"(?i)ffff[0-9a-f]{8}|18446\d{10}")     # in hex, or in decimal


def by_key(core, btf, key, unique=True):
    """--by KEY --json of a dump: its groups by name (unique False: a list), once the output is
    checked: exit 0, no kernel address in it, and the groups' pages ("(none)": the pages of no
    file) the total."""
    r = run("--core", str(core), "--btf", str(btf), "--by", key, "--json")
    assert r.returncode == 0, r.stderr
    assert not KERNEL_ADDRESS.search(r.stdout + r.stderr), r.stdout
    j = json.loads(r.stdout)
    assert sum(g["pages"]["total"] for g in j["groups"]) + j["other"]["pages"]["total"] == \
        j["total"] == mkdump.EXPECTED["total"]
    if not unique:
        return j["groups"]
    groups = {g["name"]: g for g in j["groups"]}
    assert len(groups) == len(j["groups"]), [g["name"] for g in j["groups"]]
    return groups


def named(groups):
    return {n: g["pages"]["total"] for n, g in groups.items() if n != "(none)"}


def test_by_fs_of_a_dump_names_its_own_mounts(dump):
    """--by fs of a dump: each superblock's group named by its mount point in the dumped
    kernel's initial namespace (ext4 mounted at /srv/data on rootfs), not by a mount of another
    namespace (the same ext4 is the root of one, first in its superblock's mounts: "/" would be
    that one); the internal tmpfs (shm_mnt) and the block devices by what they are."""
    core, btf = dump
    groups = by_key(core, btf, "fs")
    assert named(groups) == mkdump.EXPECTED_FS
    cols = lambda g: (g["dev"], g["fstype"], g["mount"])
    srv = groups["/srv/data"]
    assert cols(srv) == ("8:1", "ext4", "/srv/data")
    assert (srv["pages"]["exec"], srv["pages"]["page_cache"]) == (4, 4)
    # the internal tmpfs is 0:25 in the dump, a memfd of this machine most often 0:1
    assert cols(groups[mkdump.INTERNAL_TMPFS]) == ("0:25", None, None)
    assert groups[mkdump.INTERNAL_TMPFS]["pages"]["shmem"] == 2
    assert cols(groups["(block devices)"]) == ("0:5", None, None)
    assert groups["(block devices)"]["detail"]["page_cache_buffers"] == 2
    assert groups["(none)"]["pages"]["total"] == mkdump.EXPECTED["total"] - 12
    # the table: the same rows, each with its device and type
    r = run("--core", str(core), "--btf", str(btf), "--by", "fs")
    assert r.returncode == 0, r.stderr
    assert not KERNEL_ADDRESS.search(r.stdout), r.stdout
    rows = {l.split()[-1]: l.split() for l in r.stdout.splitlines() if "8:1" in l}
    assert rows["/srv/data"][-3:] == ["8:1", "ext4", "/srv/data"], r.stdout
    assert mkdump.INTERNAL_TMPFS in r.stdout and "(block devices)" in r.stdout
    # the types from the dump's own kernel image give the same
    img = core.parent / "with-btf.core"
    img.write_bytes(mkdump.elf_core(mkdump.memory(with_btf=True),
                                    mkdump.vmcoreinfo(with_btf=True)))
    r = run("--core", str(img), "--by", "fs", "--json")
    assert r.returncode == 0, r.stderr
    assert named({g["name"]: g for g in json.loads(r.stdout)["groups"]}) == mkdump.EXPECTED_FS


def test_by_file_and_exec_of_a_dump_name_its_own_files(dump):
    """--by file of a dump: each file by its path, its dentries up to its superblock's root
    after its mount point; a SysV segment (a pseudo file, unlinked) by the name the kernel gave
    it; a block device's page cache by its device number (the dumped kernel's: this machine's
    /sys/dev/block is not asked). --by exec: the files mapped executable."""
    core, btf = dump
    groups = by_key(core, btf, "file")
    assert named(groups) == mkdump.EXPECTED_FILES
    keys = ("dev", "inode", "path", "path_source", "deleted", "pseudo", "mount", "fstype",
            "cached_pages", "exec_pages", "mapped_exec")
    got = {n: tuple(g[k] for k in keys) for n, g in groups.items() if n != "(none)"}
    data, tool = "/srv/data/var/data.bin", "/srv/data/bin/tool"
    assert got[data] == ("8:1", 0xb00, data, "dentry", False, False, "/srv/data", "ext4",
                         4, 0, False)
    assert got[tool] == ("8:1", 0xb10, tool, "dentry", False, False, "/srv/data", "ext4",
                         4, 4, True)
    sysv = groups["SYSV00001234"]
    assert (sysv["dev"], sysv["inode"], sysv["pseudo"], sysv["mount"]) == \
        ("0:25", 0xb20, True, None)
    bdev = groups["(block device 8:0)"]
    assert (bdev["dev"], bdev["inode"], bdev["path_source"]) == ("0:5", 0xb30, "block_device")
    r = run("--core", str(core), "--btf", str(btf), "--by", "file")
    assert r.returncode == 0, r.stderr
    assert not KERNEL_ADDRESS.search(r.stdout), r.stdout
    assert all(n in r.stdout for n in mkdump.EXPECTED_FILES), r.stdout
    groups = by_key(core, btf, "exec")
    assert named(groups) == mkdump.EXPECTED_EXEC
    assert groups[tool]["exec_pages"] == 4 and groups[tool]["mapped_exec"]
    r = run("--core", str(core), "--btf", str(btf), "--by", "exec")
    assert r.returncode == 0 and tool in r.stdout and data not in r.stdout, r.stderr


def test_by_file_of_a_dump_whose_types_lack_mounts_names_paths_from_the_roots(tmp_path, dump):
    """Types without struct mount: the files' paths from their superblocks' roots, "(not
    mounted)" as for a file system no mount shows; --by fs gives the same groups, by device,
    the internal tmpfs too (without struct vfsmount its shm_mnt cannot be read)."""
    core = dump[0]
    btf = tmp_path / "no-mounts.btf"
    btf.write_bytes(mkdump.btf_raw(mounts=False))
    assert named(by_key(core, btf, "file")) == mkdump.EXPECTED_FILES_UNMOUNTED
    groups = [g for g in by_key(core, btf, "fs", unique=False) if g["name"] != "(none)"]
    by_dev = {g["dev"]: (g["name"], g["pages"]["total"]) for g in groups}
    assert by_dev["8:1"] == ("(not mounted)", 8) and by_dev["0:5"] == ("(block devices)", 2)
    assert by_dev["0:25"] == ("(not mounted)", 2)
    assert len(groups) == 3 and all(g["mount"] is None for g in groups)
