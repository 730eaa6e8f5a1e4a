#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# On a fresh Debian 12 machine, as root: install whatever memstat needs that is missing, then
# run `make "$@"` in the repository. The README's two commands are
#     bash tools/setup.sh run      (build and print the summary)
#     bash tools/setup.sh test     (build and run every test)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# what building and running memstat needs (`setup.sh run`, `setup.sh`, `setup.sh install`)
packages=(
	make gcc g++ clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libzstd-dev pkg-config
	# memstat diff reads JSON with Jansson (linked statically)
	libjansson-dev
	# memstat --core: kdump-compressed dumps' pages (zlib and zstd above, LZO, snappy)
	liblzo2-dev libsnappy-dev
	# the man page (docs/memstat.8.scd)
	scdoc
)
# the suites: only for a test target (test, unit, integration, cli, pytest, pkgtest, fuzz, san, ...)
test_packages=(
	libgtest-dev nlohmann-json3-dev python3 python3-pytest python3-prometheus-client python3-yaml util-linux
	# tests/pkg_test.sh: man --warnings, col, zsh -n of the zsh completion
	man-db bsdextrautils zsh
	# the fuzzers (tests/fuzz): clang's libFuzzer and sanitizer runtimes, packaged apart
	libclang-rt-dev
	# memstat map and plot (tests/picture_test.py, cli): xmllint, and rsvg-convert (the PNG
	# renderer memstat runs, /usr/bin/rsvg-convert) with a font
	libxml2-utils librsvg2-bin fonts-dejavu-core
	# tests/compare_test.py: the tools --compare lays the walk against (free and slabtop are
	# procps's)
	smem procps
	# tests/serve_test.py: a real Prometheus server scrapes memstat serve; nginx in front of it
	# (contrib/nginx: TLS and basic authentication) with openssl's certificate and password
	prometheus nginx-light openssl
	# tests/core_test.py: kdump-compressed dumps with LZO, snappy and zstd pages
	python3-lzo python3-snappy python3-zstandard
	# tests/deb_test.sh: building the Debian packages, lintian, a Debian 12 chroot
	dpkg-dev debhelper dh-dkms fakeroot lintian debootstrap zstd
)
# the VM matrix (tools/vm): kernels are downloaded there, into a cache outside the tree
# (makedumpfile: the VM's dump filtered and compressed as kdump saves one, for memstat --core)
vm_packages=(qemu-system-x86 busybox-static cpio e2fsprogs kmod xz-utils zstd debootstrap makedumpfile)
# make vmtest-debug (tools/vm/debug-kernel.sh): building a kernel from Debian's linux-source
kernel_packages=(bc bison flex libssl-dev openssl)

# --print-packages TARGET...: print the packages those make targets need, one a line, and stop
print=0
if [ "${1:-}" = --print-packages ]; then
	print=1
	shift
fi
for arg in "$@"; do
	case $arg in
	-*|*=*|all|run|man|install|uninstall|clean|kmod|kmod-clean|bench) ;;
	vmtest|debtest) packages+=("${test_packages[@]}" "${vm_packages[@]}");;
	test|vmtest-debug) packages+=("${test_packages[@]}" "${vm_packages[@]}" "${kernel_packages[@]}");;
	*) packages+=("${test_packages[@]}");;
	esac
done
if [ $print = 1 ]; then
	printf '%s\n' "${packages[@]}" | sort -u
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "setup: run as root (it installs Debian packages and memstat reads kernel memory)" >&2
	exit 4
fi

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

exec make -C "$root" "$@"
