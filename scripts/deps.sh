#!/bin/sh
# Install the Debian packages bpflab needs to build, test and run the lab in a box.
# Does nothing when every package is already present; needs root otherwise.
# Called by `make deps` (and so by `make demo` and `make check`).
#
#   sh scripts/deps.sh          the base set (build, unit and integration tests)
#   sh scripts/deps.sh guests   also what QEMU guests with Debian kernels need
#                               (lab/kernels, `lab/lab up --kernels`, test_guests.sh)
#   sh scripts/deps.sh browser  also headless chromium driven by selenium, for the
#                               dashboard's browser test (test_dashboard.sh; `make check`)
#   sh scripts/deps.sh kbuild   also what building guest kernels from a tree needs
#                               (lab/kernels build, make check-kernel-build)
#   sh scripts/deps.sh package  also what make deb, the man pages and the unit checks need
#                               (dist/install.mk, test_install_tree.sh, test_deb.sh)
set -eu

# guests: QEMU (TCG), virtiofsd (in qemu-system-common), a static busybox for the
# initramfs, depmod/modprobe for the guest kernels' module trees, cpio and the
# decompressors for vmlinuz and .ko.xz/.ko.zst modules; kexec-tools for the guests'
# kernel provider (lab/guest/kexec-provider.sh runs the host's /sbin/kexec in a guest).
# kexec-tools is in the base set too: the unit test test_agent_provider runs that
# provider (dry) and needs the command present.
GUEST_PKGS="qemu-system-x86 qemu-system-common busybox-static kmod cpio xz-utils zstd lz4
binutils kexec-tools"

# browser: Debian's chromium, its WebDriver and Python's selenium bindings (for Debian's
# /usr/bin/python3); nothing from another registry.
BROWSER_PKGS="chromium chromium-driver python3-selenium"

# kbuild: a kernel tree to build (linux-source-6.12, a tarball under /usr/src), the
# compiler cache that makes neighbouring commits rebuild in about a minute, and the
# tools kbuild calls (pahole from dwarves for BTF, bc, flex, bison, openssl and libelf
# headers); git makes the tree a repository to bisect; kmod, cpio and busybox-static
# pack the built kernel into the kernel cache (depmod, its initramfs), as for guests.
KBUILD_PKGS="linux-source-6.12 ccache dwarves bc flex bison libssl-dev libelf-dev git
xz-utils kmod cpio busybox-static binutils"

# package: dpkg-shlibdeps (dpkg-dev) for make deb's Depends, man and groff to check the
# man pages, systemd-analyze (systemd; nothing is started) to verify the units, strip.
PACKAGE_PKGS="dpkg-dev man-db groff-base systemd binutils"

PKGS="make gcc clang llvm pkg-config bpftool libbpf-dev libelf-dev zlib1g-dev
libzmq3-dev libyaml-dev libsqlite3-dev libcmocka-dev libjansson-dev libmicrohttpd-dev
iproute2 ethtool sqlite3 gnuplot-nox librsvg2-bin libxml2-utils libclang-rt-14-dev procps psmisc python3
kexec-tools"
for group in "$@"; do
	case "$group" in
	guests) PKGS="$PKGS $GUEST_PKGS" ;;
	browser) PKGS="$PKGS $BROWSER_PKGS" ;;
	kbuild) PKGS="$PKGS $KBUILD_PKGS" ;;
	package) PKGS="$PKGS $PACKAGE_PKGS" ;;
	*) echo "deps: unknown group '$group' (known: guests, browser, kbuild, package)" >&2; exit 2 ;;
	esac
done

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps: installing$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages and not root; run as root or install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# kexec-tools must not take over this machine's own reboots: only guests use it
case "$missing" in *kexec-tools*)
	echo "kexec-tools kexec-tools/load_kexec boolean false" | debconf-set-selections ;;
esac
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
