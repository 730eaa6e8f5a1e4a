#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The command line as a user meets it: options, bad input, privileges, the fallback backend.
# Usage: tests/cli_test.sh BUILD/memstat-test BUILD/nobpf [BUILD/memstat]   (as root)
# The first is the test build (its test hooks on); the third, the memstat that is installed, is
# checked to ignore every test hook (the sanitizer run has only the test build and leaves it out).
set -u
memstat=$1
nobpf=$2
installed=${3:-}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     /' <<<"$2"; }

# run NAME EXPECTED_EXIT CMD...: stdout in $tmp/out, stderr in $tmp/err
run() {
	local name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	if [ "$got" -eq "$want" ]; then ok "$name (exit $got)"; else
		bad "$name: exit $got, expected $want" "$(cat "$tmp/err")"; fi
}
one_line_err() {	# NAME PATTERN: stderr is exactly the error line (+ optional hint)
	local lines
	lines=$(grep -vcE "^Try 'memstat( [a-z]+)? --help'" "$tmp/err")
	if [ "$lines" -eq 1 ] && grep -q -- "$2" "$tmp/err"; then ok "$1: one clear line"
	else bad "$1: stderr not one line matching '$2'" "$(cat "$tmp/err")"; fi
}

# ---- usage errors: exit 2, one line naming the problem, a hint ----
run "unknown option" 2 "$memstat" --bogus
one_line_err "unknown option" "unknown option '--bogus'"
grep -q "Try 'memstat --help'" "$tmp/err" && ok "usage error gives a hint" || bad "no hint"
run "malformed argument" 2 "$memstat" 12x
one_line_err "malformed argument" "12x"
run "missing option argument" 2 "$memstat" --backend
one_line_err "missing option argument" "needs an argument"
run "unknown backend" 2 "$memstat" --backend magic
one_line_err "unknown backend" "unknown backend 'magic'"
run "conflicting options" 2 "$memstat" --runs --json
one_line_err "conflicting options" "cannot be combined"
[ ! -s "$tmp/out" ] && ok "usage error prints nothing on stdout" || bad "stdout not empty"

# ---- --approx: its fraction and seed, and what it cannot be combined with ----
for f in 0 -0.1 1.5 0.0009 abc 0.1x "" nan; do
	run "--approx=$f" 2 "$memstat" --approx="$f"
	one_line_err "--approx=$f" "invalid --approx fraction '$f'"
done
run "--seed without --approx" 2 "$memstat" --seed 1
one_line_err "--seed without --approx" "--seed needs --approx"
for s in -1 x 1.5 18446744073709551616; do
	run "--seed $s" 2 "$memstat" --approx --seed "$s"
	one_line_err "--seed $s" "invalid seed '$s'"
done
run "--approx --reconcile" 2 "$memstat" --approx --reconcile
one_line_err "--approx --reconcile" "cannot be combined with --reconcile"
run "--approx --backend kpageflags" 2 "$memstat" --approx --backend kpageflags
one_line_err "--approx --backend kpageflags" "needs the bpf backend"
run "bpf refused: --approx does not fall back" 4 "$nobpf" "$memstat" --approx
one_line_err "bpf refused: --approx" "failed to load BPF programs"

# ---- --by KEY and --top N (groups.c): bad input, no kpageflags, the table and JSON ----
run "--by unknown key" 2 "$memstat" --by colour
one_line_err "--by unknown key" "unknown --by key 'colour'"
for t in 0 -1 x 1.5 ""; do
	run "--by node --top '$t'" 2 "$memstat" --by node --top "$t"
	one_line_err "--by node --top '$t'" "invalid --top '$t'"
done
run "--top without --by" 2 "$memstat" --top 3
one_line_err "--top without --by" "--top needs --by"
for m in -1 x 10Q 1MB "" 1e30G; do
	run "--by node --min '$m'" 2 "$memstat" --by node --min "$m"
	one_line_err "--by node --min '$m'" "invalid --min '$m': expected a size in MB"
done
run "--min without --by" 2 "$memstat" --min 1
one_line_err "--min without --by" "--min needs --by"
run "--tree with --min" 2 "$memstat" --by cgroup --tree --min 1
one_line_err "--tree with --min" "cannot be combined with --min"
run "--by --backend kpageflags" 2 "$memstat" --by node --backend kpageflags
one_line_err "--by --backend kpageflags" "--by needs the bpf or kmod backend"
run "--by --reconcile" 2 "$memstat" --by zone --reconcile
one_line_err "--by --reconcile" "cannot be combined"
run "--by with a csv log" 2 "$memstat" --by node -o "$tmp/by.csv"
one_line_err "--by with a csv log" "needs --format jsonl or prom"
[ ! -e "$tmp/by.csv" ] && ok "--by with csv creates no file" || bad "--by with csv created a file"
for w in 0 -1 86401 abc ""; do
	run "allpages --wss '$w'" 2 "$memstat" allpages --wss "$w"
	one_line_err "allpages --wss '$w'" "invalid --wss '$w'"
done
run "allpages --pid 0" 2 "$memstat" allpages --pid 0
one_line_err "allpages --pid 0" "invalid --pid '0'"
run "allpages --pid of no process" 2 "$memstat" allpages --pid 4194304
one_line_err "allpages --pid of no process" "no process 4194304"
run "--by slab --backend kmod" 2 "$memstat" --by slab --backend kmod
one_line_err "--by slab --backend kmod" "--by slab needs the bpf backend"
# --by process (procs.c): a walk and a read of the processes; sampling only in jsonl or prom
for a in "-a" "--reconcile" "--runs" "--approx"; do
	run "--by process $a" 2 "$memstat" --by process $a
	one_line_err "--by process $a" "--by process is a walk and a read of the processes"
done
for a in "-o $tmp/p.csv" "1 1"; do
	# shellcheck disable=SC2086
	run "--by process $a" 2 "$memstat" --by process $a
	one_line_err "--by process $a" "needs --format jsonl or prom"
done
[ ! -e "$tmp/p.csv" ] && ok "--by process -o csv creates no file" || bad "--by process -o csv created a file"
run "--compare free --by process" 2 "$memstat" --compare free --by process
run "--by command -a" 2 "$memstat" --by command -a
one_line_err "--by command -a" "--by command is a walk and a read of the processes"
# its classes come from the runs of any walk: with BPF refused, from kpageflags's
run "bpf refused: --by process falls back" 0 "$nobpf" "$memstat" --by process
grep -q "kpageflags" "$tmp/err" && grep -q "^ *PSS MB" "$tmp/out" && ok "--by process on kpageflags" ||
	bad "--by process did not fall back to kpageflags" "$(cat "$tmp/err" "$tmp/out")"
