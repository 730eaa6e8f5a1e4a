#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A one-shot memstat's start-up, for one or more memstat binaries (docs/performance.md,
# "Start-up"): RUNS runs of `memstat --json [ARGS]` each, the medians of the whole process (exec
# to exit, from bash's clock) and of its JSON timings; then one MEMSTAT_DEBUG=3 run for the
# verifier's own figures for the walk program (instructions processed, verification time) and
# for all the programs the run loads together.
# As root.
#   bash tools/startup.sh [MEMSTAT...]       (default build/memstat)
#   RUNS=15 (default), ARGS="--jobs 4" (default none)
set -eu
runs=${RUNS:-15}
read -r -a args <<<"${ARGS:-}"
[ $# -gt 0 ] || set -- build/memstat
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() { grep -o "\"$1\":[0-9.]*" | head -n 1 | cut -d: -f2; }
for m in "$@"; do
	tmp=$(mktemp)
	: >"$tmp.all"
	for _ in $(seq "$runs"); do
		t0=$EPOCHREALTIME
		"$m" --json "${args[@]}" >"$tmp"
		t1=$EPOCHREALTIME
		wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
		echo "$wall $(field elapsed_ms <"$tmp") $(field bpf_load <"$tmp")" \
		     "$(field workers_load <"$tmp") $(field walk <"$tmp") $(field jobs <"$tmp")" >>"$tmp.all"
	done
	printf '%s (%s runs%s): process %s ms, in it %s ms: bpf_load %s, workers_load %s, walk %s, jobs %s (medians)\n' \
	       "$m" "$runs" "${args[*]:+, ${args[*]}}" \
	       "$(cut -d' ' -f1 "$tmp.all" | median)" "$(cut -d' ' -f2 "$tmp.all" | median)" \
	       "$(cut -d' ' -f3 "$tmp.all" | median)" "$(cut -d' ' -f4 "$tmp.all" | median)" \
	       "$(cut -d' ' -f5 "$tmp.all" | median)" "$(cut -d' ' -f6 "$tmp.all" | median)"
	MEMSTAT_DEBUG=3 "$m" --json --jobs 2 >/dev/null 2>"$tmp" || true
	awk '/prog .*BEGIN PROG LOAD LOG/ { p = $3; gsub(/[^a-z_]/, "", p) }
	     /^worker [0-9]+:/ { p = "" }
	     /verification time/ { t = $(NF - 1) }
	     /^processed/ && p != "" { all += t; n++; if (p ~ /^walk/)
		printf "  verifier: %s %d instructions processed, %.1f ms\n", p, $2, t / 1000 }
	     END { if (n) printf "  verifier: all %d programs %.1f ms\n", n, all / 1000 }' "$tmp"
	rm -f "$tmp" "$tmp.all"
done
