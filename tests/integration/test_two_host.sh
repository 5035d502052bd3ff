#!/bin/bash
# test_two_host.sh - issue 4, two-host plans: on a 2-host lab wired h1.x <-> h2.y,
# `bpflab link discover` finds exactly that link, and plans/two-host-forward.yaml runs
# over it with a barrier: the generator's tx on h1 and the DUT's rx on h2 are both > 0,
# rx <= tx, and the result names which host played which role; `run show` lists the
# attempts. Then the same plan with a DUT program the verifier refuses: that pair's DUT job
# fails naming the program, its generator job is aborted before any traffic, nothing stays
# attached and the other pair still runs. Then a pair whose generator host goes silent
# (its agent killed) before it is ready: the other side is told at once, both sides are
# queued again as a pair and run together once the host is back. Then an agent stopped
# (SIGSTOP) during the barrier, and one during the job: the surviving side is told at once
# (the time from gone to abort is measured from the logs), the run completes after SIGCONT,
# the stopped agent's stale job message or result is dropped, and nothing is stored twice.
# Then agents restarted quickly, before their host is declared gone (the DUT's at the
# barrier, the generator's during the job): the new hello tells the surviving side at once
# (measured from the logs), the pair is queued again together and the run completes.
# Last, a host that never comes back: the run ends failed with the reason after the pair's
# barrier (30 s), also when the coordinator restarts meanwhile. (The barrier timeout alone is in tests/unit/test_agent_pair.c.)
# Short durations; about 90 s in all, 30 s of it waiting for the host that does not return.
. "$(dirname "$0")/lib.sh"

lab_start 2
stopped=""
# a stopped agent is continued before the lab goes down, also when a check fails
trap 'rc=$?; set +e; for h in $stopped; do kill -CONT "$(agent_pid "$h")" 2>/dev/null; done
	(exit $rc); on_exit' EXIT

