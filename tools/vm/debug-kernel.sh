#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The kernel module under a debug kernel (`make vmtest-debug`): build a small x86_64 kernel with
# KASAN (generic, inline), lockdep (PROVE_LOCKING), DEBUG_PAGEALLOC (on at boot), kmemleak,
# DEBUG_ATOMIC_SLEEP and DEBUG_VM from Debian 12's linux-source-6.1 package, cached; build
# kmod/memstat.ko against it; boot it under qemu with the module and run tools/vm/debug-init.sh:
# memstat --backend kmod (summary, --reconcile, allpages of some sections), the ioctl abuse
# program (tests/tools/kmod_abuse.c), two walks at once, a memory block offline, a kmemleak
# scan, rmmod; then lockdown (confidentiality): the unsigned module refused, a copy signed with
# the kernel's build-time key (MODULE_SIG) loaded and walked. Then the console is searched for
# any KASAN, lockdep, BUG, WARNING, "sleeping function" or kmemleak report. One line at the end: "vmtest-debug PASS|FAIL ...", and exit
# status 0 (PASS), 1 (FAIL) or 2 (not run: a download, the kernel's configuration or build failed).
#
# Usage (as root, on Debian 12):
#   bash tools/vm/debug-kernel.sh [--build-only] [BUILD_DIR]
#     BUILD_DIR     where make put memstat, kmod_abuse and toucher (default build)
#     --build-only  build (or find) the kernel, print its build tree (the KDIR for make kmod)
# Environment:
#   MEMSTAT_VM_CACHE          the VM matrix's cache (default /var/cache/memstat-vm); the kernel is
#                             kept in debug-kernel/<linux-source version>-<config hash>/
#   MEMSTAT_VM_DEBUG_TIMEOUT  seconds the VM may take (default 900)
#   MEMSTAT_VM_DEBUG_JOBS     make -j for the kernel (default 2)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
CACHE=${MEMSTAT_VM_CACHE:-/var/cache/memstat-vm}
VM_TIMEOUT=${MEMSTAT_VM_DEBUG_TIMEOUT:-900}
JOBS=${MEMSTAT_VM_DEBUG_JOBS:-2}
SRC_PKG=linux-source-6.1

build_only=0
bdir=build
for a in "$@"; do
	case $a in
	--build-only) build_only=1 ;;
	-h | --help)
		sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*)
		echo "debug-kernel: unknown option $a" >&2
		exit 2
		;;
	*) bdir=$a ;;
	esac
