#!/bin/bash
# test_agent_cutoff.sh - take an agent's management link down during a job for longer
# than the heartbeat deadline (3 s). The coordinator marks the host gone; the agent
# finishes the job, keeps the result in its spool (on disk) and, once the link is back,
# reconnects with backoff and delivers it. The run completes, the result is stored once
# (the attempt thought lost ends 'done'), and every sample the agent sent is stored.
. "$(dirname "$0")/lib.sh"

plan="$top/tests/data/plans/faults.yaml"
lab_start 1
# heal first (a cut link would outlive the lab's bridge), keeping the test's status
trap 'rc=$?; set +e; "$top/lab/lab" heal h1 --name "$LAB_NAME" --subnet "$LAB_SUBNET" 2>/dev/null
	(exit $rc); on_exit' EXIT

out=$("$bpflab" run submit "$plan" -s repeat=2 -s traffic.duration=2s)
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p')
check "run of 4 jobs on h1 ($out)" grep -q "4 jobs on 1 host" <<<"$out"
for ((i = 0; i < 100; i++)); do
	[ "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='running'")" = 1 ] && break
	sleep 0.1
done
job=$(sql "SELECT id FROM jobs WHERE run_id=$run AND state='running'")
check "a job is running before the cut ($job)" test -n "$job"
"$top/lab/lab" cut h1 --name "$LAB_NAME" --subnet "$LAB_SUBNET"
for ((i = 0; i < 80; i++)); do
	[ "$(sql "SELECT state FROM hosts WHERE name='h1'")" = gone ] && break
	sleep 0.1
done
check "h1 is marked gone while cut off" test "$(sql "SELECT state FROM hosts WHERE name='h1'")" = gone
# the job ends (up to its 4 s of windows after the cut) with its result spooled
spooled() { ls "$BPFLAB_LAB_DIR/h1/spool" | grep -q "^job-.*\.json$"; }
wait_for 15 spooled || true
spooled=$(ls "$BPFLAB_LAB_DIR/h1/spool" | grep -c "^job-.*\.json$" || true)
check "the agent spooled its result on disk while cut off ($spooled file(s))" test "$spooled" -ge 1
"$top/lab/lab" heal h1 --name "$LAB_NAME" --subnet "$LAB_SUBNET"

for ((i = 0; i < 400; i++)); do
	state=$(sql "SELECT state FROM runs WHERE id=$run")
	[ "$state" = done ] || [ "$state" = failed ] && break
	sleep 0.1
done
check "run completes after the link is back (state '$state')" test "$state" = done
check "the agent sent its spooled result" \
	grep -q "sending spooled result of job '$job'" "$BPFLAB_LAB_DIR/h1/agent.log"
check "job $job: the attempt thought lost ended done" test "$(sql "SELECT outcome FROM
	job_attempts WHERE job_id=$job AND attempt=1")" = done
# the last acks reach the agent, which then empties its spool
spool_empty() { test -z "$(ls "$BPFLAB_LAB_DIR/h1/spool" | grep "^job-" || true)"; }
wait_for 10 spool_empty || true
sent=$(grep -o "result job [0-9]*: [0-9]* samples" "$BPFLAB_LAB_DIR/h1/agent.log" |
	sort -u -t: -k1,1 | awk '{ n += $4 } END { print n + 0 }')
stored=$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run")
check "samples stored ($stored) = samples the agent sent ($sent)" test "$stored" = "$sent"
check "the spool is empty after the acks" spool_empty
finish
