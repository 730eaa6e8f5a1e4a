#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The VM test matrix: boot Debian cloud kernels (6.1 ... 7.x) under qemu and, in each, run
# memstat, its reconciliation, --features and the integration tests on a real ext4 disk, then
# check the kernel log. One line per kernel:
#   <family> <uname -r> <backend> <PASS|FAIL|KNOWN-GAP> max_reconcile_diff=<pct>% tests=<p>/<n> ...
# and the full serial log of each kernel under the cache directory. Exit status 1 when a kernel
# fails (a failure listed in tools/vm/known-gaps is reported as KNOWN-GAP and does not fail).
#
# Usage (as root, on Debian 12):
#   bash tools/vm/matrix.sh [--fetch-only] [BUILD] [FAMILY...]
#     BUILD         the build directory (a word that starts with "build", e.g. build-lead):
#                   make vm-bins runs there and the VMs get its binaries (default build)
#     FAMILY        6.1, 6.12, 6.18, 7.x (the default set), or any other X.Y / X.x that Debian
#                   carries; MEMSTAT_VM_FAMILIES="..." does the same
#     --fetch-only  only download and unpack the kernels and their headers, print the headers'
#                   paths (for building the kernel module against them) and exit
# Environment:
#   MEMSTAT_VM_CACHE        downloads, unpacked kernels, logs (default /var/cache/memstat-vm)
#   MEMSTAT_VM_TIMEOUT      seconds one VM may take before it is killed (default 1200; its integration tests get half)
#   MEMSTAT_VM_MEM          guest memory (default 3G)
#   MEMSTAT_VM_NUMA         the family booted with two NUMA nodes (qemu -numa, half the memory
#                           and one CPU each), so that ByNode's tests see two (default 6.18;
#                           "none": no two-node boot)
#   MEMSTAT_VM_ACCEL        auto (probe KVM once, else TCG), tcg or kvm (default auto)
#   MEMSTAT_VM_JOBS         VMs booted at once (default: as many as the host's cores give each
#                           VM's threads one core, and its memory each VM and its dumps; the
#                           longest families of the last run first); 1 runs them one by one
#   MEMSTAT_VM_REFRESH_DAYS refresh the private apt lists when older than this (default 7);
#                           MEMSTAT_VM_REFRESH=1 refreshes now
#   MEMSTAT_VM_APPEND       more words for the VMs' kernel command line; the kernel hands
#                           NAME=VALUE words it does not know to /init as environment, so
#                           MEMSTAT_VM_APPEND="GTEST_FILTER=ByCgroup.* GTEST_REPEAT=5" runs only
#                           those integration tests, five times (for chasing one test)
#   MEMSTAT_VM_KEEP_DUMPS=1 keep the dumps of each VM's memory (<family>/dump-*.core, *.kdump:
#                           a VM's memory size each) instead of removing them once read
#   MEMSTAT_VM_MIRROR, MEMSTAT_VM_SECURITY_MIRROR
#                           override the Debian mirrors taken from the host's apt sources
#
# Layout of the cache: apt/ (private sources list, lists, caches), debs/ (downloaded packages),
# <family>/ with root/ (the packages unpacked), vmlinuz, resolved (packages and versions),
# headers (path of the unpacked headers, or "unavailable: why"), initrd/ (driver modules for
# the VM), serial.log, results.log, verifier.log; integration_tests.static; summary.txt.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
CACHE=${MEMSTAT_VM_CACHE:-/var/cache/memstat-vm}
VM_TIMEOUT=${MEMSTAT_VM_TIMEOUT:-1200}
VM_MEM=${MEMSTAT_VM_MEM:-3G}
NUMA=${MEMSTAT_VM_NUMA:-6.18}
BUILD=build
ACCEL=${MEMSTAT_VM_ACCEL:-auto}
REFRESH_DAYS=${MEMSTAT_VM_REFRESH_DAYS:-7}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
PY=/usr/bin/python3
# drivers the VM needs; ones the kernel has built in are skipped
VM_MODULES=(virtio_pci virtio_blk ext4)
# zram swap and its compressors, for the load the module-versus-BPF test must see (init.sh):
# taken where the kernel has them (6.1's zram finds lzo-rle through the crypto API, not a
# dependency; 6.12+ link their own backends); veth, for the page_pool test (a veth pair with
# XDP: KernelOther.VethXdpPagePoolPagesArePagePool)
VM_LOAD_MODULES=(zram lzo_rle lzo lz4_compress lz4_decompress veth qemu_fw_cfg)

fetch_only=0
families=()
for a in "$@"; do
	case $a in
	--fetch-only) fetch_only=1 ;;
	-h | --help)
		sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*)
		echo "matrix: unknown option $a" >&2
		exit 2
		;;
	build*) BUILD=$a ;;
	*) families+=("$a") ;;
	esac
done
if [ ${#families[@]} -eq 0 ]; then
	read -r -a families <<<"${MEMSTAT_VM_FAMILIES:-6.1 6.12 6.18 7.x}"
fi

say() { echo "matrix: $*" >&2; }
die() {
	say "$*"
	exit 2
}

[ "$(id -u)" -eq 0 ] || die "run as root (it installs packages, and memstat needs root in the VMs)"

# ---- 1. host packages ---------------------------------------------------------------------
# The build dependencies of memstat itself are installed by tools/setup.sh (below).
host_packages=(qemu-system-x86 busybox-static cpio e2fsprogs kmod xz-utils zstd gzip python3 debootstrap
	coreutils util-linux debian-archive-keyring apt)

install_missing() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# another apt may be running (a parallel setup): wait for its lock instead of failing
	apt-get -o DPkg::Lock::Timeout=600 update -qq
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_missing "${host_packages[@]}"

mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
# one matrix at a time per cache: two runs would unpack into the same directories
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
	say "waiting for another matrix run to release $CACHE/.lock"
	flock -w 3600 9 || die "could not lock $CACHE/.lock"
fi

# ---- 2. kernels from Debian's archive, through a private apt configuration ----------------
APTDIR=$CACHE/apt
DEBS=$CACHE/debs
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$DEBS"
# Own source list, state and caches: the system's apt configuration and package cache stay as
# they are. The host's apt.conf.d (a proxy, say) still applies, except that apt-cache keeps its
# binary cache (which Debian's container images switch off) so that each look-up is quick.
APT_OPTS=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
	-o "Dir::Cache::pkgcache=pkgcache.bin" -o "Dir::Cache::srcpkgcache=srcpkgcache.bin"
	-o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=/dev/null")

# "URI SUITE" for every enabled deb source of the host, one-line and deb822 formats
host_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" { print $2, $3 }'
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'function flush() { if (types ~ /(^| )deb( |$)/ && enabled != "no")
				for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print u[i], s[j]
			types = ""; enabled = ""; nu = 0; ns = 0 }
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		{ key = tolower($1); sub(/:$/, "", key) }
		key == "types" { types = ""; for (i = 2; i <= NF; i++) types = types " " $i; types = types " " }
		key == "enabled" { enabled = tolower($2) }
		key == "uris" { for (i = 2; i <= NF; i++) u[++nu] = $i }
		key == "suites" { for (i = 2; i <= NF; i++) s[++ns] = $i }
		END { flush() }' "$f"
	done
}

