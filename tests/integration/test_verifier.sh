#!/bin/bash
# test_verifier.sh - verifier statistics on a 2-host lab in a box:
# plans/verifier-across-kernels.yaml (`verifier: stats`, no traffic) loads the four experiments' programs on
# both hosts; every program gets its load figures as samples (verified insns, states,
# JIT'd bytes), exactly the same on every job of this one kernel, and `result verifier`
# shows them (-j and the table), by kernel (one group) and by host (two groups, DIFF
# +0, MATCH). A variant the verifier refuses is a failed job whose error names the
# program and ends with the verifier's last lines, a "failure" verdict in the report.
. "$(dirname "$0")/lib.sh"

lab_start 2
tmp=$(mktemp -d /tmp/bpflab-it-XXXXXX)
cleanup_later "$tmp"

out=$("$bpflab" run submit "$top/plans/verifier-across-kernels.yaml" --wait)
echo "$out"
run=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "run submitted (run '$run')" test -n "$run"
check "32 jobs (8 variants x 2 reps x 2 hosts), all done" \
	test "$(sql "SELECT count(*) FROM jobs WHERE run_id=$run AND state='done' AND $planned")" = 32
check "no job ran a rate or cost window" \
	test "$(sql "SELECT count(*) FROM samples s JOIN jobs j ON j.id = s.job_id
		WHERE j.run_id=$run AND s.metric IN ('port.rx_pps', 'prog.ns_per_run')")" = 0

"$bpflab" -j result verifier "$run" > "$tmp/v.json"
check "result verifier -j: 17 programs" test "$(jq '.programs | length' "$tmp/v.json")" = 17
check "one group, this kernel" test "$(jq -r '.groups | join(",")' "$tmp/v.json")" = "$(uname -r)"
check "every program loaded: success, MATCH" \
	test "$(jq '[.programs[] | select(.verdict != "MATCH" or .groups[0].verdict != "success")] | length' "$tmp/v.json")" = 0
check "every program has verified insns > 0, states and JIT'd bytes" \
	test "$(jq '[.programs[] | .groups[0].values | select((.["verifier.insns"] // 0) > 0
		and .["verifier.total_states"] != null and (.["prog.jited_bytes"] // 0) > 0
		and .["verifier.processed_insns"] == .["verifier.insns"])] | length' "$tmp/v.json")" = 17
check "the figures repeat exactly over the 4 jobs of each program (time aside)" \
	test "$(jq '[.programs[] | .groups[0] | select(.n != 4 or (.varies - ["verifier.time_us"] | length) > 0)] | length' "$tmp/v.json")" = 0
jq -r '.programs[] | "\(.variant) \(.program) \(.groups[0].values["verifier.insns"])"' "$tmp/v.json"

"$bpflab" -j result verifier "$run" --by host > "$tmp/h.json"
check "by host: groups h1, h2 (in the order first measured)" test "$(jq -r '.groups | sort | join(",")' "$tmp/h.json")" = "h1,h2"
check "by host: no DIFF in verified insns, all MATCH" \
	test "$(jq '[.programs[] | select(.verdict != "MATCH" or .diff["verifier.insns"].delta != 0)] | length' "$tmp/h.json")" = 0
"$bpflab" result verifier "$run" --by host > "$tmp/h.txt"
cat "$tmp/h.txt"
check "the table has A/B/DIFF columns" grep -Eq "Insns \(A\) +Insns \(B\) +Insns \(DIFF\)" "$tmp/h.txt"
check "the table has +0 (+0.00%) for cnt_ingress" grep -Eq "cnt_ingress .*\+0 \(\+0\.00%\)" "$tmp/h.txt"
check "compare works on verifier.insns by host" \
	"$bpflab" result compare --plan verifier-across-kernels --by host --metric verifier.insns

# --- a program the verifier refuses: a stored, comparable verdict
sed -e '/^variants:/,$d' "$top/plans/verifier-across-kernels.yaml" > "$tmp/bad.yaml"
cat >> "$tmp/bad.yaml" <<'YAML'
variants:
  good:
    - {port: b, hook: xdp, mode: native, object: test_agent.bpf.o, program: xdp_sport_count}
  bad:
    - {port: b, hook: xdp, mode: native, object: test_agent.bpf.o, program: xdp_bad}
repeat: 1
metrics: [verifier.insns]
YAML
sed -i 's/^name: .*/name: verifier-refused/' "$tmp/bad.yaml"
out=$("$bpflab" run submit "$tmp/bad.yaml" --wait || true)
run2=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9][0-9]*\) submitted.*/\1/p' | head -n 1)
check "refusing run submitted (run '$run2')" test -n "$run2"
err=$(sql "SELECT error FROM jobs WHERE run_id=${run2:-0} AND variant='bad' LIMIT 1")
check "the failed job names the program and the verifier's last lines ($err)" \
	bash -c "grep -q \"cannot load program 'xdp_bad'.*(verifier: .*processed [0-9]* insns\" <<<\"\$1\"" _ "$err"
"$bpflab" -j result verifier "${run2:-0}" --by host > "$tmp/r.json"
check "xdp_bad: failure on both hosts, MATCH of the verdict" \
	test "$(jq -r '.programs[] | select(.program == "xdp_bad") | [.groups[].verdict, .verdict] | join(",")' "$tmp/r.json")" = "failure,failure,MATCH"
check "xdp_sport_count: success on both hosts" \
	test "$(jq -r '.programs[] | select(.program == "xdp_sport_count") | [.groups[].verdict, .verdict] | join(",")' "$tmp/r.json")" = "success,success,MATCH"
rc=0
"$bpflab" result verifier "${run2:-0}" --by frob 2> "$tmp/by.err" || rc=$?
check "--by with an unknown field: exit 2 ($rc)" test "$rc" = 2
check "... listing the fields" grep -q "kernel.release" "$tmp/by.err"
finish
