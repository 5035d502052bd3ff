#!/bin/bash
# test_rate.sh - rate-controlled generators (traffic.rate, docs/plans.md) on a 1-host lab
# in a box: xdp-live at 100000 frames/s offers that rate (gen.offered_pps within 1 %) and
# port b receives it; a share of the veth's line rate (veth reports 10000 Mb/s) is turned
# into frames/s; a rate the generator cannot reach (XDP_PASS into the stack: on a veth
# the sender carries the receive path) gets `generator-bound` with the target and what
# was offered; a rate missed because the host kept the generator from its CPU says so
# (disturbed: held up), also when held up on purpose (a SCHED_FIFO loop of a higher
# priority on the generator's CPU, 30 ms of every 300, for 6 s); a rate no job held is run
# again, at most 5 times, 10 s apart; a rate above the line rate is refused at submit (FILE:LINE:COL,
# exit 2).
. "$(dirname "$0")/lib.sh"

lab_start 1
tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
cleanup_later "$tmp"

cat > "$tmp/rate.yaml" <<'YAML'
name: rate
ports: [a, b]
traffic:
  generator: xdp-live
  from: a
  packet: {size: 64}
  rate: 100000
  duration: 3s
  warmup: 1s
variants:
  drop:
    - {port: b, hook: xdp, mode: native, object: xdp_basic.bpf.o, program: xdp_drop}
metrics: [port.rx_pps, gen.tx_pps]
YAML

# RUN METRIC SUBJECT -> the whole rate window's value, one line per job (a disturbed
# repetition is measured again: the run then has two)
value() {
	sql "SELECT s.value FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$1
	     AND s.metric='$2' AND s.subject='$3' AND s.window='rate' AND s.seq IS NULL"
}
# RUN WANT: gen.offered_pps of port a within 1 % of WANT in at least one job, and every
# job either within it, generator-bound, or disturbed by hold-ups of the generator (a
# busy machine or the hypervisor can take the generator's CPU away for longer than its
# bucket holds: then the job must say the rate was missed and why; disturbed, it is
# measured again); each job records its hold-ups (gen.held, gen.held_ms)
# (with a third argument "held": not the first, a run held up on purpose)
held() {
	local of="FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$1
		  AND s.metric='gen.offered_pps' AND s.subject='a' AND s.seq IS NULL"
	local off="abs(s.value - $2) > 0.01 * $2"
	sql "SELECT j.id, s.value, j.verdicts, coalesce(json_extract(j.verdict_details, '$.disturbed'), ''),
	     (SELECT group_concat(h.metric || '=' || h.value, ' ') FROM samples h WHERE h.job_id = j.id
	      AND h.metric IN ('gen.held', 'gen.held_ms') AND h.subject='a' AND h.seq IS NULL)
	     $of" | sed 's/^/  job /' >&2
	[ "${3:-}" = held ] ||
		check "run $1: a job offered within 1 % of $2/s" \
			test "$(sql "SELECT count(*) $of AND NOT ($off)")" -ge 1
	check "run $1: every job offered within 1 % of $2/s, generator-bound or held up" \
		test "$(sql "SELECT count(*) $of AND $off AND j.verdicts NOT LIKE '%generator-bound%'
			     AND coalesce(json_extract(j.verdict_details, '$.disturbed'), '') NOT LIKE '%was held from its CPU%'")" = 0
	check "run $1: every job records its hold-ups (gen.held, gen.held_ms)" \
		test "$(sql "SELECT count(DISTINCT j.id) FROM samples s JOIN jobs j ON j.id = s.job_id
			     WHERE j.run_id=$1 AND s.metric IN ('gen.held', 'gen.held_ms')
			     AND s.subject='a'")" = "$(sql "SELECT count(*) FROM jobs WHERE run_id=$1 AND state='done'")"
}
# XDP_PASS on b: the stack's receive path, which on a veth runs in the sender's context,
# so xdp-live slows to what it takes (1 to 2 Mpps here): well below the line rate
sed 's/program: xdp_drop/program: xdp_pass/' "$tmp/rate.yaml" > "$tmp/pass.yaml"

# RATE [PLAN] -> the run's id, waited for
run_rate() {
	"$bpflab" run submit "${2:-$tmp/rate.yaml}" -s "traffic.rate=$1" --wait > "$tmp/out" 2>&1
	cat "$tmp/out" >&2
	sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' "$tmp/out" | head -n 1
}

