#!/bin/bash
# test_kernel_release.sh - the release `lab/kernels build` packs a kernel under is the one
# the kernel builds (issue: a first build on a fresh machine guessed it before configuring,
# got a -gHASH the kernel did not have, and failed while packing). No kernel build, about
# a minute: the real tree of lab/kbuild/make-tree.sh (linux-source-6.12 in git, cached in
# /var/cache/bpflab/src) in a checkout of the test's own (git clone --shared: the shared
# tree's HEAD is left alone), a fresh object directory, kernel cache and ccache of the
# test's own. `lab/kernels build TREE --commit bpflab-base --prepare-only` configures and runs
# `make prepare` there; checks:
#   - the release it prints is the tree's version + -bpflab-<12 hex of the commit>,
#     nothing more (no -g suffix from a stale include/config/auto.conf);
#   - it is the release compiled into the kernel: UTS_RELEASE of
#     include/generated/utsrelease.h, which `uname -r` of the built kernel prints;
#   - the object directory's auto.conf agrees with its .config on LOCALVERSION_AUTO;
#   - --prepare-only builds and packs nothing (the kernel cache stays empty);
#   - a second --prepare-only on the configured object directory (a neighbouring commit,
#     bpflab-planted) prints that commit's release: the same treatment for an object
#     directory left by an earlier build.
. "$(dirname "$0")/lib.sh"

sh "$top/scripts/deps.sh" kbuild >/dev/null ||
	{ fail "cannot install the kbuild packages (sh scripts/deps.sh kbuild)"; exit 1; }
tmp=$(mktemp -d /tmp/bpflab-krel-XXXXXX)
cleanup_later "$tmp"
export BPFLAB_KERNEL_CACHE="$tmp/cache" BPFLAB_KBUILD_DIR="$tmp/kbuild" BPFLAB_CCACHE_DIR="$tmp/ccache"
t0=$(date +%s)
shared=$("$top/lab/kbuild/make-tree.sh")
# a checkout of the test's own (objects shared, nothing written to the shared tree): the
# shared tree's HEAD belongs to whatever builds or bisects it meanwhile (make
# check-kernel-build, make demo-bisect-source), under which a build --commit here would
# check out (their object directory, and so their lock, is not this test's)
tree=$tmp/linux-6.12
git clone -q --shared --no-checkout "$shared" "$tree"
git -C "$tree" checkout -q -B bpflab refs/tags/bpflab-demo
echo "tree $tree, a checkout of $shared ($(($(date +%s) - t0)) s)"

version=$(make -s -C "$tree" kernelversion)
head0=$(git -C "$tree" rev-parse HEAD)
prepare() { # COMMIT: the release --prepare-only prints for COMMIT, or "" (its stderr in $tmp/err)
	"$top/lab/kernels" build "$tree" --commit "$1" --prepare-only 2> "$tmp/err" || {
		sed 's/^/    /' "$tmp/err" >&2
		return 0
	}
}
uts_release() { # the UTS_RELEASE compiled into the kernel of the object directory
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$BPFLAB_KBUILD_DIR"/*/out/include/generated/utsrelease.h
}

for c in bpflab-base bpflab-planted; do
	t1=$(date +%s)
	hash=$(git -C "$tree" rev-parse "$c")
	want=$version-bpflab-${hash:0:12}
	got=$(prepare "$c")
	echo "$c: --prepare-only printed '$got' ($(($(date +%s) - t1)) s)"
	check "$c: the release is the tree's version and the commit, no more ('$got', want '$want')" \
		test "$got" = "$want"
	uts=$(uts_release)
	check "$c: it is the release compiled into the kernel (UTS_RELEASE '$uts')" test "$uts" = "$got"
	out=$(ls -d "$BPFLAB_KBUILD_DIR"/*/out)
	check "$c: auto.conf agrees with .config on LOCALVERSION_AUTO" \
		test "$(grep -c '^CONFIG_LOCALVERSION_AUTO=y' "$out/include/config/auto.conf")" = \
		"$(grep -c '^CONFIG_LOCALVERSION_AUTO=y' "$out/.config")"
	check "$c: nothing was built or packed (kernel cache empty)" \
		test -z "$(ls -A "$BPFLAB_KERNEL_CACHE" 2>/dev/null)"
	check "$c: the tree's checkout is given back" \
		test "$(git -C "$tree" rev-parse HEAD)" = "$head0"
done
echo "test_kernel_release: $(($(date +%s) - t0)) s"
[ "$failures" = 0 ]
