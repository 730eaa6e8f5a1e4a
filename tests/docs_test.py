# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The documentation a user reads: the README stays a first screen (at most 300 lines) and every
link of the README and of docs/ leads somewhere (a file of the repository, and a heading or an
anchor of it); no file of the repository points outside it."""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def slug(title):
    """A heading's anchor as GitHub makes it."""
    s = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return s.replace(" ", "-")


def anchors(path):
    found, fence = set(), False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
            if not fence and re.match(r"#{1,6} ", line):
                found.add(slug(line.split(" ", 1)[1].rstrip("\n")))
            found.update(re.findall(r'<a id="([^"]+)"', line))
    return found


def markdown_files():
    docs = os.path.join(ROOT, "docs")
    return [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))


def test_readme_is_a_first_screen():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        n = sum(1 for _ in f)
    assert n <= 300, "README.md has %d lines: the reference belongs in docs/" % n


def test_every_link_leads_somewhere():
    bad = []
    for md in markdown_files():
        with open(md, encoding="utf-8") as f:
            text = f.read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            rel = os.path.relpath(md, ROOT)
            if not os.path.exists(dest):
                bad.append("%s: %s (no such file)" % (rel, target))
            elif not dest.startswith(ROOT + os.sep):
                bad.append("%s: %s (outside the repository)" % (rel, target))
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                bad.append("%s: %s (no such heading)" % (rel, target))
    assert not bad, "\n".join(bad)


def test_nothing_points_outside_the_repository():
    files = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    bad = []
    for rel in files:
        if rel.startswith("tests/fuzz/corpus/") or rel.endswith((".png", ".svg")):
            continue
        try:
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        if re.search(r"\.\./shared\b|/work/(main|shared)\b", text):
            bad.append(rel)
    assert not bad, "files that point outside the repository: %s" % ", ".join(bad)
