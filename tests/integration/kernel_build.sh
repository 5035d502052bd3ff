#!/bin/bash
# kernel_build.sh - `make check-kernel-build`: a kernel tree bisected end to end, twice
# (docs/kernels.md, "Building a kernel from a tree"). Not in run-integration's default
# list (its name is not test_*.sh): the first kernel build takes tens of minutes. Each
# round is lab/demo-bisect-source.sh on the cached linux-source-6.12 tree of
# lab/kbuild/make-tree.sh: the good end's kernel built and booted, a baseline measured,
# then `git bisect run lab/bisect-build` over the eight commits. Checks: git names the
# planted commit exactly, both times; every step's verdict is what the commit holds
# (good before the planted commit, bad from it on); the planted commit costs more guest
# instructions per run than the baseline; the per-step icount figures (commit and mean)
# are equal across the two rounds; no QEMU or virtiofsd is left. Round 1 first removes
# the tree's kernels from the kernel cache, so it builds every commit it tests (make's
# object directory and ccache make that a minute each after the first build); round 2
# finds them all in the cache (no build), so it shows what booting and measuring cost.
#
# Skips unless BPFLAB_KERNEL_BUILD=1 (make check-kernel-build sets it), when guests
# cannot run here, or when the kbuild packages cannot be installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guests.sh"

[ "${BPFLAB_KERNEL_BUILD:-0}" = 1 ] || { trap - EXIT; skip_test "BPFLAB_KERNEL_BUILD=1 asks for it (make check-kernel-build)"; }
guests_require
sh "$top/scripts/deps.sh" kbuild >/dev/null 2>&1 || skip_test "cannot install the kbuild packages (sh scripts/deps.sh kbuild)"
guests_make_tmp
tree=$("$top/lab/kbuild/make-tree.sh")
planted=$(git -C "$tree" rev-parse bpflab-planted)

for c in $(git -C "$tree" rev-list bpflab-demo); do
	rm -rf "${BPFLAB_KERNEL_CACHE:-/var/cache/bpflab/kernels}"/*-bpflab-"${c:0:12}"
done
for r in 1 2; do
	t0=$(date +%s)
	rc=0
	bash "$top/lab/demo-bisect-source.sh" --name "$LAB_NAME" --subnet "$LAB_SUBNET" --out "$tmp/r$r" \
		--tree "$tree" > "$tmp/r$r.out" 2> "$tmp/r$r.err" || rc=$?
	echo "round $r ($(($(date +%s) - t0)) s, exit $rc):"
	sed 's/^/    /' "$tmp/r$r.out"
	[ "$rc" = 0 ] || tail -n 30 "$tmp/r$r.err" | sed 's/^/    /'
	check "round $r: git bisect names the planted commit ${planted:0:12} ($(cut -c1-12 "$tmp/r$r/answer" 2>/dev/null))" \
		test "$(cat "$tmp/r$r/answer" 2>/dev/null)" = "$planted"
	# each step's verdict against what its commit holds
	wrong=
	while IFS=$'\t' read -r c _ _ _ _ v _; do
		[ "$v" = baseline ] && continue
		if git -C "$tree" merge-base --is-ancestor "$planted" "$c"; then want=bad; else want=good; fi
		[ "$v" = "$want" ] || wrong="$wrong $c:$v(want $want)"
	done < "$tmp/r$r/table.tsv"
	check "round $r: every step's verdict is what its commit holds${wrong:+ (wrong:$wrong)}" test -z "$wrong"
	base=$(awk -F'\t' '$6 == "baseline" { print $5 }' "$tmp/r$r/table.tsv")
	pl=$(awk -F'\t' -v c="${planted:0:12}" '$1 == c { print $5 }' "$tmp/r$r/table.tsv")
	check "round $r: the planted commit costs more than the baseline ($pl > $base guest instructions per run)" \
		python3 -c "import sys; sys.exit(0 if float('${pl:-0}') > float('${base:-0}') > 0 else 1)"
	check "round $r: no QEMU or virtiofsd of the lab is left" no_guest_processes
done
cut -f1,5,6 "$tmp/r1/table.tsv" > "$tmp/r1.fig"
cut -f1,5,6 "$tmp/r2/table.tsv" > "$tmp/r2.fig"
check "the per-step icount figures are equal across the two rounds ($(paste -sd' ' "$tmp/r1.fig" | tr '\t' ':'))" \
	cmp -s "$tmp/r1.fig" "$tmp/r2.fig"
guests_finish
