#!/bin/bash
# test_kernel_cache_crash.sh - the kernel cache and the kernel tree on a fresh machine and
# after a crash (docs/kernels.md, "The kernel cache"): an entry appears whole or not at
# all, and a half-written one is never taken for a cached kernel. No kernel build, no
# guest, no download, a few seconds: everything is a stand-in in a temporary directory
# (kernel cache, object directory and ccache of the test's own):
#   - lab/kernels fetch of a fake Debian package (a fake apt-get on PATH "downloads" a
#     .deb made by dpkg-deb: boot/vmlinuz-REL holding a gzip'd ELF header, a module tree
#     whose modules.builtin names virtio_pci, virtiofs, virtio_net): the entry is whole
#     (initrd, fs, vmlinux, package) and nothing of the fetch is left beside it;
#   - an entry as a crash of the lab/kernels before 2026-12 left it (made in place:
#     root/, vmlinux, initrd, but no fs): `list` does not show it, `dir` fetches the
#     kernel again instead of handing it out;
#   - a fetch killed while it makes the initramfs (a cpio on PATH that waits, the
#     process group SIGKILLed): no entry of that release, and the next fetch makes it
#     and removes the killed one's temporary directory;
#   - a package holding two kernels is refused, not the first one ls lists taken;
#   - lab/kernels build of a stand-in tree whose Makefile plays kbuild to the end
#     (prepare writes include/config/kernel.release, vmlinux, modules_install): the
#     entry is whole, built again when a crash had left it without fs (not "cached"),
#     and a build killed while packing leaves no entry;
#   - lab/kbuild/make-tree.sh on a fake linux-source tarball: a half-unpacked DIR.tmp
#     left by a crash is not built on (no stale file in bpflab-base), and a run that
#     stopped between the tags bpflab-planted and bpflab-demo is finished by the next.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/bpflab-kcache-XXXXXX)
cleanup_later "$tmp"
export BPFLAB_KERNEL_CACHE="$tmp/cache" BPFLAB_KBUILD_DIR="$tmp/kbuild" BPFLAB_CCACHE_DIR="$tmp/ccache"
cache=$BPFLAB_KERNEL_CACHE
for t in dpkg-deb depmod modprobe cpio gzip git; do
	command -v "$t" >/dev/null || skip_test "'$t' is missing (sh scripts/deps.sh guests kbuild)"
done
[ -x /bin/busybox ] || skip_test "no /bin/busybox (sh scripts/deps.sh guests)"
k() { "$top/lab/kernels" "$@"; }

# fake tools first on PATH: apt-get downloads from $tmp/debs; cpio waits (for a kill)
# while $FAKE_CPIO_HANG is set, writing that file first
mkdir -p "$tmp/bin" "$tmp/debs"
cat > "$tmp/bin/apt-get" <<'EOF'
#!/bin/sh
[ "$1" = download ] || exit 100
for p; do :; done
[ -f "$FAKE_DEBS/$p.deb" ] || { echo "E: Unable to locate package $p" >&2; exit 100; }
cp "$FAKE_DEBS/$p.deb" "./${p}_1_amd64.deb"
EOF
cat > "$tmp/bin/cpio" <<'EOF'
#!/bin/sh
if [ -n "${FAKE_CPIO_HANG:-}" ]; then touch "$FAKE_CPIO_HANG"; sleep 60; fi
exec /usr/bin/cpio "$@"
EOF
chmod 755 "$tmp/bin/apt-get" "$tmp/bin/cpio"
export PATH="$tmp/bin:$PATH" FAKE_DEBS="$tmp/debs"

