#!/bin/bash
# validity.sh - how far bpflab's verdicts can be trusted: false and missed DIFFERENTs of
# `bpflab result compare` on the lab in a box, quiet and under a bounded background load
# (issue 10, part 7; bench/README.md, "validity"). Not part of `make check`; needs root.
#
#   bench/validity.sh [--pairs N] [--load quiet|busy|both] [--steps 0,5,20]
#                     [--mode runs|interleaved] [--repeat adaptive|N] [--min-reps N] [--max-reps N]
#                     [--until PCT] [--min-effect PCT] [--duration D] [--warmup D]
#                     [--base-rounds R] [--rounds PCT=R,...] [--cpu C] [--duty PCT]
#                     [--include-flagged] [--lab NAME] [--subnet K] [--time-limit SECONDS]
#                     [--json] [--keep]
#
# It brings up a lab of one host of its own (lab/lab up 1 --name NAME --subnet K, state
# in a temporary folder, torn down by a trap), then for each load and each of N pairs
# runs every scenario of --steps once, in turn (so drift of the machine over the bench
# hits every scenario alike):
#
#   step 0 (A/A):  baseline plan A, then A again; compare at --min-effect (default 3 %)
#   step P (A/B):  A, then B whose program costs P % more; compare
#
# A and B run bpf/xdp_loop.bpf.o (program xdp_loop, an XDP_DROP that runs loops[0] rounds
# of arithmetic) on port b, fed by the xdp-live generator from port a pinned to CPU C,
# where the program then runs too; the measured quantity is prog.ns_per_run (bpf_stats),
# the only metric of the plans. A has --base-rounds rounds (default 500); the rounds of
# B are found by a calibration run first (0, R and 2R rounds, interleaved, 5 repetitions:
# the cost of one round, and R + P % of the cost at R divided by it), unless --rounds
# gives them. Repetitions: `repeat: {min: --min-reps, max: --max-reps (30), until:
# --until % (2), on: [prog.ns_per_run]}` (adaptive: the coordinator adds repetitions
# until the 95 % CI of the mean is within --until % of it; without --min-reps the plan
# leaves min to its default), or a fixed count.
#
# --mode runs (default) submits A and B as two runs and compares the runs, as the issue
# words it and as a developer does (before the patch, after it); --mode interleaved
# submits one run with A and B as two variants (the coordinator alternates them) and
# compares the variants (`--plan UNIQUE --by variant`), which turns drift between the
# two runs into variance shared by both sides.
#
# --load busy starts, for the length of the phase, a busy loop pinned to CPU C (taskset)
# at --duty % (default 50: 50 ms spinning, 50 ms asleep), under `timeout -s KILL` of the
# bench's time limit, and kills it when the phase ends or the bench exits.
#
# Prints a table (scenario, load, pairs, DIFFERENT / SAME / UNKNOWN / error counts,
# median repetitions per side, median wall time per pair, median delta) and, for each
# pair that missed (A/A: every DIFFERENT; A/B: anything but DIFFERENT worse), its verdict
# and the change it could have resolved; --json prints one JSON document on stdout
# instead (the table then goes to stderr). Progress goes to stderr.
#
# Environment: BPFLAB_BIN (default build/bin), BPFLAB_BPF_DIR (default BPFLAB_BIN/../bpf).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
bin=${BPFLAB_BIN:-$top/build/bin}
bpf_dir=${BPFLAB_BPF_DIR:-$bin/../bpf}

pairs=5
loads=both
steps=0,5,20
mode=runs
repeat=adaptive
min_reps=
max_reps=30
until_pct=2
min_effect=3
duration=1s
warmup=200ms
base=500
rounds_opt=
cpu=1
duty=50
lab=validity
subnet=230
time_limit=3600
json=0
keep=0
flagged=

bench=validity usage_lines=6,11
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"