write_sources() {
	local main=${MEMSTAT_VM_MIRROR:-} sec=${MEMSTAT_VM_SECURITY_MIRROR:-} srcs
	srcs=$(host_sources)
	# the main archive: the host's entry for its own release; security: the entry for
	# <release>-security (kernel updates land there first)
	local codename
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	[ -n "$main" ] || main=$(awk -v c="$codename" '$2 == c { print $1; exit }' <<<"$srcs")
	[ -n "$main" ] || main=$(awk '$2 !~ /-/ && $1 ~ /debian/ { print $1; exit }' <<<"$srcs")
	[ -n "$sec" ] || sec=$(awk '$2 ~ /-security$/ { print $1; exit }' <<<"$srcs")
	[ -n "$main" ] || die "no Debian archive in /etc/apt/sources.list(.d); set MEMSTAT_VM_MIRROR"
	{
		echo "# written by tools/vm/matrix.sh from the host's apt sources"
		local s
		for s in bookworm trixie trixie-backports; do
			echo "deb [signed-by=$KEYRING] $main $s main"
		done
		if [ -n "$sec" ]; then
			for s in bookworm-security trixie-security; do
				echo "deb [signed-by=$KEYRING] $sec $s main"
			done
		fi
	} >"$APTDIR/sources.list.new"
	if cmp -s "$APTDIR/sources.list.new" "$APTDIR/sources.list"; then
		rm "$APTDIR/sources.list.new"
	else
		mv "$APTDIR/sources.list.new" "$APTDIR/sources.list"
		rm -f "$APTDIR/updated"
	fi
}

apt_update_if_stale() {
	if [ "${MEMSTAT_VM_REFRESH:-0}" = 1 ] || [ ! -f "$APTDIR/updated" ] ||
		[ -n "$(find "$APTDIR/updated" -mtime +"$REFRESH_DAYS")" ]; then
		say "refreshing the package lists (bookworm, trixie, trixie-backports)"
		apt-get "${APT_OPTS[@]}" -qq update
		touch "$APTDIR/updated"
	fi
}

pkgnames() { apt-cache "${APT_OPTS[@]}" pkgnames "$1" 2>/dev/null; }
candidate() { apt-cache "${APT_OPTS[@]}" policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }'; }
has_candidate() {
	local v
	v=$(candidate "$1")
	[ -n "$v" ] && [ "$v" != "(none)" ]
}

# linux-image-* name patterns (the part between "linux-image-" and "-cloud-amd64") of a family.
# 6.1 is bookworm's ABI-numbered kernel; newer ones are trixie(-backports) "X.Y.Z+deb13".
family_patterns() {
	case $1 in
	6.1) echo '6\.1\.0-[0-9]+' ;;
	# 6.18, or the newest 6.1x that trixie carries when it has no 6.18
	6.18) echo '6\.18\.[0-9]+\+deb13(\.[0-9]+)?' '6\.1[3-9]\.[0-9]+\+deb13(\.[0-9]+)?' ;;
	[0-9].x) echo "${1%.x}"'\.[0-9]+\.[0-9]+\+deb13(\.[0-9]+)?' ;;
	[0-9].[0-9] | [0-9].[0-9][0-9]) echo "${1//./\\.}"'\.[0-9]+\+deb13(\.[0-9]+)?' ;;
	*) return 1 ;;
	esac
}
for fam in "${families[@]}"; do
	family_patterns "$fam" >/dev/null || die "unknown kernel family '$fam' (use X.Y or X.x, e.g. 6.1 6.12 6.18 7.x)"
done

# The image package of a family: the newest with a downloadable matching headers package, or
# the newest at all when none has headers (the kernel module cannot be built for it then).
resolve_image() {
	local fam=$1 pat pats names n best=""
	read -r -a pats <<<"$(family_patterns "$fam")"
	for pat in "${pats[@]}"; do
		names=$(pkgnames linux-image- | grep -E "^linux-image-($pat)-cloud-amd64\$" | sort -rV || true)
		for n in $names; do
			has_candidate "$n" || continue
			[ -n "$best" ] || best=$n
			if has_candidate "${n/linux-image-/linux-headers-}"; then
				echo "$n"
				return 0
			fi
		done
		if [ -n "$best" ]; then
			echo "$best"
			return 0
		fi
	done
	return 1
}

# Depends of PKG=VER whose names match REGEX (first alternative of each, no versions)
depends_matching() {
	apt-cache "${APT_OPTS[@]}" show "$1=$2" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1 |
		tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/[[:space:]]//g' | grep -E "$3" || true
}

# download PKG (its candidate version) into $DEBS unless it is there; print the file's path
download() {
	local pkg=$1 ver f
	ver=$(candidate "$pkg")
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "$pkg: not in the archive"
	f=$(ls "$DEBS/${pkg}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$f" ]; then
		say "downloading $pkg $ver"
		# apt drops privileges to _apt for downloads: let it write here
		chown _apt "$DEBS" 2>/dev/null || true
		(cd "$DEBS" && apt-get "${APT_OPTS[@]}" -qq download "$pkg=$ver" >/dev/null)
		f=$(ls "$DEBS/${pkg}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n 1 || true)
		[ -n "$f" ] || die "$pkg $ver: download failed"
	fi
	echo "$f"
}

# copy a driver module and the modules it depends on into $2, dependencies first in $2/order
add_module() {
	local mod=$1 out=$2 moddir=$3 f dep
	mod=${mod//-/_}
	grep -qx "$mod" "$out/order" 2>/dev/null && return 0
	# built in: nothing to load
	if sed 's#.*/##; s/\.ko.*//; s/-/_/g' "$moddir/modules.builtin" 2>/dev/null | grep -qx "$mod"; then
		return 0
	fi
	f=$(find "$moddir/kernel" -name "$mod.ko*" -o -name "${mod//_/-}.ko*" | head -n 1)
	[ -n "$f" ] || die "module $mod: neither built in nor in $moddir"
	# decompress on the host: busybox insmod in the VM then needs no xz or zstd support
	case $f in
	*.xz) xz -dc "$f" >"$out/$mod.ko" ;;
	*.zst) zstd -qdc "$f" >"$out/$mod.ko" ;;
	*.gz) gzip -dc "$f" >"$out/$mod.ko" ;;
	*) cp "$f" "$out/$mod.ko" ;;
	esac
	for dep in $(modinfo -F depends "$out/$mod.ko" | tr ',' ' '); do
		add_module "$dep" "$out" "$moddir"
	done
	echo "$mod" >>"$out/order"
}

# The optional modules of the VM's load (VM_LOAD_MODULES), each where the kernel has it; also
# run for a family cached before they were added. Their order follows the drivers'.
add_load_modules() {
	local dir=$1 moddir=$2 m
	for m in "${VM_LOAD_MODULES[@]}"; do
		# add_module dies for a module that is neither built in nor shipped: a subshell
		(add_module "$m" "$dir/initrd/lib/modules" "$moddir") >/dev/null 2>&1 || true
	done
}

