# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""memstat serve (src/cmd/serve.c) as Prometheus and its users meet it: /metrics from the last
walk, scrapes that cost no walk, a slow client and bad requests that stop no one, the HTTP
process as nobody, SIGTERM, and a real Prometheus server scraping it for the Grafana dashboard.

Run as root: MEMSTAT=build/memstat-test /usr/bin/python3 -m pytest -q tests/serve_test.py
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from pathlib import Path
from prometheus_client.parser import text_string_to_metric_families

MEMSTAT = os.environ.get("MEMSTAT", "build/memstat-test")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROMETHEUS = "/usr/bin/prometheus"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Serve:
    """memstat serve on a free loopback port, ended (SIGTERM) when the test is done."""

    def __init__(self, *args, interval="1"):
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.p = subprocess.Popen([MEMSTAT, "serve", "--listen", "127.0.0.1:%d" % self.port,
                                   "--interval", interval, *args],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while True:
            try:
                self.get("/metrics")
                return
            except OSError:
                if self.p.poll() is not None or time.time() > deadline:
                    self.stop()
                    pytest.fail("memstat serve did not answer: " + self.p.stderr.read())
                time.sleep(0.1)

    def get(self, path, headers=None, method="GET"):
        req = urllib.request.Request(self.url + path, headers=headers or {}, method=method)
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode()

    def metrics(self):
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for f in text_string_to_metric_families(self.get("/metrics")[2]) for s in f.samples}

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        return self.p.returncode


@pytest.fixture
def serve():
    started = []

    def start(*args, **kw):
        s = Serve(*args, **kw)
        started.append(s)
        return s
    yield start
    for s in started:
        s.stop()


