# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Periodic sampling and allpages, as a user scripts them. Run as root:
    MEMSTAT=build/memstat-test python3 -m pytest tests/sampling_test.py
"""
import csv
import errno
import hashlib
import io
import json
import mmap
import os
import re
import shutil
import signal
import subprocess
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

MEMSTAT = os.path.abspath(os.environ.get("MEMSTAT", "build/memstat-test"))
CLASSES = ["kernel", "anon", "shmem", "exec", "page_cache", "hugetlb", "free", "unknown"]
KERNEL_ADDRESS = re.compile(r"(0x)?ffff[0-9a-f]{12}", re.I)


def run(*args, **kw):
    return subprocess.run([MEMSTAT, *args], capture_output=True, text=True, timeout=300, **kw)


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def present_pages():
    """The kernel's own count of present pages (each zone's present_pages in /proc/zoneinfo),
    independent of memstat's reading of /proc/iomem. A sample classifies every present page
    once or counts it as a hole, so total + holes must equal it (the classes always add up to
    total: every backend builds total as their sum, so that sum proves nothing)."""
    with open("/proc/zoneinfo") as f:
        return sum(int(line.split()[1]) for line in f if line.split()[:1] == ["present"])


SLAB_SPLIT = {"kernel_slab_unreclaimable", "kernel_slab_reclaimable"}


def assert_slab_keys(keys, some=False):
    """Slab is either kernel_slab (all of it: the walk cannot tell reclaimable slab apart) or
    its two parts, never a mix: a key never means a part on one kernel and all on another.
    some: keys are those met, so only one of the parts may be there."""
    slab = set(keys) & (SLAB_SPLIT | {"kernel_slab"})
    assert slab == {"kernel_slab"} or (slab <= SLAB_SPLIT if some else slab == SLAB_SPLIT), slab


# ---- periodic sampling ----

def test_csv_columns_have_one_name_each_and_slab_keeps_its_meaning(tmp_path):
    # a class and its sub-class share a name (shmem, exec, unknown): the sub-class columns are
    # detail_<key>, so csv.DictReader and pandas see every column under its own name
    log = tmp_path / "m.csv"
    r = run("-o", str(log), "0.1", "1")
    assert r.returncode == 0, r.stderr
    header = log.read_text().splitlines()[0].split(",")
    assert len(header) == len(set(header)), [h for h in header if header.count(h) > 1]
    row = csv_rows(log)[0]
    assert len(row) == len(header)
    for key in ("shmem", "exec", "unknown"):
        assert key in row and "detail_" + key in row
    # the non-empty detail columns partition the classes: slab counted once, whole or split
    filled = {k[len("detail_"):] for k, v in row.items() if k.startswith("detail_") and v != ""}
    assert_slab_keys(filled)
    assert sum(int(row["detail_" + k]) for k in filled) == int(row["total"])


def test_n_samples_give_n_rows_with_increasing_timestamps(tmp_path):
    log = tmp_path / "m.csv"
    r = run("-o", str(log), "0.2", "5")
    assert r.returncode == 0, r.stderr
    rows = csv_rows(log)
    assert len(rows) == 5
    epochs = [float(row["epoch"]) for row in rows]
    assert epochs == sorted(epochs) and len(set(epochs)) == 5
    present = present_pages()
    for row in rows:
        assert int(row["total"]) + int(row["holes"]) == present
        assert row["timestamp"].endswith("Z")


def test_appending_keeps_existing_lines_and_writes_the_header_once(tmp_path):
    log = tmp_path / "m.csv"
    assert run("-o", str(log), "0.1", "2").returncode == 0
    before = log.read_bytes()
    assert run("-o", str(log), "0.1", "3").returncode == 0
    after = log.read_bytes()
    assert after.startswith(before)
    lines = after.decode().splitlines()
    assert len(lines) == 1 + 5
    assert sum(1 for line in lines if line.startswith("timestamp,")) == 1


def test_a_log_with_other_columns_is_refused_and_untouched(tmp_path):
    log = tmp_path / "other.csv"
    log.write_text("a,b,c\n1,2,3\n")
    digest = sha(log)
    r = run("-o", str(log))
    assert r.returncode == 2
    assert "columns differ" in r.stderr and len(r.stderr.splitlines()) == 1
    assert sha(log) == digest


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "prom"])
def test_a_symlink_is_refused_and_its_target_untouched(tmp_path, fmt):
    target = tmp_path / "target"
    target.write_text("precious\n")
    link = tmp_path / "log"
    link.symlink_to(target)
    r = run("-o", str(link), "--format", fmt)
    assert r.returncode == 2, r.stderr
    assert "symbolic link" in r.stderr
    assert target.read_text() == "precious\n" and link.is_symlink()


def test_a_directory_or_unwritable_path_is_refused(tmp_path):
    r = run("-o", str(tmp_path))
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
    r = run("-o", str(tmp_path / "no" / "such" / "dir" / "m.csv"))
    assert r.returncode == 2 and "No such file" in r.stderr


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_sigint_in_the_middle_leaves_a_valid_file(tmp_path, fmt):
    log = tmp_path / ("m." + fmt)
    p = subprocess.Popen([MEMSTAT, "-o", str(log), "--format", fmt, "0.05"],
                         stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    text = log.read_text()
    assert text.endswith("\n")
    if fmt == "csv":
        rows = csv_rows(log)
        assert len(rows) >= 3
        for row in rows:
            assert int(row["total"]) + int(row["holes"]) == present_pages()
    else:
        objs = [json.loads(line) for line in text.splitlines()]
        assert len(objs) >= 3
        for o in objs:
            assert o["pages"]["total"] + o["holes"] == present_pages()


def test_sigterm_ends_cleanly_too(tmp_path):
    log = tmp_path / "m.csv"
    p = subprocess.Popen([MEMSTAT, "-o", str(log), "0.05"])
    time.sleep(1)
    p.terminate()
    assert p.wait(timeout=30) == 0
    assert len(csv_rows(log)) >= 2


def test_sighup_reopens_the_log_for_logrotate(tmp_path):
    log = tmp_path / "m.csv"
    p = subprocess.Popen([MEMSTAT, "-o", str(log), "0.05"])
    try:
        # two samples in the first log before it is rotated (a fixed sleep is too short when
        # the machine is busy and loading the BPF programs takes longer)
        deadline = time.time() + 30
        while not (log.exists() and len(log.read_text().splitlines()) >= 3):
            assert time.time() < deadline, "fewer than two samples in 30 s"
            time.sleep(0.05)
        os.rename(log, tmp_path / "m.csv.1")
        p.send_signal(signal.SIGHUP)
        deadline = time.time() + 10
        while not (log.exists() and len(log.read_text().splitlines()) >= 2):
            assert time.time() < deadline, "no new log after SIGHUP"
            time.sleep(0.05)
    finally:
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=30) == 0
    assert log.read_text().startswith("timestamp,")
    assert len(csv_rows(tmp_path / "m.csv.1")) >= 2


def test_jsonl_is_the_json_object_plus_a_timestamp(tmp_path):
    one = json.loads(run("--json").stdout)
    r = run("--json", "0.1", "2")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert len(lines) == 2
    for line in lines:
        o = json.loads(line)
        assert set(one) <= set(o)
        assert {"timestamp", "epoch"} <= set(o)


@pytest.mark.parametrize("backend", ["bpf", "kpageflags"])
def test_json_detail_partitions_the_classes_with_slab_whole_or_split(backend):
    # format_version 2: kernel_slab is all slab or null, never the unreclaimable part of it
    d = json.loads(run("--json", "--backend", backend).stdout)
    assert d["format_version"] == 2
    filled = {k for k, v in d["detail"].items() if v is not None}
    assert set(d["detail"]) - filled <= SLAB_SPLIT | {"kernel_slab"}
    assert_slab_keys(filled)
    assert (filled >= SLAB_SPLIT) == d["slab_split"]
    assert sum(d["detail"][k] for k in filled) == d["pages"]["total"]
    if backend == "kpageflags":
        assert d["detail"]["kernel_slab"] > 0 and not d["slab_split"]


def test_prometheus_file_parses_and_is_replaced_atomically(tmp_path):
    prom = tmp_path / "memstat.prom"
    r = run("-o", str(prom), "--format", "prom", "0.1", "3")
    assert r.returncode == 0, r.stderr
    families = {f.name: f for f in text_string_to_metric_families(prom.read_text())}
    pages = {s.labels["class"]: s.value for s in families["memstat_pages"].samples}
    assert set(CLASSES) < set(pages)
    assert pages["total"] + families["memstat_holes_pages"].samples[0].value == present_pages()
    assert families["memstat_pages"].type == "gauge"
    sub = families["memstat_subclass_pages"].samples
    assert {s.labels["subclass"] for s in sub} >= {"anon_private", "free_buddy"}
    assert_slab_keys({s.labels["subclass"] for s in sub})
    assert families["memstat_page_size_bytes"].samples[0].value == os.sysconf("SC_PAGE_SIZE")
    assert os.listdir(tmp_path) == ["memstat.prom"], "no temporary file left behind"


@pytest.fixture
def full_fs(tmp_path):
    """A 1 MiB tmpfs: yields (its path, a function that fills what is left of it)."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "memstat-test", str(mnt)],
                   check=True)

    def fill():
        with open(mnt / "filler", "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"x" * 4096)
            except OSError as e:
                assert e.errno == errno.ENOSPC, e
    try:
        yield mnt, fill
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_full_disk_ends_sampling_without_a_torn_line(full_fs, fmt):
    # the disk fills while samples are appended: the sample that did not fit is cut back out
    # of the log (a write takes what fits, then fails), the error is ENOSPC, exit 1
    mnt, fill = full_fs
    log = mnt / ("m." + fmt)
    assert run("-f", fmt, "-o", str(log), "0.1", "1").returncode == 0
    fill()
    r = run("-f", fmt, "-o", str(log), "0.1", "40")
    assert r.returncode == 1, r.stderr
    assert "No space left on device" in r.stderr, r.stderr
    text = log.read_text()
    assert text.endswith("\n")
    lines = text.splitlines()
    if fmt == "csv":
        header = lines[0].split(",")
        assert all(len(line.split(",")) == len(header) for line in lines[1:]), lines[-1]
        assert len(lines) >= 2
    else:
        assert all(json.loads(line)["format_version"] for line in lines)
    # and plot, asked to write where there is no room, names the error
    r = run("plot", str(log), "-o", str(mnt / "m.svg"))
    assert r.returncode == 1 and "No space left on device" in r.stderr, r.stderr


def test_prometheus_readers_never_see_a_partial_file(tmp_path):
    # a scraper reading the file while memstat rewrites it every 50 ms: each read is a whole
    # sample (it parses and its classes add up), and each sample is a new file (renamed over
    # the old one, so a reader holding the old one keeps a whole file too)
    prom = tmp_path / "memstat.prom"
    p = subprocess.Popen([MEMSTAT, "-o", str(prom), "--format", "prom", "0.05", "40"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reads, changes, last = 0, 0, None
    try:
        while p.poll() is None:
            try:
                with open(prom) as f:
                    ino = os.fstat(f.fileno()).st_ino
                    text = f.read()
            except FileNotFoundError:
                # only before the first sample: a renamed-over file never disappears
                assert last is None, "the Prometheus file disappeared between samples"
                continue
            families = {m.name: m for m in text_string_to_metric_families(text)}
            pages = {s.labels["class"]: s.value for s in families["memstat_pages"].samples}
            assert sum(pages[c] for c in CLASSES) == pages["total"], text
            reads += 1
            changes += last is not None and ino != last
            last = ino
    finally:
        out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert reads >= 40, "the reader kept up with the samples"
    assert changes >= 10, "each sample is written to a new file and renamed into place"


def test_a_walk_longer_than_the_interval_is_reported(tmp_path):
    # a walk of /proc/kpageflags takes hundreds of milliseconds on any machine memstat targets:
    # 0.01 s is too short (the bpf walk of an idle machine of a few GiB can take under 10 ms)
    r = run("--json", "-b", "kpageflags", "0.01", "3")
    assert r.returncode == 0
    assert len(r.stdout.splitlines()) == 3
    assert "longer than the 0.01 s interval" in r.stderr


@pytest.mark.parametrize("args,needle", [
    (["0"], "invalid interval"), (["-1"], "invalid interval"), (["12x"], "invalid interval"),
    (["nan"], "invalid interval"), (["1", "0"], "invalid count"), (["1", "2.5"], "invalid count"),
    (["--format", "xml"], "unknown format"), (["--fsync"], "--fsync needs"),
    (["--reconcile", "1"], "--reconcile"),
])
def test_bad_sampling_input_is_one_line_and_exit_2(args, needle):
    r = run(*args)
    assert r.returncode == 2
    assert needle in r.stderr.splitlines()[0]
    assert r.stdout == ""


def test_systemd_unit_verifies(tmp_path):
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed (no systemd on this machine)")
    here = os.path.dirname(os.path.abspath(__file__))
    unit = open(os.path.join(here, "..", "contrib", "memstat.service")).read()
    unit = unit.replace("/usr/local/bin/memstat", MEMSTAT)
    (tmp_path / "memstat.service").write_text(unit)
    r = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "memstat.service")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ---- allpages ----

def pfn_intervals(pfns):
    """Sorted pfns -> merged [start, end) intervals."""
    out = []
    for p in pfns:
        if out and out[-1][1] == p:
            out[-1][1] = p + 1
        else:
            out.append([p, p + 1])
    return [tuple(i) for i in out]


def merge(intervals):
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [tuple(i) for i in out]


def intersect(x, y):
    out, i, j = [], 0, 0
    while i < len(x) and j < len(y):
        a, b = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if a < b:
            out.append((a, b))
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return merge(out)


def within(inner, outer):
    """Is every pfn of the intervals inner also in outer?"""
    return intersect(inner, outer) == merge(inner)


def runs_by_subclass():
    r = run("--runs")
    assert r.returncode == 0, r.stderr
    subs = {}
    for line in r.stdout.splitlines():
        start, n, _, sub = line.split()
        subs.setdefault(sub, []).append((int(start, 16), int(start, 16) + int(n)))
    return {k: merge(v) for k, v in subs.items()}


def test_allpages_covers_every_page_and_agrees_with_the_walk():
    # allpages' --summary counts the very records it prints (the walker counts each record it
    # writes), so comparing the two proves nothing. The records are compared with another
    # walk instead: --runs, the counting walk (a folio or free block classified once at its head
    # and jumped over, runs merged in user space), page by page, on the pages that cannot
    # change between the two commands. A never-initialised struct page only ever gets
    # initialised: the uninitialised pages of the runs after allpages are uninitialised in it,
    # and those of allpages were in the runs before. Reserved pages are set at boot: those in
    # both runs are reserved in allpages, and allpages' are in one of the runs.
    holes = json.loads(run("--json").stdout)["holes"]
    before = runs_by_subclass()
    r = run("allpages", "--format", "csv")
    assert r.returncode == 0, r.stderr
    after = runs_by_subclass()
    lines = r.stdout.splitlines()
    assert lines[0].startswith("pfn,class,subclass,")
    n, last = 0, -1
    stable = {"kernel_reserved": [], "free_uninit": []}
    for line in lines[1:]:
        pfn, _, sub = line.split(",", 3)[:3]
        pfn = int(pfn, 16)
        assert pfn > last, "pfns in order, each once"
        last = pfn
        n += 1
        if sub in stable:
            stable[sub].append(pfn)
    # every present page once: the kernel's count of present pages, less the holes of a walk
    assert n + holes == present_pages()
    got = {k: pfn_intervals(v) for k, v in stable.items()}
    res_b, res_a = before.get("kernel_reserved", []), after.get("kernel_reserved", [])
    assert within(intersect(res_b, res_a), got["kernel_reserved"])
    assert within(got["kernel_reserved"], merge(res_b + res_a))
    assert within(after.get("free_uninit", []), got["free_uninit"])
    assert within(got["free_uninit"], before.get("free_uninit", []))
    assert got["kernel_reserved"], "every machine has reserved pages (the kernel image)"


def test_allpages_prints_no_kernel_address_unless_asked():
    r = run("allpages", "--format", "csv", "--pfn", "0x100000-0x10ffff")
    assert r.returncode == 0
    assert not KERNEL_ADDRESS.search(r.stdout)
    r = run("allpages", "--format", "csv", "--pfn", "0x100000-0x10ffff", "--raw-pointers")
    assert r.returncode == 0 and KERNEL_ADDRESS.search(r.stdout)
    assert r.stdout.splitlines()[0].endswith(",mapping,memcg_data,raw")


def test_allpages_into_head_ends_quietly():
    r = subprocess.run(["bash", "-c", "set -o pipefail; '%s' allpages | head -3" % MEMSTAT],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == ""
    assert len(r.stdout.splitlines()) == 3


def test_allpages_filters_by_pfn_and_class():
    r = run("allpages", "--format", "jsonl", "--pfn", "0x100000-0x1003ff")
    pfns = [json.loads(line)["pfn"] for line in r.stdout.splitlines()]
    assert pfns == list(range(0x100000, 0x100400))
    # kernel_slab: all slab, as in --json's detail; a page says which part where the walk splits
    r = run("allpages", "--format", "jsonl", "--class", "free,kernel_slab",
            "--pfn", "0x100000-0x13ffff")
    subs = {json.loads(line)["subclass"] for line in r.stdout.splitlines()}
    assert subs and subs <= {"free_buddy", "free_pcp", "free_uninit", "free_unaccepted",
                             "kernel_slab", "kernel_slab_unreclaimable",
                             "kernel_slab_reclaimable"}
    assert_slab_keys(subs & {"kernel_slab", "kernel_slab_unreclaimable",
                             "kernel_slab_reclaimable"}, some=True)


@pytest.mark.parametrize("args,needle", [
    (["--pfn", "0x7000000000-0x7000000fff"], "no present memory"),
    (["--pfn", "12x"], "invalid pfn range"), (["--pfn", "0x20-0x10"], "invalid pfn range"),
    (["--class", "bogus"], "unknown class"), (["--format", "xml"], "unknown format"),
    (["--jobs", "0"], "invalid --jobs"), (["--jobs", "1x"], "invalid --jobs"),
])
def test_bad_allpages_input_is_one_line_and_exit_2(args, needle):
    r = run("allpages", *args)
    assert r.returncode == 2
    assert needle in r.stderr.splitlines()[0]


def test_allpages_names_the_file_behind_exec_pages():
    libs = [os.path.join(d, f) for d in ("/usr/lib/x86_64-linux-gnu",)
            for f in os.listdir(d) if f.startswith("libLLVM")]
    if not libs:
        pytest.skip("no libLLVM (installed with clang) to map")
    lib = max(libs, key=os.path.getsize)
    st = os.stat(lib)
    with open(lib, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ | mmap.PROT_EXEC)
        try:
            for off in range(0, len(m), 4096 * 64):
                m[off]
            r = run("allpages", "--format", "csv", "--class", "exec")
        finally:
            m.close()
    dev = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    mine = [row for row in csv.DictReader(io.StringIO(r.stdout))
            if row["inode"] == str(st.st_ino) and row["dev"] == dev]
    assert len(mine) >= len(range(0, st.st_size, 4096 * 64)) * 0.9
    assert all(row["owner"] == "file" for row in mine)
    assert all(0 <= int(row["offset"]) * 4096 < st.st_size for row in mine)


# ---- reconcile and exit codes (issue 7, item 13) ----

def reconcile_with_meminfo(tmp_path, drop):
    """memstat --reconcile --json against a copy of /proc/meminfo without the line of `drop`
    (MEMSTAT_MEMINFO, a test-only hook), taken just before the walk."""
    with open("/proc/meminfo") as f:
        lines = [line for line in f if not line.startswith(drop + ":")]
    fake = tmp_path / "meminfo"
    fake.write_text("".join(lines))
    r = run("--reconcile", "--json", env=dict(os.environ, MEMSTAT_MEMINFO=str(fake)))
    return r, json.loads(r.stdout)


def test_a_counter_the_kernel_lacks_is_not_a_mismatch(tmp_path):
    r, j = reconcile_with_meminfo(tmp_path, "Slab")
    rows = {row["name"]: row for row in j["reconcile"]["rows"]}
    slab = rows["Kernel slab + large kmalloc"]
    assert slab["meminfo_pages"] is None and slab["diff_pages"] is None
    assert slab["status"] == "n/a" and slab["reason"] == "the kernel has no Slab"
    assert slab["ok"] is True
    # the exit code and "ok" follow the other rows alone (another process may move memory
    # between the copy and the walk: then a real mismatch, exit 3)
    others_ok = all(row["ok"] for name, row in rows.items() if row is not slab)
    assert j["reconcile"]["ok"] == others_ok
    assert r.returncode == (0 if others_ok else 3), r.stderr
    # the table says the same
    r = run("--reconcile", env=dict(os.environ, MEMSTAT_MEMINFO=str(tmp_path / "meminfo")))
    line = next(l for l in r.stdout.splitlines() if l.startswith("Kernel slab + large kmalloc"))
    assert line.endswith("n/a, the kernel has no Slab"), line
    assert "MISMATCH" not in line


def test_a_missing_part_of_a_sum_is_named(tmp_path):
    _, j = reconcile_with_meminfo(tmp_path, "SwapCached")
    row = next(r for r in j["reconcile"]["rows"] if r["meminfo_field"] == "Cached+Buffers+SwapCached")
    assert row["status"] == "n/a" and row["reason"] == "the kernel has no SwapCached"


def test_an_unreadable_meminfo_is_exit_1_with_its_reason(tmp_path):
    missing = tmp_path / "no-such-meminfo"
    r = run("--reconcile", "--json", env=dict(os.environ, MEMSTAT_MEMINFO=str(missing)))
    assert r.returncode == 1
    assert json.loads(r.stdout)["error"] == "failed to read %s: No such file or directory" % missing


# ---- which files a log may be (issue 7, item 11) ----

def opens_of(path, action):
    """How many times `action()` opens `path`: inotify's open and close events on it (the
    kernel merges an event with an identical one still queued, so two opens in a row may show
    as one IN_OPEN; the closes of a read-only and a writable descriptor differ)."""
    import ctypes
    import struct
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK)
    assert fd >= 0, os.strerror(ctypes.get_errno())
    try:
        IN_CLOSE_WRITE, IN_CLOSE_NOWRITE, IN_OPEN = 0x8, 0x10, 0x20
        mask = IN_OPEN | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE
        assert libc.inotify_add_watch(fd, str(path).encode(), mask) >= 0
        action()
        data = b""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            data += chunk
        opens, closes, off = 0, 0, 0
        while off < len(data):
            _, ev, _, length = struct.unpack_from("iIII", data, off)
            opens += bool(ev & IN_OPEN)
            closes += bool(ev & (IN_CLOSE_WRITE | IN_CLOSE_NOWRITE))
            off += 16 + length
        return max(opens, closes)
    finally:
        os.close(fd)


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_the_header_is_checked_through_the_descriptor_samples_go_to(tmp_path, fmt):
    # a second open() of the path to read its first line could meet another file than the one
    # appended to (a rename in between): the path is opened once
    log = tmp_path / ("m." + fmt)
    assert run("-o", str(log), "--format", fmt).returncode == 0
    results = []
    n = opens_of(log, lambda: results.append(run("-o", str(log), "--format", fmt)))
    assert results[0].returncode == 0, results[0].stderr
    assert n == 1, "memstat opened %s %d times" % (log, n)
    assert len(log.read_text().splitlines()) == (3 if fmt == "csv" else 2)


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "prom"])
def test_a_copy_of_etc_passwd_is_refused_and_untouched(tmp_path, fmt):
    target = tmp_path / "passwd"
    shutil.copyfile("/etc/passwd", target)
    digest, ino = sha(target), target.stat().st_ino
    r = run("-o", str(target), "--format", fmt)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1
    assert {"csv": "columns differ", "jsonl": "not a memstat sample",
            "prom": "not a memstat Prometheus file"}[fmt] in r.stderr
    assert sha(target) == digest and target.stat().st_ino == ino
    assert os.listdir(tmp_path) == ["passwd"]


