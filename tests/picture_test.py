# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""memstat map, memstat plot and rmss --plot drawn for real: each SVG is valid XML (xmllint)
and renders (rsvg-convert, the renderer memstat runs for -o FILE.png) to a PNG that is not blank and shows
the classes' colours; plot works on a rotated log (a header again), across a restart (a gap) and
a clock set back.

Run as root (map walks memory): MEMSTAT=build/memstat python3 -m pytest tests/picture_test.py
"""
import math
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zlib

import pytest

MEMSTAT = os.environ.get("MEMSTAT", "build/memstat-test")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# src/out/svg.c ms_class_colours[]
COLOURS = {
    "kernel": (0xd6, 0x27, 0x28),
    "anon": (0x1f, 0x77, 0xb4),
    "page_cache": (0x2c, 0xa0, 0x2c),
    "free": (0xd9, 0xd9, 0xd9),
}


RSVG = "/usr/bin/rsvg-convert"     # src/out/picture.h MS_RSVG_CONVERT


def rsvg():
    if not os.access(RSVG, os.X_OK):
        pytest.fail(f"{RSVG} is missing: install librsvg2-bin (bash tools/setup.sh test)")
    return RSVG


def xmllint(path):
    if not shutil.which("xmllint"):
        pytest.fail("xmllint is missing: install libxml2-utils (bash tools/setup.sh test)")
    r = subprocess.run(["xmllint", "--noout", path], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def read_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def svg_size(path):
    m = re.search(r'<svg [^>]*width="(\d+)" height="(\d+)"', open(path).read())
    return int(m.group(1)), int(m.group(2))


def check_png(path, want_size, classes):
    """Rendered, of the picture's size, not blank, with each class's colour."""
    w, h, rows = read_png(path)
    assert (w, h) == want_size or (w >= want_size[0] and h >= want_size[1]), (w, h, want_size)
    counts = {}
    for row in rows[::2]:
        for px in row[::2]:
            counts[px] = counts.get(px, 0) + 1
    total = sum(counts.values())
    white = counts.get((255, 255, 255), 0)
    assert white < 0.97 * total, f"the PNG is {100 * white / total:.0f}% white: blank"
    assert len(counts) > 8, f"only {len(counts)} colours: blank"
    for c in classes:
        n = counts.get(COLOURS[c], 0)
        assert n > 0.001 * total, f"no {c} ({COLOURS[c]}) in the PNG: {n} of {total} pixels"


def render(svg, png, size):
    """The SVG as rsvg-convert renders it, the way the pictures of docs/ are made."""
    r = subprocess.run([rsvg(), "--format", "png", "--width", str(size[0]), "--height",
                        str(size[1]), "--background-color", "white", "-o", png, svg],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and os.path.exists(png), r.stderr[-2000:]


def memstat(*args, ok=True):
    r = subprocess.run([MEMSTAT, *args], capture_output=True, text=True, timeout=300)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def mem_total_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    pytest.fail("no MemTotal in /proc/meminfo")


@pytest.fixture(scope="module", autouse=True)
def page_cache():
    """A file of 5% of MemTotal in the page cache while this module runs, on a disk file system
    (/tmp may be tmpfs, whose pages are Shmem): the pictures' page cache is then visible however
    little the machine holds (after a test of the integration suite dropped the page cache, the
    plot's page cache band was 147 of 186000 sampled pixels, the map's 81)."""
    with tempfile.NamedTemporaryFile(dir="/var/tmp", prefix="memstat-picture-") as f:
        chunk = b"c" * (1 << 20)
        for _ in range(mem_total_bytes() // 20 // len(chunk)):
            f.write(chunk)
        f.flush()
        yield


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    """A real CSV log of four samples, taken while this process holds 5% of MemTotal in touched
    anon memory: the plot's anon band is then visible whatever else runs (with only the few MB
    of anon of a quiet CI host, the band was 143 of 186000 sampled pixels)."""
    d = tmp_path_factory.mktemp("log")
    path = str(d / "memstat.csv")
    hold = b"\x01" * (mem_total_bytes() // 20)
    memstat("-o", path, "0.2", "4")
    del hold
    return path


def test_map_svg_valid_and_renders(tmp_path):
    svg, png = str(tmp_path / "map.svg"), str(tmp_path / "shot.png")
    memstat("map", "-o", svg)
    xmllint(svg)
    text = open(svg).read()
    assert "node 0" in text and "Free " in text and "1 cell = " in text
    render(svg, png, svg_size(svg))
    check_png(png, svg_size(svg), ["kernel", "free", "page_cache"])


def test_map_png_direct(tmp_path):
    """-o FILE.png: memstat renders it itself (rsvg-convert as nobody, into a descriptor: the
    directory, root's 0700 tmp_path, is one nobody cannot write), and replaces an existing PNG
    whole; a file that is not a PNG is left alone."""
    rsvg()
    os.chmod(tmp_path, 0o700)
    png = str(tmp_path / "map.png")
    open(png, "w").write("old")
    r = memstat("map", "-o", png, ok=False)
    assert r.returncode == 2 and "it is not a PNG" in r.stderr, r.stderr
    assert open(png).read() == "old"
    os.unlink(png)
    memstat("map", "-o", png)
    first = os.stat(png)
    memstat("map", "-o", png)
    assert os.stat(png).st_ino != first.st_ino, "replaced by a new file, not rewritten"
    w, h, _ = read_png(png)
    assert w > 1000 and h > 300
    check_png(png, (w, h), ["kernel", "free"])
    assert [f for f in os.listdir(tmp_path) if f.startswith(".memstat-")] == []


def test_plot_svg_valid_and_renders(tmp_path, log):
    svg, png = str(tmp_path / "plot.svg"), str(tmp_path / "shot.png")
    memstat("plot", log, "-o", svg)
    xmllint(svg)
    text = open(svg).read()
    assert "4 samples" in text and ">MB</text>" in text
    render(svg, png, svg_size(svg))
    check_png(png, svg_size(svg), ["kernel", "free", "page_cache", "anon"])


def test_plot_of_the_docs_wss_log(tmp_path):
    """docs/memstat-wss.csv, the real --wss log of make wss-picture, still reads and draws: its
    14 windows, the resident and working-set lines with the last window's values (the third
    process's 256 MiB all written, the file's 128 MiB read: 385 MB of 566 resident)."""
    svg, png = str(tmp_path / "wss.svg"), str(tmp_path / "wss.png")
    memstat("plot", os.path.join(ROOT, "docs", "memstat-wss.csv"), "-o", svg)
    xmllint(svg)
    text = open(svg).read()
    assert "14 samples" in text
    assert "Resident  (last: 566 MB)" in text and "Working set  (last: 385 MB)" in text
    render(svg, png, svg_size(svg))
    check_png(png, svg_size(svg), ["kernel", "free", "page_cache", "anon"])


def colour_pixels(png, rgb):
    _, _, rows = read_png(png)
    return sum(row.count(rgb) for row in rows)


def test_plot_hide_free_lets_the_small_classes_fill_the_picture(tmp_path, log):
    # Free is most of a quiet machine: with it drawn, anon is a sliver; --hide free scales the
    # stack to the rest, and the picture says what it left out
    whole, hidden = str(tmp_path / "whole.svg"), str(tmp_path / "hidden.svg")
    memstat("plot", log, "-o", whole)
    memstat("plot", "--hide", "free", log, "-o", hidden)
    xmllint(hidden)
    text = open(hidden).read()
    assert "not drawn: Free" in text and "Free  (last:" not in text
    pngs = []
    for svg in (whole, hidden):
        pngs.append(svg[:-3] + "png")
        render(svg, pngs[-1], svg_size(svg))
    anon = [colour_pixels(p, COLOURS["anon"]) for p in pngs]
    # hiding Free stretches the rest by total / (total - free), as the log says (a machine's
    # free share is its own: 90% on a quiet one, less on one busy with page cache)
    import csv
    with open(log) as f:
        rows = list(csv.DictReader(f))
    stretch = sum(int(r["total"]) / (int(r["total"]) - int(r["free"])) for r in rows) / len(rows)
    assert anon[1] > 0.8 * stretch * anon[0] and anon[1] > anon[0], (anon, stretch)
    assert colour_pixels(pngs[1], COLOURS["free"]) < colour_pixels(pngs[0], COLOURS["free"]) / 10
    only = str(tmp_path / "only.svg")
    memstat("plot", "--only", "anon", log, "-o", only)
    legend = re.findall(r">([A-Za-z ]+)  \(last: ", open(only).read())
    assert legend == ["Anon"], legend
    for bad in (["--hide", "bogus"], ["--hide", "kernel,anon,shmem,exec,page_cache,hugetlb,free,unknown"],
                ["--hide", "free", "--only", "anon"]):
        r = memstat("plot", *bad, log, "-o", str(tmp_path / "bad.svg"), ok=False)
        assert r.returncode == 2 and len(r.stderr.splitlines()) <= 2, (bad, r.stderr)
    assert not os.path.exists(tmp_path / "bad.svg")


def test_plot_log_scale_draws_each_class_as_a_line(tmp_path, log):
    # --log: each class that was ever above 0 a line of its own colour, on a y axis whose ticks
    # are powers of ten; anon, a sliver of the stack, gets a line as visible as Free's
    svg, png = str(tmp_path / "log.svg"), str(tmp_path / "log.png")
    memstat("plot", "--log", log, "-o", svg)
    xmllint(svg)
    text = open(svg).read()
    assert "each a line on a log scale" in text
    ticks = re.findall(r'<text [^>]*text-anchor="end"[^>]*>([0-9.]+)</text>', text)
    assert len(ticks) >= 2, ticks
    for t in ticks:
        assert math.isclose(10 ** round(math.log10(float(t))), float(t)), ticks
    legend = re.findall(r">([A-Za-z ]+)  \(last: ", text)
    assert len(re.findall(r"<polyline ", text)) == len(legend), legend
    # anon's line (5% of memory, a sliver of the stack) stands well above the axis's foot, and
    # Free's (most of memory) above it: the log scale keeps both in view
    lines = {}
    for pts, stroke in re.findall(r'<polyline points="([^"]*)"[^>]*stroke="(#[0-9a-fA-F]{6})"', text):
        lines[tuple(int(stroke[i:i + 2], 16) for i in (1, 3, 5))] = [
            float(p.split(",")[1]) for p in pts.split()]
    ticks_y = [float(y) for y in re.findall(
        r'<text x="[0-9.]+" y="([0-9.]+)"[^>]*text-anchor="end"[^>]*>[0-9.]+</text>', text)]
    foot, top = max(ticks_y), min(ticks_y)
    anon, free = lines[COLOURS["anon"]], lines[COLOURS["free"]]
    assert all(top - 20 <= y < foot - 0.2 * (foot - top) for y in anon), (anon, foot, top)
    assert max(free) < min(anon), (free, anon)
    render(svg, png, svg_size(svg))
    assert colour_pixels(png, COLOURS["anon"]) > 0


def test_plot_rotated_log_and_reboot(tmp_path, log):
    """Two files of a rotation, a header again inside one (a restart with the log appended),
    samples 2 h later (a reboot), then a clock set back an hour: one picture, two breaks."""
    lines = open(log).read().splitlines()
    header, rows = lines[0], lines[1:]
    # the real samples on a timeline of a sample a minute (the log's own cadence varies when a
    # walk outlasts its 0.2 s interval)
    t0 = float(rows[0].split(",")[1])

    def at(start):
        out = []
        for i, r in enumerate(rows):
            f = r.split(",")
            f[1] = f"{t0 + start + 60 * i:.3f}"
            out.append(",".join(f))
        return out

    n = len(rows)
    old, new = str(tmp_path / "memstat.csv.1"), str(tmp_path / "memstat.csv")
    open(old, "w").write("\n".join([header] + at(0) + [header] + at(60 * n)) + "\n")
    open(new, "w").write("\n".join([header] + at(7200) + at(3600)) + "\n")
    svg, png = str(tmp_path / "day.svg"), str(tmp_path / "day.png")
    r = memstat("plot", old, new, "-o", svg)
    assert r.stderr == "", r.stderr
    xmllint(svg)
    text = open(svg).read()
    assert f"{4 * len(rows)} samples" in text
    assert text.count("stroke-dasharray") == 2, "a break at the reboot and one at the clock"
    assert ">gap</text>" in text and ">time went back</text>" in text
    memstat("plot", old, new, "-o", png)
    check_png(png, svg_size(svg), ["kernel", "free", "page_cache"])


def test_plot_jsonl(tmp_path):
    path = str(tmp_path / "m.jsonl")
    memstat("-f", "jsonl", "-o", path, "0.2", "3")
    svg = str(tmp_path / "j.svg")
    memstat("plot", path, "-o", svg)
    xmllint(svg)
    assert "3 samples" in open(svg).read()


def test_plot_torn_last_line(tmp_path, log):
    """A crash can lose the end of the last line: it is skipped and said, the rest drawn."""
    torn = str(tmp_path / "torn.csv")
    text = open(log).read()
    open(torn, "w").write(text + text.splitlines()[-1][:40])
    svg = str(tmp_path / "t.svg")
    r = memstat("plot", torn, "-o", svg)
    assert re.fullmatch(r"memstat: plot: skipped 1 line\(s\) that are not samples, the first "
                        r"at \S+torn.csv:6\n", r.stderr), r.stderr
    assert "4 samples" in open(svg).read()


def test_rmss_plot_svg_and_png(tmp_path):
    """memstat rmss --plot goes through the same picture writer: FILE.svg valid, with its two
    lines; FILE.png rendered by rsvg-convert, of the plot's size, with the lines' colours."""
    rsvg()
    lines = {"#1f77b4": (0x1f, 0x77, 0xb4), "#d62728": (0xd6, 0x27, 0x28)}
    for name in ("p.svg", "p.png"):
        out = str(tmp_path / name)
        memstat("rmss", "--cgroup", "-s", "96", "-f", "64", "-d", "32", "-n", "1", "-o",
                str(tmp_path / "r.out"), "--plot", out, "true")
        if name.endswith(".svg"):
            xmllint(out)
            text = open(out).read()
            assert svg_size(out) == (760, 460)
            for colour in lines:
                assert re.search(r'<polyline[^>]*stroke="%s"' % colour, text), colour
        else:
            w, h, rows = read_png(out)
            assert (w, h) == (760, 460)
            seen = {px for row in rows for px in row}
            for colour, rgb in lines.items():
                assert rgb in seen, f"no {colour} line in the PNG"
    assert sorted(os.listdir(tmp_path)) == ["p.png", "p.svg", "r.out"], "no temporary file left"