run "--by with terminal rows" 2 "$memstat" --by node 1 1
one_line_err "--by with terminal rows" "needs --format jsonl or prom"
run "bpf refused: --by does not fall back" 4 "$nobpf" "$memstat" --by node
one_line_err "bpf refused: --by" "failed to load BPF programs.*(--by and -a need the bpf or kmod backend)"
# ---- -a/--attributes (attrs.c): no kpageflags, no fallback, the table and JSON ----
run "-a --backend kpageflags" 2 "$memstat" -a --backend kpageflags
one_line_err "-a --backend kpageflags" "-a needs the bpf or kmod backend"
run "-a --approx" 2 "$memstat" -a --approx
one_line_err "-a --approx" "-a cannot be combined with"
run "bpf refused: -a does not fall back" 4 "$nobpf" "$memstat" -a
one_line_err "bpf refused: -a" "failed to load BPF programs.*(--by and -a need the bpf or kmod backend)"
run "-a table" 0 "$memstat" -a
grep -Eq '^Page Attributes +Kernel +Anon +Shmem +Exec/libs +Page cache +Hugetlb +Total +MB$' "$tmp/out" &&
	grep -Eq '^dma_pinned( +[0-9]+){8}$' "$tmp/out" &&
	ok "-a: the attribute table" || bad "-a table" "$(cat "$tmp/out")"
run "-a --json" 0 "$memstat" -a --json
python3 - "$tmp/out" <<'PY' && ok "-a --json: attributes, by_class sums, folio_orders" || bad "-a --json" "$(head -c 2000 "$tmp/out")"
import json, sys
j = json.load(open(sys.argv[1]))
a = j["attributes"]
keys = ["dirty", "writeback", "mlocked", "unevictable", "active_anon", "inactive_anon",
        "active_file", "inactive_file", "referenced", "dma_pinned", "anon_thp", "shmem_thp",
        "file_thp", "ksm"]
assert all(isinstance(a[k], int) for k in keys)
assert set(a["by_class"]) == set(j["pages"]) - {"total"}
for k in keys:
    assert sum(c[k] for c in a["by_class"].values()) == a[k], k
assert sum(a["folio_orders"].values()) <= j["pages"]["total"]
assert a["ksm"] <= j["detail"]["anon_ksm"]
PY
run "--by zone table" 0 "$memstat" --by zone
head -1 "$tmp/out" | grep -Eq '^  Total MB +Kernel +% +Anon +% +Shmem +% +Exec +% +Cache +% +Hugetlb +% +Free +% +Zone$' &&
	grep -Eq '^ +[0-9]+( +[0-9]+ +[0-9]+%){7}  Total$' "$tmp/out" &&
	grep -Eq '  [0-9]+/(DMA|DMA32|Normal|Movable)$' "$tmp/out" &&
	ok "--by zone: header, zone rows and Total" || bad "--by zone table" "$(cat "$tmp/out")"
run "--by fs --json" 0 "$memstat" --by fs --json
python3 - "$tmp/out" <<'PY' && ok "--by fs --json: keys, groups + other = total, no pointers" || bad "--by fs --json" "$(head -c 2000 "$tmp/out")"
import json, sys
text = open(sys.argv[1]).read()
j = json.loads(text)
assert j["format_version"] == 2 and j["by"] == "fs", j.keys()
classes = ["kernel", "anon", "shmem", "exec", "page_cache", "hugetlb", "free"]
s = j["other"]["pages"]["total"]
for g in j["groups"]:
    assert sorted(g["pages"]) == sorted(classes + ["total"]), g
    assert sum(g["pages"][c] for c in classes) == g["pages"]["total"], g
    if g["name"] != "(none)":
        assert g["dev"].count(":") == 1 and "fstype" in g and "mount" in g, g
    s += g["pages"]["total"]
assert s == j["total"], (s, j["total"])
assert "0xffff" not in text and "ffff8" not in text, "a kernel address"
PY
# ---- --wss: its window, what it is not combined with, and where nothing sees accesses ----
for w in 0 0.5 -1 86401 abc 5x "" nan; do
	run "--wss '$w'" 2 "$memstat" --wss "$w"
	one_line_err "--wss '$w'" "invalid --wss '$w'"
done
for extra in "--reconcile" "--features" "--runs" \
	"--approx -o $tmp/w.csv"; do
	# shellcheck disable=SC2086	# the words of $extra are options
	run "--wss with $extra" 2 "$memstat" --wss 5 $extra
	one_line_err "--wss with $extra" "--wss is of the classes, groups and processes: not with"
done
# --by process or command with --wss: accepted (no mechanism here: exit 5), not with -a
for by in process command; do
	run "--wss with --by $by -a" 2 "$memstat" --wss 5 --by $by -a
	one_line_err "--wss with --by $by -a" "--by $by is a walk and a read of the processes"
done
# sampling: each sample is one window, so an interval other than the window's is refused
for extra in "1 1" "-o $tmp/w.csv 10" "4.9 -f jsonl"; do
	# shellcheck disable=SC2086	# the words of $extra are options
	run "--wss 5 with $extra" 2 "$memstat" --wss 5 $extra
	one_line_err "--wss 5 with $extra" "with --wss each sample is a window of --wss's seconds"
done
run "--wss with kpageflags" 2 "$memstat" --wss 5 -b kpageflags
one_line_err "--wss with kpageflags" "--wss needs the bpf or kmod backend"
run "serve --wss with another --interval" 2 "$memstat" serve --wss 5 --interval 15
one_line_err "serve --wss with another --interval" "the interval is --wss's"
run "serve --wss with --approx" 2 "$memstat" serve --wss 5 --approx
one_line_err "serve --wss with --approx" "--wss needs the bpf or kmod backend and no --approx"
[ ! -e "$tmp/w.csv" ] && ok "--wss refused: no log made" || bad "--wss -o made a file"
# this machine has no MGLRU, no idle page bitmap, and its DAMON is its init's: exit 5 at once
if [ ! -e /sys/kernel/mm/lru_gen/enabled ] && [ ! -e /sys/kernel/mm/page_idle/bitmap ]; then
	run "--wss without a mechanism" 5 "$memstat" --wss 60
	one_line_err "--wss without a mechanism" "no way to see page accesses here: no MGLRU"
	run "--wss --by without a mechanism" 5 "$memstat" --wss 60 --by node
	one_line_err "--wss --by without a mechanism" "no way to see page accesses here"
	run "--wss --by process without a mechanism" 5 "$memstat" --wss 60 --by process
	one_line_err "--wss --by process without a mechanism" "no way to see page accesses here"
	run "allpages --wss without a mechanism" 5 "$memstat" allpages --wss 60
	one_line_err "allpages --wss without a mechanism" "no way to see page accesses here: no MGLRU"
	[ ! -s "$tmp/out" ] && ok "allpages --wss without a mechanism prints no record" ||
		bad "allpages --wss without a mechanism printed" "$(head -3 "$tmp/out")"
	run "--wss -o without a mechanism" 5 "$memstat" --wss 60 -o "$tmp/w.csv"
	one_line_err "--wss -o without a mechanism" "no way to see page accesses here: no MGLRU"
	[ ! -e "$tmp/w.csv" ] && ok "--wss -o without a mechanism: no log made" ||
		bad "--wss -o without a mechanism made a file"
	run "serve --wss without a mechanism" 5 "$memstat" serve --wss 60 --listen 127.0.0.1:0
	one_line_err "serve --wss without a mechanism" "no way to see page accesses here"
	run "--wss --json without a mechanism" 5 "$memstat" --wss 60 --json
	/usr/bin/python3 -c 'import json,sys; e=json.load(sys.stdin)["error"]; assert "idle page bitmap" in e and "DAMON" in e, e' <"$tmp/out" &&
		ok "--wss --json: the error names each mechanism" || bad "--wss --json error" "$(cat "$tmp/out")"