# fake_deb PKG REL...: a kernel package holding kernels REL...
fake_deb() {
	local pkg=$1 d=$tmp/pkg-$1 r
	shift
	mkdir -p "$d/DEBIAN" "$d/boot"
	printf 'Package: %s\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@example.invalid>\nDescription: fake kernel\n' \
		"$pkg" > "$d/DEBIAN/control"
	for r; do
		printf '\177ELF\2\1\1fake kernel %s\n' "$r" | gzip -9 > "$d/boot/vmlinuz-$r"
		mkdir -p "$d/lib/modules/$r"
		printf 'kernel/drivers/virtio/virtio_pci.ko\nkernel/fs/fuse/virtiofs.ko\nkernel/drivers/net/virtio_net.ko\n' \
			> "$d/lib/modules/$r/modules.builtin"
		: > "$d/lib/modules/$r/modules.order"
	done
	dpkg-deb --root-owner-group -Zgzip --build "$d" "$tmp/debs/$pkg.deb" >/dev/null
}
whole() { [ -f "$1/initrd" ] && [ "$(cat "$1/fs" 2>/dev/null)" = virtiofs ] && [ -f "$1/vmlinux" ] && [ -s "$1/package" ]; }
leftovers() { local d; for d in "$cache"/.[!.]*; do [ -e "$d" ] && printf '%s ' "${d##*/}"; done; return 0; }
# run_killed MARKER COMMAND...: run COMMAND in a session of its own with FAKE_CPIO_HANG,
# SIGKILL its process group once it is making an initramfs (MARKER written); 0 if so
run_killed() {
	local m=$1 pid
	shift
	rm -f "$m"
	FAKE_CPIO_HANG=$m setsid "$@" > /dev/null 2> "$tmp/killed.err" &
	pid=$!
	wait_for 30 test -e "$m" || { kill -KILL -- -"$pid" 2>/dev/null; wait "$pid"; return 1; }
	kill -KILL -- -"$pid"
	wait "$pid" 2>/dev/null || true
	return 0
}

# 1. a fetch on a fresh machine: no cache directory yet
rel=6.1.0-99-fake-amd64
fake_deb "linux-image-$rel-unsigned" "$rel"
k fetch "$rel" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "lab/kernels fetch $rel failed"; }
check "fetch: the entry is whole (initrd, fs, vmlinux, package)" whole "$cache/$rel"
check "fetch: nothing of it left beside it in the cache ($(leftovers))" test -z "$(leftovers)"
check "fetch: list shows it" grep -q "^$rel " <(k list)

# 2. a half-written entry, as a crash of the old in-place fetch left it: initrd, no fs
rm "$cache/$rel/fs"
check "a half-written entry (no fs): list does not show it" test -z "$(k list | grep "^$rel ")"
d=$(k dir "$rel" 2> "$tmp/err") || { cat "$tmp/err"; fail "lab/kernels dir $rel failed"; }
check "dir of it fetches the kernel again ($(tail -n 1 "$tmp/err"))" grep -q -- "-> $cache/$rel" "$tmp/err"
check "dir then hands out a whole entry ($d)" whole "$d"
check "nothing of the old entry is left in the cache ($(leftovers))" test -z "$(leftovers)"
rm -rf "${cache:?}/$rel"
# the same, found by its package name
k fetch "$rel" >/dev/null 2>&1
rm "$cache/$rel/fs"
k dir "linux-image-$rel-unsigned" > /dev/null 2> "$tmp/err"
check "by package name too: fetched again, whole" whole "$cache/$rel"

# 3. a fetch killed while it makes the initramfs
rel2=6.1.0-98-fake-amd64
fake_deb "linux-image-$rel2-unsigned" "$rel2"
if run_killed "$tmp/cpio.started" "$top/lab/kernels" fetch "$rel2"; then
	check "a fetch killed while making the initramfs leaves no entry $rel2" test ! -e "$cache/$rel2"
	check "nor is it listed" test -z "$(k list | grep "^$rel2 ")"
else
	fail "the killed fetch never reached cpio: $(cat "$tmp/killed.err")"
fi
k fetch "$rel2" > /dev/null 2>&1
check "the next fetch makes it whole" whole "$cache/$rel2"
check "and removes what the killed one left ($(leftovers))" test -z "$(leftovers)"

# 4. a package with two kernels: refused, not the first one ls lists
fake_deb linux-image-twice-unsigned 6.1.0-96-fake-amd64 6.1.0-97-fake-amd64
rc=0; k fetch linux-image-twice-unsigned > /dev/null 2> "$tmp/err" || rc=$?
check "a package with two kernels is refused (exit $rc: $(cat "$tmp/err"))" grep -q "holds 2 kernels" "$tmp/err"
check "and nothing of it is cached" test ! -e "$cache/6.1.0-96-fake-amd64" -a ! -e "$cache/6.1.0-97-fake-amd64"

# 5. lab/kernels build of a stand-in tree whose Makefile plays kbuild to the end
tree=$tmp/tree
standin_kernel_tree "$tree" --modules-install
cat >> "$tree/Makefile" <<'EOF'
vmlinux modules:
	@printf '\177ELF fake\n' > $(O)/vmlinux && touch $(O)/System.map
