# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The machine-readable output against golden lists (tests/golden/): the JSON key paths of every
kind of report, the CSV headers of the sampling log and of allpages, and the Prometheus metric
and label names. A list changes only with a commit that means it (a new key, or a renamed one
with format_version bumped): regenerate with MEMSTAT_GOLDEN_WRITE=1 and read the diff.

Key paths: "a.b" for an object member, "a[]" for the elements of an array, whose objects are
merged (the union of their keys), so that the lists do not depend on how many groups or rows a
machine has. Values that are keys themselves (detail's sub-classes are fixed; a --by group's
name is not) are paths; nothing else of the values is compared."""
import json
import os
import re
import subprocess

import pytest

MEMSTAT = os.environ.get("MEMSTAT", "build/memstat")
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
WRITE = os.environ.get("MEMSTAT_GOLDEN_WRITE") == "1"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="memstat walks pages as root only")


def paths(v, prefix=""):
    out = set()
    if isinstance(v, dict):
        for k, x in v.items():
            if k.isdigit():     # a map keyed by numbers (folio_orders): the numbers are data
                k = "{n}"
            p = f"{prefix}.{k}" if prefix else k
            out.add(p)
            out |= paths(x, p)
    elif isinstance(v, list):
        for x in v:
            out |= paths(x, prefix + "[]")
    return out


def run(args, ok=(0,)):
    p = subprocess.run([MEMSTAT] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=300)
    assert p.returncode in ok, (args, p.returncode, p.stderr)
    return p.stdout


def compare(name, items):
    """items: a set (compared as one), or a list (a header: compared in its order)"""
    path = os.path.join(GOLDEN, name)
    got = sorted(items) if isinstance(items, set) else list(items)
    if WRITE:
        with open(path, "w") as f:
            f.write("".join(f"{x}\n" for x in got))
    with open(path) as f:
        want = f.read().splitlines()
    missing = [x for x in want if x not in got]
    added = [x for x in got if x not in want]
    assert not missing and not added, f"{name}: gone {missing}, new {added}"
    assert got == want, f"{name}: the same names in another order: {got}"


JSON_MODES = {
    "summary": ["--json"],
    "verbose": ["-v", "--json"],
    "attributes": ["-a", "--json"],
    "reconcile": ["--reconcile", "--json"],
    "by-cgroup": ["--by", "cgroup", "--json"],
    "by-cgroup-tree": ["--by", "cgroup", "--tree", "--json"],
    "by-file": ["--by", "file", "--json"],
    "by-exec": ["--by", "exec", "--json"],
    "by-node": ["--by", "node", "--json"],
    "approx": ["--approx", "--json"],
    "kpageflags": ["--backend", "kpageflags", "--json"],
}


@pytest.mark.parametrize("mode", sorted(JSON_MODES))
def test_json_keys_are_the_golden_ones(mode):
    out = run(JSON_MODES[mode], ok=(0, 3))   # 3: a reconcile mismatch still prints the JSON
    compare(f"json-{mode}.txt", paths(json.loads(out)))


def test_sampling_log_headers_are_the_golden_ones(tmp_path):
    csv = tmp_path / "log.csv"
    run(["-o", str(csv), "-f", "csv", "0.1", "1"])
    compare("csv-header.txt", csv.read_text().splitlines()[0].split(","))
    jsonl = tmp_path / "log.jsonl"
    run(["-o", str(jsonl), "-f", "jsonl", "0.1", "1"])
    compare("jsonl-keys.txt", paths(json.loads(jsonl.read_text().splitlines()[0])))


def test_allpages_csv_header_is_the_golden_one():
    out = run(["allpages", "--pfn", "0x1000-0x1000", "--format", "csv"])
    compare("allpages-csv-header.txt", out.splitlines()[0].split(","))


PROM_LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ")
PROM_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"')


@pytest.mark.parametrize("mode,args", [("summary", []), ("attributes", ["-a"]),
                                       ("by-cgroup", ["--by", "cgroup", "-a"])])
def test_prometheus_names_are_the_golden_ones(tmp_path, mode, args):
    f = tmp_path / "memstat.prom"
    run(args + ["-o", str(f), "-f", "prom", "0.1", "1"])
    names = set()
    for line in f.read_text().splitlines():
        m = PROM_LINE.match(line)
        if not m or line.startswith("#"):
            continue
        names.add(m.group(1))
        for label in PROM_LABEL.findall(m.group(2) or ""):
            names.add(f"{m.group(1)}{{{label}}}")
    compare(f"prom-{mode}.txt", names)