# TRY: before a second try 10 s, so that what held the first has passed. What holds the
# generator in bursts of ~1 ms gaps for a third of a window now and then is the
# hypervisor: bench/pacing on an idle machine lost 30-34 % in 743-846 hold-ups while
# /proc/stat counted 1.0-1.1 s of steal on its CPU in 2 s, and a minute later -0.1 % with
# none (bench/README.md "pacing"); not the kernel's cleanup of labs gone before, as first
# thought. The agent calls such a job disturbed; the try after it measures again.
# Before each try, while the hypervisor steals 5 % or more of the CPUs (/proc/stat over
# 2 s), wait (at most 60 s): a window then would only be disturbed again.
steal_pct() {
	local a b
	a=$(awk '$1 == "cpu" { print $9, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat)
	sleep 2
	b=$(awk '$1 == "cpu" { print $9, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ");
		t = y[2] - x[2]; print (t > 0 ? int(100 * (y[1] - x[1]) / t) : 0) }'
}
settle() {
	local i=0 pct
	[ "$1" -gt 1 ] && sleep 10
	while pct=$(steal_pct) && [ "$pct" -ge 5 ] && [ $i -lt 60 ]; do i=$((i + 2)); done
	[ $i -gt 0 ] && echo "waited $i s for the hypervisor's steal to fall under 5 % (now ${pct} %)" >&2
	return 0
}

# RATE WANT -> the run's id: RATE run again (at most RATE_TRIES times, 5) while none of
# its jobs offered within 1 % of WANT (each says why: held up, or generator-bound when
# other work on a busy machine took its CPU in pieces too short to be hold-ups); the
# checks below then hold the last run to the rate
run_held() {
	local run try
	for try in $(seq "${RATE_TRIES:-5}"); do
		settle "$try"
		run=$(run_rate "$1")
		[ "$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id
			  WHERE j.run_id=$run AND s.metric='gen.offered_pps' AND s.subject='a'
			  AND s.seq IS NULL AND abs(s.value - $2) <= 0.01 * $2")" -ge 1 ] && break
		echo "rate $1: no job within 1 % (load $(cut -d' ' -f1-3 /proc/loadavg)): again" >&2
	done
	echo "$run"
}

# --- 100000 frames/s
run=$(run_held 100000 100000)
check "run at 100000/s done (run '$run')" test "$(sql "SELECT state FROM runs WHERE id=$run")" = done
offered=$(value "$run" gen.offered_pps a)
rx=$(value "$run" port.rx_pps b)
echo "rate 100000: gen.offered_pps" $offered "; port.rx_pps of b" $rx
held "$run" 100000
far=$(sql "SELECT count(*) FROM samples g JOIN samples r ON r.job_id = g.job_id JOIN jobs j
	ON j.id = g.job_id WHERE j.run_id=$run AND g.metric='gen.offered_pps' AND g.seq IS NULL
	AND r.metric='port.rx_pps' AND r.subject='b' AND r.window='rate' AND r.seq IS NULL
	AND abs(r.value - g.value) > 0.01 * g.value")
check "port b received within 1 % of what was offered, every job" test "$far" = 0
v=$(sql "SELECT group_concat(verdicts) FROM jobs WHERE run_id=$run AND verdicts NOT LIKE '%disturbed%'")
check "no generator-bound at a rate the generator holds undisturbed ($v)" bash -c "! grep -q generator-bound <<< '$v'"

# --- 1 % of the veth's 10000 Mb/s in 64-byte frames (+24 bytes on the wire): 142045/s
run=$(run_held 1% 142045)
echo "rate 1%: gen.offered_pps" $(value "$run" gen.offered_pps a)
held "$run" 142045

# --- held up on purpose: the generator pinned to the last CPU, where a SCHED_FIFO loop
# of priority 10 (the paced thread's is 1, agent/genboost.h) takes 30 ms of every 300 for
# 6 s (it ends by itself; killed at 10 s): about a tenth of the first job's rate window
# goes, in hold-ups of 30 ms. The job must say it was held (disturbed), not that the
# generator cannot reach the rate; it is measured again (the loop may hold that one too).
cpu=$(($(nproc) - 1))
if [ "$cpu" -lt 1 ]; then
	skip_check "a rate held up on purpose: one CPU, no other for the lab's own work"
else
	sed "s/^  from: a$/  from: a\n  cpus: [$cpu]/" "$tmp/rate.yaml" > "$tmp/pinned.yaml"
	timeout -s KILL 10 python3 - "$cpu" 6 <<'PY' &
import os, sys, time
cpu, secs = int(sys.argv[1]), float(sys.argv[2])
os.sched_setaffinity(0, {cpu})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
end = time.monotonic() + secs
while time.monotonic() < end:
    spin = time.monotonic() + 0.03
    while time.monotonic() < spin:
        pass
    time.sleep(0.27)
PY
	hog=$!
	run=$(run_rate 100000 "$tmp/pinned.yaml")
	wait "$hog"
	held "$run" 100000 held
	hjob=$(sql "SELECT j.id FROM samples s JOIN jobs j ON j.id = s.job_id WHERE j.run_id=$run
		    AND s.metric='gen.held_ms' AND s.subject='a' AND s.seq IS NULL AND s.value >= 100
		    ORDER BY j.id LIMIT 1")
	check "held on purpose: a job was held from its CPU 100 ms or more (job '$hjob')" \
		test -n "$hjob"
	hjob=${hjob:-0}
	check "... it says so: disturbed, the generator held from its CPU" \
		test "$(sql "SELECT count(*) FROM jobs WHERE id=$hjob AND verdicts LIKE '%disturbed%'
			     AND json_extract(verdict_details, '$.disturbed') LIKE '%was held from its CPU%'")" = 1
	check "... not generator-bound" \
		test "$(sql "SELECT count(*) FROM jobs WHERE id=$hjob AND verdicts LIKE '%generator-bound%'")" = 0
	check "... and is measured again: the run has another job" \
		test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done'")" -ge 2
fi

# --- beyond what the path lets xdp-live send, below the line rate (14.2 Mpps)
run=$(run_rate 14000000 "$tmp/pass.yaml")
check "run at 14 Mpps done" test "$(sql "SELECT state FROM jobs WHERE run_id=$run AND $planned")" = done
offered=$(value "$run" gen.offered_pps a)
v=$(sql "SELECT verdicts FROM jobs WHERE run_id=$run AND $planned")
d=$(sql "SELECT json_extract(verdict_details, '$.\"generator-bound\"') FROM jobs WHERE run_id=$run AND $planned")
echo "rate 14 Mpps: gen.offered_pps $offered; $v: $d"
check "an unreachable rate is generator-bound ($v)" grep -q generator-bound <<< "$v"
check "the detail names the target and what was offered ($d)" \
	grep -q "of the 14000000 asked for (traffic.rate)" <<< "$d"

# --- above the line rate of h1's port a: refused at submit as an invalid plan
runs_before=$(sql "SELECT count(*) FROM runs")
sed 's/rate: 100000/rate: 100000000/' "$tmp/rate.yaml" > "$tmp/fast.yaml"
rc=0
"$bpflab" run submit "$tmp/fast.yaml" 2> "$tmp/fast.err" >/dev/null || rc=$?
echo "rate 100 Mpps: $(cat "$tmp/fast.err")"
check "100 Mpps on a 10 Gb/s veth exits 2 (got $rc)" test "$rc" = 2
check "... at FILE:LINE:COLUMN, above the line rate of port 'a' on host 'h1'" \
	grep -q "$tmp/fast.yaml:7:9: traffic.rate: 100000000 frames/s is above the line rate of port 'a' on host 'h1'" "$tmp/fast.err"
check "... and stores no run" test "$(sql "SELECT count(*) FROM runs")" = "$runs_before"

# --- a bad rate in the plan: FILE:LINE:COLUMN, exit 2
sed 's/rate: 100000/rate: 150%/' "$tmp/rate.yaml" > "$tmp/bad.yaml"
rc=0
"$bpflab" run submit "$tmp/bad.yaml" 2> "$tmp/bad.err" >/dev/null || rc=$?
check "rate: 150% exits 2 (got $rc)" test "$rc" = 2
check "... with FILE:LINE:COLUMN ($(cat "$tmp/bad.err"))" grep -q "^$tmp/bad.yaml:7:9: traffic.rate" "$tmp/bad.err"
finish