fi

# ---- --by cgroup --tree and allpages --cgroup (cgroup.c): bad input, the tree's totals ----
run "--tree without --by cgroup" 2 "$memstat" --by node --tree
one_line_err "--tree without --by cgroup" "--tree needs --by cgroup"
run "--by twice in a table" 2 "$memstat" --by cgroup --by node
one_line_err "--by twice in a table" "--by given more than once: only with --format prom"
run "--by twice in JSON lines" 2 "$memstat" --by cgroup --by process -f jsonl 1 1
one_line_err "--by twice in JSON lines" "--by given more than once: only with --format prom"
run "the same --by twice" 2 "$memstat" serve --by cgroup --by cgroup
one_line_err "the same --by twice" "--by cgroup given twice"
run "--oci-bundles without --by pod" 2 "$memstat" --by cgroup --oci-bundles /tmp
one_line_err "--oci-bundles without --by pod" "--oci-bundles needs --by pod"
run "serve --oci-bundles without --by pod" 2 "$memstat" serve --oci-bundles /tmp
one_line_err "serve --oci-bundles without --by pod" "--oci-bundles needs --by pod"
run "--oci-bundles given 9 times" 2 "$memstat" --by pod $(printf -- '--oci-bundles /tmp %.0s' 1 2 3 4 5 6 7 8 9)
one_line_err "--oci-bundles given 9 times" "--oci-bundles given more than 8 times"
run "--tree with --top" 2 "$memstat" --by cgroup --tree --top 3
one_line_err "--tree with --top" "cannot be combined with --top"
run "allpages --cgroup: no such cgroup" 2 "$memstat" allpages --cgroup /memstat-no-such-cgroup
one_line_err "allpages --cgroup: no such cgroup" "no memory cgroup '/memstat-no-such-cgroup'"
[ ! -s "$tmp/out" ] && ok "allpages --cgroup: no such cgroup prints no record" ||
	bad "allpages --cgroup: no such cgroup printed records" "$(head -3 "$tmp/out")"
run "--by cgroup --tree table" 0 "$memstat" --by cgroup --tree
head -1 "$tmp/out" | grep -Eq ' Cgroup \(tree: each row is the cgroup and its descendants\)$' &&
	sed -n 2p "$tmp/out" | grep -Eq '^ +[0-9]+( +[0-9]+ +[0-9]+%){7}  /$' &&
	grep -Eq '^ +[0-9]+( +[0-9]+ +[0-9]+%){7}  \(none\)$' "$tmp/out" &&
	grep -Eq '^ +[0-9]+( +[0-9]+ +[0-9]+%){7}  Total$' "$tmp/out" &&
	ok "--by cgroup --tree: header, the root first, (none) and Total" ||
	bad "--by cgroup --tree table" "$(head -c 3000 "$tmp/out")"
run "--by cgroup --tree --json" 0 "$memstat" --by cgroup --tree --json
python3 - "$tmp/out" <<'PY' && ok "--by cgroup --tree --json: own pages add up, each tree is itself and its children's trees, depth first" || bad "--by cgroup --tree --json" "$(head -c 2000 "$tmp/out")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["by"] == "cgroup"
groups = j["groups"]
assert sum(g["pages"]["total"] for g in groups) + j["other"]["pages"]["total"] == j["total"]
assert groups[-1]["name"] == "(none)", groups[-1]["name"]
byid = {g["id"]: g for g in groups if "id" in g}
for g in groups[:-1]:
    assert set(g) >= {"id", "removed", "parent_id", "depth", "tree"}, g.keys()
    kids = [k for k in groups[:-1] if k.get("parent_id") == g["id"]]
    for c in g["pages"]:
        assert g["tree"]["pages"][c] == g["pages"][c] + sum(k["tree"]["pages"][c] for k in kids), (g["name"], c)
    assert g["tree"]["pages"]["total"] > 0, g["name"]
    if g["removed"]:
        assert g["name"] == "(removed) id %d" % g["id"] and g["parent_id"] is None and g["depth"] is None, g
    elif g["parent_id"] is not None:
        p = byid[g["parent_id"]]
        assert g["depth"] == p["depth"] + 1 and groups.index(p) < groups.index(g), g["name"]
        assert g["name"].startswith(p["name"].rstrip("/") + "/"), (g["name"], p["name"])
    else:
        assert g["depth"] == 0 and g is groups[0], g["name"]
PY
run "--approx summary" 0 "$memstat" --approx=0.05 --seed 3 -v
grep -Eq '^Page Summary +Pages +MB +%Tot +Error \(99%\)$' "$tmp/out" &&
	grep -q '^(approximate: estimated from .* seed 3;$' "$tmp/out" &&
	grep -q 'is the error at a 99% confidence level, in pages: 3 standard errors and the sample.s detection limit, [0-9]* pages, in quadrature)$' "$tmp/out" &&
	ok "--approx summary says it is approximate, with an error column at 99% confidence" ||
	bad "--approx summary" "$(cat "$tmp/out")"
run "--approx --runs" 0 "$memstat" --approx=0.01 --seed 9 --runs
# the runs of the sample only: at 0.01, strata of 4 sections (512 clusters) with 6 sampled:
# 1.17% of memory, the small strata of the first section's pieces walked whole
python3 - "$tmp/out" <<'PY' && ok "--approx --runs prints the sampled clusters' runs" || bad "--approx --runs" "$(head "$tmp/out")"
import sys
runs = [l.split() for l in open(sys.argv[1])]
pages = sum(int(r[1]) for r in runs)
present = sum(int(l.split()[1]) for l in open("/proc/zoneinfo") if l.split()[:1] == ["present"])
assert 0.01 * present <= pages <= 0.02 * present, (pages, present)
PY

