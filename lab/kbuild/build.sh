#!/bin/bash
# build.sh - `lab/kernels build`: a bootable guest kernel from a kernel source tree, into
# the kernel cache in the layout of a Debian kernel there (docs/kernels.md, "Building a
# kernel from a tree"), so `lab/lab up --kernels` and `guest-up` take it unchanged.
#
#   lab/kernels build TREE [--commit C] [--config FILE | --config-from RELEASE] [--prepare-only]
#
# Config: `make defconfig kvm_guest.config` with lab/kbuild/guest.config over it (what a
# guest needs, built in), or FILE, or the config of cached kernel RELEASE; then `make
# olddefconfig` (and `mod2noconfig` for the default). Release: what `make prepare` writes
# to include/config/kernel.release, the tree's version with LOCALVERSION -bpflab-<12 hex
# of the commit> (-dirty with uncommitted changes, -bpflab-local outside git); the build
# must end with the same one, and is packed under it. --prepare-only: configure and
# prepare the object directory, print that release, build nothing (the test of it:
# tests/integration/test_kernel_release.sh). The build runs out of tree (O=, the source
# stays clean) in $BPFLAB_KBUILD_DIR/<tree>-<hash of its path> (default /var/cache/bpflab/kbuild), through
# ccache (CCACHE_DIR $BPFLAB_CCACHE_DIR, default /var/cache/bpflab/ccache): one object
# directory per tree, so a neighbouring commit recompiles only what changed. A release
# already cached with the same config is not built again.
#
# Prints the release on stdout; progress lines (configuring, building, packing) on stderr.
# Exit 2: bad input, nothing built (not a kernel tree, unknown commit, uncommitted changes
# with --commit, a config without an option guests need, bad usage); 1: the build failed
# (the log and its last lines named) or another failure.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${BPFLAB_KERNEL_CACHE:-/var/cache/bpflab/kernels}
kbuild=${BPFLAB_KBUILD_DIR:-/var/cache/bpflab/kbuild}
export CCACHE_DIR=${BPFLAB_CCACHE_DIR:-/var/cache/bpflab/ccache}
jobs=${BPFLAB_KBUILD_JOBS:-$(nproc)}
# what every guest needs (lab/guest/init.sh, the initramfs, the agent): y or m
required="BPF_SYSCALL BPF_JIT XDP_SOCKETS NET_NS VETH VIRTIO_PCI VIRTIO_NET DEVTMPFS
BLK_DEV_INITRD PVH"

usage() { echo "usage: lab/kernels build TREE [--commit C] [--config FILE | --config-from RELEASE] [--prepare-only]" >&2; exit 2; }
bad() { echo "kernels: $*" >&2; exit 2; }
die() { echo "kernels: $*" >&2; exit 1; }
say() { echo "kernels: $*" >&2; }

tree='' commit='' config='' config_from='' prepare_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--commit) commit=${2:-}; [ -n "$commit" ] || usage; shift 2 ;;
	--config) config=${2:-}; [ -n "$config" ] || usage; shift 2 ;;
	--config-from) config_from=${2:-}; [ -n "$config_from" ] || usage; shift 2 ;;
	--prepare-only) prepare_only=1; shift ;;
	-h|--help) usage ;;
	-*) bad "unknown option '$1'" ;;
	*) [ -z "$tree" ] || usage; tree=$1; shift ;;
	esac
done
[ -n "$tree" ] || usage
[ -z "$config" ] || [ -z "$config_from" ] || bad "--config and --config-from exclude each other"
[ -d "$tree" ] || bad "'$tree' is not a directory"
tree=$(cd "$tree" && pwd)
for f in Makefile Kconfig arch/x86/Kconfig scripts/kconfig/merge_config.sh; do
	[ -f "$tree/$f" ] || bad "'$tree' is not a kernel tree (no $f)"
done
grep -q '^VERSION = ' "$tree/Makefile" || bad "'$tree' is not a kernel tree (its Makefile has no VERSION)"

# the config the build starts from: FILE, a cached kernel's, or the default
if [ -n "$config_from" ]; then
	config=$cache/$config_from/root/boot/config-$config_from
	[ -f "$config" ] || bad "no config of release '$config_from' in the kernel cache ($config)"
fi
if [ -n "$config" ]; then
	[ -f "$config" ] && [ -r "$config" ] || bad "cannot read config '$config'"
	for o in $required; do
		grep -Eq "^CONFIG_$o=[ym]$" "$config" || bad "config '$config' lacks CONFIG_$o (=y or =m), which guests need (docs/kernels.md)"
	done
	config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
