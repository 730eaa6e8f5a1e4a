# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""memstat rmss (AIX's rmss on Linux), as a user runs it. Run as root:
    make BUILD=build rmsstest
or  MEMSTAT=build/memstat WSREAD=build/wsread python3 -m pytest -q tests/rmss_test.py

Each test has its own lock and state directory (MEMSTAT_RMSS_RUNDIR), so that a test never
meets a pool or lock of another run; the cgroups, pool processes and zram devices are the
machine's, and each test checks that none of its own is left behind.
"""
import glob
import json
import os
import re
import select
import signal
import subprocess
import time

import pytest

MEMSTAT = os.path.abspath(os.environ.get("MEMSTAT", "build/memstat-test"))
WSREAD = os.path.abspath(os.environ.get("WSREAD", os.path.join(os.path.dirname(MEMSTAT),
                                                                 "wsread")))
WS_MB = 256                 # the workload's working set: a file of 256 MiB, read 3 times
WS_DIR = os.environ.get("RMSS_WS_DIR", "/var/tmp")   # disk-backed: the page-ins must be real
ROW = re.compile(r"^(\d+\.\d\d)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="memstat rmss needs root")


@pytest.fixture
def rundir(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    yield d
    # a test that failed half-way leaves no pool behind
    if (d / "memstat-rmss.state").exists():
        subprocess.run([MEMSTAT, "rmss", "-r"], capture_output=True, env=env(d), timeout=120)


def env(rundir):
    e = dict(os.environ)
    e["MEMSTAT_RMSS_RUNDIR"] = str(rundir)
    return e


def rmss(rundir, *args, timeout=600):
    return subprocess.run([MEMSTAT, "rmss", *args], capture_output=True, text=True,
                          timeout=timeout, env=env(rundir))


def meminfo():
    """/proc/meminfo in MB, with Free: MemFree and the free pages on the per-cpu lists, which
    MemFree leaves out (6.x tunes those lists up to hundreds of MB after large frees)."""
    out = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            out[k] = int(v.split()[0]) / 1024     # MB
    with open("/proc/zoneinfo") as f:
        pcp = sum(int(line.split()[1]) for line in f if line.split()[:1] == ["count:"])
    out["Free"] = out["MemFree"] + pcp * os.sysconf("SC_PAGE_SIZE") / 2**20
    return out


def real_mb():
    """The real memory size as rmss says it: MemTotal in MB, with its fraction."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024