def raw(port, data, timeout=10):
    """Send data on a new connection, return the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        while True:
            b = s.recv(65536)
            if not b:
                return out.decode(errors="replace")
            out += b


def walk_total():
    r = subprocess.run([MEMSTAT, "--json"], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["pages"]["total"]


def test_metrics_are_the_last_walk(serve):
    s = serve()
    status, headers, body = s.get("/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain; version=0.0.4")
    m = {}
    for f in text_string_to_metric_families(body):
        for x in f.samples:
            m.setdefault(x.name, []).append(x)
    pages = {x.labels["class"]: x.value for x in m["memstat_pages"]}
    assert sum(v for k, v in pages.items() if k != "total") == pages["total"] == walk_total()
    assert m["memstat_walks_total"][0].value >= 1
    assert abs(m["memstat_last_walk_timestamp_seconds"][0].value - time.time()) < 60
    # / is a page that links /metrics; HEAD has the headers and no body
    assert '<a href="/metrics">' in s.get("/")[2]
    status, headers, body = s.get("/metrics", method="HEAD")
    assert status == 200 and body == "" and int(headers["Content-Length"]) > 1000


def test_forty_scrapes_in_one_interval_cost_no_walk(serve):
    s = serve(interval="5")
    before = s.metrics()[("memstat_walks_total", ())]
    t0 = time.time()
    bodies, errors = [], []

    def scrape():
        try:
            bodies.append(s.get("/metrics")[2])
        except OSError as e:
            errors.append(e)
    threads = [threading.Thread(target=scrape) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.time() - t0
    after = s.metrics()[("memstat_walks_total", ())]
    assert not errors and len(bodies) == 40
    assert took < 5, "40 scrapes took %.1f s" % took
    # the walks are the interval's, however many scrape: one at most in these few seconds
    assert after - before <= 1 + int(took / 5), (before, after, took)


def test_a_slow_client_and_bad_requests_stop_no_one(serve):
    s = serve()
    slow = socket.create_connection(("127.0.0.1", s.port))
    slow.sendall(b"GET /met")          # and then nothing, for a while
    t0 = time.time()
    assert s.get("/metrics")[0] == 200
    assert time.time() - t0 < 3, "a slow client held up another"
    answers = {
        b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n": "405",
        b"GET /nope HTTP/1.1\r\n\r\n": "404",
        b"BREW /pot HTTP/1.1\r\n\r\n": "405",
        b"hello\r\n\r\n": "400",
        b"GET /metrics HTTP/9.9\r\n\r\n": "400",
        b"GET /metrics HTTP/1.1\r\nX: " + b"x" * 9000: "431",
    }
    for req, code in answers.items():
        a = raw(s.port, req)
        assert a.startswith("HTTP/1.1 " + code + " "), (req[:40], a[:200])
        if code == "405":
            assert "\r\nAllow: GET, HEAD\r\n" in a
    assert s.get("/metrics")[0] == 200
    slow.close()
    # more idle clients than there are slots: the oldest idle one makes room for a scrape, and
    # one that sends nothing is let go after the request's 3 s
    idle = [socket.create_connection(("127.0.0.1", s.port)) for _ in range(70)]
    t0 = time.time()
    assert s.get("/metrics")[0] == 200
    assert time.time() - t0 < 3, "idle clients held up a scrape"
    idle[-1].settimeout(6)
    t0 = time.time()
    assert idle[-1].recv(1) == b"", "an idle client was kept"
    assert 2 <= time.time() - t0 < 6
    for c in idle:
        c.close()
    assert s.p.poll() is None, "serve ended on a client's error"


def test_openmetrics_when_asked(serve):
    s = serve()
    status, headers, body = s.get(
        "/metrics", {"Accept": "application/openmetrics-text; version=1.0.0,text/plain;q=0.5"})
    assert headers["Content-Type"].startswith("application/openmetrics-text; version=1.0.0")
    assert body.endswith("# EOF\n") and "# TYPE memstat_walks counter\n" in body
    assert "# TYPE memstat_walks_total counter" in s.get("/metrics")[2]


def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except OSError:
                pass
    return out


def test_http_process_is_nobody_with_nothing_of_roots(serve):
    s = serve()
    kids = children(s.p.pid)
    assert len(kids) == 1, kids
    status = open("/proc/%d/status" % kids[0]).read()
    assert re.search(r"^Uid:\s+65534\s+65534\s+65534\s+65534$", status, re.M), status
    assert re.search(r"^Gid:\s+65534\s+65534\s+65534\s+65534$", status, re.M), status
    assert re.search(r"^CapEff:\s+0+$", status, re.M) and re.search(r"^NoNewPrivs:\s+1$", status, re.M)
    fds = os.listdir("/proc/%d/fd" % kids[0])
    links = [os.readlink("/proc/%d/fd/%s" % (kids[0], fd)) for fd in fds]
    # stdin, stdout, stderr, the listening socket, the pipe; beyond them only clients' sockets
    # (a scrape that is being answered): no BPF object, no file of root's
    assert {0, 1, 2, 3, 4} <= {int(fd) for fd in fds}, links
    assert all(l.startswith("socket:") for fd, l in zip(fds, links) if int(fd) > 4), links
    assert not any("bpf" in l or "anon_inode" in l for l in links), links


def test_sigterm_ends_both_processes(serve):
    s = serve()
    kid = children(s.p.pid)[0]
    assert s.stop() == 0, s.p.stderr.read()
    assert not os.path.exists("/proc/%d" % kid) or \
        open("/proc/%d/stat" % kid).read().rsplit(")", 1)[1].split()[0] == "Z"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", s.port), timeout=2)


def test_by_cgroup_series_are_bounded(serve):
    s = serve("--by", "cgroup", "--top", "3")
    groups = {dict(k[1]).get("group") for k in s.metrics() if k[0] == "memstat_group_pages"}
    assert 1 <= len(groups) <= 3 + 2, groups      # the top 3, (none) and (other)


def test_bad_options_and_a_busy_port():
    for args, text in ((["--listen", "nonsense"], "invalid --listen 'nonsense'"),
                       (["--listen", "127.0.0.1:70000"], "invalid --listen"),
                       (["--interval", "0.5"], "invalid --interval"),
                       (["-j"], "serve takes"), (["30"], "unexpected argument '30'"),
                       (["--by", "process"], "serve takes")):
        r = subprocess.run([MEMSTAT, "serve", *args], capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and text in r.stderr, (args, r.stderr)
        assert len(r.stderr.splitlines()) <= 2, r.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        r = subprocess.run([MEMSTAT, "serve", "--listen", "127.0.0.1:%d" % port],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 1 and "cannot listen on 127.0.0.1:%d" % port in r.stderr, r.stderr
    r = subprocess.run([MEMSTAT, "--listen", ":1"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "memstat serve's" in r.stderr


def prom_query(port, q):
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (port, urllib.parse.urlencode({"query": q}))
    with urllib.request.urlopen(url, timeout=10) as r:
        d = json.load(r)
    assert d["status"] == "success", d
    return d["data"]["result"]


def test_a_real_prometheus_scrapes_it_for_the_dashboard(serve, tmp_path):
    """Debian's Prometheus scrapes two memstat serve (exact, and --approx for the dashboard's
    error panel): the classes add up to the walk's total, and every query of
    contrib/grafana/memstat.json returns a series."""
    assert os.path.exists(PROMETHEUS), "Debian's prometheus is a test package (tools/setup.sh)"
    exact, approx = serve("--by", "pod"), serve("--approx")
    port = free_port()
    (tmp_path / "prometheus.yml").write_text(
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        "scrape_configs: [{job_name: memstat, static_configs: [{targets: [\"127.0.0.1:%d\", "
        "\"127.0.0.1:%d\"]}]}]\n" % (exact.port, approx.port))
    p = subprocess.Popen([PROMETHEUS, "--config.file=%s" % (tmp_path / "prometheus.yml"),
                          "--storage.tsdb.path=%s" % (tmp_path / "data"),
                          "--web.listen-address=127.0.0.1:%d" % port],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 90
        while True:
            try:
                if len(prom_query(port, 'up{job="memstat"} == 1')) == 2 and \
                        len(prom_query(port, "memstat_error_pages")) > 0:
                    break
            except OSError:
                pass
            assert p.poll() is None, p.stderr.read()
            assert time.time() < deadline, "Prometheus did not scrape both in 90 s"
            time.sleep(1)
        inst = 'instance="127.0.0.1:%d"' % exact.port
        parts = prom_query(port, 'sum(memstat_pages{%s,class!="total"})' % inst)
        total = prom_query(port, 'memstat_pages{%s,class="total"}' % inst)
        assert float(parts[0]["value"][1]) == float(total[0]["value"][1]) == walk_total()
        dash = json.load(open(os.path.join(ROOT, "contrib", "grafana", "memstat.json")))
        empty = []
        for panel in dash["panels"]:
            for t in panel.get("targets", []):
                q = t["expr"].replace("$instance", ".*")
                if not prom_query(port, q):
                    empty.append((panel["title"], q))
        assert not empty, empty
        with urllib.request.urlopen("http://127.0.0.1:%d/api/v1/label/instance/values?%s" % (
                port, urllib.parse.urlencode({"match[]": "memstat_info"})), timeout=10) as r:
            assert len(json.load(r)["data"]) == 2      # the dashboard's $instance variable
    finally:
        p.terminate()
        p.wait(timeout=30)


def test_the_daemonsets_container_serves_pods():
    """contrib/kubernetes: the DaemonSet's args (and the image's CMD, the same command) are a
    memstat serve that answers with --by pod's series; listened to on loopback here, not on
    every address as in the pod's own network namespace."""
    import yaml
    kube = os.path.join(ROOT, "contrib", "kubernetes")
    ds = yaml.safe_load(open(os.path.join(kube, "memstat-daemonset.yaml")))
    assert ds["kind"] == "DaemonSet"
    spec = ds["spec"]["template"]["spec"]
    ctr = spec["containers"][0]
    args = ctr["args"]
    assert args[0] == "serve" and args[args.index("--listen") + 1] == ":9636"
    assert ctr["ports"][0]["containerPort"] == 9636
    mounts = {m["mountPath"]: m for m in ctr["volumeMounts"]}
    assert mounts["/sys/fs/cgroup"]["readOnly"] and mounts["/run/containerd"]["readOnly"]
    cmd = entry = None
    for line in open(os.path.join(kube, "Containerfile")):
        if line.startswith("CMD "):
            cmd = json.loads(line[4:])
        elif line.startswith("ENTRYPOINT "):
            entry = json.loads(line[11:])
    assert entry == ["/usr/bin/memstat"]
    assert [a for a in cmd if a not in ("--interval",)] == \
        [a for i, a in enumerate(args) if a != "--interval" and args[i - 1] != "--interval"]

    port = free_port()
    run = list(args)
    run[run.index("--listen") + 1] = "127.0.0.1:%d" % port
    p = subprocess.Popen([MEMSTAT, *run], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port,
                                            timeout=10) as r:
                    text = r.read().decode()
                break
            except OSError:
                assert p.poll() is None, p.stderr.read()
                assert time.time() < deadline, "no answer in 60 s"
                time.sleep(0.2)
        pods = [s for f in text_string_to_metric_families(text) for s in f.samples
                if s.name == "memstat_group_pages" and s.labels.get("by") == "pod"]
        assert pods, text[:2000]
        # every series has the pod labels, "" where a group is no pod's
        for s in pods:
            assert {"qos", "pod_uid", "container_id", "namespace", "pod",
                    "container"} <= set(s.labels), s
        total = sum(s.value for s in pods if s.labels["class"] == "total")
        walk = [s.value for f in text_string_to_metric_families(text) for s in f.samples
                if s.name == "memstat_pages" and s.labels.get("class") == "total"]
        assert total == walk[0], "the groups add up to the walk"
    finally:
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=30) == 0, p.stderr.read()


