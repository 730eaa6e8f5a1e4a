#!/usr/bin/env bash
# Where the verifier spends its time on the walk program, on this kernel: the instructions it
# processed, by function, from its full log (MEMSTAT_DEBUG=4: walk_cast, or walk where the
# kernel has no bpf_rdonly_cast), then the most processed instructions. A function's count over its length is how many times the
# verifier walked it. Usage: tools/verifier-hist.sh [MEMSTAT] (default build/memstat); as root.
set -euo pipefail
memstat=${1:-build/memstat}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
MEMSTAT_DEBUG=4 "$memstat" --json --jobs 1 >/dev/null 2>"$log"
start="prog 'walk(_cast)?': -- BEGIN PROG LOAD LOG"
grep -Eq "$start" "$log" || { echo "verifier-hist: no log of the walk program (did it load?)" >&2; exit 1; }
awk -v start="$start" '$0 ~ start { on = 1 } on && /END PROG LOAD LOG/ { on = 0 }
	on && /^func#[0-9]+ @/ { k = substr($1, 6) + 0; st[k] = substr($2, 2) + 0; if (k > n) n = k }
	on && /^Func#[0-9]+ \(/ { id = substr($1, 6) + 0; name[id] = $2; gsub(/[()'"'"']/, "", name[id]) }
	on && /^[0-9]+: \(/ { split($1, a, ":"); c[a[1] + 0]++ }
	on && /^processed [0-9]+ insns/ { total = $2 }
	END {
		for (i in c) { f = 0; for (k = 1; k <= n; k++) if (i + 0 >= st[k]) f = k; h[f] += c[i] }
		printf "%-8s %-18s %6s %9s\n", "func", "name", "start", "processed"
		for (k = 0; k <= n; k++)
			printf "func#%-3d %-18s %6d %9d\n", k, (k in name) ? name[k] : (k ? "(static)" : "(program)"), k ? st[k] : 0, h[k]
		printf "processed %d instructions in all (the verifier'"'"'s count)\n", total
	}' "$log"
echo "most processed instructions (times, index):"
awk -v start="$start" '$0 ~ start { on = 1 } on && /END PROG LOAD LOG/ { on = 0 }
	on && /^[0-9]+: \(/ { split($1, a, ":"); c[a[1] + 0]++ }
	END { for (i in c) print c[i], i }' "$log" | sort -rn | awk 'NR <= 12 { printf "%s ", $0 }'
echo