EOF
gt() { git -C "$tree" -c user.name=t -c user.email=t@example.invalid "$@"; }
gt init -q
gt add -A
gt commit -q -m one
c1=$(gt rev-parse HEAD)
brel=6.12.0-bpflab-${c1:0:12}
got=$(k build "$tree" 2> "$tmp/err") || { cat "$tmp/err"; fail "lab/kernels build of the stand-in tree failed"; }
check "build: prints the release ($got)" test "$got" = "$brel"
check "build: the entry is whole (initrd, fs, vmlinux, package)" whole "$cache/$brel"
check "build: with its record (commit, config_input, build_seconds, build_load)" \
	test -s "$cache/$brel/commit" -a -s "$cache/$brel/config_input" -a -s "$cache/$brel/build_seconds" -a -s "$cache/$brel/build_load"
check "build: nothing of it left beside it in the cache ($(leftovers))" test -z "$(leftovers)"
k build "$tree" > /dev/null 2> "$tmp/err"
check "build again: cached" grep -q "$brel is cached (same commit and config)" "$tmp/err"
# a half-written entry, as a crash of the old build.sh left it (initrd made in place, no fs)
rm "$cache/$brel/fs"
got=$(k build "$tree" 2> "$tmp/err") || { cat "$tmp/err"; fail "lab/kernels build over a half-written entry failed"; }
check "an entry without fs is not taken as cached: built again" grep -q "building $brel" "$tmp/err"
check "and whole afterwards" whole "$cache/$brel"
# a build killed while packing (making the initramfs)
rm -rf "${cache:?}/$brel"
if run_killed "$tmp/cpio.started" "$top/lab/kernels" build "$tree"; then
	check "a build killed while packing leaves no entry $brel" test ! -e "$cache/$brel"
else
	fail "the killed build never reached cpio: $(cat "$tmp/killed.err")"
fi
k build "$tree" > /dev/null 2>&1
check "the next build makes it whole" whole "$cache/$brel"
check "and removes what the killed one left ($(leftovers))" test -z "$(leftovers)"

# 6. make-tree.sh on a fake linux-source tarball: the files its eight commits change
src=$tmp/linux-source-6.12
mkdir -p "$src"/{Documentation/networking,Documentation/bpf,drivers/net,arch/x86/net,kernel/bpf}
printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 999\n' > "$src/Makefile"
echo "XDP RX metadata" > "$src/Documentation/networking/xdp-rx-metadata.rst"
echo "BPF" > "$src/Documentation/bpf/index.rst"
echo "Linux kernel" > "$src/README"
printf '/* dummy.c: a dummy net driver */\n#define DRV_NAME\t"dummy"\n' > "$src/drivers/net/dummy.c"
printf '/*\n *  drivers/net/veth.c\n */\n' > "$src/drivers/net/veth.c"
printf 'int f(void)\n{\n\tilen = prog - temp;\n\treturn 0;\n}\n' > "$src/arch/x86/net/bpf_jit_comp.c"
printf '#include <linux/bpf.h>\n' > "$src/kernel/bpf/syscall.c"
tar -cJf "$tmp/linux-source-6.12.tar.xz" -C "$tmp" linux-source-6.12
export BPFLAB_LINUX_SOURCE=$tmp/linux-source-6.12.tar.xz
dir=$tmp/src/linux-6.12
# what a crash of an earlier run left: a half-unpacked DIR.tmp with a file of its own
mkdir -p "$dir.tmp"
echo "from a crash" > "$dir.tmp/stale-from-crash"
"$top/lab/kbuild/make-tree.sh" "$dir" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; fail "make-tree.sh failed"; }
check "make-tree: prints the tree ($(cat "$tmp/out"))" test "$(cat "$tmp/out")" = "$dir"
check "make-tree: a DIR.tmp left by a crash is not built on (no stale file in bpflab-base)" \
	test -z "$(git -C "$dir" ls-tree --name-only bpflab-base stale-from-crash)"
demo=$(git -C "$dir" rev-parse bpflab-demo)
# a run stopped between its two tags: bpflab-planted made, bpflab-demo not
git -C "$dir" tag -d bpflab-demo > /dev/null
"$top/lab/kbuild/make-tree.sh" "$dir" > /dev/null 2> "$tmp/err" || { sed 's/^/    /' "$tmp/err"; }
check "make-tree: a run stopped between the tags is finished by the next (bpflab-demo $demo)" \
	test "$(git -C "$dir" rev-parse -q --verify bpflab-demo)" = "$demo"
finish
