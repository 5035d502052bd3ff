#!/bin/bash
# test_search.sh - MLRsearch in a job (plan `search`, docs/plans.md) on a path of known
# capacity, on a 1-host lab in a box: xdp_police (bpf/xdp_police.bpf.c) on port b passes
# at most 100000 frames/s (config[0], set by the plan) and drops the rest; the search
# finds NDR within 2 % of 100000, PDR (0.5 %) not below it, bounds within the width, and
# every trial is stored in order; `search.method: binary` searches too (coarse: bounds
# within the width, every trial full-length); a bad search section, or max_rate above the
# port's line rate, is refused (FILE:LINE:COL, exit 2).
# The police starts each trial with 5 ms of frames in its bucket: at most 0.25 % more than
# N passes in a 2 s trial.
. "$(dirname "$0")/lib.sh"

lab_start 1
tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
cleanup_later "$tmp"
N=100000

cat > "$tmp/search.yaml" <<YAML
name: search
ports: [a, b]
traffic:
  generator: xdp-live
  from: a
  packet: {size: 64}
  duration: 1s
variants:
  police:
    - port: b
      hook: xdp
      mode: native
      object: xdp_police.bpf.o
      program: xdp_police
      maps:
        config: [{key: 0, value: $N}]
      counters: [{map: stats, keys: {0: passed, 1: dropped}}]
search: {goals: [{name: NDR, loss: 0}, {name: PDR, loss: 0.5%}], width: 0.5%, trial: 2s, min_rate: 20000, max_rate: 400000}
YAML

"$bpflab" run submit "$tmp/search.yaml" --wait > "$tmp/out" 2>&1
cat "$tmp/out" >&2
run=$(sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' "$tmp/out" | head -n 1)
check "search run done (run '$run')" test "$(sql "SELECT state FROM runs WHERE id=$run")" = done
value() {
	sql "SELECT s.value FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run
	     AND s.metric='$1' AND s.seq IS NULL"
}
ndr=$(value ndr.lower); ndr_up=$(value ndr.upper); pdr=$(value pdr.lower)
cond=$(value pdr.conditional); trials=$(value search.trials); t=$(value search.time_s)
echo "N $N: ndr.lower $ndr ndr.upper $ndr_up pdr.lower $pdr pdr.conditional $cond; $trials trials, $t s"
echo "trials (seq|load|offered|duration|loss ratio):"
sql "SELECT l.seq, l.value, o.value, d.value, r.value FROM samples l JOIN jobs j ON j.id = l.job_id
     JOIN samples o ON o.job_id = l.job_id AND o.seq = l.seq AND o.metric='trial.offered_pps'
     JOIN samples d ON d.job_id = l.job_id AND d.seq = l.seq AND d.metric='trial.duration_s'
     JOIN samples r ON r.job_id = l.job_id AND r.seq = l.seq AND r.metric='trial.loss_ratio'
     WHERE j.run_id=$run AND l.metric='trial.load_pps' ORDER BY l.seq"
sql "SELECT s.metric, s.subject, s.value FROM samples s JOIN jobs j ON j.id = s.job_id
     WHERE j.run_id=$run AND s.metric NOT LIKE 'trial.%'"
check "NDR within 2 % of $N ($ndr)" awk -v v="$ndr" -v n=$N 'BEGIN { exit !(v != "" && v >= 0.98 * n && v <= 1.02 * n) }'
# (a search ends at a width of exactly 0.5 % when bisection lands on it; the stored values
# are read back through text, so allow a rounding of 1e-9 of it)
check "NDR bounds within the width 0.5 % ($ndr .. $ndr_up)" awk -v l="$ndr" -v u="$ndr_up" 'BEGIN { exit !(u > l && (u - l) / u <= 0.005 * (1 + 1e-9)) }'
check "PDR not below NDR ($pdr)" awk -v p="$pdr" -v l="$ndr" 'BEGIN { exit !(p >= l) }'
n=$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run
	 AND s.metric='trial.loss_ratio'")
check "every trial stored ($n of $trials)" test "$n" = "${trials%.*}"

# --- method binary (bench/ndr's comparison), coarse: one search per goal, every trial
# full-length, the bounds within the width
"$bpflab" run submit "$tmp/search.yaml" -s search.method=binary -s search.width=5% \
	-s search.trial=500ms --wait > "$tmp/out" 2>&1
cat "$tmp/out" >&2
run=$(sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' "$tmp/out" | head -n 1)
check "binary search run done (run '$run')" test "$(sql "SELECT state FROM runs WHERE id=$run")" = done
ndr=$(value ndr.lower); ndr_up=$(value ndr.upper); trials=$(value search.trials)
short=$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run
	     AND s.metric='trial.duration_s' AND s.value < 0.45")
echo "binary: ndr.lower $ndr ndr.upper $ndr_up pdr.lower $(value pdr.lower); $trials trials"
check "binary: NDR bounds within 5 % ($ndr .. $ndr_up)" awk -v l="$ndr" -v u="$ndr_up" 'BEGIN { exit !(u > l && (u - l) / u <= 0.05 * (1 + 1e-9)) }'
check "binary: every trial 0.5 s ($short shorter, of $trials)" test "$short" = 0

# --- bad search sections: FILE:LINE:COLUMN, exit 2
bad() { # SED DESCRIPTION PATTERN
	sed "$1" "$tmp/search.yaml" > "$tmp/bad.yaml"
	rc=0
	"$bpflab" run submit "$tmp/bad.yaml" 2> "$tmp/bad.err" >/dev/null || rc=$?
	check "$2 exits 2 (got $rc)" test "$rc" = 2
	check "... with FILE:LINE:COLUMN ($(cat "$tmp/bad.err"))" grep -q "$tmp/bad.yaml:$3" "$tmp/bad.err"
}
bad 's/width: 0.5%/width: 0%/' "width 0" "18:[0-9]*: search.width"
bad 's/loss: 0.5%/loss: 100%/' "loss 100 %" "18:[0-9]*: search.goals: loss"
bad 's/trial: 2s/trial: 2s, total: 1s/' "total shorter than trial" "18:[0-9]*: search.total"
bad 's/trial: 2s/trial: 2s, method: linear/' "method linear" "18:[0-9]*: search.method: expected one of mlrsearch, binary"
# above the line rate of h1's port a (veth: 10000 Mb/s, 14.2 Mpps of 64 bytes), at submit
bad 's/max_rate: 400000/max_rate: 20000000/' "max_rate above the line rate" "18:[0-9]*: search.max_rate: 20000000 frames/s is above the line rate of port 'a' on host 'h1'"
finish