@pytest.mark.parametrize("have,ask", [("csv", "jsonl"), ("jsonl", "csv")])
def test_a_log_of_the_other_format_is_named_as_such(tmp_path, have, ask):
    # memstat --json -o LOG on a CSV log is refused as a CSV log, not as "not a memstat sample"
    log = tmp_path / "m.log"
    assert run("-f", have, "-o", str(log), "0.1", "1").returncode == 0
    digest = sha(log)
    r = run("-f", ask, "-o", str(log), "0.1", "1")
    assert r.returncode == 2, r.stderr
    want = {"csv": "it is a CSV log of memstat samples, and these are JSON lines (-f csv, ",
            "jsonl": "it is a JSON-lines log of memstat samples, and these are CSV (-f jsonl, "}
    assert want[have] in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    assert sha(log) == digest


def test_a_jsonl_log_of_another_format_version_is_refused(tmp_path):
    log = tmp_path / "m.jsonl"
    assert run("-o", str(log), "--format", "jsonl").returncode == 0
    # a log of format_version 1 (kernel_slab then meant a part of slab on most kernels)
    log.write_text(log.read_text().replace('{"format_version":2,', '{"format_version":1,', 1))
    digest = sha(log)
    r = run("-o", str(log), "--format", "jsonl")
    assert r.returncode == 2
    assert "format_version 1, this memstat writes 2" in r.stderr
    assert sha(log) == digest


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "prom"])
def test_a_hard_link_is_refused_and_both_names_untouched(tmp_path, fmt):
    log = tmp_path / ("m." + fmt)
    assert run("-o", str(log), "--format", fmt).returncode == 0
    other = tmp_path / "other-name"
    os.link(log, other)
    digest = sha(log)
    for name in (log, other):
        r = run("-o", str(name), "--format", fmt)
        assert r.returncode == 2, r.stderr
        assert "has 2 hard links" in r.stderr and len(r.stderr.splitlines()) == 1
    assert sha(log) == digest and os.path.samefile(log, other)


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "prom"])
def test_another_users_file_is_refused_and_untouched(tmp_path, fmt):
    log = tmp_path / ("m." + fmt)
    assert run("-o", str(log), "--format", fmt).returncode == 0
    os.chown(log, 65534, 65534)
    digest, ino = sha(log), log.stat().st_ino
    r = run("-o", str(log), "--format", fmt)
    assert r.returncode == 2, r.stderr
    assert "belongs to uid 65534" in r.stderr and len(r.stderr.splitlines()) == 1
    assert sha(log) == digest and log.stat().st_ino == ino