while [ $# -gt 0 ]; do
	case "$1" in
	--pairs) pairs=${2:?}; shift 2 ;;
	--load) loads=${2:?}; shift 2 ;;
	--steps) steps=${2:?}; shift 2 ;;
	--mode) mode=${2:?}; shift 2 ;;
	--repeat) repeat=${2:?}; shift 2 ;;
	--min-reps) min_reps=${2:?}; shift 2 ;;
	--max-reps) max_reps=${2:?}; shift 2 ;;
	--until) until_pct=${2:?}; shift 2 ;;
	--min-effect) min_effect=${2:?}; shift 2 ;;
	--duration) duration=${2:?}; shift 2 ;;
	--warmup) warmup=${2:?}; shift 2 ;;
	--base-rounds) base=${2:?}; shift 2 ;;
	--rounds) rounds_opt=${2:?}; shift 2 ;;
	--cpu) cpu=${2:?}; shift 2 ;;
	--duty) duty=${2:?}; shift 2 ;;
	--lab) lab=${2:?}; shift 2 ;;
	--subnet) subnet=${2:?}; shift 2 ;;
	--time-limit) time_limit=${2:?}; shift 2 ;;
	--include-flagged) flagged=--include-flagged; shift ;;
	--json) json=1; shift ;;
	--keep) keep=1; shift ;;
	-h|--help) usage ;;
	*) echo "validity: unknown option '$1'" >&2; usage ;;
	esac
done

num() { [[ "$2" =~ ^[0-9]+$ ]] || die "$1 '$2' must be a whole number"; }
num --pairs "$pairs"; num --max-reps "$max_reps"; num --base-rounds "$base"; num --cpu "$cpu"
num --duty "$duty"; num --time-limit "$time_limit"; num --subnet "$subnet"
[[ "$until_pct" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--until '$until_pct' must be a percentage"
[[ "$min_effect" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--min-effect '$min_effect' must be a percentage"
[[ "$steps" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--steps '$steps' must be percentages, comma-separated (0: A/A)"
[ "$pairs" -ge 1 ] || die "--pairs must be at least 1"
[ "$duty" -ge 1 ] && [ "$duty" -le 99 ] || die "--duty must be 1-99"
[ "$cpu" -lt "$(nproc)" ] || die "--cpu $cpu: this machine has CPUs 0-$(($(nproc) - 1))"
case "$loads" in quiet) loads="quiet" ;; busy) loads="busy" ;; both) loads="quiet busy" ;;
	*) die "--load must be quiet, busy or both" ;; esac
case "$mode" in runs|interleaved) ;; *) die "--mode must be runs or interleaved" ;; esac
if [ "$repeat" = adaptive ]; then
	if [ -n "$min_reps" ]; then
		num --min-reps "$min_reps"
		[ "$min_reps" -ge 1 ] && [ "$max_reps" -ge "$min_reps" ] ||
			die "--max-reps must be at least --min-reps (1 or more)"
	fi
	repeat_yaml="{${min_reps:+min: $min_reps, }max: $max_reps, until: $until_pct%, on: [prog.ns_per_run]}"
else
	num --repeat "$repeat"
	repeat_yaml=$repeat
fi
[ "$(id -u)" = 0 ] || die "needs root (namespaces, BPF)"
for b in bpflab bpflabd bpflab-agent; do [ -x "$bin/$b" ] || die "'$bin/$b' is missing; run make first"; done
[ -f "$bpf_dir/xdp_loop.bpf.o" ] || die "'$bpf_dir/xdp_loop.bpf.o' is missing; run make first"
for t in jq taskset timeout; do command -v $t >/dev/null || die "'$t' is needed"; done

start_s=$EPOCHSECONDS
deadline=$((start_s + time_limit))
tmp=$(mktemp -d /tmp/bpflab-validity.XXXXXX)
export BPFLAB_LAB_DIR=$tmp/lab BPFLAB_BIN=$bin BPFLAB_BPF_DIR=$bpf_dir
load_pid=
lab_started=0

