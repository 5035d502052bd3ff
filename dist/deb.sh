#!/bin/sh
# deb.sh - build BUILD/bpflab_VERSION_ARCH.deb with dpkg-deb (make deb; docs/deploy.md).
#
#   sh dist/deb.sh [BUILD]
#
# Stages `make install PREFIX=/usr DESTDIR=BUILD/deb/root`, adds the control file (its
# Depends from the binaries' shared libraries through dpkg-shlibdeps, plus what the
# maintainer scripts and the agent run), the maintainer scripts of dist/debian/, and
# /etc/bpflab's files as conffiles; builds as files owned by root without being root
# (dpkg-deb --root-owner-group). Tools: dpkg-deb and dpkg-shlibdeps, from dpkg and
# dpkg-dev (scripts/deps.sh package).
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
stage=$BUILD/deb
root=$stage/root
version=$(cat VERSION 2>/dev/null || true)
arch=$(dpkg --print-architecture)
out=$BUILD/bpflab_${version}_${arch}.deb

for tool in dpkg-deb dpkg-shlibdeps; do
	command -v "$tool" >/dev/null ||
		{ echo "deb: '$tool' is missing; run 'sh scripts/deps.sh package'" >&2; exit 1; }
done
[ -n "$version" ] || { echo "deb: no version (the VERSION file)" >&2; exit 1; }

rm -rf "$stage"
make --no-print-directory BUILD="$BUILD" PREFIX=/usr DESTDIR="$PWD/$root" install
mkdir -p "$root/DEBIAN" "$stage/debian"
# as Debian ships binaries: without debug sections (the BPF objects keep their BTF)
strip --strip-unneeded "$root/usr/bin/bpflab" "$root/usr/sbin/bpflabd" "$root/usr/sbin/bpflab-agent"

# dpkg-shlibdeps reads debian/control of the directory it runs in: a minimal one
printf 'Source: bpflab\n\nPackage: bpflab\nArchitecture: any\n' > "$stage/debian/control"
shlibs=$(cd "$stage" && dpkg-shlibdeps -O root/usr/bin/bpflab root/usr/sbin/bpflabd \
	root/usr/sbin/bpflab-agent 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

size=$(du -sk "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<EOF
Package: bpflab
Version: $version
Architecture: $arch
Maintainer: bpflab maintainers <bpflab@localhost>
Installed-Size: $size
Depends: $shlibs, passwd, iproute2, ethtool
Recommends: man-db, bash-completion, sqlite3
Suggests: gnuplot-nox, librsvg2-bin
Section: net
Priority: optional
Homepage: https://localhost/bpflab
Description: run XDP and tc experiments across a lab of hosts
 bpflab runs XDP and tc BPF programs on the NICs of lab hosts under generated
 traffic, stores every sample in SQLite and compares runs across kernels, NIC
 drivers and program variants, down to bisecting a kernel regression.
 .
 This package holds the command line (bpflab), the coordinator (bpflabd, a
 service as the system user bpflab), the agent of each lab host
 (bpflab-agent, a service with the capabilities it needs), the BPF programs,
 example plans, man pages, bash completion and the lab in a box.
EOF
# Debian's place for the licence: /usr/share/doc/bpflab/copyright
{
	printf 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n'
	printf 'Upstream-Name: bpflab\n\n'
	printf 'Files: *\nCopyright: the bpflab authors\nLicense: LGPL-2.1 or BSD-2-Clause\n\n'
	printf 'Files: usr/lib/bpflab/bpf/*\nCopyright: the bpflab authors\nLicense: GPL-2.0-only\n\n'
	printf 'License: GPL-2.0-only\n See /usr/share/common-licenses/GPL-2.\n\n'
	printf 'License: LGPL-2.1\n See /usr/share/common-licenses/LGPL-2.1.\n\n'
	printf 'License: BSD-2-Clause\n'
	sed -e 's/^$/./' -e 's/^/ /' LICENSES/BSD-2-Clause
} > "$root/usr/share/doc/bpflab/copyright"
find "$root/etc" -type f 2>/dev/null | sed "s|^$root||" | sort > "$root/DEBIAN/conffiles"
[ -s "$root/DEBIAN/conffiles" ] || rm -f "$root/DEBIAN/conffiles"
for s in postinst prerm postrm; do
	install -m 755 "dist/debian/$s" "$root/DEBIAN/$s"
done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | sort |
	xargs md5sum) > "$root/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "deb: $out"
