#!/bin/bash
# test_agent_kill.sh - SIGKILL an agent in the middle of a job. Its BPF program and link
# die with the process: nothing stays attached in its namespace (bpftool net show and ip
# link there). The coordinator marks the host gone after three missed heartbeats, the
# lost attempt is stored, and the job and the rest of the run move to the other host,
# which matched the plan (count 1): the run completes. Then the same with SIGSTOP: the run
# completes on the other host, and when the stopped agent wakes what it still holds of the
# moved job is cancelled and dropped, so the job's samples are stored once.
. "$(dirname "$0")/lib.sh"

plan="$top/tests/data/plans/faults.yaml"
lab_start 2
ns_of() { echo "bpflab-$LAB_NAME-$1"; }
attached() { # HOST: what is attached to its ports (XDP or tc), per bpftool and ip
	ip netns exec "$(ns_of "$1")" bpftool net show 2>/dev/null | grep -E "port-[abcd]" || true
	ip -n "$(ns_of "$1")" -d link show 2>/dev/null | grep -E "prog/xdp" || true
}

out=$("$bpflab" run submit "$plan" -s hosts.count=1 -s repeat=3)
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p')
check "run of 6 jobs on one host ($out)" grep -q "6 jobs on 1 host" <<<"$out"
victim=$(printf '%s\n' "$out" | sed -n 's/.*(\(h[0-9]\))$/\1/p')
other=$([ "$victim" = h1 ] && echo h2 || echo h1)

# wait until the second job has a program attached on the victim, then kill its agent
for ((i = 0; i < 100; i++)); do
	[ "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done'")" -ge 1 ] &&
		[ -n "$(attached "$victim")" ] && break
	sleep 0.1
done
before=$(attached "$victim")
check "a program is attached on $victim before the kill" test -n "$before"
job=$(sql "SELECT id FROM jobs WHERE run_id=$run AND state='running'")
"$top/lab/lab" kill-agent "$victim" --name "$LAB_NAME"
# the links go with the process's files, released a moment after it exits
for ((i = 0; i < 50; i++)); do
	[ -z "$(attached "$victim")" ] && break
	sleep 0.1
done
after=$(attached "$victim")
check "nothing attached on $victim after SIGKILL (before: $(echo $before))" test -z "$after"
check "no bpflab-agent left in $victim's namespace" \
	test -z "$(ip netns pids "$(ns_of "$victim")" 2>/dev/null)"

# the run completes on the other host
for ((i = 0; i < 300; i++)); do
	state=$(sql "SELECT state FROM runs WHERE id=$run")
	[ "$state" = done ] || [ "$state" = failed ] && break
	sleep 0.1
done
check "run completes (state '$state')" test "$state" = done
check "the plan's 6 jobs done" test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done' AND $planned")" = 6
check "host $victim is gone" test "$(sql "SELECT state FROM hosts WHERE name='$victim'")" = gone
att=$(attempts "$job")
check "job $job: lost on $victim, then done on $other ($att)" test "$att" = "$victim:lost $other:done"
check "the lost attempt says why" test "$(sql "SELECT error FROM job_attempts
	WHERE job_id=${job:-0} AND attempt=1")" = "the host went silent"
moved=$(sql "SELECT count(*) FROM jobs j JOIN hosts h ON h.id = j.host_id
	WHERE j.run_id=$run AND h.name='$other'")
check "the killed host's remaining jobs moved to $other ($moved of 6)" test "$moved" -ge 4
check "run_hosts records both matching hosts, $other chosen now" \
	test "$(sql "SELECT count(*) FROM run_hosts WHERE run_id=$run AND chosen=1")" = 2
grep -q "queued job.* moved to '$other'" "$BPFLAB_LAB_DIR/bpflabd.log" ||
	fail "bpflabd did not log the move"

# SIGSTOP instead of SIGKILL: the stopped agent is declared gone, its job and run move to
# the other host and complete there. On SIGCONT the agent finds its session given up
# (no replay of what waited on its socket) and discards the job that ran through the stop
# (its windows measured a stopped process): the job's samples are those of the other
# host's result, stored once
"$top/lab/lab" start-agent "$victim" --name "$LAB_NAME"
for ((i = 0; i < 100; i++)); do
	[ "$(sql "SELECT state FROM hosts WHERE name='$victim'")" = idle ] && break
	sleep 0.1
done
mark=$(wc -l < "$BPFLAB_LAB_DIR/bpflabd.log")
out=$("$bpflab" run submit "$plan" -s hosts.count=1 -s repeat=3 -s traffic.duration=2s)
run2=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p')
victim=$(printf '%s\n' "$out" | sed -n 's/.*(\(h[0-9]\))$/\1/p')
other=$([ "$victim" = h1 ] && echo h2 || echo h1)
for ((i = 0; i < 100; i++)); do
	[ "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run2 AND state='running'")" = 1 ] && break
	sleep 0.1
done
vpid=$(cat "$BPFLAB_LAB_DIR/$victim/agent.pid")
trap 'rc=$?; set +e; kill -CONT "$vpid" 2>/dev/null; (exit $rc); on_exit' EXIT
kill -STOP "$vpid"
sleep 0.2	# a result sent just before the stop is in
job=$(sql "SELECT id FROM jobs WHERE run_id=$run2 AND state='running'")
for ((i = 0; i < 300; i++)); do
	state=$(sql "SELECT state FROM runs WHERE id=$run2")
	[ "$state" = done ] || [ "$state" = failed ] && break
	sleep 0.1
done
check "stopped: the run completes on $other (state '$state')" test "$state" = done
kill -CONT "$vpid"
# the agent discards the job that ran through its stop (a result of it that still came
# would be dropped or acknowledged as a duplicate by the coordinator)
for ((i = 0; i < 100; i++)); do
	grep -q "job '$job' ran through a stop of this agent" "$BPFLAB_LAB_DIR/$victim/agent.log" && break
	sleep 0.1
done
grep "job '$job' ran through\|dropping what it sent before" "$BPFLAB_LAB_DIR/$victim/agent.log" || true
check "the woken agent discarded job $job (its windows ran through the stop)" \
	grep -q "job '$job' ran through a stop of this agent: its result" "$BPFLAB_LAB_DIR/$victim/agent.log"
check "and sent no result of it" \
	bash -c "! tail -n +$((mark + 1)) '$BPFLAB_LAB_DIR/bpflabd.log' | grep -q \"job $job: result from '$victim'\""
att=$(attempts "$job")
check "job $job: lost on $victim, then done on $other ($att)" test "$att" = "$victim:lost $other:done"
sent=$(grep -o "result job $job: [0-9]* samples" "$BPFLAB_LAB_DIR/$other/agent.log" | tail -n 1 | awk '{ print $4 }')
stored=$(sql "SELECT count(*) FROM samples WHERE job_id=${job:-0}")
check "job $job: its samples are the $other result's ($stored stored, ${sent:-?} sent)" test "$stored" = "${sent:-x}"
check "job $job: measured on $other" test "$(sql "SELECT h.name FROM jobs j JOIN host_envs e ON e.id = j.env_id JOIN hosts h ON h.id = e.host_id WHERE j.id=${job:-0}")" = "$other"
check "the run's samples: none stored twice" test "$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run2")" = \
	"$(sql "SELECT count(*) FROM (SELECT DISTINCT s.job_id, s.metric, s.subject, s.window, ifnull(s.seq, -1) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run2)")"
finish