run "help" 0 "$memstat" --help
grep -q "Exit codes" "$tmp/out" && ok "help documents exit codes" || bad "help lacks exit codes"
run "version" 0 "$memstat" --version

# ---- privileges: exit 4, the missing capability named ----
run "unprivileged user" 4 setpriv --reuid=65534 --regid=65534 --clear-groups "$memstat"
one_line_err "unprivileged user" "missing capability CAP_SYS_ADMIN"
run "root without CAP_SYS_ADMIN" 4 setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin "$memstat"
one_line_err "root without CAP_SYS_ADMIN" "CAP_SYS_ADMIN"
run "unprivileged --json" 4 setpriv --reuid=65534 --regid=65534 --clear-groups "$memstat" --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "CAP_SYS_ADMIN" in d["error"]' \
	"$tmp/out" && ok "--json error is a JSON object" || bad "--json error not JSON" "$(cat "$tmp/out")"
# allpages and map check the same way (ms_present_memory()); map leaves no picture behind
run "allpages without CAP_SYS_ADMIN" 4 setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin \
	"$memstat" allpages
one_line_err "allpages without CAP_SYS_ADMIN" "missing capability CAP_SYS_ADMIN"
run "map without CAP_SYS_ADMIN" 4 setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin \
	"$memstat" map -o "$tmp/nocap.svg"
one_line_err "map without CAP_SYS_ADMIN" "missing capability CAP_SYS_ADMIN"
[ ! -e "$tmp/nocap.svg" ] && ok "map without CAP_SYS_ADMIN: no file" || bad "map left $tmp/nocap.svg"

# ---- the fallback: BPF refused -> say why, use /proc/kpageflags ----
run "bpf refused: fallback" 0 "$nobpf" "$memstat"
grep -q "bpf backend unavailable: .*falling back to /proc/kpageflags" "$tmp/err" &&
	ok "fallback says why" || bad "fallback reason missing" "$(cat "$tmp/err")"
grep -Eq "^Exec and libs +n/a" "$tmp/out" && ok "fallback marks exec n/a" ||
	bad "fallback exec row" "$(cat "$tmp/out")"
run "bpf refused: --backend bpf fails" 4 "$nobpf" "$memstat" --backend bpf
one_line_err "bpf refused: --backend bpf" "failed to load BPF programs"
run "kpageflags --json" 0 "$memstat" --backend kpageflags --json
# total + holes is the kernel's count of present pages (/proc/zoneinfo), which the kpageflags
# walk must cover page by page (the classes always add up to total: it is built as their sum)
python3 - "$tmp/out" <<'PY' && ok "kpageflags JSON: total + holes = present pages, exec unknown" || bad "kpageflags JSON"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["pages"]
assert d["backend"] == "kpageflags" and d["exec_known"] is False
present = sum(int(l.split()[1]) for l in open("/proc/zoneinfo") if l.split()[:1] == ["present"])
assert p["total"] + d["holes"] == present, (p["total"], d["holes"], present)
assert p["exec"] == 0 and d["uninit_known"] is False
PY

# ---- the kernel module backend asked for without the module ----
if [ ! -e /dev/memstat ]; then
	run "--backend kmod without the module" 1 "$memstat" --backend kmod
	one_line_err "--backend kmod without the module" "module memstat is not loaded.*make kmod"
fi

# ---- privacy: no kernel address in any default output ----
for args in "" "-v" "--json" "--reconcile" "--features"; do
	"$memstat" $args >"$tmp/out" 2>&1
	if grep -Eqi "0x?ffff[0-9a-f]{12}|ff[0-9a-f]{14}" "$tmp/out"; then
		bad "kernel address printed by 'memstat $args'" "$(grep -Ei 'ffff' "$tmp/out")"
	else ok "no kernel address in 'memstat $args'"; fi
done

# ---- output goes nowhere: a full disk is an error, not silence ----
if [ -w /dev/full ]; then
	"$memstat" --json >/dev/full 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && grep -q "failed to write output" "$tmp/err" && ok "stdout on a full disk: exit 1" ||
		bad "stdout on a full disk: exit $rc" "$(cat "$tmp/err")"
fi

# --runs into a closed pipe ends quietly; into a full disk it says so
out=$(set -o pipefail; "$memstat" --runs 2>"$tmp/err" | head -2)
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$(wc -l <<<"$out")" -eq 2 ] && ok "--runs | head ends quietly" ||
	bad "--runs | head: exit $rc" "$(cat "$tmp/err")"
if [ -w /dev/full ]; then
	"$memstat" --runs >/dev/full 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && grep -q "failed to write output" "$tmp/err" && ok "--runs on a full disk: exit 1" ||
		bad "--runs on a full disk: exit $rc" "$(cat "$tmp/err")"
fi

# allpages (its records written by a thread of their own): the same, for the header (csv), the
# records of the whole dump (jsonl has no header) and a range that fits one buffer
out=$(set -o pipefail; "$memstat" allpages 2>"$tmp/err" | head -1)
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$(wc -l <<<"$out")" -eq 1 ] && ok "allpages | head -1 ends quietly" ||
	bad "allpages | head -1: exit $rc" "$(cat "$tmp/err")"
if [ -w /dev/full ]; then
	for args in "--format csv" "--format jsonl" "--format jsonl --pfn 0x100000-0x1000ff"; do
		# shellcheck disable=SC2086
		"$memstat" allpages $args >/dev/full 2>"$tmp/err"
		rc=$?
		[ $rc -eq 1 ] && ok "allpages $args on a full disk: exit 1" ||
			bad "allpages $args on a full disk: exit $rc" "$(cat "$tmp/err")"
		one_line_err "allpages $args on a full disk" \
			"^memstat: failed to write output: No space left on device$"
	done
fi

# ---- exit codes of output errors (issue 7, item 13): a file that cannot be used is bad input,
# exit 2; a write that fails (full disk, file size limit) is a run-time failure, exit 1 ----
if [ -w /dev/full ]; then
	"$memstat" --format csv >/dev/full 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && grep -q "failed to write output: No space left" "$tmp/err" &&
		ok "csv header on a full disk: exit 1" || bad "csv header on a full disk: exit $rc" "$(cat "$tmp/err")"
	run "-o /dev/full (not a regular file)" 2 "$memstat" -o /dev/full
	one_line_err "-o /dev/full" "refusing to write /dev/full: not a regular file"
