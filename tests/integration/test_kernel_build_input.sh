#!/bin/bash
# test_kernel_build_input.sh - `lab/kernels build` refuses bad input before it builds
# anything (docs/kernels.md, "Building a kernel from a tree"); no kernel build, a few
# seconds: a path that is not a kernel tree, a config without an option guests need
# (BPF_SYSCALL, XDP_SOCKETS: the option named), --config with --config-from, a commit
# that does not exist, uncommitted changes with --commit, an unknown release for
# --config-from, a tool that packing needs (depmod) missing. Each must exit 2 with its message, leave the kernel cache and the
# build directory empty and the tree's checkout as it was. The tree is a stand-in: the
# files lab/kernels build looks for (Makefile with VERSION, Kconfig, arch/x86/Kconfig,
# scripts/kconfig/merge_config.sh) in a temporary git repository. The whole build is
# tests/integration/kernel_build.sh (make check-kernel-build).
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/bpflab-kbuild-input-XXXXXX)
cleanup_later "$tmp"
export BPFLAB_KERNEL_CACHE="$tmp/cache" BPFLAB_KBUILD_DIR="$tmp/kbuild" BPFLAB_CCACHE_DIR="$tmp/ccache"
k() { "$top/lab/kernels" "$@"; }

# expect CODE PATTERN DESCRIPTION -- ARGS...: lab/kernels ARGS exits CODE, its stderr
# matches PATTERN, nothing was built
expect() {
	local code=$1 pat=$2 what=$3 rc=0
	shift 4
	k "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
	if [ "$rc" != "$code" ] || ! grep -q -- "$pat" "$tmp/err"; then
		fail "$what: exit $rc (want $code), stderr: $(cat "$tmp/err")"
		return
	fi
	if [ -s "$tmp/out" ] || [ -e "$tmp/cache" ] || [ -e "$tmp/kbuild" ]; then
		fail "$what: something was printed or built ($(cat "$tmp/out"); $(ls "$tmp"))"
		return
	fi
	ok "$what: exit $code, '$(head -n 1 "$tmp/err")'"
}

mkdir -p "$tmp/notree"
echo "all:" > "$tmp/notree/Makefile"
expect 2 "is not a kernel tree (no Kconfig)" "a directory that is not a kernel tree" -- \
	build "$tmp/notree"
expect 2 "is not a directory" "a path that does not exist" -- build "$tmp/nothing"
expect 2 "usage:" "no tree" -- build

# a stand-in kernel tree in git
tree=$tmp/tree
mkdir -p "$tree/arch/x86" "$tree/scripts/kconfig"
printf 'VERSION = 6\nPATCHLEVEL = 12\n' > "$tree/Makefile"
: > "$tree/Kconfig"; : > "$tree/arch/x86/Kconfig"; : > "$tree/scripts/kconfig/merge_config.sh"
git -C "$tree" init -q
git -C "$tree" -c user.name=t -c user.email=t@example.invalid add -A
git -C "$tree" -c user.name=t -c user.email=t@example.invalid commit -q -m one
echo '# two' >> "$tree/Kconfig"
git -C "$tree" -c user.name=t -c user.email=t@example.invalid commit -q -am two
head=$(git -C "$tree" rev-parse HEAD)

# configs: one with every option guests need, and the same without one of them
cat > "$tmp/good.config" <<'EOF'
CONFIG_BPF_SYSCALL=y
CONFIG_BPF_JIT=y
CONFIG_XDP_SOCKETS=y
CONFIG_NET_NS=y
CONFIG_VETH=m
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_DEVTMPFS=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_PVH=y
EOF
grep -v BPF_SYSCALL "$tmp/good.config" > "$tmp/nobpf.config"
sed 's/^CONFIG_XDP_SOCKETS=y/# CONFIG_XDP_SOCKETS is not set/' "$tmp/good.config" > "$tmp/noxdp.config"
expect 2 "lacks CONFIG_BPF_SYSCALL" "a config without BPF_SYSCALL" -- \
	build "$tree" --config "$tmp/nobpf.config"
expect 2 "lacks CONFIG_XDP_SOCKETS" "a config without XDP_SOCKETS" -- \
	build "$tree" --config "$tmp/noxdp.config"
expect 2 "cannot read config" "a config file that does not exist" -- \
	build "$tree" --config "$tmp/none.config"
expect 2 "exclude each other" "--config with --config-from" -- \
	build "$tree" --config "$tmp/good.config" --config-from 6.12.0
expect 2 "no config of release '6.0.0-none'" "--config-from a release not in the cache" -- \
	build "$tree" --config-from 6.0.0-none
expect 2 "is not a commit of" "--commit that does not exist" -- \
	build "$tree" --commit deadbeef1234 --config "$tmp/good.config"
echo "# uncommitted" >> "$tree/Kconfig"
expect 2 "has uncommitted changes (Kconfig)" "--commit with uncommitted changes" -- \
	build "$tree" --commit HEAD~1 --config "$tmp/good.config"
check "the tree's checkout is where it was ($head)" test "$(git -C "$tree" rev-parse HEAD)" = "$head"
check "the uncommitted change is still there" grep -q '# uncommitted' "$tree/Kconfig"
git -C "$tree" checkout -q -- Kconfig
mkdir -p "$tmp/notgit"
cp -r "$tree/Makefile" "$tree/Kconfig" "$tree/arch" "$tree/scripts" "$tmp/notgit/"
expect 2 "is not a git repository" "--commit in a tree that is not in git" -- \
	build "$tmp/notgit" --commit HEAD
expect 2 "unknown option '--fast'" "an unknown option" -- build "$tree" --fast
# a tool that only packing uses (after the build) is checked before anything is built;
# depmod is in /usr/sbin, not on this PATH
if ! PATH=/usr/bin:/bin command -v depmod >/dev/null; then
	PATH=/usr/bin:/bin expect 2 "'depmod' is missing" "no depmod (packing needs it): refused before the build" -- \
		build "$tree" --config "$tmp/good.config"
fi
finish
