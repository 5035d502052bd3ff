#!/bin/bash
# test_coord_kill.sh - SIGKILL bpflabd in the middle of a run and start it again on the
# same database: the run completes; the samples stored equal the samples the agents sent
# (each agent logs "result job N: K samples" when a job ends; a job that ran twice counts
# once), and no sample is stored twice.
. "$(dirname "$0")/lib.sh"

plan="$top/tests/data/plans/faults.yaml"
lab_start 2

out=$("$bpflab" run submit "$plan" -s repeat=3)
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p')
check "run of 12 jobs on 2 hosts ($out)" grep -q "12 jobs on 2 hosts" <<<"$out"
for ((i = 0; i < 300; i++)); do
	[ "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done'")" -ge 3 ] && break
	sleep 0.1
done
check "some jobs done before the kill" \
	test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done'")" -ge 3
"$top/lab/lab" kill-coordinator --name "$LAB_NAME"
sleep 2		# agents finish their jobs without a coordinator: spooled
"$top/lab/lab" start-coordinator --name "$LAB_NAME"

for ((i = 0; i < 600; i++)); do
	state=$(sql "SELECT state FROM runs WHERE id=$run" 2>/dev/null || true)
	[ "$state" = done ] || [ "$state" = failed ] && break
	sleep 0.1
done
check "run completes after the restart (state '$state')" test "$state" = done
check "the plan's 12 jobs done" test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done' AND $planned")" = 12
njobs=$(sql "SELECT count(*) FROM jobs WHERE run_id=$run")
check "the restarted coordinator requeued what was running" \
	grep -q "left running by the previous coordinator queued again" "$BPFLAB_LAB_DIR/bpflabd.log"

# the last acks reach the agents, which then empty their spools
spool_empty() { test -z "$(ls "$BPFLAB_LAB_DIR"/h*/spool/ 2>/dev/null | grep json || true)"; }
wait_for 10 spool_empty || true
sent=$(cat "$BPFLAB_LAB_DIR"/h*/agent.log | grep -o "result job [0-9]*: [0-9]* samples" |
	sort -u -t: -k1,1 | awk '{ n += $4 } END { print n + 0 }')
stored=$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run")
distinct=$(sql "SELECT count(*) FROM (SELECT DISTINCT s.job_id, s.metric, s.subject, s.window,
	ifnull(s.seq, -1) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run)")
check "samples stored ($stored) = samples the agents sent ($sent)" test "$stored" = "$sent"
check "no sample stored twice ($distinct distinct of $stored)" test "$distinct" = "$stored"
check "every job's samples came from one result" test "$(sql "SELECT count(*) FROM jobs
	WHERE run_id=$run AND result_ms IS NOT NULL")" = "$njobs"
check "agent spools are empty" spool_empty
finish