# ---- reconcile against meminfo read before and after the walk (issue 7, item 20) ----

def test_reconcile_reports_both_readings_and_judges_against_the_interval():
    r = run("--reconcile", "--json")
    j = json.loads(r.stdout)
    for row in j["reconcile"]["rows"]:
        if row["status"] == "n/a":  # a counter this kernel lacks (Unaccepted before 6.5)
            assert row["meminfo_before"] is None and row["ok"], row
            continue
        lo, hi = sorted((row["meminfo_before"], row["meminfo_after"]))
        assert lo <= row["meminfo_pages"] <= hi, row
        assert row["diff_pages"] == row["walk_pages"] - row["meminfo_pages"], row
        if lo <= row["walk_pages"] <= hi:
            assert row["diff_pages"] == 0, row
        # each row's bound: its share of MemTotal, but no more than 25% of its own counter
        # (at least 256 pages), so that a small counter cannot pass with any walk
        total = [w for w in j["reconcile"]["rows"] if w["meminfo_field"] == "MemTotal"][0]
        total = total["meminfo_after"]
        own = max(256, int(0.25 * row["meminfo_pages"]))
        share = int(row["tolerance_pct"] * total / 100)
        if row["meminfo_field"] == "AnonPages":  # mapped anon only: MemTotal's share alone
            assert row["tolerance_pages"] == share, row
        else:
            assert row["tolerance_pages"] == min(own, share), row
        assert row["ok"] == (abs(row["diff_pages"]) <= row["tolerance_pages"]), row
    assert r.returncode == (0 if j["reconcile"]["ok"] else 3)
    r = run("--reconcile")
    assert re.search(r"^Walk class +Walk pages +Meminfo before +Meminfo after +Diff ", r.stdout, re.M)


