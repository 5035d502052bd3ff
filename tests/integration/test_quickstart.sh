#!/bin/bash
# test_quickstart.sh - the demo path on a 2-host lab in a box: a plan goes from the CLI
# through bpflabd to both agents, XDP programs run on real veth ports, samples land in
# SQLite and come back as the result table. Also: bad plans are refused with
# FILE:LINE:COLUMN and exit 2 and store nothing; every sample traces back to plan text,
# host, kernel and variant; nothing is left behind after the lab goes down.
. "$(dirname "$0")/lib.sh"

lab_start 2
tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
cleanup_later "$tmp"

# --- bad plans: refused whole, exit 2, FILE:LINE:COLUMN, nothing stored
plans_before=$(sql "SELECT count(*) FROM plans")
runs_before=$(sql "SELECT count(*) FROM runs")
cp "$top/plans/quickstart.yaml" "$tmp/good.yaml"
sed 's/^ports: \[a, b\]/ports: [a, b/' "$tmp/good.yaml" > "$tmp/bad-yaml.yaml"
sed 's/^repeat: 3/repet: 3/' "$tmp/good.yaml" > "$tmp/bad-key.yaml"
sed 's/size: 64/size: sixty-four/' "$tmp/good.yaml" > "$tmp/bad-type.yaml"
sed 's/program: xdp_tx}/program: xdp_nonesuch}/' "$tmp/good.yaml" > "$tmp/bad-prog.yaml"
for bad in bad-yaml bad-key bad-type bad-prog; do
	rc=0
	"$bpflab" run submit "$tmp/$bad.yaml" 2> "$tmp/$bad.err" >/dev/null || rc=$?
	check "$bad: exit status 2 (got $rc)" test "$rc" = 2
	check "$bad: message is FILE:LINE:COLUMN: ... ($(head -c 200 "$tmp/$bad.err"))" \
		grep -Eq "^$tmp/$bad.yaml:[0-9]+:[0-9]+: " "$tmp/$bad.err"
done
check "unknown program message names it" grep -q "xdp_nonesuch" "$tmp/bad-prog.err"
check "unknown key message names it" grep -q "repet" "$tmp/bad-key.err"
check "bad plans stored no plan" test "$(sql "SELECT count(*) FROM plans")" = "$plans_before"
check "bad plans stored no run" test "$(sql "SELECT count(*) FROM runs")" = "$runs_before"

# --- the quickstart plan, shortened
out=$("$bpflab" run submit "$top/plans/quickstart.yaml" \
	-s traffic.duration=1s -s traffic.warmup=500ms --wait)
echo "$out"
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "run submitted and waited for (run '$run')" test -n "$run"
check "18 jobs (3 variants x 3 reps x 2 hosts), all done" \
	test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done' AND $planned")" = 18
check "run is done" test "$(sql "SELECT state FROM runs WHERE id=$run")" = done

# jobs of one host ran in interleaved order: drop pass tx drop pass tx ...
order=$(sql "SELECT group_concat(variant, ' ') FROM (SELECT j.variant FROM jobs j
	JOIN hosts h ON h.id = j.host_id WHERE j.run_id=$run AND h.name='h1' AND j.$planned
	ORDER BY j.started_ms)")
check "variants interleave across repetitions ($order)" \
	test "$order" = "drop pass tx drop pass tx drop pass tx"

