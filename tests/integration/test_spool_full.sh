#!/bin/bash
# test_spool_full.sh - the spool's promise on a full disk (docs/agent.md, "Spool"): a
# result is on disk before it is sent. The agent's spool is a small tmpfs filled to the
# last byte; a run's first result cannot be stored, so the agent holds it in memory, sends
# nothing and takes no other job: the coordinator stores (and acknowledges) nothing for
# the run meanwhile. Once space is back (the filler removed) the held result is stored
# and sent, the run completes, every job is done (or failed with a reason), the samples
# stored are those the agent sent, none twice, and the acknowledged results leave the
# spool. Bounded: every wait has a deadline; the tmpfs is unmounted also on failure.
. "$(dirname "$0")/lib.sh"

plan="$top/tests/data/plans/faults.yaml"
lab_start 1
spool="$BPFLAB_LAB_DIR/h1/spool"
log="$BPFLAB_LAB_DIR/h1/agent.log"
# the agent runs in a mount namespace of its own (ip netns exec): the tmpfs goes in
# between a stop and a start of it
"$top/lab/lab" kill-agent h1 --name "$LAB_NAME"
mount -t tmpfs -o size=64k,mode=0700 bpflab-spool-test "$spool"
cleanup_umount "$spool"
"$top/lab/lab" start-agent h1 --name "$LAB_NAME"
idle() { [ "$(sql "SELECT state FROM hosts WHERE name='h1'")" = idle ]; }
wait_for 30 idle || fail "h1 is not idle again after its restart"
head -c 1M /dev/zero > "$spool/filler" 2>/dev/null || true
check "the spool's tmpfs is full" test "$(df --output=avail -k "$spool" | tail -n 1 | tr -d ' ')" = 0

out=$("$bpflab" run submit "$plan" -s repeat=2)
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p')
check "run of 4 jobs on h1 ($out)" grep -q "4 jobs on 1 host" <<<"$out"
held() { grep -q "result (.* samples) not stored in the spool .* (No space left on device): holding it" "$log"; }
wait_for 60 held || fail "the agent did not say it holds a result (the first job never ended?)"
check "the agent holds the first result in memory" held
# a few heartbeats with the result held: nothing stored, nothing acknowledged, no new job
sleep 3
check "nothing of run $run stored while the spool is full" \
	test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state IN ('done', 'failed')")" = 0
check "no sample of run $run stored" \
	test "$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run")" = 0
check "one job running, the one held" \
	test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='running'")" = 1
check "no second job started on the agent" test "$(grep -c "job '.*' started" "$log")" = 1
check "and none offered to it (the held job counts as running)" \
	test "$(grep -c "refusing job" "$log")" = 0
check "the spool holds no result (nothing could be written)" \
	test -z "$(find "$spool" -name 'job-*' -print -quit)"

# space is back
rm -f "$spool/filler"
stored_again() { grep -q "result stored in the spool after [0-9]* ms held in memory" "$log"; }
wait_for 10 stored_again || fail "the held result was not stored within 10 s of space coming back"
ended() { state=$(sql "SELECT state FROM runs WHERE id=$run"); [ "$state" = done ] || [ "$state" = failed ]; }
wait_for 120 ended || true
check "run $run completes (state '$state')" test "$state" = done
check "its 4 jobs done" test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done' AND $planned")" = 4
check "every job done or failed with a reason" test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND
	NOT (state = 'done' OR (state = 'failed' AND ifnull(error, '') != ''))")" = 0
sent=$(grep -o "result job [0-9]*: [0-9]* samples" "$log" | awk '{ s += $4 } END { print s + 0 }')
stored=$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run")
check "samples stored ($stored) = samples the agent sent ($sent), not 0" test "$stored" = "$sent" -a "$sent" -gt 0
check "no sample stored twice" test "$stored" = \
	"$(sql "SELECT count(*) FROM (SELECT DISTINCT s.job_id, s.metric, s.subject, s.window, ifnull(s.seq, -1) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run)")"
spool_empty() { test -z "$(find "$spool" -name 'job-*' -print -quit)"; }
wait_for 10 spool_empty || true
check "every result acknowledged and dropped from the spool ($(ls "$spool"))" spool_empty
finish