def test_a_counter_that_moved_during_the_walk_is_not_a_mismatch(tmp_path):
    # MEMSTAT_MEMINFO (test-only) is a FIFO that gives a first reading with MemFree 5% of
    # MemTotal below the real value, then a second 5% above it: memstat must read it before and
    # after the walk and find the walk's free pages between the two, not 5% off the last one
    import threading
    with open("/proc/meminfo") as f:
        real = f.read()
    kb = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+):\s+(\d+)", real, re.M)}
    shift = kb["MemTotal"] // 20

    def reading(delta):
        return re.sub(r"^MemFree:\s+\d+", "MemFree: %d" % (kb["MemFree"] + delta), real,
                      flags=re.M)

    import ctypes
    import select
    import struct
    fifo = tmp_path / "meminfo"
    os.mkfifo(fifo)
    served = []
    # memstat's close of its read end (inotify IN_CLOSE_NOWRITE): only then may the second
    # reading be written, or it would go down the first reading's pipe
    libc = ctypes.CDLL(None, use_errno=True)
    ino = libc.inotify_init1(os.O_NONBLOCK)
    assert ino >= 0 and libc.inotify_add_watch(ino, str(fifo).encode(), 0x10) >= 0

    def serve():
        for text in (reading(-shift), reading(+shift)):
            deadline = time.time() + 30
            while True:
                try:
                    fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                    break
                except OSError:	# ENXIO: no reader yet
                    if time.time() > deadline:
                        return
                    time.sleep(0.002)
            os.set_blocking(fd, True)
            os.write(fd, text.encode())
            os.close(fd)
            served.append(text)
            closed = False
            while not closed and time.time() < deadline:
                select.select([ino], [], [], 1)
                try:
                    data = os.read(ino, 4096)
                except BlockingIOError:
                    continue
                closed = any(struct.unpack_from("iIII", data, off)[1] & 0x10
                             for off in range(0, len(data), 16))

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    r = run("--reconcile", "--json", env=dict(os.environ, MEMSTAT_MEMINFO=str(fifo)))
    t.join(timeout=40)
    os.close(ino)
    assert len(served) == 2, "memstat read meminfo %d times, not before and after" % len(served)
    j = json.loads(r.stdout)
    page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
    free = next(row for row in j["reconcile"]["rows"] if row["meminfo_field"] == "MemFree")
    assert free["meminfo_before"] == (kb["MemFree"] - shift) // page_kb
    assert free["meminfo_after"] == (kb["MemFree"] + shift) // page_kb
    assert free["meminfo_before"] < free["walk_pages"] < free["meminfo_after"], free
    assert free["ok"] and free["status"] == "ok" and free["diff_pages"] == 0, free
    # the exit code follows the other rows (another process may really move memory meanwhile)
    assert r.returncode == (0 if j["reconcile"]["ok"] else 3)