agent_pid() { cat "$BPFLAB_LAB_DIR/$1/agent.pid"; }
stop_agent() { kill -STOP "$(agent_pid "$1")"; stopped="$stopped $1"; }
cont_agent() { kill -CONT "$(agent_pid "$1")"; stopped=${stopped// $1/}; }
log_lines() { wc -l < "$BPFLAB_LAB_DIR/$1"; }
# restart_agent HOST: its agent killed (SIGKILL) and started again at once, as a crash and
# a supervisor would do. Not `lab kill-agent`, which waits until the dead process is
# reaped: that can take 2 s here, most of the 3 s after which the host is declared gone.
restart_agent() {
	local pidf="$BPFLAB_LAB_DIR/$1/agent.pid" pid
	pid=$(cat "$pidf")
	tr '\0' '\n' < "/proc/$pid/cmdline" > "${pidf%.pid}.cmdline"	# what start-agent runs
	kill -KILL "$pid"
	rm -f "$pidf"
	"$top/lab/lab" start-agent "$1" --name "$LAB_NAME"
}
# wait_line LOG MARK PATTERN SECONDS: the first line after line MARK of LOG matching PATTERN
wait_line() {
	local i line
	for ((i = 0; i < $4 * 10; i++)); do
		line=$(tail -n +"$(($2 + 1))" "$BPFLAB_LAB_DIR/$1" | grep -m1 -- "$3" || true)
		[ -n "$line" ] && { echo "$line"; return 0; }
		sleep 0.1
	done
}
no_line() { ! tail -n +"$(($2 + 1))" "$BPFLAB_LAB_DIR/$1" | grep -q -- "$3"; }	# LOG MARK PATTERN
ms_of() { date -d "${1%% *}" +%s%3N 2>/dev/null || echo 0; }	# a log line's time stamp

# restart_told WHEN HOST HOST_JOB SURVIVOR SURVIVOR_JOB MARK SURVIVOR_MARK: HOST's agent
# killed and started again at once; SURVIVOR is told within a second of the new hello,
# the abort names the restart, and HOST was never declared gone
restart_told() {
	local when=$1 host=$2 job=$3 surv=$4 sjob=$5 mark=$6 smark=$7 t0 hello told ms
	t0=$(date +%s%3N)
	restart_agent "$host"
	hello=$(wait_line bpflabd.log "$mark" "agent '$host' registered again" 10)
	told=$(wait_line "$surv/agent.log" "$smark" "job '$sjob': pair aborted" 10)
	echo "hello: $hello"; echo "told: $told"
	echo "$host's new hello $(($(ms_of "$hello") - t0)) ms after the kill (gone after 3000 ms silent)"
	ms=$(($(ms_of "$told") - $(ms_of "$hello")))
	check "$when: $surv is told $ms ms after the restarted $host's hello (< 1000)" \
		test -n "$hello" -a -n "$told" -a "$ms" -lt 1000
	check "the abort names the restart" \
		grep -q "pair aborted: job $job on '$host' was lost: its agent started again" <<<"$told"
	check "$host was not declared gone" no_line bpflabd.log "$mark" "agent '$host' gone"
}

# pair_ran_again RUN GEN_JOB DUT_JOB: the run completes, each pair done once, the broken
# pair lost on both sides and then done on both
pair_ran_again() {
	wait_run "$1" 60
	check "the run completes" [ "$(sql "SELECT state FROM runs WHERE id = $1")" = done ]
	check "each pair done once: 4 jobs done" [ "$(sql "SELECT count(*) FROM jobs WHERE run_id = $1 AND state = 'done' AND $planned")" = 4 ]
	check "the pair's attempts: lost on both, then done on both" \
		[ "$(attempts "$2") $(attempts "$3")" = "h1:lost h1:done h2:lost h2:done" ]
}

first_job() { sql "SELECT min(j.id) FROM jobs j JOIN hosts h ON h.id = j.host_id WHERE j.run_id = $1 AND h.name = '$2'"; }
wait_run() { # RUN SECONDS
	local i
	for ((i = 0; i < $2 * 4; i++)); do
		case $(sql "SELECT state FROM runs WHERE id = $1") in done|failed) return 0 ;; esac
		sleep 0.25
	done
}
# stored_once RUN: every job's samples are those of the last result its agent logged
# (an attempt given up left nothing), and no sample key is stored twice
stored_once() {
	local j h n sent stored distinct
	for j in $(sql "SELECT id FROM jobs WHERE run_id = $1"); do
		h=$(sql "SELECT h.name FROM jobs j JOIN hosts h ON h.id = j.host_id WHERE j.id = $j")
		sent=$(grep -o "result job $j: [0-9]* samples" "$BPFLAB_LAB_DIR/$h/agent.log" | tail -n 1 | awk '{ print $4 }')
		n=$(sql "SELECT count(*) FROM samples WHERE job_id = $j")
		check "run $1, job $j on $h: $n samples stored = ${sent:-?} in its agent's last result" [ "$n" = "${sent:-x}" ]
	done
	stored=$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id = $1")
	distinct=$(sql "SELECT count(*) FROM (SELECT DISTINCT s.job_id, s.metric, s.subject, s.window, ifnull(s.seq, -1) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id = $1)")
	check "run $1: no sample stored twice ($distinct distinct of $stored)" [ "$distinct" = "$stored" ]
}

out=$("$bpflab" link discover)
echo "$out"
links=$("$bpflab" -j link list)
check "discovery finds one link" [ "$(echo "$links" | jq 'length')" = 1 ]
check "the link is h1.x <-> h2.y" [ "$(echo "$links" | jq -r '.[0] | "\(.host_a).\(.port_a)-\(.host_b).\(.port_b)"')" = "h1.x-h2.y" ]
check "the link is stored" [ "$(sql "SELECT count(*) FROM links")" = 1 ]
# a second discovery replaces the first one's rows
"$bpflab" link discover >/dev/null
check "rediscovery replaces the links" [ "$(sql "SELECT count(*) FROM links")" = 1 ]

# 2 s windows: the two sides' snapshots may each be late by a scheduler's whim on a
# busy machine; over 2 s that moves the rates half as much as over 1 s
"$bpflab" run submit "$top/plans/two-host-forward.yaml" -s traffic.duration=2s \
	-s traffic.warmup=500ms --wait --timeout 60
run=$(sql "SELECT max(id) FROM runs")
check "run done" [ "$(sql "SELECT state FROM runs WHERE id = $run")" = done ]
check "four jobs, two per host" [ "$(sql "SELECT group_concat(n) FROM (SELECT count(*) n FROM jobs WHERE run_id = $run AND $planned GROUP BY host_id)")" = "2,2" ]
check "h1 is the generator, h2 the dut" [ "$(sql "SELECT group_concat(x, ' ') FROM (SELECT DISTINCT h.name || '=' || json_extract(s.text, '$.pair.role') x FROM jobs j JOIN hosts h ON h.id = j.host_id JOIN job_specs s ON s.id = j.spec_id WHERE j.run_id = $run ORDER BY 1)")" = "h1=generator h2=dut" ]
roles=$("$bpflab" -j result show "$run" | jq -r '[.hosts[] | "\(.name)=\(.role)"] | sort | join(" ")')
check "result names the roles ($roles)" [ "$roles" = "h1=generator h2=dut" ]
"$bpflab" result show "$run"

for v in drop pass; do
	tx=$(sql "SELECT s.value FROM samples s JOIN jobs j ON j.id = s.job_id JOIN hosts h ON h.id = j.host_id WHERE j.run_id = $run AND j.variant = '$v' AND h.name = 'h1' AND s.metric = 'gen.tx_pps' AND s.seq IS NULL")
	rx=$(sql "SELECT s.value FROM samples s JOIN jobs j ON j.id = s.job_id JOIN hosts h ON h.id = j.host_id WHERE j.run_id = $run AND j.variant = '$v' AND h.name = 'h2' AND s.metric = 'port.rx_pps' AND s.subject = 'y' AND s.seq IS NULL")
	echo "$v: generator h1 tx ${tx:-none} pps, dut h2 rx ${rx:-none} pps"
	check "$v: generator tx > 0 on h1" awk -v t="${tx:-0}" 'BEGIN { exit !(t > 0) }'
	check "$v: dut rx > 0 on h2" awk -v r="${rx:-0}" 'BEGIN { exit !(r > 0) }'
	check "$v: rx <= tx (within 5%: windows line up)" awk -v t="${tx:-0}" -v r="${rx:-0}" 'BEGIN { exit !(r <= t * 1.05) }'
done
check "the barrier said go twice" [ "$(grep -c 'ready: go' "$BPFLAB_LAB_DIR/bpflabd.log")" = 2 ]

# `run show` lists each job's attempts (host, outcome), in text and JSON
shown=$("$bpflab" run show "$run")
echo "$shown"
check "run show has an attempts table" grep -q '^attempts$' <<<"$shown"
check "run show: 4 attempts, all done" [ "$("$bpflab" -j run show "$run" | jq '[.attempts[] | select(.outcome == "done")] | length')" = 4 ]

# one side fails at prepare (the DUT's program is one the verifier refuses): both jobs of
# that pair fail, each with a clear error, the partner before any traffic; the other
# variant's pair still runs
badprog=$(mktemp /tmp/bpflab-two-host-XXXXXX.yaml)
cleanup_later "$badprog"
sed -e '/drop:/,/pass:/s/object: xdp_basic.bpf.o, program: xdp_drop/object: test_agent.bpf.o, program: xdp_bad/' \
	"$top/plans/two-host-forward.yaml" > "$badprog"
"$bpflab" run submit "$badprog" -s traffic.duration=1s -s traffic.warmup=500ms --wait \
	--timeout 60 || true
run2=$(sql "SELECT max(id) FROM runs")
check "run with a bad DUT program: failed" [ "$(sql "SELECT state FROM runs WHERE id = $run2")" = failed ]
dut_err=$(sql "SELECT j.error FROM jobs j JOIN hosts h ON h.id = j.host_id WHERE j.run_id = $run2 AND j.variant = 'drop' AND h.name = 'h2'")
gen_err=$(sql "SELECT j.error FROM jobs j JOIN hosts h ON h.id = j.host_id WHERE j.run_id = $run2 AND j.variant = 'drop' AND h.name = 'h1'")
echo "dut: $dut_err"; echo "generator: $gen_err"
check "the dut job names the program it could not load" grep -q "cannot load program 'xdp_bad'" <<<"$dut_err"
check "the generator job says its pair was aborted, and why" \
	grep -q "pair aborted: job [0-9]* on 'h2' failed: cannot load program 'xdp_bad'" <<<"$gen_err"
check "the generator sent nothing" [ "$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id = $run2 AND j.variant = 'drop' AND s.metric = 'gen.tx_pps'")" = 0 ]
check "the pass pair still ran" [ "$(sql "SELECT group_concat(state) FROM jobs WHERE run_id = $run2 AND variant = 'pass'")" = "done,done" ]
check "an abort went to the waiting side" grep -q "pair of job [0-9]* aborted" "$BPFLAB_LAB_DIR/bpflabd.log"
for h in h1 h2; do
	check "nothing left attached on $h" bash -c "! ip -n bpflab-$LAB_NAME-$h -d link show | grep -q 'prog/xdp'"
done

# a pair whose generator host goes silent before it is ready (its agent killed just before
# the submit, so the coordinator still counts it connected): its job message cannot be
# sent, once (nothing more goes to that agent until it says hello again, not one 'unsent'
# attempt per tick); when the host is declared gone (3 s) the DUT side is aborted at once,
# not at the end of its 30 s barrier, and queued again with it; when the host is back the
# pair runs together and the run completes
"$top/lab/lab" kill-agent h1 --name "$LAB_NAME"
t0=$(date +%s%3N)
"$bpflab" run submit "$top/plans/two-host-forward.yaml" -s traffic.duration=1s \
	-s traffic.warmup=500ms -s repeat=1 >/dev/null
run3=$(sql "SELECT max(id) FROM runs")
first_dut=$(first_job "$run3" h2)
first_gen=$(first_job "$run3" h1)
for _ in $(seq 1 60); do
	[ "$(sql "SELECT count(*) FROM job_attempts WHERE job_id = $first_dut AND outcome = 'lost'")" = 1 ] && break
	sleep 0.25
done
took=$(($(date +%s%3N) - t0))
check "the dut side was queued again $took ms after the submit (< 10 s; its barrier is 30 s)" \
	[ "$took" -lt 10000 ]
unsent=$(sql "SELECT count(*) FROM job_attempts WHERE job_id = $first_gen AND outcome = 'unsent'")
check "the killed agent's job was sent once, not every tick ($unsent unsent attempt)" [ "$unsent" -le 1 ]
"$top/lab/lab" start-agent h1 --name "$LAB_NAME"
att=$(sql "SELECT group_concat(h.name || ':' || a.outcome, ' ') FROM job_attempts a JOIN jobs j ON j.id = a.job_id JOIN hosts h ON h.id = a.host_id WHERE j.run_id = $run3 AND j.seq = (SELECT seq FROM jobs WHERE id = $first_dut) ORDER BY a.job_id, a.attempt")
echo "pair attempts: $att"
check "the dut side lost (queued again), no side failed ($att)" \
	bash -c "grep -q 'h2:lost' <<<'$att' && ! grep -q failed <<<'$att'"
check "the dut's attempt says why" grep -q "its pair was lost" <<<"$(sql "SELECT error FROM job_attempts WHERE job_id = $first_dut AND attempt = 1")"
wait_run "$run3" 30
check "the run completes once h1 is back" [ "$(sql "SELECT state FROM runs WHERE id = $run3")" = done ]
check "each pair ran together: 4 jobs done" [ "$(sql "SELECT count(*) FROM jobs WHERE run_id = $run3 AND state = 'done' AND $planned")" = 4 ]

# SIGSTOP the generator's agent just before a submit: the coordinator hands it its job
# message (it waits unread in the stopped process's socket) while the DUT side prepares
# and waits at its barrier. When h1 is declared gone the DUT side is told at once; on
# SIGCONT the agent drops the stale job message unread (the coordinator gave that attempt
# up) and says hello again, and the pair runs again together: nothing runs or is stored
# twice
mark=$(log_lines bpflabd.log); mark2=$(log_lines h2/agent.log)
stop_agent h1
"$bpflab" run submit "$top/plans/two-host-forward.yaml" -s traffic.duration=1s \
	-s traffic.warmup=500ms -s repeat=1 >/dev/null
run4=$(sql "SELECT max(id) FROM runs")
gen4=$(first_job "$run4" h1); dut4=$(first_job "$run4" h2)
gone=$(wait_line bpflabd.log "$mark" "agent 'h1' gone" 15)
told=$(wait_line h2/agent.log "$mark2" "job '$dut4': pair aborted" 15)
echo "gone: $gone"; echo "told: $told"
ms=$(($(ms_of "$told") - $(ms_of "$gone")))
check "barrier: the surviving side is told $ms ms after its partner's host is gone (< 1000)" \
	test -n "$gone" -a -n "$told" -a "$ms" -lt 1000
check "the abort names the lost job and host" \
	grep -q "pair aborted: job $gen4 on 'h1' was lost: its host went silent" <<<"$told"
cont_agent h1
wait_run "$run4" 60
check "the run completes after SIGCONT" [ "$(sql "SELECT state FROM runs WHERE id = $run4")" = done ]
check "h1's agent started job $gen4 once (the stale job message was dropped unread)" \
	[ "$(grep -c "job '$gen4' started" "$BPFLAB_LAB_DIR/h1/agent.log")" = 1 ]
check "the pair's attempts: lost on both, then done on both" \
	[ "$(attempts "$gen4") $(attempts "$dut4")" = "h1:lost h1:done h2:lost h2:done" ]
stored_once "$run4"

# SIGSTOP the DUT's agent during the job (after the go): when h2 is declared gone the
# generator, in the middle of its windows, is told at once and stops, failing without
# samples (half a pair); on SIGCONT h2's agent drops its session and discards the job that
# ran through the stop (were a result of it to come, the coordinator would drop it: the
# attempt was given up); the pair runs again and each job's samples come from that result
mark=$(log_lines bpflabd.log); mark1=$(log_lines h1/agent.log); mark2=$(log_lines h2/agent.log)
"$bpflab" run submit "$top/plans/two-host-forward.yaml" -s traffic.duration=3s \
	-s traffic.warmup=500ms -s repeat=1 >/dev/null
run5=$(sql "SELECT max(id) FROM runs")
gen5=$(first_job "$run5" h1); dut5=$(first_job "$run5" h2)
check "the pair got its go" test -n "$(wait_line bpflabd.log "$mark" "ready: go" 20)"
sleep 0.5
stop_agent h2
gone=$(wait_line bpflabd.log "$mark" "agent 'h2' gone" 15)
told=$(wait_line h1/agent.log "$mark1" "job '$gen5': pair aborted" 15)
echo "gone: $gone"; echo "told: $told"
ms=$(($(ms_of "$told") - $(ms_of "$gone")))
check "job: the surviving side is told $ms ms after its partner's host is gone (< 1000)" \
	test -n "$gone" -a -n "$told" -a "$ms" -lt 1000
for _ in $(seq 1 40); do
	[ "$(sql "SELECT outcome FROM job_attempts WHERE job_id = $gen5 AND attempt = 1")" = lost ] && break
	sleep 0.25
done
check "the generator stopped mid-job and was queued again, nothing stored of it" \
	[ "$(sql "SELECT count(*) FROM samples WHERE job_id = $gen5")/$(attempts "$gen5")" = "0/h1:lost" ]
cont_agent h2
wait_run "$run5" 60
check "the run completes after SIGCONT" [ "$(sql "SELECT state FROM runs WHERE id = $run5")" = done ]
# (the agent discards a job that ran through its stop; a result of it that still came
# would be dropped by the coordinator)
check "h2's stale job was discarded or dropped, not stored" \
	test -n "$(wait_line h2/agent.log "$mark2" "job '$dut5' ran through a stop of this agent" 1)$(wait_line bpflabd.log "$mark" "job $dut5: result from 'h2' .* dropped" 1)"
check "the pair's attempts: lost on both, then done on both" \
	[ "$(attempts "$gen5") $(attempts "$dut5")" = "h1:lost h1:done h2:lost h2:done" ]
stored_once "$run5"

# an agent restarted quickly (killed and started again before its host is declared gone:
# its new session's hello comes without the job the coordinator thought it ran). First
# h2, the DUT, at the barrier: it is stopped before the submit so that its job message
# waits unread while h1 prepares and waits for its go, then killed and started again. The
# new hello queues h2's job again and h1 is told at once (not at the end of its 30 s
# barrier, not 3 s later when h2 would have been declared gone); h2 gets no new attempt
# while h1's aborted one runs; both are queued again and run together
mark=$(log_lines bpflabd.log); mark1=$(log_lines h1/agent.log)
stop_agent h2
"$bpflab" run submit "$top/plans/two-host-forward.yaml" -s traffic.duration=1s \
	-s traffic.warmup=500ms -s repeat=1 >/dev/null
run_b=$(sql "SELECT max(id) FROM runs")
gen_b=$(first_job "$run_b" h1); dut_b=$(first_job "$run_b" h2)
check "h1 got its side ($gen_b), h2's ($dut_b) waits unread" \
	test -n "$(wait_line h1/agent.log "$mark1" "job '$gen_b' started" 10)" -a \
	"$(sql "SELECT count(*) FROM job_attempts WHERE job_id = $dut_b AND outcome = 'running'")" = 1
restart_told barrier h2 "$dut_b" h1 "$gen_b" "$mark" "$mark1"
stopped=${stopped// h2/}
pair_ran_again "$run_b" "$gen_b" "$dut_b"
check "h2 started job $dut_b once (the killed agent never read it)" \
	[ "$(grep -c "job '$dut_b' started" "$BPFLAB_LAB_DIR/h2/agent.log")" = 1 ]
stored_once "$run_b"

# then h1, the generator, killed and started again during the job (after the go): h2,
# in the middle of its windows, is told at once and stops, failing without samples; the
# pair runs again together
mark=$(log_lines bpflabd.log); mark2=$(log_lines h2/agent.log)
"$bpflab" run submit "$top/plans/two-host-forward.yaml" -s traffic.duration=3s \
	-s traffic.warmup=500ms -s repeat=1 >/dev/null
run_j=$(sql "SELECT max(id) FROM runs")
gen_j=$(first_job "$run_j" h1); dut_j=$(first_job "$run_j" h2)
check "the pair got its go" test -n "$(wait_line bpflabd.log "$mark" "ready: go" 20)"
sleep 0.5
restart_told job h1 "$gen_j" h2 "$dut_j" "$mark" "$mark2"
pair_ran_again "$run_j" "$gen_j" "$dut_j"
stored_once "$run_j"

# a host that never comes back (its agent killed, not restarted): the pair waits for it in
# the queue at most its barrier (30 s) after the host is gone, then both sides fail with
# the reason; the run ends failed; the killed agent's job was sent at most once
mark=$(log_lines bpflabd.log)
"$top/lab/lab" kill-agent h1 --name "$LAB_NAME"
t0=$(date +%s%3N)
"$bpflab" run submit "$top/plans/two-host-forward.yaml" -s traffic.duration=1s \
	-s traffic.warmup=500ms -s repeat=1 >/dev/null
run6=$(sql "SELECT max(id) FROM runs")
gen6=$(first_job "$run6" h1); dut6=$(first_job "$run6" h2)
wait_run "$run6" 60
took=$(($(date +%s%3N) - t0))
check "the run ends failed $took ms after the submit (3 s to gone + 30 s)" \
	test "$(sql "SELECT state FROM runs WHERE id = $run6")" = failed -a "$took" -lt 45000
gen_err=$(sql "SELECT error FROM jobs WHERE id = $gen6"); dut_err=$(sql "SELECT error FROM jobs WHERE id = $dut6")
echo "generator: $gen_err"; echo "dut: $dut_err"
check "the lost side says why" grep -q "its host 'h1' went silent and was not back within 30000 ms" <<<"$gen_err"
check "its partner says why" grep -q "pair aborted: job $gen6 on 'h1' failed: its host 'h1' went silent" <<<"$dut_err"
check "all 4 jobs failed" [ "$(sql "SELECT count(*) FROM jobs WHERE run_id = $run6 AND state = 'failed'")" = 4 ]
check "the killed agent's job was tried at most once ($(attempts "$gen6"))" \
	[ "$(sql "SELECT count(*) FROM job_attempts WHERE job_id = $gen6")" -le 1 ]

# the same after a coordinator restart: h1 is killed with the coordinator in the middle of
# a run and never says hello to the new one; its queued pair jobs wait at most their
# barrier from the restart, then fail with the reason, and the run ends failed
mark=$(log_lines bpflabd.log)
"$top/lab/lab" start-agent h1 --name "$LAB_NAME"
check "h1 is back" test -n "$(wait_line bpflabd.log "$mark" "agent 'h1' .*host" 15)"
"$bpflab" run submit "$top/plans/two-host-forward.yaml" -s traffic.duration=1s \
	-s traffic.warmup=500ms -s repeat=2 >/dev/null
run7=$(sql "SELECT max(id) FROM runs")
for ((i = 0; i < 100; i++)); do
	[ "$(sql "SELECT count(*) FROM jobs WHERE run_id = $run7 AND state = 'running'")" -gt 0 ] && break
	sleep 0.1
done
"$top/lab/lab" kill-coordinator --name "$LAB_NAME"
"$top/lab/lab" kill-agent h1 --name "$LAB_NAME"
mark=$(log_lines bpflabd.log)
"$top/lab/lab" start-coordinator --name "$LAB_NAME"
t0=$(date +%s%3N)
wait_run "$run7" 60
took=$(($(date +%s%3N) - t0))
check "after the restart the run ends failed $took ms later (30 s barrier, < 45 s)" \
	test "$(sql "SELECT state FROM runs WHERE id = $run7")" = failed -a "$took" -lt 45000
check "h1's queued sides say why" [ "$(sql "SELECT count(*) FROM jobs j JOIN hosts h ON h.id = j.host_id WHERE j.run_id = $run7 AND h.name = 'h1' AND j.state = 'failed' AND j.error LIKE '%its host ''h1'' went silent and was not back within 30000 ms%'")" -ge 1 ]
check "nothing of the run is left queued or running" \
	[ "$(sql "SELECT count(*) FROM jobs WHERE run_id = $run7 AND state IN ('queued', 'running')")" = 0 ]
sql "SELECT j.id, h.name, j.state, j.error FROM jobs j JOIN hosts h ON h.id = j.host_id WHERE j.run_id = $run7"

# a plan whose link (a to b) no discovery found between two hosts is refused, clearly
bad=$(mktemp /tmp/bpflab-two-host-XXXXXX.yaml)
cleanup_later "$bad"
sed -e 's/link: {generator: x, dut: y}/link: {generator: a, dut: b}/' -e 's/ports: \[x, y\]/ports: [a, b]/' \
	-e 's/from: x/from: a/' -e 's/port: y/port: b/' "$top/plans/two-host-forward.yaml" > "$bad"
err=$("$bpflab" run submit "$bad" 2>&1 || true)
echo "$err"
check "no fitting link is an error" grep -q "no discovered link fits plan" <<<"$err"
check "and nothing was stored" [ "$(sql "SELECT count(*) FROM runs")" = "$run7" ]
finish