stop_load() {
	[ -n "$load_pid" ] || return 0
	kill -TERM "$load_pid" 2>/dev/null || true	# timeout passes it on to the loop
	wait "$load_pid" 2>/dev/null || true
	load_pid=
}
bench_on_exit() { stop_load; }
bench_traps

now() { echo "$EPOCHREALTIME"; }
left() { echo $((deadline - EPOCHSECONDS)); }

bl() { "$bin/bpflab" --timeout 30 "$@"; }

# plan FILE NAME VARIANT=ROUNDS... [repeat]: a plan of xdp_loop variants
plan() {
	local file=$1 name=$2 rep=$3 v
	shift 3
	{
		echo "# generated by bench/validity.sh"
		echo "name: $name"
		echo "hosts: {match: {port.driver: veth}, count: 1}"
		echo "ports: [a, b]"
		echo "traffic: {generator: xdp-live, from: a, cpus: [$cpu], packet: {size: 64, proto: udp4, flows: 1}, duration: $duration, warmup: $warmup}"
		echo "variants:"
		for v in "$@"; do
			echo "  ${v%%=*}: [{port: b, hook: xdp, mode: native, object: xdp_loop.bpf.o, program: xdp_loop, maps: {loops: [{key: 0, value: ${v#*=}}]}}]"
		done
		echo "repeat: $rep"
		echo "min_effect: $min_effect%"
		echo "metrics: [prog.ns_per_run]"
	} > "$file"
}

# run_plan FILE: submit, wait until the run ends (cancel it at the time limit); sets
# run_id (not a command substitution, so that a signal to the bench is handled at once),
# fails unless the run is done
run_id=
run_plan() {
	local id state
	run_id=
	id=$(bl run submit "$1" -j | jq -r '.run') || return 1
	[[ "$id" =~ ^[0-9]+$ ]] || return 1
	run_id=$id
	while :; do
		state=$(bl run show "$id" -j | jq -r '.state // empty') || state=
		case "$state" in
		done) return 0 ;;
		failed|cancelled) log "run $id $state"; return 1 ;;
		esac
		if [ "$(left)" -le 0 ]; then
			log "time limit: cancelling run $id"
			bl run cancel "$id" >/dev/null 2>&1 || true
			return 1
		fi
		sleep 0.2
	done
}

# compare_row ARGS...: the prog.ns_per_run row of `result compare ARGS -j` (JSON) or
# {"error": ...}
compare_row() {
	local out
	out=$(bl result compare "$@" --metric prog.ns_per_run --min-effect "$min_effect" -j 2>/dev/null) || true
	[ -n "$out" ] || out='{"error": "no output from result compare"}'
	jq -c 'if .error then {error} else (.comparisons[0].rows[0] // {error: "no row"}) +
	       {excluded: .excluded.results} end' <<<"$out"
}

# ---- the lab ----
log "lab $lab (subnet $subnet), binaries $bin, state in $tmp"
lab_started=1
"$top/lab/lab" up 1 --name "$lab" --subnet "$subnet" >&2 || die "lab up failed"
# shellcheck disable=SC1091
. "$BPFLAB_LAB_DIR/env"
for i in $(seq 50); do
	[ "$(bl host list -j 2>/dev/null | jq '[.[] | select(.state == "idle")] | length')" = 1 ] && break
	sleep 0.1
done