fi

# what packing needs, after the build (lab/kernels initrd: depmod, modprobe, cpio, a
# static busybox): checked now, not after tens of minutes of compiling, when a missing
# one would fail the kernel as if it did not build (lab/bisect-build: skipped, 125)
if [ "$prepare_only" = 0 ]; then
	for t in depmod modprobe cpio gzip objcopy readelf; do
		command -v "$t" >/dev/null 2>&1 || bad "'$t' is missing; it packs the built kernel: sh scripts/deps.sh guests kbuild"
	done
	[ -x /bin/busybox ] && ! LC_ALL=C readelf -l /bin/busybox 2>/dev/null | grep -q 'program interpreter' ||
		bad "no static /bin/busybox for the kernel's initramfs: sh scripts/deps.sh guests kbuild (busybox-static)"
fi

# the commit: checked out for the build (the tree must be clean), given back afterwards
git_in() { git -C "$tree" "$@"; }
is_git=0
git_in rev-parse --is-inside-work-tree >/dev/null 2>&1 && is_git=1
dirty() { ! git_in diff --quiet HEAD -- 2>/dev/null || ! git_in diff --cached --quiet -- 2>/dev/null; }
not_clean() { bad "'$tree' has uncommitted changes ($(git_in diff --name-only HEAD | head -n 3 | paste -sd ' ')); commit or stash them before --commit"; }
if [ -n "$commit" ]; then
	[ "$is_git" = 1 ] || bad "--commit '$commit': '$tree' is not a git repository"
	hash=$(git_in rev-parse -q --verify "$commit^{commit}" 2>/dev/null) ||
		bad "'$commit' is not a commit of '$tree'"
	if dirty; then not_clean; fi
	# git bisect run moves HEAD between its steps without this script's lock: a
	# --commit build checked out meanwhile, then given back, would put the bisection's
	# next step on the wrong commit (a step builds HEAD, lab/bisect-build)
	[ ! -e "$(git_in rev-parse --absolute-git-dir)/BISECT_START" ] ||
		bad "'$tree' is being bisected (git bisect); --commit would move its HEAD under the bisection: build its HEAD without --commit, or 'git bisect reset' first"
fi

# the object directory of this tree, and its lock: one build at a time per tree. Taken
# before the tree's checkout is read or changed: another build of the tree (its own
# --commit checked out until it ends) may be compiling it, and a checkout now would
# change its sources under it, or make this build take that commit for HEAD
key=$(printf '%s' "$tree" | sha256sum | cut -c1-8)
work=$kbuild/$(basename "$tree")-$key
out=$work/out
mkdir -p "$out" "$CCACHE_DIR" "$cache"
exec 9>"$work/lock"
flock 9

restore=
if [ -n "$commit" ]; then
	if dirty; then not_clean; fi
	restore=$(git_in symbolic-ref -q --short HEAD || git_in rev-parse HEAD)
	if [ "$(git_in rev-parse HEAD)" != "$hash" ]; then
		# shellcheck disable=SC2064
		trap "git -C '$tree' checkout -q '$restore' 2>/dev/null || echo 'kernels: cannot check out $restore again in $tree' >&2" EXIT
		git_in checkout -q --detach "$hash" || die "cannot check out '$commit' in '$tree'"
	fi
fi
if [ "$is_git" = 1 ]; then
	hash=$(git_in rev-parse HEAD)
	local_version=-bpflab-${hash:0:12}
	dirty && local_version=$local_version-dirty
else
	hash=
	local_version=-bpflab-local
fi

# a clean commit built before from the same config input is in the cache already: no
# configuring either. Found by what the cache entry records (its commit and config
# input), not by a release guessed from the Makefile: the release is the kernel's own
# (include/config/kernel.release, written by `make prepare`), known only once the
# object directory is configured (lab/kbuild/build.sh before 2026-12 guessed it and
# packed under a name the kernel did not have).
# a cache entry is whole when it has its initrd and fs (lab/kernels: complete); entries
# appear by a rename, whole, but an older build.sh made them in place, and a crash of it
# could leave one with an initrd and no fs
complete() { [ -f "$1/initrd" ] && [ -s "$1/fs" ]; }
if [ -n "$config" ]; then
	input=$(sha256sum < "$config" | cut -c1-16)
