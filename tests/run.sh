#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run every test suite, keep going past a failing one, end with one "N passed, N failed" line.
# Usage: tests/run.sh BUILD_DIR
set -u
build=$1
passed=0
failed=0
skipped=0
failed_suites=()

# each suite's wall-clock seconds, printed at the end (what CI's time goes to)
stage_t0=
stage_log=()
stage() {	# TITLE: a suite begins, the one before it ends
	local now
	now=$(date +%s)
	[ -z "$stage_t0" ] || stage_log+=("${stage_log_name}=$((now - stage_t0))s")
	stage_t0=$now
	stage_log_name=${1%% *}
	stage_log_name=${stage_log_name%,}
	[ "$1" = end ] || echo "=== $1"
}

gtest() {	# NAME BINARY: count from gtest's JSON report
	local name=$1 bin=$2 report="$build/$1.json"
	stage "$name"
	rm -f "$report"
	MEMSTAT="$build/memstat-test" "$bin" --gtest_output="json:$report"
	local rc=$?
	if [ -f "$report" ]; then
		# gtest's report: tests, failures, and each test's result (a skip is not a pass)
		read -r t f sk < <("${PYTHON:-/usr/bin/python3}" tests/tools/report_counts.py "$report")
		passed=$((passed + t - f - sk))
		failed=$((failed + f))
		skipped=$((skipped + sk))
	fi
	if [ $rc -ne 0 ]; then
		failed_suites+=("$name")
		[ -f "$report" ] || failed=$((failed + 1))
	fi
}

gtest unit "$build/unit_tests"
gtest integration "$build/integration_tests"

# Debian's python3, which has python3-pytest and python3-prometheus-client (tools/setup.sh)
py=${PYTHON:-/usr/bin/python3}
stage "sampling, allpages, pictures and the Grafana dashboard (pytest)"
rm -f "$build/pytest.xml"
MEMSTAT="$build/memstat-test" "$py" -m pytest -q -rs tests/sampling_test.py tests/picture_test.py \
	tests/grafana_test.py tests/formats_test.py tests/docs_test.py tests/layout_test.py tests/compare_test.py tests/serve_test.py \
	--junitxml="$build/pytest.xml"
rc=$?
if [ -f "$build/pytest.xml" ]; then
	read -r t f sk < <("$py" tests/tools/report_counts.py "$build/pytest.xml")
	passed=$((passed + t - f - sk))
	failed=$((failed + f))
	skipped=$((skipped + sk))
else
	failed=$((failed + 1))
fi
[ $rc -eq 0 ] || failed_suites+=(pytest)

# memstat rmss: cgroup mode on a known working set, -c/-p/-r, Ctrl-C, bad input (pytest)
stage "rmss (pytest)"
rm -f "$build/rmss.xml"
if MAKEFLAGS= make --no-print-directory -s BUILD="$build" "$build/wsread"; then
	MEMSTAT="$build/memstat-test" WSREAD="$build/wsread" "$py" -m pytest -q -rs tests/rmss_test.py \
		--junitxml="$build/rmss.xml"
	rc=$?
else
	rc=1
fi
if [ -f "$build/rmss.xml" ]; then
	read -r t f sk < <("$py" tests/tools/report_counts.py "$build/rmss.xml")
	passed=$((passed + t - f - sk))
	failed=$((failed + f))
	skipped=$((skipped + sk))
else
	failed=$((failed + 1))
fi
[ $rc -eq 0 ] || failed_suites+=(rmss)

stage "cli"
out=$(bash tests/cli_test.sh "$build/memstat-test" "$build/nobpf" "$build/memstat")
rc=$?
echo "$out"
line=$(tail -n 1 <<<"$out")
if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
	passed=$((passed + BASH_REMATCH[1]))
	failed=$((failed + BASH_REMATCH[2]))
else
	failed=$((failed + 1))
fi
[ $rc -eq 0 ] || failed_suites+=(cli)

# add the "N passed, N failed[, N skipped]" of a suite's last line (in FILE) to the totals
add_counts() {	# NAME FILE RC
	local line
	line=$(tail -n 1 "$2")
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
		skipped=$((skipped + ${BASH_REMATCH[4]:-0}))
		[ "$3" -eq 0 ] || [ "${BASH_REMATCH[2]}" -gt 0 ] || failed=$((failed + 1))
	else
		failed=$((failed + 1))
	fi
	[ "$3" -eq 0 ] || failed_suites+=("$1")
}

# the man page, the bash and zsh completions, make install/uninstall into a temporary DESTDIR
stage "man page, completion, install (tests/pkg_test.sh)"
bash tests/pkg_test.sh "$build" | tee "$build/pkg.out"
add_counts pkg "$build/pkg.out" "${PIPESTATUS[0]}"

