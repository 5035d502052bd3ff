#!/bin/bash
# test_calibrate.sh - a host's noise floor (docs/analysis.md, "Noise floor"): `bpflab
# host calibrate h1` runs the built-in XDP_DROP plan on h1 of a lab in a box through the
# coordinator and stores the run-to-run CV of each metric (table host_noise); `host
# list` shows it (text, -j, and --db alike), `plan check` and `run submit` turn it into
# the repetitions a plan needs for its min_effect, and warn when repeat max is below.
# Five repetitions (or what the repetition controller makes of them) of 1 s windows
# keep the test short.
. "$(dirname "$0")/lib.sh"

lab_start 1
tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
cleanup_later "$tmp"

"$bpflab" host calibrate h1 -s repeat=5 --timeout 30 > "$tmp/cal.txt" 2> "$tmp/cal.err"
rc=$?
cat "$tmp/cal.txt" "$tmp/cal.err"
check "host calibrate exits 0" test "$rc" -eq 0
check "calibrate prints the CV of prog.ns_per_run" grep -Eq "^h1 .* prog\.ns_per_run +xdp_drop +cost +[0-9]+ .* %$" "$tmp/cal.txt"
check "calibrate prints the advice for 2 %" grep -q "repetitions per variant to see a 2 % change" "$tmp/cal.txt"
run=$(sql "SELECT max(run_id) FROM host_noise")
check "host_noise has the calibration run ($run)" test -n "$run"
check "host_noise rows are of h1 and its environment" \
	test "$(sql "SELECT count(*) FROM host_noise n JOIN hosts h ON h.id = n.host_id
		JOIN host_envs e ON e.id = n.env_id WHERE h.name = 'h1' AND n.n >= 5")" -ge 3
check "every CV is a fraction >= 0" test "$(sql "SELECT count(*) FROM host_noise WHERE cv < 0 OR cv > 10")" -eq 0

"$bpflab" host list | tee "$tmp/list.txt"
check "host list has the noise floor table" grep -q "^noise floor" "$tmp/list.txt"
check "host list shows prog.ns_per_run's CV" grep -Eq "^h1 .* prog\.ns_per_run .* %$" "$tmp/list.txt"
"$bpflab" -j host list > "$tmp/list.json"
"$bpflab" --db "$LAB_DB" -j host list > "$tmp/list-db.json"
check "host list -j has noise.metrics with cv" python3 -c '
import json, sys
h = [h for h in json.load(open(sys.argv[1])) if h["name"] == "h1"][0]
m = {x["metric"]: x for x in h["noise"]["metrics"]}
assert h["noise"]["run"] == int(sys.argv[2]), h["noise"]
assert m["prog.ns_per_run"]["n"] >= 5 and m["prog.ns_per_run"]["cv"] >= 0, m
assert "port.rx_pps" in m, m
' "$tmp/list.json" "$run"
check "host list -j: coordinator and --db give the same noise" python3 -c '
import json, sys
a = {h["name"]: h.get("noise") for h in json.load(open(sys.argv[1]))}
b = {h["name"]: h.get("noise") for h in json.load(open(sys.argv[2]))}
assert a == b, (a, b)
' "$tmp/list.json" "$tmp/list-db.json"

# result show prints each spread beside the host's floor (the calibration run itself here)
"$bpflab" result show "$run" | tee "$tmp/show.txt"
check "result show names the calibration run under the host line" \
	grep -q "^  noise floor: calibration run $run; cv = a row's stddev / mean" "$tmp/show.txt"
check "result show has cv and floor columns" grep -Eq " ± spread +cv +floor$" "$tmp/show.txt"
check "result show prints xdp_drop's cv beside its floor" \
	grep -Eq "^drop +xdp_drop .* ± [0-9.]+ +[0-9.]+ % +[0-9.]+ %$" "$tmp/show.txt"