def vm_locked(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmLck:"):
                return int(line.split()[1]) / 1024
    return 0


def pool_pids():
    """Pool processes (comm memstat-rmss) on the machine."""
    pids = []
    for p in glob.glob("/proc/[0-9]*/comm"):
        try:
            with open(p) as f:
                pid = int(p.split("/")[2])
                if f.read().strip() == "memstat-rmss" and alive(pid):
                    pids.append(pid)      # not a zombie: its memory is not back yet
        except OSError:
            pass
    return pids


def state_pid(rundir):
    try:
        with open(rundir / "memstat-rmss.state") as f:
            for line in f:
                if line.startswith("pid "):
                    return int(line.split()[1])
    except FileNotFoundError:
        return None
    return None


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def our_cgroups(pid):
    """The cgroups of the driver pid, wherever they are made (memory, freezer, v2)."""
    found = []
    for top, dirs, _ in os.walk("/sys/fs/cgroup"):
        found += [os.path.join(top, d) for d in dirs if d == f"memstat-rmss-{pid}"]
    return found


def state(rundir):
    """The state file as a dict of its lines ("key value"), {} when there is none."""
    try:
        with open(rundir / "memstat-rmss.state") as f:
            return dict(line.rstrip("\n").split(" ", 1) for line in f if " " in line)
    except FileNotFoundError:
        return {}


def comm_pids(name):
    """Live processes named name (comm)."""
    pids = []
    for p in glob.glob("/proc/[0-9]*/comm"):
        try:
            with open(p) as f:
                pid = int(p.split("/")[2])
                if f.read().strip() == name and alive(pid):
                    pids.append(pid)
        except OSError:
            pass
    return pids


def guardians():
    return comm_pids("memstat-rmss-gd")


def cmdline_pids(text):
    """Live processes whose command line is text (arguments joined by spaces)."""
    pids = []
    for p in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(p, "rb") as f:
                pid = int(p.split("/")[2])
                if f.read().rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace") == \
                        text and alive(pid):
                    pids.append(pid)
        except OSError:
            pass
    return pids


def subtree_controls():
    """Every cgroup v2 subtree_control on the machine, with its content."""
    out = {}
    for top, _, files in os.walk("/sys/fs/cgroup"):
        if "cgroup.subtree_control" in files:
            try:
                with open(os.path.join(top, "cgroup.subtree_control")) as f:
                    out[top] = f.read()
            except OSError:
                pass
    return out


def self_cgroup(controller):
    """This process's cgroup in the v1 hierarchy of controller, or v2's (None)."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            num, ctrls, path = line.rstrip("\n").split(":", 2)
            if (controller is None and num == "0" and not ctrls) or \
                    controller in ctrls.split(","):
                return path.rstrip("/")
    return None


def zram_devices():
    return sorted(os.path.basename(p) for p in glob.glob("/sys/block/zram*"))


def swaps():
    with open("/proc/swaps") as f:
        return f.read().splitlines()[1:]


@pytest.fixture(scope="module")
def workfile():
    """A 256 MiB file on a disk-backed file system (not tmpfs: its pages would be shmem,
    never read back from a disk)."""
    fstype = subprocess.run(["stat", "-f", "-c", "%T", WS_DIR], capture_output=True,
                            text=True).stdout.strip()
    if fstype in ("tmpfs", "ramfs"):
        pytest.skip(f"{WS_DIR} is {fstype}: set RMSS_WS_DIR to a disk-backed directory")
    path = os.path.join(WS_DIR, f"memstat-rmss-test-{os.getpid()}")
    with open(path, "wb") as f:
        chunk = os.urandom(1 << 20)
        for _ in range(WS_MB):
            f.write(chunk)
    yield path
    os.unlink(path)


def drop(path):
    """Drop the file's page cache: pages cached before the run are charged to another cgroup
    (the first to read them keeps them), and the command's cgroup would never page them in."""
    subprocess.run([WSREAD, "--drop", path], check=True)


def rows_of(report):
    return [tuple(float(x) for x in m.groups()) for m in map(ROW.match, report.splitlines())
            if m]


# ---- cgroup mode: the known working set ----

def test_cgroup_mode_finds_the_working_set(rundir, workfile, tmp_path):
    out = tmp_path / "rmss.out"
    drop(workfile)
    p = subprocess.Popen([MEMSTAT, "rmss", "--cgroup", "-s", "384", "-f", "192", "-d", "32",
                          "-n", "1", "-o", str(out), "--json", WSREAD, workfile],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env(rundir))
    stdout, stderr = p.communicate(timeout=600)
    assert p.returncode == 0, stderr
    assert not our_cgroups(p.pid), "the cgroup was left behind"
    j = json.loads(stdout)
    assert j["format_version"] == 1 and list(j)[0] == "format_version"
    assert j["mode"] == "cgroup" and j["iterations"] == 1
    assert j["command"] == [WSREAD, workfile]
    sizes = {s["mb"]: s for s in j["sizes"]}
    assert sorted(sizes) == [192, 224, 256, 288, 320, 352, 384]
    file_pages = WS_MB * 1024 * 1024 // os.sysconf("SC_PAGE_SIZE")
    for mb, s in sizes.items():
        assert s["oom_kills"] == 0 and s["runs"] == 1
        if mb >= 1.25 * WS_MB:      # well above the working set: (nearly) nothing paged in
            assert s["avg_pageins"] < 0.01 * file_pages, (mb, s)
        if mb < WS_MB:
            # below: what does not fit is read again in passes 2 and 3, whatever the kernel
            # keeps (its refault detection keeps part of the file resident, so not the whole
            # file each pass): no cache of mb misses fewer than (WS_MB - mb) MiB a pass
            must = 2 * (WS_MB - mb) * 1024 * 1024 // os.sysconf("SC_PAGE_SIZE")
            assert s["avg_pageins"] >= must, (mb, s)
            assert s["avg_pagein_rate"] > 0
        # the cgroup's own pages: the file in its page cache, up to the limit
        assert s["pages"]["page_cache_mb"] <= mb + 1
    assert WS_MB <= j["knee_mb"] <= 1.25 * WS_MB, (
        j["knee_mb"], [(s["mb"], s["avg_pageins"], s["avg_pagein_rate"], s["avg_response_s"])
                       for s in j["sizes"]])
    # AIX's report in the file, the same rows
    report = out.read_text()
    for line in ("Hostname:", "Real memory size:", "Time of day:", "Command:", "Swap:",
                 "Simulated memory size initialized to 384.00 Mb.",
                 "Number of iterations per memory size = 1 warm-up + 1 measured = 2.",
                 "Memory size   Avg. Pageins     Avg. Response Time   Avg. Pagein Rate",
                 "Simulated final memory size.", f"Knee: {j['knee_mb']:.2f} Mb"):
        assert line in report, line
    assert [r[0] for r in rows_of(report)] == [384, 352, 320, 288, 256, 224, 192]


# ---- machine mode: -c, -p, -r ----

def test_change_print_reset_round_trip(rundir):
    real = real_mb()
    size = int(real) - 2048
    steal = real - size         # the pool holds MemTotal - the size, to the page
    r = rmss(rundir, "-p")
    assert r.returncode == 0 and r.stdout == f"Simulated memory size is {real:6.2f} Mb.\n"
    drops, rises, noise = [], [], [0.0]
    # other processes move pages while this runs: free memory (MemFree and the per-cpu lists)
    # is read just before and after each change, over three steal/reset cycles, and the
    # median change is compared, within the noise: the largest change of free memory over a
    # window as long as the change took, with nothing changed, just before it
    took = 3.0
    for _ in range(3):
        quiet = meminfo()
        time.sleep(took)
        before = meminfo()
        noise.append(abs(before["Free"] - quiet["Free"]))
        t = time.time()
        r = rmss(rundir, "-c", str(size))
        took = time.time() - t
        after = meminfo()
        assert r.returncode == 0, r.stderr
        assert r.stdout == f"Simulated memory size changed to {size:6.2f} Mb.\n"
        pid = state_pid(rundir)
        assert pid and alive(pid) and pid in pool_pids()
        assert abs(vm_locked(pid) - steal) <= 1      # the pool holds it, mlocked
        assert after["Mlocked"] - before["Mlocked"] > steal - 16
        drops.append(before["Free"] - after["Free"])
        r = rmss(rundir, "-p")
        assert r.stdout == f"Simulated memory size is {size:6.2f} Mb.\n"
        quiet = meminfo()
        time.sleep(took)
        back0 = meminfo()
        noise.append(abs(back0["Free"] - quiet["Free"]))
        r = rmss(rundir, "-r")
        back1 = meminfo()
        assert r.returncode == 0, r.stderr
        assert r.stdout == f"Simulated memory size changed to {real:6.2f} Mb.\n"
        assert not alive(pid) and not (rundir / "memstat-rmss.state").exists()
        assert back0["Mlocked"] - back1["Mlocked"] > steal - 16
        rises.append(back1["Free"] - back0["Free"])
        r = rmss(rundir, "-p")
        assert r.stdout == f"Simulated memory size is {real:6.2f} Mb.\n"
    drops.sort()
    rises.sort()
    tol = 64 + max(noise)
    assert abs(drops[1] - steal) <= tol, (drops, rises, steal, noise)
    assert abs(rises[1] - steal) <= tol, (drops, rises, steal, noise)


def test_reset_after_a_crash_and_a_dead_pool(rundir):
    """-r ends a pool whose memstat is gone; a pool that died gave its memory back by itself,
    and a reused pid is never killed."""
    real = real_mb()
    assert rmss(rundir, "-c", str(int(real) - 512)).returncode == 0
    pid = state_pid(rundir)
    os.kill(pid, signal.SIGKILL)            # the pool dies (the OOM killer's choice)
    for _ in range(500):
        if not alive(pid):
            break
        time.sleep(0.01)
    r = rmss(rundir, "-p")
    assert r.stdout == f"Simulated memory size is {real:6.2f} Mb.\n" and "is gone" in r.stderr
    # a state naming a live process that is not a pool (this test): left alone
    st = (rundir / "memstat-rmss.state").read_text()
    (rundir / "memstat-rmss.state").write_text(st.replace(f"pid {pid}\n", f"pid {os.getpid()}\n"))
    r = rmss(rundir, "-r")
    assert r.returncode == 0 and alive(os.getpid())
    assert not (rundir / "memstat-rmss.state").exists()


def test_reset_acts_on_cgroups_only(rundir, tmp_path):
    """-r removes or changes only directories of a cgroup file system: a state file edited to
    name other directories (or to climb out of /sys/fs/cgroup) leaves them as they were."""
    victims = {k: tmp_path / k for k in ("cg", "fz", "sub")}
    for v in victims.values():
        v.mkdir()                               # empty: an rmdir would take it
    (victims["sub"] / "cgroup.subtree_control").write_text("+memory\n")
    climb = "/sys/fs/cgroup/../.." + str(victims["cg"])
    for cg in (victims["cg"], climb):
        (rundir / "memstat-rmss.state").write_text(
            "pid 0\nstarttime 0\nreal_mb 0\nsimulated_mb 0\nstolen_mb 0\nzram -1\n"
            f"cgroup_v 2\ncgroup {cg}\nfreezer {victims['fz']}\nsubtree {victims['sub']}\n")
        r = rmss(rundir, "-r")
        assert r.returncode == 0, r.stderr
        assert all(v.is_dir() for v in victims.values()), cg
        assert (victims["sub"] / "cgroup.subtree_control").read_text() == "+memory\n", cg


# ---- Ctrl-C ----

def wait_rows(proc, n, timeout=300):
    """The report on stdout up to its first n rows, as it goes (-o FILE is renamed into place
    at the end). The caller adds what communicate() reads after it."""
    fd, buf, t = proc.stdout.fileno(), b"", time.time()
    while time.time() - t < timeout:
        text = buf.decode(errors="replace")
        if len(rows_of(text[:text.rfind("\n") + 1])) >= n:
            return buf.decode()
        if select.select([fd], [], [], 0.05)[0]:
            chunk = os.read(fd, 65536)
            assert chunk or proc.poll() is None, proc.communicate()
            buf += chunk
    raise AssertionError(f"no {n} rows in {timeout} s")


def test_sigint_keeps_the_report_and_restores_cgroup_mode(rundir, workfile, tmp_path):
    out = tmp_path / "rmss.out"
    drop(workfile)
    p = subprocess.Popen([MEMSTAT, "rmss", "--cgroup", "-s", "320", "-f", "128", "-d", "32",
                          "-n", "2", "-o", str(out), WSREAD, workfile, "6"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env(rundir))
    seen = wait_rows(p, 2)
    assert our_cgroups(p.pid)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=120)
    stdout = seen + stdout
    assert p.returncode == 130, stderr
    report = out.read_text()
    rows = rows_of(report)
    assert len(rows) >= 2 and [r[0] for r in rows] == [320 - 32 * i for i in range(len(rows))]
    assert "Interrupted by SIGINT" in report and "Simulated final memory size." not in report
    assert stdout == report             # the same report on stdout
    assert not our_cgroups(p.pid), "the cgroup was left behind"
    assert not (rundir / "memstat-rmss.state").exists()


def test_sigint_machine_mode_with_zram(rundir, tmp_path):
    if not os.path.exists("/sys/class/zram-control/hot_add"):
        pytest.skip("no zram here (/sys/class/zram-control): --zram cannot be tested")
    real = int(real_mb())
    out = tmp_path / "rmss.out"
    zram0, swaps0, pools0 = zram_devices(), swaps(), set(pool_pids())
    p = subprocess.Popen([MEMSTAT, "rmss", "--zram", "64", "-s", str(real - 512), "-f",
                          str(real - 2048), "-d", "512", "-n", "1", "-o", str(out),
                          "sleep", "0.3"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env(rundir))
    wait_rows(p, 1)
    assert len(swaps()) == len(swaps0) + 1 and "zram" in swaps()[-1]
    # the pool of the first size, or (between sizes, one replaces the other) of the next
    t = time.time()
    while not (state_pid(rundir) and alive(state_pid(rundir))) and time.time() - t < 60:
        time.sleep(0.02)
    pid = state_pid(rundir)
    assert pid and alive(pid)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=120)
    assert p.returncode == 130, stderr
    report = out.read_text()
    assert "Swap:  64.00 Mb (zram" in report
    assert rows_of(report)[0][0] == real - 512
    assert "Interrupted by SIGINT" in report
    assert not alive(pid) and set(pool_pids()) <= pools0, "a pool was left behind"
    assert not (rundir / "memstat-rmss.state").exists()
    assert zram_devices() == zram0 and swaps() == swaps0, "the zram device was left behind"


# ---- bad input: one line, a documented exit code, nothing changed ----

def one_line(r, code, text):
    assert r.returncode == code, (r.returncode, r.stderr)
    first = r.stderr.splitlines()[0]
    assert first.startswith("memstat rmss: ") and text in first, r.stderr
    # the error line, and for usage errors the pointer to --help
    assert len(r.stderr.splitlines()) <= 2, r.stderr
    assert r.stdout == ""


def test_bad_input(rundir, tmp_path):
    real = real_mb()
    out = tmp_path / "rmss.out"
    out.write_text("Hostname:  an existing report\n")     # one rmss may replace
    pools = pool_pids()
    one_line(rmss(rundir, "-o", str(out)), 2, "no command")
    one_line(rmss(rundir, "-d", "0", "-o", str(out), "true"), 2, "DELTA (-d) '0'")
    one_line(rmss(rundir, "-c", "100"), 2, "below the safe floor")
    one_line(rmss(rundir, "-c", str(real * 2)), 2, "above the real memory size")
    one_line(rmss(rundir, "-s", "100", "-o", str(out), "true"), 2, "below the safe floor")
    one_line(rmss(rundir, "-s", str(real + 1), "-o", str(out), "true"), 2,
             "above the real memory size")
    one_line(rmss(rundir, "-c", "x12"), 2, "invalid size")
    one_line(rmss(rundir, "-p", "true"), 2, "no driver options")
    assert out.read_text() == "Hostname:  an existing report\n"
    assert set(pool_pids()) <= set(pools)     # no new pool
    assert not (rundir / "memstat-rmss.state").exists()


def test_two_at_once_are_refused(rundir, tmp_path):
    real = int(real_mb())
    out = tmp_path / "rmss.out"
    p = subprocess.Popen([MEMSTAT, "rmss", "--cgroup", "-s", "64", "-f", "64", "-n", "1",
                          "-o", str(out), "sleep", "3"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env(rundir))
    # the first holds the lock (its report appears only at its end)
    lock, t = rundir / "memstat-rmss.lock", time.time()
    while (not lock.exists() or lock.read_text().strip() != str(p.pid)) and time.time() - t < 30:
        time.sleep(0.02)
    assert lock.read_text().strip() == str(p.pid)
    out2 = tmp_path / "second.out"
    one_line(rmss(rundir, "--cgroup", "-s", "64", "-f", "64", "-n", "1", "-o", str(out2),
                  "true"), 6, "another memstat rmss is running")
    one_line(rmss(rundir, "-c", str(real - 512)), 6, "another memstat rmss is running")
    # the state records the first one's cgroup, and nothing of the refused ones
    assert not out2.exists() and state(rundir).get("pid", "0") == "0"
    assert p.wait(timeout=60) == 0
    assert rmss(rundir, "-p").returncode == 0


@pytest.mark.parametrize("cmd,text", [
    (["/nonexistent/command"], "cannot run '/nonexistent/command': No such file or directory"),
    (["false"], "'false' exited with status 1 in its first run, at 64.00 MB: no report "
                "(--ok-status 1 if that status is an answer)"),
    (["sh", "-c", "kill -SEGV $$"], "'sh' was killed by signal 11 (Segmentation fault) in its "
                                    "first run"),
])
def test_a_command_that_cannot_run_or_fails_at_once(rundir, tmp_path, cmd, text):
    # one line, exit 1, and the report of an earlier run is not replaced by an empty one
    out = tmp_path / "rmss.out"
    earlier = "Hostname:  an earlier report of rmss\n"
    out.write_text(earlier)
    p = subprocess.Popen([MEMSTAT, "rmss", "--cgroup", "-s", "64", "-f", "64", "-n", "1", "-o",
                          str(out), *cmd], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env(rundir))
    stdout, stderr = p.communicate(timeout=120)
    assert p.returncode == 1, stderr
    assert stderr.startswith("memstat rmss: " + text), stderr
    assert len(stderr.splitlines()) == 1 and stdout == ""
    assert not our_cgroups(p.pid), "the cgroup was left behind"
    assert out.read_text() == earlier
    assert not (rundir / "memstat-rmss.state").exists()


def test_statuses_accepted_and_later_failures_recorded(rundir, tmp_path):
    # --ok-status 1: grep's "no match" is an answer; a run that fails later (the 4th: the
    # measured run at 64 MB) is counted at its size, not averaged, and keeps it out of the knee
    out = tmp_path / "rmss.out"
    r = rmss(rundir, "--cgroup", "-s", "64", "-f", "64", "-n", "1", "-o", str(out),
             "--ok-status", "1", "false")
    assert r.returncode == 0, r.stderr
    assert len(rows_of(out.read_text())) == 1
    count = tmp_path / "count"
    count.write_text("0")
    script = f"n=$(cat {count}); echo $((n + 1)) > {count}; [ $n -lt 3 ] || exit 7"
    p = subprocess.Popen([MEMSTAT, "rmss", "--cgroup", "-s", "96", "-f", "64", "-d", "32",
                          "-n", "1", "-o", str(out), "--json", "sh", "-c", script],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env(rundir))
    stdout, stderr = p.communicate(timeout=120)
    assert p.returncode == 0, stderr
    j = json.loads(stdout)
    sizes = {s["mb"]: s for s in j["sizes"]}
    assert (sizes[96]["failed_runs"], sizes[96]["exit_status"]) == (0, None), sizes
    assert (sizes[64]["failed_runs"], sizes[64]["exit_status"]) == (1, 7), sizes
    assert sizes[64]["avg_response_s"] is None and sizes[96]["avg_response_s"] is not None
    assert j["knee_mb"] == 96
    report = out.read_text()
    assert "(1 of 1 runs failed, the last with exit status 7)" in report
    assert "Knee: 96.00 Mb" in report
    one_line(rmss(rundir, "--ok-status", "0", "true"), 2, "invalid --ok-status '0'")
    one_line(rmss(rundir, "--ok-status", "1,", "true"), 2, "invalid --ok-status '1,'")


# ---- nothing left behind, whatever happens to the driver ----

@pytest.fixture
def drivers(rundir):
    """Drivers a test starts: killed if it failed half-way (then the guardian undoes, and the
    rundir fixture's -r after it)."""
    procs = []
    yield procs
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    t = time.time()
    while set(guardians()) and time.time() - t < 10:
        time.sleep(0.1)


class Before:
    """What the machine had before a run: pools, guardians, Mlocked, swaps, zram devices."""

    def __init__(self):
        self.pools, self.guardians = set(pool_pids()), set(guardians())
        self.mlocked, self.swaps, self.zram = meminfo()["Mlocked"], swaps(), zram_devices()
        self.subtree = subtree_controls()
        self.sleeps = set(cmdline_pids("sleep 3600"))


def nothing_left(rundir, driver, before, commands=(), timeout=10):
    """Within timeout seconds: no pool, no guardian, Mlocked back, no zram swap or device, no
    cgroup of the driver's, the command's processes ended, no state file."""
    t, left = time.time(), None
    while time.time() - t < timeout:
        left = {
            "pools": set(pool_pids()) - before.pools,
            "guardians": set(guardians()) - before.guardians,
            "mlocked_mb": max(0, meminfo()["Mlocked"] - before.mlocked - 16),
            "swaps": [s for s in swaps() if s not in before.swaps],
            "zram": sorted(set(zram_devices()) - set(before.zram)),
            "cgroups": our_cgroups(driver),
            "commands": [pid for pid in commands if alive(pid)],
            "state": state(rundir),
        }
        if not any(left.values()):
            return
        time.sleep(0.1)
    raise AssertionError(f"left behind {timeout} s after: {left}")


def wait_for(cond, what, timeout=60):
    t = time.time()
    while time.time() - t < timeout:
        v = cond()
        if v:
            return v
        time.sleep(0.02)
    raise AssertionError(f"no {what} in {timeout} s")


def hanging_command(flag):
    """A command that returns at once until flag exists, and then hangs (it becomes sleep 3600):
    the driver measures its sizes, then is caught in the middle of a run. In machine mode the
    command ends with the driver; what it started in the background is not rmss's to end, as
    after a normal run (in cgroup mode the cgroup's processes all end)."""
    return ["sh", "-c", f"if [ -e {flag} ]; then exec sleep 3600; fi"]


def cgroup_with_process(rundir, driver):
    """The cgroup the state records (or, where it records none, the driver's found by its
    name), once a process runs in it."""
    path = state(rundir).get("cgroup") or (our_cgroups(driver) or [None])[0]
    if not path:
        return None
    try:
        with open(os.path.join(path, "cgroup.procs")) as f:
            return path if f.read().split() else None
    except FileNotFoundError:
        return None


def start_machine_mode(rundir, tmp_path, drivers, before, *extra):
    real = int(real_mb())
    flag = tmp_path / "hang"
    p = subprocess.Popen([MEMSTAT, "rmss", *extra, "-s", str(real - 512), "-f", str(real - 2048),
                          "-d", "512", "-n", "1", "-o", str(tmp_path / "rmss.out"),
                          *hanging_command(flag)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env(rundir))
    drivers.append(p)
    wait_rows(p, 1)
    flag.touch()        # the next run hangs, with the pool of the second size taken
    cmds = wait_for(lambda: set(cmdline_pids("sleep 3600")) - before.sleeps, "hanging command")
    pid = wait_for(lambda: state_pid(rundir) and alive(state_pid(rundir)) and state_pid(rundir),
                   "pool")
    # recorded before it takes the memory: then mlocked
    wait_for(lambda: vm_locked(pid) > 1000, "memory in the pool")
    assert pid in pool_pids()
    return p, cmds


def test_kill9_of_the_driver_in_machine_mode(rundir, tmp_path, drivers):
    before = Before()
    p, cmds = start_machine_mode(rundir, tmp_path, drivers, before)
    p.kill()
    p.wait()
    nothing_left(rundir, p.pid, before, cmds)


def test_kill9_of_the_driver_with_zram(rundir, tmp_path, drivers):
    if not os.path.exists("/sys/class/zram-control/hot_add"):
        pytest.skip("no zram here (/sys/class/zram-control): --zram cannot be tested")
    before = Before()
    p, cmds = start_machine_mode(rundir, tmp_path, drivers, before, "--zram", "64")
    assert len(swaps()) == len(before.swaps) + 1 and state(rundir)["zram"] != "-1"
    p.kill()
    p.wait()
    nothing_left(rundir, p.pid, before, cmds)


def start_cgroup_mode(rundir, tmp_path, drivers, before, *extra, **popen):
    p = subprocess.Popen([MEMSTAT, "rmss", "--cgroup", *extra, "-s", "64", "-f", "64", "-n", "1",
                          "-o", str(tmp_path / "rmss.out"), "sh", "-c", "sleep 3600 & wait"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env(rundir), **popen)
    drivers.append(p)
    path = wait_for(lambda: cgroup_with_process(rundir, p.pid), "command in its cgroup")
    return p, path, wait_for(lambda: set(cmdline_pids("sleep 3600")) - before.sleeps,
                             "command")


def test_kill9_of_the_driver_in_cgroup_mode(rundir, tmp_path, drivers):
    before = Before()
    p, path, cmds = start_cgroup_mode(rundir, tmp_path, drivers, before)
    # made where the caller may make one: under its own memory cgroup (v1), beside it (v2)
    assert our_cgroups(p.pid) and path in our_cgroups(p.pid)
    if path.startswith("/sys/fs/cgroup/memory/"):
        assert os.path.dirname(path) == "/sys/fs/cgroup/memory" + self_cgroup("memory")
    else:
        mine = self_cgroup(None)
        assert os.path.dirname(path) == "/sys/fs/cgroup" + os.path.dirname(mine or "/").rstrip("/")
    p.kill()
    p.wait()
    nothing_left(rundir, p.pid, before, cmds)
    assert subtree_controls() == before.subtree


def test_reset_after_a_crash_removes_everything(rundir, tmp_path, drivers):
    """The driver and its guardian both killed: the pool (here -c's, which the driver keeps
    while it runs), the cgroup with a process in it and the zram device stay, and -r removes
    them all."""
    zram = os.path.exists("/sys/class/zram-control/hot_add")
    before = Before()
    assert rmss(rundir, "-c", str(int(real_mb()) - 512)).returncode == 0
    pool = state_pid(rundir)
    p, path, cmds = start_cgroup_mode(rundir, tmp_path, drivers, before,
                                      *(["--zram", "64"] if zram else []))
    for g in set(guardians()) - before.guardians:
        os.kill(g, signal.SIGKILL)
    p.kill()
    p.wait()
    time.sleep(1)
    assert os.path.isdir(path) and alive(pool), "nothing was left to remove"
    assert [pid for pid in cmds if alive(pid)], "nothing was left running in the cgroup"
    if zram:
        assert len(swaps()) == len(before.swaps) + 1
    r = rmss(rundir, "-r")
    assert r.returncode == 0, r.stderr
    nothing_left(rundir, p.pid, before, cmds, timeout=1)
    # and again: nothing to do
    r = rmss(rundir, "-r")
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_hangup_of_the_driver(rundir, tmp_path, drivers):
    """An ssh hang-up without nohup: SIGHUP to the driver's process group."""
    zram = os.path.exists("/sys/class/zram-control/hot_add")
    before = Before()
    p, path, cmds = start_cgroup_mode(rundir, tmp_path, drivers, before,
                                      *(["--zram", "64"] if zram else []),
                                      start_new_session=True)
    os.killpg(p.pid, signal.SIGHUP)
    p.wait(timeout=30)
    nothing_left(rundir, p.pid, before, cmds)


def test_subtree_control_unchanged_after_a_cgroup_run(rundir, tmp_path):
    before = subtree_controls()
    r = rmss(rundir, "--cgroup", "-s", "64", "-f", "64", "-n", "1", "-o",
             str(tmp_path / "rmss.out"), "true")
    assert r.returncode == 0, r.stderr
    assert subtree_controls() == before