fi
# -o -, /dev/stdout, /dev/fd/N: the descriptor itself (a log into a pipe), not a refused link
for o in - /dev/stdout; do
	"$memstat" 0.2 2 -o "$o" 2>"$tmp/err" | cat >"$tmp/out"
	rc=${PIPESTATUS[0]}
	[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 3 ] && head -1 "$tmp/out" | grep -q '^timestamp,epoch,' &&
		[ ! -s "$tmp/err" ] && ok "-o $o into a pipe: the CSV header and 2 samples" ||
		bad "-o $o into a pipe: exit $rc" "$(cat "$tmp/err" "$tmp/out")"
done
"$memstat" 0.2 2 --format jsonl -o /dev/fd/3 3>"$tmp/fd3.jsonl" 2>"$tmp/err" &&
	[ "$(grep -c '^{"format_version":' "$tmp/fd3.jsonl")" -eq 2 ] && ok "-o /dev/fd/3: 2 JSON lines" ||
	bad "-o /dev/fd/3" "$(cat "$tmp/err" "$tmp/fd3.jsonl")"
"$memstat" 0.2 2 --format prom -o - 2>"$tmp/err" | grep -c '^# HELP memstat_pages ' >"$tmp/out"
[ "$(cat "$tmp/out")" -eq 2 ] && ok "--format prom -o -: each sample on stdout" ||
	bad "--format prom -o -" "$(cat "$tmp/err" "$tmp/out")"
run "-o /dev/fd/N not open" 2 "$memstat" 0.2 1 -o /dev/fd/9 9>&-
one_line_err "-o /dev/fd/N not open" "descriptor 9 is not open for writing"
# writing the header of a new log fails (RLIMIT_FSIZE 0, SIGXFSZ ignored: EFBIG; kpageflags,
# since the bpf backend's memfd probe is held to the limit too): exit 1, and
# the file memstat created for it is not left behind (stderr goes through a pipe: the limit
# applies to files only)
err=$( (trap '' XFSZ; ulimit -f 0; exec "$memstat" --backend kpageflags -o "$tmp/new.csv") 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] && grep -q "failed to write $tmp/new.csv: File too large" <<<"$err" &&
	ok "log header write error: exit 1" || bad "log header write error: exit $rc, expected 1" "$err"
[ ! -e "$tmp/new.csv" ] && ok "log header write error: no empty log left" || bad "empty log left behind"

# ---- a --json error carries its reason (issue 7, item 13): /proc/kpageflags made unopenable
# in a private mount namespace (a socket bound over it: open gives ENXIO) ----
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tmp/sock"
if unshare -m true 2>/dev/null; then
	unshare -m sh -c 'mount --bind "$1" /proc/kpageflags && exec "$2" --backend kpageflags --json' \
		sh "$tmp/sock" "$memstat" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]
assert e == "failed to open /proc/kpageflags: No such device or address", e' "$tmp/out" &&
		ok "walk failure with --json: the reason in the JSON (exit 1)" ||
		bad "walk failure with --json: exit $rc" "$(cat "$tmp/out" "$tmp/err")"
else
	echo "skip walk failure with --json: unshare -m is not permitted here"
fi

# ---- a walk that stops short is an error, never a partial count (issue 7, item 10): runs of
# 65536 pages are longer than the walker's loop can cover ----
MEMSTAT_TEST_WALK_PAGES=65536 "$memstat" --backend bpf --json >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "stopped short at pfn" "$tmp/out" "$tmp/err" &&
	ok "a short walk: exit 1, the pfn where it stopped" ||
	bad "a short walk: exit $rc, expected 1 and 'stopped short'" "$(cat "$tmp/out" "$tmp/err")"
MEMSTAT_TEST_WALK_PAGES=16384 "$memstat" --backend bpf >/dev/null 2>"$tmp/err" &&
	ok "runs shorter than a section: a whole walk" ||
	bad "runs of 16384 pages failed" "$(cat "$tmp/err")"

# ---- the exec set's scope (issue 7, item 8): the BPF task iterator sees only the reader's PID
# namespace; memstat says so in --json and --features instead of passing a partial set off ----
"$memstat" --json >"$tmp/out" 2>"$tmp/err"
python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))
assert d["exec_all_processes"] is True and d["uninit_known"] is True, d
# this kernel (6.18) types unaccepted blocks: the count is never meminfo'"'"'s
assert d["unaccepted_from_meminfo"] is False, d' \
	"$tmp/out" && ok "initial PID namespace: exec_all_processes, uninit_known true" ||
	bad "initial PID namespace: exec_all_processes is not true" "$(cat "$tmp/out" "$tmp/err")"
if unshare -p -f --mount-proc true 2>/dev/null; then
	unshare -p -f --mount-proc "$memstat" --json >"$tmp/out" 2>"$tmp/err"
	python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))
assert d["exec_all_processes"] is False, d["exec_all_processes"]' "$tmp/out" &&
		ok "child PID namespace: exec_all_processes false" ||
		bad "child PID namespace: exec_all_processes is not false" "$(cat "$tmp/out" "$tmp/err")"
	unshare -p -f --mount-proc "$memstat" --features >"$tmp/out" 2>"$tmp/err"
	grep -q "^exec mappings from:  this PID namespace's processes only" "$tmp/out" &&
		ok "child PID namespace: --features names the exec set's scope" ||
		bad "child PID namespace: --features does not say" "$(cat "$tmp/out" "$tmp/err")"
else
	echo "skip the child PID namespace checks: unshare -p is not permitted here"
fi

# ---- --jobs N (issue 8): bad N is one line and exit 2; --json says the workers it used
# ("jobs") and where the time went ("timings", ms per phase) ----
for n in 0 -1 junk 2x 257 99999999999999999999 ""; do
	run "--jobs '$n'" 2 "$memstat" --jobs "$n"
	one_line_err "--jobs '$n'" "invalid --jobs '$n': expected a whole number of workers from 1 to 256"
	[ ! -s "$tmp/out" ] || bad "--jobs '$n': something on stdout" "$(cat "$tmp/out")"
done
for n in 1 3; do
	run "--json --jobs $n" 0 "$memstat" --json --jobs $n
	python3 - "$tmp/out" "$n" <<'PY' && ok "--jobs $n: jobs and timings in --json" ||
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert d["jobs"] == n, d["jobs"]
t = d["timings"]
keys = ["ranges", "bpf_open", "bpf_load", "bpf_verify", "detect", "kmod_open", "exec_set",
        "workers_load", "walk", "meminfo"]
assert list(t) == keys, list(t)
for k in keys:
    assert isinstance(t[k], (int, float)) and 0 <= t[k] <= d["elapsed_ms"], (k, t[k])
