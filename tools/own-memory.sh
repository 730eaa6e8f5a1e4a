#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# memstat's own memory by worker count (docs/backends.md): for each --jobs N, the workers that
# walked, own_maps (its BPF maps, as the walk counts them) and the resident peak, VmHWM of
# /proc/PID/status sampled every 5 ms. As root.
#   bash tools/own-memory.sh [MEMSTAT] [N...]     (default build/memstat; default 1 8 16 64)
set -u
memstat=${1:-build/memstat}
[ $# -gt 0 ] && shift
jobs=("$@")
[ ${#jobs[@]} -gt 0 ] || jobs=(default 1 8 16 64)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for j in "${jobs[@]}"; do
	if [ "$j" = default ]; then a=(); else a=(--jobs "$j"); fi
	"$memstat" --json "${a[@]}" >"$out" &
	pid=$!
	hwm=0
	while kill -0 "$pid" 2>/dev/null; do
		h=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		[ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
		sleep 0.005
	done
	wait "$pid"
	echo "jobs $j: exit $? $(grep -o '"jobs":[0-9]*' "$out") $(grep -o '"own_maps":{[^}]*}' "$out") resident peak >= $hwm kB"
done