# ---- a log of another memstat version, and the service (issue 7, item 12) ----

def service_args(log):
    """The arguments of the unit's ExecStart, writing to `log`, for one sample."""
    here = os.path.dirname(os.path.abspath(__file__))
    unit = open(os.path.join(here, "..", "contrib", "memstat.service")).read()
    line = next(l for l in unit.splitlines() if l.startswith("ExecStart="))
    args = line.split("=", 1)[1].split()[1:]
    args = [str(log) if a == "/var/log/memstat/memstat.csv" else a for a in args]
    assert str(log) in args, "the unit no longer logs to /var/log/memstat/memstat.csv"
    return args + ["1"]	# INTERVAL 1: one sample, then exit


def current_header(tmp_path, fmt="csv"):
    fresh = tmp_path / ("fresh." + fmt)
    assert run("-o", str(fresh), "--format", fmt).returncode == 0
    first = fresh.read_text().splitlines()[0]
    fresh.unlink()
    return first


def test_the_service_renames_a_log_with_other_columns_aside_and_goes_on(tmp_path):
    header = current_header(tmp_path)
    log = tmp_path / "memstat.csv"
    # what an older memstat wrote: fewer columns
    old = "timestamp,epoch,backend,kernel,anon\n2026-01-01T00:00:00.000Z,1767225600.000,bpf,1,2\n"
    log.write_text(old)
    # never over an existing file: names for the next seconds are taken already
    now = time.time()
    taken = {}
    for dt in range(0, 5):
        name = tmp_path / ("memstat.csv." + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now + dt)))
        name.write_text("someone else's %d\n" % dt)
        taken[name] = sha(name)
    r = run(*service_args(log))
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "renamed it to " in lines[0] and "other columns" in lines[0], r.stderr
    moved = tmp_path / lines[0].split("renamed it to ")[1].split(";")[0]
    assert moved.read_text() == old, "the old log survives byte-identical"
    assert moved not in taken and moved.name.startswith("memstat.csv.")
    for name, digest in taken.items():
        assert sha(name) == digest
    rows = log.read_text().splitlines()
    assert rows[0] == header and len(rows) == 2
    assert len(csv_rows(log)) == 1
    # a second start appends to the new log: nothing more is renamed
    r = run(*service_args(log))
    assert r.returncode == 0 and r.stderr == ""
    assert len(csv_rows(log)) == 2
    assert len(os.listdir(tmp_path)) == 1 + 1 + len(taken)


