# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The house's arrows run one way: no include circle among the headers, and no circle among the
files of the command (src/), where a file depends on another when its object calls a function or uses
a variable the other defines (nm of the objects `make` built beside $MEMSTAT). A circle means
two files that cannot be read, tested or replaced one without the other."""
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.dirname(os.path.abspath(os.environ.get("MEMSTAT", os.path.join(ROOT, "build",
                                                                                 "memstat"))))
# the product's sources: include/ (shared by BPF, the module and user space), bpf/, kmod/ and
# src/ with its parts
SOURCE_DIRS = ["include", "bpf", "kmod"] + sorted(
    os.path.relpath(d, ROOT) for d, _, _ in os.walk(os.path.join(ROOT, "src")))


def circles(graph):
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_circles_finds_a_circle():
    # the checker itself: a -> b -> c -> a is one circle, d -> a none
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_include_circle():
    graph = {}
    for d in SOURCE_DIRS:
        for name in os.listdir(os.path.join(ROOT, d)):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(ROOT, d, name), encoding="utf-8") as f:
                incs = re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)
            graph[name] = {os.path.basename(i) for i in incs}
    found = circles(graph)
    assert not found, "include circles: %s" % found


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            used.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRC":
            defined.add(f[2])
    return defined, used


def test_no_circle_among_the_commands_files():
    names = sorted(n[:-2] for d in SOURCE_DIRS if d.startswith("src")
                   for n in os.listdir(os.path.join(ROOT, d)) if n.endswith(".c"))
    objs = {n: os.path.join(BUILD, n + ".o") for n in names}
    missing = [o for o in objs.values() if not os.path.exists(o)]
    if missing:
        pytest.fail("objects not built (make %s): %s" % (BUILD, ", ".join(missing)))
    owner, uses = {}, {}
    for n, o in objs.items():
        defined, used = symbols(o)
        uses[n] = used
        for s in defined:
            owner[s] = n
    graph = {n: {owner[s] for s in uses[n] if s in owner and owner[s] != n} for n in names}
    found = circles(graph)
    why = []
    for comp in found:
        for a in comp:
            for b in comp:
                syms = sorted(s for s in uses[a] if owner.get(s) == b)
                if syms:
                    why.append("%s.c -> %s.c: %s" % (a, b, " ".join(syms[:5])))
    assert not found, "circles among the command's files: %s\n%s" % (found, "\n".join(why))


def test_no_product_file_over_800_lines():
    # a file a maintainer can read whole: the product's sources (tests/ and tools/ aside)
    long = []
    for d in SOURCE_DIRS:
        for name in sorted(os.listdir(os.path.join(ROOT, d))):
            if name.endswith((".c", ".h")):
                with open(os.path.join(ROOT, d, name), encoding="utf-8") as f:
                    n = sum(1 for _ in f)
                if n > 800:
                    long.append("%s/%s: %d lines" % (d, name, n))
    assert not long, "files over 800 lines: %s" % ", ".join(long)


# what reads the system: the readers of sysfs, procfs and directories (src/sys/, meminfo.c)
SYSTEM_READERS = {"ms_meminfo_read", "ms_read_text", "ms_kv_file", "opendir", "readdir",
                  "readdir64", "ms_mountinfo_load", "ms_cgroups_scan", "ms_cgroups_load"}


def test_the_formats_read_nothing_of_the_system():
    # src/out/ writes what it is given: the walk's result, the reconciliation, the names; what
    # it shows of /proc was read by the verb (a format that read /proc on its own would show
    # another moment than the walk's)
    out_dir = os.path.join(ROOT, "src", "out")
    bad = []
    for name in sorted(os.listdir(out_dir)):
        if not name.endswith(".c"):
            continue
        obj = os.path.join(BUILD, name[:-2] + ".o")
        if not os.path.exists(obj):
            pytest.fail("object not built (make %s): %s" % (BUILD, obj))
        _, used = symbols(obj)
        if used & SYSTEM_READERS:
            bad.append("%s: %s" % (name, " ".join(sorted(used & SYSTEM_READERS))))
    assert not bad, "src/out/ reads the system: %s" % "; ".join(bad)


PRINTERS = {"fprintf", "fputs", "fputc", "printf", "puts", "putchar", "fwrite", "vfprintf",
            "ms_esc_fputs"}


def test_the_core_and_the_system_readers_print_nothing():
    # src/core/ computes and src/sys/ reads and writes the system; tables, JSON, CSV and
    # Prometheus are src/out/'s. util.c alone writes to stderr: memstat's error messages.
    bad = []
    for d in ("core", "sys", "dump"):
        for name in sorted(os.listdir(os.path.join(ROOT, "src", d))):
            if not name.endswith(".c") or (d, name) == ("core", "util.c"):
                continue
            obj = os.path.join(BUILD, name[:-2] + ".o")
            if not os.path.exists(obj):
                pytest.fail("object not built (make %s): %s" % (BUILD, obj))
            _, used = symbols(obj)
            printing = {s for s in used if s in PRINTERS or s.startswith("ms_jw_")}
            if printing:
                bad.append("src/%s/%s: %s" % (d, name, " ".join(sorted(printing))))
    assert not bad, "printing outside src/out/: %s" % "; ".join(bad)
