# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""memstat compared: with another walk (memstat diff A [B], src/cmd/diff.c: what grew and shrank)
and with free(1), smem(8) -w and slabtop(1) (--compare, src/out/compare.c), as a user runs them. Run as root (the
walks need it; diff itself does not):
    MEMSTAT=build/memstat-test python3 -m pytest -q tests/compare_test.py
"""
import json
import os
import subprocess

MEMSTAT = os.path.abspath(os.environ.get("MEMSTAT", "build/memstat-test"))
MiB = 1 << 20


def run(*args):
    return subprocess.run([MEMSTAT, *args], capture_output=True, text=True, timeout=300)


def walk(path, *args):
    r = run("--json", *args)
    assert r.returncode == 0, r.stderr
    path.write_text(r.stdout)
    return json.loads(r.stdout)


def one_line(r, code, text):
    assert r.returncode == code, (r.returncode, r.stderr)
    assert r.stderr.startswith("memstat: diff: " + text) or text in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) <= 2 and r.stdout == "", r.stderr


def test_a_planted_memfd_is_what_grew(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    before = walk(a)
    fd = os.memfd_create("memstat-diff-test")
    try:
        for _ in range(64):
            os.write(fd, b"d" * MiB)
        after = walk(b)
        r = run("diff", "--json", str(a), str(b))
    finally:
        os.close(fd)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["a"] == {"file": str(a), "line": 1, "timestamp": None}
    assert d["backend"] == before["backend"] and d["page_size"] == os.sysconf("SC_PAGE_SIZE")
    # every count is B - A, in the inputs' own keys
    assert list(d["pages"]) == list(before["pages"])
    for k in before["pages"]:
        assert d["pages"][k] == after["pages"][k] - before["pages"][k], k
    for k, v in before["detail"].items():
        if v is not None or after["detail"][k] is not None:
            assert d["detail"][k] == (after["detail"][k] or 0) - (v or 0), k
    want = 64 * MiB // os.sysconf("SC_PAGE_SIZE")
    assert d["pages"]["shmem"] >= want and d["detail"]["shmem"] >= want, d["pages"]
    assert d["pages"]["total"] == 0
    # the table: classes largest change first, shmem among them with its change in pages
    t = run("diff", str(a), str(b))
    assert t.returncode == 0, t.stderr
    lines = t.stdout.splitlines()
    assert lines[0] == f"A: {a}:1" and lines[1] == f"B: {b}:1"
    rows = [l.split() for l in lines[lines.index(next(l for l in lines if l.startswith("Class")))
                                     + 1:] if l and not l.startswith("(")]
    classes = rows[:len(before["pages"])]
    changes = [abs(int(r[-1])) for r in classes]
    assert changes == sorted(changes, reverse=True), classes
    shmem = next(r for r in classes if r[0] == "shmem")
    assert int(shmem[-1]) == d["pages"]["shmem"]


def test_a_log_its_groups_appeared_and_gone(tmp_path):
    log = tmp_path / "m.jsonl"
    r = run("-f", "jsonl", "-o", str(log), "--by", "node", "0.2", "2")
    assert r.returncode == 0, r.stderr
    lines = log.read_text().splitlines()
    # one log: its first and last samples; the groups are the same nodes in both
    d = json.loads(run("diff", "-j", str(log)).stdout)
    assert (d["a"]["line"], d["b"]["line"]) == (1, 2) and d["a"]["timestamp"].endswith("Z")
    assert d["by"] == "node" and {g["status"] for g in d["groups"]} == {"both"}
    # a group only in B appeared, one only in A is gone (a node taken away, one added)
    a, b = json.loads(lines[0]), json.loads(lines[1])
    gone = a["groups"][0]
    b["groups"] = [g for g in b["groups"] if g["name"] != gone["name"]]
    new = dict(gone, name="99")
    b["groups"].append(new)
    (tmp_path / "a.json").write_text(json.dumps(a) + "\n")
    (tmp_path / "b.json").write_text(json.dumps(b) + "\n")
    d = json.loads(run("diff", "--json", str(tmp_path / "a.json"), str(tmp_path / "b.json")).stdout)
    status = {g["name"]: (g["status"], g["total"]) for g in d["groups"]}
    assert status[gone["name"]] == ("gone", -gone["pages"]["total"])
    assert status["99"] == ("appeared", new["pages"]["total"])
    t = run("diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")).stdout
    assert any(l.startswith("99 ") and l.endswith("  appeared") for l in t.splitlines()), t


def test_walks_that_count_different_things_are_refused(tmp_path):
    a = tmp_path / "a.json"
    walk(a)
    k = tmp_path / "kpf.json"
    walk(k, "--backend", "kpageflags")
    one_line(run("diff", str(a), str(k)), 2, "the walks are not comparable: backend is \"bpf\"")
    x = tmp_path / "approx.json"
    walk(x, "--approx")
    one_line(run("diff", str(a), str(x)), 2, f"the walks are not comparable: {x} is an estimate")
    old = tmp_path / "old.json"
    old.write_text(a.read_text().replace('{"format_version":2,', '{"format_version":1,', 1))
    one_line(run("diff", str(old), str(a)), 2, "format_version is 1 in")
    one_line(run("diff", str(a)), 2, "holds one sample")
    junk = tmp_path / "junk"
    junk.write_text("a,b\n1,2\n")
    one_line(run("diff", str(junk)), 2, "is not a memstat log")
    one_line(run("diff", str(a), str(tmp_path / "none.json")), 1, "cannot open")
    one_line(run("diff"), 2, "expected one log, or two files")
    # groups of another key: the classes are compared, the groups not, and that is said
    n = tmp_path / "node.json"
    walk(n, "--by", "node")
    r = run("diff", str(a), str(n))
    assert r.returncode == 0 and "groups not compared" in r.stderr, r.stderr
    assert "Class" in r.stdout


def test_a_csv_log_and_a_window_of_it(tmp_path):
    # the CSV log of memstat -o: its first and last samples, the detail_<key> columns as the
    # detail keys; the same walks as JSON lines give the same differences
    csv, jl = tmp_path / "m.csv", tmp_path / "m.jsonl"
    rows = []
    for i in range(4):
        r = run("--json")
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        d["timestamp"] = "2026-11-28T09:0%d:00.000Z" % i
        d["epoch"] = 1795856400.0 + 60 * i     # 09:00:00 UTC, then a minute apart
        rows.append(d)
    jl.write_text("".join(json.dumps(d) + "\n" for d in rows))
    assert run("-o", str(csv), "0.1", "1").returncode == 0
    header = csv.read_text().splitlines()[0].split(",")
    # the backend quoted, as RFC 4180 allows any field to be
    lines = [",".join([d["timestamp"], "%.3f" % d["epoch"], '"%s"' % d["backend"]]
                      + [str(d["pages"][c]) for c in header[3:12]]
                      + ["" if d["detail"][h[7:]] is None else str(d["detail"][h[7:]])
                         for h in header[12:] if h.startswith("detail_")]
                      + ["0", "1.0"]) for d in rows]
    csv.write_text(",".join(header) + "\n" + "\n".join(lines) + "\n")
    a = json.loads(run("diff", "--json", str(csv)).stdout)
    b = json.loads(run("diff", "--json", str(jl)).stdout)
    assert (a["a"]["line"], a["b"]["line"]) == (2, 5)
    assert a["pages"] == b["pages"] and a["detail"] == b["detail"], (a, b)
    assert a["backend"] == b["backend"] == rows[0]["backend"], (a["backend"], b["backend"])
    for k in rows[0]["pages"]:
        assert a["pages"][k] == rows[3]["pages"][k] - rows[0]["pages"][k]
    # --from/--to: the samples of one log between two times (UTC; a time of day is of the
    # log's first day), the first and the last of them
    w = json.loads(run("diff", "-j", "--from", "09:01", "--to", "2026-11-28T09:02:30Z",
                       str(jl)).stdout)
    assert (w["a"]["timestamp"], w["b"]["timestamp"]) == ("2026-11-28T09:01:00.000Z",
                                                          "2026-11-28T09:02:00.000Z")
    assert w["pages"]["anon"] == rows[2]["pages"]["anon"] - rows[1]["pages"]["anon"]
    w = json.loads(run("diff", "-j", "--from", str(1795856400 + 90), str(csv)).stdout)
    assert (w["a"]["line"], w["b"]["line"]) == (4, 5)
    one_line(run("diff", "--from", "09:03", str(jl)), 2, "holds one sample between --from")
    one_line(run("diff", "--from", "10:00", str(jl)), 2, "holds no memstat sample between")
    one_line(run("diff", "--from", "9h", str(jl)), 2, "invalid --from '9h'")
    one_line(run("diff", "--from", "09:02", "--to", "09:01", str(jl)), 2, "--to is before --from")
    one_line(run("diff", "--to", "09:02", str(jl), str(csv)), 2, "--from and --to choose")


def free_k():
    """free(1)'s own columns, in kB (procps-ng: used is total - available)."""
    r = subprocess.run(["free", "-k"], capture_output=True, text=True, check=True)
    head = r.stdout.splitlines()[0].split()
    mem = next(l for l in r.stdout.splitlines() if l.startswith("Mem:")).split()[1:]
    return dict(zip(head, (int(v) for v in mem)))