def test_rotate_incompatible_renames_a_jsonl_log_of_another_format_version(tmp_path):
    log = tmp_path / "m.jsonl"
    assert run("-o", str(log), "--format", "jsonl").returncode == 0
    old = log.read_text().replace('{"format_version":2,', '{"format_version":1,', 1)
    log.write_text(old)
    r = run("-o", str(log), "--format", "jsonl", "--rotate-incompatible")
    assert r.returncode == 0, r.stderr
    assert "another format_version" in r.stderr
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("m.jsonl.")]
    assert len(moved) == 1 and moved[0].read_text() == old
    assert [json.loads(l)["format_version"] for l in log.read_text().splitlines()] == [2]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_rotate_incompatible_leaves_a_file_that_is_no_memstat_log_alone(tmp_path, fmt):
    target = tmp_path / "passwd"
    shutil.copyfile("/etc/passwd", target)
    digest = sha(target)
    r = run("-o", str(target), "--format", fmt, "--rotate-incompatible")
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
    assert sha(target) == digest and os.listdir(tmp_path) == ["passwd"]


def test_rotate_incompatible_needs_a_csv_or_jsonl_log():
    for args in (["--rotate-incompatible"], ["-o", "/tmp/x.prom", "-f", "prom", "--rotate-incompatible"]):
        r = run(*args)
        assert r.returncode == 2 and "--rotate-incompatible needs" in r.stderr.splitlines()[0]


# ---- --approx in the sampling formats ----

def test_approx_csv_appends_error_columns_and_never_mixes_with_an_exact_log(tmp_path):
    log = tmp_path / "a.csv"
    r = run("-o", str(log), "--approx", "--seed", "5", "0.05", "3")
    assert r.returncode == 0, r.stderr
    rows = csv_rows(log)
    exact = tmp_path / "e.csv"
    assert run("-o", str(exact)).returncode == 0
    exact_cols = exact.read_text().splitlines()[0].split(",")
    cols = log.read_text().splitlines()[0].split(",")
    # the exact log's columns first, in their order; the error columns appended
    assert cols[:len(exact_cols)] == exact_cols
    assert cols[len(exact_cols):len(exact_cols) + 3] == \
        ["approx_fraction", "approx_seed", "approx_pages_sampled"]
    assert ["err_" + c for c in CLASSES] + ["err_total"] == \
        cols[len(exact_cols) + 3:len(exact_cols) + 3 + len(CLASSES) + 1]
    assert len(rows) == 3
    # each sample draws its own clusters: the seed goes up by one
    assert [int(row["approx_seed"]) for row in rows] == [5, 6, 7]
    for row in rows:
        assert float(row["approx_fraction"]) == 0.015625
        assert int(row["total"]) + int(row["holes"]) == present_pages()
        for c in CLASSES:
            assert int(row["err_" + c]) >= 0
    # an exact log refuses approximate samples and the other way round, even with
    # --rotate-incompatible (it is no other version's log), and neither file changes
    for target, extra in ((exact, ["--approx"]), (log, [])):
        digest = sha(target)
        for rot in ([], ["--rotate-incompatible"]):
            r = run("-o", str(target), *extra, *rot)
            assert r.returncode == 2, r.stderr
            assert len(r.stderr.splitlines()) == 1 and "--approx" in r.stderr, r.stderr
            assert sha(target) == digest
    assert sorted(os.listdir(tmp_path)) == ["a.csv", "e.csv"]
    # the same kind appends under the one header
    assert run("-o", str(log), "--approx").returncode == 0
    assert len(csv_rows(log)) == 4 and log.read_text().count("timestamp,") == 1


