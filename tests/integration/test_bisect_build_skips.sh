#!/bin/bash
# test_bisect_build_skips.sh - lab/bisect-build skips (125) the commits it cannot test,
# without a real kernel build (docs/kernels.md, "Bisecting a tree"): a commit whose
# build fails, and one whose kernel builds but does not boot. The tree is a stand-in
# kernel tree in git whose Makefile plays kbuild: the config targets leave an empty
# .config (lab/kernels build puts guest.config over it), `prepare` writes
# include/config/kernel.release (6.12.0$(LOCALVERSION)), and `vmlinux` fails with a
# compiler error. Commit 1's kernel is put into the (temporary) kernel cache beforehand,
# as a build of it would have left it (commit and config_input recorded: the build finds
# it by these), so `lab/kernels build` takes it from there: Debian's 6.12 cloud vmlinux with an
# initramfs whose /init is not executable, so the kernel panics looking for a root file
# system and QEMU exits. Checks, for each commit: exit 125, the reason on stderr (the
# compiler's error line and the build log named; the panic from the console's last
# lines), the --table line, and no guest left: no QEMU or virtiofsd, no gI directory.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guests.sh"
deb=6.12.117+deb12-cloud-amd64

guests_require
guests_fetch_kernels -q -t 300 "kernel '$deb'" "$deb"
debdir=$("$top/lab/kernels" dir "$deb")
guests_make_tmp
export BPFLAB_KERNEL_CACHE="$tmp/cache" BPFLAB_KBUILD_DIR="$tmp/kbuild" BPFLAB_CCACHE_DIR="$tmp/ccache"

tree=$tmp/tree
standin_kernel_tree "$tree"
cat >> "$tree/Makefile" <<'EOF'
kernelrelease:
	@echo 6.12.0$(LOCALVERSION)
vmlinux modules:
	@echo "net/core/dev.c:42:1: error: expected ';' before '}' token"; exit 2
EOF
gt() { git -C "$tree" -c user.name=t -c user.email=t@example.invalid "$@"; }
gt init -q
gt add -A
gt commit -q -m "one: builds, does not boot"
c1=$(gt rev-parse HEAD)
echo "# two" >> "$tree/Kconfig"
gt commit -q -am "two: does not build"
c2=$(gt rev-parse HEAD)

# commit 1's kernel in the cache, as lab/kernels build leaves one: a vmlinux that boots,
# an initramfs that cannot go on
rel1=6.12.0-bpflab-${c1:0:12}
k=$BPFLAB_KERNEL_CACHE/$rel1
mkdir -p "$k/root/boot" "$k/root/lib/modules/$rel1" "$tmp/initrd"
ln -s "$debdir/vmlinux" "$k/vmlinux"
printf 'not a program\n' > "$tmp/initrd/init"
(cd "$tmp/initrd" && echo init | cpio -o -H newc --quiet | gzip -1) > "$k/initrd"
echo virtiofs > "$k/fs"
echo "source $c1" > "$k/package"; echo 0 > "$k/deb_bytes"; echo "$c1" > "$k/commit"
sha256sum < "$top/lab/kbuild/guest.config" | cut -c1-16 | sed 's/$/-default/' > "$k/config_input"

lab_start 1
export BPFLAB_GUEST_TIMEOUT=90
# bb COMMIT: lab/bisect-build at COMMIT; its exit code in $rc, stderr in $tmp/err
bb() {
	gt checkout -q "$1"
	rc=0
	(cd "$tree" && "$top/lab/bisect-build" --lab "$LAB_NAME" --plan "$top/plans/kernel-bisect.yaml" \
		--metric prog.ns_per_run --threshold 2% --baseline 1 --table "$tmp/table") 2> "$tmp/err" || rc=$?
	sed 's/^/    /' "$tmp/err"
}
no_guest_left() { no_guest_processes && ! ls -d "$BPFLAB_LAB_DIR"/g[0-9]* >/dev/null 2>&1; }

t0=$(date +%s)
bb "$c1"
echo "commit 1: $(($(date +%s) - t0)) s"
check "a kernel that does not boot: exit 125 ($rc)" test "$rc" = 125
check "it says so" grep -q "${c1:0:12}: $rel1 does not boot: skipped (125)" "$tmp/err"
check "the console's last lines show the panic" grep -q "Kernel panic" "$tmp/err"
check "its table line: commit, release, unbootable, 125" \
	grep -q "^${c1:0:12}	$rel1	.*	unbootable	125$" "$tmp/table"
check "no QEMU, virtiofsd or guest directory is left" no_guest_left

bb "$c2"
check "a commit that does not build: exit 125 ($rc)" test "$rc" = 125
check "it says so" grep -q "${c2:0:12}: does not build: skipped (125)" "$tmp/err"
check "the compiler's error line is shown" grep -q "net/core/dev.c:42:1: error: expected ';'" "$tmp/err"
check "the build log is named" grep -q "the build of 6.12.0-bpflab-${c2:0:12} failed (log $BPFLAB_KBUILD_DIR/tree-[0-9a-f]*/build.log)" "$tmp/err"
check "nothing of it is in the kernel cache" test ! -e "$BPFLAB_KERNEL_CACHE/6.12.0-bpflab-${c2:0:12}"
check "its table line says unbuildable" grep -q "^${c2:0:12}	-	.*	unbuildable	125$" "$tmp/table"

rc=0
env -u BPFLAB_LAB_DIR "$top/lab/bisect-build" --lab nolab --plan x --metric m --threshold 2% --baseline 1 2> "$tmp/err" || rc=$?
check "a lab that is not up stops git bisect: exit 128 ($rc), '$(cat "$tmp/err")'" \
	test "$rc" = 128 -a -n "$(grep "lab 'nolab' is not up" "$tmp/err")"
guests_finish