# Download and unpack one family's kernel and headers (cached by package version).
fetch_family() {
	local fam=$1 dir=$CACHE/$1 img ver key rel hdr f p kver moddir
	img=$(resolve_image "$fam") || die "$fam: no linux-image-*-cloud-amd64 for this family in bookworm, trixie or trixie-backports"
	ver=$(candidate "$img")
	key="$img=$ver"
	if [ -f "$dir/.complete" ] && [ "$(sed -n 's/^image //p' "$dir/resolved" 2>/dev/null)" = "$img $ver" ]; then
		rel=$(sed -n 's/^release //p' "$dir/resolved")
		moddir=$(ls -d "$dir"/root/usr/lib/modules/"$rel" "$dir"/root/lib/modules/"$rel" 2>/dev/null | head -n 1 || true)
		[ -z "$moddir" ] || add_load_modules "$dir" "$moddir"
		return 0
	fi
	say "$fam: $img $ver"
	rm -rf "$dir"
	mkdir -p "$dir/root"
	{
		echo "# resolved by tools/vm/matrix.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "image $img $ver"
	} >"$dir/resolved"
	dpkg -x "$(download "$img")" "$dir/root"
	# from 6.19 the kernel is in linux-binary-*, the modules in linux-modules-* and the
	# config in linux-base-*; linux-image-* only depends on them
	for p in $(depends_matching "$img" "$ver" '^linux-(binary|modules|base)-[0-9]'); do
		# linux-base-<release> of 6.18 is named but not in the archive: only the config
		# and System.map, which the image package has itself then
		if ! has_candidate "$p"; then
			say "$fam: $p (a dependency of $img) is not in the archive; going on without it"
			continue
		fi
		echo "package $p $(candidate "$p")" >>"$dir/resolved"
		dpkg -x "$(download "$p")" "$dir/root"
	done
	f=$(ls "$dir"/root/boot/vmlinuz-* "$dir"/root/usr/lib/modules/*/vmlinuz "$dir"/root/lib/modules/*/vmlinuz 2>/dev/null | head -n 1 || true)
	[ -n "$f" ] || die "$fam: no kernel image in $img or its linux-binary package"
	ln -sfn "${f#"$dir"/}" "$dir/vmlinuz"
	rel=${img#linux-image-}
	echo "release $rel" >>"$dir/resolved"
	moddir=$(ls -d "$dir"/root/usr/lib/modules/"$rel" "$dir"/root/lib/modules/"$rel" 2>/dev/null | head -n 1 || true)
	[ -n "$moddir" ] || die "$fam: no modules directory for $rel"

	# the VM's drivers
	mkdir -p "$dir/initrd/lib/modules"
	: >"$dir/initrd/lib/modules/order"
	for p in "${VM_MODULES[@]}"; do
		add_module "$p" "$dir/initrd/lib/modules" "$moddir"
	done
	echo "vm-modules $(tr '\n' ' ' <"$dir/initrd/lib/modules/order")" >>"$dir/resolved"
	add_load_modules "$dir" "$moddir"

	# headers, for building the kernel module against this kernel: the flavour's package,
	# its -common package and linux-kbuild, unpacked into the same root so that their
	# relative links (scripts -> ../../lib/linux-kbuild-*/scripts) resolve
	hdr=${img/linux-image-/linux-headers-}
	if has_candidate "$hdr"; then
		local todo=("$hdr") seen=" " q
		while [ ${#todo[@]} -gt 0 ]; do
			q=${todo[0]}
			todo=("${todo[@]:1}")
			case $seen in *" $q "*) continue ;; esac
			seen="$seen$q "
			kver=$(candidate "$q")
			echo "headers-package $q $kver" >>"$dir/resolved"
			dpkg -x "$(download "$q")" "$dir/root"
			for p in $(depends_matching "$q" "$kver" '^linux-(headers|kbuild)-'); do
				todo+=("$p")
			done
		done
		# the flavour's Makefile names the -common tree (and from 7.x its own
		# KBUILD_OUTPUT) by absolute path, and lib/modules/*/build links to /usr/src:
		# point them all into the unpacked copy
		for f in "$dir"/root/usr/src/linux-headers-*/Makefile; do
			sed -i "s#\(^\|[ =]\)/usr/src/#\1$dir/root/usr/src/#g" "$f"
		done
		find "$dir/root" -type l -lname '/usr/src/*' | while read -r f; do
			ln -sfn "$dir/root$(readlink "$f")" "$f"
		done
		echo "$dir/root/usr/src/$hdr" >"$dir/headers"
		[ -f "$dir/root/usr/src/$hdr/Makefile" ] || die "$fam: $hdr unpacked without a Makefile"
	else
		echo "unavailable: the archive has no $hdr" >"$dir/headers"
		echo "headers-package none" >>"$dir/resolved"
	fi
	touch "$dir/.complete"
}

write_sources
apt_update_if_stale
for fam in "${families[@]}"; do
	fetch_family "$fam"
done

if [ $fetch_only = 1 ]; then
	for fam in "${families[@]}"; do
		printf '%-5s %-28s headers: %s\n' "$fam" "$(sed -n 's/^release //p' "$CACHE/$fam/resolved")" \
			"$(cat "$CACHE/$fam/headers")"
	done
	exit 0
fi

# ---- the binaries under test, from the current tree -----------------------------------------
# tools/setup.sh installs the build dependencies that are missing and runs make
say "building the binaries the VMs run (make vm-bins)"
bash "$repo/tools/setup.sh" vm-bins "BUILD=$BUILD" >&2
# the initramfs has no dynamic loader
for b in memstat-test integration_tests.static churn bench vmload kmod_abuse toucher kexec_crash; do
	! readelf -l "$repo/$BUILD/$b" | grep -q 'program interpreter' ||
		die "$BUILD/$b is not statically linked"
done

# ---- 3. initramfs and test disk (per run) ---------------------------------------------------
run=$(mktemp -d "$CACHE/run.XXXXXX")
vm_pid=
cleanup() {
	# only the VMs this script started: each family's worker (below) ends its own VM, by its
	# pid, when it is ended
	local p
	for p in $(jobs -pr); do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -z "$vm_pid" ] || kill "$vm_pid" 2>/dev/null || true
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the common part: busybox and its applets, the binaries, /init
ird=$run/initramfs
mkdir -p "$ird"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,var/tmp,root,etc,lib/modules}
cp /bin/busybox "$ird/bin/busybox"
for a in $("$ird/bin/busybox" --list-full); do
	[ -e "$ird/$a" ] || ln -s /bin/busybox "$ird/$a"
done
# the test build (its test hooks on, src/core/testhooks.h): the integration suite steers it
cp "$repo/$BUILD/memstat-test" "$ird/bin/memstat"
cp "$repo/$BUILD/integration_tests.static" "$ird/bin/integration_tests"
cp "$repo/$BUILD/churn" "$repo/$BUILD/bench" "$repo/$BUILD/vmload" "$repo/$BUILD/kmod_abuse" \
	"$repo/$BUILD/toucher" "$repo/$BUILD/kexec_crash" "$ird/bin/"
install -m 0755 "$here/init.sh" "$ird/init"
(cd "$ird" && find . | cpio -o -H newc -R 0:0 --quiet) >"$run/base.cpio"

# The disk: 1 GiB sparse ext4 with the largest shared library the exec test's globs find on
# the host, so that the VM finds it on a disk file system (a copy on tmpfs would be shmem).
# No metadata_csum: the newer kernels have crc32c as a module, which ext4 would then need.
lib=$(for pat in '/usr/lib/llvm-*/lib/libLLVM-*.so*' '/usr/lib/*/libLLVM-*.so*' '/usr/lib/*/libclang-cpp.so*'; do
	for f in $pat; do [ -f "$f" ] && echo "$(stat -L -c %s "$f") $f"; done
done | sort -n | tail -n 1 | cut -d' ' -f2-)
mkdir -p "$run/disk/lib"
if [ -n "$lib" ]; then
	cp "$(readlink -f "$lib")" "$run/disk/lib/$(basename "$lib")"
else
	say "no libLLVM or libclang-cpp on the host (install clang): the exec test will skip"
fi
truncate -s 1G "$run/disk.img"
mkfs.ext4 -q -F -O ^metadata_csum -L memstat-vm -d "$run/disk" "$run/disk.img"
rm -rf "$run/disk"

# ---- KVM or TCG -----------------------------------------------------------------------------
# KVM is tried once per host kernel and qemu version with a short timeout (on this project's
# machines a KVM guest hangs at boot); the verdict is cached.
qemu_version=$(qemu-system-x86_64 --version | head -n 1)
probe_kvm() {
	local key verdict
	key="$(uname -r) $qemu_version"
	if [ -f "$CACHE/kvm-probe" ] && [ "$(head -n 1 "$CACHE/kvm-probe")" = "$key" ]; then
		sed -n 2p "$CACHE/kvm-probe"
		return
	fi
	verdict=tcg
	if [ -c /dev/kvm ]; then
		mkdir -p "$run/probe/bin"
		cp /bin/busybox "$run/probe/bin/"
		printf '#!/bin/busybox sh\n/bin/busybox echo memstat-kvm-ok\n/bin/busybox poweroff -f\n' >"$run/probe/init"
		chmod +x "$run/probe/init"
		(cd "$run/probe" && find . | cpio -o -H newc -R 0:0 --quiet) >"$run/probe.cpio"
		if timeout -k 2 15 qemu-system-x86_64 -accel kvm -cpu host -m 512M -smp 1 -nographic \
			-no-reboot -nic none -kernel "$CACHE/${families[0]}/vmlinuz" -initrd "$run/probe.cpio" \
			-append "console=ttyS0 panic=-1 quiet" </dev/null 2>&1 | grep -q memstat-kvm-ok; then
			verdict=kvm
		fi
	fi
	printf '%s\n%s\n' "$key" "$verdict" >"$CACHE/kvm-probe"
	echo "$verdict"
}
case $ACCEL in
auto) accel=$(probe_kvm) ;;
kvm | tcg) accel=$ACCEL ;;
*) die "MEMSTAT_VM_ACCEL must be auto, kvm or tcg" ;;
esac
if [ "$accel" = kvm ]; then
	accel_args=(-accel kvm -cpu host)