# every sample traces back to plan text, object, host, kernel and variant
plan_sha=$(sha256sum "$top/plans/quickstart.yaml" | cut -d' ' -f1)
untraced=$(sql "SELECT count(*) FROM samples s
	LEFT JOIN jobs j ON j.id = s.job_id LEFT JOIN runs r ON r.id = j.run_id
	LEFT JOIN plans p ON p.id = r.plan_id LEFT JOIN hosts h ON h.id = j.host_id
	LEFT JOIN host_envs e ON e.id = j.env_id LEFT JOIN job_specs js ON js.id = j.spec_id
	WHERE j.run_id=$run AND (p.sha256 IS NOT '$plan_sha' OR length(p.text) = 0
	   OR h.name IS NULL OR e.kernel_release IS NOT '$(uname -r)' OR j.variant IS NULL
	   OR js.text IS NULL OR js.text NOT LIKE '%\"sha256\"%')")
check "every sample traces to plan text, host, kernel, variant, object hash" test "$untraced" = 0
objs=$(sql "SELECT count(*) FROM run_objects ro JOIN objects o ON o.sha256 = ro.sha256
	WHERE ro.run_id=$run AND o.sha256 = '$(sha256sum "$top/build/bpf/xdp_basic.bpf.o" | cut -d' ' -f1)'")
check "the run's object is stored with the hash of build/bpf/xdp_basic.bpf.o" test "$objs" = 1

# real numbers: every job measured a receive rate and a program cost
zero_rx=$(sql "SELECT count(*) FROM jobs j WHERE j.run_id=$run AND NOT EXISTS (SELECT 1 FROM
	samples s WHERE s.job_id=j.id AND s.metric='port.rx_pps' AND s.subject='b'
	AND s.window='rate' AND s.seq IS NULL AND s.value > 1000)")
check "every job received more than 1000 pps on port b" test "$zero_rx" = 0
zero_ns=$(sql "SELECT count(*) FROM jobs j WHERE j.run_id=$run AND NOT EXISTS (SELECT 1 FROM
	samples s WHERE s.job_id=j.id AND s.metric='prog.ns_per_run' AND s.window='cost'
	AND s.seq IS NULL AND s.value > 0 AND s.value < 100000)")
check "every job measured ns per program run in the cost window" test "$zero_ns" = 0
persec=$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id=s.job_id
	WHERE j.run_id=$run AND s.seq IS NOT NULL")
check "per-second samples stored too ($persec)" test "$persec" -gt 0
distinct=$(sql "SELECT count(DISTINCT round(value)) FROM samples s JOIN jobs j ON j.id=s.job_id
	WHERE j.run_id=$run AND s.metric='port.rx_pps' AND s.seq IS NULL AND s.subject='b'")
check "receive rates differ between jobs ($distinct distinct of 18)" test "$distinct" -gt 9
drop_rx=$(sql "SELECT avg(s.value) FROM samples s JOIN jobs j ON j.id=s.job_id WHERE
	j.run_id=$run AND j.variant='drop' AND s.metric='port.rx_pps' AND s.seq IS NULL")
pass_rx=$(sql "SELECT avg(s.value) FROM samples s JOIN jobs j ON j.id=s.job_id WHERE
	j.run_id=$run AND j.variant='pass' AND s.metric='port.rx_pps' AND s.seq IS NULL")
echo "mean rx pps: drop $drop_rx, pass $pass_rx"
check "XDP_DROP receives faster than XDP_PASS" awk -v d="$drop_rx" -v p="$pass_rx" 'BEGIN { exit !(d > p) }'

# --- the table, and the same numbers as JSON, through the coordinator and offline
"$bpflab" result show "$run" > "$tmp/table.txt"
cat "$tmp/table.txt"
# a loaded machine adds repetitions: above 5 the table has n, min, median, max instead
check "table has a column per repetition, or their summary" \
	grep -Eq "results-3| median " "$tmp/table.txt"
check "table fits 100 columns" \
	python3 -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' "$tmp/table.txt"
"$bpflab" result show "$run" --wide > "$tmp/wide.txt"
check "--wide has a column per repetition" grep -q "results-3" "$tmp/wide.txt"
check "table has mean ± spread" grep -q "±" "$tmp/table.txt"
for v in drop pass tx; do
	check "table has a row for variant $v" grep -Eq "^$v +" "$tmp/table.txt"
done
check "table shows ns per program run" grep -q "xdp_drop" "$tmp/table.txt"
"$bpflab" -j result show "$run" > "$tmp/live.json"
"$bpflab" --db "$LAB_DB" -j result show "$run" > "$tmp/offline.json"
check "result show --json parses" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/live.json"
check "--db FILE gives the same JSON as the coordinator" cmp -s "$tmp/live.json" "$tmp/offline.json"
python3 - "$tmp/live.json" "$LAB_DB" "$run" <<'PY' && ok "JSON numbers equal the stored samples" || fail "JSON numbers differ from the stored samples"
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
run = int(sys.argv[3])
checked = 0
for g in doc["groups"]:
    for sec in g["sections"]:
        for row in sec["rows"]:
            for i, v in enumerate(row["values"]):
                if v is None:
                    # no value: a repetition this variant did not have (the
                    # controller added repetitions to another variant) or a failed job
                    continue
                (stored,) = db.execute("""SELECT s.value FROM samples s JOIN jobs j ON
                    j.id = s.job_id JOIN hosts h ON h.id = j.host_id WHERE j.run_id = ?
                    AND h.name = ? AND j.variant = ? AND j.rep = ? AND s.metric = ?
                    AND s.subject = ? AND s.window = ? AND s.seq IS NULL""",
                    (run, g["host"], row["variant"], i + 1, sec["metric"], row["subject"],
                     sec["window"])).fetchone()
                assert abs(v - stored) <= 1e-12 * max(1.0, abs(stored)), (row, i, v, stored)
                checked += 1
(n,) = db.execute("""SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id
    WHERE j.run_id = ? AND s.seq IS NULL""", (run,)).fetchone()
assert checked == n, (checked, n)
print("checked", checked, "values")
PY

# --- driver counters (ethtool -S, docs/agent.md "Driver counters"): records nic.* per
# port over the rate window, beside port.*; a table of their own with --all-rows
far=$(sql "SELECT count(*) FROM jobs j WHERE j.run_id=$run AND j.variant='drop' AND NOT EXISTS
	(SELECT 1 FROM samples n JOIN samples p ON p.job_id = n.job_id WHERE n.job_id=j.id
	AND n.metric='nic.rx_queue_0_xdp_drops' AND n.subject='b' AND n.unit='pps'
	AND n.window='rate' AND n.seq IS NULL AND p.metric='port.rx_pps' AND p.subject='b'
	AND p.seq IS NULL AND abs(n.value - p.value) < 0.02 * p.value)")
check "every drop job recorded veth's xdp_drops on b within 2% of port.rx_pps" test "$far" = 0
check "no nic.* sample of a counter that did not move or is none (peer_ifindex)" \
	test "$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id=s.job_id WHERE
	j.run_id=$run AND s.metric LIKE 'nic.%' AND (s.value <= 0 OR s.metric = 'nic.peer_ifindex')")" = 0
check "xdp bytes are Bps" test "$(sql "SELECT DISTINCT s.unit FROM samples s JOIN jobs j ON
	j.id=s.job_id WHERE j.run_id=$run AND s.metric='nic.rx_queue_0_xdp_bytes'")" = Bps
check "the driver counters table is left out by default" bash -c "! grep -q '^driver counters' '$tmp/table.txt'"
check "... and counted with the record tables" \
	sh -c 'grep -A1 "record tables left out (" "$1" | grep -q "driver"' - "$tmp/table.txt"
"$bpflab" result show "$run" --all-rows > "$tmp/all.txt"
sed -n '/^driver counters/,/^$/p' "$tmp/all.txt"
check "--all-rows shows the driver counters table" grep -q "^driver counters" "$tmp/all.txt"
check "... with veth's xdp_drops of b in pps" grep -Eq "^ +b +rx_queue_0_xdp_drops +pps" "$tmp/all.txt"

# a plan that lists nic.NAME: a metric to compare, zero rates kept; one no port exports
# fails its jobs, naming what there is
sed -e 's/^metrics: .*/metrics: [port.rx_pps, nic.rx_queue_0_xdp_drops]/' -e 's/^repeat: 3/repeat: 1/' \
	"$top/plans/quickstart.yaml" > "$tmp/nic.yaml"
sed 's/nic.rx_queue_0_xdp_drops/nic.rx_queue_0_xdp_dropz/' "$tmp/nic.yaml" > "$tmp/nic-missing.yaml"
out=$("$bpflab" run submit "$tmp/nic.yaml" -s traffic.duration=1s -s traffic.warmup=500ms --wait)
nrun=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
"$bpflab" result show "$nrun" > "$tmp/nic.txt"
cat "$tmp/nic.txt"
check "a listed nic.NAME has its own table" grep -q "^nic.rx_queue_0_xdp_drops  (packets/s" "$tmp/nic.txt"
check "... a zero rate kept (pass drops nothing)" test "$(sql "SELECT count(*) FROM samples s
	JOIN jobs j ON j.id=s.job_id WHERE j.run_id=$nrun AND j.variant='pass'
	AND s.metric='nic.rx_queue_0_xdp_drops' AND s.value = 0")" -gt 0
"$bpflab" -j result compare "$run" "$nrun" --all > "$tmp/nic-cmp.json" 2>/dev/null || true
check "compare leaves the recorded nic.* out" test \
	"$(jq '[.comparisons[].rows[]?.metric | select(startswith("nic."))] | length' "$tmp/nic-cmp.json")" = 0
check "... and takes a listed nic.NAME as a metric (only in the second run)" test \
	"$(jq -r '[.comparisons[].only_candidate[]?.metric | select(startswith("nic."))] | unique | join(",")' "$tmp/nic-cmp.json")" \
	= nic.rx_queue_0_xdp_drops
out=$("$bpflab" run submit "$tmp/nic-missing.yaml" --wait 2>&1 || true)
mrun=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
err=$(sql "SELECT error FROM jobs WHERE run_id=$mrun LIMIT 1")
echo "$err"
check "a nic.NAME no port has fails its jobs" test "$(sql "SELECT count(*) FROM jobs
	WHERE run_id=$mrun AND state='failed'")" = 6
check "... saying so and naming the counters there are" bash -c "grep -q \"no job port has driver counter 'rx_queue_0_xdp_dropz'.*port 'a' (veth) has: .*rx_queue_0_xdp_drops\" <<< \"\$1\"" _ "$err"

# --- nothing left behind once the lab is down
lab_stop
check "no namespace of the lab is left" bash -c "! ip netns list | grep -q 'bpflab-$LAB_NAME-'"
check "no agent or coordinator of the lab is left" no_lab_processes
# programs are freed a moment after their last reference goes (RCU). bpftool cannot say
# whose a program is, so with another lab or BPF test up on this machine (its namespaces
# or agents) programs of these names may be theirs: the check needs the machine alone.
no_lab_progs() { ! bpftool prog show 2>/dev/null | grep -Eq 'name (xdp_drop|xdp_pass|xdp_tx|xdp_gen)( |$)'; }
if ip netns list 2>/dev/null | grep -q '^bpflab-' || pgrep -x bpflab-agent >/dev/null; then
	skip_check "no XDP program of the lab is left loaded (other labs are up: their programs have the same names)"
else
	wait_for 10 no_lab_progs || true
	check "no XDP program of the lab is left loaded" no_lab_progs
fi
finish