else
	input=$(cat "$top/lab/kbuild/guest.config" | sha256sum | cut -c1-16)-default
fi
if [ "$prepare_only" = 0 ] && [ -n "$hash" ] && [[ "$local_version" != *-dirty ]]; then
	for d in "$cache"/*-bpflab-"${hash:0:12}"/; do
		complete "$d" && [ "$(cat "$d/commit" 2>/dev/null)" = "$hash" ] &&
			[ "$(cat "$d/config_input" 2>/dev/null)" = "$input" ] || continue
		cached=$(basename "$d")
		say "$cached is cached (same commit and config) in $cache/$cached"
		echo "$cached"
		exit 0
	done
fi

make_k() { make -C "$tree" O="$out" CC="ccache gcc" LOCALVERSION="$local_version" "$@"; }
kernel_release() { cat "$out/include/config/kernel.release" 2>/dev/null; }
# reproducible objects: ccache hits across commits need the same command lines
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026" KBUILD_BUILD_USER=bpflab KBUILD_BUILD_HOST=bpflab

t0=$(date +%s%N)
log=$work/build.log
say "configuring $tree${hash:+ at ${hash:0:12}} ($( [ -n "$config" ] && echo "config $config" || echo "defconfig + kvm_guest.config + lab/kbuild/guest.config"))"
{
	if [ -n "$config" ]; then
		cp "$config" "$out/.config.new"
		# a distribution's config names its own signing keys; a guest needs none
		sed -i -e 's/^CONFIG_SYSTEM_TRUSTED_KEYS=.*/CONFIG_SYSTEM_TRUSTED_KEYS=""/' \
			-e 's/^CONFIG_SYSTEM_REVOCATION_KEYS=.*/CONFIG_SYSTEM_REVOCATION_KEYS=""/' \
			-e 's/^CONFIG_MODULE_SIG_KEY=.*/CONFIG_MODULE_SIG_KEY="certs\/signing_key.pem"/' "$out/.config.new"
		printf 'CONFIG_LOCALVERSION=""\n# CONFIG_LOCALVERSION_AUTO is not set\n' >> "$out/.config.new"
		mv "$out/.config.new" "$out/.config"
		make_k olddefconfig
	else
		make_k defconfig kvm_guest.config
		cat "$top/lab/kbuild/guest.config" >> "$out/.config"
		make_k olddefconfig
		make_k mod2noconfig
	fi
} > "$log" 2>&1 || { tail -n 5 "$log" | sed 's/^/    /' >&2; die "configuring failed (log $log)"; }
# olddefconfig drops what lacks its dependencies without a word: check what is left
for o in $required; do
	grep -Eq "^CONFIG_$o=[ym]$" "$out/.config" ||
		bad "CONFIG_$o is not set after 'make olddefconfig'${config:+ of '$config'} (its dependencies are missing); guests need it"
done
grep -Eq '^CONFIG_(VIRTIO_FS|9P_FS)=[ym]$' "$out/.config" ||
	bad "neither CONFIG_VIRTIO_FS nor CONFIG_9P_FS is set after 'make olddefconfig'; a guest mounts the host's / with one"

# the release as the kernel writes it: `make prepare` brings include/config/auto.conf up
# to date with .config (kbuild's syncconfig) and writes include/config/kernel.release
# from it. `make -s kernelrelease` before that reads an auto.conf left by defconfig,
# before guest.config turned LOCALVERSION_AUTO off, and answers with a -gHASH the
# built kernel does not have.
say "preparing $out (make prepare)"
make_k -j"$jobs" prepare >> "$log" 2>&1 || { tail -n 5 "$log" | sed 's/^/    /' >&2; die "make prepare failed (log $log)"; }
release=$(kernel_release)
[ -n "$release" ] || die "make prepare wrote no include/config/kernel.release in $out"
if [ "$prepare_only" = 1 ]; then
	echo "$release"
	exit 0
fi
kdir=$cache/$release
if [[ "$local_version" != *-dirty ]] && complete "$kdir" && cmp -s "$kdir/config" "$out/.config"; then
	echo "$input" > "$kdir/config_input.tmp"
	mv "$kdir/config_input.tmp" "$kdir/config_input"
	say "$release is cached with this config in $kdir"
	echo "$release"
	exit 0
fi

