#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# memstat as installed: the man pages (BUILD/NAME.8 from docs/NAME.8.scd), the bash and zsh
# completions (contrib/completion/), make install and make uninstall into a temporary DESTDIR.
# Usage: tests/pkg_test.sh BUILD_DIR   (as root: the class list comes from `memstat --json`)
# Ends with one "N passed, N failed" line.
set -u
build=$1
bin=$build/memstat
page=$build/memstat.8
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "PASS $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1"; shift; for l in "$@"; do echo "    $l"; done; failed=$((failed + 1)); }

# every short and long option of a --help text (the lines that begin with blanks and a dash)
help_opts() {
	grep -E '^ +-' | sed -E 's/^ +//; s/  +.*$//' | grep -oE -- '(^|[ ,])(-[A-Za-z]|--[a-z][a-z-]*)' |
		tr -d ' ,' | sort -u
}
main_opts=$("$bin" --help | help_opts)
ap_opts=$("$bin" allpages --help | help_opts)
map_opts=$("$bin" map --help | help_opts)
plot_opts=$("$bin" plot --help | help_opts)
diff_opts=$("$bin" diff --help | help_opts)
rmss_opts=$("$bin" rmss --help | help_opts)
serve_opts=$("$bin" serve --help | help_opts)
if [ "$(wc -w <<<"$main_opts")" -lt 10 ] || [ "$(wc -w <<<"$ap_opts")" -lt 5 ]; then
	bad "options parsed from --help" "main: $main_opts" "allpages: $ap_opts"
fi

# ---- the man pages: memstat(8) and one per verb ----
if [ ! -s "$page" ]; then
	bad "man page built ($page missing: make BUILD=$build man)"
