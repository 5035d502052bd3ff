#!/bin/bash
# demo-bisect-source.sh - `make demo-bisect-source`: bisect a real kernel tree end to end
# (docs/kernels.md, "Building a kernel from a tree"). lab/kbuild/make-tree.sh gives
# linux-source-6.12 as a git repository with eight commits on top, one of which adds four
# instructions to every XDP program run; git bisect run with lab/bisect-build as the
# command builds each commit's kernel, boots it as a guest of a lab in a box, runs
# plans/kernel-bisect.yaml on it under icount and lets `bpflab bisect run` judge it
# against a baseline measured on the good end's kernel. Prints git's answer and a table
# per step: commit, build time, boot time, guest instructions per run, verdict.
#
#   lab/demo-bisect-source.sh [--name LAB] [--subnet K] [--out DIR] [--tree DIR]
#
# --out DIR keeps table.tsv (the steps), answer (the first bad commit's id), planted
# (the planted commit's id), bisect.log (git bisect log) and run.log (all progress);
# default a temporary directory, removed at the end. The lab is taken down at the end.
# Exit 0 when git names the planted commit, 1 otherwise.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
bin=${BPFLAB_BIN:-$top/build/bin}
name=kbis subnet=77 out='' tree=''
while [ $# -gt 0 ]; do
	case "$1" in
	--name) name=$2; shift 2 ;;
	--subnet) subnet=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--tree) tree=$2; shift 2 ;;
	*) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
keep_out=1
if [ -z "$out" ]; then out=$(mktemp -d /tmp/bpflab-demo-bisect-XXXXXX); keep_out=0; fi
mkdir -p "$out"
export BPFLAB_LAB_DIR=${BPFLAB_LAB_DIR:-/tmp/bpflab-lab-$name}
plan=$top/plans/kernel-bisect.yaml
lab() { "$top/lab/lab" "$@" --name "$name"; }
say() { echo "demo: $*" | tee -a "$out/run.log" >&2; }
cleanup() {
	[ -z "$tree" ] || [ ! -f "$tree/.git/BISECT_LOG" ] || git -C "$tree" bisect reset >/dev/null 2>&1 || true
	lab down --purge >/dev/null 2>&1 || true
	[ "$keep_out" = 1 ] || rm -rf "$out"
}
trap cleanup EXIT
t_start=$(date +%s)

[ -n "$tree" ] || tree=$("$top/lab/kbuild/make-tree.sh")
git -C "$tree" bisect reset >/dev/null 2>&1 || true
# the tags of lab/kbuild/make-tree.sh, as tags: a tree made before 2026-12 also has a
# branch bpflab-base (ambiguous), one given with --tree may have none of them
tag() {
	git -C "$tree" rev-parse -q --verify "refs/tags/$1^{commit}" 2>/dev/null ||
		{ say "'$tree' has no tag $1: give a tree made by lab/kbuild/make-tree.sh"; exit 1; }
}
good=$(tag bpflab-base)
bad=$(tag bpflab-demo)
tag bpflab-planted > "$out/planted"
: > "$out/table.tsv"

# the good end: its kernel, a guest with it, the baseline run
say "good end ${good:0:12}: building"
t0=$(date +%s%N)
rel=$("$top/lab/kernels" build "$tree" --commit "$good" 2> >(tee -a "$out/run.log" >&2))
build_ms=$((($(date +%s%N) - t0) / 1000000))
say "good end: booting $rel"
lab down --purge >/dev/null 2>&1 || true
t0=$(date +%s%N)
lab up 0 --kernels "$rel" --subnet "$subnet" >> "$out/run.log" 2>&1 ||
	{ tail -n 20 "$out/run.log" >&2; say "the lab with the good end's kernel did not come up"; exit 1; }
boot_ms=$((($(date +%s%N) - t0) / 1000000))
# shellcheck source=/dev/null
. "$BPFLAB_LAB_DIR/env"
export BPFLAB_COORDINATOR BPFLAB_KEY BPFLAB_SERVER_KEY
say "good end: measuring the baseline on g1"
"$bin/bpflab" --bpf-dir "$top/build/bpf" run submit "$plan" --hosts g1 --wait > "$out/baseline.out" 2>&1 ||
	{ cat "$out/baseline.out" >&2; say "the baseline run failed"; exit 1; }
base=$(sed -n 's/^run \([0-9]*\) submitted.*/\1/p' "$out/baseline.out" | head -n 1)
[ -n "$base" ] || { cat "$out/baseline.out" >&2; say "no baseline run id"; exit 1; }
mean=$(sqlite3 "$BPFLAB_LAB_DIR/bpflab.db" "SELECT printf('%.3f', avg(s.value)) FROM samples s
	JOIN jobs j ON j.id = s.job_id WHERE j.run_id = $base AND s.metric = 'prog.ns_per_run' AND s.seq IS NULL")
printf '%s\t%s\t%d.%01d\t%d.%01d\t%s\t%s\t%s\n' "${good:0:12}" "$rel" $((build_ms / 1000)) $((build_ms % 1000 / 100)) \
	$((boot_ms / 1000)) $((boot_ms % 1000 / 100)) "$mean" "baseline" - >> "$out/table.tsv"
lab guest-down g1

# git bisect run, bpflab the judge
say "git bisect run between ${good:0:12} (good) and ${bad:0:12} (bad)"
t0=$(date +%s)
(
	cd "$tree"
	git bisect start "$bad" "$good" >/dev/null || exit 1
	git bisect run "$top/lab/bisect-build" --lab "$name" --plan "$plan" --metric prog.ns_per_run \
		--threshold 2% --baseline "$base" --variant drop --table "$out/table.tsv"
) > "$out/bisect.out" 2> >(tee -a "$out/run.log" >&2) || true
bisect_s=$(($(date +%s) - t0))
git -C "$tree" bisect log > "$out/bisect.log" 2>/dev/null || true
answer=$(git -C "$tree" rev-parse -q --verify refs/bisect/bad 2>/dev/null || true)
grep -q "is the first bad commit" "$out/bisect.out" || answer=
echo "$answer" > "$out/answer"
git -C "$tree" bisect reset >/dev/null 2>&1 || true
lab down --purge >/dev/null 2>&1 || true

echo
echo "git bisect run says:"
grep "is the first bad commit" "$out/bisect.out" | sed 's/^/    /'
[ -z "$answer" ] || git -C "$tree" log -1 --format='    %s' "$answer"
echo "per step (guest instructions per run of xdp_drop, icount; the first line is the good end's baseline):"
{
	printf 'commit\tsubject\trelease\tbuild_s\tboot_s\tinsns_per_run\tverdict\n'
	while IFS=$'\t' read -r c r b bt m v _; do
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$(git -C "$tree" log -1 --format=%s "$c" | cut -c1-44)" \
			"$r" "${b:--}" "${bt:--}" "$m" "$v"
	done < "$out/table.tsv"
} | column -t -s $'\t' | sed 's/^/    /'
echo "bisect: ${bisect_s} s; whole demo $(($(date +%s) - t_start)) s"
if [ -n "$answer" ] && [ "$answer" = "$(cat "$out/planted")" ]; then
	echo "the planted commit ${answer:0:12} is named: right"
	exit 0
fi
echo "git named '${answer:-nothing}', the planted commit is $(cut -c1-12 "$out/planted"): wrong"
exit 1