assert t["walk"] == d["walk_ms"], (t["walk"], d["walk_ms"])
assert t["bpf_load"] > 0 and t["walk"] > 0 and t["kmod_open"] == 0, t
assert t["workers_load"] == 0, t  # every worker runs the one walk program
assert 0 < t["bpf_verify"] < t["bpf_load"], t  # the kernel's part of the load
PY
		bad "--jobs $n: jobs or timings wrong in --json" "$(cat "$tmp/out")"
done
run "--json, default jobs" 0 "$memstat" --json
python3 -c 'import json,os,sys; d = json.load(open(sys.argv[1]))
assert 1 <= d["jobs"] <= len(os.sched_getaffinity(0)), d["jobs"]' "$tmp/out" &&
	ok "default jobs: at least 1, at most the CPUs" || bad "default jobs" "$(cat "$tmp/out")"
# kpageflags: a reader per worker; every present page read once (total + holes cannot move)
run "kpageflags --jobs 1" 0 "$memstat" --backend kpageflags --json --jobs 1
cp "$tmp/out" "$tmp/kpf1"
run "kpageflags --jobs 4" 0 "$memstat" --backend kpageflags --json --jobs 4
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
assert d["jobs"] == 4 and s["jobs"] == 1 and d["timings"]["bpf_load"] == 0, d
assert d["pages"]["total"] + d["holes"] == s["pages"]["total"] + s["holes"], (d, s)' \
	"$tmp/out" "$tmp/kpf1" && ok "kpageflags: 4 readers, every page once" ||
	bad "kpageflags --jobs 4" "$(cat "$tmp/out")"
run "kpageflags --runs --jobs 3" 0 "$memstat" --backend kpageflags --runs --jobs 3
python3 -c 'import json,sys
s = json.load(open(sys.argv[2]))
end, total, prev = 0, 0, None
for line in open(sys.argv[1]):
    pfn, n, cls, sub = line.split()
    pfn, n = int(pfn, 16), int(n)
    assert pfn >= end, line
    assert not (pfn == end and sub == prev), "a run cut in two: " + line
    end, total, prev = pfn + n, total + n, sub
assert total == s["pages"]["total"], (total, s["pages"]["total"])' "$tmp/out" "$tmp/kpf1" &&
	ok "kpageflags --runs --jobs 3: runs in pfn order, merged, every page" ||
	bad "kpageflags --runs --jobs 3" "$(head -5 "$tmp/out")"
"$memstat" --jobs 2 1 2 >"$tmp/out" 2>"$tmp/err" && [ "$(grep -c ':' "$tmp/out")" -eq 2 ] &&
	ok "--jobs 2 with sampling" || bad "--jobs 2 with sampling" "$(cat "$tmp/out" "$tmp/err")"

# ---- memstat map and memstat plot: bad input is one line and exit 2, no file is damaged ----
mkdir "$tmp/pic" "$tmp/pic/d.svg"
printf 'precious\n' >"$tmp/pic/keep.svg"
printf 'precious\n' >"$tmp/pic/keep.png"
printf 'secret\n' >"$tmp/pic/victim" && chmod 600 "$tmp/pic/victim"
ln -s "$tmp/pic/keep.svg" "$tmp/pic/link.svg"
ln -s "$tmp/pic/victim" "$tmp/pic/link.png"
ln "$tmp/pic/victim" "$tmp/pic/hard.svg"
: >"$tmp/pic/theirs.svg" && chown 65534 "$tmp/pic/theirs.svg"
printf 'time,used,free\n1,2,3\n' >"$tmp/pic/other.csv"
"$memstat" -o "$tmp/pic/log.csv" 0.2 3 2>/dev/null
for sub in map plot; do
	log=; [ $sub = plot ] && log=$tmp/pic/log.csv
	run "$sub without -o" 2 "$memstat" $sub $log
	one_line_err "$sub without -o" "-o FILE is needed"
	grep -q "Try 'memstat $sub --help'" "$tmp/err" && ok "$sub: usage error gives a hint" ||
		bad "$sub: no hint" "$(cat "$tmp/err")"
	run "$sub -o a directory" 2 "$memstat" $sub $log -o "$tmp/pic"
	one_line_err "$sub -o a directory" "is a directory"
	run "$sub -o a directory named .svg" 2 "$memstat" $sub $log -o "$tmp/pic/d.svg"
	one_line_err "$sub -o a directory named .svg" "d.svg is a directory"
	run "$sub -o FILE.txt" 2 "$memstat" $sub $log -o "$tmp/pic/m.txt"
	one_line_err "$sub -o FILE.txt" "must end in .svg or .png"
	run "$sub -o a symbolic link" 2 "$memstat" $sub $log -o "$tmp/pic/link.svg"
	one_line_err "$sub -o a symbolic link" "link.svg: it is a symbolic link"
	run "$sub -o a symbolic link .png" 2 "$memstat" $sub $log -o "$tmp/pic/link.png"
	one_line_err "$sub -o a symbolic link .png" "link.png: it is a symbolic link"
	run "$sub -o a hard link" 2 "$memstat" $sub $log -o "$tmp/pic/hard.svg"
	one_line_err "$sub -o a hard link" "hard.svg: it has 2 hard links"
	run "$sub -o another program's SVG" 2 "$memstat" $sub $log -o "$tmp/pic/keep.svg"
	one_line_err "$sub -o another program's SVG" "keep.svg: it is not an SVG written by memstat"
	run "$sub -o a file that is not a PNG" 2 "$memstat" $sub $log -o "$tmp/pic/keep.png"
	one_line_err "$sub -o a file that is not a PNG" "keep.png: it is not a PNG"
	run "$sub -o another user's file" 2 "$memstat" $sub $log -o "$tmp/pic/theirs.svg"
	one_line_err "$sub -o another user's file" "theirs.svg: it belongs to uid 65534"
	run "$sub -o in no directory" 2 "$memstat" $sub $log -o "$tmp/pic/none/m.svg"
	one_line_err "$sub -o in no directory" "no directory"
	run "$sub unknown option" 2 "$memstat" $sub --bogus
	one_line_err "$sub unknown option" "unknown option '--bogus'"