else
	# one host thread for all vCPUs: under multi-threaded TCG the kernel's live code patching
	# (int3-based text_poke_bp, e.g. when sched_clock is marked stable) can race with the
	# other vCPU; 7.3 died so at boot ("Oops: int3" in sched_clock_idle_wakeup_event) in one
	# CI run. The whole matrix takes as long either way (3 min 46 s with thread=single).
	accel_args=(-accel tcg,thread=single -cpu max)
fi
say "accelerator: $accel"

# ---- 4. known gaps --------------------------------------------------------------------------
# "<family> <check> <reason>": family may be *; check is a test name (Suite.Test) or one of
# boot, disk, bpf, memstat, reconcile, features, tests, dmesg
known_gap() { # FAMILY CHECK: print the reason when listed
	[ -f "$here/known-gaps" ] || return 1
	awk -v f="$1" -v c="$2" '!/^[ \t]*(#|$)/ && ($1 == f || $1 == "*") && $2 == c {
		$1 = ""; $2 = ""; sub(/^ +/, ""); print; found = 1; exit } END { exit !found }' "$here/known-gaps"
}

# ---- 5. one VM per kernel -------------------------------------------------------------------
summary=()
any_fail=0

# parse the JSON of memstat --reconcile --json: "backend max_abs_diff_pct all_ok bad_rows"
parse_reconcile() {
	"$PY" - "$1" <<'PY'
import json, sys
text = open(sys.argv[1], errors="replace").read()
line = next((l for l in text.splitlines() if l.startswith("{")), None)
if line is None:
    print("none - false no-json"); sys.exit()
try:
    j = json.loads(line)
except ValueError:
    print("none - false bad-json"); sys.exit()
if "error" in j:
    print("none - false error:" + j["error"].replace(" ", "_")); sys.exit()
rows = j.get("reconcile", {}).get("rows", [])
diffs = [abs(r["diff_pct"]) for r in rows if r.get("diff_pct") is not None]
bad = [r["name"].replace(" ", "_") for r in rows if not r.get("ok")]
print(j.get("backend", "none"), "%.4f" % max(diffs) if diffs else "-",
      "true" if j.get("reconcile", {}).get("ok") and rows else "false", ",".join(bad) or "-")
PY
}

# parse gtest's JSON report: "total N", "passed N", then "fail NAME MSG" / "skip NAME MSG"; a
# skip's reason is not in gtest 1.12's JSON, so it is taken from the console log
parse_gtest() {
	"$PY" - "$1" "$2" <<'PY'
import json, re, sys
try:
    j = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("total 0"); print("passed 0"); sys.exit()
console = open(sys.argv[2], errors="replace").read().replace("\r", "")
def squash(s):
    return " ".join(s.split())[:240]
def skip_reason(name):
    m = re.search(r"^\[ RUN      \] %s\n(.*?)^\[  SKIPPED \] %s" % (re.escape(name), re.escape(name)),
                  console, re.M | re.S)
    if not m:
        return "skipped"
    return squash(re.sub(r"^.*: Skipped$", "", m.group(1), flags=re.M)) or "skipped"
out, total, passed = [], 0, 0
for suite in j.get("testsuites", []):
    for t in suite.get("testsuite", []):
        total += 1
        name = suite["name"] + "." + t["name"]
        fails = t.get("failures", [])
        if fails:
            out.append("fail %s %s" % (name, squash(fails[0].get("failure", ""))))
        elif t.get("result") == "SKIPPED" or t.get("status") == "NOTRUN":
            out.append("skip %s %s" % (name, skip_reason(name)))
        else:
            passed += 1
print("total", total); print("passed", passed)
print("\n".join(out))
PY
}

# extract "@@BEGIN NAME" ... "@@END NAME" from a results log
extract_block() {
	awk -v n="$2" '$0 == "@@END " n { p = 0 } p { print } $0 == "@@BEGIN " n { p = 1 }' "$1" | tr -d '\r'
}

# A Debian 13 build root, for the modules of kernels built with another gcc than the host's:
# their build tools (modpost, objtool) need Debian 13's glibc and the host's gcc lacks options
# their configuration uses. Made once with debootstrap from the mirror of the private sources.
BUILDROOT=$CACHE/trixie-root
ensure_buildroot() {
	local mirror
	[ -f "$BUILDROOT/.complete" ] && return 0
	mirror=$(awk '$4 == "trixie" { print $3; exit }' "$APTDIR/sources.list")
	command -v debootstrap >/dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2
	say "making a Debian 13 build root for kernel modules (once; $BUILDROOT)"
	rm -rf "$BUILDROOT"
	debootstrap --variant=minbase --include=gcc-14,make,libc6-dev,libelf-dev,bc,kmod,dwarves \
		trixie "$BUILDROOT" "$mirror" >"$CACHE/buildroot.log" 2>&1 || return 1
	touch "$BUILDROOT/.complete"
}