else
	# each page renders without a warning and has every option of its verb's --help (one line
	# per paragraph: wide enough that no option is broken across lines); each --help names it
	for verb in "" allpages diff map plot rmss serve; do
		name=memstat${verb:+-$verb}
		f=$build/$name.8
		case $verb in
		"") opts=$main_opts ;; allpages) opts=$ap_opts ;; map) opts=$map_opts ;;
		plot) opts=$plot_opts ;; rmss) opts=$rmss_opts ;; diff) opts=$diff_opts ;;
		serve) opts=$serve_opts ;;
		esac
		if [ ! -s "$f" ]; then
			bad "$name.8 built ($f missing: make BUILD=$build man)"
			continue
		fi
		warn=$(man --warnings -l "$f" 2>&1 >/dev/null)
		if [ -z "$warn" ]; then ok "man --warnings renders $name.8 without a warning"
		else bad "man --warnings renders $name.8 without a warning" "$warn"; fi
		vtext=$(MANWIDTH=4000 man -l "$f" 2>/dev/null | col -b)
		missing=()
		for o in $opts; do
			grep -qE -- "(^|[^A-Za-z-])$o([^A-Za-z-]|\$)" <<<"$vtext" || missing+=("$o")
		done
		if [ -n "$opts" ] && [ ${#missing[@]} -eq 0 ]; then ok "every option of memstat ${verb:+$verb }--help is in $name.8"
		else bad "every option of memstat ${verb:+$verb }--help is in $name.8" "missing: ${missing[*]}"; fi
		if "$bin" $verb --help | grep -qF "$name(8)"; then ok "memstat ${verb:+$verb }--help names $name(8)"
		else bad "memstat ${verb:+$verb }--help names $name(8)"; fi
	done
	text=$(MANWIDTH=4000 man -l "$page" 2>/dev/null | col -b)

	# the output fields memstat prints now: the keys of --json (and of its approx and timings
	# objects), the metric names of a Prometheus file, the lines of --features
	fields=$( { "$bin" --json --approx --seed 1 | /usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
keys = set(d) | set(d["pages"]) | set(d["detail"]) | set(d["timings"]) | set(d["approx"])
print("\n".join(sorted(keys)))'
		"$bin" -o "$tmp/m.prom" -f prom --approx >/dev/null && grep -oE '^memstat_[a-z_]+' "$tmp/m.prom"
		"$bin" --features | sed -n 's/^\([^:]*\):.*/\1/p'; } 2>&1 | sort -u)
	missing=()
	while read -r f; do
		grep -qF -- "$f" <<<"$text" || missing+=("$f")
	done <<<"$fields"
	if [ "$(wc -l <<<"$fields")" -ge 60 ] && [ ${#missing[@]} -eq 0 ]; then
		ok "every JSON key, Prometheus metric and --features line memstat prints is in the man page"
	else bad "every JSON key, Prometheus metric and --features line memstat prints is in the man page" \
		"fields: $(wc -l <<<"$fields")" "missing: ${missing[*]}"; fi

	# the exit codes of docs/output-formats.md's table, each an entry of EXIT STATUS
	codes=$(sed -n '/^## Exit codes/,/^## /p' "$root/docs/output-formats.md" | sed -nE 's/^\| ([0-9]+) \|.*/\1/p')
	status=$(sed -n '/^EXIT STATUS/,/^[A-Z]/p' <<<"$text")
	missing=()
	for c in $codes; do
		grep -qE "^ +$c\$" <<<"$status" || missing+=("$c")
	done
	if [ -n "$codes" ] && [ ${#missing[@]} -eq 0 ]; then ok "every exit code of docs/output-formats.md's table is in EXIT STATUS ($(echo $codes))"
	else bad "every exit code of docs/output-formats.md's table is in EXIT STATUS" "docs/output-formats.md: $(echo $codes)" "missing: ${missing[*]}"; fi
fi

# ---- completion ----
comp_bash=$root/contrib/completion/memstat.bash
comp_zsh=$root/contrib/completion/_memstat
# the class and sub-class names memstat knows: the keys of "pages" (less total) and "detail"
classes=$("$bin" --json 2>/dev/null | /usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
print("\n".join(sorted(set(k for k in d["pages"] if k != "total") | set(d["detail"]))))')
if [ "$(wc -w <<<"$classes")" -lt 20 ]; then
	bad "class names from memstat --json" "got: $classes"
fi

# shellcheck source=/dev/null
source "$comp_bash"
# COMPLETE "WORDS..." EXPECTED: complete the last word (empty with a trailing space) like bash does
complete_case() {
	local line=$1 want=$2 got
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_memstat
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
	want=$(tr ' ' '\n' <<<"$want" | sort | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$want" ]; then ok "bash completion of '$line'"
	else bad "bash completion of '$line'" "want: $want" "got:  $got"; fi
}
complete_case "memstat al" "allpages"
complete_case "memstat --back" "--backend"
complete_case "memstat --backend " "auto bpf kmod kpageflags"
complete_case "memstat -b k" "kmod kpageflags"
complete_case "memstat allpages --backend " "auto bpf kmod"
complete_case "memstat -f " "csv jsonl prom"
complete_case "memstat allpages -f " "text csv jsonl"
complete_case "memstat allpages --ra" "--raw-pointers"
complete_case "memstat --ro" "--rotate-incompatible"
complete_case "memstat allpages --class page_c" "page_cache page_cache_buffers page_cache_file page_cache_swapcache"
complete_case "memstat allpages --class anon,free_p" "anon,free_pcp"
complete_case "memstat allpages --class kernel_sl" "kernel_slab kernel_slab_reclaimable kernel_slab_unreclaimable"
touch "$tmp/samples.csv"
complete_case "memstat -o $tmp/sam" "$tmp/samples.csv"
complete_case "memstat --output $tmp/sam" "$tmp/samples.csv"
complete_case "memstat ma" "map"
complete_case "memstat pl" "plot"
complete_case "memstat di" "diff"
complete_case "memstat --compare " "free slabtop smem"
complete_case "memstat diff --j" "--json"
complete_case "memstat diff --f" "--from"
complete_case "memstat diff $tmp/sam" "$tmp/samples.csv"
complete_case "memstat map --o" "--output"
complete_case "memstat map -b " "auto bpf kmod kpageflags"
complete_case "memstat plot -" "--hide --only --log -o --output -h --help"
complete_case "memstat plot --hide anon,fr" "anon,free"
complete_case "memstat plot $tmp/sam" "$tmp/samples.csv"
complete_case "memstat plot -o $tmp/sam" "$tmp/samples.csv"
complete_case "memstat rm" "rmss"
complete_case "memstat rmss --cg" "--cgroup"
complete_case "memstat rmss -n 1 --pl" "--plot"
complete_case "memstat rmss -o $tmp/sam" "$tmp/samples.csv"

# the static lists equal what the binary prints, so a new option or class without completion fails
set_eq() {	# NAME WANT GOT
	local w g
	w=$(tr -s ' \t' '\n\n' <<<"$2" | grep . | sort -u)
	g=$(tr -s ' \t' '\n\n' <<<"$3" | grep . | sort -u)
	if [ "$w" = "$g" ]; then ok "$1"
	else bad "$1" "only in memstat: $(comm -23 <(echo "$w") <(echo "$g") | tr '\n' ' ')" \
		"only in the completion: $(comm -13 <(echo "$w") <(echo "$g") | tr '\n' ' ')"; fi
}
set_eq "bash completion: the options of memstat --help" "$main_opts" "$_memstat_opts"
set_eq "bash completion: the options of memstat allpages --help" "$ap_opts" "$_memstat_allpages_opts"
set_eq "bash completion: the options of memstat map --help" "$map_opts" "$_memstat_map_opts"
set_eq "bash completion: the options of memstat plot --help" "$plot_opts" "$_memstat_plot_opts"
set_eq "bash completion: the options of memstat diff --help" "$diff_opts" "$_memstat_diff_opts"
set_eq "bash completion: the options of memstat rmss --help" "$rmss_opts" "$_memstat_rmss_opts"
set_eq "bash completion: the options of memstat serve --help" "$serve_opts" "$_memstat_serve_opts"
set_eq "bash completion: the class names of memstat --json" "$classes" "$_memstat_classes"
zsh_classes=$(sed -n '/^classes=(/,/)/p' "$comp_zsh" | tr -d '()' | sed 's/classes=//')
set_eq "zsh completion: the class names of memstat --json" "$classes" "$zsh_classes"
missing=()
for o in $main_opts $ap_opts $map_opts $plot_opts $diff_opts $rmss_opts $serve_opts; do
	grep -qE -- "(^|[^A-Za-z-])$o([^A-Za-z-]|\$)" "$comp_zsh" || missing+=("$o")
done
if [ ${#missing[@]} -eq 0 ]; then ok "zsh completion names every option of --help"
else bad "zsh completion names every option of --help" "missing: ${missing[*]}"; fi
if command -v zsh >/dev/null; then
	if out=$(zsh -n "$comp_zsh" 2>&1); then ok "zsh -n _memstat"
	else bad "zsh -n _memstat" "$out"; fi
	# the completion in an interactive zsh: each LINE and Tab must insert WORD
	zcases=0
	while read -r res; do
		zcases=$((zcases + 1))
		case $res in
		PASS*) ok "${res#PASS }";;
		*) bad "${res#FAIL }";;
		esac
	done < <(zsh -f "$root/tests/zsh_complete.zsh" "$(dirname "$comp_zsh")" \
		"memstat al" allpages \
		"memstat --rot" rotate-incompatible \
		"memstat --backend kp" kpageflags \
		"memstat -f p" prom \
		"memstat allpages -f j" jsonl \
		"memstat allpages --raw" raw-pointers \
		"memstat allpages --class anon,page_cache_s" page_cache_swapcache 2>&1)
	[ $zcases -ge 7 ] || bad "zsh completion: $zcases results from tests/zsh_complete.zsh, not 7"
else
	bad "zsh -n _memstat: zsh is missing (tools/setup.sh test installs it)"
fi

# ---- tools/setup.sh: a lighter first run ----
# `setup.sh run` installs only what building and running needs; `setup.sh test` everything
run_pk=$(bash "$root/tools/setup.sh" --print-packages run)
test_pk=$(bash "$root/tools/setup.sh" --print-packages test)
heavy=$(grep -xE 'libgtest-dev|python3-pytest|python3-prometheus-client|libclang-rt-dev|qemu-system-x86|debootstrap|busybox-static|bison|flex|libssl-dev|zsh' <<<"$run_pk")
if grep -qx clang <<<"$run_pk" && grep -qx scdoc <<<"$run_pk" && [ -z "$heavy" ]; then
	ok "setup.sh run: the build packages only"
else bad "setup.sh run: the build packages only" "run installs: $(echo $run_pk)"; fi
missing=()
for p in $run_pk libgtest-dev python3-pytest libclang-rt-dev qemu-system-x86 debootstrap bison zsh man-db; do
	grep -qx "$p" <<<"$test_pk" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then ok "setup.sh test: the build, test and VM packages"
else bad "setup.sh test: the build, test and VM packages" "missing: ${missing[*]}"; fi

# ---- make install / make uninstall into a temporary DESTDIR ----
install_case() {	# NAME PREFIX-ARGS SBIN MAN BASH UNIT ZSH LOGROTATE
	local name=$1 args=$2 dest=$tmp/dest-$1 out f missing=() extra
	shift 2
	if ! out=$(MAKEFLAGS= make --no-print-directory -s -C "$root" BUILD="$build" DESTDIR="$dest" $args install 2>&1); then
		bad "make install ($name)" "$out"; return
	fi
	for f in "$@"; do [ -f "$dest$f" ] || missing+=("$f"); done
	extra=$(cd "$dest" && find . -type f | sed 's/^\.//' | sort | comm -23 - <(printf '%s\n' "$@" | sort))
	if [ ${#missing[@]} -eq 0 ] && [ -z "$extra" ]; then ok "make install ($name) puts each file in its place"
	else bad "make install ($name) puts each file in its place" "missing: ${missing[*]}" "unexpected: $extra"; fi
	local unit_exec
	unit_exec=$(sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p' "$dest$4")
	if [ "$unit_exec" = "$1" ]; then ok "installed unit's ExecStart is the installed binary ($1)"
	else bad "installed unit's ExecStart is the installed binary" "want $1" "got: $unit_exec"; fi
	local v_inst v_build
	v_inst=$("$dest$1" --version 2>&1)
	v_build=$("$bin" --version 2>&1)
	if [ -n "$v_inst" ] && [ "$v_inst" = "$v_build" ]; then ok "installed memstat --version ($v_inst)"
	else bad "installed memstat --version" "installed: $v_inst" "built: $v_build"; fi
	if ! out=$(MAKEFLAGS= make --no-print-directory -s -C "$root" BUILD="$build" DESTDIR="$dest" $args uninstall 2>&1); then
		bad "make uninstall ($name)" "$out"; return
	fi
	left=$(cd "$dest" && find . ! -type d)
	if [ -z "$left" ]; then ok "make uninstall ($name) leaves no file"
	else bad "make uninstall ($name) leaves no file" "left: $left"; fi
}
install_case default "" /usr/local/sbin/memstat /usr/local/share/man/man8/memstat.8 \
	/usr/local/share/bash-completion/completions/memstat \
	/usr/local/lib/systemd/system/memstat.service /usr/local/lib/systemd/system/memstat-serve.service \
	/usr/local/share/man/man8/memstat-serve.8 \
	/usr/local/share/zsh/vendor-completions/_memstat /etc/logrotate.d/memstat \
	/usr/local/share/man/man8/memstat-allpages.8 /usr/local/share/man/man8/memstat-diff.8 /usr/local/share/man/man8/memstat-map.8 \
	/usr/local/share/man/man8/memstat-plot.8 /usr/local/share/man/man8/memstat-rmss.8
install_case usr "PREFIX=/usr" /usr/sbin/memstat /usr/share/man/man8/memstat.8 \
	/usr/share/bash-completion/completions/memstat \
	/usr/lib/systemd/system/memstat.service /usr/lib/systemd/system/memstat-serve.service \
	/usr/share/man/man8/memstat-serve.8 \
	/usr/share/zsh/vendor-completions/_memstat /etc/logrotate.d/memstat \
	/usr/share/man/man8/memstat-allpages.8 /usr/share/man/man8/memstat-diff.8 /usr/share/man/man8/memstat-map.8 \
	/usr/share/man/man8/memstat-plot.8 /usr/share/man/man8/memstat-rmss.8

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
