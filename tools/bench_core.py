#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""make bench, the dump part: memstat --core's walk per page against the live walk's.

    bench_core.py MEMSTAT

The live walk: the median walk_ms of memstat --json runs over this machine's present pages.
The dump: a synthetic ELF core of as many pages (tests/tools/mkdump.py --large: every 64 pages
its 64 kinds, so far more kinds a page than a mostly free machine has; the file is sparse, its
struct pages real), read from the page cache (one run to warm it first), at the default
workers and at --jobs 1; then kdump-compressed ones (flattened, zlib and LZO pages) of 256 MiB,
whose rates are reported. Target (issue 23): the ELF dump at least as fast a page as the live
walk. Exit 0 measured, 1 a run failed."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MKDUMP = os.path.join(HERE, "..", "tests", "tools", "mkdump.py")
RUNS = 7
SECTION = 32768
MAX_PAGES = 1 << 24          # mkdump's vmemmap: 1 GiB of struct pages


def walk_ns(cmd):
    """median walk_ms of RUNS runs of cmd (--json), in ns a page; and the pages"""
    ms, pages = [], 0
    for _ in range(RUNS):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if r.returncode not in (0, 3):
            sys.exit("bench_core: %s exited %d: %s" % (" ".join(cmd), r.returncode, r.stderr))
        j = json.loads(r.stdout)
        ms.append(j["walk_ms"])
        pages = j["pages"]["total"] + j["holes"]
    ms.sort()
    return ms[len(ms) // 2] * 1e6 / max(1, pages), pages, ms[len(ms) // 2]


def main():
    memstat = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/memstat")
    live, live_pages, live_ms = walk_ns([memstat, "--json"])
    live1, _, _ = walk_ns([memstat, "--json", "--jobs", "1"])
    npages = min(MAX_PAGES, (live_pages + SECTION - 1) // SECTION * SECTION)
    tmp = tempfile.mkdtemp(prefix="memstat-bench-core-", dir=os.environ.get("TMPDIR", "/var/tmp"))
    try:
        core = os.path.join(tmp, "large.core")
        subprocess.run(["/usr/bin/python3", MKDUMP, "--large", str(npages), core], check=True)
        dump = [memstat, "--core", core, "--btf", core + ".btf", "--json"]
        subprocess.run(dump, capture_output=True, timeout=600)     # into the page cache
        elf, pages, elf_ms = walk_ns(dump)
        elf1, _, _ = walk_ns(dump + ["--jobs", "1"])
        print("%-44s %10.2f ns/page  (%.1f ms for %d pages, median of %d memstat --json)"
              % ("live bpf walk (this machine)", live, live_ms, live_pages, RUNS))
        print("%-44s %10.2f ns/page  (--jobs 1)" % ("live bpf walk, one worker", live1))
        print("%-44s %10.2f ns/page  (%.1f ms for %d pages, in the page cache; --jobs 1: "
              "%.2f ns/page); target <= the live walk's %.2f: %s"
              % ("--core of an ELF dump as large", elf, elf_ms, pages, elf1, live,
                 "met" if elf <= live else "MISSED"))
        for method in ("zlib", "lzo"):
            small = os.path.join(tmp, "small-%s.kdump" % method)
            r = subprocess.run(["/usr/bin/python3", "-c",
                                "import sys; sys.path.insert(0, %r); import mkdump; "
                                "mkdump.large(%r, 65536, 'kdump', %r)"
                                % (os.path.dirname(MKDUMP), small, method)],
                               capture_output=True, text=True)
            if r.returncode:
                print("%-44s %10s (%s)" % ("--core of a kdump-compressed dump, " + method, "-",
                                           r.stderr.strip().splitlines()[-1][:80]))
                continue
            ns, pages, ms = walk_ns([memstat, "--core", small, "--btf", core + ".btf",
                                     "--json"])
            print("%-44s %10.2f ns/page  (%.1f ms for %d pages, flattened, every page "
                  "compressed)" % ("--core of a kdump-compressed dump, " + method, ns, ms,
                                   pages))
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
