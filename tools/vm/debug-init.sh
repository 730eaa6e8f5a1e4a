#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# /init of the debug-kernel VM that tools/vm/debug-kernel.sh boots (busybox sh, PID 1): the
# kernel module under KASAN, lockdep, DEBUG_PAGEALLOC and kmemleak. Channels as in init.sh:
# the console (ttyS0) for people and for the host's search for kernel reports; /dev/ttyS1 for
# "@@ rc STEP CODE" records (every step must end with 0), "@@ kmemleak-memstat N" and "@@ end".
# Each step is also written to the kernel log ("memstat-debug: step ..."), so that a report on
# the console can be told apart by the step it follows. No `set -e`: PID 1 must reach the end.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root TERM=dumb

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/shm /tmp /root
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

if [ -c /dev/ttyS1 ]; then
	exec 3>/dev/ttyS1
else
	exec 3>/dev/null
	echo "debug-init: no /dev/ttyS1: the host will see no results"
fi
R() { echo "@@ $*" >&3; }
step() {
	echo "memstat-debug: step $*" >/dev/kmsg
	echo
	echo "======== memstat-debug: $* ========"
}
# run NAME CMD...: run, show its output, record its exit status
run() {
	name=$1
	shift
	step "$name"
	"$@"
	r=$?
	R "rc $name $r"
	return $r
}

R "start"
R "uname $(uname -r)"
R "cmdline $(cat /proc/cmdline)"
# debug_pagealloc maps all memory with 4 KiB pages (x86 probe_page_size_mask()): the proof it is on
R "directmap $(grep DirectMap /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
KL=/sys/kernel/debug/kmemleak
# what leaked before the module was loaded is not its doing: scan, then forget it
if [ -f $KL ]; then
	echo scan >$KL
	echo clear >$KL
fi