def test_several_keys_from_one_walk(serve):
    """--by given three times: each key's groups add up to the same walk's total, every
    family's HELP and TYPE come once, and -a's attribute series follow for every key."""
    s = serve("--by", "cgroup", "--by", "node", "--by", "pod", "-a")
    text = s.get("/metrics")[2]
    for fam in ("memstat_group_pages", "memstat_group_dma_pinned_pages",
                "memstat_group_attribute_pages"):
        assert text.count("# TYPE %s gauge\n" % fam) == 1, fam
        assert text.count("# HELP %s " % fam) == 1, fam
    samples = [x for f in text_string_to_metric_families(text) for x in f.samples]
    walk = [x.value for x in samples if x.name == "memstat_pages" and
            x.labels.get("class") == "total"][0]
    walks = [x.value for x in samples if x.name == "memstat_walks_total"][0]
    for by in ("cgroup", "node", "pod"):
        total = sum(x.value for x in samples if x.name == "memstat_group_pages" and
                    x.labels["by"] == by and x.labels["class"] == "total")
        assert total == walk, by
        assert any(x.name == "memstat_group_dma_pinned_pages" and x.labels["by"] == by
                   for x in samples), by
    assert walks >= 1


def test_nginx_in_front_gives_tls_and_basic_auth(serve, tmp_path):
    """contrib/nginx/memstat-serve.conf, its paths and ports pointed at this test's: over TLS,
    no scrape without the password, a scrape with it is memstat serve's; other paths 404."""
    import ssl
    s = serve()
    port = free_port()
    # nginx's workers (nobody, as nginx -c runs them here) read the password file: a
    # directory of its own they may pass (pytest's are root's alone)
    import tempfile
    pwdir = tempfile.mkdtemp(prefix="memstat-nginx-")
    os.chmod(pwdir, 0o711)
    crt, key, pw = tmp_path / "tls.crt", tmp_path / "tls.key", Path(pwdir) / "htpasswd"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(crt)], check=True, capture_output=True)
    hashed = subprocess.run(["openssl", "passwd", "-apr1", "s3cret"], check=True,
                            capture_output=True, text=True).stdout.strip()
    pw.write_text("prometheus:%s\n" % hashed)
    os.chmod(pw, 0o644)
    conf = open(os.path.join(ROOT, "contrib", "nginx", "memstat-serve.conf")).read()
    conf = (conf.replace("/etc/memstat/tls.crt", str(crt))
            .replace("/etc/memstat/tls.key", str(key))
            .replace("/etc/memstat/htpasswd", str(pw))
            .replace("listen 9637 ssl;", "listen 127.0.0.1:%d ssl;" % port)
            .replace("listen [::]:9637 ssl;\n", "")
            .replace("127.0.0.1:9636", "127.0.0.1:%d" % s.port))
    main = tmp_path / "nginx.conf"
    main.write_text("daemon off;\npid %s/nginx.pid;\nerror_log %s/error.log;\n"
                    "events {}\nhttp {\naccess_log off;\nclient_body_temp_path %s;\n"
                    "proxy_temp_path %s;\n%s}\n" % (tmp_path, tmp_path, tmp_path, tmp_path,
                                                     conf))
    p = subprocess.Popen(["/usr/sbin/nginx", "-c", str(main), "-p", str(tmp_path)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ctx = ssl.create_default_context(cafile=str(crt))
    url = "https://127.0.0.1:%d" % port

    def get(path, auth=None):
        h = {"Authorization": "Basic " + auth} if auth else {}
        req = urllib.request.Request(url + path, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=10, context=ctx) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, ""

    try:
        deadline = time.time() + 30
        while True:
            try:
                status, _ = get("/metrics")
                break
            except OSError:
                assert p.poll() is None, p.stderr.read()
                assert time.time() < deadline, "nginx did not answer"
                time.sleep(0.1)
        import base64
        good = base64.b64encode(b"prometheus:s3cret").decode()
        bad = base64.b64encode(b"prometheus:guess").decode()
        assert status == 401
        assert get("/metrics", bad)[0] == 401
        status, body = get("/metrics", good)
        assert status == 200 and "memstat_walks_total" in body
        assert get("/", good)[0] == 404
        with pytest.raises(urllib.error.URLError):    # no plain HTTP on the TLS port
            urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read()
    finally:
        p.terminate()
        p.wait(timeout=30)
        shutil.rmtree(pwdir)