# Build kmod/memstat.ko against a family's headers, in a copy of the sources (Kbuild writes
# beside them), with the kernel's own gcc major: natively, or in the build root. Prints the
# module's path, or why it cannot be built.
build_kmod() {
	local fam=$1 out=$run/kmod-$1 h kgcc hgcc rc=0
	h=$(cat "$CACHE/$fam/headers")
	case $h in unavailable*) echo "no headers: $h"; return 1 ;; esac
	rm -rf "$out"
	mkdir -p "$out"
	cp -r "$repo/kmod" "$repo/include" "$out/"
	rm -f "$out"/kmod/*.ko "$out"/kmod/*.o "$out"/kmod/.*.cmd
	kgcc=$(sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)/\1/p' "$h/.config")
	hgcc=$(gcc -dumpversion | cut -d. -f1)
	if [ "$((${kgcc:-0} / 10000))" = "$hgcc" ]; then
		make -C "$h" M="$out/kmod" modules >"$out/build.log" 2>&1 || rc=$?
	else
		if ! ensure_buildroot; then
			echo "no Debian 13 build root for gcc $((${kgcc:-0} / 10000)) (see $CACHE/buildroot.log)"
			return 1
		fi
		mkdir -p "$BUILDROOT$CACHE"
		mount --bind "$CACHE" "$BUILDROOT$CACHE"
		mount -t proc proc "$BUILDROOT/proc"
		chroot "$BUILDROOT" make -C "$h" M="$out/kmod" modules >"$out/build.log" 2>&1 || rc=$?
		umount "$BUILDROOT/proc" "$BUILDROOT$CACHE" || true
	fi
	if [ $rc -ne 0 ] || [ ! -f "$out/kmod/memstat.ko" ]; then
		echo "build failed: $(grep -m1 -E 'error|Error' "$out/build.log")"
		return 1
	fi
	echo "$out/kmod/memstat.ko"
}

# memstat --core of DUMP on the host against the VM's walks just before and after dump NAME
# (qemu_dump.py check; RECORDS "allpages": allpages --core of it too, and against the VM's
# --runs before and after when given): what it found goes to
# run_family's extra as LABEL, a failure to its fails as "memstat --core of WHAT: ..."
core_check() { # DUMP NAME LABEL WHAT [RECORDS [BEFORE_RUNS AFTER_RUNS]]
	local line
	if line=$("$PY" "$here/qemu_dump.py" check "$repo/$BUILD/memstat-test" "$1" \
		"$dir/core-before-$2.json" "$dir/core-after-$2.json" "${@:5}"); then
		extra="${extra:+$extra; }$3: ${line#ok: }"
	else
		fails+=("core|memstat --core of $4: ${line#fail: }")
	fi
}

# KFENCE on from boot, as distributions with a non-zero CONFIG_KFENCE_SAMPLE_INTERVAL run it
# (Debian builds KFENCE but leaves it off): its pool is memblock memory, reserved, whose object
# pages are slab-typed; the cross-check test checks them (kernels without KFENCE ignore it)
KFENCE_ARGS="kfence.sample_interval=500"

# MEMSTAT_VM_STRESS: the family that also runs the walks under memory churn with THP, offlines
# and onlines a memory block (movablecore gives it movable blocks), and runs make bench's program
STRESS=${MEMSTAT_VM_STRESS:-6.12}

# MEMSTAT_VM_MEM in MiB
vm_mib() {
	case $VM_MEM in
	*G) echo $((${VM_MEM%G} * 1024)) ;;
	*M) echo "${VM_MEM%M}" ;;
	*) echo $((VM_MEM / 1048576)) ;;
	esac
}

# MEMSTAT_VM_KDUMP: the family that ends in a real kdump ("none": no family): booted with
# crashkernel=, it loads a capture kernel (the same kernel, a small initramfs of busybox, /init
# and the disk drivers), crashes, and the capture kernel writes /proc/vmcore to a second disk;
# memstat --core of that on the host is checked against the VM's last walk before the crash.
# A family without the module (6.18): the module's check locks the kernel down
# (confidentiality), after which the BPF walk before the crash cannot read all it needs
# (7.x, with the module: 11,936 pages unknown, no Exec)
KDUMP=${MEMSTAT_VM_KDUMP:-6.18}
KDUMP_RESERVE=256M

# the kdump family's extra initramfs part: /kdump/vmlinuz and /kdump/capture.cpio
kdump_cpio() { # FAMILY OUT
	local fam=$1 c=$run/capture-$1 k=$run/kdump-$1 a
	rm -rf "$c" "$k"
	mkdir -p "$c"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,lib/modules} "$k/kdump"
	cp /bin/busybox "$c/bin/busybox"
	for a in $("$c/bin/busybox" --list-full); do
		[ -e "$c/$a" ] || ln -s /bin/busybox "$c/$a"
	done
	install -m 0755 "$here/init.sh" "$c/init"
	cp -r "$CACHE/$fam/initrd/lib/modules/." "$c/lib/modules/"
	rm -f "$c/lib/modules/memstat.ko"
	(cd "$c" && find . | cpio -o -H newc -R 0:0 --quiet) >"$k/kdump/capture.cpio"
	cp "$(readlink -f "$CACHE/$fam/vmlinuz")" "$k/kdump/vmlinuz"
	(cd "$k" && find . | cpio -o -H newc -R 0:0 --quiet) >"$2"
	rm -rf "$c" "$k"
}

run_family() {
	local fam=$1 dir=$CACHE/$1 res console rc=0 t0 t1 uname backend maxd ok bad
	local fails=() gaps=() line name msg reason total passed status
	res=$dir/results.log
	console=$dir/serial.log
	local ko kmod_why="" stress_args=""
	rm -f "$res" "$dir/verifier.log" "$dir/initrd/lib/modules/memstat.ko" "$console.first-boot"
	# the module was built before the VMs started (below, before the workers)
	ko=$(cat "$run/kmod-$fam.result")
	if [ "${ko#ok }" != "$ko" ]; then
		cp "${ko#ok }" "$dir/initrd/lib/modules/memstat.ko"
	else
		kmod_why=$ko
	fi
	[ "$fam" != "$STRESS" ] || stress_args="memstat.stress=1 movablecore=512M"
	# two NUMA nodes: half the memory and one CPU each; init.sh tells the tests how many
	local numa_args=() mib smp=2
	if [ "$fam" = "$NUMA" ]; then
		# a socket per CPU: two cores of one socket on two nodes would share a cache
		# across nodes (the kernel warns: "llc-sibling ... is not on the same node")
		smp=2,sockets=2,cores=1,threads=1
		mib=$(vm_mib)
		numa_args=(-object "memory-backend-ram,id=m0,size=$((mib / 2))M"
			-object "memory-backend-ram,id=m1,size=$((mib - mib / 2))M"
			-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1)
		stress_args="$stress_args memstat.numa_nodes=2"
	fi
	(cd "$dir/initrd" && find . | cpio -o -H newc -R 0:0 --quiet) >"$run/mods-$fam.cpio"
	local kdump_args=() kdump_cmd=""
	: >"$run/kdump-$fam.cpio"
	rm -f "$dir/kdump.core"
	if [ "$fam" = "$KDUMP" ]; then
		kdump_cpio "$fam" "$run/kdump-$fam.cpio"
		truncate -s "$(($(vm_mib) + 512))M" "$dir/kdump.core"
		kdump_args=(-drive "file=$dir/kdump.core,format=raw,if=virtio,cache=unsafe")
		kdump_cmd="memstat.kdump=1 crashkernel=$KDUMP_RESERVE"
	fi
	cat "$run/base.cpio" "$run/mods-$fam.cpio" "$run/kdump-$fam.cpio" >"$run/initrd-$fam.cpio"
	say "$fam: booting $(sed -n 's/^release //p' "$dir/resolved") ($accel, timeout ${VM_TIMEOUT}s; log $console)"
	t0=$(date +%s)
	# A boot that dies before /init is the emulated kernel's own failure, not memstat's: it
	# is booted once more, and the summary line says so with the first boot's panic line.
	local attempt why boot_note=""
	for attempt in 1 2; do
		rc=0
		: >"$res"
		# -snapshot: the VMs share one disk image and none of them changes it
		timeout -k 10 "$VM_TIMEOUT" qemu-system-x86_64 "${accel_args[@]}" -m "$VM_MEM" -smp "$smp" \
			"${numa_args[@]}" \
			-nographic -no-reboot -nic none \
			-kernel "$dir/vmlinuz" -initrd "$run/initrd-$fam.cpio" \
			-append "console=ttyS0 panic=-1 quiet MEMSTAT_VM_TEST_TIMEOUT=$((VM_TIMEOUT * 3 / 4)) $KFENCE_ARGS $stress_args $kdump_cmd ${MEMSTAT_VM_APPEND:-}" \
			-drive "file=$run/disk.img,format=raw,if=virtio,snapshot=on,cache=unsafe" \
			"${kdump_args[@]}" \
			-serial mon:stdio -serial "file:$res" \
			-device vmcoreinfo -qmp "unix:$run/qmp-$fam.sock,server=on,wait=off" \
			-chardev "socket,id=ack,path=$run/ack-$fam.sock,server=on,wait=off" \
			-serial chardev:ack \
			</dev/null >"$console" 2>&1 &
		vm_pid=$!
		# memstat --core: the dumps /init asks for, through QEMU's monitor (qemu_dump.py)
		rm -f "$dir"/dump-*.core
		"$PY" "$here/qemu_dump.py" watch "$res" "$run/qmp-$fam.sock" "$run/ack-$fam.sock" \
			"$dir" 2>>"$dir/dumps.log" &
		dump_pid=$!
		wait "$vm_pid" || rc=$?
		wait "$dump_pid" || true
		vm_pid=
		if [ $attempt = 1 ] && [ $rc != 124 ] && [ $rc != 137 ] && ! grep -q '^@@ start' "$res"; then
			mv "$console" "$console.first-boot"
			why=$(tr -d '\r' <"$console.first-boot" | grep -a -m 1 -o -E '(Oops|BUG|Kernel panic).*' | cut -c1-120 || true)
			[ -n "$why" ] || why="qemu exit $rc"
			boot_note="boot retried: the first boot died before /init ($why; $console.first-boot)"
			say "$fam: $boot_note"
			continue
		fi
		break
	done
	t1=$(date +%s)
	touch "$res"
	sed -i 's/\r$//' "$res"

	uname=$(sed -n 's/^@@ uname //p' "$res" | head -n 1)
	[ -n "$uname" ] || uname=$(sed -n 's/^release //p' "$dir/resolved")
	if ! grep -q '^@@ start' "$res"; then
		fails+=("boot|the kernel did not reach /init (qemu exit $rc; see $console)")
	elif ! grep -q '^@@ end' "$res"; then
		if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
			fails+=("boot|the VM did not finish within ${VM_TIMEOUT}s (last record: $(grep '^@@' "$res" | tail -n 1))")
		else
			fails+=("boot|the VM stopped early (qemu exit $rc; last record: $(grep '^@@' "$res" | tail -n 1))")
		fi
	fi
	while read -r line; do
		fails+=("boot|insmod ${line#@@ insmod-fail } failed")
	done < <(grep '^@@ insmod-fail' "$res" || true)
	grep -q '^@@ disk-fail' "$res" && fails+=("disk|$(sed -n 's/^@@ disk-fail //p' "$res" | head -n 1)")

	# the bpf backend must load and run
	if grep -q '^@@ fallback' "$res"; then
		extract_block "$res" verifier-log >"$dir/verifier.log"
		fails+=("bpf|fell back to kpageflags: $(sed -n 's/^@@ fallback //p' "$res" | head -n 1 | cut -c1-300) (verifier log: $dir/verifier.log)")
	fi
	for name in memstat memstat-v memstat-features; do
		rc=$(sed -n "s/^@@ rc $name //p" "$res" | head -n 1)
		[ -z "$rc" ] || [ "$rc" = 0 ] || fails+=("memstat|$name exited $rc")
	done
	extract_block "$res" features >"$dir/features.txt"
	# make wss-picture's log (memstat.wsslog=1 in MEMSTAT_VM_APPEND)
	rm -f "$dir/wss.csv"
	! grep -q '^@@BEGIN wss-log' "$res" || extract_block "$res" wss-log >"$dir/wss.csv"
	if grep -q '^@@ rc memstat-features 0' "$res" && ! grep -q 'vmemmap base: *located' "$dir/features.txt"; then
		fails+=("features|$(grep 'vmemmap base' "$dir/features.txt" || echo 'no vmemmap base line')")
	fi

	# reconciliation
	extract_block "$res" reconcile-json >"$dir/reconcile.json"
	read -r backend maxd ok bad < <(parse_reconcile "$dir/reconcile.json")
	if grep -q '^@@ start' "$res" && [ "$ok" != true ]; then
		fails+=("reconcile|rows outside 0.5% of MemTotal or no reconciliation: $bad (exit $(sed -n 's/^@@ rc memstat-reconcile-json //p' "$res"))")
	fi
	[ "$backend" = bpf ] || [ "$backend" = none ] || grep -q '^@@ fallback' "$res" ||
		fails+=("bpf|memstat --json reports backend $backend")

	# integration tests
	extract_block "$res" gtest-json >"$dir/gtest.json"
	total=0
	passed=0
	while read -r kind name msg; do
		case $kind in
		total) total=$name ;;
		passed) passed=$name ;;
		fail) fails+=("$name|failed: $msg") ;;
		skip) fails+=("$name|skipped: $msg") ;;
		esac
	done < <(parse_gtest "$dir/gtest.json" "$console")
	rc=$(sed -n 's/^@@ rc integration-tests //p' "$res" | head -n 1)
	if grep -q '^@@ tests-skipped' "$res"; then
		fails+=("tests|not run: $(sed -n 's/^@@ tests-skipped //p' "$res" | head -n 1)")
	elif grep -q '^@@ start' "$res" && { [ "$total" = 0 ] || { [ -n "$rc" ] && [ "$rc" != 0 ] && [ "$passed" = "$total" ]; }; }; then
		fails+=("tests|integration tests exited ${rc:-?} without a complete report (crash or timeout? see $console)")
	fi

	local extra=""
	# memstat --core on the host, of each dump of the VM's memory, against the VM's own walks
	# just before and just after it (qemu_dump.py check); the dumps are removed after
	local dumped=0
	while read -r name fmt; do
		dumped=$((dumped + 1))
		extract_block "$res" "core-before-$name" >"$dir/core-before-$name.json" || true
		extract_block "$res" "core-after-$name" >"$dir/core-after-$name.json" || true
		extract_block "$res" "meminfo-before-$name" >"$dir/meminfo-before-$name.txt" || true
		extract_block "$res" "meminfo-after-$name" >"$dir/meminfo-after-$name.txt" || true
		extract_block "$res" "runs-before-$name" >"$dir/runs-before-$name.b64" || true
		extract_block "$res" "runs-after-$name" >"$dir/runs-after-$name.b64" || true
		if [ ! -s "$dir/dump-$name.core" ]; then
			fails+=("core|no dump $name ($fmt) was written: $(tail -n 1 "$dir/dumps.log" 2>/dev/null)")
		else
			local runs=()	# the VM's --runs around the ELF dump (init.sh)
			[ "$name" != elf ] ||
				runs=("$dir/runs-before-$name.b64" "$dir/runs-after-$name.b64")
			core_check "$dir/dump-$name.core" "$name" "core $name" "the $fmt dump" allpages \
				"${runs[@]}"
		fi
		# the ELF dump as kdump saves one: makedumpfile -d 31 (free, cache, user and zero
		# pages left out; struct pages kept), compressed by zlib and by LZO (Debian 12's
		# makedumpfile 1.7.2 is built without snappy and zstd, its QEMU 7.2 without LZO and
		# snappy: those two and zstd are tested on synthetic dumps, tests/core_test.py)
		local mk opt alg
		[ "$fmt" != elf ] || [ ! -s "$dir/dump-$name.core" ] ||
			"$PY" "$here/qemu_dump.py" for-makedumpfile "$dir/dump-$name.core"
		for mk in c:zlib l:lzo; do
			[ "$fmt" = elf ] && [ -s "$dir/dump-$name.core" ] || break
			opt=${mk%%:*}
			alg=${mk#*:}
			rm -f "$dir/dump-$alg.kdump"
			if ! makedumpfile -"$opt" -d 31 "$dir/dump-$name.core" "$dir/dump-$alg.kdump" \
				>>"$dir/dumps.log" 2>&1; then
				fails+=("core|makedumpfile -$opt -d 31 of the ELF dump failed: $(grep -v '^$' "$dir/dumps.log" | tail -n 1)")
			else
				core_check "$dir/dump-$alg.kdump" "$name" "core makedumpfile -$opt -d 31" \
					"makedumpfile -$opt -d 31's dump"
			fi
			[ -n "${MEMSTAT_VM_KEEP_DUMPS:-}" ] || rm -f "$dir/dump-$alg.kdump"
		done
		# and as a guest without -device vmcoreinfo leaves it: no note, VMCOREINFO found in
		# the guest's memory (the ELF dump is not read after this)
		if [ "$fmt" = elf ] && [ -s "$dir/dump-$name.core" ] &&
			"$PY" "$here/qemu_dump.py" without-note "$dir/dump-$name.core"; then
			core_check "$dir/dump-$name.core" "$name" "core elf without its note" \
				"the ELF dump without its VMCOREINFO note"
		fi
		[ -n "${MEMSTAT_VM_KEEP_DUMPS:-}" ] || rm -f "$dir/dump-$name.core"
	done < <(sed -n 's/^@@ dump-request //p' "$res")
	if grep -q '^@@ start' "$res" && [ $dumped = 0 ]; then
		fails+=("core|the VM asked for no dump of its memory: $(sed -n 's/^@@ dump-fail //p' "$res" | head -n 1)")
	fi

	# the real kdump: the capture kernel saved /proc/vmcore on the second disk; memstat --core
	# of it against the VM's walk just before the crash
	if [ "$fam" = "$KDUMP" ] && grep -q '^@@ start' "$res"; then
		if ! grep -q '^@@ kdump-loaded' "$res"; then
			fails+=("kdump|no capture kernel loaded: $(sed -n 's/^@@ kdump-fail //p' "$res" | head -n 1)")
		elif ! grep -q '^@@ kdump-saved' "$res"; then
			fails+=("kdump|no /proc/vmcore saved: $(sed -n 's/^@@ kdump-fail //p' "$res" | head -n 1 | grep . || echo "last record: $(grep '^@@' "$res" | tail -n 1)")")
		else
			extract_block "$res" core-before-kdump >"$dir/core-before-kdump.json" || true
			cp "$dir/core-before-kdump.json" "$dir/core-after-kdump.json"
			extract_block "$res" meminfo-before-kdump >"$dir/meminfo-before-kdump.txt" || true
			cp "$dir/meminfo-before-kdump.txt" "$dir/meminfo-after-kdump.txt"
			core_check "$dir/kdump.core" kdump "kdump ($(sed -n 's/^@@ kdump-saved //p' "$res" | head -n 1))" \
				"the capture kernel's /proc/vmcore"
		fi
	fi
	[ -n "${MEMSTAT_VM_KEEP_DUMPS:-}" ] || rm -f "$dir/kdump.core"

	# the load the module-versus-BPF test needs (hugetlb, KSM, zram swap) was set up
	if grep -q '^@@ start' "$res" && ! grep -q '^@@ load ok' "$res"; then
		fails+=("load|$(sed -n 's/^@@ load-fail //p' "$res" | head -n 1 | grep . || echo 'no result of the load set-up')")
	fi

	# the kernel module: built for this kernel, loaded, and its walk reconciles too
	if [ -n "$kmod_why" ]; then
		fails+=("kmod|$kmod_why")
	elif grep -q '^@@ start' "$res"; then
		grep -q '^@@ kmod loaded' "$res" ||
			fails+=("kmod|$(sed -n 's/^@@ kmod-fail //p' "$res" | head -n 1)")
		if grep -q '^@@ kmod loaded' "$res"; then
			grep -q '^@@ kmod concurrent ok' "$res" ||
				fails+=("kmod|$(sed -n 's/^@@ kmod-concurrent-fail //p' "$res" | head -n 1 | grep . || echo 'no result of two walks at once')")
			grep -q '^@@ kmod abuse ok' "$res" ||
				fails+=("kmod|$(sed -n 's/^@@ kmod-abuse-fail //p' "$res" | head -n 1 | grep . || echo 'no result of kmod_abuse')")
			grep -q '^@@ kmod lockdown ok' "$res" ||
				fails+=("kmod|$(sed -n 's/^@@ kmod-lockdown-fail //p' "$res" | head -n 1 | grep . || echo 'no result of the lockdown check')")
			grep -q '^@@ kmod unloaded' "$res" ||
				fails+=("kmod|$(sed -n 's/^@@ kmod-unload-fail //p' "$res" | head -n 1 | grep . || echo 'no result of rmmod')")
		fi
		extract_block "$res" kmod-reconcile-json >"$dir/kmod-reconcile.json" || true
		read -r kbackend kmaxd kok kbad < <(parse_reconcile "$dir/kmod-reconcile.json") || true
		[ "$kbackend" = kmod ] && [ "$kok" = true ] ||
			fails+=("kmod|memstat --backend kmod --reconcile: backend $kbackend, $kbad")
	fi

	# the stress family: walks under churn, an offlined block, reconciliation afterwards
	if [ "$fam" = "$STRESS" ] && grep -q '^@@ start' "$res"; then
		line=$(sed -n 's/^@@ stress walks //p' "$res" | head -n 1)
		case $line in
		*" failed 0") extra="${extra:+$extra; }stress: $line walks under churn" ;;
		"") fails+=("stress|no walks under churn were reported") ;;
		*) fails+=("stress|walks under churn: $line") ;;
		esac
		while read -r line; do
			fails+=("stress|${line#@@ stress-fail }")
		done < <(grep '^@@ stress-fail' "$res" || true)
		local tb tk
		tb=$(extract_block "$res" offline-bpf-json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["pages"]["total"])' 2>/dev/null || true)
		tk=$(extract_block "$res" offline-kmod-json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["pages"]["total"])' 2>/dev/null || true)
		[ -n "$tb" ] && [ "$tb" = "$tk" ] ||
			fails+=("stress|with a block offline, bpf counts ${tb:-?} pages and kmod ${tk:-?}")
		for name in stress-reconcile-json stress-kmod-reconcile-json; do
			extract_block "$res" $name >"$dir/$name" || true
			read -r kbackend kmaxd kok kbad < <(parse_reconcile "$dir/$name") || true
			[ "$kok" = true ] || fails+=("stress|after churn and offline/online, $name: $kbad")
		done
		extract_block "$res" bench >"$dir/bench.txt" || true
		extra="${extra:+$extra; }bench (TCG, relative only): $(awk 'match($0, /[0-9.]+ ns\/page/) { v = substr($0, RSTART, RLENGTH) } /^bpf walk, every page read/ { printf "bpf %s", v } /^kernel module walk/ { printf ", kmod %s", v }' "$dir/bench.txt" || true)"
	fi

	# the verifier's cost of the walk program on this kernel (TCG: relative only): the last
	# walk program verified is the one loaded (6.1 rejects walk_cast first)
	line=$(sed -n 's/^@@ verifier //p' "$res" | head -n 1 | grep -o -E 'walk(_cast)? [0-9]+ insns [0-9]+ ms' | tail -n 1 || true)
	[ -z "$line" ] || extra="${extra:+$extra; }verifier (TCG): $line"

	# kernel log
	while read -r line; do
		fails+=("dmesg|${line#@@ dmesg-bad }")
	done < <(grep '^@@ dmesg-bad' "$res" | head -n 5 || true)

	# known gaps turn failures into KNOWN-GAP; everything else fails the kernel
	local unknown=() f check
	for f in "${fails[@]}"; do
		check=${f%%|*}
		if reason=$(known_gap "$fam" "$check"); then
			gaps+=("$check: ${f#*|} [known gap: $reason]")
		else
			unknown+=("$check: ${f#*|}")
		fi
	done
	if [ ${#unknown[@]} -gt 0 ]; then
		status=FAIL
	elif [ ${#gaps[@]} -gt 0 ]; then
		status=KNOWN-GAP
	else
		status=PASS
	fi
	line="$fam $uname $backend $status max_reconcile_diff=${maxd}% tests=$passed/$total vm=$((t1 - t0))s"
	[ -z "$extra" ] || line="$line $extra"
	[ -z "$boot_note" ] || line="$line; $boot_note"
	[ ${#unknown[@]} -eq 0 ] || line="$line $(printf '%s; ' "${unknown[@]}")"
	[ ${#gaps[@]} -eq 0 ] || line="$line $(printf '%s; ' "${gaps[@]}")"
	line=${line%; }
	printf '%s\n' "$line" >"$run/summary-$fam"
	echo "$line"
	echo "  serial log: $console"
}

# The modules first, one family after another: the build root's mounts are not for two builds
# at once, and the VMs then have the cores to themselves.
for fam in "${families[@]}"; do
	if ko=$(build_kmod "$fam"); then
		echo "ok $ko" >"$run/kmod-$fam.result"
	else
		echo "$ko" >"$run/kmod-$fam.result"
	fi
done

# How many VMs at once: under TCG (thread=single) a VM runs on one host thread, under KVM on
# one a vCPU (2); each needs its memory and its dumps' check (a VM's memory more, at most).
jobs_max=${MEMSTAT_VM_JOBS:-}
if [ -z "$jobs_max" ]; then
	per_vm=1
	[ "$accel" = tcg ] || per_vm=2
	avail_mib=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	jobs_max=$(($(nproc) / per_vm))
	[ "$jobs_max" -le $((avail_mib / ($(vm_mib) * 2))) ] || jobs_max=$((avail_mib / ($(vm_mib) * 2)))
fi
case $jobs_max in '' | *[!0-9]*) die "MEMSTAT_VM_JOBS must be a number" ;; esac
[ "$jobs_max" -ge 1 ] || jobs_max=1
[ "$jobs_max" -le ${#families[@]} ] || jobs_max=${#families[@]}

# the longest family of the last run first (its summary's vm=SECONDS), so that the last one to
# start is a short one; the summary keeps the families' order
queue=()
while read -r _ fam; do queue+=("$fam"); done < <(
	for fam in "${families[@]}"; do
		secs=$(awk -v f="$fam" '$1 == f && match($0, / vm=[0-9]+s/) {
			print substr($0, RSTART + 4, RLENGTH - 5); exit }' "$CACHE/summary.txt" 2>/dev/null)
		echo "${secs:-99999} $fam"
	done | sort -s -k1,1nr)
[ "$jobs_max" -eq 1 ] || say "${#families[@]} kernels, $jobs_max VMs at once (MEMSTAT_VM_JOBS): ${queue[*]}"

# one worker a family: it ends its VM (by its pid) when it is ended
run_worker() { # FAMILY
	trap '[ -z "$vm_pid" ] || kill "$vm_pid" 2>/dev/null || true' EXIT
	trap 'exit 130' INT TERM
	run_family "$1"
}
declare -A worker_of=()
vms_t0=$(date +%s)
for fam in "${queue[@]}"; do
	while [ "$(jobs -pr | wc -l)" -ge "$jobs_max" ]; do
		wait -n || true
	done
	run_worker "$fam" &
	worker_of[$fam]=$!
done
for fam in "${families[@]}"; do
	rc=0
	wait "${worker_of[$fam]}" || rc=$?
	if [ -s "$run/summary-$fam" ]; then
		summary+=("$(cat "$run/summary-$fam")")
		grep -q "^[^ ]* [^ ]* [^ ]* FAIL " "$run/summary-$fam" && any_fail=1
	else
		summary+=("$fam ? ? FAIL the matrix's worker for $fam stopped (exit $rc) before its summary line")
		any_fail=1
	fi
done

{
	echo "# memstat VM matrix, $(date -u +%Y-%m-%dT%H:%M:%SZ), $accel, commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?'), $jobs_max VMs at once, $(($(date +%s) - vms_t0)) s from the first boot to the last result"
	printf '%s\n' "${summary[@]}"
} >"$CACHE/summary.txt"
echo
echo "summary ($CACHE/summary.txt):"
printf '%s\n' "${summary[@]}"
exit $any_fail
