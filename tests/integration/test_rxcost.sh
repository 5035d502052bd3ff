#!/bin/bash
# test_rxcost.sh - rx.ns_per_frame (docs/agent.md, "Metrics") on a 1-host lab in a box,
# wall timing, veth: the quickstart variants with the metric listed. Every job has a
# positive figure for port b (and for port a, which receives tx's bounced frames), its
# frames agree with the port's received frames (rx_packets, same window) within a few
# percent, a plan without it gets no rx.* figure, and no tracepoint program stays
# loaded after the jobs.
. "$(dirname "$0")/lib.sh"

lab_start 1
tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
cleanup_later "$tmp"

sed -e 's/^metrics: .*/metrics: [port.rx_pps, rx.ns_per_frame]/' -e 's/^repeat: 3/repeat: 2/' \
	"$top/plans/quickstart.yaml" > "$tmp/rx.yaml"
check "plan check accepts rx.ns_per_frame" "$bpflab" plan check "$tmp/rx.yaml"
out=$("$bpflab" run submit "$tmp/rx.yaml" -s traffic.duration=1s -s traffic.warmup=500ms --wait)
echo "$out"
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "run submitted and waited for (run '$run')" test -n "$run"
check "run is done" test "$(sql "SELECT state FROM runs WHERE id=$run")" = done
"$bpflab" result show "$run" --all-rows > "$tmp/table.txt"
cat "$tmp/table.txt"

val() { # JOB METRIC SUBJECT: the whole-window value
	sql "SELECT value FROM samples WHERE job_id=$1 AND metric='$2' AND subject='$3'
		AND window='rate' AND seq IS NULL"
}
jobs=$(sql "SELECT id || ':' || variant FROM jobs WHERE run_id=$run AND state='done'")
check "jobs ran ($(echo $jobs))" test -n "$jobs"
for jv in $jobs; do
	j=${jv%%:*}; v=${jv#*:}
	ports=b; [ "$v" = tx ] && ports="b a"
	for p in $ports; do
		ns=$(val "$j" rx.ns_per_frame "$p"); frames=$(val "$j" rx.frames "$p")
		polls=$(val "$j" rx.polls "$p"); pf=$(val "$j" rx.port_frames "$p")
		echo "job $j ($v) port $p: rx.ns_per_frame $ns, rx.frames $frames, rx.polls $polls, rx.port_frames $pf"
		check "job $j ($v): rx.ns_per_frame of $p is positive ($ns)" \
			awk -v x="$ns" 'BEGIN { exit !(x != "" && x > 0 && x < 1e6) }'
		check "job $j ($v): rx.polls of $p is positive, at most rx.frames ($polls, $frames)" \
			awk -v p="$polls" -v f="$frames" 'BEGIN { exit !(p > 0 && p <= f) }'
		# the port's rx_packets between the same two reads
		check "job $j ($v): rx.frames of $p within 3% of port $p's received frames ($frames vs $pf)" \
			awk -v f="$frames" -v r="$pf" 'BEGIN { exit !(r > 0 && f / r > 0.97 && f / r < 1.03) }'
	done
	persec=$(sql "SELECT count(*) FROM samples WHERE job_id=$j AND metric='rx.ns_per_frame'
		AND subject='b' AND seq IS NOT NULL AND value > 0")
	check "job $j ($v): a per-second rx.ns_per_frame ($persec)" test "$persec" -ge 1
done
drop=$(sql "SELECT avg(s.value) FROM samples s JOIN jobs j ON j.id=s.job_id WHERE j.run_id=$run
	AND j.variant='drop' AND s.metric='rx.ns_per_frame' AND s.subject='b' AND s.seq IS NULL")
pass=$(sql "SELECT avg(s.value) FROM samples s JOIN jobs j ON j.id=s.job_id WHERE j.run_id=$run
	AND j.variant='pass' AND s.metric='rx.ns_per_frame' AND s.subject='b' AND s.seq IS NULL")
echo "mean rx.ns_per_frame of b: drop $drop, pass $pass"
check "XDP_PASS (the stack) costs more per frame than XDP_DROP" \
	awk -v d="$drop" -v p="$pass" 'BEGIN { exit !(p > d) }'
check "the table shows rx.ns_per_frame" grep -q "^rx.ns_per_frame " "$tmp/table.txt"
check "the default table keeps the records out" \
	bash -c "! '$bpflab' result show $run | grep -q '^rx.frames '"

# not listed: not measured (its tracepoints cost every poll something)
out=$("$bpflab" run submit "$top/plans/quickstart.yaml" -s repeat=1 -s traffic.duration=1s \
	-s traffic.warmup=500ms --wait)
run2=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
n=$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id=s.job_id WHERE j.run_id=$run2
	AND s.metric LIKE 'rx.%' AND s.metric != 'rx.cpu'")
check "a plan without rx.ns_per_frame has no rx.* samples ($n)" test "$n" = 0

# no rxpath program (rxp_*) held by this lab's agents: the prog_id of each of their bpf
# fds and links (/proc/PID/fdinfo), so other labs' agents on the machine do not count
no_rxpath() {
	local ids held pid
	ids=$(bpftool prog show -j 2>/dev/null | python3 -c 'import json, sys
print(" ".join(str(p["id"]) for p in json.load(sys.stdin) if p.get("name", "").startswith("rxp_")))')
	[ -n "$ids" ] || return 0
	held=$(for pid in $(cat "$BPFLAB_LAB_DIR"/h*/agent.pid 2>/dev/null); do
		sed -n 's/^prog_id:[[:space:]]*//p' /proc/"$pid"/fdinfo/* 2>/dev/null; done)
	for id in $ids; do
		! printf '%s\n' "$held" | grep -qx "$id" || return 1
	done
}
check "the lab's agent runs (its fds are what the next check reads)" \
	test -d "/proc/$(cat "$BPFLAB_LAB_DIR/h1/agent.pid" 2>/dev/null)/fdinfo"
wait_for 10 no_rxpath || true
check "no rxpath program is held by the lab's agents after the jobs" no_rxpath
finish
