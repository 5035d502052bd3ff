#!/bin/bash
# bigrun.sh - one run of many jobs (issue 23): how long import, `result show -j`, the
# dashboard's run page and an import through bpflabd take at N jobs, against a baseline
# build (bench/README.md, "big runs"). No lab: a CSV of N variants of one program, one
# set (a job per variant, the worst case for the variant lookups), bpflabd on ipc.
#
#   bench/bigrun.sh [--base DIR] [--sizes "10000 40000 160000"] [--cap SECONDS] [--keep]
#
#   --base DIR   bpflab and bpflabd of the baseline (main built side by side:
#                git worktree add /tmp/base main && make -C /tmp/base -j2; DIR
#                /tmp/base/build/bin); without, only this build
#   --cap S      a baseline step that takes longer is stopped and printed as ">S"
#                (default 120: main's import of 160,000 jobs takes minutes)
#
# Per size and build: `import` (bpflab --db FILE result import), `show -j` (result show
# -j, --db), `page` (bpflab serve, GET /runs/1), and through bpflabd: `bpflabd import`
# (the CLI's wall time), `run list worst` (the slowest of `bpflab run list` asked one
# after the other during that import: what a client sees of the loop) and `turn` (the
# longest loop turn bpflabd logs at exit, wall and CPU; this build only). Wall-clock
# seconds of one run each: on a shared machine, read the ratios, and the load printed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bench=bigrun
usage_lines=2,21
. "$top/bench/lib.sh"

base="" sizes="10000 40000 160000" cap=120 keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--base) base=$2; shift 2 ;;
	--sizes) sizes=$2; shift 2 ;;
	--cap) cap=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	*) usage ;;
	esac
done
new="$top/build/bin"
[ -x "$new/bpflab" ] && [ -x "$new/bpflabd" ] || die "build first: make -j2"
[ -z "$base" ] || [ -x "$base/bpflab" ] || die "no bpflab in '$base'"
tmp=$(mktemp -d /tmp/bpflab-bench-bigrun.XXXXXX)
bench_on_exit() { [ -f "$tmp/d.pid" ] && kill "$(cat "$tmp/d.pid")" 2>/dev/null; [ -f "$tmp/s.pid" ] && kill "$(cat "$tmp/s.pid")" 2>/dev/null; wait 2>/dev/null; }
bench_traps

# seconds CMD takes (stdout dropped), ">CAP" when stopped, "fail" when it fails
timed() {
	local t0 t1 rc
	t0=$(date +%s.%N)
	timeout "$cap" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	t1=$(date +%s.%N)
	if [ $rc = 124 ]; then echo ">$cap"; elif [ $rc != 0 ]; then echo fail; else
		echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }'; fi
}

# the run page of DB through `bpflab serve` of build BIN
page() {
	local bin=$1 db=$2 port t
	"$bin/bpflab" serve --db "$db" --http 127.0.0.1:0 >"$tmp/serve.out" 2>&1 &
	echo $! >"$tmp/s.pid"
	for _ in $(seq 50); do
		port=$(grep -o '127.0.0.1:[0-9]*' "$tmp/serve.out" | head -1 | cut -d: -f2)
		[ -n "$port" ] && break
		sleep 0.1
	done
	t=$(timed curl -sf -o /dev/null "http://127.0.0.1:$port/runs/1")
	kill "$(cat "$tmp/s.pid")" 2>/dev/null
	wait "$(cat "$tmp/s.pid")" 2>/dev/null
	rm -f "$tmp/s.pid"
	echo "$t"
}

# import through bpflabd of build BIN: "CLI-seconds worst-run-list-ms turn"
through_daemon() {
	local bin=$1 csv=$2 d="$tmp/daemon" t worst turn
	rm -rf "$d"; mkdir -p "$d"
	"$bin/bpflabd" --agents "ipc://$d/a.sock" --clients "ipc://$d/c.sock" --db "$d/d.db" \
		--plaintext --log "$d/log" &
	echo $! >"$tmp/d.pid"
	sleep 0.5
	local cli=("$bin/bpflab" -c "ipc://$d/c.sock" --plaintext)
	( timed "${cli[@]}" --timeout "$cap" result import "$csv" --plan big >"$d/import.t" ) &
	local imp=$!
	worst=0
	while kill -0 $imp 2>/dev/null; do
		local t0 t1 ms
		t0=$(date +%s%N)
		"${cli[@]}" --timeout "$cap" run list >/dev/null 2>&1
		t1=$(date +%s%N)
		ms=$(( (t1 - t0) / 1000000 ))
		[ $ms -gt $worst ] && worst=$ms
	done
	wait $imp
	t=$(cat "$d/import.t")
	kill "$(cat "$tmp/d.pid")"; wait "$(cat "$tmp/d.pid")" 2>/dev/null; rm -f "$tmp/d.pid"
	turn=$(sed -n 's/.*longest loop turn \([0-9]*\) ms (most CPU in one: \([0-9.]*\) ms).*/\1 ms, CPU \2 ms/p' "$d/log")
	echo "$t|$worst|${turn:--}"
}

printf '%s\n' "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
printf '%-7s %-5s %8s %8s %8s %14s %15s  %s\n' jobs build import "show -j" page \
	"bpflabd import" "run list worst" "turn"
for n in $sizes; do
	csv="$tmp/big$n.csv"
	awk -v n="$n" 'BEGIN { print "variant,prog,set,value";
		for (i = 0; i < n; i++) printf "v%d,xdp_p,1,%d.%d\n", i, 100 + i % 50, i % 10 }' >"$csv"
	for build in new base; do
		[ $build = base ] && [ -z "$base" ] && continue
		bin=$new; [ $build = base ] && bin=$base
		db="$tmp/$build$n.db"
		imp=$(timed "$bin/bpflab" --db "$db" result import "$csv" --plan big)
		if [ "$imp" = "${imp#[>f]}" ]; then
			show=$(timed "$bin/bpflab" --db "$db" result show 1 -j)
			pg=$(page "$bin" "$db")
		else
			show=- pg=-
		fi
		IFS='|' read -r dimp worst turn <<<"$(through_daemon "$bin" "$csv")"
		printf '%-7s %-5s %8s %8s %8s %14s %15s  %s\n' "$n" "$build" "$imp" "$show" "$pg" \
			"$dimp" "${worst} ms" "$turn"
		rm -f "$db"*
	done
done
printf '%s\n' "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
