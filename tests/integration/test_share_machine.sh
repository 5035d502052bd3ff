#!/bin/bash
# test_share_machine.sh - hosts of one machine are measured one after another: on a 2-host
# lab in a box both agents report the same machine.id (machine-id and boot id are the
# same in every namespace), so a run on both has no two jobs of different hosts that
# overlap in time (jobs.started_ms/finished_ms as the agents reported them), and the
# hosts take turns (h1 h2 h1 h2 ..., not all of one host's jobs first). The same run
# with -s share_machine=true does run jobs of the two hosts at the same time.
. "$(dirname "$0")/lib.sh"

plan="$top/tests/data/plans/faults.yaml"	# 2 variants x 2 repetitions, ~1.5 s a job
lab_start 2

ids=$(sql "SELECT count(DISTINCT json_extract(inventory, '$.machine.id')) || ' ' ||
	count(json_extract(inventory, '$.machine.id')) FROM hosts")
check "both hosts report one machine.id ($ids)" test "$ids" = "1 2"
check "its source is machine-id and boot id" test "$(sql "SELECT group_concat(DISTINCT
	json_extract(inventory, '$.machine.source')) FROM hosts")" = boot

# run_on OVERRIDE...: submit the plan on both hosts, wait (bounded); prints the run id
run_on() {
	local out run t0
	t0=$(date +%s%N)
	out=$(timeout 120 "$bpflab" run submit "$plan" "$@" --wait 2>/dev/null) ||
		fail "run submit $* --wait failed or timed out"
	run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
	echo "run $run ($*): $(( ($(date +%s%N) - t0) / 1000000 )) ms" >&2
	echo "$run"
}
all_done() { # RUN WHAT: every job of the run done, at least the 8 queued at submit
	local n
	n=$(sql "SELECT count(*) || ' ' || sum(state = 'done') FROM jobs WHERE run_id=$1")
	check "$2 run: every job done, 8 or more ($n)" \
		test "${n% *}" = "${n#* }" -a "${n% *}" -ge 8
}
across() { # RUN: pairs of jobs of different hosts that overlap in time
	sql "SELECT count(*) FROM jobs a JOIN jobs b ON a.host_id != b.host_id AND a.id < b.id
		WHERE a.run_id=$1 AND b.run_id=$1 AND a.started_ms < b.finished_ms
		AND b.started_ms < a.finished_ms"
}

# --- one machine: one job at a time, turns
run=$(run_on)
all_done "$run" serial
overlap=$(across "$run")
check "no two jobs of different hosts overlap in time ($overlap pairs)" test "$overlap" = 0
# the 8 jobs queued at submit (a repetition that did not count adds one to its host later)
order=$(sql "SELECT group_concat(name, ' ') FROM (SELECT h.name FROM jobs j
	JOIN hosts h ON h.id = j.host_id WHERE j.run_id=$run ORDER BY j.started_ms LIMIT 8)")
check "the hosts take turns ($order)" grep -Eq '^(h1 h2 ){3}h1 h2$|^(h2 h1 ){3}h2 h1$' <<<"$order"

# --- share_machine: side by side
run=$(run_on -s share_machine=true)
all_done "$run" shared
overlap=$(across "$run")
check "with share_machine jobs of the two hosts ran at the same time ($overlap pairs)" \
	test "$overlap" -gt 0

finish
