#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run libFuzzer targets of tests/fuzz (built by `make fuzz-bins`), each for SECONDS, from its
# committed seed corpus tests/fuzz/corpus/TARGET. One line per target, then "N passed, N failed".
# Usage: tests/fuzz/run.sh BUILD SECONDS [TARGET...]   (default: every target with a corpus)
#
# The seed is fixed, so a run repeats the same inputs for as long as it lasts; new inputs go to
# BUILD/fuzz/work/TARGET (emptied first), never into the tree. A crash, a sanitizer report or a
# broken invariant fails the target: its input is kept as BUILD/fuzz/artifacts/TARGET-crash-*,
# and the line says how to run it again. Add it to the corpus once the defect is fixed.
set -u
build=$1
secs=$2
shift 2
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for d in tests/fuzz/corpus/*/; do
		targets+=("$(basename "$d")")
	done
fi
dir=$build/fuzz
pass=0
fail=0
mkdir -p "$dir/artifacts" "$dir/work"
for t in "${targets[@]}"; do
	bin=$dir/fuzz_$t
	if [ ! -x "$bin" ]; then
		echo "FAIL fuzz $t: $bin is not built (make BUILD=$build fuzz-bins)"
		fail=$((fail + 1))
		continue
	fi
	work=$dir/work/$t
	log=$dir/$t.log
	rm -rf "$work"
	mkdir -p "$work"
	rm -f "$dir/artifacts/$t-"*
	# -close_fd_mask=3: the parsers' own messages (usage errors) go nowhere; libFuzzer's and
	# the sanitizers' reports still reach the log
	"$bin" -seed=1 -max_total_time="$secs" -timeout=10 -close_fd_mask=3 \
		-artifact_prefix="$dir/artifacts/$t-" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^Done \([0-9]*\) runs .*/\1/p' "$log")
	if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
		echo "ok   fuzz $t: $runs inputs in ${secs} s, no crash, every invariant held"
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL fuzz $t: exit $rc (log: $log)"
		grep -E 'invariant failed|ERROR: |runtime error|SUMMARY|Test unit written' "$log" |
			head -n 8 | sed 's/^/     /'
		for a in "$dir/artifacts/$t-"*; do
			[ -e "$a" ] && echo "     run it again: $bin $a"
		done
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