done
case $bdir in /*) ;; *) bdir=$repo/$bdir ;; esac

say() { echo "debug-kernel: $*" >&2; }
result() { # the one line: PASS or FAIL and why
	echo "vmtest-debug $*"
	[ "$1" = PASS ] && exit 0 || exit 1
}
die() { # the test could not be run: the one line says why
	say "$*"
	echo "vmtest-debug FAIL (not run) $*"
	exit 2
}
[ "$(id -u)" -eq 0 ] || die "run as root (it installs packages and builds in $CACHE)"

# The private apt configuration of tools/vm/matrix.sh (the same options): it is made by the
# matrix; the first time, let the matrix make it (and fetch its 6.1 kernel, which is small).
APTDIR=$CACHE/apt
DEBS=$CACHE/debs
if [ ! -f "$APTDIR/sources.list" ] || [ ! -f "$APTDIR/updated" ]; then
	say "no private apt configuration in $CACHE yet: tools/vm/matrix.sh --fetch-only 6.1 makes it"
	bash "$here/matrix.sh" --fetch-only 6.1 >&2
fi
APT_OPTS=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
	-o "Dir::Cache::pkgcache=pkgcache.bin" -o "Dir::Cache::srcpkgcache=srcpkgcache.bin"
	-o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=/dev/null")

# what building a kernel needs beyond tools/setup.sh's packages
need=(bc bison flex libssl-dev openssl libelf-dev xz-utils qemu-system-x86 busybox-static cpio kmod)
missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -qq
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---- 1. the kernel: configuration -----------------------------------------------------------
# tinyconfig, then these. Everything memstat, busybox and the checks need; the debug options
# the item asks for. Each is checked after olddefconfig: an option that did not stick fails.
DEBUG_OPTS=(
	64BIT SMP PRINTK PRINTK_TIME BUG TTY SERIAL_8250 SERIAL_8250_CONSOLE BLK_DEV_INITRD
	PROC_FS PROC_SYSCTL SYSFS DEVTMPFS BINFMT_ELF BINFMT_SCRIPT MULTIUSER FUTEX POSIX_TIMERS
	SHMEM TMPFS FILE_LOCKING ADVISE_SYSCALLS KALLSYMS KALLSYMS_ALL STACKTRACE UNWINDER_ORC
	MODULES MODULE_UNLOAD SPARSEMEM_VMEMMAP CGROUPS MEMCG TRANSPARENT_HUGEPAGE HUGETLBFS
	PROC_PAGE_MONITOR MEMORY_HOTPLUG MEMORY_HOTREMOVE MIGRATION COMPACTION SLUB
	IDLE_PAGE_TRACKING
	DEBUG_KERNEL DEBUG_FS DEBUG_FS_ALLOW_ALL
	KASAN KASAN_GENERIC KASAN_INLINE KASAN_VMALLOC
	PROVE_LOCKING DEBUG_PAGEALLOC DEBUG_ATOMIC_SLEEP DEBUG_VM DEBUG_LIST
	DEBUG_KMEMLEAK SOFTLOCKUP_DETECTOR DETECT_HUNG_TASK
	MODULE_SIG MODULE_SIG_SHA256 SECURITY SECURITYFS SECURITY_LOCKDOWN_LSM
)
DEBUG_OFF=(KASAN_OUTLINE UNWINDER_GUESS SLOB DEBUG_KMEMLEAK_AUTO_SCAN DEBUG_KMEMLEAK_DEFAULT_OFF
	MODULE_SIG_FORCE DEBUG_INFO HIBERNATION WERROR)

ver=$(apt-cache "${APT_OPTS[@]}" policy "$SRC_PKG" 2>/dev/null | awk '/Candidate:/ { print $2 }')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "$SRC_PKG: not in the archive (private sources: $APTDIR/sources.list)"
# the configuration's hash: the options, and the host's compiler (the build tree is reused)
cfg_hash=$(printf '%s\n' "${DEBUG_OPTS[@]}" -- "${DEBUG_OFF[@]}" "$(gcc --version | head -n 1)" |
	sha256sum | cut -c1-12)
KTOP=$CACHE/debug-kernel
KD=$KTOP/$ver-$cfg_hash
mkdir -p "$KTOP"
exec 8>"$KTOP/.lock"
if ! flock -n 8; then
	say "waiting for another debug kernel build to release $KTOP/.lock"
	flock -w 7200 8 || die "could not lock $KTOP/.lock"
fi

build_kernel() {
	local deb t0 o=$KD/build tar opt v bad=()
	t0=$(date +%s)
	deb=$(ls "$DEBS/${SRC_PKG}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$deb" ]; then
		say "downloading $SRC_PKG $ver"
		mkdir -p "$DEBS"
		chown _apt "$DEBS" 2>/dev/null || true
		(cd "$DEBS" && apt-get "${APT_OPTS[@]}" -qq download "$SRC_PKG=$ver" >/dev/null)
		deb=$(ls "$DEBS/${SRC_PKG}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n 1 || true)
		[ -n "$deb" ] || die "$SRC_PKG $ver: download failed"
	fi
	rm -rf "$KD"
	mkdir -p "$KD/pkg" "$o"
	say "unpacking $SRC_PKG $ver"
	dpkg -x "$deb" "$KD/pkg"
	tar=$(ls "$KD"/pkg/usr/src/linux-source-*.tar.xz | head -n 1)
	[ -n "$tar" ] || die "$deb has no linux-source tarball"
	tar -xJf "$tar" -C "$KD"
	rm -rf "$KD/pkg"
	mv "$KD"/linux-source-* "$KD/src"
	say "configuring (tinyconfig + ${#DEBUG_OPTS[@]} options)"
	make -C "$KD/src" O="$o" ARCH=x86_64 tinyconfig >"$KD/config.log" 2>&1
	opt=()
	for v in "${DEBUG_OPTS[@]}"; do opt+=(-e "$v"); done
	for v in "${DEBUG_OFF[@]}"; do opt+=(-d "$v"); done
	"$KD/src/scripts/config" --file "$o/.config" "${opt[@]}" --set-str LOCALVERSION "-memstat-debug"
	make -C "$KD/src" O="$o" ARCH=x86_64 olddefconfig >>"$KD/config.log" 2>&1
	for v in "${DEBUG_OPTS[@]}"; do
		grep -qx "CONFIG_$v=y" "$o/.config" || bad+=("$v")
	done
	[ ${#bad[@]} -eq 0 ] || die "the kernel configuration lacks ${bad[*]} after olddefconfig (see $o/.config)"
	say "building the kernel with nice -n 19 make -j$JOBS (log $KD/build.log)"
	if ! nice -n 19 make -C "$KD/src" O="$o" ARCH=x86_64 -j"$JOBS" bzImage modules >"$KD/build.log" 2>&1; then
		tail -n 30 "$KD/build.log" >&2
		die "the kernel build failed (see $KD/build.log)"
	fi
	cp "$o/arch/x86/boot/bzImage" "$KD/bzImage"
	echo "$(($(date +%s) - t0))" >"$KD/build-seconds"
	touch "$KD/.complete"
	say "kernel built in $(cat "$KD/build-seconds") s"
	# one kernel is kept: the builds of other versions or configurations go
	for v in "$KTOP"/*/; do
		v=${v%/}
		case ${v##*/} in run.*) continue ;; esac
		[ "$v" = "$KD" ] || { say "removing the older $v"; rm -rf "$v"; }
	done
}
built_now=0
if [ ! -f "$KD/.complete" ]; then
	build_kernel
	built_now=1