"$bpflab" --db "$LAB_DB" -j result show "$run" > "$tmp/show-db.json"
check "result show -j (--db) has the host's noise" python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["hosts"][0]
assert h["noise"]["run"] == int(sys.argv[2]), h
' "$tmp/show-db.json" "$run"

# plan check: the repetitions a 2 % change needs on h1, and a warning when repeat is below
"$bpflab" plan check "$top/plans/quickstart.yaml" > "$tmp/check.txt" 2> "$tmp/check.err"
cat "$tmp/check.txt" "$tmp/check.err"
check "plan check names the repetitions needed" \
	grep -Eq "^needs (about|more than) [0-9]+ repetitions? per variant to see a 2 % change \(host h1: [a-z._]+ .*CV [0-9.]+ %\)$" "$tmp/check.txt"
need=$(sed -n 's/^needs [a-z ]* \([0-9]*\) rep.*/\1/p' "$tmp/check.txt")
if [ "${need:-0}" -gt 3 ]; then
	check "plan check warns that repeat 3 is below $need" grep -q "warning: repeat max 3 is too few for it (needs " "$tmp/check.err"
else
	check "plan check does not warn when 3 repetitions are enough" test ! -s "$tmp/check.err"
fi
# one stream (a pipe, as a mail or a log gets it): the warning after the line it is about
"$bpflab" --db "$LAB_DB" plan check "$top/plans/quickstart.yaml" > "$tmp/check-both.txt" 2>&1
cat "$tmp/check-both.txt"
if grep -q "warning: repeat max" "$tmp/check-both.txt"; then
	check "plan check --db: the warning comes after the line it refers to" \
		sh -c 'grep -n "" "$1" | grep -A1 ":needs " | grep -q "warning: repeat max"' - \
		"$tmp/check-both.txt"
fi
"$bpflab" -j plan check "$top/plans/quickstart.yaml" -s min_effect=50% > "$tmp/check.json"
check "plan check -j has noise.reps, fewer for a 50 % change" python3 -c '
import json, sys
n = json.load(open(sys.argv[1]))["noise"]
assert n["min_effect_pct"] == 50 and 2 <= n["reps"] <= int(sys.argv[2] or 1000), n
assert n["host"] == "h1" and n["enough"] == (n["repeat_max"] >= n["reps"]), n
' "$tmp/check.json" "$need"
"$bpflab" plan check "$top/plans/quickstart.yaml" --hosts h9 > "$tmp/check9.txt"
check "plan check --hosts of a host without noise floor gives no advice" \
	test "$(wc -l < "$tmp/check9.txt")" -eq 1
"$bpflab" --db "$LAB_DB" plan check "$top/plans/quickstart.yaml" > "$tmp/check-db.txt"
check "plan check --db gives the same advice" cmp -s "$tmp/check.txt" "$tmp/check-db.txt"

# compare prints the smallest change its n can see, from its own data (-j and text)
"$bpflab" result compare "$run" "$run" >/dev/null 2>&1 || true
# --include-flagged: on a busy machine every repetition may be `disturbed`, and history
# then has no points; the check is about min_detectable_pct, not about the machine
"$bpflab" -j result history --plan calibrate --metric prog.ns_per_run --include-flagged > "$tmp/hist.json"
check "history -j has min_detectable_pct where it has two groups or says nothing" python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["series"]:
    assert ("min_detectable_pct" in s) == (len(s["points"]) >= 2), s
' "$tmp/hist.json"

# run submit says it too (a run of one repetition, that is not waited for)
"$bpflab" run submit "$top/plans/calibrate.yaml" -s repeat=1 > "$tmp/submit.txt" 2>&1
cat "$tmp/submit.txt"
check "run submit names the repetitions needed" grep -Eq "^needs (about|more than) .* per variant" "$tmp/submit.txt"
# a run that has not ended has no noise floor yet; an unknown run is refused
sub=$(sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' "$tmp/submit.txt")
"$bpflab" run cancel "$sub" >/dev/null 2>&1 || true

check "the lab's processes are running" pgrep -f "bpflab-lab-$LAB_NAME/" >/dev/null
finish
