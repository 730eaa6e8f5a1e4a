#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The user-space suites (unit, cli, pytest) once more, against memstat and the tests built with
# ASan+UBSan (`make san-bins`: SANITIZE=1, dynamically linked, in BUILD/san). Every report of a
# sanitizer, in any process a suite starts (memstat run by the cli and pytest suites included),
# goes to a log file; a suite with a report fails, whatever its own result.
# Ends with one "N passed, N failed, N skipped" line.
# Usage: tests/fuzz/sanitize.sh SAN_BUILD   (as root, like the suites themselves)
set -u
san=$1
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
py=${PYTHON:-/usr/bin/python3}
passed=0
failed=0
skipped=0
logs=$(cd "$san" 2>/dev/null && pwd)/sanitizer-logs	# absolute: the suites change directory
rm -rf "$logs"
mkdir -p "$logs"
chmod 1777 "$logs"	# the cli suite runs memstat as nobody too

# detect_leaks: LeakSanitizer at exit; log_path: reports to files, not into the output that
# the suites compare; exitcode 99: no exit code memstat documents
export ASAN_OPTIONS="detect_leaks=1:exitcode=99:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=99:log_path=$logs/ubsan"
export LSAN_OPTIONS="exitcode=99"

reports() {	# SUITE: fail it when a sanitizer wrote a report while it ran
	local f n=0
	for f in "$logs"/asan.* "$logs"/ubsan.*; do
		[ -e "$f" ] || continue
		n=$((n + 1))
		echo "FAIL $1: sanitizer report $f:"
		grep -E 'ERROR|SUMMARY|runtime error|#[0-4] ' "$f" | head -n 12 | sed 's/^/     /'
		mv "$f" "$f.$1"
	done
	failed=$((failed + n))
}

for bin in unit_tests memstat nobpf; do
	if [ ! -x "$san/$bin" ]; then
		echo "FAIL sanitizers: $san/$bin is not built (make san-bins)"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
done

echo "--- unit (ASan+UBSan)"
rm -f "$san/unit.json"
"$san/unit_tests" --gtest_brief=1 --gtest_output="json:$san/unit.json"
rc=$?
if [ -f "$san/unit.json" ]; then
	read -r t f sk < <("$py" tests/tools/report_counts.py "$san/unit.json")
	passed=$((passed + t - f - sk))
	failed=$((failed + f))
	skipped=$((skipped + sk))
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || failed=$((failed + 1))
else
	echo "FAIL unit: no report (exit $rc)"
	failed=$((failed + 1))
fi
reports unit

echo "--- cli (ASan+UBSan)"
out=$(bash tests/cli_test.sh "$san/memstat" "$san/nobpf")
rc=$?
grep -v '^ok ' <<<"$out"
if [[ $(tail -n 1 <<<"$out") =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
	passed=$((passed + BASH_REMATCH[1]))
	failed=$((failed + BASH_REMATCH[2]))
	[ "$rc" -eq 0 ] || [ "${BASH_REMATCH[2]}" -gt 0 ] || failed=$((failed + 1))
else
	failed=$((failed + 1))
fi
reports cli

echo "--- pytest (ASan+UBSan)"
rm -f "$san/pytest.xml"
MEMSTAT="$san/memstat" "$py" -m pytest -q -rs tests/sampling_test.py tests/picture_test.py \
	tests/grafana_test.py tests/formats_test.py tests/compare_test.py tests/serve_test.py tests/core_test.py \
	--junitxml="$san/pytest.xml"
rc=$?
if [ -f "$san/pytest.xml" ]; then
	read -r t f sk < <("$py" tests/tools/report_counts.py "$san/pytest.xml")
	passed=$((passed + t - f - sk))
	failed=$((failed + f))
	skipped=$((skipped + sk))
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || failed=$((failed + 1))
else
	echo "FAIL pytest: no report (exit $rc)"
	failed=$((failed + 1))
fi
reports pytest

echo "sanitizers: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
