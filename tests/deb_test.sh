#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Debian packages (debian/): `dpkg-buildpackage -b -us -uc` in a copy of the tree, which it
# must leave as git found it; lintian; memstat_*.deb installed in a fresh Debian 12 chroot, where
# memstat --version, --help, `man memstat` and the systemd unit's command line run; then
# memstat-dkms installed there, DKMS building the module for a VM kernel whose headers the VM
# matrix caches (6.1, Debian 12's own); then the chroot booted under systemd in a VM of that
# kernel: modprobe loads the module DKMS built, the packaged binary walks through /dev/memstat,
# and `systemctl enable --now memstat` logs samples.
#
# Usage (as root): tests/deb_test.sh BUILD_DIR   (logs go to BUILD_DIR/deb/)
# Environment:
#   MEMSTAT_VM=0            leaves out the DKMS and VM part (it needs the VM matrix's kernels and qemu)
#   MEMSTAT_DEB_TREE=head   builds the committed tree (git archive HEAD), not the working tree
#   MEMSTAT_DEB_KERNEL      the VM family DKMS builds for and boots (default 6.1)
#   MEMSTAT_VM_CACHE        the VM matrix's cache (default /var/cache/memstat-vm); the Debian 12
#                           root file system is made there once by debootstrap and kept as a
#                           tarball, deb-test/bookworm-*.tar.zst; each run unpacks a fresh copy
#   MEMSTAT_VM_MIRROR       the Debian mirror for debootstrap (default: the host's apt sources)
# Ends with one "N passed, N failed, N skipped" line.
set -u
build=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MEMSTAT_VM_CACHE:-/var/cache/memstat-vm}
FAM=${MEMSTAT_DEB_KERNEL:-6.1}
logs=$build/deb
passed=0
failed=0
skipped=0

ok() { echo "PASS $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1"; shift; for l in "$@"; do echo "    $l"; done; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
finish() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
}

if [ "$(id -u)" -ne 0 ]; then
	bad "run as root (chroot, mounts, dpkg in the chroot)"
	finish
