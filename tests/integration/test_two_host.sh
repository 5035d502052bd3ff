#!/bin/bash
# test_two_host.sh - issue 4, two-host plans: on a 2-host lab wired h1.x <-> h2.y,
# `bpflab link discover` finds exactly that link, and plans/two-host-forward.yaml runs
# over it with a barrier: the generator's tx on h1 and the DUT's rx on h2 are both > 0,
# rx <= tx, and the result names which host played which role; `run show` lists the
# attempts. Then the same plan with a DUT program the verifier refuses: that pair's DUT job
# fails naming the program, its generator job is aborted before any traffic, nothing stays
# attached and the other pair still runs. Then a pair whose generator host goes silent
# (its agent killed) before it is ready: both sides are queued again as a pair and run together
# once the host is back. (The barrier timeout alone is in tests/unit/test_agent_pair.c.)
# Short durations; about 55 s in all, 30 s of it the DUT's barrier.
. "$(dirname "$0")/lib.sh"

lab_start 2

out=$("$bpflab" link discover)
echo "$out"
links=$("$bpflab" -j link list)
check "discovery finds one link" [ "$(echo "$links" | jq '.links | length')" = 1 ]
check "the link is h1.x <-> h2.y" [ "$(echo "$links" | jq -r '.links[0] | "\(.host_a).\(.port_a)-\(.host_b).\(.port_b)"')" = "h1.x-h2.y" ]
check "the link is stored" [ "$(sql "SELECT count(*) FROM links")" = 1 ]
# a second discovery replaces the first one's rows
"$bpflab" link discover >/dev/null
check "rediscovery replaces the links" [ "$(sql "SELECT count(*) FROM links")" = 1 ]

"$bpflab" run submit "$top/plans/two-host-forward.yaml" -s traffic.duration=1s \
	-s traffic.warmup=500ms --wait --timeout 60
run=$(sql "SELECT max(id) FROM runs")
check "run done" [ "$(sql "SELECT state FROM runs WHERE id = $run")" = done ]
check "four jobs, two per host" [ "$(sql "SELECT group_concat(n) FROM (SELECT count(*) n FROM jobs WHERE run_id = $run GROUP BY host_id)")" = "2,2" ]
check "h1 is the generator, h2 the dut" [ "$(sql "SELECT group_concat(x, ' ') FROM (SELECT DISTINCT h.name || '=' || json_extract(j.spec, '$.pair.role') x FROM jobs j JOIN hosts h ON h.id = j.host_id WHERE j.run_id = $run ORDER BY 1)")" = "h1=generator h2=dut" ]
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
# the submit, so the coordinator still counts it connected): that side is lost and
# queued again; the DUT side gives up at its barrier (30 s) and is queued again with it;
# when the host is back, the pair runs together and the run completes
# (SIGKILL, not SIGSTOP: a stopped agent would run the stale job message on waking)
"$top/lab/lab" kill-agent h1 --name "$LAB_NAME"
"$bpflab" run submit "$top/plans/two-host-forward.yaml" -s traffic.duration=1s \
	-s traffic.warmup=500ms -s repeat=1 >/dev/null
run3=$(sql "SELECT max(id) FROM runs")
first_dut=$(sql "SELECT min(j.id) FROM jobs j JOIN hosts h ON h.id = j.host_id WHERE j.run_id = $run3 AND h.name = 'h2'")
for _ in $(seq 1 90); do
	[ "$(sql "SELECT count(*) FROM job_attempts WHERE job_id = $first_dut AND outcome = 'lost'")" = 1 ] && break
	sleep 0.5
done
"$top/lab/lab" start-agent h1 --name "$LAB_NAME"
att=$(sql "SELECT group_concat(h.name || ':' || a.outcome, ' ') FROM job_attempts a JOIN jobs j ON j.id = a.job_id JOIN hosts h ON h.id = a.host_id WHERE j.run_id = $run3 AND j.seq = (SELECT seq FROM jobs WHERE id = $first_dut) ORDER BY a.job_id, a.attempt")
echo "pair attempts: $att"
check "the dut side lost (queued again), no side failed ($att)" \
	bash -c "grep -q 'h2:lost' <<<'$att' && ! grep -q failed <<<'$att'"
check "the dut's attempt says why" grep -q "its pair was lost" <<<"$(sql "SELECT error FROM job_attempts WHERE job_id = $first_dut AND attempt = 1")"
for _ in $(seq 1 60); do
	case $(sql "SELECT state FROM runs WHERE id = $run3") in done|failed) break ;; esac
	sleep 0.5
done
check "the run completes once h1 is back" [ "$(sql "SELECT state FROM runs WHERE id = $run3")" = done ]
check "each pair ran together: 4 jobs done" [ "$(sql "SELECT count(*) FROM jobs WHERE run_id = $run3 AND state = 'done'")" = 4 ]

# a plan whose link (a to b) no discovery found between two hosts is refused, clearly
bad=$(mktemp /tmp/bpflab-two-host-XXXXXX.yaml)
cleanup_later "$bad"
sed -e 's/link: {generator: x, dut: y}/link: {generator: a, dut: b}/' -e 's/ports: \[x, y\]/ports: [a, b]/' \
	-e 's/from: x/from: a/' -e 's/port: y/port: b/' "$top/plans/two-host-forward.yaml" > "$bad"
err=$("$bpflab" run submit "$bad" 2>&1 || true)
echo "$err"
check "no fitting link is an error" grep -q "no discovered link fits plan" <<<"$err"
check "and nothing was stored" [ "$(sql "SELECT count(*) FROM runs")" = 3 ]
finish