# ---- calibration: the cost of a round, the rounds of each step ----
# (flagged results count here: the cost of a round is wanted, not a verdict)
declare -A rounds=()
cal_json=null
need_cal=0
IFS=, read -ra step_list <<<"$steps"
for s in "${step_list[@]}"; do rounds[$s]=; done
rounds[0]=$base
if [ -n "$rounds_opt" ]; then
	IFS=, read -ra kv <<<"$rounds_opt"
	for x in "${kv[@]}"; do
		[[ "$x" =~ ^[0-9]+=[0-9]+$ ]] || die "--rounds '$x': expected PCT=ROUNDS"
		rounds[${x%%=*}]=${x#*=}
	done
fi
for s in "${step_list[@]}"; do [ -n "${rounds[$s]}" ] || need_cal=1; done
if [ "$need_cal" = 1 ]; then
	log "calibration: 0, $base and $((2 * base)) rounds, 5 repetitions, interleaved"
	cname=validity-cal-$$
	plan "$tmp/cal.yaml" "$cname" 5 "r0=0" "r1=$base" "r2=$((2 * base))"
	cal_t0=$(now)
	run_plan "$tmp/cal.yaml" || die "calibration run failed"
	crun=$run_id
	c01=$(compare_row --plan "$cname" --by variant --baseline r0 --candidate r1 --include-flagged)
	c12=$(compare_row --plan "$cname" --by variant --baseline r1 --candidate r2 --include-flagged)
	for c in "$c01" "$c12"; do
		[ "$(jq 'has("mean_a") and has("mean_b")' <<<"$c")" = true ] || die "calibration: $c"
	done
	cal_json=$(jq -nc --argjson a "$c01" --argjson b "$c12" --argjson base "$base" \
		--argjson run "$crun" --arg wall "$(awk -v a="$cal_t0" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}')" '
		{run: $run, wall_s: ($wall | tonumber), base_rounds: $base,
		 ns: {"0": $a.mean_a, ($base | tostring): $a.mean_b, ($base * 2 | tostring): $b.mean_b},
		 cv_pct: [$a.stddev_a / $a.mean_a, $a.stddev_b / $a.mean_b, $b.stddev_b / $b.mean_b] | map(. * 100),
		 ns_per_round: (($b.mean_b - $a.mean_a) / (2 * $base)),
		 nonlinearity_pct: (100 * ($a.mean_b - ($a.mean_a + $b.mean_b) / 2) / $a.mean_b)}')
	[ "$(jq '.ns_per_round > 0' <<<"$cal_json")" = true ] || die "calibration found no cost per round: $c01 $c12"
	for s in "${step_list[@]}"; do
		[ -n "${rounds[$s]}" ] && continue
		rounds[$s]=$(jq -r --argjson p "$s" --argjson base "$base" \
			'$base + ((($p / 100) * .ns[($base | tostring)] / .ns_per_round) + 0.5 | floor)' <<<"$cal_json")
	done
	log "calibration: $(jq -c '{ns, ns_per_round, nonlinearity_pct, cv_pct}' <<<"$cal_json")"
fi
rounds_json=$(for s in "${step_list[@]}"; do echo "{\"step\": $s, \"rounds\": ${rounds[$s]}}"; done | jq -sc '.')
log "rounds: $(jq -c 'map({(.step | tostring): .rounds}) | add' <<<"$rounds_json")"

# ---- the pairs ----
pairs_file=$tmp/pairs.jsonl
loads_file=$tmp/loads.jsonl
: > "$pairs_file"
: > "$loads_file"

# one_pair LOAD STEP I: run the pair, append its line to $pairs_file
one_pair() {
	local ld=$1 s=$2 i=$3 t0 ra rb row name rr=${rounds[$2]} wall
	t0=$(now)
	if [ "$mode" = runs ]; then
		plan "$tmp/a.yaml" validity "$repeat_yaml" "loop=$base"
		plan "$tmp/b.yaml" validity "$repeat_yaml" "loop=$rr"
		ra=; rb=
		if run_plan "$tmp/a.yaml" && ra=$run_id && run_plan "$tmp/b.yaml" && rb=$run_id; then
			row=$(compare_row "$ra" "$rb" $flagged)
		else
			row='{"error": "a run failed"}'
		fi
	else
		name=validity-$$-$ld-$s-$i
		plan "$tmp/ab.yaml" "$name" "$repeat_yaml" "a=$base" "b=$rr"
		ra=
		if run_plan "$tmp/ab.yaml" && ra=$run_id; then
			row=$(compare_row --plan "$name" --by variant --baseline a --candidate b $flagged)
		else
			row='{"error": "the run failed"}'
		fi
		rb=$ra
	fi
	wall=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.2f", b - a}')
	jq -nc --argjson row "$row" --arg load "$ld" --argjson step "$s" --argjson i "$i" \
		--argjson ra "${ra:-null}" --argjson rb "${rb:-null}" --argjson wall "$wall" \
		--argjson rounds "$rr" --argjson base "$base" '
		# what the pair could resolve: compare'"'"'s min_detectable_pct where it gives one, else
		# (z_0.975 + z_0.8) CV sqrt(1/n_a + 1/n_b), the pooled CV relative to the baseline
		# mean (lib/analysis/stats.h, stats_min_detectable_effect); -1 where the rank test compare chose cannot reach p < 0.05 at all with these
		# sizes (its smallest p, 2 / C(n_a + n_b, n_a), is 0.1 for 3 + 3)
		def binom($n; $k): reduce range(1; $k + 1) as $i (1; . * ($n - $k + $i) / $i);
		def mde: if .test == "mann-whitney" and 2 / binom(.n_a + .n_b; .n_a) >= 0.05 then -1
		elif .min_detectable_pct then .min_detectable_pct
		elif (.n_a // 0) < 2 or (.n_b // 0) < 2 then null else
			((((.n_a - 1) * .stddev_a * .stddev_a + (.n_b - 1) * .stddev_b * .stddev_b)
			  / (.n_a + .n_b - 2) | sqrt) / .mean_a) as $cv |
			100 * 2.80158 * $cv * ((1 / .n_a + 1 / .n_b) | sqrt) end;
		{load: $load, step: $step, pair: $i, base_rounds: $base, rounds: $rounds,
		 run_a: $ra, run_b: $rb, wall_s: $wall} +
		if $row.error then {verdict: "error", error: $row.error} else
		{verdict: $row.verdict, change: $row.change, delta_pct: $row.delta_pct,
		 n_a: $row.n_a, n_b: $row.n_b, mean_a: $row.mean_a, mean_b: $row.mean_b,
		 stddev_a: $row.stddev_a, stddev_b: $row.stddev_b,
		 test: $row.test, p: $row.p, more_reps: $row.more_reps,
		 more_reps_capped: $row.more_reps_capped, excluded: $row.excluded,
		 run_limited: ($row.run_limited // false), run_spread_pct: $row.run_spread_pct,
		 run_spread_assumed_pct: $row.run_spread_assumed_pct,
		 resolvable_pct: ($row | mde)} end' >> "$pairs_file"
	log "$(tail -n 1 "$pairs_file" | jq -r '"\(.load) \(if .step == 0 then "A/A" else "+\(.step)%" end) pair \(.pair): \(.verdict) \(.change // "") delta \(.delta_pct // 0 | . * 100 | round / 100)% n \(.n_a)/\(.n_b) \(.wall_s) s"')"
}

# the busy loop: spin --duty % of each 100 ms, sleep the rest, on CPU $cpu
start_load() {
	local busy_us=$((duty * 1000)) idle=$(((100 - duty) * 1000))
	timeout -s KILL "$(left)" taskset -c "$cpu" bash -c '
		echo $$ > "$1"
		while :; do
			e=$(( ${EPOCHREALTIME/./} + $2 ))
			while (( ${EPOCHREALTIME/./} < e )); do :; done
			sleep "$3"
		done' busyloop "$tmp/load.pid" "$busy_us" "0.$(printf %06d "$idle")" &
	load_pid=$!
}
# cpu_ticks PID: utime + stime in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

timed_out=0
for ld in $loads; do
	[ "$timed_out" = 1 ] && break
	phase_t0=$(now)
	la0=$(cut -d' ' -f1-3 /proc/loadavg)
	if [ "$ld" = busy ]; then
		rm -f "$tmp/load.pid"
		start_load
		for _ in $(seq 20); do [ -s "$tmp/load.pid" ] && break; sleep 0.05; done
		lp=$(cat "$tmp/load.pid" 2>/dev/null || echo 0)
		lt0=$(cpu_ticks "$lp")
		log "busy: loop pid $lp on CPU $cpu at $duty % duty"
	fi
	for ((i = 1; i <= pairs; i++)); do
		for s in "${step_list[@]}"; do
			if [ "$(left)" -le 0 ]; then
				log "time limit of $time_limit s reached; stopping"
				timed_out=1
				break 3
			fi
			one_pair "$ld" "$s" "$i"
		done
	done
	phase_s=$(awk -v a="$phase_t0" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}')
	share=null
	if [ "$ld" = busy ]; then
		lt1=$(cpu_ticks "$lp")
		share=$(awk -v t="$((lt1 - lt0))" -v hz="$(getconf CLK_TCK)" -v s="$phase_s" \
			'BEGIN{printf "%.1f", 100 * t / hz / s}')
		stop_load
	fi
	jq -nc --arg load "$ld" --argjson s "$phase_s" --arg la0 "$la0" \
		--arg la1 "$(cut -d' ' -f1-3 /proc/loadavg)" --argjson share "$share" \
		'{load: $load, seconds: $s, loadavg_start: $la0, loadavg_end: $la1,
		  busy_loop_cpu_pct: $share}' >> "$loads_file"
done
stop_load

# ---- the report ----
report=$(jq -n --slurpfile p "$pairs_file" --slurpfile l "$loads_file" \
	--argjson cal "$cal_json" --argjson rounds "$rounds_json" \
	--arg mode "$mode" --arg repeat "$repeat_yaml" --arg flagged "$flagged" --argjson min_effect "$min_effect" \
	--arg duration "$duration" --arg warmup "$warmup" --argjson cpu "$cpu" \
	--argjson duty "$duty" --argjson timed_out "$timed_out" \
	--arg kernel "$(uname -r)" --argjson ncpu "$(nproc)" '
	def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def count(v): map(select(.verdict == v)) | length;
	# a miss: A/A anything DIFFERENT; A/B anything but DIFFERENT worse
	def miss: if .step == 0 then .verdict == "DIFFERENT"
		else (.verdict != "DIFFERENT" or .change != "worse") end;
	{config: {mode: $mode, repeat: $repeat, min_effect_pct: $min_effect,
		  include_flagged: ($flagged != ""),
		  duration: $duration, warmup: $warmup, cpu: $cpu, busy_duty_pct: $duty,
		  kernel: $kernel, cpus: $ncpu, steps: $rounds},
	 calibration: $cal, loads: $l, timed_out: ($timed_out == 1),
	 scenarios: [$p | group_by([.load != "quiet", .step])[] |
		{scenario: (if .[0].step == 0 then "A/A" else "+\(.[0].step)%" end),
		 step: .[0].step, load: .[0].load, rounds: .[0].rounds, pairs: length,
		 different: count("DIFFERENT"), same: count("SAME"), unknown: count("UNKNOWN"),
		 mixed: count("MIXED"), error: count("error"),
		 excluded_results: (map(.excluded // 0) | add),
		 different_better: map(select(.verdict == "DIFFERENT" and .change == "better")) | length,
		 median_reps: (map(select(.n_a) | .n_a, .n_b) | median),
		 max_reps: (map(select(.n_a) | .n_a, .n_b) | max),
		 median_wall_s: (map(.wall_s) | median),
		 median_delta_pct: (map(select(.delta_pct) | .delta_pct) | median),
		 median_resolvable_pct: (map(select(.resolvable_pct and .resolvable_pct >= 0) | .resolvable_pct) | median),
		 misses: [.[] | select(miss) | {pair, verdict, change, delta_pct, n_a, n_b,
			 resolvable_pct, more_reps, more_reps_capped, run_limited, run_spread_pct,
			 run_spread_assumed_pct, error}]}],
	 pairs: $p}')

# the report as text: what ran, the table, the misses
table() {
	local defs='
	def f1: if . == null then "-" else (. * 10 | round / 10 | tostring) end;
	def sp: if . == null then "-" elif . >= 0 then "+\(f1)" else f1 end;'
	jq -r "$defs"'
	"mode \(.config.mode)\(if .config.include_flagged then " (flagged results included)" else "" end), repeat \(.config.repeat), min effect \(.config.min_effect_pct)%, windows \(.config.duration) (warmup \(.config.warmup)), generator and program on CPU \(.config.cpu); kernel \(.config.kernel), \(.config.cpus) CPUs",
	(if .calibration then "calibration (run \(.calibration.run), \(.calibration.wall_s) s): ns_per_run " +
		(.calibration.ns | to_entries | map("\(.value | f1) at \(.key) rounds") | join(", ")) +
		"; \(.calibration.ns_per_round * 1000 | round / 1000) ns a round, nonlinearity \(.calibration.nonlinearity_pct | sp)%" else empty end),
	"steps: " + (.config.steps | map(if .step == 0 then "A/A \(.rounds) rounds" else "+\(.step)% \(.rounds) rounds" end) | join(", ")),
	(.loads[] | "load \(.load): \(.seconds) s, load average \(.loadavg_start) -> \(.loadavg_end)" +
		(if .busy_loop_cpu_pct then ", busy loop used \(.busy_loop_cpu_pct)% of a CPU" else "" end)),
	""' <<<"$report"
	jq -r "$defs"'
	(["scenario", "load", "rounds", "pairs", "DIFFERENT", "SAME", "UNKNOWN", "MIXED", "error", "left out", "reps/side", "wall/pair", "delta"] | @tsv),
	(.scenarios[] | [.scenario, .load, .rounds, .pairs, .different, .same, .unknown, .mixed, .error, .excluded_results,
		"\(.median_reps | f1) (max \(.max_reps // "-"))", "\(.median_wall_s | f1) s", "\(.median_delta_pct | sp)%"] | @tsv)
	' <<<"$report" | column -t -s $'\t' -o '  '
	jq -r "$defs"'
	"",
	"left out: results compare left out (flagged jobs: disturbed, ...), all pairs; reps/side (counted values),",
	"wall/pair, delta: medians over the pairs. Misses (A/A: DIFFERENT; A/B: not DIFFERENT worse):",
	(if ([.scenarios[].misses[]] | length) == 0 then "  none" else
	 (.scenarios[] | . as $s | .misses[] |
		"  \($s.scenario) \($s.load) pair \(.pair): \(.verdict)\(if (.change // "") != "" then " \(.change)" else "" end)" +
		(if .error then " (\(.error))" else
		 " \(.delta_pct | sp)%, \(.n_a)/\(.n_b) reps, " +
		 (if .resolvable_pct == -1 then "could resolve nothing (\(.n_a) + \(.n_b) values cannot reach p < 0.05)"
		  else "could resolve \(.resolvable_pct | f1)%" end) +
		 (if .verdict != "UNKNOWN" then ""
		  elif .run_limited and .run_spread_pct == null then ", run-limited (run-to-run spread assumed \(.run_spread_assumed_pct | f1)%: more reps cannot settle it)"
		  elif .run_limited then ", run-limited (run-to-run spread \(.run_spread_pct | f1)%: more reps cannot settle it)"
		  else ", +\(.more_reps)\(if .more_reps_capped then " (capped)" else "" end) reps to settle" end) end))
	 end),
	(if .timed_out then "stopped at the time limit: fewer pairs than asked" else empty end)
	' <<<"$report"
}

if [ "$json" = 1 ]; then
	table >&2
	echo "$report"
else
	table
fi
