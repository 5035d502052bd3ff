#!/bin/bash
# test_two_host.sh - issue 4, two-host plans: on a 2-host lab wired h1.x <-> h2.y,
# `bpflab link discover` finds exactly that link, and plans/two-host-forward.yaml runs
# over it with a barrier: the generator's tx on h1 and the DUT's rx on h2 are both > 0,
# rx <= tx, and the result names which host played which role. Short durations.
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

# a plan whose link (a to b) no discovery found between two hosts is refused, clearly
bad=$(mktemp /tmp/bpflab-two-host-XXXXXX.yaml)
cleanup_later "$bad"
sed -e 's/link: {generator: x, dut: y}/link: {generator: a, dut: b}/' -e 's/ports: \[x, y\]/ports: [a, b]/' \
	-e 's/from: x/from: a/' -e 's/port: y/port: b/' "$top/plans/two-host-forward.yaml" > "$bad"
err=$("$bpflab" run submit "$bad" 2>&1 || true)
echo "$err"
check "no fitting link is an error" grep -q "no discovered link fits plan" <<<"$err"
check "and nothing was stored" [ "$(sql "SELECT count(*) FROM runs")" = 1 ]
finish