done
run "map unknown backend" 2 "$memstat" map -b magic -o "$tmp/pic/m.svg"
one_line_err "map unknown backend" "unknown backend 'magic'"
run "plot without a log" 2 "$memstat" plot -o "$tmp/pic/p.svg"
one_line_err "plot without a log" "a LOG to draw is needed"
run "plot an unreadable log" 2 "$memstat" plot "$tmp/pic/none.csv" -o "$tmp/pic/p.svg"
one_line_err "plot an unreadable log" "none.csv: cannot read the log: No such file"
run "plot a directory as the log" 2 "$memstat" plot "$tmp/pic" -o "$tmp/pic/p.svg"
one_line_err "plot a directory as the log" "cannot read the log: it is a directory"
run "plot a log with other columns" 2 "$memstat" plot "$tmp/pic/other.csv" -o "$tmp/pic/p.svg"
one_line_err "plot a log with other columns" "other.csv: line 1: not a memstat log"
# a time no axis can write (1e34 s, found by fuzz_plot_log): the line is not a sample
awk -F, -v OFS=, 'NR > 1 { $2 = "1e34" } 1' "$tmp/pic/log.csv" >"$tmp/pic/far.csv"
# a FIFO is refused at once, not waited on for a writer (the old open blocked for ever)
mkfifo "$tmp/pic/fifo.csv"
run "plot a FIFO" 2 timeout 20 "$memstat" plot "$tmp/pic/fifo.csv" -o "$tmp/pic/fifo.svg"
one_line_err "plot a FIFO" "fifo.csv: cannot read the log: not a regular file"
[ ! -e "$tmp/pic/fifo.svg" ] && ok "plot a FIFO: no picture written" || bad "plot a FIFO wrote fifo.svg"
run "plot a log whose times are past the year 9999" 2 "$memstat" plot "$tmp/pic/far.csv" \
	-o "$tmp/pic/p.svg"
one_line_err "plot a log whose times are past the year 9999" "far.csv: no samples in this file"
# a JSON line whose optional class is damaged (a negative count, found by fuzz_plot_log)
"$memstat" --format jsonl -o "$tmp/pic/log.jsonl" 0.2 2 2>/dev/null
sed 's/"hugetlb":[0-9]*/"hugetlb":-11/' "$tmp/pic/log.jsonl" >"$tmp/pic/neg.jsonl"
run "plot a JSON lines log with a negative count" 2 "$memstat" plot "$tmp/pic/neg.jsonl" \
	-o "$tmp/pic/p.svg"
one_line_err "plot a JSON lines log with a negative count" "neg.jsonl: no samples in this file"
run "plot a good log after a bad one" 2 "$memstat" plot "$tmp/pic/log.csv" "$tmp/pic/other.csv" \
	-o "$tmp/pic/p.svg"
[ "$(cat "$tmp/pic/keep.svg")" = precious ] && [ "$(cat "$tmp/pic/keep.png")" = precious ] &&
	[ "$(cat "$tmp/pic/victim")" = secret ] && [ -L "$tmp/pic/link.svg" ] &&
	[ -L "$tmp/pic/link.png" ] && [ ! -s "$tmp/pic/theirs.svg" ] && [ ! -e "$tmp/pic/p.svg" ] &&
	ok "map, plot: no existing file changed by bad input" ||
	bad "keep.svg, keep.png, victim, a link or theirs.svg changed, or p.svg made"
# the PNG renderer: /usr/bin/rsvg-convert only, as nobody; hidden or replaced in a mount
# namespace of this test (no knob in memstat)
if unshare -m --propagation private true 2>/dev/null; then
	in_ns() {	# BIND_SOURCE CMD...: CMD with /usr/bin/rsvg-convert replaced by BIND_SOURCE
		local src=$1
		shift
		unshare -m --propagation private bash -c \
			'mount --bind "$0" /usr/bin/rsvg-convert && exec "$@"' "$src" "$@"
	}
	run "map -o FILE.png without rsvg-convert" 2 in_ns /dev/null "$memstat" map -o "$tmp/pic/m.png"
	one_line_err "map -o FILE.png without rsvg-convert" "install librsvg2-bin, or write an .svg"
	printf '#!/bin/sh\necho "renderer uid $(id -u) gid $(id -g) groups $(id -G)" >&2\nexit 3\n' \
		>"$tmp/fake-rsvg" && chmod 755 "$tmp/fake-rsvg"
	run "plot -o FILE.png: a failing renderer" 1 in_ns "$tmp/fake-rsvg" "$memstat" plot \
		"$tmp/pic/log.csv" -o "$tmp/pic/p.png"
	one_line_err "plot -o FILE.png: the renderer runs as nobody" \
		"renderer uid 65534 gid 65534 groups 65534\$"
	[ ! -e "$tmp/pic/p.png" ] && ok "plot: no PNG from a failing renderer" ||
		bad "plot: a PNG from a failing renderer"
else
	bad "unshare -m does not work here: the renderer's tests need a mount namespace"
fi
# good input: a valid SVG replaces the file, and no temporary file is left beside it
if ! command -v xmllint >/dev/null; then
	bad "xmllint missing: install libxml2-utils (bash tools/setup.sh test)"
else
	run "plot a log" 0 "$memstat" plot "$tmp/pic/log.csv" -o "$tmp/pic/p.svg"
	xmllint --noout "$tmp/pic/p.svg" 2>"$tmp/err" && ok "plot: the SVG is valid XML" ||
		bad "plot: xmllint" "$(cat "$tmp/err")"
	run "plot over its own SVG" 0 "$memstat" plot "$tmp/pic/log.csv" -o "$tmp/pic/p.svg"
	# a descriptor: the SVG as it is, into a pipe
	"$memstat" plot "$tmp/pic/log.csv" -o - 2>"$tmp/err" | xmllint --noout - 2>>"$tmp/err" &&
		[ ! -s "$tmp/err" ] && ok "plot -o -: an SVG into a pipe" ||
		bad "plot -o -" "$(cat "$tmp/err")"
	"$memstat" map -o /dev/stdout 2>"$tmp/err" | xmllint --noout - 2>>"$tmp/err" &&
		[ ! -s "$tmp/err" ] && ok "map -o /dev/stdout: an SVG into a pipe" ||
		bad "map -o /dev/stdout" "$(cat "$tmp/err")"
	"$memstat" plot "$tmp/pic/log.csv" -o /dev/fd/3 3>"$tmp/pic/fd3.svg" 2>"$tmp/err" &&
		xmllint --noout "$tmp/pic/fd3.svg" && ok "plot -o /dev/fd/3" ||
		bad "plot -o /dev/fd/3" "$(cat "$tmp/err")"
	run "map" 0 "$memstat" map -o "$tmp/pic/m.svg"
	xmllint --noout "$tmp/pic/m.svg" 2>"$tmp/err" && ok "map: the SVG is valid XML" ||
		bad "map: xmllint" "$(cat "$tmp/err")"
	grep -q "memstat map: $(uname -n), kernel $(uname -r)," "$tmp/pic/m.svg" &&
		ok "map: the title names host and kernel" || bad "map: title" "$(grep -m1 '<title>' "$tmp/pic/m.svg")"
	left=$(ls -A "$tmp/pic" | grep -c '^\.memstat-')
	[ "$left" -eq 0 ] && ok "map, plot: no temporary file left" || bad "temporary files left: $left"
fi