def test_approx_jsonl_and_prom_carry_the_bound(tmp_path):
    r = run("--json", "--approx=0.05", "--seed", "11", "0.05", "2")
    assert r.returncode == 0, r.stderr
    objs = [json.loads(l) for l in r.stdout.splitlines()]
    assert [o["approx"]["seed"] for o in objs] == [11, 12]
    for o in objs:
        a = o["approx"]
        assert a["fraction"] == 0.05 and set(a["error_pages"]) == set(CLASSES) | {"total"}
        assert a["confidence"] == 0.99
        assert set(a["error_detail"]) == set(o["detail"])
        assert o["pages"]["total"] + o["holes"] == present_pages()
    prom = tmp_path / "m.prom"
    r = run("-o", str(prom), "--format", "prom", "--approx", "--seed", "3")
    assert r.returncode == 0, r.stderr
    families = {f.name: f for f in text_string_to_metric_families(prom.read_text())}
    err = {s.labels["class"]: s.value for s in families["memstat_error_pages"].samples}
    assert set(CLASSES) | {"total"} == set(err)
    assert families["memstat_approx_fraction"].samples[0].value == 0.015625
    sub = {s.labels["subclass"] for s in families["memstat_subclass_error_pages"].samples}
    assert {"anon_private", "free_buddy"} <= sub
    assert_slab_keys(sub)
    pages = {s.labels["class"]: s.value for s in families["memstat_pages"].samples}
    assert pages["total"] + families["memstat_holes_pages"].samples[0].value == present_pages()
    # an estimate is not reconciled with /proc/meminfo (--reconcile refuses --approx): no
    # reconcile difference is published for it, as an exact sample does
    assert "memstat_reconcile_diff_pages" not in families
    exact = tmp_path / "exact.prom"
    r = run("-o", str(exact), "--format", "prom")
    assert r.returncode == 0, r.stderr
    assert "memstat_reconcile_diff_pages" in {
        f.name for f in text_string_to_metric_families(exact.read_text())}


