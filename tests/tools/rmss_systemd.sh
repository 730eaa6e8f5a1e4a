#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# memstat rmss --cgroup under systemd: tests/deb_test.sh runs it in the Debian 12 machine it
# boots with the packages installed (systemd is PID 1, cgroup v2). It checks docs/rmss.md's
# "Where the cgroup is made": the command runs in memstat-rmss-PID.scope/command, a scope that
# systemd made with Delegate=yes; nothing outside the scope is changed; after a normal run and
# after kill -9 of the driver, the scope, its cgroups and the command are gone within seconds.
# Records to /dev/ttyS1: "@@ sd ok NAME" or "@@ sd-fail NAME: why".

exec 3>/dev/ttyS1
R() { echo "@@ $*" >&3; }
ok() { R "sd ok $1"; echo "sd-test: ok $1"; }
bad() { R "sd-fail $1: $2"; echo "sd-test: FAIL $1: $2"; }
M=/usr/sbin/memstat
CG=/sys/fs/cgroup

R "sd systemd $(systemctl --version | head -n 1 | tr -d '()') cgroup $(stat -f -c %T $CG)"

# no memstat-rmss scope unit, loaded or not, and no such cgroup anywhere (within 10 s)
no_scope_within() {
	i=0
	while [ $i -lt 100 ]; do
		units=$(systemctl list-units --all --plain --no-legend 'memstat-rmss-*' 2>/dev/null)
		dirs=$(find $CG -name 'memstat-rmss-*' 2>/dev/null)
		[ -z "$units$dirs" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "left: units [$units] cgroups [$dirs]"
	return 1
}
subtree_before=$(cat $CG/cgroup.subtree_control $CG/system.slice/cgroup.subtree_control 2>&1)

# 1. a whole run: the command reports its cgroup
cd /tmp || exit 1
$M rmss --cgroup -s 96 -f 64 -d 32 -n 1 -o /tmp/r1.out -- \
	sh -c 'cat /proc/self/cgroup >/tmp/cmd.cgroup' >/tmp/r1.stdout 2>/tmp/r1.err
r=$?
cat /tmp/r1.err
cg=$(cat /tmp/cmd.cgroup 2>/dev/null)
echo "the command's cgroup: $cg"
if [ $r != 0 ]; then
	bad run "rmss --cgroup exited $r: $(head -n 1 /tmp/r1.err)"
elif ! echo "$cg" | grep -qE '^0::/.*/memstat-rmss-[0-9]+\.scope/command$'; then
	bad run "the command ran in [$cg], not in memstat-rmss-PID.scope/command"
elif grep -q 'systemd-run could not' /tmp/r1.err; then
	bad run "$(head -n 1 /tmp/r1.err)"
else
	ok run
fi
if no_scope_within; then ok run-cleaned; else bad run-cleaned "$(no_scope_within)"; fi
subtree_after=$(cat $CG/cgroup.subtree_control $CG/system.slice/cgroup.subtree_control 2>&1)
[ "$subtree_before" = "$subtree_after" ] && ok subtree-unchanged ||
	bad subtree-unchanged "before [$subtree_before], after [$subtree_after]"

# 2. kill -9 of the driver while the command runs in the scope
$M rmss --cgroup -s 96 -f 64 -d 32 -n 1 -o /tmp/r2.out -- sleep 1000 >/dev/null 2>/tmp/r2.err &
drv=$!
procs=
i=0
while [ $i -lt 300 ]; do
	procs=$(cat $CG/system.slice/memstat-rmss-$drv.scope/command/cgroup.procs 2>/dev/null)
	[ -n "$procs" ] && break
	sleep 0.1
	i=$((i + 1))
done
if [ -z "$procs" ]; then
	bad kill9 "the command never ran in system.slice/memstat-rmss-$drv.scope/command ($(head -n 1 /tmp/r2.err))"
else
	echo "the command: pid $procs; the guardian: $(cat $CG/system.slice/memstat-rmss-$drv.scope/guard/cgroup.procs)"
	kill -9 $drv
	if no_scope_within; then
		left=
		for p in $procs; do [ -d /proc/$p ] && left="$left $p"; done
		[ -z "$left" ] && ok kill9 || bad kill9 "the command still runs:$left"
	else
		bad kill9 "$(no_scope_within)"
	fi
fi
wait $drv 2>/dev/null
# nothing recorded is left for -r
$M rmss -r >/tmp/r3.out 2>&1
r=$?
[ $r = 0 ] && ok reset || bad reset "rmss -r exited $r: $(head -n 1 /tmp/r3.out)"
