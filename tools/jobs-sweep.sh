#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The walk's time by worker count (docs/performance.md): for each N, RUNS runs of
# memstat --json --jobs N, each run's walk_ms, and their median. As root.
#   bash tools/jobs-sweep.sh [MEMSTAT] [N...]     (default build/memstat; 1 2 4 8 ... CPUs)
#   RUNS=5 (default)
set -eu
memstat=${1:-build/memstat}
[ $# -gt 0 ] && shift
runs=${RUNS:-5}
jobs=("$@")
if [ ${#jobs[@]} -eq 0 ]; then
	n=1
	while [ "$n" -lt "$(nproc)" ]; do jobs+=("$n"); n=$((n * 2)); done
	jobs+=("$(nproc)")
fi
for j in "${jobs[@]}"; do
	ms=()
	for _ in $(seq "$runs"); do
		ms+=("$("$memstat" --json --jobs "$j" | grep -o '"walk_ms":[0-9.]*' | cut -d: -f2)")
	done
	med=$(printf '%s\n' "${ms[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	echo "jobs $j: walk_ms median $med of ${ms[*]}"
done
