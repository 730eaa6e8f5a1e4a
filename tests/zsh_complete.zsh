# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Drives the zsh completion contrib/completion/_memstat in an interactive zsh on a pseudo-terminal
# (zsh/zpty): types each LINE, presses Tab, and waits up to 20 s for the completed WORD to be
# echoed. Prints "PASS|FAIL zsh completion of 'LINE'" per case. Used by tests/pkg_test.sh.
# Usage: zsh -f tests/zsh_complete.zsh COMPLETION_DIR LINE WORD [LINE WORD ...]
zmodload zsh/zpty || { print "FAIL zsh completion: no zsh/zpty module"; exit 1 }
zmodload zsh/datetime
dir=$1; shift
zpty z 'zsh -f -i'
zpty -w z "fpath=($dir \$fpath); autoload -U compinit; compinit -u -D; PS1='READY%% '; print -r -- START'ED'"
# read until PATTERN is in what the shell echoed, or 20 s pass
wait_for() {
	local l start=$EPOCHREALTIME
	out=
	while (( EPOCHREALTIME - start < 20 )); do
		while zpty -r -t z l; do out+=$l; done
		[[ $out == *$1* ]] && return 0
		sleep 0.05
	done
	return 1
}
wait_for STARTED || { print "FAIL zsh completion: the shell did not start"; exit 1 }
rc=0
while (( $# >= 2 )); do
	line=$1 word=$2; shift 2
	zpty -w -n z "$line"$'\t'
	if wait_for "$word"; then
		print -r -- "PASS zsh completion of '$line'"
	else
		print -r -- "FAIL zsh completion of '$line': no '$word' in ${(q)out}"
		rc=1
	fi
	# clear the line and wait for a fresh prompt
	zpty -w z $'\C-u'"print -r -- DO'NE'"
	wait_for DONE
done
zpty -d z
exit $rc