else
	say "cached kernel: $KD (built in $(cat "$KD/build-seconds" 2>/dev/null || echo '?') s)"
fi
KDIR=$KD/build
if [ $build_only = 1 ]; then
	echo "$KDIR"
	exit 0
fi

# ---- 2. the module, built against that tree; the binaries the VM runs ------------------------
for b in memstat kmod_abuse toucher; do
	[ -x "$bdir/$b" ] || die "no $bdir/$b: build it first (make BUILD=... vmtest-debug does)"
	! readelf -l "$bdir/$b" | grep -q 'program interpreter' || die "$bdir/$b is not statically linked"
done
run=$(mktemp -d "$KTOP/run.XXXXXX")
vm_pid=
cleanup() {
	# only the VM this script started, by its pid
	[ -z "$vm_pid" ] || kill "$vm_pid" 2>/dev/null || true
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
t0=$(date +%s)
mkdir -p "$run/src"
cp -r "$repo/kmod" "$repo/include" "$run/src/"
rm -f "$run"/src/kmod/*.ko "$run"/src/kmod/*.o "$run"/src/kmod/.*.cmd
say "building kmod/memstat.ko against $KDIR"
if ! make -C "$KDIR" M="$run/src/kmod" modules >"$KTOP/kmod-build.log" 2>&1 || [ ! -f "$run/src/kmod/memstat.ko" ]; then
	result FAIL "the module does not build against the debug kernel: $(grep -m1 -E 'error|Error' "$KTOP/kmod-build.log") (log $KTOP/kmod-build.log)"
fi
grep -E 'warning:' "$KTOP/kmod-build.log" >&2 || true
# a signed copy, with the key the kernel build made and built in (certs/signing_key.*): under
# lockdown the kernel must refuse memstat.ko, which is unsigned, and load the signed copy
sig_magic='~Module signature appended~'
if tail -c 28 "$run/src/kmod/memstat.ko" | grep -qF "$sig_magic"; then
	result FAIL "memstat.ko came out of the build signed: the lockdown check needs an unsigned one"
fi
"$KDIR/scripts/sign-file" sha256 "$KDIR/certs/signing_key.pem" "$KDIR/certs/signing_key.x509" \
	"$run/src/kmod/memstat.ko" "$run/src/kmod/memstat-signed.ko" ||
	die "scripts/sign-file could not sign the module with $KDIR/certs/signing_key.pem"
tail -c 28 "$run/src/kmod/memstat-signed.ko" | grep -qF "$sig_magic" ||
	die "scripts/sign-file left no signature on memstat-signed.ko"

# ---- 3. initramfs: busybox, the binaries, the module, debug-init.sh as /init ----------------
ird=$run/initramfs
mkdir -p "$ird"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,lib/modules}
cp /bin/busybox "$ird/bin/busybox"
for a in $("$ird/bin/busybox" --list-full); do
	[ -e "$ird/$a" ] || ln -s /bin/busybox "$ird/$a"
done
cp "$bdir/memstat" "$bdir/kmod_abuse" "$bdir/toucher" "$ird/bin/"
cp "$run/src/kmod/memstat.ko" "$run/src/kmod/memstat-signed.ko" "$ird/lib/modules/"
install -m 0755 "$here/debug-init.sh" "$ird/init"
(cd "$ird" && find . | cpio -o -H newc -R 0:0 --quiet) >"$run/initrd.cpio"

# ---- 4. boot: TCG with one host thread (as matrix.sh: KVM hangs on this project's machines) --
console=$KTOP/serial.log
res=$KTOP/results.log
: >"$res"
say "booting $(basename "$KD") (TCG, timeout ${VM_TIMEOUT}s; console $console)"
rc=0
timeout -k 10 "$VM_TIMEOUT" qemu-system-x86_64 -accel tcg,thread=single -cpu max -m 2G -smp 2 \
	-nographic -no-reboot -nic none -kernel "$KD/bzImage" -initrd "$run/initrd.cpio" \
	-append "console=ttyS0 panic=-1 debug_pagealloc=on movablecore=512M log_buf_len=8M loglevel=7" \
	-serial mon:stdio -serial "file:$res" </dev/null >"$console" 2>&1 &
vm_pid=$!
wait "$vm_pid" || rc=$?
vm_pid=
t1=$(date +%s)
sed -i 's/\r$//' "$res" "$console"

# ---- 5. the verdict ---------------------------------------------------------------------------
fails=()
uname=$(sed -n 's/^@@ uname //p' "$res" | head -n 1)
if ! grep -q '^@@ start' "$res"; then
	fails+=("the kernel did not reach /init (qemu exit $rc): $(grep -a -m1 -E 'Kernel panic|BUG|Oops' "$console" | cut -c1-160)")
elif ! grep -q '^@@ end' "$res"; then
	fails+=("the VM stopped early (qemu exit $rc$([ $rc = 124 ] && echo ": timeout ${VM_TIMEOUT}s"); last record: $(grep '^@@' "$res" | tail -n 1))")
fi
# debug_pagealloc=on took effect: no 2 MiB or 1 GiB pages in the direct map
dm=$(sed -n 's/^@@ directmap //p' "$res" | head -n 1)
if grep -q '^@@ start' "$res" && ! grep -qE 'DirectMap4k: [1-9]' <<<"$dm" || grep -qE 'DirectMap(2M|1G): [1-9]' <<<"$dm"; then
	fails+=("debug_pagealloc is not in effect: ${dm:-no DirectMap lines}")
fi
while read -r _ _ name code; do
	[ "$code" = 0 ] || fails+=("$name: $code")
done < <(grep '^@@ rc ' "$res" || true)
# --wss with the idle page bitmap: the toucher's 64 MiB written in the window accessed (within
# 10%, plus the other processes' anon), the rest of its 256 MiB idle
wss=$(sed -n 's/^@@ wss-json //p' "$res" | head -n 1)
if [ -n "$wss" ]; then
	why=$(python3 -c '
import json, sys
try:
    j = json.loads(sys.argv[1])
    w, mib = j["wss"], j["page_size"] / 1048576.0
    acc, idle = w["accessed"]["anon"] * mib, w["idle"]["anon"] * mib
    other = j["pages"]["anon"] * mib - 256
except (ValueError, KeyError, TypeError) as e:
    print("no working set in its JSON (%s)" % e)
    sys.exit()
sys.stderr.write("wss (idle page bitmap): anon accessed %.1f MiB, idle %.1f MiB\n" % (acc, idle))
bad = []
if w.get("mechanism") != "idle_bitmap":
    bad.append("mechanism %s" % w.get("mechanism"))
if not 64 * 0.9 <= acc <= 64 * 1.1 + other:
    bad.append("anon accessed %.1f MiB, not 64 within 10%% (other anon %.1f MiB)" % (acc, other))
if idle < 192 * 0.9:
    bad.append("anon idle %.1f MiB, under 90%% of 192" % idle)
print("; ".join(bad))' "$wss")
	[ -z "$why" ] || fails+=("wss: $why")
fi
# kmod_abuse's failed checks, by name
abuse=$(grep -a -E '^kmod_abuse: [0-9]+ passed' "$console" | tail -n 1 || true)
while read -r line; do
	[ -n "$line" ] && fails+=("kmod_abuse ${line#FAIL }")
done < <(grep -a '^FAIL ' "$console" | cut -c1-200 || true)
leaks=$(sed -n 's/^@@ kmemleak-memstat //p' "$res" | head -n 1)
leaks_all=$(sed -n 's/^@@ kmemleak-all //p' "$res" | head -n 1)
case $leaks in
0) ;;
"") grep -q '^@@ start' "$res" && fails+=("no kmemleak result") ;;
*) fails+=("kmemleak: $leaks leaked objects allocated through the module") ;;
esac
# Every report of the debug checks, with the step it followed (debug-init.sh writes each step
# into the kernel log). kmemleak's objects are counted above: the module's fail, others not.
reports=$(awk '/memstat-debug: step / { sub(/.*memstat-debug: step /, ""); st = $0; next }
	/BUG: |WARNING:|KASAN|Oops|general protection|Call Trace|kernel BUG|sleeping function|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU|INFO: task|rcu.*stall|soft lockup|hard LOCKUP|UBSAN|list_add corruption|list_del corruption/ {
		n++; if (n <= 5) printf "%s [during: %s]\n", substr($0, 1, 160), (st == "" ? "boot, before the module" : st) }
	END { if (n > 5) printf "... %d report lines in all\n", n }' "$console")
if [ -n "$reports" ]; then
	while read -r line; do fails+=("console: $line"); done <<<"$reports"
fi

say "console: $console; results: $res"
[ $built_now = 1 ] && built="built now in" || built="cached, built in"
info="kernel $uname ($built $(cat "$KD/build-seconds" 2>/dev/null || echo '?')s), module+VM $((t1 - t0))s, ${abuse:-kmod_abuse: no result}, kmemleak: ${leaks:-?} via the module, ${leaks_all:-?} in all"
if [ ${#fails[@]} -gt 0 ]; then
	result FAIL "$info; $(printf '%s; ' "${fails[@]}" | sed 's/; $//')"
fi
result PASS "$info"