# ---- memstat rmss: its report and plot are never written through a link or over another file ----
# (refused before anything is measured; the two runs that measure take a second: cgroup mode,
# 64 MB, one run of true; a lock directory of this test's own)
mkdir "$tmp/rmss" "$tmp/rmss/run"
printf 'secret\n' >"$tmp/rmss/victim" && chmod 600 "$tmp/rmss/victim"
ln -s victim "$tmp/rmss/rmss.out"
ln "$tmp/rmss/victim" "$tmp/rmss/hard.out"
printf 'notes\n' >"$tmp/rmss/notes.out"
ln -s victim "$tmp/rmss/link.svg"
ln -s victim "$tmp/rmss/p.svg.tmp"	# the plot's temporary file's old name
abs_memstat=$(realpath "$memstat")
rmss() { (cd "$tmp/rmss" && MEMSTAT_RMSS_RUNDIR="$tmp/rmss/run" "$abs_memstat" rmss "$@"); }
fast=(--cgroup -s 64 -f 64 -n 1)
run "rmss: the default rmss.out a symbolic link" 2 rmss "${fast[@]}" true
one_line_err "rmss: rmss.out a symbolic link" "refusing to write rmss.out: it is a symbolic link"
run "rmss -o a hard link" 2 rmss "${fast[@]}" -o hard.out true
one_line_err "rmss -o a hard link" "hard.out: it has 2 hard links"
run "rmss -o another file" 2 rmss "${fast[@]}" -o notes.out true
one_line_err "rmss -o another file" "notes.out: it is not a memstat rmss report"
run "rmss --plot a symbolic link" 2 rmss "${fast[@]}" -o r.out --plot link.svg true
one_line_err "rmss --plot a symbolic link" "link.svg: it is a symbolic link"
[ "$(cat "$tmp/rmss/victim")" = secret ] && [ "$(cat "$tmp/rmss/notes.out")" = notes ] &&
	[ -L "$tmp/rmss/rmss.out" ] && [ ! -e "$tmp/rmss/r.out" ] &&
	ok "rmss: refused outputs unchanged, no report made" ||
	bad "rmss: victim, notes.out or rmss.out changed, or r.out made"
run "rmss -o FILE --plot FILE.svg beside a planted FILE.svg.tmp link" 0 rmss "${fast[@]}" \
	-o r.out --plot p.svg true
[ "$(cat "$tmp/rmss/victim")" = secret ] && [ -L "$tmp/rmss/p.svg.tmp" ] &&
	head -1 "$tmp/rmss/r.out" | grep -q '^Hostname:  ' && grep -q '^<svg ' "$tmp/rmss/p.svg" &&
	ok "rmss: the report and the plot written, the planted link untouched" ||
	bad "rmss: report, plot or victim" "$(head -3 "$tmp/rmss/r.out" "$tmp/rmss/victim")"
run "rmss -o -: the report on stdout once, replacing nothing" 0 rmss "${fast[@]}" -o - true
[ "$(grep -c '^Hostname:  ' "$tmp/out")" -eq 1 ] && grep -q '^Knee: ' "$tmp/out" &&
	ok "rmss -o -: one report on stdout" || bad "rmss -o -" "$(cat "$tmp/out")"
run "rmss -o - --json" 2 rmss "${fast[@]}" -o - --json true
one_line_err "rmss -o - --json" "would both go to stdout"
ls -A "$tmp/rmss" | grep -q '^\.memstat-' && bad "rmss: a temporary file left" ||
	ok "rmss: no temporary file left"

# ---- a kernel whose page-to-memcg link memstat cannot tell (test hook MEMSTAT_TEST_MEMCG_UNKNOWN):
# --by cgroup and allpages --cgroup refuse with one line and exit 5, instead of putting every
# page in "(none)" without a word ----
MEMSTAT_TEST_MEMCG_UNKNOWN=1 run "--by cgroup, memcg link unknown" 5 "$memstat" --by cgroup
one_line_err "--by cgroup, memcg link unknown" "cannot tell which memory cgroup a page is charged to"
[ ! -s "$tmp/out" ] && ok "--by cgroup, memcg link unknown: no table" || bad "a table was printed" "$(head -3 "$tmp/out")"
MEMSTAT_TEST_MEMCG_UNKNOWN=1 run "allpages --cgroup, memcg link unknown" 5 "$memstat" allpages --cgroup /
one_line_err "allpages --cgroup, memcg link unknown" "cannot tell which memory cgroup"

# ---- the installed memstat has no test hooks: nothing in root's environment redirects what it
# reads (MEMSTAT_MEMINFO), where it keeps rmss's state and whom it kills (MEMSTAT_RMSS_RUNDIR), or
# how it walks (MEMSTAT_TEST_*); the test build obeys the same variables ----
if [ -n "$installed" ]; then
	mkdir -p "$tmp/hooks"
	MEMSTAT_MEMINFO=$tmp/hooks/none "$memstat" --reconcile --json >"$tmp/out" 2>/dev/null
	[ $? -eq 1 ] && ok "test build: MEMSTAT_MEMINFO is read (exit 1, no such file)" ||
		bad "test build ignored MEMSTAT_MEMINFO" "$(head -c 300 "$tmp/out")"
	MEMSTAT_MEMINFO=$tmp/hooks/none "$installed" --reconcile --json >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -ne 1 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert "error" not in d and d["reconcile"]["rows"], d.get("error")' "$tmp/out" 2>>"$tmp/err" &&
		ok "installed memstat: MEMSTAT_MEMINFO ignored, /proc/meminfo reconciled" ||
		bad "installed memstat obeys MEMSTAT_MEMINFO (exit $rc)" "$(cat "$tmp/err")"
	MEMSTAT_TEST_WALK_PAGES=65536 "$installed" --backend bpf >/dev/null 2>"$tmp/err" &&
		ok "installed memstat: MEMSTAT_TEST_WALK_PAGES ignored" ||
		bad "installed memstat obeys MEMSTAT_TEST_WALK_PAGES" "$(cat "$tmp/err")"
	MEMSTAT_RMSS_RUNDIR=$tmp/hooks "$installed" rmss -r >/dev/null 2>&1
	[ -z "$(ls -A "$tmp/hooks")" ] && ok "installed memstat: MEMSTAT_RMSS_RUNDIR ignored" ||
		bad "installed memstat rmss -r wrote into MEMSTAT_RMSS_RUNDIR" "$(ls -A "$tmp/hooks")"
	MEMSTAT_RMSS_RUNDIR=$tmp/hooks "$memstat" rmss -r >/dev/null 2>&1
	[ -n "$(ls -A "$tmp/hooks")" ] && ok "test build: MEMSTAT_RMSS_RUNDIR is used" ||
		bad "test build rmss -r left nothing in MEMSTAT_RMSS_RUNDIR"
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
