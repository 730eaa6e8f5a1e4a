# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""contrib/grafana/memstat.json references only metrics memstat writes, and only their labels;
the reconcile metrics of a Prometheus file agree with memstat --reconcile --json.

Run as root: MEMSTAT=build/memstat python3 -m pytest tests/grafana_test.py
"""
import json
import os
import re
import subprocess

import pytest
from prometheus_client.parser import text_string_to_metric_families

MEMSTAT = os.environ.get("MEMSTAT", "build/memstat-test")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DASHBOARD = os.path.join(ROOT, "contrib", "grafana", "memstat.json")

# PromQL words that are not metric names (aggregations may be followed by "by (...)")
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or",
            "unless", "bool", "offset", "inf", "nan", "sum", "min", "max", "avg", "count",
            "group", "stddev", "stdvar", "topk", "bottomk", "quantile", "count_values"}
# labels Prometheus itself adds to every scraped series
TARGET_LABELS = {"instance", "job"}


def prom_file(tmp_path, name, *args):
    path = tmp_path / name
    r = subprocess.run([MEMSTAT, "-o", str(path), "-f", "prom", *args], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return path.read_text()


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """{metric: set of label names} of real Prometheus files: exact, --approx and --by node."""
    d = tmp_path_factory.mktemp("prom")
    metrics = {}
    for name, args in (("exact.prom", ()), ("approx.prom", ("--approx",)),
                       ("by.prom", ("--by", "node"))):
        for fam in text_string_to_metric_families(prom_file(d, name, *args)):
            for s in fam.samples:
                metrics.setdefault(s.name, set()).update(s.labels)
    return metrics


def exprs(dash):
    for p in dash["panels"]:
        for t in p.get("targets", []):
            yield p["title"], t["expr"], t.get("legendFormat", "")
    for v in dash["templating"]["list"]:
        q = v.get("query")
        if isinstance(q, dict):
            yield "variable " + v["name"], q["query"], ""


def metric_names(expr):
    """The metric names of a PromQL expression (or a label_values() query)."""
    e = re.sub(r'"(\\.|[^"\\])*"', '""', expr)	# strings
    e = re.sub(r"\{[^}]*\}", "", e)		# label matchers
    e = re.sub(r"\[[^\]]*\]", "", e)		# ranges
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", r"\1", e)
    e = re.sub(r"label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,[^)]*\)", r"\1", e)
    names = set()
    for m in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", e):
        word, rest = m.group(0), e[m.end():].lstrip()
        if rest.startswith("(") or word.lower() in KEYWORDS or word.startswith("$"):
            continue	# a function, a keyword
        if e[:m.start()].endswith("$"):
            continue	# a variable
        names.add(word)
    return names


def label_names(expr):
    """The label names of the matchers and of by/on/group_left(...) of an expression."""
    e = re.sub(r'"(\\.|[^"\\])*"', '""', expr)
    labels = set()
    for m in re.finditer(r"\{([^}]*)\}", e):
        labels.update(re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", m.group(1)))
    for m in re.finditer(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)", e):
        labels.update(x.strip() for x in m.group(1).split(",") if x.strip())
    return labels


def test_parser_finds_metrics():
    """The checker itself: it must see what an expression uses, or it proves nothing."""
    e = ('sum by (class) (rate(node_memory_MemFree_bytes{instance=~"$instance"}[5m])) '
         '* on (instance, job) group_left memstat_page_size_bytes - time()')
    assert metric_names(e) == {"node_memory_MemFree_bytes", "memstat_page_size_bytes"}
    assert label_names(e) == {"class", "instance", "job"}
    assert metric_names("label_values(memstat_info, instance)") == {"memstat_info"}


def test_dashboard_references_only_metrics_memstat_writes(written):
    dash = json.load(open(DASHBOARD))
    seen = set()
    for title, expr, legend in exprs(dash):
        names = metric_names(expr)
        assert names, f"{title}: no metric in {expr!r}"
        for n in names:
            assert n in written, f"{title}: {n} is not a metric memstat writes"
        seen |= names
        have = set().union(*(written[n] for n in names)) | TARGET_LABELS
        for lab in label_names(expr) | set(re.findall(r"\{\{\s*(\w+)\s*\}\}", legend)):
            assert lab in have, f"{title}: label {lab} is on none of {sorted(names)}"
    # what the issue asks for: the classes, the reconcile differences, the walk time
    for n in ("memstat_pages", "memstat_reconcile_diff_percent", "memstat_walk_seconds"):
        assert n in seen, f"no panel shows {n}"


def test_dashboard_is_a_grafana_dashboard():
    dash = json.load(open(DASHBOARD))
    assert dash["uid"] and dash["title"] and dash["schemaVersion"] >= 30
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids)), "panel ids repeat"
    for p in dash["panels"]:
        g = p["gridPos"]
        assert 0 <= g["x"] and g["x"] + g["w"] <= 24, p["title"]
        for t in p["targets"]:
            assert t["datasource"]["uid"] == "${datasource}", p["title"]


def test_prom_reconcile_agrees_with_reconcile_json(tmp_path):
    """memstat_reconcile_diff_* carry the rows of --reconcile that have a counter; MemTotal
    does not move, so its row's difference is the same in both."""
    r = subprocess.run([MEMSTAT, "--reconcile", "--json"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode in (0, 3), r.stderr
    rows = {x["name"]: x for x in json.loads(r.stdout)["reconcile"]["rows"]}
    prom = {}
    for fam in text_string_to_metric_families(prom_file(tmp_path, "m.prom")):
        for s in fam.samples:
            if s.name.startswith("memstat_reconcile_"):
                prom[(s.name, s.labels["row"])] = (s.labels["field"], s.value)
    want = {n for n, x in rows.items() if x["status"] != "n/a" and not n.startswith("Dirty")}
    got = {row for (name, row) in prom if name == "memstat_reconcile_diff_pages"}
    assert got <= set(rows) and want - got <= {"Total - reserved - offline"}, (want, got)
    field, diff = prom[("memstat_reconcile_diff_pages", "Total - reserved")]
    assert field == "MemTotal" and diff == rows["Total - reserved"]["diff_pages"]
    pct = prom[("memstat_reconcile_diff_percent", "Total - reserved")][1]
    assert abs(pct - rows["Total - reserved"]["diff_pct"]) < 1e-3


def test_prom_without_meminfo_has_no_reconcile_rows(tmp_path):
    """A meminfo without a counter: that row is left out, not written as 0."""
    mi = tmp_path / "meminfo"
    mi.write_text("".join(l for l in open("/proc/meminfo") if not l.startswith("AnonPages:")))
    env = dict(os.environ, MEMSTAT_MEMINFO=str(mi))
    path = tmp_path / "m.prom"
    r = subprocess.run([MEMSTAT, "-o", str(path), "-f", "prom"], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    text = path.read_text()
    assert 'memstat_reconcile_diff_pages{row="Total - reserved"' in text
    assert 'field="AnonPages"' not in text
