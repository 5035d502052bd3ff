#!/bin/bash
# test_kernel_build_lock.sh - two builds of one tree at once (docs/kernels.md, "Building a
# kernel from a tree"): `lab/kernels build` takes the tree's lock before it reads or
# changes the tree's checkout, so a second build neither checks its --commit out under a
# build that is compiling (make check's test_kernel_release.sh beside a bisection of
# the same tree) nor takes that build's checkout for HEAD. No kernel build, a few
# seconds: a stand-in tree whose Makefile plays kbuild, its vmlinux step held until the
# test lets it go; a kernel cache, object directory and ccache of the test's own.
#   A: build --commit c1, held while "compiling";
#   C: build (HEAD, the branch at c2), started while A holds c1 checked out;
#   B: build --commit c2, started while A holds it;
# checks: the tree stays at c1 while A compiles; A is c1's kernel, B and C c2's (C not
# c1's, read from A's checkout); the branch is checked out again at the end. And a tree
# under git bisect: --commit refused (exit 2), its HEAD not moved.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/bpflab-kblock-XXXXXX)
cleanup_later "$tmp"
export BPFLAB_KERNEL_CACHE="$tmp/cache" BPFLAB_KBUILD_DIR="$tmp/kbuild" BPFLAB_CCACHE_DIR="$tmp/ccache"
[ -x /bin/busybox ] || skip_test "no /bin/busybox (sh scripts/deps.sh guests)"

tree=$tmp/tree
standin_kernel_tree "$tree" --modules-install
cat >> "$tree/Makefile" <<'EOF'
vmlinux modules:
	@[ -z "$$STARTED" ] || touch "$$STARTED"; while [ -n "$$HOLD" ] && [ -e "$$HOLD" ]; do sleep 0.1; done
	@printf '\177ELF %s\n' "$$(cat $(CURDIR)/Kconfig)" > $(O)/vmlinux && touch $(O)/System.map
EOF
gt() { git -C "$tree" -c user.name=t -c user.email=t@example.invalid "$@"; }
gt init -q -b main
echo one > "$tree/Kconfig"
gt add -A
gt commit -q -m one
c1=$(gt rev-parse HEAD)
echo two > "$tree/Kconfig"
gt commit -q -am two
c2=$(gt rev-parse HEAD)
r1=6.12.0-bpflab-${c1:0:12} r2=6.12.0-bpflab-${c2:0:12}
# PID (lab/kernels, which execs build.sh) waits for the tree's lock
waiting() { pgrep -P "$1" -x flock >/dev/null; }

touch "$tmp/hold"
HOLD=$tmp/hold STARTED=$tmp/started "$top/lab/kernels" build "$tree" --commit "$c1" > "$tmp/a.out" 2> "$tmp/a.err" &
a=$!
wait_for 30 test -e "$tmp/started" || fail "build A never reached vmlinux: $(cat "$tmp/a.err")"
check "A compiles c1 (the tree is at ${c1:0:12})" test "$(gt rev-parse HEAD)" = "$c1"
"$top/lab/kernels" build "$tree" > "$tmp/c.out" 2> "$tmp/c.err" &
c=$!
wait_for 30 waiting "$c" || fail "build C does not wait for the tree's lock: $(cat "$tmp/c.err")"
"$top/lab/kernels" build "$tree" --commit "$c2" > "$tmp/b.out" 2> "$tmp/b.err" &
b=$!
wait_for 30 waiting "$b" || fail "build B does not wait for the tree's lock: $(cat "$tmp/b.err")"
check "while A compiles, B (--commit c2) has not checked its commit out (the tree is at $(gt rev-parse --short=12 HEAD), want ${c1:0:12})" \
	test "$(gt rev-parse HEAD)" = "$c1"
rm "$tmp/hold"
rc=0; wait "$a" || rc=$?
check "A: exit 0 ($rc), c1's kernel ($(cat "$tmp/a.out"))" test "$rc" = 0 -a "$(cat "$tmp/a.out")" = "$r1"
rc=0; wait "$b" || rc=$?
check "B: exit 0 ($rc), c2's kernel ($(cat "$tmp/b.out"))" test "$rc" = 0 -a "$(cat "$tmp/b.out")" = "$r2"
rc=0; wait "$c" || rc=$?
check "C: exit 0 ($rc), the branch's kernel, c2's, not that of A's checkout ($(cat "$tmp/c.out"))" \
	test "$rc" = 0 -a "$(cat "$tmp/c.out")" = "$r2"
check "c2's kernel holds c2's sources" grep -q two "$BPFLAB_KERNEL_CACHE/$r2/vmlinux"
check "the branch is checked out again ($(gt symbolic-ref -q --short HEAD || echo detached))" \
	test "$(gt symbolic-ref -q --short HEAD)" = main
# a tree being bisected: --commit refused (git bisect moves HEAD without the lock)
gt bisect start "$c2" "$c1" > /dev/null 2>&1
head=$(gt rev-parse HEAD)
rc=0; "$top/lab/kernels" build "$tree" --commit "$c1" > /dev/null 2> "$tmp/d.err" || rc=$?
check "a tree under git bisect: --commit refused, exit 2 ($rc: $(cat "$tmp/d.err"))" \
	grep -q "is being bisected" "$tmp/d.err"
check "and its HEAD not moved" test "$(gt rev-parse HEAD)" = "$head" -a "$rc" = 2
gt bisect reset > /dev/null 2>&1
[ "$failures" = 0 ] || for f in a b c; do echo "--- $f:"; sed 's/^/    /' "$tmp/$f.err"; done
finish
