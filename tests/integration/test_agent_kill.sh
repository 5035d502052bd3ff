#!/bin/bash
# test_agent_kill.sh - SIGKILL an agent in the middle of a job. Its BPF program and link
# die with the process: nothing stays attached in its namespace (bpftool net show and ip
# link there). The coordinator marks the host gone after three missed heartbeats, the
# lost attempt is stored, and the job and the rest of the run move to the other host,
# which matched the plan (count 1): the run completes.
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
sleep 0.5
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
check "all 6 jobs done" test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done'")" = 6
check "host $victim is gone" test "$(sql "SELECT state FROM hosts WHERE name='$victim'")" = gone
attempts=$(sql "SELECT group_concat(h.name || ':' || a.outcome, ' ') FROM job_attempts a
	JOIN hosts h ON h.id = a.host_id WHERE a.job_id=${job:-0} ORDER BY a.attempt")
check "job $job: lost on $victim, then done on $other ($attempts)" \
	test "$attempts" = "$victim:lost $other:done"
check "the lost attempt says why" test "$(sql "SELECT error FROM job_attempts
	WHERE job_id=${job:-0} AND attempt=1")" = "the host went silent"
moved=$(sql "SELECT count(*) FROM jobs j JOIN hosts h ON h.id = j.host_id
	WHERE j.run_id=$run AND h.name='$other'")
check "the killed host's remaining jobs moved to $other ($moved of 6)" test "$moved" -ge 4
check "run_hosts records both matching hosts, $other chosen now" \
	test "$(sql "SELECT count(*) FROM run_hosts WHERE run_id=$run AND chosen=1")" = 2
grep -q "queued job.* moved to '$other'" "$BPFLAB_LAB_DIR/bpflabd.log" ||
	fail "bpflabd did not log the move"
finish