say "building $release (make -j$jobs vmlinux modules, log $log)"
ccache -z >/dev/null 2>&1 || true
load0=$(cut -d' ' -f1 /proc/loadavg)
if ! nice -n "${BPFLAB_KBUILD_NICE:-10}" make -C "$tree" O="$out" CC="ccache gcc" LOCALVERSION="$local_version" -j"$jobs" vmlinux modules >> "$log" 2>&1; then
	echo "kernels: the build of $release failed (log $log); its last lines:" >&2
	grep -Ev '^make(\[[0-9]+\])?: (Entering|Leaving)' "$log" | tail -n 12 | sed 's/^/    /' >&2
	exit 1
fi
t1=$(date +%s%N)
built=$(kernel_release)
[ "$built" = "$release" ] ||
	die "the kernel was built as '${built:-?}', not '$release' as 'make prepare' said (log $log); nothing packed"

say "packing $release into $kdir"
# the entry is made whole in a temporary cache of its own inside the cache (the same
# file system: $tmp/$release, initramfs included) and renamed into place at the end: a
# crash or failure while packing leaves no half-written kernel in the cache
for d in "$cache"/.fetch.* "$cache"/.build.*; do
	[ -f "$d/lock" ] && flock -n "$d/lock" true 2>/dev/null && rm -rf "$d"
done
stage=$(mktemp -d "$cache/.build.XXXXXX")
# held while this build packs (fd 8): lab/kernels removes a .build.* whose lock is free,
# the leftovers of a build killed while packing ('lock' appears only once held)
exec 8>"$stage/lock.new"
flock 8
mv "$stage/lock.new" "$stage/lock"
tmp=$stage/$release
mkdir "$tmp"
chmod 755 "$tmp"
# shellcheck disable=SC2064
trap "rm -rf '$stage'; ${restore:+git -C '$tree' checkout -q '$restore' 2>/dev/null}" EXIT
mkdir -p "$tmp/root/boot" "$tmp/root/lib/modules"
{
	make_k INSTALL_MOD_PATH="$tmp/root" INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod modules_install
} >> "$log" 2>&1 || { tail -n 5 "$log" | sed 's/^/    /' >&2; die "modules_install of $release failed (log $log)"; }
rm -f "$tmp/root/lib/modules/$release/build" "$tmp/root/lib/modules/$release/source"
# a kernel with everything built in has no modules: modprobe then needs only these two
touch "$tmp/root/lib/modules/$release/modules.order" "$tmp/root/lib/modules/$release/modules.builtin"
depmod -b "$tmp/root" "$release"
cp "$out/.config" "$tmp/root/boot/config-$release"
cp "$out/System.map" "$tmp/root/boot/System.map-$release"
cp "$out/.config" "$tmp/config"
# the ELF vmlinux boots through PVH; no symbols needed (System.map is kept)
objcopy --strip-all "$out/vmlinux" "$tmp/vmlinux" 2>>"$log" || cp "$out/vmlinux" "$tmp/vmlinux"
echo "source ${hash:-(no git)} of $tree" > "$tmp/package"
echo 0 > "$tmp/deb_bytes"
echo "$hash" > "$tmp/commit"
echo "$tree" > "$tmp/tree"
echo "$input" > "$tmp/config_input"
cp "$log" "$tmp/build.log"
ccache -s 2>/dev/null | grep -Ei '^ *(hits|misses|cache hit)' > "$tmp/ccache" || true
printf '%d.%03d\n' $(((t1 - t0) / 1000000000)) $(((t1 - t0) / 1000000 % 1000)) > "$tmp/build_seconds"
# how busy the machine was: the 1-minute load average when the build started and ended
echo "$load0 $(cut -d' ' -f1 /proc/loadavg) (1-min load at start, end; $(nproc) CPUs)" > "$tmp/build_load"
# the initramfs as for a Debian kernel (builtin drivers need no module in it), made in
# the staging cache: initrd and fs are the last files, the entry is whole after them
BPFLAB_KERNEL_CACHE=$stage "$top/lab/kernels" initrd "$release" >&2 || die "cannot make the initramfs of $release"
# in place in one rename; a kernel there before (say a build of another config) moved
# aside first and removed after
[ ! -e "$kdir" ] || mv -T "$kdir" "$stage/old"
mv -T "$tmp" "$kdir"
rm -rf "$stage"
t2=$(date +%s%N)
say "$release built in $(cat "$kdir/build_seconds") s, packed in $(((t2 - t1) / 1000000)) ms: $kdir"
echo "$release"