M=/bin/memstat
run insmod insmod /lib/modules/memstat.ko || { R "end"; sync; reboot -f; }
run summary $M --backend kmod -v
run reconcile $M --backend kmod --reconcile
# allpages: the first, a middle and the last full section of the largest RAM range
rs=0
re=0
while read -r range colon what; do
	[ "$what" = "System RAM" ] || continue
	s=$(((0x${range%-*} + 4095) / 4096))
	e=$(((0x${range#*-} + 1) / 4096))
	[ $((e - s)) -gt $((re - rs)) ] && rs=$s && re=$e
done </proc/iomem
if [ "$re" -gt $((rs + 3 * 32768)) ]; then
	for a in $rs $(((rs + re) / 2 / 32768 * 32768)) $((re - 32768)); do
		step "allpages $a"
		$M allpages --backend kmod --pfn $a-$((a + 32767)) --format csv >/tmp/ap.csv
		r=$?
		lines=$(wc -l </tmp/ap.csv)
		echo "allpages from pfn $a: exit $r, $lines lines"
		[ $r = 0 ] && [ "$lines" = 32769 ] || r="${r}-lines-$lines"
		R "rc allpages-$a $r"
	done
	step allpages-raw
	$M allpages --backend kmod --pfn $rs-$((rs + 1023)) --raw-pointers --format csv >/dev/null
	R "rc allpages-raw $?"
else
	R "rc allpages-range no-large-RAM-range:$rs-$re"
fi
run kmod-abuse /bin/kmod_abuse 40

step "two walks at once"
$M --backend kmod --json >/tmp/k1.json 2>/tmp/k1.err &
k1=$!
$M allpages --backend kmod --format csv >/tmp/k2.csv 2>/tmp/k2.err
r2=$?
wait $k1
r1=$?
cat /tmp/k1.err /tmp/k2.err
[ $r1 = 0 ] && [ $r2 = 0 ] && R "rc two-walks 0" || R "rc two-walks $r1-$r2"

# a memory block offline (movablecore gives movable blocks), walked, then online again
step "a memory block offline"
blk=
for b in /sys/devices/system/memory/memory*; do
	[ "$(cat "$b/online" 2>/dev/null)" = 1 ] || continue
	grep -q Movable "$b/valid_zones" 2>/dev/null || continue
	if echo offline >"$b/state" 2>/dev/null; then
		blk=$b
		break
	fi
done
if [ -n "$blk" ]; then
	echo "offlined ${blk##*/}"
	run offline-walk $M --backend kmod -v
	step offline-allpages
	$M allpages --backend kmod --format csv >/dev/null
	R "rc offline-allpages $?"
	echo online_movable >"$blk/state"
	R "rc online-again $?"
else
	R "rc offline no-movable-block-could-be-offlined"
fi

# --wss with the idle page bitmap (this kernel has no MGLRU): a toucher of 256 MiB writing 64
# MiB of it every 100 ms; the host checks the counts (debug-kernel.sh)
if [ -e /sys/kernel/mm/page_idle/bitmap ]; then
	step wss
	rm -f /tmp/toucher.ready
	/bin/toucher /tmp/toucher.ready 256 64 &
	tp=$!
	i=0
	while [ ! -e /tmp/toucher.ready ] && kill -0 $tp 2>/dev/null && [ $i -lt 600 ]; do
		sleep 1
		i=$((i + 1))
	done
	sleep 1
	$M --backend kmod --wss 10 --json >/tmp/wss.json
	r=$?
	$M --backend kmod --wss 2 | sed 's/^/wss-table: /'
	kill $tp
	wait $tp
	cat /tmp/wss.json
	R "rc wss $r"
	R "wss-json $(tr -d '\n' </tmp/wss.json)"
else
	R "rc wss no-idle-page-bitmap"
fi

# the module is still loaded, so that its frames in kmemleak's backtraces have names; every
# file is closed, so that whatever a walk allocated has been freed
if [ -f $KL ]; then
	step "kmemleak scan"
	# an object is reported once it is 5 s old and two scans found no reference to it
	sleep 6
	echo scan >$KL
	echo scan >$KL
	cat $KL >/tmp/leaks
	echo "kmemleak: $(grep -c 'unreferenced object' /tmp/leaks) unreferenced objects since the module was loaded"
	cat /tmp/leaks
	# the leaks whose allocation backtrace passes through the module: a frame named [memstat],
	# or one left as a bare address (every frame in vmlinux has a name: KALLSYMS)
	R "kmemleak-memstat $(awk '/unreferenced object/ { if (m) n++; m = 0 } /\[memstat\]|\] 0x[0-9a-f]+$/ { m = 1 } END { if (m) n++; print n + 0 }' /tmp/leaks)"
	R "kmemleak-all $(grep -c 'unreferenced object' /tmp/leaks)"
else
	R "kmemleak-memstat no-kmemleak"
fi

run rmmod rmmod memstat
if [ -e /dev/memstat ]; then R "rc dev-gone still-there"; else R "rc dev-gone 0"; fi

# Lockdown enforces module signatures (the kernel has MODULE_SIG, not MODULE_SIG_FORCE): the
# unsigned memstat.ko loaded above is refused now; the copy signed with the kernel's own
# build-time key loads, and the module answers without raw pointers, as it must where it
# replaces BPF. Lockdown cannot be lifted, so this is the last step.
step "lockdown"
mkdir -p /sys/kernel/security
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
echo confidentiality >/sys/kernel/security/lockdown
R "rc lockdown-raised $?"
echo "lockdown: $(cat /sys/kernel/security/lockdown 2>&1)"
if insmod /lib/modules/memstat.ko 2>/tmp/ld-insmod.err; then
	R "rc lockdown-unsigned-refused loaded"
	rmmod memstat
else
	cat /tmp/ld-insmod.err
	R "rc lockdown-unsigned-refused 0"
fi
run lockdown-signed-insmod insmod /lib/modules/memstat-signed.ko
run lockdown-summary $M --backend kmod -v
run lockdown-reconcile $M --backend kmod --reconcile
run lockdown-attrs $M --backend kmod -a
step lockdown-raw-pointers
$M allpages --backend kmod --pfn $rs-$((rs + 1023)) --raw-pointers --format csv >/dev/null 2>/tmp/ld-raw.err
r=$?
cat /tmp/ld-raw.err
# refused with exit 4 (not permitted), the last line naming the lockdown (the lines before it
# say that this kernel has no BTF)
if [ $r = 4 ] && tail -n 1 /tmp/ld-raw.err | grep -q 'locked down'; then
	R "rc lockdown-raw-pointers-refused 0"
else
	R "rc lockdown-raw-pointers-refused exit-$r"
fi
run lockdown-rmmod rmmod memstat

step "done"
R "end"
sync
# no ACPI in this kernel: a reset ends the VM (qemu -no-reboot)
reboot -f
