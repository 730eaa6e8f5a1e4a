#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# /init of the test VMs that tools/vm/matrix.sh boots (busybox sh, PID 1). It runs memstat and
# its integration tests on the VM's kernel and powers the VM off. Two channels:
#   /dev/console (ttyS0): everything, for people; the host saves it as the serial log.
#   /dev/ttyS1: "@@ key value" records and "@@BEGIN name" ... "@@END name" blocks for the host to
#               parse; a separate port so that kernel messages can never tear a record.
# No `set -e`: PID 1 must reach poweroff whatever fails, and every failure is reported instead.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root TERM=dumb

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/shm /dev/pts /tmp /var/tmp /root
# the integration tests put a tmpfs file in /dev/shm and expect shmem pages there
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

if [ -c /dev/ttyS1 ]; then
	exec 3>/dev/ttyS1
else
	exec 3>/dev/null
	echo "init: no /dev/ttyS1: the host will see no results"
fi

R() { echo "@@ $*" >&3; }
# block NAME FILE [MAXBYTES]: copy a file to the results channel between markers
# VmallocUsed and Percpu of /proc/meminfo into file $1, read without starting a process
vm_counters() {
	local k v u
	while read -r k v u; do
		case $k in VmallocUsed:|Percpu:) echo "$k $v $u" ;; esac
	done </proc/meminfo >"$1"
}

block() {
	echo "@@BEGIN $1" >&3
	if [ -n "$3" ] && [ "$(wc -c <"$2")" -gt "$3" ]; then
		head -n 100 "$2" >&3
		echo "... (cut: $(wc -c <"$2") bytes; the last lines follow) ..." >&3
		tail -c "$3" "$2" >&3
	else
		cat "$2" >&3
	fi
	echo >&3
	echo "@@END $1" >&3
}
banner() { echo; echo "======== memstat-vm: $* ========"; }
finish() {
	R "end"
	sync
	poweroff -f
	# poweroff -f does not return; if it does, exiting PID 1 panics, and panic=-1 with
	# qemu -no-reboot ends the VM
	exit 1
}

# The capture kernel of a kdump (memstat.capture=1 on the command line kexec_crash gave it): save
# the crashed kernel's memory, /proc/vmcore, to the second disk for the host's memstat --core
# (tools/vm/matrix.sh MEMSTAT_VM_KDUMP), and power off
# the drivers the host found to be modules in this kernel, dependencies first; a failure is
# a result line, but for the capture kernel's ("quiet")
load_modules() {
	local m
	[ -f /lib/modules/order ] || return 0
	for m in $(cat /lib/modules/order); do
		if [ "$1" = quiet ]; then
			insmod "/lib/modules/$m.ko" 2>/dev/null
		elif ! insmod "/lib/modules/$m.ko"; then
			R "insmod-fail $m"
		fi
	done
}

