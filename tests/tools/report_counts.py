#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""One line "TESTS FAILED SKIPPED" from a test report, for tests/run.sh and tests/fuzz/sanitize.sh.

Usage: report_counts.py REPORT
  REPORT.json: googletest's --gtest_output=json (failures and errors; a skip is not a pass)
  REPORT.xml:  pytest's --junitxml (failures and errors, skipped)
"""
import json
import sys
import xml.etree.ElementTree as E


def counts(path):
    if path.endswith(".json"):
        d = json.load(open(path))
        sk = sum(1 for s in d["testsuites"] for c in s["testsuite"]
                 if c.get("result") == "SKIPPED")
        return d["tests"], d["failures"] + d.get("errors", 0), sk
    r = E.parse(path).getroot()
    s = r if r.tag == "testsuite" else r.find("testsuite")
    return (int(s.get("tests")), int(s.get("failures")) + int(s.get("errors")),
            int(s.get("skipped", 0)))


if __name__ == "__main__":
    print(*counts(sys.argv[1]))