# the Debian packages: dpkg-buildpackage, lintian, installed in a Debian 12 chroot; memstat-dkms
# built by DKMS for a VM kernel and loaded in that VM (MEMSTAT_VM=0 leaves the VM part out)
stage "Debian packages (tests/deb_test.sh)"
bash tests/deb_test.sh "$build" | tee "$build/deb.out"
add_counts deb "$build/deb.out" "${PIPESTATUS[0]}"

# the parsers of outside input under libFuzzer (tests/fuzz): a short run of each target, one
# test each, MEMSTAT_FUZZ_SECONDS a target (default 4; `make fuzz` runs longer)
fuzz_secs=${MEMSTAT_FUZZ_SECONDS:-4}
stage "fuzz (libFuzzer, $fuzz_secs s a target)"
if [ "${MEMSTAT_FUZZ:-1}" = 0 ]; then
	echo "fuzz not run: MEMSTAT_FUZZ=0"
elif MAKEFLAGS= make --no-print-directory -s BUILD="$build" fuzz-bins; then
	bash tests/fuzz/run.sh "$build" "$fuzz_secs" | tee "$build/fuzz.out"
	add_counts fuzz "$build/fuzz.out" "${PIPESTATUS[0]}"
else
	echo "FAIL fuzz: the fuzzers do not build (make BUILD=$build fuzz-bins)"
	failed=$((failed + 1))
	failed_suites+=(fuzz)
fi

# unit, cli and pytest once more, against user space built with ASan+UBSan ($build/san)
stage "sanitizers (ASan+UBSan: unit, cli, pytest)"
if [ "${MEMSTAT_SAN:-1}" = 0 ]; then
	echo "sanitizers not run: MEMSTAT_SAN=0"
elif MAKEFLAGS= make --no-print-directory -s BUILD="$build" san-bins; then
	bash tests/fuzz/sanitize.sh "$build/san" | tee "$build/san.out"
	add_counts sanitizers "$build/san.out" "${PIPESTATUS[0]}"
else
	echo "FAIL sanitizers: the ASan+UBSan build fails (make BUILD=$build san-bins)"
	failed=$((failed + 1))
	failed_suites+=(sanitizers)
fi

# the VM matrix: one result per kernel (PASS and KNOWN-GAP pass; a known gap is printed with
# its reason), when qemu can run here; MEMSTAT_VM=0 leaves it out
stage "vm matrix (tools/vm/matrix.sh)"
if [ "${MEMSTAT_VM:-1}" = 0 ]; then
	echo "vm matrix not run: MEMSTAT_VM=0"
elif ! command -v qemu-system-x86_64 >/dev/null; then
	echo "vm matrix not run: qemu-system-x86_64 is missing (tools/setup.sh installs it)"
	failed=$((failed + 1))
	failed_suites+=(vm)
else
	out=$(bash tools/vm/matrix.sh 2>&1)
	rc=$?
	echo "$out"
	vp=$(sed -n '/^summary/,$p' <<<"$out" | grep -cE '^[0-9][^ ]* [^ ]+ [^ ]+ (PASS|KNOWN-GAP) ')
	vf=$(sed -n '/^summary/,$p' <<<"$out" | grep -cE '^[0-9][^ ]* [^ ]+ [^ ]+ FAIL ')
	passed=$((passed + vp))
	failed=$((failed + vf))
	if [ $rc -ne 0 ]; then
		failed_suites+=(vm)
		[ "$vf" -gt 0 ] || failed=$((failed + 1))
	fi
fi

# the module under a KASAN, lockdep and DEBUG_PAGEALLOC kernel built from Debian's
# linux-source (cached after the first run): one result
stage "vmtest-debug (tools/vm/debug-kernel.sh)"
if [ "${MEMSTAT_VM:-1}" = 0 ]; then
	echo "vmtest-debug not run: MEMSTAT_VM=0"
else
	out=$(bash tools/vm/debug-kernel.sh "$build" 2>&1)
	rc=$?
	echo "$out"
	if [ $rc -eq 0 ] && grep -q '^vmtest-debug PASS' <<<"$out"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failed_suites+=(vmtest-debug)
	fi
fi

stage end
echo
echo "seconds per suite: ${stage_log[*]}"
[ ${#failed_suites[@]} -eq 0 ] || echo "failing suites: ${failed_suites[*]}"
# skips are listed with their reasons above (gtest: SKIPPED lines; pytest -rs)
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ ${#failed_suites[@]} -eq 0 ]