# wait up to 10 s for block device $1
wait_disk() {
	local i=0
	while [ ! -b "$1" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

if grep -q 'memstat.capture=1' /proc/cmdline; then
	R "kdump-capture $(uname -r)"
	load_modules quiet
	wait_disk /dev/vdb
	if [ ! -r /proc/vmcore ]; then
		R "kdump-fail the capture kernel has no /proc/vmcore"
	elif [ ! -b /dev/vdb ]; then
		R "kdump-fail the capture kernel has no second disk (/dev/vdb)"
	else
		size=$(stat -c %s /proc/vmcore)
		t0=$(date +%s)
		if dd if=/proc/vmcore of=/dev/vdb bs=1M 2>/tmp/dd.err; then
			sync
			R "kdump-saved $size bytes in $(($(date +%s) - t0)) s"
		else
			R "kdump-fail dd of /proc/vmcore ($size bytes): $(tail -n 1 /tmp/dd.err)"
		fi
	fi
	R "end"
	sync
	poweroff -f
	exit 1
fi

R "start"
R "uname $(uname -r)"
R "cmdline $(cat /proc/cmdline)"
R "memtotal_kb $(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
banner "kernel $(uname -r)"

load_modules

# the test disk: ext4 on virtio, so that file tests use a real page-cache file system (the
# initramfs is rootfs, whose files are not ordinary page cache)
wait_disk /dev/vda
if mount -t ext4 /dev/vda /var/tmp; then
	R "disk ok"
	# the large shared library the exec test maps must live on that disk too: bind its
	# directory over the path that the test's glob searches
	if [ -d /var/tmp/lib ]; then
		mkdir -p /usr/lib/x86_64-linux-gnu
		mount --bind /var/tmp/lib /usr/lib/x86_64-linux-gnu
		R "lib $(ls /usr/lib/x86_64-linux-gnu | tr '\n' ' ')"
	fi
else
	R "disk-fail mount of /dev/vda on /var/tmp failed"
fi
chmod 1777 /var/tmp 2>/dev/null

MEMSTAT=/bin/memstat
export MEMSTAT

# a kdump at the end (memstat.kdump=1, with crashkernel=): the capture kernel is loaded now,
# before the module's lockdown check below (a locked-down kernel loads only a kernel whose
# signature it can check, and this VM has no keys for Debian's); its files are freed after
kdump=0
if grep -q 'memstat.kdump=1' /proc/cmdline; then
	if [ ! -f /kdump/vmlinuz ] || [ ! -f /kdump/capture.cpio ]; then
		R "kdump-fail the initramfs has no /kdump/vmlinuz or /kdump/capture.cpio"
	elif kexec_crash /kdump/vmlinuz /kdump/capture.cpio \
		"console=ttyS0 quiet panic=-1 memstat.capture=1 irqpoll nr_cpus=1 reset_devices" \
		2>/tmp/kexec.err; then
		kdump=1
		R "kdump-loaded $(cat /sys/kernel/kexec_crash_size 2>/dev/null) bytes reserved"
	else
		R "kdump-fail $(head -n 1 /tmp/kexec.err) ($(grep -o 'crashkernel=[^ ]*' /proc/cmdline || echo 'no crashkernel='))"
	fi
	rm -rf /kdump
fi
# a test VM: tests may switch machine-wide settings here that they leave alone elsewhere (MGLRU
# on a kernel that builds it off: mglru_test.cc)
export MEMSTAT_IN_TEST_VM=1
# the two-node boot (matrix.sh MEMSTAT_VM_NUMA): ByNode's tests check that they see the nodes
n=$(sed -n 's/.*memstat\.numa_nodes=\([0-9]*\).*/\1/p' /proc/cmdline)
[ -z "$n" ] || export MEMSTAT_VM_NUMA_NODES=$n

# a. the tables
banner "memstat"
$MEMSTAT 2>/tmp/memstat.err
rc=$?
cat /tmp/memstat.err
R "rc memstat $rc"

# Fell back to /proc/kpageflags? Then record why, and libbpf's verifier log. A program the
# verifier rejects after 1M instructions takes minutes per load under TCG (measured: 165 s for
# walk_cast + walk on 7.3), and every later walk would load it again: so the verifier run is
# bounded, and the steps that need the bpf backend are skipped (the host reports them).
bpf=1
if grep -q "bpf backend unavailable" /tmp/memstat.err; then
	bpf=0
	R "fallback $(grep -m1 'bpf backend unavailable' /tmp/memstat.err)"
	banner "verifier log (MEMSTAT_DEBUG=2 memstat --backend bpf)"
	# bounded to a quarter of the VM's time, so that the logs and dmesg still get out
	timeout $(( ${MEMSTAT_VM_TEST_TIMEOUT:-900} / 3 )) env MEMSTAT_DEBUG=2 $MEMSTAT --backend bpf --features >/dev/null 2>/tmp/verifier.log
	R "rc memstat-debug $?"
	tail -n 60 /tmp/verifier.log
	block verifier-log /tmp/verifier.log 4000000
	# the remaining tables from kpageflags, which loads nothing
	MEMSTAT="/bin/memstat --backend kpageflags"
fi

banner "memstat -v"
$MEMSTAT -v 2>>/tmp/memstat.err
rc=$?
R "rc memstat-v $rc"

# b. reconciliation with /proc/meminfo: the table for people, the JSON for the host
banner "memstat --reconcile"
$MEMSTAT --reconcile
R "rc memstat-reconcile $?"
$MEMSTAT --reconcile --json >/tmp/reconcile.json 2>/tmp/reconcile.err
rc=$?
cat /tmp/reconcile.err
R "rc memstat-reconcile-json $rc"
block reconcile-json /tmp/reconcile.json

# c. what the walker detected
if [ $bpf = 1 ]; then
	banner "memstat --features"
	$MEMSTAT --features >/tmp/features.txt 2>&1
	rc=$?
	cat /tmp/features.txt
	R "rc memstat-features $rc"
	block features /tmp/features.txt
	# what the verifier costs on this kernel, per program (most of a one-shot run's start-up):
	# MEMSTAT_DEBUG=3 prints each load's statistics; worker 1 is the walk verified once more
	MEMSTAT_DEBUG=3 $MEMSTAT --json --jobs 2 >/dev/null 2>/tmp/verifier-stats.txt
	R "verifier $(awk '/prog .*BEGIN PROG LOAD LOG/ { p = $3; gsub(/[^a-z_]/, "", p) }
		/^worker [0-9]+:/ { p = "worker" }
		/verification time/ { t = $(NF - 1) }
		/^processed/ { printf "%s %d insns %.0f ms; ", p, $2, t / 1000 }' /tmp/verifier-stats.txt)"
fi
MEMSTAT=/bin/memstat

# a --wss log for the picture in docs (make wss-picture boots with memstat.wsslog=1): memstat
# --wss 10 -o samples while the memory in use changes: 512 MiB of anonymous memory of which 64
# written every 100 ms; from 40 s on, a 256 MiB file mapped with 128 MiB of it read; from 80 s,
# 256 MiB more anonymous memory, all of it written; at 110 s the first 512 MiB freed; at 150 s
# memstat is stopped (SIGTERM: the window cut short is not written)
if grep -q 'memstat.wsslog=1' /proc/cmdline; then
	banner "a --wss log over time (make wss-picture)"
	wss_wait() {
		i=0
		while [ ! -e "$1" ] && [ $i -lt 600 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	}
	dd if=/dev/zero of=/var/tmp/wss.file bs=1M count=256 status=none
	sync
	echo 3 >/proc/sys/vm/drop_caches
	rm -f /tmp/t1 /tmp/t2 /tmp/t3 /tmp/wss.csv
	/bin/toucher /tmp/t1 512 64 &
	t1=$!
	wss_wait /tmp/t1
	$MEMSTAT --wss 10 -o /tmp/wss.csv 2>/tmp/wss.err &
	ms=$!
	sleep 40
	/bin/toucher /tmp/t2 256 128 /var/tmp/wss.file &
	t2=$!
	sleep 40
	/bin/toucher /tmp/t3 256 256 &
	t3=$!
	sleep 30
	kill $t1
	sleep 40
	kill -TERM $ms
	wait $ms
	R "rc wss-log $?"
	kill $t2 $t3
	wait $t1 $t2 $t3 2>/dev/null
	rm -f /var/tmp/wss.file
	cat /tmp/wss.err
	block wss-log /tmp/wss.csv
fi

# the kernel module, built by the host for this kernel: load it; its walk must reconcile too
banner "kernel module"
if [ -f /lib/modules/memstat.ko ]; then
	# the stress family makes the module's process list start with room for one, so that
	# growing it runs (the exec class is then compared with BPF's walk by the tests)
	kmod_args=
	grep -q 'memstat.stress=1' /proc/cmdline && kmod_args=first_mms=1
	if insmod /lib/modules/memstat.ko $kmod_args; then
		R "kmod loaded"
		$MEMSTAT --backend kmod --reconcile
		$MEMSTAT --backend kmod --reconcile --json >/tmp/kmod.json 2>/tmp/kmod.err
		R "rc memstat-kmod-reconcile $?"
		cat /tmp/kmod.err
		block kmod-reconcile-json /tmp/kmod.json
		# the ioctl fed bad input (tests/tools/kmod_abuse.c): every check must pass
		/bin/kmod_abuse >/tmp/abuse.txt 2>&1
		rc=$?
		cat /tmp/abuse.txt
		if [ $rc = 0 ]; then
			R "kmod abuse ok $(tail -n 1 /tmp/abuse.txt)"
		else
			R "kmod-abuse-fail exit $rc: $(grep -m 3 FAIL /tmp/abuse.txt | tr '\n' ' ')"
		fi
	else
		R "kmod-fail insmod memstat.ko failed"
	fi
else
	R "kmod-fail no memstat.ko for this kernel"
fi

# the load that KmodBackend.ClassesEqualTheBpfWalk must see in non-empty classes: a hugetlb pool
# (4 pages in use, 12 free), KSM-merged pages, and anonymous pages swapped out to zram (zsmalloc)
banner "load: hugetlb pool, KSM, zram swap"
vmload=
if [ -e /sys/block/zram0 ]; then
	for alg in lzo-rle lzo lz4; do
		echo $alg >/sys/block/zram0/comp_algorithm 2>/dev/null && break
	done
	echo 64M >/sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
		R "load-fail zram swap could not be set up"
else
	R "load-fail no /sys/block/zram0 (the zram module is missing)"
fi
echo 16 >/proc/sys/vm/nr_hugepages
echo 20 >/sys/kernel/mm/ksm/sleep_millisecs
echo 4096 >/sys/kernel/mm/ksm/pages_to_scan
echo 1 >/sys/kernel/mm/ksm/run
rm -f /tmp/vmload.ready
/bin/vmload /tmp/vmload.ready 4 >/tmp/vmload.log 2>&1 &
vmload=$!
i=0
while [ ! -e /tmp/vmload.ready ] && kill -0 $vmload 2>/dev/null && [ $i -lt 1800 ]; do
	sleep 0.1
	i=$((i + 1))
done
cat /tmp/vmload.log
# merged pages stay merged with ksmd stopped (run=0; run=2 would unmerge them): no scanning
# beside the tests
echo 0 >/sys/kernel/mm/ksm/run
if [ -e /tmp/vmload.ready ]; then
	R "load ok"
	export MEMSTAT_VM_LOAD=1
else
	R "load-fail $(tail -n 1 /tmp/vmload.log)"
fi
grep -E 'HugePages_(Total|Free)|SwapTotal|SwapFree' /proc/meminfo
echo "ksm pages_sharing $(cat /sys/kernel/mm/ksm/pages_sharing)"

# d. the integration tests (GoogleTest), bounded so that a hang still lets us report: three
# quarters of the VM's time (matrix.sh), the rest for the steps below. Under TCG the 7.3 kernel
# runs the suite twice as slowly as 6.18 (its verifier takes 3.5 times as long over the walk
# program, the summary's "verifier" figure): 600 s cut it short at 49 of 56 tests.
banner "integration tests"
if [ $bpf = 1 ]; then
	timeout "${MEMSTAT_VM_TEST_TIMEOUT:-900}" /bin/integration_tests \
		--gtest_output=json:/tmp/gtest.json 2>&1
	rc=$?
	R "rc integration-tests $rc"
	if [ -f /tmp/gtest.json ]; then
		block gtest-json /tmp/gtest.json
	fi
else
	echo "not run: the bpf backend did not load"
	R "tests-skipped the bpf backend did not load (each walk would repeat the failing verification)"
fi

# the load ends here: the stress steps below start from a quiet machine
if [ -n "$vmload" ]; then
	kill $vmload 2>/dev/null
	wait $vmload 2>/dev/null
	unset MEMSTAT_VM_LOAD
fi

# f. memstat --core: the host dumps this VM's memory through QEMU's monitor (the VM stops while
# it does; tools/vm/qemu_dump.py) and reads the dump; the walks just before and after it are
# what the dump's summary must lie between. The host answers on the third serial port.
banner "a dump of this VM's memory (memstat --core on the host)"
if [ $bpf = 1 ] && [ -c /dev/ttyS2 ]; then
	stty -F /dev/ttyS2 raw -echo 2>/dev/null
	[ -d /sys/firmware/qemu_fw_cfg ] || echo "no qemu_fw_cfg: the dump will have no VMCOREINFO note"
	# a program run from the ext4 disk: its text is page cache mapped executable (Exec and
	# libs), which the dump's walk must find through the file's i_mmap
	cp /bin/toucher /var/tmp/toucher-exec
	rm -f /tmp/exec.ready
	# run in a memory cgroup of its own, /memstat-dump (cgroup2, mounted here for it): the
	# dump's --by cgroup must name it by the path its kernfs_nodes give (qemu_dump.py)
	cg=/tmp/memstat-cg2
	mkdir -p $cg && mount -t cgroup2 none $cg 2>/dev/null &&
		echo +memory >$cg/cgroup.subtree_control 2>/dev/null && mkdir -p $cg/memstat-dump ||
		echo "no cgroup2 memory controller: the dump's cgroup is not put to the test"
	sh -c "echo \$\$ >$cg/memstat-dump/cgroup.procs 2>/dev/null; exec /var/tmp/toucher-exec /tmp/exec.ready 16 0" &
	texec=$!
	i=0
	while [ ! -e /tmp/exec.ready ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	for req in elf:elf flat:kdump-zlib; do
		name=${req%%:*}
		# and for the ELF dump each page's sub-class just before and after (--runs, gzip and
		# base64: some 100 KB): the host's allpages of the dump must agree on the pages that
		# did not change (qemu_dump.py pages_check)
		[ $name != elf ] || $MEMSTAT --runs >/tmp/runs-before.txt 2>/dev/null
		$MEMSTAT --json >/tmp/core-before.json 2>/dev/null
		# VmallocUsed and Percpu around the dump, no memstat running, read by the shell
		# itself (no process of its own: each has a kernel stack in vmalloc space);
		# qemu_dump.py meminfo_check: the dump's counters must give what /proc/meminfo says
		vm_counters /tmp/meminfo-before.txt
		R "dump-request $name ${req#*:}"
		ack=$(timeout 600 head -n 1 /dev/ttyS2)
		vm_counters /tmp/meminfo-after.txt
		$MEMSTAT --json >/tmp/core-after.json 2>/dev/null
		[ $name != elf ] || $MEMSTAT --runs >/tmp/runs-after.txt 2>/dev/null
		echo "host: ${ack:-no answer}"
		block core-before-$name /tmp/core-before.json
		block core-after-$name /tmp/core-after.json
		block meminfo-before-$name /tmp/meminfo-before.txt
		block meminfo-after-$name /tmp/meminfo-after.txt
		if [ $name = elf ]; then
			for w in before after; do
				gzip -9 </tmp/runs-$w.txt | base64 -w 0 >/tmp/runs-$w.b64
				block runs-$w-$name /tmp/runs-$w.b64
			done
		fi
	done
	kill $texec 2>/dev/null
	wait $texec 2>/dev/null
	rmdir $cg/memstat-dump 2>/dev/null
	umount $cg 2>/dev/null
	rm -f /var/tmp/toucher-exec
else
	R "dump-fail no third serial port (/dev/ttyS2) or no bpf backend"
fi
echo 2 >/sys/kernel/mm/ksm/run
swapoff /dev/zram0 2>/dev/null
echo 0 >/proc/sys/vm/nr_hugepages

# the stress family: walks while memory churns (THP on), a memory block offlined and onlined,
# reconciliation once it is quiet, and the benchmark (TCG: only relative numbers mean anything)
if [ $bpf = 1 ] && grep -q 'memstat.stress=1' /proc/cmdline; then
	banner "stress: walks under churn"
	echo always >/sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
	/bin/churn 30 256 >/tmp/churn.log 2>&1 &
	churn=$!
	n=0
	bad=0
	while kill -0 $churn 2>/dev/null; do
		$MEMSTAT --json >/dev/null 2>>/tmp/stress.err || bad=$((bad + 1))
		if [ -c /dev/memstat ]; then
			$MEMSTAT --backend kmod --json >/dev/null 2>>/tmp/stress.err || bad=$((bad + 1))
		fi
		n=$((n + 1))
	done
	wait $churn
	cat /tmp/churn.log /tmp/stress.err 2>/dev/null
	R "stress walks $n failed $bad"
	echo madvise >/sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null

	banner "stress: a memory block offline"
	# the first online movable block the kernel agrees to offline (one with holes, such as the
	# last block below 4 GiB, is refused with EINVAL)
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
		R "offlined ${blk##*/}"
		$MEMSTAT --json >/tmp/off-bpf.json
		R "rc offline-bpf $?"
		block offline-bpf-json /tmp/off-bpf.json
		$MEMSTAT --backend kmod --json >/tmp/off-kmod.json
		R "rc offline-kmod $?"
		block offline-kmod-json /tmp/off-kmod.json
		echo online_movable >"$blk/state" && R "onlined ${blk##*/}" ||
			R "stress-fail onlining ${blk##*/} again failed"
	else
		R "stress-fail no movable memory block could be offlined"
	fi
	$MEMSTAT --reconcile --json >/tmp/after.json
	block stress-reconcile-json /tmp/after.json
	$MEMSTAT --backend kmod --reconcile --json >/tmp/after-kmod.json
	block stress-kmod-reconcile-json /tmp/after-kmod.json

	banner "bench (TCG: relative numbers only)"
	/bin/bench --no-sweep /bin/memstat >/tmp/bench.txt 2>&1
	R "rc bench $?"
	cat /tmp/bench.txt
	block bench /tmp/bench.txt
fi

# the module once more: two walks at once (each open file has its own walker: both are served),
# then a clean unload while idle, after which --backend kmod says the module is not loaded
if [ -c /dev/memstat ]; then
	banner "kernel module: two walks at once, then rmmod"
	$MEMSTAT --backend kmod --json >/tmp/kc1.json 2>/tmp/kc1.err &
	k1=$!
	$MEMSTAT --backend kmod --json >/tmp/kc2.json 2>/tmp/kc2.err
	r2=$?
	wait $k1
	r1=$?
	cat /tmp/kc1.err /tmp/kc2.err
	if [ $r1 = 0 ] && [ $r2 = 0 ] && grep -q '"backend": *"kmod"' /tmp/kc1.json &&
		grep -q '"backend": *"kmod"' /tmp/kc2.json; then
		R "kmod concurrent ok"
	else
		R "kmod-concurrent-fail two walks at once exited $r1 and $r2"
	fi
	# the kernel locked down for confidentiality: allpages --raw-pointers is refused with exit 4
	# and one line; without it the module still answers, and so do -a and -v (lockdown is raised
	# at run time, one way, so this comes last before rmmod)
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
	if echo confidentiality >/sys/kernel/security/lockdown 2>/dev/null; then
		pfns=0x10000-0x103ff
		$MEMSTAT allpages --backend kmod --raw-pointers --pfn $pfns >/dev/null 2>/tmp/ld.err
		r1=$?
		$MEMSTAT allpages --backend kmod --pfn $pfns >/tmp/ld.out 2>/tmp/ld2.err
		r2=$?
		# -a and one-shot -v need no raw pointers: the module keeps the folios' counters
		$MEMSTAT --backend kmod -a --json >/tmp/ld3.out 2>/tmp/ld3.err
		r3=$?
		$MEMSTAT --backend kmod -v >/tmp/ld4.out 2>/tmp/ld4.err
		r4=$?
		# the BPF walk cannot load (no bpf_probe_read_kernel): one line that says why, exit 4
		$MEMSTAT --backend bpf >/dev/null 2>/tmp/ld5.err
		r5=$?
		cat /tmp/ld.err /tmp/ld2.err /tmp/ld3.err /tmp/ld4.err /tmp/ld5.err
		if [ $r1 = 4 ] && [ "$(wc -l </tmp/ld.err)" = 1 ] && grep -q 'locked down' /tmp/ld.err &&
			[ $r5 = 4 ] && [ "$(wc -l </tmp/ld5.err)" = 1 ] &&
			grep -q 'locked down for confidentiality' /tmp/ld5.err &&
			[ $r2 = 0 ] && [ "$(wc -l </tmp/ld.out)" -gt 1000 ] &&
			[ $r3 = 0 ] && grep -q '"dma_pinned": *[0-9]' /tmp/ld3.out &&
			[ $r4 = 0 ] && grep -q 'of which DMA-pinned' /tmp/ld4.out; then
			R "kmod lockdown ok"
		else
			R "kmod-lockdown-fail under lockdown: --raw-pointers exited $r1 ($(head -n 1 /tmp/ld.err)), without it $r2, -a $r3 ($(head -n 1 /tmp/ld3.err)), -v $r4 ($(head -n 1 /tmp/ld4.err)), --backend bpf $r5 ($(head -n 1 /tmp/ld5.err))"
		fi
	else
		R "kmod-lockdown-fail the kernel could not be locked down (no lockdown LSM?)"
	fi
	if rmmod memstat; then
		if [ -e /dev/memstat ]; then
			R "kmod-unload-fail /dev/memstat is still there after rmmod"
		else
			$MEMSTAT --backend kmod >/dev/null 2>/tmp/gone.err
			r=$?
			cat /tmp/gone.err
			if [ $r != 0 ] && grep -q 'not loaded' /tmp/gone.err; then
				R "kmod unloaded"
			else
				R "kmod-unload-fail after rmmod, memstat --backend kmod exited $r: $(head -n 1 /tmp/gone.err)"
			fi
		fi
	else
		R "kmod-unload-fail rmmod memstat failed"
	fi
fi

# e. the kernel log: any warning, BUG, oops or stack trace fails the kernel
banner "dmesg"
dmesg >/tmp/dmesg.txt
cat /tmp/dmesg.txt
grep -E 'WARNING:|(^|[^A-Za-z])BUG:|Oops|general protection|Call Trace' /tmp/dmesg.txt >/tmp/dmesg.bad
if [ -s /tmp/dmesg.bad ]; then
	while read -r line; do
		R "dmesg-bad $line"
	done </tmp/dmesg.bad
fi
R "dmesg_lines $(wc -l </tmp/dmesg.txt)"

# the kdump, last: the walk just before the crash, then a crash (sysrq c); the capture kernel
# loaded above saves the memory and ends the VM (its /init, at the top). A program runs from the
# ext4 disk meanwhile (its text is Exec and libs, found through the file's i_mmap); the pages
# the teardown above freed (the hugetlb pool) are given a moment to reach the buddy lists.
if [ $kdump = 1 ]; then
	banner "kdump: a crash, and the capture kernel saving /proc/vmcore"
	cp /bin/toucher /var/tmp/toucher-exec
	rm -f /tmp/exec.ready
	/var/tmp/toucher-exec /tmp/exec.ready 16 0 &
	i=0
	while [ ! -e /tmp/exec.ready ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 2
	$MEMSTAT --json >/tmp/kdump-before.json 2>/dev/null
	vm_counters /tmp/meminfo-kdump.txt
	block core-before-kdump /tmp/kdump-before.json
	block meminfo-before-kdump /tmp/meminfo-kdump.txt
	R "kdump-crash"
	sync
	echo 1 >/proc/sys/kernel/sysrq
	echo c >/proc/sysrq-trigger
	R "kdump-fail the kernel did not crash on sysrq c"
fi

umount /usr/lib/x86_64-linux-gnu 2>/dev/null
umount /var/tmp 2>/dev/null

banner "done"
finish
