#!/bin/bash
# test_bigrun.sh - a big import through bpflabd does not stall it (issue 23): on a lab
# of one host, `bpflab result import` of a CSV of 40,000 jobs (one run) goes through the
# real bpflabd while `bpflab --timeout 2 run list` is asked again and again, and h1's
# agent keeps its heartbeats. Every run list must be answered within 2 s, the agent must
# never find the coordinator silent (its log's "silent for" line, after 3 s) nor be
# given up, and the run must be stored whole and done. Before the import was written in
# parts off the loop's clock, the loop was busy for the whole import (32 s).
. "$(dirname "$0")/lib.sh"

lab_start 1
tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
cleanup_later "$tmp"
n=40000
awk -v n=$n 'BEGIN { print "variant,prog,set,value";
	for (i = 0; i < n; i++) printf "v%d,xdp_p,1,%d.5\n", i, 100 + i % 50 }' >"$tmp/big.csv"
check "h1 is connected before the import" \
	wait_for 30 sh -c "test \"\$(sqlite3 -batch -noheader '$LAB_DB' \"SELECT state FROM hosts WHERE name = 'h1'\")\" = idle"
agent_log="$BPFLAB_LAB_DIR/h1/agent.log"
silent_before=$(grep -c "silent for" "$agent_log" || true)

"$bpflab" result import "$tmp/big.csv" --plan big >"$tmp/import.out" 2>&1 &
imp=$!
lists=0 late=0 worst=0
while kill -0 $imp 2>/dev/null; do
	t0=$(date +%s%N)
	if "$bpflab" --timeout 2 run list >/dev/null 2>>"$tmp/list.err"; then
		lists=$((lists + 1))
	else
		late=$((late + 1))
	fi
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $ms -le $worst ] || worst=$ms
	sleep 0.1
done
rc=0
wait $imp || rc=$?
echo "import: $(cat "$tmp/import.out"); run list answered $lists times, worst $worst ms, $late late"
check "the import through bpflabd succeeds" test $rc = 0
check "the run holds $n jobs, done" test "$(sql "SELECT count(*) || ' ' || r.state FROM jobs j
	JOIN runs r ON r.id = j.run_id WHERE r.plan_file = '$tmp/big.csv'")" = "$n done"
check "run list answered within 2 s throughout ($lists times, worst $worst ms)" \
	test $late = 0 -a $lists -ge 1
check "h1's agent never found the coordinator silent" \
	test "$(grep -c "silent for" "$agent_log" || true)" = "$silent_before"
check "h1 was not given up" test "$(sql "SELECT state FROM hosts WHERE name = 'h1'")" = idle
finish