fi
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
tmp=$(mktemp -d /var/tmp/memstat-deb.XXXXXX)
chroot_dir=$tmp/chroot
vm_pid=
cleanup() {
	[ -z "$vm_pid" ] || kill "$vm_pid" 2>/dev/null
	# every mount under the chroot first (recursively, newest first); then nothing that
	# rm could follow is left, and --one-file-system guards against one that was
	local m
	for m in $(awk -v d="$chroot_dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1. build the packages in a copy of the working tree (tracked and untracked files that git
# does not ignore), itself a fresh git repository, so that what the build leaves behind shows ----
version=$(sed -n 's/^RELEASE *:= *//p' "$root/Makefile")
src=$tmp/memstat-$version
mkdir -p "$src"
if [ "${MEMSTAT_DEB_TREE:-work}" = head ]; then
	git -C "$root" archive HEAD | tar -C "$src" -xf -
else
	(cd "$root" && git ls-files -z -co --exclude-standard | tar --null -T - --ignore-failed-read -cf -) |
		tar -C "$src" -xf -
fi
git -C "$src" init -q && git -C "$src" add -A &&
	git -C "$src" -c user.name=deb_test -c user.email=deb_test@localhost commit -qm tree
echo "building the packages (dpkg-buildpackage -b -us -uc; log $logs/build.log)"
(cd "$src" && DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -b -us -uc) >"$logs/build.log" 2>&1
rc=$?
deb=$tmp/memstat_${version}_amd64.deb
dkms_deb=$tmp/memstat-dkms_${version}_all.deb
if [ $rc -eq 0 ] && [ -f "$deb" ] && [ -f "$dkms_deb" ]; then
	ok "dpkg-buildpackage -b -us -uc builds memstat_${version}_amd64.deb and memstat-dkms_${version}_all.deb"
else
	bad "dpkg-buildpackage -b -us -uc builds memstat and memstat-dkms" "exit $rc; $(ls "$tmp" | tr '\n' ' ')" \
		"$(tail -n 5 "$logs/build.log")"
	finish
fi
dirty=$(git -C "$src" status --porcelain --ignored=no)
if [ -z "$dirty" ]; then ok "the build leaves the tree as git found it (what it makes is git-ignored)"
else bad "the build leaves the tree as git found it" "$dirty"; fi

# the files each package must have, at their Debian places
contents=$(dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's#^\./#/#')
missing=()
for f in /usr/sbin/memstat /usr/share/man/man8/memstat.8.gz /usr/share/man/man8/memstat-allpages.8.gz \
	/usr/share/man/man8/memstat-diff.8.gz /usr/share/man/man8/memstat-map.8.gz /usr/share/man/man8/memstat-plot.8.gz \
	/usr/share/man/man8/memstat-rmss.8.gz /usr/share/bash-completion/completions/memstat \
	/usr/share/man/man8/memstat-serve.8.gz /lib/systemd/system/memstat-serve.service \
	/usr/share/zsh/vendor-completions/_memstat /lib/systemd/system/memstat.service \
	/etc/logrotate.d/memstat /usr/share/doc/memstat/copyright; do
	grep -qx -- "$f" <<<"$contents" || missing+=("$f")
done
if [ ${#missing[@]} -eq 0 ]; then ok "memstat has the binary, man pages, completions, unit, logrotate rule"
else bad "memstat has the binary, man pages, completions, unit, logrotate rule" "missing: ${missing[*]}"; fi
contents=$(dpkg-deb -c "$dkms_deb" | awk '{ print $NF }' | sed 's#^\./#/#')
missing=()
for f in dkms.conf kmod/Kbuild kmod/memstat_main.c kmod/kfeatures.h include/memstat.h include/walk.h include/classify.h; do
	grep -qx -- "/usr/src/memstat-$version/$f" <<<"$contents" || missing+=("$f")
done
if [ ${#missing[@]} -eq 0 ]; then ok "memstat-dkms has dkms.conf and the module's sources in /usr/src/memstat-$version"
else bad "memstat-dkms has dkms.conf and the module's sources in /usr/src/memstat-$version" "missing: ${missing[*]}"; fi

# the module's sources include only what the package ships: every "..." include of kmod/*.c
# and of the headers they include resolves among the shipped files
incs=$(cd "$root" && sed -n 's/^#include "\(.*\)"/\1/p' kmod/*.c kmod/*.h include/memstat.h include/walk.h include/classify.h | sort -u)
missing=()
for i in $incs; do
	grep -qE "^/usr/src/memstat-$version/(kmod|include)/$i\$" <<<"$contents" || missing+=("$i")
done
if [ -n "$incs" ] && [ ${#missing[@]} -eq 0 ]; then ok "every header the module includes is in memstat-dkms ($(echo $incs))"
else bad "every header the module includes is in memstat-dkms" "missing: ${missing[*]}"; fi

# ---- 2. lintian: no errors; warnings and overrides are listed ----
# (the overrides are listed by a second run: with --show-overrides lintian exits 2 for an
# overridden error)
lintian --info "$tmp/memstat_${version}_amd64.changes" >"$logs/lintian.txt" 2>&1
rc=$?
lintian --show-overrides "$tmp/memstat_${version}_amd64.changes" 2>/dev/null | grep '^O: ' >"$logs/lintian-overrides.txt"
errors=$(grep -E '^E: ' "$logs/lintian.txt")
if [ $rc -eq 0 ] && [ -z "$errors" ]; then
	ok "lintian: no errors ($(grep -c '^W: ' "$logs/lintian.txt") warnings, $(wc -l <"$logs/lintian-overrides.txt") overridden)"
	cat "$logs/lintian-overrides.txt" <(grep -E '^W: ' "$logs/lintian.txt") | sed 's/^/    /'
else
	bad "lintian: no errors (exit $rc)" "$errors"
fi

# ---- 3. a fresh Debian 12 chroot, from a cached debootstrap tarball ----
# man-db for `man memstat`; dkms (with gcc and make) for memstat-dkms; libelf1 and libssl3, which
# linux-kbuild-* (the headers' objtool, modpost, sign-file) depends on: the headers themselves come
# from the VM matrix's cache; systemd, to boot the chroot in a VM (part 5)
CHROOT_PKGS=man-db,dkms,libelf1,libssl3,systemd
tarball=$CACHE/deb-test/bookworm-minbase-${CHROOT_PKGS//,/-}.tar.zst
host_mirror() {
	if [ -n "${MEMSTAT_VM_MIRROR:-}" ]; then echo "$MEMSTAT_VM_MIRROR"; return; fi
	{
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" && $3 == "bookworm" { print $2 }'
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk '/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") print u }'
	} | head -n 1
}
make_tarball() {
	local mirror dir=$tmp/bootstrap
	mirror=$(host_mirror)
	[ -n "$mirror" ] || { echo "no bookworm entry in the host's apt sources: set MEMSTAT_VM_MIRROR"; return 1; }
	echo "making the Debian 12 chroot once (debootstrap --variant=minbase --include=$CHROOT_PKGS; log $logs/debootstrap.log)" >&2
	debootstrap --variant=minbase --include="$CHROOT_PKGS" bookworm "$dir" "$mirror" \
		>"$logs/debootstrap.log" 2>&1 || { echo "debootstrap failed: $(tail -n 1 "$logs/debootstrap.log")"; return 1; }
	chroot "$dir" apt-get clean
	rm -rf "$dir"/var/lib/apt/lists/* "$dir"/tmp/*
	tar -C "$dir" --zstd -cf "$tarball.new" . && mv "$tarball.new" "$tarball"
	rm -rf --one-file-system "$dir"
}
mkdir -p "$CACHE/deb-test"
exec 8>"$CACHE/deb-test/.lock"
flock -w 1800 8
why=
[ -f "$tarball" ] || why=$(make_tarball)
flock -u 8
if [ ! -f "$tarball" ]; then
	bad "a Debian 12 chroot" "$why"
	finish
fi
mkdir -p "$chroot_dir"
tar -C "$chroot_dir" --zstd -xf "$tarball"
# what memstat reads in the chroot: the host's /proc, /sys (BTF, BPF) and /dev
for d in proc sys dev; do
	mount --bind "/$d" "$chroot_dir/$d"
done
in_chroot() { chroot "$chroot_dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root "$@"; }
cp "$deb" "$dkms_deb" "$chroot_dir/tmp/"

if in_chroot apt-get install -y --no-install-recommends "/tmp/$(basename "$deb")" >"$logs/install.log" 2>&1; then
	ok "apt installs memstat_${version}_amd64.deb in a fresh Debian 12 chroot (no other package needed)"
else
	bad "apt installs memstat_${version}_amd64.deb in a fresh Debian 12 chroot" "$(tail -n 5 "$logs/install.log")"
	finish
fi
out=$(in_chroot memstat --version 2>&1)
if [ "$out" = "memstat $(in_chroot dpkg-query -W -f='${Version}' memstat)" ] && [ "$out" = "memstat $version" ]; then
	ok "memstat --version in the chroot: $out (the package's version)"
else bad "memstat --version in the chroot says the package's version $version" "$out"; fi
out=$(in_chroot memstat --help 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q -- '--version' <<<"$out"; then ok "memstat --help in the chroot"
else bad "memstat --help in the chroot (exit $rc)" "$(head -n 3 <<<"$out")"; fi
page=$(in_chroot man -w memstat 2>&1)
text=$(in_chroot env MANWIDTH=100 man memstat 2>&1 | col -b)
if [ "$page" = /usr/share/man/man8/memstat.8.gz ] && grep -q '^NAME' <<<"$text" && grep -q '^EXIT STATUS' <<<"$text"; then
	ok "man memstat in the chroot ($page, $(wc -l <<<"$text") lines)"
else bad "man memstat in the chroot" "man -w: $page" "$(head -n 3 <<<"$text")"; fi
missing=()
for v in allpages diff map plot rmss; do
	page=$(in_chroot man -w "memstat-$v" 2>&1)
	text=$(in_chroot env MANWIDTH=100 man "memstat-$v" 2>&1 | col -b)
	[ "$page" = "/usr/share/man/man8/memstat-$v.8.gz" ] && grep -q '^NAME' <<<"$text" &&
		grep -q "memstat $v" <<<"$text" || missing+=("memstat-$v: $page")
done
if [ ${#missing[@]} -eq 0 ]; then ok "man memstat-VERB in the chroot for allpages, diff, map, plot and rmss"
else bad "man memstat-VERB in the chroot for allpages, diff, map, plot and rmss" "${missing[@]}"; fi
# the walk itself, with the packaged static binary on this kernel
out=$(in_chroot memstat 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '^Total ' <<<"$out"; then ok "memstat in the chroot prints the summary"
else bad "memstat in the chroot prints the summary (exit $rc)" "$(tail -n 3 <<<"$out")"; fi
# its first run wrote the CO-RE types cache (docs/backends.md): a directory of root's, 0700
cache=$(stat -c '%U %a' "$chroot_dir/var/cache/memstat" 2>&1)
n=$(find "$chroot_dir/var/cache/memstat" -name 'core-*.btf' -user root -perm 0644 2>/dev/null | wc -l)
if [ "$cache" = "root 700" ] && [ "$n" -eq 1 ]; then ok "the first run wrote one CO-RE types cache file in /var/cache/memstat (root's, 0700)"
else bad "the first run wrote one CO-RE types cache file in /var/cache/memstat (root's, 0700)" "$cache; $n files"; fi

# The unit: installed neither enabled nor started, and its command line (the binary's packaged
# path, not /usr/local's) logs samples. systemd does not run in a chroot: the ExecStart line is
# run as systemd would, in the directory LogsDirectory= makes, and ended with its KillSignal.
unit=$chroot_dir/lib/systemd/system/memstat.service
if [ -e "$chroot_dir/etc/systemd/system/multi-user.target.wants/memstat.service" ]; then
	bad "the unit is installed disabled" "$(ls -l "$chroot_dir/etc/systemd/system/multi-user.target.wants/")"
else
	ok "the unit is installed disabled (no multi-user.target.wants link)"
fi
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
log=$(grep -oE -- '--output [^ ]+' <<<"$exec_start" | cut -d' ' -f2)
if [ "${exec_start%% *}" != /usr/sbin/memstat ] || [ -z "$log" ]; then
	bad "the unit's ExecStart runs the packaged /usr/sbin/memstat with --output" "ExecStart=$exec_start"
else
	mkdir -p "$chroot_dir/var/log/$(sed -n 's/^LogsDirectory=//p' "$unit")"
	# chroot and env exec memstat: $! is its pid
	# shellcheck disable=SC2086
	chroot "$chroot_dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin $exec_start >"$logs/unit.out" 2>&1 &
	upid=$!
	rows=0
	for _ in $(seq 100); do
		rows=$(grep -c '^[0-9]' "$chroot_dir$log" 2>/dev/null)
		[ "${rows:-0}" -ge 1 ] && break
		kill -0 $upid 2>/dev/null || break
		sleep 0.2
	done
	kill -TERM $upid 2>/dev/null
	wait $upid
	rc=$?
	if [ "${rows:-0}" -ge 1 ] && [ $rc -eq 0 ] && head -n 1 "$chroot_dir$log" | grep -q '[a-z]'; then
		ok "the unit's command line (ExecStart=${exec_start%% *} ...) logs a sample to $log and ends on SIGTERM with 0"
	else
		bad "the unit's command line logs samples" "ExecStart=$exec_start" "rows $rows, exit $rc: $(head -n 3 "$logs/unit.out")"
	fi
fi

# ---- 4. memstat-dkms: DKMS builds the module for a VM kernel ----
if [ "${MEMSTAT_VM:-1}" = 0 ]; then
	skip "memstat-dkms built by DKMS, and the chroot booted under systemd in a VM" "MEMSTAT_VM=0"
	finish
fi
if ! command -v qemu-system-x86_64 >/dev/null || [ ! -x /bin/busybox ]; then
	bad "memstat-dkms built by DKMS and loaded in a VM" "qemu-system-x86_64 or busybox-static is missing (tools/setup.sh test installs them)"
	finish
fi
# the kernel and its headers, from the VM matrix's cache (fetched by it when missing)
if [ ! -f "$CACHE/$FAM/.complete" ]; then
	bash "$root/tools/vm/matrix.sh" --fetch-only "$FAM" >"$logs/fetch.log" 2>&1
fi
# the matrix re-fetches a family under this lock: hold it while its files are used
exec 9>"$CACHE/.lock"
flock -s -w 1800 9
hdr=$(cat "$CACHE/$FAM/headers" 2>/dev/null)
rel=$(sed -n 's/^release //p' "$CACHE/$FAM/resolved" 2>/dev/null)
if [ ! -f "$CACHE/$FAM/.complete" ] || [ -z "$rel" ] || [ ! -f "$hdr/Makefile" ]; then
	bad "the $FAM kernel and its headers are cached ($CACHE/$FAM)" "headers: ${hdr:-none}" "$(tail -n 3 "$logs/fetch.log" 2>/dev/null)"
	finish
fi
# The headers' Makefiles point at their unpacked place in the cache: the same path in the
# chroot, read-only, and /lib/modules/<release>/build links to it as linux-headers-* would
mkdir -p "$chroot_dir$CACHE/$FAM/root" "$chroot_dir/lib/modules/$rel"
mount --bind "$CACHE/$FAM/root" "$chroot_dir$CACHE/$FAM/root"
mount -o remount,bind,ro "$chroot_dir$CACHE/$FAM/root"
ln -sfn "$hdr" "$chroot_dir/lib/modules/$rel/build"
if in_chroot apt-get install -y --no-install-recommends "/tmp/$(basename "$dkms_deb")" >"$logs/dkms-install.log" 2>&1; then
	ok "apt installs memstat-dkms_${version}_all.deb in the chroot"
else
	bad "apt installs memstat-dkms_${version}_all.deb in the chroot" "$(tail -n 5 "$logs/dkms-install.log")"
fi
cp "$chroot_dir/var/lib/dkms/memstat/$version/build/make.log" "$logs/dkms-make.log" 2>/dev/null
status=$(in_chroot dkms status memstat 2>&1)
ko=$(ls "$chroot_dir/lib/modules/$rel/updates/dkms/memstat.ko"* 2>/dev/null | head -n 1)
if grep -q "^memstat/$version, $rel, x86_64: installed" <<<"$status" && [ -n "$ko" ]; then
	ok "the package's postinst had DKMS build and install the module for $rel (${ko#"$chroot_dir"})"
else
	bad "the package's postinst had DKMS build and install the module for $rel" "dkms status: $status" \
		"$(grep -m 3 -E 'error|Error' "$logs/dkms-make.log" 2>/dev/null)"
	finish
fi

# ---- 5. the chroot booted as a Debian 12 machine: a VM of that kernel with the chroot as its
# disk and systemd as init. There the module DKMS built is loaded with modprobe, /dev/memstat
# appears and the packaged memstat walks through it, and `systemctl enable --now memstat`
# (the unit as the package installed it) logs samples ----
# the chroot as it is installed, without the host's mounts; the log of the command-line check
# above goes, so that only the service's samples count
for m in $(awk -v d="$chroot_dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r); do
	umount "$m" || umount -l "$m"
done
rm -f "$chroot_dir$log"
cat /proc/sys/kernel/random/uuid | tr -d '-' >"$chroot_dir/etc/machine-id"
cat >"$chroot_dir/usr/local/sbin/deb-test" <<'EOF'
#!/bin/sh
# run by deb-test.service at boot: results as "@@ ..." lines on the second serial port
exec 3>/dev/ttyS1
R() { echo "@@ $*" >&3; }
R "uname $(uname -r)"
if modprobe memstat; then R "modprobe ok"; else R "modprobe-fail $?"; fi
i=0
while [ ! -c /dev/memstat ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -c /dev/memstat ] && R "dev $(stat -c '%F %a' /dev/memstat)"
memstat --backend kmod --json >/tmp/kmod.json 2>/tmp/kmod.err
R "walk rc $? $(grep -o '"backend": *"[a-z]*"' /tmp/kmod.json) $(head -n 1 /tmp/kmod.err)"
R "before $(systemctl is-enabled memstat) $(systemctl is-active memstat)"
systemctl enable --now memstat >/tmp/enable.out 2>&1
R "enable rc $? $(tr '\n' ' ' </tmp/enable.out)"
i=0
rows=0
while [ $i -lt 120 ]; do
	rows=$(grep -c '^[0-9]' /var/log/memstat/memstat.csv 2>/dev/null)
	[ "${rows:-0}" -ge 1 ] && break
	sleep 1
	i=$((i + 1))
done
R "service rows ${rows:-0} $(systemctl is-enabled memstat) $(systemctl is-active memstat) $(systemctl show -P ExecStart memstat | grep -o 'path=[^ ]*')"
[ "${rows:-0}" -ge 1 ] || R "journal $(journalctl -u memstat -n 5 --no-pager 2>&1 | tr '\n' '|')"
systemctl disable --now memstat >/dev/null 2>&1
# rmss --cgroup under systemd: its cgroup in a scope of its own (tests/tools/rmss_systemd.sh)
/usr/local/sbin/rmss-systemd
R "end"
systemctl --force --force poweroff
EOF
chmod 0755 "$chroot_dir/usr/local/sbin/deb-test"
install -m 0755 "$root/tests/tools/rmss_systemd.sh" "$chroot_dir/usr/local/sbin/rmss-systemd"
cat >"$chroot_dir/etc/systemd/system/deb-test.service" <<'EOF'
[Unit]
Description=memstat package test (tests/deb_test.sh)
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/deb-test
[Install]
WantedBy=multi-user.target
EOF
mkdir -p "$chroot_dir/etc/systemd/system/multi-user.target.wants"
ln -sfn /etc/systemd/system/deb-test.service "$chroot_dir/etc/systemd/system/multi-user.target.wants/deb-test.service"
img=$tmp/disk.img
truncate -s 3G "$img"
# no metadata_csum: as the VM matrix's disk
if ! mkfs.ext4 -q -F -O ^metadata_csum -L memstat-deb -d "$chroot_dir" "$img" >"$logs/mkfs.log" 2>&1; then
	bad "the chroot as a VM disk (mkfs.ext4 -d)" "$(tail -n 3 "$logs/mkfs.log")"
	finish
fi

# the initramfs: busybox loads the VM's disk drivers (the matrix's list for this kernel, not its
# memstat.ko), mounts the disk and hands over to systemd
ird=$tmp/initramfs
mkdir -p "$ird"/{bin,proc,sys,dev,newroot,lib/modules}
cp /bin/busybox "$ird/bin/busybox"
cp "$CACHE/$FAM/initrd/lib/modules/order" "$ird/lib/modules/order"
for m in $(cat "$ird/lib/modules/order"); do
	cp "$CACHE/$FAM/initrd/lib/modules/$m.ko" "$ird/lib/modules/"
done
cat >"$ird/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /lib/modules/order); do insmod /lib/modules/$m.ko 2>/dev/null; done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if ! mount -t ext4 /dev/vda /newroot; then
	echo "@@ mount-fail" >/dev/ttyS1
	poweroff -f
fi
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /lib/systemd/systemd
EOF
chmod 0755 "$ird/init"
(cd "$ird" && find . | cpio -o -H newc -R 0:0 --quiet) >"$tmp/initrd.cpio"
res=$logs/vm-results.log
: >"$res"
echo "booting the chroot on $rel under systemd (TCG; serial log $logs/vm-serial.log)"
timeout -k 10 600 qemu-system-x86_64 -accel tcg,thread=single -cpu max -m 1G -smp 1 -nographic \
	-no-reboot -nic none -kernel "$CACHE/$FAM/vmlinuz" -initrd "$tmp/initrd.cpio" \
	-append "console=ttyS0 panic=-1 quiet" \
	-drive "file=$img,format=raw,if=virtio,snapshot=on,cache=unsafe" \
	-serial mon:stdio -serial "file:$res" </dev/null >"$logs/vm-serial.log" 2>&1 &
vm_pid=$!
wait $vm_pid
rc=$?
vm_pid=
sed -i 's/\r$//' "$res"
if ! grep -q '^@@ end' "$res"; then
	bad "the chroot boots on $rel under systemd and runs the test" "qemu exit $rc" "$(grep '^@@' "$res" | tr '\n' ' ')" \
		"$(tr -d '\r' <"$logs/vm-serial.log" | grep -a -m 3 -E 'Oops|BUG|panic|Failed' )"
fi
if grep -q "^@@ uname $rel\$" "$res" && grep -q '^@@ modprobe ok' "$res" && grep -q '^@@ dev character special file 400$' "$res"; then
	ok "on $rel, modprobe loads the module DKMS built: /dev/memstat appears (mode 0400, root only)"
else
	bad "on $rel, modprobe loads the module DKMS built: /dev/memstat appears" "$(grep -E '^@@ (uname|modprobe|dev)' "$res" | tr '\n' ' ')"
fi
if grep -qE '^@@ walk rc 0 "backend": *"kmod"' "$res"; then
	ok "the packaged memstat walks through that module (--backend kmod --json)"
else
	bad "the packaged memstat walks through that module (--backend kmod --json)" "$(grep '^@@ walk' "$res")"
fi
# installed disabled and inactive; enabled and started, it logs samples through /usr/sbin/memstat
if grep -q '^@@ before disabled inactive$' "$res" && grep -q '^@@ enable rc 0' "$res" &&
	grep -qE '^@@ service rows [1-9][0-9]* enabled active path=/usr/sbin/memstat$' "$res"; then
	ok "systemd: memstat.service is disabled after install; systemctl enable --now memstat logs samples ($(sed -n 's/^@@ service //p' "$res"))"
else
	bad "systemd: systemctl enable --now memstat logs samples" "$(grep -E '^@@ (before|enable|service|journal)' "$res" | tr '\n' ' ')"
fi
# rmss --cgroup under systemd (docs/rmss.md, "Where the cgroup is made")
sd_says=$(sed -n 's/^@@ sd systemd //p' "$res" | head -n 1)
for check in "run|the command runs in memstat-rmss-PID.scope/command, a transient scope with Delegate=yes" \
	"run-cleaned|after the run, no memstat-rmss scope or cgroup is left (within 10 s)" \
	"subtree-unchanged|the root's and system.slice's subtree_control are as before" \
	"kill9|kill -9 of the driver: the command ended, the scope and its cgroups gone (within 10 s)" \
	"reset|rmss -r after that crash exits 0"; do
	name=${check%%|*}
	what="rmss --cgroup under systemd ($sd_says): ${check#*|}"
	if grep -qx "@@ sd ok $name" "$res"; then
		ok "$what"
	else
		bad "$what" "$(sed -n "s/^@@ sd-fail $name: //p" "$res" | head -n 1 | grep . || echo 'no result')"
	fi
done
# purging the package removes the cache it made
if in_chroot dpkg --purge memstat >"$logs/purge.log" 2>&1 && [ ! -e "$chroot_dir/var/cache/memstat" ]; then
	ok "dpkg --purge memstat removes /var/cache/memstat"
else
	bad "dpkg --purge memstat removes /var/cache/memstat" "$(tail -n 3 "$logs/purge.log"; ls -d "$chroot_dir/var/cache/memstat" 2>&1)"
fi
finish
