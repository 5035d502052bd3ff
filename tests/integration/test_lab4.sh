#!/bin/bash
# test_lab4.sh - a 4-host lab runs a plan on all hosts at once: every job done, each host
# runs one job at a time (no two jobs of a host overlap in time, from the started/finished
# times the agents reported), hosts do run side by side, each job has one stored attempt,
# variants interleave on each host. Also: `run watch --json` follows the run to its end;
# `run submit --hosts` puts the run on exactly the named hosts, and a host that is not
# connected is refused.
#
# The 4 hosts share this machine, which the coordinator measures one host at a time
# unless a plan says share_machine (docs/plans.md): the runs here check scheduling, not
# numbers, so they say it, and hosts do run side by side.
. "$(dirname "$0")/lib.sh"

plan="$top/tests/data/plans/faults.yaml"
lab_start 4

# --- count all on 4 hosts, watched live
out=$("$bpflab" run submit "$plan" -s repeat=2 -s share_machine=true)
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p')
check "run submitted on 4 hosts ($out)" grep -q "16 jobs on 4 hosts" <<<"$out"
timeout 60 "$bpflab" -j run watch "$run" > "$BPFLAB_LAB_DIR/watch.jsonl" || fail "run watch failed"
check "watch printed several updates ($(wc -l < "$BPFLAB_LAB_DIR/watch.jsonl"))" \
	test "$(wc -l < "$BPFLAB_LAB_DIR/watch.jsonl")" -ge 2
check "watch ended with the run done" \
	grep -q '"state": *"done"' <<<"$(tail -n 1 "$BPFLAB_LAB_DIR/watch.jsonl")"
check "watch showed a running job as n of m" \
	grep -q '"n": *[0-9]' "$BPFLAB_LAB_DIR/watch.jsonl"
check "every update names the 4 hosts" \
	test "$(head -n 1 "$BPFLAB_LAB_DIR/watch.jsonl" | grep -o '"host": *"h[0-9]"' | sort -u | wc -l)" = 4

check "16 jobs done" test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done' AND $planned")" = 16
check "4 jobs on each of 4 hosts" test "$(sql "SELECT group_concat(n) FROM (SELECT count(*) n
	FROM jobs WHERE run_id=$run AND $planned GROUP BY host_id)")" = "4,4,4,4"
overlap=$(sql "SELECT count(*) FROM jobs a JOIN jobs b ON a.host_id = b.host_id AND a.id < b.id
	WHERE a.run_id=$run AND b.run_id=$run AND a.started_ms < b.finished_ms
	AND b.started_ms < a.finished_ms")
check "no two jobs of one host overlap in time ($overlap pairs)" test "$overlap" = 0
parallel=$(sql "SELECT count(*) FROM jobs a JOIN jobs b ON a.host_id != b.host_id AND a.id < b.id
	WHERE a.run_id=$run AND b.run_id=$run AND a.started_ms < b.finished_ms
	AND b.started_ms < a.finished_ms")
check "jobs of different hosts ran at the same time ($parallel pairs)" test "$parallel" -gt 0
check "one attempt per job, each done" test "$(sql "SELECT count(*) FROM job_attempts a
	JOIN jobs j ON j.id = a.job_id WHERE j.run_id=$run AND a.outcome='done' AND a.attempt=1
	AND j.$planned")" = 16
order=$(sql "SELECT group_concat(variant, ' ') FROM (SELECT j.variant FROM jobs j
	JOIN hosts h ON h.id = j.host_id WHERE j.run_id=$run AND h.name='h3' AND j.$planned
	ORDER BY j.seq)")
check "variants interleave, order stored in seq ($order)" test "$order" = "drop pass drop pass"

# --- --hosts: exactly the named hosts; an unknown one is refused
out=$("$bpflab" run submit "$plan" -s repeat=1 --hosts h2,h4 --wait 2>&1) || fail "--hosts run failed: $out"
run2=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p')
# as a set: host ids follow the order in which the agents said hello, not their names
hosts=$(sql "SELECT DISTINCT h.name FROM jobs j JOIN hosts h ON h.id = j.host_id
	WHERE j.run_id=$run2" | sort | paste -sd, -)
check "--hosts h2,h4 ran on h2 and h4 only ($hosts)" test "$hosts" = "h2,h4"
rc=0
err=$("$bpflab" run submit "$plan" --hosts h2,h9 2>&1) || rc=$?
check "--hosts with an unknown host is refused (rc $rc: $err)" grep -q "host 'h9' is not known" <<<"$err"

# --- cancel: queued jobs dropped, running ones stop and keep what they measured
out=$("$bpflab" run submit "$plan" -s repeat=3 -s traffic.duration=3s -s share_machine=true)
run3=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p')
for ((i = 0; i < 300; i++)); do
	[ "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run3 AND state='running'")" -ge 4 ] && break
	sleep 0.1
done
check "4 jobs running before the cancel" test "$i" -lt 300
sleep 1.5	# into the rate window (a job lasts 6 s: 3 s of rate, 3 s of cost window)
out=$("$bpflab" run cancel "$run3")
check "run cancel reports the running jobs ($out)" grep -q "4 running jobs told to stop" <<<"$out"
timeout 30 "$bpflab" run watch "$run3" >/dev/null || fail "run watch of a cancelled run did not end"
for ((i = 0; i < 100; i++)); do
	[ "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run3 AND state='running'")" = 0 ] && break
	sleep 0.1
done
check "run is cancelled" test "$(sql "SELECT state FROM runs WHERE id=$run3")" = cancelled
check "the 20 queued jobs failed as 'cancelled'" test "$(sql "SELECT count(*) FROM jobs
	WHERE run_id=$run3 AND state='failed' AND error='cancelled' AND result_ms IS NULL
	AND $planned")" = 20
check "the 4 running jobs stopped, their attempts 'cancelled'" test "$(sql "SELECT count(*)
	FROM job_attempts a JOIN jobs j ON j.id = a.job_id WHERE j.run_id=$run3
	AND a.outcome='cancelled'")" = 4
partial=$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id
	WHERE j.run_id=$run3 AND j.result_ms IS NOT NULL")
check "partial samples of the stopped jobs were kept ($partial)" test "$partial" -gt 0
rc=0
"$bpflab" run cancel "$run3" 2>/dev/null || rc=$?
check "cancelling it again fails (rc $rc)" test "$rc" = 1
finish