def test_compare_free_is_free_s_columns_with_each_difference_named():
    r = run("--compare", "free", "--json")
    f = free_k()
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    rows = {x["name"]: x for x in d["compare"]["rows"]}
    assert list(rows) == ["total", "used", "free", "shared", "buff/cache", "available"]
    assert d["compare"]["tool"] == "free"
    kb = os.sysconf("SC_PAGE_SIZE") // 1024
    tol = f["total"] // kb // 200         # 0.5% of MemTotal: the two reads are apart
    # free's columns as free itself prints them (read a moment later)
    for name in rows:
        assert abs(rows[name]["tool_pages"] - f[name] // kb) <= tol, (name, rows[name], f)
    # and memstat's: total less the reserved pages is MemTotal; free, shared and buff/cache
    # are the walk's own rows, equal but for pages that moved during the walk
    reserved = d["detail"]["kernel_reserved"]
    assert rows["total"]["memstat_pages"] == d["pages"]["total"]
    assert abs(rows["total"]["diff_pages"] - reserved) <= tol, rows["total"]
    for name in ("free", "shared", "buff/cache"):
        assert abs(rows[name]["diff_pages"]) <= tol, rows[name]
    assert rows["free"]["memstat_pages"] == d["pages"]["free"] - d["detail"]["free_pcp"]
    assert rows["available"]["memstat_pages"] is None and rows["available"]["diff_pages"] is None
    assert all(x["why"] for x in rows.values())
    t = run("--compare", "free")
    assert t.returncode == 0, t.stderr
    assert "Compared with free(1)" in t.stdout and "outside MemTotal" in t.stdout
    for bad in (["--compare", "top"], ["--compare", "free", "1"], ["--compare", "free", "--by", "node"],
                ["--compare", "free", "--approx"]):
        one = run(*bad)
        assert one.returncode == 2 and len(one.stderr.splitlines()) <= 2, (bad, one.stderr)


def smem_w_k():
    """smem -w's areas, in kB (smem 1.5 computes them from /proc/meminfo)."""
    r = subprocess.run(["smem", "-w"], capture_output=True, text=True, check=True)
    return {line[:24].strip(): int(line[24:].split()[0]) for line in r.stdout.splitlines()[1:]}


def test_compare_smem_is_its_areas_with_the_cache_it_calls_kernel():
    r = run("--compare", "smem", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["compare"]["tool"] == "smem"
    rows = {x["name"]: x for x in d["compare"]["rows"]}
    assert list(rows) == ["kernel dynamic memory", "userspace memory", "free memory"]
    kb = os.sysconf("SC_PAGE_SIZE") // 1024
    mem_total = int(open("/proc/meminfo").read().split()[1]) // kb
    tol = mem_total // 200               # 0.5% of MemTotal: smem reads meminfo a moment later
    s = smem_w_k()
    for name, x in rows.items():
        assert abs(x["tool_pages"] - s[name] / kb) <= tol + s[name] / kb / 500, (name, x, s)
        assert abs(x["diff_pages"]) <= tol, x      # the walk's rows make smem's areas
        assert x["why"] and x["memstat_rows"]
    # smem's areas cover MemTotal; memstat's rows, the walk less the reserved pages
    assert abs(sum(x["tool_pages"] for x in rows.values()) - mem_total) <= tol
    assert rows["free memory"]["memstat_pages"] == d["pages"]["free"] - d["detail"]["free_pcp"]
    t = run("--compare", "smem")
    assert t.returncode == 0 and "Compared with smem(1)" in t.stdout, t.stderr
    assert "smem counts as kernel the cache no process maps" in t.stdout, t.stdout


def test_compare_slabtop_sizes_and_slabinfo_pages():
    r = run("--compare", "slabtop", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["compare"]["tool"] == "slabtop"
    rows = {x["name"]: x for x in d["compare"]["rows"]}
    assert list(rows) == ["active size", "total size", "slab pages"]
    slab = sum(d["detail"][k] or 0 for k in ("kernel_slab", "kernel_slab_unreclaimable",
                                             "kernel_slab_reclaimable"))
    assert all(x["memstat_pages"] == slab for x in rows.values()), rows
    # slabtop's sizes are objects and slots: never more than their slab pages, in use never
    # more than all slots; /proc/slabinfo's pages are the walk's but for slabs made meanwhile
    pages = rows["slab pages"]["tool_pages"]
    assert rows["active size"]["tool_pages"] <= rows["total size"]["tool_pages"] <= pages
    assert abs(pages - slab) <= max(64, slab // 50), rows["slab pages"]
    # slabtop's own header, read a moment later: its Total Size is the row's
    t = subprocess.run(["slabtop", "-o"], capture_output=True, text=True, check=True).stdout
    total_k = float(next(l for l in t.splitlines() if "Total Size" in l)
                    .split(":")[1].split("/")[1].split("K")[0])
    kb = os.sysconf("SC_PAGE_SIZE") // 1024
    assert abs(rows["total size"]["tool_pages"] - total_k / kb) <= max(64, pages // 50)
    t = run("--compare", "slabtop")
    assert t.returncode == 0 and "Compared with slabtop(1)" in t.stdout, t.stderr