def test_approx_rows_say_they_are_approximate():
    r = run("--approx", "0.05", "2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("(approximate: each sample estimates from ")
    assert "each class's error at a 99% confidence level)" in r.stdout.splitlines()[0]


# ---- --by KEY in periodic sampling (groups.c) ----

GROUP_CLASSES = ["kernel", "anon", "shmem", "exec", "page_cache", "hugetlb", "free"]


def test_by_jsonl_rows_carry_the_groups_and_add_up():
    r = run("--by", "zone", "-f", "jsonl", "0.2", "2")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2
    present = present_pages()
    for line in lines:
        o = json.loads(line)
        assert {"timestamp", "epoch", "pages"} <= set(o)
        assert o["by"] == "zone"
        assert o["groups"] and all("/" in g["name"] for g in o["groups"])
        total = o["other"]["pages"]["total"]
        for g in o["groups"]:
            assert sum(g["pages"][c] for c in GROUP_CLASSES) == g["pages"]["total"]
            total += g["pages"]["total"]
        assert total == o["pages"]["total"]
        assert o["pages"]["total"] + o["holes"] == present


def test_by_prom_series_are_labelled_and_capped_to_top_n(tmp_path):
    prom = tmp_path / "memstat.prom"
    r = run("--by", "fs", "--top", "1", "-o", str(prom), "--format", "prom")
    assert r.returncode == 0, r.stderr
    text = prom.read_text()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    samples = families["memstat_group_pages"].samples
    assert families["memstat_group_pages"].type == "gauge"
    labelsets = [tuple(sorted(s.labels.items())) for s in samples]
    assert len(labelsets) == len(set(labelsets)), "a series twice"
    groups = {(s.labels["group"], s.labels["key"]) for s in samples}
    assert {s.labels["by"] for s in samples} == {"fs"}
    # the top 1, (none) and (other): the number of series is bounded by --top
    assert ("(other)", "") in groups and len(groups) <= 3, groups
    keyed = [g for g in groups if g[1]]
    assert len(keyed) == 1 and re.fullmatch(r"\d+:\d+", keyed[0][1]), groups
    total = 0
    for g in groups:
        v = {s.labels["class"]: s.value for s in samples
             if (s.labels["group"], s.labels["key"]) == g}
        assert set(v) == set(GROUP_CLASSES) | {"total"}
        assert sum(v[c] for c in GROUP_CLASSES) == v["total"]
        total += v["total"]
    pages = {s.labels["class"]: s.value for s in families["memstat_pages"].samples}
    assert total == pages["total"]
    assert not KERNEL_ADDRESS.search(text)
    assert "memstat_group_dma_pinned_pages" not in families, "pinned pages without -a"


def test_by_prom_with_attributes_has_pinned_pages_per_group(tmp_path):
    prom = tmp_path / "memstat.prom"
    r = run("--by", "cgroup", "--top", "2", "-a", "-o", str(prom), "--format", "prom")
    assert r.returncode == 0, r.stderr
    families = {f.name: f for f in text_string_to_metric_families(prom.read_text())}
    pinned = families["memstat_group_dma_pinned_pages"]
    assert pinned.type == "gauge"
    total = {(s.labels["group"], s.labels["key"]): s.value
             for s in families["memstat_group_pages"].samples if s.labels["class"] == "total"}
    got = {(s.labels["group"], s.labels["key"]): s.value for s in pinned.samples}
    # one series for each group of memstat_group_pages, (other) included, by cgroup
    assert set(got) == set(total) and ("(other)", "") in got, (got, total)
    assert {s.labels["by"] for s in pinned.samples} == {"cgroup"}
    assert all(0 <= got[g] <= total[g] for g in got), (got, total)
    # the groups together hold what -a counts as dma_pinned in every class
    attr = sum(s.value for s in families["memstat_attribute_pages"].samples
               if s.labels["attribute"] == "dma_pinned")
    assert sum(got.values()) == attr
    # and every other attribute: each group's pages of it, which add up to -a's count of the
    # same walk (the groups partition the pages)
    per = families["memstat_group_attribute_pages"]
    names = {s.labels["attribute"] for s in families["memstat_attribute_pages"].samples}
    assert {s.labels["attribute"] for s in per.samples} == names
    for a in names:
        groups = {(s.labels["group"], s.labels["key"]): s.value for s in per.samples
                  if s.labels["attribute"] == a}
        assert set(groups) == set(total), a
        assert all(0 <= groups[g] <= total[g] for g in groups), (a, groups)
        assert sum(groups.values()) == sum(s.value for s in families["memstat_attribute_pages"].samples
                                           if s.labels["attribute"] == a), a


@pytest.mark.parametrize("args,needle", [
    (["--by", "node", "-f", "csv", "-o", "x.csv"], "needs --format jsonl or prom"),
    (["--by", "disk"], "unknown --by key 'disk'"),
    (["--by", "node", "--top", "0"], "invalid --top '0'"),
    (["--by", "node", "--backend", "kpageflags"], "needs the bpf or kmod backend"),
])
def test_bad_by_input_is_one_line_and_exit_2(tmp_path, args, needle):
    r = run(*args, cwd=tmp_path)
    assert r.returncode == 2
    lines = [l for l in r.stderr.splitlines() if not l.startswith("Try 'memstat --help'")]
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert os.listdir(tmp_path) == []


# ---- memstat's own memory (issue 18, item 7) ----

def test_own_memory_stays_under_64_mib_with_any_jobs():
    """Each BPF worker has its own 2.5 MiB copy of the walk's state: --jobs 256 (192 workers on
    a 24 GiB machine, 503 MB of memstat's own before the cap) must stay under 64 MiB, and the
    cap must show in the JSON's jobs and in memstat's own user-mapped pages."""
    # memstat's own peak is VmHWM of its own address space, read while it samples: a child's
    # ru_maxrss would start at this test process's resident size, which exec keeps
    p = subprocess.Popen([MEMSTAT, "--jobs", "256", "--json", "0.3", "4"],
                         stdout=subprocess.PIPE, text=True)
    hwm = 0
    while p.poll() is None:
        try:
            with open("/proc/%d/status" % p.pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        hwm = max(hwm, int(line.split()[1]))
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(0.02)
    out = p.stdout.read()
    assert p.wait() == 0
    assert hwm > 0, "VmHWM was never read"
    # built with ASan (tests/fuzz/sanitize.sh sets ASAN_OPTIONS), its shadow memory and
    # quarantine add tens of MiB that are the sanitizer's, not memstat's: the jobs and the
    # user-mapped pages below still bound memstat's own maps there
    if "ASAN_OPTIONS" not in os.environ:
        assert hwm <= 64 * 1024, "memstat --jobs 256 held %d KiB" % hwm
    for line in out.splitlines():
        d = json.loads(line)
        assert 1 <= d["jobs"] <= 48 * 1024 * 1024 // (2 * 1024 * 1024), d["jobs"]
        # its own workers' maps are user-mapped kernel pages: the cap bounds them too
        assert d["detail"]["kernel_user_mapped"] * d["page_size"] <= 64 * 1024 * 1024


# ---- attributes a kernel cannot give are unknown, never 0 (issue 18, item 6) ----

def test_attributes_of_unnamed_page_flags_are_unknown_not_zero(tmp_path):
    """A kernel whose BTF names no page flag (the module without BTF; here the test hook
    MEMSTAT_TEST_NO_PAGEFLAGS of the test build): dirty, mlocked, the LRU lists ... are unknown
    (null in JSON with the reason, 'unknown' in the table, empty csv fields, no Prometheus
    series, no reconcile row), while what needs no flag (THP, KSM, pinned) is still counted."""
    env = dict(os.environ, MEMSTAT_TEST_NO_PAGEFLAGS="1")
    flagged = ["dirty", "writeback", "mlocked", "unevictable", "active_anon", "inactive_anon",
               "active_file", "inactive_file", "referenced"]
    r = run("-a", "--json", env=env)
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)["attributes"]
    for k in flagged:
        assert a[k] is None and a["by_class"]["anon"][k] is None, k
        assert "not in the kernel's BTF" in a["unknown"][k], a["unknown"]
    for k in ["dma_pinned", "anon_thp", "file_thp", "ksm"]:
        assert isinstance(a[k], int) and k not in a["unknown"], k
    r = run("-a", env=env)
    assert r.returncode == 0, r.stderr
    dirty = [l for l in r.stdout.splitlines() if l.startswith("dirty ")]
    assert dirty and "unknown" in dirty[0] and not re.search(r"\b0\b", dirty[0]), dirty
    r = run("-a", "--reconcile", "--json", env=env)
    rows = {row["meminfo_field"] for row in json.loads(r.stdout)["reconcile"]["rows"]}
    assert not rows & {"Dirty", "Writeback", "Mlocked", "Unevictable", "Active(anon)"}, rows
    assert {"AnonHugePages", "MemTotal"} <= rows
    r = run("-a", "--reconcile", env=env)
    assert re.search(r"^  dirty +- +unknown: PG_dirty is not in the kernel's BTF$", r.stdout, re.M)
    log = tmp_path / "a.csv"
    r = run("-a", "-o", str(log), "0.1", "1", env=env)
    assert r.returncode == 0, r.stderr
    row = next(csv.DictReader(log.open()))
    assert row["attr_dirty"] == "" and row["attr_anon_mlocked"] == "" and row["attr_ksm"] != ""
    prom = tmp_path / "a.prom"
    r = run("-a", "-f", "prom", "-o", str(prom), env=env)
    assert r.returncode == 0, r.stderr
    attrs = {s.labels["attribute"] for f in text_string_to_metric_families(prom.read_text())
             if f.name == "memstat_attribute_pages" for s in f.samples}
    assert "ksm" in attrs and not attrs & set(flagged), attrs
    # the same build without the hook counts them
    a = json.loads(run("-a", "--json").stdout)["attributes"]
    assert all(isinstance(a[k], int) for k in flagged) and "unknown" not in a
